/* test-plan.c - unit tests of common/plan.c, the compiled plan both sides
 * read: exact text form, write/parse round trips, and malformed plans. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan.h"
#include "lib/util.h"

static void emit_sb(void *ctx, const char *s, size_t len)
{
	strbuf_add(ctx, s, len);
}

static void small_case(struct plan_case *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->id, "hackbench/groups=4");
	strcpy(c->scenario, "hackbench");
	strcpy(c->source, "scenarios/hb.ini:2");
	strcpy(c->workload, "hackbench");
	strcpy(c->params[0].key, "groups");
	strcpy(c->params[0].value, "4");
	strcpy(c->params[0].where, "scenarios/hb.ini:9");
	strcpy(c->params[1].key, "mode");
	strcpy(c->params[1].value, "process");
	strcpy(c->params[1].where, "scenarios/hb.ini:10");
	c->nr_params = 2;
	c->runs = 5;
	c->warmup = 1;
	c->deadline_s = 300;
	c->counters = PLAN_CNT_SCHEDSTAT | PLAN_CNT_TASKS;
	strcpy(c->metrics[0].name, "time");
	c->metrics[0].higher_is_better = 0;
	strcpy(c->metrics[0].statistic, "amean");
	strcpy(c->metrics[0].unit, "s");
	strcpy(c->metrics[1].name, "migrations");
	c->metrics[1].higher_is_better = 0;
	strcpy(c->metrics[1].statistic, "median");
	c->nr_metrics = 2;
}

/* Every field at its limit: longest strings, most params and metrics. */
static void full_case(struct plan_case *c, unsigned seed)
{
	memset(c, 0, sizeof(*c));
	memset(c->id, 'a' + seed % 26, sizeof(c->id) - 1);
	memset(c->scenario, 'b', sizeof(c->scenario) - 1);
	memset(c->source, 'c', sizeof(c->source) - 1);
	memset(c->workload, 'd', sizeof(c->workload) - 1);
	for (unsigned i = 0; i < PLAN_MAX_PARAMS; i++) {
		struct plan_param *p = &c->params[i];

		memset(p->key, 'k', sizeof(p->key) - 1);
		snprintf(p->key, sizeof(p->key), "%02u", i); /* keys differ */
		p->key[2] = 'k';
		memset(p->value, 'v', sizeof(p->value) - 1);
		memset(p->where, 'w', sizeof(p->where) - 1);
		p->value[0] = ' ';  /* spaces are plain characters */
		p->value[1] = '\xc3'; /* so is UTF-8 */
		p->value[2] = '\xa9';
	}
	c->nr_params = PLAN_MAX_PARAMS;
	for (unsigned i = 0; i < PLAN_MAX_METRICS; i++) {
		struct plan_metric *m = &c->metrics[i];

		memset(m->name, 'm', sizeof(m->name) - 1);
		snprintf(m->name, sizeof(m->name), "%02u", i);
		m->name[2] = 'm';
		m->higher_is_better = i & 1;
		strcpy(m->statistic, i % 3 == 0 ? "amean" : i % 3 == 1 ? "hmean" : "median");
		memset(m->unit, 'u', sizeof(m->unit) - 1);
	}
	c->nr_metrics = PLAN_MAX_METRICS;
	c->runs = 1000;
	c->warmup = 100;
	c->deadline_s = 86400;
	c->counters = seed % 8;
	for (unsigned i = 0; i < PLAN_MAX_FAULTS; i++) {
		struct plan_fault *f = &c->faults[i];

		memset(f->name, 'f', sizeof(f->name) - 1);
		f->name[0] = (char)('a' + i);
		memset(f->kind, 'k', sizeof(f->kind) - 1);
		memset(f->target, '7', sizeof(f->target) - 1);
		memset(f->where, 'w', sizeof(f->where) - 1);
		f->side = (int)((i + seed) % 2);
		f->start_ms = PLAN_MAX_MS;
		f->period_ms = PLAN_MAX_MS;
		f->count = 1000000;
		f->hold_ms = PLAN_MAX_MS - 1;
		for (unsigned k = 0; k < PLAN_MAX_OPTS; k++) {
			struct plan_opt *o = &f->opts[k];

			memset(o->key, 'o', sizeof(o->key) - 1);
			o->key[0] = (char)('a' + k);
			memset(o->value, ' ', sizeof(o->value) - 1);
			o->value[0] = 'v';
			o->line = 1000000000;
		}
		f->nr_opts = PLAN_MAX_OPTS;
	}
	c->nr_faults = PLAN_MAX_FAULTS;
	for (unsigned i = 0; i < PLAN_MAX_INVARIANTS; i++) {
		struct plan_invariant *v = &c->invariants[i];

		memset(v->name, 'i', sizeof(v->name) - 1);
		v->name[0] = (char)('a' + i);
		memset(v->kind, 'k', sizeof(v->kind) - 1);
		memset(v->where, 'w', sizeof(v->where) - 1);
		for (unsigned k = 0; k < PLAN_MAX_OPTS; k++) {
			snprintf(v->opts[k].key, sizeof(v->opts[k].key), "key%u", k);
			memset(v->opts[k].value, 'x', sizeof(v->opts[k].value) - 1);
			v->opts[k].line = k + 1;
		}
		v->nr_opts = PLAN_MAX_OPTS;
	}
	c->nr_invariants = PLAN_MAX_INVARIANTS;
	for (unsigned i = 0; i < PLAN_MAX_PROFILE; i++) {
		memset(c->profile.funcs[i], 'x', PLAN_MAX_SYMBOL - 1);
		c->profile.funcs[i][0] = (char)('a' + i);
		c->profile.funcs[i][1] = '.'; /* static functions: foo.isra.0 */
	}
	c->profile.nr_funcs = PLAN_MAX_PROFILE;
	memset(c->profile.per, 'p', sizeof(c->profile.per) - 1);
	memcpy(c->profile.per, "vmstat:", 7);
	/* a keep budget of 0 (none) is written, and read back as set */
	c->trace_keep_set = 1;
	c->trace_keep_mb = seed % 2 ? 0 : PLAN_MAX_TRACE_KEEP_MB;
	c->trace_run_mb = seed % 2 ? 1 : PLAN_MAX_TRACE_RUN_MB;
}

