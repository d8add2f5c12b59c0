/* test-warm.c - unit tests of the warm start: host-tools/run/warm.c (key,
 * plan frame, park prefix), guest/runner/park.c (the frame read back) and
 * host-tools/run/cache.c (listing and LRU pruning on a temporary cache). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/wire.h"
#include "run/cache.h"
#include "run/warm.h"
#include "runner/park.h"
#include "topo/topo.h"

static char dir[64];

static void put_file(const char *path, size_t len, time_t when)
{
	struct timespec ts[2] = { { when, 0 }, { when, 0 } };
	char *buf = calloc(1, len ? len : 1);
	int fd;

	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-warm-XXXXXX");
	assert_non_null(mkdtemp(dir));
	setenv("LAB_CACHE", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(dir);
	return 0;
}

struct key_fixture {
	struct topo topo;
	struct backend_conf conf;
	char kernel[128], initrd[128];
};

static void key_fixture_init(struct key_fixture *f, const char *spec, const char *cmdline)
{
	struct strbuf err = STRBUF_INIT;

	memset(f, 0, sizeof(*f));
	assert_int_equal(topo_parse(spec, &f->topo, &err), 0);
	snprintf(f->kernel, sizeof(f->kernel), "%s/vmlinux", dir);
	snprintf(f->initrd, sizeof(f->initrd), "%s/initrd.cpio", dir);
	f->conf.topo = &f->topo;
	f->conf.accel = ACCEL_TCG;
	f->conf.kernel = f->kernel;
	f->conf.initrd = f->initrd;
	f->conf.cmdline = cmdline;
	f->conf.name = "schedlab-1";
	strbuf_release(&err);
}

static void key_of(const char *spec, const char *cmdline, const char *qver, char key[WARM_KEY_HEX])
{
	struct key_fixture f;
	struct strbuf err = STRBUF_INIT;

	key_fixture_init(&f, spec, cmdline);
	assert_int_equal(warm_key(&f.conf, "qemu", qver, key, &err), 0);
	strbuf_release(&err);
}

static void test_key(void **state)
{
	char a[WARM_KEY_HEX], b[WARM_KEY_HEX];
	char path[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	put_file(path, 4096, 1000);
	snprintf(path, sizeof(path), "%s/initrd.cpio", dir);
	put_file(path, 1024, 1000);

	key_of("1s4c2t", "console=ttyS0 lpj=4000000 lab.mode=warm", "QEMU 7.2", a);
	assert_int_equal(strlen(a), 64);
	/* lpj= is measured anew each run: not part of the key */
	key_of("1s4c2t", "console=ttyS0 lpj=4000123 lab.mode=warm", "QEMU 7.2", b);
	assert_string_equal(a, b);
	/* a variant on the command line, a topology, QEMU: each a new key */
	key_of("1s4c2t", "console=ttyS0 lpj=4000000 lab.mode=warm nosmt", "QEMU 7.2", b);
	assert_string_not_equal(a, b);
	key_of("2s2c2t", "console=ttyS0 lpj=4000000 lab.mode=warm", "QEMU 7.2", b);
	assert_string_not_equal(a, b);
	key_of("1s4c2t", "console=ttyS0 lpj=4000000 lab.mode=warm", "QEMU 8.0", b);
	assert_string_not_equal(a, b);
	/* a changed initrd too */
	snprintf(path, sizeof(path), "%s/initrd.cpio", dir);
	put_file(path, 1025, 1000);
	key_of("1s4c2t", "console=ttyS0 lpj=4000000 lab.mode=warm", "QEMU 7.2", b);
	assert_string_not_equal(a, b);
}

static void test_key_missing_kernel(void **state)
{
	struct key_fixture f;
	struct strbuf err = STRBUF_INIT;
	char key[WARM_KEY_HEX];

	(void)state;
	key_fixture_init(&f, "1s2c", "console=ttyS0");
	snprintf(f.kernel, sizeof(f.kernel), "%s/no-such-kernel", dir);
	assert_int_equal(warm_key(&f.conf, "qemu", "QEMU 7.2", key, &err), -1);
	assert_non_null(strstr(err.buf, "no-such-kernel"));
	strbuf_release(&err);
}

static void test_key_text_drops_name(void **state)
{
	struct key_fixture f;
	struct strbuf t = STRBUF_INIT;

	(void)state;
	key_fixture_init(&f, "1s2c", "a lpj=5 b");
	warm_key_text(&f.conf, "qemu", "QEMU 7.2", &t);
	assert_null(strstr(t.buf, "schedlab-1"));
	assert_null(strstr(t.buf, "lpj="));
	assert_non_null(strstr(t.buf, "arg a b\n"));
	strbuf_release(&t);
}

