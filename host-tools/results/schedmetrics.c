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

/* A stable merge sort by time: each CPU's events arrive in order, and two
 * of one CPU at one nanosecond (waking, then wakeup) must stay so. */
static int sort_by_time(struct st_event *ev, size_t n)
{
	struct st_event *tmp, *src = ev, *dst, *x;

	if (n < 2)
		return 0;
	if (!(tmp = malloc(n * sizeof(*tmp))))
		return -1;
	dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = src[j].ts < src[i].ts ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		x = src;
		src = dst;
		dst = x;
	}
	if (src != ev)
		memcpy(ev, src, n * sizeof(*ev));
	free(tmp);
	return 0;
}

/* Above any CPU a trace holds (SCHEDTRACE_MAX_CPUS): events past it are not linked. */
#define LINK_MAX_CPUS 16384

static const struct st_event *ev_at(const void *ev, size_t stride, size_t i)
{
	return (const struct st_event *)(const void *)((const char *)ev + i * stride);
}

size_t *st_link_wakings(const void *ev, size_t n, size_t stride)
{
	size_t *link = malloc((n ? n : 1) * sizeof(*link)), *open;
	int ncpu = 0;

	if (!link)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int c = ev_at(ev, stride, i)->cpu;

		link[i] = SIZE_MAX;
		if (c >= ncpu && c < LINK_MAX_CPUS)
			ncpu = c + 1;
	}
	/* per CPU: its last event when that was a sched_waking, still open */
	if (!(open = malloc((ncpu ? (size_t)ncpu : 1) * sizeof(*open)))) {
		free(link);
		return NULL;
	}
	for (int c = 0; c < ncpu; c++)
		open[c] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct st_event *e = ev_at(ev, stride, i);
		size_t w;

		if (e->cpu < 0 || e->cpu >= ncpu)
			continue;
		w = open[e->cpu];
		if (w != SIZE_MAX && e->type == ST_MIGRATE && e->pid == ev_at(ev, stride, w)->pid &&
		    e->pid > 0) {
			link[w] = i;
			link[i] = w;
		}
		open[e->cpu] = e->type == ST_WAKING ? i : SIZE_MAX;
	}
	free(open);
	return link;
}

int st_waking_cpu(const void *ev, size_t stride, const size_t *link, size_t i)
{
	return link[i] != SIZE_MAX ? ev_at(ev, stride, link[i])->dest_cpu
				   : ev_at(ev, stride, i)->target_cpu;
}

int st_has_wakeup(const void *ev, size_t n, size_t stride)
{
	for (size_t i = 0; i < n; i++)
		if (ev_at(ev, stride, i)->type == ST_WAKEUP)
			return 1;
	return 0;
}

/* What the sweep knows of one task (pid > 0). */
struct task {
	int pid;         /* 0: empty slot (pid 0 is the idle task, never a task here) */
	int waker, prev; /* of its last sched_waking, prev -1 when none */
	int waking_open; /* a sched_waking not yet followed by its sched_wakeup */
	int pend;        /* woken by another CPU while it ran there: ... */
	int pend_cpu;    /* ... the CPU chosen, and ... */
	uint64_t pend_ts; /* ... when (no sched_wakeup: until it switches out) */
	int init;        /* first pass: the runqueue it was on when tracing began */
	int onrq;        /* the CPU whose runqueue holds it, -1 none */
	uint64_t woke;   /* time of a wakeup that has not run yet ... */
	int woke_set;    /* ... when set */
};

#define NOT_SEEN (-2)

struct tasks {
	struct task *tab;
	size_t cap, used;
};

static struct task *task_find(struct tasks *ts, int pid)
{
	size_t h = ((unsigned)pid * 2654435761u) & (ts->cap - 1);

	while (ts->tab[h].pid && ts->tab[h].pid != pid)
		h = (h + 1) & (ts->cap - 1);
	return &ts->tab[h];
}

/* The task of pid, added (and the table grown) when new; NULL without memory. */
static struct task *task_get(struct tasks *ts, int pid)
{
	struct task *t;

