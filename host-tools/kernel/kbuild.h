/* kbuild.h - guest kernels built from a source tree, patches and config
 * fragments, cached in <cache>/kernels/built/<key>/ by the content of all four. */
#ifndef LAB_KBUILD_H
#define LAB_KBUILD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <nettle/sha2.h>

#include "lib/util.h"
#include "topo/topo.h"

/* A cache key is the first KBUILD_KEY_LEN hex digits of a SHA-256. */
#define KBUILD_KEY_LEN 16
/* Shortest key prefix `--kernel` accepts (as git accepts short hashes). */
#define KBUILD_KEY_MIN_PREFIX 8

/* SHA-256 (nettle's) for cache keys and content hashes, as hex. */
struct kbuild_sha256 {
	struct sha256_ctx ctx;
};
void kbuild_sha256_init(struct kbuild_sha256 *c);
void kbuild_sha256_update(struct kbuild_sha256 *c, const void *data, size_t len);
/* Writes 64 lowercase hex digits and a NUL into hex. */
void kbuild_sha256_final(struct kbuild_sha256 *c, char hex[65]);
void kbuild_sha256_hex(const void *data, size_t len, char hex[65]);
/* The SHA-256 of a file's bytes; -1 with one line in err. */
int kbuild_sha256_file(const char *path, char hex[65], struct strbuf *err);

enum kbuild_source_kind {
	KBUILD_SOURCE_NONE,
	KBUILD_SOURCE_GIT,      /* a directory with .git: its HEAD commit */
	KBUILD_SOURCE_TREE,     /* a plain directory: a listing of its files */
	KBUILD_SOURCE_TARBALL,  /* linux-*.tar[.xz|.gz|.bz2|.zst], e.g. Debian's linux-source */
};
const char *kbuild_source_kind_name(enum kbuild_source_kind kind);

/* 0 when dir holds a kernel tree the lab can build (top Makefile with
 * VERSION and PATCHLEVEL, scripts/kconfig/merge_config.sh, arch/x86), else
 * -1 with "'DIR' is not a kernel tree (...)" in err. */
int kbuild_check_tree(const char *dir, struct strbuf *err);

/*
 * SHA-256 of a tree's listing: every entry's relative path, type, size and
 * mtime (symlinks: their target), sorted by path; .git is left out.  No file
 * is read, so a 1.3 GB tree costs a stat() per file; a change that keeps a
 * file's size and mtime goes unseen.  -1 with err when dir cannot be walked.
 */
int kbuild_tree_hash(const char *dir, char hex[65], struct strbuf *err);

/*
 * How a kernel is built for one guest architecture; static data.
 *   recipe        the first line of the key's text: which steps, for which
 *                 arch (x86_64's is the one from before --arch, so its
 *                 keys did not change)
 *   make_arch     make's ARCH=; cross_compile its CROSS_COMPILE= ("" native)
 *   srcarch       the arch/ directory of the tree (its Kconfig files)
 *   target        the make target of the bootable image, at image_path in
 *                 the object tree; image the file name in the cache entry
 *   cc            the C compiler (`CC --version` is in the key)
 *   fragment      what lab-base needs on this arch, under kernel-configs/
 */
struct kbuild_arch {
	enum topo_arch arch;
	const char *recipe;
	const char *make_arch;
	const char *cross_compile;
	const char *srcarch;
	const char *target;
	const char *image_path;
	const char *image;
	const char *cc;
	const char *fragment;
};
const struct kbuild_arch *kbuild_arch(enum topo_arch arch);

/* Appends make's ARCH= (and CROSS_COMPILE= for a cross build) for arch to
 * argv, and with ccache CC="ccache <cc>". */
void kbuild_arch_make_args(const struct kbuild_arch *a, int ccache, struct strvec *argv);

/*
 * What the cache key is computed from, as text.  Every field is owned.
 *   arch      the guest architecture: picks the recipe line
 *   source    "git <commit>[ dirty <sha256 of git diff HEAD>]",
 *             "tarball <sha256>" or "tree <listing sha256>"
 *   patches   the SHA-256 of each patch, in the order they are applied
 *   config    kconfig_frags_canonical() of the merged fragments
 *   compiler  the first line of `gcc --version` (the cross compiler's)
 */
struct kbuild_inputs {
	struct strbuf source;
	struct strvec patches;
	struct strbuf config;
	struct strbuf compiler;
	enum topo_arch arch;
};
#define KBUILD_INPUTS_INIT { STRBUF_INIT, STRVEC_INIT, STRBUF_INIT, STRBUF_INIT, TOPO_ARCH_X86_64 }
void kbuild_inputs_release(struct kbuild_inputs *in);

/* The text the key is the hash of (kept as key-inputs.txt in the cache so
 * two keys can be diffed), and the key itself (KBUILD_KEY_LEN hex + NUL). */
void kbuild_key_text(const struct kbuild_inputs *in, struct strbuf *out);
void kbuild_key(const struct kbuild_inputs *in, char key[KBUILD_KEY_LEN + 1]);

/* 1 when s could be a key or a key prefix (KBUILD_KEY_MIN_PREFIX to
 * KBUILD_KEY_LEN lowercase hex digits), else 0. */
int kbuild_looks_like_key(const char *s);

/*
 * The arch a built kernel's cache directory was built for: "arch" in its
 * info.json, x86_64 when it has none (built before --arch existed).
 */
