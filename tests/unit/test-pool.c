/* test-pool.c - pooling several runs of one kernel into one side of a
 * comparison (lab ab, lab compare RUN+RUN), the SMT-off expected view and
 * runs with scheduler features. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/compare.h"
#include "topo/topo.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run in memory: run.json fields and one case with an "elapsed" metric,
 * a migrations counter and a verdict. */
static void mk_run(struct cmp_run *r, const char *name, const char *kernel, const char *smt,
		   const char *verdict, const char *values, double migrations)
{
	struct strbuf err = STRBUF_INIT;
	char *rj = xasprintf("{\"kernel\": \"%s\", \"spec\": \"1s2c\", \"spec_resolved\": \"1s2c1t\", "
			     "\"suite\": \"ab-tiny\", \"smt\": \"%s\"}", kernel, smt);
	char *cj = xasprintf("{\"cases\": [{\"case\": \"smoke-exec\", \"workload\": \"exec\", "
			     "\"verdict\": \"%s\", \"reason\": \"%s\", "
			     "\"metrics\": {\"elapsed\": {\"unit\": \"s\", \"better\": \"lower\", "
			     "\"statistic\": \"amean\", \"values\": [%s]}}, "
			     "\"tasks\": {\"nr_migrations\": %g}}, "
			     "{\"case\": \"other\", \"verdict\": \"SKIP\", \"reason\": \"one node\"}]}",
			     verdict, strcmp(verdict, "PASS") ? "it broke" : "", values, migrations);

	memset(r, 0, sizeof(*r));
	assert_int_equal(cmp_run_json_parse(r, rj, strlen(rj), &err), 0);
	assert_int_equal(cmp_cases_parse(r, cj, strlen(cj), &err), 0);
	r->name = xstrdup(name);
	r->dir = xasprintf("/r/%s", name);
	free(rj);
	free(cj);
	strbuf_release(&err);
}

static const struct cmp_case *case_of(const struct cmp_run *r, const char *id)
{
	for (size_t i = 0; i < r->nr_cases; i++)
		if (!strcmp(r->cases[i].id, id))
			return &r->cases[i];
	fail_msg("no case %s", id);
	return NULL;
}

static void test_pool_values(void **state)
{
	struct cmp_run runs[3], p = { 0 };
	struct strbuf err = STRBUF_INIT;
	const struct cmp_case *c;

	(void)state;
	mk_run(&runs[0], "a1", "6.1.0", "on", "PASS", "1.0, 2.0", 10);
	mk_run(&runs[1], "a2", "6.1.0", "on", "PASS", "3.0", 20);
	mk_run(&runs[2], "a3", "6.1.0", "on", "PASS", "4.0, 5.0", 60);
	assert_int_equal(cmp_run_pool(&p, runs, 3, &err), 0);
	assert_int_equal(p.nr_pooled, 3);
	assert_string_equal(p.name, "a1 + a2 + a3");
	assert_string_equal(p.label, "6.1.0");
	c = case_of(&p, "smoke-exec");
	assert_string_equal(c->verdict, "PASS");
	assert_int_equal(c->nr_metrics, 1);
	/* every boot's values are samples, in boot order */
	assert_int_equal(c->metrics[0].n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_true(c->metrics[0].values[i] == (double)(i + 1));
	assert_int_equal(c->metrics[0].higher_better, 0);
	/* counters: the mean per run */
	assert_int_equal(c->nr_counters, 1);
	assert_string_equal(c->counters[0].name, "migrations/run");
	assert_true(fabs(c->counters[0].value - 30) < 1e-9);
	assert_string_equal(case_of(&p, "other")->verdict, "SKIP");
	cmp_run_release(&p);
	for (int i = 0; i < 3; i++)
		cmp_run_release(&runs[i]);
	strbuf_release(&err);
}

static void test_pool_failed_boot(void **state)
{
	struct cmp_run runs[2], p = { 0 };
	struct strbuf err = STRBUF_INIT;
	const struct cmp_case *c;

	(void)state;
	mk_run(&runs[0], "a1", "6.1.0", "on", "PASS", "1.0", 1);
	mk_run(&runs[1], "a2", "6.1.0", "on", "CRASH", "", 1);
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), 0);
	c = case_of(&p, "smoke-exec");
	/* one crashed boot makes the pooled case a crash, naming the run */
	assert_string_equal(c->verdict, "CRASH");
	assert_non_null(strstr(c->reason, "a2"));
	cmp_run_release(&p);
	for (int i = 0; i < 2; i++)
		cmp_run_release(&runs[i]);
	strbuf_release(&err);
}

