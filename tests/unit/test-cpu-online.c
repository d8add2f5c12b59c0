/* test-cpu-online.c - the runner's reading of kernel uevents: which
 * datagrams announce a hot-added CPU, and which are something else. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../guest/runner/wlutil.h"
#include "../../guest/runner/cpu-online.h"

#define DGRAM(s) s, sizeof(s) - 1

static void test_cpu_add(void **state)
{
	/* what 6.1 sends when ACPI registers a hot-added CPU */
	static const char add[] = "add@/devices/system/cpu/cpu2\0ACTION=add\0"
				  "DEVPATH=/devices/system/cpu/cpu2\0SUBSYSTEM=cpu\0SEQNUM=1712\0";
	unsigned cpu = 99;

	assert_int_equal(cpu_uevent_parse(DGRAM(add), &cpu), 1);
	assert_int_equal(cpu, 2);
}

static void test_not_a_cpu_add(void **state)
{
	static const char online[] = "online@/devices/system/cpu/cpu3\0ACTION=online\0"
				     "DEVPATH=/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0";
	static const char acpi[] = "add@/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0007:02\0ACTION=add\0"
				   "DEVPATH=/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0007:02\0"
				   "SUBSYSTEM=acpi\0";
	static const char cpufreq[] = "add@/devices/system/cpu/cpufreq\0ACTION=add\0"
				      "DEVPATH=/devices/system/cpu/cpufreq\0SUBSYSTEM=cpu\0";
	static const char machinecheck[] = "add@/devices/system/machinecheck/machinecheck2\0"
					   "ACTION=add\0DEVPATH=/devices/system/machinecheck/"
					   "machinecheck2\0SUBSYSTEM=machinecheck\0";
	static const char huge[] = "add@/devices/system/cpu/cpu99999999\0ACTION=add\0"
				   "DEVPATH=/devices/system/cpu/cpu99999999\0SUBSYSTEM=cpu\0";
	unsigned cpu = 7;

	assert_int_equal(cpu_uevent_parse(DGRAM(online), &cpu), 0);
	assert_int_equal(cpu_uevent_parse(DGRAM(acpi), &cpu), 0);
	assert_int_equal(cpu_uevent_parse(DGRAM(cpufreq), &cpu), 0);
	assert_int_equal(cpu_uevent_parse(DGRAM(machinecheck), &cpu), 0);
	assert_int_equal(cpu_uevent_parse(DGRAM(huge), &cpu), 0);
	assert_int_equal(cpu, 7);
}

static void test_malformed(void **state)
{
	static const char no_fields[] = "add@/devices/system/cpu/cpu2\0";
	static const char no_header[] = "ACTION=add\0DEVPATH=/devices/system/cpu/cpu2\0SUBSYSTEM=cpu\0";
	static const char cut[] = "add@/devices/system/cpu/cpu2\0ACTION=add\0SUBSYSTEM=cpu\0DEVPATH=/dev";
	unsigned cpu;

	assert_int_equal(cpu_uevent_parse(DGRAM(no_fields), &cpu), -1);
	assert_int_equal(cpu_uevent_parse(DGRAM(no_header), &cpu), -1);
	/* the last field lacks its NUL: ignored, so DEVPATH is missing */
	assert_int_equal(cpu_uevent_parse(DGRAM(cut), &cpu), -1);
	assert_int_equal(cpu_uevent_parse("add@x", 5, &cpu), -1);
	assert_int_equal(cpu_uevent_parse("", 0, &cpu), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_add),
		cmocka_unit_test(test_not_a_cpu_add),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
