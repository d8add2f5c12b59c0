/* compare-json.c - the comparison as JSON: every number of every row, the
 * cases' verdicts and counters, and the summary's items. */
#define _GNU_SOURCE
#include "report/compare.h"
#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* JSON has no NaN or infinity: those become null. */
static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *jcell(const struct cmp_run *run, const struct cmp_cell *cell)
{
	struct json_object *o = json_object_new_object(), *vals;

	json_object_object_add(o, "run", json_object_new_string(run->label));
	if (!cell->m) {
		json_object_object_add(o, "n", json_object_new_int(0));
		return o;
	}
	vals = json_object_new_array();
	for (size_t i = 0; i < cell->m->n; i++)
		json_object_array_add(vals, jnum(cell->m->values[i]));
	json_object_object_add(o, "n", json_object_new_int((int)cell->m->n));
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "statistic_value", jnum(cell->stat));
	json_object_object_add(o, "mean", jnum(stats_amean(cell->m->values, cell->m->n)));
	json_object_object_add(o, "stdev", jnum(stats_sd(cell->m->values, cell->m->n)));
	/* one run has no spread to speak of: null, not 0 */
	json_object_object_add(o, "cv_pct", jnum(cell->m->n >= 2 ? cell->cv_pct : NAN));
	json_object_object_add(o, "normalized", jnum(cell->norm));
	json_object_object_add(o, "pct_imp", jnum(cell->pct_imp));
	return o;
}

static struct json_object *jtest(const struct cmp_test *t)
{
	struct json_object *o = json_object_new_object(), *ci = json_object_new_array(), *bf;

	json_object_object_add(o, "method", json_object_new_string(t->method));
	json_object_object_add(o, "statistic", jnum(t->t.stat));
	if (!isnan(t->t.df))
		json_object_object_add(o, "df", jnum(t->t.df));
	if (!isnan(t->t.z))
		json_object_object_add(o, "z", jnum(t->t.z));
	if (!strcmp(t->method, "mann-whitney"))
		json_object_object_add(o, "exact", json_object_new_boolean(t->t.exact));
	json_object_object_add(o, "p", jnum(t->t.p));
	json_object_object_add(o, "q", jnum(t->q));
	json_object_array_add(ci, jnum(t->ci_lo));
	json_object_array_add(ci, jnum(t->ci_hi));
	json_object_object_add(o, "ratio_ci95", ci);
	bf = json_object_new_object();
	json_object_object_add(bf, "F", jnum(t->bf.stat));
	json_object_object_add(bf, "df1", jnum(t->bf.df));
	json_object_object_add(bf, "df2", jnum(t->bf.df2));
	json_object_object_add(bf, "p", jnum(t->bf.p));
	json_object_object_add(bf, "q", jnum(t->bf_q));
	json_object_object_add(o, "brown_forsythe", bf);
	json_object_object_add(o, "more_runs_per_side", jnum(t->more_runs));
	if (t->why)
		json_object_object_add(o, "undecided_because", json_object_new_string(t->why));
	json_object_object_add(o, "verdict", json_object_new_string(cmp_verdict_name(t->verdict)));
	return o;
}

/* The summary's items in order; "end" closes a group (a list, a sentence). */
static struct json_object *summary_json(const struct comparison *c)
{
	struct summary s = SUMMARY_INIT;
	struct json_object *list = json_object_new_array();

	comparison_summary(c, &s);
	for (size_t i = 0; i < s.nr; i++) {
		struct json_object *it = json_object_new_object();

		json_object_object_add(it, "kind", json_object_new_string(summary_kind_name(s.v[i].kind)));
		if (s.v[i].kind != SUMMARY_END)
			json_object_object_add(it, "text", json_object_new_string(s.v[i].text));
		json_object_array_add(list, it);
	}
	summary_release(&s);
	return list;
}

