/* test-decide.c - lab ab --until-decided's rule on synthetic boots: what
 * decides how soon, what runs to the budget, BH across rows, the gates,
 * and the strict parsers of --budget, --effect and --expect. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/decide.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAXB 400

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

/* A table of rows, each a case whose test side is base * (1 + effect). */
struct sim {
	double base[16][MAXB], test[16][MAXB];
	struct decide_item rows[16];
	size_t n;
	unsigned rounds;
};

static void sim_init(struct sim *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		s->rows[i].base = s->base[i];
		s->rows[i].test = s->test[i];
		decide_item_init(&s->rows[i]);
	}
}

/* Rounds of ABBA (2 boots a side each) until every row is decided or
 * max rounds were taken; returns the rows still open. */
static size_t sim_run(struct sim *s, struct source *r, const double *effect, const double *cv,
		      unsigned max_rounds, double alpha, double band)
{
	const struct decide_params p = { alpha, band, max_rounds, 2 };
	size_t open = s->n;

	for (unsigned round = 1; round <= max_rounds && open; round++) {
		for (size_t i = 0; i < s->n; i++) {
			struct decide_item *it = &s->rows[i];

			for (int k = 0; k < 2; k++) {
				s->base[i][it->nb++] = 10 * exp(cv[i] * normal(r));
				s->test[i][it->nt++] = 10 * (1 + effect[i]) * exp(cv[i] * normal(r));
			}
		}
		decide_rows(s->rows, s->n, round, &p);
		s->rounds = round;
		open = 0;
		for (size_t i = 0; i < s->n; i++)
			open += s->rows[i].state == DECIDE_OPEN;
	}
	return open;
}

static void test_large_effect(void **state)
{
	static struct sim s;
	struct source r = { 0x1234567u };
	const double eff[] = { 0.10 }, cv[] = { 0.01 };

	(void)state;
	sim_init(&s, 1);
	assert_int_equal(sim_run(&s, &r, eff, cv, 20, 0.05, 0.02), 0);
	assert_int_equal(s.rows[0].state, DECIDE_CHANGED);
	assert_true(s.rounds <= 2);
	assert_true(s.rows[0].lo > 0 && s.rows[0].lo < 0.10 && s.rows[0].hi > 0.10);
	assert_true(fabs(s.rows[0].est - 0.10) < 0.02);
	assert_true(s.rows[0].level < 1 && s.rows[0].level >= 1 - 0.05 / 20);
}

static void test_null_tight(void **state)
{
	static struct sim s;
	struct source r = { 0xabcdefu };
	const double eff[] = { 0 }, cv[] = { 0.003 };

	(void)state;
	sim_init(&s, 1);
	assert_int_equal(sim_run(&s, &r, eff, cv, 20, 0.05, 0.02), 0);
	assert_int_equal(s.rows[0].state, DECIDE_SAME);
	assert_true(s.rounds <= 3);
	assert_true(s.rows[0].lo > -0.02 && s.rows[0].hi < 0.02);
	/* a wider noise needs more rounds for the same answer */
	{
		static struct sim w;
		const double cv2[] = { 0.01 };

		sim_init(&w, 1);
		assert_int_equal(sim_run(&w, &r, eff, cv2, 20, 0.05, 0.02), 0);
		assert_int_equal(w.rows[0].state, DECIDE_SAME);
		assert_true(w.rounds > s.rounds);
	}
}

