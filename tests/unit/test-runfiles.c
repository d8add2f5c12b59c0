/* test-runfiles.c - the results model: each file of a run directory has
 * one writer and one reader, and what one writes the other reads back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/runfiles.h"

static char dir[] = "/tmp/test-runfiles-XXXXXX";

static void put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static void drop(const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);

	unlink(path);
	free(path);
}

static void test_run_json(void **state)
{
	struct json_object *run = run_json_new("run", "1s2c", "1s2c0", "1 socket", "qemu");
	struct run_info info = RUN_INFO_INIT;
	struct strbuf err = STRBUF_INIT;
	int missing = 0;

	(void)state;
	assert_int_equal(run_load(&info, dir, &missing, &err), -1);
	assert_true(missing);
	run_info_release(&info);
	results_add_str(run, "kernel", "6.1.0");
	results_add_str(run, "suite", "smoke");
	results_add_str(run, "label", NULL);
	assert_int_equal(run_json_write(dir, run), 0);
	json_object_put(run);
	strbuf_reset(&err);
	assert_int_equal(run_load(&info, dir, &missing, &err), 0);
	assert_string_equal(info.kernel, "6.1.0");
	assert_string_equal(info.spec, "1s2c");
	assert_string_equal(info.spec_resolved, "1s2c0");
	assert_string_equal(info.suite, "smoke");
	assert_string_equal(info.scenario, "");
	assert_string_equal(info.label, "");
	assert_string_equal(info.backend, "qemu");
	assert_string_equal(json_get_str(info.json, "lab_version"), LAB_VERSION);
	assert_string_equal(json_get_str(info.json, "command"), "run");
	run_info_release(&info);
	assert_null(info.json);
	/* damage is one line naming the file */
	put("run.json", "{\"kernel\": \"6.1\"} {}");
	strbuf_reset(&err);
	assert_int_equal(run_load(&info, dir, &missing, &err), -1);
	assert_false(missing);
	assert_non_null(strstr(err.buf, "run.json is not valid JSON: bytes after"));
	run_info_release(&info);
	strbuf_reset(&err);
	assert_int_equal(run_parse(&info, "[]", 2, &err), -1);
	assert_string_equal(err.buf, "run.json is not a JSON object");
	run_info_release(&info);
	drop("run.json");
	strbuf_release(&err);
}

static void test_verdict_json(void **state)
{
	struct json_object *v = verdict_json_new("CRASH", "kernel panic", "PASS");
	struct strbuf err = STRBUF_INIT;
	char buf[16] = "unchanged";

	(void)state;
	assert_int_equal(verdict_load(dir, buf, sizeof(buf), &err), -1);
	assert_string_equal(buf, "unchanged");
	assert_non_null(strstr(err.buf, "verdict.json"));
	json_object_object_add(v, "records", json_object_new_int(3));
	assert_int_equal(verdict_write(dir, v), 0);
	json_object_put(v);
	strbuf_reset(&err);
	assert_int_equal(verdict_load(dir, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "CRASH");
	put("verdict.json", "{\"reason\": \"x\"}\n");
	strbuf_reset(&err);
	assert_int_equal(verdict_load(dir, buf, sizeof(buf), &err), -1);
	assert_non_null(strstr(err.buf, "has no verdict"));
	put("verdict.json", "{\"verdict\": ");
	strbuf_reset(&err);
	assert_int_equal(verdict_load(dir, buf, sizeof(buf), &err), -1);
	assert_non_null(strstr(err.buf, "verdict.json is not valid JSON: truncated"));
	drop("verdict.json");
	strbuf_release(&err);
}

static void test_cases_json(void **state)
{
	struct json_object *doc, *cases;
	struct strbuf err = STRBUF_INIT;
	int missing = 0;
	static const char *const bad[][2] = {
		{ "", "not valid JSON: truncated" },
		{ "[]", "not a JSON object: no list of cases" },
		{ "{}", "no list of cases (no \"cases\" array)" },
		{ "{\"cases\": {}}", "no \"cases\" array" },
		{ "{\"cases\": []} x", "not valid JSON: bytes after" },
	};

	(void)state;
	assert_null(cases_load(dir, &cases, &missing, &err));
	assert_true(missing);
	put("cases.json", "{\"cases\": [{\"case\": \"a\"}, 3], \"unparsable_records\": 1}\n");
	strbuf_reset(&err);
	doc = cases_load(dir, &cases, &missing, &err);
	assert_non_null(doc);
	/* the reader keeps every case: what a case needs is each reader's call */
	assert_int_equal(json_object_array_length(cases), 2);
	json_object_put(doc);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		strbuf_reset(&err);
		cases = (struct json_object *)1;
		assert_null(cases_parse(bad[i][0], strlen(bad[i][0]), &cases, &err));
		assert_null(cases);
		if (!strstr(err.buf, bad[i][1]) || strncmp(err.buf, "cases.json ", 11))
			fail_msg("'%s': got '%s'", bad[i][0], err.buf);
		assert_null(strchr(err.buf, '\n'));
	}
	drop("cases.json");
	strbuf_release(&err);
}

