/* tbench.c - tbench-style loopback TCP: each client replays a file-server
 * request mix against its own server process; MB/s and ops/s. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlproc.h"
#include "tbench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

const struct tb_op tb_mix[TB_MIX_LEN] = {
	{ "NTCreateX",        160,   110,     0 },
	{ "QUERY_FILE_INFO",  110,   220,     0 },
	{ "ReadX",            120,  4096,  4096 },
	{ "ReadX",            120, 65536, 65536 },
	{ "Close",            100,    50,     0 },
	{ "FIND_FIRST",       190,  1500,     0 },
	{ "ReadX",            120,  4096,  4096 },
	{ "QUERY_PATH_INFO",  150,   180,     0 },
	{ "Close",            100,    50,     0 },
	{ "NTCreateX",        160,   110,     0 },
	{ "ReadX",            120,  8192,  8192 },
	{ "QUERY_FS_INFO",    104,   120,     0 },
	{ "LockX",            130,    60,     0 },
	{ "ReadX",            120,  4096,  4096 },
	{ "UnlockX",          130,    60,     0 },
	{ "Close",            100,    50,     0 },
};

/* Request header: total request length, then the reply length wanted
 * (both little-endian u32); the rest of the request is filler. */
void tb_encode(unsigned char *buf, const struct tb_op *op)
{
	for (int i = 0; i < 4; i++) {
		buf[i] = (unsigned char)(op->request >> (8 * i));
		buf[4 + i] = (unsigned char)(op->reply >> (8 * i));
	}
}

/* 0 and the lengths, or -1 when the header is not one we would send. */
int tb_decode(const unsigned char *buf, uint32_t *request, uint32_t *reply)
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

/*
 * len bytes: 1; end of stream before the first byte: 0; else -1.  With
 * MSG_TRUNC in flags TCP drops the bytes without copying them (as the
 * tbench client takes its replies); other sockets copy them into buf.
 */
static int tb_read_all(int fd, void *buf, size_t len, int flags)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t r = recv(fd, p + got, len - got, flags | MSG_WAITALL);

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
	int r;

	tb_encode(buf, op);
	memset(buf + TB_HDR, 'q', op->request - TB_HDR);
	if (tb_write_all(fd, buf, op->request) < 0)
		return -1;
	/* tbench reads a reply's 4-byte header first, then drops the rest */
	r = tb_read_all(fd, buf, TB_REPLY_HDR, 0);
	if (r == 1)
		r = tb_read_all(fd, buf, op->reply - TB_REPLY_HDR, MSG_TRUNC);
	if (r == 0)
		errno = ECONNRESET;
	return r == 1 ? 0 : -1;
}

/* The server side of one connection: 0 at the client's end of stream. */
int tb_serve(int fd, unsigned char *buf, char *why, size_t len)
{
	/* replies carry whatever the buffer holds, as tbench_srv's do */
	memset(buf, 'r', TB_MAX_REPLY);
	for (;;) {
		uint32_t request, reply;
		int r = tb_read_all(fd, buf, TB_HDR, 0);

		if (r == 0)
			return 0;
		if (r < 0 || tb_decode(buf, &request, &reply) < 0) {
			snprintf(why, len, "server: %s", r < 0 ? strerror(errno) : "bad request header");
			return -1;
		}
		if (request > TB_HDR && tb_read_all(fd, buf, request - TB_HDR, 0) != 1) {
			snprintf(why, len, "server: short request");
			return -1;
		}
		if (tb_write_all(fd, buf, reply) < 0) {
			snprintf(why, len, "server: write: %s", strerror(errno));
			return -1;
		}
	}
}

