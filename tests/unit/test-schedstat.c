/* test-schedstat.c - unit tests of host-tools/results/schedstat.c: the column layouts
 * of /proc/schedstat versions 15, 16 and 17, deltas, summaries, bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/schedstat.h"

/*
 * The texts below are built by hand from the layouts documented in the
 * kernel's Documentation/scheduler/sched-stats.rst and printed by
 * show_schedstat() (kernel/sched/stats.c):
 *
 *   cpu<N>: yld_count, 0, sched_count, sched_goidle, ttwu_count, ttwu_local,
 *           rq_cpu_time, run_delay, pcount
 *   v15/v16 domain<N> <mask>: 3 blocks of 8 (lb_count, lb_balanced,
 *           lb_failed, lb_imbalance, lb_gained, lb_hot_gained, lb_nobusyq,
 *           lb_nobusyg), then alb x3, sbe x3, sbf x3, ttwu x3
 *   v17 domain<N> <name> <mask>: 3 blocks of 11 (lb_imbalance split into
 *           load, util, task, misfit), then the same 12
 *
 * Block order: v15 idle, busy, newidle (enum cpu_idle_type in 6.1); v16 and
 * v17 busy, idle, newidle (the enum reordered in v16).  Numbers in the
 * "probe" lines encode their column: block b (1-3), field f -> b*10+f for
 * v15/v16 and b*100+f for v17, tail k -> 40+k, so a wrong column shows.
 */

/* A 4-CPU guest (2 cores x 2 threads) on a 6.1 kernel, after some work. */
static const char v15_text[] =
	"version 15\n"
	"timestamp 4295123456\n"
	"cpu0 12 0 52311 20118 30544 11021 9876543210 123456789 32190\n"
	"domain0 00000003 410 380 2 45 28 0 17 3 95 90 0 12 5 0 3 1 1502 1430 4 88 67 1 40 12 0 0 0 0 0 0 0 0 0 2210 310 0\n"
	"domain1 0000000f 207 190 1 61 15 0 9 2 48 45 1 9 2 0 1 0 980 901 6 143 71 2 33 9 1 0 1 0 0 0 0 0 0 5012 702 0\n"
	"cpu1 3 0 48110 19004 29110 10412 9123456789 110234567 30111\n"
	"domain0 00000003 398 371 1 40 26 0 15 2 90 86 0 10 4 0 2 0 1444 1390 2 80 50 0 37 11 0 0 0 0 0 0 0 0 0 2105 288 0\n"
	"domain1 0000000f 199 181 2 55 16 1 8 3 44 40 0 7 3 0 1 0 951 870 5 131 76 1 30 8 2 1 1 0 0 0 0 0 0 4870 690 0\n"
	"cpu2 0 0 50022 19877 30001 10900 9555555555 121212121 31000\n"
	"domain0 0000000c 405 377 3 43 25 0 16 4 92 88 1 11 4 0 2 1 1490 1401 3 85 60 0 39 10 0 0 0 0 0 0 0 0 0 2190 300 0\n"
	"domain1 0000000f 201 185 0 58 16 0 9 2 46 43 0 8 3 0 1 0 965 880 4 140 81 1 31 10 0 0 0 0 0 0 0 0 0 4950 701 0\n"
	"cpu3 1 0 47001 18650 28900 10100 9000000000 100000000 29876\n"
	"domain0 0000000c 390 365 2 38 24 0 14 3 88 84 0 9 4 0 2 0 1410 1350 2 77 55 0 36 9 0 0 0 0 0 0 0 0 0 2050 270 0\n"
	"domain1 0000000f 195 180 1 50 14 0 8 2 42 39 0 6 3 0 1 0 930 850 3 125 70 1 29 7 1 0 1 0 0 0 0 0 0 4800 680 0\n";

static const char v15_probe[] =
	"version 15\n"
	"timestamp 100\n"
	"cpu0 1 0 3 4 5 6 7 8 9\n"
	"domain0 00000003 11 12 13 14 15 16 17 18 21 22 23 24 25 26 27 28 31 32 33 34 35 36 37 38 41 42 43 44 45 46 47 48 49 50 51 52\n";

static const char v16_probe[] =
	"version 16\n"
	"timestamp 100\n"
	"cpu0 1 0 3 4 5 6 7 8 9\n"
	"domain0 00000003 11 12 13 14 15 16 17 18 21 22 23 24 25 26 27 28 31 32 33 34 35 36 37 38 41 42 43 44 45 46 47 48 49 50 51 52\n";

