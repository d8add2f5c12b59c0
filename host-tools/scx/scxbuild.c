/* scxbuild.c - static builds of a kernel tree's sched_ext schedulers and
 * selftests against a target kernel's BTF, cached in <cache>/scx/<key>/. */
#define _GNU_SOURCE
#include "scx/scx.h"
#include "common/kversion.h"
#include "kernel/debarchive.h"
#include "kernel/kbuild.h"
#include "kernel/kernel.h"
#include "lib/child.h"
#include "lib/json.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <json-c/json.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The compiler the BPF side needs (Debian 12's newest; the tree's
 * Makefiles use its BPF target and -mcpu=v3), and the strip of the same
 * LLVM for the skeletons. */
#define SCX_CLANG "clang-19"
#define SCX_LLVM_STRIP "llvm-strip-19"
/* A make step: 30 minutes even on a loaded 2-CPU host. */
#define SCX_STEP_TIMEOUT_MS (30 * 60 * 1000)
/* What a static scheduler links against besides the tree's own libbpf. */
static const char *const static_libs[] = { "-lelf", "-lz", "-lzstd", "-lpthread", NULL };

const char *scx_cache_root(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/scx", lab_cache_dir());
	return path;
}

void scx_build_release(struct scx_build *b)
{
	strvec_clear(&b->schedulers);
}

int scx_btf_sha256(const char *vmlinux, char hex[65], struct strbuf *err)
{
	int fd = open(vmlinux, O_RDONLY | O_CLOEXEC), ret = -1;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", vmlinux, strerror(errno));
		return -1;
	}
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ, NULL)) ||
	    elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) < 0) {
		strbuf_addf(err, "'%s' is not an ELF vmlinux (%s)", vmlinux, elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".BTF"))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || !d->d_size)
			break;
		kbuild_sha256_hex(d->d_buf, d->d_size, hex);
		ret = 0;
		goto out;
	}
	strbuf_addf(err, "'%s' has no BTF (a kernel built without CONFIG_DEBUG_INFO_BTF): "
		    "sched_ext schedulers need it", vmlinux);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* The first line of `prog --version`, or -1 with the install line in err. */
static int tool_version(const char *prog, const char *pkg, struct strbuf *out, struct strbuf *err)
{
	const char *argv[] = { prog, "--version", NULL };
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	int r = run_command_capture(argv, 20000, &o, &e);

	if (r != 0 || !o.len) {
		strbuf_addf(err, "%s is not installed or does not run: apt-get install %s", prog, pkg);
		strbuf_release(&o);
		strbuf_release(&e);
		return -1;
	}
	strbuf_add(out, o.buf, strcspn(o.buf, "\n"));
	strbuf_release(&o);
	strbuf_release(&e);
	return 0;
}

struct step_log {
	int fd;
	const char *path;
	int progress;
	int out_fd;    /* >= 0: the step's stdout goes here, not to the log */
};

/* Runs argv (in dir) with its output appended to the log; 0, or -1 with
 * err naming the step and the log. */
