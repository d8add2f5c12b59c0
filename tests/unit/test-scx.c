/* test-scx.c - unit tests of sched_ext support: the kernel's disable lines
 * (common/scxmsg.c), the scheduler registry (host-tools/scx/), the plan's
 * scheduler record and --scx on a compiled plan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan.h"
#include "common/scxmsg.h"
#include "run/scx-run.h"
#include "scx/scx.h"

static int feed(struct scx_msg *m, const char *line)
{
	return scx_msg_feed(m, line, strlen(line));
}

/* What Debian's 7.2 printed when scx_lab_stall was ejected (console.log
 * of a 2s4c run), as console lines and as /dev/kmsg records. */
static void test_msg_stall(void **state)
{
	struct scx_msg m = { 0 };
	char buf[512];

	(void)state;
	assert_int_equal(feed(&m, "[   10.034319] sched_ext: BPF scheduler \"lab_stall\" disabled "
				  "(runnable task stall)\n"), 1);
	assert_string_equal(m.ops, "lab_stall");
	assert_string_equal(m.reason, "runnable task stall");
	assert_int_equal(scx_msg_orderly(&m), 0);
	assert_int_equal(feed(&m, "[   10.035039] sched_ext: lab_stall: hb-recv[190] failed to run "
				  "for 3.848s"), 1);
	assert_string_equal(m.detail, "hb-recv[190] failed to run for 3.848s");
	/* a second detail line is not the detail */
	assert_int_equal(feed(&m, "[   10.035100] sched_ext: lab_stall: something else"), 0);
	scx_msg_format(&m, buf, sizeof(buf));
	assert_string_equal(buf, "BPF scheduler \"lab_stall\" disabled (runnable task stall): "
				 "hb-recv[190] failed to run for 3.848s");

	memset(&m, 0, sizeof(m));
	assert_int_equal(feed(&m, "3,812,10034319,-;sched_ext: BPF scheduler \"qmap\" disabled "
				  "(scx_bpf_error)\n"), 1);
	assert_string_equal(m.reason, "scx_bpf_error");
	assert_int_equal(feed(&m, "3,813,10034400,-;sched_ext: qmap: bad thing\n"), 1);
	assert_string_equal(m.detail, "bad thing");
}

static void test_msg_orderly_and_noise(void **state)
{
	struct scx_msg m = { 0 };
	char buf[64];

	(void)state;
	scx_msg_format(&m, buf, sizeof(buf));
	assert_string_equal(buf, "the kernel said nothing about it");
	assert_int_equal(feed(&m, "6,900,5000,-;sched_ext: BPF scheduler \"simple\" disabled "
				  "(unregistered from user space)"), 1);
	assert_int_equal(scx_msg_orderly(&m), 1);
	memset(&m, 0, sizeof(m));
	assert_int_equal(feed(&m, "sched_ext: BPF sub-scheduler \"q\" disabled (parent exiting)"), 1);
	assert_int_equal(scx_msg_orderly(&m), 1);
	/* not the disable line: a detail without one, other messages, cut lines */
	memset(&m, 0, sizeof(m));
	assert_int_equal(feed(&m, "sched_ext: simple: x failed to run"), 0);
	assert_int_equal(feed(&m, "sched_ext: BPF scheduler \"simple\" enabled"), 0);
	assert_int_equal(feed(&m, "sched_ext: BPF scheduler \"simple\" disabled (runn"), 0);
	assert_int_equal(feed(&m, "sched_ext: BPF scheduler \"simple"), 0);
	assert_int_equal(feed(&m, "BUG: sched_ext: BPF scheduler \"a\" disabled (x)"), 0);
	assert_int_equal(feed(&m, ""), 0);
	assert_int_equal(m.have_disabled, 0);
	/* a name longer than the field is cut, not overflowed */
	{
		char line[400];

		snprintf(line, sizeof(line), "sched_ext: BPF scheduler \"%0100d\" disabled (x)", 0);
		assert_int_equal(feed(&m, line), 1);
		assert_int_equal(strlen(m.ops), sizeof(m.ops) - 1);
	}
}

