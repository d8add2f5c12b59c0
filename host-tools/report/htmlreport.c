/* htmlreport.c - `lab compare --html`: one self-contained HTML page with the
 * comparison's tables, summary and gnuplot SVG plots (no script, no network). */
#include "report/htmlreport.h"
#include "report/timeline.h"
#include "report/plot.h"
#include "report/summary.h"
#include "lib/json.h"
#include "results/runfiles.h"
#include "results/schedmetrics.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- escaping ---- */

void html_escape(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t len = utf8_seq(p + i, n - i, &cp);

		if (!len || (cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f ||
		    (cp >= 0x80 && cp < 0xa0)) {
			/* not UTF-8, or a control character XML 1.0 forbids */
			strbuf_addstr(sb, "&#xFFFD;");
			i += len ? len : 1;
			continue;
		}
		switch (cp) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&#39;"); break;
		default: strbuf_add(sb, s + i, len);
		}
		i += len;
	}
}

/* ---- fault marks ---- */

static struct fault_mark *add_mark(struct fault_marks *fm, const char *case_id, const char *what,
				   unsigned run, double t, int ok, int host, int end)
{
	struct fault_mark *m;

	if (fm->nr >= FAULT_MARKS_MAX) {
		fm->dropped++;
		return NULL;
	}
	if (fm->nr == fm->alloc) {
		fm->alloc = fm->alloc ? 2 * fm->alloc : 64;
		fm->v = xrealloc(fm->v, fm->alloc * sizeof(*fm->v));
	}
	m = &fm->v[fm->nr++];
	m->case_id = xstrdup(case_id);
	m->what = xstrdup(what);
	m->run = run;
	m->t = t;
	m->rel = t;
	m->ok = ok;
	m->host = host;
	m->end = end;
	m->rel_known = 0;
	return m;
}

/* One action (or, with end, one fault's end record) of a case. */
static int parse_action(struct fault_marks *fm, const char *case_id, struct json_object *a,
			const char *tkey, int host, int end)
{
	const char *kind = json_get_str(a, "kind");
	const char *action = end ? "end" : json_get_str(a, "action");
	struct json_object *ok, *rel;
	struct fault_mark *m;
	double run, t, t_run = 0;
	char *what;
	int good, has_rel;

	if (!json_object_is_type(a, json_type_object) || !kind || !action ||
	    json_get_num(a, "run", &run) || run < 0 || run > FAULT_RUN_MAX || run != floor(run) ||
	    json_get_num(a, tkey, &t) || t < 0 || t > 1e7)
		return -1;
	/* a host action's time into its run, as the host saw the run start */
	has_rel = host && json_object_object_get_ex(a, "t_run_s", &rel);
	if (has_rel && (json_get_num(a, "t_run_s", &t_run) || t_run < 0 || t_run > 1e7))
		return -1;
	what = xasprintf("%.60s %.60s", kind, action);
	good = !json_object_object_get_ex(a, "ok", &ok) || json_object_get_boolean(ok);
	m = add_mark(fm, case_id, what, (unsigned)run, t, good, host, end);
	if (m && has_rel) {
		m->rel = t_run;
		m->rel_known = 1;
	}
	free(what);
	return 0;
}

/* An error line names the case; an id from the file may hold anything. */
static void case_error(struct strbuf *err, const char *id, const char *key, long entry)
{
	strbuf_addstr(err, "cases.json: case '");
	for (size_t n = 0; id[n] && n < 200; n++)
		strbuf_addch(err, (unsigned char)id[n] < 0x20 || id[n] == 0x7f ? '?' : id[n]);
	strbuf_addstr(err, "': ");
	if (entry < 0)
		strbuf_addf(err, "'%s' is not a list", key);
	else
		strbuf_addf(err, "bad %s entry %ld", key, entry);
}

static int parse_case_marks(struct fault_marks *fm, struct json_object *cs, struct strbuf *err)
{
	static const char *const keys[] = { "timeline", "faults" };
	const char *id = json_get_str(cs, "case");

	if (!json_object_is_type(cs, json_type_object) || !id) {
		strbuf_addstr(err, "cases.json: a case without an id");
		return -1;
	}
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		struct json_object *arr;

		if (!json_object_object_get_ex(cs, keys[k], &arr))
			continue;
		if (!json_object_is_type(arr, json_type_array)) {
			case_error(err, id, keys[k], -1);
			return -1;
		}
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			struct json_object *a = json_object_array_get_idx(arr, i);

			if (parse_action(fm, id, a, "t_run_s", 0, k == 1)) {
				case_error(err, id, keys[k], (long)i);
				return -1;
			}
		}
	}
	return 0;
}

static int marks_from_cases(struct fault_marks *fm, struct json_object *cases, struct strbuf *err)
{
	for (size_t i = 0; i < json_object_array_length(cases); i++)
		if (parse_case_marks(fm, json_object_array_get_idx(cases, i), err))
			return -1;
	return 0;
}

static int marks_from_host(struct fault_marks *fm, struct json_object *actions, struct strbuf *err)
{
	for (size_t i = 0; i < json_object_array_length(actions); i++) {
		struct json_object *o = json_object_array_get_idx(actions, i);

		if (parse_action(fm, json_get_str(o, "case"), o, "t_s", 1, 0)) {
			strbuf_addf(err, "host-faults.jsonl: action %zu is not a fault action", i + 1);
			return -1;
		}
	}
	return 0;
}

int fault_marks_parse_cases(struct fault_marks *fm, const char *text, size_t len,
			    struct strbuf *err)
{
	struct json_object *cases, *o = cases_parse(text, len, &cases, err);
	int ret;

	if (!o)
		return -1;
	ret = marks_from_cases(fm, cases, err);
	json_object_put(o);
	return ret;
}

int fault_marks_parse_host(struct fault_marks *fm, const char *text, size_t len,
			   struct strbuf *err)
{
	unsigned bad;
	struct json_object *a = host_faults_parse(text, len, 1, &bad, err);
	int ret;

	if (!a)
		return -1;
	ret = marks_from_host(fm, a, err);
	json_object_put(a);
	return ret;
}