/* small_case with a fault and an invariant, as the scenario loader makes them */
static void faulty_case(struct plan_case *c)
{
	small_case(c);
	strcpy(c->faults[0].name, "churn");
	strcpy(c->faults[0].kind, "cpu_hotplug");
	strcpy(c->faults[0].target, "random");
	strcpy(c->faults[0].where, "scenarios/hb.ini:20");
	c->faults[0].start_ms = 200;
	c->faults[0].period_ms = 500;
	c->faults[0].hold_ms = 250;
	strcpy(c->faults[0].opts[0].key, "nr");
	strcpy(c->faults[0].opts[0].value, "1");
	c->faults[0].opts[0].line = 22;
	c->faults[0].nr_opts = 1;
	strcpy(c->faults[1].name, "pause");
	strcpy(c->faults[1].kind, "pause");
	strcpy(c->faults[1].target, "default");
	strcpy(c->faults[1].where, "scenarios/hb.ini:30");
	c->faults[1].side = PLAN_SIDE_HOST;
	c->faults[1].count = 1;
	c->nr_faults = 2;
	strcpy(c->invariants[0].name, "aff");
	strcpy(c->invariants[0].kind, "affinity_respected");
	strcpy(c->invariants[0].where, "scenarios/hb.ini:40");
	strcpy(c->invariants[0].opts[0].key, "cpus");
	strcpy(c->invariants[0].opts[0].value, "0-3, 5");
	c->invariants[0].opts[0].line = 41;
	c->invariants[0].nr_opts = 1;
	strcpy(c->invariants[1].name, "work");
	strcpy(c->invariants[1].kind, "no_lost_work");
	strcpy(c->invariants[1].where, "scenarios/hb.ini:43");
	c->nr_invariants = 2;
}

