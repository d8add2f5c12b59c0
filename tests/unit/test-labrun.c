/* test-labrun.c - which finished boots lab_run_start() boots again: those
 * that look like QEMU 7.2's stale live-patched code (docs/tcg.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "run/labrun.h"

/* The head of a 7.2.13 boot that died under multi-threaded TCG (2s4c):
 * the int3 of the __sched_clock_stable site, already patched to a NOP. */
static const char oops_72[] =
	"Probing EDD (edd=off to disable)... ok\r\n"
	"[    0.032000] tsc: Unable to calibrate against PIT\r\n"
	"[    1.976101] pci_bus 0000:00: Unknown NUMA node; performance will be reduced\r\n"
	"[    2.820315] Oops: int3: 0000 [#1] SMP NOPTI\r\n"
	"[    2.821070] CPU: 7 UID: 0 PID: 0 Comm: swapper/7 Not tainted 7.2.13+deb14-amd64 #1\r\n"
	"[    2.824364] RIP: 0010:sched_clock_cpu+0x9/0x230\r\n"
	"[    2.836620] Oops: int3: 0000 [#2] SMP NOPTI\r\n"
	"[    2.837104] Kernel panic - not syncing: Fatal exception in interrupt\r\n";
/* 6.1's die() header has no "Oops: ": the panic line is the first failure */
static const char oops_61[] =
	"[    2.1] int3: 0000 [#1] PREEMPT SMP NOPTI\r\n"
	"[    2.2] RIP: 0010:sched_clock_cpu+0x9/0x1c0\r\n"
	"[    2.3] Kernel panic - not syncing: Fatal exception in interrupt\r\n";
static const char null_deref[] =
	"[    2.0] BUG: kernel NULL pointer dereference, address: 0000000000000008\r\n"
	"[    2.1] Oops: 0000 [#1] PREEMPT SMP NOPTI\r\n"
	"[    2.3] Kernel panic - not syncing: Fatal exception\r\n";
static const char after_init[] = "schedlab: init start\r\n";

static void boot(struct lab_run *r, enum verdict v, int single, const char *console)
{
	lab_run_init(r);
	r->accel_kind = ACCEL_TCG;
	r->tcg_single = single;
	r->verdict = v;
	console_watch_feed(&r->s.console, console, strlen(console));
	console_watch_finish(&r->s.console);
}

static void test_int3_before_userspace_retried(void **state)
{
	struct lab_run r;
	const char *why;

	boot(&r, VERDICT_CRASH, 0, oops_72);
	why = lab_tcg_boot_stuck(&r);
	assert_non_null(why);
	assert_non_null(strstr(why, "int3"));
	lab_run_release(&r);

	boot(&r, VERDICT_CRASH, 0, oops_61);
	assert_non_null(lab_tcg_boot_stuck(&r));
	lab_run_release(&r);
}

static void test_hang_before_userspace_retried(void **state)
{
	struct lab_run r;

	boot(&r, VERDICT_HANG, 0, "[    1.0] smpboot: Total of 8 processors activated\r\n");
	assert_string_equal(lab_tcg_boot_stuck(&r), "hung before userspace");
	lab_run_release(&r);
}

static void test_other_outcomes_stand(void **state)
{
	struct lab_run r;

	/* one TCG thread runs no stale translation: the int3 is the kernel's */
	boot(&r, VERDICT_CRASH, 1, oops_72);
	assert_null(lab_tcg_boot_stuck(&r));
	lab_run_release(&r);
	/* any other oops before userspace is a verdict */
	boot(&r, VERDICT_CRASH, 0, null_deref);
	assert_null(lab_tcg_boot_stuck(&r));
	lab_run_release(&r);
	/* after /init started, the run's cases are at stake: no second boot */
	boot(&r, VERDICT_CRASH, 0, after_init);
	console_watch_feed(&r.s.console, oops_72, strlen(oops_72));
	assert_null(lab_tcg_boot_stuck(&r));
	lab_run_release(&r);
	boot(&r, VERDICT_HANG, 0, after_init);
	assert_null(lab_tcg_boot_stuck(&r));
	lab_run_release(&r);
	/* KVM runs the guest's own code */
	boot(&r, VERDICT_CRASH, 0, oops_72);
	r.accel_kind = ACCEL_KVM;
	assert_null(lab_tcg_boot_stuck(&r));
	lab_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int3_before_userspace_retried),
		cmocka_unit_test(test_hang_before_userspace_retried),
		cmocka_unit_test(test_other_outcomes_stand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
