/* scx.c - runs a case's sched_ext scheduler beside it and notices the
 * kernel ejecting it (the watchdog's stall timeout, an error exit). */
#define _GNU_SOURCE
#include "scx.h"
#include "wlutil.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Loading runs the verifier over every program: seconds under TCG. */
#define SCX_LOAD_TIMEOUT_S 120
#define SCX_STOP_TIMEOUT_S 20
#define SCX_POLL_MS 20
#define SCX_LOG "/scx.log"

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void state(char *buf, size_t size)
{
	if (wl_read_text(SCX_SYSFS "/state", buf, size) < 0)
		snprintf(buf, size, "unreadable");
}

static uint64_t enable_seq(void)
{
	char buf[32];

	return wl_read_text(SCX_SYSFS "/enable_seq", buf, sizeof(buf)) < 0 ? 0 :
	       strtoull(buf, NULL, 10);
}

/* Reads every kmsg record there is now (fd non-blocking) into m. */
static void drain_kmsg(int fd, struct scx_msg *m)
{
	char rec[2048];

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EPIPE)
			continue; /* records were overwritten: read on */
		if (n <= 0)
			return;
		scx_msg_feed(m, rec, (size_t)n);
	}
}

static int open_kmsg(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* The scheduler's last line and libbpf's first complaint, for messages:
 * "Failed to load skel" alone does not say that the verifier refused. */
static void last_words(char *buf, size_t size)
{
	size_t len = 0;
	char *text = wl_slurp(SCX_LOG, &len, 1 << 20), *end, *start, *why = NULL;

	buf[0] = '\0';
	if (!text)
		return;
	end = text + len;
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	*end = '\0';
	for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (!why && !strncmp(line, "libbpf: ", 8) &&
		    (strstr(line, "fail") || strstr(line, "rror") || strstr(line, "-E"))) {
			why = line;
			if (nl)
				*nl = '\0';
		}
	}
	start = strrchr(text, '\n');
	start = start ? start + 1 : text;
	if (why == start)
		why = NULL;
	snprintf(buf, size, "%s%s%s", start, why ? " (" : "", why ? why : "");
	if (why)
		strncat(buf, ")", size - strlen(buf) - 1);
	free(text);
}

static pid_t spawn(const struct plan_case *c, char *err, size_t errlen)
{
	char path[sizeof(SCX_BIN_DIR) + PLAN_MAX_SCHED + 1], args[PLAN_MAX_FIELD];
	char *argv[32];
	int argc = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", SCX_BIN_DIR, c->scheduler);
	if (access(path, X_OK) < 0) {
		snprintf(err, errlen, "sched_ext: %s is not in the initrd: %s", path, strerror(errno));
		return -1;
	}
	snprintf(args, sizeof(args), "%s", c->scheduler_args);
	argv[argc++] = path;
	for (char *save = NULL, *w = strtok_r(args, " \t", &save); w && argc < 31;
	     w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "sched_ext: cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(SCX_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(path, argv);
		_exit(127);
	}
	return pid;
}

static void kill_wait(pid_t pid, int sig, unsigned timeout_s, int *status)
{
	uint64_t until = wl_now_ns() + (uint64_t)timeout_s * 1000000000ull;

	kill(pid, sig);
	while (wl_now_ns() < until) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return;
		sleep_ms(SCX_POLL_MS);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
}

static void wait_disabled(unsigned timeout_s)
{
	uint64_t until = wl_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	char st[16];

	do {
		state(st, sizeof(st));
		if (!strcmp(st, "disabled"))
			return;
		sleep_ms(SCX_POLL_MS);
	} while (wl_now_ns() < until);
}

/* The watcher: polls the state until it leaves "enabled", then notes
 * when and what the kernel said, and exits. */
static void watch(struct scx_watch *w, int kmsg)
{
	char st[16];

	for (;;) {
		if (kmsg >= 0)
			drain_kmsg(kmsg, &w->msg);
		state(st, sizeof(st));
		if (strcmp(st, "enabled")) {
			w->t_ns = wl_now_ns();
			snprintf(w->state, sizeof(w->state), "%s", st);
			/* the disable lines follow the state change closely */
			for (int i = 0; kmsg >= 0 && i < 50 && !w->msg.detail[0]; i++) {
				sleep_ms(SCX_POLL_MS);
				drain_kmsg(kmsg, &w->msg);
			}
			w->ejected = 1;
			_exit(0);
		}
		sleep_ms(SCX_POLL_MS);
	}
}

