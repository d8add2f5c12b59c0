/* scx_sdt: per-task data in a BPF arena. */
#include "scx/scx.h"

const struct scx_sched scx_sched_sdt = {
	.name = "sdt",
	.binary = "scx_sdt",
	.ops = "sdt",
	.summary = "scx_simple's policy with its per-task data in a BPF arena allocator",
	.min_cpus = 0,
	.stall_args = NULL,
	.timeout_ms = 0,
};
