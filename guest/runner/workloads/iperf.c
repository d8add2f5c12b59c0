/* iperf.c - iperf-style bulk TCP streams over loopback: throughput, and
 * how often the sender and receiver tasks migrate (seed 000's point). */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlproc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * Per stream one sender process writes `buffer`-sized chunks as fast as
 * the socket takes them and one receiver process reads them, like an
 * iperf client and server.  The pair ping-pongs through the socket
 * buffers: the scheduler is tempted to pull them apart (wake-affine vs.
 * load balance across LLCs), which is why the seed counts migrations of
 * exactly these two tasks; every task adds its own se.nr_migrations when
 * it ends (wl_task_done).  That sum is the case's `migrations` counter
 * (counters = tasks) already: the workload reports only its rate, so the
 * name `migrations` means one thing everywhere.
 *
 * tasks=side is iperf3 up to 3.15 (Debian 12 ships 3.12): one process
 * per side serves every stream from a poll loop, so -P 4 is still two
 * busy tasks.  Stream 0 is the pair's own connection; the receiver
 * listens for the others on a port it publishes in shared memory and the
 * sender connects to it, as an iperf3 client does to its server.
 */

struct ip_slot {
	uint64_t bytes;            /* received; written by one receiver only */
} __attribute__((aligned(64)));

struct ip_shared {
	int stop;
	int port;                  /* tasks=side: the receiver's listener, 0 until then */
	struct ip_slot slot[];
};

struct ip {
	struct wl_ctx *ctx;
	unsigned streams;
	int one_per_side;          /* tasks=side */
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

/* tasks=side, receiver: fds[0] is given; accepts the other streams. */
static int ip_side_accept(struct ip *ip, int *fds)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 256) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0) {
		wl_procs_fail(&ip->procs, "receiver: cannot listen: %s", strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	__atomic_store_n(&ip->sh->port, ntohs(a.sin_port), __ATOMIC_RELEASE);
	for (unsigned i = 1; i < ip->streams; i++) {
		fds[i] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fds[i] < 0) {
			wl_procs_fail(&ip->procs, "receiver: accept: %s", strerror(errno));
			close(lfd);
			return -1;
		}
	}
	close(lfd);
	return 0;
}

