/* compare-text.c - the comparison as text: the seeds' tables, the counters
 * that moved and the summary's items, wrapped for mail. */
#define _GNU_SOURCE
#include "report/compare.h"
#include "report/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text: the seeds' tables, counters and a summary ---- */

#define TEXT_WIDTH 80
#define CELL_WIDTH 20	/* "1.00 [ -0.00]( 2.10)" */
#define NAME_NARROW 14
static const char bar_eq[] = "==================================================================";
static const char bar_dash[] = "------------------------------------------------------------------";

struct layout {
	size_t labw;		/* row labels are right-aligned in this width */
	size_t gap;		/* spaces before each cell */
	size_t namemax;		/* column names are cut to this */
	size_t first, nr;	/* the test runs shown: runs[first .. first + nr - 1] */
	int marks;
};

static size_t col_run(const struct layout *l, size_t k)
{
	return k ? l->first + k - 1 : 0;
}

/* Ends a line without trailing blanks: mail clients and diff both care. */
static void end_line(struct strbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
	strbuf_addch(sb, '\n');
}

static void pad(struct strbuf *sb, size_t n)
{
	while (n--)
		strbuf_addch(sb, ' ');
}

static void col_name(const struct comparison *c, const struct layout *l, size_t k, struct strbuf *sb)
{
	const char *name = c->runs[col_run(l, k)].label;
	size_t n = strlen(name);

	if (n <= l->namemax)
		strbuf_addstr(sb, name);
	else
		strbuf_addf(sb, "%.*s~", (int)l->namemax - 1, name);
}

/*
 * As in seed 000: "Case:" in the label column, then each column's
 * "name[pct imp](CV)" over its cells, seven blanks after the label and at
 * least two after the previous header.
 */
static void table_header(struct strbuf *out, const struct comparison *c, const struct layout *l)
{
	size_t cursor = l->labw, pitch = l->gap + CELL_WIDTH;

	strbuf_addf(out, "%-*s", (int)l->labw, "Case:");
	for (size_t k = 0; k <= l->nr; k++) {
		size_t cell = l->labw + k * pitch + l->gap;
		size_t least = k ? cursor + 2 : l->labw + 7;
		size_t at = cell > least ? cell : least, before;

		pad(out, at - cursor);
		before = out->len;
		col_name(c, l, k, out);
		strbuf_addstr(out, "[pct imp](CV)");
		cursor = at + (out->len - before);
	}
	end_line(out);
}

/* A number in its column, or "-" where there is none: a side without
 * values, a baseline of 0 or without a statistic (an HMean of values that
 * are not all positive), the CV of a single run. */
static void add_num(struct strbuf *out, int width, double v, int have)
{
	if (have && isfinite(v))
		strbuf_addf(out, "%*.2f", width, v);
	else
		strbuf_addf(out, "%*s", width, "-");
}

static void add_cell(struct strbuf *out, const struct cmp_cell *cell)
{
	int ratio = cell->m && isfinite(cell->norm);

	add_num(out, 4, cell->norm, ratio);
	strbuf_addstr(out, " [");
	add_num(out, 6, cell->pct_imp, ratio);
	strbuf_addstr(out, "](");
	add_num(out, 5, cell->cv_pct, cell->m && cell->m->n >= 2);
	strbuf_addch(out, ')');
}

static void table_row(struct strbuf *out, const struct cmp_row *row, const struct layout *l)
{
	strbuf_addf(out, "%*s", (int)l->labw, row->label);
	for (size_t k = 0; k <= l->nr; k++) {
		pad(out, l->gap);
		add_cell(out, &row->cells[col_run(l, k)]);
	}
	if (l->marks) {
		strbuf_addstr(out, "  ");
		for (size_t k = 1; k <= l->nr; k++)
			strbuf_addch(out, cmp_verdict_mark(row->tests[col_run(l, k) - 1].verdict));
	}
	end_line(out);
}

static size_t longest_line(const char *s)
{
	size_t best = 0;

	while (*s) {
		size_t n = strcspn(s, "\n");

		if (n > best)
			best = n;
		s += n + (s[n] == '\n');
	}
	return best;
}