static void test_exact_text(void **state)
{
	static const char want[] =
		"schedlab-plan\t1\n"
		"case\thackbench/groups=4\n"
		"scenario\thackbench\n"
		"source\tscenarios/hb.ini:2\n"
		"workload\thackbench\n"
		"param\tgroups\t4\tscenarios/hb.ini:9\n"
		"param\tmode\tprocess\tscenarios/hb.ini:10\n"
		"runs\t5\n"
		"warmup\t1\n"
		"deadline\t300\n"
		"counters\tschedstat tasks\n"
		"metric\ttime\tlower\tamean\ts\n"
		"metric\tmigrations\tlower\tmedian\t\n"
		"end\n";
	struct strbuf sb = STRBUF_INIT;
	struct plan_case c;
	char err[256];

	(void)state;
	small_case(&c);
	plan_write_header(emit_sb, &sb);
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), 0);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_exact_text_faults(void **state)
{
	static const char want[] =
		"metric\tmigrations\tlower\tmedian\t\n"
		"fault\tchurn\tcpu_hotplug\tguest\tscenarios/hb.ini:20\n"
		"fault_time\t200\t500\t0\t250\n"
		"fault_target\trandom\n"
		"fopt\tnr\t1\t22\n"
		"fault\tpause\tpause\thost\tscenarios/hb.ini:30\n"
		"fault_time\t0\t0\t1\t0\n"
		"fault_target\tdefault\n"
		"invariant\taff\taffinity_respected\tscenarios/hb.ini:40\n"
		"iopt\tcpus\t0-3, 5\t41\n"
		"invariant\twork\tno_lost_work\tscenarios/hb.ini:43\n"
		"end\n";
	struct strbuf sb = STRBUF_INIT;
	struct plan_case c;
	struct plan p;
	char err[256];

	(void)state;
	faulty_case(&c);
	plan_write_header(emit_sb, &sb);
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), 0);
	assert_non_null(strstr(sb.buf, want));
	assert_int_equal(plan_parse(sb.buf, sb.len, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nr_cases, 1);
	assert_memory_equal(&p.cases[0], &c, sizeof(c));
	plan_release(&p);

	/* a tab in an option value cannot be written */
	strcpy(c.invariants[0].opts[0].value, "0\t1");
	strbuf_reset(&sb);
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), -1);
	assert_string_equal(err, "case 'hackbench/groups=4': an option value holds a tab");
	assert_int_equal(sb.len, 0);
	faulty_case(&c);
	strcpy(c.faults[1].target, "1\n");
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), -1);
	assert_string_equal(err, "case 'hackbench/groups=4': a fault target holds a newline");
	strbuf_release(&sb);
}

static void test_ms(void **state)
{
	static const struct { const char *in; unsigned ms; } good[] = {
		{ "0", 0 }, { "5", 5000 }, { "0.25", 250 }, { "1.5", 1500 }, { "0.001", 1 },
		{ "86400", 86400000 }, { "007", 7000 }, { "2.10", 2100 },
	};
	static const char *const bad[] = {
		"", ".5", "5.", "-1", "1e3", "0.0001", "86400.001", "86401", "1,5", " 1", "1 ",
		"99999999999999999999", "5s",
	};
	static const struct { unsigned ms; const char *out; } fmt[] = {
		{ 0, "0" }, { 5000, "5" }, { 250, "0.25" }, { 1500, "1.5" }, { 1, "0.001" },
		{ 86400000, "86400" }, { 2010, "2.01" },
	};
	char buf[32];
	unsigned ms;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		ms = 12345;
		if (plan_parse_ms(good[i].in, PLAN_MAX_MS, &ms))
			fail_msg("'%s' did not parse", good[i].in);
		assert_int_equal(ms, good[i].ms);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ms = 12345;
		if (!plan_parse_ms(bad[i], PLAN_MAX_MS, &ms))
			fail_msg("'%s' parsed as %u", bad[i], ms);
		assert_int_equal(ms, 12345); /* untouched */
	}
	assert_int_equal(plan_parse_ms("2", 1999, &ms), -1);
	assert_int_equal(plan_parse_ms("1.999", 1999, &ms), 0);
	for (size_t i = 0; i < ARRAY_SIZE(fmt); i++) {
		plan_format_ms(fmt[i].ms, buf, sizeof(buf));
		assert_string_equal(buf, fmt[i].out);
		/* and back */
		assert_int_equal(plan_parse_ms(buf, PLAN_MAX_MS, &ms), 0);
		assert_int_equal(ms, fmt[i].ms);
	}
}

