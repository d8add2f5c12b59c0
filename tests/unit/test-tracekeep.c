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
	/* a budget of 0 keeps none, not even a run without pages; the reasons stay */
	runs_of(r, v, 5, 0);
	r[2].faults = 1;
	assert_int_equal(trace_keep_choose(r, 5, 0, 0, &dropped_bytes), 5);
	assert_int_equal(dropped_bytes, 0);
	for (size_t i = 0; i < 5; i++)
		assert_false(r[i].keep);
	assert_true(r[2].why & TK_FAULT && r[4].why == TK_SLOWEST);
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
				 .bytes = 4096, .cut_events = 7 },
			       { .run = 1, .keep = 0, .bytes = 8192, .cut_events = 5 } };
	struct tk_case kc = { .r = r, .n = 2, .budget = 1 << 20, .run_budget = 2 << 20, .cut = 2,
			      .cut_events = 12 };
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
	assert_int_equal(trace_keep_apply(dir, "c", &kc, &err), 0);
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
	/* the runs cut to their last part, kept or not, and where the cut is made */
	assert_int_equal(json_get_num(doc, "run_budget_bytes", &v), 0);
	assert_true(v == 2 << 20);
	assert_int_equal(json_get_num(doc, "cut_runs", &v), 0);
	assert_true(v == 2);
	assert_int_equal(json_get_num(doc, "cut_events", &v), 0);
	assert_true(v == 12);
	assert_non_null(json_get_str(doc, "cut_where"));
	assert_non_null(strstr(json_get_str(doc, "cut_where"), "ring buffer"));
	{
		struct json_object *kept, *k0;

		assert_true(json_object_object_get_ex(doc, "kept", &kept));
		k0 = json_object_array_get_idx(kept, 0);
		assert_int_equal(json_get_num(k0, "cut_events", &v), 0);
		assert_true(v == 7);
	}
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
	assert_int_equal(trace_keep_case(dir, "hb", 3072, 0, faulted_three, NULL, &kc, &err), 0);
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
	assert_int_equal(trace_keep_case(dir, "none", 3072, 0, NULL, NULL, &kc, &err), -1);
	assert_true(err.len > 0);
	tk_case_release(&kc);
	assert_int_equal(remove_tree(dir), 0);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* statsN.txt of one run's CPU, as tracefs's per_cpu/cpuN/stats reads */
static void fake_stats(const char *dir, const char *cdir, unsigned run, unsigned cpu,
		       unsigned overrun)
{
	char *path = xasprintf("%s/trace/%s/run%u/stats%u.txt", dir, cdir, run, cpu);
	char *text = xasprintf("entries: 100\noverrun: %u\ncommit overrun: 0\nbytes: 4096\n"
			       "dropped events: 0\nread events: 100\n", overrun);

	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(text);
	free(path);
}

/* Runs whose ring buffers overwrote (the flight recorder's cut) are counted
 * per case, kept or dropped, in the line and in kept.json. */
