/* test-seqtest.c - the bisection step's sequential decision: obvious cases,
 * and its error rate measured by simulating 1,000 steps per setting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bisect/seqtest.h"

#include <math.h>
#include <stdio.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A synthetic metric source: xorshift64* and Box-Muller, seeded per test. */
struct source {
	uint64_t s;
};

static double uniform(struct source *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return ((r->s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(struct source *r)
{
	double u = uniform(r), v = uniform(r);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* One boot's value of a kernel whose metric is base * exp(shift), log-normal noise. */
static double boot(struct source *r, double shift, double sigma)
{
	return 100 * exp(shift + sigma * normal(r));
}

static void test_obvious(void **state)
{
	const double good[] = { 10.0, 10.1, 9.9 }, bad[] = { 12.0, 12.1, 11.9 };
	const double like_bad[] = { 12.05, 11.95 }, like_good[] = { 10.02, 9.97 };
	const struct seq_params p = SEQ_PARAMS_DEFAULT;
	struct seq_result r;

	(void)state;
	assert_int_equal(seq_decide(good, 3, bad, 3, like_bad, 2, &p, &r), 0);
	assert_int_equal(r.decision, SEQ_BAD);
	assert_true(r.p_good < r.level && r.p_bad > 0.2);
	assert_true(fabs(r.level - 0.05 / 9) < 1e-12);
	assert_true(fabs(r.vs_bad - 1) < 0.01 && r.vs_good > 1.15);
	assert_true(r.log_scale);
	assert_int_equal(seq_decide(good, 3, bad, 3, like_good, 2, &p, &r), 0);
	assert_int_equal(r.decision, SEQ_GOOD);
	assert_true(fabs(r.position) < 0.05);
	/* one boot is below min_runs: no decision however clear */
	assert_int_equal(seq_decide(good, 3, bad, 3, like_bad, 1, &p, &r), 0);
	assert_int_equal(r.decision, SEQ_UNDECIDED);
	/* halfway between: nothing to decide on */
	{
		const double mid[] = { 10.954451, 10.954451, 10.954451 };

		seq_decide(good, 3, bad, 3, mid, 3, &p, &r);
		assert_int_equal(r.decision, SEQ_UNDECIDED);
	}
	/* too few endpoint boots, or endpoints alike */
	assert_int_equal(seq_decide(good, 1, bad, 3, like_bad, 2, &p, &r), -1);
	assert_int_equal(seq_decide(good, 3, good, 3, like_bad, 2, &p, &r), -1);
}

/* A knob's value has no noise, and may be 0 (no logs). */
static void test_noiseless(void **state)
{
	const double good[] = { 500000, 500000 }, bad[] = { 0, 0 }, c[] = { 0, 0 };
	const struct seq_params p = SEQ_PARAMS_DEFAULT;
	struct seq_result r;
	double pv, ratio;

	(void)state;
	assert_int_equal(seq_decide(good, 2, bad, 2, c, 2, &p, &r), 0);
	assert_int_equal(r.decision, SEQ_BAD);
	assert_false(r.log_scale);
	assert_int_equal(seq_endpoints_check(good, 2, bad, 2, 0, 0.05, 10, &pv, &ratio),
			 SEQ_ENDS_REVERSED);
	assert_int_equal(seq_endpoints_check(good, 2, bad, 2, 1, 0.05, 10, &pv, &ratio),
			 SEQ_ENDS_DIFFERENT);
	assert_int_equal(seq_endpoints_check(good, 2, good, 2, 1, 0.05, 10, &pv, &ratio),
			 SEQ_ENDS_SAME);
}

static void test_endpoints(void **state)
{
	const double good[] = { 10.0, 10.2, 9.8, 10.1 }, slower[] = { 11.0, 11.2, 10.9, 11.1 };
	const double noisy[] = { 10.5, 9.1, 11.2, 9.9 };
	double p, ratio;

	(void)state;
	/* lower is better (a time): slower is a regression */
	assert_int_equal(seq_endpoints_check(good, 4, slower, 4, 0, 0.05, 1, &p, &ratio),
			 SEQ_ENDS_DIFFERENT);
	assert_true(p < 0.001 && ratio > 1.08 && ratio < 1.12);
	/* higher is better (a rate): the same numbers are an improvement */
	assert_int_equal(seq_endpoints_check(good, 4, slower, 4, 1, 0.05, 1, &p, &ratio),
			 SEQ_ENDS_REVERSED);
	assert_int_equal(seq_endpoints_check(good, 4, noisy, 4, 0, 0.05, 1, &p, &ratio), SEQ_ENDS_SAME);
	/* more looks, a stricter level: p ~ 1e-5 passes 20 looks, not a million */
	assert_int_equal(seq_endpoints_check(good, 4, slower, 4, 0, 0.05, 20, &p, &ratio),
			 SEQ_ENDS_DIFFERENT);
	assert_int_equal(seq_endpoints_check(good, 2, slower, 1, 0, 0.05, 1, &p, &ratio), SEQ_ENDS_SAME);
	/* without a direction (a decision row) a change either way is bad:
	 * the bisection asks "changed or not", never "reversed" */
	assert_int_equal(seq_endpoints_check(good, 4, slower, 4, SEQ_UNDIRECTED, 0.05, 1, &p, &ratio),
			 SEQ_ENDS_DIFFERENT);
	assert_int_equal(seq_endpoints_check(slower, 4, good, 4, SEQ_UNDIRECTED, 0.05, 1, &p, &ratio),
			 SEQ_ENDS_DIFFERENT);
	assert_int_equal(seq_endpoints_check(good, 4, noisy, 4, SEQ_UNDIRECTED, 0.05, 1, &p, &ratio),
			 SEQ_ENDS_SAME);
}

struct sim {
	double effect, sigma, alpha;
	unsigned start_runs, max_runs;
	/* out */
	unsigned steps, wrong, undecided, no_bisection;
	double runs;
};
#define SIM(effect, sigma, alpha, start, max) { effect, sigma, alpha, start, max, 0, 0, 0, 0, 0 }

/*
 * Steps as lab bisect takes them.  The endpoints are measured first, a good
 * and a bad boot per round, from start_runs each until their test says they
 * differ (at most max_runs rounds; else there is nothing to bisect, and the
 * simulated step does not count).  Then each round boots the candidate and
 * one reference (good and bad in turn) until the decision or max_runs
 * candidate boots.  Half of the candidates are truly like good, half like bad.
 * The bound is on all steps: a rule that may skip cannot bound the share of
 * wrong ones among the decided (with an effect near the noise, few steps
 * decide and a fifth of those may be wrong); it is printed as well.
 */
static void simulate(struct sim *s, uint64_t seed)
{
	struct source r = { seed };
	struct seq_params p = { s->alpha, 2, s->max_runs };

	s->steps = s->wrong = s->undecided = s->no_bisection = 0;
	s->runs = 0;
	while (s->steps < 1000) {
		double good[128], bad[128], cand[64], pv, ratio;
		size_t ng = 0, nb = 0, nc = 0;
		int truly_bad = s->steps & 1;
		struct seq_result res = { 0 };
		enum seq_endpoints ends = SEQ_ENDS_SAME;

		for (unsigned i = 0; i < s->max_runs && ends == SEQ_ENDS_SAME; i++) {
			good[ng++] = boot(&r, 0, s->sigma);
			bad[nb++] = boot(&r, s->effect, s->sigma);
			if (ng >= s->start_runs)
				ends = seq_endpoints_check(good, ng, bad, nb, 0, s->alpha,
							   s->max_runs - s->start_runs + 1, &pv, &ratio);
		}
		if (ends != SEQ_ENDS_DIFFERENT) {
			s->no_bisection++;
			continue;
		}
		/* the boots that chose to bisect are biased (the winner's curse):
		 * the steps judge by reference boots of their own, as lab bisect does */
		ng = nb = 0;
		while (nc < s->max_runs) {
			cand[nc++] = boot(&r, truly_bad ? s->effect : 0, s->sigma);
			if (nc & 1)
				good[ng++] = boot(&r, 0, s->sigma);
			else
				bad[nb++] = boot(&r, s->effect, s->sigma);
			seq_decide(good, ng, bad, nb, cand, nc, &p, &res);
			if (res.decision != SEQ_UNDECIDED)
				break;
		}
		s->steps++;
		s->runs += (double)nc;
		if (res.decision == SEQ_UNDECIDED)
			s->undecided++;
		else if ((res.decision == SEQ_BAD) != truly_bad)
			s->wrong++;
	}
	s->runs /= s->steps;
}

static void test_error_rate(void **state)
{
	/* effect (log ratio bad/good), noise sigma, alpha, endpoint boots, budget */
	struct sim sims[] = {
		SIM(0.08, 0.05, 0.05, 3, 10),	/* 8 % slower, CV 5 %: the case */
		SIM(0.08, 0.02, 0.05, 3, 10),	/* a quiet metric */
		SIM(0.03, 0.05, 0.05, 3, 10),	/* an effect below the noise: many skips */
		SIM(0.05, 0.05, 0.01, 3, 20),	/* a stricter alpha */
		SIM(0.08, 0.05, 0.05, 2, 6),	/* the fewest endpoint boots, a small budget */
		SIM(0.20, 0.10, 0.10, 3, 10),	/* very noisy, a lax alpha */
	};

	(void)state;
	for (size_t i = 0; i < N(sims); i++) {
		struct sim *s = &sims[i];
		unsigned decided;

		simulate(s, 0x9e3779b97f4a7c15ull + i);

		simulate(s, 0x9e3779b97f4a7c15ull + i);
		decided = s->steps - s->undecided;
		print_message("effect %.2f sigma %.2f alpha %.2f: %u steps, %u wrong (%.1f %% of the "
			      "decided), %u undecided, %.1f candidate boots a step, %u endpoint pairs "
			      "not different\n", s->effect, s->sigma, s->alpha, s->steps, s->wrong,
			      decided ? 100.0 * s->wrong / decided : 0.0, s->undecided, s->runs,
			      s->no_bisection);
		if (s->wrong > s->alpha * s->steps)
			fail_msg("setting %zu: %u wrong decisions in %u steps exceed alpha %.2f",
				 i, s->wrong, s->steps, s->alpha);
	}
	/* the clear cases decide most steps */
	assert_true(sims[0].undecided < 400);
	assert_true(sims[1].undecided < 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_obvious),
		cmocka_unit_test(test_noiseless),
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_error_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