static void test_round_trip(void **state)
{
	struct strbuf sb = STRBUF_INIT, again = STRBUF_INIT;
	struct plan_case *in = calloc(9, sizeof(*in));
	struct plan p = { 0 };
	char err[256];

	(void)state;
	small_case(&in[0]);
	for (unsigned i = 1; i < 8; i++)
		full_case(&in[i], i);
	small_case(&in[8]);
	memset(in[8].params, 0, sizeof(in[8].params));
	in[8].nr_params = 0;
	in[8].counters = 0;
	in[8].warmup = 0;
	in[8].runs = 1;
	in[8].deadline_s = 1;

	plan_write_header(emit_sb, &sb);
	for (unsigned i = 0; i < 9; i++)
		assert_int_equal(plan_write_case(&in[i], emit_sb, &sb, err, sizeof(err)), 0);
	if (plan_parse(sb.buf, sb.len, &p, err, sizeof(err)))
		fail_msg("round trip does not parse: %s", err);
	assert_int_equal(p.nr_cases, 9);
	for (unsigned i = 0; i < 9; i++)
		assert_memory_equal(&p.cases[i], &in[i], sizeof(in[i]));
	assert_non_null(strstr(sb.buf, "counters\tnone\n"));
	/* the run's deadline: every case's, added up */
	{
		unsigned total = 0;

		for (unsigned i = 0; i < 9; i++)
			total += in[i].deadline_s;
		assert_int_equal(plan_deadline_s(&p), total);
	}

	/* writing what was parsed gives the same text */
	plan_write_header(emit_sb, &again);
	for (unsigned i = 0; i < p.nr_cases; i++)
		assert_int_equal(plan_write_case(&p.cases[i], emit_sb, &again, err, sizeof(err)), 0);
	assert_string_equal(again.buf, sb.buf);

	/* the last newline may be missing */
	plan_release(&p);
	assert_int_equal(plan_parse(sb.buf, sb.len - 1, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nr_cases, 9);
	plan_release(&p);
	assert_null(p.cases);
	assert_int_equal(p.nr_cases, 0);

	/* a header alone is an empty plan */
	assert_int_equal(plan_parse("schedlab-plan\t1\n", 16, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nr_cases, 0);
	assert_int_equal(plan_deadline_s(&p), 0);
	plan_release(&p);
	free(in);
	strbuf_release(&sb);
	strbuf_release(&again);
}

static void test_many_cases(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct plan p = { 0 };
	struct plan_case c;
	char err[256];

	(void)state;
	small_case(&c);
	plan_write_header(emit_sb, &sb);
	for (unsigned i = 0; i < PLAN_MAX_CASES; i++) {
		snprintf(c.id, sizeof(c.id), "case-%u", i);
		assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), 0);
	}
	assert_int_equal(plan_parse(sb.buf, sb.len, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nr_cases, PLAN_MAX_CASES);
	assert_string_equal(p.cases[PLAN_MAX_CASES - 1].id, "case-4095");
	plan_release(&p);
	plan_write_case(&c, emit_sb, &sb, err, sizeof(err));
	assert_int_equal(plan_parse(sb.buf, sb.len, &p, err, sizeof(err)), -1);
	assert_string_equal(err, "line 53250: more than 4096 cases");
	assert_null(p.cases);
	strbuf_release(&sb);
}

static void test_write_refuses(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct plan_case c;
	char err[256];

	(void)state;
	small_case(&c);
	strcpy(c.params[1].value, "pro\tcess");
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), -1);
	assert_string_equal(err, "case 'hackbench/groups=4': a param value holds a tab");
	assert_int_equal(sb.len, 0); /* nothing half-written */

	small_case(&c);
	strcpy(c.scenario, "hack\nbench");
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), -1);
	assert_string_equal(err, "case 'hackbench/groups=4': scenario holds a newline");

	small_case(&c);
	strcpy(c.metrics[0].unit, "\x1b");
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), -1);
	assert_string_equal(err, "case 'hackbench/groups=4': a metric unit holds a control character");

	small_case(&c);
	memset(c.workload, 'x', sizeof(c.workload));
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), -1);
	assert_string_equal(err, "case 'hackbench/groups=4': workload is not terminated");
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

/* A valid one-case plan with line `line` (1-based, header is 1) replaced
 * by `with` ("" deletes it; may hold several lines). */
static char *edit(unsigned line, const char *with)
{
	static const char *const lines[] = {
		"schedlab-plan\t1", "case\tx", "scenario\tx", "source\tx.ini:1",
		"workload\thackbench", "param\tgroups\t4\tx.ini:5", "runs\t3", "warmup\t0",
		"deadline\t60", "counters\ttasks", "metric\ttime\tlower\tamean\ts", "end",
	};
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < ARRAY_SIZE(lines); i++) {
		if (i + 1 == line) {
			if (*with)
				strbuf_addf(&sb, "%s\n", with);
			continue;
		}
		strbuf_addf(&sb, "%s\n", lines[i]);
	}
	return strbuf_detach(&sb);
}

