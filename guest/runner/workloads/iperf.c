/* iperf.c - iperf-style bulk TCP streams over loopback: throughput, and
 * how often the sender and receiver tasks migrate (seed 000's point). */
#define _GNU_SOURCE
#include "../workload.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
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
 * Per stream one sender process writes `buffer`-sized chunks as fast as
 * the socket takes them and one receiver process reads them, like an
 * iperf client and server.  The pair ping-pongs through the socket
 * buffers: the scheduler is tempted to pull them apart (wake-affine vs.
 * load balance across LLCs), which is why the seed counts migrations of
 * exactly these two tasks; every task adds its own se.nr_migrations when
 * it ends (wl_task_done) and we report the sum.
 */

struct ip_slot {
	uint64_t bytes;            /* received; written by one receiver only */
} __attribute__((aligned(64)));

struct ip_shared {
	int stop;
	int failed;
	char error[256];
	struct ip_slot slot[];
};

struct ip {
	struct wl_ctx *ctx;
	unsigned streams;
	size_t buffer;
	struct ip_shared *sh;
	size_t sh_size;
	pid_t *pid;                /* 2 per stream: receiver, sender */
	unsigned nr_pid;
	int done[2];               /* every child holds done[1] until it exits */
};

__attribute__((format(printf, 2, 3)))
static void ip_child_fail(struct ip *ip, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&ip->sh->failed, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(ip->sh->error, sizeof(ip->sh->error), fmt, ap);
	va_end(ap);
}

static int ip_sender(struct ip *ip, int fd, char *buf)
{
	memset(buf, 'i', ip->buffer);
	while (!__atomic_load_n(&ip->sh->stop, __ATOMIC_RELAXED)) {
		size_t done = 0;

		while (done < ip->buffer) {
			ssize_t r = send(fd, buf + done, ip->buffer - done, MSG_NOSIGNAL);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				ip_child_fail(ip, "sender: write: %s", strerror(errno));
				return -1;
			}
			done += (size_t)r;
		}
	}
	return 0;
}

static int ip_receiver(struct ip *ip, unsigned idx, int fd, char *buf)
{
	uint64_t bytes = 0;

	for (;;) {
		ssize_t r = read(fd, buf, ip->buffer);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ip_child_fail(ip, "receiver: read: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			return 0;
		bytes += (uint64_t)r;
		__atomic_store_n(&ip->sh->slot[idx].bytes, bytes, __ATOMIC_RELAXED);
	}
}

/* Forks a task running role (0 receiver, 1 sender) on fd; close_fd is the
 * other end, which the task must not keep (or the peer never sees EOF). */
static int ip_fork(struct ip *ip, int role, unsigned idx, int fd, int close_fd, int lfd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *buf = malloc(ip->buffer);
		int ret = -1;

		close(close_fd);
		close(lfd);
		close(ip->done[0]);
		if (!buf)
			ip_child_fail(ip, "%s: out of memory", role ? "sender" : "receiver");
		else if (role)
			ret = ip_sender(ip, fd, buf);
		else
			ret = ip_receiver(ip, idx, fd, buf);
		close(fd);
		wl_task_done(ip->ctx);
		_exit(ret < 0 ? 1 : 0);
	}
	ip->pid[ip->nr_pid++] = pid;
	return 0;
}

