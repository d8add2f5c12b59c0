/* test-fault.c - the runner's fault kinds without touching the machine:
 * option tables and checks, targets, random CPU picks, /proc task parsing. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../guest/runner/wlutil.h"
#include "../../guest/runner/options.h"
#include "../../guest/runner/fault-tasks.h"
#include "../../guest/runner/fault.h"
#include "../../guest/runner/faults/cgroup_churn.h"
#include "../../guest/runner/faults/sysctl_flip.h"

#include "scenario/scenario.h"
#include "lib/util.h"

/* What the driver would send: kept for the assertions. */
static char last_event[512];
static unsigned nr_events;

void fault_event(struct fault_ctx *fc, const char *action, const char *target, int ok,
		 const char *fmt, ...)
{
	char detail[256] = "";

	if (fmt) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	if (!ok)
		fc->errors++;
	nr_events++;
	snprintf(last_event, sizeof(last_event), "%s %s %s %s", action, target, ok ? "ok" : "error",
		 detail);
}

/* A guest fault of kind with "key=value" options (NULL-ended), from a
 * scenario file "f.ini" whose [fault f] header is on line 10. */
static struct plan_fault make_fault(const char *kind, const char *target, unsigned period_ms,
				    unsigned count, unsigned hold_ms, const char *const *opts)
{
	struct plan_fault pf;

	memset(&pf, 0, sizeof(pf));
	strcpy(pf.name, "f");
	snprintf(pf.kind, sizeof(pf.kind), "%s", kind);
	snprintf(pf.target, sizeof(pf.target), "%s", target);
	strcpy(pf.where, "f.ini:10");
	pf.period_ms = period_ms;
	pf.count = count;
	pf.hold_ms = hold_ms;
	for (unsigned i = 0; opts && opts[i]; i++) {
		const char *eq = strchr(opts[i], '=');

		snprintf(pf.opts[i].key, sizeof(pf.opts[i].key), "%.*s", (int)(eq - opts[i]), opts[i]);
		snprintf(pf.opts[i].value, sizeof(pf.opts[i].value), "%s", eq + 1);
		pf.opts[i].line = 11 + i;
		pf.nr_opts++;
	}
	return pf;
}

static void expect_prepare(const char *kind, const char *target, unsigned hold_ms,
			   const char *const *opts, const char *want)
{
	struct plan_fault pf = make_fault(kind, target, 1000, 0, hold_ms, opts);
	struct fault_ctx fc;
	char err[512] = "";
	int r = fault_prepare(&fc, &pf, err, sizeof(err));

	if (!want) {
		if (r)
			fail_msg("%s: %s", kind, err);
		return;
	}
	if (!r)
		fail_msg("%s prepared, expected '%s'", kind, want);
	if (strcmp(err, want))
		fail_msg("error\n  '%s'\nexpected\n  '%s'", err, want);
}

static void test_registry(void **state)
{
	(void)state;
	assert_true(nr_faults > 0);
	/* the one kind that leaves the system alone says so; a new kind
	 * changes the host unless it says otherwise */
	assert_int_equal(fault_find("affinity_storm")->run_only, 1);
	assert_int_equal(fault_find("cpu_hotplug")->run_only, 0);
	for (size_t i = 0; i < nr_faults; i++) {
		const struct fault_ops *o = faults[i];

		assert_ptr_equal(fault_find(o->name), o);
		assert_non_null(o->description);
		assert_non_null(o->start);
		assert_non_null(o->step);
		assert_non_null(o->undo);
		assert_non_null(o->stop);
		/* a kind without targets picks its object from its options */
		assert_true(o->targets ? (o->targets & FAULT_TARGET_BIT(o->default_target)) != 0 :
			    o->default_target == FAULT_TARGET_NONE);
		for (const struct wl_option *opt = o->options; opt && opt->name; opt++)
			assert_non_null(opt->help);
		/* every kind works with its defaults (rt_hog needs a hold) */
		expect_prepare(o->name, "default", !strcmp(o->name, "rt_hog") ? 500 : 0, NULL,
			       strcmp(o->name, "sysctl_flip") ? NULL :
			       "f.ini:10: [fault f] (sysctl_flip): give exactly one of 'sysctl', "
			       "'debugfs' and 'feature'");
	}
	assert_null(fault_find("cpu-hotplug"));
}

