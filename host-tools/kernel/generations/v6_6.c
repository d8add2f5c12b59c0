/* Linux 6.6: EEVDF replaces CFS's pick. */
#include "kernel/kgen.h"

const struct kernel_gen kgen_v6_6 = {
	.name = "6.6",
	.since = KGEN_V(6, 6),
	.scheduler = "EEVDF",
	.changed = "EEVDF pick (RUN_TO_PARITY, PLACE_LAG); base_slice_ns replaces min_granularity_ns",
	.die_id_global = 0,
	.pkg_level = "DIE",
	.slice_knob = "base_slice_ns",
	.task_slice = 0,
	.sched_ext = 0,
};