static void test_noisy_to_budget(void **state)
{
	static struct sim s;
	struct source r = { 0x5eed };
	const double eff[] = { 0.015 }, cv[] = { 0.08 };

	(void)state;
	sim_init(&s, 1);
	assert_int_equal(sim_run(&s, &r, eff, cv, 4, 0.05, 0.02), 1);
	assert_int_equal(s.rows[0].state, DECIDE_OPEN);
	assert_int_equal(s.rounds, 4);
	/* the estimate: finite, more than one round, and an interval that
	 * holds both 0 and the band's edge */
	assert_true(isfinite(s.rows[0].more_rounds) && s.rows[0].more_rounds > 1);
	assert_true(s.rows[0].lo < 0 && s.rows[0].hi > 0.02);
	/* following it decides most of the time (80 % power): a 4 % change
	 * under 5 % noise, open after 3 rounds, run again with the rounds advised */
	{
		const double eff2[] = { 0.04 }, cv2[] = { 0.05 };
		unsigned decided = 0, tried = 0;

		for (int rep = 0; rep < 40; rep++) {
			static struct sim t;
			unsigned more;

			sim_init(&t, 1);
			if (!sim_run(&t, &r, eff2, cv2, 3, 0.05, 0.02))
				continue;
			more = (unsigned)t.rows[0].more_rounds;
			if (!isfinite(t.rows[0].more_rounds) || more + 3 > MAXB / 2)
				continue;
			sim_init(&t, 1);
			tried++;
			decided += sim_run(&t, &r, eff2, cv2, 3 + more, 0.05, 0.02) == 0;
		}
		printf("following the advice decided %u of %u\n", decided, tried);
		assert_true(tried >= 20 && decided >= tried * 7 / 10);
	}
	/* too few boots: no estimate, and a reason */
	{
		static struct sim u;

		sim_init(&u, 1);
		decide_rows(u.rows, 1, 1, &(struct decide_params){ 0.05, 0.02, 4, 2 });
		assert_int_equal(u.rows[0].state, DECIDE_OPEN);
		assert_non_null(u.rows[0].why);
		assert_true(isnan(u.rows[0].more_rounds));
	}
}

/* All-null tables: the share of tables with a false "changed" (the FDR
 * when every row is null) stays at alpha over every look. */
static void test_bh_false_flags(void **state)
{
	static struct sim s;
	struct source r = { 42 };
	double eff[8] = { 0 }, cv[8];
	unsigned tables = 300, flagged = 0, same = 0;

	(void)state;
	for (int i = 0; i < 8; i++)
		cv[i] = 0.01;
	for (unsigned t = 0; t < tables; t++) {
		int any = 0;

		sim_init(&s, 8);
		sim_run(&s, &r, eff, cv, 10, 0.05, 0.02);
		for (int i = 0; i < 8; i++) {
			any |= s.rows[i].state == DECIDE_CHANGED;
			same += s.rows[i].state == DECIDE_SAME;
		}
		flagged += any;
	}
	printf("all-null tables with a false change: %u of %u; rows the same: %u of %u\n", flagged,
	       tables, same, tables * 8);
	assert_true(flagged <= tables * 0.05);
	assert_true(same > tables * 8 / 2);
}

/* BH across rows: among null companions a row needs more evidence than
 * alone; among strong changes it needs no more (the step-up). */
