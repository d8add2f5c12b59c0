/* scx.h - sched_ext BPF schedulers: the registry of the kernel tree's
 * example schedulers (one file each under scheds/, one line in
 * SCX_SCHED_LIST) and their static builds, cached by content. */
#ifndef LAB_SCX_H
#define LAB_SCX_H

#include <limits.h>
#include <stddef.h>

#include "lib/util.h"
#include "topo/topo.h"

/*
 * A scheduler of tools/sched_ext.  Every field is stated in every entry.
 *   name      what --scx and --variant scx= take ("simple")
 *   binary    the program tools/sched_ext builds ("scx_simple"), also its
 *             name under /scx/ in the guest and in scenario files
 *   ops       what /sys/kernel/sched_ext/root/ops reads once it is enabled
 *             (the .name of its SCX_OPS_DEFINE)
 *   summary   what its policy is, one line
 *   min_cpus  fewer online CPUs and it cannot do what it is for (0: any)
 *   stall_args  arguments that make it stall tasks on purpose, so the
 *             kernel's watchdog ejects it (NULL: it has none; "": it
 *             always does, given a task pinned to one CPU)
 *   timeout_ms  its ops.timeout_ms: how long a runnable task may wait
 *             before the kernel ejects it (0: the kernel's default, 30 s)
 */
struct scx_sched {
	const char *name;
	const char *binary;
	const char *ops;
	const char *summary;
	unsigned min_cpus;
	const char *stall_args;
	unsigned timeout_ms;
};

#define SCX_SCHED_LIST \
	X(simple) \
	X(qmap) \
	X(central) \
	X(flatcg) \
	X(cpu0) \
	X(pair) \
	X(sdt) \
	X(userland) \
	X(lab_stall)

#define X(n) extern const struct scx_sched scx_sched_##n;
SCX_SCHED_LIST
#undef X

extern const struct scx_sched *const scx_scheds[];
extern const size_t nr_scx_scheds;

/* By name ("simple") or binary ("scx_simple"); NULL when unknown. */
const struct scx_sched *scx_sched_find(const char *name);
/* "scx_simple, scx_qmap, ..." into buf, for messages; returns buf. */
const char *scx_sched_names(char *buf, size_t size);

/* The kernel's default watchdog timeout (SCX_WATCHDOG_MAX_TIMEOUT is 30 s). */
#define SCX_DEFAULT_TIMEOUT_MS 30000u

/*
 * What a build is made from.
 *   ksrc     a kernel tree, a tarball or debian:SERIES (linux-source)
 *   vmlinux  the target kernel's vmlinux with a .BTF section: the BTF
 *            the schedulers are compiled against
 *   release  that kernel's release, recorded
 */
struct scx_build_opts {
	const char *ksrc;
	const char *vmlinux;
	const char *release;
	enum topo_arch arch;
	unsigned jobs;      /* make -j; 0: online CPUs */
	int progress;       /* say each step on stderr */
};

/*
 * A build in the cache, <cache>/scx/<key>/: bin/<binary> for every
 * scheduler of the tree (static, stripped), selftests (the static runner
 * of tools/testing/selftests/sched_ext, when the tree has them),
 * info.json (key, inputs, schedulers, selftests, seconds) and build.log.
 */
#define SCX_KEY_LEN 16
struct scx_build {
	char key[SCX_KEY_LEN + 1];
	char dir[PATH_MAX];
	int cached;          /* found complete, nothing built */
	double seconds;      /* the build's wall time (of the first build when cached) */
	struct strvec schedulers; /* binaries built, sorted */
	int selftests;       /* dir/selftests exists */
};
#define SCX_BUILD_INIT { "", "", 0, 0, STRVEC_INIT, 0 }
void scx_build_release(struct scx_build *b);

/* Builds (or finds) the schedulers of o->ksrc against o->vmlinux's BTF.
 * 0, or -1 with one line in err (2 for bad input: LAB_EXIT_USAGE). */
int scx_build(const struct scx_build_opts *o, struct scx_build *b, struct strbuf *err);

/*
 * The SHA-256 (hex) of vmlinux's .BTF section: which kernel a build
 * fits.  -1 with err when the file is not an ELF with a .BTF section
 * (a kernel built without CONFIG_DEBUG_INFO_BTF).
 */
int scx_btf_sha256(const char *vmlinux, char hex[65], struct strbuf *err);

/*
 * A complete build in the cache for the kernel whose BTF hashes to btf,
 * the newest when several fit (several sources, same kernel).  1 and b
 * filled, 0 when none fits, -1 with err.
 */
int scx_lookup(const char *btf, enum topo_arch arch, struct scx_build *b, struct strbuf *err);

/* "7.2" of "7.2.13+deb14-amd64"; -1 when release does not start MAJOR.MINOR. */
int scx_series_of_release(const char *release, char *series, size_t size);

/*
 * The build for kernel kp: the cached one made against its BTF, else, for
 * a Debian kernel, one built now from its series' linux-source (the
 * sources of other kernels are not known: lab scx build --ksrc names
 * them).  0, or KBUILD_BAD_INPUT / -1 with one line in err.
 */
struct kernel_paths;
int scx_for_kernel(const struct kernel_paths *kp, enum topo_arch arch, int progress,
		   struct scx_build *b, struct strbuf *err);

/* <lab_cache_dir()>/scx */
const char *scx_cache_root(void);

#endif
