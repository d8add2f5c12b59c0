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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ends_and_outlier),
		cmocka_unit_test(test_budget_and_faults),
		cmocka_unit_test(test_parse_results),
		cmocka_unit_test(test_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