/* a libvirt save image restores only through the libvirtd that wrote it */
static void test_key_text_libvirt_uri(void **state)
{
	struct key_fixture f;
	struct strbuf q = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;

	(void)state;
	key_fixture_init(&f, "1s2c", "console=ttyS0");
	f.conf.uri = "qemu:///system";
	warm_key_text(&f.conf, "qemu", "QEMU 7.2", &q);
	assert_null(strstr(q.buf, "uri "));
	warm_key_text(&f.conf, "libvirt", "QEMU 7.2", &a);
	assert_non_null(strstr(a.buf, "backend libvirt\n"));
	assert_non_null(strstr(a.buf, "uri qemu:///system\n"));
	f.conf.uri = "qemu:///session";
	warm_key_text(&f.conf, "libvirt", "QEMU 7.2", &b);
	assert_non_null(strstr(b.buf, "uri qemu:///session\n"));
	assert_string_not_equal(a.buf, b.buf);
	strbuf_release(&q);
	strbuf_release(&a);
	strbuf_release(&b);
}

static int on_frame(const struct wire_record *rec, void *ctx)
{
	struct park_header *h = ctx;
	char err[128];
	static char copy[4096];

	assert_int_equal(rec->type, WIRE_PLAN);
	assert_true(rec->len < sizeof(copy));
	memcpy(copy, rec->payload, rec->len);
	assert_int_equal(park_header_parse(copy, rec->len, h, err, sizeof(err)), 0);
	return 0;
}

/* What the host frames, the guest reads back: seed, clock, plan. */
static void test_plan_frame_round_trip(void **state)
{
	static const char plan[] = "case a\nworkload hackbench\n";
	struct warm w;
	struct strbuf err = STRBUF_INIT;
	struct wire_decoder d;
	struct park_header h;
	struct timespec now;

	(void)state;
	warm_init(&w, "k");
	assert_int_equal(warm_plan_frame(&w, plan, strlen(plan), 0, NULL, &err), 0);
	wire_decoder_init(&d);
	memset(&h, 0, sizeof(h));
	wire_decoder_feed(&d, w.plan_frame.buf, w.plan_frame.len, on_frame, &h);
	assert_int_equal(d.records, 1);
	assert_int_equal(h.plan_len, strlen(plan));
	assert_memory_equal(h.plan, plan, h.plan_len);
	clock_gettime(CLOCK_REALTIME, &now);
	assert_true(h.realtime_s <= now.tv_sec && h.realtime_s + 5 >= now.tv_sec);
	assert_null(h.sched_feat);
	assert_null(h.sched_knob);
	wire_decoder_release(&d);
	/* what a warm run sets after the restore, then the plan as before */
	assert_int_equal(warm_plan_frame(&w, plan, strlen(plan), 7,
					 "sched_feat=NO_NEXT_BUDDY,WA_IDLE\nsched_knob=base_slice_ns=3000000\n",
					 &err), 0);
	wire_decoder_init(&d);
	memset(&h, 0, sizeof(h));
	wire_decoder_feed(&d, w.plan_frame.buf, w.plan_frame.len, on_frame, &h);
	assert_int_equal(d.records, 1);
	assert_int_equal(h.sched_feat_len, strlen("NO_NEXT_BUDDY,WA_IDLE"));
	assert_memory_equal(h.sched_feat, "NO_NEXT_BUDDY,WA_IDLE", h.sched_feat_len);
	assert_int_equal(h.sched_knob_len, strlen("base_slice_ns=3000000"));
	assert_memory_equal(h.sched_knob, "base_slice_ns=3000000", h.sched_knob_len);
	assert_int_equal(h.plan_len, strlen(plan));
	assert_memory_equal(h.plan, plan, h.plan_len);
	assert_true(h.realtime_s == 0 && h.realtime_ns == 0);
	wire_decoder_release(&d);
	warm_release(&w);
	strbuf_release(&err);
}

static void test_park_header_bad(void **state)
{
	static const char *const bad[] = {
		"",
		"seed=00\nrealtime=1.000000000\n\nplan",
		"seed=" "00000000000000000000000000000000000000000000000000000000000000zz"
		"\nrealtime=1.000000000\n\n",
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=1.5\n\n",
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=1.000000000\nplan",
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=-1.000000000\n\n",
		/* the lines a warm run sets: each once, not empty, ended */
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=1.000000000\nsched_feat=A\nsched_feat=B\n\n",
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=1.000000000\nsched_knob=\n\n",
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=1.000000000\nsched_feat=A",
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=1.000000000\nsched_feat=A\n",
		"seed=" "0000000000000000000000000000000000000000000000000000000000000000"
		"\nrealtime=1.000000000\nsched_other=A\n\n",
	};
	struct park_header h;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(park_header_parse(bad[i], strlen(bad[i]), &h, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "plan header"));
	}
}