static const char *unit_words(const char *unit)
{
	return !strcmp(unit, "s") ? "seconds" : unit;
}

static void block_header(struct strbuf *out, const struct cmp_block *b)
{
	strbuf_addf(out, "%s\n", bar_eq);
	strbuf_addf(out, "Test          : %s\n", b->title);
	strbuf_addf(out, "Units         : Normalized %s%s%s\n", b->metric, *b->unit ? " in " : "",
		    unit_words(b->unit));
	if (b->no_direction)
		strbuf_addstr(out, "Interpretation: no better direction (^ up, v down)\n");
	else
		strbuf_addf(out, "Interpretation: %s is better\n", b->higher_better ? "Higher" : "Lower");
	strbuf_addf(out, "Statistic     : %s\n", stats_statistic_title(b->stat));
	strbuf_addf(out, "%s\n", bar_eq);
}

static void block_table(struct strbuf *out, const struct comparison *c, const struct cmp_block *b,
			const struct layout *l)
{
	table_header(out, c, l);
	for (size_t r = 0; r < b->nr_rows; r++)
		table_row(out, &b->rows[r], l);
}

static size_t block_labw(const struct cmp_block *b)
{
	size_t w = 9; /* "16-groups", as in seed 000 */

	for (size_t r = 0; r < b->nr_rows; r++)
		if (strlen(b->rows[r].label) > w)
			w = strlen(b->rows[r].label);
	return w;
}

/* ---- counters ---- */

static int line_shown(const struct cmp_ctr_line *ln, size_t nr_runs)
{
	for (size_t k = 0; k < nr_runs; k++)
		if (!isnan(ln->v[k]) && ln->v[k] != 0)
			return 1;
	return 0;
}

/* The cases of one scenario, as the baseline orders them. */
static size_t scenario_cases(const struct comparison *c, const char *scenario,
			     const struct cmp_case ***out)
{
	const struct cmp_case **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->runs[0].nr_cases; i++)
		if (!strcmp(c->runs[0].cases[i].scenario, scenario)) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = &c->runs[0].cases[i];
		}
	*out = v;
	return n;
}

#define CHANGE_WIDTH 9	/* "(-100.0%)" */

static void counter_block(struct strbuf *out, const struct comparison *c, const char *scenario,
			  const struct layout *l)
{
	const struct cmp_case **cases, **found = xcalloc(c->nr_runs, sizeof(*found));
	size_t nr = scenario_cases(c, scenario, &cases), namew = 14, valw = 8, shown = 0;
	struct strbuf body = STRBUF_INIT;

	for (size_t k = 0; k <= l->nr; k++) {
		struct strbuf n = STRBUF_INIT;

		col_name(c, l, k, &n);
		if (n.len > valw)
			valw = n.len;
		strbuf_release(&n);
	}
	for (size_t i = 0; i < nr; i++) {
		struct cmp_ctr_line *lines;
		size_t nl;

		cmp_find_all(c, cases[i]->id, found);
		nl = cmp_case_counters(c, found, &lines);
		for (size_t j = 0; j < nl; j++)
			if (line_shown(&lines[j], c->nr_runs) && strlen(lines[j].name) > namew)
				namew = strlen(lines[j].name);
		cmp_counters_free(lines, nl);
	}
	for (size_t i = 0; i < nr; i++) {
		struct cmp_ctr_line *lines;
		size_t nl, before;

		cmp_find_all(c, cases[i]->id, found);
		nl = cmp_case_counters(c, found, &lines);
		before = body.len;
		strbuf_addf(&body, "%s\n", cmp_case_axes(cases[i]));
		for (size_t j = 0; j < nl; j++) {
			if (!line_shown(&lines[j], c->nr_runs))
				continue;
			strbuf_addf(&body, "  %-*s", (int)namew, lines[j].name);
			for (size_t k = 0; k <= l->nr; k++) {
				char num[40], chg[40];

				cmp_format_count(num, sizeof(num), lines[j].v[col_run(l, k)]);
				strbuf_addf(&body, " %*s", (int)valw, num);
				if (k) {
					cmp_format_change(chg, sizeof(chg), lines[j].v[0], lines[j].v[col_run(l, k)]);
					strbuf_addf(&body, " %-*s", CHANGE_WIDTH, chg);
				}
			}
			end_line(&body);
			shown++;
		}
		if (body.len - before == strlen(cmp_case_axes(cases[i])) + 1) {
			/* no counter of this case was ever non-zero */
			body.len = before;
			body.buf[before] = '\0';
		}
		cmp_counters_free(lines, nl);
	}
	if (shown) {
		strbuf_addf(out, "%s\n", bar_dash);
		strbuf_addf(out, "Counters      : %s\n", scenario);
		strbuf_addstr(out, "Counted       : tasks, fprof per measured run; "
			      "schedstat, vmstat over the case\n");
		strbuf_addf(out, "%s\n", bar_dash);
		strbuf_addf(out, "  %-*s", (int)namew, "");
		for (size_t k = 0; k <= l->nr; k++) {
			struct strbuf n = STRBUF_INIT;

			col_name(c, l, k, &n);
			strbuf_addf(out, " %*s", (int)valw, n.buf);
			if (k)
				pad(out, CHANGE_WIDTH + 1);
			strbuf_release(&n);
		}
		end_line(out);
		strbuf_add(out, body.buf, body.len);
		strbuf_addstr(out, "\n\n");
	}
	strbuf_release(&body);
	free(cases);
	free(found);
}

