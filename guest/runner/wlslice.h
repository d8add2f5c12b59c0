/* wlslice.h - slice_us, the option hackbench, schbench and exec share: each
 * task's EEVDF request size, set with sched_setattr()'s sched_runtime, and the
 * check that the kernel took it. */
#ifndef RUNNER_WLSLICE_H
#define RUNNER_WLSLICE_H

#include <stddef.h>
#include <stdint.h>

#include "workload.h"

/* The first release where sched_runtime is a fair task's slice: older
 * kernels take the call and ignore the value. */
#define WL_SLICE_SINCE "6.12"

/* The kernel clamps a task's slice to 0.1-100 ms. */
#define WL_SLICE_OPTION                                                                   \
	{ "slice_us", WL_INT, 100, 100000, "", NULL,                                      \
	  "each task's slice (EEVDF request size) in us, set with sched_setattr() "       \
	  "sched_runtime; Linux " WL_SLICE_SINCE " or later; unset: the kernel's base slice" }

/* slice_us in ns, 0 when it is not set. */
uint64_t wl_slice_ns(const struct wl_args *a);

/* workload_ops.kernel_check: -1 and why when slice_us is set and release
 * is older than WL_SLICE_SINCE. */
int wl_slice_kernel_check(const struct wl_args *a, const char *release, char *why, size_t len);

/*
 * Sets the calling thread's slice to ns (its policy and nice kept:
 * SCHED_OTHER or SCHED_BATCH).  0, or -errno.  Only system calls: safe
 * between fork and exec.
 */
int wl_slice_set(uint64_t ns);

/* Folds one task's se.slice (a /proc/<pid>/sched text) into t's range;
 * a kernel without the line adds nothing. */
void wl_slice_note(struct wl_task_totals *t, const char *sched_text);

/*
 * After the tasks ended (each called wl_task_done(), or the workload
 * noted them): every one ran with slice ns, as the kernel's own
 * /proc/<pid>/sched says.  0 with the counter "slice_us" in ctx, or -1
 * with ctx->error; 0 without totals (nothing was counted) or ns 0.
 */
int wl_slice_verify(struct wl_ctx *ctx, uint64_t ns);

#endif
