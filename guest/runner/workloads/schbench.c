/* schbench.c - schbench-style wakeup and request latency: message threads
 * wake batches of workers over futexes; percentiles and requests/s. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlslice.h"
#include "../histogram.h"
#include "../wlproc.h"

#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

/*
 * As in masoncl/schbench: a worker queues itself on its message thread
 * and sleeps on its own futex; the message thread takes ONE timestamp for
 * the whole batch it finds queued and wakes them.  Wakeup latency is that
 * stamp to the worker running again, so it grows with the batch and with
 * how long woken workers wait for a CPU.  Then the worker serves a
 * "request": sleep_us of sleep (waiting on a disk), then naive matrix
 * multiplies over a cache footprint while holding the lock of the CPU it
 * runs on; request latency is the whole of that.
 *
 * What makes our numbers the real tool's numbers (bench/fidelity-schbench.sh):
 * - the per-CPU lock is spun on, not slept on: a worker that lands on the
 *   CPU of a preempted lock holder burns its slice waiting, which is the
 *   price schbench puts on preemption and migration;
 * - the multiply accumulates in memory (m3 is read and written in the
 *   inner loop) and the two source matrices are never written, so they
 *   stay mapped to the zero page: the same CPU time per request;
 * - latencies are taken in whole microseconds and a 0 us delta is not a
 *   sample, as gettimeofday() differences are in schbench.
 */

/* the spin-wait hint of the CPU, as schbench's nop() */
#if defined(__x86_64__) || defined(__i386__)
#define SB_CPU_RELAX() __asm__ __volatile__("pause" ::: "memory")
#elif defined(__aarch64__)
#define SB_CPU_RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define SB_CPU_RELAX() __asm__ __volatile__("" ::: "memory")
#endif

enum { FUTEX_RUNNING = 0, FUTEX_BLOCKED = 1 };
enum { PHASE_WARMUP, PHASE_MEASURE, PHASE_DONE };

struct sb;
struct sb_msg;

struct sb_worker {
	int futex;
	uint64_t wake_us;          /* stamped by the message thread */
	struct sb_worker *next;    /* in the message thread's queue */
	struct sb_msg *msg;
	struct sb *sb;
	unsigned long *matrix;     /* three n x n matrices */
	int measuring;
	uint64_t requests;
	struct hist wakeup, request;
	pthread_t tid;
	int started;
} __attribute__((aligned(64)));

struct sb_msg {
	int futex;
	struct sb_worker *head;    /* lock-free stack of queued workers */
	int live;                  /* its workers not yet gone */
	struct sb *sb;
	pthread_t tid;
	int started;
} __attribute__((aligned(64)));

struct sb_lock {
	pthread_mutex_t m;
} __attribute__((aligned(64)));

struct sb {
	struct wl_ctx *ctx;
	unsigned nr_msg, nr_per_msg, operations, sleep_us;
	uint64_t slice_ns;         /* slice_us: each thread's own, 0 for the kernel's */
	int slice_err;             /* the first errno a thread got setting it */
	size_t n;
	int stopping, phase;
	struct sb_lock *locks;
	unsigned nr_locks;
	struct sb_msg *msg;
	struct sb_worker *w;
};

/* CLOCK_MONOTONIC in whole microseconds, the resolution schbench keeps. */
static uint64_t sb_now_us(void)
{
	return wl_now_ns() / 1000;
}