static void test_prepare_errors(void **state)
{
	static const char *const nr0[] = { "nr=0", NULL };
	static const char *const nrx[] = { "nr=1", "colour=red", NULL };
	static const char *const width[] = { "cpus=0-3", "width=5", NULL };
	static const char *const knobs[] = { "knobs=cpu.max cpu.shares", NULL };
	static const char *const knobs2[] = { "knobs=cpu.max,cpu.max", NULL };
	static const char *const both[] = { "sysctl=kernel.numa_balancing", "feature=TTWU_QUEUE", NULL };
	static const char *const dots[] = { "sysctl=kernel..x", "values=1", NULL };
	static const char *const novalues[] = { "sysctl=kernel.numa_balancing", NULL };
	static const char *const featval[] = { "feature=TTWU_QUEUE", "values=1", NULL };
	static const char *const nofeat[] = { "feature=NO_TTWU_QUEUE", NULL };
	static const char *const lower[] = { "feature=ttwu_queue", NULL };
	static const char *const dbg[] = { "debugfs=tracing/trace_on", "values=1", NULL };
	static const char *const dbgok[] = { "debugfs=sched/migration_cost_ns", "values=0 500000", NULL };
	static const char *const ff[] = { "type=fail_function", NULL };
	static const char *const ffbad[] = { "type=fail_function", "functions=a;b", NULL };
	static const char *const slabfn[] = { "functions=should_failslab", NULL };
	static const char *const ffok[] = { "type=fail_function", "functions=x_y, z", NULL };
	static const char *const type[] = { "type=failmem", NULL };
	static const char *const sizefrac[] = { "size=64M", "fraction=10", NULL };
	static const char *const size[] = { "size=64X", NULL };
	static const char *const cpus[] = { "cpus=3-1", NULL };
	char unknown[512];

	(void)state;
	/* the list comes from the registry, in its order */
	snprintf(unknown, sizeof(unknown), "f.ini:10: [fault f]: unknown fault kind 'cpu_hoplug' "
		 "(the runner has ");
	for (size_t i = 0; i < nr_faults; i++)
		snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown), "%s%s",
			 faults[i]->name, i + 1 < nr_faults ? ", " : ")");
	expect_prepare("cpu_hoplug", "default", 0, NULL, unknown);
	expect_prepare("cpu_hotplug", "default", 0, nr0,
		       "f.ini:11: [fault f] (cpu_hotplug): 'nr' must be an integer in 1..1024, not '0'");
	expect_prepare("cpu_hotplug", "default", 0, nrx,
		       "f.ini:12: [fault f] (cpu_hotplug) has no option 'colour'");
	expect_prepare("cpu_hotplug", "workload", 0, NULL,
		       "f.ini:10: [fault f]: cpu_hotplug cannot target workload (its target "
		       "is a CPU list or random)");
	expect_prepare("cpu_hotplug", "1-3", 0, NULL, NULL);
	expect_prepare("affinity_storm", "random", 0, NULL,
		       "f.ini:10: [fault f]: affinity_storm cannot target random (its target "
		       "is workload)");
	expect_prepare("affinity_storm", "default", 0, width,
		       "f.ini:10: [fault f] (affinity_storm): 'width' 5 is more than the 4 CPUs of "
		       "'cpus'");
	expect_prepare("affinity_storm", "default", 0, cpus,
		       "f.ini:11: [fault f] (affinity_storm): 'cpus' must be a CPU list like 0-3,8, "
		       "not '3-1'");
	expect_prepare("cgroup_churn", "default", 0, knobs,
		       "f.ini:10: [fault f] (cgroup_churn): unknown knob 'cpu.shares' (cpu.max, "
		       "cpu.weight, cpuset.cpus, cpuset.mems)");
	expect_prepare("cgroup_churn", "default", 0, knobs2,
		       "f.ini:10: [fault f] (cgroup_churn): knob 'cpu.max' listed twice");
	expect_prepare("rt_hog", "default", 0, NULL,
		       "f.ini:10: [fault f] (rt_hog): needs 'hold': how long each spinner runs (at "
		       "most 60 s)");
	expect_prepare("rt_hog", "default", 60001, NULL,
		       "f.ini:10: [fault f] (rt_hog): 'hold' is at most 60 s for an RT hog");
	expect_prepare("rt_hog", "0,2", 500, NULL, NULL);
	expect_prepare("sysctl_flip", "default", 0, both,
		       "f.ini:10: [fault f] (sysctl_flip): give exactly one of 'sysctl', 'debugfs' "
		       "and 'feature'");
	expect_prepare("sysctl_flip", "default", 0, dots,
		       "f.ini:10: [fault f] (sysctl_flip): bad sysctl 'kernel..x' (a sysctl like "
		       "kernel.numa_balancing, or a path under /sys/kernel/debug/ starting with sched/)");
	expect_prepare("sysctl_flip", "default", 0, novalues,
		       "f.ini:10: [fault f] (sysctl_flip): needs 'values': what to write, in turn "
		       "(e.g. values = 0 1)");
	expect_prepare("sysctl_flip", "default", 0, featval,
		       "f.ini:10: [fault f] (sysctl_flip): a feature flips on and off: leave 'values' "
		       "out");
	expect_prepare("sysctl_flip", "default", 0, nofeat,
		       "f.ini:10: [fault f] (sysctl_flip): name the feature without 'NO_': "
		       "'TTWU_QUEUE'");
	expect_prepare("sysctl_flip", "default", 0, lower,
		       "f.ini:10: [fault f] (sysctl_flip): bad feature name 'ttwu_queue' (upper "
		       "case, as in /sys/kernel/debug/sched/features)");
	expect_prepare("sysctl_flip", "default", 0, dbg,
		       "f.ini:10: [fault f] (sysctl_flip): bad debugfs 'tracing/trace_on' (a sysctl "
		       "like kernel.numa_balancing, or a path under /sys/kernel/debug/ starting with "
		       "sched/)");
	expect_prepare("sysctl_flip", "1", 0, dbgok,
		       "f.ini:10: [fault f]: sysctl_flip cannot target a CPU list (its "
		       "target is none (leave 'target' out))");
	expect_prepare("sysctl_flip", "default", 0, dbgok, NULL);
	expect_prepare("fail_inject", "default", 0, ff,
		       "f.ini:10: [fault f] (fail_inject): fail_function needs 'functions': the "
		       "kernel functions to fail");
	expect_prepare("fail_inject", "default", 0, ffbad,
		       "f.ini:10: [fault f] (fail_inject): bad character ';' in 'functions'");
	expect_prepare("fail_inject", "default", 0, slabfn,
		       "f.ini:10: [fault f] (fail_inject): 'functions' is for type fail_function only");
	expect_prepare("fail_inject", "default", 0, ffok, NULL);
	expect_prepare("fail_inject", "default", 0, type,
		       "f.ini:11: [fault f] (fail_inject): 'type' must be one of "
		       "failslab|fail_page_alloc|fail_function, not 'failmem'");
	expect_prepare("mem_pressure", "default", 0, sizefrac,
		       "f.ini:10: [fault f] (mem_pressure): give 'size' or 'fraction', not both");
	expect_prepare("mem_pressure", "default", 0, size,
		       "f.ini:11: [fault f] (mem_pressure): 'size' must be a size in "
		       "1048576..1099511627776 bytes (e.g. 64K, 256M), not '64X'");
}

