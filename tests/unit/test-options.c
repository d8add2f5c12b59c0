/* test-options.c - unit tests of the option parser: strings, numbers and
 * the repeatable OPT_STRVEC (lab matrix --uri A --uri B). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cmd/options.h"
#include "lib/util.h"

static const char usage[] = "lab t [--uri URI]...";

static void test_strvec(void **state)
{
	struct strvec uris = STRVEC_INIT;
	const char *dir = NULL;
	unsigned jobs = 1;
	int nr_pos = -1;
	const struct lab_option opts[] = {
		OPT_STRVEC("uri", &uris, "repeatable"),
		OPT_STRING("dir", &dir, "one"),
		OPT_UINT("jobs", &jobs, 1, 16, "n"),
		OPT_END(),
	};
	const char *argv[] = { "t", "--uri", "qemu:///system", "--dir", "d",
			       "--uri=qemu+ssh://root@h:22/system?keyfile=/k&no_tty=1", "--jobs", "3" };

	assert_int_equal(parse_options(ARRAY_SIZE(argv), argv, opts, usage, NULL, 0, &nr_pos), 0);
	assert_int_equal(nr_pos, 0);
	assert_int_equal(uris.nr, 2);
	assert_string_equal(uris.v[0], "qemu:///system");
	/* '=' splits at the first one only: the URI keeps its own */
	assert_string_equal(uris.v[1], "qemu+ssh://root@h:22/system?keyfile=/k&no_tty=1");
	assert_string_equal(dir, "d");
	assert_int_equal(jobs, 3);
	strvec_clear(&uris);
}

static void test_strvec_errors(void **state)
{
	struct strvec uris = STRVEC_INIT;
	int nr_pos;
	const struct lab_option opts[] = {
		OPT_STRVEC("uri", &uris, "repeatable"),
		OPT_END(),
	};
	const char *missing[] = { "t", "--uri" };
	const char *empty[] = { "t", "--uri=" };
	const char *none[] = { "t" };

	assert_int_equal(parse_options(2, missing, opts, usage, NULL, 0, &nr_pos), -1);
	assert_int_equal(parse_options(2, empty, opts, usage, NULL, 0, &nr_pos), -1);
	assert_int_equal(uris.nr, 0);
	assert_int_equal(parse_options(1, none, opts, usage, NULL, 0, &nr_pos), 0);
	assert_int_equal(uris.nr, 0);
	strvec_clear(&uris);
}

/* --pin alone, --pin=strict, and a positional after --pin stays one */
static void test_optarg(void **state)
{
	const char *pin = NULL, *pos[2];
	int nr_pos;
	const struct lab_option opts[] = {
		OPT_OPTARG("pin", &pin, "yes, or =strict"),
		OPT_END(),
	};
	const char *bare[] = { "t", "--pin", "1s2c" };
	const char *strict[] = { "t", "--pin=strict" };
	const char *empty[] = { "t", "--pin=" };

	(void)state;
	assert_int_equal(parse_options(3, bare, opts, usage, pos, 2, &nr_pos), 0);
	assert_string_equal(pin, "");
	assert_int_equal(nr_pos, 1);
	assert_string_equal(pos[0], "1s2c");
	assert_int_equal(parse_options(2, strict, opts, usage, pos, 2, &nr_pos), 0);
	assert_string_equal(pin, "strict");
	assert_int_equal(parse_options(2, empty, opts, usage, pos, 2, &nr_pos), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strvec),
		cmocka_unit_test(test_strvec_errors),
		cmocka_unit_test(test_optarg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
