/* seqtest.h - the statistics of a bisection: are the endpoints different, and
 * is a candidate kernel's metric like the good kernel's or like the bad one's? */
#ifndef LAB_SEQTEST_H
#define LAB_SEQTEST_H

#include <stddef.h>

enum seq_decision {
	SEQ_UNDECIDED,
	SEQ_GOOD,	/* like the good endpoint */
	SEQ_BAD,	/* like the bad endpoint */
};
const char *seq_decision_name(enum seq_decision d);	/* "undecided", "good", "bad" */

/*
 * One step's rule.  Every value is one boot's summary of the metric (its
 * measured runs' mean), so boot-to-boot noise is part of the variance.
 * Values are compared as logs when every value is positive (a regression
 * is a ratio), else as they are.
 *
 * Two one-sided t-tests, with the variance pooled over the three kernels:
 * H_good "the candidate's mean is the good kernel's" is refuted when the
 * candidate lies beyond good in the direction of bad, H_bad likewise from
 * the other side.  After each candidate boot from min_runs on, the step is
 * "bad" when H_good is refuted at level alpha / looks and H_bad is not,
 * "good" in the mirror case, and after max_runs boots undecided (a skip).
 * looks = max_runs - min_runs + 1: the Bonferroni split over every look,
 * so a candidate truly like good is called bad with probability at most
 * alpha (and the mirror), whatever the size of the good-bad difference
 * and however badly it was estimated.  Wald's SPRT, tried first with the
 * estimated difference as the alternative, called 14-17 % of the decided
 * steps wrong when the difference was close to the noise: its likelihood
 * ratio trusts the estimated difference.  tests/unit/test-seqtest.c
 * checks the bound by simulating 1,000 steps per setting.
 */
struct seq_params {
	double alpha;		/* wrong decisions allowed per step, (0, 0.5) */
	unsigned min_runs;	/* candidate boots before any decision (>= 1) */
	unsigned max_runs;	/* candidate boots after which the step is undecided */
};
#define SEQ_PARAMS_DEFAULT { 0.05, 2, 10 }

struct seq_result {
	enum seq_decision decision;
	double p_good;		/* one-sided p of H_good "like good"; NAN without data */
	double p_bad;		/* one-sided p of H_bad "like bad" */
	double level;		/* alpha / looks: a p below it refutes */
	double vs_good;		/* candidate / good (ratio of geometric means on the
				 * log scale, difference otherwise); NAN without data */
	double vs_bad;		/* candidate / bad, likewise */
	double position;	/* 0 at good, 1 at bad */
	int log_scale;		/* 1: the values were compared as logs */
	size_t n;		/* candidate boots used */
};

/*
 * The decision for candidate values cand[0..nc) against the endpoints'
 * values so far.  Needs at least 2 good and 2 bad values and different
 * endpoint means; returns -1 (out->decision undecided) without them, else 0.
 */
int seq_decide(const double *good, size_t ng, const double *bad, size_t nb, const double *cand,
	       size_t nc, const struct seq_params *p, struct seq_result *out);

/* What the endpoints say before any step. */
enum seq_endpoints {
	SEQ_ENDS_DIFFERENT,	/* significant, bad is worse (or, undirected, other): bisect */
	SEQ_ENDS_SAME,		/* not significant (yet) */
	SEQ_ENDS_REVERSED,	/* significant, but "bad" is better than "good" */
};

/*
 * Welch's t-test of good against bad (logs when every value is positive)
 * at level alpha / looks: the endpoints are tested after every round, and
 * the Bonferroni split keeps the chance of bisecting noise at most alpha
 * over all the looks.  higher_better: the metric's direction, or
 * SEQ_UNDIRECTED for a row without one (a decision row: "better": "none"),
 * where bad is "changed" either way and never reversed.  *p_out gets
 * the p-value, *ratio_out bad / good (NAN when not defined).
 */
#define SEQ_UNDIRECTED (-1)
enum seq_endpoints seq_endpoints_check(const double *good, size_t ng, const double *bad, size_t nb,
				       int higher_better, double alpha, unsigned looks, double *p_out,
				       double *ratio_out);

#endif
