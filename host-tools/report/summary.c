/* summary.c - what a comparison concludes, as items (sentences, lists and
 * their ends) that the text, JSON and HTML renderers each draw. */
#define _GNU_SOURCE
#include "report/compare.h"
#include "report/summary.h"
#include "kernel/kgen.h"
#include "results/tracekeep.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(struct summary *s, enum summary_kind kind, const char *text)
{
	s->v = xrealloc(s->v, (s->nr + 1) * sizeof(*s->v));
	s->v[s->nr].kind = kind;
	s->v[s->nr++].text = xstrdup(text);
}

static void addf(struct summary *s, enum summary_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void addf(struct summary *s, enum summary_kind kind, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	add(s, kind, sb.buf);
	strbuf_release(&sb);
}

void summary_release(struct summary *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].text);
	free(s->v);
	s->v = NULL;
	s->nr = 0;
}

const char *summary_kind_name(enum summary_kind k)
{
	static const char *const names[] = { "line", "para", "item", "more", "end" };

	return k < ARRAY_SIZE(names) ? names[k] : "?";
}

struct rowref {
	const struct cmp_block *b;
	const struct cmp_row *r;
	size_t k;	/* the test: r->tests[k], runs[k + 1] */
};

static const struct cmp_test *ref_test(const struct rowref *x)
{
	return &x->r->tests[x->k];
}

static const struct cmp_cell *ref_cell(const struct rowref *x)
{
	return &x->r->cells[x->k + 1];
}

static double ref_size(const struct rowref *x)
{
	double n = ref_cell(x)->norm;

	return isfinite(n) && n > 0 ? fabs(log(n)) : (isnan(n) ? -1 : INFINITY);
}

static int by_size(const void *a, const void *b)
{
	double x = ref_size(a), y = ref_size(b);

	return x > y ? -1 : x < y;
}

static int by_bf_q(const void *a, const void *b)
{
	double x = ref_test(a)->bf_q, y = ref_test(b)->bf_q;

	return x < y ? -1 : x > y;
}

static int by_more_runs(const void *a, const void *b)
{
	double x = ref_test(a)->more_runs, y = ref_test(b)->more_runs;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? -1 : x > y;
}

static size_t collect(const struct comparison *c, struct rowref **out,
		      int (*want)(const struct rowref *))
{
	struct rowref *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->nr_blocks; i++)
		for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
			for (size_t k = 0; k + 1 < c->nr_runs; k++) {
				struct rowref x = { &c->blocks[i], &c->blocks[i].rows[r], k };

				if (want(&x)) {
					v = xrealloc(v, (n + 1) * sizeof(*v));
					v[n++] = x;
				}
			}
	*out = v;
	return n;
}

static int want_decided(const struct rowref *x)
{
	return ref_test(x)->verdict == CMP_IMPROVED || ref_test(x)->verdict == CMP_REGRESSED ||
	       ref_test(x)->verdict == CMP_UP || ref_test(x)->verdict == CMP_DOWN;
}

/* One run a side has no spread to weigh a difference against. */
static int want_data(const struct rowref *x)
{
	return ref_test(x)->verdict != CMP_NODATA && isfinite(ref_cell(x)->norm) &&
	       x->r->cells[0].m->n >= 2 && ref_cell(x)->m->n >= 2;
}

static int want_variance(const struct rowref *x)
{
	return ref_test(x)->bf_q < CMP_ALPHA && isfinite(x->r->cells[0].cv_pct) &&
	       isfinite(ref_cell(x)->cv_pct) && isfinite(ref_test(x)->bf.stat);
}

static int want_undecided(const struct rowref *x)
{
	return ref_test(x)->verdict == CMP_UNDECIDED;
}

static void ref_name(const struct comparison *c, const struct rowref *x, struct strbuf *sb)
{
	strbuf_addf(sb, "%s %s", x->r->case_id, x->b->metric);
	if (c->nr_runs > 2)
		strbuf_addf(sb, " (%s)", c->runs[x->k + 1].label);
}

