/* netperf.c - netperf TCP_RR / uperf style request-response over loopback
 * TCP with TCP_NODELAY; transactions/s and transaction latency. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../histogram.h"

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
#include <time.h>
#include <unistd.h>

/*
 * Each client is a process with one connection to its own server process
 * (netserver forks one per connection) and one transaction in flight:
 * write `size` bytes, read `size` bytes back (uperf's netperf.xml: 90 and
 * 90 with TCP_NODELAY).  The measuring parent only sleeps and snapshots
 * the clients' counters at the edges of the measured window.
 */

enum { PHASE_WARMUP, PHASE_MEASURE, PHASE_DONE };

struct np_slot {
	uint64_t ops;              /* written by one client only */
} __attribute__((aligned(64)));

struct np_shared {
	int phase;
	int failed;
	char error[256];
	struct hist latency;       /* clients merge theirs in as they end */
	struct np_slot slot[];
};

struct np {
	struct wl_ctx *ctx;
	unsigned clients, size;
	struct np_shared *sh;
	size_t sh_size;
	pid_t *pid;                /* 2 per client: server, client */
	unsigned nr_pid;
	int done[2];               /* every child holds done[1] until it exits */
};

__attribute__((format(printf, 2, 3)))
static void np_child_fail(struct np *np, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&np->sh->failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(np->sh->error, sizeof(np->sh->error), fmt, ap);
	va_end(ap);
}

static int np_write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t r = send(fd, p, len, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* len bytes: 1; end of stream before the first byte: 0; else -1 */
static int np_read_all(int fd, char *p, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, p + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = ECONNRESET;
			return got ? -1 : 0;
		}
		got += (size_t)r;
	}
	return 1;
}

static int np_server(struct np *np, int fd, char *buf)
{
	for (;;) {
		int r = np_read_all(fd, buf, np->size);

		if (r == 0)
			return 0;
		if (r < 0) {
			np_child_fail(np, "server: read: %s", strerror(errno));
			return -1;
		}
		if (np_write_all(fd, buf, np->size) < 0) {
			np_child_fail(np, "server: write: %s", strerror(errno));
			return -1;
		}
	}
}

static int np_client(struct np *np, unsigned idx, int fd, char *buf)
{
	struct np_slot *slot = &np->sh->slot[idx];
	struct hist *lat = malloc(sizeof(*lat));
	uint64_t ops = 0;
	int phase, ret = 0;

	if (!lat) {
		np_child_fail(np, "client: out of memory");
		return -1;
	}
	hist_init(lat);
	memset(buf, 'n', np->size);
	while ((phase = __atomic_load_n(&np->sh->phase, __ATOMIC_RELAXED)) != PHASE_DONE) {
		uint64_t t0 = wl_now_ns();

		if (np_write_all(fd, buf, np->size) < 0 || np_read_all(fd, buf, np->size) != 1) {
			np_child_fail(np, "client: transaction: %s", strerror(errno));
			ret = -1;
			break;
		}
		if (phase == PHASE_MEASURE)
			hist_add(lat, wl_now_ns() - t0);
		__atomic_store_n(&slot->ops, ++ops, __ATOMIC_RELAXED);
	}
	hist_merge(&np->sh->latency, lat);
	free(lat);
	return ret;
}

static int np_nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Forks a task running role (0 server, 1 client) on fd; close_fd is the
 * other end, which the task must not keep (or the peer never sees EOF). */
static int np_fork(struct np *np, int role, unsigned idx, int fd, int close_fd, int lfd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *buf = malloc(np->size);
		int ret = -1;

		close(close_fd);
		close(lfd);
		close(np->done[0]);
		if (!buf)
			np_child_fail(np, "%s: out of memory", role ? "client" : "server");
		else if (role)
			ret = np_client(np, idx, fd, buf);
		else
			ret = np_server(np, fd, buf);
		close(fd);
		wl_task_done(np->ctx);
		_exit(ret < 0 ? 1 : 0);
	}
	np->pid[np->nr_pid++] = pid;
	return 0;
}