static void pool_refused(const char *k2, const char *smt2, const char *why)
{
	struct cmp_run runs[2], p = { 0 };
	struct strbuf err = STRBUF_INIT;

	mk_run(&runs[0], "a1", "6.1.0", "on", "PASS", "1.0", 1);
	mk_run(&runs[1], "a2", k2, smt2, "PASS", "1.0", 1);
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), -1);
	if (!strstr(err.buf, why))
		fail_msg("'%s' does not say '%s'", err.buf, why);
	assert_null(strchr(err.buf, '\n'));
	cmp_run_release(&p);
	for (int i = 0; i < 2; i++)
		cmp_run_release(&runs[i]);
	strbuf_release(&err);
}

static void test_pool_refused(void **state)
{
	struct cmp_run p = { 0 };
	struct strbuf err = STRBUF_INIT;

	(void)state;
	pool_refused("6.2.0", "on", "different kernels");
	pool_refused("6.1.0", "off", "SMT on (a1) and SMT off (a2)");
	assert_int_equal(cmp_run_pool(&p, NULL, 0, &err), -1);
	strbuf_release(&err);
}

/* lab compare pools runs of one guest arch only; run.json without "arch"
 * (older runs) is x86_64. */
static void test_pool_arch(void **state)
{
	static const char *const rj[2] = {
		"{\"kernel\": \"6.1.0\", \"spec\": \"1s2c\", \"smt\": \"none\"}",
		"{\"kernel\": \"6.1.0\", \"spec\": \"1s2c\", \"smt\": \"none\", \"arch\": \"arm64\"}",
	};
	static const char cj[] = "{\"cases\": [{\"case\": \"x\", \"verdict\": \"PASS\"}]}";
	struct cmp_run runs[2], p = { 0 };
	struct strbuf err = STRBUF_INIT;

	(void)state;
	for (int i = 0; i < 2; i++) {
		memset(&runs[i], 0, sizeof(runs[i]));
		assert_int_equal(cmp_run_json_parse(&runs[i], rj[i], strlen(rj[i]), &err), 0);
		assert_int_equal(cmp_cases_parse(&runs[i], cj, strlen(cj), &err), 0);
		runs[i].name = xasprintf("r%d", i);
	}
	assert_string_equal(runs[0].arch, "x86_64");
	assert_string_equal(runs[1].arch, "arm64");
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), -1);
	assert_string_equal(err.buf, "cannot pool runs of different arches: r0 ran x86_64, r1 ran arm64");
	cmp_run_release(&p);
	for (int i = 0; i < 2; i++)
		cmp_run_release(&runs[i]);
	strbuf_release(&err);
}

/* lab run --sched-feat: the features name the column of an unlabelled
 * run, and runs with other features are never pooled into it. */
