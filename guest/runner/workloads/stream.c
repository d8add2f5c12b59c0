/* stream.c - STREAM v5.10 memory bandwidth: copy, scale, add and triad over
 * arrays each >= 4x the last-level caches, best of ntimes, results checked. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlutil.h"
#include "stream.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define STREAM_MAX_THREADS 1024
/* array size when sysfs describes no caches: STREAM's default 10M elements */
#define STREAM_FALLBACK_BYTES (10000000ull * sizeof(double))

static const char *const stream_metric[NR_KERNELS] = {
	"copy_mb_s", "scale_mb_s", "add_mb_s", "triad_mb_s",
};
/* arrays touched per element: copy and scale read one and write one */
static const unsigned stream_arrays[NR_KERNELS] = { 2, 2, 3, 3 };

uint64_t stream_bytes(enum stream_kernel k, uint64_t n)
{
	return (uint64_t)stream_arrays[k] * sizeof(double) * n;
}

/* Best time of iterations 1..ntimes-1: the first one warms up, as in STREAM. */
double stream_best_time(const double *times, unsigned ntimes)
{
	double best = INFINITY;

	for (unsigned i = 1; i < ntimes; i++)
		if (times[i] < best)
			best = times[i];
	return best;
}

double stream_mb_s(enum stream_kernel k, uint64_t n, double best_s)
{
	return 1e-6 * (double)stream_bytes(k, n) / best_s;
}

/* The values every element holds after ntimes iterations. */
void stream_expected(unsigned ntimes, double *a, double *b, double *c)
{
	double aj = 1.0, bj = 2.0, cj = 0.0;

	aj = 2.0 * aj;
	for (unsigned k = 0; k < ntimes; k++) {
		cj = aj;
		bj = STREAM_SCALAR * cj;
		cj = aj + bj;
		aj = bj + STREAM_SCALAR * cj;
	}
	*a = aj;
	*b = bj;
	*c = cj;
}

/*
 * STREAM's check: the average absolute error of each array relative to its
 * expected value must stay within epsilon.  sums[] are the summed absolute
 * errors of a, b, c over n elements.  Returns 0, or -1 with why filled.
 */
int stream_check(const double sums[3], uint64_t n, unsigned ntimes,
		 char *why, size_t len)
{
	static const char names[3] = { 'a', 'b', 'c' };
	double expect[3];

	stream_expected(ntimes, &expect[0], &expect[1], &expect[2]);
	for (int i = 0; i < 3; i++) {
		double rel = fabs(sums[i] / (double)n / expect[i]);

		if (!(rel <= STREAM_EPSILON)) {
			snprintf(why, len, "validation failed: array %c average relative error %g > %g",
				 names[i], rel, STREAM_EPSILON);
			return -1;
		}
	}
	return 0;
}

/* Elements per array: bytes rounded down to whole pages of doubles. */
uint64_t stream_elements(uint64_t array_bytes)
{
	return array_bytes / sizeof(double) / STREAM_CHUNK * STREAM_CHUNK;
}

/* [lo, hi) of thread t of n over nelem elements, in whole chunks. */
void stream_slice(uint64_t nelem, unsigned t, unsigned n, uint64_t *lo, uint64_t *hi)
{
	uint64_t chunks = (nelem + STREAM_CHUNK - 1) / STREAM_CHUNK;

	*lo = chunks * t / n * STREAM_CHUNK;
	*hi = chunks * (t + 1) / n * STREAM_CHUNK;
	if (*hi > nelem)
		*hi = nelem;
	if (*lo > nelem)
		*lo = nelem;
}

void stream_do(struct stream_run *r, struct stream_thread *t, enum stream_phase ph)
{
	double *restrict a = r->a, *restrict b = r->b, *restrict c = r->c;
	const double s = STREAM_SCALAR;
	uint64_t lo = t->lo, hi = t->hi;
	double ea = 0, eb = 0, ec = 0, xa, xb, xc;

	switch (ph) {
	case PH_INIT:
		/* STREAM sets a = 1 and then doubles it; the values are the same */
		for (uint64_t j = lo; j < hi; j++) {
			a[j] = 2.0;
			b[j] = 2.0;
			c[j] = 0.0;
		}
		break;
	case PH_COPY:
		for (uint64_t j = lo; j < hi; j++)
			c[j] = a[j];
		break;
	case PH_SCALE:
		for (uint64_t j = lo; j < hi; j++)
			b[j] = s * c[j];
		break;
	case PH_ADD:
		for (uint64_t j = lo; j < hi; j++)
			c[j] = a[j] + b[j];
		break;
	case PH_TRIAD:
		for (uint64_t j = lo; j < hi; j++)
			a[j] = b[j] + s * c[j];
		break;
	case PH_CHECK:
		stream_expected(r->ntimes, &xa, &xb, &xc);
		for (uint64_t j = lo; j < hi; j++) {
			ea += fabs(a[j] - xa);
			eb += fabs(b[j] - xb);
			ec += fabs(c[j] - xc);
		}
		t->err[0] = ea;
		t->err[1] = eb;
		t->err[2] = ec;
		break;
	case PH_STOP:
		break;
	}
}

