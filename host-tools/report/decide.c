/* decide.c - the sequential decision of lab ab --until-decided: rows
 * (changed or the same) under Benjamini-Hochberg, expectations under
 * Bonferroni, both over looks; and the rounds an open one still needs. */
#include "report/decide.h"
#include "report/stats.h"

#include <gsl/gsl_cdf.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POWER_Z 0.8416212335729143	/* 80 % power */
#define VAR_CONF 0.75			/* the variance at its upper 75 % limit, as stats.c plans */

const char *decide_state_name(enum decide_state s)
{
	static const char *const names[] = { "open", "changed", "same", "holds", "violated" };

	return names[s];
}

void decide_item_init(struct decide_item *it)
{
	const double *b = it->base, *t = it->test;
	size_t nb = it->nb, nt = it->nt;
	enum expect_op op = it->op;
	double bound = it->bound;

	memset(it, 0, sizeof(*it));
	it->base = b;
	it->test = t;
	it->nb = nb;
	it->nt = nt;
	it->op = op;
	it->bound = bound;
	it->p_a = it->p_b = INFINITY;
	it->est = it->lo = it->hi = it->level = it->more_rounds = NAN;
}

static int log_moments(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i]))
			return -1;
		s += log(x[i]);
	}
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		q += (log(x[i]) - *mean) * (log(x[i]) - *mean);
	*var = q / (double)(n - 1);
	return 0;
}

/* Welch on the logs: d = mean log test - mean log base. */
static const char *look_at(const struct decide_item *it, struct decide_look *l)
{
	double mb, mt, vb, vt, ab, at;

	memset(l, 0, sizeof(*l));
	if (it->nb < 2 || it->nt < 2)
		return "fewer than 2 boots a side";
	if (log_moments(it->base, it->nb, &mb, &vb) < 0 || log_moments(it->test, it->nt, &mt, &vt) < 0)
		return "values not all positive";
	ab = vb / (double)it->nb;
	at = vt / (double)it->nt;
	l->d = mt - mb;
	l->se = sqrt(ab + at);
	if (ab + at > 0)
		l->df = (ab + at) * (ab + at) /
			(ab * ab / (double)(it->nb - 1) + at * at / (double)(it->nt - 1));
	else
		l->df = (double)(it->nb + it->nt - 2);
	/* no noise at all (a knob's value): any difference is sure, and an
	 * equality inside the band too */
	if (l->se < 1e-12)
		l->se = 1e-12;
	l->ok = 1;
	return NULL;
}

/* P(T > t), T ~ t(df) */
static double upper(double t, double df)
{
	return gsl_cdf_tdist_Q(t, df);
}

/* The interval of exp(d) - 1 at two-sided level 1 - a. */
static void interval(struct decide_item *it, const struct decide_look *l, double a)
{
	double half = gsl_cdf_tdist_Qinv(a / 2, l->df) * l->se;

	it->est = expm1(l->d);
	it->lo = expm1(l->d - half);
	it->hi = expm1(l->d + half);
	it->level = 1 - a;
}

/* How many rows Benjamini-Hochberg selects at alpha: the largest k with
 * p_(k) <= k alpha / m, i.e. the rows whose adjusted q is within alpha. */
static size_t bh_count(const double *p, size_t n, double alpha)
{
	double *q = xcalloc(n + 1, sizeof(*q));
	size_t r = 0;

	stats_bh(p, n, q);
	for (size_t i = 0; i < n; i++)
		r += q[i] <= alpha;
	free(q);
	return r;
}

/*
 * Rounds more until a one-sided test would reach the boundary at `dist`
 * from the estimate with 80 % power.  Its level is `a_look` over the
 * looks a run with those rounds would take (the current look and the
 * rounds more, at least the looks planned): more rounds cost level.
 */