static int by_case_run_t(const void *a, const void *b)
{
	const struct fault_mark *x = *(const struct fault_mark *const *)a;
	const struct fault_mark *y = *(const struct fault_mark *const *)b;
	int r = strcmp(x->case_id, y->case_id);

	if (r)
		return r;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

/* The host's clock is the session's: actions recorded without t_run_s
 * (older runs) are placed from the first host action of their run. */
static void host_rel(struct fault_marks *fm)
{
	struct fault_mark **v = xcalloc(fm->nr + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < fm->nr; i++)
		if (fm->v[i].host)
			v[n++] = &fm->v[i];
	qsort(v, n, sizeof(*v), by_case_run_t);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i && (v[i]->run != v[first]->run || strcmp(v[i]->case_id, v[first]->case_id)))
			first = i;
		if (!v[i]->rel_known)
			v[i]->rel = v[i]->t - v[first]->t;
	}
	free(v);
}

int fault_marks_load(struct fault_marks *fm, const char *dir, struct strbuf *err)
{
	struct json_object *cases, *doc, *host;
	unsigned bad;
	int ret;

	doc = cases_load(dir, &cases, NULL, err);
	if (!doc)
		return -1;
	ret = marks_from_cases(fm, cases, err);
	json_object_put(doc);
	if (ret)
		return -1;
	host = host_faults_load(dir, 1, &bad, err);
	if (!host)
		return -1;
	ret = marks_from_host(fm, host, err);
	json_object_put(host);
	if (ret)
		return -1;
	host_rel(fm);
	return 0;
}

void fault_marks_release(struct fault_marks *fm)
{
	for (size_t i = 0; i < fm->nr; i++) {
		free(fm->v[i].case_id);
		free(fm->v[i].what);
	}
	free(fm->v);
	fm->v = NULL;
	fm->nr = fm->alloc = fm->dropped = 0;
}

/* ---- the page ---- */

/* Series colours (Okabe-Ito): one per run, the baseline first.  The
 * integration test looks for the first two in the screenshot. */
static const char *const side_colour[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#000000",
};
#define FAILED_COLOUR "#cf222e"

static const char css[] =
	"body{font-family:sans-serif;margin:16px 24px;color:#1f2328;max-width:1500px}\n"
	"h1{font-size:150%}h2{font-size:120%;margin:28px 0 4px}\n"
	"h3{font-size:105%;margin:16px 0 4px}\n"
	"table{border-collapse:collapse;margin:6px 0 10px}\n"
	"th{background:#24386b;color:#fff;padding:3px 9px;font-weight:600;text-align:center}\n"
	"td{padding:2px 9px;border-bottom:1px solid #d0d7de;text-align:right;"
	"font-variant-numeric:tabular-nums}\n"
	"td.l,th.l{text-align:left}\n"
	"table.meta td{border:0;text-align:left;padding:0 9px 0 0}\n"
	".improved{background:#c9f2d0;color:#0a5c1f}\n"
	".regressed{background:#ffd1cc;color:#a40e26}\n"
	".same{background:#eaeef2;color:#424a53}.undecided{background:#fff1b8;color:#7a5200}\n"
	".changed{background:#ddf4ff;color:#0a3069}\n"
	".nodata{color:#8c959f}td.bad{background:#ffd1cc;color:#a40e26}\n"
	"div.overview{columns:24em 4;column-gap:24px;font-size:90%;margin:6px 0 10px}\n"
	"div.overview div{break-inside:avoid;padding:1px 0;border-bottom:1px solid #eaeef2}\n"
	"div.overview span{font-family:monospace;padding:0 2px;margin:0 1px;"
	"white-space:pre}\n"
	"figure{display:inline-block;margin:6px 18px 6px 0;vertical-align:top}\n"
	"figcaption{font-size:88%;color:#57606a;max-width:760px}\n"
	".warn{background:#fff1b8;border:1px solid #d4a72c;padding:6px 10px}\n"
	".legend{font-size:90%;color:#57606a}\n";

struct html_ctx {
	const struct comparison *c;
	const struct html_opts *o;
	struct strbuf *out;		/* the body */
	struct strbuf skipped;		/* why plotting stopped; empty while it works */
	unsigned nr_plots;
	struct fault_marks *marks;	/* per run */
};

static const char *colour(size_t k)
{
	return side_colour[k % ARRAY_SIZE(side_colour)];
}

static void esc(struct strbuf *sb, const char *s)
{
	html_escape(sb, s);
}

static void escf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void escf(struct strbuf *sb, const char *fmt, ...)
{
	struct strbuf t = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&t, fmt, ap);
	va_end(ap);
	html_escape(sb, t.buf);
	strbuf_release(&t);
}

/* The plot, or nothing once plotting failed (the page says why at the top). */
static void figure(struct html_ctx *x, const char *script, const char *caption)
{
	struct strbuf svg = STRBUF_INIT, err = STRBUF_INIT;
	char prefix[24];
	int timeout = x->o && x->o->plot_timeout_ms ? x->o->plot_timeout_ms : PLOT_TIMEOUT_MS;

	if (x->skipped.len)
		return;
	snprintf(prefix, sizeof(prefix), "p%u_", x->nr_plots);
	if (plot_svg(x->o ? x->o->gnuplot : NULL, script, prefix, timeout, &svg, &err) < 0) {
		strbuf_addf(&x->skipped, "%s", err.buf);
	} else {
		x->nr_plots++;
		strbuf_addstr(x->out, "<figure>\n");
		strbuf_add(x->out, svg.buf, svg.len);
		strbuf_addstr(x->out, "<figcaption>");
		esc(x->out, caption);
		strbuf_addstr(x->out, "</figcaption></figure>\n");
	}
	strbuf_release(&svg);
	strbuf_release(&err);
}

static void plot_head(struct strbuf *s, unsigned w, unsigned h)
{
	strbuf_addf(s, "set terminal svg size %u,%u font 'sans,10' noenhanced "
		       "background '#ffffff'\n", w, h);
	strbuf_addstr(s, "set key outside top center horizontal noautotitle\n"
			 "set grid ytics lc rgb '#dddddd'\n");
}

static void plot_sep(struct strbuf *s, int *first)
{
	strbuf_addstr(s, *first ? "plot " : ", \\\n     ");
	*first = 0;
}

/* ---- preamble and comparison tables ---- */

