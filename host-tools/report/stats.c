/* stats.c - statistics for comparing runs: the distributions come from GSL,
 * the tests around them are written here so each step can be checked. */
#include "report/stats.h"
#include "lib/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>
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
	double *y, m, sd, scale = 0;

	if (!n)
		return NAN;
	/* CV does not change with scale: divide by the largest magnitude so
	 * values near DBL_MAX do not overflow the sums of squares */
	for (size_t i = 0; i < n; i++)
		scale = fmax(scale, fabs(x[i]));
	if (!(scale > 0) || !isfinite(scale))
		return NAN;
	y = xmalloc(n * sizeof(*y));
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] / scale;
	m = gsl_stats_mean(y, 1, n);
	sd = stats_sd(y, n);
	free(y);
	return m != 0 ? 100.0 * sd / fabs(m) : NAN;
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

/* qsort order of records that start with a double: struct ranked and struct pidx */
static int cmp_lead_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

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
	qsort(r, n, sizeof(*r), cmp_lead_double);
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

/*
 * The log of |statistic| of x and the variance of that log per run (so
 * var of the log statistic is *v / n): the delta method, CV^2, for means;
 * for an hmean the same on the reciprocals.  -1 when it has no log.
 */
static int log_location(enum stats_statistic s, const double *x, size_t n, double *l, double *v,
			int *sign)
{
	double m, var;

	if (s == STATS_HMEAN) {
		double *r = xmalloc(n * sizeof(*r));

		for (size_t i = 0; i < n; i++) {
			if (!(x[i] > 0)) {
				free(r);
				return -1;
			}
			r[i] = 1 / x[i];
		}
		m = gsl_stats_mean(r, 1, n);
		var = n > 1 ? gsl_stats_variance_m(r, 1, n, m) : 0;
		free(r);
		*l = -log(m);
		*v = var / (m * m);
		*sign = 1;
		return 0;
	}
	{
		/* var / m^2 does not change with scale: divide by the largest
		 * magnitude first, so values near DBL_MAX do not overflow */
		double scale = 0, *y;

		for (size_t i = 0; i < n; i++)
			scale = fmax(scale, fabs(x[i]));
		if (!(scale > 0) || !isfinite(scale))
			return -1;
		y = xmalloc(n * sizeof(*y));
		for (size_t i = 0; i < n; i++)
			y[i] = x[i] / scale;
		m = gsl_stats_mean(y, 1, n);
		var = n > 1 ? gsl_stats_variance_m(y, 1, n, m) : 0;
		free(y);
		if (!(m != 0))
			return -1;
		*l = log(fabs(m)) + log(scale);
		*v = var / (m * m);
		*sign = m > 0 ? 1 : -1;
	}
	return isfinite(*v) ? 0 : -1;
}

/* log|x| of every value, all of one sign; -1 otherwise. */
static double *logs_one_sign(const double *x, size_t n, int *sign)
{
	double *l = xmalloc(n * sizeof(*l));
	int sg = x[0] > 0 ? 1 : x[0] < 0 ? -1 : 0;

	for (size_t i = 0; i < n; i++) {
		if (!sg || !isfinite(x[i]) || (x[i] > 0 ? 1 : x[i] < 0 ? -1 : 0) != sg) {
			free(l);
			return NULL;
		}
		l[i] = log(fabs(x[i]));
	}
	*sign = sg;
	return l;
}

/*
 * Null distribution of Mann-Whitney's U for m and n runs without ties:
 * cdf[u] = P(U <= u), u = 0..m*n.  Counts of arrangements by the
 * recurrence f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u).
 */
static double *mw_null_cdf(size_t m, size_t n)
{
	size_t mn = m * n, w = mn + 1;
	double *f = xcalloc((m + 1) * (n + 1) * w, sizeof(*f)), *cdf = xmalloc(w * sizeof(*cdf));
	double total = 0, run = 0;
#define F(i, j, u) f[((i) * (n + 1) + (j)) * w + (u)]
	for (size_t i = 0; i <= m; i++)
		for (size_t j = 0; j <= n; j++) {
			if (!i || !j) {
				F(i, j, 0) = 1;
				continue;
			}
			for (size_t u = 0; u <= i * j; u++)
				F(i, j, u) = (u >= j ? F(i - 1, j, u - j) : 0) + F(i, j - 1, u);
		}
	for (size_t u = 0; u <= mn; u++)
		total += F(m, n, u);
	for (size_t u = 0; u <= mn; u++) {
		run += F(m, n, u);
		cdf[u] = run / total;
	}
#undef F
	free(f);
	return cdf;
}

/* The k of the order statistics D_(k), D_(mn+1-k) (1-based) that bound
 * the shift at `level`; 0 when no such interval exists. */
