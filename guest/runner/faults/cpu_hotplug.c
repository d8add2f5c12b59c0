/* cpu_hotplug.c - CPU hotplug churn: takes chosen or random CPUs offline
 * and back through sysfs while the workload runs; every CPU ends online. */
#include "../fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hotplug {
	cpu_set_t pool;      /* CPUs this fault may take offline */
	cpu_set_t down;      /* taken offline by the action in effect */
	unsigned next;       /* round-robin position for a CPU-list target */
};

static void online_path(int cpu, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
}

/* CPUs that have an online file (cpu0 usually has none). */
static int hotpluggable(cpu_set_t *set)
{
	char path[64];
	int n = 0;

	CPU_ZERO(set);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		online_path(c, path, sizeof(path));
		if (access(path, W_OK) == 0) {
			CPU_SET(c, set);
			n++;
		}
	}
	return n;
}

static int hotplug_supported(const struct fault_ctx *fc, char *why, size_t len)
{
	cpu_set_t set, both;

	if (!hotpluggable(&set)) {
		snprintf(why, len, "no CPU can go offline here (no writable "
			 "/sys/devices/system/cpu/cpuN/online)");
		return 0;
	}
	if (fc->target == FAULT_TARGET_CPUS) {
		CPU_AND(&both, &set, &fc->target_cpus);
		if (!CPU_EQUAL(&both, &fc->target_cpus)) {
			snprintf(why, len, "target '%s' names a CPU that cannot go offline",
				 fc->pf->target);
			return 0;
		}
	}
	return 1;
}

static int hotplug_start(struct fault_ctx *fc)
{
	struct hotplug *h = calloc(1, sizeof(*h));
	cpu_set_t plug;

	if (!h)
		return -1;
	hotpluggable(&plug);
	/* only CPUs that were online: stop() brings back exactly those */
	CPU_AND(&h->pool, &plug, &fc->env->online);
	if (fc->target == FAULT_TARGET_CPUS)
		CPU_AND(&h->pool, &h->pool, &fc->target_cpus);
	fc->priv = h;
	return 0;
}

static int set_online(struct fault_ctx *fc, int cpu, int on)
{
	char path[64], target[16];
	int ret;

	online_path(cpu, path, sizeof(path));
	snprintf(target, sizeof(target), "cpu%d", cpu);
	ret = fault_write(path, on ? "1" : "0");
	if (ret < 0)
		fault_event(fc, on ? "online" : "offline", target, 0, "%s", strerror(errno));
	else
		fault_event(fc, on ? "online" : "offline", target, 1, NULL);
	return ret;
}

static int hotplug_undo(struct fault_ctx *fc)
{
	struct hotplug *h = fc->priv;
	int ret = 0;

	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &h->down))
			continue;
		if (set_online(fc, c, 1) < 0)
			ret = -1;
		else
			CPU_CLR(c, &h->down);
	}
	return ret;
}

static int hotplug_step(struct fault_ctx *fc, unsigned i)
{
	struct hotplug *h = fc->priv;
	unsigned nr = (unsigned)wl_int(&fc->args, "nr");
	cpu_set_t pick;
	int ok = 0, tried = 0;

	(void)i;
	if (fc->active)
		hotplug_undo(fc);
	if (fc->target == FAULT_TARGET_CPUS && nr < (unsigned)CPU_COUNT(&h->pool)) {
		/* a list with nr smaller than it: walk it in order */
		CPU_ZERO(&pick);
		for (unsigned k = 0; k < nr; k++) {
			for (unsigned s = 0; s < CPU_SETSIZE; s++) {
				int c = (int)((h->next + s) % CPU_SETSIZE);

				if (CPU_ISSET(c, &h->pool) && !CPU_ISSET(c, &pick)) {
					CPU_SET(c, &pick);
					h->next = (unsigned)c + 1;
					break;
				}
			}
		}
	} else {
		fault_target_cpus(fc, &h->pool, nr, &pick);
	}
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &pick))
			continue;
		tried++;
		if (set_online(fc, c, 0) == 0) {
			CPU_SET(c, &h->down);
			ok++;
		}
	}
	if (!tried) {
		fault_event(fc, "offline", "none", 0, "no CPU left to take offline");
		return -1;
	}
	return ok ? 0 : -1;
}

static int hotplug_stop(struct fault_ctx *fc)
{
	struct hotplug *h = fc->priv;
	char path[64], buf[16];
	int ret = 0;

	if (!h)
		return 0;
	hotplug_undo(fc);
	/* every CPU of the pool was online when the run started */
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &h->pool))
			continue;
		online_path(c, path, sizeof(path));
		if (fault_read(path, buf, sizeof(buf)) == 0 && buf[0] == '1')
			continue;
		for (int tries = 0; tries < 3; tries++) {
			if (set_online(fc, c, 1) == 0)
				break;
			usleep(100000);
		}
		if (fault_read(path, buf, sizeof(buf)) < 0 || buf[0] != '1')
			ret = -1;
	}
	free(h);
	fc->priv = NULL;
	return ret;
}

static const struct wl_option hotplug_options[] = {
	{ "nr", WL_INT, 1, CPU_SETSIZE, "1", NULL,
	  "CPUs taken offline by each action (random target: drawn anew each time)" },
	{ .name = NULL },
};

const struct fault_ops fault_cpu_hotplug = {
	.name = "cpu_hotplug",
	.description = "offline and online CPUs through /sys/devices/system/cpu/cpuN/online",
	.options = hotplug_options,
	.targets = FAULT_TARGET_BIT(FAULT_TARGET_CPUS) | FAULT_TARGET_BIT(FAULT_TARGET_RANDOM),
	.default_target = FAULT_TARGET_RANDOM,
	.supported = hotplug_supported,
	.start = hotplug_start,
	.step = hotplug_step,
	.undo = hotplug_undo,
	.stop = hotplug_stop,
};
