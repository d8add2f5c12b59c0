/* test-schedmetrics.c - unit tests of host-tools/results/schedmetrics.c and
 * the bounded text parts of schedtrace.c: placement, migration levels, lost events. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/wire.h"
#include "lib/util.h"
#include "results/runreport.h"
#include "results/schedmetrics.h"
#include "results/schedtrace.h"
#include "results/tracerun.h"

/* 16 CPUs: SMT pairs, 2 cores per LLC, 2 LLCs per node, 2 nodes. */
#define NCPU 16
static int core_ids[NCPU], llc_ids[NCPU], node_ids[NCPU];

static struct st_topo topo16(void)
{
	struct st_topo t = { NCPU, core_ids, llc_ids, node_ids };

	for (int i = 0; i < NCPU; i++) {
		core_ids[i] = i & ~1;
		llc_ids[i] = i & ~3;
		node_ids[i] = i / 8;
	}
	return t;
}

static struct st_event waking(uint64_t ts, int pid, int waker, int prev)
{
	return (struct st_event){ .ts = ts, .type = ST_WAKING, .cpu = waker, .pid = pid,
				  .target_cpu = prev, .prev_pid = -1, .orig_cpu = -1, .dest_cpu = -1 };
}

static struct st_event wakeup(uint64_t ts, int pid, int on, int target)
{
	return (struct st_event){ .ts = ts, .type = ST_WAKEUP, .cpu = on, .pid = pid,
				  .target_cpu = target, .prev_pid = -1, .orig_cpu = -1, .dest_cpu = -1 };
}

static struct st_event migrate(uint64_t ts, int pid, int from, int to)
{
	return (struct st_event){ .ts = ts, .type = ST_MIGRATE, .cpu = from, .pid = pid,
				  .target_cpu = -1, .prev_pid = -1, .orig_cpu = from, .dest_cpu = to };
}

static struct st_event sw(uint64_t ts, int cpu, int prev, int next, int prev_state)
{
	return (struct st_event){ .ts = ts, .type = ST_SWITCH, .cpu = cpu, .pid = next,
				  .prev_pid = prev, .prev_state = prev_state, .target_cpu = -1,
				  .orig_cpu = -1, .dest_cpu = -1 };
}

static struct st_event wakeup_new(uint64_t ts, int pid, int on, int target)
{
	struct st_event e = wakeup(ts, pid, on, target);

	e.type = ST_WAKEUP_NEW;
	return e;
}

#define N(ev) (sizeof(ev) / sizeof(ev[0]))
#define MS 1000000ull
#define S_SLEEP 1      /* TASK_INTERRUPTIBLE as sched_switch reports it */
#define S_PREEMPT 0x100 /* TASK_REPORT_MAX: preempted, still runnable */

static void test_placement_levels(void **state)
{
	struct st_topo t = topo16();
	/* per-CPU lists arrive unsorted: the wakeup of pid 10 comes first */
	struct st_event ev[] = {
		wakeup(20, 10, 2, 2),     /* prev 2 -> 2: prev */
		waking(10, 10, 5, 2),
		waking(30, 11, 5, 2), wakeup(31, 11, 5, 5),  /* the waker's cpu */
		waking(40, 12, 0, 2), wakeup(41, 12, 3, 3),  /* sibling of 2 */
		waking(50, 13, 9, 0), wakeup(51, 13, 2, 2),  /* other core, same LLC */
		waking(60, 14, 9, 0), wakeup(61, 14, 4, 4),  /* other LLC, same node */
		waking(70, 15, 1, 0), wakeup(71, 15, 8, 8),  /* other node */
		wakeup(80, 16, 7, 7),                        /* never seen waking */
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, sizeof(ev) / sizeof(ev[0]), &t, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	assert_int_equal(m.wakeups, 7);
	assert_int_equal(m.place[ST_PLACE_PREV], 1);
	assert_int_equal(m.place[ST_PLACE_WAKER], 1);
	assert_int_equal(m.place[ST_PLACE_SMT], 1);
	assert_int_equal(m.place[ST_PLACE_LLC], 1);
	assert_int_equal(m.place[ST_PLACE_NODE], 1);
	assert_int_equal(m.place[ST_PLACE_REMOTE], 1);
	assert_int_equal(m.place[ST_PLACE_UNKNOWN], 1);
}

/* A wakeup on the waker's CPU that is also the previous CPU counts as prev. */
static void test_prev_before_waker(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = { waking(1, 5, 3, 3), wakeup(2, 5, 3, 3) };
	struct st_metrics m = { 0 };

	(void)state;
	st_derive(ev, 2, &t, ST_WC_GRACE_DEFAULT_NS, &m);
	assert_int_equal(m.place[ST_PLACE_PREV], 1);
	assert_int_equal(m.place[ST_PLACE_WAKER], 0);
}

static void test_migration_levels(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = {
		migrate(1, 1, 0, 1), migrate(2, 1, 1, 2), migrate(3, 1, 2, 6),
		migrate(4, 1, 6, 14), migrate(5, 1, 14, 15), migrate(6, 1, 3, 3),
		migrate(7, 1, 3, 99),
	};
	struct st_metrics m = { 0 };

	(void)state;
	st_derive(ev, sizeof(ev) / sizeof(ev[0]), &t, ST_WC_GRACE_DEFAULT_NS, &m);
	assert_int_equal(m.migrations[ST_LVL_SMT], 2);
	assert_int_equal(m.migrations[ST_LVL_LLC], 1);
	assert_int_equal(m.migrations[ST_LVL_NODE], 1);
	assert_int_equal(m.migrations[ST_LVL_NUMA], 1);
	assert_int_equal(m.migrations[ST_LVL_UNKNOWN], 1);
	assert_int_equal(m.wakeups, 0);
}

static double value(struct json_object *metrics, const char *name)
{
	struct json_object *o, *v;

	assert_true(json_object_object_get_ex(metrics, name, &o));
	assert_true(json_object_object_get_ex(o, "value", &v));
	return json_object_get_double(v);
}

/* A wakeup finds its target idle when the CPU runs pid 0; a CPU never seen
 * switching is not counted either way. */
static void test_idle_found(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = {
		sw(10, 0, 0, 100, 0), sw(10, 1, 101, 0, S_SLEEP),
		wakeup(20, 200, 0, 1),  /* cpu 1 idle */
		wakeup(21, 201, 0, 0),  /* cpu 0 runs 100 */
		wakeup(22, 202, 0, 5),  /* cpu 5 never switched: unknown */
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	assert_int_equal(m.wakeups, 3);
	assert_int_equal(m.idle_known, 2);
	assert_int_equal(m.idle_found, 1);
}

/* Wake-to-run: 1, 3 and 100 us; a preempted task switched back in and a
 * task woken while it still ran are no samples. */
static void test_wake_latency(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = {
		wakeup(1000, 7, 0, 0), sw(4000, 0, 0, 7, 0),
		wakeup(10000, 8, 1, 1), sw(110000, 1, 0, 8, 0),
		wakeup_new(200000, 9, 2, 2), sw(201000, 2, 0, 9, 0),
		sw(300000, 0, 7, 0, S_PREEMPT), sw(400000, 0, 0, 7, 0),
		wakeup(500000, 7, 0, 0), sw(600000, 0, 7, 0, S_SLEEP),
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	assert_int_equal(m.lat_samples, 3);
	assert_true(m.lat_p50_us == 3.0);  /* nearest rank 2 of 3 */
	assert_true(m.lat_p99_us == 100.0); /* rank 3 of 3 */
	assert_int_equal(m.wakeups_new, 1);
}

/* A migration between a task's sched_waking and sched_wakeup is the
 * wakeup's; any other one is balancing. */
static void test_migration_causes(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = {
		waking(10, 5, 4, 2), migrate(11, 5, 2, 4), wakeup(12, 5, 4, 4), /* node */
		migrate(20, 5, 4, 5),                                            /* smt */
		migrate(30, 6, 0, 8),                                            /* numa */
		waking(40, 6, 8, 8), migrate(41, 6, 8, 10), wakeup(42, 6, 10, 10), /* llc */
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_NODE], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_LLC], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_BALANCE][ST_LVL_SMT], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_BALANCE][ST_LVL_NUMA], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_SMT] +
			 m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_NUMA] +
			 m.migr_cause[ST_CAUSE_BALANCE][ST_LVL_NODE] +
			 m.migr_cause[ST_CAUSE_BALANCE][ST_LVL_LLC], 0);
	assert_int_equal(m.migrations[ST_LVL_NODE] + m.migrations[ST_LVL_LLC] +
			 m.migrations[ST_LVL_SMT] + m.migrations[ST_LVL_NUMA], 4);
}