static void test_options(void **state)
{
	static const char *const opts[] = { "type=fail_function", "functions=a b", "times=-1",
					    "probability=100", NULL };
	static const char *const pressure[] = { "size=256M", NULL };
	struct plan_fault pf = make_fault("fail_inject", "default", 500, 3, 100, opts);
	struct fault_ctx fc;
	char err[256];
	cpu_set_t set;

	(void)state;
	assert_int_equal(fault_prepare(&fc, &pf, err, sizeof(err)), 0);
	assert_int_equal(fc.target, FAULT_TARGET_WORKLOAD);
	assert_string_equal(wl_str(&fc.args, "type"), "fail_function");
	assert_int_equal(wl_int(&fc.args, "times"), -1);
	assert_int_equal(wl_int(&fc.args, "probability"), 100);
	assert_int_equal(wl_int(&fc.args, "interval"), 1);   /* default */
	assert_int_equal(wl_int(&fc.args, "verbose"), 0);
	assert_true(wl_isset(&fc.args, "functions"));

	pf = make_fault("mem_pressure", "default", 500, 0, 0, pressure);
	assert_int_equal(fault_prepare(&fc, &pf, err, sizeof(err)), 0);
	assert_int_equal(fc.target, FAULT_TARGET_NONE);
	assert_int_equal(wl_int(&fc.args, "size"), 256 << 20);
	assert_false(wl_isset(&fc.args, "fraction"));
	assert_int_equal(wl_int(&fc.args, "node"), 0);

	pf = make_fault("cpu_hotplug", "2-3,7", 500, 0, 0, NULL);
	assert_int_equal(fault_prepare(&fc, &pf, err, sizeof(err)), 0);
	assert_int_equal(fc.target, FAULT_TARGET_CPUS);
	assert_int_equal(CPU_COUNT(&fc.target_cpus), 3);
	assert_true(CPU_ISSET(7, &fc.target_cpus));
	assert_int_equal(wl_int(&fc.args, "nr"), 1);

	pf = make_fault("affinity_storm", "default", 500, 0, 0, NULL);
	assert_int_equal(fault_prepare(&fc, &pf, err, sizeof(err)), 0);
	assert_int_equal(wl_cpus(&fc.args, "cpus", &set), 0); /* unset: the online CPUs */
}

