/* exec.c - runs an external benchmark (a real hackbench, schbench, a database
 * client on bare metal) and takes its metrics from declared output patterns. */
#define _GNU_SOURCE
#include "../workload.h"
#include "exec.h"
#include "../wlslice.h"
#include "../wlutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXEC_MAX_ARGS 64
#define EXEC_PATTERNS 4

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/*
 * Splits cmd (modified in place) on spaces and tabs into argv, NULL
 * terminated.  No quoting, no shell: what you write is what runs.
 * Returns argc, or -1 when there are more than max - 1 words.
 */
int exec_split(char *cmd, char **argv, int max)
{
	int argc = 0;
	char *save = NULL;

	for (char *w = strtok_r(cmd, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (argc >= max - 1)
			return -1;
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}

/*
 * "NAME=PREFIX" or "NAME=PREFIX%f": the metric NAME is the number right
 * after PREFIX.  Returns 0, or -1 with why filled.
 */
int exec_parse_pattern(const char *spec, struct exec_pattern *p, char *why, size_t len)
{
	const char *eq = strchr(spec, '=');
	size_t nlen, plen;

	if (!eq || eq == spec) {
		snprintf(why, len, "pattern '%s' is not NAME=PREFIX", spec);
		return -1;
	}
	nlen = (size_t)(eq - spec);
	if (nlen >= sizeof(p->name)) {
		snprintf(why, len, "metric name in '%s' is longer than %zu characters", spec,
			 sizeof(p->name) - 1);
		return -1;
	}
	if (spec[0] < 'a' || spec[0] > 'z') {
		snprintf(why, len, "metric name in '%s' must start with a lowercase letter", spec);
		return -1;
	}
	for (size_t i = 0; i < nlen; i++) {
		char c = spec[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
			snprintf(why, len, "metric name in '%s' may hold only a-z, 0-9 and _", spec);
			return -1;
		}
	}
	memcpy(p->name, spec, nlen);
	p->name[nlen] = '\0';
	plen = strlen(eq + 1);
	if (plen >= 2 && !strcmp(eq + 1 + plen - 2, "%f"))
		plen -= 2;
	if (!plen) {
		snprintf(why, len, "pattern '%s' has an empty prefix", spec);
		return -1;
	}
	memcpy(p->prefix, eq + 1, plen);
	p->prefix[plen] = '\0';
	return 0;
}

/*
 * The number after the first `prefix` on the last line of out that holds
 * prefix (progress lines come first, results last).  Returns 0, -1 when
 * no line holds prefix, -2 when one does but no number follows it.
 */
int exec_find(const char *out, size_t len, const char *prefix, double *value)
{
	size_t plen = strlen(prefix);
	const char *hit = NULL, *line = out, *end = out + len;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl ? nl : end;
		const char *p = memmem(line, (size_t)(le - line), prefix, plen);

		if (p)
			hit = p + plen;
		line = le + 1;
	}
	if (!hit)
		return -1;
	{
		char num[64], *numend;
		size_t n = 0;

		/* a copy: out is not NUL-terminated and may hold NULs */
		while (hit + n < end && hit[n] != '\n' && n < sizeof(num) - 1) {
			num[n] = hit[n];
			n++;
		}
		num[n] = '\0';
		*value = strtod(num, &numend);
		if (numend == num || !isfinite(*value))
			return -2;
	}
	return 0;
}

/* The last non-empty line of out, at most EXEC_LINE_SHOW characters. */
void exec_last_line(const char *out, size_t len, char *line, size_t size)
{
	size_t e = len, s, n;

	while (e && (out[e - 1] == '\n' || out[e - 1] == '\r' || out[e - 1] == ' '))
		e--;
	s = e;
	while (s && out[s - 1] != '\n')
		s--;
	n = e - s;
	if (n > EXEC_LINE_SHOW)
		n = EXEC_LINE_SHOW;
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++) {
		char c = out[s + i];

		line[i] = (c >= ' ' && c < 127) ? c : '?';
	}
	line[n] = '\0';
}

void exec_out_make_room(struct exec_out *o)
{
	size_t drop = EXEC_OUT_MAX / 2;
	const char *nl;

	if (o->len < EXEC_OUT_MAX)
		return;
	/* restart at a line boundary, so no pattern sees half a line */
	nl = memchr(o->data + drop, '\n', o->len - drop);
	if (nl)
		drop = (size_t)(nl - o->data) + 1;
	memmove(o->data, o->data + drop, o->len - drop);
	o->len -= drop;
	o->truncated = 1;
}

/* One read from the pipe: what read() returns, the bytes kept in o. */
static ssize_t exec_out_read(struct exec_out *o, int fd)
{
	ssize_t n;

	exec_out_make_room(o);
	n = read(fd, o->data + o->len, EXEC_OUT_MAX - o->len);
	if (n > 0)
		o->len += (size_t)n;
	return n;
}

