/* compare.c - the comparison behind `lab compare`: runs of one kernel pooled
 * into a side, rows of every declared metric, their tests and verdicts. */
#define _GNU_SOURCE
#include "report/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

/* ---- pooling several runs of one kernel into one side ---- */

static const struct cmp_case *find_case(const struct cmp_case **sorted, size_t n, const char *id);

static void pool_metric(struct cmp_case *dst, const struct cmp_metric *m)
{
	struct cmp_metric *d = NULL;

	for (size_t i = 0; i < dst->nr_metrics && !d; i++)
		if (!strcmp(dst->metrics[i].name, m->name))
			d = &dst->metrics[i];
	if (!d) {
		if (dst->nr_metrics >= CMP_MAX_METRICS)
			return;
		dst->metrics = xrealloc(dst->metrics, (dst->nr_metrics + 1) * sizeof(*dst->metrics));
		d = &dst->metrics[dst->nr_metrics++];
		*d = *m;
		d->name = xstrdup(m->name);
		d->unit = xstrdup(m->unit);
		d->values = NULL;
		d->n = 0;
	}
	if (!m->n)
		return;
	d->values = xrealloc(d->values, (d->n + m->n) * sizeof(*d->values));
	memcpy(d->values + d->n, m->values, m->n * sizeof(*m->values));
	d->n += m->n;
}

/* Counters are per case and run: the pool shows their mean per run. */
static void pool_counters(struct cmp_case *dst, const struct cmp_case *const *src, size_t nr)
{
	for (size_t r = 0; r < nr; r++)
		for (size_t i = 0; i < src[r]->nr_counters; i++) {
			const struct cmp_counter *k = &src[r]->counters[i];
			size_t j, seen = 0;
			double sum = 0;

			for (j = 0; j < dst->nr_counters; j++)
				if (!strcmp(dst->counters[j].name, k->name) && dst->counters[j].level == k->level)
					break;
			if (j < dst->nr_counters)
				continue;
			for (size_t q = 0; q < nr; q++)
				for (size_t x = 0; x < src[q]->nr_counters; x++)
					if (!strcmp(src[q]->counters[x].name, k->name) &&
					    src[q]->counters[x].level == k->level) {
						sum += src[q]->counters[x].value;
						seen++;
						break;
					}
			cmp_case_add_counter(dst, k->name, k->level, sum / (double)seen);
		}
}

static void pool_case(struct cmp_case *dst, const struct cmp_case *const *src, const struct cmp_run *runs,
		      size_t nr)
{
	const struct cmp_case *bad = NULL;
	size_t bad_run = 0, skipped = 0;

	dst->id = xstrdup(src[0]->id);
	dst->scenario = xstrdup(src[0]->scenario);
	dst->workload = xstrdup(src[0]->workload);
	for (size_t r = 0; r < nr; r++) {
		if (!strcmp(src[r]->verdict, "SKIP"))
			skipped++;
		else if (strcmp(src[r]->verdict, "PASS") && !bad)
			bad = src[r], bad_run = r;
		if (!strcmp(src[r]->verdict, "PASS"))
			for (size_t i = 0; i < src[r]->nr_metrics; i++)
				pool_metric(dst, &src[r]->metrics[i]);
	}
	if (bad) {
		dst->verdict = xstrdup(bad->verdict);
		dst->reason = xasprintf("in %s: %.500s", runs[bad_run].name, bad->reason);
	} else if (skipped == nr) {
		dst->verdict = xstrdup("SKIP");
		dst->reason = xstrdup(src[0]->reason);
	} else {
		dst->verdict = xstrdup("PASS");
		dst->reason = xstrdup("");
	}
	for (size_t r = 0; r < nr; r++) {
		const char *f = src[r]->wakeups_from;

		if (!f)
			continue;
		if (!dst->wakeups_from)
			dst->wakeups_from = xstrdup(f);
		else if (strcmp(dst->wakeups_from, f)) {
			free(dst->wakeups_from);
			dst->wakeups_from = xstrdup("mixed");
		}
	}
	pool_counters(dst, src, nr);
}

static const char *smt_of(const struct cmp_run *r)
{
	return r->smt && *r->smt ? r->smt : "unknown";
}

static const char *feat_of(const struct cmp_run *r)
{
	return r->sched_feat && *r->sched_feat ? r->sched_feat : "default";
}

