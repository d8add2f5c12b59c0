/* affinity_storm.c - affinity storms: gives every workload task a new
 * random set of allowed CPUs at each action, and their own sets back. */
#include "../fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORM_MAX_TASKS 8192

struct saved_mask {
	pid_t tid;
	cpu_set_t mask;
};

struct storm {
	cpu_set_t pool;               /* CPUs the new sets are drawn from */
	struct saved_mask *saved;     /* each task's own set, first time seen */
	unsigned nr_saved;
	pid_t tids[STORM_MAX_TASKS];
};

static int storm_check(const struct fault_ctx *fc, char *err, size_t len)
{
	cpu_set_t set;
	int n = wl_cpus(&fc->args, "cpus", &set);
	int64_t width = wl_int(&fc->args, "width");

	if (n && width > n) {
		snprintf(err, len, "'width' %lld is more than the %d CPUs of 'cpus'", (long long)width, n);
		return -1;
	}
	return 0;
}

static int storm_start(struct fault_ctx *fc)
{
	struct storm *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->saved = calloc(STORM_MAX_TASKS, sizeof(*s->saved));
	if (!s->saved) {
		free(s);
		return -1;
	}
	if (wl_cpus(&fc->args, "cpus", &s->pool))
		CPU_AND(&s->pool, &s->pool, &fc->env->online);
	else
		s->pool = fc->env->online;
	if (!CPU_COUNT(&s->pool)) {
		free(s->saved);
		free(s);
		errno = EINVAL;
		return -1;
	}
	fc->priv = s;
	return 0;
}

static struct saved_mask *saved_find(struct storm *s, pid_t tid)
{
	for (unsigned i = 0; i < s->nr_saved; i++)
		if (s->saved[i].tid == tid)
			return &s->saved[i];
	return NULL;
}

static int storm_step(struct fault_ctx *fc, unsigned i)
{
	struct storm *s = fc->priv;
	unsigned width = (unsigned)wl_int(&fc->args, "width"), pool;
	int n = fault_tids(fc, s->tids, STORM_MAX_TASKS);
	unsigned done = 0, gone = 0, failed = 0, lo, hi = 0;
	char target[32], where[256];
	int first_errno = 0;
	cpu_set_t now;

	(void)i;
	/* a set of offline CPUs only, with hotplug churn beside us, is refused */
	if (fault_online_now(&now) == 0)
		CPU_AND(&now, &now, &s->pool);
	else
		now = s->pool;
	if (!CPU_COUNT(&now))
		now = s->pool;
	pool = (unsigned)CPU_COUNT(&now);
	lo = pool;
	for (int k = 0; k < n; k++) {
		pid_t tid = s->tids[k];
		cpu_set_t mask;
		unsigned w = width ? width : 1 + fault_rand_below(fc, pool);

		if (!saved_find(s, tid) && s->nr_saved < STORM_MAX_TASKS) {
			if (sched_getaffinity(tid, sizeof(mask), &mask) < 0) {
				gone++;
				continue;
			}
			s->saved[s->nr_saved].tid = tid;
			s->saved[s->nr_saved++].mask = mask;
		}
		fault_pick_cpus(fc, &now, w, &mask);
		if (sched_setaffinity(tid, sizeof(mask), &mask) < 0) {
			/* a task that exited in between is not a failure */
			if (errno == ESRCH) {
				gone++;
			} else {
				failed++;
				if (!first_errno)
					first_errno = errno;
			}
			continue;
		}
		done++;
		if (w < lo)
			lo = w;
		if (w > hi)
			hi = w;
	}
	snprintf(target, sizeof(target), "%u tasks", done);
	wl_format_cpus(&now, where, sizeof(where));
	if (failed)
		fault_event(fc, "setaffinity", target, 0, "%u tasks refused: %s", failed,
			    strerror(first_errno));
	else if (!done)
		fault_event(fc, "setaffinity", target, 0, "no workload task to move%s",
			    n < 0 ? " (cannot list the workload's tasks)" : "");
	else
		fault_event(fc, "setaffinity", target, 1, "sets of %u-%u CPUs from %s%s", lo, hi,
			    where, gone ? " (some tasks exited)" : "");
	return failed || !done ? -1 : 0;
}

/* Every live workload task gets its own set back, or the runner's set
 * (what it would have inherited) when it was born during the storm. */
static int storm_undo(struct fault_ctx *fc)
{
	struct storm *s = fc->priv;
	int n = fault_tids(fc, s->tids, STORM_MAX_TASKS);
	unsigned done = 0, failed = 0;
	char target[32];

	for (int k = 0; k < n; k++) {
		struct saved_mask *m = saved_find(s, s->tids[k]);
		const cpu_set_t *mask = m ? &m->mask : &fc->env->runner_allowed;

		if (sched_setaffinity(s->tids[k], sizeof(*mask), mask) == 0)
			done++;
		else if (errno != ESRCH)
			failed++;
	}
	snprintf(target, sizeof(target), "%u tasks", done);
	if (failed)
		fault_event(fc, "restore_affinity", target, 0, "%u tasks refused", failed);
	else
		fault_event(fc, "restore_affinity", target, 1, NULL);
	return failed ? -1 : 0;
}

static int storm_stop(struct fault_ctx *fc)
{
	struct storm *s = fc->priv;

	/* the driver has undone the action in effect: every set is back */
	if (!s)
		return 0;
	free(s->saved);
	free(s);
	fc->priv = NULL;
	return 0;
}

static const struct wl_option storm_options[] = {
	{ "cpus", WL_CPULIST, 0, 0, "", NULL,
	  "CPUs the new sets are drawn from (default: the CPUs online at the start)" },
	{ "width", WL_INT, 0, CPU_SETSIZE, "0", NULL,
	  "CPUs in each new set; 0 = a random size each time" },
	{ .name = NULL },
};

const struct fault_ops fault_affinity_storm = {
	.name = "affinity_storm",
	.description = "sched_setaffinity() every workload task to random CPU sets",
	.options = storm_options,
	.targets = FAULT_TARGET_BIT(FAULT_TARGET_WORKLOAD),
	.default_target = FAULT_TARGET_WORKLOAD,
	.run_only = 1,
	.check = storm_check,
	.start = storm_start,
	.step = storm_step,
	.undo = storm_undo,
	.stop = storm_stop,
};
