/* cmd-kernel.c - `lab kernel [debian|PATH|KEY]` locates a guest kernel;
 * `lab kernel build --ksrc ...` builds one from a tree into the cache. */
#include "kernel/kbuild.h"
#include "kernel/kernel.h"
#include "cmd/lab.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char kernel_usage[] =
	"usage: lab kernel [debian|PATH|KEY] [--arch ARCH] [--json]\n"
	"   or: lab kernel build --ksrc DIR|TARBALL [--patch FILE]... [--config NAME|FILE]...\n"
	"                        [--arch x86_64|arm64|ppc64le] [--rev REV] [-j N]\n"
	"                        [--key-only|--config-only] [--json]\n"
	"\n"
	"   debian   Debian's default amd64 kernel, downloaded once into the cache (default)\n"
	"   PATH     a bzImage, a vmlinux with a PVH note, or a built kernel tree\n"
	"   KEY      a kernel built by 'lab kernel build' (its key, or 8+ digits of it)\n"
	"   --arch   the guest arch the kernel is for (default x86_64): Debian's kernel\n"
	"            of that arch, or a built kernel or image refused when of another\n"
	"   --json   print the paths as one JSON object\n"
	"\n"
	"lab kernel build (also: lab kernel --ksrc ...) builds a kernel the lab can boot:\n"
	"   --ksrc DIR|TARBALL  a kernel tree (a git clone builds its tracked files: HEAD\n"
	"                       plus uncommitted changes; a plain tree is used as it is) or\n"
	"                       a tarball such as /usr/src/linux-source-6.1.tar.xz, unpacked\n"
	"                       once into the cache; the tree is never written\n"
	"   --patch FILE        a patch applied with 'patch -p1' to a hard-linked copy; repeat\n"
	"                       for a series (applied in the order given)\n"
	"   --config NAME|FILE  a Kconfig fragment from kernel-configs/ (lab-base, sched-debug,\n"
	"                       faults, core-sched, lockdep, kasan, numa-balancing, image) or a\n"
	"                       file; repeat, or give a comma/space list; lab-base is always\n"
	"                       merged first, then arch/<arch>, on top of 'make tinyconfig',\n"
	"                       then olddefconfig\n"
	"   --arch ARCH         the guest arch (default x86_64): arm64 and ppc64le are cross-\n"
	"                       built (gcc-aarch64-linux-gnu, gcc-powerpc64le-linux-gnu) into\n"
	"                       an Image or a vmlinux; a requested option only other arches\n"
	"                       have is left out with one line, not an error\n"
	"   --rev REV           a commit of a git tree, built incrementally: one kept build\n"
	"                       directory per tree and config, ccache when installed\n"
	"   -j N                parallel jobs for make (default: online CPUs)\n"
	"   --key-only          print the cache key and whether it is built; build nothing\n"
	"   --config-only       configure and check the requested options (seconds), then\n"
	"                       stop; nothing is cached\n"
	"\n"
	"The result is cached in <cache>/kernels/built/<key>/ under a key hashed from the\n"
	"source (git commit, tarball SHA-256, or a plain tree's file list with sizes and\n"
	"mtimes), the patches' and fragments' contents and 'gcc --version': the same inputs\n"
	"print the same key and build nothing.  Boot it with 'lab boot SPEC --kernel KEY'.\n"
	"Exit 2 (nothing cached) when the inputs are wrong: not a kernel tree, a patch that\n"
	"does not apply, a requested option that olddefconfig dropped, a compile error.\n";

static struct json_object *json_path_or_null(const char *path)
{
	return *path ? json_object_new_string(path) : NULL;
}

static void print_json(const struct kernel_paths *kp)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "release", json_object_new_string(kp->release));
	json_object_object_add(o, "source", json_object_new_string(kp->source));
	json_object_object_add(o, "bzimage", json_path_or_null(kp->bzimage));
	json_object_object_add(o, "vmlinux", json_path_or_null(kp->vmlinux));
	json_object_object_add(o, "config", json_path_or_null(kp->config));
	json_object_object_add(o, "modules", json_path_or_null(kp->modules));
	json_object_object_add(o, "boot_image",
			       json_object_new_string(kernel_paths_boot_image(kp)));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static const char *or_none(const char *path)
{
	return *path ? path : "none";
}

