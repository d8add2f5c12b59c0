/* test-iperf.c - the iperf workload: a process per stream end (iperf3
 * 3.16+) or one per side serving every stream (iperf3 3.12), both counted. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "wl-harness.h"
#include "../../guest/runner/workloads/iperf.c"

static void run_streams(const char *tasks, uint64_t nr_tasks)
{
	struct wl_ctx ctx;

	assert_int_equal(harness_run(&ctx, &workload_iperf, 30, "streams", "3", "runtime", "1",
				     "buffer", "64K", "tasks", tasks, NULL), 0);
	assert_string_equal(ctx.error, "");
	assert_true(harness_metric(&ctx, "gbit_s")->value > 0);
	assert_tasks_done(nr_tasks);
	/* the migrations of exactly those tasks, when the kernel counts them,
	 * as a rate: the count is the tasks counter's, never a metric too */
	if (harness_totals.tasks == nr_tasks)
		assert_true(harness_metric(&ctx, "migrations_per_s")->value >= 0);
	for (unsigned i = 0; i < ctx.nr_metrics; i++)
		assert_string_not_equal(ctx.metrics[i].name, "migrations");
}

static void test_task_per_stream(void **state)
{
	(void)state;
	run_streams("stream", 6);
}

static void test_task_per_side(void **state)
{
	(void)state;
	run_streams("side", 2);
}

/* one stream in side mode: the receiver listens, nobody connects to it */
static void test_side_one_stream(void **state)
{
	struct wl_ctx ctx;

	(void)state;
	assert_int_equal(harness_run(&ctx, &workload_iperf, 30, "streams", "1", "runtime", "1",
				     "tasks", "side", NULL), 0);
	assert_true(harness_metric(&ctx, "gbit_s")->value > 0);
	assert_tasks_done(2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_per_stream),
		cmocka_unit_test(test_task_per_side),
		cmocka_unit_test(test_side_one_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
