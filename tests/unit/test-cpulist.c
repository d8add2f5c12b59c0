/* test-cpulist.c - common/cpulist, the one CPU list parser of the host
 * tools and the runner: counts, bounds and the one-line errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/cpulist.h"

#define NBITS 130   /* three words: lists across word boundaries */

static void test_counts(void **state)
{
	unsigned long bits[CPULIST_LONGS(NBITS)];

	assert_int_equal(CPULIST_LONGS(NBITS), 3);
	assert_int_equal(cpulist_parse("0-3,8,10-11\n", bits, NBITS, NULL, 0), 7);
	assert_true(cpulist_test(bits, 0) && cpulist_test(bits, 3) && cpulist_test(bits, 11));
	assert_false(cpulist_test(bits, 4) || cpulist_test(bits, 9) || cpulist_test(bits, 12));
	/* a CPU named twice counts once */
	assert_int_equal(cpulist_parse("0-2,1,2-3", bits, NBITS, NULL, 0), 4);
	assert_int_equal(cpulist_parse("62-65", bits, NBITS, NULL, 0), 4);
	assert_true(cpulist_test(bits, 63) && cpulist_test(bits, 64));
	assert_int_equal(cpulist_parse("0-129", bits, NBITS, NULL, 0), NBITS);
	assert_int_equal(cpulist_parse("129", bits, NBITS, NULL, 0), 1);
	assert_true(cpulist_test(bits, 129));
	/* empty lists (a memory-only node), blanks around the list */
	assert_int_equal(cpulist_parse("", bits, NBITS, NULL, 0), 0);
	assert_int_equal(cpulist_parse(" \t\r\n", bits, NBITS, NULL, 0), 0);
	assert_int_equal(cpulist_parse("\t5 \r\n", bits, NBITS, NULL, 0), 1);
	/* the bitmap is cleared first */
	assert_int_equal(cpulist_parse("7", bits, NBITS, NULL, 0), 1);
	assert_false(cpulist_test(bits, 5));
	cpulist_set(bits, 100);
	assert_int_equal(cpulist_parse("", bits, NBITS, NULL, 0), 0);
	assert_false(cpulist_test(bits, 100) || cpulist_test(bits, 7));
}

static void expect_bad(const char *list, const char *why)
{
	unsigned long bits[CPULIST_LONGS(NBITS)];
	char err[128] = "";

	if (cpulist_parse(list, bits, NBITS, err, sizeof(err)) != -1)
		fail_msg("cpu list '%s' was accepted", list);
	assert_string_equal(err, why);
	/* no error buffer is fine too */
	assert_int_equal(cpulist_parse(list, bits, NBITS, NULL, 0), -1);
}

static void test_errors(void **state)
{
	expect_bad("130", "cpu list: cpu 130 is out of range 0..129");
	expect_bad("0-130", "cpu list: cpu 130 is out of range 0..129");
	expect_bad("3-1", "cpu list: range 3-1 goes backwards");
	expect_bad("0-", "cpu list: range 0- has no end");
	expect_bad("1,,2", "cpu list: expected a cpu number (at most 9 digits) at offset 2");
	expect_bad(",1", "cpu list: expected a cpu number (at most 9 digits) at offset 0");
	expect_bad("1,", "cpu list: expected a cpu number (at most 9 digits) at offset 2");
	expect_bad("-1", "cpu list: expected a cpu number (at most 9 digits) at offset 0");
	expect_bad("+1", "cpu list: expected a cpu number (at most 9 digits) at offset 0");
	expect_bad("a", "cpu list: expected a cpu number (at most 9 digits) at offset 0");
	expect_bad("9999999999", "cpu list: expected a cpu number (at most 9 digits) at offset 0");
	expect_bad("99999999999999999999", "cpu list: expected a cpu number (at most 9 digits) "
		   "at offset 0");
	expect_bad("1 2", "cpu list: unexpected character at offset 1 (expected ',' or '-')");
	expect_bad("1-2-3", "cpu list: unexpected character at offset 3 (expected ',' or '-')");
	expect_bad("0x1", "cpu list: unexpected character at offset 1 (expected ',' or '-')");
	expect_bad("0-3:2/4", "cpu list: unexpected character at offset 3 (expected ',' or '-')");
}

static void test_error_fits(void **state)
{
	unsigned long bits[CPULIST_LONGS(NBITS)];
	char err[16];

	/* cut to the buffer, still terminated */
	memset(err, 'x', sizeof(err));
	assert_int_equal(cpulist_parse("3-1", bits, NBITS, err, sizeof(err)), -1);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_int_equal(cpulist_parse("3-1", bits, NBITS, err, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
