/* tbench.c - tbench-style loopback TCP: each client replays a file-server
 * request mix against its own server process; MB/s and ops/s. */
#define _GNU_SOURCE
#include "../workload.h"

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
 * dbench's tbench mode replays an SMB trace over TCP with the file system
 * left out: small requests, replies from a few dozen bytes to 64 KiB, one
 * request in flight per client, one forked server per connection.  We
 * keep that shape with a fixed cycle of operations instead of the trace,
 * so every run moves the same bytes in the same order.
 */
struct tb_op {
	const char *name;
	uint32_t request, reply;   /* bytes on the wire, header included */
};

static const struct tb_op tb_mix[] = {
	{ "NTCreateX",        160,   110 },
	{ "QUERY_FILE_INFO",  110,   220 },
	{ "ReadX",            120,  4096 },
	{ "ReadX",            120, 65536 },
	{ "Close",            100,    50 },
	{ "FIND_FIRST",       190,  1500 },
	{ "ReadX",            120, 16384 },
	{ "QUERY_PATH_INFO",  150,   180 },
	{ "Close",            100,    50 },
	{ "NTCreateX",        160,   110 },
	{ "ReadX",            120, 32768 },
	{ "QUERY_FS_INFO",    104,   120 },
	{ "LockX",            130,    60 },
	{ "ReadX",            120,  1024 },
	{ "UnlockX",          130,    60 },
	{ "Close",            100,    50 },
};
#define TB_MIX_LEN (sizeof(tb_mix) / sizeof(tb_mix[0]))
#define TB_HDR 8
#define TB_MAX_REQUEST 4096
#define TB_MAX_REPLY 65536

/* Request header: total request length, then the reply length wanted
 * (both little-endian u32); the rest of the request is filler. */
static void tb_encode(unsigned char *buf, const struct tb_op *op)
{
	for (int i = 0; i < 4; i++) {
		buf[i] = (unsigned char)(op->request >> (8 * i));
		buf[4 + i] = (unsigned char)(op->reply >> (8 * i));
	}
}

/* 0 and the lengths, or -1 when the header is not one we would send. */
static int tb_decode(const unsigned char *buf, uint32_t *request, uint32_t *reply)
{
	uint32_t req = 0, rep = 0;

	for (int i = 0; i < 4; i++) {
		req |= (uint32_t)buf[i] << (8 * i);
		rep |= (uint32_t)buf[4 + i] << (8 * i);
	}
	if (req < TB_HDR || req > TB_MAX_REQUEST || rep < 1 || rep > TB_MAX_REPLY)
		return -1;
	*request = req;
	*reply = rep;
	return 0;
}

/* 0, or -1 with errno */
static int tb_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

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
static int tb_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, p + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			if (!got)
				return 0;
			errno = EPROTO;
			return -1;
		}
		got += (size_t)r;
	}
	return 1;
}

/* One transaction of the client; buf holds TB_MAX_REPLY bytes. */
static int tb_transact(int fd, const struct tb_op *op, unsigned char *buf)
{
	tb_encode(buf, op);
	memset(buf + TB_HDR, 'q', op->request - TB_HDR);
	if (tb_write_all(fd, buf, op->request) < 0)
		return -1;
	switch (tb_read_all(fd, buf, op->reply)) {
	case 1:
		return 0;
	case 0:
		errno = ECONNRESET;
		/* fallthrough */
	default:
		return -1;
	}
}

/* The server side of one connection: 0 at the client's end of stream. */
static int tb_serve(int fd, unsigned char *buf, char *why, size_t len)
{
	for (;;) {
		uint32_t request, reply;
		int r = tb_read_all(fd, buf, TB_HDR);

		if (r == 0)
			return 0;
		if (r < 0 || tb_decode(buf, &request, &reply) < 0) {
			snprintf(why, len, "server: %s", r < 0 ? strerror(errno) : "bad request header");
			return -1;
		}
		if (request > TB_HDR && tb_read_all(fd, buf, request - TB_HDR) != 1) {
			snprintf(why, len, "server: short request");
			return -1;
		}
		memset(buf, 'r', reply);
		if (tb_write_all(fd, buf, reply) < 0) {
			snprintf(why, len, "server: write: %s", strerror(errno));
			return -1;
		}
	}
}

struct tb_slot {
	uint64_t ops, bytes;       /* written by one client only */
} __attribute__((aligned(64)));

