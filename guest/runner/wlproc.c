/* wlproc.c - how workloads start, time and end their tasks: process pairs
 * over loopback TCP, and thread groups released together for a fixed time. */
#define _GNU_SOURCE
#include "wlproc.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

void *wl_procs_init(struct wl_procs *p, struct wl_ctx *ctx, unsigned nr_pairs,
		    const char *what, size_t shared_size)
{
	/* the workload's part starts on its own cache line, as its slots do */
	size_t head = (sizeof(*p->note) + 63) & ~(size_t)63;
	void *map;

	p->ctx = ctx;
	p->nr_pairs = nr_pairs;
	p->map_size = head + shared_size;
	map = mmap(NULL, p->map_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (map != MAP_FAILED) {
		p->note = map;
		p->shared = (char *)map + head;
	}
	p->pid = calloc(2 * nr_pairs, sizeof(*p->pid));
	if (map == MAP_FAILED || !p->pid) {
		wl_fail(ctx, "out of memory for %u %s", nr_pairs, what);
		return NULL;
	}
	if (pipe2(p->done, O_CLOEXEC) < 0) {
		wl_fail(ctx, "cannot create pipe: %s", strerror(errno));
		return NULL;
	}
	return p->shared;
}

void wl_procs_release(struct wl_procs *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->done[i] >= 0)
			close(p->done[i]);
		p->done[i] = -1;
	}
	if (p->note)
		munmap(p->note, p->map_size);
	p->note = NULL;
	p->shared = NULL;
	free(p->pid);
	p->pid = NULL;
	p->nr_pid = 0;
}

void wl_procs_fail(struct wl_procs *p, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&p->note->failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(p->note->error, sizeof(p->note->error), fmt, ap);
	va_end(ap);
}

