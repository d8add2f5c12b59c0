/* test-resume.c - stopped and resumed runs: the ETA of a run under way, the
 * plan of the cases left, and cases.json over a stopped part and its resume. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/plan.h"
#include "common/wire.h"
#include "results/runreport.h"
#include "run/estimate.h"
#include "run/resume.h"

static void test_eta(void **state)
{
	const struct case_estimate est[3] = { { 10, 0, 0 }, { 20, 0, 0 }, { 30, 0, 0 } };
	double took[3] = { -1, -1, -1 };

	(void)state;
	/* nothing finished: the expectations as they are */
	assert_float_equal(estimate_left_s(est, took, 3, -1, 0), 60, 1e-9);
	/* the first case took twice its expectation: so will the others */
	took[0] = 20;
	assert_float_equal(estimate_left_s(est, took, 3, -1, 0), 100, 1e-9);
	/* the running one counts what it has left */
	assert_float_equal(estimate_left_s(est, took, 3, 1, 15), 25 + 60, 1e-9);
	/* past its expectation: the others slow down as much, and it still
	 * has a tenth of its own: scale (20 + 50) / (10 + 20) */
	assert_float_equal(estimate_left_s(est, took, 3, 1, 50),
			   20 * 70.0 / 30 / 10 + 30 * 70.0 / 30, 1e-9);
	took[1] = took[2] = 1;
	assert_float_equal(estimate_left_s(est, took, 3, -1, 0), 0, 1e-9);
}

static void test_eta_groups(void **state)
{
	/* two scenarios: a counted workload that ran 3x slower than recorded,
	 * then a timed one that takes what it took before */
	const struct case_estimate est[4] = { { 10, 1, 0 }, { 10, 1, 0 }, { 20, 1, 1 }, { 20, 1, 1 } };
	double took[4] = { 30, -1, -1, -1 };

	(void)state;
	/* nothing of group 1 finished yet: the slowdown seen so far */
	assert_float_equal(estimate_left_s(est, took, 4, -1, 0), 30 + 60 + 60, 1e-9);
	took[1] = 30;
	took[2] = 20;
	/* group 1 runs as recorded: only its own finished case counts */
	assert_float_equal(estimate_left_s(est, took, 4, -1, 0), 20, 1e-9);
}

static const char plan_text[] =
	"schedlab-plan\t1\n"
	"case\ta\nscenario\ts\nsource\ts.ini:1\nworkload\texec\nruns\t1\nwarmup\t0\ndeadline\t60\ncounters\ttasks\nend\n"
	"case\tb\nscenario\ts\nsource\ts.ini:1\nworkload\texec\nruns\t1\nwarmup\t0\ndeadline\t60\ncounters\ttasks\nend\n"
	"case\tc\nscenario\ts\nsource\ts.ini:1\nworkload\texec\nruns\t1\nwarmup\t0\ndeadline\t60\ncounters\ttasks\nend\n";