struct tb_shared {
	int stop;
	int failed;
	char error[256];
	struct tb_slot slot[];
};

struct tb {
	struct wl_ctx *ctx;
	unsigned clients;
	struct tb_shared *sh;
	size_t sh_size;
	pid_t *pid;                /* 2 per client: server, client */
	unsigned nr_pid;
	int done[2];               /* every child holds done[1] until it exits */
};

static void tb_child_fail(struct tb *tb, const char *why)
{
	if (__atomic_exchange_n(&tb->sh->failed, 1, __ATOMIC_ACQ_REL))
		return;
	snprintf(tb->sh->error, sizeof(tb->sh->error), "%s", why);
}

static int tb_client(struct tb *tb, unsigned idx, int fd, unsigned char *buf)
{
	struct tb_slot *slot = &tb->sh->slot[idx];
	uint64_t ops = 0, bytes = 0;
	/* clients start at different points so they do not move in lockstep */
	size_t k = idx % TB_MIX_LEN;

	while (!__atomic_load_n(&tb->sh->stop, __ATOMIC_RELAXED)) {
		const struct tb_op *op = &tb_mix[k];

		if (tb_transact(fd, op, buf) < 0) {
			char why[128];

			snprintf(why, sizeof(why), "client: %s: %s", op->name, strerror(errno));
			tb_child_fail(tb, why);
			return -1;
		}
		k = (k + 1) % TB_MIX_LEN;
		ops++;
		bytes += op->request + op->reply;
		__atomic_store_n(&slot->ops, ops, __ATOMIC_RELAXED);
		__atomic_store_n(&slot->bytes, bytes, __ATOMIC_RELAXED);
	}
	return 0;
}

static int tb_nodelay(int fd)
{
	int one = 1;

	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Forks a task running role (0 server, 1 client) on fd; close_fd is the
 * other end, which the task must not keep (or the peer never sees EOF). */
static int tb_fork(struct tb *tb, int role, unsigned idx, int fd, int close_fd, int lfd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		unsigned char *buf = malloc(TB_MAX_REPLY);
		char why[256];
		int ret;

		close(close_fd);
		close(lfd);
		close(tb->done[0]);
		if (!buf) {
			tb_child_fail(tb, "out of memory");
			_exit(1);
		}
		if (role) {
			ret = tb_client(tb, idx, fd, buf);
		} else {
			ret = tb_serve(fd, buf, why, sizeof(why));
			if (ret < 0)
				tb_child_fail(tb, why);
		}
		close(fd);
		wl_task_done(tb->ctx);
		_exit(ret < 0 ? 1 : 0);
	}
	tb->pid[tb->nr_pid++] = pid;
	return 0;
}

