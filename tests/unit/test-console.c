/* test-console.c - the console classifier: every failure pattern from
 * FACTS.md, harmless look-alikes, and line splitting of a raw stream. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "results/console.h"

static enum console_class cls(const char *line)
{
	return console_classify_line(line, strlen(line), NULL);
}

static void test_crash_patterns(void **state)
{
	const char *crash[] = {
		"[   12.345678] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009",
		"[    3.000000] kernel BUG at kernel/sched/core.c:1234!",
		"[    1.1] Oops: 0000 [#1] PREEMPT SMP NOPTI",
		"general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP",
		"[    9.9] BUG: kernel NULL pointer dereference, address: 0000000000000008",
		"[    2.0] divide error: 0000 [#1] SMP PTI",
		"[    2.0] invalid opcode: 0000 [#1] SMP PTI",
		"( 700 ) Program Exception [ 1daf04c4 ]",
	};

	for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		assert_int_equal(cls(crash[i]), CON_CRASH);
}

static void test_splat_patterns(void **state)
{
	const char *splat[] = {
		"[    5.123456] WARNING: CPU: 3 PID: 1 at kernel/sched/fair.c:100 foo+0x10/0x20",
		"[   30.0] BUG: soft lockup - CPU#1 stuck for 22s! [hackbench:123]",
		"[   30.0] watchdog: Watchdog detected hard LOCKUP on cpu 2",
		"[   40.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
		"[   40.0] rcu: INFO: rcu_sched self-detected stall on CPU",
		"[  120.0] INFO: task kworker/0:1:12 blocked for more than 120 seconds.",
		"[    1.0] WARNING: possible circular locking dependency detected",
		"[    1.0] WARNING: possible recursive locking detected",
		"[    1.0] BUG: KASAN: use-after-free in foo+0x1/0x2",
		"[    1.0] UBSAN: shift-out-of-bounds in kernel/sched/fair.c:10:2",
		"[    1.0] BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!",
		"[    1.0] BUG: sleeping function called from invalid context at kernel/sched/core.c:1",
	};

	for (size_t i = 0; i < sizeof(splat) / sizeof(splat[0]); i++)
		assert_int_equal(cls(splat[i]), CON_SPLAT);
}

static void test_harmless_lines(void **state)
{
	const char *fine[] = {
		"[    0.000000] Command line: console=ttyS0 panic=-1",
		"[    0.1] FAULT_INJECTION: forcing a failure.",
		"[    0.2] MMIO Stale Data CPU bug present and SMT on, data leak possible.",
		"[    0.3] x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
		"schedlab: init start",
		"the word WARNING: in the middle of a line is not a kernel splat",
		"",
	};

	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		assert_int_equal(cls(fine[i]), CON_NONE);
}

static void test_stream_and_reboot(void **state)
{
	struct console_watch w;
	const char boot[] = "[    0.000000] Linux version 6.1.0 (gcc)\r\n[    0.1] ok\r\n";
	const char warn[] = "[    5.0] WARNING: CPU: 0 PID: 1 at x.c:1 f\r\n";
	const char again[] = "[    0.000000] Linux version 6.1.0 (gcc)\r\n";

	console_watch_init(&w);
	assert_int_equal(console_watch_feed(&w, boot, strlen(boot)), CON_NONE);
	assert_int_equal(w.init_line, 0);
	console_watch_feed(&w, "schedlab: in", 12);
	console_watch_feed(&w, "it start\r\n", 10);
	assert_int_equal(w.init_line, 3);
	/* feed the splat one byte at a time: splitting must not matter */
	for (size_t i = 0; i < strlen(warn); i++)
		console_watch_feed(&w, warn + i, 1);
	assert_int_equal(w.worst, CON_SPLAT);
	assert_int_equal(w.first_line_no, 4);
	assert_string_equal(w.first_pattern, "warning");
	assert_non_null(strstr(w.first, "WARNING: CPU: 0"));
	assert_int_equal(console_watch_feed(&w, again, strlen(again)), CON_REBOOT);
	/* the first failure stays the first one */
	assert_int_equal(w.first_line_no, 4);
}

/* QEMU 7.2's stale int3 (docs/tcg.md): the boot's first die() an int3,
 * in 7.x's and 6.1's headers; the line number is what the retry reads */
static void test_int3_die(void **state)
{
	const char *first[] = {
		"[    2.820315] Oops: int3: 0000 [#1] SMP NOPTI",
		"[    2.1] int3: 0000 [#1] PREEMPT SMP NOPTI",
		"Oops: int3: 0000 [#1] SMP",
	};
	const char *not_first[] = {
		"[    2.836620] Oops: int3: 0000 [#2] SMP NOPTI",
		"[    2.1] Oops: 0000 [#1] PREEMPT SMP NOPTI",
		"[    2.1]  ? exc_int3+0x3a/0x60",
		"[    2.1] RIP: 0010:smp_text_poke_int3_handler+0x9/0x80",
		"[    2.1] Oops: int3: 00zz [#1] SMP",
		"[    2.1] Oops: int3: 0000",
	};
	const char boot[] = "[    0.000000] Linux version 7.2.13\n[    2.2] Oops: int3: 0000 [#1] SMP NOPTI\n"
			    "[    2.3] Oops: int3: 0000 [#2] SMP NOPTI\n";
	struct console_watch w;

	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++)
		assert_true(console_is_first_int3_die(first[i], strlen(first[i])));
	for (size_t i = 0; i < sizeof(not_first) / sizeof(not_first[0]); i++)
		assert_false(console_is_first_int3_die(not_first[i], strlen(not_first[i])));
	console_watch_init(&w);
	assert_int_equal(console_watch_feed(&w, boot, strlen(boot)), CON_CRASH);
	assert_int_equal(w.int3_line, 2);
	assert_int_equal(w.first_line_no, 2);
}

static void test_long_line_bounded(void **state)
{
	struct console_watch w;
	char big[5000];

	memset(big, 'x', sizeof(big));
	memcpy(big + 3000, "Kernel panic - not syncing", 26);
	console_watch_init(&w);
	console_watch_feed(&w, big, sizeof(big));
	console_watch_finish(&w);
	/* split into CONSOLE_MAX_LINE pieces; the pattern sits inside one */
	assert_int_equal(w.worst, CON_CRASH);
	assert_true(w.lines >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crash_patterns),
		cmocka_unit_test(test_splat_patterns),
		cmocka_unit_test(test_harmless_lines),
		cmocka_unit_test(test_stream_and_reboot),
		cmocka_unit_test(test_int3_die),
		cmocka_unit_test(test_long_line_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
