/* test-compare.c - `lab compare` over result directories written by the test:
 * seed 000's tables from the same inputs, verdicts, counters, JSON, JUnit. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/compare.h"
#include "report/summary.h"
#include "results/schedtrace.h"

#include <ftw.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Golden files live in tests/golden/compare/.  seed000-*.txt are written by
 * hand from seed 000 (K Prateek Nayak, LKML, 2025-06-18) and are never
 * regenerated; full*.txt are this tool's own output, reviewed, and rewritten
 * with UPDATE_GOLDEN=1 build/tests/test-compare after an intended change.
 */

static char root[] = "/tmp/test-compare.XXXXXX";

/* ---- fixtures ---- */

static struct json_object *fx_case(const char *id, const char *verdict, const char *reason)
{
	struct json_object *c = json_object_new_object();
	const char *slash = strchr(id, '/');

	json_object_object_add(c, "case", json_object_new_string(id));
	json_object_object_add(c, "scenario",
			       json_object_new_string_len(id, slash ? (int)(slash - id) : (int)strlen(id)));
	json_object_object_add(c, "workload", json_object_new_string("hackbench"));
	json_object_object_add(c, "verdict", json_object_new_string(verdict));
	json_object_object_add(c, "reason", json_object_new_string(reason));
	json_object_object_add(c, "metrics", json_object_new_object());
	return c;
}

static void fx_metric(struct json_object *c, const char *name, const char *unit, const char *better,
		      const char *stat, const double *v, size_t n)
{
	struct json_object *ms, *m = json_object_new_object(), *vals = json_object_new_array();

	json_object_object_get_ex(c, "metrics", &ms);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(vals, json_object_new_double(v[i]));
	json_object_object_add(m, "unit", json_object_new_string(unit));
	json_object_object_add(m, "better", json_object_new_string(better));
	json_object_object_add(m, "statistic", json_object_new_string(stat));
	json_object_object_add(m, "declared", json_object_new_boolean(1));
	json_object_object_add(m, "values", vals);
	json_object_object_add(ms, name, m);
}

static void fx_counters(struct json_object *c, double migrations, double lb0, double lb1,
			double pages)
{
	struct json_object *t = json_object_new_object(), *vm = json_object_new_object();
	struct json_object *ss = json_object_new_object(), *doms = json_object_new_object();

	json_object_object_add(t, "nr_migrations", json_object_new_double(migrations));
	json_object_object_add(c, "tasks", t);
	json_object_object_add(vm, "numa_pages_migrated", json_object_new_int64((int64_t)pages));
	json_object_object_add(c, "vmstat_delta", vm);
	for (int l = 0; l < 2; l++) {
		struct json_object *d = json_object_new_object(), *idle = json_object_new_object();
		char name[16];

		json_object_object_add(d, "level", json_object_new_int(l));
		json_object_object_add(idle, "lb_count", json_object_new_int64((int64_t)(l ? lb1 : lb0)));
		json_object_object_add(idle, "lb_failed", json_object_new_int64(3));
		json_object_object_add(d, "idle", idle);
		json_object_object_add(d, "ttwu_move_affine", json_object_new_int64(0));
		snprintf(name, sizeof(name), "domain%d", l);
		json_object_object_add(doms, name, d);
	}
	json_object_object_add(ss, "domains", doms);
	json_object_object_add(c, "schedstat", ss);
}

