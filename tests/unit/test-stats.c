/* test-stats.c - the comparison statistics against reference values that
 * were computed elsewhere; each test names where its numbers come from. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/stats.h"

#include <math.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

static void test_summaries(void **state)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	const double rates[] = { 40, 60 };
	const double neg[] = { 1, -1 };

	(void)state;
	/* by hand: mean 40/8 = 5, sum of squares 32, sample variance 32/7 */
	assert_close(stats_amean(x, N(x)), 5, 1e-12);
	assert_close(stats_sd(x, N(x)), sqrt(32.0 / 7), 1e-12);
	assert_close(stats_cv_pct(x, N(x)), 100 * sqrt(32.0 / 7) / 5, 1e-10);
	{
		const double zero[] = { 0, 0, 0 }, sym[] = { -1, 1 }, huge[] = { 1e308, 1.7e308, 1.5e308 };

		/* no mean, no scale: no CV; near DBL_MAX the sums must not overflow */
		assert_true(isnan(stats_cv_pct(zero, 3)));
		assert_true(isnan(stats_cv_pct(sym, 2)));
		assert_close(stats_cv_pct(huge, 3), 100 * sqrt(0.13) / 1.4, 1e-9);
	}
	assert_close(stats_median(x, N(x)), 4.5, 1e-12);
	/* a car at 40 and 60 km/h over equal distances averages 48 km/h */
	assert_close(stats_hmean(rates, 2), 48, 1e-12);
	assert_true(isnan(stats_hmean(neg, 2)));
	assert_true(isnan(stats_amean(x, 0)));
	assert_close(stats_sd(x, 1), 0, 0);
	assert_close(stats_summary(STATS_MEDIAN, x, 7), 4, 0);
	assert_int_equal(x[0], 2); /* the median left its input alone */
}

static void test_statistic_names(void **state)
{
	enum stats_statistic s;

	(void)state;
	assert_int_equal(stats_statistic_parse("hmean", &s), 0);
	assert_int_equal(s, STATS_HMEAN);
	assert_int_equal(stats_statistic_parse("mean", &s), -1);
	assert_string_equal(stats_statistic_title(STATS_AMEAN), "AMean");
	assert_string_equal(stats_statistic_title(STATS_MEDIAN), "Median");
}

/*
 * R's t.test(ts1, ts2) as quoted in a Cross Validated answer on Welch
 * intervals: "t = -1.8325, df = 17.9, p-value = 0.08356".  More digits from
 * mpmath 1.3.0 (python3): t = 1.83254166534458 for mean(ts2) - mean(ts1),
 * df = 17.9003101462118, two-sided p = I_{df/(df+t^2)}(df/2, 1/2) =
 * 0.0835597916192233 (mpmath.betainc, regularized).
 */
static void test_welch_r_example(void **state)
{
	const double ts1[] = { 11, 9, 10, 11, 10, 12, 9, 11, 12, 9 };
	const double ts2[] = { 11, 13, 10, 13, 12, 9, 11, 12, 12, 11 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_welch(ts1, N(ts1), ts2, N(ts2), &t), 0);
	assert_close(t.stat, 1.83254166534458, 1e-10);
	assert_close(t.df, 17.9003101462118, 1e-9);
	assert_close(t.p, 0.0835597916192233, 1e-9);
	/* swapping the sides flips t and nothing else */
	assert_int_equal(stats_welch(ts2, N(ts2), ts1, N(ts1), &t), 0);
	assert_close(t.stat, -1.83254166534458, 1e-10);
	assert_close(t.p, 0.0835597916192233, 1e-9);
}

/*
 * Rosetta Code "Welch's t-test" task data x = {3.0,4.0,1.0,2.1},
 * y = {490.2,340.0,433.9}; the task's expected p is 0.010751561149784
 * (R's t.test); mpmath 1.3.0 gives t = 9.55949772193266, df =
 * 2.00085234885628, p = 0.0107515611497845.
 */