static const char v17_probe[] =
	"version 17\n"
	"timestamp 100\n"
	"cpu0 1 0 3 4 5 6 7 8 9\n"
	"domain0 SMT 00000003 101 102 103 104 105 106 107 108 109 110 111 201 202 203 204 205 206 207 208 209 210 211 301 302 303 304 305 306 307 308 309 310 311 41 42 43 44 45 46 47 48 49 50 51 52\n";

/* A 6.13-style text: 4 CPUs, SMT + MC + PKG, names printed. */
static const char v17_text[] =
	"version 17\n"
	"timestamp 4294990000\n"
	"cpu0 0 0 1000 400 700 300 50000000 2000000 900\n"
	"domain0 SMT 00000003 10 9 0 0 0 1 0 1 0 0 0 20 18 1 5 0 2 0 3 0 1 0 30 25 0 7 1 0 0 4 0 2 1 0 0 0 0 0 0 0 0 0 40 4 0\n"
	"domain1 MC 0000000f 5 5 0 0 0 0 0 0 0 0 0 8 6 1 12 3 0 0 2 0 1 0 15 12 1 9 0 3 0 3 0 0 1 1 0 1 0 0 0 0 0 0 60 6 0\n"
	"cpu1 0 0 1100 420 720 310 51000000 2100000 950\n"
	"domain0 SMT 00000003 11 10 0 0 0 0 0 1 0 0 0 21 19 0 4 0 1 0 2 0 0 0 31 26 1 6 2 0 0 5 0 1 0 0 0 0 0 0 0 0 0 0 41 5 0\n"
	"domain1 MC 0000000f 6 6 0 0 0 0 0 0 0 0 0 9 7 0 10 2 0 0 2 0 0 1 16 13 0 8 1 2 0 2 0 1 0 0 0 0 0 0 0 0 0 0 61 7 0\n"
	"cpu2 0 0 900 380 650 290 49000000 1900000 880\n"
	"domain0 SMT 0000000c 9 9 0 0 0 0 0 0 0 0 0 19 17 0 3 0 0 1 2 0 0 0 29 24 0 5 0 0 0 3 0 1 0 0 0 0 0 0 0 0 0 0 39 3 0\n"
	"domain1 MC 0000000f 4 4 0 0 0 0 0 0 0 0 0 7 6 0 8 1 1 0 1 0 0 0 14 11 0 6 0 1 0 2 0 0 0 0 0 0 0 0 0 0 0 0 59 5 0\n"
	"cpu3 0 0 950 390 660 295 49500000 1950000 890\n"
	"domain0 SMT 0000000c 8 8 0 0 0 0 0 0 0 0 0 18 16 1 2 0 0 0 1 0 0 0 28 23 0 4 0 0 0 2 0 0 0 0 0 0 0 0 0 0 0 0 38 2 0\n"
	"domain1 MC 0000000f 3 3 0 0 0 0 0 0 0 0 0 6 5 0 6 0 0 1 1 0 0 0 13 10 0 5 0 0 1 2 0 0 0 0 0 0 0 0 0 0 0 0 58 4 0\n";

static void parse_ok(const char *text, struct schedstat *ss)
{
	struct strbuf err = STRBUF_INIT;
	int ret = schedstat_parse(text, strlen(text), ss, &err);

	if (ret)
		fail_msg("unexpected parse error: %s", err.buf);
	strbuf_release(&err);
}

static void parse_bad(const char *text, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct schedstat ss = SCHEDSTAT_INIT;

	assert_int_equal(schedstat_parse(text, strlen(text), &ss, &err), -1);
	if (!strstr(err.buf, want))
		fail_msg("error '%s' does not contain '%s'", err.buf, want);
	assert_null(strchr(err.buf, '\n'));
	assert_null(ss.cpus);
	assert_int_equal(ss.nr_cpus, 0);
	strbuf_release(&err);
}