static void fx_write(const char *dir, const char *file, const char *text)
{
	char *p = xasprintf("%s/%s", dir, file);

	assert_int_equal(write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

/* A list of one case whose metric "time" is judged by better= and statistic=. */
static struct json_object *json_array_of_case(const char *id, const char *better, const char *stat,
					      const double *v)
{
	struct json_object *a = json_object_new_array(), *c = fx_case(id, "PASS", "");

	fx_metric(c, "time", "s", better, stat, v, 3);
	json_object_array_add(a, c);
	return a;
}

/* Writes results/<name>/ with run.json and cases.json; consumes cases. */
static char *fx_run(const char *name, const char *kernel, const char *suite, const char *spec,
		    struct json_object *cases)
{
	char *dir = xasprintf("%s/results/%s", root, name);
	struct json_object *doc = json_object_new_object();
	char *rj;

	assert_int_equal(mkdir_p(dir, 0755), 0);
	rj = xasprintf("{\"kernel\": \"%s\", \"spec\": \"%s\", \"spec_resolved\": \"%s,nps=1\", "
		       "\"suite\": \"%s\"}\n", kernel, spec, spec, suite);
	fx_write(dir, "run.json", rj);
	free(rj);
	json_object_object_add(doc, "cases", cases);
	fx_write(dir, "cases.json", json_object_to_json_string(doc));
	json_object_put(doc);
	return dir;
}

/* Three runs whose mean is m and whose CV is exactly cv percent:
 * m(1 - c), m, m(1 + c) have a sample standard deviation of m c. */
static void three(double m, double cv, double *v)
{
	v[0] = m * (1 - cv / 100);
	v[1] = m;
	v[2] = m * (1 + cv / 100);
}

static void load(struct cmp_run *r, const char *dir, const char *label)
{
	struct strbuf err = STRBUF_INIT;

	memset(r, 0, sizeof(*r));
	if (cmp_run_load(r, dir, &err) < 0)
		fail_msg("cannot load '%s': %s", dir, err.buf);
	if (label) {
		free(r->label);
		r->label = xstrdup(label);
	}
	strbuf_release(&err);
}

static void check_golden(const char *file, const char *got, int may_update)
{
	char *path = xasprintf("%s/tests/golden/compare/%s", lab_root(), file);
	const char *update = getenv("UPDATE_GOLDEN");
	char *want;

	if (may_update && update && *update)
		assert_int_equal(write_file_atomic(path, got, strlen(got)), 0);
	want = read_file(path, NULL);
	if (!want)
		fail_msg("cannot read '%s'", path);
	if (strcmp(want, got))
		fail_msg("output differs from '%s':\n%s", path, got);
	free(want);
	free(path);
}

/* Runs of blanks squeezed to one and leading blanks dropped: the seed
 * archive's HTML rendering did that to the mail. */
static char *squeeze(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	int bol = 1;

	for (; *s; s++) {
		if (*s == ' ' && (bol || s[1] == ' ' || s[1] == '\n'))
			continue;
		bol = *s == '\n';
		strbuf_addch(&sb, *s);
	}
	return strbuf_detach(&sb);
}

/* ---- seed 000 ---- */

static const struct seed_row {
	const char *axis;
	double base_cv, pct, test_cv;
} hackbench_rows[] = {
	{ "groups=1", 13.74, -3.20, 9.18 }, { "groups=2", 9.58, -6.46, 7.63 },
	{ "groups=4", 2.10, -1.30, 1.90 },  { "groups=8", 1.51, 1.42, 0.91 },
	{ "groups=16", 1.10, 1.09, 1.13 },
}, netperf_rows[] = {
	{ "clients=1", 0.41, 1.17, 0.39 },   { "clients=2", 0.58, 1.00, 0.40 },
	{ "clients=4", 0.35, 0.73, 0.50 },   { "clients=8", 0.48, 0.42, 0.67 },
	{ "clients=16", 0.66, 0.84, 0.57 },  { "clients=32", 1.15, 0.82, 0.96 },
	{ "clients=64", 1.38, -0.24, 3.09 }, { "clients=128", 0.87, -0.16, 1.02 },
	{ "clients=256", 5.36, 0.66, 4.55 }, { "clients=512", 54.39, -1.59, 57.35 },
};

/*
 * The inputs behind seed 000's rows: a baseline mean, the test mean that
 * gives the posted pct imp (sign flipped for lower-is-better), and three
 * runs per side with exactly the posted CVs.
 */
static void seed_runs(const char *scen, const char *metric, const char *unit, int higher,
		      const struct seed_row *rows, size_t nr, struct json_object *base,
		      struct json_object *test)
{
	for (size_t i = 0; i < nr; i++) {
		char *id = xasprintf("%s/%s", scen, rows[i].axis);
		double m = 2.5, ratio = 1 + (higher ? 1 : -1) * rows[i].pct / 100, v[3];
		struct json_object *cb = fx_case(id, "PASS", "3 measured runs");
		struct json_object *ct = fx_case(id, "PASS", "3 measured runs");

		three(m, rows[i].base_cv, v);
		fx_metric(cb, metric, unit, higher ? "higher" : "lower", "amean", v, 3);
		three(m * ratio, rows[i].test_cv, v);
		fx_metric(ct, metric, unit, higher ? "higher" : "lower", "amean", v, 3);
		json_object_array_add(base, cb);
		json_object_array_add(test, ct);
		free(id);
	}
}

static void test_seed000_tables(void **state)
{
	struct json_object *b = json_object_new_array(), *t = json_object_new_array();
	struct cmp_run runs[2];
	struct comparison c;
	struct strbuf out = STRBUF_INIT;
	char *bd, *td, *quoted, *squeezed, *qpath, *cut;

	(void)state;
	seed_runs("hackbench", "time", "s", 0, hackbench_rows, ARRAY_SIZE(hackbench_rows), b, t);
	seed_runs("netperf", "Througput", "", 1, netperf_rows, ARRAY_SIZE(netperf_rows), b, t);
	bd = fx_run("seed-tip", "6.15.0-tip", "seed000", "2s64c2t", b);
	td = fx_run("seed-imb", "6.15.0-imb", "seed000", "2s64c2t", t);
	load(&runs[0], bd, "tip");
	load(&runs[1], td, "allow_imb");
	comparison_build(&c, runs, 2);
	assert_int_equal(c.nr_blocks, 2);
	comparison_text(&c, CMP_TEXT_BARE, &out);

	/* exact spacing, block by block */
	cut = strstr(out.buf, "\n\n\n");
	assert_non_null(cut);
	{
		char *first = xasprintf("%.*s", (int)(cut + 3 - out.buf), out.buf);

		check_golden("seed000-hackbench.txt", first, 0);
		check_golden("seed000-netperf.txt", cut + 3, 0);
		free(first);
	}

	/* every character but the blanks, against the lines as the seed posted
	 * them; our one deviation: the netperf table says "Case:" where the mail
	 * says "Clients:" */
	qpath = xasprintf("%s/tests/golden/compare/seed000-quoted.txt", lab_root());
	quoted = read_file(qpath, NULL);
	assert_non_null(quoted);
	squeezed = squeeze(out.buf);
	{
		struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
		char *q = strstr(quoted, "Clients:");

		assert_non_null(q);
		strbuf_add(&want, quoted, (size_t)(q - quoted));
		strbuf_addstr(&want, "Case:");
		strbuf_addstr(&want, q + strlen("Clients:"));
		for (const char *p = squeezed; *p; p++)
			if (*p != '\n' || (got.len && got.buf[got.len - 1] != '\n'))
				strbuf_addch(&got, *p);
		assert_string_equal(got.buf, want.buf);
		strbuf_release(&want);
		strbuf_release(&got);
	}
	/* three runs per side with these CVs cannot decide any row */
	assert_int_equal(c.count[CMP_IMPROVED] + c.count[CMP_REGRESSED], 0);
	free(quoted);
	free(squeezed);
	free(qpath);
	strbuf_release(&out);
	comparison_release(&c);
	cmp_run_release(&runs[0]);
	cmp_run_release(&runs[1]);
	free(bd);
	free(td);
}

/* ---- a comparison with every kind of row ---- */

/* Ten deviates summing to zero: runs that look measured, yet fixed. */
static const double dev[10] = { -1.2, 0.3, 0.9, -0.5, 0.1, 1.5, -0.8, 0.6, -0.2, -0.7 };

static void runs_of(double m, double cv, size_t n, double *v, size_t shift)
{
	for (size_t i = 0; i < n; i++)
		v[i] = m * (1 + cv / 100 * dev[(i + shift) % 10]);
}

/*
 * Three runs of a suite "synth": baseline, a "fast" kernel and a "slow" one.
 * Rows (clients axis, time lower-is-better):
 *   clients=1  fast 20 % quicker, slow 2x slower      (n = 10, CV 1 %)
 *   clients=2  all alike within 0.2 %                 (n = 10, CV 0.5 %)
 *   clients=4  +-5 % differences buried in 20 % noise (n = 3)
 *   clients=8  same mean, slow's spread 15x larger    (n = 10)
 *   clients=16 FAIL in slow: no data there
 * plus a median latency (rank test) on clients=1.
 */
static void synth_runs(char **dirs)
{
	static const char *const kernels[] = { "6.1.0-base", "6.1.0-fast", "6.1.0-slow" };
	static const double f1[] = { 1.0, 0.8, 2.0 }, f4[] = { 1.0, 0.95, 1.05 };

	for (int k = 0; k < 3; k++) {
		struct json_object *cases = json_object_new_array(), *c;
		double v[10];
		char name[32];

		c = fx_case("synth/clients=1", "PASS", "10 measured runs");
		runs_of(3.0 * f1[k], 1, 10, v, (size_t)k);
		fx_metric(c, "time", "s", "lower", "amean", v, 10);
		runs_of(100 * f1[k], 2, 10, v, (size_t)k + 3);
		fx_metric(c, "latency_p99", "us", "lower", "median", v, 10);
		fx_counters(c, k == 2 ? 900 : 300, 1000, 400, k == 2 ? 5000 : 20);
		json_object_array_add(cases, c);

		c = fx_case("synth/clients=2", "PASS", "10 measured runs");
		runs_of(3.0 * (1 + 0.001 * k), 0.5, 10, v, (size_t)k * 3);
		fx_metric(c, "time", "s", "lower", "amean", v, 10);
		runs_of(100, 0.5, 10, v, (size_t)k * 3);
		fx_metric(c, "latency_p99", "us", "lower", "median", v, 10);
		fx_counters(c, 300, 1000, 400, 20);
		json_object_array_add(cases, c);

		c = fx_case("synth/clients=4", "PASS", "3 measured runs");
		runs_of(3.0 * f4[k], 20, 3, v, (size_t)k);
		fx_metric(c, "time", "s", "lower", "amean", v, 3);
		runs_of(100, 1, 3, v, (size_t)k);
		fx_metric(c, "latency_p99", "us", "lower", "median", v, 3);
		json_object_array_add(cases, c);

		c = fx_case("synth/clients=8", "PASS", "10 measured runs");
		runs_of(3.0, k == 2 ? 15 : 1, 10, v, (size_t)k);
		fx_metric(c, "time", "s", "lower", "amean", v, 10);
		runs_of(100, 0.5, 10, v, (size_t)k);
		fx_metric(c, "latency_p99", "us", "lower", "median", v, 10);
		json_object_array_add(cases, c);

		if (k == 2) {
			c = fx_case("synth/clients=16", "FAIL", "run 1 exit: status 1");
		} else {
			c = fx_case("synth/clients=16", "PASS", "10 measured runs");
			runs_of(3.0, 1, 10, v, (size_t)k);
			fx_metric(c, "time", "s", "lower", "amean", v, 10);
			fx_metric(c, "latency_p99", "us", "lower", "median", v, 10);
		}
		json_object_array_add(cases, c);
		snprintf(name, sizeof(name), "synth-%d", k);
		dirs[k] = fx_run(name, kernels[k], "synth", "1s4c", cases);
	}
}

static const struct cmp_test *row_test(const struct comparison *c, const char *metric,
				       const char *label, size_t k)
{
	for (size_t i = 0; i < c->nr_blocks; i++)
		if (!strcmp(c->blocks[i].metric, metric))
			for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
				if (!strcmp(c->blocks[i].rows[r].label, label))
					return &c->blocks[i].rows[r].tests[k];
	fail_msg("no row %s %s", metric, label);
	return NULL;
}

static void test_verdicts(void **state)
{
	struct cmp_run runs[3];
	struct comparison c;
	const struct cmp_test *t;
	char *dirs[3];

	(void)state;
	synth_runs(dirs);
	for (int k = 0; k < 3; k++)
		load(&runs[k], dirs[k], NULL);
	comparison_build(&c, runs, 3);
	assert_int_equal(c.nr_blocks, 2);
	assert_string_equal(c.blocks[0].title, "synth time");
	assert_string_equal(c.blocks[1].title, "synth latency_p99");

	t = row_test(&c, "time", "1-clients", 0);
	assert_int_equal(t->verdict, CMP_IMPROVED);
	assert_string_equal(t->method, "welch");
	assert_true(t->ci_lo > 0.78 && t->ci_hi < 0.82);
	t = row_test(&c, "time", "1-clients", 1);
	assert_int_equal(t->verdict, CMP_REGRESSED);
	assert_true(t->ci_lo > 1.95 && t->ci_hi < 2.05);
	t = row_test(&c, "latency_p99", "1-clients", 1);
	assert_int_equal(t->verdict, CMP_REGRESSED);
	assert_string_equal(t->method, "mann-whitney");
	assert_true(t->t.exact);
	/* 10 vs 10 with no overlap: 2 / C(20,10) */
	assert_true(fabs(t->t.p - 2.0 / 184756) < 1e-12);

	assert_int_equal(row_test(&c, "time", "2-clients", 0)->verdict, CMP_SAME);
	assert_int_equal(row_test(&c, "time", "2-clients", 1)->verdict, CMP_SAME);
	t = row_test(&c, "time", "4-clients", 1);
	assert_int_equal(t->verdict, CMP_UNDECIDED);
	assert_true(t->more_runs >= 10);
	t = row_test(&c, "time", "8-clients", 1);
	assert_true(t->bf_q < 0.05);
	assert_true(row_test(&c, "time", "8-clients", 0)->bf_q > 0.05);
	assert_int_equal(row_test(&c, "time", "16-clients", 1)->verdict, CMP_NODATA);
	assert_int_equal(row_test(&c, "time", "16-clients", 0)->verdict, CMP_SAME);
	assert_int_equal(c.bad_cases, 1);
	assert_int_equal(comparison_exit_code(&c), 1);

	comparison_release(&c);
	for (int k = 0; k < 3; k++) {
		cmp_run_release(&runs[k]);
		free(dirs[k]);
	}
}

static void test_full_text_json_junit(void **state)
{
	struct cmp_run runs[3];
	struct comparison c;
	struct strbuf out = STRBUF_INIT, narrow = STRBUF_INIT, xml = STRBUF_INIT;
	struct json_object *j, *rows, *sum, *x;
	const char *js;
	char *dirs[3];

	(void)state;
	synth_runs(dirs);
	for (int k = 0; k < 3; k++)
		load(&runs[k], dirs[k], NULL);
	comparison_build(&c, runs, 3);
	comparison_text(&c, 0, &out);
	check_golden("full.txt", out.buf, 1);
	/* the answer first, before the first table; --summary-last as before */
	assert_true(strstr(out.buf, "\nSummary\n-------\n") < strstr(out.buf, "\nTest          :"));
	{
		struct strbuf last = STRBUF_INIT;

		comparison_text(&c, CMP_TEXT_SUMMARY_LAST, &last);
		assert_true(strstr(last.buf, "\nSummary\n-------\n") >
			    strstr(last.buf, "\nTest          :"));
		/* the same text, less the blank lines that ended the last table */
		assert_int_equal(last.len, out.len + 2);
		strbuf_release(&last);
	}
	comparison_text(&c, CMP_TEXT_NARROW, &narrow);
	check_golden("full-narrow.txt", narrow.buf, 1);
	for (const char *p = narrow.buf; *p;) {
		size_t n = strcspn(p, "\n");

		if (n > 80)
			fail_msg("--narrow line of %zu columns: %.*s", n, (int)n, p);
		p += n + (p[n] == '\n');
	}
	/* what the summary must say, in words */
	assert_non_null(strstr(out.buf, "6.1.0-slow against 6.1.0-base: 10 rows, 0 improved, 2 regressed"));
	assert_non_null(strstr(out.buf, "Variance changed (Brown-Forsythe q<0.05):\n- synth/clients=8 time (6.1.0-slow)"));
	assert_non_null(strstr(out.buf, "migrations/run 300 -> 900 (+200.0%)"));
	assert_non_null(strstr(out.buf, "synth/clients=16 in 6.1.0-slow: FAIL (run 1 exit: status 1)"));
	assert_non_null(strstr(out.buf, "about 205 more runs per side would decide"));

	j = comparison_json(&c);
	js = json_object_to_json_string(j);
	assert_null(strstr(js, "NaN"));
	assert_null(strstr(js, "Infinity"));
	x = json_tokener_parse(js);
	assert_non_null(x);
	json_object_put(x);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	assert_int_equal(json_object_array_length(rows), 20);
	for (size_t i = 0; i < 20; i++) {
		struct json_object *row = json_object_array_get_idx(rows, i), *v;

		assert_true(json_object_object_get_ex(row, "verdict", &v));
	}
	assert_true(json_object_object_get_ex(j, "summary", &sum));
	assert_true(json_object_object_get_ex(sum, "regression", &x));
	assert_int_equal(json_object_get_int(x), 2);
	assert_true(json_object_object_get_ex(j, "exit_code", &x));
	assert_int_equal(json_object_get_int(x), 1);
	json_object_put(j);

	comparison_junit(&c, &xml);
	assert_non_null(strstr(xml.buf, "<testsuites name=\"lab compare\" tests=\"7\" failures=\"3\" skipped=\"0\">"));
	assert_non_null(strstr(xml.buf, "name=\"synth/clients=1 time: 6.1.0-slow vs 6.1.0-base\">"));
	assert_non_null(strstr(xml.buf, "<failure message=\"FAIL in 6.1.0-slow: run 1 exit: status 1\"/>"));

	strbuf_release(&out);
	strbuf_release(&narrow);
	strbuf_release(&xml);
	comparison_release(&c);
	for (int k = 0; k < 3; k++) {
		cmp_run_release(&runs[k]);
		free(dirs[k]);
	}
}

/* A case whose traces were pruned keeping outliers: every output's
 * summary names the case, the side, the runs and their z (issue 15). */
static void test_summary_kept_outliers(void **state)
{
	struct cmp_run runs[3];
	struct comparison c;
	struct strbuf out = STRBUF_INIT;
	struct json_object *j, *items;
	char *dirs[3], *cdir, *tdir;
	int found = 0;

	(void)state;
	synth_runs(dirs);
	cdir = schedtrace_case_dir("synth/clients=8");
	tdir = xasprintf("%s/trace/%s", dirs[2], cdir);
	assert_int_equal(mkdir_p(tdir, 0755), 0);
	fx_write(tdir, "kept.json", "{\"kept\": [{\"run\": 3, \"why\": \"outlier,slowest\", "
				    "\"z\": 5.1, \"bytes\": 4096}, {\"run\": 0, \"why\": \"fastest\", "
				    "\"z\": -0.4, \"bytes\": 4096}], \"dropped_runs\": 8}");
	for (int k = 0; k < 3; k++)
		load(&runs[k], dirs[k], NULL);
	comparison_build(&c, runs, 3);
	comparison_text(&c, 0, &out);
	assert_non_null(strstr(out.buf, "Kept outlier traces (lab trace RUN --case C --run N):\n"
				"- synth/clients=8 in 6.1.0-slow: run3 (z 5.1, slowest)\n"));
	/* the fastest run is kept too, but it is no outlier: not listed */
	assert_null(strstr(out.buf, "run0 (z"));
	j = comparison_json(&c);
	assert_true(json_object_object_get_ex(j, "summary_items", &items));
	for (size_t i = 0; i < json_object_array_length(items); i++) {
		struct json_object *text;

		if (json_object_object_get_ex(json_object_array_get_idx(items, i), "text", &text) &&
		    !strcmp(json_object_get_string(text), "synth/clients=8 in 6.1.0-slow: run3 (z 5.1, slowest)"))
			found = 1;
	}
	assert_true(found);
	json_object_put(j);
	assert_int_equal(remove_tree(tdir), 0);
	free(tdir);
	free(cdir);
	strbuf_release(&out);
	comparison_release(&c);
	for (int k = 0; k < 3; k++) {
		cmp_run_release(&runs[k]);
		free(dirs[k]);
	}
}

/* Sets schedtrace.wakeups_from of one case in dir's cases.json. */
static void set_wakeups_from(const char *dir, const char *id, const char *from)
{
	char *path = xasprintf("%s/cases.json", dir);
	struct json_object *doc = json_object_from_file(path), *cases, *st;

	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "cases", &cases));
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		struct json_object *c = json_object_array_get_idx(cases, i), *v;

		if (!json_object_object_get_ex(c, "case", &v) || strcmp(json_object_get_string(v), id))
			continue;
		st = json_object_new_object();
		json_object_object_add(st, "wakeups_from", json_object_new_string(from));
		json_object_object_add(c, "schedtrace", st);
	}
	assert_int_equal(json_object_to_file(path, doc), 0);
	json_object_put(doc);
	free(path);
}

