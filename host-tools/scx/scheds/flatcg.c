/* scx_flatcg: the cgroup hierarchy flattened into one level of weights. */
#include "scx/scx.h"

const struct scx_sched scx_sched_flatcg = {
	.name = "flatcg",
	.binary = "scx_flatcg",
	.ops = "flatcg",
	.summary = "cgroup weights compounded into one flat level, vtime between cgroups and "
		   "FIFO or vtime within one",
	.min_cpus = 0,
	.stall_args = NULL,
	.timeout_ms = 0,
};
