/* stats.c - statistics for comparing runs: the distributions come from GSL,
 * the tests around them are written here so each step can be checked. */
#include "report/stats.h"
#include "lib/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * GSL's default error handler aborts the process: a t distribution with
 * a huge or tiny argument (lnbeta "x too large to extract fraction part",
 * found by fuzz-cases) must give a NaN p-value, which the comparison
 * reports as undecided, not kill `lab compare`.  Every GSL call here
 * checks its result instead.
 */
__attribute__((constructor)) static void stats_gsl_no_abort(void)
{
	gsl_set_error_handler_off();
}

static const char *const statistic_names[] = { "amean", "hmean", "median" };
static const char *const statistic_titles[] = { "AMean", "HMean", "Median" };

int stats_statistic_parse(const char *s, enum stats_statistic *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(statistic_names); i++)
		if (!strcmp(s, statistic_names[i])) {
			*out = (enum stats_statistic)i;
			return 0;
		}
	return -1;
}

const char *stats_statistic_title(enum stats_statistic s)
{
	return (unsigned)s < ARRAY_SIZE(statistic_titles) ? statistic_titles[s] : "?";
}

double stats_amean(const double *x, size_t n)
{
	return n ? gsl_stats_mean(x, 1, n) : NAN;
}

double stats_hmean(const double *x, size_t n)
{
	double inv = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		/* only defined for positive rates */
		if (!(x[i] > 0))
			return NAN;
		inv += 1.0 / x[i];
	}
	return n / inv;
}

/* Sorts x in place. */
static double median_inplace(double *x, size_t n)
{
	gsl_sort(x, 1, n);
	return gsl_stats_median_from_sorted_data(x, 1, n);
}

double stats_median(const double *x, size_t n)
{
	double *c, m;

	if (!n)
		return NAN;
	c = xmalloc(n * sizeof(*c));
	memcpy(c, x, n * sizeof(*c));
	m = median_inplace(c, n);
	free(c);
	return m;
}

double stats_sd(const double *x, size_t n)
{
	if (!n)
		return NAN;
	return n > 1 ? gsl_stats_sd(x, 1, n) : 0;
}

double stats_cv_pct(const double *x, size_t n)
{
	double m;

	if (!n)
		return NAN;
	m = gsl_stats_mean(x, 1, n);
	return m != 0 ? 100.0 * stats_sd(x, n) / fabs(m) : 0;
}

double stats_summary(enum stats_statistic s, const double *x, size_t n)
{
	switch (s) {
	case STATS_HMEAN:
		return stats_hmean(x, n);
	case STATS_MEDIAN:
		return stats_median(x, n);
	case STATS_AMEAN:
	default:
		return stats_amean(x, n);
	}
}

static void test_init(struct stats_test *t)
{
	t->stat = NAN;
	t->df = NAN;
	t->df2 = NAN;
	t->z = NAN;
	t->p = NAN;
	t->exact = 0;
}

int stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_test *out)
{
	double ma, mb, va, vb, sa, sb, se2, d;

	test_init(out);
	if (na < 2 || nb < 2)
		return -1;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma);
	vb = gsl_stats_variance_m(b, 1, nb, mb);
	sa = va / na;
	sb = vb / nb;
	se2 = sa + sb;
	d = mb - ma;
	if (se2 == 0) {
		/* two constant samples: either the same number or surely not */
		out->stat = d == 0 ? 0 : copysign(INFINITY, d);
		out->df = (double)(na + nb - 2);
		out->p = d == 0 ? 1 : 0;
		return 0;
	}
	out->stat = d / sqrt(se2);
	out->df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	out->p = fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(out->stat), out->df));
	return 0;
}

struct ranked {
	double v;
	int sample;
};

static int cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return a < b ? -1 : a > b;
}

/*
 * Doubled mid-ranks (2 * rank, an integer even when ties share a rank) of
 * a and b pooled, in the order of r[]; the tie term sum(t^3 - t) in *ties.
 */
static unsigned *pooled_ranks(const double *a, size_t na, const double *b, size_t nb,
			      struct ranked **sorted, double *ties)
{
	size_t n = na + nb;
	struct ranked *r = xmalloc(n * sizeof(*r));
	unsigned *rank2 = xmalloc(n * sizeof(*rank2));