static void test_bh_across_rows(void **state)
{
	const double b[] = { 100, 103, 98, 101, 99, 102 }, t[] = { 104, 106, 102, 105, 103, 104 };
	const double nb[] = { 100, 130, 80, 110, 95, 120 }, nt[] = { 101, 125, 85, 108, 97, 118 };
	const double sb[] = { 100, 100.5, 99.5, 100 }, st[] = { 150, 151, 149, 150 };
	const struct decide_params p = { 0.05, 0.02, 1, 2 };
	struct decide_item rows[10];

	(void)state;
	memset(rows, 0, sizeof(rows));
	rows[0] = (struct decide_item){ .base = b, .test = t, .nb = 6, .nt = 6 };
	decide_item_init(&rows[0]);
	decide_rows(rows, 1, 1, &p);
	assert_int_equal(rows[0].state, DECIDE_CHANGED);
	assert_true(rows[0].p_a > 0.05 / 10);	/* Bonferroni over 10 would not */
	/* with nine noisy null rows: open */
	for (int i = 0; i < 10; i++) {
		rows[i] = i ? (struct decide_item){ .base = nb, .test = nt, .nb = 6, .nt = 6 } :
			      (struct decide_item){ .base = b, .test = t, .nb = 6, .nt = 6 };
		decide_item_init(&rows[i]);
	}
	decide_rows(rows, 10, 1, &p);
	assert_int_equal(rows[0].state, DECIDE_OPEN);
	for (int i = 1; i < 10; i++)
		assert_int_equal(rows[i].state, DECIDE_OPEN);
	/* with nine strong changes: decided as alone */
	for (int i = 0; i < 10; i++) {
		rows[i] = i ? (struct decide_item){ .base = sb, .test = st, .nb = 4, .nt = 4 } :
			      (struct decide_item){ .base = b, .test = t, .nb = 6, .nt = 6 };
		decide_item_init(&rows[i]);
	}
	decide_rows(rows, 10, 1, &p);
	for (int i = 0; i < 10; i++)
		assert_int_equal(rows[i].state, DECIDE_CHANGED);
	/* its interval is then at the FCR level 1 - 10 x 0.05 / 10 */
	assert_true(fabs(rows[0].level - 0.95) < 1e-9);
	assert_true(rows[0].lo > 0);
}

static void test_checks(void **state)
{
	const double b[] = { 100, 100.4, 99.6, 100.2 }, slower[] = { 105, 105.3, 104.8, 105.1 };
	const double same[] = { 100.1, 99.8, 100.3, 99.9 }, faster[] = { 95, 95.2, 94.9, 95.1 };
	const struct decide_params p = { 0.05, 0.02, 1, 2 };
	struct decide_item c[4];
	const struct {
		const double *t;
		enum expect_op op;
		double bound;
		enum decide_state want;
	} cases[] = {
		{ slower, EXPECT_LE, 0.01, DECIDE_VIOLATED },
		{ same, EXPECT_LE, 0.01, DECIDE_HOLDS },
		{ faster, EXPECT_LE, -0.01, DECIDE_HOLDS },
		{ faster, EXPECT_GE, -0.01, DECIDE_VIOLATED },
		{ slower, EXPECT_GE, 0.03, DECIDE_HOLDS },
		{ same, EXPECT_EQ, 0.02, DECIDE_HOLDS },
		{ slower, EXPECT_EQ, 0.02, DECIDE_VIOLATED },
		{ faster, EXPECT_EQ, 0.02, DECIDE_VIOLATED },
		{ slower, EXPECT_LE, 0.05, DECIDE_OPEN },	/* right at the bound */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c[0] = (struct decide_item){ .base = b, .test = cases[i].t, .nb = 4, .nt = 4,
					     .op = cases[i].op, .bound = cases[i].bound };
		decide_item_init(&c[0]);
		decide_checks(c, 1, 1, &p);
		if (c[0].state != cases[i].want)
			fail_msg("check %zu: %s, not %s", i, decide_state_name(c[0].state),
				 decide_state_name(cases[i].want));
		if (cases[i].want == DECIDE_OPEN)
			assert_true(c[0].more_rounds >= 1);
	}
	/* Bonferroni over checks and looks: the same data, 40 looks planned
	 * and 4 checks, is not enough for the borderline one */
	{
		const double near[] = { 101.6, 102.2, 101.3, 101.9 };
		const struct decide_params many = { 0.05, 0.02, 40, 2 };

		for (int i = 0; i < 4; i++) {
			c[i] = (struct decide_item){ .base = b, .test = near, .nb = 4, .nt = 4,
						     .op = EXPECT_LE, .bound = 0.03 };
			decide_item_init(&c[i]);
		}
		decide_checks(c, 1, 1, &p);
		assert_int_equal(c[0].state, DECIDE_HOLDS);
		decide_checks(c + 1, 3, 1, &many);
		assert_int_equal(c[1].state, DECIDE_OPEN);
	}
}

