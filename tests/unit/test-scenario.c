/* test-scenario.c - unit tests of host-tools/scenario/: the INI scenario
 * format and its errors, matrix expansion, suites, the shipped scenarios. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/fault.h"
#include "runner/invariant.h"
#include "runner/workload.h"
#include "scenario/scenario.h"

int cmd_scenarios(int argc, const char **argv);

/*
 * Golden plans live in tests/golden/plan/.  After an intended change of a
 * scenario file or of the plan format, regenerate them with
 *     UPDATE_GOLDEN=1 build/tests/test-scenario
 * and review the diff before committing.
 */

static const char minimal[] =
	"[scenario]\n"
	"name = x\n"
	"workload = hackbench\n"
	"[metric time]\n"
	"better = lower\n";

static int parse(const char *text, struct scenario *s, struct strbuf *err)
{
	return scenario_parse("t.ini", text, strlen(text), s, err);
}

static void expect_error_len(const char *text, size_t len, const char *want)
{
	struct scenario s;
	struct strbuf err = STRBUF_INIT;

	scenario_init(&s);
	if (scenario_parse("t.ini", text, len, &s, &err) == 0)
		fail_msg("parsed, expected '%s'", want);
	if (strcmp(err.buf, want))
		fail_msg("error\n  '%s'\nexpected\n  '%s'", err.buf, want);
	scenario_release(&s);
	strbuf_release(&err);
}

static void expect_error(const char *text, const char *want)
{
	expect_error_len(text, strlen(text), want);
}

/* minimal with extra lines appended (they start at line 6) */
static char *plus(const char *extra)
{
	return xasprintf("%s%s", minimal, extra);
}

static void expect_plus_error(const char *extra, const char *want)
{
	char *t = plus(extra);

	expect_error(t, want);
	free(t);
}

static void test_example(void **state)
{
	static const char text[] =
		"# hackbench as in seed 000: groups sweep, process mode, socket IPC\n"
		"[scenario]\n"
		"name = hackbench-process-sockets\n"
		"description = hackbench, processes, AF_UNIX sockets (seed 000's \"hackbench\" block)\n"
		"workload = hackbench\n"
		"runs = 5\n"
		"warmup = 1\n"
		"deadline = 300          ; seconds for the whole case\n"
		"counters = schedstat vmstat tasks\n"
		"\n"
		"[params]\n"
		"groups = 1, 2, 4, 8, 16 ; a comma list is a matrix axis: one case per value\n"
		"loops = 100\n"
		"mode = process\n"
		"\n"
		"[metric time]\n"
		"better = lower\n"
		"statistic = amean\n"
		"unit = s\n";
	struct scenario s;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	scenario_init(&s);
	if (parse(text, &s, &err))
		fail_msg("%s", err.buf);
	assert_string_equal(s.shown, "t.ini");
	assert_string_equal(s.name, "hackbench-process-sockets");
	assert_string_equal(s.description,
			    "hackbench, processes, AF_UNIX sockets (seed 000's \"hackbench\" block)");
	assert_string_equal(s.workload, "hackbench");
	assert_int_equal(s.line, 2);
	assert_int_equal(s.runs, 5);
	assert_int_equal(s.warmup, 1);
	assert_int_equal(s.deadline_s, 300);
	assert_int_equal(s.counters, PLAN_CNT_SCHEDSTAT | PLAN_CNT_VMSTAT | PLAN_CNT_TASKS);
	assert_int_equal(s.nr_params, 3);
	assert_string_equal(s.params[0].key, "groups");
	assert_int_equal(s.params[0].line, 12);
	assert_int_equal(s.params[0].nr_values, 5);
	assert_string_equal(s.params[0].values[0], "1");
	assert_string_equal(s.params[0].values[4], "16");
	assert_string_equal(s.params[1].key, "loops");
	assert_int_equal(s.params[1].line, 13);
	assert_int_equal(s.params[1].nr_values, 1);
	assert_string_equal(s.params[2].values[0], "process");
	assert_int_equal(s.nr_metrics, 1);
	assert_string_equal(s.metrics[0].name, "time");
	assert_int_equal(s.metrics[0].higher_is_better, 0);
	assert_string_equal(s.metrics[0].statistic, "amean");
	assert_string_equal(s.metrics[0].unit, "s");
	assert_int_equal(s.metric_lines[0], 16);
	assert_int_equal(s.nr_cases, 5);
	scenario_release(&s);
	assert_null(s.shown);
	assert_int_equal(s.nr_params, 0);
	strbuf_release(&err);
}

static void test_defaults_and_syntax(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf; a BOM, CRLF line ends, ':' separators, odd spacing\r\n"
		"[ scenario ]   ; comment after a header\r\n"
		"name: y\r\n"
		"workload=stream\r\n"
		"\r\n"
		"[metric copy_mb_s]\r\n"
		"better = higher\r\n"
		"[params]\r\n"
		"  indented = 1     ; the first key of a section may be indented\r\n"
		"pattern = x{1,3}y\r\n"
		"list =  a ,b,  c  \r\n";
	struct scenario s;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	scenario_init(&s);
	if (parse(text, &s, &err))
		fail_msg("%s", err.buf);
	assert_string_equal(s.name, "y");
	assert_int_equal(s.runs, 3);
	assert_int_equal(s.warmup, 0);
	assert_int_equal(s.deadline_s, 600);
	assert_int_equal(s.counters, PLAN_CNT_TASKS);
	assert_string_equal(s.description, "");
	assert_string_equal(s.metrics[0].statistic, "amean");
	assert_string_equal(s.metrics[0].unit, "");
	assert_int_equal(s.metrics[0].higher_is_better, 1);
	assert_int_equal(s.nr_params, 3);
	assert_string_equal(s.params[0].key, "indented");
	assert_int_equal(s.params[0].line, 9);
	assert_int_equal(s.params[1].nr_values, 2); /* an unquoted comma splits */
	assert_int_equal(s.params[2].nr_values, 3);
	assert_string_equal(s.params[2].values[1], "b");
	assert_int_equal(s.nr_cases, 6);
	scenario_release(&s);

	/* quoted values keep their commas */
	scenario_init(&s);
	{
		char *t = plus("[params]\ncmd = \"a, b, c\"\npattern = x{1,3}y\nlist =  a ,b,  c  \n");

		if (parse(t, &s, &err))
			fail_msg("%s", err.buf);
		free(t);
	}
	assert_int_equal(s.nr_params, 3);
	assert_int_equal(s.params[0].nr_values, 1);
	assert_string_equal(s.params[0].values[0], "a, b, c");
	assert_int_equal(s.params[0].line, 7);
	assert_int_equal(s.params[1].nr_values, 2); /* an unquoted comma splits */
	assert_string_equal(s.params[1].values[0], "x{1");
	assert_int_equal(s.params[2].nr_values, 3);
	assert_string_equal(s.params[2].values[0], "a");
	assert_string_equal(s.params[2].values[2], "c");
	assert_int_equal(s.nr_cases, 6);
	scenario_release(&s);
	strbuf_release(&err);
}

static void test_quote_then_comment(void **state)
{
	/* inih ends a value at " ;" even inside quotes (documented): what is
	 * left is an unbalanced quote, which must be an error */
	(void)state;
	expect_plus_error("[params]\ncmd = \"a, b ; not a comment\"\n",
			  "t.ini:7: unbalanced quotes in the value of 'cmd'");
}

static void test_long_lines(void **state)
{
	struct scenario s;
	struct strbuf err = STRBUF_INIT, t = STRBUF_INIT;
	int saved = ini_max_line;
	char *desc = malloc(PLAN_MAX_FIELD);

	(void)state;
	/* a 255-character value and a long comment: far over inih's 200 */
	memset(desc, 'd', PLAN_MAX_FIELD - 1);
	desc[PLAN_MAX_FIELD - 1] = '\0';
	strbuf_addf(&t, "%s[params]\nnote = %s ; ", minimal, desc);
	while (t.len < strlen(minimal) + 9 + SCENARIO_MAX_LINE)
		strbuf_addch(&t, 'c');
	strbuf_addstr(&t, "\nloops = 5\n");
	scenario_init(&s);
	if (parse(t.buf, &s, &err))
		fail_msg("%s", err.buf);
	assert_string_equal(s.params[0].values[0], desc);
	assert_string_equal(s.params[1].key, "loops");
	assert_int_equal(s.params[1].line, 8);
	assert_int_equal(ini_max_line, saved); /* the global went back */
	scenario_release(&s);

	/* one more character and the line is refused */
	strbuf_reset(&t);
	strbuf_addf(&t, "%s[params]\nnote = %s ; ", minimal, desc);
	while (t.len < strlen(minimal) + 9 + SCENARIO_MAX_LINE + 1)
		strbuf_addch(&t, 'c');
	strbuf_addstr(&t, "\n");
	expect_error(t.buf, "t.ini:7: line longer than 4096 characters");

	strbuf_reset(&t);
	strbuf_addf(&t, "%s[params]\nnote = %sd\n", minimal, desc);
	expect_error(t.buf, "t.ini:7: value of 'note' longer than 255 characters");
	strbuf_release(&t);
	strbuf_release(&err);
	free(desc);
}

