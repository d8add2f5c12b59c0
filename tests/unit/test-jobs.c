/* test-jobs.c - unit tests of host-tools/run/jobs.c: the default number of
 * guests at a time and what the header says about it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "run/jobs.h"

static struct jobs_plan plan(const char *topo, int virt, unsigned given, unsigned cpus, uint64_t mem_mib)
{
	struct jobs_host h = { cpus, mem_mib };
	struct strbuf err = STRBUF_INIT;
	struct jobs_plan p;

	if (jobs_plan_for(topo, virt, given, &h, &p, &err) < 0)
		fail_msg("%s: %s", topo, err.buf);
	strbuf_release(&err);
	return p;
}

static void test_default(void **state)
{
	(void)state;
	/* icount: one TCG thread a guest, whatever its vCPUs */
	assert_int_equal(plan("2s8c2t", 1, 0, 2, 0).n, 2);
	assert_int_equal(plan("2s8c2t", 1, 0, 64, 0).n, JOBS_MAX);
	assert_int_equal(plan("1s1c", 1, 0, 1, 0).n, 1);
	/* the wall clock: a thread per boot vCPU, at most the host's CPUs */
	assert_int_equal(plan("2s8c2t", 0, 0, 2, 0).n, 1);
	assert_int_equal(plan("2s8c2t", 0, 0, 64, 0).n, 2);
	assert_int_equal(plan("1s2c", 0, 0, 8, 0).n, 4);
	assert_int_equal(plan("1s1c", 0, 0, 2, 0).n, 2);
	/* hot-add slots are not running threads */
	assert_int_equal(plan("1s4c,hotplug=2", 0, 0, 8, 0).threads, 2);
	/* memory: 3/4 of what is available, guest RAM (mem= is a node's:
	 * 8 GiB in all) plus QEMU's own */
	assert_int_equal(plan("2s8c2t,mem=4G", 1, 0, 16, 10 * 1024).n, 1);
	assert_int_equal(plan("2s8c2t,mem=4G", 1, 0, 16, 24 * 1024).n, 2);
	assert_int_equal(plan("2s8c2t,mem=4G", 1, 0, 16, 48 * 1024).n, 4);
	assert_int_equal(plan("2s8c2t,mem=4G", 1, 0, 16, 1024).n, 1);
	/* --jobs wins */
	assert_int_equal(plan("2s8c2t", 0, 3, 2, 0).n, 3);
	assert_true(plan("2s8c2t", 0, 3, 2, 0).given);
}

static void test_bad_topo(void **state)
{
	struct jobs_host h = { 2, 0 };
	struct strbuf err = STRBUF_INIT;
	struct jobs_plan p;

	(void)state;
	assert_int_equal(jobs_plan_for("1s2q", 1, 0, &h, &p, &err), -1);
	assert_true(err.len > 0);
	strbuf_release(&err);
}

static void note_is(const struct jobs_plan *p, const char *want, int want_warn)
{
	struct strbuf s = STRBUF_INIT;
	int warn = -1;

	jobs_note(p, &s, &warn);
	assert_string_equal(s.buf, want);
	assert_int_equal(warn, want_warn);
	strbuf_release(&s);
}

static void test_note(void **state)
{
	struct jobs_plan p;

	(void)state;
	p = plan("2s8c2t", 1, 0, 2, 0);
	note_is(&p, "2 guests at a time (the default: 2 host CPUs, one TCG thread a guest under icount): "
		"virtual-time results are those of one at a time, only the wall time differs", 0);
	p = plan("1s1c", 1, 2, 2, 0);
	note_is(&p, "2 guests at a time (--jobs): virtual-time results are those of one at a time, only "
		"the wall time differs", 0);
	p = plan("2s8c2t", 0, 0, 2, 0);
	note_is(&p, "1 guest at a time (the default: 2 host CPUs, 2 threads a guest)", 0);
	p = plan("1s1c", 0, 2, 2, 0);
	note_is(&p, "2 guests at a time (--jobs) on the wall clock: they share 2 host CPUs, caches and "
		"memory bandwidth and disturb each other's timings (--jobs 1, or --clock virtual)", 1);
	p = plan("1s1c", 1, 4, 2, 0);
	note_is(&p, "4 guests at a time (--jobs): virtual-time results are those of one at a time, only "
		"the wall time differs; more than the host's 2 CPUs: slower, not different", 0);
	p = plan("2s8c2t,mem=4G", 1, 0, 16, 10 * 1024);
	note_is(&p, "1 guest at a time (the default: 16 host CPUs, one TCG thread a guest under icount, "
		"fewer for the host's memory)", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_bad_topo),
		cmocka_unit_test(test_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
