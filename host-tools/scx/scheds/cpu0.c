/* scx_cpu0: every task on CPU 0. */
#include "scx/scx.h"

const struct scx_sched scx_sched_cpu0 = {
	.name = "cpu0",
	.binary = "scx_cpu0",
	.ops = "cpu0",
	.summary = "every task queued to CPU 0 (the other CPUs idle): a worst case for "
		   "placement and work conservation",
	.min_cpus = 0,
	.stall_args = NULL,
	.timeout_ms = 0,
};