static void test_seconds_option(void **state)
{
	static const struct wl_option table[] = {
		{ "every", WL_SECONDS, 20, 60000, "0.2", NULL, "h" },
		{ "limit", WL_NUMBER, -5, 5, "", NULL, "h" },
		{ "on", WL_BOOL, 0, 0, "no", NULL, "h" },
		{ .name = NULL },
	};
	struct plan_opt opts[2];
	struct wl_args a;
	char err[256];
	unsigned line;

	(void)state;
	memset(opts, 0, sizeof(opts));
	assert_int_equal(wl_args_parse(&a, table, "x", opts, 0, err, sizeof(err), &line), 0);
	assert_int_equal(wl_int(&a, "every"), 200);
	assert_false(wl_isset(&a, "limit"));
	assert_int_equal(wl_int(&a, "on"), 0);
	strcpy(opts[0].key, "every");
	strcpy(opts[0].value, "0.01");
	opts[0].line = 7;
	assert_int_equal(wl_args_parse(&a, table, "x", opts, 1, err, sizeof(err), &line), -1);
	assert_string_equal(err, "x: 'every' must be seconds in 0.02..60, not '0.01'");
	assert_int_equal(line, 7);
	strcpy(opts[0].key, "limit");
	strcpy(opts[0].value, "-4.5");
	strcpy(opts[1].key, "on");
	strcpy(opts[1].value, "yes");
	assert_int_equal(wl_args_parse(&a, table, "x", opts, 2, err, sizeof(err), &line), 0);
	assert_true(wl_number(&a, "limit") == -4.5);
	assert_int_equal(wl_int(&a, "on"), 1);
	strcpy(opts[0].value, "1e3");
	assert_int_equal(wl_args_parse(&a, table, "x", opts, 1, err, sizeof(err), &line), -1);
	assert_string_equal(err, "x: 'limit' must be a number in -5..5, not '1e3'");
	strcpy(opts[0].value, "6");
	assert_int_equal(wl_args_parse(&a, table, "x", opts, 1, err, sizeof(err), &line), -1);
	strcpy(opts[0].key, "nope");
	assert_int_equal(wl_args_parse(&a, table, "x", opts, 1, err, sizeof(err), &line), -1);
	assert_string_equal(err, "x has no option 'nope'");
}