static void test_welch_rosetta(void **state)
{
	const double x[] = { 3.0, 4.0, 1.0, 2.1 }, y[] = { 490.2, 340.0, 433.9 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_welch(x, N(x), y, N(y), &t), 0);
	assert_close(t.stat, 9.55949772193266, 1e-9);
	assert_close(t.df, 2.00085234885628, 1e-9);
	assert_close(t.p, 0.0107515611497845, 1e-9);
}

static void test_welch_degenerate(void **state)
{
	const double one[] = { 1 }, c1[] = { 5, 5, 5 }, c2[] = { 6, 6, 6 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_welch(one, 1, c1, 3, &t), -1);
	assert_true(isnan(t.p));
	/* constant samples: equal means cannot differ, unequal ones surely do */
	assert_int_equal(stats_welch(c1, 3, c1, 3, &t), 0);
	assert_close(t.p, 1, 0);
	assert_int_equal(stats_welch(c1, 3, c2, 3, &t), 0);
	assert_close(t.p, 0, 0);
	assert_true(isinf(t.stat) && t.stat > 0);
}

/*
 * Exact Mann-Whitney.  References:
 * - R's ?wilcox.test example (Hollander & Wolfe, depression scale):
 *   wilcox.test(x, y, alternative = "g") gives "W = 35, p-value = 0.1272";
 *   the two-sided p is twice that; a brute-force enumeration of all
 *   C(15,10) = 3003 splits in python3 gives 0.254412254412254.
 * - {1,2,3,5} vs {4,6,7,8}: U = 1; by counting, 2 of the C(8,4) = 70 splits
 *   have U <= 1 (U = 0 and U = 1), so p = 2 * 2/70 = 0.0571428571 (R: 0.05714).
 * - {1,2,3} vs {4,5,6}: U = 0, p = 2 * 1/20 = 0.1.
 */
