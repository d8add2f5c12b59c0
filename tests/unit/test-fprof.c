/* test-fprof.c - unit tests of host-tools/results/fprof.c: the runner's function
 * profile records (trace_stat/function<cpu> lines) summed and folded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/fprof.h"
#include "results/runreport.h"
#include "lib/util.h"
#include "common/wire.h"

/*
 * Lines as kernel/trace/ftrace.c (6.1) prints them with
 * CONFIG_FUNCTION_GRAPH_TRACER: "  %-30.30s  %10lu", four spaces, then
 * Time, Avg and s^2 through trace_print_graph_duration() (microseconds,
 * decimals cut so that at most 7 digits show: 123456.7, 30512.44).
 */
#define HDR \
	"  Function                               Hit    Time            Avg             s^2\n" \
	"  --------                               ---    ----            ---             ---\n"

static const char sample[] =
	"fprof\t1\n"
	"func\tmigrate_misplaced_page\tok\n"
	"func\ttask_numa_work\tok\n"
	"func\tschedlab_no_such_fn\tmissing\tnot in available_filter_functions (not traceable "
	"in this kernel)\n"
	"per\tvmstat:numa_pages_migrated\t1000\t2523\n"
	"cpu\t0\n"
	HDR
	"  migrate_misplaced_page                1523    30512.44 us     20.034 us       312.553 us  \n"
	"  task_numa_work                          12    123456.7 us     10288.06 us     5000.000 us \n"
	"cpu\t1\n"
	HDR
	"cpu\t2\n"
	HDR
	"  migrate_misplaced_page                  10    100.000 us      10.000 us       0.000 us    \n";

static struct fprof_result *parse_ok(const char *text)
{
	struct fprof_result *r = calloc(1, sizeof(*r));
	char err[256];

	assert_non_null(r);
	if (fprof_parse(text, strlen(text), r, err, sizeof(err)) < 0)
		fail_msg("parse failed: %s", err);
	return r;
}

static double num(struct json_object *o, const char *path1, const char *path2, const char *key)
{
	struct json_object *a, *b, *v;

	assert_true(json_object_object_get_ex(o, path1, &a));
	assert_true(json_object_object_get_ex(a, path2, &b));
	if (!json_object_object_get_ex(b, key, &v))
		fail_msg("no '%s' in '%s'", key, path2);
	return json_object_get_double(v);
}

static void test_sample(void **state)
{
	struct fprof_result *r = parse_ok(sample);
	struct json_object *j, *miss, *v;

	(void)state;
	assert_false(r->absent);
	assert_true(r->timed);
	assert_int_equal(r->nr_cpus, 3);
	assert_int_equal(r->nr_funcs, 3);
	assert_string_equal(r->funcs[0].name, "migrate_misplaced_page");
	assert_int_equal(r->funcs[0].hits, 1533);
	assert_float_equal(r->funcs[0].time_us, 30612.44, 1e-6);
	assert_int_equal(r->funcs[1].hits, 12);
	assert_float_equal(r->funcs[1].time_us, 123456.7, 1e-6);
	assert_false(r->funcs[2].ok);
	assert_true(r->per_found);
	assert_int_equal(r->per_delta, 1523);

	j = fprof_run_json(r);
	assert_float_equal(num(j, "functions", "migrate_misplaced_page", "hits"), 1533, 0);
	/* 30612.44 us / 1533 calls; per page: 30612.44 us / 1523 pages */
	assert_float_equal(num(j, "functions", "migrate_misplaced_page", "avg_us"),
			   30612.44 / 1533, 1e-9);
	assert_float_equal(num(j, "functions", "migrate_misplaced_page", "us_per_unit"),
			   30612.44 / 1523, 1e-9);
	assert_float_equal(num(j, "functions", "task_numa_work", "avg_us"), 123456.7 / 12, 1e-9);
	/* one CPU, so the kernel's own s^2: sqrt(5000) */
	assert_float_equal(num(j, "functions", "task_numa_work", "stddev_us"), sqrt(5000), 1e-6);
	assert_true(json_object_object_get_ex(j, "missing", &miss));
	assert_true(json_object_object_get_ex(miss, "schedlab_no_such_fn", &v));
	assert_non_null(strstr(json_object_get_string(v), "available_filter_functions"));
	assert_true(json_object_object_get_ex(j, "per_delta", &v));
	assert_int_equal(json_object_get_int(v), 1523);
	json_object_put(j);
	free(r);
}

/*
 * The spread over all calls from each CPU's count, mean and s^2.  Calls
 * of 10 and 20 us on CPU 0 (s^2 50) and 10, 20, 30 us on CPU 1 (s^2 100):
 * Python's statistics.stdev([10, 20, 10, 20, 30]) = 8.366600265340756.
 */