/* A baseline traced with sched_wakeup against runs without it: the
 * summary names the case and both sides; equal sides and untraced cases
 * say nothing; a pool of both kinds is "mixed". */
static void test_summary_event_sets(void **state)
{
	struct cmp_run runs[3], two[2], pooled = { 0 };
	struct comparison c;
	struct strbuf out = STRBUF_INIT;
	char *dirs[3];

	(void)state;
	synth_runs(dirs);
	set_wakeups_from(dirs[0], "synth/clients=8", "sched_wakeup");
	set_wakeups_from(dirs[1], "synth/clients=8", "sched_wakeup");
	set_wakeups_from(dirs[2], "synth/clients=8", "sched_waking");
	set_wakeups_from(dirs[0], "synth/clients=2", "sched_waking");
	set_wakeups_from(dirs[2], "synth/clients=2", "sched_waking");
	for (int k = 0; k < 3; k++)
		load(&runs[k], dirs[k], NULL);
	comparison_build(&c, runs, 3);
	comparison_text(&c, 0, &out);
	assert_non_null(strstr(out.buf, "Decision rows from different sched events (wake_lat_*"));
	assert_non_null(strstr(out.buf, "- synth/clients=8: sched_wakeup in 6.1.0-base, sched_waking in 6.1.0-slow\n"));
	assert_null(strstr(out.buf, "- synth/clients=2:"));
	comparison_release(&c);
	/* one kernel's runs pooled across the change (base's as slow's) */
	load(&two[0], dirs[0], NULL);
	load(&two[1], dirs[2], NULL);
	free(two[0].kernel);
	two[0].kernel = xstrdup(two[1].kernel);
	assert_int_equal(cmp_run_pool(&pooled, two, 2, &out), 0);
	for (size_t i = 0; i < pooled.nr_cases; i++)
		if (!strcmp(pooled.cases[i].id, "synth/clients=8"))
			assert_string_equal(pooled.cases[i].wakeups_from, "mixed");
		else if (!strcmp(pooled.cases[i].id, "synth/clients=2"))
			assert_string_equal(pooled.cases[i].wakeups_from, "sched_waking");
		else
			assert_null(pooled.cases[i].wakeups_from);
	cmp_run_release(&pooled);
	cmp_run_release(&two[0]);
	cmp_run_release(&two[1]);
	strbuf_release(&out);
	for (int k = 0; k < 3; k++) {
		cmp_run_release(&runs[k]);
		free(dirs[k]);
	}
}