static void expect_bad_len(const char *text, size_t len, const char *want)
{
	struct plan p = { 0 };
	char err[256];

	if (plan_parse(text, len, &p, err, sizeof(err)) == 0)
		fail_msg("plan parsed, expected '%s'", want);
	if (strcmp(err, want))
		fail_msg("error '%s', expected '%s'", err, want);
	assert_null(p.cases);
	assert_int_equal(p.nr_cases, 0);
}

static void expect_bad(char *text, const char *want)
{
	expect_bad_len(text, strlen(text), want);
	free(text);
}

/* The valid one-case plan with `lines` (a fault or invariant section)
 * inserted before its 'end' (which is then on line 12 + lines). */
static char *with_section(const char *lines)
{
	char *base = edit(12, ""), *t = xasprintf("%s%send\n", base, lines);

	free(base);
	return t;
}

static void test_profile(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct plan_case c;
	struct plan p = { 0 };
	char err[256], *t;

	(void)state;
	small_case(&c);
	strcpy(c.profile.funcs[0], "migrate_misplaced_page");
	strcpy(c.profile.funcs[1], "task_numa_work");
	c.profile.nr_funcs = 2;
	strcpy(c.profile.per, "vmstat:numa_pages_migrated");
	plan_write_header(emit_sb, &sb);
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), 0);
	assert_non_null(strstr(sb.buf, "metric\tmigrations\tlower\tmedian\t\n"
			       "profile\tmigrate_misplaced_page task_numa_work\t"
			       "vmstat:numa_pages_migrated\nend\n"));
	assert_int_equal(plan_parse(sb.buf, sb.len, &p, err, sizeof(err)), 0);
	assert_memory_equal(&p.cases[0], &c, sizeof(c));
	plan_release(&p);

	/* no denominator is "none"; the profile may stand before the metrics */
	c.profile.per[0] = '\0';
	strbuf_reset(&sb);
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), 0);
	assert_non_null(strstr(sb.buf, "\tnone\n"));
	t = with_section("profile\tdo_numa_page\tnone\n");
	assert_int_equal(plan_parse(t, strlen(t), &p, err, sizeof(err)), 0);
	assert_int_equal(p.cases[0].profile.nr_funcs, 1);
	assert_string_equal(p.cases[0].profile.per, "");
	plan_release(&p);
	free(t);

	/* the writer refuses what the reader would */
	strcpy(c.profile.funcs[1], "task numa");
	strbuf_reset(&sb);
	assert_int_equal(plan_write_case(&c, emit_sb, &sb, err, sizeof(err)), -1);
	assert_string_equal(err, "case 'hackbench/groups=4': a bad profile");
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);

	expect_bad(with_section("profile\tf\tnone\nprofile\tg\tnone\n"),
		   "line 13: second 'profile' record in case 'x'");
	expect_bad(with_section("profile\t\tnone\n"), "line 12: empty profile");
	expect_bad(with_section("profile\tf  g\tnone\n"), "line 12: empty profiled function");
	expect_bad(with_section("profile\tf \tnone\n"), "line 12: empty profiled function");
	expect_bad(with_section("profile\tf\tf\n"),
		   "line 12: profile denominator 'f' is not vmstat:NAME or none");
	expect_bad(with_section("profile\tf\tvmstat:\n"),
		   "line 12: profile denominator 'vmstat:' is not vmstat:NAME or none");
	expect_bad(with_section("profile\tf g f\tnone\n"),
		   "line 12: profiled function 'f' listed twice");
	expect_bad(with_section("profile\t1f\tnone\n"), "line 12: bad profiled function '1f'");
	expect_bad(with_section("profile\tf*\tnone\n"), "line 12: bad profiled function 'f*'");
	expect_bad(with_section("profile\ta b c d e f g h i\tnone\n"),
		   "line 12: more than 8 profiled functions");
	expect_bad(with_section("profile\tf\n"), "line 12: 'profile' record has 2 fields, expected 3");
}