static void test_v15_columns(void **state)
{
	struct schedstat ss = SCHEDSTAT_INIT;
	const struct schedstat_domain *d;

	(void)state;
	parse_ok(v15_probe, &ss);
	assert_int_equal(ss.version, 15);
	assert_int_equal(ss.timestamp, 100);
	assert_int_equal(ss.nr_cpus, 1);
	assert_int_equal(ss.cpus[0].yld_count, 1);
	assert_int_equal(ss.cpus[0].sched_count, 3);   /* field 2 is the legacy 0 */
	assert_int_equal(ss.cpus[0].sched_goidle, 4);
	assert_int_equal(ss.cpus[0].ttwu_count, 5);
	assert_int_equal(ss.cpus[0].ttwu_local, 6);
	assert_int_equal(ss.cpus[0].rq_cpu_time, 7);
	assert_int_equal(ss.cpus[0].run_delay, 8);
	assert_int_equal(ss.cpus[0].pcount, 9);
	assert_int_equal(ss.cpus[0].nr_domains, 1);
	d = &ss.cpus[0].domains[0];
	assert_string_equal(d->cpumask, "00000003");
	assert_string_equal(d->name, "");
	/* v15: the first block is CPU_IDLE */
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].count, 11);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].balanced, 12);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].failed, 13);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].imbalance, 14);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].gained, 15);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].hot_gained, 16);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].nobusyq, 17);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].nobusyg, 18);
	assert_int_equal(d->lb[SCHEDSTAT_BUSY].count, 21);
	assert_int_equal(d->lb[SCHEDSTAT_BUSY].nobusyg, 28);
	assert_int_equal(d->lb[SCHEDSTAT_NEWIDLE].count, 31);
	assert_int_equal(d->lb[SCHEDSTAT_NEWIDLE].imbalance, 34);
	assert_int_equal(d->lb[SCHEDSTAT_NEWIDLE].imbalance_load, 0);
	assert_int_equal(d->alb_count, 41);
	assert_int_equal(d->alb_failed, 42);
	assert_int_equal(d->alb_pushed, 43);
	assert_int_equal(d->sbe_count, 44);
	assert_int_equal(d->sbf_pushed, 49);
	assert_int_equal(d->ttwu_wake_remote, 50);
	assert_int_equal(d->ttwu_move_affine, 51);
	assert_int_equal(d->ttwu_move_balance, 52);
	schedstat_release(&ss);
	assert_null(ss.cpus);
}

static void test_v16_swaps_idle_and_busy(void **state)
{
	struct schedstat ss = SCHEDSTAT_INIT;
	const struct schedstat_domain *d;

	(void)state;
	parse_ok(v16_probe, &ss);
	assert_int_equal(ss.version, 16);
	d = &ss.cpus[0].domains[0];
	/* the same columns as v15, but the first block is now __CPU_NOT_IDLE */
	assert_int_equal(d->lb[SCHEDSTAT_BUSY].count, 11);
	assert_int_equal(d->lb[SCHEDSTAT_BUSY].imbalance, 14);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].count, 21);
	assert_int_equal(d->lb[SCHEDSTAT_IDLE].nobusyg, 28);
	assert_int_equal(d->lb[SCHEDSTAT_NEWIDLE].count, 31);
	assert_int_equal(d->ttwu_move_balance, 52);
	schedstat_release(&ss);
}

static void test_v17_split_imbalance_and_names(void **state)
{
	struct schedstat ss = SCHEDSTAT_INIT;
	const struct schedstat_domain *d;
	const struct schedstat_lb *busy, *idle;

	(void)state;
	parse_ok(v17_probe, &ss);
	assert_int_equal(ss.version, 17);
	d = &ss.cpus[0].domains[0];
	assert_string_equal(d->name, "SMT");
	assert_string_equal(d->cpumask, "00000003");
	busy = &d->lb[SCHEDSTAT_BUSY];
	idle = &d->lb[SCHEDSTAT_IDLE];
	assert_int_equal(busy->count, 101);
	assert_int_equal(busy->balanced, 102);
	assert_int_equal(busy->failed, 103);
	assert_int_equal(busy->imbalance_load, 104);
	assert_int_equal(busy->imbalance_util, 105);
	assert_int_equal(busy->imbalance_task, 106);
	assert_int_equal(busy->imbalance_misfit, 107);
	assert_int_equal(busy->imbalance, 104 + 105 + 106 + 107);
	assert_int_equal(busy->gained, 108);
	assert_int_equal(busy->hot_gained, 109);
	assert_int_equal(busy->nobusyq, 110);
	assert_int_equal(busy->nobusyg, 111);
	assert_int_equal(idle->count, 201);
	assert_int_equal(idle->imbalance, 204 + 205 + 206 + 207);
	assert_int_equal(d->lb[SCHEDSTAT_NEWIDLE].nobusyg, 311);
	assert_int_equal(d->alb_count, 41);
	assert_int_equal(d->ttwu_move_balance, 52);
	schedstat_release(&ss);
}