static const char *knob_of(const struct cmp_run *r)
{
	return r->sched_knob && *r->sched_knob ? r->sched_knob : "default";
}

static int pool_check(const struct cmp_run *runs, size_t nr, struct strbuf *err)
{
	for (size_t k = 1; k < nr; k++) {
		const char *a0 = runs[0].arch ? runs[0].arch : "x86_64";
		const char *ak = runs[k].arch ? runs[k].arch : "x86_64";

		if (strcmp(a0, ak)) {
			strbuf_addf(err, "cannot pool runs of different arches: %s ran %s, %s ran %s",
				    runs[0].name, a0, runs[k].name, ak);
			return -1;
		}
		if (strcmp(runs[0].kernel, runs[k].kernel)) {
			strbuf_addf(err, "cannot pool runs of different kernels: %s ran %s, %s ran %s",
				    runs[0].name, runs[0].kernel, runs[k].name, runs[k].kernel);
			return -1;
		}
		if (strcmp(smt_of(&runs[0]), smt_of(&runs[k]))) {
			strbuf_addf(err, "cannot pool runs with SMT %s (%s) and SMT %s (%s)",
				    smt_of(&runs[0]), runs[0].name, smt_of(&runs[k]), runs[k].name);
			return -1;
		}
		if (strcmp(feat_of(&runs[0]), feat_of(&runs[k]))) {
			strbuf_addf(err, "cannot pool runs with scheduler features '%s' (%s) and '%s' (%s)",
				    feat_of(&runs[0]), runs[0].name, feat_of(&runs[k]), runs[k].name);
			return -1;
		}
		if (strcmp(knob_of(&runs[0]), knob_of(&runs[k]))) {
			strbuf_addf(err, "cannot pool runs with scheduler knobs '%s' (%s) and '%s' (%s)",
				    knob_of(&runs[0]), runs[0].name, knob_of(&runs[k]), runs[k].name);
			return -1;
		}
	}
	return cmp_runs_check(runs, nr, err);
}

int cmp_run_pool(struct cmp_run *dst, const struct cmp_run *runs, size_t nr, struct strbuf *err)
{
	const struct cmp_case ***sorted;
	const struct cmp_case **src;
	struct strbuf name = STRBUF_INIT;

	if (!nr) {
		strbuf_addstr(err, "no runs to pool");
		return -1;
	}
	if (pool_check(runs, nr, err) < 0)
		return -1;
	dst->dir = xstrdup(runs[0].dir);
	for (size_t k = 0; k < nr; k++)
		strbuf_addf(&name, "%s%s", k ? " + " : "", runs[k].name);
	dst->name = strbuf_detach(&name);
	dst->label = xstrdup(runs[0].label);
	dst->kernel = xstrdup(runs[0].kernel);
	dst->what = xstrdup(runs[0].what);
	dst->spec = xstrdup(runs[0].spec);
	dst->spec_resolved = xstrdup(runs[0].spec_resolved);
	dst->smt = xstrdup(runs[0].smt ? runs[0].smt : "");
	dst->sched_feat = xstrdup(runs[0].sched_feat ? runs[0].sched_feat : "");
	dst->sched_knob = xstrdup(runs[0].sched_knob ? runs[0].sched_knob : "");
	dst->arch = xstrdup(runs[0].arch ? runs[0].arch : "x86_64");
	dst->clock = xstrdup(runs[0].clock ? runs[0].clock : "wall");
	dst->qemu_series = xstrdup(runs[0].qemu_series ? runs[0].qemu_series : "");
	dst->features = xstrdup(runs[0].features ? runs[0].features : "");
	dst->nr_pooled = nr;
	for (size_t i = 0; i < runs[0].nr_domain_names; i++)
		dst->domain_names[dst->nr_domain_names++] = xstrdup(runs[0].domain_names[i]);

	sorted = xcalloc(nr, sizeof(*sorted));
	src = xcalloc(nr, sizeof(*src));
	for (size_t k = 0; k < nr; k++)
		sorted[k] = cmp_cases_by_id(&runs[k]);
	dst->cases = xcalloc(runs[0].nr_cases ? runs[0].nr_cases : 1, sizeof(*dst->cases));
	for (size_t i = 0; i < runs[0].nr_cases; i++) {
		/* pool_check() made sure every run has every case */
		for (size_t k = 0; k < nr; k++)
			src[k] = find_case(sorted[k], runs[k].nr_cases, runs[0].cases[i].id);
		pool_case(&dst->cases[dst->nr_cases++], src, runs, nr);
	}
	for (size_t k = 0; k < nr; k++)
		free(sorted[k]);
	free(sorted);
	free(src);
	return 0;
}