int tb_client(struct tb *tb, unsigned idx, int fd, unsigned char *buf)
{
	struct tb_slot *slot = &tb->sh->slot[idx];
	uint64_t ops = 0, bytes = 0, data = 0;
	/* clients start at different points so they do not move in lockstep */
	size_t k = idx % TB_MIX_LEN;

	while (!__atomic_load_n(&tb->sh->stop, __ATOMIC_RELAXED)) {
		const struct tb_op *op = &tb_mix[k];

		if (tb_transact(fd, op, buf) < 0) {
			wl_procs_fail(&tb->procs, "client: %s: %s", op->name, strerror(errno));
			return -1;
		}
		k = (k + 1) % TB_MIX_LEN;
		ops++;
		bytes += op->request + op->reply;
		data += op->data;
		__atomic_store_n(&slot->ops, ops, __ATOMIC_RELAXED);
		__atomic_store_n(&slot->bytes, bytes, __ATOMIC_RELAXED);
		__atomic_store_n(&slot->data, data, __ATOMIC_RELAXED);
	}
	return 0;
}

/* One forked task: the server or the client of connection idx. */
static int tb_task(void *arg, int role, unsigned idx, int fd)
{
	struct tb *tb = arg;
	unsigned char *buf = malloc(TB_MAX_REPLY);
	char why[256];
	int ret;

	if (!buf) {
		wl_procs_fail(&tb->procs, "out of memory");
		return -1;
	}
	if (role == WL_CLIENT) {
		ret = tb_client(tb, idx, fd, buf);
	} else {
		ret = tb_serve(fd, buf, why, sizeof(why));
		if (ret < 0)
			wl_procs_fail(&tb->procs, "%s", why);
	}
	free(buf);
	return ret;
}

/* The clients' totals so far: operations, bytes on the wire, file data. */
static void tb_sum(const struct tb *tb, uint64_t sum[3])
{
	sum[0] = sum[1] = sum[2] = 0;
	for (unsigned i = 0; i < tb->clients; i++) {
		sum[0] += __atomic_load_n(&tb->sh->slot[i].ops, __ATOMIC_RELAXED);
		sum[1] += __atomic_load_n(&tb->sh->slot[i].bytes, __ATOMIC_RELAXED);
		sum[2] += __atomic_load_n(&tb->sh->slot[i].data, __ATOMIC_RELAXED);
	}
}

static int tb_measure(struct tb *tb)
{
	struct wl_ctx *ctx = tb->ctx;
	uint64_t runtime = (uint64_t)wl_int(ctx->args, "runtime") * 1000000000ull;
	uint64_t warmup = (uint64_t)wl_int(ctx->args, "warmup") * 1000000000ull;
	uint64_t start = wl_now_ns(), s0[3], s1[3];
	struct wl_window win;
	double seconds;

	if (wl_procs_start_pairs(&tb->procs, 1, tb_task, tb) < 0)
		return -1;
	wl_window_open(&win, start + warmup, ctx->deadline_ns);
	tb_sum(tb, s0);
	wl_window_close(&win, runtime, ctx->deadline_ns);
	tb_sum(tb, s1);
	/* clients finish their transaction and close; servers see EOF */
	__atomic_store_n(&tb->sh->stop, 1, __ATOMIC_RELAXED);
	if (wl_procs_finish(&tb->procs, win.late) < 0)
		return -1;
	seconds = (double)(win.t1 - win.t0) / 1e9;
	wl_metric(ctx, "mb_s", "MB/s", (double)(s1[2] - s0[2]) / 1e6 / seconds, 1);
	wl_metric(ctx, "ops_s", "ops/s", (double)(s1[0] - s0[0]) / seconds, 1);
	wl_metric(ctx, "wire_mb_s", "MB/s", (double)(s1[1] - s0[1]) / 1e6 / seconds, 1);
	return 0;
}

static int tb_run(struct wl_ctx *ctx)
{
	struct tb tb = {
		.ctx = ctx,
		.clients = (unsigned)wl_int(ctx->args, "clients"),
		.procs = { .done = { -1, -1 }, .comm = "tbench" },
	};
	int ret;

	tb.sh = wl_procs_init(&tb.procs, ctx, tb.clients, "clients",
			      sizeof(*tb.sh) + tb.clients * sizeof(tb.sh->slot[0]));
	ret = tb.sh ? tb_measure(&tb) : -1;
	wl_procs_release(&tb.procs);
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