/* The summary is items; the text draws them, the JSON lists them, and
 * neither needs the other's layout. */
static void test_summary_items(void **state)
{
	struct cmp_run runs[3];
	struct comparison c;
	struct summary sum = SUMMARY_INIT;
	struct strbuf out = STRBUF_INIT;
	struct json_object *j, *items;
	size_t nitem = 0, nend = 0, njson;
	int var_head = -1;
	char *dirs[3];

	(void)state;
	synth_runs(dirs);
	for (int k = 0; k < 3; k++)
		load(&runs[k], dirs[k], NULL);
	comparison_build(&c, runs, 3);
	comparison_summary(&c, &sum);
	assert_true(sum.nr > 4);
	/* a sentence per test run first, then the end of that group */
	assert_int_equal(sum.v[0].kind, SUMMARY_PARA);
	assert_int_equal(sum.v[1].kind, SUMMARY_PARA);
	assert_int_equal(sum.v[2].kind, SUMMARY_END);
	assert_true(strstr(sum.v[0].text, "6.1.0-slow against 6.1.0-base: 10 rows") ||
		    strstr(sum.v[1].text, "6.1.0-slow against 6.1.0-base: 10 rows"));
	for (size_t i = 0; i < sum.nr; i++) {
		const struct summary_item *it = &sum.v[i];

		/* items carry no layout: no bullets, no wrapping */
		assert_null(strchr(it->text, '\n'));
		assert_false(it->kind == SUMMARY_ITEM && !strncmp(it->text, "- ", 2));
		nitem += it->kind == SUMMARY_ITEM;
		nend += it->kind == SUMMARY_END;
		if (it->kind == SUMMARY_LINE && !strcmp(it->text, "Variance changed (Brown-Forsythe q<0.05):"))
			var_head = (int)i;
	}
	assert_true(nitem > 0 && nend > 0);
	assert_true(var_head >= 0 && (size_t)var_head + 1 < sum.nr);
	assert_int_equal(sum.v[var_head + 1].kind, SUMMARY_ITEM);
	assert_int_equal(strncmp(sum.v[var_head + 1].text, "synth/clients=8 time (6.1.0-slow)", 33), 0);
	/* each item's words reach the text */
	comparison_text(&c, 0, &out);
	for (size_t i = 0; i < sum.nr; i++)
		if (sum.v[i].kind == SUMMARY_LINE)
			assert_non_null(strstr(out.buf, sum.v[i].text));
	j = comparison_json(&c);
	assert_true(json_object_object_get_ex(j, "summary_items", &items));
	njson = json_object_array_length(items);
	assert_int_equal(njson, sum.nr);
	for (size_t i = 0; i < njson; i++) {
		struct json_object *it = json_object_array_get_idx(items, i), *kind, *text;

		assert_true(json_object_object_get_ex(it, "kind", &kind));
		assert_string_equal(json_object_get_string(kind), summary_kind_name(sum.v[i].kind));
		if (sum.v[i].kind != SUMMARY_END) {
			assert_true(json_object_object_get_ex(it, "text", &text));
			assert_string_equal(json_object_get_string(text), sum.v[i].text);
		}
	}
	json_object_put(j);
	summary_release(&sum);
	assert_int_equal(sum.nr, 0);
	strbuf_release(&out);
	comparison_release(&c);
	for (int k = 0; k < 3; k++) {
		cmp_run_release(&runs[k]);
		free(dirs[k]);
	}
}