	for (size_t i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	*ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && r[j + 1].v == r[i].v)
			j++;
		/* positions i..j (0-based) share the mean of ranks i+1..j+1 */
		for (size_t k = i; k <= j; k++)
			rank2[k] = (unsigned)(i + 1 + j + 1);
		*ties += pow((double)(j - i + 1), 3) - (double)(j - i + 1);
		i = j + 1;
	}
	*sorted = r;
	return rank2;
}

/*
 * Exact two-sided p of the rank sum of the first sample, conditional on
 * the tie pattern: count, over all C(n, na) ways to pick which pooled
 * observations belong to the first sample, the rank sums at or below and
 * at or above the observed one.  Counting subsets by (size, doubled sum)
 * with dynamic programming gives the same numbers as enumerating them.
 */
static double mw_exact_p(const unsigned *rank2, size_t n, size_t na, unsigned obs2)
{
	unsigned maxsum = 0;
	double *cnt, total = 0, le = 0, ge = 0;

	for (size_t i = 0; i < n; i++)
		maxsum += rank2[i];
	cnt = xcalloc((na + 1) * (maxsum + 1), sizeof(*cnt));
#define CNT(k, s) cnt[(size_t)(k) * (maxsum + 1) + (s)]
	CNT(0, 0) = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = (i + 1 < na ? i + 1 : na); k >= 1; k--)
			for (unsigned s = rank2[i]; s <= maxsum; s++)
				CNT(k, s) += CNT(k - 1, s - rank2[i]);
	for (unsigned s = 0; s <= maxsum; s++) {
		double c = CNT(na, s);

		total += c;
		if (s <= obs2)
			le += c;
		if (s >= obs2)
			ge += c;
	}
#undef CNT
	free(cnt);
	return fmin(1.0, 2 * fmin(le, ge) / total);
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *out)
{
	size_t n = na + nb;
	struct ranked *r;
	unsigned *rank2, obs2 = 0;
	double ties, mu, sigma2, dz;

	test_init(out);
	if (!na || !nb)
		return -1;
	rank2 = pooled_ranks(a, na, b, nb, &r, &ties);
	for (size_t i = 0; i < n; i++)
		if (r[i].sample == 0)
			obs2 += rank2[i];
	out->stat = obs2 / 2.0 - na * (na + 1) / 2.0;
	if (na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX) {
		out->exact = 1;
		out->p = mw_exact_p(rank2, n, na, obs2);
		goto done;
	}
	/* normal approximation with tie and continuity corrections (as R) */
	mu = na * (double)nb / 2;
	sigma2 = na * (double)nb / 12 * ((n + 1) - ties / ((double)n * (n - 1)));
	dz = out->stat - mu;
	if (sigma2 <= 0) {
		out->z = 0;
		out->p = 1;
		goto done;
	}
	dz -= dz > 0 ? 0.5 : dz < 0 ? -0.5 : 0;
	out->z = dz / sqrt(sigma2);
	out->p = fmin(1.0, 2 * gsl_cdf_ugaussian_Q(fabs(out->z)));
done:
	free(r);
	free(rank2);
	return 0;
}

/* Mean absolute deviation from the median, and the deviations into z. */
static double deviations(const double *x, size_t n, double *z)
{
	double med = stats_median(x, n);

	for (size_t i = 0; i < n; i++)
		z[i] = fabs(x[i] - med);
	return gsl_stats_mean(z, 1, n);
}

int stats_brown_forsythe(const double *a, size_t na, const double *b, size_t nb,
			 struct stats_test *out)
{
	double *za, *zb, ma, mb, m, ssb, ssw = 0;
	size_t n = na + nb;