static void test_host_faults(void **state)
{
	static const char log[] =
		"{\"t_s\": 1, \"case\": \"a\", \"run\": 0, \"fault\": \"f\", \"kind\": \"pause\", "
		"\"action\": \"stop\", \"ok\": true}\n"
		"\n"
		"not json\n"
		"{\"case\": \"a\"}\n"
		"{\"case\": \"b\", \"action\": \"cont\"}";
	struct json_object *a;
	struct strbuf err = STRBUF_INIT;
	unsigned bad = 7;

	(void)state;
	/* lenient: the good lines, the others counted */
	a = host_faults_parse(log, strlen(log), 0, &bad, &err);
	assert_non_null(a);
	assert_int_equal(json_object_array_length(a), 2);
	assert_int_equal(bad, 2);
	assert_int_equal(err.len, 0);
	json_object_put(a);
	/* strict: the first bad line is the error, with its line number */
	assert_null(host_faults_parse(log, strlen(log), 1, &bad, &err));
	assert_non_null(strstr(err.buf, "host-faults.jsonl is not valid JSON"));
	assert_non_null(strstr(err.buf, "(line 3)"));
	strbuf_reset(&err);
	assert_null(host_faults_parse("{\"case\": \"a\"}\n", 14, 1, &bad, &err));
	assert_string_equal(err.buf, "host-faults.jsonl: line 1 is not a fault action");
	/* a line longer than the bound is damage, not a reason to read on */
	{
		struct strbuf big = STRBUF_INIT;

		strbuf_addstr(&big, "{\"case\": \"a\", \"action\": \"");
		for (size_t i = 0; i < HOST_FAULT_LINE_MAX; i++)
			strbuf_addch(&big, 'x');
		strbuf_addstr(&big, "\"}\n");
		a = host_faults_parse(big.buf, big.len, 0, &bad, NULL);
		assert_int_equal(json_object_array_length(a), 0);
		assert_int_equal(bad, 1);
		json_object_put(a);
		strbuf_release(&big);
	}
	/* no file is no action; a file is read through the same parser */
	strbuf_reset(&err);
	a = host_faults_load(dir, 1, &bad, &err);
	assert_non_null(a);
	assert_int_equal(json_object_array_length(a), 0);
	json_object_put(a);
	put("host-faults.jsonl", log);
	a = host_faults_load(dir, 0, &bad, &err);
	assert_int_equal(json_object_array_length(a), 2);
	json_object_put(a);
	assert_null(host_faults_load(dir, 1, &bad, &err));
	drop("host-faults.jsonl");
	strbuf_release(&err);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_json),
		cmocka_unit_test(test_verdict_json),
		cmocka_unit_test(test_cases_json),
		cmocka_unit_test(test_host_faults),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
