/* cmd-scx.c - `lab scx build` builds a kernel tree's sched_ext schedulers
 * (and selftests) statically against a kernel's BTF; `lab scx --list`. */
#include "cmd/lab.h"
#include "cmd/options.h"
#include "kernel/kbuild.h"
#include "kernel/kernel.h"
#include "scx/scx.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char scx_usage[] =
	"usage: lab scx build [--ksrc debian:SERIES|DIR|TARBALL] [--kernel K] [-j N] [--json]\n"
	"   or: lab scx --list [--json]\n"
	"\n"
	"   build    builds every scheduler of the tree's tools/sched_ext (scx_simple, scx_qmap,\n"
	"            scx_central, ...) and its tools/testing/selftests/sched_ext runner, as\n"
	"            static x86_64 programs the guest runs from its initrd, against the BTF\n"
	"            of the kernel --kernel names (default debian:latest); cached in\n"
	"            <cache>/scx/<key> by source, BTF and compilers\n"
	"   --ksrc   the kernel source (default: debian:SERIES of a Debian --kernel, the\n"
	"            linux-source package of its series)\n"
	"   --list   the schedulers the lab knows, what each does, and the cached builds";

static int list_schedulers(int json)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < nr_scx_scheds; i++) {
		const struct scx_sched *s = scx_scheds[i];

		if (json) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "name", json_object_new_string(s->name));
			json_object_object_add(o, "binary", json_object_new_string(s->binary));
			json_object_object_add(o, "ops", json_object_new_string(s->ops));
			json_object_object_add(o, "summary", json_object_new_string(s->summary));
			json_object_object_add(o, "min_cpus", json_object_new_int((int)s->min_cpus));
			json_object_object_add(o, "stall_args",
					       s->stall_args ? json_object_new_string(s->stall_args) : NULL);
			json_object_object_add(o, "timeout_ms",
					       json_object_new_int((int)(s->timeout_ms ? s->timeout_ms :
									 SCX_DEFAULT_TIMEOUT_MS)));
			json_object_array_add(a, o);
		} else {
			printf("%-9s %-13s %s\n", s->name, s->binary, s->summary);
		}
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY));
	json_object_put(a);
	return LAB_EXIT_PASS;
}

static void print_build(const struct scx_build *b, const struct kernel_paths *kp, int json)
{
	if (json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();

		json_object_object_add(o, "key", json_object_new_string(b->key));
		json_object_object_add(o, "dir", json_object_new_string(b->dir));
		json_object_object_add(o, "kernel_release", json_object_new_string(kp->release));
		json_object_object_add(o, "cached", json_object_new_boolean(b->cached));
		json_object_object_add(o, "seconds", json_object_new_double(b->seconds));
		for (size_t i = 0; i < b->schedulers.nr; i++)
			json_object_array_add(a, json_object_new_string(b->schedulers.v[i]));
		json_object_object_add(o, "schedulers", a);
		json_object_object_add(o, "selftests", json_object_new_boolean(b->selftests));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
		return;
	}
	printf("key: %s\ndir: %s\nkernel: %s\n%s: %.1f s\nschedulers:", b->key, b->dir, kp->release,
	       b->cached ? "cached (built in)" : "built in", b->seconds);
	for (size_t i = 0; i < b->schedulers.nr; i++)
		printf(" %s", b->schedulers.v[i]);
	printf("\nselftests: %s\n", b->selftests ? "yes" : "no (the tree has none)");
}

int cmd_scx(int argc, const char **argv)
{
	const char *ksrc = NULL, *kernel = "debian:latest", *pos[1];
	struct strbuf err = STRBUF_INIT;
	struct scx_build b = SCX_BUILD_INIT;
	struct kernel_paths kp;
	unsigned jobs = 0;
	int list = 0, json = 0, nr_pos = 0, ret;
	char series[32], spec[48];
	const struct lab_option opts[] = {
		OPT_STRING("ksrc", &ksrc, "kernel source: debian:SERIES, a tree or a tarball"),
		OPT_STRING("kernel", &kernel, "the kernel whose BTF the schedulers compile against "
						"(default debian:latest)"),
		OPT_UINT("j", &jobs, 1, 1024, "make -j (default: online CPUs)"),
		OPT_BOOL("list", &list, "the schedulers the lab knows"),
		OPT_BOOL("json", &json, "print one JSON value"),
		OPT_END(),
	};

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("%s\n", scx_usage);
			return LAB_EXIT_PASS;
		}
	ret = parse_options(argc, argv, opts, "lab scx build [--ksrc SRC] [--kernel K] [-j N] [--json], "
			    "or lab scx --list [--json]", pos, 1, &nr_pos);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (list)
		return list_schedulers(json);
	if (nr_pos != 1 || strcmp(pos[0], "build"))
		die(LAB_EXIT_USAGE, "give 'build' or --list (usage: lab scx build [--ksrc SRC] "
				    "[--kernel K])");
	if (kernel_resolve(kernel, &kp, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (kernel_config_has(kp.config, "SCHED_CLASS_EXT") <= 0)
		die(LAB_EXIT_USAGE, "kernel %s has no sched_ext (CONFIG_SCHED_CLASS_EXT is not set): "
				    "Debian's 7.x kernels have it, 6.12 needs a lab-built kernel "
				    "(lab kernel build --ksrc debian:6.12 --config sched-ext)", kp.release);
	if (!ksrc) {
		if (strcmp(kp.source, "debian") ||
		    scx_series_of_release(kp.release, series, sizeof(series)) < 0)
			die(LAB_EXIT_USAGE, "kernel %s is not Debian's: give --ksrc (the tree it was "
					    "built from)", kp.release);
		snprintf(spec, sizeof(spec), "debian:%s", series);
		ksrc = spec;
	}
	{
		struct scx_build_opts o = { .ksrc = ksrc, .vmlinux = kp.vmlinux, .release = kp.release,
					    .arch = TOPO_ARCH_X86_64, .jobs = jobs,
					    .progress = isatty(2) || !json };

		ret = scx_build(&o, &b, &err);
	}
	if (ret)
		die(ret == KBUILD_BAD_INPUT ? LAB_EXIT_USAGE : LAB_EXIT_FAIL, "%s", err.buf);
	print_build(&b, &kp, json);
	scx_build_release(&b);
	strbuf_release(&err);
	return LAB_EXIT_PASS;
}