	test_init(out);
	/* with two runs both deviations from the median are equal: no spread */
	if (na < 3 || nb < 3)
		return -1;
	za = xmalloc(na * sizeof(*za));
	zb = xmalloc(nb * sizeof(*zb));
	ma = deviations(a, na, za);
	mb = deviations(b, nb, zb);
	m = (ma * na + mb * nb) / n;
	ssb = na * (ma - m) * (ma - m) + nb * (mb - m) * (mb - m);
	for (size_t i = 0; i < na; i++)
		ssw += (za[i] - ma) * (za[i] - ma);
	for (size_t i = 0; i < nb; i++)
		ssw += (zb[i] - mb) * (zb[i] - mb);
	free(za);
	free(zb);
	out->df = 1;
	out->df2 = (double)(n - 2);
	/* rounding leaves crumbs where the spread is really nil */
	if (ssw <= 1e-12 * ssb || ssw == 0) {
		out->stat = ssb == 0 ? 0 : INFINITY;
		out->p = ssb == 0 ? 1 : 0;
		return 0;
	}
	out->stat = ssb / (ssw / out->df2);
	out->p = gsl_cdf_fdist_Q(out->stat, out->df, out->df2);
	return 0;
}

static double resampled(enum stats_statistic s, const double *x, size_t n, double *buf,
			gsl_rng *rng)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = x[gsl_rng_uniform_int(rng, n)];
	if (s == STATS_MEDIAN)
		return median_inplace(buf, n);
	return stats_summary(s, buf, n);
}

int stats_bootstrap_ratio(const double *base, size_t nbase, const double *test, size_t ntest,
			  enum stats_statistic s, unsigned resamples, unsigned long seed,
			  double level, double *lo, double *hi)
{
	double *bb, *tb, *ratio;
	gsl_rng *rng;
	int ret = 0;

	*lo = *hi = NAN;
	if (!nbase || !ntest || !resamples || !(level > 0 && level < 1))
		return -1;
	bb = xmalloc(nbase * sizeof(*bb));
	tb = xmalloc(ntest * sizeof(*tb));
	ratio = xmalloc(resamples * sizeof(*ratio));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		die(LAB_EXIT_FAIL, "out of memory");
	gsl_rng_set(rng, seed);
	for (unsigned i = 0; i < resamples; i++) {
		double sb = resampled(s, base, nbase, bb, rng);
		double st = resampled(s, test, ntest, tb, rng);

		if (isnan(sb) || isnan(st)) {
			ret = -1;
			break;
		}
		ratio[i] = sb == 0 && st == 0 ? 1 : st / sb;
		if (isnan(ratio[i])) {
			ret = -1;
			break;
		}
	}
	if (!ret) {
		gsl_sort(ratio, 1, resamples);
		*lo = gsl_stats_quantile_from_sorted_data(ratio, 1, resamples, (1 - level) / 2);
		*hi = gsl_stats_quantile_from_sorted_data(ratio, 1, resamples, 1 - (1 - level) / 2);
	}
	gsl_rng_free(rng);
	free(bb);
	free(tb);
	free(ratio);
	return ret;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	double a = ((const struct pidx *)x)->p, b = ((const struct pidx *)y)->p;

	return a < b ? -1 : a > b;
}

void stats_bh(const double *p, size_t n, double *q)
{
	struct pidx *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t m = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = (struct pidx){ p[i], i };
	qsort(s, m, sizeof(*s), cmp_pidx);
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	/* q_(k) = min over j >= k of p_(j) m / j, walking down from the largest */
	for (size_t k = m; k-- > 0;) {
		double v = s[k].p * m / (k + 1);

		if (v < run)
			run = v;
		q[s[k].i] = run;
	}
	free(s);
}

double stats_runs_needed(const double *a, size_t na, const double *b, size_t nb,
			 double alpha, double power)
{
	double ma, mb, s2, d, z, n;

	if (na < 2 || nb < 2)
		return NAN;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	s2 = (gsl_stats_variance_m(a, 1, na, ma) + gsl_stats_variance_m(b, 1, nb, mb)) / 2;
	d = mb - ma;
	if (d == 0)
		return INFINITY;
	z = gsl_cdf_ugaussian_Pinv(1 - alpha / 2) + gsl_cdf_ugaussian_Pinv(power);
	n = ceil(2 * z * z * s2 / (d * d));
	/* a t-test needs two runs per side, whatever the formula says */
	return n < 2 ? 2 : n;
}