static void preamble(struct strbuf *out, const struct comparison *c)
{

	strbuf_addstr(out, "<p>");
	escf(out, "%zu runs of %s on '%s', baseline first:", c->nr_runs, c->runs[0].what,
	     c->runs[0].spec);
	strbuf_addstr(out, "</p>\n<table><tr><th class=l>Column</th><th class=l>Run</th>"
			      "<th class=l>Kernel</th><th class=l>Topology</th></tr>\n");
	for (size_t k = 0; k < c->nr_runs; k++) {
		const struct cmp_run *r = &c->runs[k];

		strbuf_addf(out, "<tr><td class=l><span style=\"color:%s\">&#9632;</span> ",
			    colour(k));
		esc(out, r->label);
		strbuf_addstr(out, "</td><td class=l>");
		esc(out, r->name);
		strbuf_addstr(out, "</td><td class=l>");
		esc(out, r->kernel);
		strbuf_addstr(out, "</td><td class=l>");
		esc(out, r->spec_resolved ? r->spec_resolved : r->spec);
		strbuf_addstr(out, "</td></tr>\n");
	}
	strbuf_addstr(out, "</table>\n<p class=legend>Each cell: the statistic normalized to "
			      "the baseline, [pct imp] (positive is better), (CV %). Verdicts per "
			      "test column: + better, - worse, = no change (95% CI of the ratio "
			      "within &#177;2%), ? undecided (noise), x no data; q&lt;0.05 "
			      "(Benjamini-Hochberg); ^ up, v down in a row without a better "
			      "direction, whose [pct] is the change.</p>\n");
}

static const char *verdict_class(enum cmp_verdict v)
{
	static const char *const cls[] = { "nodata", "improved", "regressed", "same", "undecided",
					   "changed", "changed" };

	return (unsigned)v < ARRAY_SIZE(cls) ? cls[v] : "nodata";
}

static void number(struct strbuf *sb, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.2f", v);
	else
		strbuf_addstr(sb, "-");
}

static void test_cell(struct strbuf *sb, const struct cmp_test *t)
{
	strbuf_addf(sb, "<td class=\"l %s\" title=\"", verdict_class(t->verdict));
	if (t->verdict != CMP_NODATA) {
		escf(sb, "%s p=%.3g q=%.3g; ratio 95%% CI [%.4f, %.4f]; Brown-Forsythe q=%.3g",
		     t->method ? t->method : "-", t->t.p, t->q, t->ci_lo, t->ci_hi, t->bf_q);
		if (isfinite(t->more_runs))
			strbuf_addf(sb, "; about %.0f more runs per side", t->more_runs);
	}
	strbuf_addf(sb, "\">%c %s</td>", cmp_verdict_mark(t->verdict),
		    cmp_verdict_name(t->verdict));
}

/* The row's kept timelines, side by side in the side's colour. */
static void row_links(struct html_ctx *x, const struct cmp_row *row, struct strbuf *o)
{
	struct strbuf links = STRBUF_INIT;
	size_t n = 0;

	if (!row->case_id)
		return;
	for (size_t k = 0; k < x->c->nr_runs; k++)
		if (x->c->runs[k].dir)
			n += timeline_row_links(x->c->runs[k].dir, row->case_id,
						x->o ? x->o->page_dir : NULL, x->c->runs[k].label,
						colour(k), &links);
	if (n) {
		strbuf_addstr(o, "<br><span class=legend>timeline:");
		strbuf_add(o, links.buf, links.len);
		strbuf_addstr(o, "</span>");
	}
	strbuf_release(&links);
}

static void block_table(struct html_ctx *x, const struct cmp_block *b)
{
	const struct comparison *c = x->c;
	struct strbuf *o = x->out;

	strbuf_addstr(o, "<h2>");
	esc(o, b->title);
	strbuf_addstr(o, "</h2>\n<table class=meta><tr><td>Units</td><td>Normalized ");
	esc(o, b->metric);
	if (*b->unit) {
		strbuf_addstr(o, " in ");
		esc(o, !strcmp(b->unit, "s") ? "seconds" : b->unit);
	}
	strbuf_addf(o, "</td></tr><tr><td>Interpretation</td><td>%s</td></tr>"
		       "<tr><td>Statistic</td><td>%s</td></tr></table>\n",
		    b->no_direction ? "No better direction (^ up, v down)" :
		    b->higher_better ? "Higher is better" : "Lower is better",
		    stats_statistic_title(b->stat));
	strbuf_addstr(o, "<table class=cmp>\n<tr><th rowspan=2 class=l>Case</th>");
	for (size_t k = 0; k < c->nr_runs; k++) {
		strbuf_addstr(o, "<th colspan=3>");
		esc(o, c->runs[k].label);
		strbuf_addstr(o, "</th>");
	}
	for (size_t k = 1; k < c->nr_runs; k++) {
		strbuf_addstr(o, "<th rowspan=2>");
		esc(o, c->runs[k].label);
		strbuf_addstr(o, "<br>verdict</th>");
	}
	strbuf_addstr(o, "</tr>\n<tr>");
	for (size_t k = 0; k < c->nr_runs; k++)
		strbuf_addstr(o, "<th>norm</th><th>pct imp</th><th>CV</th>");
	strbuf_addstr(o, "</tr>\n");
	for (size_t r = 0; r < b->nr_rows; r++) {
		const struct cmp_row *row = &b->rows[r];

		strbuf_addstr(o, "<tr><td class=l>");
		esc(o, row->label);
		row_links(x, row, o);
		strbuf_addstr(o, "</td>");
		for (size_t k = 0; k < c->nr_runs; k++) {
			const struct cmp_cell *cell = &row->cells[k];

			if (!cell->m) {
				strbuf_addstr(o, "<td class=nodata>-</td><td class=nodata>-</td>"
						 "<td class=nodata>-</td>");
				continue;
			}
			strbuf_addstr(o, "<td>");
			number(o, cell->norm);
			strbuf_addstr(o, "</td><td>[");
			number(o, cell->pct_imp);
			strbuf_addstr(o, "]</td><td>(");
			number(o, cell->m->n >= 2 ? cell->cv_pct : NAN);
			strbuf_addstr(o, ")</td>");
		}
		for (size_t k = 1; k < c->nr_runs; k++)
			test_cell(o, &row->tests[k - 1]);
		strbuf_addstr(o, "</tr>\n");
	}
	strbuf_addstr(o, "</table>\n");
}

/* ---- plot 1: each row's run values per side, as box and strip ---- */

static double row_scale(const struct cmp_row *row, size_t nr)
{
	for (size_t k = 0; k < nr; k++)
		if (row->cells[k].m && isfinite(row->cells[k].stat) && row->cells[k].stat != 0)
			return row->cells[k].stat;
	return 1;
}

