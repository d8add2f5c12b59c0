/* child.h - git-like child processes: argv vectors, explicit fds, process
 * groups and deadlines; the one way the lab starts apt, dpkg-deb and QEMU. */
#ifndef LAB_CHILD_H
#define LAB_CHILD_H

#include <sys/types.h>

#include "lib/util.h"

/* Values for child_process.in/out/err besides a file descriptor. */
#define CHILD_INHERIT (-1)
#define CHILD_DEVNULL (-2)

/* finish_command_timeout() and the capture helpers return this when the
 * deadline passed and the child (or its group) had to be killed. */
#define CHILD_TIMED_OUT (-2)

/* How long a child gets between SIGTERM and SIGKILL once its deadline passed:
 * long enough for QEMU to drop its monitor sockets, short enough that a hung
 * guest costs the lab well under a second more. */
#define CHILD_KILL_GRACE_MS 500

/*
 * One child process.  The caller owns the struct; child_process_clear()
 * frees args and env (and nothing else: dir, keep_fds and errbuf belong to
 * the caller).  A struct can be reused after child_process_clear().
 *
 *   args      argv; args.v[0] is looked up in $PATH (execvp)
 *   env       "K=V" entries added to (or replacing in) the environment; an
 *             entry "K" without '=' removes K from the child's environment
 *   dir       chdir() here in the child, NULL to stay
 *   in/out/err  CHILD_INHERIT, CHILD_DEVNULL, or a descriptor to dup2() onto
 *             0/1/2; the caller keeps (and closes) its own descriptor
 *   new_pgrp  the child becomes leader of a new process group, so a
 *             deadline can kill everything it started
 *   die_with_parent  the child gets SIGKILL when the thread that started
 *             it dies (PR_SET_PDEATHSIG): a killed lab leaves no QEMU or
 *             apt-get running on (a new group no longer gets our ^C)
 *   no_thp    the child runs with PR_SET_THP_DISABLE: its anonymous memory
 *             gets 4 KiB pages (a restoring QEMU, docs/warm-start.md)
 *   keep_fds  descriptors that stay open (FD_CLOEXEC cleared) across exec;
 *             every other descriptor >= 3 is closed in the child
 *   errbuf    when not NULL, a failure to start is described here (one line)
 *             instead of being printed with error()
 *   pid       set by start_command(), -1 once the child has been reaped
 */
struct child_process {
	struct strvec args;
	struct strvec env;
	const char *dir;
	int in, out, err;
	int new_pgrp;
	int die_with_parent;
	int no_thp;
	const int *keep_fds;
	size_t nr_keep_fds;
	struct strbuf *errbuf;
	pid_t pid;
};

#define CHILD_PROCESS_INIT { \
	.args = STRVEC_INIT, .env = STRVEC_INIT, .dir = NULL, \
	.in = CHILD_INHERIT, .out = CHILD_INHERIT, .err = CHILD_INHERIT, \
	.new_pgrp = 0, .die_with_parent = 0, .no_thp = 0, .keep_fds = NULL, .nr_keep_fds = 0, .errbuf = NULL, \
	.pid = -1 }

void child_process_init(struct child_process *cp);
void child_process_clear(struct child_process *cp);

/*
 * fork() + execvp().  Returns 0 once the command runs (exec succeeded), or -1
 * when it could not be started ("cannot run 'X': No such file or directory");
 * in that case nothing is left to reap.  With new_pgrp the group exists
 * when start_command() returns.
 */
int start_command(struct child_process *cp);

/*
 * Waits for the child: returns its exit code, 128 + the signal number when a
 * signal killed it, or -1 (with error()) when there was nothing to wait for.
 */
int finish_command(struct child_process *cp);

/*
 * Like finish_command(), with a deadline of timeout_ms from now (< 0: none).
 * At the deadline it sends SIGTERM to the child's process group (new_pgrp) or
 * to the child alone, SIGKILL CHILD_KILL_GRACE_MS later if it still runs,
 * reaps it and returns CHILD_TIMED_OUT (-2).  Never returns with the child
 * still running.
 */
int finish_command_timeout(struct child_process *cp, int timeout_ms);

/* Sends sig to the child's group (new_pgrp) or to the child. */
int child_process_kill(struct child_process *cp, int sig);

/*
 * Runs cp to completion with its stdout and stderr captured into out and
 * errout (either may be NULL to discard), read through poll() so a chatty
 * child never blocks on a full pipe.  cp->out and cp->err are overridden;
 * cp->in is honoured.  Returns like finish_command_timeout(); -1 when the
 * command could not be started.
 */
int child_capture(struct child_process *cp, int timeout_ms,
		  struct strbuf *out, struct strbuf *errout);

/*
 * The common case of child_capture(): argv (NULL-terminated) with stdin from
 * /dev/null, in a new process group so a deadline also ends its helpers,
 * and dying with us.
 */
int run_command_capture(const char **argv, int timeout_ms,
			struct strbuf *out, struct strbuf *errout);

/*
 * Points the signals listed (0-terminated) at handler, with an empty mask
 * and without SA_RESTART, so a poll() or read() in progress returns EINTR
 * and the caller sees the flag handler set.
 */
void signals_catch(void (*handler)(int), ...);

#endif
