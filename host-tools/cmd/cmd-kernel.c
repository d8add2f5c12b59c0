/* cmd-kernel.c - `lab kernel [debian|PATH|KEY]` locates a guest kernel;
 * `lab kernel build --ksrc ...` builds one from a tree into the cache. */
#include "kernel/kbuild.h"
#include "kernel/debarchive.h"
#include "kernel/kernel.h"
#include "kernel/kgen.h"
#include "cmd/lab.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char kernel_usage[] =
	"usage: lab kernel [debian|debian:VERSION|PATH|KEY] [--arch ARCH] [--json]\n"
	"   or: lab kernel --list [--refresh] [--arch ARCH] [--json]\n"
	"   or: lab kernel --generations\n"
	"   or: lab kernel build --ksrc DIR|TARBALL [--patch FILE]... [--config NAME|FILE]...\n"
	"                        [--arch x86_64|arm64|ppc64le] [--rev REV] [-j N]\n"
	"                        [--key-only|--config-only] [--json]\n"
	"\n"
	"   debian   Debian 12's default kernel (6.1), downloaded once into the cache (default)\n"
	"   debian:VERSION\n"
	"            the newest Debian kernel of that series any suite has (bookworm,\n"
	"            -security, -backports, trixie, -security, sid): debian:6.1,\n"
	"            debian:6.12, debian:7.2; -rt (PREEMPT_RT) or -cloud for a flavour\n"
	"            (debian:6.12-rt); debian:latest for the newest series.  Fetched with\n"
	"            apt through the lab's own configuration in <cache>/apt (never the\n"
	"            host's sources)\n"
	"   --list   the series and flavours the archive has, their suites, generation\n"
	"            and what is cached; --refresh updates the lab's lists first\n"
	"   --generations\n"
	"            the kernel generations the lab knows (docs/kernels.md), a line each\n"
	"   PATH     a bzImage, a vmlinux with a PVH note, or a built kernel tree\n"
	"   KEY      a kernel built by 'lab kernel build' (its key, or 8+ digits of it)\n"
	"   --arch   the guest arch the kernel is for (default x86_64): Debian's kernel\n"
	"            of that arch, or a built kernel or image refused when of another\n"
	"   --json   print the paths as one JSON object\n"
	"\n"
	"lab kernel build (also: lab kernel --ksrc ...) builds a kernel the lab can boot:\n"
	"   --ksrc DIR|TARBALL|debian:VERSION\n"
	"                       a kernel tree (a git clone builds its tracked files: HEAD\n"
	"                       plus uncommitted changes; a plain tree is used as it is) or\n"
	"                       a tarball such as /usr/src/linux-source-6.1.tar.xz, unpacked\n"
	"                       once into the cache; the tree is never written;\n"
	"                       debian:6.12, debian:7.2, debian:latest: that series'\n"
	"                       linux-source package (Debian's patches applied), fetched\n"
	"                       once into <cache>/sources through the lab's apt lists\n"
	"   --patch FILE        a patch applied with 'patch -p1' to a hard-linked copy; repeat\n"
	"                       for a series (applied in the order given)\n"
	"   --config NAME|FILE  a Kconfig fragment from kernel-configs/ (lab-base, sched-debug,\n"
	"                       faults, core-sched, lockdep, kasan, numa-balancing, image,\n"
	"                       sched-ext) or a file; repeat, or give a comma/space list;\n"
	"                       lab-base is always\n"
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
	if (*kp->dtbs)
		json_object_object_add(o, "dtbs", json_object_new_string(kp->dtbs));
	json_object_object_add(o, "boot_image",
			       json_object_new_string(kernel_paths_boot_image(kp)));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* lab kernel --generations: the registry, a line each (tab-separated:
 * name, first release ("-": any older), scheduler, what changed, the package level, die_id,
 * the slice knob). */
static int print_generations(void)
{
	for (size_t i = 0; kernel_gens[i]; i++) {
		const struct kernel_gen *g = kernel_gens[i];

		char from[16] = "-";

		if (g->since)
			snprintf(from, sizeof(from), "%u.%u", g->since / 1000, g->since % 1000);
		printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\n", g->name, from, g->scheduler, g->changed,
		       g->pkg_level, g->die_id_global ? "global" : "in-package", g->slice_knob);
	}
	return LAB_EXIT_PASS;
}

