/* cmd-topo.c - `lab topo`: resolve a topology spec or preset and print its
 * summary, QEMU argv, libvirt XML, expected guest view or the preset list. */
#include "cmd/lab.h"
#include "topo/topo.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lab topo [--accel tcg|kvm] [--qemu | --libvirt | --json] <spec|preset>[,key=value...]\n"
	"   or: lab topo --list\n"
	"\n"
	"  <spec>        <sockets>s<cores>c[<threads>t], e.g. 2s64c, 2s26c2t\n"
	"  options       llc=<cores per LLC>, nps=<1|2|4>, mem=<per node, e.g. 2G>,\n"
	"                dist=<remote distance> or dist=<a:b:...> (n*n matrix),\n"
	"                memnodes=<memory-only nodes>, memnodemem=<size of each>,\n"
	"                hotplug=<spare CPU slots, empty at boot, for vCPU hot-add>\n"
	"  --qemu        the QEMU arguments, one per line\n"
	"  --libvirt     a libvirt domain XML\n"
	"  --json        the view the guest kernel should have\n"
	"  --list        the presets\n"
	"  --accel A     tcg (default) or kvm: limits and CPU model\n";

enum topo_mode { MODE_SUMMARY, MODE_QEMU, MODE_LIBVIRT, MODE_JSON, MODE_LIST };

static uint64_t host_mem_mib(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return 0;
	return (uint64_t)pages * (uint64_t)size >> 20;
}

static int host_is_amd(void)
{
	char *info = read_file("/proc/cpuinfo", NULL);
	int amd = info && strstr(info, "AuthenticAMD");

	free(info);
	return amd;
}

/* The user's text goes back into a one-line message: no control
 * characters, and not all of a very long one. */
static char *printable(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (++n > 80) {
			strbuf_addstr(&sb, "...");
			break;
		}
		strbuf_addch(&sb, *p >= 0x20 && *p < 0x7f ? *p : '?');
	}
	return strbuf_detach(&sb);
}

static int bad_topology(const char *spec, const char *why)
{
	char *shown = printable(spec);

	error("bad topology '%s': %s", shown, why);
	free(shown);
	return LAB_EXIT_USAGE;
}

static int list_presets(void)
{
	struct topo_preset *presets;
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	int nr = topo_presets_load(&presets);

	if (nr < 0)
		return LAB_EXIT_FAIL;
	for (int i = 0; i < nr; i++) {
		struct topo t;

		if (topo_parse(presets[i].name, &t, &err)) {
			bad_topology(presets[i].name, err.buf);
			free(presets);
			strbuf_release(&err);
			strbuf_release(&line);
			return LAB_EXIT_FAIL;
		}
		strbuf_reset(&line);
		topo_describe(&t, &line);
		printf("%s; %s\n", line.buf, presets[i].description);
	}
	free(presets);
	strbuf_release(&err);
	strbuf_release(&line);
	return LAB_EXIT_PASS;
}

static int set_mode(enum topo_mode *mode, enum topo_mode want, const char *opt)
{
	if (*mode != MODE_SUMMARY && *mode != want)
		return error("%s cannot be combined with another output option", opt);
	*mode = want;
	return 0;
}

int cmd_topo(int argc, const char **argv)
{
	enum topo_mode mode = MODE_SUMMARY;
	enum lab_accel accel = ACCEL_TCG;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	const char *spec = NULL;
	struct topo t;
	int ret = LAB_EXIT_USAGE;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *accel_arg = NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return LAB_EXIT_PASS;
		} else if (!strcmp(a, "--qemu")) {
			if (set_mode(&mode, MODE_QEMU, a))
				return LAB_EXIT_USAGE;
		} else if (!strcmp(a, "--libvirt")) {
			if (set_mode(&mode, MODE_LIBVIRT, a))
				return LAB_EXIT_USAGE;
		} else if (!strcmp(a, "--json")) {
			if (set_mode(&mode, MODE_JSON, a))
				return LAB_EXIT_USAGE;
		} else if (!strcmp(a, "--list")) {
			if (set_mode(&mode, MODE_LIST, a))
				return LAB_EXIT_USAGE;
		} else if (!strcmp(a, "--accel")) {
			if (++i == argc) {
				error("--accel needs tcg or kvm");
				return LAB_EXIT_USAGE;
			}
			accel_arg = argv[i];
		} else if (!strncmp(a, "--accel=", 8)) {
			accel_arg = a + 8;
		} else if (a[0] == '-' && a[1]) {
			char *shown = printable(a);

			error("unknown option '%s' (see 'lab topo --help')", shown);
			free(shown);
			return LAB_EXIT_USAGE;
		} else if (spec) {
			char *one = printable(spec), *two = printable(a);

			error("only one topology at a time, got '%s' and '%s'", one, two);
			free(one);
			free(two);
			return LAB_EXIT_USAGE;
		} else {
			spec = a;
		}
		if (accel_arg) {
			if (!strcmp(accel_arg, "tcg")) {
				accel = ACCEL_TCG;
			} else if (!strcmp(accel_arg, "kvm")) {
				accel = ACCEL_KVM;
			} else {
				char *shown = printable(accel_arg);

				error("--accel must be tcg or kvm, not '%s'", shown);
				free(shown);
				return LAB_EXIT_USAGE;
			}
		}
	}

	if (mode == MODE_LIST) {
		if (spec) {
			error("--list takes no topology");
			return LAB_EXIT_USAGE;
		}
		return list_presets();
	}
	if (!spec) {
		error("no topology given (see 'lab topo --help')");
		return LAB_EXIT_USAGE;
	}
	if (topo_parse(spec, &t, &err)) {
		ret = bad_topology(spec, err.buf);
		goto out;
	}
	/* the summary and view are worth seeing even where the guest cannot boot */
	if (topo_check_limits(&t, accel, host_mem_mib(), &err)) {
		if (mode == MODE_QEMU || mode == MODE_LIBVIRT) {
			ret = bad_topology(spec, err.buf);
			goto out;
		}
		warning("%s", err.buf);
	}

	switch (mode) {
	case MODE_SUMMARY:
		topo_describe(&t, &out);
		printf("%s\n", out.buf);
		break;
	case MODE_QEMU: {
		struct strvec av = STRVEC_INIT;

		topo_qemu_argv(&t, accel, accel == ACCEL_KVM && host_is_amd() ? TOPO_QEMU_HOST_AMD : 0, &av);
		printf("%s\n", topo_arch_info(t.arch)->qemu);
		for (size_t i = 0; i < av.nr; i++)
			printf("%s\n", av.v[i]);
		strvec_clear(&av);
		break;
	}
	case MODE_LIBVIRT: {
		char *name = xasprintf("schedlab-%s", t.name[0] ? t.name : "topo");
		char *xml = topo_libvirt_xml(&t, accel, name, NULL, NULL, NULL);

		fputs(xml, stdout);
		free(xml);
		free(name);
		break;
	}
	case MODE_JSON: {
		struct json_object *view = topo_expected_view(&t);

		printf("%s\n", json_object_to_json_string_ext(view,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(view);
		break;
	}
	case MODE_LIST:
		break;
	}
	ret = fflush(stdout) ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
out:
	strbuf_release(&err);
	strbuf_release(&out);
	return ret;
}
