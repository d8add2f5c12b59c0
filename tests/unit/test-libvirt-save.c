/* test-libvirt-save.c - unit tests of the warm start's libvirt XML: a save
 * image's domain rewritten for the restoring run, and the owner metadata. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/libvirt-save.h"

/* As virDomainSaveImageGetXMLDesc returned it for a saved 1s4c2t guest, trimmed */
static const char saved[] =
	"<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
	"  <name>schedlab-13090</name>\n"
	"  <uuid>0adeac27-707c-4082-bd41-9dc923d59c37</uuid>\n"
	"  <memory unit='KiB'>524288</memory>\n"
	"  <vcpu placement='static'>8</vcpu>\n"
	"  <os>\n"
	"    <type arch='x86_64' machine='pc-q35-7.2'>hvm</type>\n"
	"    <kernel>/old/kernel</kernel>\n"
	"    <initrd>/old/initrd</initrd>\n"
	"    <cmdline>console=ttyS0 lab.mode=warm</cmdline>\n"
	"  </os>\n"
	"  <cpu mode='maximum' check='none' migratable='off'>\n"
	"    <topology sockets='1' dies='1' cores='4' threads='2'/>\n"
	"  </cpu>\n"
	"  <devices>\n"
	"    <serial type='unix'>\n"
	"      <source mode='connect' path='/old/console.sock'/>\n"
	"      <target type='isa-serial' port='0'><model name='isa-serial'/></target>\n"
	"    </serial>\n"
	"    <serial type='unix'>\n"
	"      <source mode='connect' path='/old/records.sock'/>\n"
	"      <target type='isa-serial' port='1'><model name='isa-serial'/></target>\n"
	"    </serial>\n"
	"    <console type='unix'>\n"
	"      <source mode='connect' path='/old/console.sock'/>\n"
	"      <target type='serial' port='0'/>\n"
	"    </console>\n"
	"  </devices>\n"
	"  <seclabel type='none' model='dac'/>\n"
	"  <qemu:commandline>\n"
	"    <qemu:arg value='-global'/>\n"
	"  </qemu:commandline>\n"
	"</domain>\n";

static const struct lv_restore_paths new_paths = {
	.kernel = "/run/lv/kernel", .initrd = "/run/lv/initrd",
	.console = "/run/lv/console.sock", .records = "/run/lv/records.sock", .owner_pid = 4242,
};

static char *rewrite(const char *xml, const struct lv_restore_paths *p, struct strbuf *err)
{
	return lv_restore_xml(xml, strlen(xml), p, err);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_paths_rewritten(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *out = rewrite(saved, &new_paths, &err);

	assert_non_null(out);
	assert_null(strstr(out, "/old/"));
	assert_non_null(strstr(out, "<kernel>/run/lv/kernel</kernel>"));
	assert_non_null(strstr(out, "<initrd>/run/lv/initrd</initrd>"));
	/* serial 0 and the console (its mirror) on the new console socket */
	assert_int_equal(count(out, "path=\"/run/lv/console.sock\""), 2);
	assert_int_equal(count(out, "path=\"/run/lv/records.sock\""), 1);
	/* what libvirt's ABI check compares stays as saved */
	assert_non_null(strstr(out, "<name>schedlab-13090</name>"));
	assert_non_null(strstr(out, "<uuid>0adeac27-707c-4082-bd41-9dc923d59c37</uuid>"));
	assert_non_null(strstr(out, "<topology sockets=\"1\" dies=\"1\" cores=\"4\" threads=\"2\"/>"));
	assert_non_null(strstr(out, "<cmdline>console=ttyS0 lab.mode=warm</cmdline>"));
	assert_non_null(strstr(out, "<qemu:arg value=\"-global\"/>"));
	assert_non_null(strstr(out, "<lab:run xmlns:lab=\"" LV_META_NS "\" pid=\"4242\"/>"));
	{
		char *name = lv_domain_name(out, strlen(out));

		assert_string_equal(name, "schedlab-13090");
		free(name);
	}
	free(out);
	strbuf_release(&err);
}

/* paths are data: quotes, ampersands and angle brackets are escaped */
static void test_paths_escaped(void **state)
{
	struct lv_restore_paths p = new_paths;
	struct strbuf err = STRBUF_INIT;
	char *out, *name;

	p.kernel = "/a&b/<k>";
	p.console = "/it's \"here\"/c.sock";
	out = rewrite(saved, &p, &err);
	assert_non_null(out);
	assert_non_null(strstr(out, "<kernel>/a&amp;b/&lt;k&gt;</kernel>"));
	assert_non_null(strstr(out, "path=\"/it's &quot;here&quot;/c.sock\""));
	name = lv_domain_name(out, strlen(out));
	assert_string_equal(name, "schedlab-13090");
	free(name);
	free(out);
	strbuf_release(&err);
}

/* a restore of a restore: our element is replaced, others' metadata kept */
static void test_metadata_replaced(void **state)
{
	struct lv_restore_paths p = new_paths;
	struct strbuf err = STRBUF_INIT;
	char *first, *second;

	first = rewrite(saved, &new_paths, &err);
	assert_non_null(first);
	{
		/* someone else's element beside ours */
		char *meta = strstr(first, "<metadata>");
		struct strbuf with = STRBUF_INIT;

		assert_non_null(meta);
		meta += strlen("<metadata>");
		strbuf_add(&with, first, (size_t)(meta - first));
		strbuf_addstr(&with, "<o:x xmlns:o=\"urn:other\"/>");
		strbuf_addstr(&with, meta);
		p.owner_pid = 77;
		second = rewrite(with.buf, &p, &err);
		strbuf_release(&with);
	}
	assert_non_null(second);
	assert_int_equal(count(second, "<metadata>"), 1);
	assert_int_equal(count(second, LV_META_NS), 1);
	assert_non_null(strstr(second, "pid=\"77\""));
	assert_null(strstr(second, "pid=\"4242\""));
	assert_non_null(strstr(second, "urn:other"));
	free(first);
	free(second);
	strbuf_release(&err);
}

static void replace_in(struct strbuf *out, const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);

	assert_non_null(p);
	strbuf_add(out, text, (size_t)(p - text));
	strbuf_addstr(out, to);
	strbuf_addstr(out, p + strlen(from));
}

