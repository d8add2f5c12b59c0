/* wlslice.c - a task's EEVDF slice through sched_setattr() (no libc wrapper
 * in a static busybox-era runner: the raw system call), and its check. */
#define _GNU_SOURCE
#include "wlslice.h"
#include "common/kversion.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_sched_setattr
#define SYS_sched_setattr 314
#endif
#ifndef SYS_sched_getattr
#define SYS_sched_getattr 315
#endif

/* include/uapi/linux/sched/types.h, SCHED_ATTR_SIZE_VER0 */
struct wl_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

uint64_t wl_slice_ns(const struct wl_args *a)
{
	return wl_isset(a, "slice_us") ? (uint64_t)wl_int(a, "slice_us") * 1000 : 0;
}

int wl_slice_kernel_check(const struct wl_args *a, const char *release, char *why, size_t len)
{
	/* a release that does not read as one passes: wl_slice_verify() tells */
	if (!wl_slice_ns(a) || kversion_at_least(release, WL_SLICE_SINCE) != 0)
		return 0;
	snprintf(why, len, "slice_us needs Linux %s or later: %s ignores sched_attr.sched_runtime "
		 "of a SCHED_OTHER task", WL_SLICE_SINCE, release);
	return -1;
}

int wl_slice_set(uint64_t ns)
{
	struct wl_sched_attr attr;
	long policy = syscall(SYS_sched_getscheduler, 0);

	errno = 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	/* SCHED_RESET_ON_FORK rides in the policy's high bit */
	attr.sched_policy = policy < 0 ? SCHED_OTHER : (uint32_t)policy & ~(uint32_t)SCHED_RESET_ON_FORK;
	attr.sched_nice = (int32_t)getpriority(PRIO_PROCESS, 0);
	if (errno)
		return -errno;
	if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH)
		return -EPERM;
	attr.sched_runtime = ns;
	if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0)
		return -errno;
	return 0;
}

void wl_slice_note(struct wl_task_totals *t, const char *sched_text)
{
	uint64_t v = wl_sched_field(sched_text, "se.slice"), cur;

	if (!t || !v)
		return;
	cur = __atomic_load_n(&t->slice_ns_min, __ATOMIC_RELAXED);
	while ((!cur || v < cur) &&
	       !__atomic_compare_exchange_n(&t->slice_ns_min, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	cur = __atomic_load_n(&t->slice_ns_max, __ATOMIC_RELAXED);
	while (v > cur &&
	       !__atomic_compare_exchange_n(&t->slice_ns_max, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

int wl_slice_verify(struct wl_ctx *ctx, uint64_t ns)
{
	const struct wl_task_totals *t = ctx->totals;

	if (!ns || !t)
		return 0;
	if (!t->slice_ns_max)
		return wl_fail(ctx, "slice_us=%llu: the tasks' /proc/<pid>/sched show no se.slice, so "
			       "whether the kernel took it is unknown", (unsigned long long)(ns / 1000));
	if (t->slice_ns_min != ns || t->slice_ns_max != ns)
		return wl_fail(ctx, "slice_us=%llu not in effect: the tasks ran with se.slice %llu..%llu us",
			       (unsigned long long)(ns / 1000), (unsigned long long)(t->slice_ns_min / 1000),
			       (unsigned long long)(t->slice_ns_max / 1000));
	wl_counter(ctx, "slice_us", (double)ns / 1000);
	return 0;
}
