/* Linux 6.1 (Debian 12's kernel) and everything before EEVDF: CFS. */
#include "kernel/kgen.h"

const struct kernel_gen kgen_v6_1 = {
	.name = "6.1",
	.since = 0,
	.scheduler = "CFS",
	.changed = "CFS: vruntime pick, wakeup granularity; the lab's first generation",
	/* arch/x86/kernel/cpu/topology.c: die_id from CPUID 0x1F, within the package */
	.die_id_global = 0,
	/* kernel/sched/topology.c default_topology[]: SMT, CLS, MC, DIE */
	.pkg_level = "DIE",
	/* min_granularity_ns, latency_ns and wakeup_granularity_ns */
	.slice_knob = "min_granularity_ns",
	.task_slice = 0,
	.sched_ext = 0,
};
