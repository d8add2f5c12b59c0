/* test-workloads.c - the numa, sysbench_cpu, vector_hog and exec workloads:
 * their pure parts (layouts, prime counts, flop counts, patterns) and runs. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "wl-harness.h"
#include "../../guest/runner/histogram.h"
#include "../../guest/runner/workloads/exec.h"
#include "../../guest/runner/workloads/numa.h"
#include "../../guest/runner/workloads/sysbench_cpu.h"
#include "../../guest/runner/workloads/vector_hog.h"
#include "../../guest/runner/wlslice.h"
#include "common/kversion.h"

/* ---- sysbench_cpu ---- */

/*
 * An event counts the primes in [3, max_prime): pi(max_prime - 1) - 1.
 * pi(100) = 25 and pi(10000) = 1229 (OEIS A006880), pi(7) = 4 by hand.
 */
static void test_sysbench_event(void **state)
{
	assert_int_equal(sb_cpu_event(3), 0);
	assert_int_equal(sb_cpu_event(4), 1);
	assert_int_equal(sb_cpu_event(8), 3);
	assert_int_equal(sb_cpu_event(101), 24);
	assert_int_equal(sb_cpu_event(10000), 1228);
}

static void test_sysbench_run(void **state)
{
	struct wl_ctx ctx;
	double ev, avg, p95;

	assert_int_equal(harness_run(&ctx, &workload_sysbench_cpu, 30,
					     "runtime", "1", "max_prime", "2000", NULL), 0);
	ev = harness_metric(&ctx, "events_s")->value;
	avg = harness_metric(&ctx, "latency_avg")->value;
	p95 = harness_metric(&ctx, "latency_p95")->value;
	assert_true(ev > 10);
	assert_true(avg > 0 && p95 > 0);
	/* one thread busy all the time: events/s x seconds per event ~ 1 */
	assert_true(ev * avg / 1000 > 0.8 && ev * avg / 1000 < 1.05);
	assert_int_equal(harness_metric(&ctx, "latency_p95")->higher_is_better, 0);
	assert_tasks_done(1);

	/* runtime beyond the deadline: stops at the deadline and says so */
	assert_int_equal(harness_run(&ctx, &workload_sysbench_cpu, 1,
					     "runtime", "5", "threads", "2", NULL), -1);
	assert_non_null(strstr(ctx.error, "deadline passed"));
	assert_tasks_done(2);
}

/* ---- hackbench ---- */

/* Every task of both modes ends through wl_task_done(): counted, tids listed. */
static void test_hackbench_tasks(void **state)
{
	static const char *const modes[] = { "process", "thread" };
	struct wl_ctx ctx;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(harness_run(&ctx, &workload_hackbench, 30, "groups", "1", "fds", "3",
					     "loops", "5", "mode", modes[i], NULL), 0);
		assert_tasks_done(6);
	}
}

/* ---- vector_hog ---- */

static void test_hog_kernels(void **state)
{
	double sink = 0;

	/* 12 accumulators x 2 lanes x (multiply + add) per iteration */
	assert_int_equal(hog_sse(1000, &sink), 1000 * 12 * 2 * 2);
	/* the accumulators start at 1.000..1.011 and drift towards 1.0 */
	assert_true(sink > 12.0 && sink < 12.2);
	if (hog_cpu_has(HOG_AVX2)) {
		sink = 0;
		assert_int_equal(hog_avx2(1000, &sink), 1000 * 12 * 4 * 2);
		assert_true(sink > 12.0 && sink < 12.2);
	}
	if (hog_cpu_has(HOG_AVX512)) {
		sink = 0;
		assert_int_equal(hog_avx512(1000, &sink), 1000 * 12 * 8 * 2);
		/* eight lanes reduced: 8x the sum of one lane */
		assert_true(sink > 96.0 && sink < 97.0);
	}
}