static void test_registry(void **state)
{
	char names[256];

	(void)state;
	assert_non_null(scx_sched_find("simple"));
	assert_ptr_equal(scx_sched_find("simple"), scx_sched_find("scx_simple"));
	assert_string_equal(scx_sched_find("central")->ops, "central");
	assert_int_equal(scx_sched_find("qmap")->timeout_ms, 5000);
	assert_null(scx_sched_find("eevdf"));
	assert_null(scx_sched_find(""));
	scx_sched_names(names, sizeof(names));
	assert_non_null(strstr(names, "scx_simple, scx_qmap"));
	assert_non_null(strstr(names, "scx_lab_stall"));
	/* every entry states everything, and names fit the plan's fields */
	for (size_t i = 0; i < nr_scx_scheds; i++) {
		const struct scx_sched *s = scx_scheds[i];

		assert_non_null(s->summary);
		assert_true(plan_scheduler_name_ok(s->binary));
		assert_true(plan_scheduler_name_ok(s->ops));
		assert_int_equal(strncmp(s->binary, "scx_", 4), 0);
	}
	scx_sched_names(names, 8);
	assert_true(strlen(names) < 8);
}

static void test_series(void **state)
{
	char s[16];

	(void)state;
	assert_int_equal(scx_series_of_release("7.2.13+deb14-amd64", s, sizeof(s)), 0);
	assert_string_equal(s, "7.2");
	assert_int_equal(scx_series_of_release("6.12.57+deb13-rt-amd64", s, sizeof(s)), 0);
	assert_string_equal(s, "6.12");
	assert_int_equal(scx_series_of_release("seven", s, sizeof(s)), -1);
}

static const char plan_one[] =
	"schedlab-plan\t1\n"
	"case\tc1\nscenario\ts\nsource\ts.ini:1\nworkload\thackbench\n"
	"runs\t1\nwarmup\t0\ndeadline\t10\ncounters\ttasks\n"
	"metric\ttime\tlower\tamean\ts\n";

static void test_plan_record(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan p = { 0 };
	const char *path = (const char *)1;
	char why[256];

	(void)state;
	strbuf_addf(&text, "%sscheduler\tscx_qmap\tqmap\t-t 2\nend\n", plan_one);
	assert_int_equal(plan_parse(text.buf, text.len, &p, why, sizeof(why)), 0);
	assert_string_equal(p.cases[0].scheduler, "scx_qmap");
	assert_string_equal(p.cases[0].scheduler_ops, "qmap");
	assert_string_equal(p.cases[0].scheduler_args, "-t 2");
	plan_release(&p);

	/* --scx rewrites every case, and none clears it */
	assert_int_equal(plan_text_set_scheduler(&text, "central", &path, &err), 0);
	assert_null(path);
	assert_non_null(strstr(text.buf, "scheduler\tscx_central\tcentral\t\n"));
	assert_int_equal(plan_text_set_scheduler(&text, "none", &path, &err), 0);
	assert_null(strstr(text.buf, "scheduler"));
	assert_int_equal(plan_text_set_scheduler(&text, "eevdf", &path, &err), -1);
	assert_non_null(strstr(err.buf, "unknown sched_ext scheduler 'eevdf'"));
	strbuf_reset(&err);
	assert_int_equal(plan_text_set_scheduler(&text, "/nonexistent/scx_mine", &path, &err), -1);
	assert_non_null(strstr(err.buf, "is not a file"));
	strbuf_reset(&err);

	/* bad records: a path as a name, a second record, too few fields */
	strbuf_reset(&text);
	strbuf_addf(&text, "%sscheduler\t../x\t\t\nend\n", plan_one);
	assert_int_equal(plan_parse(text.buf, text.len, &p, why, sizeof(why)), -1);
	plan_release(&p);
	strbuf_reset(&text);
	strbuf_addf(&text, "%sscheduler\tscx_simple\tsimple\t\nscheduler\tscx_simple\tsimple\t\nend\n",
		    plan_one);
	assert_int_equal(plan_parse(text.buf, text.len, &p, why, sizeof(why)), -1);
	plan_release(&p);
	strbuf_reset(&text);
	strbuf_addf(&text, "%sscheduler\tscx_simple\nend\n", plan_one);
	assert_int_equal(plan_parse(text.buf, text.len, &p, why, sizeof(why)), -1);
	plan_release(&p);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_name_ok(void **state)
{
	(void)state;
	assert_true(plan_scheduler_name_ok("scx_simple"));
	assert_true(plan_scheduler_name_ok("my-sched.v2"));
	assert_false(plan_scheduler_name_ok(""));
	assert_false(plan_scheduler_name_ok(".hidden"));
	assert_false(plan_scheduler_name_ok("-x"));
	assert_false(plan_scheduler_name_ok("a/b"));
	assert_false(plan_scheduler_name_ok("a b"));
	assert_false(plan_scheduler_name_ok("0123456789012345678901234567890123456789012345678"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msg_stall),
		cmocka_unit_test(test_msg_orderly_and_noise),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_plan_record),
		cmocka_unit_test(test_name_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