static int ip_start(struct ip *ip)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(addr);
	int lfd, ret = 0;

	/* port 0: the kernel picks a free one, so two runs never collide */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return wl_fail(ip->ctx, "socket: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 64) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0) {
		ret = wl_fail(ip->ctx, "cannot listen on 127.0.0.1: %s", strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < ip->streams; i++) {
		int cfd, sfd;

		cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (cfd < 0) {
			ret = wl_fail(ip->ctx, "socket: %s", strerror(errno));
			goto out;
		}
		/* loopback connect completes from the backlog; accept at once */
		if (connect(cfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
		    (sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			ret = wl_fail(ip->ctx, "cannot connect to 127.0.0.1:%u: %s",
				      ntohs(addr.sin_port), strerror(errno));
			close(cfd);
			goto out;
		}
		if (ip_fork(ip, 0, i, sfd, cfd, lfd) < 0 || ip_fork(ip, 1, i, cfd, sfd, lfd) < 0)
			ret = wl_fail(ip->ctx, "cannot fork: %s", strerror(errno));
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
static int ip_sleep_until(uint64_t until, uint64_t deadline_ns)
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
static int ip_wait_exit(struct ip *ip, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = { .fd = ip->done[0], .events = POLLIN };
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
static int ip_reap(struct ip *ip, int kill_them, char *why, size_t len)
{
	int bad = 0;

	for (unsigned i = 0; kill_them && i < ip->nr_pid; i++)
		kill(ip->pid[i], SIGKILL);
	for (unsigned i = 0; i < ip->nr_pid; i++) {
		int st;

		while (waitpid(ip->pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!bad && !kill_them && (!WIFEXITED(st) || WEXITSTATUS(st))) {
			if (WIFSIGNALED(st))
				snprintf(why, len, "task %d killed by signal %d", (int)ip->pid[i], WTERMSIG(st));
			else
				snprintf(why, len, "task %d exited with status %d", (int)ip->pid[i],
					 WEXITSTATUS(st));
			bad = 1;
		}
	}
	ip->nr_pid = 0;
	return bad ? -1 : 0;
}

static uint64_t ip_bytes(const struct ip *ip)
{
	uint64_t bytes = 0;

	for (unsigned i = 0; i < ip->streams; i++)
		bytes += __atomic_load_n(&ip->sh->slot[i].bytes, __ATOMIC_RELAXED);
	return bytes;
}

static int ip_measure(struct ip *ip)
{
	struct wl_ctx *ctx = ip->ctx;
	uint64_t runtime = (uint64_t)wl_int(ctx->args, "runtime") * 1000000000ull;
	uint64_t warmup = (uint64_t)wl_int(ctx->args, "warmup") * 1000000000ull;
	uint64_t t_start, t0, t1, t_end, bytes0, bytes1, migrations;
	char why[256] = "";
	int late, ret;

	t_start = wl_now_ns();
	if (ip_start(ip) < 0) {
		ip_reap(ip, 1, why, sizeof(why));
		return -1;
	}
	close(ip->done[1]);
	ip->done[1] = -1;
	late = ip_sleep_until(t_start + warmup, ctx->deadline_ns);
	t0 = wl_now_ns();
	bytes0 = ip_bytes(ip);
	if (!late)
		late = ip_sleep_until(t0 + runtime, ctx->deadline_ns);
	t1 = wl_now_ns();
	bytes1 = ip_bytes(ip);
	/* senders finish their write and close; receivers see EOF */
	__atomic_store_n(&ip->sh->stop, 1, __ATOMIC_RELAXED);
	if (!late)
		late = ip_wait_exit(ip, ctx->deadline_ns) < 0;
	ret = ip_reap(ip, late, why, sizeof(why));
	t_end = wl_now_ns();
	if (late)
		return wl_fail(ctx, "deadline passed");
	if (ip->sh->failed)
		return wl_fail(ctx, "%s", ip->sh->error);
	if (ret < 0)
		return wl_fail(ctx, "%s", why);
	wl_metric(ctx, "gbit_s", "Gbit/s", (double)(bytes1 - bytes0) * 8 / 1e9 / ((double)(t1 - t0) / 1e9), 1);
	/*
	 * Without /proc/<tid>/sched (no CONFIG_SCHED_DEBUG) the tasks add
	 * nothing: then there is no count to report, rather than a false 0.
	 */
	if (!ctx->totals || ctx->totals->tasks != 2ull * ip->streams)
		return 0;
	/* counted over the tasks' whole lives, so per second of those */
	migrations = ctx->totals->nr_migrations;
	wl_metric(ctx, "migrations", "count", (double)migrations, 0);
	wl_metric(ctx, "migrations_per_s", "1/s", (double)migrations / ((double)(t_end - t_start) / 1e9), 0);
	return 0;
}

static int ip_run(struct wl_ctx *ctx)
{
	struct ip ip = {
		.ctx = ctx,
		.streams = (unsigned)wl_int(ctx->args, "streams"),
		.buffer = (size_t)wl_int(ctx->args, "buffer"),
		.done = { -1, -1 },
	};
	int ret = -1;

	ip.sh_size = sizeof(*ip.sh) + ip.streams * sizeof(ip.sh->slot[0]);
	ip.sh = mmap(NULL, ip.sh_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ip.pid = calloc(2 * ip.streams, sizeof(*ip.pid));
	if (ip.sh == MAP_FAILED || !ip.pid) {
		wl_fail(ctx, "out of memory for %u streams", ip.streams);
		goto out;
	}
	if (pipe2(ip.done, O_CLOEXEC) < 0) {
		wl_fail(ctx, "cannot create pipe: %s", strerror(errno));
		goto out;
	}
	ret = ip_measure(&ip);
out:
	for (int i = 0; i < 2; i++)
		if (ip.done[i] >= 0)
			close(ip.done[i]);
	if (ip.sh != MAP_FAILED)
		munmap(ip.sh, ip.sh_size);
	free(ip.pid);
	return ret;
}

static const struct wl_option ip_options[] = {
	{ "streams", WL_INT, 1, 256, "1", NULL, "parallel streams, each a sender and a receiver process" },
	{ "runtime", WL_INT, 1, 3600, "3", NULL, "measured seconds" },
	{ "warmup", WL_INT, 0, 3600, "0", NULL, "seconds before measuring starts (iperf3 --omit)" },
	{ "buffer", WL_SIZE, 1024, 16ll << 20, "128K", NULL, "bytes per write and read (iperf -l)" },
	{ .name = NULL },
};

const struct workload_ops workload_iperf = {
	.name = "iperf",
	.description = "bulk TCP streams over loopback (iperf); Gbit/s and sender/receiver migrations",
	.options = ip_options,
	.run = ip_run,
};