static double rounds_for(const struct decide_item *it, const struct decide_look *l, double dist,
			 double a_look, unsigned look, const struct decide_params *p)
{
	double nb = (double)it->nb, nt = (double)it->nt, have = fmin(nb, nt);
	double dfp = nb + nt - 2, s2, need = 0, more = 0;
	unsigned per = p->per_round ? p->per_round : 1;

	if (!(dist > 0))
		return INFINITY;
	/* per-boot variance of the logs, pooled back from the standard error */
	s2 = l->se * l->se / (1 / nb + 1 / nt);
	s2 = s2 * dfp / gsl_cdf_chisq_Pinv(1 - VAR_CONF, dfp);
	for (int iter = 0; iter < 6; iter++) {
		double looks = fmax(p->looks, look + more);

		need = 2 * s2 * pow((gsl_cdf_ugaussian_Qinv(a_look / looks) + POWER_Z) / dist, 2);
		if (need > 1e7)
			return INFINITY;
		more = need <= have ? 1 : ceil((need - have) / per);
	}
	return more;
}

void decide_rows(struct decide_item *rows, size_t n, unsigned look, const struct decide_params *p)
{
	double hb = log1p(p->effect), lb = log1p(-p->effect), L = p->looks ? p->looks : 1;
	double *pa = xcalloc(n + 1, sizeof(*pa)), *pb = xcalloc(n + 1, sizeof(*pb));
	size_t ra, rb;

	for (size_t i = 0; i < n; i++) {
		struct decide_item *it = &rows[i];
		struct decide_look *l = &it->last;

		it->why = look_at(it, l);
		if (l->ok) {
			double pc = 2 * upper(fabs(l->d) / l->se, l->df);
			double ps = fmax(upper((l->d - lb) / l->se, l->df), upper((hb - l->d) / l->se, l->df));

			if (fmin(1, pc * L) < it->p_a) {
				it->p_a = fmin(1, pc * L);
				it->at_a = *l;
			}
			if (fmin(1, ps * L) < it->p_b) {
				it->p_b = fmin(1, ps * L);
				it->at_b = *l;
			}
		}
		/* rows without data stay in the family: leaving them out would
		 * make the others' levels easier */
		pa[i] = isfinite(it->p_a) ? it->p_a : 1;
		pb[i] = isfinite(it->p_b) ? it->p_b : 1;
	}
	ra = bh_count(pa, n, p->alpha);
	rb = bh_count(pb, n, p->alpha);
	for (size_t i = 0; i < n; i++) {
		struct decide_item *it = &rows[i];
		int same = rb && pb[i] <= p->alpha * (double)rb / (double)n;
		int changed = ra && pa[i] <= p->alpha * (double)ra / (double)n;

		if (it->state != DECIDE_OPEN)
			continue;
		if (same) {
			it->state = DECIDE_SAME;
			interval(it, &it->at_b, 2 * p->alpha * (double)rb / ((double)n * L));
		} else if (changed) {
			it->state = DECIDE_CHANGED;
			interval(it, &it->at_a, p->alpha * (double)ra / ((double)n * L));
		}
		if (it->state != DECIDE_OPEN) {
			it->decided_at = look;
			it->more_rounds = 0;
			continue;
		}
		if (!it->last.ok) {
			it->more_rounds = NAN;
			continue;
		}
		{
			const struct decide_look *l = &it->last;
			double a = p->alpha / (double)n;
			double ad = fabs(l->d), rc, rs;

			interval(it, l, a / L);
			rc = rounds_for(it, l, ad, a / 2, look, p);
			rs = ad < hb ? rounds_for(it, l, fmin(hb - l->d, l->d - lb), a, look, p) : INFINITY;
			it->more_rounds = fmin(rc, rs);
		}
	}
	free(pa);
	free(pb);
}