static void test_sched_feat_runs(void **state)
{
	static const char with[] = "{\"kernel\": \"6.1.0\", \"sched_feat\": [\"NO_WA_IDLE\", "
				   "\"NO_SIS_UTIL\"]}";
	static const char labelled[] = "{\"kernel\": \"6.1.0\", \"label\": \"tip-x\", "
				       "\"sched_feat\": [\"NO_WA_IDLE\"]}";
	static const char odd[] = "{\"kernel\": \"6.1.0\", \"sched_feat\": \"NO_WA_IDLE\"}";
	struct cmp_run r = { 0 }, runs[2], p = { 0 };
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(cmp_run_json_parse(&r, with, strlen(with), &err), 0);
	assert_string_equal(r.sched_feat, "NO_WA_IDLE,NO_SIS_UTIL");
	assert_string_equal(r.label, "6.1.0-NO_WA_IDLE,NO_SIS_UTIL");
	cmp_run_release(&r);
	assert_int_equal(cmp_run_json_parse(&r, labelled, strlen(labelled), &err), 0);
	assert_string_equal(r.label, "tip-x");
	cmp_run_release(&r);
	/* not an array: no features, the release alone */
	assert_int_equal(cmp_run_json_parse(&r, odd, strlen(odd), &err), 0);
	assert_string_equal(r.sched_feat, "");
	assert_string_equal(r.label, "6.1.0");
	cmp_run_release(&r);

	mk_run(&runs[0], "a1", "6.1.0", "on", "PASS", "1.0", 1);
	mk_run(&runs[1], "a2", "6.1.0", "on", "PASS", "1.0", 1);
	free(runs[1].sched_feat);
	runs[1].sched_feat = xstrdup("NO_WA_IDLE");
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), -1);
	assert_string_equal(err.buf, "cannot pool runs with scheduler features 'default' (a1) and "
			    "'NO_WA_IDLE' (a2)");
	cmp_run_release(&p);
	free(runs[0].sched_feat);
	runs[0].sched_feat = xstrdup("NO_WA_IDLE");
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), 0);
	assert_string_equal(p.sched_feat, "NO_WA_IDLE");
	cmp_run_release(&p);
	for (int i = 0; i < 2; i++)
		cmp_run_release(&runs[i]);
	strbuf_release(&err);
}

/* lab run --sched-knob, --preempt, --smt off: what a run booted with names
 * the column of an unlabelled run, and other knobs are never pooled in. */
static void test_sched_knob_runs(void **state)
{
	static const char knobs[] = "{\"kernel\": \"6.12.1\", \"sched_knob\": {\"base_slice_ns\": 3000000}, "
				    "\"preempt\": \"full\"}";
	static const char all[] = "{\"kernel\": \"6.12.1\", \"smt\": \"off\", \"sched_feat\": [\"NO_WA_IDLE\"], "
				  "\"preempt\": \"lazy\"}";
	static const char odd[] = "{\"kernel\": \"6.12.1\", \"sched_knob\": {\"base_slice_ns\": \"x\"}, "
				  "\"preempt\": 3}";
	struct cmp_run r = { 0 }, runs[2], p = { 0 };
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(cmp_run_json_parse(&r, knobs, strlen(knobs), &err), 0);
	assert_string_equal(r.sched_knob, "base_slice_ns=3000000,preempt=full");
	assert_string_equal(r.label, "6.12.1-base_slice_ns=3000000,preempt=full");
	cmp_run_release(&r);
	assert_int_equal(cmp_run_json_parse(&r, all, strlen(all), &err), 0);
	assert_string_equal(r.label, "6.12.1-smt-off-NO_WA_IDLE-preempt=lazy");
	cmp_run_release(&r);
	assert_int_equal(cmp_run_json_parse(&r, odd, strlen(odd), &err), 0);
	assert_string_equal(r.sched_knob, "");
	assert_string_equal(r.label, "6.12.1");
	cmp_run_release(&r);

	mk_run(&runs[0], "a1", "6.12.1", "on", "PASS", "1.0", 1);
	mk_run(&runs[1], "a2", "6.12.1", "on", "PASS", "1.0", 1);
	free(runs[1].sched_knob);
	runs[1].sched_knob = xstrdup("preempt=full");
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), -1);
	assert_string_equal(err.buf, "cannot pool runs with scheduler knobs 'default' (a1) and "
			    "'preempt=full' (a2)");
	cmp_run_release(&p);
	free(runs[0].sched_knob);
	runs[0].sched_knob = xstrdup("preempt=full");
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), 0);
	assert_string_equal(p.sched_knob, "preempt=full");
	cmp_run_release(&p);
	for (int i = 0; i < 2; i++)
		cmp_run_release(&runs[i]);
	strbuf_release(&err);
}