static void test_hog_run(void **state)
{
	struct wl_ctx ctx;
	double bits;

	assert_int_equal(harness_run(&ctx, &workload_vector_hog, 30, "runtime", "1", NULL), 0);
	assert_true(harness_metric(&ctx, "gflops")->value > 0.01);
	bits = harness_metric(&ctx, "vector_bits")->value;
	assert_true(bits == 128 || bits == 256 || bits == 512);
	assert_int_equal(bits == 512, hog_cpu_has(HOG_AVX512));
	assert_tasks_done(1);

	assert_int_equal(harness_run(&ctx, &workload_vector_hog, 30,
					     "runtime", "1", "kind", "sse", "threads", "2", NULL), 0);
	assert_true(harness_metric(&ctx, "vector_bits")->value == 128);
	assert_tasks_done(2);

	if (!hog_cpu_has(HOG_AVX512)) {
		assert_int_equal(harness_run(&ctx, &workload_vector_hog, 30,
						     "kind", "avx512", NULL), -1);
		assert_non_null(strstr(ctx.error, "does not support 'avx512'"));
	}
}

/* ---- numa ---- */

static void test_numa_slices(void **state)
{
	size_t off, len, next = 0;

	for (unsigned i = 0; i < 3; i++) {
		numa_slice(10 * 4096 + 100, 4096, i, 3, &off, &len);
		assert_int_equal(off, next);
		assert_int_equal(off % 4096, 0);
		assert_int_equal(len % 4096, 0);
		assert_true(len >= 3 * 4096);
		next = off + len;
	}
	/* whole pages only: the 100-byte tail belongs to nobody */
	assert_int_equal(next, 10 * 4096);
}

static void test_numa_maps_line(void **state)
{
	uint64_t pages[4];
	uintptr_t start;

	assert_int_equal(numa_maps_parse("7f2a3c000000 default anon=8192 dirty=8192 active=0 "
					 "N0=6000 N1=2192 kernelpagesize_kB=4\n", 4096, &start, pages, 4), 0);
	assert_true(start == 0x7f2a3c000000ull);
	assert_int_equal(pages[0], 6000);
	assert_int_equal(pages[1], 2192);
	assert_int_equal(pages[2], 0);
	/* hugetlbfs counts huge pages: 3 of 2 MiB are 1536 pages of 4 KiB */
	assert_int_equal(numa_maps_parse("600000 default file=/dev/hugepages/x huge N3=3 "
					 "kernelpagesize_kB=2048", 4096, &start, pages, 4), 0);
	assert_int_equal(pages[3], 1536);
	/* a node beyond what we track is ignored, not written past the array */
	assert_int_equal(numa_maps_parse("1000 default N9=5 N1=1", 4096, &start, pages, 4), 0);
	assert_int_equal(pages[1], 1);
	/* an untouched mapping has no N fields */
	assert_int_equal(numa_maps_parse("1000 default", 4096, &start, pages, 4), 0);
	assert_int_equal(pages[0] + pages[1] + pages[2] + pages[3], 0);
	assert_int_equal(numa_maps_parse("N0=5 default", 4096, &start, pages, 4), -1);
	assert_int_equal(numa_maps_parse("", 4096, &start, pages, 4), -1);
}