static void describe_change(const struct comparison *c, const struct rowref *x, struct strbuf *sb)
{
	const struct cmp_test *t = ref_test(x);
	const struct cmp_cell *cell = ref_cell(x);

	ref_name(c, x, sb);
	if (!isfinite(cell->norm)) {
		strbuf_addf(sb, ": no ratio to the baseline (its %s is 0 or undefined)",
			    stats_statistic_title(x->b->stat));
		return;
	}
	strbuf_addf(sb, ": %.2f%% %s, %s ratio %.3f", fabs(cell->pct_imp),
		    x->b->no_direction ? (cell->pct_imp >= 0 ? "up" : "down") :
		    cell->pct_imp >= 0 ? "better" : "worse", stats_statistic_title(x->b->stat), cell->norm);
	if (!isnan(t->ci_lo))
		strbuf_addf(sb, " (95%% CI %.3f..%.3f)", t->ci_lo, t->ci_hi);
	strbuf_addf(sb, ", %s p=%.3g q=%.3g", t->method, t->t.p, t->q);
}

/* Counters of the case of x that moved by 10 % or more (and by 10 or more). */
static void moved_counters(const struct comparison *c, const struct rowref *x, struct strbuf *sb)
{
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));
	struct cmp_ctr_line *lines;
	size_t nl, shown = 0;
	double *chg;
	size_t *order;

	cmp_find_all(c, x->r->case_id, found);
	nl = cmp_case_counters(c, found, &lines);
	chg = xcalloc(nl + 1, sizeof(*chg));
	order = xcalloc(nl + 1, sizeof(*order));
	for (size_t j = 0; j < nl; j++) {
		double b = lines[j].v[0], t = lines[j].v[x->k + 1];

		order[j] = j;
		chg[j] = 0;
		if (!isnan(b) && !isnan(t) && fmax(fabs(b), fabs(t)) >= 10 && b != t)
			chg[j] = b == 0 ? INFINITY : fabs(t - b) / fabs(b);
	}
	/* largest relative change first; nl is a few dozen at most */
	for (size_t i = 0; i < nl; i++)
		for (size_t j = i + 1; j < nl; j++)
			if (chg[order[j]] > chg[order[i]]) {
				size_t tmp = order[i];

				order[i] = order[j];
				order[j] = tmp;
			}
	for (size_t i = 0; i < nl && shown < 4; i++) {
		const struct cmp_ctr_line *ln = &lines[order[i]];
		char b[40], t[40], d[40];

		if (chg[order[i]] < 0.10)
			break;
		cmp_format_count(b, sizeof(b), ln->v[0]);
		cmp_format_count(t, sizeof(t), ln->v[x->k + 1]);
		cmp_format_change(d, sizeof(d), ln->v[0], ln->v[x->k + 1]);
		strbuf_addf(sb, "%s %s %s -> %s %s", shown ? "," : "", ln->name, b, t, d);
		shown++;
	}
	free(chg);
	free(order);
	cmp_counters_free(lines, nl);
	free(found);
}

/* Cases whose pruned traces (lab trace --keep) kept outlier runs: the runs to look at. */
static void kept_outliers(const struct comparison *c, struct summary *s, struct strbuf *sb)
{
	size_t listed = 0;

	for (size_t k = 0; k < c->nr_runs; k++)
		for (size_t i = 0; c->runs[k].dir && i < c->runs[k].nr_cases; i++) {
			const struct cmp_case *cs = &c->runs[k].cases[i];
			struct tk_run out[8];
			size_t n = trace_keep_outliers(c->runs[k].dir, cs->id, out, 8);

			if (!n)
				continue;
			if (!listed++)
				add(s, SUMMARY_LINE, "Kept outlier traces (lab trace RUN --case C --run N):");
			if (listed > 10)
				continue;
			strbuf_reset(sb);
			strbuf_addf(sb, "%s in %s:", cs->id, c->runs[k].label);
			for (size_t j = 0; j < n; j++)
				strbuf_addf(sb, "%s run%u (z %.1f%s)", j ? "," : "", out[j].run, out[j].z,
					    out[j].why & TK_SLOWEST ? ", slowest" :
					    out[j].why & TK_FASTEST ? ", fastest" : "");
			add(s, SUMMARY_ITEM, sb->buf);
		}
	if (listed > 10)
		addf(s, SUMMARY_MORE, "... and %zu more", listed - 10);
	if (listed)
		add(s, SUMMARY_END, "");
}