static size_t mw_interval_k(size_t m, size_t n, double level)
{
	double tail = (1 - level) / 2;
	size_t k = 0;

	if (m <= STATS_MW_EXACT_MAX && n <= STATS_MW_EXACT_MAX) {
		double *cdf = mw_null_cdf(m, n);

		/* the largest k with P(U <= k - 1) <= tail */
		while (k < m * n && cdf[k] <= tail)
			k++;
		free(cdf);
		return k;
	} else {
		double mu = m * (double)n / 2, sd = sqrt(m * (double)n * (m + n + 1) / 12);
		double kk = floor(mu - gsl_cdf_ugaussian_Pinv(1 - tail) * sd);

		return kk < 1 ? 0 : (size_t)kk;
	}
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* Above this many pairwise differences the median's interval falls back
 * to the t interval of the mean of the logs. */
#define HL_MAX_PAIRS (4u << 20)

static int median_ratio_ci(const double *base, size_t nb, const double *test, size_t nt,
			   double level, double *lo, double *hi, const char **why)
{
	int sb, st, ret = -1;
	double *lb = logs_one_sign(base, nb, &sb), *lt = lb ? logs_one_sign(test, nt, &st) : NULL;
	double *d;
	size_t k, nd = nb * nt;

	if (!lb || !lt || sb != st) {
		*why = "values of both signs or zero: a ratio of medians has no log scale";
		goto out;
	}
	if (nd > HL_MAX_PAIRS) {
		double mb = gsl_stats_mean(lb, 1, nb), mt = gsl_stats_mean(lt, 1, nt);
		double vb = gsl_stats_variance_m(lb, 1, nb, mb) / nb;
		double vt = gsl_stats_variance_m(lt, 1, nt, mt) / nt;
		double se = sqrt(vb + vt), t = gsl_cdf_ugaussian_Pinv(1 - (1 - level) / 2);

		*lo = exp(mt - mb - t * se);
		*hi = exp(mt - mb + t * se);
		ret = 0;
		goto out;
	}
	k = mw_interval_k(nb, nt, level);
	if (!k) {
		*why = "a median's interval needs 4 runs a side at 95 %";
		goto out;
	}
	d = xmalloc(nd * sizeof(*d));
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < nt; j++)
			d[i * nt + j] = lt[j] - lb[i];
	qsort(d, nd, sizeof(*d), cmp_double);
	*lo = exp(d[k - 1]);
	*hi = exp(d[nd - k]);
	free(d);
	ret = 0;
out:
	free(lb);
	free(lt);
	return ret;
}

int stats_ratio_ci(enum stats_statistic s, const double *base, size_t nbase, const double *test,
		   size_t ntest, double level, double *lo, double *hi, const char **why)
{
	double lb, vb, lt, vt, sb2, st2, se2, df, t, d;
	int gb, gt;
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	*lo = *hi = NAN;
	if (!(level > 0 && level < 1)) {
		*why = "no such level";
		return -1;
	}
	if (nbase < 2 || ntest < 2) {
		*why = "fewer than 2 runs a side";
		return -1;
	}
	if (s == STATS_MEDIAN)
		return median_ratio_ci(base, nbase, test, ntest, level, lo, hi, why);
	if (log_location(s, base, nbase, &lb, &vb, &gb) || log_location(s, test, ntest, &lt, &vt, &gt) ||
	    gb != gt) {
		*why = s == STATS_HMEAN ? "an hmean of values that are not all positive"
					: "a mean of zero, or means of both signs: the ratio has no meaning";
		return -1;
	}
	d = lt - lb;
	sb2 = vb / nbase;
	st2 = vt / ntest;
	se2 = sb2 + st2;
	if (se2 == 0) {
		/* runs that repeat to the last digit: the ratio is what it is */
		*lo = *hi = exp(d);
		return 0;
	}
	df = se2 * se2 / (sb2 * sb2 / (nbase - 1) + st2 * st2 / (ntest - 1));
	t = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, df);
	if (!isfinite(t)) {
		*why = "no t quantile for these runs";
		return -1;
	}
	*lo = exp(d - t * sqrt(se2));
	*hi = exp(d + t * sqrt(se2));
	return 0;
}

struct pidx {
	double p;
	size_t i;
};

/* The p-values of p[] that are not NaN, ascending, with their places; their count in *m. */
static struct pidx *sorted_pvalues(const double *p, size_t n, size_t *m)
{
	struct pidx *s = xmalloc((n ? n : 1) * sizeof(*s));

	*m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[(*m)++] = (struct pidx){ p[i], i };
	qsort(s, *m, sizeof(*s), cmp_lead_double);
	return s;
}