/* "a,b c" -> a, b, c */
static void push_list(struct strvec *sv, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;

	for (char *w = strtok_r(copy, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save))
		strvec_push(sv, w);
	free(copy);
}

static void print_build_json(const struct kbuild_result *res, int built)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "key", json_object_new_string(res->key));
	json_object_object_add(o, "cached", json_object_new_boolean(res->cached));
	json_object_object_add(o, "built", json_object_new_boolean(built));
	json_object_object_add(o, "dir", json_path_or_null(res->dir));
	json_object_object_add(o, "arch", json_object_new_string(topo_arch_info(res->arch)->name));
	json_object_object_add(o, "image", json_path_or_null(res->image));
	json_object_object_add(o, "bzimage", json_path_or_null(res->bzimage));
	json_object_object_add(o, "vmlinux", json_path_or_null(res->vmlinux));
	json_object_object_add(o, "config", json_path_or_null(res->config));
	json_object_object_add(o, "log", json_path_or_null(res->log));
	json_object_object_add(o, "seconds", json_object_new_double(res->seconds));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* x86_64's "bzImage: PATH" as before --arch; "arch:" and the image for others */
static void print_image(const struct kbuild_result *res)
{
	if (res->arch == TOPO_ARCH_X86_64) {
		printf("bzImage: %s\n", res->bzimage);
		return;
	}
	printf("arch: %s\n", topo_arch_info(res->arch)->name);
	printf("%s: %s\n", kbuild_arch(res->arch)->image, res->image);
}

static int need_value(int argc, const char **argv, int i)
{
	if (i + 1 < argc)
		return 0;
	error("option '%s' needs a value (see 'lab kernel --help')", argv[i]);
	return -1;
}

static int cmd_kernel_build(int argc, const char **argv)
{
	struct kbuild_opts opts = KBUILD_OPTS_INIT;
	struct kbuild_result res;
	struct strbuf err = STRBUF_INIT;
	int json = 0, ret, r;

	opts.progress = isatty(2);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "build") && i == 1) {
			continue;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(kernel_usage, stdout);
			ret = LAB_EXIT_PASS;
			goto out;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--key-only")) {
			opts.key_only = 1;
		} else if (!strcmp(a, "--config-only")) {
			opts.config_only = 1;
		} else if (!strncmp(a, "-j", 2) && a[2]) {
			if (parse_uint(a + 2, 1, 1024, &opts.jobs) < 0) {
				error("-j wants a number of jobs from 1 to 1024, not '%s'", a + 2);
				ret = LAB_EXIT_USAGE;
				goto out;
			}
		} else if (!strcmp(a, "--ksrc") || !strcmp(a, "--patch") || !strcmp(a, "--config") ||
			   !strcmp(a, "--rev") || !strcmp(a, "-j") || !strcmp(a, "--arch")) {
			if (need_value(argc, argv, i) < 0) {
				ret = LAB_EXIT_USAGE;
				goto out;
			}
			const char *v = argv[++i];

			if (!strcmp(a, "--ksrc")) {
				if (opts.ksrc) {
					error("more than one --ksrc given ('%s' and '%s')", opts.ksrc, v);
					ret = LAB_EXIT_USAGE;
					goto out;
				}
				opts.ksrc = v;
			} else if (!strcmp(a, "--patch")) {
				strvec_push(&opts.patches, v);
			} else if (!strcmp(a, "--config")) {
				push_list(&opts.configs, v);
			} else if (!strcmp(a, "--rev")) {
				opts.rev = v;
				opts.incremental = 1;
			} else if (!strcmp(a, "--arch")) {
				if (topo_arch_parse(v, &opts.arch, &err) < 0) {
					error("%s", err.buf);
					ret = LAB_EXIT_USAGE;
					goto out;
				}
			} else if (parse_uint(v, 1, 1024, &opts.jobs) < 0) {
				error("-j wants a number of jobs from 1 to 1024, not '%s'", v);
				ret = LAB_EXIT_USAGE;
				goto out;
			}
		} else {
			error("unknown argument '%s' for lab kernel build (see 'lab kernel --help')", a);
			ret = LAB_EXIT_USAGE;
			goto out;
		}
	}
	if (!opts.ksrc) {
		error("lab kernel build needs --ksrc DIR|TARBALL (see 'lab kernel --help')");
		ret = LAB_EXIT_USAGE;
		goto out;
	}

	r = kbuild_build(&opts, &res, &err);
	if (r < 0) {
		error("%s", err.buf);
		ret = r == KBUILD_BAD_INPUT ? LAB_EXIT_USAGE : LAB_EXIT_FAIL;
		goto out;
	}
	if (json) {
		print_build_json(&res, !res.cached && !opts.key_only);
	} else if (opts.config_only && !res.cached) {
		printf("key: %s\nconfig: ok\n", res.key);
	} else if (opts.key_only) {
		printf("key: %s\ncached: %s\n", res.key, res.cached ? "yes" : "no");
		if (res.cached)
			print_image(&res);
	} else {
		printf("key: %s\n", res.key);
		print_image(&res);
		if (strcmp(kbuild_arch(res.arch)->image, "vmlinux"))
			printf("vmlinux: %s\n", *res.vmlinux ? res.vmlinux : "none");
		printf("config: %s\n", res.config);
	}
	if (!opts.key_only && !(opts.config_only && !res.cached)) {
		unsigned s = (unsigned)(res.seconds + 0.5);

		if (res.cached)
			info("kernel %s: cached, nothing built (%.1f s)", res.key, res.seconds);
		else
			info("kernel %s: built in %um%02us", res.key, s / 60, s % 60);
	}
	ret = LAB_EXIT_PASS;
