/* test-bisect.c - lab bisect's state: the next commit to test, bisect.json
 * written and read back, damaged files refused, the git bisect log; the
 * kernel counters a bisection can follow. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bisect/bisect.h"
#include "bisect/counter.h"
#include "common/plan.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n commits, good first and bad last, with made-up hashes and subjects. */
static void make(struct bisect *b, size_t n)
{
	bisect_init(b);
	b->ksrc = strdup("/src/linux");
	b->good = strdup("v1");
	b->bad = strdup("v2");
	b->topo = strdup("1s2c");
	b->suite = strdup("smoke");
	b->metric_case = strdup("smoke-hackbench/mode=process");
	b->metric_name = strdup("time");
	b->commits = calloc(n, sizeof(*b->commits));
	b->nr_commits = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(b->commits[i].sha, sizeof(b->commits[i].sha), "%040zx", i + 0xa0);
		b->commits[i].subject = malloc(32);
		snprintf(b->commits[i].subject, 32, "commit %zu", i);
	}
	b->commits[0].decision = SEQ_GOOD;
	b->commits[n - 1].decision = SEQ_BAD;
}

static void test_next(void **state)
{
	struct bisect b;
	size_t next, lo, hi;

	(void)state;
	make(&b, 9);
	/* 7 open commits, 1..7: the middle one */
	assert_int_equal(bisect_next(&b, &next, &lo, &hi), 1);
	assert_int_equal(next, 4);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 8);
	b.commits[4].decision = SEQ_GOOD;
	assert_int_equal(bisect_next(&b, &next, &lo, &hi), 1);
	assert_int_equal(lo, 4);
	assert_int_equal(next, 6);
	b.commits[6].decision = SEQ_BAD;
	assert_int_equal(bisect_next(&b, &next, &lo, &hi), 1);
	assert_int_equal(next, 5);
	/* a skipped commit is passed over; with only skips left it is over */
	b.commits[5].skipped = 1;
	assert_int_equal(bisect_next(&b, &next, &lo, &hi), 0);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 6);
	b.commits[5].skipped = 0;
	b.commits[5].decision = SEQ_BAD;
	assert_int_equal(bisect_next(&b, &next, &lo, &hi), 0);
	assert_int_equal(hi, 5);
	bisect_release(&b);
	/* good and bad next to each other: nothing to test */
	make(&b, 2);
	assert_int_equal(bisect_next(&b, &next, &lo, &hi), 0);
	assert_int_equal(hi, 1);
	bisect_release(&b);
}

static char *to_text(const struct bisect *b)
{
	struct json_object *o = bisect_json(b);
	char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return s;
}

static void test_roundtrip(void **state)
{
	struct bisect b, back;
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	char *text;

	(void)state;
	make(&b, 5);
	b.boots = calloc(2, sizeof(*b.boots));
	b.boots[0] = (struct bisect_boot){ 0, 0, strdup("/r/1"), "PASS", 1.25, 9.5 };
	b.boots[1] = (struct bisect_boot){ 2, 1, strdup(""), "HANG", NAN, 60 };
	b.nr_boots = 2;
	b.steps = calloc(1, sizeof(*b.steps));
	b.steps[0].commit = 2;
	b.steps[0].res = (struct seq_result){ SEQ_BAD, 0.0001, 0.4, 0.005, 1.1, 1.0, 0.9, 1, 3 };
	b.nr_steps = 1;
	b.commits[2].decision = SEQ_BAD;
	b.commits[1].skipped = 1;
	b.commits[1].why = strdup("the build failed");
	b.phase = BISECT_DONE;
	b.first_bad = 2;
	b.clock = strdup("virtual");
	text = to_text(&b);
	bisect_init(&back);
	assert_int_equal(bisect_parse(text, strlen(text), &back, &err), 0);
	assert_int_equal(back.nr_commits, 5);
	assert_int_equal(back.nr_boots, 2);
	assert_true(isnan(back.boots[1].value));
	assert_true(back.boots[0].value == 1.25);
	assert_string_equal(back.boots[1].verdict, "HANG");
	assert_int_equal(back.steps[0].res.decision, SEQ_BAD);
	assert_int_equal(back.steps[0].res.n, 3);
	assert_int_equal(back.phase, BISECT_DONE);
	assert_int_equal(back.first_bad, 2);
	assert_true(back.commits[1].skipped);
	assert_string_equal(back.metric_case, "smoke-hackbench/mode=process");
	assert_string_equal(back.clock, "virtual");
	assert_false(back.no_direction);
	/* the log: good and bad, the step, the skip, the verdict */
	bisect_git_log(&back, &log);
	assert_non_null(strstr(log.buf, "git bisect start\n"));
	assert_non_null(strstr(log.buf, "git bisect bad 00000000000000000000000000000000000000a4\n"));
	assert_non_null(strstr(log.buf, "git bisect good 00000000000000000000000000000000000000a0\n"));
	assert_non_null(strstr(log.buf, "git bisect bad 00000000000000000000000000000000000000a2\n"));
	assert_non_null(strstr(log.buf, "git bisect skip 00000000000000000000000000000000000000a1\n"));
	assert_non_null(strstr(log.buf, "# first bad commit: [00000000000000000000000000000000000000a2] commit 2"));
	free(text);
	bisect_release(&b);
	bisect_release(&back);
	strbuf_release(&err);
	strbuf_release(&log);
}