static void add_record(struct strbuf *sb, uint32_t seq, uint16_t type, const char *text)
{
	char frame[256];
	size_t n = wire_encode(seq, type, text, (uint32_t)strlen(text), frame, sizeof(frame));

	assert_true(n > 0);
	strbuf_add(sb, frame, n);
}

static void test_prefix_next_seq(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t seq = 99;

	(void)state;
	add_record(&sb, 0, WIRE_HELLO, "version=1\n");
	add_record(&sb, 1, WIRE_SYSFS, "/sys/x=1\n");
	assert_int_equal(warm_prefix_next_seq(sb.buf, sb.len, &seq), -1);
	add_record(&sb, 2, WIRE_LOG, WIRE_LOG_PARKED);
	assert_int_equal(warm_prefix_next_seq(sb.buf, sb.len, &seq), 0);
	assert_int_equal(seq, 3);
	assert_int_equal(warm_prefix_reads_fwcfg(sb.buf, sb.len), 1);
	strbuf_reset(&sb);
	/* a runner that could not read fw_cfg said so before it parked */
	add_record(&sb, 0, WIRE_HELLO, "version=1\n");
	assert_int_equal(warm_prefix_reads_fwcfg(sb.buf, sb.len), 0);
	add_record(&sb, 1, WIRE_LOG, WIRE_LOG_NO_FWCFG);
	add_record(&sb, 2, WIRE_LOG, WIRE_LOG_PARKED);
	assert_int_equal(warm_prefix_next_seq(sb.buf, sb.len, &seq), 0);
	assert_int_equal(seq, 3);
	assert_int_equal(warm_prefix_reads_fwcfg(sb.buf, sb.len), 0);
	strbuf_release(&sb);
}

static void make_entry(const char *rel, size_t len, time_t when)
{
	char path[256], *slash;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	assert_int_equal(mkdir_p(path, 0755), 0);
	*slash = '/';
	put_file(path, len, when);
}

static void test_cache_list_and_prune(void **state)
{
	struct cache_list l = CACHE_LIST_INIT, removed = CACHE_LIST_INIT;
	struct strbuf err = STRBUF_INIT;
	char path[256];

	(void)state;
	make_entry("kernels/debian/linux-image-x/vmlinux", 200000, 1000);
	make_entry("kernels/debian/resolved", 10, 5000);
	make_entry("initrd/aaaa.cpio", 100000, 3000);
	make_entry("snapshots/k1/state.zst", 300000, 2000);
	make_entry("snapshots/k1/last-use", 0, 4000);
	make_entry("snapshots/.tmp-k2-1/state.zst", 50000, 100);
	make_entry("tmp/scratch", 50000, 100);

	assert_int_equal(cache_list(dir, &l, &err), 0);
	assert_int_equal(l.nr, 3);
	/* least recently used first; a snapshot's use is its last-use stamp */
	assert_string_equal(l.v[0].kind, "kernel");
	assert_string_equal(l.v[0].name, "kernels/debian/linux-image-x");
	assert_string_equal(l.v[1].kind, "initrd");
	assert_string_equal(l.v[2].kind, "snapshot");
	assert_int_equal(l.v[2].last_use, 4000);
	assert_true(l.v[0].bytes >= 200000);
	cache_list_release(&l);

	/* room for the two newest: the kernel goes */
	assert_int_equal(cache_prune(dir, 450000, &removed, &err), 0);
	assert_int_equal(removed.nr, 1);
	assert_string_equal(removed.v[0].name, "kernels/debian/linux-image-x");
	snprintf(path, sizeof(path), "%s/kernels/debian/linux-image-x", dir);
	assert_int_equal(access(path, F_OK), -1);
	cache_list_release(&removed);

	/* nothing may stay: scratch and a snapshot being written do */
	assert_int_equal(cache_prune(dir, 0, &removed, &err), 0);
	assert_int_equal(removed.nr, 2);
	snprintf(path, sizeof(path), "%s/snapshots/.tmp-k2-1/state.zst", dir);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/tmp/scratch", dir);
	assert_int_equal(access(path, F_OK), 0);
	cache_list_release(&removed);
	strbuf_release(&err);
}

static void test_cache_missing_root(void **state)
{
	struct cache_list l = CACHE_LIST_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(cache_list("/nonexistent/schedlab-cache", &l, &err), 0);
	assert_int_equal(l.nr, 0);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_missing_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_text_drops_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_text_libvirt_uri, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_frame_round_trip, setup, teardown),
		cmocka_unit_test(test_park_header_bad),
		cmocka_unit_test(test_prefix_next_seq),
		cmocka_unit_test_setup_teardown(test_cache_list_and_prune, setup, teardown),
		cmocka_unit_test(test_cache_missing_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