/* Kills the children when asked, reaps all; 0 if all exited with 0. */
static int procs_reap(struct wl_procs *p, int kill_them, char *why, size_t len)
{
	int bad = 0;

	for (unsigned i = 0; kill_them && i < p->nr_pid; i++)
		kill(p->pid[i], SIGKILL);
	for (unsigned i = 0; i < p->nr_pid; i++) {
		int st = 0;

		while (waitpid(p->pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!bad && !kill_them && (!WIFEXITED(st) || WEXITSTATUS(st))) {
			if (WIFSIGNALED(st))
				snprintf(why, len, "task %d killed by signal %d", (int)p->pid[i], WTERMSIG(st));
			else
				snprintf(why, len, "task %d exited with status %d", (int)p->pid[i],
					 WEXITSTATUS(st));
			bad = 1;
		}
	}
	p->nr_pid = 0;
	return bad ? -1 : 0;
}

/* Blocks until every child has exited (EOF on done[0]): 0, or -1 at the deadline. */
static int procs_wait_exit(struct wl_procs *p, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = { .fd = p->done[0], .events = POLLIN };
		uint64_t now = wl_now_ns();
		int r;

		if (now >= deadline_ns)
			return -1;
		r = poll(&pfd, 1, (int)((deadline_ns - now) / 1000000 + 1));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

int wl_procs_finish(struct wl_procs *p, int late)
{
	char why[256] = "";
	int ret;

	if (!late)
		late = procs_wait_exit(p, p->ctx->deadline_ns) < 0;
	ret = procs_reap(p, late, why, sizeof(why));
	if (late)
		return wl_fail(p->ctx, "deadline passed");
	if (p->note->failed)
		return wl_fail(p->ctx, "%s", p->note->error);
	if (ret < 0)
		return wl_fail(p->ctx, "%s", why);
	return 0;
}

/* Forks a task running role on fd; close_fd is the other end, which the
 * task must not keep (or the peer never sees EOF). */
static int procs_fork(struct wl_procs *p, wl_pair_task_fn task, void *arg, int role,
		      unsigned idx, int fd, int close_fd, int lfd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int ret;

		close(close_fd);
		close(lfd);
		close(p->done[0]);
		if (p->comm) {
			char name[16];

			snprintf(name, sizeof(name), "%.11s-%s", p->comm,
				 role == WL_SERVER ? "srv" : "cli");
			wl_name_self(name);
		}
		ret = task(arg, role, idx, fd);
		close(fd);
		wl_task_done(p->ctx);
		_exit(ret < 0 ? 1 : 0);
	}
	p->pid[p->nr_pid++] = pid;
	return 0;
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A listener on 127.0.0.1 and a port the kernel picks: its fd, or -1. */
static int loopback_listen(struct wl_ctx *ctx, struct sockaddr_in *addr)
{
	socklen_t alen = sizeof(*addr);
	int lfd;

	*addr = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return wl_fail(ctx, "socket: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)addr, sizeof(*addr)) < 0 || listen(lfd, 64) < 0 ||
	    getsockname(lfd, (struct sockaddr *)addr, &alen) < 0) {
		wl_fail(ctx, "cannot listen on 127.0.0.1: %s", strerror(errno));
		close(lfd);
		return -1;
	}
	return lfd;
}

int wl_procs_start_pairs(struct wl_procs *p, int nodelay, wl_pair_task_fn task, void *arg)
{
	struct wl_ctx *ctx = p->ctx;
	struct sockaddr_in addr;
	int lfd, ret = 0;

	lfd = loopback_listen(ctx, &addr);
	if (lfd < 0)
		return -1;
	for (unsigned i = 0; i < p->nr_pairs; i++) {
		int cfd, sfd;

		cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (cfd < 0) {
			ret = wl_fail(ctx, "socket: %s", strerror(errno));
			break;
		}
		/* loopback connect completes from the backlog; accept at once */
		if (connect(cfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
		    (sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			ret = wl_fail(ctx, "cannot connect to 127.0.0.1:%u: %s",
				      ntohs(addr.sin_port), strerror(errno));
			close(cfd);
			break;
		}
		if (nodelay) {
			set_nodelay(cfd);
			set_nodelay(sfd);
		}
		if (procs_fork(p, task, arg, WL_SERVER, i, sfd, cfd, lfd) < 0 ||
		    procs_fork(p, task, arg, WL_CLIENT, i, cfd, sfd, lfd) < 0)
			ret = wl_fail(ctx, "cannot fork: %s", strerror(errno));
		close(cfd);
		close(sfd);
		if (ret < 0)
			break;
	}
	close(lfd);
	if (ret < 0) {
		procs_reap(p, 1, NULL, 0);
		return -1;
	}
	/* from now on EOF on done[0] means that every child is gone */
	close(p->done[1]);
	p->done[1] = -1;
	return 0;
}

void wl_window_open(struct wl_window *w, uint64_t until, uint64_t deadline_ns)
{
	w->late = wl_sleep_until(until, deadline_ns) < 0;
	w->t0 = wl_now_ns();
}

void wl_window_close(struct wl_window *w, uint64_t runtime_ns, uint64_t deadline_ns)
{
	if (!w->late)
		w->late = wl_sleep_until(w->t0 + runtime_ns, deadline_ns) < 0;
	w->t1 = wl_now_ns();
}

int wl_timed_init(struct wl_timed *t, struct wl_ctx *ctx, unsigned n)
{
	t->tid = calloc(n, sizeof(*t->tid));
	if (!t->tid)
		return wl_fail(ctx, "out of memory");
	if (wl_gate_init(&t->gate) < 0)
		return wl_fail(ctx, "pipe: %s", strerror(errno));
	return 0;
}

void wl_timed_release(struct wl_timed *t)
{
	wl_gate_release(&t->gate);
	free(t->tid);
	t->tid = NULL;
}

int wl_timed_run(struct wl_timed *t, struct wl_ctx *ctx, unsigned n, uint64_t runtime_ns,
		 void *(*fn)(void *), void *base, size_t stride, uint64_t *t0)
{
	unsigned started = 0;
	int failed = 0, cut = 0;

	for (unsigned i = 0; i < n; i++) {
		int err = pthread_create(&t->tid[i], NULL, fn, (char *)base + (size_t)i * stride);

		if (err) {
			wl_fail(ctx, "cannot start thread %u of %u: %s", i, n, strerror(err));
			failed = 1;
			break;
		}
		if (t->comm)
			pthread_setname_np(t->tid[i], t->comm);
		started++;
	}
	if (!failed && wl_gate_wait_ready(&t->gate, n, ctx->deadline_ns) < 0) {
		wl_fail(ctx, "deadline passed while starting %u threads", n);
		failed = 1;
	}
	*t0 = wl_now_ns();
	if (failed) {
		/* an empty time window: the started threads leave at once */
		__atomic_store_n(&t->stop_ns, *t0, __ATOMIC_RELEASE);
	} else if (*t0 + runtime_ns > ctx->deadline_ns) {
		__atomic_store_n(&t->stop_ns, ctx->deadline_ns, __ATOMIC_RELEASE);
		cut = 1;
	} else {
		__atomic_store_n(&t->stop_ns, *t0 + runtime_ns, __ATOMIC_RELEASE);
	}
	wl_gate_open(&t->gate);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t->tid[i], NULL);
	if (failed)
		return -1;
	if (cut)
		return wl_fail(ctx, "deadline passed before the runtime of %llus ended",
			       (unsigned long long)(runtime_ns / 1000000000ull));
	return 0;
}

uint64_t wl_timed_pass(struct wl_timed *t)
{
	wl_gate_pass(&t->gate);
	return __atomic_load_n(&t->stop_ns, __ATOMIC_ACQUIRE);
}