static void expect_refused(const char *xml, const char *why)
{
	struct strbuf err = STRBUF_INIT;
	char *out = rewrite(xml, &new_paths, &err);

	if (out)
		fail_msg("rewritten although %s: %s", why, out);
	assert_non_null(strstr(err.buf, why));
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
}

static void test_refused(void **state)
{
	struct strbuf x = STRBUF_INIT;

	expect_refused("", "does not parse");
	expect_refused("<domain", "does not parse");
	expect_refused("<network><name>n</name></network>", "does not parse as a <domain>");
	expect_refused("<domain><os/></domain>", "no <devices>");
	expect_refused("<domain><devices/></domain>", "no <os>");
	replace_in(&x, saved, "port='1'", "port='2'");
	expect_refused(x.buf, "other than 0 and 1");
	strbuf_reset(&x);
	replace_in(&x, saved, "<serial type='unix'>\n      <source mode='connect' path='/old/records.sock'/>",
		   "<serial type='pty'>\n      <source path='/dev/pts/3'/>");
	expect_refused(x.buf, "serial port 1 is not a unix socket");
	strbuf_reset(&x);
	replace_in(&x, saved, "<kernel>/old/kernel</kernel>", "");
	expect_refused(x.buf, "no <kernel>");
	strbuf_reset(&x);
	/* no second serial port at all */
	replace_in(&x, saved, "port='1'><model name='isa-serial'/></target>\n    </serial>",
		   "port='0'><model name='isa-serial'/></target>\n    </serial>");
	expect_refused(x.buf, "no serial port 1");
	strbuf_release(&x);
}

static void test_meta_owner(void **state)
{
	assert_int_equal(lv_meta_owner("<lab:run xmlns:lab=\"" LV_META_NS "\" pid=\"4242\"/>"), 4242);
	assert_int_equal(lv_meta_owner("<run xmlns=\"" LV_META_NS "\" pid=\"7\"></run>"), 7);
	assert_int_equal(lv_meta_owner("<lab:run xmlns:lab=\"urn:else\" pid=\"4242\"/>"), 0);
	assert_int_equal(lv_meta_owner("<lab:run xmlns:lab=\"" LV_META_NS "\" pid=\"-3\"/>"), 0);
	assert_int_equal(lv_meta_owner("<lab:run xmlns:lab=\"" LV_META_NS "\" pid=\"12x\"/>"), 0);
	assert_int_equal(lv_meta_owner("<lab:run xmlns:lab=\"" LV_META_NS "\"/>"), 0);
	/* as virDomainGetMetadata returns it: without the namespace */
	assert_int_equal(lv_meta_owner("<run pid=\"5\"/>\n"), 5);
	assert_int_equal(lv_meta_owner("<other pid=\"5\"/>"), 0);
	assert_int_equal(lv_meta_owner(""), 0);
	assert_int_equal(lv_meta_owner(NULL), 0);
}

static void test_domain_name(void **state)
{
	char *n = lv_domain_name(saved, strlen(saved));

	assert_string_equal(n, "schedlab-13090");
	free(n);
	assert_null(lv_domain_name("<domain/>", 9));
	assert_null(lv_domain_name("<domain><name></name></domain>", 30));
	assert_null(lv_domain_name("<pool><name>p</name></pool>", 27));
	assert_null(lv_domain_name("<domain", 7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_rewritten),
		cmocka_unit_test(test_paths_escaped),
		cmocka_unit_test(test_metadata_replaced),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_meta_owner),
		cmocka_unit_test(test_domain_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
