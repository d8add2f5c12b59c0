/* test-child.c - child processes: exit codes, capture without deadlock,
 * deadlines that kill whole groups, exec failures, fd and env handling. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/child.h"
#include "lib/util.h"

/*
 * The test binary doubles as the child: `test-child --child MODE ...` runs
 * one of the helpers below, so every behaviour is checked against a program
 * whose output we know exactly.
 */
static char self[4096];

static int helper_spew(size_t out_bytes, size_t err_bytes)
{
	char chunk[4096];

	/* Interleaved, so a parent that drains one pipe at a time blocks. */
	for (size_t o = 0, e = 0; o < out_bytes || e < err_bytes; ) {
		if (o < out_bytes) {
			size_t n = out_bytes - o < sizeof(chunk) ? out_bytes - o : sizeof(chunk);

			for (size_t i = 0; i < n; i++)
				chunk[i] = (char)('a' + (o + i) % 26);
			if (write(1, chunk, n) != (ssize_t)n)
				return 1;
			o += n;
		}
		if (e < err_bytes) {
			size_t n = err_bytes - e < sizeof(chunk) ? err_bytes - e : sizeof(chunk);

			for (size_t i = 0; i < n; i++)
				chunk[i] = (char)('A' + (e + i) % 26);
			if (write(2, chunk, n) != (ssize_t)n)
				return 1;
			e += n;
		}
	}
	return 0;
}

/* Prints the open fds >= 3 (besides the directory being read). */
static int helper_fds(int write_to)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (write_to >= 0 && write(write_to, "kept", 4) != 4)
		return 1;
	if (!d)
		return 1;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] != '.' && fd >= 3 && fd != dirfd(d))
			printf("%d\n", fd);
	}
	closedir(d);
	return 0;
}

static int helper(int argc, char **argv)
{
	const char *mode = argv[2];

	if (!strcmp(mode, "exit"))
		return atoi(argv[3]);
	if (!strcmp(mode, "signal")) {
		raise(atoi(argv[3]));
		return 0;
	}
	if (!strcmp(mode, "spew"))
		return helper_spew(strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
	if (!strcmp(mode, "sleep-group")) {
		pid_t pid = fork();

		if (pid == 0) {
			execlp("sleep", "sleep", "30", (char *)NULL);
			_exit(127);
		}
		printf("%d\n", (int)pid);
		fflush(stdout);
		execlp("sleep", "sleep", "30", (char *)NULL);
		return 127;
	}
	if (!strcmp(mode, "fds"))
		return helper_fds(argc > 3 ? atoi(argv[3]) : -1);
	if (!strcmp(mode, "getenv")) {
		const char *v = getenv(argv[3]);

		printf("%s\n", v ? v : "(unset)");
		return 0;
	}
	if (!strcmp(mode, "pwd")) {
		char buf[4096];

		if (!getcwd(buf, sizeof(buf)))
			return 1;
		printf("%s\n", buf);
		return 0;
	}
	if (!strcmp(mode, "cat")) {
		char buf[4096];
		ssize_t n;

		while ((n = read(0, buf, sizeof(buf))) > 0)
			if (write(1, buf, (size_t)n) != n)
				return 1;
		return n < 0;
	}
	return 99;
}

static void push_helper(struct child_process *cp, ...)
{
	const char *arg;
	va_list ap;

	strvec_pushl(&cp->args, self, "--child", (const char *)NULL);
	va_start(ap, cp);
	while ((arg = va_arg(ap, const char *)))
		strvec_push(&cp->args, arg);
	va_end(ap);
}

static int run_helper_capture(struct strbuf *out, struct strbuf *err, int timeout_ms, ...)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *arg;
	va_list ap;
	int ret;

	strvec_pushl(&cp.args, self, "--child", (const char *)NULL);
	va_start(ap, timeout_ms);
	while ((arg = va_arg(ap, const char *)))
		strvec_push(&cp.args, arg);
	va_end(ap);
	ret = run_command_capture(cp.args.v, timeout_ms, out, err);
	child_process_clear(&cp);
	return ret;
}