static void test_mann_whitney_exact(void **state)
{
	const double hx[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	const double hy[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	const double a[] = { 1, 2, 3, 5 }, b[] = { 4, 6, 7, 8 };
	const double c[] = { 1, 2, 3 }, d[] = { 4, 5, 6 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(hx, N(hx), hy, N(hy), &t), 0);
	assert_true(t.exact);
	assert_close(t.stat, 35, 0);
	assert_close(t.p, 0.254412254412254, 1e-12);
	assert_int_equal(stats_mann_whitney(a, 4, b, 4, &t), 0);
	assert_close(t.stat, 1, 0);
	assert_close(t.p, 4.0 / 70, 1e-12);
	assert_int_equal(stats_mann_whitney(b, 4, a, 4, &t), 0);
	assert_close(t.stat, 15, 0);
	assert_close(t.p, 4.0 / 70, 1e-12);
	assert_int_equal(stats_mann_whitney(c, 3, d, 3, &t), 0);
	assert_close(t.p, 0.1, 1e-12);
	/* identical samples: nothing to see */
	assert_int_equal(stats_mann_whitney(c, 3, c, 3, &t), 0);
	assert_close(t.p, 1, 1e-12);
}

/*
 * Ties within the exact range: {1,2,2,3,3,3,4} vs {3,4,4,5,5,6}.  Mid-ranks
 * give U = 3.5; enumerating all C(13,7) = 1716 splits with the mid-ranks
 * fixed (python3 itertools.combinations, a different algorithm from the
 * counting in stats.c) gives a two-sided p of 0.0151515151515152 (= 26/1716).
 */
static void test_mann_whitney_ties_exact(void **state)
{
	const double a[] = { 1, 2, 2, 3, 3, 3, 4 }, b[] = { 3, 4, 4, 5, 5, 6 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, N(a), b, N(b), &t), 0);
	assert_true(t.exact);
	assert_close(t.stat, 3.5, 0);
	assert_close(t.p, 0.0151515151515152, 1e-12);
}

/*
 * Normal approximation (12 vs 13 runs, with ties): R's formula for
 * wilcox.test(a, b, correct = TRUE, exact = FALSE), evaluated with mpmath
 * 1.3.0: U = 39, z = -2.09937895329392, p = erfc(|z|/sqrt 2) =
 * 0.0357835084977228.  The exact permutation p of the same data (python3
 * enumeration of C(25,12) = 5200300 splits) is 0.0327715708709113: the
 * approximation is within 0.004 of it.
 */
static void test_mann_whitney_normal(void **state)
{
	const double a[] = { 12, 15, 15, 17, 18, 20, 20, 20, 22, 25, 26, 30 };
	const double b[] = { 14, 19, 20, 21, 23, 23, 25, 27, 28, 29, 31, 33, 35 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_mann_whitney(a, N(a), b, N(b), &t), 0);
	assert_false(t.exact);
	assert_close(t.stat, 39, 0);
	assert_close(t.z, -2.09937895329392, 1e-10);
	assert_close(t.p, 0.0357835084977228, 1e-10);
	assert_close(t.p, 0.0327715708709113, 0.004);
}

/*
 * Brown-Forsythe by hand: a = {1..5}, b = {2,4,6,8,10}.  Absolute
 * deviations from the medians (3 and 6): {2,1,0,1,2} (mean 1.2) and
 * {4,2,0,2,4} (mean 2.4), grand mean 1.8; between-groups SS = 5*0.36*2 =
 * 3.6, within SS = 2.8 + 11.2 = 14; F = 3.6 / (14/8) = 2.05714285714286 on
 * (1, 8) df; upper tail from mpmath 1.3.0 (betainc) 0.189403661093321.
 */
static void test_brown_forsythe(void **state)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 };
	const double c[] = { 10, 10.1, 9.9, 10, 10.05, 9.95 };
	const double d[] = { 10, 14, 6, 12, 8, 10 };
	struct stats_test t;

	(void)state;
	assert_int_equal(stats_brown_forsythe(a, 5, b, 5, &t), 0);
	assert_close(t.stat, 3.6 / (14.0 / 8), 1e-12);
	assert_close(t.df, 1, 0);
	assert_close(t.df2, 8, 0);
	assert_close(t.p, 0.189403661093321, 1e-10);
	/* a location shift alone leaves the spread, and the test, unmoved */
	{
		double shifted[5];

		for (int i = 0; i < 5; i++)
			shifted[i] = a[i] + 100;
		assert_int_equal(stats_brown_forsythe(a, 5, shifted, 5, &t), 0);
		assert_close(t.stat, 0, 1e-9);
		assert_close(t.p, 1, 1e-9);
	}
	/* forty times the spread: deviations {0,.1,.1,0,.05,.05} and
	 * {0,4,4,2,2,0} give F = 11.4075 / (16.01 / 10) = 7.1252 */
	assert_int_equal(stats_brown_forsythe(c, N(c), d, N(d), &t), 0);
	assert_close(t.stat, 11.4075 / 1.601, 1e-9);
	assert_true(t.p < 0.05);
	assert_int_equal(stats_brown_forsythe(a, 2, b, 5, &t), -1);
	assert_true(isnan(t.p));
}

/*
 * Benjamini-Hochberg.  Small case by hand: p = {0.01, 0.04, 0.03, 0.005},
 * sorted 0.005, 0.01, 0.03, 0.04 -> p*m/rank 0.02, 0.02, 0.04, 0.04, already
 * monotone (R's p.adjust(p, "BH") gives the same).  The 15 p-values of
 * Benjamini & Hochberg (1995), section 4 (Neuhaus et al. trial): the
 * procedure rejects the four smallest at 0.05 (q of the 4th = 0.0095*15/4 =
 * 0.035625, of the 5th = min_j>=5 p_j*15/j = 0.0201*3 = 0.0603).
 */
