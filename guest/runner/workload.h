/* workload.h - what every workload of the runner provides (one file each
 * under guest/runner/workloads/, one const struct workload_ops each). */
#ifndef LAB_WORKLOAD_H
#define LAB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* struct wl_option, struct wl_args, wl_int(), wl_str(): options.h.  The
 * runner checks the options against the workload's table before run(). */

#define WL_MAX_METRICS 32
#define WL_NAME_LEN 48

struct wl_metric {
	char name[WL_NAME_LEN];  /* "time", "wakeup_p99", "rps", "mb_s" */
	char unit[16];           /* "s", "us", "MB/s", "ops/s" */
	double value;
	int higher_is_better;
};

/*
 * Counters of the workload's own tasks, summed by every task as it ends
 * (wl_task_done() reads /proc/thread-self/sched): lives in shared memory,
 * so forked processes and threads add into the same totals.
 */
struct wl_task_totals {
	uint64_t tasks;
	uint64_t nr_migrations;
	uint64_t nr_voluntary_switches;
	uint64_t nr_involuntary_switches;
	uint64_t wait_sum_ns;      /* se.statistics.wait_sum, when schedstats are on */
	uint64_t nr_wakeups;
	uint64_t nr_wakeups_migrate;
	uint64_t numa_pages_migrated;
	uint64_t core_forceidle_ns; /* core_forceidle_sum (CONFIG_SCHED_CORE + schedstats) */
	uint64_t nr_failed_migrations_hot; /* the balancer spared it as cache-hot */
	/* the range of the tasks' se.slice (Linux 6.6+), 0 when none showed
	 * one: what slice_us is checked against (wlslice.h) */
	uint64_t slice_ns_min, slice_ns_max;
};

/*
 * The tids of the same tasks, for the host's trace rows of the case's own
 * tasks: shared memory the caller of wl_run_once() maps (the runner, so
 * it outlives the run's process), filled by wl_task_done().
 */
#define WL_MAX_TIDS 16384u
struct wl_task_tids {
	uint32_t ended;              /* tasks that called wl_task_done() ... */
	int32_t tid[WL_MAX_TIDS];    /* ... the first WL_MAX_TIDS of them */
};

#define WL_MAX_COUNTERS 8

/* A number about the run that is not a judged metric (a cookie, a sum of
 * forced-idle time per group): reported beside the task counters. */
struct wl_counter {
	char name[WL_NAME_LEN];
	double value;
};

struct wl_ctx {
	const struct wl_args *args;
	unsigned nr_cpus;            /* online CPUs */
	uint64_t deadline_ns;        /* CLOCK_MONOTONIC; workloads stop by then */
	struct wl_task_totals *totals; /* shared memory, see wl_task_done() */
	struct wl_task_tids *tids;   /* the same, or NULL: no tids wanted */
	/* out */
	struct wl_metric metrics[WL_MAX_METRICS];
	unsigned nr_metrics;
	struct wl_counter counters[WL_MAX_COUNTERS];
	unsigned nr_counters;
	char error[256];             /* why run() failed, one line */
	char skip[256];              /* why run() found nothing to measure (wl_skip()) */
};

/* Adds a metric to ctx (silently ignored past WL_MAX_METRICS). */
void wl_metric(struct wl_ctx *ctx, const char *name, const char *unit,
	       double value, int higher_is_better);
/* Adds a counter to ctx (silently ignored past WL_MAX_COUNTERS). */
void wl_counter(struct wl_ctx *ctx, const char *name, double value);
/* Every workload task calls this right before it exits (threads too). */
void wl_task_done(struct wl_ctx *ctx);
/* Sets ctx->skip and returns 0, for a run that found its case cannot be
 * measured here after all (a test that skips itself): the case is a SKIP
 * with that reason, its later runs are not run. */
int wl_skip(struct wl_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets ctx->error and returns -1, for `return wl_fail(ctx, "...")`. */
int wl_fail(struct wl_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t wl_now_ns(void);
/* Value of "name   :   123" in /proc/.../sched, 0 when absent. */
uint64_t wl_sched_field(const char *text, const char *name);

struct workload_ops {
	const char *name;
	const char *description;
	const struct wl_option *options; /* terminated by { .name = NULL } */
	/* NULL, or returns 0 and fills why when this system cannot run it */
	int (*supported)(char *why, size_t len);
	/* NULL, or the same for one case's options (a mode this kernel lacks) */
	int (*case_supported)(const struct wl_args *args, char *why, size_t len);
	/* NULL, or -1 and why when one case's options need a newer kernel
	 * than release: an error, not a skip, for an option an older kernel
	 * takes and silently ignores.  The runner asks with the guest's
	 * uname, `runner --check-plan --kernel R` with the kernel lab run
	 * is about to boot. */
	int (*kernel_check)(const struct wl_args *args, const char *release, char *why, size_t len);
	/* Runs once; 0 and metrics in ctx, or -1 and ctx->error.  Must reap
	 * every process and join every thread it started before returning. */
	int (*run)(struct wl_ctx *ctx);
	/* NULL, or what the initrd must carry besides the runner for it to
	 * run at all ("the sched_ext selftests: lab scx build"): such a
	 * workload has a suite of its own instead of a smoke scenario */
	const char *needs;
};

/* The registry (workload.c, generated from WORKLOAD_LIST). */
#define WORKLOAD_LIST(X) \
	X(hackbench)     \
	X(schbench)      \
	X(tbench)        \
	X(netperf)       \
	X(stream)        \
	X(numa)          \
	X(iperf)         \
	X(sysbench_cpu)  \
	X(vector_hog)    \
	X(coresched)     \
	X(exec)          \
	X(scx_selftest)

#define X(n) extern const struct workload_ops workload_##n;
WORKLOAD_LIST(X)
#undef X

/* Option parsing for the runner core (and `runner --check-plan`):
 * set every given option, then finish() fills defaults and checks that
 * required ones are there.  Errors are one line in err. */
struct wl_args *wl_args_new(void);
void wl_args_free(struct wl_args *a);
int wl_args_set(struct wl_args *a, const struct workload_ops *w, const char *name,
		const char *val, char *err, size_t errlen);
int wl_args_finish(struct wl_args *a, const struct workload_ops *w, char *err, size_t errlen);

/* Runs w once with args in a fresh context: shared task totals, deadline
 * `seconds` from now.  Returns run()'s result; ctx is filled.  tids:
 * shared memory the caller owns and has zeroed, or NULL. */
int wl_run_once(const struct workload_ops *w, const struct wl_args *args,
		unsigned seconds, struct wl_ctx *ctx, struct wl_task_totals *totals_out,
		struct wl_task_tids *tids);

extern const struct workload_ops *const workloads[];
extern const size_t nr_workloads;
const struct workload_ops *workload_find(const char *name);

#endif
