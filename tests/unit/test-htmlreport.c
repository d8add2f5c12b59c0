/* test-htmlreport.c - `lab compare --html` on result directories written by
 * the test: escaping of hostile run data, every block present, plots drawn by
 * the real gnuplot, and the page without gnuplot; the fault-mark parsers. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/htmlreport.h"
#include "lib/child.h"
#include "report/plot.h"
#include "results/schedtrace.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[] = "/tmp/test-htmlreport.XXXXXX";

/* What a hostile run directory may carry in every string the page shows. */
#define EVIL "<script>alert(1)</script>&\"'<img src=x onerror=alert(2)>"
#define EVIL_JSON "<script>alert(1)<\\/script>&\\\"'<img src=x onerror=alert(2)>"

static void fx_write(const char *dir, const char *file, const char *text)
{
	char *p = xasprintf("%s/%s", dir, file);

	assert_int_equal(write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

static void fx_values(struct strbuf *sb, double base, double step, size_t n)
{
	strbuf_addstr(sb, "[");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%.3f", i ? ", " : "", base + step * (double)(i % 3));
	strbuf_addstr(sb, "]");
}

/*
 * One run of scenario "sc<b>" (the id part of every case is hostile too):
 * two cases with a time metric (5 runs each) and counters; the first case has
 * a guest fault timeline with one failed action, and host fault actions.
 */
static char *fx_run(const char *name, const char *kernel, double t, double migrations)
{
	char *dir = xasprintf("%s/%s", root, name), *rj;
	struct strbuf cj = STRBUF_INIT;

	assert_int_equal(mkdir_p(dir, 0755), 0);
	rj = xasprintf("{\"kernel\": \"%s\", \"spec\": \"1s2c\", "
		       "\"spec_resolved\": \"1s2c,nps=1\", "
		       "\"suite\": \"evil\"}\n", kernel);
	fx_write(dir, "run.json", rj);
	free(rj);
	strbuf_addstr(&cj, "{\"cases\": [\n");
	for (int i = 1; i <= 2; i++) {
		strbuf_addf(&cj, "{\"case\": \"sc<b>/groups=%d,x=" EVIL_JSON "\", "
			    "\"scenario\": \"sc<b>\", "
			    "\"workload\": \"hackbench\", \"verdict\": \"%s\", \"reason\": \"%s\", "
			    "\"metrics\": {\"time\": {\"unit\": \"s\", \"better\": \"lower\", "
			    "\"statistic\": \"amean\", \"declared\": true, \"values\": ",
			    i, i == 2 && t > 1.05 ? "FAIL" : "PASS",
			    i == 2 && t > 1.05 ? "reason " EVIL_JSON : "");
		fx_values(&cj, t * i, 0.01, i == 2 && t > 1.05 ? 0 : 5);
		strbuf_addf(&cj, "}}, \"tasks\": {\"nr_migrations\": %.0f, "
			    "\"nr_involuntary_switches\": 50}, "
			    "\"vmstat_delta\": {\"numa_pages_migrated\": 7}, "
			    "\"schedstat\": {\"domains\": {\"d0\": {\"level\": 0, \"idle\": "
			    "{\"lb_count\": 12, \"lb_failed\": 1}, \"ttwu_move_affine\": 3}}}",
			    migrations * i);
		if (i == 1)
			strbuf_addstr(&cj, ", \"timeline\": ["
				      "{\"run\": 0, \"t_run_s\": 0.5, \"fault\": \"f\", "
				      "\"kind\": \"cpu_hotplug\", "
				      "\"action\": \"offline\", \"ok\": true},"
				      "{\"run\": 1, \"t_run_s\": 0.7, \"fault\": \"f\", "
				      "\"kind\": \"cpu_hotplug\", "
				      "\"action\": \"online\", \"ok\": false}],"
				      "\"faults\": [{\"run\": 0, \"t_run_s\": 1.0, "
				      "\"fault\": \"f\", "
				      "\"kind\": \"cpu_hotplug\"}]");
		strbuf_addstr(&cj, i == 1 ? "},\n" : "}\n");
	}
	strbuf_addstr(&cj, "]}\n");
	fx_write(dir, "cases.json", cj.buf);
	fx_write(dir, "host-faults.jsonl",
		 "{\"t_s\": 10.5, \"case\": \"sc<b>/groups=1,x=" EVIL_JSON "\", \"run\": 2, "
		 "\"fault\": \"h\", \"kind\": \"pause\", \"action\": \"stop\", \"ok\": true}\n"
		 "{\"t_s\": 11.0, \"case\": \"sc<b>/groups=1,x=" EVIL_JSON "\", \"run\": 2, "
		 "\"fault\": \"h\", \"kind\": \"pause\", \"action\": \"cont\", \"ok\": true}\n");
	strbuf_release(&cj);
	return dir;
}

struct fixture {
	struct cmp_run runs[2];
	struct comparison c;
};

static void fx_build(struct fixture *f)
{
	char *dirs[2] = { fx_run("base", "6.1.0", 1.0, 100), fx_run("test", "6.1.1", 1.1, 300) };
	struct strbuf err = STRBUF_INIT;

	memset(f, 0, sizeof(*f));
	for (int k = 0; k < 2; k++) {
		if (cmp_run_load(&f->runs[k], dirs[k], &err) < 0)
			fail_msg("cannot load '%s': %s", dirs[k], err.buf);
		free(f->runs[k].label);
		f->runs[k].label = xstrdup(k ? "tip" EVIL : "base");
		free(dirs[k]);
	}
	strbuf_release(&err);
	comparison_build(&f->c, f->runs, 2);
}

static void fx_release(struct fixture *f)
{
	comparison_release(&f->c);
	for (int k = 0; k < 2; k++)
		cmp_run_release(&f->runs[k]);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Nothing from a run directory may open an element or an attribute. */
static void assert_no_markup_from_runs(const char *page)
{
	assert_null(strstr(page, "<script"));
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<b>"));
	assert_true(count(page, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;&lt;img") >=
		    3);
}

static int have_gnuplot(void)
{
	const char *argv[] = { "gnuplot", "--version", NULL };

	return run_command_capture(argv, 10000, NULL, NULL) == 0;
}

static void test_escape(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	html_escape(&sb, "a<b>&\"'\x01z\n");
	assert_string_equal(sb.buf, "a&lt;b&gt;&amp;&quot;&#39;&#xFFFD;z\n");
	strbuf_reset(&sb);
	plot_quote(&sb, "it's\n'");
	assert_string_equal(sb.buf, "'it''s?'''");
	strbuf_release(&sb);
}

/* Tables, counters, fault table and summary; no plots: gnuplot cannot run. */
static void test_without_gnuplot(void **state)
{
	struct html_opts o = { .gnuplot = "/nonexistent/gnuplot" };
	struct strbuf page = STRBUF_INIT, skipped = STRBUF_INIT;
	struct fixture f;

	(void)state;
	fx_build(&f);
	comparison_html(&f.c, &o, &page, &skipped);
	assert_non_null(strstr(skipped.buf, "/nonexistent/gnuplot"));
	assert_null(strchr(skipped.buf, '\n'));
	assert_non_null(strstr(page.buf, "<p class=warn id=plots-skipped>Plots skipped: "));
	assert_int_equal(count(page.buf, "<svg"), 0);
	/* every block has its table; the rest of the page is there */
	assert_true(f.c.nr_blocks >= 1);
	assert_int_equal(count(page.buf, "<table class=cmp>"), f.c.nr_blocks);
	for (size_t i = 0; i < f.c.nr_blocks; i++) {
		struct strbuf t = STRBUF_INIT;

		strbuf_addstr(&t, "<h2>");
		html_escape(&t, f.c.blocks[i].title);
		strbuf_addstr(&t, "</h2>");
		assert_non_null(strstr(page.buf, t.buf));
		strbuf_release(&t);
	}
	assert_int_equal(count(page.buf, "<table class=ctr>"), 1);
	assert_int_equal(count(page.buf, "<table class=faults>"), 1);
	assert_non_null(strstr(page.buf, "<h2>Summary</h2>"));
	/* the page opens with the answer: the summary, then one line per
	 * table with every row's marks, linked to the table, then the tables */
	assert_true(strstr(page.buf, "<h2>Summary</h2>") < strstr(page.buf, "<h2 id=overview>"));
	assert_true(strstr(page.buf, "<h2 id=overview>") < strstr(page.buf, "<table class=cmp>"));
	assert_int_equal(count(page.buf, "<div><a href=\"#b"), f.c.nr_blocks);
	assert_int_equal(count(page.buf, "<section class=block id=b"), f.c.nr_blocks);
	assert_non_null(strstr(page.buf, "<a href=\"#b0\">"));
	assert_non_null(strstr(page.buf, "<section class=block id=b0>"));
	{
		size_t marks = 0;

		for (size_t i = 0; i < f.c.nr_blocks; i++)
			marks += f.c.blocks[i].nr_rows;
		assert_int_equal(count(strstr(page.buf, "<div class=overview>"), "<span class="),
				 marks + count(strstr(page.buf, "<table class=cmp>"), "<span class="));
	}
	assert_non_null(strstr(page.buf, "migrations/run"));
	assert_non_null(strstr(page.buf, "(+200.0%)"));
	/* the failed case's reason reaches the summary, escaped */
	assert_non_null(strstr(page.buf, "reason &lt;script&gt;"));
	assert_no_markup_from_runs(page.buf);
	assert_true(page.len > 8 && !strcmp(page.buf + page.len - 8, "</html>\n"));
	strbuf_release(&page);
	strbuf_release(&skipped);
	fx_release(&f);
}

/* gnuplot that runs but fails: one line saying how, plotting stops. */
static void test_gnuplot_fails(void **state)
{
	struct html_opts o = { .gnuplot = "false" };
	struct strbuf page = STRBUF_INIT, skipped = STRBUF_INIT;
	struct fixture f;

	(void)state;
	fx_build(&f);
	comparison_html(&f.c, &o, &page, &skipped);
	assert_string_equal(skipped.buf, "'false' exited with 1: no message");
	assert_int_equal(count(page.buf, "<svg"), 0);
	assert_int_equal(count(page.buf, "<table class=cmp>"), f.c.nr_blocks);
	strbuf_release(&page);
	strbuf_release(&skipped);
	fx_release(&f);
}

/* The real gnuplot: one distribution plot per block, a counter plot per
 * case, a fault timeline for the case with faults; still nothing unescaped. */
static void test_with_gnuplot(void **state)
{
	struct strbuf page = STRBUF_INIT, skipped = STRBUF_INIT;
	struct fixture f;

	(void)state;
	if (!have_gnuplot())
		skip();
	fx_build(&f);
	comparison_html(&f.c, NULL, &page, &skipped);
	if (skipped.len)
		fail_msg("plots skipped: %s", skipped.buf);
	assert_null(strstr(page.buf, "plots-skipped"));
	/* 1 block + 2 counter plots + 1 fault timeline */
	assert_int_equal(f.c.nr_blocks, 1);
	assert_int_equal(count(page.buf, "<svg"), 4);
	assert_int_equal(count(page.buf, "</svg>"), 4);
	assert_int_equal(count(page.buf, "<figure>"), 4);
	assert_null(strstr(page.buf, "<?xml"));
	/* ids were made unique per plot */
	assert_non_null(strstr(page.buf, "id='p0_gpPt0'"));
	assert_non_null(strstr(page.buf, "id='p3_gpPt0'"));
	assert_null(strstr(page.buf, "id='gpPt0'"));
	/* the series colours the integration test looks for */
	assert_non_null(strstr(page.buf, "rgb(  0, 114, 178)"));
	assert_non_null(strstr(page.buf, "rgb(213,  94,   0)"));
	assert_non_null(strstr(page.buf, "8 fault actions (2 failed"));
	assert_no_markup_from_runs(page.buf);
	strbuf_release(&page);
	strbuf_release(&skipped);
	fx_release(&f);
}

/* A run of scenario "tr" whose one case has placement shares (or none). */
static char *fx_trace_run(const char *name, double prev, int traced)
{
	static const char *const places[] = { "prev", "waker", "smt", "llc", "node", "remote",
					      "unknown" };
	char *dir = xasprintf("%s/%s", root, name);
	struct strbuf cj = STRBUF_INIT;
	double share[7] = { prev, 100 - prev - 10, 4, 3, 2, 1, 0 };

	assert_int_equal(mkdir_p(dir, 0755), 0);
	fx_write(dir, "run.json", "{\"kernel\": \"6.1.0\", \"spec\": \"1s2c\", "
				  "\"spec_resolved\": \"1s2c,nps=1\", \"suite\": \"trace\"}\n");
	strbuf_addstr(&cj, "{\"cases\": [{\"case\": \"tr/groups=2\", \"scenario\": \"tr\", "
			   "\"workload\": \"hackbench\", \"verdict\": \"PASS\", \"reason\": \"\", "
			   "\"metrics\": {\"time\": {\"unit\": \"s\", \"better\": \"lower\", "
			   "\"statistic\": \"amean\", \"declared\": true, \"values\": [1, 1.1, 1.2]}");
	for (int p = 0; traced && p < 7; p++)
		strbuf_addf(&cj, ", \"wake_%s_pct\": {\"unit\": \"%%\", \"better\": \"%s\", "
			    "\"statistic\": \"amean\", \"declared\": true, \"values\": [%.1f, %.1f]}",
			    places[p], p <= 3 ? "higher" : "lower", share[p] - 1, share[p] + 1);
	strbuf_addstr(&cj, "}}]}\n");
	fx_write(dir, "cases.json", cj.buf);
	strbuf_release(&cj);
	return dir;
}

/* The placement bar needs no gnuplot: one figure per case, a bar of shares
 * per traced run (widths summing to the full bar), a note for the other. */
static void test_placement_bar(void **state)
{
	struct html_opts o = { .gnuplot = "/nonexistent/gnuplot" };
	struct strbuf page = STRBUF_INIT, skipped = STRBUF_INIT, err = STRBUF_INIT;
	char *dirs[3] = { fx_trace_run("tr-a", 60, 1), fx_trace_run("tr-b", 30, 1),
			  fx_trace_run("tr-c", 0, 0) };
	struct cmp_run runs[3];
	struct comparison c;
	const char *p;
	double width = 0;

	(void)state;
	memset(runs, 0, sizeof(runs));
	for (int k = 0; k < 3; k++) {
		if (cmp_run_load(&runs[k], dirs[k], &err) < 0)
			fail_msg("cannot load '%s': %s", dirs[k], err.buf);
		free(runs[k].label);
		runs[k].label = xstrdup(k == 1 ? "tip" EVIL : k ? "untraced" : "base");
		free(dirs[k]);
	}
	comparison_build(&c, runs, 3);
	comparison_html(&c, &o, &page, &skipped);
	assert_int_equal(count(page.buf, "<figure class=placement>"), 1);
	assert_non_null(strstr(page.buf, "<h3>Wakeup placement: tr</h3>"));
	/* 6 shares above zero in each of the two traced bars, plus 7 legend boxes */
	assert_int_equal(count(page.buf, "<rect "), 2 * 6 + 7);
	assert_int_equal(count(page.buf, "no placement rows (not traced)"), 1);
	assert_non_null(strstr(page.buf, "base: prev 60.0 %"));
	assert_non_null(strstr(page.buf, "tip&lt;script&gt;"));
	/* the base's bar: its segments' widths add up to the 560 pixels of 100 % */
	for (p = strstr(page.buf, "<rect "); p; p = strstr(p + 1, "<rect ")) {
		const char *end = strchr(p, '>');

		if (end && !strncmp(end + 1, "<title>base: ", 13))
			width += strtod(strstr(p, "width=\"") + 7, NULL);
	}
	assert_true(width > 559.9 && width < 560.1);
	assert_null(strstr(page.buf, "<script"));
	strbuf_release(&page);
	strbuf_release(&skipped);
	strbuf_release(&err);
	comparison_release(&c);
	for (int k = 0; k < 3; k++)
		cmp_run_release(&runs[k]);
}

static void test_fault_marks(void **state)
{
	struct fault_marks fm = FAULT_MARKS_INIT;
	struct strbuf err = STRBUF_INIT;
	static const char good[] =
		"{\"cases\": [{\"case\": \"a\", \"timeline\": [{\"run\": 1, \"t_run_s\": 2.5, "
		"\"kind\": \"k\", \"action\": \"x\", \"ok\": false}], \"faults\": [{\"run\": 1, "
		"\"t_run_s\": 3, \"kind\": \"k\"}]}, {\"case\": \"b\"}]}  \n";
	static const char host[] = "{\"t_s\": 1, \"case\": \"a\", \"run\": 0, "
				   "\"kind\": \"pause\", \"action\": \"stop\"}\n\n";
	static const char *const bad[][2] = {
		{ "[]", "no list of cases" },
		{ "{\"cases\": [{\"timeline\": []}]}", "without an id" },
		{ "{\"cases\": [{\"case\": \"a\", \"timeline\": {}}]}", "is not a list" },
		{ "{\"cases\": [{\"case\": \"a\", \"timeline\": [{\"run\": -1, \"t_run_s\": 1, "
		  "\"kind\": \"k\", \"action\": \"x\"}]}]}", "bad timeline entry 0" },
		{ "{\"cases\": [{\"case\": \"a\", \"timeline\": [{\"run\": 0.5, \"t_run_s\": 1, "
		  "\"kind\": \"k\", \"action\": \"x\"}]}]}", "bad timeline entry 0" },
		{ "{\"cases\": [{\"case\": \"a\", \"faults\": [{\"run\": 0, \"kind\": \"k\"}]}]}",
		  "bad faults entry 0" },
		{ "{\"cases\": []} x", "not valid JSON" },
	};

	(void)state;
	assert_int_equal(fault_marks_parse_cases(&fm, good, strlen(good), &err), 0);
	assert_int_equal(fm.nr, 2);
	assert_string_equal(fm.v[0].case_id, "a");
	assert_string_equal(fm.v[0].what, "k x");
	assert_int_equal(fm.v[0].run, 1);
	assert_false(fm.v[0].ok);
	assert_false(fm.v[0].end);
	assert_true(fm.v[1].end && fm.v[1].ok);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *in = bad[i][0];

		strbuf_reset(&err);
		assert_int_equal(fault_marks_parse_cases(&fm, in, strlen(in), &err), -1);
		if (!strstr(err.buf, bad[i][1]))
			fail_msg("'%s': got '%s'", in, err.buf);
	}
	strbuf_reset(&err);
	assert_int_equal(fault_marks_parse_host(&fm, host, strlen(host), &err), 0);
	assert_true(fm.v[fm.nr - 1].host && fm.v[fm.nr - 1].ok);
	assert_int_equal(fault_marks_parse_host(&fm, "{\"t_s\": 1}\n", 11, &err), -1);
	assert_non_null(strstr(err.buf, "line 1 is not a fault action"));
	fault_marks_release(&fm);
	assert_int_equal(fm.nr, 0);
	strbuf_reset(&err);
	assert_int_equal(fault_marks_parse_host(&fm, "{\"t_s\": 1, \"t_run_s\": -2, \"case\": \"a\", "
				       "\"run\": 0, \"kind\": \"pause\", \"action\": \"stop\"}\n", 84,
				       &err), -1);
	fault_marks_release(&fm);
	strbuf_release(&err);
}

/* Host actions sit on a run's timeline by t_run_s (the time since the host
 * saw the run start); a file without it, by the run's first host action. */
static void test_host_marks_rel(void **state)
{
	char *dir = xasprintf("%s/marks", root);
	struct fault_marks fm = FAULT_MARKS_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(mkdir_p(dir, 0755), 0);
	fx_write(dir, "cases.json", "{\"cases\": [{\"case\": \"a\"}]}\n");
	fx_write(dir, "host-faults.jsonl",
		 "{\"t_s\": 20.3, \"t_run_s\": 0.3, \"case\": \"a\", \"run\": 0, "
		 "\"kind\": \"pause\", \"action\": \"stop\", \"ok\": true}\n"
		 "{\"t_s\": 20.5, \"t_run_s\": 0.5, \"case\": \"a\", \"run\": 0, "
		 "\"kind\": \"pause\", \"action\": \"cont\", \"ok\": true}\n"
		 "{\"t_s\": 30.2, \"case\": \"a\", \"run\": 1, "
		 "\"kind\": \"pause\", \"action\": \"stop\", \"ok\": true}\n"
		 "{\"t_s\": 30.4, \"case\": \"a\", \"run\": 1, "
		 "\"kind\": \"pause\", \"action\": \"cont\", \"ok\": true}\n");
	assert_int_equal(fault_marks_load(&fm, dir, &err), 0);
	assert_int_equal(fm.nr, 4);
	assert_true(fm.v[0].rel_known && fabs(fm.v[0].rel - 0.3) < 1e-9);
	assert_true(fabs(fm.v[1].rel - 0.5) < 1e-9);
	assert_true(!fm.v[2].rel_known && fm.v[2].rel == 0);
	assert_true(fabs(fm.v[3].rel - 0.2) < 1e-9);
	fault_marks_release(&fm);
	strbuf_release(&err);
	free(dir);
}

/* A case whose traces were pruned keeping an outlier: its rows link to the
 * kept run's timeline (relative to the page), the summary names it; the
 * case without traces has no link. */
static void test_row_traces(void **state)
{
	struct html_opts o = { .no_plots = "not in this test", .page_dir = root };
	struct strbuf page = STRBUF_INIT;
	struct fixture f;
	char *cdir, *tdir, *p, *rows;

	(void)state;
	fx_build(&f);
	cdir = schedtrace_case_dir(f.runs[0].cases[0].id);
	tdir = xasprintf("%s/base/trace/%s", root, cdir);
	p = xasprintf("%s/run2", tdir);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	fx_write(tdir, "kept.json", "{\"kept\": [{\"run\": 2, \"why\": \"outlier,slowest\", "
				    "\"z\": 4.2, \"bytes\": 4096}], \"dropped_runs\": 4}");
	fx_write(tdir, "run2/cpu0.raw", "x");
	fx_write(tdir, "run2/timeline.html", "<html></html>");
	comparison_html(&f.c, &o, &page, NULL);
	assert_non_null(strstr(page.buf, "Kept outlier traces"));
	assert_non_null(strstr(page.buf, "run2 (z 4.2, slowest)"));
	/* the row links, in the baseline's colour, relative to the page */
	assert_non_null(strstr(page.buf, "<br><span class=legend>timeline: <a class=tl "
				"style=\"color:#0072b2\" href=\"base/trace/"));
	assert_non_null(strstr(page.buf, "title=\"base run2 (outlier,slowest): timeline\">run2</a>"));
	/* one row of the time table per case: the first links, the second does not */
	rows = strstr(page.buf, "<table class=cmp>");
	assert_non_null(rows);
	p = strstr(rows, "</table>");
	assert_non_null(p);
	*p = '\0';
	assert_int_equal(count(rows, "class=tl "), 1);
	strbuf_release(&page);
	fx_release(&f);
	p = xasprintf("%s/base/trace", root);
	assert_int_equal(remove_tree(p), 0);
	free(p);
	free(tdir);
	free(cdir);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(root) ? 0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
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
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_without_gnuplot),
		cmocka_unit_test(test_gnuplot_fails),
		cmocka_unit_test(test_with_gnuplot),
		cmocka_unit_test(test_placement_bar),
		cmocka_unit_test(test_fault_marks),
		cmocka_unit_test(test_host_marks_rel),
		cmocka_unit_test(test_row_traces),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
