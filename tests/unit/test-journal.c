/* test-journal.c - the bare-metal undo journal: records round-trip through
 * the text format, "clean" covers its process only, torn and malformed
 * lines, the runner-side notes, and a restore that really writes back. */
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

#include "common/journal.h"
#include "lib/util.h"

static char *fmt(enum journal_op op, long pid, const char *path, const char *value)
{
	size_t n = journal_format(op, pid, path, value, NULL, 0);
	char *s = malloc(n + 1);

	assert_int_equal(journal_format(op, pid, path, value, s, n + 1), n);
	assert_int_equal(strlen(s), n);
	return s;
}

static void test_round_trip(void **state)
{
	static const char *const values[] = {
		"1", "", "GENTLE_FAIR_SLEEPERS NO_TTWU_QUEUE", "max 100000\n", "50%", "caf\xc3\xa9\t",
	};
	struct strbuf text = STRBUF_INIT;
	struct journal j;
	char err[128];

	(void)state;
	strbuf_addstr(&text, JOURNAL_HEADER "\n");
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		char path[64], *line;

		snprintf(path, sizeof(path), "/proc/sys/a b/%zu%%", i);
		line = fmt(JOURNAL_SET, 100 + (long)i, path, values[i]);
		/* one line: the only newline ends it */
		assert_ptr_equal(strchr(line, '\n'), line + strlen(line) - 1);
		strbuf_addstr(&text, line);
		free(line);
	}
	{
		char *line = fmt(JOURNAL_MKDIR, 7, "/sys/fs/cgroup/schedlab/case-0", "ignored");

		assert_string_equal(line, "mkdir 7 /sys/fs/cgroup/schedlab/case-0\n");
		strbuf_addstr(&text, line);
		free(line);
	}
	assert_int_equal(journal_parse(text.buf, text.len, &j, err, sizeof(err)), 0);
	assert_int_equal(j.nr, ARRAY_SIZE(values) + 1);
	assert_false(j.torn);
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/sys/a b/%zu%%", i);
		assert_int_equal(j.e[i].op, JOURNAL_SET);
		assert_int_equal(j.e[i].pid, 100 + (long)i);
		assert_string_equal(j.e[i].path, path);
		assert_string_equal(j.e[i].value, values[i]);
	}
	assert_int_equal(j.e[ARRAY_SIZE(values)].op, JOURNAL_MKDIR);
	assert_int_equal(journal_pending(&j), ARRAY_SIZE(values) + 1);
	journal_release(&j);
	strbuf_release(&text);
}

static void test_clean_and_torn(void **state)
{
	static const char text[] = JOURNAL_HEADER "\n"
		"set 10 /proc/sys/kernel/x 1\n"
		"set 11 /sys/devices/system/cpu/cpu1/online 1\n"
		"clean 10\n"
		"set 10 /proc/sys/kernel/y 5\n"
		"set 12 /proc/sys/kernel/z 3";   /* the writer died here */
	struct journal j;
	char err[128];

	(void)state;
	assert_int_equal(journal_parse(text, sizeof(text) - 1, &j, err, sizeof(err)), 0);
	assert_true(j.torn);
	assert_int_equal(j.nr, 3);
	assert_true(j.e[0].cleaned);
	assert_false(j.e[1].cleaned);
	/* a clean covers what came before it, not what pid 10 noted later */
	assert_false(j.e[2].cleaned);
	assert_int_equal(journal_pending(&j), 2);
	journal_release(&j);
}

static void test_malformed(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "not a journal\n", "line 1" },
		{ JOURNAL_HEADER "\nset 1 /a\n", "line 2" },
		{ JOURNAL_HEADER "\nset x /a 1\n", "bad process id" },
		{ JOURNAL_HEADER "\nset 0 /a 1\n", "bad process id" },
		{ JOURNAL_HEADER "\nrm 1 /a\n", "unknown record" },
		{ JOURNAL_HEADER "\nset 1 a 1\n", "bad path" },
		{ JOURNAL_HEADER "\nset 1 /a %4\n", "bad path or value" },
		{ JOURNAL_HEADER "\nset 1 /a %zz\n", "bad path or value" },
		{ JOURNAL_HEADER "\nset 1 /a %00\n", "bad path or value" },
		{ JOURNAL_HEADER "\nset 1 /x/../etc 1\n", "bad path" },
		{ JOURNAL_HEADER "\nset 1 /a 1 2\n", "line 2" },
		{ JOURNAL_HEADER "\nclean 1 2\n", "line 2" },
		{ JOURNAL_HEADER "\nset 1 /a\t1\n", "line 2" },
	};
	char err[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct journal j;

		assert_int_equal(journal_parse(bad[i].text, strlen(bad[i].text), &j, err,
					       sizeof(err)), -1);
		if (!strstr(err, bad[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].want);
		assert_null(strchr(err, '\n'));
		assert_int_equal(j.nr, 0);
	}
}