static void test_numa_layout(void **state)
{
	struct numa_thread threads[8];
	struct numa_shared sh = { 0 };
	struct numa_job j = { .page = 4096, .nthreads = { 3, 2 }, .threads = threads, .sh = &sh };
	size_t len = 40 * 4096;

	CPU_SET(0, &j.nodes[0].cpus);
	CPU_SET(1, &j.nodes[1].cpus);

	/* seed001: set s bound to node s, its half split among its threads */
	memset(threads, 0, sizeof(threads));
	j.shape = SHAPE_SEED001;
	numa_layout(&j, len, -1);
	assert_int_equal(j.nr_threads, 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(threads[i].set, i < 3 ? 0 : 1);
		assert_ptr_equal(threads[i].bind, &j.nodes[threads[i].set].cpus);
		assert_true(threads[i].own_region);
	}
	assert_int_equal(threads[0].len + threads[1].len + threads[2].len, len / 2);
	assert_int_equal(threads[3].len + threads[4].len, len / 2);
	assert_int_equal(threads[0].len, 6 * 4096);
	assert_int_equal(threads[2].len, 7 * 4096);

	/* each region its own mapping: aligned, apart, and writable */
	assert_int_equal(numa_map_regions(&j), 0);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal((uintptr_t)threads[i].base % NUMA_ALIGN, 0);
		memset(threads[i].base, 1, threads[i].len);
		if (i)
			assert_true(threads[i].base >= threads[i - 1].base + threads[i - 1].len + 4096);
	}
	numa_unmap_regions(&j);

	/* numa02: unbound, one slice each over the whole buffer */
	memset(threads, 0, sizeof(threads));
	j.shape = SHAPE_NUMA02;
	numa_layout(&j, len, -1);
	assert_int_equal(j.nr_threads, 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_null(threads[i].bind);
		assert_int_equal(threads[i].len, 8 * 4096);
	}

	/* numa01: one process's set, every thread on all of one region */
	memset(threads, 0, sizeof(threads));
	j.shape = SHAPE_NUMA01;
	numa_layout(&j, len, 1);
	assert_int_equal(j.nr_threads, 2);
	assert_int_equal(numa_map_regions(&j), 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(threads[i].set, 1);
		assert_ptr_equal(threads[i].base, threads[0].base);
		assert_int_equal(threads[i].len, len);
		assert_null(threads[i].bind);
	}
	memset(threads[0].base, 1, len);
	numa_unmap_regions(&j);
}

/* Our own mappings through the real numa_maps: every touched page counts. */
static void test_numa_locality_here(void **state)
{
	struct numa_thread threads[3];
	struct numa_shared sh = { 0 };
	struct numa_job j = { .page = 4096, .nthreads = { 2, 1 }, .threads = threads, .sh = &sh,
			      .shape = SHAPE_NUMA02, .buf_len = 30 * 4096 };

	memset(threads, 0, sizeof(threads));
	numa_layout(&j, j.buf_len, -1);
	assert_int_equal(numa_map_regions(&j), 0);
	/* thread 0 touches all its pages, thread 1 half, thread 2 none */
	memset(threads[0].base, 1, threads[0].len);
	memset(threads[1].base, 1, threads[1].len / 2);
	for (int i = 0; i < 3; i++)
		threads[i].end_node = 0;
	if (numa_locality(&j) < 0) {
		/* kernels without NUMA have no numa_maps */
		numa_unmap_regions(&j);
		skip();
	}
	assert_int_equal(sh.pages[0], 20);
	assert_int_equal(sh.pages[1], 10);
	assert_int_equal(sh.local[0], 15);
	assert_int_equal(sh.local[1], 0);
	numa_unmap_regions(&j);
}