static void test_cut_runs(void **state)
{
	static const double v[] = { 1.00, 1.01, 1.02, 0.99, 1.03 };
	char dir[] = "/tmp/test-tracekeep-XXXXXX";
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct tk_case kc = TK_CASE_INIT;
	struct json_object *doc;
	char *path;
	double x;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fake_case(dir, "hb", "hb", v, NULL, 5, 1024);
	fake_stats(dir, "hb", 1, 0, 300);  /* dropped: neither end */
	fake_stats(dir, "hb", 4, 0, 10);   /* kept: the slowest */
	fake_stats(dir, "hb", 2, 0, 0);
	assert_int_equal(trace_keep_case(dir, "hb", 1 << 20, 2 << 20, NULL, NULL, &kc, &err), 0);
	assert_int_equal(kc.cut, 2);
	assert_int_equal(kc.cut_events, 310);
	assert_true(kc.r[1].cut_events == 300 && kc.r[4].cut_events == 10 && !kc.r[2].cut_events);
	trace_keep_summary("hb", &kc, &out);
	assert_string_equal(out.buf, "hb: kept run3 (fastest) run4 (slowest); dropped 3 runs, "
			    "0.0 MiB (budget 1 MiB); cut 2 runs to the last 2 MiB (ring buffer, "
			    "310 events overwritten)\n");
	tk_case_release(&kc);
	path = xasprintf("%s/trace/hb/kept.json", dir);
	doc = json_read_file(path, NULL, 1 << 20, NULL, &err);
	assert_non_null(doc);
	assert_int_equal(json_get_num(doc, "cut_runs", &x), 0);
	assert_true(x == 2);
	assert_int_equal(json_get_num(doc, "cut_events", &x), 0);
	assert_true(x == 310);
	json_object_put(doc);
	free(path);
	/* without a run budget the buffers' own size cut them: said so */
	assert_int_equal(remove_tree(dir), 0);
	assert_non_null(mkdtemp(strcpy(dir, "/tmp/test-tracekeep-XXXXXX")));
	fake_case(dir, "hb", "hb", v, NULL, 5, 1024);
	fake_stats(dir, "hb", 0, 0, 42);
	strbuf_reset(&out);
	assert_int_equal(trace_keep_case(dir, "hb", 1 << 20, 0, NULL, NULL, &kc, &err), 0);
	trace_keep_summary("hb", &kc, &out);
	assert_non_null(strstr(out.buf, "; cut 1 run to their end (ring buffer full, 42 events "
				"overwritten)\n"));
	tk_case_release(&kc);
	assert_int_equal(remove_tree(dir), 0);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* lab run's keep: every traced case is pruned, within its trace_keep_mb or
 * the default (PLAN_TRACE_KEEP_DEFAULT_MB); 0 keeps none; untraced cases
 * are left alone. */
static void test_run_keep(void **state)
{
	static const double v[] = { 1.0, 1.1, 1.2, 1.3 };
	char dir[] = "/tmp/test-tracekeep-XXXXXX";
	struct plan_case c[5] = {
		{ .id = "kept", .counters = PLAN_CNT_SCHEDTRACE, .trace_keep_mb = 1,
		  .trace_keep_set = 1 },
		{ .id = "default", .counters = PLAN_CNT_SCHEDTRACE },
		{ .id = "gone", .counters = PLAN_CNT_SCHEDTRACE, .trace_keep_mb = 1,
		  .trace_keep_set = 1 },
		{ .id = "none", .counters = PLAN_CNT_SCHEDTRACE, .trace_keep_set = 1 },
		{ .id = "all", .counters = PLAN_CNT_TASKS },
	};
	struct plan p = { .cases = c, .nr_cases = 5 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct json_object *doc;
	char *path;
	double x;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* 512 KiB a run: the slowest and the fastest fill the MiB */
	fake_case(dir, "kept", "kept", v, NULL, 4, 512 << 10);
	fake_case(dir, "default", "default", v, NULL, 4, 1024);
	fake_case(dir, "none", "none", v, NULL, 4, 1024);
	/* not traced by its plan: whatever is on disk stays */
	fake_case(dir, "all", "all", v, NULL, 4, 1024);
	assert_int_equal(run_keep_traces(dir, &p, &out, &err), 0);
	assert_string_equal(out.buf, "trace: kept: kept run0 (fastest) run3 (slowest); dropped 2 "
			    "runs, 1.0 MiB (budget 1 MiB)\n"
			    "trace: default: kept run0 (fastest) run3 (slowest); dropped 2 "
			    "runs, 0.0 MiB (budget 4 MiB)\n"
			    "trace: none: kept none; dropped 4 runs, 0.0 MiB (budget 0 MiB)\n");
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(run_there(dir, "kept", i), i == 0 || i == 3);
		assert_int_equal(run_there(dir, "default", i), i == 0 || i == 3);
		assert_false(run_there(dir, "none", i));
		assert_true(run_there(dir, "all", i));
	}
	/* what was dropped is counted in the case's kept.json too */
	path = xasprintf("%s/trace/none/kept.json", dir);
	doc = json_read_file(path, NULL, 1 << 20, NULL, &err);
	assert_non_null(doc);
	assert_int_equal(json_get_num(doc, "dropped_runs", &x), 0);
	assert_true(x == 4);
	assert_int_equal(json_get_num(doc, "budget_bytes", &x), 0);
	assert_true(x == 0);
	json_object_put(doc);
	free(path);
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
		cmocka_unit_test(test_cut_runs),
		cmocka_unit_test(test_run_keep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
