/* hostfault-guest.c - host faults on the whole guest: pause (SIGSTOP of QEMU
 * or QMP stop, resumed after hold) and an NMI to every vCPU. */
#include "fault/hostfault.h"
#include "backend/backend.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Two ways to pause.  freeze (the default) stops QEMU's process with
 * SIGSTOP: the guest's clocks follow the host's, so on SIGCONT the guest
 * finds the time gone, as after a preempted or stalled VM, and a sched
 * trace shows the gap.  stop is QMP stop/cont: QEMU stops the guest's
 * clocks with it (under TCG, and under KVM unless the guest reads the
 * host's time), so the guest sees no gap at all.
 */
enum { PAUSE_FREEZE, PAUSE_STOP };
static const char *const pause_modes[] = { "freeze", "stop", NULL };

static const struct hostfault_opt pause_opts[] = {
	{ .name = "mode", .words = pause_modes, .dflt = "freeze",
	  .help = "freeze: SIGSTOP of QEMU, guest time runs on; stop: QMP stop, guest time stops too" },
	{ .name = NULL },
};

/* The state letter of /proc/<pid>/stat ('T': stopped), or 0. */
static char proc_state(long pid)
{
	char path[64], *text, *p;
	size_t len;
	char st = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	text = read_file(path, &len);
	if (!text)
		return 0;
	/* "pid (comm) S ...": comm may hold anything, the state follows its last ')' */
	p = strrchr(text, ')');
	if (p && p[1] == ' ')
		st = p[2];
	free(text);
	return st;
}

static int freeze(struct hostfault *h, struct backend *b, struct strbuf *detail, struct strbuf *err)
{
	long pid;

	if (b->remote) {
		strbuf_addstr(err, "pause mode 'freeze' needs QEMU on this host (SIGSTOP); "
			      "mode 'stop' works remotely");
		return -1;
	}
	if ((pid = hostfault_qemu_pid(b, err)) < 0)
		return -1;
	if (kill((pid_t)pid, SIGSTOP) < 0) {
		strbuf_addf(err, "cannot stop QEMU (pid %ld): %s", pid, strerror(errno));
		return -1;
	}
	h->frozen_pid = pid;
	/* the signal is taken on QEMU's way back to user mode: wait for it,
	 * so that the action's time is when the guest stopped */
	for (int i = 0; i < 200 && proc_state(pid) != 'T'; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	strbuf_addf(detail, "SIGSTOP to QEMU pid %ld%s", pid,
		    proc_state(pid) == 'T' ? "" : " (not seen stopped within 200 ms)");
	return 0;
}

static int pause_act(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		     struct strbuf *detail, struct strbuf *err)
{
	unsigned mode;

	if (hostfault_opt(&hostfault_kind_pause, f, "mode", &mode, err) < 0)
		return -1;
	if (mode == PAUSE_FREEZE)
		return freeze(h, b, detail, err);
	if (b->ops->qmp(b, "stop", NULL, NULL, err) < 0)
		return -1;
	h->paused = 1;
	strbuf_addstr(detail, "QMP stop");
	return 0;
}

static int pause_undo(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		      struct strbuf *detail, struct strbuf *err)
{
	unsigned mode;

	if (hostfault_opt(&hostfault_kind_pause, f, "mode", &mode, err) < 0)
		return -1;
	if (mode == PAUSE_FREEZE) {
		long pid = h->frozen_pid;

		if (pid <= 0) {
			strbuf_addstr(err, "QEMU was not stopped");
			return -1;
		}
		if (kill((pid_t)pid, SIGCONT) < 0) {
			strbuf_addf(err, "cannot resume QEMU (pid %ld): %s", pid, strerror(errno));
			return -1;
		}
		h->frozen_pid = 0;
		strbuf_addf(detail, "SIGCONT to QEMU pid %ld", pid);
		return 0;
	}
	if (b->ops->qmp(b, "cont", NULL, NULL, err) < 0)
		return -1;
	h->paused = 0;
	strbuf_addstr(detail, "QMP cont");
	return 0;
}

const struct hostfault_ops hostfault_kind_pause = {
	.name = "pause",
	.description = "stops the whole guest (SIGSTOP of QEMU, or QMP stop), resumes it after hold",
	.options = pause_opts,
	.action = "stop",
	.undo_action = "cont",
	.default_hold_ms = 1000,
	.act = pause_act,
	.undo = pause_undo,
};

static int nmi_act(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		   struct strbuf *detail, struct strbuf *err)
{
	return b->ops->nmi(b, err);
}

const struct hostfault_ops hostfault_kind_nmi = {
	.name = "nmi",
	.description = "injects an NMI into every vCPU",
	.action = "nmi",
	.default_hold_ms = 1000,
	.raises_nmi = 1,
	.act = nmi_act,
};