struct json_object *comparison_json(const struct comparison *c)
{
	struct json_object *o = json_object_new_object(), *runs = json_object_new_array();
	struct json_object *settings = json_object_new_object(), *rows = json_object_new_array();
	struct json_object *counters = json_object_new_array(), *cases = json_object_new_array();
	struct json_object *sum = json_object_new_object();
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));

	for (size_t k = 0; k < c->nr_runs; k++) {
		const struct cmp_run *r = &c->runs[k];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "label", json_object_new_string(r->label));
		json_object_object_add(j, "run", json_object_new_string(r->name));
		json_object_object_add(j, "dir", json_object_new_string(r->dir));
		json_object_object_add(j, "kernel", json_object_new_string(r->kernel));
		json_object_object_add(j, "ran", json_object_new_string(r->what));
		json_object_object_add(j, "spec", json_object_new_string(r->spec));
		json_object_object_add(j, "spec_resolved", json_object_new_string(r->spec_resolved));
		json_object_object_add(j, "baseline", json_object_new_boolean(k == 0));
		json_object_array_add(runs, j);
	}
	json_object_object_add(o, "runs", runs);
	json_object_object_add(settings, "fdr", jnum(CMP_ALPHA));
	json_object_object_add(settings, "no_change_band", jnum(CMP_SAME_BAND));
	json_object_object_add(settings, "ci_level", jnum(0.95));
	json_object_object_add(settings, "ratio_interval",
			       json_object_new_string("welch t on the log ratio (amean, hmean); "
						      "hodges-lehmann, exact mann-whitney (median)"));
	json_object_object_add(settings, "min_runs_no_change", json_object_new_int(CMP_MIN_RUNS));
	json_object_object_add(settings, "mann_whitney_exact_max", json_object_new_int(STATS_MW_EXACT_MAX));
	json_object_object_add(o, "settings", settings);

	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];

		for (size_t r = 0; r < b->nr_rows; r++)
			for (size_t k = 0; k + 1 < c->nr_runs; k++) {
				const struct cmp_row *row = &b->rows[r];
				struct json_object *j = json_object_new_object();

				json_object_object_add(j, "test", json_object_new_string(b->title));
				json_object_object_add(j, "scenario", json_object_new_string(b->scenario));
				json_object_object_add(j, "case", json_object_new_string(row->case_id));
				json_object_object_add(j, "label", json_object_new_string(row->label));
				json_object_object_add(j, "metric", json_object_new_string(b->metric));
				json_object_object_add(j, "unit", json_object_new_string(b->unit));
				json_object_object_add(j, "better",
						       json_object_new_string(b->no_direction ? "none" :
									      b->higher_better ? "higher" : "lower"));
				json_object_object_add(j, "statistic",
						       json_object_new_string(stats_statistic_title(b->stat)));
				json_object_object_add(j, "base", jcell(&c->runs[0], &row->cells[0]));
				json_object_object_add(j, "test", jcell(&c->runs[k + 1], &row->cells[k + 1]));
				json_object_object_add(j, "comparison", jtest(&row->tests[k]));
				json_object_object_add(j, "verdict",
						       json_object_new_string(cmp_verdict_name(row->tests[k].verdict)));
				json_object_array_add(rows, j);
			}
	}
	json_object_object_add(o, "rows", rows);

	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const struct cmp_case *bc = &c->runs[0].cases[i];
		struct json_object *jc = json_object_new_object(), *verdicts = json_object_new_array();
		struct json_object *list = json_object_new_array();
		struct cmp_ctr_line *lines;
		size_t nl;

		cmp_find_all(c, bc->id, found);
		for (size_t k = 0; k < c->nr_runs; k++) {
			struct json_object *v = json_object_new_object();

			json_object_object_add(v, "run", json_object_new_string(c->runs[k].label));
			json_object_object_add(v, "verdict",
					       json_object_new_string(found[k] ? found[k]->verdict : "MISSING"));
			json_object_object_add(v, "reason",
					       json_object_new_string(found[k] ? found[k]->reason : ""));
			json_object_array_add(verdicts, v);
		}
		json_object_object_add(jc, "case", json_object_new_string(bc->id));
		json_object_object_add(jc, "verdicts", verdicts);
		json_object_array_add(cases, jc);

		nl = cmp_case_counters(c, found, &lines);
		for (size_t j = 0; j < nl; j++) {
			struct json_object *e = json_object_new_object(), *vals = json_object_new_array();

			json_object_object_add(e, "name", json_object_new_string(lines[j].key));
			if (lines[j].level >= 0) {
				json_object_object_add(e, "level", json_object_new_int(lines[j].level));
				json_object_object_add(e, "domain", json_object_new_string(lines[j].name));
			}
			for (size_t k = 0; k < c->nr_runs; k++)
				json_object_array_add(vals, jnum(lines[j].v[k]));
			json_object_object_add(e, "values", vals);
			json_object_array_add(list, e);
		}
		cmp_counters_free(lines, nl);
		{
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "case", json_object_new_string(bc->id));
			json_object_object_add(e, "counters", list);
			json_object_array_add(counters, e);
		}
	}
	json_object_object_add(o, "counters", counters);
	json_object_object_add(o, "cases", cases);
	json_object_object_add(sum, "improvement", json_object_new_int((int)c->count[CMP_IMPROVED]));
	json_object_object_add(sum, "regression", json_object_new_int((int)c->count[CMP_REGRESSED]));
	json_object_object_add(sum, "no change", json_object_new_int((int)c->count[CMP_SAME]));
	json_object_object_add(sum, "undecided", json_object_new_int((int)c->count[CMP_UNDECIDED]));
	json_object_object_add(sum, "no data", json_object_new_int((int)c->count[CMP_NODATA]));
	json_object_object_add(sum, "up", json_object_new_int((int)c->count[CMP_UP]));
	json_object_object_add(sum, "down", json_object_new_int((int)c->count[CMP_DOWN]));
	json_object_object_add(sum, "cases_not_passed", json_object_new_int((int)c->bad_cases));
	json_object_object_add(o, "summary", sum);
	json_object_object_add(o, "summary_items", summary_json(c));
	json_object_object_add(o, "exit_code", json_object_new_int(comparison_exit_code(c)));
	free(found);
	return o;
}

