/* scx_selftest.c - one test of the kernel's own sched_ext selftests
 * (tools/testing/selftests/sched_ext, built by `lab scx build` into
 * /scx/selftests), its TAP result as the case's verdict. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../tap.h"
#include "../wlutil.h"
#include "exec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SELFTESTS "/scx/selftests"

static int test_name_ok(const char *s)
{
	if (!*s || strlen(s) > 100)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int scx_selftest_supported(char *why, size_t len)
{
	struct stat st;

	if (stat("/sys/kernel/sched_ext", &st) == 0)
		return 1;
	snprintf(why, len, "this kernel has no sched_ext (CONFIG_SCHED_CLASS_EXT)");
	return 0;
}

/* Runs `selftests ARGS...` to its end (or the deadline) into out. */
static int selftests(struct wl_ctx *ctx, const char *a1, const char *a2, const char *a3,
		     struct exec_out *out, int *status, double *secs)
{
	char *argv[] = { (char *)SELFTESTS, (char *)a1, (char *)a2, (char *)a3, NULL };

	return exec_command(ctx, argv, 0, out, status, secs);
}

/* 1 when `selftests -l` lists name, 0 when not, -1 when it cannot tell. */
static int listed(const char *name)
{
	struct wl_ctx ctx = { .deadline_ns = wl_now_ns() + 30000000000ull };
	struct exec_out out = { .data = malloc(EXEC_OUT_MAX) };
	int status = 0, r = -1;
	double secs;

	if (!out.data)
		return -1;
	if (selftests(&ctx, "-l", NULL, NULL, &out, &status, &secs) == 0 && WIFEXITED(status) &&
	    !WEXITSTATUS(status)) {
		size_t n = strlen(name);

		out.data[out.len < EXEC_OUT_MAX ? out.len : EXEC_OUT_MAX - 1] = '\0';
		r = 0;
		for (char *p = out.data; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (!strncmp(p, name, n) && (p[n] == '\n' || !p[n]))
				r = 1;
	}
	free(out.data);
	return r;
}

static int scx_selftest_case_supported(const struct wl_args *a, char *why, size_t len)
{
	const char *name = wl_str(a, "test");

	/* no binary: run() says what to do, as a failure */
	if (access(SELFTESTS, X_OK) < 0)
		return 1;
	if (listed(name) == 0) {
		snprintf(why, len, "this tree's sched_ext selftests have no test '%s'", name);
		return 0;
	}
	return 1;
}

/* The last lines of the test's own output before its TAP line, one line:
 * what an ERR: and the assertion said. */
static void test_words(char *text, const char *tap_line, char *buf, size_t size)
{
	char *start = text, *end = (char *)tap_line, *p;
	size_t n;

	buf[0] = '\0';
	/* this test's output starts after its last "OUTPUT:" line */
	for (p = text; (p = strstr(p, "OUTPUT:\n")) && p < tap_line; p += 8)
		start = p + 8;
	while (end > start && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	/* at most the last 200 characters, newlines as " / " */
	if (end - start > 200)
		start = end - 200;
	for (p = start, n = 0; p < end && n + 4 < size; p++) {
		if (*p == '\n') {
			memcpy(buf + n, " / ", 3);
			n += 3;
		} else if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f) {
			buf[n++] = *p;
		}
	}
	buf[n] = '\0';
}

static int scx_selftest_run(struct wl_ctx *ctx)
{
	const char *name = wl_str(ctx->args, "test");
	struct exec_out out = { 0 };
	struct tap_line t, mine = { 0 };
	char words[256], *mine_at = NULL;
	int status = 0, r, found = 0, ret = -1;
	double secs = 0;

	if (!test_name_ok(name))
		return wl_fail(ctx, "test '%s' is not a selftest name ([a-z0-9_]+)", name);
	if (access(SELFTESTS, X_OK) < 0)
		return wl_fail(ctx, "the initrd has no " SELFTESTS ": run with a sched_ext selftest "
			       "build (lab scx build; the scx-selftests suite brings it)");
	out.data = malloc(EXEC_OUT_MAX);
	if (!out.data)
		return wl_fail(ctx, "out of memory");
	/* -t matches by substring: take the line of exactly this test */
	r = selftests(ctx, "-t", name, "-s", &out, &status, &secs);
	if (r < 0)
		goto out;
	out.data[out.len < EXEC_OUT_MAX ? out.len : EXEC_OUT_MAX - 1] = '\0';
	for (char *p = out.data, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (tap_parse_line(p, nl ? (size_t)(nl - p) : strlen(p), &t) && !strcmp(t.name, name)) {
			mine = t;
			mine_at = p;
			found = 1;
		}
	}
	if (r) {
		wl_fail(ctx, "deadline passed: the selftests' runner killed after %.1f s", secs);
		goto out;
	}
	if (!found) {
		wl_fail(ctx, "no TAP line for '%s' in the selftests' output (exit %d)", name,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		goto out;
	}
	test_words(out.data, mine_at, words, sizeof(words));
	switch (mine.result) {
	case TAP_SKIP:
		ret = wl_skip(ctx, "the test skipped itself%s%s", mine.reason[0] || words[0] ? ": " : "",
			      mine.reason[0] ? mine.reason : words);
		break;
	case TAP_NOT_OK:
		wl_fail(ctx, "not ok: %s", words[0] ? words : "(the test said nothing)");
		break;
	case TAP_OK:
		wl_metric(ctx, "time", "s", secs, 0);
		ret = 0;
		break;
	}
out:
	free(out.data);
	return ret;
}

static const struct wl_option scx_selftest_options[] = {
	{ "test", WL_STR, 0, 0, NULL, NULL,
	  "the selftest's name, as `selftests -l` lists it (its TAP line is the verdict)" },
	{ .name = NULL },
};

const struct workload_ops workload_scx_selftest = {
	.name = "scx_selftest",
	.description = "one of the kernel's sched_ext selftests (lab scx build): ok PASS, not ok "
		       "FAIL with the test's last words, ok # SKIP SKIP",
	.options = scx_selftest_options,
	.supported = scx_selftest_supported,
	.case_supported = scx_selftest_case_supported,
	.run = scx_selftest_run,
	.needs = "the sched_ext selftests' runner (lab scx build; the scx-selftests suite)",
};