/* 4 CPUs: 0 and 1 share LLC A, 2 is LLC B of the same node, 3 is node 1. */
static int core4[4] = { 0, 1, 2, 3 }, llc4[4] = { 0, 0, 2, 3 }, node4[4] = { 0, 0, 0, 1 };

/*
 * cpu 0 runs 10; 1, 2, 3 go idle at 0.  1 ms: 20 woken onto cpu 0 waits,
 * until balancing moves it to cpu 1 at 1.5 ms (episodes of 0.5 ms: under
 * the grace).  2 ms: 21 woken onto cpu 0 waits until 5 ms, cpu 1 busy:
 * cpu 2 (same node) and 3 (machine) idle 3 ms each, 2 ms past the grace.
 * The trace ends at 10 ms: 4 CPUs x 10 ms.
 */
static void test_work_conservation(void **state)
{
	struct st_topo t = { 4, core4, llc4, node4 };
	struct st_event ev[] = {
		sw(0, 0, 0, 10, 0), sw(0, 1, 11, 0, S_SLEEP), sw(0, 2, 12, 0, S_SLEEP),
		sw(0, 3, 13, 0, S_SLEEP),
		wakeup(1 * MS, 20, 0, 0),
		migrate(3 * MS / 2, 20, 0, 1), sw(3 * MS / 2, 1, 0, 20, 0),
		wakeup(2 * MS, 21, 0, 0),
		sw(5 * MS, 0, 10, 21, S_SLEEP),
		wakeup(10 * MS, 31, 3, 3),
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, 1 * MS, &m), 0);
	assert_true(m.rq_tracked);
	assert_int_equal(m.cpus_known, 4);
	assert_int_equal(m.span_ns, 10 * MS);
	assert_int_equal(m.wc_ns[ST_WC_LLC], 0);
	assert_int_equal(m.wc_episodes[ST_WC_LLC], 0);
	assert_int_equal(m.wc_ns[ST_WC_NODE], 2 * MS);
	assert_int_equal(m.wc_episodes[ST_WC_NODE], 1);
	assert_int_equal(m.wc_ns[ST_WC_MACHINE], 4 * MS);
	assert_int_equal(m.wc_episodes[ST_WC_MACHINE], 2);
	/* summed nr_running, LLC A minus the emptiest: 1 for 1 ms, 2 for 1 ms,
	 * 3 for 3 ms, 2 for 5 ms = 22 ms x tasks over 10 ms; the nodes alike */
	assert_int_equal(m.rq_groups[ST_RQ_LLC], 3);
	assert_true(m.rq_imbalance[ST_RQ_LLC] > 2.1999 && m.rq_imbalance[ST_RQ_LLC] < 2.2001);
	assert_true(m.rq_imbalance[ST_RQ_NODE] > 2.1999 && m.rq_imbalance[ST_RQ_NODE] < 2.2001);
	/* cpu 0 busy at 1 and 2 ms, 3 idle at 10 ms; wake-to-run 500 and 3000 us */
	assert_int_equal(m.idle_known, 3);
	assert_int_equal(m.idle_found, 1);
	assert_int_equal(m.lat_samples, 2);
	assert_true(m.lat_p50_us == 500.0 && m.lat_p99_us == 3000.0);

	/* no grace: the three short episodes at 1 ms count as well */
	memset(&m, 0, sizeof(m));
	assert_int_equal(st_derive(ev, N(ev), &t, 0, &m), 0);
	assert_int_equal(m.wc_ns[ST_WC_LLC], MS / 2);
	assert_int_equal(m.wc_episodes[ST_WC_LLC], 1);
	assert_int_equal(m.wc_ns[ST_WC_NODE], MS + 3 * MS);
	assert_int_equal(m.wc_episodes[ST_WC_NODE], 3);
	assert_int_equal(m.wc_episodes[ST_WC_MACHINE], 5);
}