enum topo_arch kbuild_entry_arch(const char *dir);

/*
 * The cache directory of a built kernel whose key starts with prefix.
 * Returns 1 and fills dir when exactly one complete build matches, 0 when
 * none does, -1 with err when several do.
 */
int kbuild_lookup(const char *prefix, struct strbuf *dir, struct strbuf *err);

/* git -C dir args... (NULL-terminated) with a deadline: its stdout in out,
 * stderr in errout (either may be NULL).  The exit code, CHILD_TIMED_OUT,
 * or -1 when git could not be started. */
int kbuild_git(const char *dir, const char *const *args, struct strbuf *out, struct strbuf *errout);

/*
 * The tree of a kernel source for tools built from it (lab scx build): a
 * tarball unpacked once into the cache as for a kernel build (never
 * written after), a directory as it is.  identity gets the source line of
 * a kernel key ("tarball <sha256>", "git <commit>[ dirty <sha256>]",
 * "tree <sha256>").  0, KBUILD_BAD_INPUT or -1, with one line in err.
 */
int kbuild_source_tree(const char *ksrc, struct strbuf *tree, struct strbuf *identity,
		       struct strbuf *err);

/* Drops from cp's environment what would change what make builds without
 * changing a cache key, or point it elsewhere (the calling make's
 * jobserver, O=, ARCH=, CFLAGS, ...), and sets LC_ALL=C. */
struct child_process;
void kbuild_clean_env(struct child_process *cp);

/* <lab_cache_dir()>/kernels/built */
const char *kbuild_cache_root(void);

/* Knobs of one build.  The caller owns the vectors. */
struct kbuild_opts {
	const char *ksrc;        /* directory or tarball */
	struct strvec patches;   /* patch files, applied with patch -p1 in order */
	struct strvec configs;   /* names under kernel-configs/ or paths, merged in
				  * order after lab-base (added first when absent)
				  * and the arch's fragment (right after lab-base) */
	unsigned jobs;           /* make -j; 0: the number of online CPUs */
	int progress;            /* a progress line on stderr (give isatty(2)) */
	int key_only;            /* compute the key, look in the cache, build nothing */
	int config_only;         /* stop after the configuration check; cache nothing */
	const char *rev;         /* a git tree's commit to build (its work tree and
				  * uncommitted changes are ignored); NULL: HEAD */
	int incremental;         /* build in the persistent directory of this tree,
				  * patches and config (see kbuild_work_dir()), with
				  * ccache when installed; needs a git tree */
	enum topo_arch arch;     /* the guest arch: a cross build for arm64, ppc64le */
};
#define KBUILD_OPTS_INIT { NULL, STRVEC_INIT, STRVEC_INIT, 0, 0, 0, 0, NULL, 0, TOPO_ARCH_X86_64 }
void kbuild_opts_release(struct kbuild_opts *o);

/* Where a build ended up; plain data. */
struct kbuild_result {
	char key[KBUILD_KEY_LEN + 1];
	char dir[PATH_MAX];       /* the cache directory ("" with key_only and no hit) */
	enum topo_arch arch;
	char image[PATH_MAX];     /* what QEMU boots: bzImage, arm64 Image, ppc64le vmlinux */
	char bzimage[PATH_MAX];   /* x86_64 only, else "" */
	char vmlinux[PATH_MAX];   /* x86_64: ELF with a PVH note; others: the ELF */
	char config[PATH_MAX];
	char log[PATH_MAX];       /* the full make output (also of a failed build) */
	int cached;               /* 1: found in the cache, nothing was built */
	double seconds;           /* wall time of this call */
};

/*
 * Incremental builds (opts.incremental) keep one directory per tree, patches
 * and fragments, <cache>/kernels/work/<id>/: src/ a shared clone of the
 * user's repository (objects borrowed through alternates, nothing written
 * to the user's tree) that is checked out at each commit, so only the files
 * a commit changes get new mtimes, and obj/ the O= tree kept between builds.
 * The products are copied (not moved) into the cache entry; ccache, when in
 * $PATH, keeps its files in <cache>/ccache.  A step of a bisection that
 * changes a few files then rebuilds those and relinks.
 */
const char *kbuild_ccache_dir(void);

/* kbuild_build() failures: the inputs are wrong (not a kernel tree, a patch
 * that does not apply, a fragment option that did not survive, a compile
 * error) or the machine is (cannot write the cache, make missing). */
#define KBUILD_BAD_INPUT (-2)

/*
 * Builds (or finds) the kernel for opts.  The build happens in
 * <cache root>/<key>.tmp/ and is renamed to <key>/ only when complete, under
 * a lock so concurrent builds of one key build once.  The user's tree is
 * never written and no source byte is copied: a tarball is unpacked once
 * into <cache>/kernels/src/; a git tree's tracked files, or a tree that gets
 * patches, are hard-linked into <key>.tmp/src (patch(1) replaces the files it
 * changes rather than writing through the link); an unpatched tree is built
 * where it is.  The object tree is O=<key>.tmp/obj, removed once the bzImage,
 * vmlinux, config and System.map are kept.  Returns 0, KBUILD_BAD_INPUT or -1;
 * on failure err holds one line and res->log names the log when make ran; a
 * failed step's last error lines are printed on stderr first.
 */
int kbuild_build(const struct kbuild_opts *opts, struct kbuild_result *res,
		 struct strbuf *err);

#endif
