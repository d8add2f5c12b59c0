/* test-json.c - the one JSON reader: bounds, trailing bytes, depth,
 * one-line errors naming the file, bounded file reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"

static void expect_bad(const char *text, size_t len, size_t max, const char *want)
{
	struct strbuf err = STRBUF_INIT;

	assert_null(json_read(text, len, max, "x.json", &err));
	if (!strstr(err.buf, want) || strncmp(err.buf, "x.json ", 7))
		fail_msg("'%s' does not name x.json and say '%s'", err.buf, want);
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
}

static void test_read_good(void **state)
{
	static const char *const good[] = {
		"{}", " {\"a\": [1, 2.5, \"x\"]}\n", "[]", "3", "\"s\"\r\n\t ",
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct json_object *o = json_read(good[i], strlen(good[i]), 0, "x.json", NULL);

		if (!o)
			fail_msg("'%s' was refused", good[i]);
		json_object_put(o);
	}
}

static void test_read_bad(void **state)
{
	struct strbuf deep = STRBUF_INIT;
	static const char nul[] = "{}\0";

	(void)state;
	expect_bad("", 0, 0, "not valid JSON: truncated");
	expect_bad("{\"a\": [", 7, 0, "truncated");
	expect_bad("{} x", 4, 0, "bytes after its value (offset 3)");
	expect_bad("{}{}", 4, 0, "bytes after");
	expect_bad(nul, 3, 0, "bytes after");
	expect_bad("{\"a\" 1}", 7, 0, "not valid JSON");
	/* strict: what json-c alone lets through, and would not write back */
	expect_bad("01", 2, 0, "not valid JSON");
	expect_bad("{\"c\": 01e-}", 11, 0, "not valid JSON");
	expect_bad("[1,]", 4, 0, "not valid JSON");
	expect_bad("TRUE", 4, 0, "not valid JSON");
	expect_bad("{}", 2, 1, "larger than 1 bytes");
	expect_bad("null ", 5, 0, "is null where a value is expected");
	for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
		strbuf_addch(&deep, '[');
	expect_bad(deep.buf, deep.len, 0, "not valid JSON");
	strbuf_release(&deep);
	/* at the limit is fine */
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		strbuf_addch(&deep, '[');
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		strbuf_addch(&deep, ']');
	{
		struct json_object *o = json_read(deep.buf, deep.len, 0, "x.json", NULL);

		assert_non_null(o);
		json_object_put(o);
	}
	strbuf_release(&deep);
}

static void test_read_object(void **state)
{
	struct strbuf err = STRBUF_INIT;
	static const char doc[] = "{\"s\": \"v\", \"n\": 2, \"x\": null, \"b\": true}";
	struct json_object *o;
	double d = 0;

	(void)state;
	assert_null(json_read_object("[]", 2, 0, "run.json", &err));
	assert_string_equal(err.buf, "run.json is not a JSON object");
	o = json_read_object(doc, strlen(doc), 0, "r", NULL);
	assert_non_null(o);
	assert_string_equal(json_get_str(o, "s"), "v");
	assert_null(json_get_str(o, "n"));
	assert_int_equal(json_get_num(o, "n", &d), 0);
	assert_true(d == 2);
	assert_int_equal(json_get_num(o, "x", &d), 1);
	assert_int_equal(json_get_num(o, "nope", &d), 1);
	assert_int_equal(json_get_num(o, "s", &d), -1);
	assert_true(json_has(o, "b", json_type_boolean));
	assert_false(json_has(o, "b", json_type_int));
	json_object_put(o);
	strbuf_release(&err);
}

static void test_read_file(void **state)
{
	char dir[] = "/tmp/test-json-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct json_object *o;
	char *path;
	int missing = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/v.json", dir);
	assert_null(json_read_file(path, "v.json", 0, &missing, &err));
	assert_true(missing);
	assert_non_null(strstr(err.buf, "cannot read '"));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"verdict\": \"PASS\"}\n", f);
	fclose(f);
	strbuf_reset(&err);
	o = json_read_file(path, "v.json", 0, &missing, &err);
	assert_non_null(o);
	assert_false(missing);
	assert_string_equal(json_get_str(o, "verdict"), "PASS");
	json_object_put(o);
	/* a bound is checked before reading */
	assert_null(json_read_file(path, "v.json", 8, &missing, &err));
	assert_non_null(strstr(err.buf, "is not a regular file of at most 8 bytes"));
	/* parse errors name what the caller called the file, else the path */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"verdict\": ", f);
	fclose(f);
	strbuf_reset(&err);
	assert_null(json_read_file(path, NULL, 0, NULL, &err));
	assert_int_equal(strncmp(err.buf, path, strlen(path)), 0);
	assert_non_null(strstr(err.buf, "truncated"));
	strbuf_reset(&err);
	assert_null(json_read_file(dir, NULL, 0, NULL, &err));
	assert_non_null(strstr(err.buf, "not a regular file"));
	unlink(path);
	rmdir(dir);
	free(path);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_good),
		cmocka_unit_test(test_read_bad),
		cmocka_unit_test(test_read_object),
		cmocka_unit_test(test_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
