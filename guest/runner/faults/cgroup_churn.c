/* cgroup_churn.c - cgroup v2 churn: rewrites cpu.max, cpu.weight and
 * cpuset.cpus/mems of the workload's cgroup at each action, then restores them. */
#include "../fault.h"
#include "../fault-tasks.h"
#include "../wlutil.h"
#include "cgroup_churn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const knob_names[NR_KNOBS] = {
	"cpu.max", "cpu.weight", "cpuset.cpus", "cpuset.mems",
};

struct churn {
	unsigned knobs[NR_KNOBS];   /* the knobs to turn, in the order given */
	unsigned nr_knobs;
	char saved[NR_KNOBS][256];  /* what each held before the run */
	int have_saved[NR_KNOBS];
	int last;                   /* knob of the action in effect, -1 none */
	cpu_set_t mems;             /* nodes with memory */
};

/* "cpu.max cpu.weight" into knob indexes; -1 and err on an unknown one. */
int churn_parse_knobs(const char *list, unsigned *out, unsigned *nr, char *err, size_t len)
{
	char word[64];
	const char *p = list;

	*nr = 0;
	while (*p) {
		size_t n = strcspn(p, " ,");
		unsigned k;

		if (!n) {
			p++;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(n < 60 ? n : 60), p);
		p += n;
		for (k = 0; k < NR_KNOBS; k++)
			if (!strcmp(word, knob_names[k]))
				break;
		if (k == NR_KNOBS) {
			snprintf(err, len, "unknown knob '%s' (cpu.max, cpu.weight, cpuset.cpus, "
				 "cpuset.mems)", word);
			return -1;
		}
		for (unsigned i = 0; i < *nr; i++) {
			if (out[i] == k) {
				snprintf(err, len, "knob '%s' listed twice", word);
				return -1;
			}
		}
		out[(*nr)++] = k;
	}
	if (!*nr) {
		snprintf(err, len, "'knobs' names no knob");
		return -1;
	}
	return 0;
}

static int churn_check(const struct fault_ctx *fc, char *err, size_t len)
{
	unsigned knobs[NR_KNOBS], nr;

	return churn_parse_knobs(wl_str(&fc->args, "knobs"), knobs, &nr, err, len);
}

static int churn_supported(const struct fault_ctx *fc, char *why, size_t len)
{
	char buf[512];

	(void)fc;
	if (!run_cgroup_v2()) {
		snprintf(why, len, "no cgroup v2 hierarchy at '%s'", RUN_CGROUP_ROOT);
		return 0;
	}
	if (fault_read(RUN_CGROUP_ROOT "/cgroup.controllers", buf, sizeof(buf)) < 0 ||
	    !strstr(buf, "cpu") || !strstr(buf, "cpuset")) {
		snprintf(why, len, "cgroup v2 has no cpu and cpuset controllers here");
		return 0;
	}
	return 1;
}

static void knob_path(const struct fault_ctx *fc, unsigned k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", fc->env ? fc->env->cgroup : RUN_CGROUP_DIR, knob_names[k]);
}

static void churn_knobs(const struct fault_ctx *fc, void (*add)(void *ctx, const char *path),
			void *ctx)
{
	unsigned knobs[NR_KNOBS], nr;
	char path[192], err[128];

	if (churn_parse_knobs(wl_str(&fc->args, "knobs"), knobs, &nr, err, sizeof(err)) < 0)
		return;
	for (unsigned i = 0; i < nr; i++) {
		knob_path(fc, knobs[i], path, sizeof(path));
		add(ctx, path);
	}
}

static int churn_start(struct fault_ctx *fc)
{
	struct churn *c = calloc(1, sizeof(*c));
	char err[128], path[192], buf[4096];

	if (!c)
		return -1;
	if (!fc->env->cgroup[0]) {
		free(c);
		errno = ENOENT;
		return -1;
	}
	churn_parse_knobs(wl_str(&fc->args, "knobs"), c->knobs, &c->nr_knobs, err, sizeof(err));
	for (unsigned i = 0; i < c->nr_knobs; i++) {
		unsigned k = c->knobs[i];

		knob_path(fc, k, path, sizeof(path));
		c->have_saved[k] = fault_read(path, c->saved[k], sizeof(c->saved[k])) == 0;
	}
	if (wl_read_text("/sys/devices/system/node/has_memory", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, &c->mems) <= 0) {
		CPU_ZERO(&c->mems);
		CPU_SET(0, &c->mems);
	}
	c->last = -1;
	fc->priv = c;
	return 0;
}

/* A random value for knob k, the kind a management daemon would write. */
static void random_value(struct fault_ctx *fc, struct churn *c, unsigned k, char *buf, size_t len)
{
	static const unsigned weights[] = { 1, 10, 50, 100, 200, 1000, 5000, 10000 };
	unsigned min_pct = (unsigned)wl_int(&fc->args, "quota_min_pct");
	cpu_set_t online, pick;
	unsigned n;

	if (fault_online_now(&online) < 0)
		online = fc->env->online;
	n = (unsigned)CPU_COUNT(&online);
	switch (k) {
	case KNOB_CPU_MAX: {
		unsigned pct = min_pct + fault_rand_below(fc, 101 - min_pct);
		unsigned long quota = 100000ul * n * pct / 100;

		snprintf(buf, len, "%lu 100000", quota < 1000 ? 1000 : quota);
		break;
	}
	case KNOB_CPU_WEIGHT:
		snprintf(buf, len, "%u", weights[fault_rand_below(fc, sizeof(weights) / sizeof(weights[0]))]);
		break;
	case KNOB_CPUSET_CPUS:
		fault_pick_cpus(fc, &online, 1 + fault_rand_below(fc, n), &pick);
		wl_format_cpus(&pick, buf, len);
		break;
	default:
		n = (unsigned)CPU_COUNT(&c->mems);
		fault_pick_cpus(fc, &c->mems, 1 + fault_rand_below(fc, n), &pick);
		wl_format_cpus(&pick, buf, len);
		break;
	}
}