static int np_start(struct np *np)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(addr);
	int lfd, ret = 0;

	/* port 0: the kernel picks a free one, so two runs never collide */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return wl_fail(np->ctx, "socket: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 64) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0) {
		ret = wl_fail(np->ctx, "cannot listen on 127.0.0.1: %s", strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < np->clients; i++) {
		int cfd, sfd;

		cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (cfd < 0) {
			ret = wl_fail(np->ctx, "socket: %s", strerror(errno));
			goto out;
		}
		/* loopback connect completes from the backlog; accept at once */
		if (connect(cfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
		    (sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			ret = wl_fail(np->ctx, "cannot connect to 127.0.0.1:%u: %s",
				      ntohs(addr.sin_port), strerror(errno));
			close(cfd);
			goto out;
		}
		np_nodelay(cfd);
		np_nodelay(sfd);
		if (np_fork(np, 0, i, sfd, cfd, lfd) < 0 || np_fork(np, 1, i, cfd, sfd, lfd) < 0)
			ret = wl_fail(np->ctx, "cannot fork: %s", strerror(errno));
		close(cfd);
		close(sfd);
		if (ret < 0)
			goto out;
	}
out:
	close(lfd);
	return ret;
}

/* Sleeps until `until` or the deadline; 0, or -1 when the deadline came first. */
static int np_sleep_until(uint64_t until, uint64_t deadline_ns)
{
	int late = until > deadline_ns;
	struct timespec ts;

	if (late)
		until = deadline_ns;
	ts.tv_sec = (time_t)(until / 1000000000ull);
	ts.tv_nsec = (long)(until % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return late ? -1 : 0;
}

/* Blocks until every child has exited (EOF on done[0]): 0, or -1 at the deadline. */
static int np_wait_exit(struct np *np, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = { .fd = np->done[0], .events = POLLIN };
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

/* Kills the children when asked, reaps all; 0 if all exited with 0. */
static int np_reap(struct np *np, int kill_them, char *why, size_t len)
{
	int bad = 0;

	for (unsigned i = 0; kill_them && i < np->nr_pid; i++)
		kill(np->pid[i], SIGKILL);
	for (unsigned i = 0; i < np->nr_pid; i++) {
		int st;

		while (waitpid(np->pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!bad && !kill_them && (!WIFEXITED(st) || WEXITSTATUS(st))) {
			if (WIFSIGNALED(st))
				snprintf(why, len, "task %d killed by signal %d", (int)np->pid[i], WTERMSIG(st));
			else
				snprintf(why, len, "task %d exited with status %d", (int)np->pid[i],
					 WEXITSTATUS(st));
			bad = 1;
		}
	}
	np->nr_pid = 0;
	return bad ? -1 : 0;
}

static uint64_t np_ops(const struct np *np)
{
	uint64_t ops = 0;

	for (unsigned i = 0; i < np->clients; i++)
		ops += __atomic_load_n(&np->sh->slot[i].ops, __ATOMIC_RELAXED);
	return ops;
}

static int np_measure(struct np *np)
{
	struct wl_ctx *ctx = np->ctx;
	uint64_t runtime = (uint64_t)wl_int(ctx->args, "runtime") * 1000000000ull;
	uint64_t warmup = (uint64_t)wl_int(ctx->args, "warmup") * 1000000000ull;
	uint64_t t0, t1, ops0, ops1;
	char why[256] = "";
	int late, ret;

	np->sh->phase = warmup ? PHASE_WARMUP : PHASE_MEASURE;
	t0 = wl_now_ns() + warmup;
	if (np_start(np) < 0) {
		np_reap(np, 1, why, sizeof(why));
		return -1;
	}
	close(np->done[1]);
	np->done[1] = -1;
	late = np_sleep_until(t0, ctx->deadline_ns);
	t0 = wl_now_ns();
	ops0 = np_ops(np);
	__atomic_store_n(&np->sh->phase, PHASE_MEASURE, __ATOMIC_RELAXED);
	if (!late)
		late = np_sleep_until(t0 + runtime, ctx->deadline_ns);
	t1 = wl_now_ns();
	ops1 = np_ops(np);
	/* clients finish their transaction and close; servers see EOF */
	__atomic_store_n(&np->sh->phase, PHASE_DONE, __ATOMIC_RELAXED);
	if (!late)
		late = np_wait_exit(np, ctx->deadline_ns) < 0;
	ret = np_reap(np, late, why, sizeof(why));
	if (late)
		return wl_fail(ctx, "deadline passed");
	if (np->sh->failed)
		return wl_fail(ctx, "%s", np->sh->error);
	if (ret < 0)
		return wl_fail(ctx, "%s", why);
	wl_metric(ctx, "tps", "tps", (double)(ops1 - ops0) / ((double)(t1 - t0) / 1e9), 1);
	wl_metric(ctx, "latency_p50", "us", hist_percentile(&np->sh->latency, 50) / 1000, 0);
	wl_metric(ctx, "latency_p99", "us", hist_percentile(&np->sh->latency, 99) / 1000, 0);
	return 0;
}

static int np_run(struct wl_ctx *ctx)
{
	struct np np = {
		.ctx = ctx,
		.clients = (unsigned)wl_int(ctx->args, "clients"),
		.size = (unsigned)wl_int(ctx->args, "size"),
		.done = { -1, -1 },
	};
	int ret = -1;

	np.sh_size = sizeof(*np.sh) + np.clients * sizeof(np.sh->slot[0]);
	np.sh = mmap(NULL, np.sh_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	np.pid = calloc(2 * np.clients, sizeof(*np.pid));
	if (np.sh == MAP_FAILED || !np.pid) {
		wl_fail(ctx, "out of memory for %u clients", np.clients);
		goto out;
	}
	hist_init(&np.sh->latency);
	if (pipe2(np.done, O_CLOEXEC) < 0) {
		wl_fail(ctx, "cannot create pipe: %s", strerror(errno));
		goto out;
	}
	ret = np_measure(&np);
out:
	for (int i = 0; i < 2; i++)
		if (np.done[i] >= 0)
			close(np.done[i]);
	if (np.sh != MAP_FAILED)
		munmap(np.sh, np.sh_size);
	free(np.pid);
	return ret;
}

static const struct wl_option np_options[] = {
	{ "clients", WL_INT, 1, 1024, "1", NULL, "connections, each a client and a server process" },
	{ "runtime", WL_INT, 1, 3600, "3", NULL, "measured seconds" },
	{ "warmup", WL_INT, 0, 3600, "0", NULL, "seconds before measuring starts" },
	{ "size", WL_INT, 1, 65536, "90", NULL, "bytes of each request and each response" },
	{ .name = NULL },
};

const struct workload_ops workload_netperf = {
	.name = "netperf",
	.description = "TCP_RR request-response over loopback, TCP_NODELAY (netperf, uperf); tps",
	.options = np_options,
	.run = np_run,
};