	if (2 * (ts->used + 1) > ts->cap) {
		struct tasks big = { calloc(ts->cap * 2, sizeof(struct task)), ts->cap * 2, ts->used };

		if (!big.tab)
			return NULL;
		for (size_t i = 0; i < ts->cap; i++)
			if (ts->tab[i].pid)
				*task_find(&big, ts->tab[i].pid) = ts->tab[i];
		free(ts->tab);
		*ts = big;
	}
	t = task_find(ts, pid);
	if (!t->pid) {
		*t = (struct task){ .pid = pid, .waker = -1, .prev = -1, .init = NOT_SEEN, .onrq = -1 };
		ts->used++;
	}
	return t;
}

/* The runqueue model and the work-conservation and imbalance state. */
struct sweep {
	const struct st_topo *t;
	unsigned n;              /* CPUs of the topology */
	uint64_t grace, now;
	int *cur;                /* pid running on the CPU, -1 unknown */
	int *nr;                 /* tasks on its runqueue, the running one too */
	int *waiting;            /* runs a task and has another queued */
	int *grp[ST_WC_MAX];     /* dense group id of each CPU per level, -1 none */
	int ngrp[ST_WC_MAX];
	int *waitcnt[ST_WC_MAX]; /* per group: CPUs with a task waiting */
	int *vio[ST_WC_MAX];     /* per CPU: idle while its group has one waiting */
	uint64_t *vio_start[ST_WC_MAX];
	long *rqsum[ST_RQ_MAX];  /* per group of the llc / node level */
	double imb_area[ST_RQ_MAX];
	struct st_metrics *m;
};

/* Dense ids 0..k-1 for the CPUs' raw group ids (-1 stays -1). */
static int dense_groups(const int *raw, unsigned n, int *out)
{
	int k = 0;

	for (unsigned c = 0; c < n; c++) {
		out[c] = -1;
		if (!raw || raw[c] < 0)
			continue;
		for (unsigned d = 0; d < c; d++)
			if (raw[d] == raw[c] && out[d] >= 0) {
				out[c] = out[d];
				break;
			}
		if (out[c] < 0)
			out[c] = k++;
	}
	return k;
}

static int cpu_idle(const struct sweep *s, unsigned c)
{
	return s->cur[c] == 0 && s->nr[c] == 0;
}

static void wc_close(struct sweep *s, int l, unsigned c)
{
	uint64_t len = s->now - s->vio_start[l][c];

	if (len > s->grace) {
		s->m->wc_ns[l] += len - s->grace;
		s->m->wc_episodes[l]++;
	}
}

static void wc_eval(struct sweep *s, int l, unsigned c)
{
	int g = s->grp[l][c];
	int v = g >= 0 && cpu_idle(s, c) && s->waitcnt[l][g] > 0;

	if (v == s->vio[l][c])
		return;
	s->vio[l][c] = v;
	if (v)
		s->vio_start[l][c] = s->now;
	else
		wc_close(s, l, c);
}

/* After CPU c's task or runqueue changed: its flags, then its groups'. */
static void cpu_changed(struct sweep *s, unsigned c)
{
	int w = s->cur[c] > 0 && s->nr[c] >= 2;

	if (w != s->waiting[c]) {
		s->waiting[c] = w;
		for (int l = 0; l < ST_WC_MAX; l++) {
			int g = s->grp[l][c];

			if (g < 0)
				continue;
			s->waitcnt[l][g] += w ? 1 : -1;
			for (unsigned d = 0; d < s->n; d++)
				if (s->grp[l][d] == g)
					wc_eval(s, l, d);
		}
	}
	for (int l = 0; l < ST_WC_MAX; l++)
		wc_eval(s, l, c);
}

static double rq_spread(const struct sweep *s, int l)
{
	long lo = 0, hi = 0;

	for (int g = 0; g < s->ngrp[l]; g++) {
		if (!g || s->rqsum[l][g] < lo)
			lo = s->rqsum[l][g];
		if (!g || s->rqsum[l][g] > hi)
			hi = s->rqsum[l][g];
	}
	return (double)(hi - lo);
}

/* Time passes up to ts: the imbalance integrals grow. */
static void advance(struct sweep *s, uint64_t ts)
{
	if (ts <= s->now)
		return;
	for (int l = 0; l < ST_RQ_MAX; l++)
		if (s->ngrp[l] >= 2)
			s->imb_area[l] += rq_spread(s, l) * (double)(ts - s->now);
	s->now = ts;
}

