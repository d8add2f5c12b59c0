/* test-abdecide.c - lab ab's decisions over run directories: which metric
 * is a case's row, which cases an expectation stands for, which boots
 * give values, and the exit codes and JUnit of the outcome. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/abdecide.h"

#include <ftw.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[] = "/tmp/test-abdecide.XXXXXX";
static unsigned nr_runs;

/* One case of a cases.json: "time" (lower is better) and "lat" per run. */
static struct json_object *mk_case(const char *id, const char *verdict, double time, double lat)
{
	struct json_object *c = json_object_new_object(), *ms = json_object_new_object();
	const char *names[] = { "time", "lat" };
	const double v[] = { time, lat };

	json_object_object_add(c, "case", json_object_new_string(id));
	json_object_object_add(c, "scenario", json_object_new_string_len(id, (int)strcspn(id, "/")));
	json_object_object_add(c, "workload", json_object_new_string("hackbench"));
	json_object_object_add(c, "verdict", json_object_new_string(verdict));
	json_object_object_add(c, "reason", json_object_new_string(""));
	for (int k = 0; k < 2; k++) {
		struct json_object *m = json_object_new_object(), *vals = json_object_new_array();

		for (int r = 0; r < 3; r++)
			json_object_array_add(vals, json_object_new_double(v[k] * (1 + 0.001 * (r - 1))));
		json_object_object_add(m, "unit", json_object_new_string("s"));
		json_object_object_add(m, "better", json_object_new_string("lower"));
		json_object_object_add(m, "statistic", json_object_new_string("amean"));
		json_object_object_add(m, "declared", json_object_new_boolean(1));
		json_object_object_add(m, "values", vals);
		json_object_object_add(ms, names[k], m);
	}
	json_object_object_add(c, "metrics", ms);
	return c;
}

/* A run of two cases of scenario "s" and one of "t"; the test side's
 * times are `slower` times the base's, with a little noise per boot. */
static char *mk_run(double slower, unsigned boot, const char *verdict_s1)
{
	char *dir = xasprintf("%s/r%u", root, nr_runs++);
	struct json_object *doc = json_object_new_object(), *cases = json_object_new_array();
	double wiggle = 1 + 0.002 * ((boot % 3) - 1.0);
	char *p;
	const char *rj = "{\"kernel\": \"k\", \"spec\": \"1s2c\", \"spec_resolved\": \"1s2c\", "
			 "\"suite\": \"x\"}\n";

	assert_int_equal(mkdir_p(dir, 0755), 0);
	json_object_array_add(cases, mk_case("s/mode=a", verdict_s1, 10 * slower * wiggle, 5 * wiggle));
	json_object_array_add(cases, mk_case("s/mode=b", "PASS", 20 * slower * wiggle, 7 * wiggle));
	json_object_array_add(cases, mk_case("t", "PASS", 30 * wiggle, 9 * slower * wiggle));
	json_object_object_add(doc, "cases", cases);
	p = xasprintf("%s/run.json", dir);
	assert_int_equal(write_file_atomic(p, rj, strlen(rj)), 0);
	free(p);
	p = xasprintf("%s/cases.json", dir);
	assert_int_equal(write_file_atomic(p, json_object_to_json_string(doc),
					   strlen(json_object_to_json_string(doc))), 0);
	free(p);
	json_object_put(doc);
	return dir;
}

/* rounds of ABBA with the test `slower`; case s/mode=a fails in the test's
 * boots when fail_test */
static void boots(struct abd *a, unsigned rounds, double slower, int fail_test)
{
	static const unsigned side[] = { 0, 1, 1, 0 };
	struct strbuf err = STRBUF_INIT;

	for (unsigned r = 1; r <= rounds; r++) {
		for (unsigned k = 0; k < 4; k++) {
			char *run = mk_run(side[k] ? slower : 1, r * 4 + k,
					   side[k] && fail_test ? "CRASH" : "PASS");

			abd_add_boot(a, side[k], r, run);
			free(run);
		}
		assert_int_equal(abd_look(a, r, &err), 0);
	}
	strbuf_release(&err);
}

static void expect_of(struct abd *a, const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct expect e;

	assert_int_equal(expect_parse(text, NULL, &e, &err), 0);
	abd_add_expect(a, &e);
	strbuf_release(&err);
}

static const struct decide_params params = { 0.05, 0.02, 5, 2 };