/* tasks=side, sender: waits for the receiver's port and connects the rest. */
static int ip_side_connect(struct ip *ip, int *fds)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const struct timespec nap = { 0, 1000000 };
	int port;

	while (!(port = __atomic_load_n(&ip->sh->port, __ATOMIC_ACQUIRE))) {
		if (__atomic_load_n(&ip->sh->stop, __ATOMIC_RELAXED)) {
			wl_procs_fail(&ip->procs, "sender: the receiver never listened");
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	a.sin_port = htons((uint16_t)port);
	for (unsigned i = 1; i < ip->streams; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&a, sizeof(a)) < 0) {
			wl_procs_fail(&ip->procs, "sender: cannot connect: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * tasks=side: every stream's fd non-blocking in one poll loop; the sender
 * writes a buffer to each writable stream until told to stop, the
 * receiver reads each readable one until all have ended.
 */
static int ip_side_loop(struct ip *ip, int role, int *fds, char *buf)
{
	struct pollfd *pfd = calloc(ip->streams, sizeof(*pfd));
	uint64_t *bytes = calloc(ip->streams, sizeof(*bytes));
	unsigned open = ip->streams;
	int ret = -1;

	if (!pfd || !bytes) {
		wl_procs_fail(&ip->procs, "out of memory");
		goto out;
	}
	memset(buf, 'i', ip->buffer);
	for (unsigned i = 0; i < ip->streams; i++) {
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = role == WL_CLIENT ? POLLOUT : POLLIN };
	}
	while (open) {
		if (role == WL_CLIENT && __atomic_load_n(&ip->sh->stop, __ATOMIC_RELAXED))
			break;
		if (poll(pfd, ip->streams, 100) < 0 && errno != EINTR) {
			wl_procs_fail(&ip->procs, "poll: %s", strerror(errno));
			goto out;
		}
		/* like iperf3, up to 10 writes to each writable stream a round */
		for (unsigned pass = 0; pass < (role == WL_CLIENT ? 10u : 1u); pass++) {
			for (unsigned i = 0; i < ip->streams; i++) {
				ssize_t r;

				if (pfd[i].fd < 0 || !pfd[i].revents)
					continue;
				if (role == WL_CLIENT)
					r = send(pfd[i].fd, buf, ip->buffer, MSG_NOSIGNAL);
				else
					r = read(pfd[i].fd, buf, ip->buffer);
				if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
					pfd[i].revents = 0;
					continue;
				}
				if (r < 0 || (r == 0 && role == WL_CLIENT)) {
					wl_procs_fail(&ip->procs, "%s: %s", role == WL_CLIENT ?
						      "sender: write" : "receiver: read", strerror(errno));
					goto out;
				}
				if (r == 0) {
					pfd[i].fd = -1;
					open--;
					continue;
				}
				if (role == WL_SERVER) {
					bytes[i] += (uint64_t)r;
					__atomic_store_n(&ip->sh->slot[i].bytes, bytes[i], __ATOMIC_RELAXED);
				}
			}
		}
	}
	ret = 0;
out:
	free(pfd);
	free(bytes);
	return ret;
}

static int ip_side_task(struct ip *ip, int role, int fd, char *buf)
{
	int *fds = malloc(ip->streams * sizeof(*fds));
	int ret;

	if (!fds) {
		wl_procs_fail(&ip->procs, "out of memory");
		return -1;
	}
	fds[0] = fd;
	for (unsigned i = 1; i < ip->streams; i++)
		fds[i] = -1;
	ret = role == WL_CLIENT ? ip_side_connect(ip, fds) : ip_side_accept(ip, fds);
	if (!ret)
		ret = ip_side_loop(ip, role, fds, buf);
	/* fds[0] is the caller's to close */
	for (unsigned i = 1; i < ip->streams; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return ret;
}

/* One forked task: the receiver or the sender of stream idx (or of all). */
static int ip_task(void *arg, int role, unsigned idx, int fd)
{
	struct ip *ip = arg;
	char *buf = malloc(ip->buffer);
	int ret;

	if (!buf) {
		wl_procs_fail(&ip->procs, "%s: out of memory", role == WL_CLIENT ? "sender" : "receiver");
		return -1;
	}
	if (ip->one_per_side)
		ret = ip_side_task(ip, role, fd, buf);
	else if (role == WL_CLIENT)
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
	uint64_t t_start, t_end, bytes0, bytes1;
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
	if (!ctx->totals || ctx->totals->tasks != 2ull * ip->procs.nr_pairs)
		return 0;
	/* counted over the tasks' whole lives, so per second of those; the
	 * count itself is the tasks counter's, not a second metric */
	wl_metric(ctx, "migrations_per_s", "1/s",
		  (double)ctx->totals->nr_migrations / ((double)(t_end - t_start) / 1e9), 0);
	return 0;
}

static int ip_run(struct wl_ctx *ctx)
{
	struct ip ip = {
		.ctx = ctx,
		.streams = (unsigned)wl_int(ctx->args, "streams"),
		.one_per_side = !strcmp(wl_str(ctx->args, "tasks"), "side"),
		.buffer = (size_t)wl_int(ctx->args, "buffer"),
		.procs = { .done = { -1, -1 }, .comm = "iperf" },
	};
	int ret;

	ip.sh = wl_procs_init(&ip.procs, ctx, ip.one_per_side ? 1 : ip.streams, "streams",
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
	{ "tasks", WL_STR, 0, 0, "stream", "stream|side",
	  "a sender and a receiver process per stream (iperf3 3.16+), or one per side for all (iperf3 3.12)" },
	{ .name = NULL },
};

const struct workload_ops workload_iperf = {
	.name = "iperf",
	.description = "bulk TCP streams over loopback (iperf); Gbit/s and sender/receiver migrations per second",
	.options = ip_options,
	.run = ip_run,
};
