/* scx_simple: the smallest useful sched_ext scheduler. */
#include "scx/scx.h"

const struct scx_sched scx_sched_simple = {
	.name = "simple",
	.binary = "scx_simple",
	.ops = "simple",
	.summary = "one global queue, weighted vtime (or FIFO with -f); idle CPUs picked "
		   "by the kernel's default select_cpu",
	.min_cpus = 0,
	.stall_args = NULL,
	.timeout_ms = 0,
};