out:
	kbuild_opts_release(&opts);
	strbuf_release(&err);
	return ret;
}

int cmd_kernel(int argc, const char **argv)
{
	struct kernel_paths kp;
	struct strbuf err = STRBUF_INIT;
	const char *spec = NULL;
	enum topo_arch arch = TOPO_ARCH_X86_64;
	int json = 0, ret;

	if (argc > 1 && !strcmp(argv[1], "build"))
		return cmd_kernel_build(argc, argv);
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--ksrc"))
			return cmd_kernel_build(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(kernel_usage, stdout);
			return LAB_EXIT_PASS;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--arch")) {
			if (need_value(argc, argv, i) < 0)
				return LAB_EXIT_USAGE;
			if (topo_arch_parse(argv[++i], &arch, &err) < 0) {
				error("%s", err.buf);
				strbuf_release(&err);
				return LAB_EXIT_USAGE;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			error("unknown option '%s' (see 'lab kernel --help')", argv[i]);
			return LAB_EXIT_USAGE;
		} else if (spec) {
			error("more than one kernel given ('%s' and '%s')", spec, argv[i]);
			return LAB_EXIT_USAGE;
		} else {
			spec = argv[i];
		}
	}

	if (kernel_resolve_arch(spec, arch, &kp, &err) < 0) {
		error("%s", err.buf);
		/* A path is the user's input; a failed download is not. */
		ret = spec && *spec && strcmp(spec, "debian") ? LAB_EXIT_USAGE : LAB_EXIT_FAIL;
		goto out;
	}
	if (json) {
		print_json(&kp);
	} else {
		printf("kernel: %s (%s)\n", *kp.release ? kp.release : "unknown",
		       kp.source);
		printf("bzImage: %s\n", or_none(kp.bzimage));
		printf("vmlinux: %s\n", or_none(kp.vmlinux));
		printf("modules: %s\n", or_none(kp.modules));
		printf("config: %s\n", or_none(kp.config));
	}
	ret = LAB_EXIT_PASS;
out:
	strbuf_release(&err);
	return ret;
}
