/* test-runreport.c - the per-case report: descriptive statistics against
 * values worked out by hand, and console splats charged to their case. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "results/runreport.h"

static void test_stats(void **state)
{
	/* 1..4: mean 2.5; sample variance 5/3, sd 1.290994; median 2.5;
	 * harmonic mean 4 / (1 + 1/2 + 1/3 + 1/4) = 48/25 = 1.92 */
	const double v[] = { 4, 1, 3, 2 };
	struct metric_stats st;

	metric_stats_compute(v, 4, &st);
	assert_int_equal(st.n, 4);
	assert_float_equal(st.mean, 2.5, 1e-12);
	assert_float_equal(st.stdev, 1.2909944487358056, 1e-12);
	assert_float_equal(st.cv_pct, 51.639777949432226, 1e-9);
	assert_float_equal(st.median, 2.5, 1e-12);
	assert_float_equal(st.hmean, 1.92, 1e-12);
	assert_float_equal(st.min, 1, 0);
	assert_float_equal(st.max, 4, 0);
	/* the input is left alone (the seeds' AMean needs the run order) */
	assert_float_equal(v[0], 4, 0);
}

static void test_stats_edges(void **state)
{
	const double one[] = { 7 }, withzero[] = { 0, 2 };
	struct metric_stats st;

	metric_stats_compute(one, 1, &st);
	assert_float_equal(st.stdev, 0, 0);
	assert_float_equal(st.median, 7, 0);
	metric_stats_compute(withzero, 2, &st);
	/* a zero rate has no harmonic mean: reported as 0, not inf */
	assert_float_equal(st.hmean, 0, 0);
	metric_stats_compute(NULL, 0, &st);
	assert_int_equal(st.n, 0);
}

static void test_console_by_case(void **state)
{
	const char log[] =
		"[    1.0] WARNING: CPU: 0 PID: 1 at boot.c:1 before_any_case\r\n"
		"[    2.0] schedlab: case a/x=1 start\r\n"
		"[    2.1] all fine\r\n"
		"[    2.2] schedlab: case a/x=1 end\r\n"
		"[    3.0] schedlab: case b start\r\n"
		"[    3.1] BUG: soft lockup - CPU#1 stuck for 22s! [hackbench:9]\r\n"
		"[    3.2] WARNING: CPU: 1 PID: 9 at kernel/sched/fair.c:1 f\r\n"
		"[    3.3] schedlab: case b end\r\n"
		"[    4.0] schedlab: case c start\r\n"
		"[    4.1] Kernel panic - not syncing: Fatal exception\r\n";
	struct json_object *o = console_by_case(log, strlen(log)), *e, *v;

	assert_false(json_object_object_get_ex(o, "a/x=1", &e));
	assert_true(json_object_object_get_ex(o, "b", &e));
	json_object_object_get_ex(e, "splats", &v);
	assert_int_equal(json_object_get_int(v), 2);
	json_object_object_get_ex(e, "first", &v);
	assert_non_null(strstr(json_object_get_string(v), "soft lockup"));
	json_object_object_get_ex(e, "crash", &v);
	assert_false(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "c", &e));
	json_object_object_get_ex(e, "crash", &v);
	assert_true(json_object_get_boolean(v));
	/* the boot-time warning belongs to no case */
	assert_int_equal(json_object_object_length(o), 2);
	json_object_put(o);
}

static const char host_log[] =
	"{\"t_s\": 3.1, \"case\": \"a\", \"run\": 0, \"fault\": \"add\", \"kind\": \"vcpu_add\", "
	"\"action\": \"device_add\", \"ok\": false, \"error\": \"no free vCPU slot\"}\n"
	"{\"t_s\": 3.2, \"case\": \"a\", \"run\": 1, \"fault\": \"add\", \"kind\": \"vcpu_add\", "
	"\"action\": \"device_add\", \"ok\": true}\n"
	"\n"
	"not json\n"
	"{\"case\": \"a\", \"run\": \"1\", \"fault\": \"x\", \"action\": \"stop\", \"ok\": false}\n"
	"[1, 2]\n"
	"{\"case\": \"b\", \"run\": 0, \"fault\": \"p\", \"action\": \"stop\", \"ok\": true} x\n"
	"{\"case\": \"b\", \"run\": 0, \"fault\": \"p\", \"action\": \"stop\", \"ok\": false}\n"
	"{\"case\": \"b\", \"run\": 0, \"fault\": \"p\", \"action\": \"stop\", \"ok\": true}\n"
	"{\"case\": \"c\", \"run\": 2, \"fault\": \"p\", \"action\": \"stop\", \"ok\": true}\n"
	"{\"case\": \"c\", \"run\": 2, \"fault\": \"p\", \"action\": \"cont\", \"ok\": false, "
	"\"error\": \"monitor gone\"}\n"
	"{\"case\": \"d\", \"run\": 0, \"fault\": \"r\", \"action\": \"device_del\", \"ok\": true}\n"
	"{\"case\": \"d\", \"run\": 0, \"fault\": \"r\", \"action\": \"removed\", \"ok\": false}";