static void test_pooled_spread(void **state)
{
	static const char text[] =
		"fprof\t1\n"
		"func\ttask_numa_fault\tok\n"
		"cpu\t0\n" HDR
		"  task_numa_fault                          2    30.000 us       15.000 us       50.000 us   \n"
		"cpu\t3\n" HDR
		"  task_numa_fault                          3    60.000 us       20.000 us       100.000 us  \n";
	struct fprof_result *r = parse_ok(text);
	struct json_object *j = fprof_run_json(r), *v;

	(void)state;
	assert_float_equal(num(j, "functions", "task_numa_fault", "stddev_us"), 8.366600265340756,
			   1e-9);
	assert_float_equal(num(j, "functions", "task_numa_fault", "avg_us"), 18, 1e-9);
	/* no denominator: no per-unit value at all */
	assert_false(json_object_object_get_ex(j, "per", &v));
	json_object_put(j);
	free(r);
}

/* Long names are cut to 30 columns; without the graph tracer only hits. */
static void test_hits_only_and_long_names(void **state)
{
	static const char text[] =
		"fprof\t1\n"
		"func\ta_very_long_function_name_exceeding_thirty\tok\n"
		"per\tvmstat:pgmigrate_success\t5\t5\n"
		"cpu\t0\n"
		"  Function                               Hit\n"
		"  --------                               ---\n"
		"  a_very_long_function_name_exce           3\n";
	struct fprof_result *r = parse_ok(text);
	struct json_object *j = fprof_run_json(r), *f, *e, *v;

	(void)state;
	assert_false(r->timed);
	assert_int_equal(r->funcs[0].hits, 3);
	assert_true(json_object_object_get_ex(j, "functions", &f));
	assert_true(json_object_object_get_ex(f, "a_very_long_function_name_exceeding_thirty", &e));
	assert_false(json_object_object_get_ex(e, "time_us", &v));
	assert_false(json_object_object_get_ex(e, "us_per_unit", &v));
	assert_true(json_object_object_get_ex(j, "timed", &v));
	assert_false(json_object_get_boolean(v));
	json_object_put(j);
	free(r);
}

static void test_absent(void **state)
{
	static const char text[] = "fprof\t1\nabsent\tkernel without CONFIG_FUNCTION_PROFILER\n";
	struct fprof_result *r = parse_ok(text);
	struct json_object *j = fprof_run_json(r), *v;

	(void)state;
	assert_true(r->absent);
	assert_true(json_object_object_get_ex(j, "absent", &v));
	assert_string_equal(json_object_get_string(v), "kernel without CONFIG_FUNCTION_PROFILER");
	json_object_put(j);
	free(r);
}

static void expect_bad(const char *text, const char *want)
{
	struct fprof_result r;
	char err[256];

	if (fprof_parse(text, strlen(text), &r, err, sizeof(err)) == 0)
		fail_msg("parsed, expected '%s'", want);
	if (strcmp(err, want))
		fail_msg("error '%s', expected '%s'", err, want);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_bad("", "line 1: empty record");
	expect_bad("fprof\t2\n", "line 1: not a function-profile record of format 1");
	expect_bad("fprof\t1\n", "line 1: neither functions nor a reason for their absence");
	expect_bad("fprof\t1\nfunc\tx y\tok\n", "line 2: bad function name");
	expect_bad("fprof\t1\nfunc\tx\tok\nfunc\tx\tok\n", "line 3: function 'x' twice");
	expect_bad("fprof\t1\nfunc\tx\tmaybe\n", "line 2: bad 'func' record");
	expect_bad("fprof\t1\nfunc\tx\tok\n  x  1\n", "line 3: profile line before any 'cpu'");
	expect_bad("fprof\t1\nfunc\tx\tok\ncpu\t0\n  y  1\n",
		   "line 4: 'y' is not a profiled function");
	expect_bad("fprof\t1\nfunc\tx\tok\ncpu\t0\n  x  -1\n", "line 4: bad profile line for 'x'");
	expect_bad("fprof\t1\nfunc\tx\tok\ncpu\t0\n" HDR "  x  1  1.0 us  1.0 us\n",
		   "line 6: bad profile line for 'x'");
	expect_bad("fprof\t1\nfunc\tx\tok\ncpu\t0\n" HDR "  x  1  1.0000 us  1.0 us  0 us\n",
		   "line 6: bad times for 'x'");
	expect_bad("fprof\t1\nfunc\tx\tok\ncpu\t0\ncpu\t0\n", "line 4: bad 'cpu' record");
	expect_bad("fprof\t1\nfunc\tx\tok\ncpu\t8192\n", "line 3: bad 'cpu' record");
	expect_bad("fprof\t1\nfunc\tx\tok\nper\tvmstat:a\t5\t4\n",
		   "line 3: 'vmstat:a' went backwards");
	expect_bad("fprof\t1\nfunc\tx\tok\nper\tproc:a\t5\t4\n", "line 3: bad 'per' record");
	expect_bad("fprof\t1\nabsent\twhy\nfunc\tx\tok\n", "line 3: records after 'absent'");
	expect_bad("fprof\t1\nfunc\tx\tok\nhello\n", "line 3: unknown record 'hello'");
	expect_bad("fprof\t1\nfunc\tx\tok\n\n", "line 3: empty line");
	expect_bad("fprof\t1\nfunc\tx\tok\x01\n", "line 2: control character");
}