/* Columns of two kernel generations: the summary says the rows compare
 * schedulers, and names what one kernel has that the other lacks. */
static void test_summary_generations(void **state)
{
	struct cmp_run runs[2];
	struct comparison c;
	struct summary sum = SUMMARY_INIT;
	const char *para = NULL;
	char *dirs[3];

	(void)state;
	synth_runs(dirs);
	load(&runs[0], dirs[0], NULL);
	load(&runs[1], dirs[1], NULL);
	comparison_build(&c, runs, 2);
	comparison_summary(&c, &sum);
	for (size_t i = 0; i < sum.nr; i++)
		assert_null(strstr(sum.v[i].text, "compare two schedulers"));
	summary_release(&sum);
	comparison_release(&c);
	free(runs[0].kernel);
	free(runs[1].kernel);
	free(runs[0].features);
	free(runs[1].features);
	runs[0].kernel = xstrdup("6.1.0-57-amd64");
	runs[1].kernel = xstrdup("6.12.118+deb12-amd64");
	runs[0].features = xstrdup("GENTLE_FAIR_SLEEPERS START_DEBIT WA_IDLE");
	runs[1].features = xstrdup("PLACE_LAG RUN_TO_PARITY DELAY_DEQUEUE WA_IDLE");
	comparison_build(&c, runs, 2);
	comparison_summary(&c, &sum);
	for (size_t i = 0; i < sum.nr; i++)
		if (strstr(sum.v[i].text, "compare two schedulers"))
			para = sum.v[i].text;
	assert_non_null(para);
	assert_non_null(strstr(para, "(generation 6.1, CFS)"));
	assert_non_null(strstr(para, "(generation 6.12, EEVDF)"));
	assert_non_null(strstr(para, "has: PLACE_LAG RUN_TO_PARITY DELAY_DEQUEUE."));
	assert_non_null(strstr(para, "Only 6.1.0-base has: GENTLE_FAIR_SLEEPERS START_DEBIT."));
	assert_non_null(strstr(para, "min_granularity_ns"));
	assert_non_null(strstr(para, "DIE in one and PKG"));
	summary_release(&sum);
	comparison_release(&c);
	for (int k = 0; k < 2; k++)
		cmp_run_release(&runs[k]);
	for (int k = 0; k < 3; k++)
		free(dirs[k]);
}