/* Virtual-time runs (lab run --clock virtual) are never pooled or compared
 * with wall-clock ones; a run.json without "clock" ran on the wall clock. */
static void test_clock_refused(void **state)
{
	static const char virt[] = "{\"kernel\": \"6.1.0\", \"clock\": \"virtual\", "
				   "\"icount_shift\": 2}";
	static const char odd[] = "{\"kernel\": \"6.1.0\", \"clock\": 3}";
	struct cmp_run runs[3], r = { 0 }, p = { 0 };
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(cmp_run_json_parse(&r, virt, strlen(virt), &err), 0);
	assert_string_equal(r.clock, "virtual");
	cmp_run_release(&r);
	assert_int_equal(cmp_run_json_parse(&r, odd, strlen(odd), &err), 0);
	assert_string_equal(r.clock, "wall");
	cmp_run_release(&r);

	mk_run(&runs[0], "w1", "6.1.0", "on", "PASS", "1.0", 1);
	mk_run(&runs[1], "v1", "6.1.0", "on", "PASS", "1.0", 1);
	mk_run(&runs[2], "v2", "6.1.0", "on", "PASS", "1.0", 1);
	assert_string_equal(runs[0].clock, "wall");
	for (int i = 1; i < 3; i++) {
		free(runs[i].clock);
		runs[i].clock = xstrdup("virtual");
	}
	assert_int_equal(cmp_run_pool(&p, runs, 2, &err), -1);
	assert_string_equal(err.buf, "cannot compare or pool runs on different clocks: w1 ran in "
			    "wall time, v1 in virtual time (repeat one with --clock wall)");
	cmp_run_release(&p);
	strbuf_reset(&err);
	assert_int_equal(cmp_runs_check(runs, 3, &err), -1);
	assert_non_null(strstr(err.buf, "different clocks"));
	strbuf_reset(&err);
	/* two virtual runs pool, and the pooled side keeps the clock */
	assert_int_equal(cmp_run_pool(&p, runs + 1, 2, &err), 0);
	assert_string_equal(p.clock, "virtual");
	cmp_run_release(&p);
	/* ... unless their QEMUs hand out instructions differently */
	assert_int_equal(cmp_run_json_parse(&r, "{\"qemu\": \"QEMU emulator version 10.0.2 (Debian "
					    "1:10.0.2+ds-2+deb13u1~bpo12+1)\"}", 79, &err), 0);
	assert_string_equal(r.qemu_series, "10.0");
	cmp_run_release(&r);
	free(runs[1].qemu_series);
	runs[1].qemu_series = xstrdup("7.2");
	free(runs[2].qemu_series);
	runs[2].qemu_series = xstrdup("10.0");
	assert_int_equal(cmp_run_pool(&p, runs + 1, 2, &err), -1);
	assert_string_equal(err.buf, "cannot compare or pool virtual-time runs of different QEMUs: v1 "
			    "ran on QEMU 7.2, v2 on 10.0 (LAB_VIRTUAL_QEMU, docs/tcg.md)");
	cmp_run_release(&p);
	strbuf_reset(&err);
	/* a run from before run.json named its QEMU pools with either */
	free(runs[1].qemu_series);
	runs[1].qemu_series = xstrdup("");
	assert_int_equal(cmp_run_pool(&p, runs + 1, 2, &err), 0);
	cmp_run_release(&p);
	for (int i = 0; i < 3; i++)
		cmp_run_release(&runs[i]);
	strbuf_release(&err);
}