static void test_errors(void **state)
{
	static const struct {
		const char *extra, *want;
	} plus_cases[] = {
		{ "[params]\ngrups = 1\ngrups = 2\n",
		  "t.ini:8: duplicate key 'grups' in [params] (first at line 7)" },
		{ "[params]\ngroups = \n", "t.ini:7: empty value for 'groups'" },
		{ "[params]\ngroups = 1,,2\n", "t.ini:7: empty element in the list for 'groups'" },
		{ "[params]\ngroups = 1,2,\n", "t.ini:7: empty element in the list for 'groups'" },
		{ "[params]\ngroups = 1,2,1\n", "t.ini:7: '1' is listed twice for 'groups'" },
		{ "[params]\ngroups = \"1,2\n", "t.ini:7: unbalanced quotes in the value of 'groups'" },
		{ "[params]\ngroups = \"\"\n", "t.ini:7: empty value for 'groups'" },
		{ "[params]\ngroups = 1\tx\n", "t.ini:7: TAB in the value of 'groups'" },
		{ "[params]\nGroups = 1\n",
		  "t.ini:7: bad parameter name 'Groups' (at most 63 lowercase letters, digits and '_')" },
		{ "[params]\ngroup-s = 1\n",
		  "t.ini:7: bad parameter name 'group-s' (at most 63 lowercase letters, digits and '_')" },
		{ "[params]\n= 1\n", "t.ini:7: missing key name before '='" },
		{ "[params]\ngroups 1\n", "t.ini:7: expected 'key = value', '[section]' or a comment" },
		{ "[params]\ngroups = 1\n  2\n",
		  "t.ini:8: indented line would continue the previous value; continuation lines are "
		  "not supported" },
		{ "[params]\n[params]\n", "t.ini:7: duplicate section [params] (first at line 6)" },
		{ "[scenario]\n", "t.ini:6: duplicate section [scenario] (first at line 1)" },
		{ "[metric time]\n", "t.ini:6: duplicate section [metric time] (first at line 4)" },
		{ "better = higher\n", "t.ini:6: duplicate key 'better' in [metric time] (first at line 5)" },
		{ "better = up\n", "t.ini:6: duplicate key 'better' in [metric time] (first at line 5)" },
		{ "statistic = mean\n",
		  "t.ini:6: bad value 'mean' for 'statistic' (amean, hmean or median)" },
		{ "unit = m s\n", "t.ini:6: bad unit 'm s' (at most 15 characters, no spaces)" },
		{ "unit = sixteen-chars-xx\n",
		  "t.ini:6: bad unit 'sixteen-chars-xx' (at most 15 characters, no spaces)" },
		{ "colour = red\n",
		  "t.ini:6: unknown key 'colour' in [metric time] (expected better, statistic or unit)" },
		{ "[metric]\n", "t.ini:6: [metric] needs a name, e.g. [metric time]" },
		{ "[metric Time]\n",
		  "t.ini:6: bad metric name 'Time' (at most 47 lowercase letters, digits and '_')" },
		{ "[metric abcdefghijabcdefghijabcdefghijabcdefghijabcdefgh]\n",
		  "t.ini:6: bad metric name 'abcdefghijabcdefghijabcdefghijabcdefghijabcdefgh' (at "
		  "most 47 lowercase letters, digits and '_')" },
		{ "[metric wake]\n", "t.ini:6: [metric wake] has no 'better' (higher or lower)" },
		{ "[paramz]\n",
		  "t.ini:6: unknown section [paramz] (expected [scenario], [params], [metric NAME], "
		  "[fault NAME] or [invariant NAME])" },
		{ "[faults x]\n",
		  "t.ini:6: unknown section [faults x] (expected [scenario], [params], [metric NAME], "
		  "[fault NAME] or [invariant NAME])" },
		{ "[fault]\n", "t.ini:6: [fault] needs a name, e.g. [fault churn]" },
		{ "[invariant]\n", "t.ini:6: [invariant] needs a name, e.g. [invariant placement]" },
		{ "[fault Churn]\n",
		  "t.ini:6: bad fault name 'Churn' (at most 47 lowercase letters, digits and '_')" },
		{ "[fault a]\nkind = x\ncount = 1\n[fault a]\n",
		  "t.ini:9: duplicate section [fault a] (first at line 6)" },
		{ "[invariant a]\nkind = x\n[invariant a]\n",
		  "t.ini:8: duplicate section [invariant a] (first at line 6)" },
		{ "[fault a]\ncount = 1\n", "t.ini:6: [fault a] has no 'kind'" },
		{ "[invariant a]\nlevel = 3\n", "t.ini:6: [invariant a] has no 'kind'" },
		{ "[fault a]\nkind = x\n", "t.ini:6: [fault a] repeats but has no 'period' (or say "
		  "count = 1)" },
		{ "[fault a]\nkind = x\nduration = 5\n",
		  "t.ini:6: [fault a] repeats but has no 'period' (or say count = 1)" },
		{ "[fault a]\nkind = x\nperiod = 1\ncount = 3\nduration = 5\n",
		  "t.ini:10: [fault a]: give 'count' or 'duration', not both" },
		{ "[fault a]\nkind = x\nperiod = 1\nhold = 1\n",
		  "t.ini:9: [fault a]: 'hold' must be shorter than 'period'" },
		{ "[fault a]\nkind = x\nperiod = 0\n", "t.ini:8: 'period' must be more than 0 seconds" },
		{ "[fault a]\nkind = x\nperiod = 1s\n",
		  "t.ini:8: bad value '1s' for 'period' (seconds, e.g. 5 or 0.25; at most 86400)" },
		{ "[fault a]\nkind = x\nstart = 0.0001\n",
		  "t.ini:8: bad value '0.0001' for 'start' (seconds, e.g. 5 or 0.25; at most 86400)" },
		{ "[fault a]\nkind = x\ncount = 0\n",
		  "t.ini:8: bad value '0' for 'count' (a number 1..1000000)" },
		{ "[fault a]\nkind = cpu-hotplug\n",
		  "t.ini:7: bad fault kind 'cpu-hotplug' (lowercase letters, digits and '_')" },
		{ "[fault a]\nkind = x\nkind = y\n",
		  "t.ini:8: duplicate key 'kind' in [fault a] (first at line 7)" },
		{ "[fault a]\nkind = x\nnr = 1\nnr = 2\n",
		  "t.ini:9: duplicate key 'nr' in [fault a] (first at line 8)" },
		{ "[fault a]\nkind = x\nNr = 1\n",
		  "t.ini:8: bad key 'Nr' in [fault a] (at most 31 lowercase letters, digits and '_')" },
		{ "[fault a]\ntarget = 3-1\n",
		  "t.ini:7: bad target '3-1' (a CPU list like 1-3,6, 'random' or 'workload')" },
		{ "[fault a]\ntarget = all\n",
		  "t.ini:7: bad target 'all' (a CPU list like 1-3,6, 'random' or 'workload')" },
		{ "[fault a]\ntarget = 1,\n",
		  "t.ini:7: bad target '1,' (a CPU list like 1-3,6, 'random' or 'workload')" },
		{ "[fault a]\na=1\nb=1\nc=1\nd=1\ne=1\nf=1\ng=1\nh=1\ni=1\n",
		  "t.ini:15: more than 8 kind-specific keys in [fault a]" },
		/* the host's kinds' keys are checked here, against their tables */
		{ "[fault a]\nkind = vcpu_throttle\ncount = 1\nquota = 150\n",
		  "t.ini:9: [fault a]: 'quota' must be 1..100% (percent of one CPU each throttled "
		  "vCPU thread may use), not '150'" },
		{ "[fault a]\nkind = vcpu_throttle\ncount = 1\nquota = 5x\n",
		  "t.ini:9: [fault a]: 'quota' must be 1..100% (percent of one CPU each throttled "
		  "vCPU thread may use), not '5x'" },
		{ "[fault a]\nkind = pause\ncount = 1\nnr = 2\n",
		  "t.ini:9: [fault a]: host fault kind 'pause' has no option 'nr'" },
		{ "[invariant a]\nkind = x\nkind = y\n",
		  "t.ini:8: duplicate key 'kind' in [invariant a] (first at line 7)" },
		{ "[invariant a]\nlevel = 1\nlevel = 2\n",
		  "t.ini:8: duplicate key 'level' in [invariant a] (first at line 7)" },
		{ "[params] junk\n", "t.ini:6: text after ']' in section header" },
		{ "[params\n", "t.ini:6: missing ']' in section header" },
		{ "\x01\n", "t.ini:6: control character 0x01" },
		{ "# fine\n\x7f\n", "t.ini:7: control character 0x7f" },
		{ "[params]\na = 1\r2\n", "t.ini:7: control character 0x0d" },
		{ "[params]\na=1,2,3,4,5,6,7,8\nb=1,2,3,4,5,6,7,8\nc=1,2,3,4,5,6,7,8\n"
		  "d=1,2,3,4,5,6,7,8,9\n", "t.ini:10: the matrix expands to more than 4096 cases" },
	};
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "", "t.ini:1: no [scenario] section" },
		{ "# only a comment\n", "t.ini:1: no [scenario] section" },
		{ "name = x\n", "t.ini:1: key 'name' outside a section (start with [scenario])" },
		{ "[scenario]\nname = x\n[metric t]\nbetter = lower\n",
		  "t.ini:1: [scenario] has no 'workload'" },
		{ "\n[scenario]\nworkload = x\n", "t.ini:2: [scenario] has no 'name'" },
		{ "[scenario]\nname = x\nworkload = hackbench\n",
		  "t.ini:1: no [metric NAME] section: say which metrics matter and which way is better" },
		{ "[scenario]\nname = x\ngrups = 1\n",
		  "t.ini:3: unknown key 'grups' in [scenario] (expected name, description, workload, "
		  "runs, warmup, deadline, counters, profile, profile_per, trace_buffer_kb, "
		  "wc_grace_ms, trace_keep_mb, trace_run_mb, pin, scheduler, primary or expect)" },
		{ "[scenario]\nprofile = task_numa_work do-numa\n",
		  "t.ini:2: bad function name 'do-numa' in 'profile' (a kernel symbol: letters, digits, "
		  "'_' and '.', at most 63 characters)" },
		{ "[scenario]\nprofile = f g f\n", "t.ini:2: function 'f' listed twice in 'profile'" },
		{ "[scenario]\nname = x\nworkload = hackbench\ntrace_buffer_kb = 1024\n[metric t]\n"
		  "better = lower\n", "t.ini:4: 'trace_buffer_kb' without 'schedtrace' in counters" },
		{ "[scenario]\nname = x\nworkload = hackbench\nwc_grace_ms = 2\n[metric t]\n"
		  "better = lower\n", "t.ini:4: 'wc_grace_ms' without 'schedtrace' in counters" },
		{ "[scenario]\nwc_grace_ms = 10001\n",
		  "t.ini:2: bad value '10001' for 'wc_grace_ms' (a number 0..10000)" },
		{ "[scenario]\nname = x\nworkload = hackbench\ntrace_keep_mb = 8\n[metric t]\n"
		  "better = lower\n", "t.ini:4: 'trace_keep_mb' without 'schedtrace' in counters" },
		{ "[scenario]\ntrace_keep_mb = -1\n",
		  "t.ini:2: bad value '-1' for 'trace_keep_mb' (MiB of kept traces per case; 0 keeps "
		  "none: a whole number 0..65536)" },
		{ "[scenario]\ntrace_keep_mb = 4M\n",
		  "t.ini:2: bad value '4M' for 'trace_keep_mb' (MiB of kept traces per case; 0 keeps "
		  "none: a whole number 0..65536)" },
		{ "[scenario]\ntrace_keep_mb = 65537\n",
		  "t.ini:2: bad value '65537' for 'trace_keep_mb' (MiB of kept traces per case; 0 keeps "
		  "none: a whole number 0..65536)" },
		{ "[scenario]\nname = x\nworkload = hackbench\ntrace_keep_mb = 0\n[metric t]\n"
		  "better = lower\n", "t.ini:4: 'trace_keep_mb' without 'schedtrace' in counters" },
		{ "[scenario]\npin = maybe\n",
		  "t.ini:2: bad value 'maybe' for 'pin' (yes, strict or no)" },
		{ "[scenario]\ntrace_run_mb = 0\n",
		  "t.ini:2: bad value '0' for 'trace_run_mb' (MiB of one run's trace over all CPUs: a "
		  "whole number 1..65536)" },
		{ "[scenario]\ntrace_run_mb = 2.5\n",
		  "t.ini:2: bad value '2.5' for 'trace_run_mb' (MiB of one run's trace over all CPUs: a "
		  "whole number 1..65536)" },
		{ "[scenario]\ntrace_run_mb = 1\ntrace_run_mb = 2\n",
		  "t.ini:3: duplicate key 'trace_run_mb' in [scenario] (first at line 2)" },
		{ "[scenario]\nname = x\nworkload = hackbench\ncounters = tasks\ntrace_run_mb = 2\n"
		  "[metric t]\nbetter = lower\n",
		  "t.ini:5: 'trace_run_mb' without 'schedtrace' in counters" },
		{ "[scenario]\nprofile = a b c d e f g h i\n",
		  "t.ini:2: more than 8 functions in 'profile'" },
		{ "[scenario]\nprofile = ,\n", "t.ini:2: 'profile' names no function" },
		{ "[scenario]\nprofile = f\nprofile_per = numa_pages_migrated\n",
		  "t.ini:3: bad value 'numa_pages_migrated' for 'profile_per' (vmstat:NAME, a "
		  "/proc/vmstat key such as vmstat:numa_pages_migrated)" },
		{ "[scenario]\nprofile = f\nprofile_per = vmstat:Numa\n",
		  "t.ini:3: bad value 'vmstat:Numa' for 'profile_per' (vmstat:NAME, a "
		  "/proc/vmstat key such as vmstat:numa_pages_migrated)" },
		{ "[scenario]\nname = x\nworkload = hackbench\nprofile_per = vmstat:numa_hit\n"
		  "[metric time]\nbetter = lower\n", "t.ini:4: 'profile_per' without 'profile'" },
		{ "[scenario]\nname = x\nname = y\n",
		  "t.ini:3: duplicate key 'name' in [scenario] (first at line 2)" },
		{ "[scenario]\nruns = 0\n", "t.ini:2: bad value '0' for 'runs' (a number 1..1000)" },
		{ "[scenario]\nruns = 1001\n", "t.ini:2: bad value '1001' for 'runs' (a number 1..1000)" },
		{ "[scenario]\nruns = 5 # five\n",
		  "t.ini:2: bad value '5 # five' for 'runs' (a number 1..1000)" },
		{ "[scenario]\nruns = -1\n", "t.ini:2: bad value '-1' for 'runs' (a number 1..1000)" },
		{ "[scenario]\nwarmup = 101\n",
		  "t.ini:2: bad value '101' for 'warmup' (a number 0..100)" },
		{ "[scenario]\ndeadline = 0\n",
		  "t.ini:2: bad value '0' for 'deadline' (a number 1..86400)" },
		{ "[scenario]\ndeadline = 86401\n",
		  "t.ini:2: bad value '86401' for 'deadline' (a number 1..86400)" },
		{ "[scenario]\ndeadline = 5m\n",
		  "t.ini:2: bad value '5m' for 'deadline' (a number 1..86400)" },
		{ "[scenario]\ncounters = schedstat perf\n",
		  "t.ini:2: unknown counter 'perf' (expected schedstat, vmstat, tasks, schedtrace or none)" },
		{ "[scenario]\ncounters = tasks, tasks\n", "t.ini:2: counter 'tasks' listed twice" },
		{ "[scenario]\ncounters = none tasks\n",
		  "t.ini:2: 'none' cannot be combined with other counters" },
		{ "[scenario]\nname = Hack\n",
		  "t.ini:2: bad scenario name 'Hack' (at most 127 lowercase letters, digits, '_', '-' "
		  "and '.', not first)" },
		{ "[scenario]\nname = -x\n",
		  "t.ini:2: bad scenario name '-x' (at most 127 lowercase letters, digits, '_', '-' "
		  "and '.', not first)" },
		{ "[scenario]\nname = a/b\n",
		  "t.ini:2: bad scenario name 'a/b' (at most 127 lowercase letters, digits, '_', '-' "
		  "and '.', not first)" },
		{ "[scenario]\nworkload = hack-bench\n",
		  "t.ini:2: bad workload name 'hack-bench' (lowercase letters, digits and '_')" },
		{ "[scenario]\ndescription = a\tb\n", "t.ini:2: TAB in the value of 'description'" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(plus_cases); i++)
		expect_plus_error(plus_cases[i].extra, plus_cases[i].want);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		expect_error(cases[i].text, cases[i].want);

	/* a NUL byte is an error, not the end of the file */
	expect_error_len("[scenario]\nname = x\0\n", 21, "t.ini:2: NUL byte in the file");
}