static void box_data(struct strbuf *s, const struct cmp_block *b, size_t k, size_t nr, double off)
{
	strbuf_addf(s, "$box%zu << EOD\n", k);
	for (size_t r = 0; r < b->nr_rows; r++) {
		const struct cmp_metric *m = b->rows[r].cells[k].m;
		double scale = row_scale(&b->rows[r], nr), *v;

		if (!m || !m->n)
			continue;
		v = xmalloc(m->n * sizeof(*v));
		for (size_t i = 0; i < m->n; i++)
			v[i] = m->values[i] / scale;
		gsl_sort(v, 1, m->n);
		strbuf_addf(s, "%.6g %.9g %.9g %.9g %.9g %.9g\n", r + off,
			    gsl_stats_quantile_from_sorted_data(v, 1, m->n, 0.25), v[0],
			    v[m->n - 1], gsl_stats_quantile_from_sorted_data(v, 1, m->n, 0.75),
			    gsl_stats_median_from_sorted_data(v, 1, m->n));
		free(v);
	}
	strbuf_addstr(s, "EOD\n");
	strbuf_addf(s, "$pts%zu << EOD\n", k);
	for (size_t r = 0; r < b->nr_rows; r++) {
		const struct cmp_metric *m = b->rows[r].cells[k].m;
		double scale = row_scale(&b->rows[r], nr);

		for (size_t i = 0; m && i < m->n; i++)
			strbuf_addf(s, "%.6g %.9g\n", r + off + 0.04 * ((double)(i % 5) - 2) / nr,
				    m->values[i] / scale);
	}
	strbuf_addstr(s, "EOD\n");
}

static int block_has_values(const struct cmp_block *b, size_t nr)
{
	for (size_t r = 0; r < b->nr_rows; r++)
		for (size_t k = 0; k < nr; k++)
			if (b->rows[r].cells[k].m && b->rows[r].cells[k].m->n)
				return 1;
	return 0;
}

static void distribution_plot(struct html_ctx *x, const struct cmp_block *b)
{
	const struct comparison *c = x->c;
	struct strbuf s = STRBUF_INIT, cap = STRBUF_INIT;
	double slot = 0.8 / c->nr_runs;
	unsigned w = 160 + 70 * (unsigned)(b->nr_rows * c->nr_runs);
	int first = 1;

	if (!block_has_values(b, c->nr_runs))
		return;
	plot_head(&s, w < 520 ? 520 : w > 1100 ? 1100 : w, 320);
	strbuf_addf(&s, "set xrange [-0.5:%zu.5]\nset boxwidth %.4f absolute\n", b->nr_rows - 1,
		    slot * 0.6);
	strbuf_addstr(&s, "set style fill solid 0.2 border\nset ylabel ");
	strbuf_addf(&cap, "%s per run / baseline %s of its row", b->metric,
		    stats_statistic_title(b->stat));
	plot_quote(&s, cap.buf);
	strbuf_addstr(&s, "\nset xtics (");
	for (size_t r = 0; r < b->nr_rows; r++) {
		strbuf_addstr(&s, r ? ", " : "");
		plot_quote(&s, b->rows[r].label);
		strbuf_addf(&s, " %zu", r);
	}
	strbuf_addstr(&s, ")\n");
	for (size_t k = 0; k < c->nr_runs; k++)
		box_data(&s, b, k, c->nr_runs, (k - (c->nr_runs - 1) / 2.0) * slot);
	for (size_t k = 0; k < c->nr_runs; k++) {
		plot_sep(&s, &first);
		strbuf_addf(&s, "$box%zu using 1:2:3:4:5 with candlesticks whiskerbars 0.5 lw 1.5 "
				"lc rgb '%s' title ", k, colour(k));
		plot_quote(&s, c->runs[k].label);
		plot_sep(&s, &first);
		strbuf_addf(&s, "$box%zu using 1:6:6:6:6 with candlesticks lw 2.5 lc rgb '%s'", k,
			    colour(k));
		plot_sep(&s, &first);
		strbuf_addf(&s, "$pts%zu using 1:2 with points pt 7 ps 0.45 lc rgb '%s'", k,
			    colour(k));
	}
	strbuf_addch(&s, '\n');
	strbuf_reset(&cap);
	strbuf_addf(&cap, "%s: every measured run's %s, divided by the baseline's %s of its row; "
		    "boxes from the lower to the upper quartile, the thick line is the median, "
		    "whiskers reach the extremes.", b->title, b->metric,
		    stats_statistic_title(b->stat));
	figure(x, s.buf, cap.buf);
	strbuf_release(&s);
	strbuf_release(&cap);
}

/* ---- counters: a table per scenario, a bar plot per case ---- */

/* The counters of one case that some run saw move, in the order first seen. */
static size_t case_counters(const struct comparison *c, const struct cmp_case **found,
			    struct cmp_ctr_line **out)
{
	struct cmp_ctr_line *v;
	size_t nr = cmp_case_counters(c, found, &v), kept = 0;

	for (size_t j = 0; j < nr; j++) {
		int moved = 0;

		for (size_t k = 0; k < c->nr_runs; k++)
			moved |= !isnan(v[j].v[k]) && v[j].v[k] != 0;
		if (moved)
			v[kept++] = v[j];
		else
			free(v[j].v);
	}
	*out = v;
	return kept;
}

static void count_cell(struct strbuf *o, double base, double v, int change)
{
	char buf[40];

	cmp_format_count(buf, sizeof(buf), v);
	strbuf_addf(o, "<td>%s</td>", buf);
	if (!change)
		return;
	cmp_format_change(buf, sizeof(buf), base, v);
	strbuf_addf(o, "<td>%s</td>", buf);
}

