/* scx_pair: pairs of CPUs that only run tasks of one cgroup at a time. */
#include "scx/scx.h"

const struct scx_sched scx_sched_pair = {
	.name = "pair",
	.binary = "scx_pair",
	.ops = "pair",
	.summary = "CPUs in pairs (stride -S, default half the CPUs) that run tasks of the "
		   "same cgroup together, like core scheduling",
	.min_cpus = 2,
	.stall_args = NULL,
	.timeout_ms = 0,
};
