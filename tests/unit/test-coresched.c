/* test-coresched.c - seed 004's coresched workload: the cgroup path it reads,
 * its options, a run of both sides, the SKIP without CONFIG_SCHED_CORE, and
 * its counters through lab compare's case parser. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl-harness.h"
#include "../../guest/runner/histogram.h"
#include "../../guest/runner/workloads/coresched.h"
#include "report/compare.h"

static void expect_path(const char *text, int ret, const char *want)
{
	char out[32] = "unchanged";

	assert_int_equal(wl_cgroup_path(text, strlen(text), out, sizeof(out)), ret);
	assert_string_equal(out, want);
}

static void test_cgroup_path(void **state)
{
	(void)state;
	expect_path("0::/schedlab/case-3\n", 0, "/schedlab/case-3");
	expect_path("0::/\n", 0, "/");
	/* a hybrid v1 + v2 host: the v2 line is not the first */
	expect_path("12:cpu,cpuacct:/x\n1:name=systemd:/y\n0::/user.slice", 0, "/user.slice");
	/* v1 only, no line at all, a relative or truncated path */
	expect_path("4:memory:/a\n", -1, "unchanged");
	expect_path("", -1, "unchanged");
	expect_path("0::", -1, "unchanged");
	expect_path("0::x/y\n", -1, "unchanged");
	expect_path("10::/a\n", -1, "unchanged");
	/* 31 bytes and the NUL fit, 32 do not */
	expect_path("0::/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 0, "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	expect_path("0::/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", -1, "unchanged");
	/* the length is what counts, not a NUL */
	{
		char out[32] = "";

		assert_int_equal(wl_cgroup_path("0::/ab\n", 5, out, sizeof(out)), 0);
		assert_string_equal(out, "/a");
		assert_int_equal(wl_cgroup_path("0::/a\0b\n", 8, out, sizeof(out)), -1);
	}
}

/* /proc/<tid>/sched as 6.1 prints it (schedstats on, CONFIG_SCHED_CORE) */
static void test_sched_fields(void **state)
{
	static const char text[] =
		"hackbench (123, #threads: 1)\n"
		"-------------------------------------------------------------------\n"
		"se.nr_migrations                             :                   17\n"
		"wait_sum                                     :          12.000345\n"
		"nr_wakeups                                   :                   40\n"
		"nr_wakeups_migrate                           :                    5\n"
		"core_forceidle_sum                           :        1500.250000\n"
		"nr_voluntary_switches                        :                   33\n";

	(void)state;
	assert_int_equal(wl_sched_field(text, "se.nr_migrations"), 17);
	assert_int_equal(wl_sched_field(text, "wait_sum"), 12000345);
	assert_int_equal(wl_sched_field(text, "nr_wakeups"), 40);
	assert_int_equal(wl_sched_field(text, "nr_wakeups_migrate"), 5);
	assert_int_equal(wl_sched_field(text, "core_forceidle_sum"), 1500250000ull);
	/* only at a line start: "se.statistics.wait_sum" is not "wait_sum" */
	assert_int_equal(wl_sched_field("se.statistics.wait_sum : 1.000002\n", "wait_sum"), 0);
	assert_int_equal(wl_sched_field(text, "se.wait_sum"), 0);
}

static double counter(const struct wl_ctx *ctx, const char *name)
{
	for (unsigned i = 0; i < ctx->nr_counters; i++)
		if (!strcmp(ctx->counters[i].name, name))
			return ctx->counters[i].value;
	fail_msg("no counter '%s'", name);
	return -1;
}

static int kernel_has_core_sched(void)
{
	uint64_t cookie;
	int r = cs_prctl(PR_SCHED_CORE_GET, PR_SCHED_CORE_SCOPE_THREAD, &cookie);

	return r == 0 || r == -ENODEV;
}

/* core_sched=off: both sides run, their metrics and counters come back. */
static void test_run_off(void **state)
{
	struct wl_ctx ctx;

	(void)state;
	assert_int_equal(harness_run(&ctx, &workload_coresched, 60, "runtime", "1", "warmup", "0",
				     "hog_threads", "1", "workers", "2", NULL), 0);
	assert_true(harness_metric(&ctx, "wakeup_p99")->value > 0);
	assert_true(harness_metric(&ctx, "rps")->value > 0);
	assert_int_equal(harness_metric(&ctx, "wakeup_p99")->higher_is_better, 0);
	assert_true(harness_metric(&ctx, "hog_gflops")->value > 0);
	assert_int_equal(harness_metric(&ctx, "hog_gflops")->higher_is_better, 1);
	assert_true(counter(&ctx, "lat_cookie_set") == 0);
	assert_true(counter(&ctx, "hog_cookie_set") == 0);
	assert_true(counter(&ctx, "cookies_distinct") == 0);
	assert_true(counter(&ctx, "lat_forceidle_ms") == 0);
	assert_true(counter(&ctx, "hog_forceidle_ms") == 0);
	/* one message thread, two workers, one hog thread, all counted */
	assert_tasks_done(4);
	assert_int_equal(ctx.error[0], '\0');

	/* hog_threads = 0 (the default): one hog per online CPU */
	assert_int_equal(harness_run(&ctx, &workload_coresched, 60, "runtime", "1", "warmup", "0",
				     NULL), 0);
	assert_tasks_done(3 + ctx.nr_cpus);
}