static void counter_plot(struct html_ctx *x, const struct cmp_case *cs, const struct cmp_ctr_line *v,
			 size_t nr)
{
	const struct comparison *c = x->c;
	struct strbuf s = STRBUF_INIT, cap = STRBUF_INIT;
	double slot = 0.8 / c->nr_runs;
	unsigned w = 160 + 24 * (unsigned)(nr * c->nr_runs);
	int first = 1;

	plot_head(&s, w < 520 ? 520 : w > 1100 ? 1100 : w, 340);
	strbuf_addf(&s, "set xrange [-0.5:%zu.5]\nset boxwidth %.4f absolute\n", nr - 1,
		    slot * 0.9);
	strbuf_addstr(&s, "set style fill solid 1.0 noborder\nset logscale y\nset format y '%.0e'\n"
			  "set ylabel 'count (log scale)'\nset xtics rotate by -25 left (");
	for (size_t j = 0; j < nr; j++) {
		strbuf_addstr(&s, j ? ", " : "");
		plot_quote(&s, v[j].name);
		strbuf_addf(&s, " %zu", j);
	}
	strbuf_addstr(&s, ")\n");
	for (size_t k = 0; k < c->nr_runs; k++) {
		strbuf_addf(&s, "$ctr%zu << EOD\n", k);
		for (size_t j = 0; j < nr; j++)
			if (v[j].v[k] > 0)
				strbuf_addf(&s, "%.6g %.9g\n",
					    j + (k - (c->nr_runs - 1) / 2.0) * slot, v[j].v[k]);
		strbuf_addstr(&s, "EOD\n");
	}
	for (size_t k = 0; k < c->nr_runs; k++) {
		int any = 0;

		for (size_t j = 0; j < nr; j++)
			any |= v[j].v[k] > 0;
		if (!any)
			continue;
		plot_sep(&s, &first);
		strbuf_addf(&s, "$ctr%zu using 1:2 with boxes lc rgb '%s' title ", k, colour(k));
		plot_quote(&s, c->runs[k].label);
	}
	strbuf_addch(&s, '\n');
	strbuf_addf(&cap, "%s: counter deltas (migrations per measured run; schedstat per domain "
		    "level and vmstat over the case); zero is not drawn.", cs->id);
	if (!first)
		figure(x, s.buf, cap.buf);
	strbuf_release(&s);
	strbuf_release(&cap);
}

static void counters_section(struct html_ctx *x, const char *scenario)
{
	const struct comparison *c = x->c;
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));
	struct strbuf *o = x->out, table = STRBUF_INIT, plots = STRBUF_INIT;
	struct strbuf *body = x->out;

	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const struct cmp_case *cs = &c->runs[0].cases[i];
		struct cmp_ctr_line *v;
		size_t nr;

		if (strcmp(cs->scenario, scenario))
			continue;
		cmp_find_all(c, cs->id, found);
		nr = case_counters(c, found, &v);
		for (size_t j = 0; j < nr; j++) {
			strbuf_addstr(&table, "<tr><td class=l>");
			if (!j)
				esc(&table, cmp_case_axes(cs));
			strbuf_addstr(&table, "</td><td class=l>");
			esc(&table, v[j].name);
			strbuf_addstr(&table, "</td>");
			for (size_t k = 0; k < c->nr_runs; k++)
				count_cell(&table, v[j].v[0], v[j].v[k], k > 0);
			strbuf_addstr(&table, "</tr>\n");
		}
		if (nr) {
			x->out = &plots;
			counter_plot(x, cs, v, nr);
			x->out = body;
		}
		cmp_counters_free(v, nr);
	}
	if (table.len) {
		strbuf_addstr(o, "<h3>Counters: ");
		esc(o, scenario);
		strbuf_addstr(o, "</h3>\n<p class=legend>Tasks' counters per measured run; "
				 "schedstat and vmstat deltas over the whole case.</p>\n"
				 "<table class=ctr>\n<tr><th class=l>Case</th>"
				 "<th class=l>Counter</th>");
		for (size_t k = 0; k < c->nr_runs; k++) {
			strbuf_addf(o, "<th%s>", k ? " colspan=2" : "");
			esc(o, c->runs[k].label);
			strbuf_addstr(o, "</th>");
		}
		strbuf_addstr(o, "</tr>\n");
		strbuf_add(o, table.buf, table.len);
		strbuf_addstr(o, "</table>\n");
		strbuf_add(o, plots.buf, plots.len);
	}
	strbuf_release(&table);
	strbuf_release(&plots);
	free(found);
}

/* ---- wakeup placement: a stacked bar per case and column ---- */

/* Placement colours, nearest (the previous CPU) to farthest, unknown grey. */
static const char *const place_colour[ST_PLACE_MAX] = {
	"#1a7f37", "#56b4e9", "#009e73", "#0072b2", "#e69f00", "#d55e00", "#8c959f",
};

/* The mean of a case's wake_<place>_pct values; NAN when it has none. */
static double place_share(const struct cmp_case *cs, int p)
{
	char name[32];

	snprintf(name, sizeof(name), "wake_%s_pct", st_place_name(p));
	return cmp_case_metric_mean(cs, name);
}

#define BAR_W 560u	/* pixels for 100 % */
#define BAR_H 18u
#define BAR_LABEL 170u

/* One SVG drawn here (no gnuplot): a bar per run of the case, each split
 * into its placement shares; a run without trace rows gets a note. */
static void placement_bar(struct strbuf *o, const struct comparison *c, const struct cmp_case *cs,
			  const struct cmp_case **found)
{
	unsigned h = (unsigned)c->nr_runs * (BAR_H + 6) + 34, w = BAR_LABEL + BAR_W + 10;

	strbuf_addf(o, "<figure class=placement><svg xmlns=\"http://www.w3.org/2000/svg\" "
		       "width=\"%u\" height=\"%u\" font-family=\"sans-serif\" font-size=\"11\">\n",
		    w, h);
	for (size_t k = 0; k < c->nr_runs; k++) {
		unsigned y = (unsigned)k * (BAR_H + 6) + 4;
		double x = BAR_LABEL;

		strbuf_addf(o, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">", BAR_LABEL - 6,
			    y + BAR_H - 5);
		esc(o, c->runs[k].label);
		strbuf_addstr(o, "</text>\n");
		if (isnan(place_share(found[k], ST_PLACE_PREV))) {
			strbuf_addf(o, "<text x=\"%u\" y=\"%u\" fill=\"#57606a\">no placement rows "
				       "(not traced)</text>\n", BAR_LABEL, y + BAR_H - 5);
			continue;
		}
		for (int p = 0; p < ST_PLACE_MAX; p++) {
			double v = place_share(found[k], p), bw;

			if (isnan(v) || v <= 0)
				continue;
			bw = (v > 100 ? 100 : v) * BAR_W / 100.0;
			strbuf_addf(o, "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
				       "fill=\"%s\"><title>", x, y, bw, BAR_H, place_colour[p]);
			escf(o, "%s: %s %.1f %%", c->runs[k].label, st_place_name(p), v);
			strbuf_addstr(o, "</title></rect>\n");
			if (bw >= 34)
				strbuf_addf(o, "<text x=\"%.2f\" y=\"%u\" fill=\"#ffffff\">%.0f%%</text>\n",
					    x + 3, y + BAR_H - 5, v);
			x += bw;
		}
	}
	/* the legend under the bars */
	for (int p = 0; p < ST_PLACE_MAX; p++) {
		unsigned lx = BAR_LABEL + (unsigned)p * 80, ly = h - 14;

		strbuf_addf(o, "<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			       "<text x=\"%u\" y=\"%u\">%s</text>\n", lx, ly, place_colour[p], lx + 14,
			    ly + 9, st_place_name(p));
	}
	strbuf_addstr(o, "</svg><figcaption>");
	escf(o, "%s: where woken tasks were placed, relative to the CPU they last ran on "
	     "(mean share over the measured runs).", cs->id);
	strbuf_addstr(o, "</figcaption></figure>\n");
}

