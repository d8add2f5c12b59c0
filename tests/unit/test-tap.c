/* test-tap.c - unit tests of the runner's TAP line parser (guest/runner/
 * tap.c), on the lines the kernel's sched_ext selftests' runner prints. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "runner/tap.h"

static int parse(const char *line, struct tap_line *t)
{
	return tap_parse_line(line, strlen(line), t);
}

static void test_selftest_lines(void **state)
{
	struct tap_line t;

	(void)state;
	/* tools/testing/selftests/sched_ext/runner.c: "%s %u %s # %s\n" */
	assert_int_equal(parse("ok 1 minimal # \n", &t), 1);
	assert_int_equal(t.result, TAP_OK);
	assert_int_equal(t.number, 1);
	assert_string_equal(t.name, "minimal");
	assert_string_equal(t.reason, "");
	assert_int_equal(parse("not ok 12 select_cpu_dfl_nodispatch # ", &t), 1);
	assert_int_equal(t.result, TAP_NOT_OK);
	assert_int_equal(t.number, 12);
	assert_string_equal(t.name, "select_cpu_dfl_nodispatch");
	assert_int_equal(parse("ok 3 hotplug # SKIP ", &t), 1);
	assert_int_equal(t.result, TAP_SKIP);
	assert_string_equal(t.name, "hotplug");
	assert_string_equal(t.reason, "");
}

static void test_generic_tap(void **state)
{
	struct tap_line t;

	(void)state;
	assert_int_equal(parse("ok 4 - name with words # skip no cpu hotplug\r\n", &t), 1);
	assert_int_equal(t.result, TAP_SKIP);
	assert_string_equal(t.name, "name with words");
	assert_string_equal(t.reason, "no cpu hotplug");
	assert_int_equal(parse("not ok 5 flaky # TODO known", &t), 1);
	assert_int_equal(t.result, TAP_NOT_OK);
	assert_int_equal(t.todo, 1);
	assert_string_equal(t.reason, "known");
	/* a SKIP on not ok stays a failure */
	assert_int_equal(parse("not ok 6 x # SKIP y", &t), 1);
	assert_int_equal(t.result, TAP_NOT_OK);
	assert_int_equal(parse("ok", &t), 1);
	assert_int_equal(t.number, 0);
	assert_string_equal(t.name, "");
}

static void test_not_test_lines(void **state)
{
	struct tap_line t;
	char big[600];

	(void)state;
	assert_int_equal(parse("TAP version 13", &t), 0);
	assert_int_equal(parse("1..30", &t), 0);
	assert_int_equal(parse("# a comment", &t), 0);
	assert_int_equal(parse("okay then", &t), 0);
	assert_int_equal(parse("not okay", &t), 0);
	assert_int_equal(parse("===== START =====", &t), 0);
	assert_int_equal(parse("", &t), 0);
	/* a long name is cut, never overflowed */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "ok 1 ", 5);
	assert_int_equal(parse(big, &t), 1);
	assert_int_equal(strlen(t.name), sizeof(t.name) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selftest_lines),
		cmocka_unit_test(test_generic_tap),
		cmocka_unit_test(test_not_test_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