/* The skip reason must name what this host really has. */
static void test_numa_supported(void **state)
{
	glob_t g;
	int with_cpus = 0, ok;
	char why[128] = "", expect[128];

	if (!glob("/sys/devices/system/node/node*/cpulist", 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "r");
			int c = f ? fgetc(f) : EOF;

			if (c >= '0' && c <= '9')
				with_cpus++;
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	ok = numa_supported(why, sizeof(why));
	assert_int_equal(ok, with_cpus >= 2);
	if (!ok) {
		snprintf(expect, sizeof(expect), "needs 2 NUMA nodes with CPUs, this system has %d",
			 with_cpus < 1 ? 1 : with_cpus);
		assert_string_equal(why, expect);
	}
}

/* ---- exec ---- */

static void test_exec_split(void **state)
{
	char cmd[] = "  /usr/bin/hackbench -g 2\t-l 50 ", big[300];
	char *argv[8];

	assert_int_equal(exec_split(cmd, argv, 8), 5);
	assert_string_equal(argv[0], "/usr/bin/hackbench");
	assert_string_equal(argv[2], "2");
	assert_string_equal(argv[4], "50");
	assert_null(argv[5]);
	/* quotes are not special: no shell */
	strcpy(big, "echo 'a b'");
	assert_int_equal(exec_split(big, argv, 8), 3);
	assert_string_equal(argv[1], "'a");
	strcpy(big, "a b c d e f g h");
	assert_int_equal(exec_split(big, argv, 8), -1);
	strcpy(big, "   ");
	assert_int_equal(exec_split(big, argv, 8), 0);
}

static void test_exec_pattern(void **state)
{
	struct exec_pattern p;
	char why[200];

	assert_int_equal(exec_parse_pattern("time=Time: %f", &p, why, sizeof(why)), 0);
	assert_string_equal(p.name, "time");
	assert_string_equal(p.prefix, "Time: ");
	assert_int_equal(exec_parse_pattern("tps=tps = ", &p, why, sizeof(why)), 0);
	assert_string_equal(p.name, "tps");
	assert_string_equal(p.prefix, "tps = ");
	assert_int_equal(exec_parse_pattern("Time: 1", &p, why, sizeof(why)), -1);
	assert_int_equal(exec_parse_pattern("=x", &p, why, sizeof(why)), -1);
	assert_int_equal(exec_parse_pattern("t=", &p, why, sizeof(why)), -1);
	assert_int_equal(exec_parse_pattern("t=%f", &p, why, sizeof(why)), -1);
	assert_int_equal(exec_parse_pattern("Time=x", &p, why, sizeof(why)), -1);
	assert_int_equal(exec_parse_pattern("p-99=x", &p, why, sizeof(why)), -1);
	assert_int_equal(exec_parse_pattern(
		"a_name_that_is_far_too_long_for_a_metric_name_field=x", &p, why, sizeof(why)), -1);
}

static void test_exec_find(void **state)
{
	static const char out[] = "Running in process mode with 2 groups\n"
				  "Time: 1.5\n"
				  "progress: rate=10\n"
				  "progress: rate=12.5e1 ops\n"
				  "bin\0ary rate=3\n"
				  "Time: oops\n"
				  "tail rate=";
	double v;

	/* the last line holding the prefix wins; prefixes may sit mid-line */
	assert_int_equal(exec_find(out, sizeof(out) - 1, "Running in process mode with ", &v), 0);
	assert_true(v == 2);
	assert_int_equal(exec_find(out, sizeof(out) - 1, "Time: ", &v), -2);
	assert_int_equal(exec_find(out, 48, "Time: ", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(exec_find(out, sizeof(out) - 1, "rate=", &v), -2);
	assert_int_equal(exec_find(out, sizeof(out) - 1 - strlen("Time: oops\ntail rate="), "rate=", &v), 0);
	assert_true(v == 3);
	assert_int_equal(exec_find(out, 87, "rate=", &v), 0);
	assert_true(v == 125);
	assert_int_equal(exec_find(out, sizeof(out) - 1, "latency", &v), -1);
	assert_int_equal(exec_find("x=nan\n", 6, "x=", &v), -2);
}

static void test_exec_last_line(void **state)
{
	char line[EXEC_LINE_SHOW + 1];

	exec_last_line("a\nlast one\n\n", 12, line, sizeof(line));
	assert_string_equal(line, "last one");
	exec_last_line("", 0, line, sizeof(line));
	assert_string_equal(line, "");
	exec_last_line("x\n\tctl\x01", 7, line, sizeof(line));
	assert_string_equal(line, "?ctl?");
}

static void test_exec_out_room(void **state)
{
	struct exec_out o = { .data = malloc(EXEC_OUT_MAX) };

	assert_non_null(o.data);
	/* full: the older half goes, and what stays starts a line */
	memset(o.data, 'x', EXEC_OUT_MAX);
	for (size_t i = 99; i < EXEC_OUT_MAX; i += 100)
		o.data[i] = '\n';
	o.len = EXEC_OUT_MAX;
	exec_out_make_room(&o);
	assert_true(o.truncated);
	assert_true(o.len < EXEC_OUT_MAX / 2 + 100 && o.len > EXEC_OUT_MAX / 2 - 100);
	assert_int_equal(o.data[99], '\n');
	assert_int_equal(o.data[98], 'x');
	free(o.data);
}

static void test_exec_run(void **state)
{
	struct wl_ctx ctx;
	uint64_t t0;

	assert_int_equal(harness_run(&ctx, &workload_exec, 30, "cmd", "/bin/echo Time: 2.25 x",
		"pattern1", "time=Time: %f", "unit1", "s", NULL), 0);
	assert_true(harness_metric(&ctx, "time")->value == 2.25);
	assert_string_equal(harness_metric(&ctx, "time")->unit, "s");
	assert_int_equal(harness_metric(&ctx, "time")->higher_is_better, 0);
	assert_true(harness_metric(&ctx, "elapsed")->value > 0);

	assert_int_equal(harness_run(&ctx, &workload_exec, 30, "cmd", "/bin/echo rps: 10",
		"pattern2", "rps=rps:", "better2", "higher", NULL), 0);
	assert_true(harness_metric(&ctx, "rps")->value == 10);
	assert_int_equal(harness_metric(&ctx, "rps")->higher_is_better, 1);

	assert_int_equal(harness_run(&ctx, &workload_exec, 30,
					     "cmd", "/bin/echo nothing", "pattern1", "t=Time: ", NULL), -1);
	assert_non_null(strstr(ctx.error, "metric 't'"));

	/* non-zero exit: the code and the last line */
	assert_int_equal(harness_run(&ctx, &workload_exec, 30,
					     "cmd", "/bin/ls /nonexistent/dir", NULL), -1);
	assert_non_null(strstr(ctx.error, "exited with 2; last line: /bin/ls: cannot access"));
	assert_int_equal(harness_run(&ctx, &workload_exec, 30,
					     "cmd", "/nonexistent/prog", NULL), -1);
	assert_non_null(strstr(ctx.error, "no such file"));

	/* the deadline kills it (its whole group) and says so, promptly */
	t0 = wl_now_ns();
	assert_int_equal(harness_run(&ctx, &workload_exec, 1, "cmd", "/bin/sleep 30", NULL), -1);
	assert_non_null(strstr(ctx.error, "deadline passed"));
	assert_true(wl_now_ns() - t0 < 3000000000ull);
}

/* ---- slice_us (hackbench, schbench, exec) ---- */

static struct wl_args *slice_args(const struct workload_ops *w, const char *slice)
{
	struct wl_args *a = wl_args_new();
	char err[256];

	assert_non_null(a);
	if (slice && wl_args_set(a, w, "slice_us", slice, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	if (w == &workload_exec && wl_args_set(a, w, "cmd", "/bin/true", err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(wl_args_finish(a, w, err, sizeof(err)), 0);
	return a;
}

static void test_slice_option(void **state)
{
	const struct workload_ops *const ws[] = { &workload_hackbench, &workload_schbench, &workload_exec };
	char why[256];

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct wl_args *a = slice_args(ws[i], "300"), *none = slice_args(ws[i], NULL);
		char err[256];

		assert_true(wl_slice_ns(a) == 300000);
		assert_true(wl_slice_ns(none) == 0);
		/* the same hook on each: refused before 6.12, where it is ignored */
		assert_non_null(ws[i]->kernel_check);
		assert_int_equal(ws[i]->kernel_check(a, "6.12.118+deb12-amd64", why, sizeof(why)), 0);
		assert_int_equal(ws[i]->kernel_check(a, "7.2.13+deb14-amd64", why, sizeof(why)), 0);
		assert_int_equal(ws[i]->kernel_check(a, "6.1.0-57-amd64", why, sizeof(why)), -1);
		assert_string_equal(why, "slice_us needs Linux 6.12 or later: 6.1.0-57-amd64 ignores "
				    "sched_attr.sched_runtime of a SCHED_OTHER task");
		/* unset, any kernel; a release that does not read as one: the run tells */
		assert_int_equal(ws[i]->kernel_check(none, "6.1.0-57-amd64", why, sizeof(why)), 0);
		assert_int_equal(ws[i]->kernel_check(a, "unknown", why, sizeof(why)), 0);
		/* the kernel's clamp, 0.1 to 100 ms */
		assert_int_equal(wl_args_set(none, ws[i], "slice_us", "99", err, sizeof(err)), -1);
		assert_int_equal(wl_args_set(none, ws[i], "slice_us", "100001", err, sizeof(err)), -1);
		wl_args_free(a);
		wl_args_free(none);
	}
}

/* The check reads what each task's /proc/<pid>/sched said at its end. */
static void test_slice_verify(void **state)
{
	struct wl_task_totals t;
	struct wl_ctx ctx;

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&ctx, 0, sizeof(ctx));
	ctx.totals = &t;
	wl_slice_note(&t, "se.avg.util_est   :   389\nse.slice   :   300000\n");
	wl_slice_note(&t, "policy : 0\nse.slice : 300000\nclock-delta : 1\n");
	assert_true(t.slice_ns_min == 300000 && t.slice_ns_max == 300000);
	assert_int_equal(wl_slice_verify(&ctx, 300000), 0);
	assert_int_equal(ctx.nr_counters, 1);
	assert_string_equal(ctx.counters[0].name, "slice_us");
	assert_true(ctx.counters[0].value == 300);
	/* one task at the base slice: not in effect */
	wl_slice_note(&t, "se.slice : 2800000\n");
	assert_int_equal(wl_slice_verify(&ctx, 300000), -1);
	assert_string_equal(ctx.error, "slice_us=300 not in effect: the tasks ran with se.slice 300..2800 us");
	/* a kernel without the line (6.1): nothing to go by */
	memset(&t, 0, sizeof(t));
	wl_slice_note(&t, "policy : 0\nprio : 120\n");
	assert_int_equal(wl_slice_verify(&ctx, 300000), -1);
	assert_non_null(strstr(ctx.error, "show no se.slice"));
	/* not asked: nothing checked */
	assert_int_equal(wl_slice_verify(&ctx, 0), 0);
}

/* On a 6.12+ host the slice is set for real and read back by the kernel's
 * /proc/<pid>/sched: the exec command and hackbench's tasks. */
static void test_slice_run(void **state)
{
	struct wl_ctx ctx;
	struct utsname u;

	(void)state;
	assert_int_equal(uname(&u), 0);
	if (kversion_at_least(u.release, WL_SLICE_SINCE) != 1 || access("/proc/self/sched", R_OK) < 0)
		skip();
	assert_int_equal(harness_run(&ctx, &workload_exec, 30, "cmd", "/bin/true", "slice_us", "300",
				     NULL), 0);
	assert_true(harness_totals.slice_ns_min == 300000 && harness_totals.slice_ns_max == 300000);
	assert_int_equal(harness_run(&ctx, &workload_hackbench, 30, "groups", "1", "fds", "2", "loops", "5",
				     "mode", "thread", "slice_us", "2000", NULL), 0);
	assert_true(harness_totals.slice_ns_min == 2000000 && harness_totals.slice_ns_max == 2000000);
	assert_int_equal(ctx.nr_counters, 1);
	assert_true(ctx.counters[0].value == 2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysbench_event),
		cmocka_unit_test(test_sysbench_run),
		cmocka_unit_test(test_hackbench_tasks),
		cmocka_unit_test(test_hog_kernels),
		cmocka_unit_test(test_hog_run),
		cmocka_unit_test(test_numa_slices),
		cmocka_unit_test(test_numa_maps_line),
		cmocka_unit_test(test_numa_layout),
		cmocka_unit_test(test_numa_locality_here),
		cmocka_unit_test(test_numa_supported),
		cmocka_unit_test(test_exec_split),
		cmocka_unit_test(test_exec_pattern),
		cmocka_unit_test(test_exec_find),
		cmocka_unit_test(test_exec_last_line),
		cmocka_unit_test(test_exec_out_room),
		cmocka_unit_test(test_exec_run),
		cmocka_unit_test(test_slice_option),
		cmocka_unit_test(test_slice_verify),
		cmocka_unit_test(test_slice_run),
	};

	/* the exec tests start children; none may be left over */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