static void placement_section(struct html_ctx *x, const char *scenario)
{
	const struct comparison *c = x->c;
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));
	struct strbuf bars = STRBUF_INIT;

	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const struct cmp_case *cs = &c->runs[0].cases[i];
		int any = 0;

		if (strcmp(cs->scenario, scenario))
			continue;
		cmp_find_all(c, cs->id, found);
		for (size_t k = 0; k < c->nr_runs; k++)
			any |= !isnan(place_share(found[k], ST_PLACE_PREV));
		if (any)
			placement_bar(&bars, c, cs, found);
	}
	if (bars.len) {
		strbuf_addstr(x->out, "<h3>Wakeup placement: ");
		esc(x->out, scenario);
		strbuf_addstr(x->out, "</h3>\n<p class=legend>Shares of wakeups (sched_waking) by where "
				      "the task was placed: the CPU of the sched_migrate_task that "
				      "follows it on the waker's CPU, else the previous one "
				      "(schedtrace counters).</p>\n");
		strbuf_add(x->out, bars.buf, bars.len);
	}
	strbuf_release(&bars);
	free(found);
}

/* ---- plot 3: fault actions over the per-run metric values ---- */

#define PER_RUN_TICS 40	/* more runs get a plain axis */

static const struct cmp_row *case_row(const struct comparison *c, const char *id,
				      const struct cmp_block **blk)
{
	for (size_t i = 0; i < c->nr_blocks; i++)
		for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
			if (!strcmp(c->blocks[i].rows[r].case_id, id)) {
				*blk = &c->blocks[i];
				return &c->blocks[i].rows[r];
			}
	return NULL;
}

/* Where a mark goes on the x axis: run index plus its time within the run
 * as a share of the case's longest (guest and host actions apart). */
static double mark_x(const struct fault_mark *m, double span, double host_span)
{
	double whole = m->host ? host_span : span, share = whole > 0 ? m->rel / whole : 0;

	return m->run + 0.05 + 0.9 * (share > 1 ? 1 : share);
}

static double spans(const struct fault_marks *fm, const char *id, double *host_span,
		    unsigned *runs, size_t *actions, size_t *failed)
{
	double span = 0;

	*host_span = 0;
	for (size_t i = 0; i < fm->nr; i++) {
		const struct fault_mark *m = &fm->v[i];
		double *to = m->host ? host_span : &span;

		if (strcmp(m->case_id, id))
			continue;
		if (m->run + 1 > *runs)
			*runs = m->run + 1;
		if (!m->end) {
			(*actions)++;
			*failed += !m->ok;
		}
		if (m->rel > *to)
			*to = m->rel;
	}
	return span;
}

static void fault_plot(struct html_ctx *x, const struct cmp_case *cs)
{
	const struct comparison *c = x->c;
	const struct cmp_block *b = NULL;
	const struct cmp_row *row = case_row(c, cs->id, &b);
	struct strbuf s = STRBUF_INIT, cap = STRBUF_INIT, marks = STRBUF_INIT;
	size_t total = 0, failed_total = 0;
	unsigned runs = 1;
	int first = 1, any_value = 0;

	for (size_t k = 0; k < c->nr_runs; k++) {
		const struct cmp_metric *m = row ? row->cells[k].m : NULL;
		size_t actions = 0, failed = 0;
		double host_span, span = spans(&x->marks[k], cs->id, &host_span, &runs, &actions,
					       &failed);

		if (m && m->n > runs)
			runs = (unsigned)m->n;
		total += actions;
		failed_total += failed;
		for (int ok = 1; ok >= 0; ok--) {
			strbuf_addf(&marks, "$mark%zu_%d << EOD\n", k, ok);
			for (size_t i = 0; i < x->marks[k].nr; i++) {
				const struct fault_mark *fmk = &x->marks[k].v[i];

				if (!fmk->end && fmk->ok == ok && !strcmp(fmk->case_id, cs->id))
					strbuf_addf(&marks, "%.6g %zu\n",
						    mark_x(fmk, span, host_span), k);
			}
			strbuf_addstr(&marks, "EOD\n");
		}
		strbuf_addf(&marks, "$val%zu << EOD\n", k);
		for (size_t i = 0; m && i < m->n; i++, any_value = 1)
			strbuf_addf(&marks, "%.6g %.9g\n", i + 0.5, m->values[i]);
		strbuf_addstr(&marks, "EOD\n");
	}
	if (!total)
		goto out;
	plot_head(&s, 760, 340);
	strbuf_add(&s, marks.buf, marks.len);
	strbuf_addf(&s, "set xrange [0:%u]\nset y2range [-0.6:%zu.6]\nset y2tics (", runs,
		    c->nr_runs - 1);
	for (size_t k = 0; k < c->nr_runs; k++) {
		strbuf_addstr(&s, k ? ", " : "");
		plot_quote(&s, c->runs[k].label);
		strbuf_addf(&s, " %zu", k);
	}
	strbuf_addstr(&s, ")\nset grid noxtics\n");
	if (runs <= PER_RUN_TICS) {
		strbuf_addstr(&s, "set xtics (");
		for (unsigned i = 0; i < runs; i++)
			strbuf_addf(&s, "%s'run %u' %u.5", i ? ", " : "", i, i);
		strbuf_addstr(&s, ")\n");
		for (unsigned i = 1; i < runs; i++)
			strbuf_addf(&s, "set arrow from %u, graph 0 to %u, graph 1 nohead "
				       "lc rgb '#bbbbbb'\n", i, i);
	} else {
		strbuf_addstr(&s, "set xlabel 'measured run'\n");
	}
	if (any_value) {
		strbuf_addf(&cap, "%s%s%s", b->metric, *b->unit ? " in " : "", b->unit);
		strbuf_addstr(&s, "set ylabel ");
		plot_quote(&s, cap.buf);
		strbuf_addstr(&s, "\n");
	} else {
		strbuf_addstr(&s, "unset ytics\nset yrange [0:1]\n");
	}
	for (size_t k = 0; k < c->nr_runs; k++) {
		struct strbuf t = STRBUF_INIT;

		if (row && row->cells[k].m && row->cells[k].m->n) {
			plot_sep(&s, &first);
			strbuf_addf(&s, "$val%zu using 1:2 with linespoints pt 7 lw 1.5 "
				       "lc rgb '%s' title ", k, colour(k));
			strbuf_addf(&t, "%s %s", c->runs[k].label, b->metric);
			plot_quote(&s, t.buf);
		}
		plot_sep(&s, &first);
		strbuf_addf(&s, "$mark%zu_1 using 1:2 axes x1y2 with points pt 9 ps 1.1 "
			       "lc rgb '%s'", k, colour(k));
		plot_sep(&s, &first);
		strbuf_addf(&s, "$mark%zu_0 using 1:2 axes x1y2 with points pt 2 ps 1.2 "
			       "lc rgb '%s'", k, FAILED_COLOUR);
		strbuf_release(&t);
	}
	strbuf_addch(&s, '\n');
	strbuf_reset(&cap);
	strbuf_addf(&cap, "%s: %zu fault actions (%zu failed: red crosses; triangles: done) at "
		    "their time in each measured run, one band per column on the right axis; "
		    "lines: %s per run.", cs->id, total, failed_total,
		    any_value ? b->metric : "no metric");
	figure(x, s.buf, cap.buf);
out:
	strbuf_release(&s);
	strbuf_release(&cap);
	strbuf_release(&marks);
}