/* "generation: 6.12 (EEVDF): delayed dequeue ..." for a known release. */
static void print_generation(const char *release)
{
	const struct kernel_gen *g = kgen_for_release(release);

	if (g)
		printf("generation: %s (%s): %s\n", g->name, g->scheduler, g->changed);
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
	struct strbuf err = STRBUF_INIT, ksrc_tarball = STRBUF_INIT;
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

	/* debian:6.12: that series' linux-source package, fetched once */
	if (!strncmp(opts.ksrc, "debian:", 7) && access(opts.ksrc, F_OK) < 0) {
		if (debarchive_fetch_source(opts.ksrc, &ksrc_tarball, &err) < 0) {
			error("%s", err.buf);
			ret = LAB_EXIT_USAGE;
			goto out;
		}
		opts.ksrc = ksrc_tarball.buf;
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
	strbuf_release(&ksrc_tarball);
	return ret;
}

/* The releases of list[from..to) cached in <cache>/kernels/debian. */
static void cached_releases(const struct deb_kernel *list, size_t from, size_t to,
			    enum topo_arch arch, struct strbuf *sb)
{
	for (size_t i = from; i < to; i++) {
		char *dir = xasprintf("%s/kernels/debian/%s", lab_cache_dir(), list[i].pkg);
		char *img = xasprintf("%s/%s", dir, arch == TOPO_ARCH_PPC64LE ? "vmlinux" : "vmlinuz");

		if (is_file(img))
			strbuf_addf(sb, "%s%s", sb->len ? " " : "", list[i].release);
		free(dir);
		free(img);
	}
}

static int same_group(const struct deb_kernel *a, const struct deb_kernel *b)
{
	return !strcmp(a->series, b->series) && !strcmp(a->flavour, b->flavour);
}

/*
 * lab kernel --list: each series and flavour of Debian's archive that a
 * suite of the lab's apt configuration carries, its newest release, the
 * suites, its generation and what of it is cached.
 */
static int list_archive(enum topo_arch arch, int refresh, int json)
{
	struct strbuf err = STRBUF_INIT;
	struct deb_kernel *list = NULL;
	struct json_object *arr = json_object_new_array();
	int n, ret = LAB_EXIT_FAIL;

	if (debarchive_update(refresh, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	n = debarchive_kernels(arch, &list, &err);
	if (n < 0) {
		error("%s", err.buf);
		goto out;
	}
	if (!json)
		printf("%-8s %-7s %-28s %-4s %-6s %-52s %s\n", "kernel", "flavour", "newest release",
		       "pkgs", "gen", "suites", "cached");
	for (size_t i = 0; i < (size_t)n; ) {
		struct deb_kernel all = list[i];
		struct strbuf cached = STRBUF_INIT;
		const struct kernel_gen *g = kgen_for_release(list[i].release);
		char name[40];
		size_t j = 0, newest = i;
		int seen = 0;

		for (size_t k = 0; k < i && !seen; k++)
			seen = same_group(&list[k], &list[i]);
		all.suites[0] = '\0';
		for (size_t k = i; k < (size_t)n && !seen; k++) {
			if (!same_group(&list[k], &list[i]))
				continue;
			debarchive_add_suites(&all, list[k].suites);
			cached_releases(list, k, k + 1, arch, &cached);
			if (debarchive_cmp(&list[k], &list[newest]) > 0)
				newest = k;
			j++;
		}
		if (j) {
			snprintf(name, sizeof(name), "debian:%s%s%s", list[i].series,
				 list[i].flavour[0] ? "-" : "", list[i].flavour);
			if (json) {
				struct json_object *o = json_object_new_object();

				json_object_object_add(o, "name", json_object_new_string(name));
				json_object_object_add(o, "series", json_object_new_string(list[i].series));
				json_object_object_add(o, "flavour", json_object_new_string(list[i].flavour));
				json_object_object_add(o, "newest", json_object_new_string(list[newest].release));
				json_object_object_add(o, "package", json_object_new_string(list[newest].pkg));
				json_object_object_add(o, "version", json_object_new_string(list[newest].version));
				json_object_object_add(o, "packages", json_object_new_int((int)j));
				json_object_object_add(o, "suites", json_object_new_string(all.suites));
				json_object_object_add(o, "generation", json_object_new_string(g ? g->name : ""));
				json_object_object_add(o, "cached", json_object_new_string(cached.buf));
				json_object_array_add(arr, o);
			} else {
				printf("%-8s %-7s %-28s %-4zu %-6s %-52s %s\n", list[i].series,
				       list[i].flavour[0] ? list[i].flavour : "-", list[newest].release, j,
				       g ? g->name : "?", all.suites, cached.len ? cached.buf : "-");
			}
		}
		strbuf_release(&cached);
		i++;
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
			JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		printf("\nBoot one with --kernel debian:SERIES[-FLAVOUR] (debian:latest: the newest); "
		       "lists: %s (refreshed daily, --refresh now)\n", debarchive_dir());
	ret = LAB_EXIT_PASS;
out:
	json_object_put(arr);
	free(list);
	strbuf_release(&err);
	return ret;
}

int cmd_kernel(int argc, const char **argv)
{
	struct kernel_paths kp;
	struct strbuf err = STRBUF_INIT;
	const char *spec = NULL;
	enum topo_arch arch = TOPO_ARCH_X86_64;
	int json = 0, list = 0, refresh = 0, gens = 0, ret;

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
		} else if (!strcmp(argv[i], "--list")) {
			list = 1;
		} else if (!strcmp(argv[i], "--refresh")) {
			refresh = 1;
		} else if (!strcmp(argv[i], "--generations")) {
			gens = 1;
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

	if (gens)
		return print_generations();
	if (refresh && !list) {
		error("--refresh goes with --list");
		return LAB_EXIT_USAGE;
	}
	if (list) {
		if (spec) {
			error("--list takes no kernel ('%s')", spec);
			return LAB_EXIT_USAGE;
		}
		return list_archive(arch, refresh, json);
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
		print_generation(kp.release);
	}
	ret = LAB_EXIT_PASS;
out:
	strbuf_release(&err);
	return ret;
}