static uint64_t ms_since(uint64_t start)
{
	return (now_ns() - start) / 1000000;
}

static void test_exit_codes(void **state)
{
	static const char *codes[] = { "0", "1", "3", "77", "255" };

	for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
		struct child_process cp = CHILD_PROCESS_INIT;

		push_helper(&cp, "exit", codes[i], (const char *)NULL);
		assert_int_equal(start_command(&cp), 0);
		assert_true(cp.pid > 0);
		assert_int_equal(finish_command(&cp), atoi(codes[i]));
		assert_int_equal(cp.pid, -1);
		child_process_clear(&cp);
	}
	assert_int_equal(run_helper_capture(NULL, NULL, 10000, "exit", "42", (const char *)NULL), 42);
}

static void test_signal_codes(void **state)
{
	struct child_process cp = CHILD_PROCESS_INIT;

	push_helper(&cp, "signal", "15", (const char *)NULL);
	assert_int_equal(start_command(&cp), 0);
	assert_int_equal(finish_command(&cp), 128 + SIGTERM);
	child_process_clear(&cp);
	assert_int_equal(run_helper_capture(NULL, NULL, 10000, "signal", "9", (const char *)NULL),
			 128 + SIGKILL);
}

static void check_pattern(const struct strbuf *sb, size_t len, char base)
{
	assert_int_equal(sb->len, len);
	for (size_t i = 0; i < len; i++)
		if (sb->buf[i] != (char)(base + i % 26))
			fail_msg("byte %zu is %d, expected %d", i, sb->buf[i], base + (int)(i % 26));
}

static void test_capture_large(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	size_t ob = 3u << 20, eb = (3u << 19) + 123;

	assert_int_equal(run_helper_capture(&out, &err, 30000, "spew",
					    "3145728", "1572987", (const char *)NULL), 0);
	check_pattern(&out, ob, 'a');
	check_pattern(&err, eb, 'A');
	strbuf_release(&out);
	strbuf_release(&err);

	/* A NULL sink discards without stalling the child. */
	assert_int_equal(run_helper_capture(&out, NULL, 30000, "spew", "10", "2000000",
					    (const char *)NULL), 0);
	check_pattern(&out, 10, 'a');
	strbuf_release(&out);
}

/* Reaps pid (our orphaned grandchild: we are its subreaper) within ms. */
static int reap_within(pid_t pid, int ms, int *status)
{
	uint64_t start = now_ns();

	while (ms_since(start) < (uint64_t)ms) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0)
			return -1;
		usleep(10000);
	}
	return -1;
}

static void test_timeout_kills_group(void **state)
{
	struct strbuf out = STRBUF_INIT;
	uint64_t start;
	int status, ret;
	pid_t grandchild;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	start = now_ns();
	/* 2 s: the child (an ASan build) must print its grandchild's pid
	 * before the deadline even on a host busy with parallel builds */
	ret = run_helper_capture(&out, NULL, 2000, "sleep-group", (const char *)NULL);
	assert_int_equal(ret, CHILD_TIMED_OUT);
	/* killed at the deadline, not when the 30 s sleeps end */
	assert_true(ms_since(start) < 8000);
	grandchild = atoi(out.buf);
	assert_true(grandchild > 0);
	/* The sleep the child left behind went down with the group. */
	assert_int_equal(reap_within(grandchild, 1000, &status), 0);
	assert_true(WIFSIGNALED(status));
	strbuf_release(&out);
}