static void test_host_faults(void **state)
{
	unsigned bad;
	struct json_object *a = host_fault_actions(host_log, sizeof(host_log) - 1, &bad);
	char why[256] = "";

	/* the empty line is no error; the four broken ones are counted */
	assert_int_equal(json_object_array_length(a), 8);
	assert_int_equal(bad, 4);
	/* run 0 of case a: its only device_add failed; run 1 worked */
	assert_int_equal(host_faults_failure(a, "a", why, sizeof(why)), 1);
	assert_string_equal(why, "host fault 'add' never took effect in run 0: no free vCPU slot");
	/* case b: one stop failed, another of the same fault and run worked */
	assert_int_equal(host_faults_failure(a, "b", why, sizeof(why)), 0);
	/* case c: stop worked, but the guest was never resumed */
	assert_int_equal(host_faults_failure(a, "c", why, sizeof(why)), 1);
	assert_string_equal(why, "host fault 'p' failed to finish ('cont') in run 2: monitor gone");
	/* case d: the guest did not eject the vCPU in time: not the case's fault */
	assert_int_equal(host_faults_failure(a, "d", why, sizeof(why)), 0);
	assert_int_equal(host_faults_failure(a, "none", why, sizeof(why)), 0);
	json_object_put(a);

	a = host_fault_actions("", 0, &bad);
	assert_int_equal(json_object_array_length(a), 0);
	assert_int_equal(bad, 0);
	json_object_put(a);
}

/* The summary lines run_report_print() writes on stdout, as one string. */
static void print_summary(struct json_object *cases, char *out, size_t len)
{
	FILE *f = tmpfile();
	int saved = dup(1);
	size_t n;

	assert_non_null(f);
	fflush(stdout);
	assert_true(dup2(fileno(f), 1) >= 0);
	run_report_print(cases);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
}

/* `migrations` is the tasks' count, once per line; iperf's own metric is
 * its rate, another name */
static void test_summary_migrations_once(void **state)
{
	struct json_object *cases = json_tokener_parse(
		"[{\"verdict\": \"PASS\", \"case\": \"iperf\", \"metrics\": {"
		"\"gbit_s\": {\"declared\": true, \"statistic\": \"amean\", \"mean\": 20, \"cv_pct\": 1, \"unit\": \"Gbit/s\"},"
		"\"migrations_per_s\": {\"declared\": true, \"statistic\": \"amean\", \"n\": 1, \"mean\": 2.5, \"cv_pct\": 0, \"unit\": \"1/s\"}},"
		"\"tasks\": {\"nr_migrations\": 5}},"
		"{\"verdict\": \"PASS\", \"case\": \"hb\", \"metrics\": {"
		"\"time\": {\"declared\": true, \"statistic\": \"amean\", \"mean\": 1.5, \"cv_pct\": 2, \"unit\": \"s\"}},"
		"\"tasks\": {\"nr_migrations\": 7}},"
		"{\"verdict\": \"PASS\", \"case\": \"exec\", \"metrics\": {"
		"\"elapsed\": {\"declared\": true, \"statistic\": \"amean\", \"n\": 1, \"mean\": 0.05, \"cv_pct\": 0, \"unit\": \"s\"}}}]");
	char out[2048];
	const char *first;

	(void)state;
	assert_non_null(cases);
	print_summary(cases, out, sizeof(out));
	first = strstr(out, "migrations");
	assert_non_null(first);
	assert_non_null(strstr(out, "migrations_per_s 2.5 1/s (amean, 1 value)  migrations 5\n"));
	assert_ptr_equal(first, strstr(out, "migrations_per_s 2.5"));
	assert_null(strstr(out, "cv 0.0%"));
	/* a workload that does not declare it still shows its tasks' count */
	assert_non_null(strstr(out, "time 1.5 s (amean, cv 2.0%)  migrations 7\n"));
	/* one value: no coefficient of variation to show */
	assert_non_null(strstr(out, "elapsed 0.05 s (amean, 1 value)\n"));
	json_object_put(cases);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_stats_edges),
		cmocka_unit_test(test_console_by_case),
		cmocka_unit_test(test_host_faults),
		cmocka_unit_test(test_summary_migrations_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