static int is_subset(const cpu_set_t *a, const cpu_set_t *b)
{
	cpu_set_t both;

	CPU_AND(&both, a, b);
	return CPU_EQUAL(&both, a);
}

static void test_pick_cpus(void **state)
{
	struct fault_ctx fc, again;
	cpu_set_t pool, pick, seen, pick2;
	unsigned hist[8] = { 0 };

	(void)state;
	memset(&fc, 0, sizeof(fc));
	fc.rng = 42;
	wl_parse_cpulist("0-3,8,10-12", &pool);
	CPU_ZERO(&seen);
	for (int i = 0; i < 400; i++) {
		fault_pick_cpus(&fc, &pool, 3, &pick);
		assert_int_equal(CPU_COUNT(&pick), 3);
		assert_true(is_subset(&pick, &pool));
		CPU_OR(&seen, &seen, &pick);
		hist[fault_rand_below(&fc, 8)]++;
	}
	/* every CPU of the pool gets drawn, and only those */
	assert_true(CPU_EQUAL(&seen, &pool));
	for (int i = 0; i < 8; i++)
		assert_true(hist[i] > 20 && hist[i] < 90);
	fault_pick_cpus(&fc, &pool, 100, &pick);
	assert_true(CPU_EQUAL(&pick, &pool));
	fault_pick_cpus(&fc, &pool, 0, &pick);
	assert_int_equal(CPU_COUNT(&pick), 0);

	/* the same seed draws the same CPUs */
	memset(&fc, 0, sizeof(fc));
	memset(&again, 0, sizeof(again));
	fc.rng = again.rng = 7;
	for (int i = 0; i < 10; i++) {
		fault_pick_cpus(&fc, &pool, 2, &pick);
		fault_pick_cpus(&again, &pool, 2, &pick2);
		assert_true(CPU_EQUAL(&pick, &pick2));
	}

	/* a CPU-list target is the list, within the pool */
	fc.target = FAULT_TARGET_CPUS;
	wl_parse_cpulist("3,8-9", &fc.target_cpus);
	fault_target_cpus(&fc, &pool, 1, &pick);
	wl_parse_cpulist("3,8", &pick2);
	assert_true(CPU_EQUAL(&pick, &pick2));
}

static void test_task_parse(void **state)
{
	/* a comm with spaces and a parenthesis: the last ')' ends it */
	static const char stat[] =
		"4242 (we (ird) na) R 1 4240 4240 0 -1 4194560 107 0 0 0 3 1 0 0 20 0 1 0 "
		"2893 4325376 215 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 5 0 0 0 0 0\n";
	static const char status[] =
		"Name:\tweird\nUmask:\t0022\nState:\tR (running)\nTgid:\t4240\nNgid:\t0\n"
		"Pid:\t4242\nCpus_allowed:\t3f\nCpus_allowed_list:\t0-3,5\nMems_allowed_list:\t0\n";
	struct task_state ts;

	(void)state;
	memset(&ts, 0, sizeof(ts));
	assert_int_equal(task_stat_parse(stat, &ts), 0);
	assert_int_equal(ts.tid, 4242);
	assert_string_equal(ts.comm, "we (ird) na");
	assert_int_equal(ts.state, 'R');
	assert_int_equal(ts.cpu, 5);
	assert_int_equal(task_status_parse(status, &ts), 0);
	assert_int_equal(ts.tgid, 4240);
	assert_true(ts.have_allowed);
	assert_int_equal(CPU_COUNT(&ts.allowed), 5);
	assert_true(CPU_ISSET(5, &ts.allowed) && !CPU_ISSET(4, &ts.allowed));

	assert_int_equal(task_stat_parse("4242 (x R 1 2", &ts), -1);
	assert_int_equal(task_stat_parse("4242 (x) R 1 2 3", &ts), -1); /* no field 39 */
	assert_int_equal(task_status_parse("Name:\tx\nCpus_allowed_list:\t9-2\n", &ts), -1);

	/* our own task, for real */
	assert_int_equal(task_state_read(getpid(), 1, &ts), 0);
	assert_int_equal(ts.tid, getpid());
	assert_int_equal(ts.tgid, getpid());
	assert_int_equal(ts.state, 'R');
	assert_true(ts.have_allowed && CPU_ISSET(ts.cpu, &ts.allowed));
	assert_int_equal(task_state_read(0x7ffffff0, 0, &ts), -1);
}

