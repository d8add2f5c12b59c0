/* seqtest.c - the sequential decision of a bisection step (Wald's SPRT on the
 * candidate mean between the endpoints) and the endpoints' own test. */
#include "bisect/seqtest.h"
#include "report/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

const char *seq_decision_name(enum seq_decision d)
{
	switch (d) {
	case SEQ_GOOD: return "good";
	case SEQ_BAD: return "bad";
	default: return "undecided";
	}
}

static int all_positive(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return 0;
	return 1;
}

/* Mean and sum of squared deviations of x, on the log scale when asked. */
static void moments(const double *x, size_t n, int logs, double *mean, double *ss)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += logs ? log(x[i]) : x[i];
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < n; i++) {
		double d = (logs ? log(x[i]) : x[i]) - *mean;

		q += d * d;
	}
	*ss = q;
}

/* a relative to b: a ratio on the log scale, a difference otherwise */
static double relative(double a, double b, int logs)
{
	return logs ? exp(a - b) : a - b;
}

/* One-sided p of a t statistic with df degrees of freedom (upper tail). */
static double upper_p(double t, double df)
{
	if (isinf(t))
		return t > 0 ? 0 : 1;
	return gsl_cdf_tdist_Q(t, df);
}

int seq_decide(const double *good, size_t ng, const double *bad, size_t nb, const double *cand,
	       size_t nc, const struct seq_params *p, struct seq_result *out)
{
	double mg, mb, mc, ssg, ssb, ssc, s2, df, delta, dir, se_g, se_b, floor;
	unsigned looks;
	int logs;

	*out = (struct seq_result){ SEQ_UNDECIDED, NAN, NAN, NAN, NAN, NAN, NAN, 0, nc };
	looks = p->max_runs >= p->min_runs ? p->max_runs - p->min_runs + 1 : 1;
	out->level = p->alpha / looks;
	if (ng < 2 || nb < 2 || nc < 1)
		return -1;
	logs = all_positive(good, ng) && all_positive(bad, nb) && all_positive(cand, nc);
	out->log_scale = logs;
	moments(good, ng, logs, &mg, &ssg);
	moments(bad, nb, logs, &mb, &ssb);
	moments(cand, nc, logs, &mc, &ssc);
	delta = mb - mg;
	if (!(fabs(delta) > 0))
		return -1;
	dir = delta > 0 ? 1 : -1;
	out->vs_good = relative(mc, mg, logs);
	out->vs_bad = relative(mc, mb, logs);
	out->position = (mc - mg) / delta;
	/* one variance for the three kernels (logs: one CV), pooled */
	df = (double)(ng + nb + nc) - 3;
	s2 = (ssg + ssb + ssc) / df;
	/* a metric without noise (a knob's value) gets a tiny one, so a
	 * difference is infinitely significant and an equality is not */
	floor = 1e-24 * (mg * mg + mb * mb) + 1e-300;
	if (s2 < floor)
		s2 = floor;
	se_g = sqrt(s2 * (1.0 / (double)nc + 1.0 / (double)ng));
	se_b = sqrt(s2 * (1.0 / (double)nc + 1.0 / (double)nb));
	/* "like good" is refuted when the candidate lies beyond good towards
	 * bad; "like bad" when it lies beyond bad towards good */
	out->p_good = upper_p(dir * (mc - mg) / se_g, df);
	out->p_bad = upper_p(dir * (mb - mc) / se_b, df);
	if (nc < p->min_runs)
		return 0;
	if (out->p_good < out->level && !(out->p_bad < out->level))
		out->decision = SEQ_BAD;
	else if (out->p_bad < out->level && !(out->p_good < out->level))
		out->decision = SEQ_GOOD;
	return 0;
}

enum seq_endpoints seq_endpoints_check(const double *good, size_t ng, const double *bad, size_t nb,
				       int higher_better, double alpha, unsigned looks, double *p_out,
				       double *ratio_out)
{
	int logs = all_positive(good, ng) && all_positive(bad, nb);
	double *lg, *lb, mg, mb, ssg, ssb, p;
	struct stats_test t;
	int worse;

	*p_out = NAN;
	*ratio_out = NAN;
	if (ng < 2 || nb < 2)
		return SEQ_ENDS_SAME;
	moments(good, ng, logs, &mg, &ssg);
	moments(bad, nb, logs, &mb, &ssb);
	*ratio_out = logs ? exp(mb - mg) : (mg != 0 ? (mb - mg) / fabs(mg) + 1 : NAN);
	if (ssg == 0 && ssb == 0) {
		/* no noise at all: any difference is real */
		p = mg == mb ? 1 : 0;
	} else {
		lg = malloc(ng * sizeof(*lg));
		lb = malloc(nb * sizeof(*lb));
		if (!lg || !lb) {
			free(lg);
			free(lb);
			return SEQ_ENDS_SAME;
		}
		for (size_t i = 0; i < ng; i++)
			lg[i] = logs ? log(good[i]) : good[i];
		for (size_t i = 0; i < nb; i++)
			lb[i] = logs ? log(bad[i]) : bad[i];
		p = stats_welch(lg, ng, lb, nb, &t) == 0 ? t.p : NAN;
		free(lg);
		free(lb);
	}
	*p_out = p;
	if (!(p < alpha / (looks ? looks : 1)))
		return SEQ_ENDS_SAME;
	if (higher_better == SEQ_UNDIRECTED)
		return SEQ_ENDS_DIFFERENT;
	worse = higher_better ? mb < mg : mb > mg;
	return worse ? SEQ_ENDS_DIFFERENT : SEQ_ENDS_REVERSED;
}
