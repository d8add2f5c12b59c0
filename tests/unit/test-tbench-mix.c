/* test-tbench-mix.c - the tbench workload's request mix, its wire header,
 * its client and server loops over a real socketpair, and whole runs. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl-harness.h"
#include "../../guest/runner/workloads/tbench.h"

static void test_mix_shape(void **state)
{
	int big = 0, small = 0;

	(void)state;
	assert_true(TB_MIX_LEN >= 8);
	for (size_t i = 0; i < TB_MIX_LEN; i++) {
		/* small requests, replies of 50 bytes .. 64 KiB (the brief) */
		assert_in_range(tb_mix[i].request, 100, 200);
		assert_in_range(tb_mix[i].reply, 50, 65536);
		assert_true(tb_mix[i].request >= TB_HDR);
		big += tb_mix[i].reply == 65536;
		small += tb_mix[i].reply <= 64;
	}
	assert_true(big >= 1);
	assert_true(small >= 1);
}

/*
 * Only ReadX moves file data, all of its reply; a cycle moves as much
 * data an operation as Debian's client.txt (2488062937 bytes of ReadX and
 * WriteX data in 458344 lines: 5428 an operation) within 2 %.
 */
static void test_mix_data(void **state)
{
	uint64_t data = 0;

	(void)state;
	for (size_t i = 0; i < TB_MIX_LEN; i++) {
		if (!strcmp(tb_mix[i].name, "ReadX"))
			assert_int_equal(tb_mix[i].data, tb_mix[i].reply);
		else
			assert_int_equal(tb_mix[i].data, 0);
		data += tb_mix[i].data;
	}
	assert_in_range(data * 1000 / TB_MIX_LEN, 5428 * 980, 5428 * 1020);
}

static void test_header_layout(void **state)
{
	const struct tb_op op = { "x", 160, 65536, 65536 };
	/* little-endian u32 160 then u32 65536, worked out by hand */
	const unsigned char want[TB_HDR] = { 0xa0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00 };
	unsigned char buf[TB_HDR];
	uint32_t req, rep;

	(void)state;
	tb_encode(buf, &op);
	assert_memory_equal(buf, want, TB_HDR);
	assert_int_equal(tb_decode(buf, &req, &rep), 0);
	assert_int_equal(req, 160);
	assert_int_equal(rep, 65536);
	for (size_t i = 0; i < TB_MIX_LEN; i++) {
		tb_encode(buf, &tb_mix[i]);
		assert_int_equal(tb_decode(buf, &req, &rep), 0);
		assert_int_equal(req, tb_mix[i].request);
		assert_int_equal(rep, tb_mix[i].reply);
	}
}

static void test_header_rejects(void **state)
{
	static const struct tb_op bad[] = {
		{ "short", 7, 100, 0 }, { "huge request", TB_MAX_REQUEST + 1, 100, 0 },
		{ "no reply", 100, 0, 0 }, { "huge reply", 100, TB_MAX_REPLY + 1, 0 },
		{ "garbage", 0xffffffffu, 0xffffffffu, 0 },
	};
	unsigned char buf[TB_HDR];
	uint32_t req = 1234, rep = 5678;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tb_encode(buf, &bad[i]);
		assert_int_equal(tb_decode(buf, &req, &rep), -1);
	}
	/* a rejected header leaves the outputs alone */
	assert_int_equal(req, 1234);
	assert_int_equal(rep, 5678);
}

struct server_arg {
	int fd;
	int ret;
	char why[256];
};

static void *server_thread(void *p)
{
	struct server_arg *a = p;
	unsigned char *buf = malloc(TB_MAX_REPLY);

	a->ret = buf ? tb_serve(a->fd, buf, a->why, sizeof(a->why)) : -2;
	free(buf);
	close(a->fd);
	return NULL;
}

static void start_server(int sv[2], struct server_arg *a, pthread_t *tid)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	*a = (struct server_arg){ .fd = sv[1], .ret = 99 };
	assert_int_equal(pthread_create(tid, NULL, server_thread, a), 0);
}

/* The server answers each request with exactly the reply size asked for. */
static void test_server_reply_sizes(void **state)
{
	unsigned char *buf = malloc(TB_MAX_REPLY + 1);
	struct server_arg a;
	pthread_t tid;
	int sv[2];

	(void)state;
	assert_non_null(buf);
	start_server(sv, &a, &tid);
	for (size_t i = 0; i < TB_MIX_LEN; i++) {
		struct pollfd pfd = { .fd = sv[0], .events = POLLIN };
		size_t got = 0;

		tb_encode(buf, &tb_mix[i]);
		memset(buf + TB_HDR, 'q', tb_mix[i].request - TB_HDR);
		assert_int_equal(write(sv[0], buf, tb_mix[i].request), tb_mix[i].request);
		while (got < tb_mix[i].reply) {
			ssize_t r = read(sv[0], buf, TB_MAX_REPLY + 1);

			assert_true(r > 0);
			got += (size_t)r;
		}
		assert_int_equal(got, tb_mix[i].reply);
		/* and not one byte more */
		assert_int_equal(poll(&pfd, 1, 20), 0);
	}
	shutdown(sv[0], SHUT_WR);
	pthread_join(tid, NULL);
	assert_int_equal(a.ret, 0);
	close(sv[0]);
	free(buf);
}