/*
 * Tasks runnable before tracing began: cpu 0's first switch at 5 ms shows
 * 40 ran (preempted) and 41 was queued from the start, so cpu 1, idle
 * from 0, was in violation from 0 to 8 ms.  CPUs 2 and 3 never switched:
 * unknown, in neither the violations nor the denominator.
 */
static void test_wc_before_tracing(void **state)
{
	struct st_topo t = { 4, core4, llc4, node4 };
	struct st_event ev[] = {
		sw(0, 1, 42, 0, S_SLEEP),
		sw(5 * MS, 0, 40, 41, S_PREEMPT),
		sw(8 * MS, 0, 41, 40, S_SLEEP),
	};
	struct st_metrics m = { 0 };
	struct json_object *metrics = json_object_new_object(), *o;

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, 1 * MS, &m), 0);
	assert_int_equal(m.cpus_known, 2);
	for (int l = 0; l < ST_WC_MAX; l++) {
		assert_int_equal(m.wc_ns[l], 7 * MS);
		assert_int_equal(m.wc_episodes[l], 1);
	}
	st_metrics_to_json(&m, metrics);
	assert_true(json_object_object_get_ex(metrics, "wc_llc_pct", &o));
	assert_true(value(metrics, "wc_llc_pct") > 43.7499 && value(metrics, "wc_llc_pct") < 43.7501);
	assert_true(value(metrics, "wc_machine_episodes") == 1);
	assert_false(json_object_object_get_ex(metrics, "wake_lat_p50_us", &o));
	assert_false(json_object_object_get_ex(metrics, "idle_found_pct", &o));
	json_object_put(metrics);
}

/* A sched_switch format without prev_state: no runqueue rows at all. */
static void test_no_prev_state(void **state)
{
	struct st_topo t = { 4, core4, llc4, node4 };
	struct st_event ev[] = { sw(0, 1, 42, 0, -1), sw(5 * MS, 0, 40, 41, -1) };
	struct st_metrics m = { 0 };
	struct json_object *metrics = json_object_new_object(), *o;

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, 1 * MS, &m), 0);
	assert_false(m.rq_tracked);
	st_metrics_to_json(&m, metrics);
	assert_false(json_object_object_get_ex(metrics, "wc_llc_pct", &o));
	assert_false(json_object_object_get_ex(metrics, "rq_imbalance_llc", &o));
	assert_true(json_object_object_get_ex(metrics, "migr_balance_numa", &o));
	json_object_put(metrics);
}

static void test_json_shares_sum_to_100(void **state)
{
	struct st_metrics m = { .wakeups = 3, .place = { 1, 1, 0, 0, 0, 0, 1 }, .lost = 4 };
	struct json_object *metrics = json_object_new_object(), *o, *b;
	double sum = 0;

	(void)state;
	st_metrics_to_json(&m, metrics);
	for (int p = 0; p < ST_PLACE_MAX; p++) {
		char name[32];

		snprintf(name, sizeof(name), "wake_%s_pct", st_place_name(p));
		sum += value(metrics, name);
	}
	assert_true(sum > 99.999 && sum < 100.001);
	assert_true(value(metrics, "trace_lost_events") == 4);
	assert_true(value(metrics, "migr_numa") == 0);
	/* compare needs a direction on every row */
	json_object_object_foreach(metrics, k, v) {
		(void)k;
		assert_true(json_object_object_get_ex(v, "better", &b));
	}
	assert_false(json_object_object_get_ex(metrics, "migr_unknown", &o));
	json_object_put(metrics);
}

/* No wakeups: no placement rows at all, never a row of zeros. */
static void test_json_no_wakeups(void **state)
{
	struct st_metrics m = { 0 };
	struct json_object *metrics = json_object_new_object(), *o;

	(void)state;
	st_metrics_to_json(&m, metrics);
	assert_false(json_object_object_get_ex(metrics, "wake_prev_pct", &o));
	assert_true(json_object_object_get_ex(metrics, "wakeups", &o));
	json_object_put(metrics);
}

/* ---- preemptions ---- */

static const char *better_of(struct json_object *metrics, const char *name)
{
	struct json_object *o, *b;

	if (!json_object_object_get_ex(metrics, name, &o) ||
	    !json_object_object_get_ex(o, "better", &b))
		fail_msg("no row %s", name);
	return json_object_get_string(b);
}

/*
 * Decisions (placement, idle found, migrations, work conservation,
 * imbalance) change up or down and are never better or worse; the wake
 * latency and the lost events keep their direction.
 */