static int exec_patterns(struct wl_ctx *ctx, struct exec_pattern *pat, unsigned *npat)
{
	*npat = 0;
	for (unsigned i = 1; i <= EXEC_PATTERNS; i++) {
		char key[16], why[200];
		const char *spec;
		struct exec_pattern *p = &pat[*npat];

		snprintf(key, sizeof(key), "pattern%u", i);
		spec = wl_str(ctx->args, key);
		if (!*spec)
			continue;
		if (exec_parse_pattern(spec, p, why, sizeof(why)) < 0)
			return wl_fail(ctx, "%s: %s", key, why);
		if (!strcmp(p->name, "elapsed"))
			return wl_fail(ctx, "%s: metric name 'elapsed' is taken by the wall time", key);
		for (unsigned j = 0; j < *npat; j++)
			if (!strcmp(pat[j].name, p->name))
				return wl_fail(ctx, "%s: metric '%s' is declared twice", key, p->name);
		snprintf(key, sizeof(key), "unit%u", i);
		if (strlen(wl_str(ctx->args, key)) >= sizeof(p->unit))
			return wl_fail(ctx, "%s is longer than %zu characters", key, sizeof(p->unit) - 1);
		snprintf(p->unit, sizeof(p->unit), "%s", wl_str(ctx->args, key));
		snprintf(key, sizeof(key), "better%u", i);
		p->higher_is_better = !strcmp(wl_str(ctx->args, key), "higher");
		(*npat)++;
	}
	return 0;
}

static void exec_child_say(const char *a, const char *b, const char *c)
{
	/* best effort: the parent shows this as the last line */
	if (write(2, a, strlen(a)) < 0 || write(2, b, strlen(b)) < 0 || write(2, c, strlen(c)) < 0)
		return;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void exec_child(char **argv, int out_fd, uint64_t slice_ns)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	setpgid(0, 0);
	/* the runner's blocked and ignored signals must not leak into the command */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	/* if the runner dies, the command does not outlive it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (null >= 0)
		dup2(null, 0);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	/* the command's own task keeps it through exec */
	if (slice_ns && wl_slice_set(slice_ns) < 0) {
		exec_child_say("exec: slice_us: sched_setattr failed for '", argv[0], "'\n");
		_exit(126);
	}
	execvp(argv[0], argv);
	exec_child_say("exec: cannot execute '", argv[0],
		       errno == ENOENT ? "': no such file or directory\n" :
		       errno == EACCES ? "': permission denied\n" : "'\n");
	_exit(127);
}

static int exec_ms_left(uint64_t deadline_ns)
{
	uint64_t now = wl_now_ns();

	if (now >= deadline_ns)
		return 0;
	return (int)((deadline_ns - now) / 1000000 + 1);
}

/*
 * Collects the child's output until it exits (pidfd) or, without pidfd,
 * until its output ends.  Returns 0, or -1 when the deadline came first.
 */
static int exec_collect(struct exec_out *o, int fd, pid_t pid, uint64_t deadline_ns)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int open_fd = 1, ret = 0;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = open_fd ? fd : -1, .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		int ms = exec_ms_left(deadline_ns);

		if (!open_fd && pidfd < 0)
			break;
		if (!ms) {
			ret = -1;
			break;
		}
		if (poll(pfd, 2, ms) < 0) {
			if (errno == EINTR)
				continue;
			ret = -1;
			break;
		}
		if (open_fd && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = exec_out_read(o, fd);

			if (!n || (n < 0 && errno != EINTR && errno != EAGAIN))
				open_fd = 0;
		}
		if (pfd[1].revents & POLLIN) {
			/* exited: take what is in the pipe, then stop (orphans may hold it open) */
			fcntl(fd, F_SETFL, O_NONBLOCK);
			while (open_fd && exec_out_read(o, fd) > 0)
				;
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return ret;
}

/*
 * Waits until pid has exited but leaves it a zombie, so its process group
 * id cannot be reused before we kill the group.  With pidfd it has already
 * exited; without (kernel < 5.3) and its output closed, wait in steps.
 * Returns 0, or -1 at the deadline.
 */
static int exec_wait_exit(pid_t pid, uint64_t deadline_ns)
{
	for (;;) {
		siginfo_t si = { 0 };
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (!waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid)
			return 0;
		if (wl_now_ns() >= deadline_ns)
			return -1;
		nanosleep(&ts, NULL);
	}
}

/* The exited command's se.slice into the totals slice_us is checked with. */
static void exec_note_slice(struct wl_ctx *ctx, pid_t pid)
{
	char path[64], text[8192];

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	if (wl_read_text(path, text, sizeof(text)) > 0)
		wl_slice_note(ctx->totals, text);
}