static int tb_start(struct tb *tb)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(addr);
	int lfd, ret = 0;

	/* port 0: the kernel picks a free one, so two runs never collide */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return wl_fail(tb->ctx, "socket: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 64) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0) {
		ret = wl_fail(tb->ctx, "cannot listen on 127.0.0.1: %s", strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < tb->clients; i++) {
		int cfd, sfd;

		cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (cfd < 0) {
			ret = wl_fail(tb->ctx, "socket: %s", strerror(errno));
			goto out;
		}
		/* loopback connect completes from the backlog; accept at once */
		if (connect(cfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
		    (sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
			ret = wl_fail(tb->ctx, "cannot connect to 127.0.0.1:%u: %s",
				      ntohs(addr.sin_port), strerror(errno));
			close(cfd);
			goto out;
		}
		tb_nodelay(cfd);
		tb_nodelay(sfd);
		if (tb_fork(tb, 0, i, sfd, cfd, lfd) < 0 || tb_fork(tb, 1, i, cfd, sfd, lfd) < 0)
			ret = wl_fail(tb->ctx, "cannot fork: %s", strerror(errno));
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
static int tb_sleep_until(uint64_t until, uint64_t deadline_ns)
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
static int tb_wait_exit(struct tb *tb, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = { .fd = tb->done[0], .events = POLLIN };
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
static int tb_reap(struct tb *tb, int kill_them, char *why, size_t len)
{
	int bad = 0;

	for (unsigned i = 0; kill_them && i < tb->nr_pid; i++)
		kill(tb->pid[i], SIGKILL);
	for (unsigned i = 0; i < tb->nr_pid; i++) {
		int st;

		while (waitpid(tb->pid[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!bad && !kill_them && (!WIFEXITED(st) || WEXITSTATUS(st))) {
			if (WIFSIGNALED(st))
				snprintf(why, len, "task %d killed by signal %d", (int)tb->pid[i], WTERMSIG(st));
			else
				snprintf(why, len, "task %d exited with status %d", (int)tb->pid[i],
					 WEXITSTATUS(st));
			bad = 1;
		}
	}
	tb->nr_pid = 0;
	return bad ? -1 : 0;
}

static void tb_sum(const struct tb *tb, uint64_t *ops, uint64_t *bytes)
{
	*ops = *bytes = 0;
	for (unsigned i = 0; i < tb->clients; i++) {
		*ops += __atomic_load_n(&tb->sh->slot[i].ops, __ATOMIC_RELAXED);
		*bytes += __atomic_load_n(&tb->sh->slot[i].bytes, __ATOMIC_RELAXED);
	}
}

static int tb_measure(struct tb *tb)
{
	struct wl_ctx *ctx = tb->ctx;
	uint64_t runtime = (uint64_t)wl_int(ctx->args, "runtime") * 1000000000ull;
	uint64_t warmup = (uint64_t)wl_int(ctx->args, "warmup") * 1000000000ull;
	uint64_t t0, t1, ops0, ops1, bytes0, bytes1;
	char why[256] = "";
	int late, ret;

	t0 = wl_now_ns() + warmup;
	if (tb_start(tb) < 0) {
		tb_reap(tb, 1, why, sizeof(why));
		return -1;
	}
	close(tb->done[1]);
	tb->done[1] = -1;
	late = tb_sleep_until(t0, ctx->deadline_ns);
	t0 = wl_now_ns();
	tb_sum(tb, &ops0, &bytes0);
	if (!late)
		late = tb_sleep_until(t0 + runtime, ctx->deadline_ns);
	t1 = wl_now_ns();
	tb_sum(tb, &ops1, &bytes1);
	/* clients finish their transaction and close; servers see EOF */
	__atomic_store_n(&tb->sh->stop, 1, __ATOMIC_RELAXED);
	if (!late)
		late = tb_wait_exit(tb, ctx->deadline_ns) < 0;
	ret = tb_reap(tb, late, why, sizeof(why));
	if (late)
		return wl_fail(ctx, "deadline passed");
	if (tb->sh->failed)
		return wl_fail(ctx, "%s", tb->sh->error);
	if (ret < 0)
		return wl_fail(ctx, "%s", why);
	wl_metric(ctx, "mb_s", "MB/s", (double)(bytes1 - bytes0) / 1e6 / ((double)(t1 - t0) / 1e9), 1);
	wl_metric(ctx, "ops_s", "ops/s", (double)(ops1 - ops0) / ((double)(t1 - t0) / 1e9), 1);
	return 0;
}

static int tb_run(struct wl_ctx *ctx)
{
	struct tb tb = {
		.ctx = ctx,
		.clients = (unsigned)wl_int(ctx->args, "clients"),
		.done = { -1, -1 },
	};
	int ret = -1;

	tb.sh_size = sizeof(*tb.sh) + tb.clients * sizeof(tb.sh->slot[0]);
	tb.sh = mmap(NULL, tb.sh_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	tb.pid = calloc(2 * tb.clients, sizeof(*tb.pid));
	if (tb.sh == MAP_FAILED || !tb.pid) {
		wl_fail(ctx, "out of memory for %u clients", tb.clients);
		goto out;
	}
	if (pipe2(tb.done, O_CLOEXEC) < 0) {
		wl_fail(ctx, "cannot create pipe: %s", strerror(errno));
		goto out;
	}
	ret = tb_measure(&tb);
out:
	for (int i = 0; i < 2; i++)
		if (tb.done[i] >= 0)
			close(tb.done[i]);
	if (tb.sh != MAP_FAILED)
		munmap(tb.sh, tb.sh_size);
	free(tb.pid);
	return ret;
}

static const struct wl_option tb_options[] = {
	{ "clients", WL_INT, 1, 1024, "2", NULL, "client connections, each with its own server process" },
	{ "runtime", WL_INT, 1, 3600, "3", NULL, "measured seconds" },
	{ "warmup", WL_INT, 0, 3600, "1", NULL, "seconds before measuring starts" },
	{ .name = NULL },
};

const struct workload_ops workload_tbench = {
	.name = "tbench",
	.description = "loopback TCP clients replaying a file-server request mix (tbench); MB/s",
	.options = tb_options,
	.run = tb_run,
};