static void test_die_with_parent(void **state)
{
	int pfd[2], status;
	pid_t middle, sleeper = 0;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(pfd), 0);
	middle = fork();
	assert_true(middle >= 0);
	if (middle == 0) {
		struct child_process cp = CHILD_PROCESS_INIT;

		strvec_pushl(&cp.args, "sleep", "30", (const char *)NULL);
		cp.die_with_parent = 1;
		cp.new_pgrp = 1;
		if (start_command(&cp) < 0)
			_exit(1);
		if (write(pfd[1], &cp.pid, sizeof(cp.pid)) != sizeof(cp.pid))
			_exit(1);
		_exit(0); /* the lab "crashes", leaving its child behind */
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &sleeper, sizeof(sleeper)), sizeof(sleeper));
	close(pfd[0]);
	assert_int_equal(waitpid(middle, &status, 0), middle);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(reap_within(sleeper, 2000, &status), 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static void test_finish_timeout(void **state)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	uint64_t start;

	strvec_pushl(&cp.args, "sleep", "30", (const char *)NULL);
	cp.new_pgrp = 1;
	assert_int_equal(start_command(&cp), 0);
	assert_int_equal(getpgid(cp.pid), cp.pid);
	start = now_ns();
	assert_int_equal(finish_command_timeout(&cp, 200), CHILD_TIMED_OUT);
	assert_true(ms_since(start) < 1000);
	assert_int_equal(cp.pid, -1);
	child_process_clear(&cp);

	/* A child that ends in time gives its code, without waiting out the deadline. */
	push_helper(&cp, "exit", "5", (const char *)NULL);
	assert_int_equal(start_command(&cp), 0);
	start = now_ns();
	assert_int_equal(finish_command_timeout(&cp, 20000), 5);
	assert_true(ms_since(start) < 5000);
	child_process_clear(&cp);
}

static void test_exec_failure(void **state)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf msg = STRBUF_INIT;

	strvec_push(&cp.args, "/nonexistent/lab-no-such-program");
	cp.errbuf = &msg;
	assert_int_equal(start_command(&cp), -1);
	assert_string_equal(msg.buf,
		"cannot run '/nonexistent/lab-no-such-program': No such file or directory");
	assert_int_equal(cp.pid, -1);
	child_process_clear(&cp);

	strvec_push(&cp.args, "lab-no-such-program-in-path");
	assert_int_equal(start_command(&cp), -1);
	assert_string_equal(msg.buf,
		"cannot run 'lab-no-such-program-in-path': No such file or directory");
	child_process_clear(&cp);

	push_helper(&cp, "pwd", (const char *)NULL);
	cp.dir = "/nonexistent-dir";
	assert_int_equal(start_command(&cp), -1);
	assert_non_null(strstr(msg.buf, "cannot chdir to '/nonexistent-dir'"));
	child_process_clear(&cp);

	/* Nothing is left behind to reap. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);

	const char *argv[] = { "/nonexistent/lab-no-such-program", NULL };
	assert_int_equal(run_command_capture(argv, 1000, NULL, NULL), -1);
	strbuf_release(&msg);
}

static void test_keep_fds(void **state)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, expect = STRBUF_INIT;
	int pfd[2], leaked, keep[1];
	char buf[16] = { 0 };

	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	/* Not CLOEXEC: only the explicit close in the child stops it. */
	leaked = open("/dev/null", O_RDONLY);
	assert_true(leaked >= 0);
	keep[0] = pfd[1];
	cp.keep_fds = keep;
	cp.nr_keep_fds = 1;
	strvec_pushl(&cp.args, self, "--child", "fds", (const char *)NULL);
	strvec_pushf(&cp.args, "%d", pfd[1]);
	assert_int_equal(child_capture(&cp, 10000, &out, NULL), 0);
	close(pfd[1]);
	assert_int_equal(read(pfd[0], buf, sizeof(buf) - 1), 4);
	assert_string_equal(buf, "kept");
	strbuf_addf(&expect, "%d\n", pfd[1]);
	assert_string_equal(out.buf, expect.buf);
	close(pfd[0]);
	close(leaked);
	child_process_clear(&cp);
	strbuf_release(&out);
	strbuf_release(&expect);
}