static void *stream_worker(void *arg)
{
	struct stream_thread *t = arg;
	struct stream_run *r = t->run;

	/* pinned before the first touch, so the slice lands on our node */
	if (wl_pin_self(t->cpu) < 0) {
		wl_gate_pass_failed(&r->gate);
		goto out;
	}
	wl_gate_pass(&r->gate);
	/* the parent stops us at the gate when not every thread could start */
	if (__atomic_load_n(&r->phase, __ATOMIC_ACQUIRE) == PH_STOP)
		goto out;
	for (;;) {
		enum stream_phase ph;

		pthread_barrier_wait(&r->start);
		ph = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE);
		if (ph == PH_STOP)
			break;
		stream_do(r, t, ph);
		pthread_barrier_wait(&r->done);
	}
out:
	wl_task_done(r->ctx);
	return NULL;
}

/* One phase on every thread; returns its wall time in seconds. */
static double stream_phase_run(struct stream_run *r, enum stream_phase ph)
{
	uint64_t t0;

	__atomic_store_n(&r->phase, ph, __ATOMIC_RELEASE);
	t0 = wl_now_ns();
	pthread_barrier_wait(&r->start);
	pthread_barrier_wait(&r->done);
	return (double)(wl_now_ns() - t0) * 1e-9;
}

static void stream_unmap(struct stream_run *r, uint64_t bytes)
{
	double **arr[3] = { &r->a, &r->b, &r->c };

	for (int i = 0; i < 3; i++) {
		if (*arr[i] && *arr[i] != MAP_FAILED)
			munmap(*arr[i], bytes);
		*arr[i] = NULL;
	}
}

static uint64_t stream_array_bytes(struct wl_ctx *ctx)
{
	int64_t want = wl_int(ctx->args, "array_size");
	unsigned instances;
	uint64_t llc;

	if (want)
		return (uint64_t)want;
	/* STREAM's rule: each array >= 4x the sum of all last-level caches */
	llc = wl_llc_bytes(&instances);
	return llc ? 4 * llc * instances : STREAM_FALLBACK_BYTES;
}

/* Runs the iterations; times[k * ntimes + i] is kernel k's i-th time. */
static int stream_measure(struct wl_ctx *ctx, struct stream_run *r, double *times)
{
	for (unsigned i = 0; i < r->ntimes; i++) {
		if (wl_now_ns() >= ctx->deadline_ns)
			return wl_fail(ctx, "deadline passed after %u of %u iterations", i, r->ntimes);
		for (int k = 0; k < NR_KERNELS; k++)
			times[k * r->ntimes + i] = stream_phase_run(r, (enum stream_phase)(PH_COPY + k));
	}
	return 0;
}

/* Starts the threads and lets them pin themselves; 0 when all are ready. */
static int stream_start(struct wl_ctx *ctx, struct stream_run *r, unsigned nthreads,
			const int *cpus, unsigned ncpus, unsigned *started)
{
	int ret;

	for (unsigned i = 0; i < nthreads; i++) {
		struct stream_thread *t = &r->threads[i];
		int err;

		t->run = r;
		t->cpu = cpus[i % ncpus];
		stream_slice(r->nelem, i, nthreads, &t->lo, &t->hi);
		err = pthread_create(&t->tid, NULL, stream_worker, t);
		if (err)
			return wl_fail(ctx, "cannot start thread %u of %u: %s", i, nthreads, strerror(err));
		pthread_setname_np(t->tid, "stream");
		(*started)++;
	}
	ret = wl_gate_wait_ready(&r->gate, nthreads, ctx->deadline_ns);
	if (ret > 0)
		return wl_fail(ctx, "cannot pin a thread to its cpu");
	if (ret < 0)
		return wl_fail(ctx, "deadline passed while starting %u threads", nthreads);
	return 0;
}

