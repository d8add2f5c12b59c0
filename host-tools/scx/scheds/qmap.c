/* scx_qmap: a five-level FIFO, and the example that misbehaves on request. */
#include "scx/scx.h"

const struct scx_sched scx_sched_qmap = {
	.name = "qmap",
	.binary = "scx_qmap",
	.ops = "qmap",
	.summary = "five FIFO levels by nice, dispatched from a BPF queue map; -t/-T stall every "
		   "Nth user/kernel thread, -e errors after N enqueues (ejection tests)",
	.min_cpus = 0,
	/* every 2nd user thread is never dispatched: a stall the watchdog
	 * sees after ops.timeout_ms */
	.stall_args = "-t 2",
	.timeout_ms = 5000,
};
