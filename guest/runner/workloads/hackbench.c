/* hackbench.c - hackbench-style messaging: groups of senders spraying
 * fixed-size messages at receivers over socketpairs or pipes; time. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlutil.h"
#include "../wlslice.h"
#include "common/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The shape follows rt-tests' hackbench, so that our times can be put
 * next to the numbers kernel developers post: per group, fds receivers
 * each own one socketpair (or pipe); fds senders each write loops rounds
 * of one datasize message to every receiver of their group.  Every task
 * says "ready" on one pipe and polls a second one; the measuring task
 * waits for all of them, takes the time, writes one byte (which wakes
 * them all at once) and stops the clock when the last one is reaped.
 */

struct hb_shared {
	uint64_t elapsed_ns;   /* thread mode: measured inside the container */
	int failed;
	char error[200];
};

struct hb_worker;

struct hb {
	struct wl_ctx *ctx;
	unsigned groups, fds, loops, datasize;
	unsigned work;          /* xorshift steps a receiver takes per message */
	uint64_t slice_ns;      /* slice_us: each task's own, 0 for the kernel's */
	int thread_mode, use_pipes;
	int ready[2], wake[2], done[2];
	struct hb_shared *sh;
	struct hb_worker *w;    /* groups * 2 * fds, receivers first per group */
	int *out_fds;           /* groups * fds write ends, one row per group */
	unsigned nr_started;
};

struct hb_worker {
	struct hb *hb;
	int sender;
	int in_fd, in_other;    /* receiver: read end, and the end it drops */
	const int *out_fds;     /* sender: the fds write ends of its group */
	pid_t pid;
	pthread_t tid;
};

__attribute__((format(printf, 2, 3)))
static void hb_task_fail(struct hb *hb, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&hb->sh->failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(hb->sh->error, sizeof(hb->sh->error), fmt, ap);
	va_end(ap);
}