static void test_decision_rows_undirected(void **state)
{
	struct st_metrics m = { .wakeups = 3, .place = { 1, 1, 0, 0, 0, 0, 1 }, .idle_known = 2,
				.idle_found = 1, .lat_samples = 2, .lat_p50_us = 5, .lat_p99_us = 9,
				.rq_tracked = 1, .cpus_known = 2, .span_ns = 1000,
				.rq_groups = { 2, 2 } };
	static const char *const none[] = {
		"wake_prev_pct", "wake_waker_pct", "wake_llc_pct", "wake_remote_pct", "wakeups",
		"idle_found_pct", "migr_smt", "migr_numa", "migr_wakeup_llc", "migr_balance_node",
		"wc_llc_pct", "wc_machine_episodes", "rq_imbalance_llc", "rq_imbalance_node",
	};
	struct json_object *metrics = json_object_new_object();

	(void)state;
	st_metrics_to_json(&m, metrics);
	for (size_t i = 0; i < N(none); i++)
		assert_string_equal(better_of(metrics, none[i]), "none");
	assert_string_equal(better_of(metrics, "wake_lat_p99_us"), "lower");
	assert_string_equal(better_of(metrics, "trace_lost_events"), "lower");
	json_object_put(metrics);
}

/*
 * A preemption is a switch whose previous task stayed runnable: R (it
 * called schedule() running) or R+ (preempted), what the kernel counts in
 * nivcsw; a sleep, a death or the idle task switching out is none.  The
 * own_ rows count the listed tasks only, per their own wakeups.
 */
static void test_preemptions(void **state)
{
	struct st_topo t = { 4, core4, llc4, node4 };
	struct st_event ev[] = {
		sw(0, 0, 0, 10, 0),                 /* idle -> 10: the idle task, none */
		waking(1 * MS, 11, 0, 0),
		sw(2 * MS, 0, 10, 11, S_PREEMPT),   /* 10 preempted by 11 */
		sw(3 * MS, 0, 11, 10, 0),           /* 11 yields, runnable: R */
		sw(4 * MS, 0, 10, 12, S_SLEEP),     /* 10 sleeps */
		waking(5 * MS, 10, 1, 0),
		sw(6 * MS, 0, 12, 10, S_PREEMPT),   /* 12 (not listed) preempted */
		sw(7 * MS, 0, 10, 0, 0x10),         /* 10 dies (X) */
		waking(8 * MS, 12, 1, 0),
		sw(10 * MS, 1, 0, 12, 0),
	};
	static const int own[] = { 11, 10 };
	struct st_metrics m = { 0 };
	struct json_object *metrics = json_object_new_object();

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, 1 * MS, &m), 0);
	assert_int_equal(m.preempt, 3);
	assert_int_equal(m.wakeups, 3);
	assert_int_equal(st_derive_own(ev, N(ev), own, N(own), &m), 0);
	assert_int_equal(m.own_tasks, 2);
	assert_int_equal(m.own_preempt, 2);
	assert_int_equal(m.own_wakeups, 2);
	st_metrics_to_json(&m, metrics);
	assert_true(value(metrics, "preemptions") == 3);
	assert_true(fabs(value(metrics, "preempt_per_wakeup") - 1.0) < 1e-12);
	/* 3 in the 10 ms from the first event to the last */
	assert_true(fabs(value(metrics, "preempt_per_s") - 300.0) < 1e-9);
	assert_true(value(metrics, "own_preemptions") == 2);
	assert_true(fabs(value(metrics, "own_preempt_per_wakeup") - 1.0) < 1e-12);
	assert_true(fabs(value(metrics, "own_preempt_per_s") - 200.0) < 1e-9);
	/* a change to explain, not a verdict */
	assert_string_equal(better_of(metrics, "preemptions"), "none");
	assert_string_equal(better_of(metrics, "own_preempt_per_s"), "none");
	json_object_put(metrics);
}

/* Without a task list there are no own_ rows; an empty list counts zero. */
static void test_preemptions_own_absent(void **state)
{
	struct st_topo t = { 4, core4, llc4, node4 };
	struct st_event ev[] = { sw(0, 0, 10, 11, S_PREEMPT), sw(1 * MS, 0, 11, 10, S_SLEEP) };
	struct st_metrics m = { 0 };
	struct json_object *metrics = json_object_new_object(), *o;

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, 1 * MS, &m), 0);
	st_metrics_to_json(&m, metrics);
	assert_true(value(metrics, "preemptions") == 1);
	assert_false(json_object_object_get_ex(metrics, "preempt_per_wakeup", &o));
	assert_false(json_object_object_get_ex(metrics, "own_preemptions", &o));
	json_object_put(metrics);
	metrics = json_object_new_object();
	assert_int_equal(st_derive_own(ev, N(ev), NULL, 0, &m), 0);
	st_metrics_to_json(&m, metrics);
	assert_true(value(metrics, "own_preemptions") == 0);
	assert_false(json_object_object_get_ex(metrics, "own_preempt_per_wakeup", &o));
	json_object_put(metrics);
}

/*
 * What a trace lacks takes its rows away, all of them, and nothing else:
 * a prev_state whose encoding is unknown (-1 in every switch) leaves
 * no preemption or runqueue row; a missing sched_migrate_task no
 * placement or migration row.
 */
static void test_lacks(void **state)
{
	struct st_topo t = { 4, core4, llc4, node4 };
	struct st_event ev[] = {
		waking(0, 10, 1, 0), sw(1 * MS, 0, 11, 10, -1), sw(2 * MS, 0, 10, 11, -1),
		migrate(3 * MS, 11, 0, 1),
	};
	struct st_metrics m = { 0 };
	struct json_object *metrics = json_object_new_object(), *o;

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, 1 * MS, &m), 0);
	m.lacks = 1u << ST_LACK_STATE;
	st_metrics_to_json(&m, metrics);
	assert_false(json_object_object_get_ex(metrics, "preemptions", &o));
	assert_false(json_object_object_get_ex(metrics, "wc_llc_pct", &o));
	assert_true(json_object_object_get_ex(metrics, "wake_prev_pct", &o));
	assert_true(json_object_object_get_ex(metrics, "migr_smt", &o));
	json_object_put(metrics);

	metrics = json_object_new_object();
	m.lacks = 1u << ST_LACK_MIGRATE;
	st_metrics_to_json(&m, metrics);
	assert_false(json_object_object_get_ex(metrics, "wake_prev_pct", &o));
	assert_false(json_object_object_get_ex(metrics, "idle_found_pct", &o));
	assert_false(json_object_object_get_ex(metrics, "migr_smt", &o));
	assert_true(json_object_object_get_ex(metrics, "wakeups", &o));
	assert_true(json_object_object_get_ex(metrics, "trace_lost_events", &o));
	json_object_put(metrics);
	/* each lack names the rows it costs */
	for (int l = 0; l < ST_LACK_MAX; l++)
		assert_true(strlen(st_lack_rows(l)) > 10);
	assert_string_equal(st_lack_rows(ST_LACK_MAX), "?");
}