static void test_parse(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct expect e;
	unsigned sec;
	double f;
	const char *bad_dur[] = { "", "30", "m", "30x", "1m1h", "1h1h", "0s", "8d", "99999999s", "-5m",
				  "30 m", "1.5h", "30m ", "200h" };
	const char *bad_eff[] = { "", "2", "2 %", "0%", "-1%", "50%", "1e1%", "x%", "2%%", ".5%", "nan%" };
	const char *bad_exp[] = { "smoke:time <= 1", "smoke:time < 1%", "smoke time <= 1%", ":time <= 1%",
				  "smoke: <= 1%", "smoke:time <= 100%", "smoke:time == -1%",
				  "smoke:time == +1%", "smoke:time == 0%", "smoke:time <= +-1%",
				  "smoke:time <= 1%x", "smoke:time <= 1e0%", "smoke:ti me <= 1%", "" };

	(void)state;
	assert_int_equal(decide_parse_duration("30m", &sec, &err), 0);
	assert_int_equal(sec, 1800);
	assert_int_equal(decide_parse_duration("1h", &sec, &err), 0);
	assert_int_equal(sec, 3600);
	assert_int_equal(decide_parse_duration("90s", &sec, &err), 0);
	assert_int_equal(sec, 90);
	assert_int_equal(decide_parse_duration("1h30m", &sec, &err), 0);
	assert_int_equal(sec, 5400);
	for (size_t i = 0; i < sizeof(bad_dur) / sizeof(*bad_dur); i++) {
		strbuf_reset(&err);
		if (decide_parse_duration(bad_dur[i], &sec, &err) == 0)
			fail_msg("duration '%s' accepted", bad_dur[i]);
		assert_non_null(strstr(err.buf, "bad duration"));
		assert_null(strchr(err.buf, '\n'));
	}
	assert_int_equal(decide_parse_effect("2%", &f, &err), 0);
	assert_true(fabs(f - 0.02) < 1e-12);
	assert_int_equal(decide_parse_effect("0.5%", &f, &err), 0);
	for (size_t i = 0; i < sizeof(bad_eff) / sizeof(*bad_eff); i++) {
		strbuf_reset(&err);
		if (decide_parse_effect(bad_eff[i], &f, &err) == 0)
			fail_msg("effect '%s' accepted", bad_eff[i]);
	}
	assert_int_equal(expect_parse("smoke-hackbench:time <= +1%", NULL, &e, &err), 0);
	assert_string_equal(e.case_id, "smoke-hackbench");
	assert_string_equal(e.metric, "time");
	assert_int_equal(e.op, EXPECT_LE);
	assert_true(fabs(e.bound - 0.01) < 1e-12);
	assert_string_equal(e.text, "smoke-hackbench:time <= +1%");
	assert_int_equal(expect_parse("smoke-hackbench/mode=thread:time>=-2.5%", NULL, &e, &err), 0);
	assert_string_equal(e.case_id, "smoke-hackbench/mode=thread");
	assert_int_equal(e.op, EXPECT_GE);
	assert_true(fabs(e.bound + 0.025) < 1e-12);
	assert_int_equal(expect_parse("time == +-2%", "smoke-exec", &e, &err), 0);
	assert_string_equal(e.text, "smoke-exec:time == +-2%");
	assert_int_equal(expect_parse("time == 2%", "smoke-exec", &e, &err), 0);
	assert_int_equal(e.op, EXPECT_EQ);
	for (size_t i = 0; i < sizeof(bad_exp) / sizeof(*bad_exp); i++) {
		strbuf_reset(&err);
		if (expect_parse(bad_exp[i], NULL, &e, &err) == 0)
			fail_msg("expectation '%s' accepted", bad_exp[i]);
		assert_non_null(strstr(err.buf, "bad expectation"));
	}
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_large_effect),
		cmocka_unit_test(test_null_tight),
		cmocka_unit_test(test_noisy_to_budget),
		cmocka_unit_test(test_bh_false_flags),
		cmocka_unit_test(test_bh_across_rows),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
