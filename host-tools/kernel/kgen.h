/* kgen.h - kernel generations: what the lab expects of a kernel because of
 * its version (sysfs topology semantics, sched-domain names, scheduler
 * knobs).  One file per generation under generations/, one line in
 * KERNEL_GEN_LIST; everything else asks kgen_for_release(). */
#ifndef LAB_KGEN_H
#define LAB_KGEN_H

#include <stddef.h>

#include "topo/topo.h"

/* A version as one number: KGEN_V(6, 12). */
#define KGEN_V(major, minor) ((major) * 1000u + (minor))

/*
 * A Kconfig option that a generation dropped (replacement NULL: there is
 * nothing to ask for instead) or replaced; the lab's fragments ask for the
 * options of 6.1, and kbuild rewrites a request for a tree of this
 * generation or later with one line saying why.
 */
struct kgen_config_change {
	const char *option;		/* without CONFIG_: "SCHED_DEBUG" */
	const char *replacement;	/* "PREEMPT_LAZY", or NULL */
	const char *why;		/* one clause */
};

/*
 * A generation holds from its `since` release until the next entry's.
 * Every field is stated in every entry (no inheritance), so one file reads
 * as the whole truth about its kernels.
 */
struct kernel_gen {
	const char *name;	/* "6.12" */
	unsigned since;		/* KGEN_V() of the first mainline release it describes */
	const char *scheduler;	/* the fair class's pick: "CFS" or "EEVDF" */
	const char *changed;	/* what changed at `since`, one line (docs, lab kernel --list) */
	/* x86 topology as sysfs shows it: die_id counts dies within the
	 * package (0) or across the machine, apicid >> die shift (1) */
	int die_id_global;
	/* the sched-domain level spanning a package: "DIE", later "PKG" */
	const char *pkg_level;
	/* arm64 virt without cache nodes: sysfs shows every CPU sharing the
	 * last level cache, and an MC level of the node appears */
	int arm64_llc_all;
	/* debugfs sched/ knob of the fair class's base slice */
	const char *slice_knob;
	/* sched_setattr()'s sched_runtime sets a fair task's slice */
	int task_slice;
	/* sched_ext can exist (CONFIG_SCHED_CLASS_EXT decides) */
	int sched_ext;
	/* Kconfig changes made at `since` (they accumulate over entries,
	 * unlike the facts above); NULL-option-terminated, or NULL */
	const struct kgen_config_change *config_changes;
};

#define KERNEL_GEN_LIST \
	X(v6_1) \
	X(v6_6) \
	X(v6_7) \
	X(v6_9) \
	X(v6_12) \
	X(v6_15) \
	X(v7_0)

#define X(id) extern const struct kernel_gen kgen_##id;
KERNEL_GEN_LIST
#undef X

/* The registry, oldest first, NULL-terminated. */
extern const struct kernel_gen *const kernel_gens[];

/*
 * "6.12.118+deb12-amd64", "7.2.13", "6.1.0-57-amd64" into KGEN_V(major,
 * minor); 0 when release starts with no MAJOR.MINOR.
 */
unsigned kgen_version(const char *release);

/*
 * The generation of a kernel release: the newest entry whose since is at
 * most its version; NULL when the release says no version ("unknown", "").
 */
const struct kernel_gen *kgen_for_release(const char *release);

/* The same, with the oldest generation for a release that says nothing:
 * what the lab expected before it knew generations. */
const struct kernel_gen *kgen_for_release_or_oldest(const char *release);

/*
 * The change the generations up to release (a kernel tree's MAJOR.MINOR)
 * made to option, the newest first; NULL when none did.  *gen_out gets the
 * generation that made it.
 */
const struct kgen_config_change *kgen_config_change(const char *release, const char *option,
						    const struct kernel_gen **gen_out);

/* The facts of g the expected topology view depends on (NULL: none). */
const struct topo_kernel_facts *kgen_topo_facts(const struct kernel_gen *g,
						struct topo_kernel_facts *out);

#endif
