/* fault.c - the fault registry and what fault kinds share: preparing a
 * plan's fault (options, target), random CPU picks, file and task helpers. */
#include "fault.h"
#include "common/journal.h"
#include "fault-tasks.h"
#include "wlutil.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define X(n) &fault_##n,
const struct fault_ops *const faults[] = { FAULT_LIST(X) };
#undef X
const size_t nr_faults = sizeof(faults) / sizeof(faults[0]);

const struct fault_ops *fault_find(const char *kind)
{
	for (size_t i = 0; i < nr_faults; i++)
		if (!strcmp(faults[i]->name, kind))
			return faults[i];
	return NULL;
}

void fault_list(void)
{
	for (size_t i = 0; i < nr_faults; i++) {
		const struct fault_ops *f = faults[i];

		printf("%s\t%s\t%s\n", f->name, f->run_only ? "run-only" : "changes-host",
		       f->description);
		wl_options_list(f->options);
	}
}

static const char *const target_names[] = {
	[FAULT_TARGET_DEFAULT] = "default",
	[FAULT_TARGET_CPUS] = "a CPU list",
	[FAULT_TARGET_RANDOM] = "random",
	[FAULT_TARGET_WORKLOAD] = "workload",
	[FAULT_TARGET_NONE] = "none",
};

/* "a CPU list, random or workload" for the kind's accepted targets */
static void accepted_targets(const struct fault_ops *ops, char *buf, size_t len)
{
	size_t off = 0;
	unsigned n = 0, total = 0;

	for (unsigned t = FAULT_TARGET_CPUS; t <= FAULT_TARGET_WORKLOAD; t++)
		total += !!(ops->targets & FAULT_TARGET_BIT(t));
	buf[0] = '\0';
	for (unsigned t = FAULT_TARGET_CPUS; t <= FAULT_TARGET_WORKLOAD; t++) {
		int w;

		if (!(ops->targets & FAULT_TARGET_BIT(t)))
			continue;
		n++;
		w = snprintf(buf + off, len - off, "%s%s", n == 1 ? "" : n == total ? " or " : ", ",
			     target_names[t]);
		if (w < 0 || (size_t)w >= len - off)
			return;
		off += (size_t)w;
	}
	if (!total)
		snprintf(buf, len, "none (leave 'target' out)");
}

int fault_prepare(struct fault_ctx *fc, const struct plan_fault *pf, char *err, size_t errlen)
{
	const struct fault_ops *ops = fault_find(pf->kind);
	char why[384], where[PLAN_MAX_FIELD + 16], owner[96];
	unsigned line;

	memset(fc, 0, sizeof(*fc));
	fc->pf = pf;
	if (!ops) {
		char list[256] = "";

		for (size_t i = 0; i < nr_faults; i++) {
			strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
			strncat(list, faults[i]->name, sizeof(list) - strlen(list) - 1);
		}
		snprintf(err, errlen, "%s: [fault %s]: unknown fault kind '%s' (the runner has %s)",
			 pf->where, pf->name, pf->kind, list);
		return -1;
	}
	fc->ops = ops;
	snprintf(owner, sizeof(owner), "[fault %s] (%s)", pf->name, ops->name);
	if (wl_args_parse(&fc->args, ops->options, owner, pf->opts, pf->nr_opts, why, sizeof(why),
		       &line) < 0) {
		wl_opt_where(pf->where, line, where, sizeof(where));
		snprintf(err, errlen, "%s: %s", where, why);
		return -1;
	}
	if (!strcmp(pf->target, "default")) {
		fc->target = ops->default_target;
	} else if (!strcmp(pf->target, "random")) {
		fc->target = FAULT_TARGET_RANDOM;
	} else if (!strcmp(pf->target, "workload")) {
		fc->target = FAULT_TARGET_WORKLOAD;
	} else {
		if (wl_parse_cpulist(pf->target, &fc->target_cpus) <= 0) {
			snprintf(err, errlen, "%s: [fault %s]: bad target '%s'", pf->where, pf->name,
				 pf->target);
			return -1;
		}
		fc->target = FAULT_TARGET_CPUS;
	}
	if (fc->target != FAULT_TARGET_NONE && !(ops->targets & FAULT_TARGET_BIT(fc->target))) {
		accepted_targets(ops, why, sizeof(why));
		snprintf(err, errlen, "%s: [fault %s]: %s cannot target %s (its target is %s)",
			 pf->where, pf->name, ops->name, target_names[fc->target], why);
		return -1;
	}
	if (ops->check && ops->check(fc, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: [fault %s] (%s): %s", pf->where, pf->name, ops->name, why);
		return -1;
	}
	return 0;
}

uint64_t fault_rand(struct fault_ctx *fc)
{
	uint64_t x = fc->rng ? fc->rng : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	fc->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

unsigned fault_rand_below(struct fault_ctx *fc, unsigned n)
{
	return n ? (unsigned)((fault_rand(fc) >> 32) % n) : 0;
}

void fault_pick_cpus(struct fault_ctx *fc, const cpu_set_t *pool, unsigned k, cpu_set_t *out)
{
	int cpus[CPU_SETSIZE];
	unsigned n = 0;

	CPU_ZERO(out);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, pool))
			cpus[n++] = c;
	/* a partial Fisher-Yates shuffle: the first k are the pick */
	for (unsigned i = 0; i < k && i < n; i++) {
		unsigned j = i + fault_rand_below(fc, n - i);
		int t = cpus[i];

		cpus[i] = cpus[j];
		cpus[j] = t;
		CPU_SET(cpus[i], out);
	}
}

void fault_target_cpus(struct fault_ctx *fc, const cpu_set_t *pool, unsigned k, cpu_set_t *out)
{
	if (fc->target == FAULT_TARGET_CPUS) {
		CPU_AND(out, &fc->target_cpus, pool);
		return;
	}
	fault_pick_cpus(fc, pool, k, out);
}

/* Every fault's change of a file goes through here: on bare metal the
 * original value is journaled first, so a killed runner can be undone. */
int fault_write(const char *path, const char *s)
{
	if (journal_note_set(path) < 0)
		return -1;
	/* one write(2): sysfs and debugfs files take one value per write */
	return wl_write_text(path, s, 0);
}

int fault_read(const char *path, char *buf, size_t len)
{
	return wl_read_text(path, buf, len) < 0 ? -1 : 0;
}

int fault_tids(const struct fault_ctx *fc, pid_t *tids, int max)
{
	if (!fc->env)
		return 0;
	return workload_tids(fc->env->cgroup, fc->env->pgid ? *fc->env->pgid : 0, tids, max);
}

int fault_online_now(cpu_set_t *set)
{
	char buf[4096];

	if (wl_read_text("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, set) <= 0)
		return -1;
	return 0;
}

uint64_t fault_now_ms(const struct fault_ctx *fc)
{
	uint64_t now = wl_now_ns();

	if (!fc->env || now < fc->env->t0_ns)
		return 0;
	return (now - fc->env->t0_ns) / 1000000ull;
}