static int cpu_ok(const struct sweep *s, int c)
{
	return c >= 0 && (unsigned)c < s->n;
}

static void rq_add(struct sweep *s, int c, int delta)
{
	if (!cpu_ok(s, c) || (delta < 0 && !s->nr[c]))
		return;
	s->nr[c] += delta;
	for (int l = 0; l < ST_RQ_MAX; l++)
		if (s->grp[l][c] >= 0)
			s->rqsum[l][s->grp[l][c]] += delta;
	cpu_changed(s, (unsigned)c);
}

/* The task is on cpu's runqueue from now (moved there if it was elsewhere). */
static void rq_put(struct sweep *s, struct task *k, int cpu)
{
	if (!cpu_ok(s, cpu) || k->onrq == cpu)
		return;
	if (k->onrq >= 0)
		rq_add(s, k->onrq, -1);
	k->onrq = cpu;
	rq_add(s, cpu, 1);
}

static void rq_remove(struct sweep *s, struct task *k)
{
	if (k->onrq >= 0)
		rq_add(s, k->onrq, -1);
	k->onrq = -1;
}

static void sweep_release(struct sweep *s)
{
	free(s->cur);
	free(s->nr);
	free(s->waiting);
	for (int l = 0; l < ST_WC_MAX; l++) {
		free(s->grp[l]);
		free(s->waitcnt[l]);
		free(s->vio[l]);
		free(s->vio_start[l]);
	}
	for (int l = 0; l < ST_RQ_MAX; l++)
		free(s->rqsum[l]);
}

static int sweep_init(struct sweep *s, const struct st_topo *t, uint64_t grace,
		      struct st_metrics *m)
{
	unsigned n = t->nr_cpus, a = n ? n : 1;
	int *machine = calloc(a, sizeof(int));
	int bad = !machine;

	memset(s, 0, sizeof(*s));
	s->t = t;
	s->n = n;
	s->grace = grace;
	s->m = m;
	s->cur = malloc(a * sizeof(int));
	s->nr = calloc(a, sizeof(int));
	s->waiting = calloc(a, sizeof(int));
	bad |= !s->cur || !s->nr || !s->waiting;
	for (int l = 0; l < ST_WC_MAX; l++) {
		s->grp[l] = malloc(a * sizeof(int));
		s->waitcnt[l] = calloc(a, sizeof(int));
		s->vio[l] = calloc(a, sizeof(int));
		s->vio_start[l] = calloc(a, sizeof(uint64_t));
		bad |= !s->grp[l] || !s->waitcnt[l] || !s->vio[l] || !s->vio_start[l];
	}
	for (int l = 0; l < ST_RQ_MAX; l++)
		bad |= !(s->rqsum[l] = calloc(a, sizeof(long)));
	if (bad) {
		free(machine);
		sweep_release(s);
		return -1;
	}
	for (unsigned c = 0; c < n; c++)
		s->cur[c] = -1;
	s->ngrp[ST_WC_LLC] = dense_groups(t->llc, n, s->grp[ST_WC_LLC]);
	s->ngrp[ST_WC_NODE] = dense_groups(t->node, n, s->grp[ST_WC_NODE]);
	s->ngrp[ST_WC_MACHINE] = dense_groups(machine, n, s->grp[ST_WC_MACHINE]);
	free(machine);
	/* the imbalance levels share the first two levels' groups */
	return 0;
}

/* Samples of wake-to-run latency, in ns. */
struct samples {
	uint64_t *v;
	size_t n, alloc;
};

