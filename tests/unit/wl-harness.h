/* wl-harness.h - runs a workload as the runner would, for unit tests of
 * workloads (linked with the runner's objects, less its main()). */
#ifndef WL_HARNESS_H
#define WL_HARNESS_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../guest/runner/workload.h"
#include "../../guest/runner/wlproc.h"
#include "../../guest/runner/wlutil.h"

/* What the tasks of the last harness_run() added up (wl_task_done()). */
static struct wl_task_totals harness_totals;
static struct wl_args *harness_args;
/* Their tids, as the runner maps them for a traced case (shared memory). */
static struct wl_task_tids *harness_tids;

/*
 * Runs w once through wl_run_once(), with its options set from the
 * NULL-terminated "key", "value" pairs over its defaults and a deadline
 * `seconds` from now; returns run()'s result, ctx holds the metrics or
 * the error.  A bad option fails the test.
 */
__attribute__((sentinel))
static inline int harness_run(struct wl_ctx *ctx, const struct workload_ops *w, unsigned seconds, ...)
{
	char err[256] = "";
	const char *k;
	va_list ap;

	/* ctx->args points here until the next run */
	wl_args_free(harness_args);
	harness_args = wl_args_new();
	assert_non_null(harness_args);
	va_start(ap, seconds);
	while ((k = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);

		if (wl_args_set(harness_args, w, k, v, err, sizeof(err)) < 0)
			fail_msg("%s", err);
	}
	va_end(ap);
	if (wl_args_finish(harness_args, w, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	memset(&harness_totals, 0, sizeof(harness_totals));
	if (!harness_tids) {
		harness_tids = mmap(NULL, sizeof(*harness_tids), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		assert_true(harness_tids != MAP_FAILED);
	}
	harness_tids->ended = 0;
	return wl_run_once(w, harness_args, seconds, ctx, &harness_totals, harness_tids);
}

/*
 * The last run's tasks each called wl_task_done() once: n of them.  It
 * counts what /proc/thread-self/sched gives, so without that file
 * (no CONFIG_SCHED_DEBUG) there is nothing to check.
 */
static inline void assert_tasks_done(uint64_t n)
{
	if (access("/proc/self/sched", R_OK) < 0)
		return;
	assert_int_equal(harness_totals.tasks, n);
	/* the same tasks' tids, each once */
	assert_int_equal(harness_tids->ended, n);
	for (uint64_t i = 0; i < n && i < WL_MAX_TIDS; i++) {
		assert_true(harness_tids->tid[i] > 0);
		for (uint64_t j = 0; j < i; j++)
			assert_int_not_equal(harness_tids->tid[i], harness_tids->tid[j]);
	}
}

/* The metric called name; the test fails when the run did not give it. */
static inline const struct wl_metric *harness_metric(const struct wl_ctx *ctx, const char *name)
{
	for (unsigned i = 0; i < ctx->nr_metrics; i++)
		if (!strcmp(ctx->metrics[i].name, name))
			return &ctx->metrics[i];
	fail_msg("no metric '%s'", name);
	return NULL;
}

#endif