/* The runner's "tasks" record: "<ended> <tid> ..." */
static void test_parse_tasks(void **state)
{
	static const char ok[] = "3 12 13 400\n", cut[] = "4 12 13 400\n";
	static const char extra[] = "1 12 13\n", bad[] = "2 12 x3\n", zero[] = "2 12 0\n";
	const char *why = NULL;
	int *tids;
	size_t n;

	(void)state;
	assert_int_equal(schedtrace_parse_tasks(ok, strlen(ok), &tids, &n, &why), 0);
	assert_int_equal(n, 3);
	assert_int_equal(tids[2], 400);
	free(tids);
	assert_int_equal(schedtrace_parse_tasks("0\n", 2, &tids, &n, &why), 0);
	assert_int_equal(n, 0);
	free(tids);
	assert_int_equal(schedtrace_parse_tasks(cut, strlen(cut), &tids, &n, &why), -1);
	assert_non_null(strstr(why, "more tasks"));
	assert_null(tids);
	assert_int_equal(schedtrace_parse_tasks("99999999 1\n", 11, &tids, &n, &why), -1);
	assert_non_null(strstr(why, "more tasks"));
	assert_int_equal(schedtrace_parse_tasks(extra, strlen(extra), &tids, &n, &why), -1);
	assert_int_equal(schedtrace_parse_tasks(bad, strlen(bad), &tids, &n, &why), -1);
	assert_int_equal(schedtrace_parse_tasks(zero, strlen(zero), &tids, &n, &why), -1);
	assert_int_equal(schedtrace_parse_tasks("", 0, &tids, &n, &why), -1);
	assert_non_null(strstr(why, "unreadable"));
}

/* A run's "tasks" record is kept with its pages; a new run drops it. */
static void test_collect_tasks(void **state)
{
	static const char *const recs[] = {
		"c\trun0\tcpu\tcpu0\nAB", "c\trun0\ttasks\t-\n2 7 8\n", "c\trun0\tdone\t-\n",
		"c\trun1\ttasks\t-\n3 7 8\n",
	};
	struct schedtrace_case c;
	struct schedtrace_rec r;

	(void)state;
	schedtrace_case_init(&c);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(schedtrace_split(recs[i], strlen(recs[i]), &r), 0);
		schedtrace_add(&c, &r);
	}
	assert_int_equal(c.tasks, 1);
	assert_int_equal(c.nr_tids, 2);
	assert_int_equal(c.tids[1], 8);
	assert_int_equal(schedtrace_split(recs[3], strlen(recs[3]), &r), 0);
	schedtrace_add(&c, &r);
	assert_int_equal(c.run, 1);
	assert_int_equal(c.tasks, -1);
	assert_null(c.tids);
	schedtrace_case_release(&c);
}

static void test_topo_from_guest_view(void **state)
{
	struct json_object *view = json_tokener_parse(
		"{\"cpu\": [{\"cpu\": 0, \"siblings\": \"0-1\", \"llc\": \"0-3\", \"node\": 0},"
		" {\"cpu\": 1, \"siblings\": \"0-1\", \"llc\": \"0-3\", \"node\": 0},"
		" {\"cpu\": 2, \"siblings\": \"2-3\", \"llc\": \"0-3\", \"node\": 0},"
		" {\"cpu\": 3, \"siblings\": \"2-3\", \"llc\": null, \"node\": null},"
		" {\"cpu\": 4, \"siblings\": \"4\", \"llc\": \"4\", \"node\": 1}]}");
	struct st_topo t;
	char err[128];

	(void)state;
	assert_int_equal(st_topo_from_guest_view(view, &t, err, sizeof(err)), 0);
	assert_int_equal(t.nr_cpus, 5);
	assert_int_equal(t.core[1], 0);
	assert_int_equal(t.core[3], 2);
	assert_int_equal(t.llc[2], 0);
	assert_int_equal(t.llc[3], -1);
	assert_int_equal(t.node[3], -1);
	assert_int_equal(t.node[4], 1);
	st_topo_release(&t);
	json_object_put(view);
	view = json_tokener_parse("{\"cpus\": 4}");
	assert_int_equal(st_topo_from_guest_view(view, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "guest view"));
	json_object_put(view);
}

static void test_stats_lost(void **state)
{
	static const char stats[] = "entries: 0\noverrun: 12\ncommit overrun: 3\nbytes: 0\n"
				    "oldest event ts:     3.57\nnow ts:     4.05\n"
				    "dropped events: 5\nread events: 1545\n";

	(void)state;
	/* commit overrun is a subset of overrun's cause, not a separate loss */
	assert_int_equal(schedtrace_stats_lost(stats, strlen(stats)), 17);
	assert_int_equal(schedtrace_stats_lost("overrun: 7", 10), 7);
	assert_int_equal(schedtrace_stats_lost("", 0), 0);
}

static void test_split(void **state)
{
	static const char good[] = "hb/mode=process\trun0\tcpu\tcpu3\n\x01\x00\x02";
	struct schedtrace_rec r;

	(void)state;
	assert_int_equal(schedtrace_split(good, sizeof(good) - 1, &r), 0);
	assert_int_equal(r.case_len, 15);
	assert_memory_equal(r.kind, "cpu", 3);
	assert_memory_equal(r.name, "cpu3", 4);
	assert_int_equal(r.data_len, 3);
	assert_int_equal(schedtrace_split("a\tb\tc\n", 6, &r), -1);
	assert_int_equal(schedtrace_split("a\tb\tc\td", 7, &r), -1);
	assert_int_equal(schedtrace_split("a\tb\tc\td\te\n", 10, &r), -1);
}