/* ---- the comparison ---- */

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = { "no data", "improvement", "regression", "no change",
					     "undecided", "up", "down" };

	return (unsigned)v < ARRAY_SIZE(names) ? names[v] : "?";
}

char cmp_verdict_mark(enum cmp_verdict v)
{
	return "x+-=?^v"[(unsigned)v < CMP_NR_VERDICTS ? v : 0];
}

static int cmp_case_ptr_id(const void *a, const void *b)
{
	return strcmp((*(const struct cmp_case *const *)a)->id, (*(const struct cmp_case *const *)b)->id);
}

/* Sorted pointers to the cases, for lookups and duplicate checks. */
const struct cmp_case **cmp_cases_by_id(const struct cmp_run *run)
{
	const struct cmp_case **v = xmalloc((run->nr_cases ? run->nr_cases : 1) * sizeof(*v));

	for (size_t i = 0; i < run->nr_cases; i++)
		v[i] = &run->cases[i];
	qsort(v, run->nr_cases, sizeof(*v), cmp_case_ptr_id);
	return v;
}

static const struct cmp_case *find_case(const struct cmp_case **sorted, size_t n, const char *id)
{
	struct cmp_case key = { .id = (char *)id };
	const struct cmp_case *kp = &key, **hit;

	hit = bsearch(&kp, sorted, n, sizeof(*sorted), cmp_case_ptr_id);
	return hit ? *hit : NULL;
}