static void test_limits(void **state)
{
	struct strbuf t = STRBUF_INIT, err = STRBUF_INIT;
	struct scenario s;
	char name[160];

	(void)state;
	strbuf_addstr(&t, minimal);
	strbuf_addstr(&t, "[params]\n");
	for (unsigned i = 0; i <= PLAN_MAX_PARAMS; i++)
		strbuf_addf(&t, "p%u = 1\n", i);
	expect_error(t.buf, "t.ini:39: more than 32 keys in [params]");

	strbuf_reset(&t);
	strbuf_addstr(&t, minimal);
	for (unsigned i = 1; i <= PLAN_MAX_METRICS; i++)
		strbuf_addf(&t, "[metric m%u]\nbetter = higher\n", i);
	expect_error(t.buf, "t.ini:36: more than 16 [metric] sections");

	/* 64 x 64 is exactly the limit */
	strbuf_reset(&t);
	strbuf_addstr(&t, minimal);
	strbuf_addstr(&t, "[params]\na = 0");
	for (unsigned i = 1; i < 64; i++)
		strbuf_addf(&t, ",%u", i);
	strbuf_addstr(&t, "\nb = 0");
	for (unsigned i = 1; i < 64; i++)
		strbuf_addf(&t, ",%u", i);
	strbuf_addstr(&t, "\n");
	scenario_init(&s);
	if (parse(t.buf, &s, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(s.nr_cases, PLAN_MAX_CASES);
	{
		struct plan p = { 0 };

		assert_int_equal(scenario_expand(&s, &p, &err), 0);
		assert_int_equal(p.nr_cases, PLAN_MAX_CASES);
		assert_string_equal(p.cases[0].id, "x/a=0,b=0");
		assert_string_equal(p.cases[1].id, "x/a=0,b=1");
		assert_string_equal(p.cases[64].id, "x/a=1,b=0");
		assert_string_equal(p.cases[4095].id, "x/a=63,b=63");
		/* a second copy would pass the plan's limit */
		assert_int_equal(scenario_expand(&s, &p, &err), -1);
		assert_string_equal(err.buf, "t.ini:1: the plan would have more than 4096 cases");
		assert_int_equal(p.nr_cases, PLAN_MAX_CASES);
		plan_release(&p);
	}
	scenario_release(&s);

	/* case ids are bounded when the file is read, not cut later */
	memset(name, 'n', 120);
	name[120] = '\0';
	strbuf_reset(&t);
	strbuf_addf(&t, "[scenario]\nname = %s\nworkload = w\n[metric t]\nbetter = lower\n"
		    "[params]\nsome_long_parameter_name = 1, 2, 3\n"
		    "another_long_parameter_name = a_fairly_long_value_number_one, b\n"
		    "third_parameter = x, yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\n", name);
	expect_error(t.buf, "t.ini:1: case ids would be longer than 255 characters "
		     "(shorten the name or the values)");
	strbuf_release(&t);
	strbuf_release(&err);
}

/* profile and profile_per reach every case of the matrix */
static void test_profile(void **state)
{
	static const char text[] =
		"[scenario]\n"
		"name = nb\n"
		"workload = numa\n"
		"profile = migrate_misplaced_page, task_numa_fault  task_numa_work.isra.0\n"
		"profile_per = vmstat:numa_pages_migrated\n"
		"[params]\n"
		"threads = 1, 2\n"
		"[metric time]\n"
		"better = lower\n";
	struct scenario s;
	struct strbuf err = STRBUF_INIT;
	struct plan p = { 0 };

	(void)state;
	scenario_init(&s);
	if (parse(text, &s, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(scenario_expand(&s, &p, &err), 0);
	assert_int_equal(p.nr_cases, 2);
	for (unsigned i = 0; i < 2; i++) {
		const struct plan_profile *pr = &p.cases[i].profile;

		assert_int_equal(pr->nr_funcs, 3);
		assert_string_equal(pr->funcs[0], "migrate_misplaced_page");
		assert_string_equal(pr->funcs[1], "task_numa_fault");
		assert_string_equal(pr->funcs[2], "task_numa_work.isra.0");
		assert_string_equal(pr->per, "vmstat:numa_pages_migrated");
	}
	plan_release(&p);
	scenario_release(&s);
	strbuf_release(&err);
}

static void test_expand(void **state)
{
	static const char text[] =
		"[scenario]\n"
		"name = hb\n"
		"workload = hackbench\n"
		"runs = 2\n"
		"warmup = 1\n"
		"deadline = 99\n"
		"counters = vmstat\n"
		"[params]\n"
		"groups = 1, 2\n"
		"loops = 10\n"
		"mode = process, thread\n"
		"[metric time]\n"
		"better = lower\n"
		"unit = s\n"
		"[metric rps]\n"
		"better = higher\n"
		"statistic = median\n";
	static const char *const ids[] = {
		"hb/groups=1,mode=process", "hb/groups=1,mode=thread",
		"hb/groups=2,mode=process", "hb/groups=2,mode=thread",
	};
	struct scenario s;
	struct strbuf err = STRBUF_INIT;
	struct plan p = { 0 };

	(void)state;
	scenario_init(&s);
	if (parse(text, &s, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(s.nr_cases, 4);
	assert_int_equal(scenario_expand(&s, &p, &err), 0);
	assert_int_equal(p.nr_cases, 4);
	for (unsigned i = 0; i < 4; i++) {
		const struct plan_case *c = &p.cases[i];

		assert_string_equal(c->id, ids[i]);
		assert_string_equal(c->scenario, "hb");
		assert_string_equal(c->source, "t.ini:1");
		assert_string_equal(c->workload, "hackbench");
		assert_int_equal(c->nr_params, 3);
		assert_string_equal(c->params[0].key, "groups");
		assert_string_equal(c->params[0].value, i < 2 ? "1" : "2");
		assert_string_equal(c->params[0].where, "t.ini:9");
		assert_string_equal(c->params[1].value, "10");
		assert_string_equal(c->params[1].where, "t.ini:10");
		assert_string_equal(c->params[2].value, i % 2 ? "thread" : "process");
		assert_string_equal(c->params[2].where, "t.ini:11");
		assert_int_equal(c->runs, 2);
		assert_int_equal(c->warmup, 1);
		assert_int_equal(c->deadline_s, 99);
		assert_int_equal(c->counters, PLAN_CNT_VMSTAT);
		assert_int_equal(c->nr_metrics, 2);
		assert_string_equal(c->metrics[1].name, "rps");
		assert_int_equal(c->metrics[1].higher_is_better, 1);
		assert_string_equal(c->metrics[1].statistic, "median");
	}
	/* expanding again appends */
	assert_int_equal(scenario_expand(&s, &p, &err), 0);
	assert_int_equal(p.nr_cases, 8);
	assert_string_equal(p.cases[7].id, ids[3]);
	plan_release(&p);
	scenario_release(&s);

	/* no axis: the case id is the scenario name */
	scenario_init(&s);
	assert_int_equal(parse(minimal, &s, &err), 0);
	assert_int_equal(scenario_expand(&s, &p, &err), 0);
	assert_int_equal(p.nr_cases, 1);
	assert_string_equal(p.cases[0].id, "x");
	assert_int_equal(p.cases[0].nr_params, 0);
	plan_release(&p);
	scenario_release(&s);

	/* a scenario that did not load does not expand */
	scenario_init(&s);
	assert_int_equal(parse("[scenario]\n", &s, &err), -1);
	assert_int_equal(scenario_expand(&s, &p, &err), -1);
	assert_int_equal(p.nr_cases, 0);
	scenario_release(&s);
	strbuf_release(&err);
}

static void test_faults(void **state)
{
	static const char text[] =
		"[scenario]\n"
		"name = f\n"
		"workload = hackbench\n"
		"[params]\n"
		"mode = process, thread\n"
		"[metric time]\n"
		"better = lower\n"
		"[fault churn]\n"                 /* line 8 */
		"kind = cpu_hotplug\n"
		"target = 1-3,6\n"
		"start = 0.2\n"
		"period = 0.5\n"
		"hold = 0.25\n"
		"duration = 2.1\n"
		"nr = 1\n"                        /* line 15 */
		"[fault once]\n"
		"kind = rt_hog\n"
		"count = 1\n"
		"hold = 3\n"                      /* once: hold may exceed a missing period */
		"[invariant aff]\n"               /* line 20 */
		"kind = affinity_respected\n"
		"cpus = 0-3, 5\n"
		"[invariant work]\n"
		"kind = no_lost_work\n"
		"[fault freeze]\n"
		"kind = pause\n"                  /* the host's (QMP) */
		"count = 1\n"
		"hold = 2\n"
		"[fault slow]\n"                  /* line 30 */
		"kind = vcpu_throttle\n"
		"count = 1\n"
		"quota = 25%\n";
	struct scenario s;
	struct strbuf err = STRBUF_INIT;
	struct plan p = { 0 };

	(void)state;
	scenario_init(&s);
	if (parse(text, &s, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(s.nr_faults, 4);
	assert_int_equal(s.faults[2].side, PLAN_SIDE_HOST);
	assert_int_equal(s.faults[3].side, PLAN_SIDE_HOST);
	assert_string_equal(s.faults[3].opts[0].value, "25%");
	assert_int_equal(s.faults[2].hold_ms, 2000);
	assert_string_equal(s.faults[0].name, "churn");
	assert_string_equal(s.faults[0].kind, "cpu_hotplug");
	assert_string_equal(s.faults[0].target, "1-3,6");
	assert_string_equal(s.faults[0].where, "t.ini:8");
	assert_int_equal(s.faults[0].side, PLAN_SIDE_GUEST);
	assert_int_equal(s.faults[0].start_ms, 200);
	assert_int_equal(s.faults[0].period_ms, 500);
	assert_int_equal(s.faults[0].hold_ms, 250);
	/* 2.1 s of 0.5 s periods: actions at 0, 0.5, 1, 1.5 and 2 */
	assert_int_equal(s.faults[0].count, 5);
	assert_int_equal(s.faults[0].nr_opts, 1);
	assert_string_equal(s.faults[0].opts[0].key, "nr");
	assert_string_equal(s.faults[0].opts[0].value, "1");
	assert_int_equal(s.faults[0].opts[0].line, 15);
	assert_string_equal(s.faults[1].target, "default");
	assert_int_equal(s.faults[1].count, 1);
	assert_int_equal(s.faults[1].period_ms, 0);
	assert_int_equal(s.faults[1].hold_ms, 3000);
	assert_int_equal(s.nr_invariants, 2);
	assert_string_equal(s.invariants[0].kind, "affinity_respected");
	assert_string_equal(s.invariants[0].where, "t.ini:20");
	/* commas are no matrix axis here: the runner reads the value */
	assert_string_equal(s.invariants[0].opts[0].value, "0-3, 5");
	assert_int_equal(s.invariants[1].nr_opts, 0);
	assert_int_equal(s.nr_cases, 2);

	/* every case of the matrix gets them */
	assert_int_equal(scenario_expand(&s, &p, &err), 0);
	assert_int_equal(p.nr_cases, 2);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(p.cases[i].nr_faults, 4);
		assert_int_equal(p.cases[i].nr_invariants, 2);
		assert_memory_equal(&p.cases[i].faults[0], &s.faults[0], sizeof(s.faults[0]));
		assert_memory_equal(&p.cases[i].invariants[1], &s.invariants[1],
				    sizeof(s.invariants[1]));
	}
	plan_release(&p);
	scenario_release(&s);
	assert_int_equal(s.nr_faults, 0);
	strbuf_release(&err);
}

static char *make_tmpdir(void)
{
	char *dir = xstrdup("/tmp/test-scenario-XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

static void rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void test_suites(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "a\nc\n", NULL }, /* names the missing file: see below */
		{ "a\n# x\na.ini\n", "s.suite:3: 'a.ini' is listed twice (first at line 1)" },
		{ "/etc/passwd\n", "s.suite:1: '/etc/passwd' is not a file under scenarios/" },
		{ "../a\n", "s.suite:1: '../a' is not a file under scenarios/" },
		{ "x/../../a\n", "s.suite:1: 'x/../../a' is not a file under scenarios/" },
		{ "a runs=3\n", "s.suite:1: one scenario file per line, without options: 'a runs=3'" },
		{ "# nothing\n\n", "s.suite: the suite names no scenario file" },
		{ "a\n\x02\n", "s.suite:2: control character 0x02" },
		{ "z*\n", "s.suite:1: 'z*.ini' matches no scenario file" },
		{ "a\n!b\n", "s.suite:2: '!b.ini' drops nothing listed before it" },
		{ "*\na\n", "s.suite:2: 'a.ini' is listed twice (first at line 1)" },
		{ "a\n!a\n", "s.suite: the suite names no scenario file" },
	};
	char *dir = make_tmpdir();
	struct strvec paths = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	static const char good[] = "# comment\n\na\r\n  b.ini   # the second\n";

	(void)state;
	put(dir, "a.ini", minimal);
	put(dir, "b.ini", minimal);
	assert_int_equal(suite_parse("s.suite", good, strlen(good), dir, &paths, &err), 0);
	assert_int_equal(paths.nr, 2);
	assert_true(!strcmp(paths.v[0] + strlen(dir), "/a.ini"));
	assert_true(!strcmp(paths.v[1] + strlen(dir), "/b.ini"));
	/* a pattern adds in name order what is not listed yet; !pattern
	 * drops what came before it */
	{
		static const char pat[] = "b\n*\n!c*\n";
		struct strvec pp = STRVEC_INIT;

		put(dir, "c.ini", minimal);
		put(dir, "c2.ini", minimal);
		assert_int_equal(suite_parse("s.suite", pat, strlen(pat), dir, &pp, &err), 0);
		assert_int_equal(pp.nr, 2);
		assert_true(!strcmp(pp.v[0] + strlen(dir), "/b.ini"));
		assert_true(!strcmp(pp.v[1] + strlen(dir), "/a.ini"));
		strvec_clear(&pp);
		for (int k = 0; k < 2; k++) {
			char *c = xasprintf("%s/%s", dir, k ? "c2.ini" : "c.ini");

			assert_int_equal(unlink(c), 0);
			free(c);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *want = bad[i].want ? xstrdup(bad[i].want) :
			     xasprintf("s.suite:2: no scenario file 'c.ini' (%s/c.ini)", dir);

		assert_int_equal(suite_parse("s.suite", bad[i].text, strlen(bad[i].text), dir,
					     &paths, &err), -1);
		if (strcmp(err.buf, want))
			fail_msg("error '%s', expected '%s'", err.buf, want);
		assert_int_equal(paths.nr, 2); /* untouched on error */
		free(want);
	}
	strvec_clear(&paths);

	/* two scenarios with one name cannot share a plan */
	{
		struct plan p = { 0 };
		char *a = xasprintf("%s/a.ini", dir), *b = xasprintf("%s/b.ini", dir);
		const char *both[] = { a, b };
		char *want = xasprintf("%s:1: scenario name 'x' is already used by %s:1", b, a);

		assert_int_equal(plan_compile_paths(both, 2, &p, &err), -1);
		assert_string_equal(err.buf, want);
		plan_release(&p);
		free(want);
		free(a);
		free(b);
	}
	rm_dir(dir);
	free(dir);

	assert_int_equal(suite_load("no-such-suite", &paths, &err), -1);
	assert_string_equal(err.buf, "no suite 'no-such-suite' (scenarios/suites/no-such-suite.suite)");
	strbuf_release(&err);
}

/* ---- the scenario files we ship ---- */

static void test_every_file_loads(void **state)
{
	char *dir = xasprintf("%s/scenarios", lab_root());
	struct strbuf err = STRBUF_INIT;
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct scenario s;
		char *path, *want;

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		scenario_init(&s);
		if (scenario_load(path, &s, &err))
			fail_msg("%s", err.buf);
		/* messages and plans name the file relative to the tree */
		want = xasprintf("scenarios/%s", de->d_name);
		assert_string_equal(s.shown, want);
		assert_true(s.description[0]);
		/* the file is named after the scenario */
		assert_int_equal(strncmp(de->d_name, s.name, len - 4), 0);
		assert_int_equal(strlen(s.name), len - 4);
		scenario_release(&s);
		free(want);
		free(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
	free(dir);
	strbuf_release(&err);
}

static void emit_sb(void *ctx, const char *s, size_t len)
{
	strbuf_add(ctx, s, len);
}

/* A scenario's text to its first case, that case's plan text (header and
 * case) and the plan read back from it. */
static void round_trip(const char *text, struct plan *p, struct plan *back, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	struct scenario s;
	char why[256];

	scenario_init(&s);
	if (parse(text, &s, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(scenario_expand(&s, p, &err), 0);
	plan_write_header(emit_sb, out);
	assert_int_equal(plan_write_case(&p->cases[0], emit_sb, out, why, sizeof(why)), 0);
	if (plan_parse(out->buf, out->len, back, why, sizeof(why)))
		fail_msg("%s", why);
	scenario_release(&s);
	strbuf_release(&err);
}

/* The trace buffer travels to the runner and back through plan text. */
static void test_trace_buffer_kb(void **state)
{
	static const char text[] =
		"[scenario]\n"
		"name = tr\n"
		"workload = hackbench\n"
		"counters = tasks schedtrace\n"
		"trace_buffer_kb = 8192\n"
		"[metric time]\n"
		"better = lower\n";
	struct strbuf out = STRBUF_INIT;
	struct plan p = { 0 }, back = { 0 };

	(void)state;
	round_trip(text, &p, &back, &out);
	assert_int_equal(p.cases[0].trace_kb, 8192);
	assert_true(p.cases[0].counters & PLAN_CNT_SCHEDTRACE);
	assert_non_null(strstr(out.buf, "counters\ttasks schedtrace\n"));
	assert_non_null(strstr(out.buf, "trace_buffer_kb\t8192\n"));
	assert_int_equal(back.cases[0].trace_kb, 8192);
	plan_release(&back);
	plan_release(&p);
	strbuf_release(&out);
}

/* The grace period travels to the host in the plan; 0 is a grace too, and
 * a scenario without the key leaves the host's default (no record). */
static void test_wc_grace_ms(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct plan p = { 0 }, back = { 0 };

	(void)state;
	round_trip("[scenario]\nname = tr\nworkload = hackbench\ncounters = schedtrace\n"
		   "wc_grace_ms = 0\n[metric time]\nbetter = lower\n", &p, &back, &out);
	assert_true(p.cases[0].wc_grace_set);
	assert_int_equal(p.cases[0].wc_grace_ms, 0);
	assert_non_null(strstr(out.buf, "wc_grace_ms\t0\n"));
	assert_true(back.cases[0].wc_grace_set);
	assert_int_equal(back.cases[0].wc_grace_ms, 0);
	plan_release(&back);
	plan_release(&p);

	strbuf_reset(&out);
	round_trip("[scenario]\nname = tr\nworkload = hackbench\ncounters = schedtrace\n"
		   "[metric time]\nbetter = lower\n", &p, &back, &out);
	assert_false(p.cases[0].wc_grace_set);
	assert_null(strstr(out.buf, "wc_grace_ms"));
	assert_false(back.cases[0].wc_grace_set);
	plan_release(&back);
	plan_release(&p);
	strbuf_release(&out);
}

/* The keep budget travels to the host in the plan; without the key lab run
 * keeps within the default (no record), and 0 (keep none) is a budget too. */
static void test_trace_keep_mb(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct plan p = { 0 }, back = { 0 };

	(void)state;
	round_trip("[scenario]\nname = tr\nworkload = hackbench\ncounters = schedtrace\n"
		   "trace_keep_mb = 12\n[metric time]\nbetter = lower\n", &p, &back, &out);
	assert_int_equal(p.cases[0].trace_keep_mb, 12);
	assert_non_null(strstr(out.buf, "trace_keep_mb\t12\n"));
	assert_int_equal(back.cases[0].trace_keep_mb, 12);
	assert_int_equal(plan_trace_keep_mb(&back.cases[0]), 12);
	plan_release(&back);
	plan_release(&p);

	strbuf_reset(&out);
	round_trip("[scenario]\nname = tr\nworkload = hackbench\ncounters = schedtrace\n"
		   "[metric time]\nbetter = lower\n", &p, &back, &out);
	assert_int_equal(p.cases[0].trace_keep_mb, 0);
	assert_false(p.cases[0].trace_keep_set);
	assert_null(strstr(out.buf, "trace_keep_mb"));
	assert_int_equal(back.cases[0].trace_keep_mb, 0);
	assert_int_equal(plan_trace_keep_mb(&back.cases[0]), PLAN_TRACE_KEEP_DEFAULT_MB);
	assert_int_equal(PLAN_TRACE_KEEP_DEFAULT_MB, 4);
	plan_release(&back);
	plan_release(&p);

	strbuf_reset(&out);
	round_trip("[scenario]\nname = tr\nworkload = hackbench\ncounters = schedtrace\n"
		   "trace_keep_mb = 0\n[metric time]\nbetter = lower\n", &p, &back, &out);
	assert_true(p.cases[0].trace_keep_set);
	assert_non_null(strstr(out.buf, "trace_keep_mb\t0\n"));
	assert_true(back.cases[0].trace_keep_set);
	assert_int_equal(plan_trace_keep_mb(&back.cases[0]), 0);
	plan_release(&back);
	plan_release(&p);
	strbuf_release(&out);
}

/* The per-run budget travels to the runner, which sizes each CPU's ring
 * buffer to its share (never above trace_buffer_kb, never below 64 KiB). */
static void test_trace_run_mb(void **state)
{
	struct strbuf out = STRBUF_INIT;
	struct plan p = { 0 }, back = { 0 };

	(void)state;
	round_trip("[scenario]\nname = tr\nworkload = hackbench\ncounters = schedtrace\n"
		   "trace_run_mb = 16\n[metric time]\nbetter = lower\n", &p, &back, &out);
	assert_int_equal(p.cases[0].trace_run_mb, 16);
	assert_non_null(strstr(out.buf, "trace_run_mb\t16\n"));
	assert_int_equal(back.cases[0].trace_run_mb, 16);
	/* 32 CPUs: 512 KiB each; 2 CPUs: the default 4096 is smaller than 8 MiB */
	assert_int_equal(plan_trace_cpu_kb(&back.cases[0], 32, 4096), 512);
	assert_int_equal(plan_trace_cpu_kb(&back.cases[0], 2, 4096), 4096);
	/* 1024 CPUs: 16 KiB would be a share, the floor is 64 */
	assert_int_equal(plan_trace_cpu_kb(&back.cases[0], 1024, 4096), PLAN_MIN_TRACE_KB);
	back.cases[0].trace_kb = 256;
	assert_int_equal(plan_trace_cpu_kb(&back.cases[0], 32, 4096), 256);
	plan_release(&back);
	plan_release(&p);

	strbuf_reset(&out);
	round_trip("[scenario]\nname = tr\nworkload = hackbench\ncounters = schedtrace\n"
		   "[metric time]\nbetter = lower\n", &p, &back, &out);
	assert_int_equal(p.cases[0].trace_run_mb, 0);
	assert_null(strstr(out.buf, "trace_run_mb"));
	assert_int_equal(plan_trace_cpu_kb(&back.cases[0], 32, 4096), 4096);
	assert_int_equal(plan_trace_cpu_kb(&back.cases[0], 0, 4096), 4096);
	plan_release(&back);
	plan_release(&p);
	strbuf_release(&out);
}

/* pin = yes|strict travels in the plan for the host; no is no record */
static void test_pin_key(void **state)
{
	static const char *const vals[] = { "yes", "strict", "no" };
	static const enum plan_pin want[] = { PLAN_PIN_YES, PLAN_PIN_STRICT, PLAN_PIN_NONE };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		struct strbuf out = STRBUF_INIT, text = STRBUF_INIT;
		struct plan p = { 0 }, back = { 0 };

		strbuf_addf(&text, "[scenario]\nname = p\nworkload = hackbench\npin = %s\n"
			    "[metric time]\nbetter = lower\n", vals[i]);
		round_trip(text.buf, &p, &back, &out);
		assert_int_equal(p.cases[0].pin, want[i]);
		assert_int_equal(back.cases[0].pin, want[i]);
		assert_true(!strstr(out.buf, "\npin\t") == (want[i] == PLAN_PIN_NONE));
		plan_release(&back);
		plan_release(&p);
		strbuf_release(&out);
		strbuf_release(&text);
	}
}

/* primary and expect: lab ab's keys, checked against the metrics */
static void test_primary_expect(void **state)
{
	static const char text[] =
		"[scenario]\nname = pe\nworkload = hackbench\nprimary = lat\n"
		"expect = time <= +1%, lat==+-2.5%\n"
		"[metric time]\nbetter = lower\n[metric lat]\nbetter = lower\n";
	struct strbuf err = STRBUF_INIT;
	struct scenario s;

	(void)state;
	scenario_init(&s);
	assert_int_equal(parse(text, &s, &err), 0);
	assert_string_equal(s.primary, "lat");
	assert_int_equal(s.nr_expects, 2);
	assert_string_equal(s.expects[0].case_id, "pe");
	assert_string_equal(s.expects[0].text, "pe:time <= +1%");
	assert_int_equal(s.expects[1].op, EXPECT_EQ);
	assert_string_equal(s.expects[1].text, "pe:lat == +-2.5%");
	scenario_release(&s);
	/* neither: the first metric decides, nothing expected */
	scenario_init(&s);
	assert_int_equal(parse(minimal, &s, &err), 0);
	assert_string_equal(s.primary, "");
	assert_int_equal(s.nr_expects, 0);
	scenario_release(&s);
	strbuf_release(&err);
	expect_error("[scenario]\nname = x\nworkload = hackbench\nprimary = lat\n[metric time]\nbetter = lower\n",
		     "t.ini:4: 'primary' names 'lat', which is no [metric] of the scenario");
	expect_error("[scenario]\nname = x\nworkload = hackbench\nexpect = lat <= 1%\n[metric time]\nbetter = lower\n",
		     "t.ini:4: 'expect' names 'lat', which is no [metric] of the scenario");
	expect_error("[scenario]\nname = x\nworkload = hackbench\nexpect = time < 1%\n[metric time]\nbetter = lower\n",
		     "t.ini:4: bad expectation 'time < 1%' (METRIC OP N%, OP one of <=, >=, ==, N a signed "
		     "percentage below 100 such as +1% or -0.5%, == takes N% or +-N%)");
	expect_error("[scenario]\nname = x\nworkload = hackbench\nprimary = Time!\n[metric time]\nbetter = lower\n",
		     "t.ini:4: bad value 'Time!' for 'primary' (a metric's name)");
}

static void test_smoke_covers_every_workload(void **state)
{
	static const char *const names[] = {
#define X(n) #n,
		WORKLOAD_LIST(X)
#undef X
	};
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan p = { 0 };
	char why[256];

	(void)state;
	if (plan_compile_suite("smoke", &text, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(plan_parse(text.buf, text.len, &p, why, sizeof(why)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct workload_ops *w = workload_find(names[i]);
		unsigned found = 0;

		for (unsigned c = 0; c < p.nr_cases; c++)
			found += !strcmp(p.cases[c].workload, names[i]);
		/* one that needs more than the runner in the initrd has a suite
		 * of its own, and smoke (any kernel, no builds) leaves it out */
		assert_non_null(w);
		if (w->needs && found)
			fail_msg("the smoke suite runs '%s', which needs %s", names[i], w->needs);
		if (!w->needs && !found)
			fail_msg("the smoke suite does not run workload '%s'", names[i]);
	}
	{
		struct strbuf st = STRBUF_INIT;

		if (plan_compile_suite("scx-selftests", &st, &err))
			fail_msg("%s", err.buf);
		assert_non_null(strstr(st.buf, "workload\tscx_selftest\n"));
		strbuf_release(&st);
	}
	/* smoke is short: one or two runs, no warm-up, a minute or so each */
	for (unsigned c = 0; c < p.nr_cases; c++) {
		assert_true(p.cases[c].runs <= 2);
		assert_int_equal(p.cases[c].warmup, 0);
		assert_true(p.cases[c].deadline_s <= 90);
	}
	assert_true(p.nr_cases <= 16);
	plan_release(&p);
	strbuf_reset(&text);
	if (plan_compile_suite("seeds", &text, &err))
		fail_msg("%s", err.buf);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The faults suite runs every guest fault kind and judges every invariant. */
static void test_faults_suite_covers_every_kind(void **state)
{
	static const char *const kinds[] = {
#define X(n) #n,
		FAULT_LIST(X)
#undef X
	};
	static const char *const invs[] = {
#define X(n) #n,
		INVARIANT_LIST(X)
#undef X
	};
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan p = { 0 };
	char why[256];

	(void)state;
	if (plan_compile_suite("faults", &text, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(plan_parse(text.buf, text.len, &p, why, sizeof(why)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		unsigned found = 0;

		for (unsigned c = 0; c < p.nr_cases; c++)
			for (unsigned f = 0; f < p.cases[c].nr_faults; f++)
				found += !strcmp(p.cases[c].faults[f].kind, kinds[i]);
		if (!found)
			fail_msg("the faults suite has no fault of kind '%s'", kinds[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(invs); i++) {
		unsigned found = 0;

		for (unsigned c = 0; c < p.nr_cases; c++)
			for (unsigned v = 0; v < p.cases[c].nr_invariants; v++)
				found += !strcmp(p.cases[c].invariants[v].kind, invs[i]);
		if (!found)
			fail_msg("the faults suite judges no invariant of kind '%s'", invs[i]);
	}
	plan_release(&p);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void check_golden(const char *file, const char *got)
{
	char *path = xasprintf("%s/tests/golden/plan/%s", lab_root(), file);
	const char *update = getenv("UPDATE_GOLDEN");
	char *want;

	if (update && *update) {
		char *dir = xasprintf("%s/tests/golden/plan", lab_root());

		assert_int_equal(mkdir_p(dir, 0755), 0);
		assert_int_equal(write_file_atomic(path, got, strlen(got)), 0);
		free(dir);
	}
	want = read_file(path, NULL);
	if (!want)
		fail_msg("cannot read '%s' (UPDATE_GOLDEN=1 writes it)", path);
	if (strcmp(want, got))
		fail_msg("plan differs from '%s' (UPDATE_GOLDEN=1 rewrites it):\n%s", path, got);
	free(want);
	free(path);
}

static void test_golden_plans(void **state)
{
	static const char *const files[] = {
		"smoke-hackbench.ini", "seed000-hackbench.ini", "seed000-schbench.ini",
		"seed001-numa.ini", "smoke-exec.ini", "fault-cpu-hotplug.ini", "fault-sysctl-flip.ini",
	};
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = xasprintf("%s/scenarios/%s", lab_root(), files[i]);
		char *golden = xasprintf("%.*s.plan", (int)(strlen(files[i]) - 4), files[i]);

		strbuf_reset(&text);
		if (plan_compile_file(path, &text, &err))
			fail_msg("%s", err.buf);
		check_golden(golden, text.buf);
		free(golden);
		free(path);
	}
	/* A suite's plan is its scenarios' plans one after the other: no
	 * golden file of its own, so a scenario joining by its name needs
	 * none rewritten. */
	for (size_t i = 0; i < 2; i++) {
		const char *suite = i ? "faults" : "smoke";
		struct strvec paths = STRVEC_INIT;
		struct strbuf one = STRBUF_INIT, all = STRBUF_INIT;

		strbuf_reset(&text);
		if (plan_compile_suite(suite, &text, &err) || suite_load(suite, &paths, &err))
			fail_msg("%s", err.buf);
		for (size_t k = 0; k < paths.nr; k++) {
			strbuf_reset(&one);
			if (plan_compile_file(paths.v[k], &one, &err))
				fail_msg("%s", err.buf);
			/* each file's plan has the header once */
			strbuf_addstr(&all, k ? strchr(one.buf, '\n') + 1 : one.buf);
		}
		assert_string_equal(text.buf, all.buf);
		strvec_clear(&paths);
		strbuf_release(&one);
		strbuf_release(&all);
	}
	strbuf_release(&text);
	strbuf_release(&err);
}

/* lab run --trace: schedtrace joins every case's counters, nothing else
 * of the plan moves, a case that had it already keeps it once, and a plan
 * that does not parse is refused with its text untouched. */
static void test_add_counters(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan before = { 0 }, after = { 0 };
	char why[256];

	(void)state;
	if (plan_compile_suite("smoke", &text, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(plan_parse(text.buf, text.len, &before, why, sizeof(why)), 0);
	assert_int_equal(plan_text_add_counters(&text, PLAN_CNT_SCHEDTRACE, &err), 0);
	assert_int_equal(plan_parse(text.buf, text.len, &after, why, sizeof(why)), 0);
	assert_int_equal(before.nr_cases, after.nr_cases);
	for (unsigned i = 0; i < after.nr_cases; i++) {
		assert_string_equal(before.cases[i].id, after.cases[i].id);
		assert_int_equal(after.cases[i].counters, before.cases[i].counters | PLAN_CNT_SCHEDTRACE);
		assert_int_equal(before.cases[i].runs, after.cases[i].runs);
		assert_int_equal(before.cases[i].deadline_s, after.cases[i].deadline_s);
	}
	/* twice is once */
	{
		size_t len = text.len;
		char *once = xstrdup(text.buf);

		assert_int_equal(plan_text_add_counters(&text, PLAN_CNT_SCHEDTRACE, &err), 0);
		assert_int_equal(text.len, len);
		assert_string_equal(text.buf, once);
		free(once);
	}
	strbuf_reset(&text);
	strbuf_addstr(&text, "not a plan\n");
	assert_int_equal(plan_text_add_counters(&text, PLAN_CNT_SCHEDTRACE, &err), -1);
	assert_string_equal(text.buf, "not a plan\n");
	assert_non_null(strstr(err.buf, "compiled plan"));
	plan_release(&before);
	plan_release(&after);
	strbuf_release(&text);
	strbuf_release(&err);
}

static const struct plan_param *find_param(const struct plan_case *c, const char *key)
{
	for (unsigned i = 0; i < c->nr_params; i++)
		if (!strcmp(c->params[i].key, key))
			return &c->params[i];
	return NULL;
}

/* lab run --param: SCENARIO:KEY=VALUE sets that scenario's cases only
 * (a key it had is replaced, a new one added), KEY=VALUE every case;
 * case ids never change; a bad form or a scenario with no case is one
 * line and the text as it was. */
static void test_set_param(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan before = { 0 }, after = { 0 };
	const char *bad[] = { "work", "=3", "work=", ":work=3", "smoke-hackbench:=3",
			      "nosuch:work=3", "a-key-longer-than-the-sixty-three-bytes-a-plan-keeps-for-its-keys=1" };
	char why[256];

	(void)state;
	if (plan_compile_suite("smoke", &text, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(plan_parse(text.buf, text.len, &before, why, sizeof(why)), 0);
	assert_int_equal(plan_text_set_param(&text, "smoke-hackbench:work=250", &err), 0);
	assert_int_equal(plan_text_set_param(&text, "smoke-hackbench:loops=7", &err), 0);
	assert_int_equal(plan_parse(text.buf, text.len, &after, why, sizeof(why)), 0);
	assert_int_equal(before.nr_cases, after.nr_cases);
	for (unsigned i = 0; i < after.nr_cases; i++) {
		const struct plan_case *b = &before.cases[i], *c = &after.cases[i];
		int hb = !strcmp(c->scenario, "smoke-hackbench");

		assert_string_equal(b->id, c->id);
		if (!hb) {
			assert_int_equal(b->nr_params, c->nr_params);
			assert_null(find_param(c, "work"));
			continue;
		}
		assert_int_equal(c->nr_params, b->nr_params + 1);
		assert_string_equal(find_param(c, "work")->value, "250");
		assert_string_equal(find_param(c, "loops")->value, "7");
		assert_string_equal(find_param(c, "work")->where, "--param work");
	}
	plan_release(&after);
	/* no scenario: every case */
	assert_int_equal(plan_text_set_param(&text, "runs_hint=a:b", &err), 0);
	assert_int_equal(plan_parse(text.buf, text.len, &after, why, sizeof(why)), 0);
	for (unsigned i = 0; i < after.nr_cases; i++)
		assert_string_equal(find_param(&after.cases[i], "runs_hint")->value, "a:b");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *was = xstrdup(text.buf);

		strbuf_reset(&err);
		assert_int_equal(plan_text_set_param(&text, bad[i], &err), -1);
		assert_non_null(strstr(err.buf, "--param"));
		assert_null(strchr(err.buf, '\n'));
		assert_string_equal(text.buf, was);
		free(was);
	}
	plan_release(&before);
	plan_release(&after);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* Runs cmd_scenarios with stdout in a file; returns its exit code. */
static int run_cmd(const char **argv, int argc, char **out)
{
	char path[] = "/tmp/test-scenario-out-XXXXXX";
	int fd = mkstemp(path), saved, ret;

	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	ret = cmd_scenarios(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	*out = read_file(path, NULL);
	unlink(path);
	return ret;
}

static void test_cmd_scenarios(void **state)
{
	struct strbuf plan = STRBUF_INIT, err = STRBUF_INIT;
	const char *list[] = { "scenarios" };
	const char *smoke[] = { "scenarios", "--plan", "smoke" };
	const char *file[] = { "scenarios", "--plan", "smoke-hackbench.ini" };
	const char *nosuite[] = { "scenarios", "--plan", "no-such-suite" };
	const char *badfile[] = { "scenarios", "--plan", "/nonexistent/x.ini" };
	const char *usage[] = { "scenarios", "--frobnicate" };
	char *out;

	(void)state;
	assert_int_equal(run_cmd(list, 1, &out), 0);
	assert_non_null(strstr(out, "smoke-hackbench "));
	assert_non_null(strstr(out, "seed001-numa "));
	assert_non_null(strstr(out, "\nsmoke "));
	assert_non_null(strstr(out, "\nseeds "));
	free(out);

	assert_int_equal(plan_compile_suite("smoke", &plan, &err), 0);
	assert_int_equal(run_cmd(smoke, 3, &out), 0);
	assert_string_equal(out, plan.buf);
	free(out);

	assert_int_equal(run_cmd(file, 3, &out), 0);
	assert_non_null(strstr(out, "case\tsmoke-hackbench/mode=thread\n"));
	free(out);

	assert_int_equal(run_cmd(nosuite, 3, &out), 2);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(run_cmd(badfile, 3, &out), 2);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(run_cmd(usage, 2, &out), 2);
	free(out);
	strbuf_release(&plan);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_defaults_and_syntax),
		cmocka_unit_test(test_quote_then_comment),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_trace_buffer_kb),
		cmocka_unit_test(test_wc_grace_ms),
		cmocka_unit_test(test_trace_keep_mb),
		cmocka_unit_test(test_trace_run_mb),
		cmocka_unit_test(test_pin_key),
		cmocka_unit_test(test_primary_expect),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_suites),
		cmocka_unit_test(test_every_file_loads),
		cmocka_unit_test(test_smoke_covers_every_workload),
		cmocka_unit_test(test_faults_suite_covers_every_kind),
		cmocka_unit_test(test_golden_plans),
		cmocka_unit_test(test_add_counters),
		cmocka_unit_test(test_set_param),
		cmocka_unit_test(test_cmd_scenarios),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