/* A/A: the same runs against themselves change nothing. */
static void test_identity(void **state)
{
	struct cmp_run runs[2];
	struct comparison c;
	char *dirs[3];

	(void)state;
	synth_runs(dirs);
	load(&runs[0], dirs[0], NULL);
	load(&runs[1], dirs[0], NULL);
	comparison_build(&c, runs, 2);
	assert_int_equal(c.count[CMP_IMPROVED] + c.count[CMP_REGRESSED], 0);
	/*
	 * Identical data, and still two rows undecided: the two of clients=4,
	 * three runs a side (20 % and 1 % noise), fewer than the five a "="
	 * needs.  The 2 % noisy median of clients=1 (ten runs) is "=": its
	 * Hodges-Lehmann interval lies inside the +-2 % band.
	 */
	assert_int_equal(c.count[CMP_SAME], 8);
	assert_int_equal(c.count[CMP_UNDECIDED], 2);
	assert_int_equal(comparison_exit_code(&c), 0);
	comparison_release(&c);
	cmp_run_release(&runs[0]);
	cmp_run_release(&runs[1]);
	for (int k = 0; k < 3; k++)
		free(dirs[k]);
}

/* ---- the rows' labels and the tables' keys ---- */

static void test_axes(void **state)
{
	struct json_object *cases = json_object_new_array(), *cs;
	static const char *const ids[] = {
		"mx/groups=1,mode=process,pattern=a,b", "mx/groups=2,mode=process,pattern=a,b",
		"mx/groups=1,mode=thread,pattern=a,b", "mx/groups=2,mode=thread,pattern=a,b", "solo",
	};
	const double v[] = { 1, 2, 3 };
	struct cmp_run runs[2];
	struct comparison c;
	char *dir;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		cs = fx_case(ids[i], "PASS", "");
		fx_metric(cs, "time", "s", "lower", "amean", v, 3);
		json_object_array_add(cases, cs);
	}
	dir = fx_run("axes", "k", "ax", "1s2c", cases);
	load(&runs[0], dir, NULL);
	load(&runs[1], dir, NULL);
	comparison_build(&c, runs, 2);
	assert_int_equal(c.nr_blocks, 3);
	assert_string_equal(c.blocks[0].title, "mx mode=process,pattern=a,b");
	assert_string_equal(c.blocks[1].title, "mx mode=thread,pattern=a,b");
	assert_int_equal(c.blocks[0].nr_rows, 2);
	assert_string_equal(c.blocks[0].rows[0].label, "1-groups");
	assert_string_equal(c.blocks[0].rows[1].label, "2-groups");
	assert_string_equal(c.blocks[2].title, "solo");
	assert_string_equal(c.blocks[2].rows[0].label, "hackbench");
	comparison_release(&c);
	cmp_run_release(&runs[0]);
	cmp_run_release(&runs[1]);
	free(dir);
}

/* ---- rows without a better direction ---- */

/*
 * "better": "none" (the trace's preemption rows): a significant change
 * is ^ up or v down, never + or -, fails nothing (exit code, JUnit), and
 * its pct is the change itself.
 */
static void test_no_direction(void **state)
{
	const double base[] = { 100, 101, 99, 100, 100 }, more[] = { 150, 151, 149, 150, 150 };
	const double less[] = { 50, 51, 49, 50, 50 };
	const double *side[3] = { base, more, less };
	struct strbuf text = STRBUF_INIT, junit = STRBUF_INIT;
	struct json_object *j, *rows, *r0, *better, *verdict;
	struct cmp_run runs[3];
	struct comparison c;
	char *dirs[3];

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct json_object *cases = json_object_new_array(), *cs = fx_case("nd/x=1", "PASS", "");
		char name[16];

		fx_metric(cs, "preemptions", "count", "none", "amean", side[k], 5);
		json_object_array_add(cases, cs);
		snprintf(name, sizeof(name), "nd%d", k);
		dirs[k] = fx_run(name, "k", "nd", "1s2c", cases);
		load(&runs[k], dirs[k], NULL);
	}
	comparison_build(&c, runs, 3);
	assert_int_equal(c.nr_blocks, 1);
	assert_true(c.blocks[0].no_direction);
	assert_int_equal(row_test(&c, "preemptions", "1-x", 0)->verdict, CMP_UP);
	assert_int_equal(row_test(&c, "preemptions", "1-x", 1)->verdict, CMP_DOWN);
	assert_int_equal(cmp_verdict_mark(CMP_UP), '^');
	assert_int_equal(cmp_verdict_mark(CMP_DOWN), 'v');
	assert_string_equal(cmp_verdict_name(CMP_DOWN), "down");
	/* the change, not an improvement: +50 % up */
	assert_true(fabs(c.blocks[0].rows[0].cells[1].pct_imp - 50) < 1e-9);
	assert_int_equal(c.count[CMP_IMPROVED] + c.count[CMP_REGRESSED], 0);
	assert_int_equal(comparison_exit_code(&c), 0);
	comparison_text(&c, 0, &text);
	assert_non_null(strstr(text.buf, "Interpretation: no better direction"));
	assert_non_null(strstr(text.buf, "^ up, v down"));
	assert_null(strstr(text.buf, "is better"));
	comparison_junit(&c, &junit);
	assert_null(strstr(junit.buf, "<failure"));
	j = comparison_json(&c);
	assert_true(json_object_object_get_ex(j, "rows", &rows));
	r0 = json_object_array_get_idx(rows, 0);
	assert_true(json_object_object_get_ex(r0, "better", &better));
	assert_string_equal(json_object_get_string(better), "none");
	assert_true(json_object_object_get_ex(r0, "verdict", &verdict));
	assert_string_equal(json_object_get_string(verdict), "up");
	json_object_put(j);
	strbuf_release(&text);
	strbuf_release(&junit);
	comparison_release(&c);
	for (int k = 0; k < 3; k++) {
		cmp_run_release(&runs[k]);
		free(dirs[k]);
	}
}

