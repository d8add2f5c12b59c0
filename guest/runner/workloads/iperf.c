/* iperf.c - iperf-style bulk TCP streams over loopback: throughput, and
 * how often the sender and receiver tasks migrate (seed 000's point). */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlproc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
	struct ip_slot slot[];
};

struct ip {
	struct wl_ctx *ctx;
	unsigned streams;
	size_t buffer;
	struct ip_shared *sh;      /* in procs' shared memory */
	struct wl_procs procs;     /* per stream: receiver (server), sender (client) */
};

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
				wl_procs_fail(&ip->procs, "sender: write: %s", strerror(errno));
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
			wl_procs_fail(&ip->procs, "receiver: read: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			return 0;
		bytes += (uint64_t)r;
		__atomic_store_n(&ip->sh->slot[idx].bytes, bytes, __ATOMIC_RELAXED);
	}
}

/* One forked task: the receiver or the sender of stream idx. */
static int ip_task(void *arg, int role, unsigned idx, int fd)
{
	struct ip *ip = arg;
	char *buf = malloc(ip->buffer);
	int ret;

	if (!buf) {
		wl_procs_fail(&ip->procs, "%s: out of memory", role == WL_CLIENT ? "sender" : "receiver");
		return -1;
	}
	if (role == WL_CLIENT)
		ret = ip_sender(ip, fd, buf);
	else
		ret = ip_receiver(ip, idx, fd, buf);
	free(buf);
	return ret;
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
	uint64_t t_start, t_end, bytes0, bytes1, migrations;
	struct wl_window win;
	int ret;

	t_start = wl_now_ns();
	if (wl_procs_start_pairs(&ip->procs, 0, ip_task, ip) < 0)
		return -1;
	wl_window_open(&win, t_start + warmup, ctx->deadline_ns);
	bytes0 = ip_bytes(ip);
	wl_window_close(&win, runtime, ctx->deadline_ns);
	bytes1 = ip_bytes(ip);
	/* senders finish their write and close; receivers see EOF */
	__atomic_store_n(&ip->sh->stop, 1, __ATOMIC_RELAXED);
	ret = wl_procs_finish(&ip->procs, win.late);
	t_end = wl_now_ns();
	if (ret < 0)
		return -1;
	wl_metric(ctx, "gbit_s", "Gbit/s",
		  (double)(bytes1 - bytes0) * 8 / 1e9 / ((double)(win.t1 - win.t0) / 1e9), 1);
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
		.procs = WL_PROCS_INIT,
	};
	int ret;

	ip.sh = wl_procs_init(&ip.procs, ctx, ip.streams, "streams",
			      sizeof(*ip.sh) + ip.streams * sizeof(ip.sh->slot[0]));
	ret = ip.sh ? ip_measure(&ip) : -1;
	wl_procs_release(&ip.procs);
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
