/* test-qemu-argv.c - the QEMU command line of a virtual-clock guest: icount,
 * and the same random seed and RTC date every boot; none of it on the wall
 * clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "backend/backend.h"
#include "topo/topo.h"

/* The value after option opt in argv, or NULL when opt is not there. */
static const char *option_value(const struct strvec *argv, const char *opt)
{
	for (size_t i = 0; i + 1 < argv->nr; i++)
		if (!strcmp(argv->v[i], opt))
			return argv->v[i + 1];
	return NULL;
}

static void build(const char *spec, int icount, struct strvec *argv)
{
	struct strbuf err = STRBUF_INIT;
	static struct topo t;
	struct backend_conf conf = { .topo = &t, .accel = ACCEL_TCG, .tcg_single = 1,
				     .icount = icount, .icount_shift = 2 };

	if (topo_parse(spec, &t, &err))
		fail_msg("topo_parse('%s') failed: %s", spec, err.buf);
	strbuf_release(&err);
	qemu_build_argv(&conf, 3, 4, 5, argv);
}

static void test_virtual_clock_same_inputs(void **state)
{
	static const char *const specs[] = { "2s4c,nps=1", "2s4c,llc=2,arch=arm64" };

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct strvec argv = STRVEC_INIT;

		build(specs[i], 1, &argv);
		assert_non_null(option_value(&argv, "-icount"));
		assert_string_equal(option_value(&argv, "-icount"), "shift=2,sleep=off");
		assert_non_null(option_value(&argv, "-seed"));
		assert_string_equal(option_value(&argv, "-seed"), LAB_ICOUNT_SEED);
		assert_non_null(option_value(&argv, "-rtc"));
		assert_string_equal(option_value(&argv, "-rtc"),
				    "base=" LAB_ICOUNT_RTC_BASE ",clock=vm");
		strvec_clear(&argv);
	}
}

static void test_wall_clock_host_inputs(void **state)
{
	struct strvec argv = STRVEC_INIT;

	(void)state;
	build("2s4c,nps=1", 0, &argv);
	assert_null(option_value(&argv, "-icount"));
	assert_null(option_value(&argv, "-seed"));
	assert_null(option_value(&argv, "-rtc"));
	strvec_clear(&argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtual_clock_same_inputs),
		cmocka_unit_test(test_wall_clock_host_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