int exec_command(struct wl_ctx *ctx, char **argv, uint64_t slice_ns, struct exec_out *out,
		 int *status, double *seconds)
{
	int pfd[2], timed_out;
	uint64_t t0, t1;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return wl_fail(ctx, "pipe: %s", strerror(errno));
	t0 = wl_now_ns();
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return wl_fail(ctx, "fork: %s", strerror(errno));
	}
	if (!pid)
		exec_child(argv, pfd[1], slice_ns);
	/* both sides set the group, so a kill right after fork hits it */
	setpgid(pid, pid);
	close(pfd[1]);
	timed_out = exec_collect(out, pfd[0], pid, ctx->deadline_ns) < 0;
	close(pfd[0]);
	if (!timed_out)
		timed_out = exec_wait_exit(pid, ctx->deadline_ns) < 0;
	t1 = wl_now_ns();
	*seconds = (double)(t1 - t0) * 1e-9;
	/* an exited command is a zombie still: its slice as the kernel kept it */
	if (slice_ns && !timed_out)
		exec_note_slice(ctx, pid);
	/* the command is done (or out of time): so is anything it left behind */
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return wl_fail(ctx, "waitpid: %s", strerror(errno));
	return timed_out;
}

static int exec_run(struct wl_ctx *ctx)
{
	struct exec_pattern pat[EXEC_PATTERNS];
	struct exec_out out = { 0 };
	char cmd[256], *argv[EXEC_MAX_ARGS], last[EXEC_LINE_SHOW + 1];
	unsigned npat;
	int status = 0, ret = -1, r;
	uint64_t slice_ns = wl_slice_ns(ctx->args);
	double secs = 0;

	snprintf(cmd, sizeof(cmd), "%s", wl_str(ctx->args, "cmd"));
	if (exec_split(cmd, argv, EXEC_MAX_ARGS) <= 0)
		return wl_fail(ctx, "cmd must have 1 to %d words", EXEC_MAX_ARGS - 1);
	if (exec_patterns(ctx, pat, &npat) < 0)
		return -1;
	out.data = malloc(EXEC_OUT_MAX);
	if (!out.data)
		return wl_fail(ctx, "out of memory");
	r = exec_command(ctx, argv, slice_ns, &out, &status, &secs);
	if (r < 0)
		goto out;
	exec_last_line(out.data, out.len, last, sizeof(last));
	if (r) {
		wl_fail(ctx, "deadline passed: killed '%s' after %.1fs; last line: %s", argv[0],
			secs, last[0] ? last : "(none)");
		goto out;
	}
	if (WIFSIGNALED(status)) {
		wl_fail(ctx, "'%s' was killed by signal %d; last line: %s", argv[0],
			WTERMSIG(status), last[0] ? last : "(none)");
		goto out;
	}
	if (WEXITSTATUS(status)) {
		wl_fail(ctx, "'%s' exited with %d; last line: %s", argv[0],
			WEXITSTATUS(status), last[0] ? last : "(none)");
		goto out;
	}
	for (unsigned i = 0; i < npat; i++) {
		double v;

		r = exec_find(out.data, out.len, pat[i].prefix, &v);
		if (r < 0) {
			wl_fail(ctx, r == -1 ? "metric '%s': no output line contains '%s'%s" :
				"metric '%s': no number after '%s'%s", pat[i].name, pat[i].prefix,
				out.truncated ? " (output was over 1 MiB; only its end was kept)" : "");
			goto out;
		}
		wl_metric(ctx, pat[i].name, pat[i].unit, v, pat[i].higher_is_better);
	}
	wl_metric(ctx, "elapsed", "s", secs, 0);
	ret = wl_slice_verify(ctx, slice_ns);
out:
	free(out.data);
	return ret;
}

#define EXEC_PATTERN_OPTS(n) \
	{ "pattern" #n, WL_STR, 0, 0, "", NULL, \
	  "NAME=PREFIX: metric NAME is the number after PREFIX on the last line holding it" }, \
	{ "unit" #n, WL_STR, 0, 0, "", NULL, "unit of metric " #n " (e.g. s, ops/s)" }, \
	{ "better" #n, WL_STR, 0, 0, "lower", "higher|lower", "which way metric " #n " improves" }

static const struct wl_option exec_options[] = {
	{ "cmd", WL_STR, 0, 0, NULL, NULL,
	  "command line, split on spaces into argv: no shell, no quoting, no redirection" },
	EXEC_PATTERN_OPTS(1),
	EXEC_PATTERN_OPTS(2),
	EXEC_PATTERN_OPTS(3),
	EXEC_PATTERN_OPTS(4),
	WL_SLICE_OPTION,
	{ .name = NULL },
};

const struct workload_ops workload_exec = {
	.name = "exec",
	.description = "an external command; metrics from its output (stdout and stderr)",
	.options = exec_options,
	.kernel_check = wl_slice_kernel_check,
	.run = exec_run,
};