void decide_checks(struct decide_item *checks, size_t n, unsigned look, const struct decide_params *p)
{
	double L = p->looks ? p->looks : 1, k = L * (double)(n ? n : 1);

	for (size_t i = 0; i < n; i++) {
		struct decide_item *it = &checks[i];
		struct decide_look *l = &it->last;
		double b = log1p(it->bound), lb = log1p(-fabs(it->bound)), hold, viol, dist;

		if (it->state != DECIDE_OPEN)
			continue;
		it->why = look_at(it, l);
		if (!l->ok) {
			it->more_rounds = NAN;
			continue;
		}
		switch (it->op) {
		case EXPECT_LE:
			hold = upper((b - l->d) / l->se, l->df);
			viol = upper((l->d - b) / l->se, l->df);
			break;
		case EXPECT_GE:
			hold = upper((l->d - b) / l->se, l->df);
			viol = upper((b - l->d) / l->se, l->df);
			break;
		default:
			hold = fmax(upper((l->d - lb) / l->se, l->df), upper((b - l->d) / l->se, l->df));
			viol = 2 * fmin(upper((lb - l->d) / l->se, l->df), upper((l->d - b) / l->se, l->df));
			break;
		}
		if (fmin(1, hold * k) < it->p_a) {
			it->p_a = fmin(1, hold * k);
			it->at_a = *l;
		}
		if (fmin(1, viol * k) < it->p_b) {
			it->p_b = fmin(1, viol * k);
			it->at_b = *l;
		}
		/* one-sided at alpha / k: the two-sided interval at 1 - 2 alpha / k */
		if (it->p_a <= p->alpha) {
			it->state = DECIDE_HOLDS;
			interval(it, &it->at_a, 2 * p->alpha / k);
		} else if (it->p_b <= p->alpha) {
			it->state = DECIDE_VIOLATED;
			interval(it, &it->at_b, 2 * p->alpha / k);
		}
		if (it->state != DECIDE_OPEN) {
			it->decided_at = look;
			it->more_rounds = 0;
			continue;
		}
		interval(it, l, 2 * p->alpha / k);
		if (it->op == EXPECT_EQ)
			dist = l->d > lb && l->d < b ? fmin(b - l->d, l->d - lb) : fmin(fabs(l->d - b), fabs(l->d - lb));
		else
			dist = fabs(l->d - b);
		it->more_rounds = rounds_for(it, l, dist, p->alpha / (double)(n ? n : 1), look, p);
	}
}

int decide_parse_duration(const char *s, unsigned *out, struct strbuf *err)
{
	static const char units[] = "hms";
	static const double mult[] = { 3600, 60, 1 };
	const char *p = s;
	double total = 0;
	int prev = -1;	/* h, m, s in this order, each at most once */

	if (!*p)
		goto bad;
	while (*p) {
		const char *u;
		double v = 0;
		int digits = 0;

		for (; isdigit((unsigned char)*p); p++)
			if (++digits > 7)
				goto bad;
			else
				v = v * 10 + (*p - '0');
		if (!digits || !*p || !(u = strchr(units, *p)) || (int)(u - units) <= prev)
			goto bad;
		prev = (int)(u - units);
		total += v * mult[prev];
		p++;
	}
	if (total < 1 || total > 7 * 86400)
		goto bad;
	*out = (unsigned)total;
	return 0;
bad:
	strbuf_addf(err, "bad duration '%.40s' (such as 90s, 30m, 1h or 1h30m; 1 s to 7 days)", s);
	return -1;
}

int decide_parse_effect(const char *s, double *out, struct strbuf *err)
{
	char *end;
	double v;

	if (!isdigit((unsigned char)*s))
		goto bad;
	v = strtod(s, &end);
	for (const char *q = s; q < end; q++)
		if (!isdigit((unsigned char)*q) && *q != '.')
			goto bad;
	if (end == s || strcmp(end, "%") || !(v > 0) || v >= 50)
		goto bad;
	*out = v / 100;
	return 0;
bad:
	strbuf_addf(err, "bad effect '%.40s' (a percentage above 0 and below 50, such as 2%%)", s);
	return -1;
}

void decide_format_duration(char *buf, size_t size, double seconds)
{
	long s = seconds > 0 ? lround(seconds) : 0;

	if (s >= 3600)
		snprintf(buf, size, "%ldh%02ldm", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, size, "%lds", s);
}
