/* sysbench_cpu.c - `sysbench cpu`: threads run prime-check events back to
 * back for a fixed time; events per second and event latency (seed 004). */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlproc.h"
#include "../histogram.h"
#include "sysbench_cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SB_MAX_THREADS 1024

/*
 * One sysbench cpu event (cpu_execute_event() in sysbench 1.0): trial
 * division of every c in [3, max_prime) up to sqrt(c).  Returns how many
 * of them are prime, so the work cannot be optimised away.
 */
unsigned long long sb_cpu_event(unsigned long long max_prime)
{
	unsigned long long c, l, n = 0;
	double t;

	for (c = 3; c < max_prime; c++) {
		t = sqrt((double)c);
		for (l = 2; l <= t; l++)
			if (c % l == 0)
				break;
		if (l > t)
			n++;
	}
	return n;
}

struct sb_run;

struct sb_thread {
	struct sb_run *run;
	struct hist lat;             /* event latencies in ns */
	uint64_t events;
	uint64_t last_end_ns;
	unsigned long long primes;
};

struct sb_run {
	struct wl_ctx *ctx;
	struct wl_timed timed;
	unsigned long long max_prime;
	struct sb_thread *threads;
};

static void *sb_worker(void *arg)
{
	struct sb_thread *t = arg;
	struct sb_run *r = t->run;
	uint64_t stop;

	stop = wl_timed_pass(&r->timed);
	for (uint64_t now = wl_now_ns(); now < stop;) {
		unsigned long long n = sb_cpu_event(r->max_prime);
		uint64_t end = wl_now_ns();

		hist_add(&t->lat, end - now);
		t->events++;
		t->primes = n;
		t->last_end_ns = end;
		now = end;
	}
	wl_task_done(r->ctx);
	return NULL;
}

static int sb_run(struct wl_ctx *ctx)
{
	struct sb_run r = { .ctx = ctx, .timed = { WL_GATE_INIT, 0, NULL, "sysbench-cpu" } };
	unsigned nthreads = (unsigned)wl_int(ctx->args, "threads");
	uint64_t runtime_ns = (uint64_t)wl_int(ctx->args, "runtime") * 1000000000ull;
	uint64_t t0, end = 0, events = 0;
	struct hist *all = NULL;
	int ret = -1;

	r.max_prime = (unsigned long long)wl_int(ctx->args, "max_prime");
	r.threads = calloc(nthreads, sizeof(*r.threads));
	all = malloc(sizeof(*all));
	if (!r.threads || !all) {
		wl_fail(ctx, "out of memory");
		goto out;
	}
	hist_init(all);
	if (wl_timed_init(&r.timed, ctx, nthreads) < 0)
		goto out;
	for (unsigned i = 0; i < nthreads; i++) {
		r.threads[i].run = &r;
		hist_init(&r.threads[i].lat);
	}
	if (wl_timed_run(&r.timed, ctx, nthreads, runtime_ns, sb_worker, r.threads,
			 sizeof(r.threads[0]), &t0) < 0)
		goto out;
	for (unsigned i = 0; i < nthreads; i++) {
		struct sb_thread *t = &r.threads[i];

		/* the same work must give the same answer on every CPU */
		if (t->events && t->primes != r.threads[0].primes) {
			wl_fail(ctx, "thread %u counted %llu primes below %llu, thread 0 %llu",
				i, t->primes, r.max_prime, r.threads[0].primes);
			goto out;
		}
		hist_merge(all, &t->lat);
		events += t->events;
		if (t->last_end_ns > end)
			end = t->last_end_ns;
	}
	if (!events) {
		wl_fail(ctx, "no event completed");
		goto out;
	}
	/* sysbench divides by the time the last event ended, not the runtime */
	wl_metric(ctx, "events_s", "events/s", (double)events / ((double)(end - t0) * 1e-9), 1);
	wl_metric(ctx, "latency_p95", "ms", hist_percentile(all, 95) * 1e-6, 0);
	wl_metric(ctx, "latency_avg", "ms", hist_mean(all) * 1e-6, 0);
	ret = 0;
out:
	wl_timed_release(&r.timed);
	free(all);
	free(r.threads);
	return ret;
}

static const struct wl_option sb_options[] = {
	{ "threads", WL_INT, 1, SB_MAX_THREADS, "1",
	  NULL, "threads running events back to back (not pinned)" },
	{ "runtime", WL_INT, 1, 86400, "3",
	  NULL, "seconds to run; an event started before the end completes" },
	{ "max_prime", WL_INT, 3, 100000000, "10000",
	  NULL, "each event checks every number below this for primality" },
	{ .name = NULL },
};

const struct workload_ops workload_sysbench_cpu = {
	.name = "sysbench_cpu",
	.description = "sysbench cpu prime events: events/s and p95 latency (seed 004)",
	.options = sb_options,
	.run = sb_run,
};
