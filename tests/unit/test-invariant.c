/* test-invariant.c - invariants judged from made-up samples and outcomes:
 * affinity, spread, NUMA convergence, bounds, restores; evidence as JSON. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../guest/runner/wlutil.h"
#include "../../guest/runner/fault-json.h"
#include "../../guest/runner/options.h"
#include "../../guest/runner/fault-tasks.h"
#include "../../guest/runner/invariant.h"

/* 8 CPUs online; LLCs of two CPUs (0-1, 2-3, ...), nodes of four. */
static struct inv_topo topo8;

static int setup(void **state)
{
	(void)state;
	memset(&topo8, 0, sizeof(topo8));
	for (int c = 0; c < CPU_SETSIZE; c++)
		topo8.llc_of[c] = topo8.node_of[c] = -1;
	for (int c = 0; c < 8; c++) {
		CPU_SET(c, &topo8.online);
		topo8.llc_of[c] = (short)(c / 2);
		topo8.node_of[c] = (short)(c / 4);
	}
	topo8.nr_llcs = 4;
	topo8.nr_nodes = 2;
	return 0;
}

/* An invariant of kind with "key=value" options, ready for samples. */
static void start(struct inv_ctx *ic, struct plan_invariant *pi, const char *kind,
		  const char *const *opts, const struct inv_topo *topo)
{
	char err[512];

	memset(pi, 0, sizeof(*pi));
	strcpy(pi->name, "i");
	snprintf(pi->kind, sizeof(pi->kind), "%s", kind);
	strcpy(pi->where, "t.ini:20");
	for (unsigned i = 0; opts && opts[i]; i++) {
		const char *eq = strchr(opts[i], '=');

		snprintf(pi->opts[i].key, sizeof(pi->opts[i].key), "%.*s", (int)(eq - opts[i]), opts[i]);
		snprintf(pi->opts[i].value, sizeof(pi->opts[i].value), "%s", eq + 1);
		pi->opts[i].line = 21 + i;
		pi->nr_opts++;
	}
	if (invariant_prepare(ic, pi, topo, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(invariant_init(ic), 0);
}

static struct task_state task(pid_t tid, char state, int cpu, const char *allowed)
{
	struct task_state t;

	memset(&t, 0, sizeof(t));
	t.tid = tid;
	t.tgid = tid;
	snprintf(t.comm, sizeof(t.comm), "w%d", (int)tid);
	t.state = state;
	t.cpu = cpu;
	if (allowed) {
		t.have_allowed = 1;
		wl_parse_cpulist(allowed, &t.allowed);
	}
	return t;
}

static void feed(struct inv_ctx *ic, uint64_t t_ms, const struct task_state *tasks, unsigned n)
{
	struct inv_sample s = { .t_ms = t_ms, .tasks = tasks, .nr_tasks = n };

	ic->ops->sample(ic, &s);
}

static struct run_outcome ok_outcome(void)
{
	struct run_outcome o;

	memset(&o, 0, sizeof(o));
	o.status = "ok";
	o.error = "";
	o.leftover_desc = "";
	o.end_ms = 5000;
	o.online_after = topo8.online;
	return o;
}

/* The evidence is a JSON array: parsed back, n items. */
static struct json_object *evidence_of(const struct inv_result *r, size_t n)
{
	struct json_object *a = json_tokener_parse(fj_text(&r->evidence));

	if (!a || !json_object_is_type(a, json_type_array))
		fail_msg("evidence is no JSON array: %s", fj_text(&r->evidence));
	assert_int_equal(json_object_array_length(a), n);
	return a;
}

static const char *field(struct json_object *a, size_t i, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(json_object_array_get_idx(a, i), key, &v))
		fail_msg("evidence %zu has no '%s'", i, key);
	return json_object_get_string(v);
}

static void test_affinity_expected(void **state)
{
	static const char *const opts[] = { "cpus=0", NULL };
	struct plan_invariant pi;
	struct inv_ctx ic;
	struct inv_result r;
	struct run_outcome o = ok_outcome();
	struct task_state t[2] = { task(10, 'R', 0, "0-7"), task(11, 'S', 3, "0-7") };
	struct json_object *ev;

	(void)state;
	start(&ic, &pi, "affinity_respected", opts, &topo8);
	feed(&ic, 200, t, 2);
	feed(&ic, 400, t, 2);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	/* the sleeping task ran on CPU 3: that is enough against an expectation */
	assert_string_equal(r.summary, "2 of 4 observations outside the expected CPUs; first: "
			    "task 11 (w11) on CPU 3 at 0.200 s, expected 0");
	ev = evidence_of(&r, 1); /* one task, observed twice */
	assert_string_equal(field(ev, 0, "tid"), "11");
	assert_string_equal(field(ev, 0, "cpu"), "3");
	assert_string_equal(field(ev, 0, "allowed"), "0-7");
	assert_string_equal(field(ev, 0, "expected"), "0");
	assert_string_equal(field(ev, 0, "state"), "S");
	json_object_put(ev);
	inv_result_release(&r);
}

static void test_affinity_own_set(void **state)
{
	static const char *const nograce[] = { "grace=0", NULL };
	struct plan_invariant pi;
	struct inv_ctx ic;
	struct inv_result r;
	struct run_outcome o = ok_outcome();
	struct task_state a[3] = {
		task(20, 'R', 5, "0-3"),  /* outside, runnable: judged when seen twice */
		task(21, 'S', 6, "0-1"),  /* outside but asleep: its last CPU, not judged */
		task(22, 'R', 2, "0-3"),
	};
	struct task_state moved = task(20, 'R', 5, "4-7"); /* its set changed: fine now */
	struct json_object *ev;

	(void)state;
	/* within the grace time of a set, a runnable task may still be on
	 * its old CPU: the stopper that moves it has not run yet */
	start(&ic, &pi, "affinity_respected", NULL, &topo8);
	feed(&ic, 100, a, 3);
	feed(&ic, 300, a, 3);
	feed(&ic, 900, a, 3);
	invariant_finish(&ic, &o, &r);
	/* ... but then nothing was judged, which is no pass either */
	assert_false(r.ok);
	assert_string_equal(r.summary, "9 observations in 3 samples, none of a runnable task whose "
			    "allowed set had stood for the grace time: nothing to judge");
	inv_result_release(&r);
	start(&ic, &pi, "affinity_respected", NULL, &topo8);
	feed(&ic, 100, a, 3);
	feed(&ic, 300, a, 3);
	feed(&ic, 900, a, 3);
	feed(&ic, 1200, &a[2], 1);  /* task 22, runnable and inside, past its grace */
	invariant_finish(&ic, &o, &r);
	if (!r.ok)
		fail_msg("%s", r.summary);
	assert_string_equal(r.summary, "1 observations of runnable workload tasks on a settled "
			    "allowed set in 4 samples, all on allowed CPUs");
	inv_result_release(&r);

	/* a set stable for a second, and still outside it twice in a row */
	start(&ic, &pi, "affinity_respected", NULL, &topo8);
	feed(&ic, 100, a, 3);
	feed(&ic, 1000, a, 3);
	feed(&ic, 1100, a, 3);
	feed(&ic, 1300, a, 3);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "2 of 12 observations outside the tasks' allowed CPUs; first: "
			    "task 20 (w20) on CPU 5 at 1.100 s, allowed 0-3");
	ev = evidence_of(&r, 1);
	assert_string_equal(field(ev, 0, "state"), "R");
	assert_non_null(strstr(field(ev, 0, "why"), "two samples in a row"));
	json_object_put(ev);
	inv_result_release(&r);

	/* a changed set starts its grace time again */
	start(&ic, &pi, "affinity_respected", NULL, &topo8);
	feed(&ic, 100, a, 3);
	feed(&ic, 1000, &moved, 1);
	feed(&ic, 1200, a, 3);
	feed(&ic, 1400, a, 3);
	invariant_finish(&ic, &o, &r);
	if (!r.ok)
		fail_msg("%s", r.summary);
	inv_result_release(&r);

	/* without grace, two samples in a row are enough; one is not */
	start(&ic, &pi, "affinity_respected", nograce, &topo8);
	feed(&ic, 100, a, 3);
	feed(&ic, 200, &moved, 1);
	feed(&ic, 300, a, 3);
	invariant_finish(&ic, &o, &r);
	assert_true(r.ok);
	inv_result_release(&r);
	start(&ic, &pi, "affinity_respected", nograce, &topo8);
	feed(&ic, 100, a, 3);
	feed(&ic, 200, a, 3);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_non_null(strstr(r.summary, "first: task 20 (w20) on CPU 5 at 0.200 s"));
	inv_result_release(&r);
}

