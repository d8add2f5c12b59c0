/* test-prevstate.c - unit tests of host-tools/results/prevstate.c: the
 * prev_state encoding read from real and made-up sched_switch print fmts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "results/prevstate.h"
#include "results/schedmetrics.h"

#define FIELDS "name: sched_switch\nID: 310\nformat:\n" \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\n"

/* 6.1 and 6.12 print it so, word for word (tests/golden/schedtrace/). */
#define R61 "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | " \
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"
#define P61 "(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | " \
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1)"
static const char fmt_61[] = FIELDS
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & " R61 ") ? __print_flags(REC->prev_state & " R61 ", \"|\", "
	"{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, "
	"{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) "
	": \"R\", REC->prev_state & " P61 " ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
	"REC->next_prio\n";

/* 4.9 (before TASK_REPORT): the raw state, TASK_STATE_MAX 2048 for "+". */
static const char fmt_49[] = FIELDS
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & (2048-1), \"|\", "
	"{ 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, "
	"{ 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, { 512, \"P\" }, { 1024, \"N\" }) : \"R\", "
	"REC->prev_state & 2048 ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

static int read_fmt(const char *text, struct prevstate *ps, char *why)
{
	return prevstate_from_format(text, strlen(text), ps, why, 160);
}

static void test_61(void **state)
{
	struct prevstate ps;
	char why[160] = "";

	(void)state;
	assert_int_equal(read_fmt(fmt_61, &ps, why), 0);
	assert_int_equal(ps.state_mask, 0xff);
	assert_int_equal(ps.preempt_bit, 0x100);
	/* 6.1's bits are the metrics' own */
	assert_int_equal(prevstate_canonical(&ps, 0), 0);
	assert_int_equal(prevstate_canonical(&ps, 0x100), ST_STATE_PREEMPTED);
	assert_int_equal(prevstate_canonical(&ps, 1), 1);
	assert_int_equal(prevstate_canonical(&ps, 0x80), 0x80);
}

static void test_49(void **state)
{
	struct prevstate ps;
	char why[160] = "";

	(void)state;
	assert_int_equal(read_fmt(fmt_49, &ps, why), 0);
	assert_int_equal(ps.state_mask, 2047);
	assert_int_equal(ps.preempt_bit, 2048);
	assert_int_equal(prevstate_canonical(&ps, 2048), ST_STATE_PREEMPTED);
	assert_int_equal(prevstate_canonical(&ps, 0), 0);
	/* TASK_PARKED (512) left the runqueue: a letter bit in the low byte */
	assert_true(prevstate_canonical(&ps, 512) & ST_STATE_LEFT);
	assert_false(prevstate_canonical(&ps, 512) & ST_STATE_PREEMPTED);
	assert_int_equal(prevstate_canonical(&ps, 2), 2);
}

/* Each one line of why; never a guess. */
static void expect_bad(const char *text, const char *want)
{
	struct prevstate ps;
	char why[160] = "";

	if (read_fmt(text, &ps, why) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(why, want))
		fail_msg("'%s' does not say '%s'", why, want);
}

static void test_bad(void **state)
{
	(void)state;
	expect_bad(FIELDS, "no print fmt");
	expect_bad(FIELDS "print fmt: \"x\"\n", "no arguments");
	expect_bad(FIELDS "print fmt: REC->prev_state\n", "does not start with a string");
	/* the letters but no "+" */
	expect_bad(FIELDS "print fmt: \"%s\", (REC->prev_state & 255) ? \"x\" : \"R\"\n",
		   "preempted");
	expect_bad(FIELDS "print fmt: \"%s\", REC->prev_state & 256 ? \"+\" : \"\"\n",
		   "state-letters");
	/* a preempted "bit" of two bits, one inside the mask */
	expect_bad(FIELDS "print fmt: \"%s%s\", (REC->prev_state & 255) ? \"x\" : \"R\", "
		   "REC->prev_state & 768 ? \"+\" : \"\"\n", "0x300");
	expect_bad(FIELDS "print fmt: \"%s%s\", (REC->prev_state & 511) ? \"x\" : \"R\", "
		   "REC->prev_state & 256 ? \"+\" : \"\"\n", "0x1ff");
	/* names the kernel did not expand, a shift past 63, an open string */
	expect_bad(FIELDS "print fmt: \"%s%s\", (REC->prev_state & TASK_REPORT) ? \"x\" : \"R\", "
		   "REC->prev_state & 256 ? \"+\" : \"\"\n", "not a constant");
	expect_bad(FIELDS "print fmt: \"%s%s\", (REC->prev_state & (1 << 64)) ? \"x\" : \"R\", "
		   "REC->prev_state & 256 ? \"+\" : \"\"\n", "64 bits");
	expect_bad(FIELDS "print fmt: \"%s%s\", (REC->prev_state & 255) ? \"x : \"R\"\n",
		   "unreadable token");
	expect_bad(FIELDS "print fmt: \"%s\", (REC->prev_state & 255)) ? \"x\" : \"R\"\n",
		   "parentheses");
	/* C's precedence: "& 255 | 256" is (state & 255) | 256, no mask */
	expect_bad(FIELDS "print fmt: \"%s%s\", REC->prev_state & 255 | 256 ? \"x\" : \"R\", "
		   "REC->prev_state & 256 ? \"+\" : \"\"\n", "state-letters");
}

/* Nesting past the reader's depth is refused, not a stack overflow. */
static void test_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct prevstate ps;
	char why[160] = "";

	(void)state;
	strbuf_addstr(&sb, FIELDS "print fmt: \"%s%s\", (REC->prev_state & ");
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&sb, '(');
	strbuf_addstr(&sb, "255");
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&sb, ')');
	strbuf_addstr(&sb, ") ? \"x\" : \"R\", REC->prev_state & 256 ? \"+\" : \"\"\n");
	assert_int_equal(prevstate_from_format(sb.buf, sb.len, &ps, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "too deep"));
	strbuf_release(&sb);
}

/* Operators, suffixes and a hex mask written the other way round. */
static void test_expressions(void **state)
{
	struct prevstate ps;
	char why[160] = "";

	(void)state;
	assert_int_equal(read_fmt(FIELDS "print fmt: \"%s%s\", (REC->prev_state & (~0x100UL & "
				  "0x1ffUL)) ? \"x\" : \"R\", REC->prev_state & (0x10 * 0x10 ^ 0) "
				  "? \"+\" : \"\"\n", &ps, why), 0);
	assert_int_equal(ps.state_mask, 0xff);
	assert_int_equal(ps.preempt_bit, 0x100);
	assert_int_equal(read_fmt(FIELDS "print fmt: \"%s%s\", (REC->prev_state & (4096 >> 4) - 1) "
				  "? \"x\" : \"R\", REC->prev_state & -(-256) ? \"+\" : \"\"\n",
				  &ps, why), 0);
	assert_int_equal(ps.state_mask, 0xff);
	assert_int_equal(ps.preempt_bit, 0x100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_61),
		cmocka_unit_test(test_49),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_expressions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