void stats_bh(const double *p, size_t n, double *q)
{
	size_t m;
	struct pidx *s = sorted_pvalues(p, n, &m);
	double run = 1;

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

void stats_bh_levels(const double *p, size_t n, double alpha, double *level)
{
	size_t m;
	struct pidx *s = sorted_pvalues(p, n, &m);

	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			level[i] = alpha / (m ? m : 1);
	for (size_t k = 0; k < m; k++)
		level[s[k].i] = alpha * (k + 1) / m;
	free(s);
}

double stats_mw_min_p(size_t n)
{
	return n ? fmin(1.0, 2 * exp(-gsl_sf_lnchoose((unsigned)(2 * n), (unsigned)n))) : 1.0;
}

/* Power of a two-sided Welch test with n runs a side, per-run variance v
 * (log scale) and true difference delta: the shifted t approximation. */
static double welch_power(size_t n, double v, double delta, double alpha)
{
	double df = 2.0 * n - 2, se = sqrt(2 * v / n), lam, tc;

	if (n < 2)
		return 0;
	if (se == 0)
		return delta != 0 ? 1 : 0;
	lam = fabs(delta) / se;
	tc = gsl_cdf_tdist_Pinv(1 - alpha / 2, df);
	return gsl_cdf_tdist_Q(tc - lam, df) + gsl_cdf_tdist_P(-tc - lam, df);
}

/* Probability that the level-interval lies inside +-eps around a true
 * log-ratio d: the no-change branch, (t + z_power) se <= eps - |d|. */
static double band_power(size_t n, double v, double margin, double level)
{
	double df = 2.0 * n - 2, se = sqrt(2 * v / n), t;

	if (n < 2 || margin <= 0)
		return 0;
	if (se == 0)
		return 1;
	t = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, df);
	/* the half width is t * se; its margin left is normal in the estimate */
	return gsl_cdf_ugaussian_P((margin - t * se) / se);
}

/* The least n in [from, STATS_RUNS_CAP] with ok(n) >= power (ok grows
 * with n), or 0 when none: doubling, then bisection. */
static size_t least_n(size_t from, double power, double (*ok)(size_t, const double *),
		      const double *arg)
{
	size_t lo = from, hi = from;

	if (ok(from, arg) >= power)
		return from;
	while (ok(hi, arg) < power) {
		lo = hi;
		if (hi >= STATS_RUNS_CAP)
			return 0;
		hi = hi * 2 > STATS_RUNS_CAP ? STATS_RUNS_CAP : hi * 2;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ok(mid, arg) >= power)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* arg: v, delta, alpha / v, margin, level */
static double ok_change(size_t n, const double *a)
{
	return welch_power(n, a[0], a[1], a[2]);
}

static double ok_band(size_t n, const double *a)
{
	return band_power(n, a[0], a[1], a[2]);
}

double stats_runs_to_decide(enum stats_statistic s, const double *a, size_t na, const double *b,
			    size_t nb, double alpha, double power, double level, double band,
			    size_t min_runs)
{
	size_t have = na < nb ? na : nb, from = have + 1, n_change = 0, n_same = 0;
	double v, d;
	/* Mann-Whitney's efficiency against the t test on normal data */
	double are = s == STATS_MEDIAN ? 3 / M_PI : 1;

	if (na < 2 || nb < 2)
		return NAN;
	if (s == STATS_MEDIAN) {
		int ga, gb;
		double *la = logs_one_sign(a, na, &ga), *lb = la ? logs_one_sign(b, nb, &gb) : NULL;

		if (!la || !lb || ga != gb) {
			free(la);
			free(lb);
			return NAN;
		}
		d = stats_median(lb, nb) - stats_median(la, na);
		v = (gsl_stats_variance(la, 1, na) + gsl_stats_variance(lb, 1, nb)) / 2;
		free(la);
		free(lb);
	} else {
		double la, va, lb, vb;
		int ga, gb;

		if (log_location(s, a, na, &la, &va, &ga) || log_location(s, b, nb, &lb, &vb, &gb) ||
		    ga != gb)
			return NAN;
		d = lb - la;
		v = (va + vb) / 2;
	}
	if (from < 2)
		from = 2;
	/*
	 * A variance from a few runs is often far too small, and a plan built
	 * on it then falls short (Browne 1995): plan with its upper confidence
	 * limit at STATS_PLAN_VAR_CONF instead, sd^2 df / chi2_{1-conf}(df).
	 */
	{
		double df = (double)(na + nb - 2);

		v = v * df / gsl_cdf_chisq_Pinv(1 - STATS_PLAN_VAR_CONF, df);
	}
	if (d != 0) {
		double arg[3] = { v / are, d, alpha };

		n_change = least_n(from, power, ok_change, arg);
		/* an exact rank test cannot go below 2 / C(2n, n) */
		while (n_change && s == STATS_MEDIAN && n_change <= STATS_MW_EXACT_MAX &&
		       stats_mw_min_p(n_change) >= alpha)
			n_change++;
	}
	{
		double margin = fmin(log1p(band), -log1p(-band)) - fabs(d);
		double arg[3] = { v / are, margin, level };

		if (margin > 0)
			n_same = least_n(from, power, ok_band, arg);
		if (n_same && n_same < min_runs)
			n_same = min_runs;
	}
	if (!n_change && !n_same)
		return INFINITY;
	if (!n_change || (n_same && n_same < n_change))
		return (double)n_same;
	return (double)n_change;
}