static void test_malformed_faults(void **state)
{
	static const char fault[] = "fault\tc\tcpu_hotplug\tguest\tx.ini:9\n"
				    "fault_time\t0\t500\t0\t250\nfault_target\trandom\n";
	struct plan p = { 0 };
	char err[256], *t;

	(void)state;
	t = with_section(fault);
	assert_int_equal(plan_parse(t, strlen(t), &p, err, sizeof(err)), 0);
	assert_int_equal(p.cases[0].nr_faults, 1);
	assert_int_equal(p.cases[0].faults[0].period_ms, 500);
	plan_release(&p);
	free(t);
	/* fault_time and fault_target may come in either order */
	t = with_section("fault\tc\tk\thost\tx.ini:9\nfault_target\t1-3\n"
			 "fault_time\t0\t0\t1\t0\nfopt\tnr\t2\t10\n"
			 "invariant\ti\tspread\tx.ini:12\niopt\tlevel\tnode\t13\n");
	assert_int_equal(plan_parse(t, strlen(t), &p, err, sizeof(err)), 0);
	assert_int_equal(p.cases[0].faults[0].side, PLAN_SIDE_HOST);
	assert_string_equal(p.cases[0].faults[0].opts[0].value, "2");
	assert_string_equal(p.cases[0].invariants[0].opts[0].key, "level");
	assert_int_equal(p.cases[0].invariants[0].opts[0].line, 13);
	plan_release(&p);
	free(t);

	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_target\tr\n"),
		   "line 14: fault 'c' has no 'fault_time' record");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"),
		   "line 14: fault 'c' has no 'fault_target' record");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"
				"invariant\ti\tk\tx.ini:1\n"),
		   "line 14: fault 'c' has no 'fault_target' record");
	expect_bad(with_section("fault\tc\tk\tboth\tx.ini:9\n"),
		   "line 12: fault 'c': side must be 'guest' or 'host'");
	expect_bad(with_section("fault\tc\tk\tguest\n"), "line 12: 'fault' record has 4 fields, expected 5");
	expect_bad(with_section("fault\t\tk\tguest\tx.ini:9\n"), "line 12: empty fault name");
	expect_bad(with_section("fault_time\t0\t0\t1\t0\n"),
		   "line 12: 'fault_time' record outside a fault");
	expect_bad(with_section("fopt\tnr\t1\t3\n"), "line 12: 'fopt' record outside a fault");
	expect_bad(with_section("iopt\tnr\t1\t3\n"), "line 12: 'iopt' record outside an invariant");
	expect_bad(with_section("invariant\ti\tk\tx.ini:1\nfopt\tnr\t1\t3\n"),
		   "line 13: 'fopt' record outside a fault");
	/* another record ends the section: no fopt after it */
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"
				"fault_target\tr\nmetric\tm\thigher\tamean\t\nfopt\tnr\t1\t3\n"),
		   "line 16: 'fopt' record outside a fault");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"
				"fault_time\t0\t0\t1\t0\n"),
		   "line 14: second 'fault_time' record in fault 'c'");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t0\t0\n"),
		   "line 13: fault 'c' repeats but has no period");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t100\t2\t100\n"),
		   "line 13: fault 'c': hold must be shorter than the period");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t86400001\n"),
		   "line 13: fault hold 86400001 is out of range 0..86400000");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t-1\t0\t1\t0\n"),
		   "line 13: fault start is not a number 0..86400000");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"
				"fault_target\tr\nfopt\tnr\t1\t0\n"),
		   "line 15: option line 0 is out of range 1..1000000000");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"
				"fault_target\tr\nfopt\tnr\t1\t3\nfopt\tnr\t2\t4\n"),
		   "line 16: option 'nr' twice in 'c'");
	expect_bad(with_section("fault\tc\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"
				"fault_target\tr\nfault\tc\tk\tguest\tx.ini:9\n"),
		   "line 15: fault 'c' twice in case 'x'");
	expect_bad(with_section("invariant\ti\tk\tx.ini:1\ninvariant\ti\tk\tx.ini:2\n"),
		   "line 13: invariant 'i' twice in case 'x'");
	{
		struct strbuf sb = STRBUF_INIT;

		for (unsigned i = 0; i <= PLAN_MAX_FAULTS; i++)
			strbuf_addf(&sb, "fault\tf%u\tk\tguest\tx.ini:9\nfault_time\t0\t0\t1\t0\n"
				    "fault_target\tr\n", i);
		expect_bad(with_section(sb.buf), "line 30: more than 6 faults in case 'x'");
		strbuf_reset(&sb);
		for (unsigned i = 0; i <= PLAN_MAX_INVARIANTS; i++)
			strbuf_addf(&sb, "invariant\ti%u\tk\tx.ini:1\n", i);
		expect_bad(with_section(sb.buf), "line 18: more than 6 invariants in case 'x'");
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "invariant\ti\tk\tx.ini:1\n");
		for (unsigned i = 0; i <= PLAN_MAX_OPTS; i++)
			strbuf_addf(&sb, "iopt\tk%u\tv\t3\n", i);
		expect_bad(with_section(sb.buf), "line 21: more than 8 options in 'i'");
		strbuf_release(&sb);
	}
}

