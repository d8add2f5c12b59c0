/* test-io.c - common/io's whole-buffer reads and writes, and lib/util's
 * scratch files: a write that fails leaves no file and no open fd. */
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/io.h"
#include "lib/util.h"

static void test_pipe_round_trip(void **state)
{
	char out[100000], in[100000 + 8];
	int p[2];
	pid_t pid;
	int status;

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (char)(i * 7);
	assert_int_equal(pipe(p), 0);
	/* more than a pipe holds: the writer must loop over short writes */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		_exit(write_in_full(p[1], out, sizeof(out)) == (ssize_t)sizeof(out) ? 0 : 1);
	}
	close(p[1]);
	/* asks for more than comes: the count read, short only at the end */
	assert_int_equal(read_in_full(p[0], in, sizeof(in)), sizeof(out));
	assert_memory_equal(in, out, sizeof(out));
	assert_int_equal(read_in_full(p[0], in, sizeof(in)), 0);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_errors(void **state)
{
	char c = 'x';
	int p[2], s[2];

	assert_int_equal(write_in_full(-1, &c, 1), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(read_in_full(-1, &c, 1), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(write_in_full(-1, &c, 0), 0);

	/* a reader that went away: EPIPE, not a SIGPIPE that kills us */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
	close(s[1]);
	assert_int_equal(send_in_full(s[0], "abc", 3), -1);
	assert_int_equal(errno, EPIPE);
	close(s[0]);

	assert_int_equal(pipe(p), 0);
	assert_int_equal(xwrite(p[1], "ab", 2), 2);
	close(p[1]);
	assert_int_equal(xread(p[0], &c, 1), 1);
	assert_int_equal(c, 'a');
	assert_int_equal(read_in_full(p[0], &c, 4), 1);
	assert_int_equal(xread(p[0], &c, 1), 0);
	close(p[0]);
}

static unsigned count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static unsigned count_fds(void)
{
	return count_entries("/proc/self/fd");
}

static void test_temp_file_write(void **state)
{
	char cache[] = "/tmp/test-io-XXXXXX", tmpdir[64], big[8192] = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct rlimit old, lim;
	unsigned fds;
	char *path, *text;

	assert_non_null(mkdtemp(cache));
	setenv("LAB_CACHE", cache, 1);
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", cache);

	path = temp_file_write("plan", "hello\n", 6, &err);
	assert_non_null(path);
	assert_int_equal(err.len, 0);
	assert_true(!strncmp(path, tmpdir, strlen(tmpdir)));
	assert_non_null(strstr(path, "/plan-"));
	text = read_file(path, NULL);
	assert_string_equal(text, "hello\n");
	free(text);
	unlink(path);
	free(path);

	/* a short write (the file size limit): no file left, no fd leaked */
	fds = count_fds();
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4096;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	path = temp_file_write("plan", big, sizeof(big), &err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_null(path);
	assert_non_null(strstr(err.buf, "cannot write '"));
	assert_int_equal(count_entries(tmpdir), 0);
	assert_int_equal(count_fds(), fds);
	strbuf_release(&err);

	rmdir(tmpdir);
	rmdir(cache);
	unsetenv("LAB_CACHE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_round_trip),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_temp_file_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