static void test_realistic_texts(void **state)
{
	struct schedstat a = SCHEDSTAT_INIT, b = SCHEDSTAT_INIT;

	(void)state;
	parse_ok(v15_text, &a);
	assert_int_equal(a.nr_cpus, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(a.cpus[i].cpu, i);
		assert_int_equal(a.cpus[i].nr_domains, 2);
		assert_string_equal(a.cpus[i].domains[1].cpumask, "0000000f");
	}
	assert_int_equal(a.cpus[2].run_delay, 121212121);
	assert_int_equal(a.cpus[3].domains[1].ttwu_wake_remote, 4800);
	/* cpu1 domain1 idle lb_imbalance is column 4 of the first block */
	assert_int_equal(a.cpus[1].domains[1].lb[SCHEDSTAT_IDLE].imbalance, 55);

	parse_ok(v17_text, &b);
	assert_int_equal(b.nr_cpus, 4);
	assert_string_equal(b.cpus[3].domains[1].name, "MC");
	assert_int_equal(b.cpus[0].domains[1].lb[SCHEDSTAT_IDLE].imbalance_load, 12);
	assert_int_equal(b.cpus[0].domains[1].lb[SCHEDSTAT_IDLE].imbalance, 12 + 3);
	schedstat_release(&a);
	schedstat_release(&b);
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			fail_msg("no '%s' in summary (path %s)", k, path);
	return o;
}

static uint64_t get_u64(struct json_object *o, const char *path)
{
	return json_object_get_uint64(get(o, path));
}

static void test_summary_v15_sums_levels(void **state)
{
	struct schedstat a = SCHEDSTAT_INIT;
	struct json_object *j;

	(void)state;
	parse_ok(v15_text, &a);
	/* a snapshot summarises like a delta from zero */
	j = schedstat_summary_json(&a);
	assert_int_equal(get_u64(j, "version"), 15);
	assert_int_equal(get_u64(j, "cpus"), 4);
	/* sums of the columns above, added by hand */
	assert_int_equal(get_u64(j, "cpu.sched_count"), 52311 + 48110 + 50022 + 47001);
	assert_int_equal(get_u64(j, "cpu.yld_count"), 12 + 3 + 0 + 1);
	assert_int_equal(get_u64(j, "cpu.pcount"), 32190 + 30111 + 31000 + 29876);
	assert_int_equal(get_u64(j, "domains.domain0.cpus"), 4);
	assert_int_equal(get_u64(j, "domains.domain0.idle.lb_count"), 410 + 398 + 405 + 390);
	assert_int_equal(get_u64(j, "domains.domain0.busy.lb_count"), 95 + 90 + 92 + 88);
	assert_int_equal(get_u64(j, "domains.domain0.newidle.lb_count"), 1502 + 1444 + 1490 + 1410);
	assert_int_equal(get_u64(j, "domains.domain1.newidle.lb_imbalance"), 143 + 131 + 140 + 125);
	assert_int_equal(get_u64(j, "domains.domain1.ttwu_wake_remote"), 5012 + 4870 + 4950 + 4800);
	assert_int_equal(get_u64(j, "domains.domain1.alb_pushed"), 1 + 1 + 0 + 1);
	assert_false(json_object_object_get_ex(get(j, "domains.domain1.busy"),
					       "lb_imbalance_load", NULL));
	json_object_put(j);
	schedstat_release(&a);
}

static void test_summary_v17_by_name(void **state)
{
	struct schedstat a = SCHEDSTAT_INIT;
	struct json_object *j;

	(void)state;
	parse_ok(v17_text, &a);
	j = schedstat_summary_json(&a);
	assert_int_equal(get_u64(j, "domains.SMT.level"), 0);
	assert_int_equal(get_u64(j, "domains.MC.level"), 1);
	assert_int_equal(get_u64(j, "domains.MC.cpus"), 4);
	/* idle is the second block in v17: lb_count 8, 9, 7, 6 */
	assert_int_equal(get_u64(j, "domains.MC.idle.lb_count"), 8 + 9 + 7 + 6);
	assert_int_equal(get_u64(j, "domains.MC.busy.lb_count"), 5 + 6 + 4 + 3);
	assert_int_equal(get_u64(j, "domains.MC.idle.lb_imbalance_load"), 12 + 10 + 8 + 6);
	assert_int_equal(get_u64(j, "domains.MC.idle.lb_imbalance_util"), 3 + 2 + 1 + 0);
	assert_int_equal(get_u64(j, "domains.MC.idle.lb_imbalance"),
			 (12 + 3) + (10 + 2) + (8 + 1 + 1) + (6 + 0 + 0 + 1));
	assert_int_equal(get_u64(j, "domains.SMT.ttwu_wake_remote"), 40 + 41 + 39 + 38);
	json_object_put(j);
	schedstat_release(&a);
}