/* A pooled side compares like a run: same values on both sides, no change. */
static void test_pool_compare(void **state)
{
	struct cmp_run a[2], b[2], sides[2] = { { 0 }, { 0 } };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct comparison c;

	(void)state;
	mk_run(&a[0], "a1", "6.1.0", "on", "PASS", "1.0, 1.1, 0.9", 1);
	mk_run(&a[1], "a2", "6.1.0", "on", "PASS", "1.05, 0.95", 1);
	mk_run(&b[0], "b1", "6.2.0", "on", "PASS", "1.0, 1.1, 0.9", 1);
	mk_run(&b[1], "b2", "6.2.0", "on", "PASS", "1.05, 0.95", 1);
	assert_int_equal(cmp_run_pool(&sides[0], a, 2, &err), 0);
	assert_int_equal(cmp_run_pool(&sides[1], b, 2, &err), 0);
	assert_int_equal(cmp_runs_check(sides, 2, &err), 0);
	comparison_build(&c, sides, 2);
	assert_int_equal(c.count[CMP_IMPROVED] + c.count[CMP_REGRESSED], 0);
	comparison_text(&c, 0, &out);
	assert_non_null(strstr(out.buf, "2 sides (4 runs pooled)"));
	assert_non_null(strstr(out.buf, "a1 + a2"));
	comparison_release(&c);
	strbuf_release(&out);
	strbuf_release(&err);
	for (int i = 0; i < 2; i++) {
		cmp_run_release(&a[i]);
		cmp_run_release(&b[i]);
		cmp_run_release(&sides[i]);
	}
}

static const char *cpu_field(struct json_object *view, size_t i, const char *key)
{
	struct json_object *cpus, *cpu, *v;

	assert_true(json_object_object_get_ex(view, "cpu", &cpus));
	cpu = json_object_array_get_idx(cpus, i);
	assert_true(json_object_object_get_ex(cpu, key, &v));
	return key[0] == 'd' ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN)
			     : json_object_get_string(v);
}

/* nosmt: thread 0 of every core online, each its own sibling, no SMT level */
static void test_view_smt_off(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *v, *x, *nodes;
	struct topo t;

	(void)state;
	assert_int_equal(topo_parse("2s4c2t,llc=2", &t, &err), 0);
	v = topo_expected_view_smt(&t, 1);
	assert_true(json_object_object_get_ex(v, "cpus", &x));
	assert_int_equal(json_object_get_int(x), 8);
	assert_true(json_object_object_get_ex(v, "cpu", &x));
	assert_int_equal(json_object_array_length(x), 8);
	assert_string_equal(cpu_field(v, 0, "cpu"), "0");
	assert_string_equal(cpu_field(v, 1, "cpu"), "2");
	assert_string_equal(cpu_field(v, 1, "siblings"), "2");
	assert_string_equal(cpu_field(v, 1, "llc"), "0,2");
	assert_string_equal(cpu_field(v, 4, "cpu"), "8");
	assert_string_equal(cpu_field(v, 4, "llc"), "8,10");
	assert_string_equal(cpu_field(v, 0, "domains"), "[\"MC\",\"DIE\",\"NUMA\"]");
	assert_true(json_object_object_get_ex(v, "nodes", &nodes));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(nodes, 1), "cpus", &x));
	assert_string_equal(json_object_get_string(x), "8,10,12,14");
	json_object_put(v);

	/* with SMT on nothing changes */
	v = topo_expected_view_smt(&t, 0);
	assert_true(json_object_object_get_ex(v, "cpus", &x));
	assert_int_equal(json_object_get_int(x), 16);
	assert_string_equal(cpu_field(v, 1, "siblings"), "0-1");
	assert_string_equal(cpu_field(v, 0, "domains"), "[\"SMT\",\"MC\",\"DIE\",\"NUMA\"]");
	json_object_put(v);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_values),
		cmocka_unit_test(test_pool_failed_boot),
		cmocka_unit_test(test_pool_refused),
		cmocka_unit_test(test_pool_arch),
		cmocka_unit_test(test_sched_feat_runs),
		cmocka_unit_test(test_sched_knob_runs),
		cmocka_unit_test(test_clock_refused),
		cmocka_unit_test(test_pool_compare),
		cmocka_unit_test(test_view_smt_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