/* ---- bad input: one line each ---- */

static void expect_parse_error(const char *json, const char *want)
{
	struct cmp_run r = { 0 };
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(cmp_cases_parse(&r, json, strlen(json), &err), -1);
	if (!strstr(err.buf, want))
		fail_msg("error '%s' does not say '%s'", err.buf, want);
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
	cmp_run_release(&r);
}

static void test_bad_cases_json(void **state)
{
	(void)state;
	expect_parse_error("", "truncated");
	expect_parse_error("{\"cases\": [", "truncated");
	expect_parse_error("[]", "not a JSON object");
	expect_parse_error("{} x", "bytes after");
	expect_parse_error("{}", "no \"cases\" array");
	expect_parse_error("{\"cases\": [{\"verdict\": \"PASS\"}]}", "without a \"case\" id");
	expect_parse_error("{\"cases\": [{\"case\": \"a\"}]}", "has no verdict");
	expect_parse_error("{\"cases\": [{\"case\": \"a\", \"verdict\": \"PASS\"},"
			   " {\"case\": \"a\", \"verdict\": \"PASS\"}]}", "twice");
	expect_parse_error("{\"cases\": [{\"case\": \"a\", \"verdict\": \"PASS\", \"metrics\": "
			   "{\"t\": {\"better\": \"lower\", \"values\": [1, \"x\"]}}}]}",
			   "value 1 is not a finite number");
	expect_parse_error("{\"cases\": [{\"case\": \"a\", \"verdict\": \"PASS\", \"metrics\": "
			   "{\"t\": {\"better\": \"sideways\", \"values\": [1]}}}]}",
			   "neither higher nor lower");
	expect_parse_error("{\"cases\": [{\"case\": \"a\", \"verdict\": \"PASS\", \"metrics\": "
			   "{\"t\": {\"better\": \"lower\", \"statistic\": \"mode\", \"values\": [1]}}}]}",
			   "unknown statistic 'mode'");
	expect_parse_error("{\"cases\": [{\"case\": \"a\", \"verdict\": \"PASS\", \"tasks\": "
			   "{\"nr_migrations\": \"many\"}}]}", "not a finite number");
	expect_parse_error("{\"cases\": [{\"case\": \"a\", \"verdict\": \"PASS\", \"schedstat\": "
			   "{\"domains\": {\"d\": {\"level\": 99}}}}]}", "bad schedstat domain");
	/* deeper than the tokener allows */
	{
		struct strbuf deep = STRBUF_INIT;

		strbuf_addstr(&deep, "{\"cases\": ");
		for (int i = 0; i < 100; i++)
			strbuf_addch(&deep, '[');
		expect_parse_error(deep.buf, "not valid JSON");
		strbuf_release(&deep);
	}
}

/*
 * Cells and summary lines where a number has no meaning: one run (no CV),
 * a metric missing on one side, values near DBL_MAX, an HMean of a
 * negative value, a baseline of 0.  None prints nan, inf or a CV of 0.
 */
static void test_odd_values(void **state)
{
	static const double one[] = { 1 }, big[] = { 1e308, 1.7e308, 1.5e308 },
			    neg[] = { -1, 2, 3 }, pos[] = { 1, 2, 3 }, zero[] = { 0, 0, 0 },
			    ones[] = { 1, 1.1, 0.9 };
	struct json_object *side[2];
	struct cmp_run runs[2];
	struct comparison c;
	struct strbuf out = STRBUF_INIT;
	char *dirs[2];
	const char *p;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct json_object *cs;

		side[k] = json_object_new_array();
		cs = fx_case("odd/n=1", "PASS", "");
		fx_metric(cs, "time", "s", "lower", "amean", one, 1);
		json_object_array_add(side[k], cs);
		cs = fx_case("odd/n=2", "PASS", "");
		if (!k)
			fx_metric(cs, "time", "s", "lower", "amean", ones, 3);
		json_object_array_add(side[k], cs);
		cs = fx_case("odd/n=3", "PASS", "");
		fx_metric(cs, "time", "s", "lower", "amean", big, 3);
		json_object_array_add(side[k], cs);
		cs = fx_case("oddh/n=4", "PASS", "");
		fx_metric(cs, "time", "s", "lower", "hmean", k ? pos : neg, 3);
		json_object_array_add(side[k], cs);
		cs = fx_case("odd/n=5", "PASS", "");
		fx_metric(cs, "time", "s", "lower", "amean", k ? ones : zero, 3);
		json_object_array_add(side[k], cs);
		dirs[k] = fx_run(k ? "odd-b" : "odd-a", "k", "odd", "1s2c", side[k]);
		load(&runs[k], dirs[k], NULL);
	}
	comparison_build(&c, runs, 2);
	comparison_text(&c, 0, &out);
	for (const char *bad = "nan\0inf\0( 0.00)\0"; *bad; bad += strlen(bad) + 1)
		if ((p = strstr(out.buf, bad)))
			fail_msg("'%s' in:\n%s", bad, out.buf);
	/* one run: no CV; the side without the metric: no numbers */
	assert_non_null(strstr(out.buf, "1-n     1.00 [ -0.00](    -)     1.00 [ -0.00](    -)  ?"));
	assert_non_null(strstr(out.buf, "2-n     1.00 [ -0.00](10.00)        - [     -](    -)  x"));
	/* near DBL_MAX: a real CV */
	assert_non_null(strstr(out.buf, "3-n     1.00 [ -0.00](25.75)     1.00 [ -0.00](25.75)  ?"));
	/* a baseline of 0: no CV, no ratio; an HMean of a negative value: none */
	assert_non_null(strstr(out.buf, "5-n     1.00 [ -0.00](    -)        - [     -](10.00)  ?"));
	assert_non_null(strstr(out.buf, "4-n        - [     -]("));
	assert_non_null(strstr(out.buf, "- oddh/n=4 time: more runs would not decide this row; an hmean "
					"of values that\n  are not all positive"));
	/* near DBL_MAX the ratio has a meaning: only the few runs hold it back */
	assert_null(strstr(out.buf, "- odd/n=3 time: more runs would not decide"));
	comparison_release(&c);
	for (int k = 0; k < 2; k++) {
		cmp_run_release(&runs[k]);
		free(dirs[k]);
	}
	strbuf_release(&out);
}