static void test_summary_repeated_numa_names(void **state)
{
	/* two NUMA levels (e.g. NPS4 on two sockets): both are named "NUMA" */
	static const char text[] =
		"version 17\ntimestamp 7\n"
		"cpu0 0 0 1 0 0 0 0 0 0\n"
		"domain0 MC 00000003 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"domain1 NUMA 0000000f 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"domain2 NUMA 000000ff 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"cpu1 0 0 1 0 0 0 0 0 0\n"
		"domain0 MC 00000003 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"domain1 NUMA 0000000f 20 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		"domain2 NUMA 000000ff 30 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	struct schedstat a = SCHEDSTAT_INIT;
	struct json_object *j;

	(void)state;
	parse_ok(text, &a);
	j = schedstat_summary_json(&a);
	assert_int_equal(get_u64(j, "domains.MC.busy.lb_count"), 11);
	assert_int_equal(get_u64(j, "domains.NUMA.busy.lb_count"), 22);
	assert_int_equal(get_u64(j, "domains.NUMA#2.busy.lb_count"), 33);
	assert_int_equal(get_u64(j, "domains.NUMA#2.level"), 2);
	json_object_put(j);
	schedstat_release(&a);
}

static void test_delta(void **state)
{
	static const char before[] =
		"version 16\ntimestamp 1000\n"
		"cpu0 5 0 4294967290 100 200 50 1000000 5000 10\n"
		"domain0 00000003 10 9 0 4294967000 0 0 0 0 20 18 1 5 0 0 0 0 30 25 0 7 1 0 0 4 0 0 0 0 0 0 0 0 0 40 4 0\n"
		"cpu1 5 0 100 100 200 50 1000000 5000 10\n"
		"domain0 00000003 10 9 0 4 0 0 0 0 20 18 1 5 0 0 0 0 30 25 0 7 1 0 0 4 0 0 0 0 0 0 0 0 0 40 4 0\n"
		"cpu2 1 0 100 100 200 50 1000000 5000 10\n";
	static const char after[] =
		"version 16\ntimestamp 1250\n"
		"cpu0 7 0 5 150 260 70 3000000 9000 25\n"
		"domain0 00000003 15 12 1 104 2 0 0 0 25 22 1 9 0 0 1 0 50 40 0 9 2 0 0 6 1 0 1 0 0 0 0 0 0 55 9 1\n"
		/* cpu1's domains were rebuilt: counters restarted near zero */
		"cpu1 6 0 300 120 240 60 2000000 6000 20\n"
		"domain0 00000003 1 1 0 0 0 0 0 0 2 2 0 0 0 0 0 0 3 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4 0 0\n"
		/* cpu2 went offline, cpu3 came online */
		"cpu3 1 0 100 100 200 50 1000000 5000 10\n";
	struct schedstat b = SCHEDSTAT_INIT, a = SCHEDSTAT_INIT, d = SCHEDSTAT_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct schedstat_domain *dd;
	struct json_object *j;

	(void)state;
	parse_ok(before, &b);
	parse_ok(after, &a);
	assert_int_equal(schedstat_delta(&b, &a, &d, &err), 0);
	assert_int_equal(d.version, 16);
	assert_int_equal(d.timestamp, 250);
	assert_int_equal(d.nr_cpus, 2);
	assert_int_equal(d.cpus_skipped, 2);
	assert_int_equal(d.domains_reset, 1);

	assert_int_equal(d.cpus[0].cpu, 0);
	/* sched_count is a 32-bit counter that wrapped: 4294967290 -> 5 is +11 */
	assert_int_equal(d.cpus[0].sched_count, 11);
	assert_int_equal(d.cpus[0].yld_count, 2);
	assert_int_equal(d.cpus[0].rq_cpu_time, 2000000);
	assert_int_equal(d.cpus[0].pcount, 15);
	assert_int_equal(d.cpus[0].nr_domains, 1);
	dd = &d.cpus[0].domains[0];
	assert_string_equal(dd->cpumask, "00000003");
	/* v16: first block busy */
	assert_int_equal(dd->lb[SCHEDSTAT_BUSY].count, 5);
	assert_int_equal(dd->lb[SCHEDSTAT_BUSY].failed, 1);
	/* lb_imbalance wrapped too: 4294967000 -> 104 is +400 */
	assert_int_equal(dd->lb[SCHEDSTAT_BUSY].imbalance, 400);
	assert_int_equal(dd->lb[SCHEDSTAT_IDLE].count, 5);
	assert_int_equal(dd->lb[SCHEDSTAT_IDLE].imbalance, 4);
	assert_int_equal(dd->lb[SCHEDSTAT_NEWIDLE].count, 20);
	assert_int_equal(dd->alb_count, 1);
	assert_int_equal(dd->ttwu_wake_remote, 15);
	assert_int_equal(dd->ttwu_move_affine, 5);
	assert_int_equal(dd->ttwu_move_balance, 1);

	/* cpu1 keeps its runqueue counters but not the reset domains */
	assert_int_equal(d.cpus[1].cpu, 1);
	assert_int_equal(d.cpus[1].sched_count, 200);
	assert_int_equal(d.cpus[1].nr_domains, 0);

	j = schedstat_summary_json(&d);
	assert_int_equal(get_u64(j, "cpus_skipped"), 2);
	assert_int_equal(get_u64(j, "domains_reset"), 1);
	assert_int_equal(get_u64(j, "jiffies"), 250);
	assert_int_equal(get_u64(j, "cpu.sched_count"), 211);
	assert_int_equal(get_u64(j, "domains.domain0.cpus"), 1);
	assert_int_equal(get_u64(j, "domains.domain0.busy.lb_imbalance"), 400);
	json_object_put(j);

	schedstat_release(&d);
	schedstat_release(&a);
	schedstat_release(&b);
	strbuf_release(&err);
}