static long sb_futex(int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Wakes the owner of f if it is (about to be) asleep on it. */
static void sb_post(int *f)
{
	int expected = FUTEX_BLOCKED;

	if (__atomic_compare_exchange_n(f, &expected, FUTEX_RUNNING, 0, __ATOMIC_SEQ_CST,
					__ATOMIC_SEQ_CST))
		sb_futex(f, FUTEX_WAKE_PRIVATE, 1);
}

/* Sleeps while f is BLOCKED; the caller set it BLOCKED before publishing. */
static void sb_wait(int *f)
{
	while (__atomic_load_n(f, __ATOMIC_ACQUIRE) == FUTEX_BLOCKED)
		sb_futex(f, FUTEX_WAIT_PRIVATE, FUTEX_BLOCKED);
}

/* slice_us in the calling thread; a failure is said after the run */
static void sb_slice_self(struct sb *sb)
{
	int e, none = 0;

	if (sb->slice_ns && (e = wl_slice_set(sb->slice_ns)) < 0)
		__atomic_compare_exchange_n(&sb->slice_err, &none, -e, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void *sb_msg_thread(void *arg)
{
	struct sb_msg *m = arg;
	struct sb *sb = m->sb;

	sb_slice_self(sb);

	for (;;) {
		struct sb_worker *list;

		__atomic_store_n(&m->futex, FUTEX_BLOCKED, __ATOMIC_SEQ_CST);
		list = __atomic_exchange_n(&m->head, NULL, __ATOMIC_SEQ_CST);
		if (list) {
			uint64_t now = sb_now_us();

			while (list) {
				/* once posted, the worker may queue itself again */
				struct sb_worker *next = list->next;

				__atomic_store_n(&list->wake_us, now, __ATOMIC_RELAXED);
				sb_post(&list->futex);
				list = next;
			}
			continue;
		}
		/* keep serving until the last worker is gone: none is left asleep */
		if (__atomic_load_n(&sb->stopping, __ATOMIC_SEQ_CST) &&
		    !__atomic_load_n(&m->live, __ATOMIC_SEQ_CST))
			break;
		sb_wait(&m->futex);
	}
	wl_task_done(sb->ctx);
	return NULL;
}

/* The worker's samples count only inside the measured window. */
static int sb_measuring(struct sb_worker *w)
{
	int phase = __atomic_load_n(&w->sb->phase, __ATOMIC_ACQUIRE);

	if (phase == PHASE_MEASURE && !w->measuring) {
		hist_init(&w->wakeup);
		hist_init(&w->request);
		w->requests = 0;
		w->measuring = 1;
	}
	return phase == PHASE_MEASURE;
}

static void sb_matrix_multiply(unsigned long *data, size_t n)
{
	unsigned long *m1 = data, *m2 = data + n * n, *m3 = data + 2 * n * n;

	/*
	 * Deliberately naive, and summing into m3 itself rather than a local:
	 * the loads and stores of m3 set the cost of a request as in schbench.
	 */
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			m3[i * n + j] = 0;
			for (size_t k = 0; k < n; k++)
				m3[i * n + j] += m1[i * n + k] * m2[k * n + j];
		}
	}
}

/*
 * Takes the lock of the CPU we run on, spinning (never sleeping) while
 * another worker holds it; if we were moved to another CPU meanwhile, we
 * drop it and take that CPU's lock instead.
 */
static struct sb_lock *sb_lock_this_cpu(struct sb *sb)
{
	for (;;) {
		int cpu = sched_getcpu();
		struct sb_lock *lock = &sb->locks[(cpu < 0 ? 0 : (unsigned)cpu) % sb->nr_locks];

		while (pthread_mutex_trylock(&lock->m))
			SB_CPU_RELAX();
		if (sched_getcpu() == cpu)
			return lock;
		pthread_mutex_unlock(&lock->m);
	}
}

/* A latency sample in ns for the histogram; schbench drops 0 us deltas. */
static void sb_sample(struct hist *h, uint64_t from_us, uint64_t to_us)
{
	if (to_us > from_us)
		hist_add(h, (to_us - from_us) * 1000);
}

static void sb_request(struct sb_worker *w)
{
	struct sb *sb = w->sb;
	struct sb_lock *lock;

	if (sb->sleep_us) {
		struct timespec ts = { sb->sleep_us / 1000000, (long)(sb->sleep_us % 1000000) * 1000 };

		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
	}
	lock = sb_lock_this_cpu(sb);
	for (unsigned i = 0; i < sb->operations; i++)
		sb_matrix_multiply(w->matrix, sb->n);
	pthread_mutex_unlock(&lock->m);
}

static void *sb_worker_thread(void *arg)
{
	struct sb_worker *w = arg;
	struct sb_msg *m = w->msg;
	struct sb *sb = w->sb;

	sb_slice_self(sb);
	while (!__atomic_load_n(&sb->stopping, __ATOMIC_SEQ_CST)) {
		struct sb_worker *old;
		uint64_t woke, t0;

		__atomic_store_n(&w->futex, FUTEX_BLOCKED, __ATOMIC_SEQ_CST);
		old = __atomic_load_n(&m->head, __ATOMIC_RELAXED);
		do {
			w->next = old;
		} while (!__atomic_compare_exchange_n(&m->head, &old, w, 1, __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
		sb_post(&m->futex);
		sb_wait(&w->futex);
		woke = sb_now_us();
		if (sb_measuring(w))
			sb_sample(&w->wakeup, __atomic_load_n(&w->wake_us, __ATOMIC_RELAXED), woke);

		t0 = sb_now_us();
		sb_request(w);
		if (sb_measuring(w)) {
			sb_sample(&w->request, t0, sb_now_us());
			w->requests++;
		}
	}
	__atomic_sub_fetch(&m->live, 1, __ATOMIC_SEQ_CST);
	sb_post(&m->futex);
	wl_task_done(sb->ctx);
	return NULL;
}

static void sb_stop(struct sb *sb)
{
	__atomic_store_n(&sb->phase, PHASE_DONE, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sb->stopping, 1, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < sb->nr_msg; i++)
		sb_post(&sb->msg[i].futex);
	for (size_t i = 0; i < (size_t)sb->nr_msg * sb->nr_per_msg; i++)
		if (sb->w[i].started)
			pthread_join(sb->w[i].tid, NULL);
	for (unsigned i = 0; i < sb->nr_msg; i++)
		if (sb->msg[i].started)
			pthread_join(sb->msg[i].tid, NULL);
}

static int sb_start(struct sb *sb)
{
	pthread_attr_t attr;
	int err = 0;

	/* thousands of threads in a small guest: no need for 8 MB stacks */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (unsigned i = 0; i < sb->nr_msg && !err; i++) {
		struct sb_msg *m = &sb->msg[i];

		m->sb = sb;
		err = pthread_create(&m->tid, &attr, sb_msg_thread, m);
		m->started = !err;
		if (!err)
			pthread_setname_np(m->tid, "sb-msg");
	}
	for (size_t i = 0; i < (size_t)sb->nr_msg * sb->nr_per_msg && !err; i++) {
		struct sb_worker *w = &sb->w[i];

		w->sb = sb;
		w->msg = &sb->msg[i / sb->nr_per_msg];
		hist_init(&w->wakeup);
		hist_init(&w->request);
		/* like schbench's malloc: past the mmap threshold these are fresh
		 * pages, and m1, m2 are only ever read (the zero page) */
		w->matrix = calloc(3 * sb->n * sb->n, sizeof(*w->matrix));
		if (!w->matrix) {
			err = ENOMEM;
			break;
		}
		__atomic_add_fetch(&w->msg->live, 1, __ATOMIC_SEQ_CST);
		err = pthread_create(&w->tid, &attr, sb_worker_thread, w);
		if (!err)
			pthread_setname_np(w->tid, "sb-worker");
		if (err)
			__atomic_sub_fetch(&w->msg->live, 1, __ATOMIC_SEQ_CST);
		w->started = !err;
	}
	pthread_attr_destroy(&attr);
	if (err) {
		sb_stop(sb);
		return wl_fail(sb->ctx, "cannot start threads: %s", strerror(err));
	}
	return 0;
}

/* Zeroed and cache-line aligned: the structs above ask for 64 bytes. */
static void *sb_zalloc(size_t n, size_t size)
{
	size_t bytes = (n * size + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, bytes ? bytes : 64);

	if (p)
		memset(p, 0, bytes);
	return p;
}

static void sb_report(struct sb *sb, double seconds)
{
	static const struct { const char *suffix; double pct; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p999", 99.9 },
	};
	struct hist *wake = malloc(sizeof(*wake)), *req = malloc(sizeof(*req));
	uint64_t requests = 0;
	char name[WL_NAME_LEN];

	if (!wake || !req) {
		free(wake);
		free(req);
		return;
	}
	hist_init(wake);
	hist_init(req);
	for (size_t i = 0; i < (size_t)sb->nr_msg * sb->nr_per_msg; i++) {
		if (!sb->w[i].measuring)
			continue;
		hist_merge(wake, &sb->w[i].wakeup);
		hist_merge(req, &sb->w[i].request);
		requests += sb->w[i].requests;
	}
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		snprintf(name, sizeof(name), "wakeup_%s", pcts[i].suffix);
		wl_metric(sb->ctx, name, "us", hist_percentile(wake, pcts[i].pct) / 1000, 0);
	}
	for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		snprintf(name, sizeof(name), "request_%s", pcts[i].suffix);
		wl_metric(sb->ctx, name, "us", hist_percentile(req, pcts[i].pct) / 1000, 0);
	}
	wl_metric(sb->ctx, "rps", "ops/s", seconds > 0 ? (double)requests / seconds : 0, 1);
	free(wake);
	free(req);
}

static int sb_run(struct wl_ctx *ctx)
{
	uint64_t runtime = (uint64_t)wl_int(ctx->args, "runtime") * 1000000000ull;
	uint64_t warmup = (uint64_t)wl_int(ctx->args, "warmup") * 1000000000ull;
	uint64_t footprint = (uint64_t)wl_int(ctx->args, "footprint");
	struct sb sb = {
		.ctx = ctx,
		.nr_msg = (unsigned)wl_int(ctx->args, "message_threads"),
		.nr_per_msg = (unsigned)wl_int(ctx->args, "workers"),
		.operations = (unsigned)wl_int(ctx->args, "operations"),
		.sleep_us = (unsigned)wl_int(ctx->args, "sleep_us"),
		.slice_ns = wl_slice_ns(ctx->args),
	};
	size_t nr_workers = (size_t)sb.nr_msg * sb.nr_per_msg;
	struct wl_window win;
	uint64_t start;
	int ret = -1;

	/* three square matrices of unsigned long fill the footprint */
	sb.n = (size_t)sqrt((double)footprint / 3 / sizeof(unsigned long));
	if (sb.n < 1)
		sb.n = 1;
	sb.nr_locks = (unsigned)get_nprocs_conf();
	if (sb.nr_locks < 1)
		sb.nr_locks = 1;
	sb.locks = sb_zalloc(sb.nr_locks, sizeof(*sb.locks));
	sb.msg = sb_zalloc(sb.nr_msg, sizeof(*sb.msg));
	sb.w = sb_zalloc(nr_workers, sizeof(*sb.w));
	if (!sb.locks || !sb.msg || !sb.w) {
		wl_fail(ctx, "out of memory for %zu workers", nr_workers);
		goto out;
	}
	for (unsigned i = 0; i < sb.nr_locks; i++)
		pthread_mutex_init(&sb.locks[i].m, NULL);
	sb.phase = warmup ? PHASE_WARMUP : PHASE_MEASURE;
	start = wl_now_ns();
	if (sb_start(&sb) < 0)
		goto out;
	wl_window_open(&win, start + warmup, ctx->deadline_ns);
	__atomic_store_n(&sb.phase, PHASE_MEASURE, __ATOMIC_SEQ_CST);
	wl_window_close(&win, runtime, ctx->deadline_ns);
	sb_stop(&sb);
	if (win.late) {
		wl_fail(ctx, "deadline passed");
		goto out;
	}
	if (sb.slice_err) {
		wl_fail(ctx, "slice_us: sched_setattr: %s", strerror(sb.slice_err));
		goto out;
	}
	sb_report(&sb, (double)(win.t1 - win.t0) / 1e9);
	/* every thread noted its se.slice as it ended */
	ret = wl_slice_verify(ctx, sb.slice_ns);
out:
	for (size_t i = 0; sb.w && i < nr_workers; i++)
		free(sb.w[i].matrix);
	free(sb.w);
	free(sb.msg);
	free(sb.locks);
	return ret;
}

static const struct wl_option sb_options[] = {
	{ "message_threads", WL_INT, 1, 1024, "2", NULL, "message threads (schbench -m)" },
	{ "workers", WL_INT, 1, 1024, "4", NULL, "workers per message thread (schbench -t)" },
	{ "runtime", WL_INT, 1, 3600, "5", NULL, "measured seconds (schbench -r)" },
	{ "warmup", WL_INT, 0, 3600, "1", NULL, "seconds before measuring starts (schbench -w)" },
	{ "footprint", WL_SIZE, 1024, 1ll << 30, "256K", NULL,
	  "cache footprint of each worker's matrices (schbench -F)" },
	{ "operations", WL_INT, 0, 1000, "5", NULL, "matrix multiplies per request (schbench -n)" },
	{ "sleep_us", WL_INT, 0, 1000000, "100", NULL, "sleep at the start of each request (schbench -s)" },
	WL_SLICE_OPTION,
	{ .name = NULL },
};

const struct workload_ops workload_schbench = {
	.name = "schbench",
	.description = "message threads waking workers over futexes (schbench); latency percentiles, rps",
	.options = sb_options,
	.kernel_check = wl_slice_kernel_check,
	.run = sb_run,
};