static int hb_ready(struct hb *hb)
{
	struct pollfd pfd = { .fd = hb->wake[0], .events = POLLIN };

	if (write(hb->ready[1], "R", 1) != 1)
		return -1;
	/* the byte is never read: every poller sees it, one write wakes all */
	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/*
 * A fixed amount of computation, the same instructions every time: under
 * the virtual clock (icount) its cost in guest time is exact, so `work`
 * makes a change of known size (docs/comparing.md, bench/ab-effect.sh).
 * The result goes through an empty asm so the loop is not folded away.
 */
static void hb_work(unsigned steps, const char *data)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (unsigned char)data[0];

	for (unsigned i = 0; i < steps; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	__asm__ volatile("" : : "r"(x));
}

static int hb_receiver(struct hb_worker *w, char *data)
{
	struct hb *hb = w->hb;
	uint64_t packets = (uint64_t)hb->fds * hb->loops;

	if (!hb->thread_mode)
		close(w->in_other);
	if (hb_ready(hb) < 0) {
		hb_task_fail(hb, "receiver: start barrier: %s", strerror(errno));
		return -1;
	}
	for (uint64_t i = 0; i < packets; i++) {
		ssize_t r = read_in_full(w->in_fd, data, hb->datasize);

		if (r != (ssize_t)hb->datasize) {
			hb_task_fail(hb, "receiver: read: %s", r < 0 ? strerror(errno) : "unexpected end of stream");
			return -1;
		}
		if (hb->work)
			hb_work(hb->work, data);
	}
	return 0;
}

static int hb_sender(struct hb_worker *w, char *data)
{
	struct hb *hb = w->hb;

	if (hb_ready(hb) < 0) {
		hb_task_fail(hb, "sender: start barrier: %s", strerror(errno));
		return -1;
	}
	memset(data, 'S', hb->datasize);
	for (unsigned i = 0; i < hb->loops; i++) {
		for (unsigned j = 0; j < hb->fds; j++) {
			if (write_in_full(w->out_fds[j], data, hb->datasize) < 0) {
				hb_task_fail(hb, "sender: write: %s", strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

static int hb_task(struct hb_worker *w)
{
	char *data = malloc(w->hb->datasize);
	int ret;

	if (!data) {
		hb_task_fail(w->hb, "out of memory");
		return -1;
	}
	wl_name_self(w->sender ? "hb-send" : "hb-recv");
	if (w->hb->slice_ns && (ret = wl_slice_set(w->hb->slice_ns)) < 0) {
		hb_task_fail(w->hb, "slice_us: sched_setattr: %s", strerror(-ret));
		free(data);
		return -1;
	}
	ret = w->sender ? hb_sender(w, data) : hb_receiver(w, data);
	free(data);
	wl_task_done(w->hb->ctx);
	return ret;
}

static void *hb_thread(void *arg)
{
	/*
	 * A dead thread's peers would block on its fds forever (a dead
	 * process closes them); end the whole container instead.
	 */
	if (hb_task(arg) < 0)
		_exit(1);
	return NULL;
}

static int hb_start_worker(struct hb *hb, struct hb_worker *w, const pthread_attr_t *attr)
{
	int err;

	if (hb->thread_mode) {
		err = pthread_create(&w->tid, attr, hb_thread, w);
		if (err) {
			errno = err;
			return -1;
		}
		return 0;
	}
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0)
		_exit(hb_task(w) < 0 ? 1 : 0);
	return 0;
}

static int hb_fdpair(struct hb *hb, int fds[2])
{
	if (hb->use_pipes)
		return pipe2(fds, O_CLOEXEC);
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
}

/* One group: its receivers, then its senders (rt-tests' order). */
static int hb_start_group(struct hb *hb, unsigned g, const pthread_attr_t *attr)
{
	struct hb_worker *w = &hb->w[(size_t)g * 2 * hb->fds];
	int *out = &hb->out_fds[(size_t)g * hb->fds];

	for (unsigned i = 0; i < hb->fds; i++) {
		int p[2];

		if (hb_fdpair(hb, p) < 0)
			return wl_fail(hb->ctx, "cannot create %s: %s", hb->use_pipes ? "pipe" : "socketpair",
				       strerror(errno));
		w[i] = (struct hb_worker){ .hb = hb, .in_fd = p[0], .in_other = p[1] };
		if (hb_start_worker(hb, &w[i], attr) < 0) {
			close(p[0]);
			close(p[1]);
			return wl_fail(hb->ctx, "cannot start receiver: %s", strerror(errno));
		}
		hb->nr_started++;
		out[i] = p[1];
		/* a forked receiver has its own copy; later tasks need not inherit it */
		if (!hb->thread_mode)
			close(p[0]);
	}
	for (unsigned i = 0; i < hb->fds; i++) {
		struct hb_worker *s = &w[hb->fds + i];

		*s = (struct hb_worker){ .hb = hb, .sender = 1, .out_fds = out };
		if (hb_start_worker(hb, s, attr) < 0) {
			if (!hb->thread_mode)
				for (unsigned j = 0; j < hb->fds; j++)
					close(out[j]);
			return wl_fail(hb->ctx, "cannot start sender: %s", strerror(errno));
		}
		hb->nr_started++;
	}
	if (!hb->thread_mode)
		for (unsigned i = 0; i < hb->fds; i++)
			close(out[i]);
	return 0;
}

/* 1 when fd is readable (or at EOF), 0 at the deadline, -1 on error */
static int hb_wait_readable(int fd, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = wl_now_ns();
		int r, timeout = -1;

		if (deadline_ns) {
			if (now >= deadline_ns)
				return 0;
			timeout = (int)((deadline_ns - now) / 1000000 + 1);
		}
		r = poll(&pfd, 1, timeout);
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* Reads one "ready" byte per started task: 0, or -1 at the deadline. */
static int hb_wait_ready(struct hb *hb, uint64_t deadline_ns)
{
	char buf[512];

	for (unsigned got = 0; got < hb->nr_started;) {
		unsigned want = hb->nr_started - got;
		ssize_t r;

		if (hb_wait_readable(hb->ready[0], deadline_ns) <= 0)
			return -1;
		r = xread(hb->ready[0], buf, want < sizeof(buf) ? want : sizeof(buf));
		if (r <= 0)
			return -1;
		got += (unsigned)r;
	}
	return 0;
}

static void hb_release(struct hb *hb)
{
	write_in_full(hb->wake[1], "G", 1);
}

/* Thread mode, in the container process: rt-tests' main, then _exit. */
static void hb_container(struct hb *hb)
{
	pthread_attr_t attr;
	struct rlimit rl;
	uint64_t t0;
	int ok = 1;

	close(hb->done[0]);
	/* every fd of every group is open at once here: lift the soft limit */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (unsigned g = 0; g < hb->groups && ok; g++)
		if (hb_start_group(hb, g, &attr) < 0)
			ok = 0;
	if (!ok) {
		hb_task_fail(hb, "%s", hb->ctx->error);
		_exit(1);
	}
	if (hb_wait_ready(hb, 0) < 0) {
		hb_task_fail(hb, "start barrier: %s", strerror(errno));
		_exit(1);
	}
	t0 = wl_now_ns();
	hb_release(hb);
	for (size_t i = 0; i < (size_t)hb->groups * 2 * hb->fds; i++)
		pthread_join(hb->w[i].tid, NULL);
	hb->sh->elapsed_ns = wl_now_ns() - t0;
	_exit(hb->sh->failed ? 1 : 0);
}

static void hb_kill_all(struct hb *hb, pid_t container)
{
	if (container > 0) {
		kill(container, SIGKILL);
		return;
	}
	for (size_t i = 0; i < (size_t)hb->groups * 2 * hb->fds; i++)
		if (hb->w[i].pid > 0)
			kill(hb->w[i].pid, SIGKILL);
}

/* Reaps what was started; 0 if all exited with 0, else -1 and why. */
static int hb_reap(struct hb *hb, pid_t container, char *why, size_t len)
{
	int bad = 0;

	for (size_t i = 0; i < (size_t)hb->groups * 2 * hb->fds + 1; i++) {
		pid_t pid = i < (size_t)hb->groups * 2 * hb->fds ? hb->w[i].pid : container;
		int st;

		if (pid <= 0)
			continue;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!bad && WIFSIGNALED(st)) {
			snprintf(why, len, "task %d killed by signal %d", (int)pid, WTERMSIG(st));
			bad = 1;
		} else if (!bad && WIFEXITED(st) && WEXITSTATUS(st)) {
			snprintf(why, len, "task %d exited with status %d", (int)pid, WEXITSTATUS(st));
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

static void hb_close_pipes(struct hb *hb)
{
	for (int i = 0; i < 2; i++) {
		if (hb->ready[i] >= 0)
			close(hb->ready[i]);
		if (hb->wake[i] >= 0)
			close(hb->wake[i]);
		if (hb->done[i] >= 0)
			close(hb->done[i]);
	}
}

static int hb_measure(struct hb *hb)
{
	struct wl_ctx *ctx = hb->ctx;
	pid_t container = 0;
	uint64_t t0 = 0, t1;
	int ok = 1, late = 0, r;
	char why[256] = "";

	if (hb->thread_mode) {
		container = fork();
		if (container < 0)
			return wl_fail(ctx, "cannot fork: %s", strerror(errno));
		if (container == 0)
			hb_container(hb);
	} else {
		for (unsigned g = 0; g < hb->groups && ok; g++)
			if (hb_start_group(hb, g, NULL) < 0)
				ok = 0;
		if (ok) {
			r = hb_wait_ready(hb, ctx->deadline_ns);
			if (r < 0) {
				late = wl_now_ns() >= ctx->deadline_ns;
				ok = 0;
				if (!late)
					wl_fail(ctx, "start barrier: %s", strerror(errno));
			}
		}
		if (ok) {
			t0 = wl_now_ns();
			hb_release(hb);
		}
	}
	/* every task holds done[1]: EOF on done[0] means all have exited */
	close(hb->done[1]);
	hb->done[1] = -1;
	if (ok) {
		r = hb_wait_readable(hb->done[0], ctx->deadline_ns);
		if (r == 0)
			late = 1;
		else if (r < 0)
			wl_fail(ctx, "poll: %s", strerror(errno));
		if (r <= 0)
			ok = 0;
	}
	if (!ok)
		hb_kill_all(hb, container);
	r = hb_reap(hb, container, why, sizeof(why));
	t1 = wl_now_ns();
	if (late)
		return wl_fail(ctx, "deadline passed");
	if (!ok)
		return -1;
	if (hb->sh->failed)
		return wl_fail(ctx, "%s", hb->sh->error);
	if (r < 0)
		return wl_fail(ctx, "%s", why);
	wl_metric(ctx, "time", "s", (double)(hb->thread_mode ? hb->sh->elapsed_ns : t1 - t0) / 1e9, 0);
	/* every task noted its se.slice as it ended */
	return wl_slice_verify(ctx, hb->slice_ns);
}

static int hb_run(struct wl_ctx *ctx)
{
	size_t nr_tasks;
	struct hb hb = {
		.ctx = ctx,
		.groups = (unsigned)wl_int(ctx->args, "groups"),
		.fds = (unsigned)wl_int(ctx->args, "fds"),
		.loops = (unsigned)wl_int(ctx->args, "loops"),
		.datasize = (unsigned)wl_int(ctx->args, "datasize"),
		.work = (unsigned)wl_int(ctx->args, "work"),
		.thread_mode = !strcmp(wl_str(ctx->args, "mode"), "thread"),
		.use_pipes = !strcmp(wl_str(ctx->args, "ipc"), "pipe"),
		.slice_ns = wl_slice_ns(ctx->args),
		.ready = { -1, -1 }, .wake = { -1, -1 }, .done = { -1, -1 },
	};
	int ret = -1;

	nr_tasks = (size_t)hb.groups * 2 * hb.fds;
	hb.w = calloc(nr_tasks, sizeof(*hb.w));
	hb.out_fds = calloc((size_t)hb.groups * hb.fds, sizeof(*hb.out_fds));
	hb.sh = mmap(NULL, sizeof(*hb.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!hb.w || !hb.out_fds || hb.sh == MAP_FAILED) {
		hb.sh = hb.sh == MAP_FAILED ? NULL : hb.sh;
		wl_fail(ctx, "out of memory for %zu tasks", nr_tasks);
		goto out;
	}
	memset(hb.sh, 0, sizeof(*hb.sh));
	if (pipe2(hb.ready, O_CLOEXEC) < 0 || pipe2(hb.wake, O_CLOEXEC) < 0 ||
	    pipe2(hb.done, O_CLOEXEC) < 0) {
		wl_fail(ctx, "cannot create pipe: %s", strerror(errno));
		goto out;
	}
	ret = hb_measure(&hb);
out:
	hb_close_pipes(&hb);
	if (hb.sh)
		munmap(hb.sh, sizeof(*hb.sh));
	free(hb.out_fds);
	free(hb.w);
	return ret;
}

static const struct wl_option hb_options[] = {
	{ "groups", WL_INT, 1, 1024, "2", NULL,
	  "groups of senders and receivers (MMTests sweeps 1..2*NR_CPUS)" },
	{ "fds", WL_INT, 1, 1024, "20", NULL, "senders and receivers per group" },
	{ "loops", WL_INT, 1, 10000000, "100", NULL, "messages each sender sends to each receiver" },
	{ "datasize", WL_INT, 1, 65536, "100", NULL, "bytes per message" },
	{ "work", WL_INT, 0, 100000000, "0", NULL,
	  "computation a receiver does after each message, in xorshift steps (about 4 instructions "
	  "each): a fixed amount of extra work, for an effect of known size" },
	{ "mode", WL_STR, 0, 0, "process", "process|thread", "tasks are processes or threads" },
	{ "ipc", WL_STR, 0, 0, "socket", "socket|pipe", "AF_UNIX socketpairs or pipes" },
	WL_SLICE_OPTION,
	{ .name = NULL },
};

const struct workload_ops workload_hackbench = {
	.name = "hackbench",
	.description = "groups of senders spraying messages at receivers (rt-tests hackbench); time",
	.options = hb_options,
	.kernel_check = wl_slice_kernel_check,
	.run = hb_run,
};