static const struct cmp_metric *find_metric(const struct cmp_case *c, const char *name)
{
	for (size_t i = 0; c && i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

/* The ',' that starts the next "key=" of a case id, or the end: values may
 * hold commas themselves, keys are workload option names. */
static const char *next_axis(const char *p)
{
	for (const char *q = p; *q; q++) {
		const char *k = q + 1;

		if (*q != ',')
			continue;
		while (islower((unsigned char)*k) || isdigit((unsigned char)*k) || *k == '_')
			k++;
		if (k > q + 1 && *k == '=')
			return q;
	}
	return p + strlen(p);
}

/* "scen/groups=4,mode=thread" -> row label "4-groups", other axes "mode=thread". */
static void split_axes(const struct cmp_case *c, char **label, char **rest)
{
	const char *p = strchr(c->id, '/'), *end, *eq;

	if (!p || !p[1]) {
		*label = xstrdup(c->workload);
		*rest = xstrdup("");
		return;
	}
	p++;
	end = next_axis(p);
	eq = memchr(p, '=', (size_t)(end - p));
	if (eq)
		*label = xasprintf("%.*s-%.*s", (int)(end - eq - 1), eq + 1, (int)(eq - p), p);
	else
		*label = xasprintf("%.*s", (int)(end - p), p);
	*rest = xstrdup(*end ? end + 1 : "");
}

static struct cmp_block *find_block(struct comparison *c, const char *scenario, const char *metric,
				    const char *axes)
{
	for (size_t i = 0; i < c->nr_blocks; i++) {
		struct cmp_block *b = &c->blocks[i];

		if (!strcmp(b->scenario, scenario) && !strcmp(b->metric, metric) &&
		    !strcmp(b->axes, axes))
			return b;
	}
	return NULL;
}

static void fill_cell(struct cmp_cell *cell, const struct cmp_case *cs, const struct cmp_block *b,
		      const struct cmp_cell *base)
{
	const struct cmp_metric *m = NULL;

	cell->m = NULL;
	cell->stat = cell->cv_pct = cell->norm = cell->pct_imp = NAN;
	/* a failed case's partial runs would compare apples with crashes */
	if (cs && !strcmp(cs->verdict, "PASS"))
		m = find_metric(cs, b->metric);
	if (!m || !m->n)
		return;
	cell->m = m;
	cell->stat = stats_summary(b->stat, m->values, m->n);
	cell->cv_pct = stats_cv_pct(m->values, m->n);
	if (!base)
		base = cell;
	if (!base->m)
		return;
	if (base->stat == 0)
		cell->norm = cell->stat == 0 ? 1 : copysign(INFINITY, cell->stat);
	else
		cell->norm = cell->stat / base->stat;
	cell->pct_imp = (cell->norm - 1) * 100 * (b->higher_better ? 1 : -1);
}

static void run_tests(struct cmp_test *t, const struct cmp_block *b, const struct cmp_cell *base,
		      const struct cmp_cell *test)
{
	const double *x, *y;
	size_t nx, ny;

	memset(t, 0, sizeof(*t));
	t->q = t->bf_q = t->ci_lo = t->ci_hi = t->more_runs = NAN;
	t->t.p = t->bf.p = NAN;
	t->verdict = CMP_NODATA;
	t->method = b->stat == STATS_MEDIAN ? "mann-whitney" : "welch";
	if (!base->m || !test->m)
		return;
	x = base->m->values;
	nx = base->m->n;
	y = test->m->values;
	ny = test->m->n;
	/* means get Welch; medians of latency percentiles get a rank test */
	if (b->stat == STATS_MEDIAN)
		stats_mann_whitney(x, nx, y, ny, &t->t);
	else
		stats_welch(x, nx, y, ny, &t->t);
	stats_ratio_ci(b->stat, x, nx, y, ny, 0.95, &t->ci_lo, &t->ci_hi, &t->ci_why);
	stats_brown_forsythe(x, nx, y, ny, &t->bf);
}

/*
 * Runs per side that would decide an undecided row with 80 % power, by
 * the row's own test at the Benjamini-Hochberg level of its rank
 * (alpha * rank / m): a change, or an interval inside the no-change band.
 */
static double more_runs(const struct cmp_block *b, const struct cmp_cell *base,
			const struct cmp_cell *test, double alpha)
{
	size_t nx = base->m->n, ny = test->m->n, have = nx < ny ? nx : ny;
	double need;

	if (have < 2)
		return (double)(2 - have);
	need = stats_runs_to_decide(b->stat, base->m->values, nx, test->m->values, ny, alpha, 0.8,
				    0.95, CMP_SAME_BAND, CMP_MIN_RUNS);
	if (!isfinite(need))
		return NAN;
	return need - (double)have;
}

static void decide(struct cmp_test *t, const struct cmp_block *b, const struct cmp_cell *base,
		   const struct cmp_cell *test, double row_alpha)
{
	int up = t->ci_lo > 1, down = t->ci_hi < 1;

	if (!base->m || !test->m) {
		t->verdict = CMP_NODATA;
		return;
	}
	if (t->q < CMP_ALPHA && (up || down)) {
		if (b->no_direction)
			t->verdict = up ? CMP_UP : CMP_DOWN;
		else
			t->verdict = up == b->higher_better ? CMP_IMPROVED : CMP_REGRESSED;
		return;
	}
	t->verdict = CMP_UNDECIDED;
	if (t->ci_lo >= 1 - CMP_SAME_BAND && t->ci_hi <= 1 + CMP_SAME_BAND) {
		/* an interval from a handful of runs is no proof of "no change" */
		if (base->m->n >= CMP_MIN_RUNS && test->m->n >= CMP_MIN_RUNS)
			t->verdict = CMP_SAME;
		else
			t->why = "within the no-change band, but \"=\" needs " CMP_MIN_RUNS_STR
				 " runs a side";
	} else if (!t->why) {
		t->why = t->ci_why;
	}
	if (t->verdict == CMP_UNDECIDED)
		t->more_runs = more_runs(b, base, test, row_alpha);
}

static void add_row(struct comparison *c, struct cmp_block *b, const char *label, const char *case_id,
		    const struct cmp_case **found)
{
	struct cmp_row *row;

	b->rows = xrealloc(b->rows, (b->nr_rows + 1) * sizeof(*b->rows));
	row = &b->rows[b->nr_rows++];
	row->label = xstrdup(label);
	row->case_id = case_id;
	row->cells = xcalloc(c->nr_runs, sizeof(*row->cells));
	row->tests = xcalloc(c->nr_runs > 1 ? c->nr_runs - 1 : 1, sizeof(*row->tests));
	for (size_t k = 0; k < c->nr_runs; k++)
		fill_cell(&row->cells[k], found[k], b, k ? &row->cells[0] : NULL);
	for (size_t k = 1; k < c->nr_runs; k++)
		run_tests(&row->tests[k - 1], b, &row->cells[0], &row->cells[k]);
}

/* The declared metrics of one case, over every run (a run whose case
 * failed may have none), in the order the baseline lists them. */
static void case_metrics(const struct cmp_case **found, size_t nr, struct strvec *names)
{
	for (size_t k = 0; k < nr; k++) {
		if (!found[k])
			continue;
		for (size_t i = 0; i < found[k]->nr_metrics; i++) {
			const struct cmp_metric *m = &found[k]->metrics[i];
			size_t j;

			if (!m->declared)
				continue;
			for (j = 0; j < names->nr && strcmp(names->v[j], m->name); j++)
				;
			if (j == names->nr)
				strvec_push(names, m->name);
		}
	}
}

static void new_block(struct comparison *c, const struct cmp_case **found, size_t nr_found,
		      const char *metric, const char *rest, size_t nr_metrics)
{
	const struct cmp_case *base = found[0];
	const struct cmp_metric *m = NULL;
	struct cmp_block *b;

	for (size_t k = 0; k < nr_found && !m; k++)
		m = find_metric(found[k], metric);
	c->blocks = xrealloc(c->blocks, (c->nr_blocks + 1) * sizeof(*c->blocks));
	b = &c->blocks[c->nr_blocks++];
	memset(b, 0, sizeof(*b));
	b->scenario = xstrdup(base->scenario);
	b->metric = xstrdup(metric);
	b->axes = xstrdup(rest);
	b->unit = xstrdup(m->unit);
	b->higher_better = m->higher_better;
	b->no_direction = m->no_direction;
	b->stat = m->stat;
	b->title = xasprintf("%s%s%s%s%s", base->scenario, nr_metrics > 1 ? " " : "",
			     nr_metrics > 1 ? metric : "", *rest ? " " : "", rest);
}

void comparison_build(struct comparison *c, const struct cmp_run *runs, size_t nr)
{
	const struct cmp_case ***sorted = xcalloc(nr, sizeof(*sorted));
	const struct cmp_case **found = xcalloc(nr, sizeof(*found));
	size_t nr_tests = 0, at = 0;
	double *p, *q, *bp, *bq, *row_alpha;

	memset(c, 0, sizeof(*c));
	c->runs = runs;
	c->nr_runs = nr;
	for (size_t k = 0; k < nr; k++) {
		sorted[k] = cmp_cases_by_id(&runs[k]);
		for (size_t i = 0; i < runs[k].nr_cases; i++)
			if (strcmp(runs[k].cases[i].verdict, "PASS") &&
			    strcmp(runs[k].cases[i].verdict, "SKIP"))
				c->bad_cases++;
	}
	for (size_t i = 0; i < runs[0].nr_cases; i++) {
		const struct cmp_case *bc = &runs[0].cases[i];
		struct strvec metrics = STRVEC_INIT;
		char *label, *rest;

		for (size_t k = 0; k < nr; k++)
			found[k] = find_case(sorted[k], runs[k].nr_cases, bc->id);
		case_metrics(found, nr, &metrics);
		split_axes(bc, &label, &rest);
		for (size_t j = 0; j < metrics.nr; j++) {
			struct cmp_block *b = find_block(c, bc->scenario, metrics.v[j], rest);

			if (!b) {
				new_block(c, found, nr, metrics.v[j], rest, metrics.nr);
				b = &c->blocks[c->nr_blocks - 1];
			}
			add_row(c, b, label, bc->id, found);
			nr_tests += nr - 1;
		}
		free(label);
		free(rest);
		strvec_clear(&metrics);
	}
	/* one family for Benjamini-Hochberg: every row of every table */
	p = xcalloc(nr_tests + 1, sizeof(*p));
	q = xcalloc(nr_tests + 1, sizeof(*q));
	bp = xcalloc(nr_tests + 1, sizeof(*bp));
	bq = xcalloc(nr_tests + 1, sizeof(*bq));
	for (size_t i = 0; i < c->nr_blocks; i++)
		for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
			for (size_t k = 0; k + 1 < nr; k++, at++) {
				p[at] = c->blocks[i].rows[r].tests[k].t.p;
				bp[at] = c->blocks[i].rows[r].tests[k].bf.p;
			}
	stats_bh(p, nr_tests, q);
	stats_bh(bp, nr_tests, bq);
	row_alpha = xcalloc(nr_tests + 1, sizeof(*row_alpha));
	stats_bh_levels(p, nr_tests, CMP_ALPHA, row_alpha);
	at = 0;
	for (size_t i = 0; i < c->nr_blocks; i++)
		for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
			for (size_t k = 0; k + 1 < nr; k++, at++) {
				struct cmp_row *row = &c->blocks[i].rows[r];
				struct cmp_test *t = &row->tests[k];

				t->q = q[at];
				t->bf_q = bq[at];
				decide(t, &c->blocks[i], &row->cells[0], &row->cells[k + 1], row_alpha[at]);
				c->count[t->verdict]++;
			}
	free(p);
	free(q);
	free(bp);
	free(bq);
	free(row_alpha);
	for (size_t k = 0; k < nr; k++)
		free(sorted[k]);
	free(sorted);
	free(found);
}

void comparison_release(struct comparison *c)
{
	for (size_t i = 0; i < c->nr_blocks; i++) {
		struct cmp_block *b = &c->blocks[i];

		for (size_t r = 0; r < b->nr_rows; r++) {
			free(b->rows[r].label);
			free(b->rows[r].cells);
			free(b->rows[r].tests);
		}
		free(b->rows);
		free(b->title);
		free(b->scenario);
		free(b->metric);
		free(b->axes);
		free(b->unit);
	}
	free(c->blocks);
	memset(c, 0, sizeof(*c));
}

int comparison_exit_code(const struct comparison *c)
{
	return c->count[CMP_REGRESSED] || c->bad_cases ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
}

/* ---- counters of one case across the runs ---- */

static void counter_display(const struct comparison *c, int level, const char *key, char *buf,
			    size_t size)
{
	const struct cmp_run *b = &c->runs[0];

	if (level < 0)
		snprintf(buf, size, "%s", key);
	else if ((size_t)level < b->nr_domain_names)
		snprintf(buf, size, "%s %s", b->domain_names[level], key);
	else
		snprintf(buf, size, "domain%d %s", level, key);
}

/* The counters of one case across the runs, in the order first seen. */
size_t cmp_case_counters(const struct comparison *c, const struct cmp_case **found,
			    struct cmp_ctr_line **out)
{
	struct cmp_ctr_line *lines = NULL;
	size_t nr = 0;

	for (size_t k = 0; k < c->nr_runs; k++) {
		for (size_t i = 0; found[k] && i < found[k]->nr_counters; i++) {
			const struct cmp_counter *ct = &found[k]->counters[i];
			size_t j;

			for (j = 0; j < nr; j++)
				if (lines[j].level == ct->level && !strcmp(lines[j].key, ct->name))
					break;
			if (j == nr) {
				lines = xrealloc(lines, (nr + 1) * sizeof(*lines));
				lines[nr].level = ct->level;
				lines[nr].key = ct->name;
				counter_display(c, ct->level, ct->name, lines[nr].name, sizeof(lines[nr].name));
				lines[nr].v = xmalloc(c->nr_runs * sizeof(double));
				for (size_t x = 0; x < c->nr_runs; x++)
					lines[nr].v[x] = NAN;
				nr++;
			}
			lines[j].v[k] = ct->value;
		}
	}
	*out = lines;
	return nr;
}

void cmp_counters_free(struct cmp_ctr_line *lines, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(lines[i].v);
	free(lines);
}

void cmp_format_count(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else if (v == floor(v) || fabs(v) >= 1e6)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.1f", v);
}

void cmp_format_change(char *buf, size_t size, double base, double v)
{
	if (isnan(base) || isnan(v) || (base == 0 && v == 0))
		buf[0] = '\0';
	else if (base == 0)
		snprintf(buf, size, "(new)");
	else
		snprintf(buf, size, "(%+.1f%%)", 100 * (v - base) / fabs(base));
}

void cmp_find_all(const struct comparison *c, const char *id, const struct cmp_case **found)
{
	for (size_t k = 0; k < c->nr_runs; k++) {
		found[k] = NULL;
		for (size_t i = 0; i < c->runs[k].nr_cases; i++)
			if (!strcmp(c->runs[k].cases[i].id, id)) {
				found[k] = &c->runs[k].cases[i];
				break;
			}
	}
}

/* The case id without its scenario: "groups=4,mode=thread". */
const char *cmp_case_axes(const struct cmp_case *cs)
{
	const char *slash = strchr(cs->id, '/');

	return slash && slash[1] ? slash + 1 : cs->workload;
}