static void faults_section(struct html_ctx *x)
{
	const struct comparison *c = x->c;
	struct strbuf table = STRBUF_INIT;

	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const char *id = c->runs[0].cases[i].id;
		struct strbuf row = STRBUF_INIT;
		size_t all = 0;

		strbuf_addstr(&row, "<tr><td class=l>");
		esc(&row, id);
		strbuf_addstr(&row, "</td>");
		for (size_t k = 0; k < c->nr_runs; k++) {
			size_t actions = 0, failed = 0;
			unsigned runs = 0;
			double host_span;

			spans(&x->marks[k], id, &host_span, &runs, &actions, &failed);
			strbuf_addf(&row, "<td>%zu</td><td%s>%zu</td>", actions,
				    failed ? " class=bad" : "", failed);
			all += actions;
		}
		strbuf_addstr(&row, "</tr>\n");
		if (all)
			strbuf_add(&table, row.buf, row.len);
		strbuf_release(&row);
	}
	if (!table.len)
		goto out;
	strbuf_addstr(x->out, "<h2>Fault timelines</h2>\n<table class=faults>\n"
			      "<tr><th class=l rowspan=2>Case</th>");
	for (size_t k = 0; k < c->nr_runs; k++) {
		strbuf_addstr(x->out, "<th colspan=2>");
		esc(x->out, c->runs[k].label);
		strbuf_addstr(x->out, "</th>");
	}
	strbuf_addstr(x->out, "</tr>\n<tr>");
	for (size_t k = 0; k < c->nr_runs; k++)
		strbuf_addstr(x->out, "<th>actions</th><th>failed</th>");
	strbuf_addstr(x->out, "</tr>\n");
	strbuf_add(x->out, table.buf, table.len);
	strbuf_addstr(x->out, "</table>\n");
	for (size_t k = 0; k < c->nr_runs; k++)
		if (x->marks[k].dropped) {
			strbuf_addstr(x->out, "<p class=warn>");
			escf(x->out, "%s: %zu fault actions beyond the first %u are not drawn.",
			     c->runs[k].label, x->marks[k].dropped, FAULT_MARKS_MAX);
			strbuf_addstr(x->out, "</p>\n");
		}
	for (size_t i = 0; i < c->runs[0].nr_cases; i++)
		fault_plot(x, &c->runs[0].cases[i]);
out:
	strbuf_release(&table);
}

/* ---- summary: its items as paragraphs and lists ---- */

static void close_item(struct strbuf *o, int *in_list, int *in_item)
{
	if (*in_item)
		strbuf_addstr(o, *in_list ? "</li>\n" : "</p>\n");
	*in_item = 0;
}

static void close_list(struct strbuf *o, int *in_list, int *in_item)
{
	close_item(o, in_list, in_item);
	if (*in_list)
		strbuf_addstr(o, "</ul>\n");
	*in_list = 0;
}

static void summary_section(struct html_ctx *x)
{
	struct summary s = SUMMARY_INIT;
	struct strbuf *o = x->out;
	int in_list = 0, in_item = 0;

	comparison_summary(x->c, &s);
	strbuf_addstr(o, "<h2>Summary</h2>\n");
	for (size_t i = 0; i < s.nr; i++) {
		switch (s.v[i].kind) {
		case SUMMARY_END:
			close_list(o, &in_list, &in_item);
			break;
		case SUMMARY_ITEM:
		case SUMMARY_MORE:
			close_item(o, &in_list, &in_item);
			if (!in_list)
				strbuf_addstr(o, "<ul>\n");
			in_list = in_item = 1;
			strbuf_addstr(o, "<li>");
			esc(o, s.v[i].text);
			break;
		case SUMMARY_LINE:
		case SUMMARY_PARA:
			close_list(o, &in_list, &in_item);
			in_item = 1;
			strbuf_addstr(o, "<p>");
			esc(o, s.v[i].text);
			break;
		}
	}
	close_list(o, &in_list, &in_item);
	summary_release(&s);
}

/* ---- the overview: every row's verdict, one line per table ---- */

/* The worst of a row's verdicts colours its mark: a regression shows
 * through improvements, a change through sameness. */
static enum cmp_verdict row_colour(const struct comparison *c, const struct cmp_row *row)
{
	static const int rank[] = { [CMP_NODATA] = 1, [CMP_IMPROVED] = 4, [CMP_REGRESSED] = 6,
				    [CMP_SAME] = 0, [CMP_UNDECIDED] = 2, [CMP_UP] = 5, [CMP_DOWN] = 5 };
	enum cmp_verdict w = CMP_SAME;

	for (size_t k = 1; k < c->nr_runs; k++) {
		enum cmp_verdict v = row->tests[k - 1].verdict;

		if ((unsigned)v < ARRAY_SIZE(rank) && rank[v] > rank[w])
			w = v;
	}
	return w;
}

