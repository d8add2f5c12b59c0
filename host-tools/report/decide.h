/* decide.h - lab ab --until-decided: whether the boots so far decide a
 * row (changed, or the same within +-effect) or an expectation, with the
 * false-flag rate held over rows and looks, and the rounds an open one needs. */
#ifndef LAB_DECIDE_H
#define LAB_DECIDE_H

#include "lib/expect.h"
#include "lib/util.h"

#include <stddef.h>

/*
 * The rule.  Every value is one boot's statistic of a metric (its
 * measured runs' mean, or median for a Median metric), and the change is
 * the ratio of the sides' geometric means over boots: Welch's t on the
 * logs of the boots' values, so boot-to-boot noise is the noise.
 *
 * Looks: the rows are looked at after every ABBA round, at most `looks`
 * times; each look's p-value is multiplied by `looks` (Bonferroni over
 * the looks, the simplest alpha-spending), and a row keeps the smallest
 * such p it reached.  That p is a valid p-value however often one looks.
 *
 * Rows: "changed" is Benjamini-Hochberg at `alpha` over the rows' change
 * p-values (Welch, two-sided), "same" is Benjamini-Hochberg at `alpha`
 * over their equivalence p-values (two one-sided tests against
 * +-effect): among the rows called changed, and among those called the
 * same, the expected share of wrong calls is at most alpha.  The interval
 * printed with a decision is the one the decision implies, at the
 * false-coverage-adjusted level of Benjamini and Yekutieli: R selected
 * of m rows, 1 - R alpha / (m looks) two-sided for a change (it
 * excludes 0), 1 - 2 R alpha / (m looks) for "=" (it lies inside
 * +-effect).  A row both changed and the same changed by less than the
 * effect: it is "=".  A decided row stays decided.
 *
 * Expectations are gates, so their error is family-wise: Bonferroni over
 * the checks and the looks, each one-sided (== : two one-sided tests).
 */
struct decide_params {
	double alpha;		/* false flags allowed, (0, 0.5) */
	double effect;		/* the no-change band, a fraction (0.02) */
	unsigned looks;		/* the most looks (rounds) the run may take */
	unsigned per_round;	/* boots a side each round adds (2 in ABBA) */
};

enum decide_state {
	DECIDE_OPEN,
	DECIDE_CHANGED,
	DECIDE_SAME,
	DECIDE_HOLDS,		/* an expectation */
	DECIDE_VIOLATED,
};
const char *decide_state_name(enum decide_state s);

/* What one look saw: the log ratio d, its standard error and df. */
struct decide_look {
	double d, se, df;
	int ok;
};

/*
 * A row or an expectation check.  base/test are the boots' values, owned
 * by the caller and updated between looks (they only grow); the rest is
 * state kept from look to look: decide_item_init() before the first.
 * For a check, op and bound say what is expected (a row ignores them).
 */
struct decide_item {
	const double *base, *test;
	size_t nb, nt;
	enum expect_op op;
	double bound;

	enum decide_state state;
	double p_a, p_b;		/* smallest look-adjusted p: change/same, or holds/violated */
	struct decide_look at_a, at_b;	/* the look each was reached at */
	struct decide_look last;	/* the latest look */
	double est, lo, hi;		/* change as a fraction, its interval */
	double level;			/* the interval's confidence */
	unsigned decided_at;		/* look number, 0 while open */
	double more_rounds;		/* open: rounds more, INFINITY none will do, NAN unknown */
	const char *why;		/* open and not computable: why (static text) */
};

void decide_item_init(struct decide_item *it);

/* Look number `look` (1, 2, ...) at the rows, then at the checks. */
void decide_rows(struct decide_item *rows, size_t n, unsigned look, const struct decide_params *p);
void decide_checks(struct decide_item *checks, size_t n, unsigned look, const struct decide_params *p);

/* "30m", "1h", "90s", "1h30m": seconds in *out, 1 s to 7 days; -1 and one line. */
int decide_parse_duration(const char *s, unsigned *out, struct strbuf *err);
/* "2%": 0.02 in *out, above 0 and below 50 %; -1 and one line. */
int decide_parse_effect(const char *s, double *out, struct strbuf *err);
/* "1h05m", "42s": *buf. */
void decide_format_duration(char *buf, size_t size, double seconds);

#endif