/* Two runs folded: means per run, ratios of sums. */
static void test_case_fold(void **state)
{
	static const char run2[] =
		"fprof\t1\n"
		"func\tmigrate_misplaced_page\tok\n"
		"func\ttask_numa_work\tok\n"
		"per\tvmstat:numa_pages_migrated\t0\t477\n"
		"cpu\t0\n" HDR
		"  migrate_misplaced_page                 467    9387.56 us      20.101 us       300.000 us  \n";
	struct fprof_result *a = parse_ok(sample), *b = parse_ok(run2), *m;
	struct json_object *runs = json_object_new_array(), *c, *v;

	(void)state;
	json_object_array_add(runs, fprof_run_json(a));
	json_object_array_add(runs, fprof_run_json(b));
	c = fprof_case_json(runs);
	assert_non_null(c);
	assert_true(json_object_object_get_ex(c, "runs", &v));
	assert_int_equal(json_object_get_int(v), 2);
	/* (1533 + 467) / 2 runs; (30612.44 + 9387.56) us / (1523 + 477) pages */
	assert_float_equal(num(c, "functions", "migrate_misplaced_page", "hits_per_run"), 1000,
			   1e-9);
	assert_float_equal(num(c, "functions", "migrate_misplaced_page", "time_us_per_run"), 20000,
			   1e-6);
	assert_float_equal(num(c, "functions", "migrate_misplaced_page", "us_per_unit"), 20, 1e-9);
	assert_float_equal(num(c, "functions", "migrate_misplaced_page", "avg_us"), 20, 1e-9);
	/* task_numa_work was not hit in the second run: a real zero, (12 + 0) / 2 */
	assert_float_equal(num(c, "functions", "task_numa_work", "hits_per_run"), 6, 1e-9);
	json_object_put(c);
	json_object_put(runs);

	/* every run absent: the reason is the summary */
	runs = json_object_new_array();
	c = json_object_new_object();
	json_object_object_add(c, "absent", json_object_new_string("no profiler"));
	json_object_array_add(runs, c);
	c = fprof_case_json(runs);
	assert_true(json_object_object_get_ex(c, "absent", &v));
	assert_string_equal(json_object_get_string(v), "no profiler");
	assert_true(json_object_object_get_ex(c, "runs", &v));
	assert_int_equal(json_object_get_int(v), 0);
	json_object_put(c);
	json_object_put(runs);
	assert_null(fprof_case_json(NULL));

	/* a denominator the kernel does not count: said once for the case */
	m = parse_ok("fprof\t1\nfunc\tf\tok\nper\tvmstat:numa_pages_migrated\tmissing\ncpu\t0\n");
	runs = json_object_new_array();
	json_object_array_add(runs, fprof_run_json(m));
	c = fprof_case_json(runs);
	assert_true(json_object_object_get_ex(c, "per_absent", &v));
	assert_non_null(strstr(json_object_get_string(v), "CONFIG_VM_EVENT_COUNTERS"));
	assert_false(json_object_object_get_ex(c, "functions", &v) &&
		     json_object_object_get_ex(json_object_object_get(v, "f"), "us_per_unit", &v));
	json_object_put(c);
	json_object_put(runs);
	free(m);
	free(a);
	free(b);
}

static void frame(struct strbuf *sb, uint32_t seq, uint16_t type, const char *payload)
{
	size_t len = strlen(payload);
	char *buf = malloc(WIRE_HDR_LEN + len);

	assert_non_null(buf);
	strbuf_add(sb, buf,
		   wire_encode(seq, type, payload, (uint32_t)len, buf, WIRE_HDR_LEN + len));
	free(buf);
}

#define UNREADABLE "line 2: neither functions nor a reason for their absence"

/* Through runreport: a run's profile lands in its results.jsonl line and
 * the measured runs in cases.json; an unreadable record says so. */