static void test_malformed(void **state)
{
	char big[600], *t;
	struct plan p = { 0 };
	char err[256];

	(void)state;
	/* the unedited plan parses */
	t = edit(0, "");
	assert_int_equal(plan_parse(t, strlen(t), &p, err, sizeof(err)), 0);
	assert_int_equal(p.cases[0].nr_params, 1);
	plan_release(&p);
	free(t);

	expect_bad_len("", 0, "line 1: empty plan");
	expect_bad(edit(1, "schedlab-plan\t2"), "line 1: plan version '2', this side reads version 1");
	expect_bad(edit(1, "hello"), "line 1: not a schedlab plan (no 'schedlab-plan' header)");
	expect_bad(edit(3, "scenery\tx"), "line 3: unknown record 'scenery'");
	expect_bad(edit(3, "scenario\tx\ty"), "line 3: 'scenario' record has 3 fields, expected 2");
	expect_bad(edit(3, "scenario"), "line 3: 'scenario' record has 1 fields, expected 2");
	expect_bad(edit(3, "scenario\t"), "line 3: empty scenario name");
	expect_bad(edit(3, "a\tb\tc\td\te\tf"), "line 3: more than 5 fields");
	expect_bad(edit(3, ""), "line 11: case 'x' has no 'scenario' record");
	expect_bad(edit(10, ""), "line 11: case 'x' has no 'counters' record");
	expect_bad(edit(12, ""), "line 11: case 'x' has no 'end'");
	expect_bad(edit(2, ""), "line 2: 'scenario' record outside a case");
	expect_bad(edit(12, "end\nend"), "line 13: 'end' record outside a case");
	expect_bad(edit(12, "end\nruns\t3"), "line 13: 'runs' record outside a case");
	expect_bad(edit(12, "end\n"), "line 13: empty line");
	expect_bad(edit(7, "runs\t3\nruns\t4"), "line 8: second 'runs' record in case 'x'");
	expect_bad(edit(8, "case\ty"), "line 8: case 'x' has no 'end' before the next case");
	expect_bad(edit(7, "runs\t0"), "line 7: runs 0 is out of range 1..1000");
	expect_bad(edit(7, "runs\t1001"), "line 7: runs 1001 is out of range 1..1000");
	expect_bad(edit(7, "runs\t-1"), "line 7: runs is not a number 1..1000");
	expect_bad(edit(7, "runs\t+1"), "line 7: runs is not a number 1..1000");
	expect_bad(edit(7, "runs\t1e3"), "line 7: runs is not a number 1..1000");
	expect_bad(edit(7, "runs\t99999999999"), "line 7: runs is not a number 1..1000");
	expect_bad(edit(7, "runs\t4294967297"), "line 7: runs 4294967297 is out of range 1..1000");
	expect_bad(edit(8, "warmup\t101"), "line 8: warmup 101 is out of range 0..100");
	expect_bad(edit(9, "deadline\t0"), "line 9: deadline 0 is out of range 1..86400");
	expect_bad(edit(9, "deadline\t86401"), "line 9: deadline 86401 is out of range 1..86400");
	expect_bad(edit(10, "counters\ttasks tasks"), "line 10: counter 'tasks' listed twice");
	expect_bad(edit(10, "counters\tperf"), "line 10: unknown counter 'perf'");
	expect_bad(edit(10, "counters\ttasks "), "line 10: trailing space in counters");
	expect_bad(edit(10, "counters\t"), "line 10: empty counters");
	expect_bad(edit(10, "counters\tnone tasks"), "line 10: unknown counter 'none'");
	expect_bad(edit(11, "metric\ttime\tup\tamean\ts"),
		   "line 11: metric 'time': direction must be 'higher' or 'lower'");
	expect_bad(edit(11, "metric\ttime\tlower\tmean\ts"),
		   "line 11: metric 'time': statistic must be amean, hmean or median");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\tseconds-and-more"),
		   "line 11: metric unit longer than 15 characters");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\nmetric\ttime\thigher\thmean\t"),
		   "line 12: metric 'time' twice in case 'x'");
	expect_bad(edit(6, "param\tgroups\t4\tx.ini:5\nparam\tgroups\t8\tx.ini:6"),
		   "line 7: param 'groups' twice in case 'x'");
	expect_bad(edit(6, "param\tgroups\t\tx.ini:5"), "line 6: empty param value");
	expect_bad(edit(6, "param\tgroups\t4\t"), "line 6: empty param location");
	expect_bad(edit(6, "param\tgroups\t4\tx.ini:5\r"), "line 6: control character 0x0d");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\npin\tno"),
		   "line 12: bad pin 'no' (yes or strict)");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\npin\tyes\npin\tstrict"),
		   "line 13: second 'pin' record in case 'x'");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\ntrace_run_mb\t0"),
		   "line 12: trace_run_mb 0 is out of range 1..65536");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\ntrace_run_mb\t65537"),
		   "line 12: trace_run_mb 65537 is out of range 1..65536");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\ntrace_run_mb\t2\ntrace_run_mb\t2"),
		   "line 13: second 'trace_run_mb' record in case 'x'");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\ntrace_keep_mb\t65537"),
		   "line 12: trace_keep_mb 65537 is out of range 0..65536");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\ntrace_keep_mb\t-1"),
		   "line 12: trace_keep_mb is not a number 0..65536");
	expect_bad(edit(11, "metric\ttime\tlower\tamean\ts\ntrace_keep_mb"),
		   "line 12: 'trace_keep_mb' record has 1 fields, expected 2");
	expect_bad(edit(6, "param\tgroups\t\x01\tx.ini:5"), "line 6: control character 0x01");

	memset(big, 'k', 6 + 64);
	memcpy(big, "param\t", 6);
	strcpy(big + 70, "\t1\tx.ini:1");
	expect_bad(edit(6, big), "line 6: param key longer than 63 characters");
	memset(big, 'i', 5 + PLAN_MAX_FIELD);
	memcpy(big, "case\t", 5);
	big[5 + PLAN_MAX_FIELD] = '\0';
	expect_bad(edit(2, big), "line 2: case id longer than 255 characters");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	t = xasprintf("schedlab-plan\t1\ncase\t%s%s%s\n", big, big, big);
	expect_bad(t, "line 2: longer than 1024 characters");

	/* a NUL inside the text is a control character, not an end */
	t = edit(0, "");
	t[20] = '\0';
	expect_bad_len(t, strlen(t + 21) + 21, "line 2: control character 0x00");
	free(t);

	/* too many params and metrics */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, "schedlab-plan\t1\ncase\tx\n");
		for (unsigned i = 0; i <= PLAN_MAX_PARAMS; i++)
			strbuf_addf(&sb, "param\tk%u\tv\tw\n", i);
		expect_bad(strbuf_detach(&sb), "line 35: more than 32 params in case 'x'");
		strbuf_addstr(&sb, "schedlab-plan\t1\ncase\tx\n");
		for (unsigned i = 0; i <= PLAN_MAX_METRICS; i++)
			strbuf_addf(&sb, "metric\tm%u\thigher\tamean\t\n", i);
		expect_bad(strbuf_detach(&sb), "line 19: more than 16 metrics in case 'x'");
	}

	/* a short error buffer still holds a terminated prefix */
	t = edit(7, "runs\t0");
	assert_int_equal(plan_parse(t, strlen(t), &p, err, 8), -1);
	assert_string_equal(err, "line 7:");
	assert_int_equal(plan_parse(t, strlen(t), &p, NULL, 0), -1);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_text),
		cmocka_unit_test(test_exact_text_faults),
		cmocka_unit_test(test_ms),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_many_cases),
		cmocka_unit_test(test_write_refuses),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_malformed_faults),
		cmocka_unit_test(test_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
