/* child.c - starting, waiting for, capturing and killing child processes with
 * argv vectors, explicit fds, process groups and deadlines; no shell anywhere. */
#define _GNU_SOURCE
#include "lib/child.h"
#include "common/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* What the child reports through the exec pipe when it cannot get to exec. */
enum child_stage {
	STAGE_PDEATHSIG,
	STAGE_PGRP,
	STAGE_THP,
	STAGE_DEVNULL,
	STAGE_DUP,
	STAGE_CHDIR,
	STAGE_KEEPFD,
	STAGE_EXEC,
};

struct child_report {
	int stage;
	int err;
};

void child_process_init(struct child_process *cp)
{
	struct child_process blank = CHILD_PROCESS_INIT;

	*cp = blank;
}

void child_process_clear(struct child_process *cp)
{
	strvec_clear(&cp->args);
	strvec_clear(&cp->env);
}

static int start_failed(struct child_process *cp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int start_failed(struct child_process *cp, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (cp->errbuf) {
		strbuf_reset(cp->errbuf);
		strbuf_addstr(cp->errbuf, msg.buf);
	} else {
		error("%s", msg.buf);
	}
	strbuf_release(&msg);
	return -1;
}

static size_t env_key_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* The child's environment: ours, minus the keys cp->env names, plus its
 * "K=V" entries.  Built before fork() because the child may only call
 * async-signal-safe functions. */
static void build_env(const struct child_process *cp, struct strvec *out)
{
	for (char **e = environ; e && *e; e++) {
		size_t klen = env_key_len(*e);
		int overridden = 0;

		for (size_t i = 0; i < cp->env.nr && !overridden; i++)
			overridden = env_key_len(cp->env.v[i]) == klen &&
				     !strncmp(cp->env.v[i], *e, klen);
		if (!overridden)
			strvec_push(out, *e);
	}
	for (size_t i = 0; i < cp->env.nr; i++)
		if (strchr(cp->env.v[i], '='))
			strvec_push(out, cp->env.v[i]);
}

static int is_kept(const struct child_process *cp, int fd)
{
	for (size_t i = 0; i < cp->nr_keep_fds; i++)
		if (cp->keep_fds[i] == fd)
			return 1;
	return 0;
}

/* Closes every fd >= 3 except keep_fds and `also`.  Runs in the child after
 * fork(): no allocation, so the gaps between kept fds are found by scanning. */
static void close_other_fds(const struct child_process *cp, int also)
{
	unsigned lo = 3;

	for (;;) {
		long next = -1;

		for (size_t i = 0; i < cp->nr_keep_fds; i++) {
			int k = cp->keep_fds[i];

			if (k >= (int)lo && (next < 0 || k < next))
				next = k;
		}
		if (also >= (int)lo && (next < 0 || also < next))
			next = also;
		if (next < 0) {
			if (close_range(lo, ~0U, 0) < 0) {
				long max = sysconf(_SC_OPEN_MAX);

				if (max < 0 || max > 65536)
					max = 65536;
				for (long fd = lo; fd < max; fd++)
					if (!is_kept(cp, (int)fd) && fd != also)
						close((int)fd);
			}
			return;
		}
		if ((unsigned)next > lo && close_range(lo, (unsigned)next - 1, 0) < 0)
			for (long fd = lo; fd < next; fd++)
				close((int)fd);
		lo = (unsigned)next + 1;
	}
}

static void __attribute__((noreturn)) child_die(int report_fd, int stage, int err)
{
	struct child_report r = { stage, err };

	write_in_full(report_fd, &r, sizeof(r));
	_exit(127);
}

/* Everything between fork() and exec: only async-signal-safe calls. */
static void __attribute__((noreturn))
run_child(const struct child_process *cp, char *const *envp, int report_fd,
	  const sigset_t *oldmask, pid_t parent)
{
	int src[3] = { cp->in, cp->out, cp->err };
	int tmp[3] = { -1, -1, -1 };
	struct sigaction sa;

	if (cp->die_with_parent) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			child_die(report_fd, STAGE_PDEATHSIG, errno);
		/* The parent may have died before prctl() took effect. */
		if (getppid() != parent)
			_exit(127);
	}
	if (cp->new_pgrp && setpgid(0, 0) < 0)
		child_die(report_fd, STAGE_PGRP, errno);
	if (cp->no_thp && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0)
		child_die(report_fd, STAGE_THP, errno);

	/*
	 * Move every source fd above 2 first, so that e.g. out = 0 or
	 * err = 1 still mean the parent's fd 0 and 1, not what an earlier
	 * dup2() in this loop put there.
	 */
	for (int i = 0; i < 3; i++) {
		int fd = src[i];

		if (fd == CHILD_DEVNULL) {
			fd = open("/dev/null", (i ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
			if (fd < 0)
				child_die(report_fd, STAGE_DEVNULL, errno);
			tmp[i] = fd;
		} else if (fd >= 0) {
			tmp[i] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			if (tmp[i] < 0)
				child_die(report_fd, STAGE_DUP, errno);
		}
	}
	for (int i = 0; i < 3; i++)
		if (tmp[i] >= 0 && dup2(tmp[i], i) < 0)
			child_die(report_fd, STAGE_DUP, errno);

	if (cp->dir && chdir(cp->dir) < 0)
		child_die(report_fd, STAGE_CHDIR, errno);

	for (size_t i = 0; i < cp->nr_keep_fds; i++)
		if (fcntl(cp->keep_fds[i], F_SETFD, 0) < 0)
			child_die(report_fd, STAGE_KEEPFD, errno);
	close_other_fds(cp, report_fd);

	/* Handlers must not run in the child; ignored SIGPIPE would make
	 * tools that write to closed pipes spin instead of ending. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;

		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sigaction(sig, NULL, &old) < 0)
			continue;
		if (old.sa_handler != SIG_DFL &&
		    (old.sa_handler != SIG_IGN || sig == SIGPIPE))
			sigaction(sig, &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, oldmask, NULL);

	execvpe(cp->args.v[0], (char *const *)cp->args.v, envp);
	child_die(report_fd, STAGE_EXEC, errno);
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int start_command(struct child_process *cp)
{
	struct strvec envp = STRVEC_INIT;
	struct child_report r;
	sigset_t all, old;
	pid_t pid, self = getpid();
	int pfd[2];
	ssize_t n;

	cp->pid = -1;
	if (!cp->args.nr)
		return start_failed(cp, "cannot run a command: empty argv");
	for (size_t i = 0; i < cp->nr_keep_fds; i++)
		if (fcntl(cp->keep_fds[i], F_GETFD) < 0)
			return start_failed(cp, "cannot run '%s': fd %d to keep is not open",
					    cp->args.v[0], cp->keep_fds[i]);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return start_failed(cp, "cannot run '%s': pipe: %s",
				    cp->args.v[0], strerror(errno));
	build_env(cp, &envp);

	/* Block signals across fork() so no handler of ours runs in the child
	 * before it has reset them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		run_child(cp, (char *const *)envp.v, pfd[1], &old, self);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	strvec_clear(&envp);
	if (pid < 0) {
		close(pfd[0]);
		return start_failed(cp, "cannot run '%s': fork: %s",
				    cp->args.v[0], strerror(errno));
	}
	/* Both sides call setpgid() so the group exists whichever runs first;
	 * the parent's call may fail once the child has exec'ed, harmlessly. */
	if (cp->new_pgrp)
		setpgid(pid, pid);

	/* The pipe closes on a successful exec and carries errno otherwise. */
	n = read_in_full(pfd[0], &r, sizeof(r));
	close(pfd[0]);
	if (n == (ssize_t)sizeof(r)) {
		reap(pid);
		switch (r.stage) {
		case STAGE_CHDIR:
			return start_failed(cp, "cannot run '%s': cannot chdir to '%s': %s",
					    cp->args.v[0], cp->dir, strerror(r.err));
		case STAGE_EXEC:
			return start_failed(cp, "cannot run '%s': %s",
					    cp->args.v[0], strerror(r.err));
		default:
			return start_failed(cp, "cannot run '%s': setting up the child failed (step %d): %s",
					    cp->args.v[0], r.stage, strerror(r.err));
		}
	}
	cp->pid = pid;
	return 0;
}

static int decode_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int finish_command(struct child_process *cp)
{
	int status;
	pid_t r;

	if (cp->pid <= 0)
		return error("cannot wait for '%s': it is not running",
			     cp->args.nr ? cp->args.v[0] : "(nothing)");
	do
		r = waitpid(cp->pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return error("cannot wait for '%s': %s", cp->args.v[0], strerror(errno));
	cp->pid = -1;
	return decode_status(status);
}

int child_process_kill(struct child_process *cp, int sig)
{
	if (cp->pid <= 0)
		return -1;
	if (cp->new_pgrp && kill(-cp->pid, sig) == 0)
		return 0;
	return kill(cp->pid, sig);
}

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int ms_until(uint64_t deadline_ns)
{
	uint64_t now = now_ns();

	if (now >= deadline_ns)
		return 0;
	return (int)((deadline_ns - now + 999999) / 1000000);
}

/*
 * Waits until pid has exited or deadline_ns passed, without reaping it (so
 * its process group cannot vanish and its number be reused while we still
 * signal it).  Returns 1 once it exited, 0 at the deadline, -1 on error.  A
 * pidfd makes the wait one poll(); kernels without one get a sleep loop.
 */
static int wait_until(pid_t pid, uint64_t deadline_ns)
{
	int pidfd = pidfd_open_compat(pid);
	int ret;

	for (;;) {
		siginfo_t si;
		int ms;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			ret = -1;
			break;
		}
		if (si.si_pid == pid) {
			ret = 1;
			break;
		}
		ms = ms_until(deadline_ns);
		if (!ms) {
			ret = 0;
			break;
		}
		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };

			poll(&p, 1, ms);
		} else {
			struct timespec ts = { 0, (ms < 10 ? ms : 10) * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return ret;
}

static int reap_status(pid_t pid)
{
	int status;
	pid_t r;

	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	return r == pid ? decode_status(status) : -1;
}

/* The deadline passed: TERM, a grace period, KILL, reap. */
static int kill_and_reap(struct child_process *cp)
{
	child_process_kill(cp, SIGTERM);
	if (wait_until(cp->pid, now_ns() + CHILD_KILL_GRACE_MS * 1000000ull) != 1 ||
	    cp->new_pgrp)
		/* Also when the leader went on TERM: helpers in its group must
		 * not outlive it, and the zombie leader keeps the group id ours. */
		child_process_kill(cp, SIGKILL);
	reap_status(cp->pid);
	cp->pid = -1;
	return CHILD_TIMED_OUT;
}

int finish_command_timeout(struct child_process *cp, int timeout_ms)
{
	int r;

	if (timeout_ms < 0)
		return finish_command(cp);
	if (cp->pid <= 0)
		return error("cannot wait for '%s': it is not running",
			     cp->args.nr ? cp->args.v[0] : "(nothing)");
	r = wait_until(cp->pid, now_ns() + (uint64_t)timeout_ms * 1000000ull);
	if (r < 0)
		return error("cannot wait for '%s': %s", cp->args.v[0], strerror(errno));
	if (r == 0)
		return kill_and_reap(cp);
	r = reap_status(cp->pid);
	cp->pid = -1;
	return r;
}

int child_capture(struct child_process *cp, int timeout_ms,
		  struct strbuf *out, struct strbuf *errout)
{
	uint64_t deadline = timeout_ms < 0 ? UINT64_MAX :
			    now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct strbuf *sinks[2] = { out, errout };
	int opipe[2], epipe[2];
	struct pollfd pfd[2];
	int open_fds = 2, ret;
	char buf[65536];

	if (pipe2(opipe, O_CLOEXEC) < 0)
		return start_failed(cp, "cannot run '%s': pipe: %s",
				    cp->args.nr ? cp->args.v[0] : "", strerror(errno));
	if (pipe2(epipe, O_CLOEXEC) < 0) {
		close(opipe[0]);
		close(opipe[1]);
		return start_failed(cp, "cannot run '%s': pipe: %s",
				    cp->args.nr ? cp->args.v[0] : "", strerror(errno));
	}
	cp->out = opipe[1];
	cp->err = epipe[1];
	ret = start_command(cp);
	close(opipe[1]);
	close(epipe[1]);
	cp->out = cp->err = CHILD_INHERIT;
	if (ret < 0) {
		close(opipe[0]);
		close(epipe[0]);
		return -1;
	}

	pfd[0] = (struct pollfd){ .fd = opipe[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = epipe[0], .events = POLLIN };
	while (open_fds) {
		int ms = deadline == UINT64_MAX ? -1 : ms_until(deadline);
		int n;

		if (!ms)
			break;
		n = poll(pfd, 2, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t got;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			got = xread(pfd[i].fd, buf, sizeof(buf));
			if (got < 0 && errno == EAGAIN)
				continue;
			if (got <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			if (sinks[i])
				strbuf_add(sinks[i], buf, (size_t)got);
		}
	}
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	if (open_fds)
		return kill_and_reap(cp);
	if (deadline == UINT64_MAX)
		return finish_command(cp);
	return finish_command_timeout(cp, ms_until(deadline));
}

int run_command_capture(const char **argv, int timeout_ms,
			struct strbuf *out, struct strbuf *errout)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int ret;

	for (size_t i = 0; argv[i]; i++)
		strvec_push(&cp.args, argv[i]);
	cp.in = CHILD_DEVNULL;
	cp.new_pgrp = 1;
	cp.die_with_parent = 1;
	ret = child_capture(&cp, timeout_ms, out, errout);
	child_process_clear(&cp);
	return ret;
}

void signals_catch(void (*handler)(int), ...)
{
	struct sigaction sa;
	va_list ap;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	va_start(ap, handler);
	while ((sig = va_arg(ap, int)))
		sigaction(sig, &sa, NULL);
	va_end(ap);
}