static void test_primary_rows(void **state)
{
	struct abd a;

	(void)state;
	abd_init(&a, &params);
	abd_add_primary(&a, "t", "lat");
	abd_add_primary(&a, "s", "");
	boots(&a, 2, 1.10, 0);
	assert_int_equal(a.nr_rows, 3);
	assert_string_equal(a.rows[0].case_id, "s/mode=a");
	assert_string_equal(a.rows[0].metric, "time");	/* the first metric */
	assert_string_equal(a.rows[2].case_id, "t");
	assert_string_equal(a.rows[2].metric, "lat");	/* primary = lat */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(a.rows[i].d.state, DECIDE_CHANGED);
		assert_true(fabs(a.rows[i].d.est - 0.10) < 0.01);
		assert_true(a.rows[i].worse);	/* lower is better, and it grew */
		assert_int_equal(a.rows[i].d.nb, 4);
	}
	assert_true(abd_all_decided(&a));
	assert_int_equal(abd_exit_code(&a), LAB_EXIT_PASS);	/* the caller adds "worse" */
	abd_release(&a);
}

static void test_expectations(void **state)
{
	struct strbuf x = STRBUF_INIT;
	struct abd a;
	double more;

	(void)state;
	abd_init(&a, &params);
	expect_of(&a, "s:time <= +1%");		/* both cases of s */
	expect_of(&a, "s/mode=b:time <= +20%");
	expect_of(&a, "t:time == +-1%");
	boots(&a, 2, 1.05, 0);
	assert_int_equal(a.nr_checks, 4);
	assert_int_equal(abd_expect_state(&a, 0, NULL), DECIDE_VIOLATED);
	assert_int_equal(abd_expect_state(&a, 1, NULL), DECIDE_HOLDS);
	assert_int_equal(abd_expect_state(&a, 2, &more), DECIDE_HOLDS);
	assert_int_equal(abd_exit_code(&a), LAB_EXIT_FAIL);
	abd_junit(&a, &x);
	assert_non_null(strstr(x.buf, "tests=\"3\" failures=\"1\" errors=\"0\""));
	assert_non_null(strstr(x.buf, "name=\"s:time &lt;= +1%\">\n      <failure type=\"violated\""));
	strbuf_release(&x);
	abd_release(&a);

	/* one round of a case that only just misses: open, exit 3, an error in JUnit */
	abd_init(&a, &(struct decide_params){ 0.05, 0.02, 1, 2 });
	expect_of(&a, "t:lat <= +6%");
	boots(&a, 1, 1.05, 0);
	assert_int_equal(abd_expect_state(&a, 0, &more), DECIDE_OPEN);
	assert_true(more >= 1);
	assert_int_equal(abd_exit_code(&a), LAB_EXIT_UNDECIDED);
	abd_junit(&a, &x);
	assert_non_null(strstr(x.buf, "<error type=\"undecided\""));
	strbuf_release(&x);
	abd_text(&a, &x);
	if (!strstr(x.buf, "expect t:lat <= +6%: undecided, about "))
		fail_msg("%s", x.buf);
	strbuf_release(&x);
	abd_release(&a);
}

static void test_failed_boots_give_no_values(void **state)
{
	struct abd a;

	(void)state;
	abd_init(&a, &params);
	boots(&a, 2, 1.0, 1);
	assert_int_equal(a.rows[0].d.nb, 4);
	assert_int_equal(a.rows[0].d.nt, 0);	/* s/mode=a crashed in every test boot */
	assert_int_equal(a.rows[0].d.state, DECIDE_OPEN);
	assert_non_null(a.rows[0].d.why);
	assert_int_equal(a.rows[1].d.nt, 4);
	assert_int_equal(abd_exit_code(&a), LAB_EXIT_UNDECIDED);
	abd_release(&a);
}

static void test_bad_expectations(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct abd a;
	char *run = mk_run(1, 0, "PASS");

	(void)state;
	abd_init(&a, &params);
	expect_of(&a, "nosuch:time <= 1%");
	abd_add_boot(&a, 0, 1, run);
	assert_int_equal(abd_look(&a, 1, &err), -1);
	assert_string_equal(err.buf, "expectation 'nosuch:time <= +1%': no case 'nosuch' in the suite");
	abd_release(&a);
	strbuf_reset(&err);
	abd_init(&a, &params);
	expect_of(&a, "t:nosuch <= 1%");
	abd_add_boot(&a, 0, 1, run);
	assert_int_equal(abd_look(&a, 1, &err), -1);
	assert_string_equal(err.buf, "expectation 't:nosuch <= +1%': case 't' has no metric 'nosuch'");
	abd_release(&a);
	/* no boot with results yet: nothing to look at, and not decided */
	abd_init(&a, &params);
	abd_add_boot(&a, 0, 1, NULL);
	assert_int_equal(abd_look(&a, 1, &err), 0);
	assert_false(abd_all_decided(&a));
	assert_int_equal(abd_exit_code(&a), LAB_EXIT_UNDECIDED);
	abd_release(&a);
	free(run);
	strbuf_release(&err);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(root) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primary_rows),
		cmocka_unit_test(test_expectations),
		cmocka_unit_test(test_failed_boots_give_no_values),
		cmocka_unit_test(test_bad_expectations),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
