/* test-fault-report.c - faults and invariants in lab run's per-case report:
 * broken invariants and unrestored faults FAIL with evidence; the timeline. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/plan.h"
#include "results/runreport.h"
#include "common/wire.h"

static void emit_sb(void *ctx, const char *s, size_t len)
{
	strbuf_add(ctx, s, len);
}

static void add_case(struct strbuf *plan, const char *id)
{
	struct plan_case c;
	char err[256];

	memset(&c, 0, sizeof(c));
	strcpy(c.id, id);
	strcpy(c.scenario, id);
	strcpy(c.source, "f.ini:1");
	strcpy(c.workload, "hackbench");
	c.runs = 1;
	c.deadline_s = 60;
	strcpy(c.metrics[0].name, "time");
	strcpy(c.metrics[0].statistic, "amean");
	c.nr_metrics = 1;
	strcpy(c.faults[0].name, "churn");
	strcpy(c.faults[0].kind, "cpu_hotplug");
	strcpy(c.faults[0].target, "random");
	strcpy(c.faults[0].where, "f.ini:9");
	c.faults[0].period_ms = 500;
	c.nr_faults = 1;
	strcpy(c.invariants[0].name, "online");
	strcpy(c.invariants[0].kind, "cpus_online_at_end");
	strcpy(c.invariants[0].where, "f.ini:20");
	c.nr_invariants = 1;
	assert_int_equal(plan_write_case(&c, emit_sb, plan, err, sizeof(err)), 0);
}

static void add_record(struct strbuf *bin, uint32_t *seq, uint16_t type, const char *json)
{
	size_t len = strlen(json);
	char *frame = malloc(WIRE_HDR_LEN + len);
	size_t n = wire_encode((*seq)++, type, json, (uint32_t)len, frame, WIRE_HDR_LEN + len);

	assert_true(n > 0);
	strbuf_add(bin, frame, n);
	free(frame);
}

static const char result_ok[] =
	"{\"case\": \"%s\", \"run\": 0, \"warmup\": false, \"status\": \"ok\", "
	"\"metrics\": {\"time\": {\"value\": 1.5, \"unit\": \"s\", \"better\": \"lower\"}}}";

/* case_start, what the driver says, the result, case_end */
static void add_run(struct strbuf *bin, uint32_t *seq, const char *id, const char *inv_ok,
		    const char *restored, int with_invariant)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "{\"event\": \"case_start\", \"case\": \"%s\"}", id);
	add_record(bin, seq, WIRE_EVENT, buf);
	snprintf(buf, sizeof(buf), "{\"event\": \"run_start\", \"case\": \"%s\", \"run\": 0}", id);
	add_record(bin, seq, WIRE_EVENT, buf);
	snprintf(buf, sizeof(buf), "{\"event\": \"fault\", \"case\": \"%s\", \"run\": 0, "
		 "\"t_run_s\": 0.2, \"fault\": \"churn\", \"kind\": \"cpu_hotplug\", "
		 "\"action\": \"offline\", \"target\": \"cpu3\", \"ok\": true}", id);
	add_record(bin, seq, WIRE_EVENT, buf);
	if (with_invariant) {
		snprintf(buf, sizeof(buf), "{\"event\": \"invariant\", \"case\": \"%s\", \"run\": 0, "
			 "\"invariant\": \"online\", \"kind\": \"cpus_online_at_end\", \"ok\": %s, "
			 "\"summary\": \"CPU 3 offline at the end\", \"evidence\": [{\"offline\": "
			 "\"3\"}]}", id, inv_ok);
		add_record(bin, seq, WIRE_EVENT, buf);
	}
	snprintf(buf, sizeof(buf), "{\"event\": \"fault_summary\", \"case\": \"%s\", \"run\": 0, "
		 "\"fault\": \"churn\", \"kind\": \"cpu_hotplug\", \"actions\": 1, \"failed\": 0, "
		 "\"errors\": 0, \"started\": true, \"restored\": %s, \"first_error\": "
		 "\"online cpu3: Device or resource busy\"}", id, restored);
	add_record(bin, seq, WIRE_EVENT, buf);
	snprintf(buf, sizeof(buf), result_ok, id);
	add_record(bin, seq, WIRE_RESULT, buf);
	snprintf(buf, sizeof(buf), "{\"event\": \"case_end\", \"case\": \"%s\"}", id);
	add_record(bin, seq, WIRE_EVENT, buf);
}