/*
 * An empty cpuset means "the parent's"; the kernel refuses to make a
 * cpuset empty while tasks are in it (ENOSPC), so mid-run the parent's
 * effective set stands in for it, and the empty value returns at stop().
 */
static int restore_empty_cpuset(struct fault_ctx *fc, unsigned k, const char *path)
{
	char parent[192], value[256];
	const char *slash = strrchr(fc->env->cgroup, '/');

	if (!slash)
		return -1;
	snprintf(parent, sizeof(parent), "%.*s/%s.effective", (int)(slash - fc->env->cgroup),
		 fc->env->cgroup, knob_names[k]);
	if (fault_read(parent, value, sizeof(value)) < 0 || fault_write(path, value) < 0)
		return -1;
	fault_event(fc, "restore", knob_names[k], 1, "%s (the parent's: the cgroup is not empty)",
		    value);
	return 0;
}

static int churn_restore(struct fault_ctx *fc, struct churn *c, unsigned k)
{
	char path[192];

	if (!c->have_saved[k])
		return 0;
	knob_path(fc, k, path, sizeof(path));
	if (!c->saved[k][0] && (k == KNOB_CPUSET_CPUS || k == KNOB_CPUSET_MEMS)) {
		/* a lone newline is how an empty cpuset is written */
		if (fault_write(path, "\n") == 0) {
			fault_event(fc, "restore", knob_names[k], 1, "(empty: the parent's)");
			return 0;
		}
		if (errno == ENOSPC && restore_empty_cpuset(fc, k, path) == 0)
			return 0;
	} else if (fault_write(path, c->saved[k]) == 0) {
		fault_event(fc, "restore", knob_names[k], 1, "%s", c->saved[k]);
		return 0;
	}
	fault_event(fc, "restore", knob_names[k], 0, "'%s': %s", c->saved[k], strerror(errno));
	return -1;
}

static int churn_step(struct fault_ctx *fc, unsigned i)
{
	struct churn *c = fc->priv;
	unsigned k = c->knobs[i % c->nr_knobs];
	char path[192], value[256];

	if (c->last >= 0 && (unsigned)c->last != k)
		churn_restore(fc, c, (unsigned)c->last);
	random_value(fc, c, k, value, sizeof(value));
	knob_path(fc, k, path, sizeof(path));
	c->last = (int)k;
	if (fault_write(path, value) < 0) {
		fault_event(fc, "set", knob_names[k], 0, "'%s': %s", value, strerror(errno));
		return -1;
	}
	fault_event(fc, "set", knob_names[k], 1, "%s", value);
	return 0;
}

static int churn_undo(struct fault_ctx *fc)
{
	struct churn *c = fc->priv;
	int ret = 0;

	if (c->last >= 0)
		ret = churn_restore(fc, c, (unsigned)c->last);
	c->last = -1;
	return ret;
}

static int churn_stop(struct fault_ctx *fc)
{
	struct churn *c = fc->priv;
	int ret = 0;

	if (!c)
		return 0;
	churn_undo(fc);
	/* whatever an action left behind: every knob as it was */
	for (unsigned i = 0; i < c->nr_knobs; i++) {
		char path[192], now[256];
		unsigned k = c->knobs[i];

		knob_path(fc, k, path, sizeof(path));
		if (c->have_saved[k] && fault_read(path, now, sizeof(now)) == 0 &&
		    strcmp(now, c->saved[k]) && churn_restore(fc, c, k) < 0)
			ret = -1;
	}
	free(c);
	fc->priv = NULL;
	return ret;
}

static const struct wl_option churn_options[] = {
	{ "knobs", WL_STR, 0, 0, "cpu.max cpu.weight cpuset.cpus cpuset.mems", NULL,
	  "the cgroup files to rewrite, one per action in turn (space-separated)" },
	{ "quota_min_pct", WL_INT, 1, 100, "20", NULL,
	  "smallest cpu.max quota, in percent of all online CPUs" },
	{ .name = NULL },
};

const struct fault_ops fault_cgroup_churn = {
	.name = "cgroup_churn",
	.description = "rewrite cpu.max, cpu.weight, cpuset.cpus and cpuset.mems of the workload's cgroup",
	.options = churn_options,
	.targets = FAULT_TARGET_BIT(FAULT_TARGET_WORKLOAD),
	.default_target = FAULT_TARGET_WORKLOAD,
	.controllers = "cpu cpuset",
	.check = churn_check,
	.supported = churn_supported,
	.knobs = churn_knobs,
	.start = churn_start,
	.step = churn_step,
	.undo = churn_undo,
	.stop = churn_stop,
};
