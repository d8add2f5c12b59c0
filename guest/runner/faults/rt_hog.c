/* rt_hog.c - an RT hog: a SCHED_FIFO spinner pinned to each chosen CPU for
 * `hold` seconds, with the kernel's RT throttling left on. */
#include "../fault.h"
#include "../workload.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
/* a spinner never runs longer than this, whatever the plan says */
#define RT_MAX_HOLD_MS 60000u

struct hog {
	pid_t pids[CPU_SETSIZE];
	unsigned nr;
	cpu_set_t online_pool;
};

static int hog_check(const struct fault_ctx *fc, char *err, size_t len)
{
	if (!fc->pf->hold_ms) {
		snprintf(err, len, "needs 'hold': how long each spinner runs (at most 60 s)");
		return -1;
	}
	if (fc->pf->hold_ms > RT_MAX_HOLD_MS) {
		snprintf(err, len, "'hold' is at most 60 s for an RT hog");
		return -1;
	}
	return 0;
}

static int hog_supported(const struct fault_ctx *fc, char *why, size_t len)
{
	char buf[64];

	(void)fc;
	if (fault_read(RT_RUNTIME, buf, sizeof(buf)) < 0) {
		snprintf(why, len, "cannot read '%s': %s", RT_RUNTIME, strerror(errno));
		return 0;
	}
	/* without throttling a FIFO spinner can starve the CPU's kernel threads
	 * for good; that is a different experiment */
	if (!strcmp(buf, "-1")) {
		snprintf(why, len, "RT throttling is off (sched_rt_runtime_us = -1)");
		return 0;
	}
	return 1;
}

static void hog_knobs(const struct fault_ctx *fc, void (*add)(void *ctx, const char *path),
		      void *ctx)
{
	(void)fc;
	add(ctx, RT_RUNTIME);
}

static int hog_start(struct fault_ctx *fc)
{
	struct hog *h = calloc(1, sizeof(*h));

	if (!h)
		return -1;
	fc->priv = h;
	return 0;
}

static void spin(int cpu, int prio, uint64_t until)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	/* a killed fault driver takes its hogs along (bare metal: the host) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		_exit(3);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
		_exit(4);
	while (wl_now_ns() < until)
		__asm__ volatile("" ::: "memory");
	_exit(0);
}

static int hog_undo(struct fault_ctx *fc)
{
	struct hog *h = fc->priv;
	char target[16];
	int status;

	for (unsigned i = 0; i < h->nr; i++) {
		int bad = 0;

		kill(h->pids[i], SIGKILL);
		while (waitpid(h->pids[i], &status, 0) < 0 && errno == EINTR)
			;
		/* exit 3/4: the spinner could not pin itself or become RT */
		if (WIFEXITED(status) && WEXITSTATUS(status))
			bad = WEXITSTATUS(status);
		snprintf(target, sizeof(target), "pid%d", (int)h->pids[i]);
		if (bad)
			fault_event(fc, "rt_stop", target, 0, "spinner could not %s",
				    bad == 3 ? "pin itself" : "become SCHED_FIFO");
		else
			fault_event(fc, "rt_stop", target, 1, NULL);
	}
	h->nr = 0;
	return 0;
}

static int hog_step(struct fault_ctx *fc, unsigned i)
{
	struct hog *h = fc->priv;
	int prio = (int)wl_int(&fc->args, "priority");
	unsigned nr = (unsigned)wl_int(&fc->args, "nr");
	uint64_t until = wl_now_ns() + (uint64_t)fc->pf->hold_ms * 1000000ull;
	cpu_set_t online, pick;
	char target[16];
	int started = 0;

	(void)i;
	if (fc->active)
		hog_undo(fc);
	if (until > fc->env->deadline_ns)
		until = fc->env->deadline_ns;
	if (fault_online_now(&online) < 0)
		online = fc->env->online;
	fault_target_cpus(fc, &online, nr, &pick);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		pid_t pid;

		if (!CPU_ISSET(c, &pick))
			continue;
		snprintf(target, sizeof(target), "cpu%d", c);
		pid = fork();
		if (pid < 0) {
			fault_event(fc, "rt_start", target, 0, "fork: %s", strerror(errno));
			continue;
		}
		if (pid == 0)
			spin(c, prio, until);
		h->pids[h->nr++] = pid;
		started++;
		fault_event(fc, "rt_start", target, 1, "SCHED_FIFO %d for %u ms", prio,
			    fc->pf->hold_ms);
	}
	if (!started)
		fault_event(fc, "rt_start", "none", 0, "no online CPU in the target");
	return started ? 0 : -1;
}

static int hog_stop(struct fault_ctx *fc)
{
	struct hog *h = fc->priv;

	if (!h)
		return 0;
	hog_undo(fc);
	free(h);
	fc->priv = NULL;
	return 0;
}

static const struct wl_option hog_options[] = {
	{ "priority", WL_INT, 1, 99, "10", NULL, "SCHED_FIFO priority of the spinners" },
	{ "nr", WL_INT, 1, CPU_SETSIZE, "1", NULL, "CPUs per action for a random target" },
	{ .name = NULL },
};

const struct fault_ops fault_rt_hog = {
	.name = "rt_hog",
	.description = "SCHED_FIFO spinners pinned to CPUs for 'hold' seconds (RT throttling on)",
	.options = hog_options,
	.targets = FAULT_TARGET_BIT(FAULT_TARGET_CPUS) | FAULT_TARGET_BIT(FAULT_TARGET_RANDOM),
	.default_target = FAULT_TARGET_RANDOM,
	.check = hog_check,
	.supported = hog_supported,
	.knobs = hog_knobs,
	.start = hog_start,
	.step = hog_step,
	.undo = hog_undo,
	.stop = hog_stop,
};