static void test_delta_layout_change_and_version(void **state)
{
	static const char before[] =
		"version 17\ntimestamp 1\n"
		"cpu0 0 0 10 0 0 0 0 0 0\n"
		"domain0 MC 00000003 1 1 0 0 0 0 0 0 0 0 0 1 1 0 0 0 0 0 0 0 0 0 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	static const char after[] =
		"version 17\ntimestamp 2\n"
		"cpu0 0 0 20 0 0 0 0 0 0\n"
		"domain0 MC 00000001 5 5 0 0 0 0 0 0 0 0 0 5 5 0 0 0 0 0 0 0 0 0 5 5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	struct schedstat b = SCHEDSTAT_INIT, a = SCHEDSTAT_INIT, d = SCHEDSTAT_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	parse_ok(before, &b);
	parse_ok(after, &a);
	assert_int_equal(schedstat_delta(&b, &a, &d, &err), 0);
	assert_int_equal(d.nr_cpus, 1);
	assert_int_equal(d.cpus[0].sched_count, 10);
	assert_int_equal(d.cpus[0].nr_domains, 0); /* span changed: not comparable */
	assert_int_equal(d.domains_reset, 1);
	schedstat_release(&d);
	schedstat_release(&a);

	parse_ok(v15_probe, &a);
	assert_int_equal(schedstat_delta(&b, &a, &d, &err), -1);
	assert_non_null(strstr(err.buf, "version changed from 17 to 15"));
	assert_null(d.cpus);
	schedstat_release(&a);
	schedstat_release(&b);
	strbuf_release(&err);
}

static void test_delta_json_from_texts(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *j;

	(void)state;
	j = schedstat_delta_json(v15_text, v15_text, &err);
	assert_non_null(j);
	assert_int_equal(get_u64(j, "cpus"), 4);
	assert_int_equal(get_u64(j, "cpu.sched_count"), 0);
	assert_int_equal(get_u64(j, "domains.domain1.newidle.lb_count"), 0);
	json_object_put(j);
	assert_null(schedstat_delta_json(v15_text, "version 15\ntimestamp 1\n", &err));
	assert_string_equal(err.buf, "after: line 2: truncated: no cpu lines");
	assert_null(schedstat_delta_json("", v15_text, &err));
	assert_string_equal(err.buf, "before: line 1: empty text: not /proc/schedstat");
	assert_null(schedstat_delta_json(v15_text, v17_text, &err));
	assert_string_equal(err.buf, "schedstat version changed from 15 to 17 between the snapshots");
	strbuf_release(&err);
}