/* core_sched=on: SKIP with the reason without CONFIG_SCHED_CORE, else cookies. */
static void test_on(void **state)
{
	struct wl_args *a = wl_args_new();
	char err[256], why[256] = "";
	struct wl_ctx ctx;

	(void)state;
	assert_int_equal(wl_args_set(a, &workload_coresched, "core_sched", "on", err, sizeof(err)), 0);
	assert_int_equal(wl_args_finish(a, &workload_coresched, err, sizeof(err)), 0);
	if (!kernel_has_core_sched()) {
		assert_int_equal(workload_coresched.case_supported(a, why, sizeof(why)), 0);
		assert_non_null(strstr(why, "CONFIG_SCHED_CORE"));
		assert_non_null(strstr(why, "EINVAL"));
		wl_args_free(a);
		return;
	}
	assert_int_equal(workload_coresched.case_supported(a, why, sizeof(why)), 1);
	wl_args_free(a);
	assert_int_equal(harness_run(&ctx, &workload_coresched, 60, "core_sched", "on", "runtime", "1",
				     "warmup", "0", "hog_threads", "1", NULL), 0);
	/* the values may read 0 before the kernel's random pool is ready */
	if (counter(&ctx, "lat_cookie_set") && counter(&ctx, "hog_cookie_set"))
		assert_true(counter(&ctx, "cookies_distinct") == 1);
}

static void test_off_always_supported(void **state)
{
	struct wl_args *a = wl_args_new();
	char err[256], why[256] = "";

	(void)state;
	assert_int_equal(wl_args_finish(a, &workload_coresched, err, sizeof(err)), 0);
	assert_string_equal(wl_str(a, "core_sched"), "off");
	assert_int_equal(workload_coresched.case_supported(a, why, sizeof(why)), 1);
	assert_int_equal(wl_args_set(a, &workload_coresched, "core_sched", "maybe", err,
				     sizeof(err)), -1);
	assert_non_null(strstr(err, "off|on"));
	assert_int_equal(wl_args_set(a, &workload_coresched, "hog_kind", "mmx", err, sizeof(err)), -1);
	assert_int_equal(wl_args_set(a, &workload_coresched, "hog_threads", "-1", err,
				     sizeof(err)), -1);
	wl_args_free(a);
}

static const struct cmp_counter *find_counter(const struct cmp_case *c, const char *name)
{
	for (size_t i = 0; i < c->nr_counters; i++)
		if (!strcmp(c->counters[i].name, name))
			return &c->counters[i];
	return NULL;
}

/* lab compare reads the workload's counters next to the task counters. */
static void test_compare_counters(void **state)
{
	static const char json[] =
		"{\"cases\": [{\"case\": \"s/core_sched=on\", \"verdict\": \"PASS\", "
		"\"tasks\": {\"nr_migrations\": 3, \"core_forceidle_ns\": 5000000}, "
		"\"workload_counters\": {\"lat_forceidle_ms\": 2.5, \"cookies_distinct\": 1, "
		"\"Bad Name\": 7, \"x\\u0001\": 1}}]}";
	static const char bad[] =
		"{\"cases\": [{\"case\": \"a\", \"verdict\": \"PASS\", "
		"\"workload_counters\": {\"n\": \"many\"}}]}";
	struct strbuf err = STRBUF_INIT;
	struct cmp_run r = { 0 };

	(void)state;
	assert_int_equal(cmp_cases_parse(&r, json, strlen(json), &err), 0);
	assert_int_equal(r.nr_cases, 1);
	assert_non_null(find_counter(&r.cases[0], "lat_forceidle_ms"));
	assert_true(find_counter(&r.cases[0], "lat_forceidle_ms")->value == 2.5);
	assert_true(find_counter(&r.cases[0], "cookies_distinct")->value == 1);
	assert_true(find_counter(&r.cases[0], "forceidle_ns/run")->value == 5000000);
	/* names that are not [a-z0-9_] never reach a table */
	assert_null(find_counter(&r.cases[0], "Bad Name"));
	assert_int_equal(r.cases[0].nr_counters, 4);
	cmp_run_release(&r);

	memset(&r, 0, sizeof(r));
	assert_int_equal(cmp_cases_parse(&r, bad, strlen(bad), &err), -1);
	assert_non_null(strstr(err.buf, "not a finite number"));
	strbuf_release(&err);
	cmp_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_path),
		cmocka_unit_test(test_sched_fields),
		cmocka_unit_test(test_off_always_supported),
		cmocka_unit_test(test_run_off),
		cmocka_unit_test(test_on),
		cmocka_unit_test(test_compare_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
