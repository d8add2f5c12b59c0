/* scx_userland: the decisions made by a user-space process. */
#include "scx/scx.h"

const struct scx_sched scx_sched_userland = {
	.name = "userland",
	.binary = "scx_userland",
	.ops = "userland",
	.summary = "vruntime order kept by a user-space thread; BPF only moves tasks to and "
		   "from it (slow by design)",
	.min_cpus = 0,
	.stall_args = NULL,
	.timeout_ms = 0,
};