/*
 * Cases whose sides placed their wakeups from different sched events: the
 * runner recorded sched_wakeup before it derived placement from
 * sched_waking, and the wake latency, wc_* and rq_imbalance_* rows moved
 * with it (placement, idle found and migrations did not).
 */
static void event_sets(const struct comparison *c, struct summary *s, struct strbuf *sb)
{
	const struct cmp_case **found;
	size_t listed = 0;

	if (!c->nr_runs)
		return;
	found = xcalloc(c->nr_runs, sizeof(*found));
	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const char *base = c->runs[0].cases[i].wakeups_from;

		cmp_find_all(c, c->runs[0].cases[i].id, found);
		for (size_t k = 1; base && k < c->nr_runs; k++) {
			const char *f = found[k] ? found[k]->wakeups_from : NULL;

			if (!f || !strcmp(f, base))
				continue;
			if (!listed++)
				add(s, SUMMARY_LINE, "Decision rows from different sched events (wake_lat_*, wc_* "
				    "and rq_imbalance_* are not comparable; placement, idle found and "
				    "migrations are: docs/results.md):");
			if (listed > 10)
				break;
			strbuf_reset(sb);
			strbuf_addf(sb, "%s: %s in %s, %s in %s", c->runs[0].cases[i].id, base,
				    c->runs[0].label, f, c->runs[k].label);
			add(s, SUMMARY_ITEM, sb->buf);
			break;
		}
	}
	if (listed > 10)
		addf(s, SUMMARY_MORE, "... and %zu more", listed - 10);
	if (listed)
		add(s, SUMMARY_END, "");
	free(found);
}

/* The words of a that b lacks, space-separated, into sb. */
static void words_missing(const char *a, const char *b, struct strbuf *sb)
{
	for (const char *p = a; p && *p; ) {
		size_t n = strcspn(p, " ");
		int found = 0;

		for (const char *q = b; q && *q && !found; ) {
			size_t m = strcspn(q, " ");

			found = m == n && !strncmp(p, q, n);
			q += m + (q[m] == ' ');
		}
		if (n && !found)
			strbuf_addf(sb, "%s%.*s", sb->len ? " " : "", (int)n, p);
		p += n + (p[n] == ' ');
	}
}

/*
 * Columns of different kernel generations (kernel/kgen.h): the rows then
 * compare schedulers, not a patch, and what one side's kernel lacks (its
 * scheduler features, the knobs a variant sets) has no counterpart.
 */
static void generations(const struct comparison *c, struct summary *s, struct strbuf *sb)
{
	const struct kernel_gen *g0 = kgen_for_release(c->runs[0].kernel);

	for (size_t k = 1; k < c->nr_runs; k++) {
		const struct kernel_gen *gk = kgen_for_release(c->runs[k].kernel);
		struct strbuf only0 = STRBUF_INIT, onlyk = STRBUF_INIT;

		if (!g0 || !gk || g0 == gk)
			continue;
		strbuf_reset(sb);
		strbuf_addf(sb, "%s runs %s (generation %s, %s) and %s runs %s (generation %s, %s): "
			    "its rows compare two schedulers, not one patch.", c->runs[0].label,
			    c->runs[0].kernel, g0->name, g0->scheduler, c->runs[k].label,
			    c->runs[k].kernel, gk->name, gk->scheduler);
		if (c->runs[0].features && *c->runs[0].features && c->runs[k].features &&
		    *c->runs[k].features) {
			words_missing(c->runs[k].features, c->runs[0].features, &onlyk);
			words_missing(c->runs[0].features, c->runs[k].features, &only0);
			if (onlyk.len)
				strbuf_addf(sb, " Scheduler features only %s has: %s.", c->runs[k].label,
					    onlyk.buf);
			if (only0.len)
				strbuf_addf(sb, " Only %s has: %s.", c->runs[0].label, only0.buf);
		}
		if (strcmp(g0->slice_knob, gk->slice_knob))
			strbuf_addf(sb, " The base slice is %s in %s and %s in %s: not one knob.",
				    g0->slice_knob, c->runs[0].label, gk->slice_knob, c->runs[k].label);
		if (strcmp(g0->pkg_level, gk->pkg_level))
			strbuf_addf(sb, " The package-wide sched domain is %s in one and %s in the other "
				    "(rows per domain level are matched by level).", g0->pkg_level,
				    gk->pkg_level);
		add(s, SUMMARY_PARA, sb->buf);
		add(s, SUMMARY_END, "");
		strbuf_release(&only0);
		strbuf_release(&onlyk);
	}
}