static void test_affinity_edges(void **state)
{
	static const char *const opts[] = { "cpus=7", NULL };
	struct plan_invariant pi;
	struct inv_ctx ic;
	struct inv_result r;
	struct run_outcome o = ok_outcome();
	struct task_state many[30];

	(void)state;
	/* nothing observed is no pass */
	start(&ic, &pi, "affinity_respected", NULL, &topo8);
	feed(&ic, 100, NULL, 0);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "no workload task was observed in 1 samples: nothing to judge");
	json_object_put(evidence_of(&r, 0));
	inv_result_release(&r);

	/* evidence stays bounded, the count does not */
	for (int i = 0; i < 30; i++)
		many[i] = task(100 + i, 'R', 1, "0-7");
	start(&ic, &pi, "affinity_respected", opts, &topo8);
	feed(&ic, 100, many, 30);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_non_null(strstr(r.summary, "30 of 30 observations"));
	json_object_put(evidence_of(&r, INV_MAX_EVIDENCE));
	inv_result_release(&r);
	assert_int_equal(invariant_interval_ms(&ic), 200);
}

static void test_spread(void **state)
{
	static const char *const opts[] = { "settle=1", "min_pct=75", NULL };
	static const char *const tolerant[] = { "tolerance=3", NULL };
	static const char *const node[] = { "level=node", NULL };
	struct plan_invariant pi;
	struct inv_ctx ic;
	struct inv_result r;
	struct run_outcome o = ok_outcome();
	/* one busy task per LLC, and four busy ones crowded on LLC 0 */
	struct task_state spread[5] = { task(1, 'R', 0, NULL), task(2, 'R', 2, NULL),
					task(3, 'R', 4, NULL), task(4, 'R', 7, NULL),
					task(5, 'S', 1, NULL) };
	struct task_state crowd[4] = { task(1, 'R', 0, NULL), task(2, 'R', 1, NULL),
				       task(3, 'R', 0, NULL), task(4, 'R', 1, NULL) };
	struct task_state few[3] = { task(1, 'R', 0, NULL), task(2, 'R', 1, NULL),
				     task(3, 'S', 2, NULL) };
	struct json_object *ev;

	(void)state;
	start(&ic, &pi, "spread", opts, &topo8);
	feed(&ic, 500, crowd, 4);   /* before the settling time: ignored */
	feed(&ic, 1000, spread, 5);
	feed(&ic, 1200, spread, 5);
	feed(&ic, 1400, spread, 5);
	feed(&ic, 1600, crowd, 4);
	feed(&ic, 1800, few, 3);    /* too few busy tasks: not eligible */
	invariant_finish(&ic, &o, &r);
	if (!r.ok)
		fail_msg("%s", r.summary);
	assert_string_equal(r.summary, "busy tasks covered every LLC in 3 of 4 eligible samples "
			    "(75%, needed 75%)");
	inv_result_release(&r);

	start(&ic, &pi, "spread", opts, &topo8);
	feed(&ic, 1000, spread, 5);
	feed(&ic, 1200, crowd, 4);
	feed(&ic, 1400, crowd, 4);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "busy tasks covered every LLC in 1 of 3 eligible samples "
			    "(33%, needed 75%)");
	ev = evidence_of(&r, 1);
	assert_string_equal(field(ev, 0, "covered"), "1");
	assert_string_equal(field(ev, 0, "t_s"), "1.2");
	assert_string_equal(json_object_to_json_string_ext(
				    json_object_object_get(json_object_array_get_idx(ev, 0),
							   "busy_per_llc"), JSON_C_TO_STRING_PLAIN),
			    "[4,0,0,0]");
	json_object_put(ev);
	inv_result_release(&r);

	/* three LLCs may stay empty: the crowd passes */
	start(&ic, &pi, "spread", tolerant, &topo8);
	feed(&ic, 1000, crowd, 4);
	invariant_finish(&ic, &o, &r);
	assert_true(r.ok);
	assert_string_equal(r.summary, "busy tasks left at most 3 LLCs without one in 1 of 1 "
			    "eligible samples (100%, needed 80%)");
	inv_result_release(&r);
	start(&ic, &pi, "spread", node, &topo8);
	feed(&ic, 1000, crowd, 4);   /* node 0 only */
	feed(&ic, 1200, few, 3);     /* two busy tasks cover node 0 only: eligible, bad */
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "busy tasks covered every node in 0 of 2 eligible samples "
			    "(0%, needed 80%)");
	inv_result_release(&r);

	/* never enough busy tasks: nothing to judge is no pass */
	start(&ic, &pi, "spread", NULL, &topo8);
	feed(&ic, 1500, few, 3);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "no sample after 1 s had 4 busy tasks, one per LLC (at most "
			    "2 of 1 samples): nothing to judge");
	inv_result_release(&r);

	/* one LLC: nothing to spread over */
	{
		struct inv_topo one = topo8;

		for (int c = 0; c < 8; c++)
			one.llc_of[c] = 0;
		one.nr_llcs = 1;
		start(&ic, &pi, "spread", NULL, &one);
		feed(&ic, 1500, crowd, 4);
		invariant_finish(&ic, &o, &r);
		assert_true(r.ok);
		assert_string_equal(r.summary, "one LLC: nothing to spread over");
		inv_result_release(&r);
	}
}

