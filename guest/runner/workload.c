/* workload.c - the workload registry and what workloads share: options
 * (through options.c), metrics, per-task scheduler counters, failure messages. */
#define _GNU_SOURCE
#include "workload.h"
#include "wlslice.h"
#include "wlutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define X(n) &workload_##n,
const struct workload_ops *const workloads[] = { WORKLOAD_LIST(X) };
#undef X
const size_t nr_workloads = sizeof(workloads) / sizeof(workloads[0]);

const struct workload_ops *workload_find(const char *name)
{
	for (size_t i = 0; i < nr_workloads; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void wl_metric(struct wl_ctx *ctx, const char *name, const char *unit,
	       double value, int higher_is_better)
{
	struct wl_metric *m;

	if (ctx->nr_metrics >= WL_MAX_METRICS)
		return;
	m = &ctx->metrics[ctx->nr_metrics++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
	m->higher_is_better = higher_is_better;
}

void wl_counter(struct wl_ctx *ctx, const char *name, double value)
{
	struct wl_counter *c;

	if (ctx->nr_counters >= WL_MAX_COUNTERS)
		return;
	c = &ctx->counters[ctx->nr_counters++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
}

int wl_skip(struct wl_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->skip, sizeof(ctx->skip), fmt, ap);
	va_end(ap);
	return 0;
}

int wl_fail(struct wl_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->error, sizeof(ctx->error), fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t wl_sched_field(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; (p = strstr(p, name)); p += n) {
		const char *q = p + n;

		if (p != text && p[-1] != '\n')
			continue;
		while (*q == ' ')
			q++;
		if (*q != ':')
			continue;
		q++;
		while (*q == ' ')
			q++;
		/* wait_sum is printed as "ms.ns"; keep nanoseconds */
		{
			char *end;
			unsigned long long whole = strtoull(q, &end, 10);

			if (*end == '.') {
				unsigned long long frac = strtoull(end + 1, NULL, 10);

				return (uint64_t)whole * 1000000ull + frac;
			}
			return (uint64_t)whole;
		}
	}
	return 0;
}

void wl_task_done(struct wl_ctx *ctx)
{
	char buf[8192];
	ssize_t n;
	int fd;
	struct wl_task_totals *t = ctx->totals;

	if (!t)
		return;
	/* thread-self: the counters of this very thread, also in a process */
	fd = open("/proc/thread-self/sched", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/sched", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	__atomic_add_fetch(&t->tasks, 1, __ATOMIC_RELAXED);
	if (ctx->tids) {
		uint32_t i = __atomic_fetch_add(&ctx->tids->ended, 1, __ATOMIC_RELAXED);

		if (i < WL_MAX_TIDS)
			__atomic_store_n(&ctx->tids->tid[i], (int32_t)syscall(SYS_gettid),
					 __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&t->nr_migrations, wl_sched_field(buf, "se.nr_migrations"), __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->nr_voluntary_switches, wl_sched_field(buf, "nr_voluntary_switches"), __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->nr_involuntary_switches, wl_sched_field(buf, "nr_involuntary_switches"), __ATOMIC_RELAXED);
	/* the prefix went in 5.17 (p->stats): "wait_sum" at the line start */
	__atomic_add_fetch(&t->wait_sum_ns, wl_sched_field(buf, "se.statistics.wait_sum") +
			   wl_sched_field(buf, "se.wait_sum") + wl_sched_field(buf, "wait_sum"),
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->nr_wakeups, wl_sched_field(buf, "se.statistics.nr_wakeups") +
			   wl_sched_field(buf, "se.nr_wakeups") + wl_sched_field(buf, "nr_wakeups"),
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->nr_wakeups_migrate, wl_sched_field(buf, "se.statistics.nr_wakeups_migrate") +
			   wl_sched_field(buf, "se.nr_wakeups_migrate") +
			   wl_sched_field(buf, "nr_wakeups_migrate"), __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->numa_pages_migrated, wl_sched_field(buf, "numa_pages_migrated"), __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->core_forceidle_ns, wl_sched_field(buf, "core_forceidle_sum"),
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->nr_failed_migrations_hot,
			   wl_sched_field(buf, "se.statistics.nr_failed_migrations_hot") +
			   wl_sched_field(buf, "nr_failed_migrations_hot"), __ATOMIC_RELAXED);
	wl_slice_note(t, buf);
}

/* ---- options (options.c checks them) ---- */

struct wl_args *wl_args_new(void)
{
	return calloc(1, sizeof(struct wl_args));
}

void wl_args_free(struct wl_args *a)
{
	free(a);
}

int wl_args_set(struct wl_args *a, const struct workload_ops *w, const char *name,
		const char *val, char *err, size_t errlen)
{
	int ret;

	if (a->table != w->options && wl_args_start(a, w->options, err, errlen) < 0)
		return -1;
	ret = wl_args_put(a, name, val, NULL, err, errlen);
	if (ret > 0)
		snprintf(err, errlen, "workload '%s' has no option '%s'", w->name, name);
	return ret ? -1 : 0;
}

int wl_args_finish(struct wl_args *a, const struct workload_ops *w, char *err, size_t errlen)
{
	const char *missing;
	int ret;

	if (a->table != w->options && wl_args_start(a, w->options, err, errlen) < 0)
		return -1;
	ret = wl_args_fill(a, NULL, &missing, err, errlen);
	if (ret > 0)
		snprintf(err, errlen, "workload '%s' needs option '%s'", w->name, missing);
	return ret ? -1 : 0;
}

int wl_run_once(const struct workload_ops *w, const struct wl_args *args,
		unsigned seconds, struct wl_ctx *ctx, struct wl_task_totals *totals_out,
		struct wl_task_tids *tids)
{
	struct wl_task_totals *t;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	/* shared, so tasks in forked children add into the same totals */
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return wl_fail(ctx, "mmap: %s", strerror(errno));
	memset(t, 0, sizeof(*t));
	ctx->args = args;
	ctx->nr_cpus = n > 0 ? (unsigned)n : 1;
	ctx->deadline_ns = wl_now_ns() + (uint64_t)seconds * 1000000000ull;
	ctx->totals = t;
	ctx->tids = tids;
	ret = w->run(ctx);
	if (totals_out)
		*totals_out = *t;
	ctx->totals = NULL;
	ctx->tids = NULL;
	munmap(t, sizeof(*t));
	return ret;
}
