/* test-fidelity.c - the fidelity report: improvements signed by the metric's
 * direction and statistic, noise and the 2% floor, agreement per metric,
 * cases lined up by id, and the limits named for a TCG NUMA guest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "results/fidelity.h"

/* cases.json with one case "c" holding time (lower, amean) and rps
 * (higher, median) */
static struct json_object *cases(double time, double time_cv, double rps)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "{\"cases\": [{\"case\": \"c\", \"metrics\": {"
		 "\"time\": {\"better\": \"lower\", \"statistic\": \"amean\", \"mean\": %g, \"cv_pct\": %g},"
		 "\"rps\": {\"better\": \"higher\", \"statistic\": \"median\", \"median\": %g, \"mean\": 1,"
		 " \"cv_pct\": 0.5}}},"
		 " {\"case\": \"only-here\", \"metrics\": {\"x\": {\"mean\": 1, \"cv_pct\": 0}}}]}",
		 time, time_cv, rps);
	return json_tokener_parse(buf);
}

static struct json_object *first(struct json_object *cj)
{
	struct json_object *a;

	json_object_object_get_ex(cj, "cases", &a);
	return json_object_array_get_idx(a, 0);
}

static void test_change(void **state)
{
	struct json_object *b = cases(10, 1, 100), *t = cases(8, 3, 110);
	struct fidelity_change c;

	(void)state;
	/* lower is better: 10 -> 8 is +20% */
	c = fidelity_change(first(b), first(t), "time");
	assert_true(c.ok);
	assert_true(c.pct > 19.99 && c.pct < 20.01);
	assert_true(c.noise_pct > 2.99 && c.noise_pct < 3.01);
	/* the median, not the mean, for a median metric */
	c = fidelity_change(first(b), first(t), "rps");
	assert_true(c.pct > 9.99 && c.pct < 10.01);
	c = fidelity_change(first(b), first(t), "missing");
	assert_false(c.ok);
	c = fidelity_change(first(b), NULL, "time");
	assert_false(c.ok);
	json_object_put(b);
	json_object_put(t);
}

static void test_classify(void **state)
{
	struct fidelity_change up = { 1, 10, 1 }, up2 = { 1, 4, 1 }, down = { 1, -6, 2 };
	struct fidelity_change noisy = { 1, 10, 15 }, tiny = { 1, 1.5, 0 }, none = { 0, 0, 0 };

	(void)state;
	assert_int_equal(fidelity_classify(&up, &up2, 2), FID_SAME);
	assert_int_equal(fidelity_classify(&up, &down, 2), FID_OPPOSITE);
	assert_int_equal(fidelity_classify(&noisy, &up, 2), FID_GUEST_NOISE);
	assert_int_equal(fidelity_classify(&up, &tiny, 2), FID_BARE_NOISE);
	assert_int_equal(fidelity_classify(&tiny, &noisy, 2), FID_BOTH_NOISE);
	assert_int_equal(fidelity_classify(&up, &none, 2), FID_NO_DATA);
}

static void test_table_and_limits(void **state)
{
	struct json_object *gb = cases(10, 1, 100), *gt = cases(8, 1, 90);
	struct json_object *bb = cases(5, 1, 100), *bt = cases(4.5, 1, 100.5);
	struct json_object *grun = json_tokener_parse(
		"{\"accel\": \"tcg\", \"spec_resolved\": \"2s2c1t,llc=2,nps=1,mem=512M,dist=20\","
		" \"topology\": \"2s2c = 2 sockets x 1 LLC x 2 cores x 1 thread, 2 nodes, 4 CPUs\"}");
	struct json_object *brun = json_tokener_parse(
		"{\"backend\": \"bare\", \"spec_resolved\": \"1s2c1t,llc=2,nps=1,mem=11481M,dist=20\","
		" \"host_topology\": {\"nodes\": [{}]}}");
	struct strbuf out = STRBUF_INIT;
	struct fidelity_counts k;

	(void)state;
	k = fidelity_table(gb, gt, bb, bt, &out);
	/* time: +20% guest, +10% bare; rps: -10% guest, +0.5% bare; x: no data on bare */
	assert_int_equal(k.same, 1);
	assert_int_equal(k.one_sided, 1);
	assert_int_equal(k.no_data, 0);
	assert_int_equal(k.both_noise, 1);
	assert_non_null(strstr(out.buf, "c time"));
	assert_non_null(strstr(out.buf, "same direction"));
	assert_non_null(strstr(out.buf, "only guest moved"));
	strbuf_reset(&out);
	fidelity_limits(grun, brun, &out);
	assert_non_null(strstr(out.buf, "TCG timing"));
	assert_non_null(strstr(out.buf, "NUMA latency"));
	assert_non_null(strstr(out.buf, "the topologies differ"));
	json_object_put(gb);
	json_object_put(gt);
	json_object_put(bb);
	json_object_put(bt);
	json_object_put(grun);
	json_object_put(brun);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_table_and_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