static void test_kind_helpers(void **state)
{
	static const char features[] =
		"GENTLE_FAIR_SLEEPERS START_DEBIT NO_NEXT_BUDDY LAST_BUDDY TTWU_QUEUE "
		"NO_SIS_PROP NO_WARN_DOUBLE_CLOCK";
	unsigned knobs[NR_KNOBS], nr;
	char err[128], values[FLIP_MAX_VALUES + 1][64], buf[64];
	cpu_set_t set;

	(void)state;
	assert_int_equal(flip_feature_state(features, "TTWU_QUEUE"), 1);
	assert_int_equal(flip_feature_state(features, "NEXT_BUDDY"), 0);
	assert_int_equal(flip_feature_state(features, "SIS_PROP"), 0);
	assert_int_equal(flip_feature_state(features, "BUDDY"), -1);
	assert_int_equal(flip_feature_state(features, "START"), -1);

	assert_int_equal(churn_parse_knobs("cpuset.mems, cpu.max", knobs, &nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(knobs[0], KNOB_CPUSET_MEMS);
	assert_int_equal(knobs[1], KNOB_CPU_MAX);
	assert_int_equal(churn_parse_knobs(" ", knobs, &nr, err, sizeof(err)), -1);
	assert_string_equal(err, "'knobs' names no knob");

	assert_int_equal(flip_split_values("0, 1 ,,2  500000", values, FLIP_MAX_VALUES), 4);
	assert_string_equal(values[3], "500000");

	wl_parse_cpulist("0-3,5,7-8", &set);
	wl_format_cpus(&set, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,5,7-8");
	CPU_ZERO(&set);
	wl_format_cpus(&set, buf, sizeof(buf));
	assert_string_equal(buf, "");
	wl_opt_where("scenarios/x.ini:10", 14, buf, sizeof(buf));
	assert_string_equal(buf, "scenarios/x.ini:14");
	wl_opt_where("scenarios/x.ini:10", 0, buf, sizeof(buf));
	assert_string_equal(buf, "scenarios/x.ini:10");
}

/* Every guest fault of every shipped scenario file is valid for the runner. */
static void test_shipped_scenarios(void **state)
{
	char *dir = xasprintf("%s/scenarios", lab_root());
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned checked = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
		struct plan p = { 0 };
		char why[512], *path;
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (plan_compile_file(path, &text, &err))
			fail_msg("%s", err.buf);
		assert_int_equal(plan_parse(text.buf, text.len, &p, why, sizeof(why)), 0);
		for (unsigned c = 0; c < p.nr_cases; c++) {
			for (unsigned f = 0; f < p.cases[c].nr_faults; f++) {
				struct fault_ctx fc;

				/* the host's kinds are not the runner's to check */
				if (p.cases[c].faults[f].side == PLAN_SIDE_HOST)
					continue;
				if (fault_prepare(&fc, &p.cases[c].faults[f], why, sizeof(why)))
					fail_msg("%s", why);
				checked++;
			}
		}
		plan_release(&p);
		strbuf_release(&text);
		strbuf_release(&err);
		free(path);
	}
	closedir(d);
	free(dir);
	assert_true(checked >= 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_prepare_errors),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_seconds_option),
		cmocka_unit_test(test_pick_cpus),
		cmocka_unit_test(test_task_parse),
		cmocka_unit_test(test_kind_helpers),
		cmocka_unit_test(test_shipped_scenarios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
