/* test-schbench.c - the schbench workload's parts that make it measure what
 * masoncl/schbench measures: samples, the spun per-CPU lock, the multiply. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <string.h>

#include "wl-harness.h"
#include "../../guest/runner/histogram.c"
#include "../../guest/runner/workloads/schbench.c"

/* Whole microseconds as gettimeofday() gives them; a 0 us delta is no sample. */
static void test_sample(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	sb_sample(&h, 100, 100);
	sb_sample(&h, 100, 99);
	assert_int_equal(h.count, 0);
	sb_sample(&h, 100, 101);
	sb_sample(&h, 5, 5005);
	assert_int_equal(h.count, 2);
	assert_int_equal(h.min, 1000);
	assert_int_equal(h.max, 5000000);
}

/* The sum lands in m3 and a second multiply starts it from 0 again. */
static void test_multiply(void **state)
{
	unsigned long m[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9 };
	const unsigned long want[4] = { 19, 22, 43, 50 };

	(void)state;
	sb_matrix_multiply(m, 2);
	assert_memory_equal(m + 8, want, sizeof(want));
	sb_matrix_multiply(m, 2);
	assert_memory_equal(m + 8, want, sizeof(want));
	/* the sources are only read */
	assert_int_equal(m[0], 1);
	assert_int_equal(m[7], 8);
}

/* Pinned to one CPU: we get that CPU's lock, held, the others free. */
static void test_lock_this_cpu(void **state)
{
	struct sb_lock locks[4];
	struct sb sb = { .locks = locks, .nr_locks = 4 };
	cpu_set_t old, one;
	struct sb_lock *l;
	int cpu;

	(void)state;
	for (unsigned i = 0; i < 4; i++)
		pthread_mutex_init(&locks[i].m, NULL);
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	cpu = sched_getcpu();
	assert_true(cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	l = sb_lock_this_cpu(&sb);
	assert_ptr_equal(l, &locks[cpu % 4]);
	assert_int_not_equal(pthread_mutex_trylock(&l->m), 0);
	for (unsigned i = 0; i < 4; i++) {
		if (&locks[i] == l)
			continue;
		assert_int_equal(pthread_mutex_trylock(&locks[i].m), 0);
		pthread_mutex_unlock(&locks[i].m);
	}
	pthread_mutex_unlock(&l->m);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
}

/* A short run: every metric, requests at least as long as their sleep. */
static void test_run(void **state)
{
	struct wl_ctx ctx;

	(void)state;
	assert_int_equal(harness_run(&ctx, &workload_schbench, 30, "message_threads", "1",
				     "workers", "2", "runtime", "1", "warmup", "0",
				     "footprint", "32K", "sleep_us", "200", NULL), 0);
	assert_true(harness_metric(&ctx, "rps")->value > 10);
	assert_true(harness_metric(&ctx, "wakeup_p99")->value > 0);
	assert_true(harness_metric(&ctx, "request_p50")->value >= 200);
	assert_true(harness_metric(&ctx, "request_p99")->value >=
		    harness_metric(&ctx, "request_p50")->value);
	assert_tasks_done(3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_multiply),
		cmocka_unit_test(test_lock_this_cpu),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
