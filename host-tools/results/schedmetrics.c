/* schedmetrics.c - counts where woken tasks were placed and which topology
 * level each migration crossed, over one run's decoded sched events. */
#define _GNU_SOURCE
#include "results/schedmetrics.h"
#include "common/cpulist.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const place_names[ST_PLACE_MAX] = {
	[ST_PLACE_PREV] = "prev", [ST_PLACE_WAKER] = "waker", [ST_PLACE_SMT] = "smt",
	[ST_PLACE_LLC] = "llc", [ST_PLACE_NODE] = "node", [ST_PLACE_REMOTE] = "remote",
	[ST_PLACE_UNKNOWN] = "unknown",
};

static const char *const level_names[ST_LVL_MAX] = {
	[ST_LVL_SMT] = "smt", [ST_LVL_LLC] = "llc", [ST_LVL_NODE] = "node",
	[ST_LVL_NUMA] = "numa", [ST_LVL_UNKNOWN] = "unknown",
};

const char *st_place_name(enum st_place p)
{
	return p < ST_PLACE_MAX ? place_names[p] : "?";
}

const char *st_level_name(enum st_level l)
{
	return l < ST_LVL_MAX ? level_names[l] : "?";
}

void st_topo_release(struct st_topo *t)
{
	free(t->core);
	free(t->llc);
	free(t->node);
	memset(t, 0, sizeof(*t));
}

/* The first CPU of a cpulist names its group; -1 when absent or bad. */
static int first_cpu(struct json_object *o, const char *key, unsigned nbits)
{
	struct json_object *v;
	unsigned long *bits;
	char err[128];
	int first = -1;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return -1;
	bits = xcalloc((nbits + 8 * sizeof(long) - 1) / (8 * sizeof(long)), sizeof(long));
	if (cpulist_parse(json_object_get_string(v), bits, nbits, err, sizeof(err)) > 0)
		for (unsigned i = 0; i < nbits; i++)
			if (cpulist_test(bits, i)) {
				first = (int)i;
				break;
			}
	free(bits);
	return first;
}

int st_topo_from_guest_view(struct json_object *view, struct st_topo *t, char *err, size_t len)
{
	struct json_object *cpus, *v;
	unsigned max = 0;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!view || !json_object_object_get_ex(view, "cpu", &cpus) ||
	    !json_object_is_type(cpus, json_type_array) || !(n = json_object_array_length(cpus))) {
		snprintf(err, len, "the run has no guest view with CPUs");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i);

		if (json_object_object_get_ex(c, "cpu", &v) && json_object_get_int(v) >= 0 &&
		    json_object_get_int(v) < 16384 && (unsigned)json_object_get_int(v) + 1 > max)
			max = (unsigned)json_object_get_int(v) + 1;
	}
	t->nr_cpus = max;
	t->core = xcalloc(max ? max : 1, sizeof(int));
	t->llc = xcalloc(max ? max : 1, sizeof(int));
	t->node = xcalloc(max ? max : 1, sizeof(int));
	for (unsigned i = 0; i < max; i++)
		t->core[i] = t->llc[i] = t->node[i] = -1;
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i);
		int cpu;

		if (!json_object_object_get_ex(c, "cpu", &v) || (cpu = json_object_get_int(v)) < 0 ||
		    (unsigned)cpu >= max)
			continue;
		t->core[cpu] = first_cpu(c, "siblings", max);
		t->llc[cpu] = first_cpu(c, "llc", max);
		t->node[cpu] = json_object_object_get_ex(c, "node", &v) &&
			       json_object_is_type(v, json_type_int) ? json_object_get_int(v) : -1;
	}
	return 0;
}

static int known(const struct st_topo *t, int cpu)
{
	return cpu >= 0 && (unsigned)cpu < t->nr_cpus;
}

static int same(const int *id, int a, int b)
{
	return id[a] >= 0 && id[a] == id[b];
}

/* The level two different CPUs share: SMT core, LLC, node or nothing. */
static enum st_level level_of(const struct st_topo *t, int a, int b)
{
	if (!known(t, a) || !known(t, b))
		return ST_LVL_UNKNOWN;
	if (same(t->core, a, b))
		return ST_LVL_SMT;
	if (same(t->llc, a, b))
		return ST_LVL_LLC;
	if (same(t->node, a, b))
		return ST_LVL_NODE;
	if (t->node[a] < 0 || t->node[b] < 0)
		return ST_LVL_UNKNOWN;
	return ST_LVL_NUMA;
}