static void test_bad_dirs(void **state)
{
	struct cmp_run r = { 0 }, runs[2];
	struct strbuf err = STRBUF_INIT;
	struct json_object *a = json_object_new_array(), *b = json_object_new_array();
	char *da, *db, *dc, *empty;

	(void)state;
	assert_int_equal(cmp_run_load(&r, "no-such-run-id", &err), -1);
	assert_non_null(strstr(err.buf, "no run 'no-such-run-id': neither a directory nor a run id"));
	cmp_run_release(&r);
	strbuf_reset(&err);
	assert_int_equal(cmp_run_load(&r, "/nonexistent/dir", &err), -1);
	assert_string_equal(err.buf, "no run directory '/nonexistent/dir'");
	cmp_run_release(&r);

	empty = xasprintf("%s/results/empty", root);
	assert_int_equal(mkdir_p(empty, 0755), 0);
	strbuf_reset(&err);
	assert_int_equal(cmp_run_load(&r, "empty", &err), -1);
	assert_non_null(strstr(err.buf, "is not a run directory: it has no run.json"));
	cmp_run_release(&r);
	fx_write(empty, "run.json", "{\"kernel\": \"k\", \"spec\": \"1s2c\"}");
	strbuf_reset(&err);
	assert_int_equal(cmp_run_load(&r, empty, &err), -1);
	assert_non_null(strstr(err.buf, "has no cases.json"));
	cmp_run_release(&r);

	json_object_array_add(a, fx_case("x/n=1", "PASS", ""));
	json_object_array_add(b, fx_case("x/n=2", "PASS", ""));
	da = fx_run("mis-a", "k", "smoke", "2s4c", a);
	db = fx_run("mis-b", "k", "smoke", "2s4c", b);
	dc = fx_run("mis-c", "k", "seeds", "2s4c", json_object_new_array());
	load(&runs[0], da, NULL);
	load(&runs[1], db, NULL);
	strbuf_reset(&err);
	assert_int_equal(cmp_runs_check(runs, 2, &err), -1);
	assert_non_null(strstr(err.buf, "runs differ: case 'x/n=1' is only in mis-a"));
	cmp_run_release(&runs[1]);
	load(&runs[1], dc, NULL);
	strbuf_reset(&err);
	assert_int_equal(cmp_runs_check(runs, 2, &err), -1);
	assert_string_equal(err.buf, "runs differ: mis-a ran suite 'smoke' on '2s4c', "
				     "mis-c ran suite 'seeds' on '2s4c'");
	cmp_run_release(&runs[0]);
	cmp_run_release(&runs[1]);
	/* the same case and metric judged another way: better= or statistic= */
	for (int flip = 0; flip < 3; flip++) {
		static const char *const name[][2] = { { "set-a", "set-b" }, { "set-c", "set-d" },
						       { "set-e", "set-f" } };
		const double v[] = { 1, 2, 3 };
		struct json_object *ca = json_array_of_case("y/n=1", "lower", "amean", v);
		struct json_object *cb = json_array_of_case("y/n=1", flip == 2 ? "none" :
							     flip ? "lower" : "higher",
							     flip == 1 ? "median" : "amean", v);
		char *d1 = fx_run(name[flip][0], "k", "smoke", "2s4c", ca);
		char *d2 = fx_run(name[flip][1], "k", "smoke", "2s4c", cb);

		load(&runs[0], d1, NULL);
		load(&runs[1], d2, NULL);
		strbuf_reset(&err);
		assert_int_equal(cmp_runs_check(runs, 2, &err), -1);
		assert_string_equal(err.buf, flip == 2 ?
			"runs differ: 'y/n=1' time is lower-is-better AMean in set-e but without-direction "
			"AMean in set-f (one recorded before its direction changed? 'lab report RUN' "
			"rebuilds a run's rows)" : flip ?
			"runs differ: 'y/n=1' time is lower-is-better AMean in set-c but lower-is-better "
			"Median in set-d (the scenario files changed between the runs?)" :
			"runs differ: 'y/n=1' time is lower-is-better AMean in set-a but higher-is-better "
			"AMean in set-b (the scenario files changed between the runs?)");
		cmp_run_release(&runs[0]);
		cmp_run_release(&runs[1]);
		free(d1);
		free(d2);
	}
	strbuf_release(&err);
	free(da);
	free(db);
	free(dc);
	free(empty);
}

static int setup(void **state)
{
	char *res;

	(void)state;
	if (!mkdtemp(root))
		return -1;
	res = xasprintf("%s/results", root);
	setenv("LAB_RESULTS", res, 1);
	free(res);
	return 0;
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
	if (getenv("KEEP_FIXTURES"))
		return 0;
	return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed000_tables),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_full_text_json_junit),
		cmocka_unit_test(test_summary_items),
		cmocka_unit_test(test_summary_generations),
		cmocka_unit_test(test_summary_kept_outliers),
		cmocka_unit_test(test_summary_event_sets),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_axes),
		cmocka_unit_test(test_no_direction),
		cmocka_unit_test(test_bad_cases_json),
		cmocka_unit_test(test_odd_values),
		cmocka_unit_test(test_bad_dirs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