static void test_bh(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	const double want[] = { 0.02, 0.04, 0.04, 0.02 };
	const double bh95[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
				0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000 };
	double q[15], withnan[3] = { 0.02, NAN, 0.04 };
	int rejected = 0;

	(void)state;
	stats_bh(p, 4, q);
	for (int i = 0; i < 4; i++)
		assert_close(q[i], want[i], 1e-12);
	stats_bh(bh95, 15, q);
	for (int i = 0; i < 15; i++)
		rejected += q[i] < 0.05;
	assert_int_equal(rejected, 4);
	assert_close(q[3], 0.035625, 1e-12);
	assert_close(q[4], 0.0603, 1e-12);
	assert_close(q[14], 1, 1e-12);
	/* a NAN is no member of the family: m = 2 here */
	stats_bh(withnan, 3, withnan);
	assert_close(withnan[0], 0.04, 1e-12);
	assert_true(isnan(withnan[1]));
	assert_close(withnan[2], 0.04, 1e-12);
}

/*
 * Ratio intervals against scipy 1.10.1 (python3-scipy), computed the way
 * stats.h describes: Welch's t on the log ratio with the delta-method
 * variances (amean: x, hmean: 1/x), and for medians the Hodges-Lehmann
 * interval of the log shift with the exact null distribution of U
 * enumerated over all C(10, 5) rank sets (k = 3 at 95 %).
 */
static void test_ratio_ci(void **state)
{
	const double a[] = { 9, 10, 11 }, b[] = { 10, 11, 12, 13 };
	const double c1[] = { 10, 10, 10 }, c2[] = { 20, 20, 20, 20 };
	const double slow[] = { 1.9, 2.0, 2.1, 2.05, 1.95 }, fast[] = { 0.95, 1.0, 1.05, 1.02, 0.98 };
	const char *why;
	double lo, hi;

	(void)state;
	assert_int_equal(stats_ratio_ci(STATS_AMEAN, a, 3, b, 4, 0.95, &lo, &hi, &why), 0);
	assert_close(lo, 0.9317866861483166, 1e-9);
	assert_close(hi, 1.4193162659006826, 1e-9);
	assert_int_equal(stats_ratio_ci(STATS_HMEAN, a, 3, b, 4, 0.95, &lo, &hi, &why), 0);
	assert_close(lo, 0.9278818121624111, 1e-9);
	assert_close(hi, 1.4172064199477008, 1e-9);
	assert_int_equal(stats_ratio_ci(STATS_MEDIAN, slow, 5, fast, 5, 0.95, &lo, &hi, &why), 0);
	assert_close(lo, 0.4666666666666666, 1e-12);
	assert_close(hi, 0.5368421052631579, 1e-12);
	/* constant samples: the ratio of the statistic, whatever the statistic */
	for (int s = STATS_AMEAN; s <= STATS_MEDIAN; s++) {
		if (s == STATS_MEDIAN)
			continue;	/* 3 runs a side: no exact 95 % interval, below */
		assert_int_equal(stats_ratio_ci(s, c1, 3, c2, 4, 0.95, &lo, &hi, &why), 0);
		assert_close(lo, 2, 1e-12);
		assert_close(hi, 2, 1e-12);
	}
	/* what has no interval says why, with NAN bounds */
	assert_int_equal(stats_ratio_ci(STATS_MEDIAN, c1, 3, c2, 4, 0.95, &lo, &hi, &why), -1);
	assert_true(isnan(lo) && isnan(hi) && why && strstr(why, "needs 4 runs"));
	assert_int_equal(stats_ratio_ci(STATS_AMEAN, a, 1, b, 4, 0.95, &lo, &hi, &why), -1);
	assert_true(why && strstr(why, "fewer than 2"));
	{
		const double neg[] = { -1, 2 }, mixed[] = { -10, -11 }, zero[] = { -1, 1 };

		assert_int_equal(stats_ratio_ci(STATS_HMEAN, neg, 2, c1, 3, 0.95, &lo, &hi, &why), -1);
		assert_true(isnan(lo) && isnan(hi));
		assert_int_equal(stats_ratio_ci(STATS_AMEAN, mixed, 2, c1, 3, 0.95, &lo, &hi, &why), -1);
		assert_int_equal(stats_ratio_ci(STATS_AMEAN, zero, 2, c1, 3, 0.95, &lo, &hi, &why), -1);
		assert_int_equal(stats_ratio_ci(STATS_MEDIAN, neg, 2, c1, 3, 0.95, &lo, &hi, &why), -1);
		/* two negative means: a ratio of magnitudes */
		assert_int_equal(stats_ratio_ci(STATS_AMEAN, mixed, 2, mixed, 2, 0.95, &lo, &hi, &why), 0);
		assert_true(lo < 1 && hi > 1);
	}
	assert_int_equal(stats_ratio_ci(STATS_AMEAN, a, 3, b, 4, 1.5, &lo, &hi, &why), -1);
}

