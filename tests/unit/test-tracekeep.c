/* test-tracekeep.c - which traced runs of a case are kept: the ends, robust
 * outliers, failed and faulted runs, within a size budget; what is pruned. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "results/tracekeep.h"
#include "run/tracekeep-run.h"

static void runs_of(struct tk_run *r, const double *v, size_t n, uint64_t bytes)
{
	for (size_t i = 0; i < n; i++)
		r[i] = (struct tk_run){ .run = (unsigned)i, .value = v[i], .has_value = 1, .bytes = bytes };
}

static void test_ends_and_outlier(void **state)
{
	static const double v[] = { 1.02, 1.00, 1.05, 1.03, 3.0, 1.01, 1.04, 1.02 };
	struct tk_run r[8];
	uint64_t dropped_bytes;
	char why[80];

	(void)state;
	runs_of(r, v, 8, 1000);
	assert_int_equal(trace_keep_choose(r, 8, 0, 1 << 20, &dropped_bytes), 6);
	assert_int_equal(dropped_bytes, 6000);
	assert_true(r[4].keep && r[4].z > TRACE_KEEP_Z);
	trace_keep_why(r[4].why, why, sizeof(why));
	assert_string_equal(why, "outlier,slowest");
	assert_true(r[1].keep && r[1].why == TK_FASTEST);
	for (size_t i = 0; i < 8; i++)
		if (i != 1 && i != 4)
			assert_false(r[i].keep);
	/* throughput: the lowest value is the slowest run */
	runs_of(r, v, 8, 1000);
	trace_keep_choose(r, 8, 1, 1 << 20, &dropped_bytes);
	assert_true(r[1].why & TK_SLOWEST);
	assert_true(r[4].why & TK_FASTEST);
}

static void test_budget_and_faults(void **state)
{
	static const double v[] = { 1.0, 1.1, 1.2, 1.3, 1.4 };
	struct tk_run r[5];
	uint64_t dropped_bytes;

	(void)state;
	runs_of(r, v, 5, 1 << 20);
	r[2].faults = 1;
	r[3].failed = 1;
	/* room for two: the faulted and the failed runs come before the ends */
	assert_int_equal(trace_keep_choose(r, 5, 0, 2u << 20, &dropped_bytes), 3);
	assert_true(r[2].keep && r[3].keep);
	assert_false(r[0].keep || r[4].keep);
	assert_true(r[4].why == TK_SLOWEST && r[0].why == TK_FASTEST);
	/* no spread: no z, no outlier */
	static const double same[] = { 2.0, 2.0, 2.0, 2.0 };
	runs_of(r, same, 4, 10);
	trace_keep_choose(r, 4, 0, 1000, &dropped_bytes);
	for (size_t i = 0; i < 4; i++)
		assert_true(r[i].z == 0 && !(r[i].why & TK_OUTLIER));
}

static void test_parse_results(void **state)
{
	static const char text[] =
		"{\"case\":\"hb/mode=process\",\"run\":0,\"warmup\":true,\"status\":\"ok\","
		"\"metrics\":{\"time\":{\"value\":9,\"better\":\"lower\"}}}\n"
		"{\"case\":\"hb/mode=process\",\"run\":0,\"status\":\"ok\","
		"\"metrics\":{\"time\":{\"value\":2.5,\"better\":\"lower\"},\"wakeups\":{\"value\":7}}}\n"
		"\n"
		"not json\n"
		"{\"case\":\"hb/mode=thread\",\"run\":0,\"status\":\"ok\",\"metrics\":{}}\n"
		"{\"case\":\"hb/mode=process\",\"run\":1.5}\n"
		"{\"case\":\"hb/mode=process\",\"run\":1,\"status\":\"timeout\",\"metrics\":{}}\n";
	struct tk_run *r;
	size_t n;
	int higher;
	unsigned bad;

	(void)state;
	assert_int_equal(trace_keep_parse_results(text, strlen(text), "hb_mode=process", &r, &n,
						  &higher, &bad), 0);
	assert_int_equal(n, 2);
	assert_int_equal(bad, 2);
	assert_false(higher);
	assert_true(r[0].run == 0 && r[0].has_value && r[0].value == 2.5 && !r[0].failed);
	assert_true(r[1].run == 1 && !r[1].has_value && r[1].failed);
	free(r);
}

static void test_apply(void **state)
{
	char dir[] = "/tmp/test-tracekeep-XXXXXX";
	struct tk_run r[2] = { { .run = 0, .keep = 1, .why = TK_OUTLIER | TK_SLOWEST, .z = 4.5,
				 .bytes = 4096 },
			       { .run = 1, .keep = 0, .bytes = 8192 } };
	struct strbuf err = STRBUF_INIT;
	struct json_object *doc;
	char *path;
	double v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 2; i++) {
		path = xasprintf("%s/trace/c/run%d", dir, i);
		assert_int_equal(mkdir_p(path, 0755), 0);
		free(path);
	}
	assert_int_equal(trace_keep_apply(dir, "c", r, 2, 1 << 20, &err), 0);
	path = xasprintf("%s/trace/c/run1", dir);
	assert_false(is_dir(path));
	free(path);
	path = xasprintf("%s/trace/c/run0", dir);
	assert_true(is_dir(path));
	free(path);
	path = xasprintf("%s/trace/c/kept.json", dir);
	doc = json_read_file(path, NULL, 1 << 20, NULL, &err);
	assert_non_null(doc);
	assert_int_equal(json_get_num(doc, "dropped_runs", &v), 0);
	assert_true(v == 1);
	assert_int_equal(json_get_num(doc, "dropped_bytes", &v), 0);
	assert_true(v == 8192);
	json_object_put(doc);
	free(path);
	/* what lab compare's summary reads back */
	struct tk_run out[4];
	assert_int_equal(trace_keep_outliers(dir, "c", out, 4), 1);
	assert_true(out[0].run == 0 && out[0].z == 4.5 && out[0].why == (TK_OUTLIER | TK_SLOWEST));
	assert_int_equal(trace_keep_outliers(dir, "other", out, 4), 0);
	assert_int_equal(remove_tree(dir), 0);
	strbuf_release(&err);
}

