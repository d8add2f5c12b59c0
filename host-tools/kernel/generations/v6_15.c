/* Linux 6.15: the scheduler's debug interface is always built. */
#include "kernel/kgen.h"

static const struct kgen_config_change changes[] = {
	{ "SCHED_DEBUG", NULL, "removed in 6.15: debugfs sched/ and /proc/<pid>/sched are always built" },
	{ NULL, NULL, NULL },
};

const struct kernel_gen kgen_v6_15 = {
	.name = "6.15",
	.since = KGEN_V(6, 15),
	.scheduler = "EEVDF",
	.changed = "CONFIG_SCHED_DEBUG removed (its interfaces always built)",
	.die_id_global = 1,
	.pkg_level = "PKG",
	.arm64_llc_all = 1,
	.slice_knob = "base_slice_ns",
	.task_slice = 1,
	.sched_ext = 1,
	.config_changes = changes,
};