int scx_start(const struct plan_case *c, struct scx_run *s, char *err, size_t errlen)
{
	struct stat stt;
	char st[16], ops[PLAN_MAX_SCHED] = "";
	uint64_t t0, seq0, until;
	int kmsg, status = 0;

	*s = (struct scx_run)SCX_RUN_INIT;
	if (stat(SCX_SYSFS, &stt) < 0) {
		snprintf(err, errlen, "this kernel has no sched_ext (%s is missing: "
			 "CONFIG_SCHED_CLASS_EXT)", SCX_SYSFS);
		return -1;
	}
	wait_disabled(10);
	state(st, sizeof(st));
	if (strcmp(st, "disabled")) {
		snprintf(err, errlen, "sched_ext: state reads '%s' before %s starts, not 'disabled'",
			 st, c->scheduler);
		return -1;
	}
	s->w = mmap(NULL, sizeof(*s->w), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->w == MAP_FAILED) {
		s->w = NULL;
		snprintf(err, errlen, "sched_ext: mmap: %s", strerror(errno));
		return -1;
	}
	memset(s->w, 0, sizeof(*s->w));
	kmsg = open_kmsg();
	seq0 = enable_seq();
	t0 = wl_now_ns();
	s->pid = spawn(c, err, errlen);
	if (s->pid < 0)
		goto fail;
	until = t0 + (uint64_t)SCX_LOAD_TIMEOUT_S * 1000000000ull;
	for (;;) {
		struct scx_msg m = { 0 };

		state(st, sizeof(st));
		if (!strcmp(st, "enabled") && enable_seq() != seq0 &&
		    wl_read_text(SCX_SYSFS "/root/ops", ops, sizeof(ops)) >= 0)
			break;
		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			char words[400];

			s->pid = -1;
			last_words(words, sizeof(words));
			if (kmsg >= 0)
				drain_kmsg(kmsg, &m);
			snprintf(err, errlen, "sched_ext: %s exited (%s %d) before it was enabled%s%s%s%s",
				 c->scheduler, WIFEXITED(status) ? "status" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				 words[0] ? ": " : "", words, m.have_disabled ? "; kernel: " : "",
				 m.have_disabled ? m.reason : "");
			goto fail;
		}
		if (wl_now_ns() > until) {
			snprintf(err, errlen, "sched_ext: %s was not enabled within %d s (state '%s')",
				 c->scheduler, SCX_LOAD_TIMEOUT_S, st);
			goto fail;
		}
		sleep_ms(SCX_POLL_MS);
	}
	s->load_s = (double)(wl_now_ns() - t0) / 1e9;
	s->enable_seq = enable_seq();
	snprintf(s->ops, sizeof(s->ops), "%s", ops);
	if (c->scheduler_ops[0] && strcmp(ops, c->scheduler_ops)) {
		snprintf(err, errlen, "sched_ext: root/ops reads '%s' once %s is enabled, not '%s'",
			 ops, c->scheduler, c->scheduler_ops);
		goto fail;
	}
	s->watcher = fork();
	if (s->watcher == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		watch(s->w, kmsg);
	}
	if (s->watcher < 0) {
		snprintf(err, errlen, "sched_ext: cannot fork the watcher: %s", strerror(errno));
		goto fail;
	}
	if (kmsg >= 0)
		close(kmsg);
	return 0;
fail:
	if (kmsg >= 0)
		close(kmsg);
	scx_stop(s);
	return -1;
}

size_t scx_output_tail(char *buf, size_t size)
{
	size_t len = 0, n;
	char *text = wl_slurp(SCX_LOG, &len, 1 << 22);

	if (!text || !size) {
		free(text);
		return 0;
	}
	n = len < size - 1 ? len : size - 1;
	memcpy(buf, text + len - n, n);
	buf[n] = '\0';
	free(text);
	return n;
}

int scx_ejected(struct scx_run *s, uint64_t since_ns, char *why, size_t len)
{
	char said[512];

	if (!s->w || !s->w->ejected)
		return 0;
	scx_msg_format(&s->w->msg, said, sizeof(said));
	snprintf(why, len, "sched_ext: %s (state '%s', %.3f s into the run)", said, s->w->state,
		 s->w->t_ns > since_ns ? (double)(s->w->t_ns - since_ns) / 1e9 : 0.0);
	return 1;
}

int scx_stop(struct scx_run *s)
{
	int status = -1;

	if (s->watcher > 0) {
		kill(s->watcher, SIGKILL);
		waitpid(s->watcher, NULL, 0);
	}
	s->watcher = -1;
	if (s->pid > 0)
		kill_wait(s->pid, SIGINT, SCX_STOP_TIMEOUT_S, &status);
	s->pid = -1;
	wait_disabled(SCX_STOP_TIMEOUT_S);
	if (s->w)
		munmap(s->w, sizeof(*s->w));
	s->w = NULL;
	return status;
}