static void test_server_rejects_bad_and_short(void **state)
{
	const struct tb_op bad = { "bad", 100, 0, 0 }, ok = { "ok", 150, 50, 0 };
	unsigned char buf[TB_HDR];
	struct server_arg a;
	pthread_t tid;
	int sv[2];

	(void)state;
	start_server(sv, &a, &tid);
	tb_encode(buf, &bad);
	assert_int_equal(write(sv[0], buf, TB_HDR), TB_HDR);
	pthread_join(tid, NULL);
	assert_int_equal(a.ret, -1);
	assert_string_equal(a.why, "server: bad request header");
	close(sv[0]);

	/* end of stream in the middle of a request is an error, not the end */
	start_server(sv, &a, &tid);
	tb_encode(buf, &ok);
	assert_int_equal(write(sv[0], buf, TB_HDR), TB_HDR);
	shutdown(sv[0], SHUT_WR);
	pthread_join(tid, NULL);
	assert_int_equal(a.ret, -1);
	assert_string_equal(a.why, "server: short request");
	close(sv[0]);
}

struct client_arg {
	struct tb *tb;
	unsigned idx;
	int fd;
	int ret;
};

static void *client_thread(void *p)
{
	struct client_arg *c = p;
	unsigned char *buf = malloc(TB_MAX_REPLY);

	c->ret = tb_client(c->tb, c->idx, c->fd, buf);
	free(buf);
	shutdown(c->fd, SHUT_WR);
	return NULL;
}

/*
 * The client's byte count is what the mix says for the operations it
 * did, starting from its own offset into the cycle.  The expectation is
 * summed here from the table, op by op, independently of the client.
 */
static void test_client_accounting(void **state)
{
	struct tb_shared *sh = calloc(1, sizeof(*sh) + 8 * sizeof(sh->slot[0]));
	struct wl_procs_note note = { 0 };
	struct tb tb = { .clients = 8, .sh = sh, .procs = { .note = &note } };
	struct server_arg a;
	struct client_arg c = { .tb = &tb, .idx = 5 };
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	pthread_t stid, ctid;
	uint64_t want = 0, want_data = 0;
	int sv[2];

	(void)state;
	assert_non_null(sh);
	start_server(sv, &a, &stid);
	c.fd = sv[0];
	assert_int_equal(pthread_create(&ctid, NULL, client_thread, &c), 0);
	/* until the client went round the mix once, 20 s at most: a fixed
	 * 50 ms was too short on a host busy with guests */
	for (int i = 0; i < 400 && __atomic_load_n(&sh->slot[5].ops, __ATOMIC_RELAXED) <= TB_MIX_LEN; i++)
		nanosleep(&ts, NULL);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	pthread_join(ctid, NULL);
	pthread_join(stid, NULL);
	assert_int_equal(c.ret, 0);
	assert_int_equal(a.ret, 0);
	assert_int_equal(note.failed, 0);
	assert_true(sh->slot[5].ops > TB_MIX_LEN);   /* went round the cycle */
	for (uint64_t i = 0; i < sh->slot[5].ops; i++) {
		const struct tb_op *op = &tb_mix[(5 + i) % TB_MIX_LEN];

		want += op->request + op->reply;
		want_data += op->data;
	}
	assert_int_equal(sh->slot[5].bytes, want);
	assert_int_equal(sh->slot[5].data, want_data);
	/* other slots untouched */
	assert_int_equal(sh->slot[4].ops, 0);
	assert_int_equal(sh->slot[6].bytes, 0);
	close(sv[0]);
	free(sh);
}

/* A server that goes away makes the client fail with a reason. */
static void test_client_sees_dead_server(void **state)
{
	struct tb_shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct wl_procs_note note = { 0 };
	struct tb tb = { .clients = 1, .sh = sh, .procs = { .note = &note } };
	unsigned char *buf = malloc(TB_MAX_REPLY);
	int sv[2];

	(void)state;
	assert_true(sh != MAP_FAILED);
	assert_non_null(buf);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	assert_int_equal(tb_client(&tb, 0, sv[0], buf), -1);
	assert_int_equal(note.failed, 1);
	assert_non_null(strstr(note.error, "client: "));
	close(sv[0]);
	free(buf);
	munmap(sh, 4096);
}

/* No child of a run may be left over, not even a zombie. */
static void assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* Whole runs: a server and a client process per connection over loopback. */
static void test_run(void **state)
{
	struct wl_ctx ctx;
	uint64_t t0;

	(void)state;
	assert_int_equal(harness_run(&ctx, &workload_tbench, 30, "clients", "2", "runtime", "1",
				     "warmup", "0", NULL), 0);
	assert_string_equal(ctx.error, "");
	assert_true(harness_metric(&ctx, "mb_s")->value > 0);
	assert_true(harness_metric(&ctx, "ops_s")->value > 0);
	/* the data is part of what crosses the wire */
	assert_true(harness_metric(&ctx, "wire_mb_s")->value > harness_metric(&ctx, "mb_s")->value);
	assert_int_equal(harness_metric(&ctx, "ops_s")->higher_is_better, 1);
	assert_tasks_done(4);
	assert_no_children();

	/* the deadline stops it, kills and reaps every task, promptly */
	t0 = wl_now_ns();
	assert_int_equal(harness_run(&ctx, &workload_tbench, 1, "clients", "3", "runtime", "30",
				     NULL), -1);
	assert_string_equal(ctx.error, "deadline passed");
	assert_true(wl_now_ns() - t0 < 3000000000ull);
	assert_no_children();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_shape),
		cmocka_unit_test(test_mix_data),
		cmocka_unit_test(test_header_layout),
		cmocka_unit_test(test_header_rejects),
		cmocka_unit_test(test_server_reply_sizes),
		cmocka_unit_test(test_server_rejects_bad_and_short),
		cmocka_unit_test(test_client_accounting),
		cmocka_unit_test(test_client_sees_dead_server),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