static void test_malformed(void **state)
{
	char *cut;
	size_t n;

	(void)state;
	parse_bad("", "not /proc/schedstat");
	parse_bad("hello\n", "no 'version N' line");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 0", "last line has no newline");
	parse_bad("version 14\ntimestamp 1\ncpu0 0 0 0 0 0 0 0 0 0\n", "version 14 is not supported");
	parse_bad("version 18\n", "version 18 is not supported");
	parse_bad("version 15\n", "truncated: no timestamp");
	parse_bad("version 15\ntimestamp 5\n", "truncated: no cpu lines");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0\n", "cpu0 has 8 fields, expected 9");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 x 0 0 0\n", "field 6 is not a number");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 99999999999999999999\n",
		  "field 9 is not a number");
	parse_bad("version 15\ntimestamp 5\ncpu1 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0\n",
		  "cpu0 out of order");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0\n",
		  "out of order");
	parse_bad("version 15\ntimestamp 5\ndomain0 3 0\n", "domain line before any cpu line");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 0\ndomain1 3\n",
		  "expected domain0 of cpu0");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 0\nfoo 1\n", "unexpected 'foo'");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 0\n\n", "empty line");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 0\t\n", "unexpected character");
	parse_bad("version 15\ntimestamp 5\ntimestamp 6\n", "bad timestamp");
	parse_bad("version 15\ntimestamp 5\ncpu0 0 0 0 0 0 0 0 0 0\n"
		  "domain0 0000000g 11 12 13 14 15 16 17 18 21 22 23 24 25 26 27 28 31 32 33 34 35 36 37 38 41 42 43 44 45 46 47 48 49 50 51 52\n",
		  "bad cpumask");
	/* a v17 line in a v15 file, and the reverse */
	parse_bad("version 15\ntimestamp 100\ncpu0 1 0 3 4 5 6 7 8 9\n"
		  "domain0 SMT 00000003 101 102 103 104 105 106 107 108 109 110 111 201 202 203 204 205 206 207 208 209 210 211 301 302 303 304 305 306 307 308 309 310 311 41 42 43 44 45 46 47 48 49 50 51 52\n",
		  "expected 37 for version 15");
	parse_bad("version 17\ntimestamp 100\ncpu0 1 0 3 4 5 6 7 8 9\n"
		  "domain0 00000003 11 12 13 14 15 16 17 18 21 22 23 24 25 26 27 28 31 32 33 34 35 36 37 38 41 42 43 44 45 46 47 48 49 50 51 52\n",
		  "expected 47 for version 17");
	parse_bad("version 17\ntimestamp 100\ncpu0 1 0 3 4 5 6 7 8 9\n"
		  "domain0 S-MT 00000003 101 102 103 104 105 106 107 108 109 110 111 201 202 203 204 205 206 207 208 209 210 211 301 302 303 304 305 306 307 308 309 310 311 41 42 43 44 45 46 47 48 49 50 51 52\n",
		  "bad domain name");

	/* every truncation of a valid text in the middle of a line fails */
	n = strlen(v17_text);
	cut = malloc(n);
	for (size_t len = 1; len < n; len++) {
		struct schedstat ss = SCHEDSTAT_INIT;
		struct strbuf err = STRBUF_INIT;
		int ret;

		memcpy(cut, v17_text, len);
		ret = schedstat_parse(cut, len, &ss, &err);
		/* whole lines after the first cpu line parse; a cut line does not */
		if (v17_text[len - 1] == '\n' && len > strlen("version 17\ntimestamp 4294990000\n"))
			assert_int_equal(ret, 0);
		else
			assert_int_equal(ret, -1);
		schedstat_release(&ss);
		strbuf_release(&err);
	}
	free(cut);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v15_columns),
		cmocka_unit_test(test_v16_swaps_idle_and_busy),
		cmocka_unit_test(test_v17_split_imbalance_and_names),
		cmocka_unit_test(test_realistic_texts),
		cmocka_unit_test(test_summary_v15_sums_levels),
		cmocka_unit_test(test_summary_v17_by_name),
		cmocka_unit_test(test_summary_repeated_numa_names),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_delta_layout_change_and_version),
		cmocka_unit_test(test_delta_json_from_texts),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