/* A run's records: pages appended per CPU, a new run drops the old one. */
static void test_collect(void **state)
{
	static const char *const recs[] = {
		"c\trun0\tcpu\tcpu1\nAB", "c\trun0\tcpu\tcpu1\nCD", "c\trun0\tstats\tcpu1\noverrun: 1\n",
		"c\trun1\tcpu\tcpu0\nEF", "c\trun1\tdone\t-\n", "c\trun1\tcpu\tcpu99999\nXX",
	};
	struct schedtrace_case c;
	struct schedtrace_rec r;

	(void)state;
	schedtrace_case_init(&c);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(schedtrace_split(recs[i], strlen(recs[i]), &r), 0);
		schedtrace_add(&c, &r);
	}
	assert_int_equal(c.run, 0);
	assert_int_equal(c.nr_cpus, 2);
	assert_int_equal(c.pages[1].len, 4);
	assert_memory_equal(c.pages[1].buf, "ABCD", 4);
	for (int i = 3; i < 6; i++) {
		assert_int_equal(schedtrace_split(recs[i], strlen(recs[i]), &r), 0);
		schedtrace_add(&c, &r);
	}
	assert_int_equal(c.run, 1);
	assert_true(c.done);
	assert_int_equal(c.nr_cpus, 1);
	schedtrace_case_release(&c);
}

static void frame(struct strbuf *sb, uint32_t seq, uint16_t type, const char *payload)
{
	size_t len = strlen(payload);
	char *buf = malloc(WIRE_HDR_LEN + len);

	assert_non_null(buf);
	strbuf_add(sb, buf, wire_encode(seq, type, payload, (uint32_t)len, buf, WIRE_HDR_LEN + len));
	free(buf);
}

/* A kernel without tracefs: the case keeps PASS, says why, and has no
 * trace rows, never zeros. */
static void test_report_without_tracing(void **state)
{
	static const char plan[] =
		"schedlab-plan\t1\ncase\tt\nscenario\tt\nsource\tt.ini:1\nworkload\thackbench\n"
		"runs\t1\nwarmup\t0\ndeadline\t60\ncounters\ttasks schedtrace\n"
		"metric\ttime\tlower\tamean\ts\nend\n";
	char dir[] = "/tmp/test-schedmetrics-XXXXXX", *p;
	struct strbuf rec = STRBUF_INIT, err = STRBUF_INIT;
	struct json_object *cases, *c, *v, *m;

	(void)state;
	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/plan.txt", dir);
	assert_int_equal(write_file_atomic(p, plan, strlen(plan)), 0);
	free(p);
	frame(&rec, 0, WIRE_EVENT, "{\"event\": \"case_start\", \"case\": \"t\"}");
	frame(&rec, 1, WIRE_TRACE, "t\t-\tabsent\t-\nno tracefs with sched events (kernel without "
	      "CONFIG_FTRACE or tracefs)");
	frame(&rec, 2, WIRE_RESULT, "{\"case\": \"t\", \"run\": 0, \"warmup\": false, "
	      "\"status\": \"ok\", \"metrics\": {\"time\": {\"value\": 1, \"better\": \"lower\"}}}");
	frame(&rec, 3, WIRE_EVENT, "{\"event\": \"case_end\", \"case\": \"t\"}");
	frame(&rec, 4, WIRE_END, "4");
	p = xasprintf("%s/records.bin", dir);
	assert_int_equal(write_file_atomic(p, rec.buf, rec.len), 0);
	free(p);
	assert_int_equal(run_report_build(dir, &cases, &err), 0);
	c = json_object_array_get_idx(cases, 0);
	assert_true(json_object_object_get_ex(c, "verdict", &v));
	assert_string_equal(json_object_get_string(v), "PASS");
	assert_true(json_object_object_get_ex(c, "reason", &v));
	assert_non_null(strstr(json_object_get_string(v), "no sched trace metrics: no tracefs"));
	assert_true(json_object_object_get_ex(c, "schedtrace", &v));
	assert_true(json_object_object_get_ex(v, "skip", &v));
	assert_true(json_object_object_get_ex(c, "metrics", &m));
	assert_true(json_object_object_get_ex(m, "time", &v));
	assert_false(json_object_object_get_ex(m, "wake_prev_pct", &v));
	assert_false(json_object_object_get_ex(m, "trace_lost_events", &v));
	json_object_put(cases);
	strbuf_release(&rec);
	strbuf_release(&err);
	for (const char *const *f = (const char *const[]){ "plan.txt", "records.bin",
			"results.jsonl", "cases.json", NULL }; *f; f++) {
		p = xasprintf("%s/%s", dir, *f);
		unlink(p);
		free(p);
	}
	rmdir(dir);
}

/* ---- without sched_wakeup: placement from sched_waking + sched_migrate_task ---- */

/* A sched_migrate_task recorded on cpu (the waker's, for a wakeup's). */
static struct st_event migrate_on(uint64_t ts, int cpu, int pid, int from, int to)
{
	struct st_event e = migrate(ts, pid, from, to);

	e.cpu = cpu;
	return e;
}

/*
 * try_to_wake_up(): the migrate that is the waker CPU's very next event
 * after the task's sched_waking is select_task_rq()'s choice; without
 * one the task stays on its previous CPU.
 */
