/* Linux 7.x (Debian sid's 7.2): cache-aware scheduling. */
#include "kernel/kgen.h"

static const struct kgen_config_change changes[] = {
	/* measured on linux-source-7.2: PREEMPT_VOLUNTARY depends on
	 * !ARCH_HAS_PREEMPT_LAZY, which x86 selects; Debian's 7.2 config
	 * has CONFIG_PREEMPT_LAZY=y */
	{ "PREEMPT_VOLUNTARY", "PREEMPT_LAZY",
	  "x86 and arm64 select ARCH_HAS_PREEMPT_LAZY, which voluntary preemption now excludes" },
	{ NULL, NULL, NULL },
};

const struct kernel_gen kgen_v7_0 = {
	.name = "7.0",
	.since = KGEN_V(7, 0),
	.scheduler = "EEVDF",
	/* verified with Debian's 7.2.13: the topology and knobs of 6.12 */
	.changed = "cache-aware scheduling (CONFIG_SCHED_CACHE); topology and knobs as 6.12",
	.die_id_global = 1,
	.pkg_level = "PKG",
	.arm64_llc_all = 1,
	.slice_knob = "base_slice_ns",
	.task_slice = 1,
	.sched_ext = 1,
	.config_changes = changes,
};
