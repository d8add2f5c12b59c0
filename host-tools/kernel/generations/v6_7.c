/* Linux 6.7: the package-wide sched domain is called PKG. */
#include "kernel/kgen.h"

const struct kernel_gen kgen_v6_7 = {
	.name = "6.7",
	.since = KGEN_V(6, 7),
	.scheduler = "EEVDF",
	.changed = "the DIE sched domain is renamed PKG (sched/topology: Rename 'DIE' domain to 'PKG')",
	.die_id_global = 0,
	.pkg_level = "PKG",
	.slice_knob = "base_slice_ns",
	.task_slice = 0,
	.sched_ext = 0,
};