/* A run directory with case `id` (its trace dir `cdir`): a result line and
 * a cpu0.raw of `bytes` per value; failed[i] gives the run status "timeout". */
static void fake_case(const char *dir, const char *id, const char *cdir, const double *v,
		      const int *failed, size_t n, size_t bytes)
{
	char *path = xasprintf("%s/results.jsonl", dir), *raw = xcalloc(1, bytes);
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		char *run = xasprintf("%s/trace/%s/run%zu", dir, cdir, i), *cpu;

		fprintf(f, "{\"case\":\"%s\",\"run\":%zu,\"status\":\"%s\",\"metrics\":"
			"{\"time\":{\"value\":%g,\"better\":\"lower\"}}}\n", id, i,
			failed && failed[i] ? "timeout" : "ok", v[i]);
		assert_int_equal(mkdir_p(run, 0755), 0);
		cpu = xasprintf("%s/cpu0.raw", run);
		assert_int_equal(write_file_atomic(cpu, raw, bytes), 0);
		free(cpu);
		free(run);
	}
	fclose(f);
	free(path);
	free(raw);
}

static int run_there(const char *dir, const char *cdir, unsigned run)
{
	char *path = xasprintf("%s/trace/%s/run%u", dir, cdir, run);
	int there = is_dir(path);

	free(path);
	return there;
}

/* run 3 had a fault action */
static int faulted_three(void *ctx, const char *case_dir, unsigned run)
{
	(void)ctx;
	(void)case_dir;
	return run == 3;
}

/* The whole keep of a case from its files: failed, faulted, the outlier
 * (also the slowest) and the fastest fit the budget, the rest go. */
static void test_keep_case(void **state)
{
	static const double v[] = { 1.00, 1.01, 1.02, 0.99, 1.03, 5.0, 1.02 };
	static const int failed[] = { 0, 0, 1, 0, 0, 0, 0 };
	char dir[] = "/tmp/test-tracekeep-XXXXXX";
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct tk_case kc = TK_CASE_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fake_case(dir, "hb", "hb", v, failed, 7, 1024);
	assert_int_equal(trace_keep_case(dir, "hb", 3072, faulted_three, NULL, &kc, &err), 0);
	assert_int_equal(kc.n, 7);
	assert_int_equal(kc.dropped, 4);
	assert_int_equal(kc.dropped_bytes, 4096);
	for (unsigned i = 0; i < 7; i++)
		assert_int_equal(run_there(dir, "hb", i), i == 2 || i == 3 || i == 5);
	trace_keep_summary("hb", &kc, &out);
	assert_string_equal(out.buf, "hb: kept run2 (failed) run3 (fault,fastest) run5 "
			    "(outlier,slowest, z 268.5); dropped 4 runs, 0.0 MiB (budget 0 MiB)\n");
	tk_case_release(&kc);
	/* a case without a trace directory is an error, and keeps nothing */
	assert_int_equal(trace_keep_case(dir, "none", 3072, NULL, NULL, &kc, &err), -1);
	assert_true(err.len > 0);
	tk_case_release(&kc);
	assert_int_equal(remove_tree(dir), 0);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* lab run's keep: only the cases whose plan has trace_keep_mb are pruned. */
static void test_run_keep(void **state)
{
	static const double v[] = { 1.0, 1.1, 1.2, 1.3 };
	char dir[] = "/tmp/test-tracekeep-XXXXXX";
	struct plan_case c[3] = {
		{ .id = "kept", .counters = PLAN_CNT_SCHEDTRACE, .trace_keep_mb = 1 },
		{ .id = "all", .counters = PLAN_CNT_SCHEDTRACE },
		{ .id = "gone", .counters = PLAN_CNT_SCHEDTRACE, .trace_keep_mb = 1 },
	};
	struct plan p = { .cases = c, .nr_cases = 3 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* 512 KiB a run: the slowest and the fastest fill the MiB */
	fake_case(dir, "kept", "kept", v, NULL, 4, 512 << 10);
	fake_case(dir, "all", "all", v, NULL, 4, 1024);
	assert_int_equal(run_keep_traces(dir, &p, &out, &err), 0);
	assert_string_equal(out.buf, "trace: kept: kept run0 (fastest) run3 (slowest); dropped 2 "
			    "runs, 1.0 MiB (budget 1 MiB)\n");
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(run_there(dir, "kept", i), i == 0 || i == 3);
		assert_true(run_there(dir, "all", i));
	}
	assert_int_equal(remove_tree(dir), 0);
	strbuf_release(&out);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ends_and_outlier),
		cmocka_unit_test(test_budget_and_faults),
		cmocka_unit_test(test_parse_results),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_keep_case),
		cmocka_unit_test(test_run_keep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
