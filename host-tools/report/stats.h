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
 * stats_cv_pct() is sd / |mean| in percent (0 when the mean is 0);
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
 * Percentile bootstrap interval of stat(test) / stat(base) at `level`
 * (e.g. 0.95): each side resampled with replacement `resamples` times with
 * a gsl_rng (MT19937) seeded with `seed`, so the same inputs give the same
 * interval.  0/0 counts as a ratio of 1.  Returns 0, or -1 (NAN bounds) when
 * a side is empty or the statistic is undefined (hmean of non-positive data).
 */
int stats_bootstrap_ratio(const double *base, size_t nbase, const double *test, size_t ntest,
			  enum stats_statistic s, unsigned resamples, unsigned long seed,
			  double level, double *lo, double *hi);

/* Benjamini-Hochberg adjusted p-values (q) of p[0..n-1] into q (may be p).
 * NAN p-values are left out of the family and get a NAN q. */
void stats_bh(const double *p, size_t n, double *q);

/*
 * Runs per side a two-sample t-test needs to detect the observed
 * difference of means at two-sided `alpha` with `power`:
 * n = 2 (z_{1-alpha/2} + z_{power})^2 s^2 / d^2, s^2 the mean of the two
 * sample variances, rounded up.  INFINITY when the means are equal, NAN
 * when a side has fewer than two runs.
 */
double stats_runs_needed(const double *a, size_t na, const double *b, size_t nb,
			 double alpha, double power);

#endif
