/* stats.h - the statistics behind `lab compare`: summaries of a metric's
 * runs, two-sample tests, bootstrap intervals, FDR control and power. */
#ifndef LAB_STATS_H
#define LAB_STATS_H

#include <stddef.h>

/* How the runs of one case combine into one number, as the seeds post it. */
enum stats_statistic {
	STATS_AMEAN,	/* times and throughputs (hackbench, tbench, netperf) */
	STATS_HMEAN,	/* rates such as STREAM bandwidth */
	STATS_MEDIAN,	/* latency percentiles (schbench) */
};

/* "amean", "hmean", "median" -> 0; anything else -> -1. */
int stats_statistic_parse(const char *s, enum stats_statistic *out);
/* The seeds' spelling: "AMean", "HMean", "Median". */
const char *stats_statistic_title(enum stats_statistic s);

/*
 * Summaries of x[0..n-1]; none of them modifies x.  With n == 0 they return
 * NAN.  stats_sd() is the sample standard deviation (n - 1), 0 for n == 1;
 * stats_cv_pct() is sd / |mean| in percent (NAN when the mean is 0: no
 * scale to measure the spread against; exact for values near DBL_MAX);
 * stats_hmean() is NAN unless every value is positive.
 */
double stats_amean(const double *x, size_t n);
double stats_hmean(const double *x, size_t n);
double stats_median(const double *x, size_t n);
double stats_sd(const double *x, size_t n);
double stats_cv_pct(const double *x, size_t n);
double stats_summary(enum stats_statistic s, const double *x, size_t n);

/*
 * The result of a two-sample test of `base` (a) against `test` (b).
 *   Welch:           stat = t of mean(b) - mean(a), df = Welch-Satterthwaite
 *   Mann-Whitney:    stat = U of the first sample (rank sum of a minus
 *                    na(na+1)/2, R's W), z set when the normal
 *                    approximation was used, exact = 1 when the
 *                    permutation distribution was
 *   Brown-Forsythe:  stat = F, df = 1, df2 = na + nb - 2
 * p is two-sided; NAN when the test cannot be computed (too few runs).
 */
struct stats_test {
	double stat;
	double df, df2;
	double z;
	double p;
	int exact;
};

/* Each returns 0, or -1 (p = NAN) when a sample is too small: Welch needs
 * two runs per side, Brown-Forsythe three, Mann-Whitney one. */
int stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_test *out);
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *out);
int stats_brown_forsythe(const double *a, size_t na, const double *b, size_t nb,
			 struct stats_test *out);

/* Samples up to this size per side get the exact permutation distribution
 * of Mann-Whitney's U (ties included); larger ones the normal approximation. */
#define STATS_MW_EXACT_MAX 10

/*
 * Interval of the ratio stat(test) / stat(base) at `level` (e.g. 0.95),
 * built to keep its coverage at 2-30 runs a side, where a percentile
 * bootstrap is far too narrow:
 *   AMEAN   Welch's t interval of the log of the ratio of means (delta
 *           method: var log m = s^2 / (n m^2)), Welch-Satterthwaite df;
 *   HMEAN   the same on the reciprocals (an hmean is 1 / mean(1/x));
 *   MEDIAN  the distribution-free interval of the shift between the logs
 *           (Hodges-Lehmann, inverted exact Mann-Whitney test; normal
 *           approximation of U's quantile above STATS_MW_EXACT_MAX).
 * The log scale needs both statistics of one sign (a ratio of a positive
 * and a negative mean has no meaning).  Returns 0, or -1 with NAN bounds
 * and a reason in *why (static text): fewer than two runs a side, a
 * statistic zero or of mixed sign, or (MEDIAN) too few runs for the exact
 * test to reach `level` at all (3 a side at 95 %).
 */
int stats_ratio_ci(enum stats_statistic s, const double *base, size_t nbase, const double *test,
		   size_t ntest, double level, double *lo, double *hi, const char **why);

/* Benjamini-Hochberg adjusted p-values (q) of p[0..n-1] into q (may be p).
 * NAN p-values are left out of the family and get a NAN q. */
void stats_bh(const double *p, size_t n, double *q);
/* The level each p must reach at its rank: alpha * rank / m (rank 1 the
 * smallest p, m the p-values that are not NAN); alpha / m for a NAN p. */
void stats_bh_levels(const double *p, size_t n, double alpha, double *level);

/*
 * Runs per side that would decide a row at 80 % `power` (or any other),
 * for the test the row uses, at the level `alpha` the row must reach (the
 * Benjamini-Hochberg level at its rank, alpha * rank / m).  Two ways a
 * row can be decided, and the nearer one counts:
 *  - a change: the observed relative difference of the statistics is
 *    detected by Welch's test (power from the shifted t distribution with
 *    2n - 2 df) or, for MEDIAN rows, by Mann-Whitney (the t answer over
 *    its asymptotic relative efficiency 3 / pi, and at least the n whose
 *    exact test can reach alpha at all);
 *  - no change: the interval of the ratio falls inside +-band, i.e.
 *    (t_{1-(1-level)/2} + z_power) * se_n <= log(1 + band) - |log r|.
 * Variances are per run on the log scale (CV^2), taken at their upper
 * STATS_PLAN_VAR_CONF confidence limit: a variance from three runs is too
 * small half of the time, and advice built on it falls short
 * (bench/stats.sh measures how often following it decides).  Returns the total runs
 * per side (>= the runs had and >= min_runs), INFINITY when neither can
 * happen within STATS_RUNS_CAP, NAN with fewer than two runs a side or a
 * ratio without meaning (see stats_ratio_ci).
 */
#define STATS_RUNS_CAP 100000
#define STATS_PLAN_VAR_CONF 0.75
double stats_runs_to_decide(enum stats_statistic s, const double *a, size_t na, const double *b,
			    size_t nb, double alpha, double power, double level, double band,
			    size_t min_runs);

/* Smallest two-sided p the exact Mann-Whitney test can give with n runs a
 * side and no ties: 2 / C(2n, n). */
double stats_mw_min_p(size_t n);

#endif
