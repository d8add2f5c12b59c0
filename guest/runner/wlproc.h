/* wlproc.h - how workloads start, time and end their tasks: process pairs
 * over loopback TCP, and thread groups released together for a fixed time. */
#ifndef RUNNER_WLPROC_H
#define RUNNER_WLPROC_H

#include "workload.h"
#include "wlutil.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * One server and one client process per loopback TCP connection, as
 * netserver, tbench and iperf servers fork one per connection.  The
 * parent only sleeps and reads counters the children keep in shared
 * memory; it learns that all children are gone when the last of them
 * closes `done` (it blocks on that, never polls waitpid).
 *
 *   wl_procs_init(); wl_procs_start_pairs(); ... measure ...;
 *   tell the clients to stop; wl_procs_finish(); wl_procs_release()
 *
 * wl_procs_release() frees the pid table and the shared memory, so
 * p->shared is gone with it.
 */
struct wl_procs_note {
	int failed;
	char error[256];
};

struct wl_procs {
	struct wl_ctx *ctx;
	unsigned nr_pairs;
	struct wl_procs_note *note;   /* shared: starts the mapping */
	void *shared;                 /* the workload's part of the mapping */
	size_t map_size;
	pid_t *pid;                   /* 2 per pair: server, client */
	unsigned nr_pid;
	int done[2];                  /* every child holds done[1] until it exits */
	const char *comm;             /* the workload's name for its tasks: <comm>-srv, -cli */
};
#define WL_PROCS_INIT { .done = { -1, -1 } }

enum { WL_SERVER, WL_CLIENT };

/*
 * Gets p (set to WL_PROCS_INIT) ready for nr_pairs connections with
 * shared_size bytes of zeroed memory shared with the children.  Returns
 * that memory (p->shared), or NULL and ctx->error: "out of memory for
 * <nr_pairs> <what>" (what: "clients") or why the pipe could not be
 * made.  wl_procs_release() is due either way.
 */
void *wl_procs_init(struct wl_procs *p, struct wl_ctx *ctx, unsigned nr_pairs,
		    const char *what, size_t shared_size);
void wl_procs_release(struct wl_procs *p);

/*
 * Connects the pairs over 127.0.0.1 (a listener on port 0: the kernel
 * picks a free port, so two runs never collide), TCP_NODELAY on both
 * ends when asked, and forks per pair task(arg, WL_SERVER, i, fd) on the
 * accepted end, then task(arg, WL_CLIENT, i, fd) on the connecting end.
 * A task keeps only its own end, so its peer's close reads as EOF; when
 * it returns (< 0: it failed) it calls wl_task_done() and exits.
 * 0 once all are forked; or -1 and ctx->error, with every task started
 * killed and reaped.
 */
typedef int (*wl_pair_task_fn)(void *arg, int role, unsigned idx, int fd);
int wl_procs_start_pairs(struct wl_procs *p, int nodelay, wl_pair_task_fn task, void *arg);

/* In a task: notes why it failed; the first note of the run wins. */
void wl_procs_fail(struct wl_procs *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Once the workload told its tasks to stop: waits until all have exited
 * (unless `late` already, or when the deadline comes first; then they are
 * killed) and reaps them.  0, or -1 and ctx->error: "deadline passed",
 * else the first failure a task noted, else how a task ended badly.
 */
int wl_procs_finish(struct wl_procs *p, int late);

/*
 * The measured window of a run whose tasks are going: it opens after the
 * warmup and closes runtime later, unless the deadline comes first (then
 * `late` is set and later steps do not wait any more).
 *
 *   wl_window_open(&w, start + warmup, deadline); read counters;
 *   wl_window_close(&w, runtime, deadline); read counters again
 */
struct wl_window {
	uint64_t t0, t1;              /* CLOCK_MONOTONIC ns: opened, closed */
	int late;
};

/* Sleeps until `until` (or the deadline), then t0 = now. */
void wl_window_open(struct wl_window *w, uint64_t until, uint64_t deadline_ns);
/* Unless late, sleeps until t0 + runtime_ns (or the deadline); t1 = now. */
void wl_window_close(struct wl_window *w, uint64_t runtime_ns, uint64_t deadline_ns);

/*
 * n threads, each working on its own element of an array, released at
 * once when all are ready and stopping by themselves at a time set just
 * before the release: the measured window starts when they all can run.
 *
 *   parent: wl_timed_init(); wl_timed_run(); read the elements;
 *           wl_timed_release()
 *   thread: stop = wl_timed_pass(); work until wl_now_ns() >= stop;
 *           wl_task_done()
 */
struct wl_timed {
	struct wl_gate gate;
	uint64_t stop_ns;             /* set before the gate opens */
	pthread_t *tid;
	const char *comm;             /* the threads' name, or NULL */
};
#define WL_TIMED_INIT { WL_GATE_INIT, 0, NULL, NULL }

/* 0, or -1 and ctx->error ("out of memory", "pipe: ...") */
int wl_timed_init(struct wl_timed *t, struct wl_ctx *ctx, unsigned n);
void wl_timed_release(struct wl_timed *t);

/*
 * Starts n threads fn(base + i * stride), waits until all are at the
 * gate, sets *t0 to now and the stop time runtime_ns later (at most the
 * deadline), releases them and joins them.  0, or -1 and ctx->error when
 * a thread could not start, when the deadline passed while they started
 * or before the runtime ended (all of them are joined either way).
 */
int wl_timed_run(struct wl_timed *t, struct wl_ctx *ctx, unsigned n, uint64_t runtime_ns,
		 void *(*fn)(void *), void *base, size_t stride, uint64_t *t0);

/* In a thread: waits at the gate; returns when to stop (CLOCK_MONOTONIC ns). */
uint64_t wl_timed_pass(struct wl_timed *t);

#endif