/* ---- summary ---- */

/* Appends text wrapped at `width`, continuation lines indented by `indent`. */
static void add_wrapped(struct strbuf *out, const char *text, size_t first, size_t indent,
			size_t width)
{
	size_t col = first;
	int at_start = 1;

	pad(out, first);
	while (*text) {
		size_t n;

		while (*text == ' ')
			text++;
		n = strcspn(text, " ");
		if (!n)
			break;
		if (!at_start && col + 1 + n > width) {
			strbuf_addch(out, '\n');
			pad(out, indent);
			col = indent;
			at_start = 1;
		}
		if (!at_start) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, text, n);
		col += n;
		text += n;
		at_start = 0;
	}
	strbuf_addch(out, '\n');
}

static void summary_text(struct strbuf *out, const struct comparison *c)
{
	struct summary s = SUMMARY_INIT;

	comparison_summary(c, &s);
	strbuf_addstr(out, "Summary\n-------\n");
	for (size_t i = 0; i < s.nr; i++) {
		const char *t = s.v[i].text;
		char *item;

		switch (s.v[i].kind) {
		case SUMMARY_LINE:
			strbuf_addf(out, "%s\n", t);
			break;
		case SUMMARY_PARA:
			add_wrapped(out, t, 0, 2, TEXT_WIDTH - 2);
			break;
		case SUMMARY_ITEM:
			item = xasprintf("- %s", t);
			add_wrapped(out, item, 0, 2, TEXT_WIDTH - 2);
			free(item);
			break;
		case SUMMARY_MORE:
			strbuf_addf(out, "  %s\n", t);
			break;
		case SUMMARY_END:
			strbuf_addch(out, '\n');
			break;
		}
	}
	summary_release(&s);
}

/* ---- putting the text together ---- */

static void preamble(struct strbuf *out, const struct comparison *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t pooled = 0;

	for (size_t k = 0; k < c->nr_runs; k++)
		pooled += c->runs[k].nr_pooled ? c->runs[k].nr_pooled : 1;
	if (pooled > c->nr_runs)
		strbuf_addf(&sb, "%zu sides (%zu runs pooled) of %s on '%s', baseline first:",
			    c->nr_runs, pooled, c->runs[0].what, c->runs[0].spec);
	else
		strbuf_addf(&sb, "%zu runs of %s on '%s', baseline first:", c->nr_runs, c->runs[0].what,
			    c->runs[0].spec);
	add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
	for (size_t k = 0; k < c->nr_runs; k++) {
		const struct cmp_run *r = &c->runs[k];

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s: %s", r->label, r->name);
		if (strcmp(r->label, r->kernel))
			strbuf_addf(&sb, " (kernel %s)", r->kernel);
		add_wrapped(out, sb.buf, 2, 6, TEXT_WIDTH - 2);
	}
	strbuf_addch(out, '\n');
	strbuf_release(&sb);
}