/*
 * Runs to decide, against scipy 1.10.1 with the same approximations: the
 * least n whose shifted-t power reaches 0.8, the variance at its upper 75 %
 * limit (x 4 / chi2.ppf(0.25, 4) = 2.0806).  a = {9,10,11}, b = {10,11,12}:
 * 34 a side at alpha 0.05, 56 at the BH level of rank 1 of 8 (0.05 / 8).
 * {100,101,99} vs {100.5,99.5,100.2}: the no-change branch needs 7, more
 * than the 5 a "=" needs.
 */
static void test_runs_to_decide(void **state)
{
	const double a[] = { 9, 10, 11 }, b[] = { 10, 11, 12 };
	const double s1[] = { 100, 101, 99 }, s2[] = { 100.5, 99.5, 100.2 };

	(void)state;
	assert_close(stats_runs_to_decide(STATS_AMEAN, a, 3, b, 3, 0.05, 0.8, 0.95, 0.02, 5), 34, 0);
	assert_close(stats_runs_to_decide(STATS_AMEAN, a, 3, b, 3, 0.05 / 8, 0.8, 0.95, 0.02, 5), 56, 0);
	assert_close(stats_runs_to_decide(STATS_AMEAN, s1, 3, s2, 3, 0.05, 0.8, 0.95, 0.02, 5), 7, 0);
	/* a "=" never comes from fewer than min_runs */
	assert_close(stats_runs_to_decide(STATS_AMEAN, s1, 3, s2, 3, 0.05, 0.8, 0.95, 0.02, 9), 9, 0);
	/* a rank test cannot reach p < 0.001 below 7 runs a side (2/C(14,7)) */
	assert_true(stats_runs_to_decide(STATS_MEDIAN, a, 3, b, 3, 0.001, 0.8, 0.95, 0.02, 5) >= 7);
	assert_close(stats_mw_min_p(5), 2.0 / 252, 1e-15);
	assert_true(stats_mw_min_p(6) > 0.001 && stats_mw_min_p(7) < 0.001);
	/* the answer is always more than what the row has */
	assert_true(stats_runs_to_decide(STATS_AMEAN, a, 3, b, 3, 0.5, 0.8, 0.95, 0.02, 2) >= 4);
	/* nothing to detect and no band to fall in; too few runs */
	assert_true(isinf(stats_runs_to_decide(STATS_AMEAN, a, 3, a, 3, 0.05, 0.8, 0.95, 0, 5)));
	assert_true(isnan(stats_runs_to_decide(STATS_AMEAN, a, 1, b, 3, 0.05, 0.8, 0.95, 0.02, 5)));
}

static void test_bh_levels(void **state)
{
	const double p[] = { 0.04, NAN, 0.01, 0.03 };
	double l[4];

	(void)state;
	stats_bh_levels(p, 4, 0.05, l);
	assert_close(l[2], 0.05 / 3, 1e-15);
	assert_close(l[3], 0.05 * 2 / 3, 1e-15);
	assert_close(l[0], 0.05, 1e-15);
	assert_close(l[1], 0.05 / 3, 1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_statistic_names),
		cmocka_unit_test(test_welch_r_example),
		cmocka_unit_test(test_welch_rosetta),
		cmocka_unit_test(test_welch_degenerate),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_ties_exact),
		cmocka_unit_test(test_mann_whitney_normal),
		cmocka_unit_test(test_brown_forsythe),
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_bh_levels),
		cmocka_unit_test(test_runs_to_decide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