static void test_env_and_dir(void **state)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;

	setenv("LAB_TEST_GONE", "present", 1);
	setenv("LAB_TEST_OVER", "old", 1);

	push_helper(&cp, "getenv", "LAB_TEST_OVER", (const char *)NULL);
	strvec_push(&cp.env, "LAB_TEST_OVER=new");
	assert_int_equal(child_capture(&cp, 10000, &out, NULL), 0);
	assert_string_equal(out.buf, "new\n");
	child_process_clear(&cp);

	strbuf_reset(&out);
	push_helper(&cp, "getenv", "LAB_TEST_GONE", (const char *)NULL);
	strvec_push(&cp.env, "LAB_TEST_GONE");
	assert_int_equal(child_capture(&cp, 10000, &out, NULL), 0);
	assert_string_equal(out.buf, "(unset)\n");
	child_process_clear(&cp);

	strbuf_reset(&out);
	push_helper(&cp, "getenv", "LAB_TEST_GONE", (const char *)NULL);
	assert_int_equal(child_capture(&cp, 10000, &out, NULL), 0);
	assert_string_equal(out.buf, "present\n");
	child_process_clear(&cp);

	strbuf_reset(&out);
	push_helper(&cp, "pwd", (const char *)NULL);
	cp.dir = "/";
	assert_int_equal(child_capture(&cp, 10000, &out, NULL), 0);
	assert_string_equal(out.buf, "/\n");
	child_process_clear(&cp);
	strbuf_release(&out);
}

static void test_redirects(void **state)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	char in_path[] = "/tmp/lab-test-child-in.XXXXXX";
	char out_path[] = "/tmp/lab-test-child-out.XXXXXX";
	int in_fd = mkstemp(in_path), out_fd = mkstemp(out_path);
	size_t len;
	char *text;

	assert_true(in_fd >= 0 && out_fd >= 0);
	assert_int_equal(write(in_fd, "through stdin\n", 14), 14);
	assert_int_equal(lseek(in_fd, 0, SEEK_SET), 0);
	push_helper(&cp, "cat", (const char *)NULL);
	cp.in = in_fd;
	cp.out = out_fd;
	cp.err = CHILD_DEVNULL;
	assert_int_equal(start_command(&cp), 0);
	assert_int_equal(finish_command(&cp), 0);
	text = read_file(out_path, &len);
	assert_non_null(text);
	assert_string_equal(text, "through stdin\n");
	free(text);

	/* stdin from /dev/null: the child sees EOF at once. */
	child_process_clear(&cp);
	{
		struct strbuf out = STRBUF_INIT;

		push_helper(&cp, "cat", (const char *)NULL);
		cp.in = CHILD_DEVNULL;
		assert_int_equal(child_capture(&cp, 10000, &out, NULL), 0);
		assert_int_equal(out.len, 0);
		strbuf_release(&out);
	}
	child_process_clear(&cp);
	close(in_fd);
	close(out_fd);
	unlink(in_path);
	unlink(out_path);
}

/* no_thp reaches the child only: the flag /proc/PID/status shows flips
 * for it and stays as it was in the lab. */
static void thp_of_child(int no_thp, struct strbuf *out)
{
	struct child_process cp = CHILD_PROCESS_INIT;

	strvec_pushl(&cp.args, "sed", "-n", "s/^THP_enabled:[[:space:]]*//p",
		     "/proc/self/status", (const char *)NULL);
	cp.no_thp = no_thp;
	strbuf_reset(out);
	assert_int_equal(child_capture(&cp, 10000, out, NULL), 0);
	child_process_clear(&cp);
}

static void test_no_thp(void **state)
{
	struct strbuf out = STRBUF_INIT;

	thp_of_child(0, &out);
	if (!out.len) {
		strbuf_release(&out);
		skip(); /* a kernel before 5.0 has no THP_enabled line */
	}
	assert_string_equal(out.buf, "1\n");
	thp_of_child(1, &out);
	assert_string_equal(out.buf, "0\n");
	thp_of_child(0, &out);
	assert_string_equal(out.buf, "1\n");
	strbuf_release(&out);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_signal_codes),
		cmocka_unit_test(test_capture_large),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_die_with_parent),
		cmocka_unit_test(test_finish_timeout),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_keep_fds),
		cmocka_unit_test(test_env_and_dir),
		cmocka_unit_test(test_redirects),
		cmocka_unit_test(test_no_thp),
	};
	ssize_t n;

	if (argc > 2 && !strcmp(argv[1], "--child"))
		return helper(argc, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	return cmocka_run_group_tests(tests, NULL, NULL);
}