static struct json_object *case_named(struct json_object *cases, const char *id)
{
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		struct json_object *c = json_object_array_get_idx(cases, i), *v;

		if (json_object_object_get_ex(c, "case", &v) && !strcmp(json_object_get_string(v), id))
			return c;
	}
	fail_msg("no case '%s'", id);
	return NULL;
}

static const char *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no '%s'", key);
	return json_object_get_string(v);
}

static void test_fault_verdicts(void **state)
{
	struct strbuf plan = STRBUF_INIT, bin = STRBUF_INIT;
	char dir[] = "/tmp/test-runreport-XXXXXX", *p;
	struct json_object *cases = NULL, *c, *v;
	struct strbuf err = STRBUF_INIT;
	uint32_t seq = 0;
	char end[16];

	(void)state;
	assert_non_null(mkdtemp(dir));
	plan_write_header(emit_sb, &plan);
	add_case(&plan, "good");
	add_case(&plan, "broken");
	add_case(&plan, "dirty");
	add_case(&plan, "silent");
	add_run(&bin, &seq, "good", "true", "true", 1);
	add_run(&bin, &seq, "broken", "false", "true", 1);
	add_run(&bin, &seq, "dirty", "true", "false", 1);
	add_run(&bin, &seq, "silent", "true", "true", 0);
	snprintf(end, sizeof(end), "%u", seq);
	add_record(&bin, &seq, WIRE_END, end);
	p = xasprintf("%s/plan.txt", dir);
	assert_int_equal(write_file_atomic(p, plan.buf, plan.len), 0);
	free(p);
	p = xasprintf("%s/records.bin", dir);
	assert_int_equal(write_file_atomic(p, bin.buf, bin.len), 0);
	free(p);

	assert_int_equal(run_report_build(dir, &cases, &err), 3);
	c = case_named(cases, "good");
	assert_string_equal(get(c, "verdict"), "PASS");
	/* the timeline lines the fault up with the run */
	json_object_object_get_ex(c, "timeline", &v);
	assert_int_equal(json_object_array_length(v), 1);
	assert_string_equal(get(json_object_array_get_idx(v, 0), "target"), "cpu3");
	assert_string_equal(get(json_object_array_get_idx(v, 0), "t_run_s"), "0.2");

	c = case_named(cases, "broken");
	assert_string_equal(get(c, "verdict"), "FAIL");
	assert_string_equal(get(c, "reason"), "invariant 'online' (cpus_online_at_end) broken in "
			    "run 0: CPU 3 offline at the end");
	json_object_object_get_ex(c, "invariants", &v);
	assert_string_equal(json_object_to_json_string_ext(
				    json_object_object_get(json_object_array_get_idx(v, 0), "evidence"),
				    JSON_C_TO_STRING_PLAIN), "[{\"offline\":\"3\"}]");

	c = case_named(cases, "dirty");
	assert_string_equal(get(c, "verdict"), "FAIL");
	assert_string_equal(get(c, "reason"), "fault 'churn' did not restore what it changed in "
			    "run 0: online cpu3: Device or resource busy");
	c = case_named(cases, "silent");
	assert_string_equal(get(c, "verdict"), "FAIL");
	assert_string_equal(get(c, "reason"), "run 0 reported 0 of 1 invariants and 1 of 1 fault "
			    "summaries");
	json_object_put(cases);

	/* the derived file says the same */
	p = xasprintf("%s/cases.json", dir);
	{
		struct json_object *doc = json_object_from_file(p), *arr;

		assert_non_null(doc);
		json_object_object_get_ex(doc, "cases", &arr);
		assert_string_equal(get(case_named(arr, "broken"), "verdict"), "FAIL");
		json_object_put(doc);
	}
	unlink(p);
	free(p);
	p = xasprintf("%s/results.jsonl", dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/plan.txt", dir);
	unlink(p);
	free(p);
	p = xasprintf("%s/records.bin", dir);
	unlink(p);
	free(p);
	rmdir(dir);
	strbuf_release(&plan);
	strbuf_release(&bin);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