static int stream_run(struct wl_ctx *ctx)
{
	struct stream_run r = { .ctx = ctx, .gate = WL_GATE_INIT };
	int cpus[STREAM_MAX_THREADS];
	unsigned nthreads = (unsigned)wl_int(ctx->args, "threads"), started = 0;
	uint64_t bytes, mapped = 0;
	int64_t avail = wl_mem_available();
	double *times = NULL, sums[3] = { 0, 0, 0 };
	int ncpus, ret = -1, barriers = 0;

	r.ntimes = (unsigned)wl_int(ctx->args, "ntimes");
	ncpus = wl_allowed_cpus(cpus, STREAM_MAX_THREADS);
	if (ncpus < 0)
		return wl_fail(ctx, "sched_getaffinity: %s", strerror(errno));
	if (!nthreads)
		nthreads = (unsigned)ncpus;
	r.nelem = stream_elements(stream_array_bytes(ctx));
	if (!r.nelem)
		return wl_fail(ctx, "array_size is below one page of doubles");
	bytes = r.nelem * sizeof(double);
	if (avail < 0)
		return wl_fail(ctx, "cannot read MemAvailable from '/proc/meminfo'");
	if (3 * bytes > (uint64_t)avail / 2)
		return wl_fail(ctx, "3 arrays of %llu MiB do not fit in half of MemAvailable (%llu MiB)",
			       (unsigned long long)(bytes >> 20), (unsigned long long)(avail >> 20));

	times = calloc((size_t)NR_KERNELS * r.ntimes, sizeof(*times));
	r.threads = calloc(nthreads, sizeof(*r.threads));
	if (!times || !r.threads) {
		wl_fail(ctx, "out of memory");
		goto out_free;
	}
	/* mmap, not malloc: pages stay untouched until their owner writes */
	r.a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r.c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mapped = bytes;
	if (r.a == MAP_FAILED || r.b == MAP_FAILED || r.c == MAP_FAILED) {
		wl_fail(ctx, "cannot map 3 arrays of %llu MiB: %s",
			(unsigned long long)(bytes >> 20), strerror(errno));
		goto out_unmap;
	}
	if (wl_gate_init(&r.gate) < 0) {
		wl_fail(ctx, "pipe: %s", strerror(errno));
		goto out_unmap;
	}
	if (pthread_barrier_init(&r.start, NULL, nthreads + 1) ||
	    pthread_barrier_init(&r.done, NULL, nthreads + 1)) {
		wl_fail(ctx, "pthread_barrier_init failed");
		goto out_gate;
	}
	barriers = 1;
	if (stream_start(ctx, &r, nthreads, cpus, (unsigned)ncpus, &started) < 0) {
		/* threads leave at the gate without touching the barriers */
		__atomic_store_n(&r.phase, PH_STOP, __ATOMIC_RELEASE);
		wl_gate_open(&r.gate);
		goto out_join;
	}
	wl_gate_open(&r.gate);

	stream_phase_run(&r, PH_INIT);
	if (stream_measure(ctx, &r, times) < 0)
		goto out_stop;
	stream_phase_run(&r, PH_CHECK);
	for (unsigned i = 0; i < nthreads; i++)
		for (int j = 0; j < 3; j++)
			sums[j] += r.threads[i].err[j];
	if (stream_check(sums, r.nelem, r.ntimes, ctx->error, sizeof(ctx->error)) < 0)
		goto out_stop;
	for (int k = 0; k < NR_KERNELS; k++) {
		double best = stream_best_time(times + k * r.ntimes, r.ntimes);

		if (!(best > 0)) {
			wl_fail(ctx, "%s took no measurable time", stream_metric[k]);
			goto out_stop;
		}
		wl_metric(ctx, stream_metric[k], "MB/s",
			  stream_mb_s((enum stream_kernel)k, r.nelem, best), 1);
	}
	ret = 0;

out_stop:
	__atomic_store_n(&r.phase, PH_STOP, __ATOMIC_RELEASE);
	pthread_barrier_wait(&r.start);
out_join:
	for (unsigned i = 0; i < started; i++)
		pthread_join(r.threads[i].tid, NULL);
out_gate:
	if (barriers) {
		pthread_barrier_destroy(&r.start);
		pthread_barrier_destroy(&r.done);
	}
	wl_gate_release(&r.gate);
out_unmap:
	stream_unmap(&r, mapped);
out_free:
	free(times);
	free(r.threads);
	return ret;
}

static const struct wl_option stream_options[] = {
	{ "array_size", WL_SIZE, 0, 1ll << 40, "0",
	  NULL, "bytes per array (3 arrays); 0 = 4x the sum of the last-level caches" },
	{ "ntimes", WL_INT, 2, 200, "10",
	  NULL, "iterations of the four kernels; the best of all but the first counts" },
	{ "threads", WL_INT, 0, STREAM_MAX_THREADS, "0",
	  NULL, "threads, each pinned to a CPU and owning a slice; 0 = one per CPU" },
	{ .name = NULL },
};

const struct workload_ops workload_stream = {
	.name = "stream",
	.description = "STREAM copy/scale/add/triad memory bandwidth (MB/s)",
	.options = stream_options,
	.run = stream_run,
};