static void test_waking_migrate_rule(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = {
		waking(10, 5, 4, 2), migrate_on(11, 4, 5, 2, 4), /* the waker's CPU (node) */
		waking(20, 6, 9, 0), migrate_on(21, 9, 6, 0, 2), /* other core of the LLC */
		waking(30, 7, 9, 8),                             /* stays: prev */
		waking(40, 8, 5, 0), migrate_on(41, 5, 8, 0, 1), /* SMT sibling */
		waking(50, 9, 1, 0), migrate_on(51, 1, 9, 0, 12),/* other node */
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	assert_int_equal(m.wakeups, 5);
	assert_int_equal(m.place[ST_PLACE_WAKER], 1);
	assert_int_equal(m.place[ST_PLACE_LLC], 1);
	assert_int_equal(m.place[ST_PLACE_PREV], 1);
	assert_int_equal(m.place[ST_PLACE_SMT], 1);
	assert_int_equal(m.place[ST_PLACE_REMOTE], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_NODE], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_LLC], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_SMT], 1);
	assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][ST_LVL_NUMA], 1);
	for (int l = 0; l < ST_LVL_MAX; l++)
		assert_int_equal(m.migr_cause[ST_CAUSE_BALANCE][l], 0);
}

/*
 * A migrate that is not the waker CPU's next event is no wakeup's: load
 * balancing on another CPU right after a wakeup, another task's migrate,
 * or the task's own after the waker CPU recorded something else.
 */
