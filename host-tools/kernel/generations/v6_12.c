/* Linux 6.12 (Debian 13's kernel): delayed dequeue, per-task slices,
 * sched_ext. */
#include "kernel/kgen.h"

const struct kernel_gen kgen_v6_12 = {
	.name = "6.12",
	.since = KGEN_V(6, 12),
	.scheduler = "EEVDF",
	.changed = "delayed dequeue (DELAY_DEQUEUE), PREEMPT_SHORT, sched_attr.sched_runtime as a "
		   "fair task's slice, sched_ext (CONFIG_SCHED_CLASS_EXT)",
	.die_id_global = 1,
	.pkg_level = "PKG",
	/* measured on Debian's 6.12.118 arm64 (virt, 2s4c): llc 0-7 and
	 * "MC NUMA"; 6.1 shows llc = the CPU and "DIE NUMA" (the release in
	 * between that changed it is not pinned down) */
	.arm64_llc_all = 1,
	.slice_knob = "base_slice_ns",
	.task_slice = 1,
	.sched_ext = 1,
};