static void test_plan_without_cases(void **state)
{
	struct strvec skip = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct plan p = { 0 };
	char perr[256];
	unsigned kept;

	(void)state;
	strvec_push(&skip, "a");
	strvec_push(&skip, "c");
	assert_int_equal(plan_without_cases(plan_text, strlen(plan_text), &skip, &out, &kept, &err), 0);
	assert_int_equal(kept, 1);
	assert_int_equal(plan_parse(out.buf, out.len, &p, perr, sizeof(perr)), 0);
	assert_int_equal(p.nr_cases, 1);
	assert_string_equal(p.cases[0].id, "b");
	plan_release(&p);
	assert_int_equal(plan_without_cases("junk", 4, &skip, &out, &kept, &err), -1);
	assert_non_null(strstr(err.buf, "cannot read the plan"));
	strvec_clear(&skip);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* A records.bin: one frame per line of `lines` ("E {json}" an event, "R
 * {json}" a result, "END" the end), sequence numbers from 0. */
static void write_records(const char *path, const char *const *lines, size_t n)
{
	FILE *f = fopen(path, "w");
	uint8_t buf[1024];

	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		char count[16];
		const char *payload = lines[i] + 2;
		uint16_t type = lines[i][0] == 'E' ? WIRE_EVENT : WIRE_RESULT;
		size_t len;

		if (!strcmp(lines[i], "END")) {
			snprintf(count, sizeof(count), "%zu", i);
			payload = count;
			type = WIRE_END;
		}
		len = wire_encode((uint32_t)i, type, payload, (uint32_t)strlen(payload), buf, sizeof(buf));
		assert_true(len > 0);
		assert_int_equal(fwrite(buf, 1, len, f), len);
	}
	fclose(f);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Only the boot arguments that change how long a case takes are a key. */
static void test_timing_args(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	estimate_timing_args("console=ttyS0 pti=off  lab.mode=probe mitigations=auto nosmt "
			     "quiet preempt=full nopti_not_this\n", &sb);
	assert_string_equal(sb.buf, "mitigations=auto nosmt preempt=full pti=off");
	strbuf_reset(&sb);
	estimate_timing_args(NULL, &sb);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

static void write_run(const char *root, const char *name, const char *run_json, double s)
{
	char path[PATH_MAX], text[256];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/run.json", root, name);
	write_text(path, run_json);
	snprintf(path, sizeof(path), "%s/%s/cases.json", root, name);
	snprintf(text, sizeof(text), "{\"cases\": [{\"case\": \"a\", \"scenario\": \"s\", "
		 "\"duration_s\": %g}]}", s);
	write_text(path, text);
}

/*
 * History is what runs booted alike recorded: another accel, clock,
 * kernel or pti= setting is not, whatever else matches; a run.json
 * without clock ran on the wall clock.
 */
static void test_history_key(void **state)
{
	char root[] = "/tmp/test-estimate.XXXXXX";
	const char *same = "{\"spec_resolved\": \"1s2c\", \"kernel\": \"6.1.0-57-amd64\", "
			   "\"accel\": \"tcg\", \"cmdline\": \"console=ttyS0 pti=off lab.mode=probe\"}";
	struct estimate_key key = { "1s2c", "tcg", "wall", "6.1.0-57-amd64",
				    "console=ttyS1 lab.mode=run pti=off" };
	struct estimate_history h = ESTIMATE_HISTORY_INIT;
	struct plan p = { 0 };
	struct case_estimate est[3];
	char perr[256], cmd[64];

	(void)state;
	assert_non_null(mkdtemp(root));
	write_run(root, "same", same, 10);
	write_run(root, "kvm", "{\"spec_resolved\": \"1s2c\", \"kernel\": \"6.1.0-57-amd64\", "
		  "\"accel\": \"kvm\", \"cmdline\": \"pti=off\"}", 1);
	write_run(root, "virtual", "{\"spec_resolved\": \"1s2c\", \"kernel\": \"6.1.0-57-amd64\", "
		  "\"accel\": \"tcg\", \"clock\": \"virtual\", \"cmdline\": \"pti=off\"}", 100);
	write_run(root, "pti-on", "{\"spec_resolved\": \"1s2c\", \"kernel\": \"6.1.0-57-amd64\", "
		  "\"accel\": \"tcg\", \"cmdline\": \"console=ttyS0\"}", 30);
	write_run(root, "other-kernel", "{\"spec_resolved\": \"1s2c\", \"kernel\": \"6.12.1\", "
		  "\"accel\": \"tcg\", \"cmdline\": \"pti=off\"}", 50);
	estimate_history_load(&h, root, &key);
	assert_int_equal(h.runs, 1);
	assert_int_equal(plan_parse(plan_text, strlen(plan_text), &p, perr, sizeof(perr)), 0);
	assert_int_equal(estimate_cases(&h, &p, est), 1);
	assert_float_equal(est[0].s, 10, 1e-9);
	estimate_history_release(&h);
	/* without a key, every run counts */
	estimate_history_load(&h, root, NULL);
	assert_int_equal(h.runs, 5);
	estimate_history_release(&h);
	/* a resume learns from its own finished cases: b and c, of a's
	 * scenario and without history, take a's 10 s, not the deadline */
	memset(est, 0, sizeof(est));
	for (int i = 0; i < 3; i++)
		est[i].s = 60;
	est[0].samples = 1;
	snprintf(cmd, sizeof(cmd), "%s/same", root);
	assert_int_equal(estimate_from_own(cmd, &p, est), 2);
	assert_float_equal(est[1].s, 10, 1e-9);
	assert_int_equal(est[2].samples, 1);
	assert_float_equal(est[0].s, 60, 1e-9);
	assert_int_equal(estimate_from_own(NULL, &p, est), 0);
	plan_release(&p);
	for (int i = 0; i < 5; i++) {
		static const char *const runs[] = { "same", "kvm", "virtual", "pti-on", "other-kernel" };
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s/run.json", root, runs[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s/cases.json", root, runs[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", root, runs[i]);
		rmdir(path);
	}
	rmdir(root);
}

static struct json_object *case_named(struct json_object *cases, const char *id)
{
	for (size_t i = 0; i < json_object_array_length(cases); i++) {
		struct json_object *c = json_object_array_get_idx(cases, i), *v;

		if (json_object_object_get_ex(c, "case", &v) && !strcmp(json_object_get_string(v), id))
			return c;
	}
	return NULL;
}

static void test_stopped_and_resumed(void **state)
{
	static const char *const part0[] = {
		"E {\"event\": \"case_start\", \"t_ns\": 1000000000, \"case\": \"a\"}",
		"R {\"case\": \"a\", \"run\": 0, \"warmup\": false, \"status\": \"ok\"}",
		"E {\"event\": \"case_end\", \"t_ns\": 3500000000, \"case\": \"a\"}",
		"E {\"event\": \"case_start\", \"t_ns\": 4000000000, \"case\": \"b\"}",
		"R {\"case\": \"b\", \"run\": 0, \"warmup\": false, \"status\": \"fail\"}",
	};
	static const char *const part1[] = {
		"E {\"event\": \"case_start\", \"t_ns\": 1000000000, \"case\": \"b\"}",
		"R {\"case\": \"b\", \"run\": 0, \"warmup\": false, \"status\": \"ok\"}",
		"E {\"event\": \"case_end\", \"t_ns\": 2000000000, \"case\": \"b\"}",
		"E {\"event\": \"case_start\", \"t_ns\": 2000000000, \"case\": \"c\"}",
		"R {\"case\": \"c\", \"run\": 0, \"warmup\": false, \"status\": \"ok\"}",
		"E {\"event\": \"case_end\", \"t_ns\": 2500000000, \"case\": \"c\"}",
		"END",
	};
	char dir[] = "/tmp/test-resume.XXXXXX", path[128];
	struct strbuf err = STRBUF_INIT;
	struct json_object *cases = NULL, *doc, *st, *v, *a;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/plan.txt", dir);
	write_text(path, plan_text);
	snprintf(path, sizeof(path), "%s/records.bin", dir);
	write_records(path, part0, 5);
	assert_int_equal(run_stop_record(dir, 15, "a", "b"), 0);
	/* what the stop did to the guest is charged to b, until b runs again */
	snprintf(path, sizeof(path), "%s/console.log", dir);
	write_text(path, "[    1.0] schedlab: case a start\n[    2.0] schedlab: case b start\n"
		   "[    3.0] Kernel panic - not syncing: NMI: Not continuing\n");

	/* stopped: only a is judged; b (under way) and c are named */
	assert_int_equal(run_report_build(dir, &cases, &err), 0);
	assert_int_equal(json_object_array_length(cases), 1);
	a = case_named(cases, "a");
	assert_non_null(a);
	assert_true(json_object_object_get_ex(a, "duration_s", &v));
	assert_float_equal(json_object_get_double(v), 2.5, 1e-9);
	json_object_put(cases);
	snprintf(path, sizeof(path), "%s/cases.json", dir);
	doc = json_object_from_file(path);
	assert_true(json_object_object_get_ex(doc, "stopped", &st));
	assert_true(json_object_object_get_ex(st, "during", &v));
	assert_string_equal(json_object_get_string(v), "b");
	assert_true(json_object_object_get_ex(st, "not_run", &v));
	assert_int_equal(json_object_array_length(v), 2);
	json_object_put(doc);

	/* resumed: b counts from its new start (its failed half-run and its
	 * console are gone) */
	snprintf(path, sizeof(path), "%s/" RUN_RESUME_PREFIX "1", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/" RUN_RESUME_PREFIX "1/records.bin", dir);
	write_records(path, part1, 7);
	assert_int_equal(run_report_build(dir, &cases, &err), 0);
	assert_int_equal(json_object_array_length(cases), 3);
	assert_true(json_object_object_get_ex(case_named(cases, "b"), "verdict", &v));
	assert_string_equal(json_object_get_string(v), "PASS");
	json_object_put(cases);
	snprintf(path, sizeof(path), "%s/cases.json", dir);
	doc = json_object_from_file(path);
	assert_false(json_object_object_get_ex(doc, "stopped", &st));
	json_object_put(doc);
	snprintf(path, sizeof(path), "%s/results.jsonl", dir);
	{
		size_t len;
		char *text = read_file(path, &len);
		unsigned lines = 0;

		for (size_t i = 0; text && i < len; i++)
			lines += text[i] == '\n';
		assert_int_equal(lines, 3);
		assert_null(strstr(text, "\"fail\""));
		free(text);
	}
	strbuf_release(&err);
	{
		static const char *const files[] = {
			"plan.txt", "records.bin", "console.log", RUN_STOPPED_FILE, "cases.json", "results.jsonl",
			RUN_RESUME_PREFIX "1/records.bin", RUN_RESUME_PREFIX "1",
		};

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
			assert_int_equal(remove(path), 0);
		}
		assert_int_equal(rmdir(dir), 0);
	}
}

/* A resume boots as the stopped run did: what run.json says it booted with. */
static void test_boot_settings(void **state)
{
	static const char with[] = "{\"smt\": \"off\", \"sched_feat\": [\"NO_WA_IDLE\", \"NO_SIS_UTIL\"], "
				   "\"sched_knob\": {\"base_slice_ns\": 3000000}, \"preempt\": \"full\"}";
	static const char odd[] = "{\"smt\": \"on\", \"sched_feat\": \"NO_WA_IDLE\", \"sched_knob\": [], "
				  "\"preempt\": 1}";
	struct run_resume rr = RUN_RESUME_INIT;
	struct json_object *o;

	(void)state;
	o = json_tokener_parse(with);
	run_resume_boot(&rr, o);
	assert_string_equal(rr.sched_feat, "NO_WA_IDLE,NO_SIS_UTIL");
	assert_string_equal(rr.sched_knob, "base_slice_ns=3000000");
	assert_string_equal(rr.preempt, "full");
	assert_int_equal(rr.smt_off, 1);
	json_object_put(o);
	run_resume_release(&rr);
	o = json_tokener_parse(odd);
	run_resume_boot(&rr, o);
	assert_null(rr.sched_feat);
	assert_null(rr.sched_knob);
	assert_null(rr.preempt);
	assert_int_equal(rr.smt_off, 0);
	json_object_put(o);
	run_resume_release(&rr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eta),
		cmocka_unit_test(test_eta_groups),
		cmocka_unit_test(test_timing_args),
		cmocka_unit_test(test_history_key),
		cmocka_unit_test(test_plan_without_cases),
		cmocka_unit_test(test_stopped_and_resumed),
		cmocka_unit_test(test_boot_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