static void test_runreport(void **state)
{
	static const char plan[] =
		"schedlab-plan\t1\ncase\tp\nscenario\tp\nsource\tp.ini:1\nworkload\tnuma\n"
		"runs\t2\nwarmup\t0\ndeadline\t60\ncounters\tnone\nmetric\ttime\tlower\tamean\ts\n"
		"metric\trate\thigher\tmedian\tops/s\n"
		"profile\tmigrate_misplaced_page task_numa_work schedlab_no_such_fn\t"
		"vmstat:numa_pages_migrated\nend\n";
	char dir[] = "/tmp/test-fprof-XXXXXX", *p, *jsonl;
	struct strbuf rec = STRBUF_INIT, err = STRBUF_INIT;
	struct json_object *cases, *c, *fp, *v;
	char *r0 = xasprintf("p\trun0\tfprof\n%s", sample);

	(void)state;
	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/plan.txt", dir);
	assert_int_equal(write_file_atomic(p, plan, strlen(plan)), 0);
	free(p);
	frame(&rec, 0, WIRE_EVENT, "{\"event\": \"case_start\", \"case\": \"p\"}");
	frame(&rec, 1, WIRE_COUNTERS, r0);
	frame(&rec, 2, WIRE_RESULT, "{\"case\": \"p\", \"run\": 0, \"warmup\": false, "
	      "\"status\": \"ok\", \"metrics\": {\"time\": {\"value\": 1, \"better\": \"lower\"}, "
	      "\"rate\": {\"value\": 5, \"better\": \"lower\", \"unit\": \"x\"}}}");
	frame(&rec, 3, WIRE_COUNTERS, "p\trun1\tfprof\nfprof\t1\ncpu\t0\n");
	frame(&rec, 4, WIRE_RESULT, "{\"case\": \"p\", \"run\": 1, \"warmup\": false, "
	      "\"status\": \"ok\", \"metrics\": {\"time\": {\"value\": 1, \"better\": \"lower\"}, "
	      "\"rate\": {\"value\": 5, \"better\": \"lower\", \"unit\": \"x\"}}}");
	frame(&rec, 5, WIRE_EVENT, "{\"event\": \"case_end\", \"case\": \"p\"}");
	frame(&rec, 6, WIRE_END, "6");
	p = xasprintf("%s/records.bin", dir);
	assert_int_equal(write_file_atomic(p, rec.buf, rec.len), 0);
	free(p);

	assert_int_equal(run_report_build(dir, &cases, &err), 0);
	c = json_object_array_get_idx(cases, 0);
	/* the scenario's [metric rate] declared higher, median, ops/s: that
	 * wins over what the workload's record said */
	{
		struct json_object *ms, *rate;

		assert_true(json_object_object_get_ex(c, "metrics", &ms));
		assert_true(json_object_object_get_ex(ms, "rate", &rate));
		assert_string_equal(json_object_get_string(json_object_object_get(rate, "better")),
				    "higher");
		assert_string_equal(json_object_get_string(json_object_object_get(rate, "unit")),
				    "ops/s");
		assert_string_equal(json_object_get_string(json_object_object_get(rate, "statistic")),
				    "median");
	}
	assert_true(json_object_object_get_ex(c, "fprof", &fp));
	assert_true(json_object_object_get_ex(fp, "runs", &v));
	assert_int_equal(json_object_get_int(v), 1);
	/* the second run's record is unreadable: counted as absent, with why */
	assert_true(json_object_object_get_ex(fp, "absent", &v));
	assert_string_equal(json_object_get_string(v), UNREADABLE);
	assert_float_equal(num(fp, "functions", "migrate_misplaced_page", "us_per_unit"),
			   30612.44 / 1523, 1e-9);
	p = xasprintf("%s/results.jsonl", dir);
	jsonl = read_file(p, NULL);
	assert_non_null(jsonl);
	assert_non_null(strstr(jsonl, "\"run\":0,\"warmup\":false,\"status\":\"ok\",\"metrics\""));
	assert_non_null(strstr(jsonl,
			       "\"fprof\":{\"functions\":{\"migrate_misplaced_page\":{\"hits\":1533"));
	assert_non_null(strstr(jsonl, "\"fprof\":{\"absent\":\"" UNREADABLE "\""));
	free(jsonl);
	free(p);
	json_object_put(cases);
	strbuf_release(&rec);
	strbuf_release(&err);
	free(r0);
	for (size_t i = 0; i < 4; i++) {
		static const char *const files[] = {
			"plan.txt", "records.bin", "results.jsonl", "cases.json",
		};

		p = xasprintf("%s/%s", dir, files[i]);
		unlink(p);
		free(p);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_pooled_spread),
		cmocka_unit_test(test_hits_only_and_long_names),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_case_fold),
		cmocka_unit_test(test_runreport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
