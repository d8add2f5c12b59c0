/* libvirt-save.c - warm start under libvirt: the domain XML a save image
 * holds, rewritten with libxml2 for the run that restores it. */
#define _GNU_SOURCE
#include "backend/libvirt-save.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libvirt's own domain XML is a few KiB; anything far past that is not one */
#define LV_XML_MAX (1u << 20)

static xmlDocPtr parse(const char *text, size_t len)
{
	if (!text || !len || len > LV_XML_MAX)
		return NULL;
	/* no network, no entity substitution, no messages on stderr */
	return xmlReadMemory(text, (int)len, "domain.xml", NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

static int named(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, BAD_CAST name);
}

static xmlNodePtr child(xmlNodePtr parent, const char *name)
{
	for (xmlNodePtr n = parent ? parent->children : NULL; n; n = n->next)
		if (named(n, name))
			return n;
	return NULL;
}

/* The element's text, literally (xmlNodeSetContent would read entities). */
static void set_text(xmlNodePtr n, const char *text)
{
	xmlNodeSetContent(n, NULL);
	xmlAddChild(n, xmlNewText(BAD_CAST text));
}

/* port= of a <serial>'s or <console>'s <target>; -1 when absent or odd. */
static int target_port(xmlNodePtr dev)
{
	xmlNodePtr t = child(dev, "target");
	xmlChar *v = t ? xmlGetProp(t, BAD_CAST "port") : NULL;
	int port = -1;

	if (v && (!xmlStrcmp(v, BAD_CAST "0") || !xmlStrcmp(v, BAD_CAST "1")))
		port = v[0] - '0';
	xmlFree(v);
	return port;
}

/* A unix chardev's <source path=>; 0 done, -1 when dev is no such chardev. */
static int set_source(xmlNodePtr dev, const char *path)
{
	xmlChar *type = xmlGetProp(dev, BAD_CAST "type");
	xmlNodePtr src = child(dev, "source");
	int unix_type = type && !xmlStrcmp(type, BAD_CAST "unix");

	xmlFree(type);
	if (!unix_type || !src)
		return -1;
	xmlSetProp(src, BAD_CAST "path", BAD_CAST path);
	return 0;
}

static int rewrite_devices(xmlNodePtr devices, const struct lv_restore_paths *paths,
			   struct strbuf *err)
{
	const char *sock[2] = { paths->console, paths->records };
	int seen[2] = { 0, 0 };

	for (xmlNodePtr n = devices->children; n; n = n->next) {
		int port, console = named(n, "console");

		if (!console && !named(n, "serial"))
			continue;
		port = target_port(n);
		/* the console is ttyS0 again (libvirt mirrors serial0 as it) */
		if (console && port != 0)
			continue;
		if (port < 0) {
			strbuf_addstr(err, "saved domain has a serial port other than 0 and 1");
			return -1;
		}
		if (set_source(n, sock[port]) < 0) {
			strbuf_addf(err, "saved domain's serial port %d is not a unix socket", port);
			return -1;
		}
		if (!console)
			seen[port] = 1;
	}
	if (!seen[0] || !seen[1]) {
		strbuf_addf(err, "saved domain has no serial port %d", seen[0] ? 1 : 0);
		return -1;
	}
	return 0;
}

/* <metadata><lab:run pid=/></metadata>: ours replaced, others kept */
static void set_owner(xmlNodePtr domain, long pid)
{
	xmlNodePtr meta = child(domain, "metadata"), run, next;
	xmlNsPtr ns;
	char buf[32];

	if (!meta)
		meta = xmlNewChild(domain, NULL, BAD_CAST "metadata", NULL);
	for (xmlNodePtr n = meta->children; n; n = next) {
		next = n->next;
		if (n->type == XML_ELEMENT_NODE && n->ns && !xmlStrcmp(n->ns->href, BAD_CAST LV_META_NS)) {
			xmlUnlinkNode(n);
			xmlFreeNode(n);
		}
	}
	run = xmlNewChild(meta, NULL, BAD_CAST "run", NULL);
	ns = xmlNewNs(run, BAD_CAST LV_META_NS, BAD_CAST "lab");
	xmlSetNs(run, ns);
	snprintf(buf, sizeof(buf), "%ld", pid);
	xmlSetProp(run, BAD_CAST "pid", BAD_CAST buf);
}

char *lv_restore_xml(const char *saved, size_t len, const struct lv_restore_paths *paths,
		     struct strbuf *err)
{
	xmlDocPtr doc = parse(saved, len);
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL, os, devices;
	xmlChar *out = NULL;
	char *ret = NULL;
	int outlen = 0;

	if (!root || !named(root, "domain")) {
		strbuf_addstr(err, "saved domain XML does not parse as a <domain>");
		goto out;
	}
	os = child(root, "os");
	devices = child(root, "devices");
	if (!os || !devices) {
		strbuf_addf(err, "saved domain has no <%s>", os ? "devices" : "os");
		goto out;
	}
	{
		const char *want[2] = { paths->kernel, paths->initrd };
		const char *tag[2] = { "kernel", "initrd" };

		for (unsigned i = 0; i < 2; i++) {
			xmlNodePtr n = child(os, tag[i]);

			if (!want[i])
				continue;
			if (!n) {
				strbuf_addf(err, "saved domain has no <%s>", tag[i]);
				goto out;
			}
			set_text(n, want[i]);
		}
	}
	if (rewrite_devices(devices, paths, err) < 0)
		goto out;
	set_owner(root, paths->owner_pid);
	xmlDocDumpMemory(doc, &out, &outlen);
	if (out && outlen > 0)
		ret = xstrdup((const char *)out);
	else
		strbuf_addstr(err, "cannot write the restored domain's XML");
	xmlFree(out);
out:
	xmlFreeDoc(doc);
	return ret;
}

long lv_meta_owner(const char *text)
{
	xmlDocPtr doc = text ? parse(text, strlen(text)) : NULL;
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
	xmlChar *v = NULL;
	long pid = 0;

	/* virDomainGetMetadata, asked by namespace, returns the element without it */
	if (root && named(root, "run") && (!root->ns || !xmlStrcmp(root->ns->href, BAD_CAST LV_META_NS)))
		v = xmlGetProp(root, BAD_CAST "pid");
	if (v) {
		char *end;

		pid = strtol((const char *)v, &end, 10);
		if (*end || pid <= 0)
			pid = 0;
	}
	xmlFree(v);
	xmlFreeDoc(doc);
	return pid;
}

char *lv_domain_name(const char *xml, size_t len)
{
	xmlDocPtr doc = parse(xml, len);
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL, n;
	xmlChar *v = NULL;
	char *ret = NULL;

	if (root && named(root, "domain") && (n = child(root, "name")))
		v = xmlNodeGetContent(n);
	if (v && *v)
		ret = xstrdup((const char *)v);
	xmlFree(v);
	xmlFreeDoc(doc);
	return ret;
}
