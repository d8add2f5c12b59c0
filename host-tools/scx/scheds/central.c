/* scx_central: one CPU makes every scheduling decision. */
#include "scx/scx.h"

const struct scx_sched scx_sched_central = {
	.name = "central",
	.binary = "scx_central",
	.ops = "central",
	.summary = "a central CPU (0 unless -c) dispatches to every other CPU's local queue; "
		   "the others run tickless",
	/* one CPU to decide and at least one to run what it decides */
	.min_cpus = 2,
	.stall_args = NULL,
	.timeout_ms = 0,
};