void comparison_summary(const struct comparison *c, struct summary *s)
{
	struct rowref *big, *var, *und, *any;
	size_t nbig = collect(c, &big, want_decided);
	size_t nvar = collect(c, &var, want_variance);
	size_t nund = collect(c, &und, want_undecided);
	size_t nany = collect(c, &any, want_data);
	struct strbuf sb = STRBUF_INIT;
	int any_counter = 0;

	for (size_t k = 1; k < c->nr_runs; k++) {
		unsigned cnt[CMP_NR_VERDICTS] = { 0 };
		size_t rows = 0;

		for (size_t i = 0; i < c->nr_blocks; i++)
			for (size_t r = 0; r < c->blocks[i].nr_rows; r++, rows++)
				cnt[c->blocks[i].rows[r].tests[k - 1].verdict]++;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s against %s: %zu row%s, %u improved, %u regressed, %u unchanged, %u undecided",
			    c->runs[k].label, c->runs[0].label, rows, rows == 1 ? "" : "s", cnt[CMP_IMPROVED],
			    cnt[CMP_REGRESSED], cnt[CMP_SAME], cnt[CMP_UNDECIDED]);
		if (cnt[CMP_UP] || cnt[CMP_DOWN])
			strbuf_addf(&sb, ", %u up and %u down (rows without a better direction)",
				    cnt[CMP_UP], cnt[CMP_DOWN]);
		if (cnt[CMP_NODATA])
			strbuf_addf(&sb, ", %u without data", cnt[CMP_NODATA]);
		strbuf_addstr(&sb, ".");
		add(s, SUMMARY_PARA, sb.buf);
	}
	add(s, SUMMARY_END, "");
	generations(c, s, &sb);
	if (nbig) {
		qsort(big, nbig, sizeof(*big), by_size);
		add(s, SUMMARY_LINE, "Largest changes (q<0.05 and the 95% interval of the ratio excludes 1):");
		for (size_t i = 0; i < nbig && i < 5; i++) {
			strbuf_reset(&sb);
			describe_change(c, &big[i], &sb);
			add(s, SUMMARY_ITEM, sb.buf);
		}
		if (nbig > 5)
			addf(s, SUMMARY_MORE, "... and %zu more", nbig - 5);
	} else if (nany) {
		qsort(any, nany, sizeof(*any), by_size);
		add(s, SUMMARY_LINE, "No row changed beyond the noise. Largest differences, not significant:");
		for (size_t i = 0; i < nany && i < 3; i++) {
			strbuf_reset(&sb);
			describe_change(c, &any[i], &sb);
			add(s, SUMMARY_ITEM, sb.buf);
		}
	}
	add(s, SUMMARY_END, "");
	if (nvar) {
		qsort(var, nvar, sizeof(*var), by_bf_q);
		add(s, SUMMARY_LINE, "Variance changed (Brown-Forsythe q<0.05):");
		for (size_t i = 0; i < nvar && i < 5; i++) {
			strbuf_reset(&sb);
			ref_name(c, &var[i], &sb);
			strbuf_addf(&sb, ": CV %.2f%% -> %.2f%% (F=%.3g, q=%.3g)", var[i].r->cells[0].cv_pct,
				    ref_cell(&var[i])->cv_pct, ref_test(&var[i])->bf.stat,
				    ref_test(&var[i])->bf_q);
			add(s, SUMMARY_ITEM, sb.buf);
		}
		if (nvar > 5)
			addf(s, SUMMARY_MORE, "... and %zu more", nvar - 5);
	} else {
		add(s, SUMMARY_LINE, "No row's variance changed significantly (Brown-Forsythe, q<0.05).");
	}
	add(s, SUMMARY_END, "");
	if (nbig || nvar) {
		struct strvec seen = STRVEC_INIT;

		for (size_t pass = 0; pass < 2; pass++) {
			const struct rowref *v = pass ? var : big;
			size_t n = pass ? (nvar < 5 ? nvar : 5) : (nbig < 5 ? nbig : 5);

			for (size_t i = 0; i < n; i++) {
				char *key = xasprintf("%s\n%zu", v[i].r->case_id, v[i].k);
				struct strbuf moved = STRBUF_INIT;
				size_t j;

				for (j = 0; j < seen.nr && strcmp(seen.v[j], key); j++)
					;
				if (j < seen.nr) {
					free(key);
					continue;
				}
				strvec_push(&seen, key);
				free(key);
				moved_counters(c, &v[i], &moved);
				if (!moved.len) {
					strbuf_release(&moved);
					continue;
				}
				if (!any_counter++)
					add(s, SUMMARY_LINE, "Counters that moved with them (10% or more):");
				strbuf_reset(&sb);
				strbuf_addstr(&sb, v[i].r->case_id);
				if (c->nr_runs > 2)
					strbuf_addf(&sb, " (%s)", c->runs[v[i].k + 1].label);
				strbuf_addf(&sb, ":%s", moved.buf);
				add(s, SUMMARY_ITEM, sb.buf);
				strbuf_release(&moved);
			}
		}
		if (!any_counter)
			add(s, SUMMARY_LINE, "No counter of those cases moved by 10% or more.");
		add(s, SUMMARY_END, "");
		strvec_clear(&seen);
	}
	if (nund) {
		qsort(und, nund, sizeof(*und), by_more_runs);
		addf(s, SUMMARY_LINE, "%zu row%s undecided (too noisy for a verdict either way):", nund,
			    nund == 1 ? "" : "s");
		for (size_t i = 0; i < nund && i < 5; i++) {
			const struct cmp_test *t = ref_test(&und[i]);
			const struct cmp_cell *base = &und[i].r->cells[0], *test = ref_cell(&und[i]);
			size_t have = base->m->n < test->m->n ? base->m->n : test->m->n;

			strbuf_reset(&sb);
			ref_name(c, &und[i], &sb);
			if (have < 2)
				strbuf_addf(&sb, ": %zu run%s per side; at least %.0f more per side before any test",
					    have, have == 1 ? "" : "s", t->more_runs);
			else if (isnan(t->more_runs))
				strbuf_addstr(&sb, ": more runs would not decide this row");
			else
				strbuf_addf(&sb, ": about %.0f more run%s per side would decide this row "
					    "(80%% power)", t->more_runs, t->more_runs == 1 ? "" : "s");
			if (t->why)
				strbuf_addf(&sb, "; %s", t->why);
			add(s, SUMMARY_ITEM, sb.buf);
		}
		if (nund > 5)
			addf(s, SUMMARY_MORE, "... and %zu more (see --json)", nund - 5);
		add(s, SUMMARY_END, "");
	}
	for (int skipped = 0; skipped < 2; skipped++) {
		size_t listed = 0;

		for (size_t k = 0; k < c->nr_runs; k++)
			for (size_t i = 0; i < c->runs[k].nr_cases; i++) {
				const struct cmp_case *cs = &c->runs[k].cases[i];

				if (!strcmp(cs->verdict, "PASS") || (!strcmp(cs->verdict, "SKIP")) != skipped)
					continue;
				if (!listed++)
					add(s, SUMMARY_LINE, skipped ? "Skipped:" : "Cases that did not pass:");
				if (listed > 10)
					continue;
				strbuf_reset(&sb);
				strbuf_addf(&sb, "%s in %s: %s%s%s%s", cs->id, c->runs[k].label, cs->verdict,
					    *cs->reason ? " (" : "", cs->reason, *cs->reason ? ")" : "");
				add(s, SUMMARY_ITEM, sb.buf);
			}
		if (listed > 10)
			addf(s, SUMMARY_MORE, "... and %zu more", listed - 10);
		if (listed)
			add(s, SUMMARY_END, "");
	}
	kept_outliers(c, s, &sb);
	event_sets(c, s, &sb);
	strbuf_release(&sb);
	free(big);
	free(var);
	free(und);
	free(any);
}