enum st_level st_level_of(const struct st_topo *t, int a, int b)
{
	return level_of(t, a, b);
}

static enum st_place place_of(const struct st_topo *t, int prev, int waker, int target)
{
	if (prev < 0 || !known(t, target))
		return waker >= 0 && target == waker ? ST_PLACE_WAKER : ST_PLACE_UNKNOWN;
	if (target == prev)
		return ST_PLACE_PREV;
	if (target == waker)
		return ST_PLACE_WAKER;
	switch (level_of(t, prev, target)) {
	case ST_LVL_SMT: return ST_PLACE_SMT;
	case ST_LVL_LLC: return ST_PLACE_LLC;
	case ST_LVL_NODE: return ST_PLACE_NODE;
	case ST_LVL_NUMA: return ST_PLACE_REMOTE;
	default: return ST_PLACE_UNKNOWN;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct st_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return 0;
}

/* Open addressing: pid -> the last waking seen of it. */
struct waking_slot {
	int pid; /* 0: empty (pid 0 is the idle task, never woken) */
	int waker, prev;
};

static struct waking_slot *slot_of(struct waking_slot *tab, size_t cap, int pid)
{
	size_t h = ((unsigned)pid * 2654435761u) & (cap - 1);

	while (tab[h].pid && tab[h].pid != pid)
		h = (h + 1) & (cap - 1);
	return &tab[h];
}

int st_derive(struct st_event *ev, size_t n, const struct st_topo *t, struct st_metrics *m)
{
	struct waking_slot *tab;
	size_t cap = 64;

	while (cap < 2 * n + 2)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -1;
	/* the per-CPU lists arrive one after the other; qsort is not stable,
	 * but two events of one pid at one nanosecond are a wash here */
	if (n)
		qsort(ev, n, sizeof(*ev), by_time);
	for (size_t i = 0; i < n; i++) {
		const struct st_event *e = &ev[i];
		struct waking_slot *s;

		m->events++;
		switch (e->type) {
		case ST_WAKING:
			if (e->pid <= 0)
				break;
			s = slot_of(tab, cap, e->pid);
			s->pid = e->pid;
			s->waker = e->cpu;
			s->prev = e->target_cpu;
			break;
		case ST_WAKEUP: {
			int prev = -1, waker = -1;

			if (e->pid > 0) {
				s = slot_of(tab, cap, e->pid);
				if (s->pid) {
					prev = s->prev;
					waker = s->waker;
				}
			}
			m->wakeups++;
			m->place[place_of(t, prev, waker, e->target_cpu)]++;
			break;
		}
		case ST_WAKEUP_NEW:
			m->wakeups_new++;
			break;
		case ST_MIGRATE:
			if (e->orig_cpu != e->dest_cpu)
				m->migrations[level_of(t, e->orig_cpu, e->dest_cpu)]++;
			break;
		default:
			break;
		}
	}
	free(tab);
	return 0;
}

static void add_metric(struct json_object *metrics, const char *name, double v, const char *unit,
		       const char *better)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "value", json_object_new_double(v));
	json_object_object_add(o, "unit", json_object_new_string(unit));
	json_object_object_add(o, "better", json_object_new_string(better));
	/* declared by the host: compare shows the row like a scenario's metric */
	json_object_object_add(o, "statistic", json_object_new_string("amean"));
	json_object_object_add(metrics, name, o);
}

void st_metrics_to_json(const struct st_metrics *m, struct json_object *metrics)
{
	char name[48];

	/* "better" is the direction of locality (a placement nearer the
	 * task's cache), what a placement patch is usually after; read the
	 * rows as changes, not as verdicts on the kernel */
	/* no wakeups: no shares at all, never a row of silent zeros */
	for (int p = 0; m->wakeups && p < ST_PLACE_MAX; p++) {
		snprintf(name, sizeof(name), "wake_%s_pct", place_names[p]);
		add_metric(metrics, name, 100.0 * (double)m->place[p] / (double)m->wakeups,
			   "%", p <= ST_PLACE_LLC ? "higher" : "lower");
	}
	add_metric(metrics, "wakeups", (double)m->wakeups, "count", "higher");
	for (int l = 0; l < ST_LVL_MAX; l++) {
		if (l == ST_LVL_UNKNOWN && !m->migrations[l])
			continue;
		snprintf(name, sizeof(name), "migr_%s", level_names[l]);
		add_metric(metrics, name, (double)m->migrations[l], "count", "lower");
	}
	add_metric(metrics, "trace_lost_events", (double)m->lost, "count", "lower");
}