static void conv_feed(struct inv_ctx *ic, uint64_t t_ms, uint64_t kb0, uint64_t kb1)
{
	/* seed 001: one process, two threads bound to each node */
	struct inv_mm mm[2];
	struct inv_sample s = { .t_ms = t_ms, .mms = mm, .nr_mms = 2 };

	memset(mm, 0, sizeof(mm));
	mm[0].tgid = 300;
	mm[0].kb[0] = kb0;
	mm[0].kb[1] = kb1;
	mm[0].threads[0] = 2;
	mm[0].threads[1] = 2;
	/* the small measuring parent is not judged */
	mm[1].tgid = 299;
	mm[1].kb[0] = 1024;
	mm[1].threads[1] = 1;
	ic->ops->sample(ic, &s);
}

static void test_numa_convergence(void **state)
{
	static const char *const opts[] = { "level=80", "within=10", NULL };
	struct plan_invariant pi;
	struct inv_ctx ic;
	struct inv_result r;
	struct run_outcome o = ok_outcome();
	struct json_object *ev;
	char err[256];

	(void)state;
	start(&ic, &pi, "numa_convergence", opts, &topo8);
	conv_feed(&ic, 1000, 131072, 0);      /* all on node 0: node 1's set at 0 */
	conv_feed(&ic, 4000, 98304, 32768);   /* half of node 1's half moved: 50% */
	conv_feed(&ic, 8000, 72000, 59072);   /* 59072 / 65536 = 90% */
	invariant_finish(&ic, &o, &r);
	if (!r.ok)
		fail_msg("%s", r.summary);
	assert_string_equal(r.summary, "every set reached 80% local memory at 8.0 s (needed within "
			    "10 s)");
	inv_result_release(&r);

	start(&ic, &pi, "numa_convergence", opts, &topo8);
	conv_feed(&ic, 1000, 131072, 0);
	conv_feed(&ic, 6000, 98304, 32768);
	conv_feed(&ic, 12000, 65536, 65536);  /* there, but too late */
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "every set reached 80% local memory only at 12.0 s, after the "
			    "10 s allowed");
	inv_result_release(&r);

	start(&ic, &pi, "numa_convergence", opts, &topo8);
	conv_feed(&ic, 1000, 131072, 0);
	conv_feed(&ic, 3000, 98304, 32768);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "the weakest set never reached 80% local memory: at best 50% "
			    "(pid 300, node 1, at 3.0 s) in a 5.0 s run; needed within 10 s");
	ev = evidence_of(&r, 1);
	assert_string_equal(field(ev, 0, "best_pct"), "50.0");
	assert_string_equal(field(ev, 0, "node"), "1");
	json_object_put(ev);
	inv_result_release(&r);

	/* no process big enough */
	start(&ic, &pi, "numa_convergence", opts, &topo8);
	conv_feed(&ic, 1000, 1000, 1000);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_non_null(strstr(r.summary, "nothing to judge"));
	inv_result_release(&r);

	/* one node cannot be judged; 'within' is required */
	{
		struct inv_topo one = topo8;
		struct inv_ctx ic2;

		one.nr_nodes = 1;
		start(&ic2, &pi, "numa_convergence", opts, &one);
		assert_int_equal(ic2.ops->supported(&ic2, err, sizeof(err)), 0);
		assert_string_equal(err, "needs 2 NUMA nodes with CPUs, this system has 1");
		free(ic2.state);
	}
	pi.nr_opts = 0;
	assert_int_equal(invariant_prepare(&ic, &pi, &topo8, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ini:20: [invariant i] (numa_convergence) needs option 'within'");
}

static void test_end_checks(void **state)
{
	static const char *const bound[] = { "metric=wakeup_p99", "max=500", NULL };
	static const char *const floor[] = { "metric=rps", "min=1000", NULL };
	struct plan_invariant pi;
	struct inv_ctx ic;
	struct inv_result r;
	struct run_outcome o = ok_outcome();
	struct wl_metric m[2];
	struct inv_knob k[3];
	struct json_object *ev;
	char err[256];

	(void)state;
	memset(m, 0, sizeof(m));
	strcpy(m[0].name, "wakeup_p99");
	strcpy(m[0].unit, "us");
	m[0].value = 612;
	strcpy(m[1].name, "rps");
	m[1].value = 1500;
	o.metrics = m;
	o.nr_metrics = 2;
	start(&ic, &pi, "latency_bound", bound, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "wakeup_p99 612 us is above the bound 500");
	ev = evidence_of(&r, 1);
	assert_string_equal(field(ev, 0, "value"), "612");
	json_object_put(ev);
	inv_result_release(&r);
	start(&ic, &pi, "latency_bound", floor, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_true(r.ok);
	inv_result_release(&r);
	o.nr_metrics = 0;
	o.status = "timeout";
	start(&ic, &pi, "latency_bound", floor, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "the run reported no metric 'rps': it ended timeout");
	inv_result_release(&r);
	pi.nr_opts = 1;
	assert_int_equal(invariant_prepare(&ic, &pi, &topo8, err, sizeof(err)), -1);
	assert_string_equal(err, "t.ini:20: [invariant i] (latency_bound): give 'max' or 'min' (or "
			    "both), in the metric's unit");

	/* no lost work */
	o = ok_outcome();
	start(&ic, &pi, "no_lost_work", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_true(r.ok);
	inv_result_release(&r);
	o.leftover = 2;
	o.leftover_desc = "tid 7 (w), tid 8 (w)";
	start(&ic, &pi, "no_lost_work", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "2 workload tasks were still alive after the workload "
			    "returned: tid 7 (w), tid 8 (w)");
	json_object_put(evidence_of(&r, 1));
	inv_result_release(&r);
	o = ok_outcome();
	o.status = "failed";
	o.error = "write: Broken pipe";
	start(&ic, &pi, "no_lost_work", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_string_equal(r.summary, "the run ended failed: write: Broken pipe");
	inv_result_release(&r);

	/* CPUs back online */
	o = ok_outcome();
	CPU_CLR(3, &o.online_after);
	CPU_CLR(6, &o.online_after);
	CPU_SET(9, &o.online_after); /* more online than before is fine */
	start(&ic, &pi, "cpus_online_at_end", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "CPUs 3,6 offline at the end (online at the start: 0-7)");
	ev = evidence_of(&r, 1);
	assert_string_equal(field(ev, 0, "online_at_end"), "0-2,4-5,7,9");
	json_object_put(ev);
	inv_result_release(&r);

	/* vCPU hot-plug: with the present set known, a hot-added CPU (8, 9)
	 * must be online, a removed one (7) is not expected, and a CPU the
	 * machine booted with offline (10) is left alone */
	o = ok_outcome();
	CPU_ZERO(&o.present_after);
	for (int c = 0; c <= 10; c++)
		CPU_SET(c, &o.present_after);
	CPU_CLR(7, &o.present_after);
	CPU_CLR(7, &o.online_after);
	CPU_SET(8, &o.online_after);
	topo8.boot_offline = (cpu_set_t){ 0 };
	CPU_SET(10, &topo8.boot_offline);
	start(&ic, &pi, "cpus_online_at_end", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "CPU 9 offline at the end (online at the start: 0-7)");
	inv_result_release(&r);
	CPU_SET(9, &o.online_after);
	start(&ic, &pi, "cpus_online_at_end", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_true(r.ok);
	assert_string_equal(r.summary, "every CPU that exists at the end (0-6,8-9) is online "
			    "(online at the start: 0-7)");
	inv_result_release(&r);
	CPU_ZERO(&topo8.boot_offline);

	/* knobs restored */
	memset(k, 0, sizeof(k));
	strcpy(k[0].path, "/proc/sys/kernel/numa_balancing");
	strcpy(k[0].before, "1");
	strcpy(k[0].after, "1");
	k[0].before_ok = k[0].after_ok = 1;
	strcpy(k[1].path, "/sys/kernel/debug/sched/migration_cost_ns");
	strcpy(k[1].before, "500000");
	strcpy(k[1].after, "0");
	k[1].before_ok = k[1].after_ok = 1;
	strcpy(k[2].path, "/nonexistent");
	o = ok_outcome();
	o.knobs = k;
	o.nr_knobs = 3;
	start(&ic, &pi, "sysctls_restored", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_false(r.ok);
	assert_string_equal(r.summary, "'/sys/kernel/debug/sched/migration_cost_ns' was '500000' "
			    "before the run and is '0' after it");
	ev = evidence_of(&r, 1);
	assert_string_equal(field(ev, 0, "before"), "500000");
	json_object_put(ev);
	inv_result_release(&r);
	strcpy(k[1].after, "500000");
	start(&ic, &pi, "sysctls_restored", NULL, &topo8);
	invariant_finish(&ic, &o, &r);
	assert_true(r.ok);
	assert_string_equal(r.summary, "2 sysctl, debugfs and cgroup knobs as before the run");
	inv_result_release(&r);
	assert_int_equal(invariant_interval_ms(&ic), 0); /* judged at the end only */
}

static void test_prepare(void **state)
{
	static const char *const bad[] = { "level=rack", NULL };
	struct plan_invariant pi;
	struct inv_ctx ic;
	char err[512];

	(void)state;
	assert_int_equal(nr_invariants, 7);
	for (size_t i = 0; i < nr_invariants; i++) {
		assert_ptr_equal(invariant_find(invariants[i]->name), invariants[i]);
		assert_non_null(invariants[i]->finish);
		/* sampled kinds have a sampler, the others none */
		memset(&pi, 0, sizeof(pi));
		strcpy(pi.kind, invariants[i]->name);
		ic.ops = invariants[i];
		for (const struct wl_option *o = invariants[i]->options; o && o->name; o++)
			if (!strcmp(o->name, "interval"))
				assert_non_null(invariants[i]->sample);
	}
	memset(&pi, 0, sizeof(pi));
	strcpy(pi.name, "x");
	strcpy(pi.kind, "affinity");
	strcpy(pi.where, "s.ini:3");
	assert_int_equal(invariant_prepare(&ic, &pi, &topo8, err, sizeof(err)), -1);
	assert_string_equal(err, "s.ini:3: [invariant x]: unknown invariant kind 'affinity' (the "
			    "runner has affinity_respected, no_lost_work, cpus_online_at_end, "
			    "sysctls_restored, spread, numa_convergence, latency_bound)");
	strcpy(pi.kind, "spread");
	strcpy(pi.opts[0].key, "level");
	strcpy(pi.opts[0].value, "rack");
	pi.opts[0].line = 5;
	pi.nr_opts = 1;
	assert_int_equal(invariant_prepare(&ic, &pi, &topo8, err, sizeof(err)), -1);
	assert_string_equal(err, "s.ini:5: [invariant x] (spread): 'level' must be one of llc|node, "
			    "not 'rack'");
	(void)bad;
}

static void test_numa_maps(void **state)
{
	static const char maps[] =
		"55d0c1a00000 default file=/bin/runner mapped=12 N0=12 kernelpagesize_kB=4\n"
		"7f0000000000 default anon=32768 dirty=32768 active=0 N0=20000 N1=12768 "
		"kernelpagesize_kB=4\n"
		"7f4000000000 default anon=2 dirty=2 N1=2 kernelpagesize_kB=2048\n"
		"7fff00000000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n"
		"7fff10000000 bind:1 anon=1 dirty=1 N70=1 kernelpagesize_kB=4\n";
	uint64_t kb[INV_MAX_NODES] = { 0 };

	(void)state;
	/* file mappings do not count; node 70 is beyond what we track */
	assert_int_equal(numa_maps_kb(maps, kb, INV_MAX_NODES), 4);
	assert_int_equal(kb[0], (20000 + 3) * 4);
	assert_int_equal(kb[1], 12768 * 4 + 2 * 2048);
	assert_int_equal(kb[2], 0);
	assert_int_equal(numa_maps_kb("", kb, INV_MAX_NODES), 0);
}

static void test_topology_here(void **state)
{
	struct inv_topo t;

	(void)state;
	/* the machine running the test: at least itself */
	assert_int_equal(inv_topo_read(&t), 0);
	assert_true(CPU_COUNT(&t.online) >= 1);
	assert_true(t.nr_nodes >= 1);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &t.online) && t.nr_llcs)
			assert_true(t.llc_of[c] >= 0 && (unsigned)t.llc_of[c] < t.nr_llcs);
}

/* The text buffer the evidence is written into: escaping, and a limit
 * that drops whole adds and everything after the first that missed. */
static void test_fj_limit(void **state)
{
	struct fj j = FJ_INIT;

	fj_str(&j, "a\"b\\c\n");
	assert_string_equal(fj_text(&j), "\"a\\\"b\\\\c\\u000a\"");
	fj_release(&j);
	assert_string_equal(fj_text(&j), "");

	j.limit = 8;
	fj_add(&j, "1234", 4);
	fj_printf(&j, "%d", 567);
	assert_false(j.cut);
	assert_string_equal(fj_text(&j), "1234567");
	fj_add(&j, "8", 1);             /* 8 bytes and the NUL do not fit */
	assert_true(j.cut);
	fj_add(&j, "", 0);
	assert_string_equal(fj_text(&j), "1234567");
	assert_int_equal(j.len, 7);
	fj_reset(&j);
	assert_false(j.cut);
	fj_add(&j, "x", 1);
	assert_string_equal(fj_text(&j), "x");
	fj_release(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fj_limit),
		cmocka_unit_test(test_affinity_expected),
		cmocka_unit_test(test_affinity_own_set),
		cmocka_unit_test(test_affinity_edges),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_numa_convergence),
		cmocka_unit_test(test_end_checks),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_numa_maps),
		cmocka_unit_test(test_topology_here),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