static int run_step(struct step_log *lg, const char *what, const char *dir, struct strvec *argv,
		    struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	uint64_t t0 = now_ns();
	int r;

	if (lg->progress)
		fprintf(stderr, "scx: %s\n", what);
	dprintf(lg->fd, "\n$");
	for (size_t i = 0; i < argv->nr; i++)
		dprintf(lg->fd, " %s", argv->v[i]);
	dprintf(lg->fd, "%s%s\n", dir ? "   # in " : "", dir ? dir : "");
	for (size_t i = 0; i < argv->nr; i++)
		strvec_push(&cp.args, argv->v[i]);
	kbuild_clean_env(&cp);
	cp.dir = dir;
	cp.in = CHILD_DEVNULL;
	cp.out = lg->out_fd >= 0 ? lg->out_fd : lg->fd;
	cp.err = lg->fd;
	cp.new_pgrp = 1;
	cp.die_with_parent = 1;
	cp.errbuf = err;
	if (start_command(&cp) < 0) {
		child_process_clear(&cp);
		return -1;
	}
	r = finish_command_timeout(&cp, SCX_STEP_TIMEOUT_MS);
	child_process_clear(&cp);
	dprintf(lg->fd, "(exit %d after %.1f s)\n", r, (double)(now_ns() - t0) / 1e9);
	if (r != 0) {
		strbuf_addf(err, "%s %s (see %s)", what,
			    r == CHILD_TIMED_OUT ? "took too long and was killed" : "failed", lg->path);
		return -1;
	}
	return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The user-space objects (*.o but not *.bpf*.o) of dir, sorted. */
static int user_objects(const char *dir, struct strvec *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		strbuf_addf(err, "cannot read '%s': %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		if (has_suffix(de->d_name, ".o") && !strstr(de->d_name, ".bpf"))
			strvec_pushf(out, "%s/%s", dir, de->d_name);
	closedir(d);
	qsort(out->v, out->nr, sizeof(out->v[0]), cmp_str);
	return 0;
}

/* gcc -static -o out objs... libbpf.a LIBS, then strip. */
static int link_static(struct step_log *lg, const char *what, const char *out,
		       const struct strvec *objs, const char *libbpf, struct strbuf *err)
{
	struct strvec argv = STRVEC_INIT;
	int r;

	strvec_pushl(&argv, "gcc", "-static", "-o", out, NULL);
	for (size_t i = 0; i < objs->nr; i++)
		strvec_push(&argv, objs->v[i]);
	strvec_push(&argv, libbpf);
	for (size_t i = 0; static_libs[i]; i++)
		strvec_push(&argv, static_libs[i]);
	r = run_step(lg, what, NULL, &argv, err);
	strvec_clear(&argv);
	if (!r) {
		int progress = lg->progress;

		strvec_pushl(&argv, "strip", out, NULL);
		lg->progress = 0;
		r = run_step(lg, what, NULL, &argv, err);
		lg->progress = progress;
		strvec_clear(&argv);
	}
	return r;
}

/* make -C dir VAR=out (created) against o's BTF with the lab's clang. */
static int make_args(struct strvec *argv, const char *dir, const char *var, const char *out,
		     const struct scx_build_opts *o, struct strbuf *err)
{
	if (mkdir_p(out, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", out, strerror(errno));
		return -1;
	}
	strvec_pushl(argv, "make", "-C", dir, NULL);
	strvec_pushf(argv, "%s=%s", var, out);
	strvec_pushf(argv, "VMLINUX_BTF=%s", o->vmlinux);
	strvec_pushl(argv, "CLANG=" SCX_CLANG, "LLVM_STRIP=" SCX_LLVM_STRIP, NULL);
	strvec_pushf(argv, "-j%u", o->jobs ? o->jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}

/* make -C tools/sched_ext, then every scheduler linked statically. */
static int build_schedulers(struct step_log *lg, const char *tree, const char *tmp,
			    const struct scx_build_opts *o, struct json_object *names,
			    struct strbuf *err)
{
	struct strvec argv = STRVEC_INIT, objs = STRVEC_INIT;
	char *dir = xasprintf("%s/tools/sched_ext", tree), *obj = xasprintf("%s/o", tmp);
	char *objdir = xasprintf("%s/build/obj/sched_ext", obj);
	char *libbpf = xasprintf("%s/build/obj/libbpf/libbpf.a", obj);
	int ret = -1;

	if (make_args(&argv, dir, "O", obj, o, err) < 0)
		goto out;
	strvec_push(&argv, "all");
	if (run_step(lg, "make -C tools/sched_ext", NULL, &argv, err) < 0 ||
	    user_objects(objdir, &objs, err) < 0)
		goto out;
	for (size_t i = 0; i < objs.nr; i++) {
		const char *base = strrchr(objs.v[i], '/') + 1;
		char *name = xasprintf("%.*s", (int)(strlen(base) - 2), base);
		char *out = xasprintf("%s/bin/%s", tmp, name), *what = xasprintf("link %s", name);
		struct strvec one = STRVEC_INIT;
		int r;

		strvec_push(&one, objs.v[i]);
		r = link_static(lg, what, out, &one, libbpf, err);
		strvec_clear(&one);
		if (!r)
			json_object_array_add(names, json_object_new_string(name));
		free(name);
		free(out);
		free(what);
		if (r)
			goto out;
	}
	if (!json_object_array_length(names)) {
		strbuf_addf(err, "make -C tools/sched_ext built no scheduler (see %s)", lg->path);
		goto out;
	}
	ret = 0;
out:
	strvec_clear(&argv);
	strvec_clear(&objs);
	free(dir);
	free(obj);
	free(objdir);
	free(libbpf);
	return ret;
}

/* run_step() with the step's stdout into a file (bpftool gen skeleton). */
static int run_step_to(struct step_log *lg, const char *what, struct strvec *argv,
		       const char *out_path, struct strbuf *err)
{
	int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r;

	if (fd < 0) {
		strbuf_addf(err, "cannot create '%s': %s", out_path, strerror(errno));
		return -1;
	}
	dprintf(lg->fd, "\n# stdout to %s", out_path);
	lg->out_fd = fd;
	r = run_step(lg, what, NULL, argv, err);
	lg->out_fd = -1;
	close(fd);
	return r;
}

/* clang's own include directories as -idirafter options: what the tree's
 * Makefiles add so a BPF compile finds asm/types.h and the like. */
static int clang_sys_includes(struct strvec *out, struct strbuf *err)
{
	const char *argv[] = { SCX_CLANG, "-v", "-E", "-x", "c", "/dev/null", NULL };
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	int in = 0;

	if (run_command_capture(argv, 20000, &o, &e) != 0) {
		strbuf_addf(err, "%s -v -E failed", SCX_CLANG);
		goto out;
	}
	for (char *line = e.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strstr(line, "<...> search starts here:"))
			in = 1;
		else if (strstr(line, "End of search list."))
			in = 0;
		else if (in && line[0] == ' ')
			strvec_pushl(out, "-idirafter", line + 1, NULL);
	}
out:
	strbuf_release(&o);
	strbuf_release(&e);
	return out->nr ? 0 : -1;
}

/*
 * The lab's own schedulers (guest/scx/NAME.bpf.c and NAME.c), built the
 * way the tree builds its examples, with the tree's headers, libbpf and
 * bpftool from the tools/sched_ext build in tmp/o.
 */
static int build_lab_schedulers(struct step_log *lg, const char *tree, const char *tmp,
				struct json_object *names, struct strbuf *err)
{
	static const char *const mine[] = { "scx_lab_stall" };
	char *inc = xasprintf("%s/o/build/include", tmp), *bpftool = xasprintf("%s/o/build/sbin/bpftool", tmp);
	char *libbpf = xasprintf("%s/o/build/obj/libbpf/libbpf.a", tmp), *dir = xasprintf("%s/lab", tmp);
	struct strvec sys = STRVEC_INIT;
	int ret = -1;

	if (!is_file(bpftool)) {
		strbuf_addf(err, "the tools/sched_ext build left no bpftool at '%s'", bpftool);
		goto out;
	}
	if (mkdir_p(dir, 0755) < 0 || clang_sys_includes(&sys, err) < 0)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(mine); i++) {
		struct strvec argv = STRVEC_INIT;
		char *bpf_c = xasprintf("%s/guest/scx/%s.bpf.c", lab_root(), mine[i]);
		char *user_c = xasprintf("%s/guest/scx/%s.c", lab_root(), mine[i]);
		char *bpf_o = xasprintf("%s/%s.bpf.o", dir, mine[i]);
		char *linked = xasprintf("%s/%s.bpf.linked.o", dir, mine[i]);
		char *skel = xasprintf("%s/%s.bpf.skel.h", dir, mine[i]);
		char *user_o = xasprintf("%s/%s.o", dir, mine[i]);
		char *bin = xasprintf("%s/bin/%s", tmp, mine[i]);
		char *what = xasprintf("build %s", mine[i]);
		struct strvec one = STRVEC_INIT;
		int r, progress;

		strvec_pushl(&argv, SCX_CLANG, "-g", "-O2", "-mcpu=v3", "-target", "bpf",
			     "-D__TARGET_ARCH_x86", "-mlittle-endian", "-Wall",
			     "-Wno-compare-distinct-pointer-types", NULL);
		strvec_pushf(&argv, "-I%s/tools/sched_ext/include", tree);
		strvec_pushf(&argv, "-I%s/tools/sched_ext/include/bpf-compat", tree);
		strvec_pushf(&argv, "-I%s", inc);
		strvec_pushf(&argv, "-I%s/tools/include/uapi", tree);
		for (size_t k = 0; k < sys.nr; k++)
			strvec_push(&argv, sys.v[k]);
		strvec_pushl(&argv, "-c", bpf_c, "-o", bpf_o, NULL);
		r = run_step(lg, what, NULL, &argv, err);
		strvec_clear(&argv);
		/* one progress line per scheduler: its other steps are in the log */
		progress = lg->progress;
		lg->progress = 0;
		if (!r) {
			strvec_pushl(&argv, bpftool, "gen", "object", linked, bpf_o, NULL);
			r = run_step(lg, what, NULL, &argv, err);
			strvec_clear(&argv);
		}
		if (!r) {
			strvec_pushl(&argv, bpftool, "gen", "skeleton", linked, "name", mine[i], NULL);
			r = run_step_to(lg, what, &argv, skel, err);
			strvec_clear(&argv);
		}
		if (!r) {
			strvec_pushl(&argv, "gcc", "-g", "-O2", "-pthread", "-Wall", NULL);
			strvec_pushf(&argv, "-I%s", inc);
			strvec_pushf(&argv, "-I%s/tools/lib", tree);
			strvec_pushf(&argv, "-I%s/tools/include", tree);
			strvec_pushf(&argv, "-I%s/tools/include/uapi", tree);
			strvec_pushf(&argv, "-I%s/tools/sched_ext/include", tree);
			strvec_pushf(&argv, "-I%s", dir);
			strvec_pushl(&argv, "-c", user_c, "-o", user_o, NULL);
			r = run_step(lg, what, NULL, &argv, err);
			strvec_clear(&argv);
		}
		if (!r) {
			strvec_push(&one, user_o);
			r = link_static(lg, what, bin, &one, libbpf, err);
			strvec_clear(&one);
		}
		lg->progress = progress;
		if (!r)
			json_object_array_add(names, json_object_new_string(mine[i]));
		free(bpf_c);
		free(user_c);
		free(bpf_o);
		free(linked);
		free(skel);
		free(user_o);
		free(bin);
		free(what);
		if (r)
			goto out;
	}
	ret = 0;
out:
	strvec_clear(&sys);
	free(inc);
	free(bpftool);
	free(libbpf);
	free(dir);
	return ret;
}

/* The selftests' runner, static, and the names it lists. */
static int build_selftests(struct step_log *lg, const char *tree, const char *tmp,
			   const struct scx_build_opts *o, struct json_object *tests,
			   struct strbuf *err)
{
	struct strvec argv = STRVEC_INIT, objs = STRVEC_INIT;
	char *dir = xasprintf("%s/tools/testing/selftests/sched_ext", tree);
	char *out = xasprintf("%s/st", tmp), *objdir = xasprintf("%s/build/obj/sched_ext", out);
	char *libbpf = xasprintf("%s/build/obj/libbpf/libbpf.a", out);
	char *bin = xasprintf("%s/selftests", tmp);
	struct strbuf list = STRBUF_INIT, e2 = STRBUF_INIT;
	int ret = -1;

	if (make_args(&argv, dir, "OUTPUT", out, o, err) < 0)
		goto out;
	if (run_step(lg, "make -C tools/testing/selftests/sched_ext", NULL, &argv, err) < 0 ||
	    user_objects(objdir, &objs, err) < 0 ||
	    link_static(lg, "link the selftests' runner", bin, &objs, libbpf, err) < 0)
		goto out;
	{
		const char *lv[] = { bin, "-l", NULL };

		if (run_command_capture(lv, 20000, &list, &e2) != 0) {
			strbuf_addf(err, "'%s -l' failed: %.*s", bin, (int)strcspn(e2.buf, "\n"), e2.buf);
			goto out;
		}
	}
	for (char *p = list.buf, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*p)
			json_object_array_add(tests, json_object_new_string(p));
	}
	ret = 0;
out:
	strvec_clear(&argv);
	strvec_clear(&objs);
	strbuf_release(&list);
	strbuf_release(&e2);
	free(dir);
	free(out);
	free(objdir);
	free(libbpf);
	free(bin);
	return ret;
}

/* Fills b from a complete cache directory; -1 when it is not one. */
static int load_entry(const char *dir, struct scx_build *b)
{
	char *path = xasprintf("%s/info.json", dir);
	struct strbuf e = STRBUF_INIT;
	int missing = 0;
	struct json_object *j = json_read_file(path, "scx build info", 1 << 20, &missing, &e), *a;
	double secs = 0;

	free(path);
	strbuf_release(&e);
	if (!j)
		return -1;
	snprintf(b->key, sizeof(b->key), "%s", json_get_str(j, "key") ? json_get_str(j, "key") : "");
	snprintf(b->dir, sizeof(b->dir), "%s", dir);
	if (json_get_num(j, "seconds", &secs) == 0)
		b->seconds = secs;
	strvec_clear(&b->schedulers);
	if (json_object_object_get_ex(j, "schedulers", &a) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++)
			strvec_push(&b->schedulers,
				    json_object_get_string(json_object_array_get_idx(a, i)));
	path = xasprintf("%s/selftests", dir);
	b->selftests = is_file(path);
	free(path);
	json_object_put(j);
	return 0;
}

int scx_build(const struct scx_build_opts *o, struct scx_build *b, struct strbuf *err)
{
	struct strbuf tree = STRBUF_INIT, ident = STRBUF_INIT, tarball = STRBUF_INIT;
	struct strbuf clang = STRBUF_INIT, cc = STRBUF_INIT, keytext = STRBUF_INIT;
	struct strbuf strip = STRBUF_INIT;
	char btf[65], hex[65], *final = NULL, *tmp = NULL, *lock = NULL, *p = NULL;
	struct step_log lg = { .fd = -1, .progress = o->progress, .out_fd = -1 };
	struct json_object *info = NULL, *names, *tests;
	const char *ksrc = o->ksrc;
	uint64_t t0 = now_ns();
	int lockfd = -1, ret = KBUILD_BAD_INPUT;

	if (o->arch != TOPO_ARCH_X86_64) {
		strbuf_addstr(err, "sched_ext schedulers are built for x86_64 guests only (an arm64 "
			      "or ppc64le static build needs that arch's libelf, zlib and zstd)");
		return KBUILD_BAD_INPUT;
	}
	if (scx_btf_sha256(o->vmlinux, btf, err) < 0)
		goto out;
	if (!strncmp(ksrc, "debian:", 7)) {
		if (debarchive_fetch_source(ksrc, &tarball, err) < 0) {
			ret = -1;
			goto out;
		}
		ksrc = tarball.buf;
	}
	if ((ret = kbuild_source_tree(ksrc, &tree, &ident, err)) != 0)
		goto out;
	ret = KBUILD_BAD_INPUT;
	p = xasprintf("%s/tools/sched_ext/Makefile", tree.buf);
	if (!is_file(p)) {
		strbuf_addf(err, "'%s' has no tools/sched_ext (sched_ext came with Linux 6.12)",
			    o->ksrc);
		goto out;
	}
	ret = -1;
	if (tool_version(SCX_CLANG, "clang-19 llvm-19", &clang, err) < 0 ||
	    tool_version(SCX_LLVM_STRIP, "llvm-19", &strip, err) < 0 ||
	    tool_version("gcc", "gcc", &cc, err) < 0)
		goto out;
	{
		static const char *const libs[] = {
			"/usr/lib/x86_64-linux-gnu/libelf.a", "/usr/lib/x86_64-linux-gnu/libz.a",
			"/usr/lib/x86_64-linux-gnu/libzstd.a",
		};

		for (size_t i = 0; i < ARRAY_SIZE(libs); i++)
			if (!is_file(libs[i])) {
				strbuf_addf(err, "'%s' is missing (a static scheduler links it): "
					    "apt-get install libelf-dev zlib1g-dev libzstd-dev", libs[i]);
				goto out;
			}
	}
	strbuf_addf(&keytext, "scx 1\narch x86_64\nsource %s\nbtf %s\nclang %s\ncc %s\n", ident.buf,
		    btf, clang.buf, cc.buf);
	{
		static const char *const lab_src[] = { "scx_lab_stall.bpf.c", "scx_lab_stall.c" };

		for (size_t i = 0; i < ARRAY_SIZE(lab_src); i++) {
			char *path = xasprintf("%s/guest/scx/%s", lab_root(), lab_src[i]);
			int r = kbuild_sha256_file(path, hex, err);

			free(path);
			if (r < 0)
				goto out;
			strbuf_addf(&keytext, "lab %s %s\n", lab_src[i], hex);
		}
	}
	kbuild_sha256_hex(keytext.buf, keytext.len, hex);
	snprintf(b->key, sizeof(b->key), "%.*s", SCX_KEY_LEN, hex);
	final = xasprintf("%s/%s", scx_cache_root(), b->key);
	tmp = xasprintf("%s.tmp", final);
	lock = xasprintf("%s.lock", final);
	if (load_entry(final, b) == 0) {
		b->cached = 1;
		ret = 0;
		goto out;
	}
	if (mkdir_p(scx_cache_root(), 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", scx_cache_root(), strerror(errno));
		goto out;
	}
	lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0) {
		strbuf_addf(err, "cannot lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	if (load_entry(final, b) == 0) { /* built by the lab we waited for */
		b->cached = 1;
		ret = 0;
		goto out;
	}
	remove_tree(tmp);
	free(p);
	p = xasprintf("%s/bin", tmp);
	if (mkdir_p(p, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", p, strerror(errno));
		goto out;
	}
	free(p);
	p = xasprintf("%s/build.log", tmp);
	lg.path = p;
	lg.fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (lg.fd < 0) {
		strbuf_addf(err, "cannot create '%s': %s", p, strerror(errno));
		goto out;
	}
	dprintf(lg.fd, "%s", keytext.buf);
	info = json_object_new_object();
	names = json_object_new_array();
	tests = json_object_new_array();
	json_object_object_add(info, "schedulers", names);
	json_object_object_add(info, "selftests", tests);
	if (build_schedulers(&lg, tree.buf, tmp, o, names, err) < 0 ||
	    build_lab_schedulers(&lg, tree.buf, tmp, names, err) < 0)
		goto out;
	{
		char *st = xasprintf("%s/tools/testing/selftests/sched_ext/Makefile", tree.buf);
		int have = is_file(st);

		free(st);
		if (have && build_selftests(&lg, tree.buf, tmp, o, tests, err) < 0)
			goto out;
	}
	json_object_object_add(info, "key", json_object_new_string(b->key));
	json_object_object_add(info, "ksrc", json_object_new_string(o->ksrc));
	json_object_object_add(info, "source", json_object_new_string(ident.buf));
	json_object_object_add(info, "kernel_release",
			       json_object_new_string(o->release ? o->release : ""));
	json_object_object_add(info, "btf_sha256", json_object_new_string(btf));
	json_object_object_add(info, "clang", json_object_new_string(clang.buf));
	json_object_object_add(info, "cc", json_object_new_string(cc.buf));
	json_object_object_add(info, "arch", json_object_new_string("x86_64"));
	json_object_object_add(info, "seconds",
			       json_object_new_double((double)(now_ns() - t0) / 1e9));
	/* the objects are not needed to run anything: only bin/, selftests,
	 * the log and info.json stay */
	free(p);
	p = xasprintf("%s/o", tmp);
	remove_tree(p);
	free(p);
	p = xasprintf("%s/st", tmp);
	remove_tree(p);
	free(p);
	p = xasprintf("%s/info.json", tmp);
	{
		const char *text = json_object_to_json_string_ext(info, JSON_C_TO_STRING_PRETTY);

		if (write_file_atomic_err(p, text, strlen(text), err) < 0)
			goto out;
	}
	if (rename(tmp, final) < 0) {
		strbuf_addf(err, "cannot rename '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (load_entry(final, b) < 0) {
		strbuf_addf(err, "'%s' changed while it was written", final);
		goto out;
	}
	ret = 0;
out:
	if (ret && tmp && lg.fd >= 0) {
		/* keep the log of a failed build where the message points */
		char *keep = xasprintf("%s/%s.failed.log", scx_cache_root(), b->key);

		if (rename(lg.path, keep) == 0 && err->len) {
			char *at = strstr(err->buf, lg.path);

			if (at) {
				struct strbuf e2 = STRBUF_INIT;

				strbuf_add(&e2, err->buf, (size_t)(at - err->buf));
				strbuf_addstr(&e2, keep);
				strbuf_addstr(&e2, at + strlen(lg.path));
				strbuf_reset(err);
				strbuf_addstr(err, e2.buf);
				strbuf_release(&e2);
			}
		}
		free(keep);
	}
	if (lg.fd >= 0)
		close(lg.fd);
	if (ret && tmp)
		remove_tree(tmp);
	if (lockfd >= 0)
		close(lockfd);
	if (lock)
		unlink(lock);
	if (info)
		json_object_put(info);
	strbuf_release(&tree);
	strbuf_release(&ident);
	strbuf_release(&tarball);
	strbuf_release(&clang);
	strbuf_release(&strip);
	strbuf_release(&cc);
	strbuf_release(&keytext);
	free(final);
	free(tmp);
	free(lock);
	free(p);
	return ret;
}

int scx_lookup(const char *btf, enum topo_arch arch, struct scx_build *b, struct strbuf *err)
{
	DIR *d = opendir(scx_cache_root());
	struct dirent *de;
	double newest = -1;
	int found = 0;

	(void)err;
	if (arch != TOPO_ARCH_X86_64 || !d) {
		if (d)
			closedir(d);
		return 0;
	}
	while ((de = readdir(d))) {
		char *path = xasprintf("%s/%s/info.json", scx_cache_root(), de->d_name);
		struct strbuf e = STRBUF_INIT;
		int missing = 0;
		struct json_object *j = NULL;
		struct stat st;

		if (strlen(de->d_name) == SCX_KEY_LEN && stat(path, &st) == 0)
			j = json_read_file(path, "scx build info", 1 << 20, &missing, &e);
		if (j && json_get_str(j, "btf_sha256") && !strcmp(json_get_str(j, "btf_sha256"), btf) &&
		    (double)st.st_mtime > newest) {
			char *dir = xasprintf("%s/%s", scx_cache_root(), de->d_name);

			if (load_entry(dir, b) == 0) {
				newest = (double)st.st_mtime;
				found = 1;
				b->cached = 1;
			}
			free(dir);
		}
		if (j)
			json_object_put(j);
		strbuf_release(&e);
		free(path);
	}
	closedir(d);
	return found;
}

int scx_series_of_release(const char *release, char *series, size_t size)
{
	unsigned major, minor;

	if (kversion_parse(release, &major, &minor) < 0)
		return -1;
	snprintf(series, size, "%u.%u", major, minor);
	return 0;
}

int scx_for_kernel(const struct kernel_paths *kp, enum topo_arch arch, int progress,
		   struct scx_build *b, struct strbuf *err)
{
	struct scx_build_opts o = { .vmlinux = kp->vmlinux, .release = kp->release, .arch = arch,
				    .progress = progress };
	char btf[65], series[32], spec[48];
	int r;

	if (!kp->vmlinux[0]) {
		strbuf_addf(err, "kernel %s has no vmlinux the lab can read its BTF from", kp->release);
		return KBUILD_BAD_INPUT;
	}
	if (scx_btf_sha256(kp->vmlinux, btf, err) < 0)
		return KBUILD_BAD_INPUT;
	r = scx_lookup(btf, arch, b, err);
	if (r)
		return r < 0 ? -1 : 0;
	if (strcmp(kp->source, "debian") || scx_series_of_release(kp->release, series, sizeof(series)) < 0) {
		strbuf_addf(err, "no sched_ext build for kernel %s in the cache: lab scx build --ksrc "
			    "TREE --kernel KERNEL first (the tree the kernel was built from)", kp->release);
		return KBUILD_BAD_INPUT;
	}
	snprintf(spec, sizeof(spec), "debian:%s", series);
	o.ksrc = spec;
	if (progress)
		fprintf(stderr, "scx: building the schedulers of %s against %s's BTF (once)\n", spec,
			kp->release);
	return scx_build(&o, b, err);
}