/* A decision row has no better side: the bisection is of "changed",
 * kept across a resume and said so in the text. */
static void test_undirected_roundtrip(void **state)
{
	struct bisect b, back;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	char *text;

	(void)state;
	make(&b, 3);
	b.no_direction = 1;
	b.higher_better = 1;
	text = to_text(&b);
	bisect_init(&back);
	assert_int_equal(bisect_parse(text, strlen(text), &back, &err), 0);
	assert_true(back.no_direction);
	bisect_text(&back, &out);
	assert_non_null(strstr(out.buf, "has no better direction: bad is changed, good is not"));
	assert_null(strstr(out.buf, "higher-is-better"));
	free(text);
	bisect_release(&b);
	bisect_release(&back);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void expect_damaged(const char *text, const char *what)
{
	struct bisect b;
	struct strbuf err = STRBUF_INIT;

	bisect_init(&b);
	if (bisect_parse(text, strlen(text), &b, &err) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(err.buf, what) || strchr(err.buf, '\n'))
		fail_msg("error '%s' does not name '%s'", err.buf, what);
	bisect_release(&b);
	strbuf_release(&err);
}

/* text with the first occurrence of from replaced by to */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	assert_non_null(at);
	out = malloc(strlen(text) + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return out;
}

static void test_damaged(void **state)
{
	struct bisect b;
	char *text, *bad;

	(void)state;
	make(&b, 3);
	b.phase = BISECT_STEPPING;
	text = to_text(&b);
	expect_damaged("", "bisect.json");
	expect_damaged("[]", "not a JSON object");
	expect_damaged("{\"version\": 2}", "version");
	bad = edit(text, "\"version\":1", "\"version\":\"1\"");
	expect_damaged(bad, "version");
	free(bad);
	bad = edit(text, "\"alpha\":0.05", "\"alpha\":7");
	expect_damaged(bad, "alpha");
	free(bad);
	bad = edit(text, "\"phase\":\"stepping\"", "\"phase\":\"sleeping\"");
	expect_damaged(bad, "phase");
	free(bad);
	bad = edit(text, "00000000000000000000000000000000000000a1", "not-a-sha");
	expect_damaged(bad, "commits");
	free(bad);
	bad = edit(text, "\"boots\":[]", "\"boots\":[{\"commit\":7,\"step\":0,\"run\":\"\",\"verdict\":\"PASS\","
		   "\"value\":1,\"seconds\":1}]");
	expect_damaged(bad, "boots");
	free(bad);
	bad = edit(text, "\"suite\":\"smoke\"", "\"suite\":null");
	expect_damaged(bad, "request");
	free(bad);
	free(text);
	bisect_release(&b);
}

/* A counter is a metric only where its case collects it, with its direction. */
static void test_counter_metric(void **state)
{
	struct strbuf names = STRBUF_INIT;
	int hb = -1;

	(void)state;
	assert_int_equal(bisect_counter_metric("ttwu_move_affine", PLAN_CNT_SCHEDSTAT, &hb), 1);
	assert_int_equal(hb, 1);
	assert_int_equal(bisect_counter_metric("migrations/run", PLAN_CNT_TASKS, &hb), 1);
	assert_int_equal(hb, 0);
	hb = -1;
	assert_int_equal(bisect_counter_metric("ttwu_move_affine", PLAN_CNT_TASKS, &hb), 0);
	assert_int_equal(bisect_counter_metric("migrations/run", 0, &hb), 0);
	assert_int_equal(bisect_counter_metric("ttwu_count", PLAN_CNT_SCHEDSTAT, &hb), 0);
	assert_int_equal(hb, -1);
	bisect_counter_names(0, &names);
	assert_int_equal(names.len, 0);
	bisect_counter_names(PLAN_CNT_SCHEDSTAT, &names);
	assert_string_equal(names.buf, "ttwu_move_affine, lb_failed");
	strbuf_reset(&names);
	bisect_counter_names(PLAN_CNT_TASKS | PLAN_CNT_VMSTAT, &names);
	assert_non_null(strstr(names.buf, "migrations/run"));
	assert_null(strstr(names.buf, "ttwu_move_affine"));
	strbuf_release(&names);
}

/* A per-domain counter sums over the domains; none at all is NAN, not 0. */
static void test_counter_value(void **state)
{
	struct cmp_counter k[] = {
		{ "ttwu_move_affine", 0, 300 },
		{ "lb_failed", 0, 7 },
		{ "ttwu_move_affine", 1, 150 },
		{ "ttwu_move_affine", 2, 0 },
		{ "migrations/run", -1, 12.5 },
		{ "lb_failed", 1, NAN },
	};
	struct cmp_case c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.counters = k;
	c.nr_counters = sizeof(k) / sizeof(k[0]);
	assert_true(bisect_counter_value(&c, "ttwu_move_affine") == 450);
	assert_true(bisect_counter_value(&c, "migrations/run") == 12.5);
	assert_true(bisect_counter_value(&c, "lb_failed") == 7);
	assert_true(isnan(bisect_counter_value(&c, "wakeups_migrate/run")));
	c.nr_counters = 0;
	assert_true(isnan(bisect_counter_value(&c, "ttwu_move_affine")));
}

/* A metric's mean before a counter of the same case; nothing from a case
 * that did not pass, as lab compare pools only passing cases. */
static void test_case_value(void **state)
{
	double runs[] = { 2, 4, 9 };
	struct cmp_metric m[] = {
		{ .name = "time", .values = runs, .n = 3 },
		{ .name = "empty", .values = runs, .n = 0 },
	};
	struct cmp_counter k[] = {
		{ "migrations/run", -1, 12.5 },
		{ "ttwu_move_affine", 0, 40 },
		{ "ttwu_move_affine", 2, 2 },
	};
	struct cmp_case c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.verdict = "PASS";
	c.metrics = m;
	c.nr_metrics = 2;
	c.counters = k;
	c.nr_counters = 3;
	assert_true(bisect_case_value(&c, "time") == 5);
	assert_true(bisect_case_value(&c, "ttwu_move_affine") == 42);
	assert_true(bisect_case_value(&c, "migrations/run") == 12.5);
	assert_true(isnan(bisect_case_value(&c, "empty")));
	assert_true(isnan(bisect_case_value(&c, "nothing")));
	c.verdict = "FAIL"; /* an RCU stall splat during the case */
	assert_true(isnan(bisect_case_value(&c, "time")));
	assert_true(isnan(bisect_case_value(&c, "ttwu_move_affine")));
	c.verdict = "HANG";
	assert_true(isnan(bisect_case_value(&c, "migrations/run")));
	c.verdict = NULL;
	assert_true(isnan(bisect_case_value(&c, "time")));
}

/* Failures in a row: counted back from the commit's last boot of the step,
 * up to its last boot with a value; other commits and steps do not count. */
static void test_failed_in_a_row(void **state)
{
	/* commit, step, value (NAN: the boot gave none) */
	static const struct { size_t c; unsigned s; double v; } seq[] = {
		{ 0, 0, NAN }, { 0, 0, 5 }, { 0, 0, NAN }, { 2, 0, NAN }, { 0, 0, NAN },
		{ 0, 1, NAN }, { 2, 0, 3 },
	};
	struct bisect b;

	(void)state;
	make(&b, 3);
	b.boots = calloc(sizeof(seq) / sizeof(seq[0]), sizeof(*b.boots));
	assert_non_null(b.boots);
	assert_int_equal(bisect_failed_in_a_row(&b, 0, 0), 0);
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		b.boots[i].commit = seq[i].c;
		b.boots[i].step = seq[i].s;
		b.boots[i].value = seq[i].v;
		b.boots[i].run = strdup("");
		b.nr_boots++;
	}
	assert_int_equal(bisect_failed_in_a_row(&b, 0, 0), 2);
	assert_int_equal(bisect_failed_in_a_row(&b, 0, 1), 1);
	assert_int_equal(bisect_failed_in_a_row(&b, 2, 0), 0);
	assert_int_equal(bisect_failed_in_a_row(&b, 1, 0), 0);
	bisect_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_undirected_roundtrip),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_counter_metric),
		cmocka_unit_test(test_counter_value),
		cmocka_unit_test(test_case_value),
		cmocka_unit_test(test_failed_in_a_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
