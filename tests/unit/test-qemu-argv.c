/* test-qemu-argv.c - the QEMU command line of a virtual-clock guest: icount,
 * and the same random seed and RTC date every boot; none of it on the wall
 * clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void test_version_number(void **state)
{
	(void)state;
	assert_int_equal(qemu_version_number("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)"),
			 70222);
	assert_int_equal(qemu_version_number("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)"),
			 100002);
	assert_int_equal(qemu_version_number("QEMU emulator version 8.1"), 80100);
	assert_int_equal(qemu_version_number("unknown"), 0);
	assert_int_equal(qemu_version_number(NULL), 0);
	assert_true(qemu_version_number("QEMU emulator version 8.0.5") < QEMU_ICOUNT_SPLIT_BUDGET);
	assert_true(qemu_version_number("QEMU emulator version 10.0.2") >= QEMU_ICOUNT_SPLIT_BUDGET);
}

/* A QEMU unpacked from a .deb (<root>/usr/bin) gets -L <root>/usr/share/qemu
 * and its own qboot; the host's and a bare name get neither. */
static void test_unpacked_qemu_data_dir(void **state)
{
	char root[] = "/tmp/test-qemu-argv.XXXXXX", path[256];
	struct strvec argv = STRVEC_INIT;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/usr", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/usr/share", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/usr/share/qemu", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/usr/share/qemu/qboot.rom", root);
	fclose(fopen(path, "w"));

	unsetenv("LAB_QEMU");
	unsetenv("LAB_FIRMWARE");
	assert_null(qemu_data_dir_for(TOPO_ARCH_X86_64));
	build("1s2c", 1, &argv);
	assert_null(option_value(&argv, "-L"));
	strvec_clear(&argv);

	snprintf(path, sizeof(path), "%s/usr/bin/qemu-system-x86_64", root);
	qemu_use_binary(TOPO_ARCH_X86_64, path);
	assert_string_equal(qemu_binary_for(TOPO_ARCH_X86_64), path);
	build("1s2c", 1, &argv);
	assert_string_equal(argv.v[0], path);
	snprintf(path, sizeof(path), "%s/usr/share/qemu", root);
	assert_non_null(option_value(&argv, "-L"));
	assert_string_equal(option_value(&argv, "-L"), path);
	snprintf(path, sizeof(path), "%s/usr/share/qemu/qboot.rom", root);
	assert_string_equal(option_value(&argv, "-bios"), path);
	strvec_clear(&argv);

	/* $LAB_QEMU wins over the run's choice */
	setenv("LAB_QEMU", "/usr/bin/qemu-system-x86_64", 1);
	assert_string_equal(qemu_binary_for(TOPO_ARCH_X86_64), "/usr/bin/qemu-system-x86_64");
	assert_null(qemu_data_dir_for(TOPO_ARCH_X86_64));
	unsetenv("LAB_QEMU");
	qemu_use_binary(TOPO_ARCH_X86_64, NULL);
	assert_string_equal(qemu_binary_for(TOPO_ARCH_X86_64), "qemu-system-x86_64");

	snprintf(path, sizeof(path), "%s/usr/share/qemu/qboot.rom", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/usr/share/qemu", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/usr/share", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/usr", root);
	rmdir(path);
	rmdir(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_number),
		cmocka_unit_test(test_unpacked_qemu_data_dir),
		cmocka_unit_test(test_virtual_clock_same_inputs),
		cmocka_unit_test(test_wall_clock_host_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