static const char legend[] =
	"Marks: + better, - worse, = no change (95% CI of the ratio within +-2%),\n"
	"       ? undecided (noise), x no data; one per test column, q<0.05 (BH).\n";
/* under the first table of a metric without a better direction */
static const char legend_changes[] =
	"Marks: ^ up, v down (q<0.05, the CI excludes 1): no better direction;\n"
	"       [pct] is the change itself, positive up.\n";

/* How many test columns fit one table within 80 columns (at least one). */
static size_t fit_columns(const struct comparison *c, struct layout l, size_t ntests)
{
	for (size_t g = ntests; g > 1; g--) {
		struct strbuf sb = STRBUF_INIT;
		size_t w;

		l.first = 1;
		l.nr = g;
		table_header(&sb, c, &l);
		w = longest_line(sb.buf);
		strbuf_release(&sb);
		if (w <= TEXT_WIDTH && l.labw + (g + 1) * (l.gap + CELL_WIDTH) + (l.marks ? 2 + g : 0) <=
					       TEXT_WIDTH &&
		    2 + 24 + (g + 1) * (1 + NAME_NARROW) + g * (CHANGE_WIDTH + 1) <= TEXT_WIDTH)
			return g;
	}
	return 1;
}

void comparison_text(const struct comparison *c, unsigned flags, struct strbuf *out)
{
	int bare = !!(flags & CMP_TEXT_BARE), narrow = !!(flags & CMP_TEXT_NARROW);
	size_t ntests = c->nr_runs - 1, longest = 0;
	int legend_shown = 0, changes_shown = 0;

	for (size_t k = 0; k < c->nr_runs; k++)
		if (strlen(c->runs[k].label) > longest)
			longest = strlen(c->runs[k].label);
	if (!bare)
		preamble(out, c);
	/* the answer first: what changed, then the tables that show it (with
	 * --trace dozens of them); still plain 80-column text for a mail */
	if (!bare && !(flags & CMP_TEXT_SUMMARY_LAST))
		summary_text(out, c);
	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];
		struct layout l = { .labw = block_labw(b), .marks = !bare };
		size_t group;

		/* seed 000's cells sit five blanks apart for names up to "allow_imb" */
		l.gap = 5 + (longest > 9 ? longest - 9 : 0);
		l.namemax = longest;
		group = ntests;
		if (narrow) {
			l.namemax = longest < NAME_NARROW ? longest : NAME_NARROW;
			/* as few blanks as keep "name[pct imp](CV)" over its cells */
			l.gap = l.namemax > 7 ? l.namemax - 5 : 2;
			group = fit_columns(c, l, ntests);
		}
		block_header(out, b);
		for (size_t f = 1; f <= ntests || (ntests == 0 && f == 1); f += group) {
			l.first = f;
			l.nr = ntests ? (f + group - 1 <= ntests ? group : ntests - f + 1) : 0;
			if (f > 1)
				strbuf_addch(out, '\n');
			block_table(out, c, b, &l);
			if (ntests == 0)
				break;
		}
		if (!bare && !legend_shown++)
			strbuf_addstr(out, legend);
		if (!bare && b->no_direction && !changes_shown++)
			strbuf_addstr(out, legend_changes);
		strbuf_addstr(out, "\n\n");
		/* a scenario's counters follow its last table */
		if (!bare && (i + 1 == c->nr_blocks || strcmp(c->blocks[i + 1].scenario, b->scenario)))
			for (size_t f = 1; f <= ntests; f += group) {
				l.first = f;
				l.nr = f + group - 1 <= ntests ? group : ntests - f + 1;
				counter_block(out, c, b->scenario, &l);
			}
	}
	if (!bare && (flags & CMP_TEXT_SUMMARY_LAST))
		summary_text(out, c);
	else if (!bare)
		/* the tables' blank lines apart ended nothing but the text */
		while (out->len >= 2 && !strcmp(out->buf + out->len - 2, "\n\n"))
			out->buf[--out->len] = '\0';
}