static void test_waking_balance_after(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = {
		waking(10, 5, 4, 2), migrate_on(11, 6, 5, 2, 6),  /* pulled by cpu 6 */
		waking(20, 6, 9, 8), migrate_on(21, 9, 7, 3, 11), /* task 7, not 6 */
		waking(30, 8, 1, 0), sw(31, 1, 50, 51, S_SLEEP), migrate_on(32, 1, 8, 0, 1),
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	assert_int_equal(m.wakeups, 3);
	assert_int_equal(m.place[ST_PLACE_PREV], 3);
	assert_int_equal(m.migr_cause[ST_CAUSE_BALANCE][ST_LVL_NODE], 1); /* 2->6 */
	assert_int_equal(m.migr_cause[ST_CAUSE_BALANCE][ST_LVL_NUMA], 1); /* 3->11 */
	assert_int_equal(m.migr_cause[ST_CAUSE_BALANCE][ST_LVL_SMT], 1);  /* 0->1 */
	for (int l = 0; l < ST_LVL_MAX; l++)
		assert_int_equal(m.migr_cause[ST_CAUSE_WAKEUP][l], 0);
}

/*
 * Idle found and the wait start at the waking: 20 placed on idle cpu 1
 * runs 40 us later; 21 woken onto cpu 0, which runs 100, is not idle.
 * A task woken on its own CPU while it runs (try_to_wake_up() on
 * current) or from another CPU while it keeps running (ttwu_runnable())
 * waits for nothing and found its CPU busy.  A task woken from another
 * CPU while its CPU is switching it out (the waker saw it dequeued) is
 * queued once that switch is done: its CPU went idle, so idle found,
 * and the wait runs from the waking.
 */
static void test_waking_runnable(void **state)
{
	struct st_topo t = topo16();
	struct st_event ev[] = {
		sw(0, 0, 0, 100, 0), sw(0, 1, 101, 0, S_SLEEP), sw(0, 3, 0, 30, 0),
		sw(0, 4, 0, 31, 0),
		waking(10000, 20, 0, 1), sw(50000, 1, 0, 20, 0),   /* 40 us */
		waking(60000, 21, 0, 0),
		waking(70000, 30, 3, 3),                          /* current */
		waking(80000, 31, 5, 4), sw(90000, 4, 31, 0, S_PREEMPT), /* runnable */
		waking(100000, 20, 5, 1), sw(110000, 1, 20, 0, S_SLEEP), /* dequeued */
		sw(310000, 1, 0, 20, 0),                          /* 210 us */
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	assert_int_equal(m.wakeups, 5);
	assert_int_equal(m.place[ST_PLACE_PREV], 5);
	assert_int_equal(m.idle_known, 5);
	assert_int_equal(m.idle_found, 2);
	/* 21 never ran */
	assert_int_equal(m.lat_samples, 2);
	assert_true(m.lat_p50_us == 40.0 && m.lat_p99_us == 210.0);
}

/*
 * Lost events: a lost sched_waking is no wakeup (the task just runs, no
 * wait measured); a lost migrate leaves the previous CPU as the choice,
 * and the switch that runs the task elsewhere moves it in the model; a
 * lost switch out of a task woken while running ends at its next event.
 */
static void test_waking_lost(void **state)
{
	struct st_topo t = { 4, core4, llc4, node4 };
	struct st_event ev[] = {
		sw(0, 0, 0, 10, 0), sw(0, 1, 11, 0, S_SLEEP), sw(0, 2, 12, 0, S_SLEEP),
		sw(0, 3, 0, 40, 0),
		sw(1 * MS, 2, 0, 20, 0),                       /* 20: its waking lost */
		waking(2 * MS, 21, 0, 3),                      /* migrate 3 -> 1 lost */
		sw(3 * MS, 1, 0, 21, 0),
		waking(4 * MS, 40, 2, 3),                      /* 40 runs on cpu 3 ... */
		waking(5 * MS, 40, 2, 3),                      /* ... its switch out lost */
	};
	struct st_metrics m = { 0 };

	(void)state;
	assert_int_equal(st_derive(ev, N(ev), &t, 1 * MS, &m), 0);
	assert_int_equal(m.wakeups, 3);
	assert_int_equal(m.place[ST_PLACE_PREV], 3);
	assert_int_equal(m.idle_known, 3);
	assert_int_equal(m.idle_found, 0); /* cpu 3 ran 40 all along */
	/* 21 waited on cpu 3 from 2 ms (busy) and ran on cpu 1 at 3 ms */
	assert_int_equal(m.lat_samples, 1);
	assert_true(m.lat_p50_us == 1000.0);
	for (int l = 0; l < ST_LVL_MAX; l++)
		assert_int_equal(m.migrations[l], 0);
}

/* ---- equivalence on recorded traces ---- */

/*
 * tests/golden/schedtrace/ holds runs recorded in TCG guests with the
 * five events lab run enabled before (sched_wakeup among them): the
 * format files, the guest's topology and one run's raw pages.  Derived
 * from all events (the sched_wakeup way) and with sched_wakeup taken out
 * (the sched_waking + sched_migrate_task way), the counts must agree.
 */
struct fixture_pair {
	struct st_metrics with, without;
	size_t wakeups_recorded, wakings;
};

static void derive_fixture(const char *name, const char *case_dir, unsigned run,
			   struct fixture_pair *fp)
{
	char *dir = xasprintf("%s/tests/golden/schedtrace/%s", lab_root(), name);
	struct trace_run tr = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT;
	struct st_event *all, *strip;
	size_t n = 0;

	if (trace_run_load(&tr, dir, case_dir, run, &err) < 0)
		fail_msg("%s: %s", name, err.buf);
	assert_true(tr.topo.nr_cpus > 0);
	all = xcalloc(tr.nr ? tr.nr : 1, sizeof(*all));
	strip = xcalloc(tr.nr ? tr.nr : 1, sizeof(*strip));
	memset(fp, 0, sizeof(*fp));
	for (size_t i = 0; i < tr.nr; i++) {
		all[i] = tr.ev[i].e;
		fp->wakeups_recorded += all[i].type == ST_WAKEUP;
		fp->wakings += all[i].type == ST_WAKING;
		if (all[i].type != ST_WAKEUP)
			strip[n++] = all[i];
	}
	assert_int_equal(st_derive(all, tr.nr, &tr.topo, ST_WC_GRACE_DEFAULT_NS, &fp->with), 0);
	assert_int_equal(st_derive(strip, n, &tr.topo, ST_WC_GRACE_DEFAULT_NS, &fp->without), 0);
	/* results.jsonl says which event placed the wakeups (wakeups_from) */
	assert_int_equal(fp->with.from_wakeup, 1);
	assert_int_equal(fp->without.from_wakeup, 0);
	fp->with.lost = fp->without.lost = tr.lost;
	free(all);
	free(strip);
	trace_run_release(&tr);
	strbuf_release(&err);
	free(dir);
}

/*
 * The rows that must not move: wakeups, placement, idle found, migrations
 * by level and cause, the samples of wake-to-run.  The wait itself now
 * starts at sched_waking, before the kernel chose the CPU (and before the
 * IPI that queues a task on a remote CPU): never shorter.  The runqueue
 * rows (wc_*, rq_imbalance_*) are not compared: a wakee is queued from its
 * waking now, from its sched_wakeup before (docs/results.md).
 */
static void assert_same_decisions(const struct fixture_pair *fp)
{
	const struct st_metrics *a = &fp->with, *b = &fp->without;

	assert_true(fp->wakeups_recorded > 100 && fp->wakings > 100);
	assert_int_equal(a->wakeups, fp->wakeups_recorded);
	assert_int_equal(a->wakeups, b->wakeups);
	assert_int_equal(a->wakeups_new, b->wakeups_new);
	for (int p = 0; p < ST_PLACE_MAX; p++)
		assert_int_equal(a->place[p], b->place[p]);
	assert_true(a->idle_known > 0);
	assert_int_equal(a->idle_known, b->idle_known);
	assert_int_equal(a->idle_found, b->idle_found);
	assert_true(a->migr_cause[ST_CAUSE_WAKEUP][ST_LVL_LLC] + a->migr_cause[ST_CAUSE_WAKEUP][ST_LVL_NUMA] > 0);
	for (int l = 0; l < ST_LVL_MAX; l++) {
		assert_int_equal(a->migrations[l], b->migrations[l]);
		for (int c = 0; c < ST_CAUSE_MAX; c++)
			assert_int_equal(a->migr_cause[c][l], b->migr_cause[c][l]);
	}
	assert_int_equal(a->lat_samples, b->lat_samples);
	assert_true(b->lat_p50_us >= a->lat_p50_us && b->lat_p99_us >= a->lat_p99_us);
	assert_int_equal(a->rq_tracked, b->rq_tracked);
	assert_int_equal(a->cpus_known, b->cpus_known);
}

static void test_fixture_hackbench(void **state)
{
	struct fixture_pair fp;

	(void)state;
	derive_fixture("hackbench-2s2c2t", "fx-hackbench", 1, &fp);
	assert_same_decisions(&fp);
}

static void test_fixture_schbench(void **state)
{
	struct fixture_pair fp;

	(void)state;
	derive_fixture("schbench-2s2c2t", "fx-schbench", 0, &fp);
	assert_same_decisions(&fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placement_levels),
		cmocka_unit_test(test_prev_before_waker),
		cmocka_unit_test(test_migration_levels),
		cmocka_unit_test(test_idle_found),
		cmocka_unit_test(test_wake_latency),
		cmocka_unit_test(test_migration_causes),
		cmocka_unit_test(test_work_conservation),
		cmocka_unit_test(test_wc_before_tracing),
		cmocka_unit_test(test_no_prev_state),
		cmocka_unit_test(test_json_shares_sum_to_100),
		cmocka_unit_test(test_json_no_wakeups),
		cmocka_unit_test(test_decision_rows_undirected),
		cmocka_unit_test(test_preemptions),
		cmocka_unit_test(test_preemptions_own_absent),
		cmocka_unit_test(test_lacks),
		cmocka_unit_test(test_parse_tasks),
		cmocka_unit_test(test_collect_tasks),
		cmocka_unit_test(test_topo_from_guest_view),
		cmocka_unit_test(test_stats_lost),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_report_without_tracing),
		cmocka_unit_test(test_waking_migrate_rule),
		cmocka_unit_test(test_waking_balance_after),
		cmocka_unit_test(test_waking_runnable),
		cmocka_unit_test(test_waking_lost),
		cmocka_unit_test(test_fixture_hackbench),
		cmocka_unit_test(test_fixture_schbench),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