static char *slurp(const char *path)
{
	size_t len;
	char *s = read_file(path, &len);

	assert_non_null(s);
	return s;
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

static void test_writer_and_restore(void **state)
{
	char dir[] = "/tmp/test-journal-XXXXXX", jpath[128], knob[128], other[128], cg[128];
	struct journal j;
	char err[128], *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(jpath, sizeof(jpath), "%s/journal", dir);
	snprintf(knob, sizeof(knob), "%s/knob value", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	snprintf(cg, sizeof(cg), "%s/case-0", dir);
	put(knob, "42\n");
	put(other, "a b\n");

	/* off without the environment: nothing written */
	unsetenv(JOURNAL_ENV);
	assert_int_equal(journal_note_set(knob), 0);
	assert_int_equal(access(jpath, F_OK), -1);

	setenv(JOURNAL_ENV, jpath, 1);
	assert_int_equal(journal_note_set(knob), 0);
	put(knob, "7\n");
	/* the second write of the same file is the fault's own: not noted */
	assert_int_equal(journal_note_set(knob), 0);
	assert_int_equal(journal_note_set(other), 0);
	put(other, "changed\n");
	assert_int_equal(mkdir(cg, 0700), 0);
	assert_int_equal(journal_note_mkdir(cg), 0);
	/* a file that cannot be read has no original: skipped */
	assert_int_equal(journal_note_set("/nonexistent/schedlab"), 0);

	text = slurp(jpath);
	assert_int_equal(journal_parse(text, strlen(text), &j, err, sizeof(err)), 0);
	free(text);
	assert_int_equal(j.nr, 3);
	assert_string_equal(j.e[0].path, knob);
	assert_string_equal(j.e[0].value, "42");
	assert_string_equal(j.e[1].value, "a b");
	assert_int_equal(j.e[2].op, JOURNAL_MKDIR);

	/* a killed runner: the lab puts everything back, newest first */
	assert_int_equal(journal_restore(&j, NULL, NULL), 0);
	journal_release(&j);
	text = slurp(knob);
	assert_string_equal(text, "42");
	free(text);
	text = slurp(other);
	assert_string_equal(text, "a b");
	free(text);
	assert_int_equal(access(cg, F_OK), -1);

	/* a runner that restored by itself says so: nothing pending */
	assert_int_equal(journal_note_clean(), 0);
	text = slurp(jpath);
	assert_int_equal(journal_parse(text, strlen(text), &j, err, sizeof(err)), 0);
	free(text);
	assert_int_equal(journal_pending(&j), 0);
	journal_release(&j);

	unsetenv(JOURNAL_ENV);
	unlink(jpath);
	unlink(knob);
	unlink(other);
	rmdir(dir);
}

/* A file that reads other than it takes (tracefs buffer_size_kb): the
 * value to put back is given, and it is what the journal restores. */
static void test_given_value(void **state)
{
	char dir[] = "/tmp/test-journal-XXXXXX", jpath[128], knob[128];
	struct journal j;
	char err[128], *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(jpath, sizeof(jpath), "%s/journal", dir);
	snprintf(knob, sizeof(knob), "%s/buffer_size_kb", dir);
	put(knob, "7 (expanded: 1408)\n");
	setenv(JOURNAL_ENV, jpath, 1);
	assert_int_equal(journal_note_set_value(knob, "1408"), 0);
	put(knob, "4096\n");
	/* noted once: a later plain note of the same file changes nothing */
	assert_int_equal(journal_note_set(knob), 0);
	text = slurp(jpath);
	assert_int_equal(journal_parse(text, strlen(text), &j, err, sizeof(err)), 0);
	free(text);
	assert_int_equal(j.nr, 1);
	assert_string_equal(j.e[0].value, "1408");
	assert_int_equal(journal_restore(&j, NULL, NULL), 0);
	journal_release(&j);
	text = slurp(knob);
	assert_string_equal(text, "1408");
	free(text);
	unsetenv(JOURNAL_ENV);
	unlink(jpath);
	unlink(knob);
	rmdir(dir);
}

static void test_oldest_original_wins(void **state)
{
	char dir[] = "/tmp/test-journal-XXXXXX", knob[128], *text;
	struct strbuf t = STRBUF_INIT;
	struct journal j;
	char err[128], *l1, *l2, *l3;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(knob, sizeof(knob), "%s/knob", dir);
	put(knob, "3\n");
	l1 = fmt(JOURNAL_SET, 20, knob, "1");
	l2 = fmt(JOURNAL_SET, 21, knob, "2");
	l3 = fmt(JOURNAL_SET, 22, "/nonexistent/gone", "9");
	strbuf_addf(&t, "%s\n%s%s%s", JOURNAL_HEADER, l1, l2, l3);
	assert_int_equal(journal_parse(t.buf, t.len, &j, err, sizeof(err)), 0);
	/* a file that is gone counts as restored */
	assert_int_equal(journal_restore(&j, NULL, NULL), 0);
	text = slurp(knob);
	assert_string_equal(text, "1");
	free(text);
	journal_release(&j);
	free(l1);
	free(l2);
	free(l3);
	strbuf_release(&t);
	unlink(knob);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_clean_and_torn),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_writer_and_restore),
		cmocka_unit_test(test_given_value),
		cmocka_unit_test(test_oldest_original_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
