/* netperf.c - netperf TCP_RR / uperf style request-response over loopback
 * TCP with TCP_NODELAY; transactions/s and transaction latency. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../histogram.h"
#include "../wlproc.h"
#include "common/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
	struct hist latency;       /* clients merge theirs in as they end */
	struct np_slot slot[];
};

struct np {
	struct wl_ctx *ctx;
	unsigned clients, size;
	struct np_shared *sh;      /* in procs' shared memory */
	struct wl_procs procs;
};

/* len bytes: 1; end of stream before the first byte: 0; else -1 */
static int np_read_all(int fd, char *p, size_t len)
{
	ssize_t got = read_in_full(fd, p, len);

	if (got == (ssize_t)len)
		return 1;
	if (got < 0)
		return -1;
	errno = ECONNRESET;
	return got ? -1 : 0;
}

static int np_server(struct np *np, int fd, char *buf)
{
	for (;;) {
		int r = np_read_all(fd, buf, np->size);

		if (r == 0)
			return 0;
		if (r < 0) {
			wl_procs_fail(&np->procs, "server: read: %s", strerror(errno));
			return -1;
		}
		if (send_in_full(fd, buf, np->size) < 0) {
			wl_procs_fail(&np->procs, "server: write: %s", strerror(errno));
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
		wl_procs_fail(&np->procs, "client: out of memory");
		return -1;
	}
	hist_init(lat);
	memset(buf, 'n', np->size);
	while ((phase = __atomic_load_n(&np->sh->phase, __ATOMIC_RELAXED)) != PHASE_DONE) {
		uint64_t t0 = wl_now_ns();

		if (send_in_full(fd, buf, np->size) < 0 || np_read_all(fd, buf, np->size) != 1) {
			wl_procs_fail(&np->procs, "client: transaction: %s", strerror(errno));
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

/* One forked task: the server or the client of connection idx. */
static int np_task(void *arg, int role, unsigned idx, int fd)
{
	struct np *np = arg;
	char *buf = malloc(np->size);
	int ret;

	if (!buf) {
		wl_procs_fail(&np->procs, "%s: out of memory", role == WL_CLIENT ? "client" : "server");
		return -1;
	}
	if (role == WL_CLIENT)
		ret = np_client(np, idx, fd, buf);
	else
		ret = np_server(np, fd, buf);
	free(buf);
	return ret;
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
	uint64_t start, ops0, ops1;
	struct wl_window win;

	np->sh->phase = warmup ? PHASE_WARMUP : PHASE_MEASURE;
	start = wl_now_ns();
	if (wl_procs_start_pairs(&np->procs, 1, np_task, np) < 0)
		return -1;
	wl_window_open(&win, start + warmup, ctx->deadline_ns);
	ops0 = np_ops(np);
	__atomic_store_n(&np->sh->phase, PHASE_MEASURE, __ATOMIC_RELAXED);
	wl_window_close(&win, runtime, ctx->deadline_ns);
	ops1 = np_ops(np);
	/* clients finish their transaction and close; servers see EOF */
	__atomic_store_n(&np->sh->phase, PHASE_DONE, __ATOMIC_RELAXED);
	if (wl_procs_finish(&np->procs, win.late) < 0)
		return -1;
	wl_metric(ctx, "tps", "tps", (double)(ops1 - ops0) / ((double)(win.t1 - win.t0) / 1e9), 1);
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
		.procs = { .done = { -1, -1 }, .comm = "netperf" },
	};
	int ret = -1;

	np.sh = wl_procs_init(&np.procs, ctx, np.clients, "clients",
			      sizeof(*np.sh) + np.clients * sizeof(np.sh->slot[0]));
	if (np.sh) {
		hist_init(&np.sh->latency);
		ret = np_measure(&np);
	}
	wl_procs_release(&np.procs);
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