static int sample_add(struct samples *sm, uint64_t ns)
{
	if (sm->n == sm->alloc) {
		size_t na = sm->alloc ? sm->alloc * 2 : 1024;
		uint64_t *v = realloc(sm->v, na * sizeof(*v));

		if (!v)
			return -1;
		sm->v = v;
		sm->alloc = na;
	}
	sm->v[sm->n++] = ns;
	return 0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least q of them at or below. */
static double pct_us(const struct samples *sm, double q)
{
	size_t rank = (size_t)(q * (double)sm->n + 0.999999);

	if (rank < 1)
		rank = 1;
	if (rank > sm->n)
		rank = sm->n;
	return (double)sm->v[rank - 1] / 1000.0;
}

/*
 * First pass: who ran and who was queued when tracing began.  A CPU's
 * first sched_switch names the task it was running (prev_pid); a task
 * whose first event switches it in, switches it out or moves it outside
 * a wakeup was on that runqueue from the start; one whose first event is
 * a wakeup was asleep.  A task that waited the whole run without any
 * event of its own stays invisible.
 */
static int first_pass(const struct st_event *ev, size_t n, struct sweep *s, struct tasks *ts,
		      int *no_state)
{
	for (size_t i = 0; i < n; i++) {
		const struct st_event *e = &ev[i];
		struct task *k;

		switch (e->type) {
		case ST_SWITCH:
			if (cpu_ok(s, e->cpu) && s->cur[e->cpu] == -1 && e->prev_pid >= 0)
				s->cur[e->cpu] = e->prev_pid;
			for (int j = 0; j < 2; j++) {
				int pid = j ? e->pid : e->prev_pid;

				if (pid <= 0)
					continue;
				if (!(k = task_get(ts, pid)))
					return -1;
				if (k->init == NOT_SEEN)
					k->init = e->cpu;
			}
			break;
		case ST_WAKING:
		case ST_WAKEUP:
		case ST_WAKEUP_NEW:
		case ST_MIGRATE:
			if (e->pid <= 0)
				break;
			if (!(k = task_get(ts, e->pid)))
				return -1;
			if (k->init == NOT_SEEN)
				k->init = e->type == ST_MIGRATE ? e->orig_cpu : -1;
			break;
		default:
			break;
		}
		if (e->type == ST_SWITCH && e->prev_state < 0 && e->prev_pid > 0)
			*no_state = 1; /* no prev_state: no runqueue model */
	}
	return 0;
}

/* A wakeup (or a new task's) queues the task on cpu and starts its
 * wake-to-run clock; a task woken while it still runs waits for nothing. */
static void woken(struct sweep *s, struct task *k, uint64_t ts, int cpu)
{
	if (!k)
		return;
	k->waking_open = 0;
	if (!(k->onrq >= 0 && s->cur[k->onrq] == k->pid)) {
		k->woke = ts;
		k->woke_set = 1;
	}
	if (k->onrq < 0)
		rq_put(s, k, cpu);
}

/* Idle found: what the chosen CPU ran at the decision, when known. */
static void idle_at(struct sweep *s, int cpu)
{
	if (cpu_ok(s, cpu) && s->cur[cpu] >= 0) {
		s->m->idle_known++;
		s->m->idle_found += s->cur[cpu] == 0;
	}
}

/*
 * The end of a wakeup that found its task running on another CPU: that
 * CPU switched it out (slept: the waker found it dequeued, and the kernel
 * queues it once the switch is done, on its previous CPU or after
 * select_task_rq(): idle found is the chosen CPU's state now, the wait
 * runs from the waking), or it kept running (ttwu_runnable(): its CPU
 * ran it at the decision).
 */
static void pend_end(struct sweep *s, struct task *k, int slept)
{
	if (!k->pend)
		return;
	k->pend = 0;
	if (!slept) {
		s->m->idle_known++;
		return;
	}
	idle_at(s, k->pend_cpu);
	k->woke = k->pend_ts;
	k->woke_set = 1;
	rq_put(s, k, k->pend_cpu);
}

/*
 * A sched_waking in a trace without sched_wakeup: the wakeup, placed on
 * cpu (the migrate's dest_cpu or the previous CPU).
 */
static void waking_placed(struct sweep *s, struct task *k, const struct st_event *e, int cpu)
{
	pend_end(s, k, 0); /* its switch out was lost */
	s->m->wakeups++;
	s->m->place[place_of(s->t, k->prev, k->waker, cpu)]++;
	if (k->onrq >= 0 && s->cur[k->onrq] == k->pid && k->onrq != e->cpu) {
		k->pend = 1;
		k->pend_cpu = cpu;
		k->pend_ts = e->ts;
		return;
	}
	idle_at(s, cpu);
	woken(s, k, e->ts, cpu);
}

int st_derive(struct st_event *ev, size_t n, const struct st_topo *t, uint64_t grace_ns,
	      struct st_metrics *m)
{
	struct tasks ts = { calloc(64, sizeof(struct task)), 64, 0 };
	struct samples lat = { 0 };
	struct sweep s;
	size_t *link = NULL;
	int ret = -1, no_state = 0, from_wakeup = 0;

	if (!ts.tab || sort_by_time(ev, n) < 0 || sweep_init(&s, t, grace_ns, m) < 0) {
		free(ts.tab);
		return -1;
	}
	from_wakeup = st_has_wakeup(ev, n, sizeof(*ev));
	m->from_wakeup = from_wakeup;
	if (!from_wakeup && !(link = st_link_wakings(ev, n, sizeof(*ev))))
		goto out;
	if (first_pass(ev, n, &s, &ts, &no_state) < 0)
		goto out;
	m->rq_tracked = n && !no_state;
	s.now = n ? ev[0].ts : 0;
	m->span_ns = n ? ev[n - 1].ts - ev[0].ts : 0;
	for (size_t i = 0; i < ts.cap; i++)
		if (ts.tab[i].pid && ts.tab[i].init >= 0)
			rq_put(&s, &ts.tab[i], ts.tab[i].init);
	for (unsigned c = 0; c < s.n; c++) {
		m->cpus_known += s.cur[c] >= 0;
		cpu_changed(&s, c);
	}
	for (size_t i = 0; i < n; i++) {
		const struct st_event *e = &ev[i];
		struct task *k = e->pid > 0 ? task_get(&ts, e->pid) : NULL;

		advance(&s, e->ts);
		m->events++;
		switch (e->type) {
		case ST_WAKING:
			if (!k)
				break;
			k->waker = e->cpu;
			k->prev = e->target_cpu;
			if (from_wakeup)
				k->waking_open = 1;
			else
				waking_placed(&s, k, e, st_waking_cpu(ev, sizeof(*ev), link, i));
			break;
		case ST_WAKEUP:
			m->wakeups++;
			m->place[place_of(t, k ? k->prev : -1, k ? k->waker : -1, e->target_cpu)]++;
			if (cpu_ok(&s, e->target_cpu) && s.cur[e->target_cpu] >= 0) {
				m->idle_known++;
				m->idle_found += s.cur[e->target_cpu] == 0;
			}
			woken(&s, k, e->ts, e->target_cpu);
			break;
		case ST_WAKEUP_NEW:
			m->wakeups_new++;
			woken(&s, k, e->ts, e->target_cpu);
			break;
		case ST_MIGRATE: {
			enum st_level l;
			int by_wakeup = from_wakeup ? k && k->waking_open : link[i] != SIZE_MAX;

			if (e->orig_cpu == e->dest_cpu)
				break;
			l = level_of(t, e->orig_cpu, e->dest_cpu);
			m->migrations[l]++;
			m->migr_cause[by_wakeup ? ST_CAUSE_WAKEUP : ST_CAUSE_BALANCE][l]++;
			if (k && k->onrq >= 0)
				rq_put(&s, k, e->dest_cpu);
			break;
		}
		case ST_SWITCH: {
			struct task *p = e->prev_pid > 0 ? task_get(&ts, e->prev_pid) : NULL;

			if (p) {
				/* R or R+ (preempted) stays queued; any other state leaves */
				if (e->prev_state >= 0 && !(e->prev_state & ST_STATE_LEFT)) {
					rq_put(&s, p, e->cpu);
					m->preempt++;
				} else {
					rq_remove(&s, p);
				}
			}
			if (k) {
				pend_end(&s, k, 0); /* it ran on: its switch out was lost */
				if (k->woke_set && e->ts >= k->woke && sample_add(&lat, e->ts - k->woke) < 0)
					goto out;
				k->woke_set = 0;
				k->waking_open = 0; /* it runs: a lost sched_wakeup ends here */
				rq_put(&s, k, e->cpu);
			}
			if (cpu_ok(&s, e->cpu) && e->pid >= 0) {
				s.cur[e->cpu] = e->pid;
				cpu_changed(&s, (unsigned)e->cpu);
			}
			/* after the switch: the CPU it leaves may be idle now */
			if (p)
				pend_end(&s, p, e->prev_state < 0 || (e->prev_state & ST_STATE_LEFT));
			break;
		}
		default:
			break;
		}
	}
	for (size_t i = 0; i < ts.cap; i++)
		if (ts.tab[i].pid)
			pend_end(&s, &ts.tab[i], 0);
	/* episodes still open at the end are cut there, and counted */
	for (int l = 0; l < ST_WC_MAX; l++)
		for (unsigned c = 0; c < s.n; c++)
			if (s.vio[l][c])
				wc_close(&s, l, c);
	for (int l = 0; l < ST_RQ_MAX; l++) {
		m->rq_groups[l] = s.ngrp[l];
		m->rq_imbalance[l] = m->span_ns ? s.imb_area[l] / (double)m->span_ns : 0;
	}
	if (lat.n) {
		qsort(lat.v, lat.n, sizeof(*lat.v), by_u64);
		m->lat_samples = lat.n;
		m->lat_p50_us = pct_us(&lat, 0.50);
		m->lat_p99_us = pct_us(&lat, 0.99);
	}
	ret = 0;
out:
	sweep_release(&s);
	free(ts.tab);
	free(lat.v);
	free(link);
	return ret;
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

int st_derive_own(const struct st_event *ev, size_t n, const int *tids, size_t nr,
		  struct st_metrics *m)
{
	int *own = malloc((nr ? nr : 1) * sizeof(*own));
	int wake = m->from_wakeup ? ST_WAKEUP : ST_WAKING;

	if (!own)
		return -1;
	if (nr)
		memcpy(own, tids, nr * sizeof(*own));
	qsort(own, nr, sizeof(*own), by_int);
	m->own_known = 1;
	m->own_tasks = nr;
	m->own_preempt = m->own_wakeups = 0;
	for (size_t i = 0; i < n && nr; i++) {
		const struct st_event *e = &ev[i];

		/* the same switches as m->preempt, of the listed tasks */
		if (e->type == ST_SWITCH && e->prev_pid > 0 && e->prev_state >= 0 &&
		    !(e->prev_state & ST_STATE_LEFT) &&
		    bsearch(&e->prev_pid, own, nr, sizeof(*own), by_int))
			m->own_preempt++;
		else if (e->type == wake && e->pid > 0 && bsearch(&e->pid, own, nr, sizeof(*own), by_int))
			m->own_wakeups++;
	}
	free(own);
	return 0;
}

static const char *const lack_rows[ST_LACK_MAX] = {
	[ST_LACK_SWITCH] = "idle_found_pct, wake_lat_*, wc_*, rq_imbalance_*, preempt_* and "
			   "own_preempt_* rows left out",
	[ST_LACK_STATE] = "wc_*, rq_imbalance_*, preempt_* and own_preempt_* rows left out",
	[ST_LACK_WAKING] = "wake_*_pct, wakeups, idle_found_pct, wake_lat_* and the per-wakeup "
			   "rows left out",
	[ST_LACK_MIGRATE] = "wake_*_pct, idle_found_pct, migr_*, wc_* and rq_imbalance_* rows left out",
	[ST_LACK_WAKEUP_NEW] = "wake_lat_* count no new task, and wc_* and rq_imbalance_* miss "
			       "new tasks' first waits",
};

const char *st_lack_rows(enum st_lack l)
{
	return (unsigned)l < ST_LACK_MAX ? lack_rows[l] : "?";
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

static const char *const cause_names[ST_CAUSE_MAX] = { "wakeup", "balance" };
static const char *const wc_names[ST_WC_MAX] = { "llc", "node", "machine" };
static const char *const rq_names[ST_RQ_MAX] = { "llc", "node" };

void st_metrics_to_json(const struct st_metrics *m, struct json_object *metrics)
{
	unsigned lk = m->lacks;
	/* a trace with sched_wakeup places by it, without waking or migrate */
	int placed = m->from_wakeup || !(lk & (1u << ST_LACK_WAKING | 1u << ST_LACK_MIGRATE));
	int woke = m->from_wakeup || !(lk & 1u << ST_LACK_WAKING);
	int switched = !(lk & 1u << ST_LACK_SWITCH);
	int rq = m->rq_tracked && switched && !(lk & (1u << ST_LACK_STATE | 1u << ST_LACK_MIGRATE));
	int preempt = m->rq_tracked && switched && !(lk & 1u << ST_LACK_STATE);
	double span_s = (double)m->span_ns / 1e9;
	char name[48];

	/* decisions have no better side: a placement nearer the cache, an
	 * idle CPU found or a migration saved is what one patch is after and
	 * another trades away, so these rows are changes up or down ("none"),
	 * judged beside the timing rows, never counted better or worse */
	/* no wakeups: no shares at all, never a row of silent zeros */
	for (int p = 0; placed && m->wakeups && p < ST_PLACE_MAX; p++) {
		snprintf(name, sizeof(name), "wake_%s_pct", place_names[p]);
		add_metric(metrics, name, 100.0 * (double)m->place[p] / (double)m->wakeups,
			   "%", "none");
	}
	if (woke)
		add_metric(metrics, "wakeups", (double)m->wakeups, "count", "none");
	if (placed && switched && m->idle_known)
		add_metric(metrics, "idle_found_pct",
			   100.0 * (double)m->idle_found / (double)m->idle_known, "%", "none");
	if (woke && switched && m->lat_samples) {
		add_metric(metrics, "wake_lat_p50_us", m->lat_p50_us, "us", "lower");
		add_metric(metrics, "wake_lat_p99_us", m->lat_p99_us, "us", "lower");
	}
	for (int l = 0; !(lk & 1u << ST_LACK_MIGRATE) && l < ST_LVL_MAX; l++) {
		if (l == ST_LVL_UNKNOWN && !m->migrations[l])
			continue;
		snprintf(name, sizeof(name), "migr_%s", level_names[l]);
		add_metric(metrics, name, (double)m->migrations[l], "count", "none");
		for (int c = 0; c < ST_CAUSE_MAX; c++) {
			snprintf(name, sizeof(name), "migr_%s_%s", cause_names[c], level_names[l]);
			add_metric(metrics, name, (double)m->migr_cause[c][l], "count", "none");
		}
	}
	/* a trace without prev_state, or without a CPU seen switching, has no
	 * runqueue model: no rows rather than rows of zeros */
	for (int l = 0; rq && m->cpus_known && m->span_ns && l < ST_WC_MAX; l++) {
		snprintf(name, sizeof(name), "wc_%s_pct", wc_names[l]);
		add_metric(metrics, name,
			   100.0 * (double)m->wc_ns[l] / ((double)m->cpus_known * (double)m->span_ns),
			   "%", "none");
		snprintf(name, sizeof(name), "wc_%s_episodes", wc_names[l]);
		add_metric(metrics, name, (double)m->wc_episodes[l], "count", "none");
	}
	for (int l = 0; rq && m->span_ns && l < ST_RQ_MAX; l++) {
		if (m->rq_groups[l] < 2)
			continue;
		snprintf(name, sizeof(name), "rq_imbalance_%s", rq_names[l]);
		add_metric(metrics, name, m->rq_imbalance[l], "tasks", "none");
	}
	/* more or fewer preemptions is a change to explain, not a verdict:
	 * EEVDF's shorter slices preempt more and wait less */
	if (preempt) {
		add_metric(metrics, "preemptions", (double)m->preempt, "count", "none");
		if (woke && m->wakeups)
			add_metric(metrics, "preempt_per_wakeup",
				   (double)m->preempt / (double)m->wakeups, "/wakeup", "none");
		if (m->span_ns)
			add_metric(metrics, "preempt_per_s", (double)m->preempt / span_s, "/s", "none");
	}
	if (preempt && m->own_known) {
		add_metric(metrics, "own_preemptions", (double)m->own_preempt, "count", "none");
		if (woke && m->own_wakeups)
			add_metric(metrics, "own_preempt_per_wakeup",
				   (double)m->own_preempt / (double)m->own_wakeups, "/wakeup", "none");
		if (m->span_ns)
			add_metric(metrics, "own_preempt_per_s", (double)m->own_preempt / span_s, "/s",
				   "none");
	}
	add_metric(metrics, "trace_lost_events", (double)m->lost, "count", "lower");
}