static void overview_section(struct html_ctx *x)
{
	const struct comparison *c = x->c;
	struct strbuf *o = x->out;

	if (!c->nr_blocks || c->nr_runs < 2)
		return;
	strbuf_addstr(o, "<h2 id=overview>Every row</h2>\n<p class=legend>One line per table "
			 "(its link leads there), one mark per case and test column, as in the "
			 "tables; hover a mark for its case.</p>\n<div class=overview>\n");
	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];

		strbuf_addf(o, "<div><a href=\"#b%zu\">", i);
		esc(o, b->title);
		strbuf_addstr(o, "</a> ");
		for (size_t r = 0; r < b->nr_rows; r++) {
			const struct cmp_row *row = &b->rows[r];
			struct strbuf t = STRBUF_INIT;

			strbuf_addf(o, "<span class=%s title=\"",
				    verdict_class(row_colour(c, row)));
			strbuf_addstr(&t, row->label);
			for (size_t k = 1; k < c->nr_runs; k++)
				strbuf_addf(&t, "%s%s %s", k == 1 ? ": " : ", ", c->runs[k].label,
					    cmp_verdict_name(row->tests[k - 1].verdict));
			esc(o, t.buf);
			strbuf_addstr(o, "\">");
			for (size_t k = 1; k < c->nr_runs; k++)
				strbuf_addch(o, cmp_verdict_mark(row->tests[k - 1].verdict));
			strbuf_addstr(o, "</span>");
			strbuf_release(&t);
		}
		strbuf_addstr(o, "</div>\n");
	}
	strbuf_addstr(o, "</div>\n");
}

/* ---- the document ---- */

static void load_marks(struct html_ctx *x, struct strbuf *notes)
{
	x->marks = xcalloc(x->c->nr_runs, sizeof(*x->marks));
	for (size_t k = 0; k < x->c->nr_runs; k++) {
		struct strbuf err = STRBUF_INIT;

		if (x->c->runs[k].dir && fault_marks_load(&x->marks[k], x->c->runs[k].dir, &err)) {
			fault_marks_release(&x->marks[k]);
			strbuf_addstr(notes, "<p class=warn>");
			escf(notes, "Fault timeline of %s not shown: %s", x->c->runs[k].label,
			     err.buf);
			strbuf_addstr(notes, "</p>\n");
		}
		strbuf_release(&err);
	}
}

/* The timelines of kept runs that lab trace has not drawn yet: a row
 * never loses its link for want of a `lab trace`; what cannot be drawn is
 * said at the top. */
static void draw_timelines(struct html_ctx *x, struct strbuf *notes)
{
	for (size_t k = 0; x->o && x->o->draw_timelines && k < x->c->nr_runs; k++) {
		struct strbuf err = STRBUF_INIT;

		if (x->c->runs[k].dir &&
		    timeline_draw_missing(x->c->runs[k].dir, &x->marks[k], NULL, &err) < 0) {
			strbuf_addstr(notes, "<p class=warn>");
			escf(notes, "Timelines of %s not drawn: %.600s", x->c->runs[k].label, err.buf);
			strbuf_addstr(notes, "</p>\n");
		}
		strbuf_release(&err);
	}
}

/* Where each side's kept sched traces are, and their timelines (lab trace). */
static void traces_section(struct html_ctx *x)
{
	struct strbuf list = STRBUF_INIT;
	size_t n = 0;

	for (size_t k = 0; k < x->c->nr_runs; k++)
		n += timeline_links_html_rel(x->c->runs[k].dir, x->c->runs[k].label,
					     x->o ? x->o->page_dir : NULL, &list);
	if (n) {
		strbuf_addstr(x->out, "<h2>Kept sched traces</h2>\n<p>Per-CPU timelines, trace.dat "
			      "and Perfetto JSON of the runs kept (<code>lab trace RUN</code> draws "
			      "them; a run without links has pages that do not decode).</p>\n");
		strbuf_add(x->out, list.buf, list.len);
	}
	strbuf_release(&list);
}

void comparison_html(const struct comparison *c, const struct html_opts *o, struct strbuf *out,
		     struct strbuf *plots_skipped)
{
	struct strbuf body = STRBUF_INIT, notes = STRBUF_INIT, head = STRBUF_INIT;
	struct html_ctx x = { .c = c, .o = o, .out = &body, .skipped = STRBUF_INIT };

	if (o && o->no_plots)
		strbuf_addstr(&x.skipped, o->no_plots);
	load_marks(&x, &notes);
	draw_timelines(&x, &notes);
	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];

		strbuf_addf(&body, "<section class=block id=b%zu>\n", i);
		block_table(&x, b);
		distribution_plot(&x, b);
		strbuf_addstr(&body, "</section>\n");
		/* a scenario's counters follow its last table, as in the text */
		if (i + 1 == c->nr_blocks || strcmp(c->blocks[i + 1].scenario, b->scenario)) {
			counters_section(&x, b->scenario);
			placement_section(&x, b->scenario);
		}
	}
	faults_section(&x);
	traces_section(&x);
	/* the answer opens the page: the summary, then every row's verdict
	 * on one screen, then the tables (33 of them with --trace) */
	x.out = &head;
	summary_section(&x);
	overview_section(&x);

	strbuf_addstr(out, "<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=\"utf-8\">\n"
			   "<title>schedlab compare: ");
	for (size_t k = 0; k < c->nr_runs; k++) {
		strbuf_addstr(out, k ? " vs " : "");
		esc(out, c->runs[k].label);
	}
	strbuf_addf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n"
			 "<h1>schedlab comparison</h1>\n", css);
	preamble(out, c);
	if (x.skipped.len) {
		strbuf_addstr(out, "<p class=warn id=plots-skipped>Plots skipped: ");
		esc(out, x.skipped.buf);
		strbuf_addstr(out, "</p>\n");
		if (plots_skipped)
			strbuf_add(plots_skipped, x.skipped.buf, x.skipped.len);
	}
	strbuf_add(out, notes.buf, notes.len);
	strbuf_add(out, head.buf, head.len);
	strbuf_add(out, body.buf, body.len);
	strbuf_addstr(out, "</body>\n</html>\n");
	for (size_t k = 0; k < c->nr_runs; k++)
		fault_marks_release(&x.marks[k]);
	free(x.marks);
	strbuf_release(&x.skipped);
	strbuf_release(&body);
	strbuf_release(&head);
	strbuf_release(&notes);
}
