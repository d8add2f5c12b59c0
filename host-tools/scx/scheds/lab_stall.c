/* scx_lab_stall: the lab's own scheduler, broken on purpose (guest/scx/). */
#include "scx/scx.h"

const struct scx_sched scx_sched_lab_stall = {
	.name = "lab_stall",
	.binary = "scx_lab_stall",
	.ops = "lab_stall",
	.summary = "the lab's own test scheduler: a user task allowed on one CPU only is never "
		   "run, so the watchdog ejects it (ejection tests; with an affinity_storm of width 1)",
	.min_cpus = 0,
	/* it stalls whatever is pinned to one CPU: no arguments needed */
	.stall_args = "",
	.timeout_ms = 3000,
};
