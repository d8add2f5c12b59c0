/* invariant.c - the invariants of a run, judged from samples taken during it
 * and its outcome: pure evaluation, the registry, numa_maps and topology readers. */
#include "invariant.h"
#include "wlutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X(n) &invariant_##n,
const struct inv_ops *const invariants[] = { INVARIANT_LIST(X) };
#undef X
const size_t nr_invariants = sizeof(invariants) / sizeof(invariants[0]);

void invariant_list(void)
{
	for (size_t i = 0; i < nr_invariants; i++) {
		printf("%s\t%s\n", invariants[i]->name, invariants[i]->description);
		wl_options_list(invariants[i]->options);
	}
}

const struct inv_ops *invariant_find(const char *kind)
{
	for (size_t i = 0; i < nr_invariants; i++)
		if (!strcmp(invariants[i]->name, kind))
			return invariants[i];
	return NULL;
}

int invariant_prepare(struct inv_ctx *ic, const struct plan_invariant *pi,
		      const struct inv_topo *topo, char *err, size_t errlen)
{
	const struct inv_ops *ops = invariant_find(pi->kind);
	char why[384], where[PLAN_MAX_FIELD + 16], owner[96];
	unsigned line;

	memset(ic, 0, sizeof(*ic));
	ic->pi = pi;
	ic->topo = topo;
	if (!ops) {
		char list[256] = "";

		for (size_t i = 0; i < nr_invariants; i++) {
			strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
			strncat(list, invariants[i]->name, sizeof(list) - strlen(list) - 1);
		}
		snprintf(err, errlen, "%s: [invariant %s]: unknown invariant kind '%s' (the runner "
			 "has %s)", pi->where, pi->name, pi->kind, list);
		return -1;
	}
	ic->ops = ops;
	snprintf(owner, sizeof(owner), "[invariant %s] (%s)", pi->name, ops->name);
	if (wl_args_parse(&ic->args, ops->options, owner, pi->opts, pi->nr_opts, why, sizeof(why),
		       &line) < 0) {
		wl_opt_where(pi->where, line, where, sizeof(where));
		snprintf(err, errlen, "%s: %s", where, why);
		return -1;
	}
	if (ops->check && ops->check(ic, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: [invariant %s] (%s): %s", pi->where, pi->name, ops->name,
			 why);
		return -1;
	}
	return 0;
}

unsigned invariant_interval_ms(const struct inv_ctx *ic)
{
	for (const struct wl_option *o = ic->ops->options; o && o->name; o++)
		if (!strcmp(o->name, "interval"))
			return (unsigned)wl_int(&ic->args, "interval");
	return 0;
}

int invariant_init(struct inv_ctx *ic)
{
	return ic->ops->init ? ic->ops->init(ic) : 0;
}

void invariant_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	memset(r, 0, sizeof(*r));
	fj_add(&r->evidence, "[", 1);
	ic->ops->finish(ic, o, r);
	fj_add(&r->evidence, "]", 1);
	if (ic->ops->release)
		ic->ops->release(ic);
	free(ic->state);
	ic->state = NULL;
}

void inv_result_release(struct inv_result *r)
{
	fj_release(&r->evidence);
}

/* Starts one evidence object ("{" with a separator); NULL past the limit. */
static struct fj *evidence(struct inv_result *r)
{
	if (r->nr_evidence >= INV_MAX_EVIDENCE)
		return NULL;
	if (r->nr_evidence++)
		fj_add(&r->evidence, ", ", 2);
	fj_add(&r->evidence, "{", 1);
	return &r->evidence;
}

static void fmt_s(uint64_t ms, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", (double)ms / 1000);
}

/* ---- affinity_respected ---- */

#define AFF_MAX_TASKS 8192

struct aff_seen {
	pid_t tid;
	int bad;              /* the last observation was outside its allowed set */
	uint64_t since_ms;    /* when its allowed set was first seen as it is */
	cpu_set_t allowed;
};

struct aff_violation {
	pid_t tid;
	char comm[16];
	char state;
	int cpu;
	uint64_t t_ms;
	int expected;         /* outside the declared cpus, not its own set */
	char allowed[64];
};

struct aff_state {
	struct aff_seen *seen;
	unsigned nr_seen;
	unsigned samples, observations, violations, unexpected;
	unsigned judged;      /* runnable, on a set past its grace time */
	struct aff_violation first[INV_MAX_EVIDENCE];
	unsigned nr_first;
	pid_t tids[INV_MAX_EVIDENCE];  /* distinct tasks in `first` */
};

static int aff_init(struct inv_ctx *ic)
{
	struct aff_state *s = calloc(1, sizeof(*s));

	if (!s || !(s->seen = calloc(AFF_MAX_TASKS, sizeof(*s->seen)))) {
		free(s);
		return -1;
	}
	ic->state = s;
	return 0;
}

static void aff_release(struct inv_ctx *ic)
{
	struct aff_state *s = ic->state;

	if (s)
		free(s->seen);
}

static struct aff_seen *aff_lookup(struct aff_state *s, pid_t tid)
{
	for (unsigned i = 0; i < s->nr_seen; i++)
		if (s->seen[i].tid == tid)
			return &s->seen[i];
	if (s->nr_seen >= AFF_MAX_TASKS)
		return NULL;
	memset(&s->seen[s->nr_seen], 0, sizeof(s->seen[0]));
	s->seen[s->nr_seen].tid = tid;
	s->seen[s->nr_seen].since_ms = UINT64_MAX;
	return &s->seen[s->nr_seen++];
}

static void aff_record(struct aff_state *s, const struct task_state *t, uint64_t t_ms, int expected)
{
	struct aff_violation *v;

	s->violations++;
	s->unexpected += expected;
	/* evidence: the first observation of each offending task */
	for (unsigned i = 0; i < s->nr_first; i++)
		if (s->tids[i] == t->tid)
			return;
	if (s->nr_first >= INV_MAX_EVIDENCE)
		return;
	s->tids[s->nr_first] = t->tid;
	v = &s->first[s->nr_first++];
	v->tid = t->tid;
	snprintf(v->comm, sizeof(v->comm), "%s", t->comm);
	v->state = t->state;
	v->cpu = t->cpu;
	v->t_ms = t_ms;
	v->expected = expected;
	if (t->have_allowed)
		wl_format_cpus(&t->allowed, v->allowed, sizeof(v->allowed));
	else
		snprintf(v->allowed, sizeof(v->allowed), "?");
}

/*
 * A task seen on a CPU outside the declared `cpus` ran there: any state.
 * Its own allowed set is judged only while it is runnable, once the set
 * has stayed as it is for `grace` seconds, and only when two samples in a
 * row agree: a sleeping task keeps the CPU it last ran on after its set
 * changed, and a running task whose set just changed stays on its old CPU
 * until the CPU's stopper moves it, which a loaded (TCG) guest may take
 * a good part of a second to schedule.
 */
static void aff_sample(struct inv_ctx *ic, const struct inv_sample *smp)
{
	struct aff_state *s = ic->state;
	uint64_t grace = (uint64_t)wl_int(&ic->args, "grace");
	cpu_set_t expect;
	int have_expect = wl_cpus(&ic->args, "cpus", &expect) > 0;

	s->samples++;
	for (unsigned i = 0; i < smp->nr_tasks; i++) {
		const struct task_state *t = &smp->tasks[i];
		struct aff_seen *seen = aff_lookup(s, t->tid);
		int bad;

		if (t->cpu < 0 || t->cpu >= CPU_SETSIZE)
			continue;
		s->observations++;
		if (have_expect && !CPU_ISSET(t->cpu, &expect)) {
			aff_record(s, t, smp->t_ms, 1);
			continue;
		}
		if (seen && t->have_allowed &&
		    (seen->since_ms == UINT64_MAX || !CPU_EQUAL(&seen->allowed, &t->allowed))) {
			seen->since_ms = smp->t_ms;
			seen->allowed = t->allowed;
			seen->bad = 0;
		}
		bad = t->state == 'R' && t->have_allowed && !CPU_ISSET(t->cpu, &t->allowed);
		if (seen && t->state == 'R' && t->have_allowed && smp->t_ms >= seen->since_ms + grace) {
			s->judged++;
			if (bad && seen->bad)
				aff_record(s, t, smp->t_ms, 0);
		}
		if (seen)
			seen->bad = bad;
	}
}

static void aff_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	struct aff_state *s = ic->state;
	char expect[256], t[16];
	cpu_set_t set;

	(void)o;
	wl_cpus(&ic->args, "cpus", &set);
	wl_format_cpus(&set, expect, sizeof(expect));
	if (!s->observations) {
		snprintf(r->summary, sizeof(r->summary), "no workload task was observed in %u "
			 "samples: nothing to judge", s->samples);
		return;
	}
	if (!s->violations && !expect[0] && !s->judged) {
		snprintf(r->summary, sizeof(r->summary), "%u observations in %u samples, none of a "
			 "runnable task whose allowed set had stood for the grace time: nothing to "
			 "judge", s->observations, s->samples);
		return;
	}
	if (!s->violations) {
		r->ok = 1;
		if (expect[0])
			snprintf(r->summary, sizeof(r->summary), "%u observations of workload tasks in "
				 "%u samples, all on the expected CPUs %.100s (and %u runnable ones on "
				 "their allowed CPUs)", s->observations, s->samples, expect, s->judged);
		else
			snprintf(r->summary, sizeof(r->summary), "%u observations of runnable workload "
				 "tasks on a settled allowed set in %u samples, all on allowed CPUs",
				 s->judged, s->samples);
		return;
	}
	snprintf(t, sizeof(t), "%.3f", (double)s->first[0].t_ms / 1000);
	snprintf(r->summary, sizeof(r->summary), "%u of %u observations outside %s; first: task "
		 "%d (%s) on CPU %d at %s s, %s %.100s", s->violations, s->observations,
		 !s->unexpected ? "the tasks' allowed CPUs" :
		 s->unexpected == s->violations ? "the expected CPUs" : "the allowed or expected CPUs",
		 (int)s->first[0].tid, s->first[0].comm, s->first[0].cpu, t,
		 s->first[0].expected ? "expected" : "allowed",
		 s->first[0].expected ? expect : s->first[0].allowed);
	for (unsigned i = 0; i < s->nr_first; i++) {
		const struct aff_violation *v = &s->first[i];
		struct fj *j = evidence(r);

		if (!j)
			break;
		fj_printf(j, "\"tid\": %d, \"comm\": ", (int)v->tid);
		fj_str(j, v->comm);
		fj_printf(j, ", \"state\": \"%c\", \"cpu\": %d, \"t_s\": %.3f, \"allowed\": ",
			  v->state, v->cpu, (double)v->t_ms / 1000);
		fj_str(j, v->allowed);
		if (v->expected) {
			fj_add(j, ", \"expected\": ", 14);
			fj_str(j, expect);
		}
		fj_printf(j, ", \"why\": \"%s\"}", v->expected ? "outside the expected CPUs" :
			  "runnable outside its allowed CPUs in two samples in a row, after its set "
			  "had been stable for the grace time");
	}
}

static const struct wl_option aff_options[] = {
	{ "cpus", WL_CPULIST, 0, 0, "", NULL,
	  "also expect every workload task on these CPUs (default: only its own allowed set)" },
	{ "interval", WL_SECONDS, 20, 60000, "0.2", NULL, "seconds between samples" },
	{ "grace", WL_SECONDS, 0, 60000, "1", NULL,
	  "seconds a task's allowed set must be unchanged before it is judged against it" },
	{ .name = NULL },
};

const struct inv_ops invariant_affinity_respected = {
	.name = "affinity_respected",
	.description = "no workload task observed on a CPU outside its allowed set",
	.options = aff_options,
	.needs = INV_NEED_TASKS | INV_NEED_ALLOWED,
	.init = aff_init,
	.sample = aff_sample,
	.finish = aff_finish,
	.release = aff_release,
};

/* ---- no_lost_work ---- */

static void lost_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	struct fj *j;

	(void)ic;
	if (!strcmp(o->status, "ok") && !o->leftover) {
		r->ok = 1;
		snprintf(r->summary, sizeof(r->summary), "the run finished its work and left no task");
		return;
	}
	if (strcmp(o->status, "ok"))
		snprintf(r->summary, sizeof(r->summary), "the run ended %s: %s", o->status,
			 o->error && o->error[0] ? o->error : "no reason given");
	else
		snprintf(r->summary, sizeof(r->summary), "%u workload task%s still alive after the "
			 "workload returned: %s", o->leftover, o->leftover == 1 ? " was" : "s were",
			 o->leftover_desc ? o->leftover_desc : "");
	j = evidence(r);
	fj_add(j, "\"status\": ", 10);
	fj_str(j, o->status);
	fj_add(j, ", \"error\": ", 11);
	fj_str(j, o->error ? o->error : "");
	fj_printf(j, ", \"leftover_tasks\": %u, \"leftover\": ", o->leftover);
	fj_str(j, o->leftover_desc ? o->leftover_desc : "");
	fj_add(j, "}", 1);
}

const struct inv_ops invariant_no_lost_work = {
	.name = "no_lost_work",
	.description = "the workload finished its work (status ok) and left no task behind",
	.finish = lost_finish,
};

/* ---- cpus_online_at_end ---- */

/*
 * The CPUs that must be online at the end: those that exist then (a
 * hot-removed CPU is gone, a hot-added one counts), except those the
 * machine booted with offline; with the present set unknown, those online
 * at the start.
 */
static void online_required(const struct inv_topo *t, const struct run_outcome *o,
			    cpu_set_t *req)
{
	cpu_set_t added;

	if (!CPU_COUNT(&o->present_after)) {
		*req = t->online;
		return;
	}
	CPU_OR(req, &t->online, &o->present_after);
	CPU_AND(req, req, &o->present_after);
	CPU_XOR(&added, req, &t->boot_offline);
	CPU_AND(&added, &added, req);
	CPU_OR(req, &added, &t->online);
	CPU_AND(req, req, &o->present_after);
}

static void online_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	cpu_set_t missing, req;
	char list[256], was[256];
	struct fj *j;

	online_required(ic->topo, o, &req);
	CPU_XOR(&missing, &req, &o->online_after);
	CPU_AND(&missing, &missing, &req);
	wl_format_cpus(&ic->topo->online, was, sizeof(was));
	if (!CPU_COUNT(&missing)) {
		r->ok = 1;
		if (CPU_EQUAL(&req, &ic->topo->online)) {
			snprintf(r->summary, sizeof(r->summary), "every CPU online at the start (%s) "
				 "is online at the end", was);
		} else {
			wl_format_cpus(&req, list, sizeof(list));
			snprintf(r->summary, sizeof(r->summary), "every CPU that exists at the end "
				 "(%.100s) is online (online at the start: %.100s)", list, was);
		}
		return;
	}
	wl_format_cpus(&missing, list, sizeof(list));
	snprintf(r->summary, sizeof(r->summary), "CPU%s %.120s offline at the end (online at "
		 "the start: %.120s)", CPU_COUNT(&missing) == 1 ? "" : "s", list, was);
	j = evidence(r);
	fj_add(j, "\"offline\": ", 11);
	fj_str(j, list);
	fj_add(j, ", \"online_at_start\": ", 21);
	fj_str(j, was);
	wl_format_cpus(&o->online_after, list, sizeof(list));
	fj_add(j, ", \"online_at_end\": ", 19);
	fj_str(j, list);
	fj_add(j, "}", 1);
}

const struct inv_ops invariant_cpus_online_at_end = {
	.name = "cpus_online_at_end",
	.description = "every CPU online when the run started, or hot-added since, is online "
		       "after the faults stopped (a hot-removed CPU is not expected)",
	.finish = online_finish,
};

/* ---- sysctls_restored ---- */

static void knobs_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	unsigned bad = 0, checked = 0;

	(void)ic;
	for (unsigned i = 0; i < o->nr_knobs; i++) {
		const struct inv_knob *k = &o->knobs[i];
		struct fj *j;

		if (!k->before_ok)
			continue;
		checked++;
		if (k->after_ok && !strcmp(k->before, k->after))
			continue;
		if (!bad++)
			snprintf(r->summary, sizeof(r->summary), "'%.120s' was '%.60s' before the run and "
				 "is '%.60s' after it", k->path, k->before,
				 k->after_ok ? k->after : "(unreadable)");
		j = evidence(r);
		if (!j)
			continue;
		fj_add(j, "\"path\": ", 8);
		fj_str(j, k->path);
		fj_add(j, ", \"before\": ", 12);
		fj_str(j, k->before);
		fj_add(j, ", \"after\": ", 11);
		fj_str(j, k->after_ok ? k->after : "(unreadable)");
		fj_add(j, "}", 1);
	}
	if (bad > 1) {
		char first[sizeof(r->summary)];

		snprintf(first, sizeof(first), "%s", r->summary);
		snprintf(r->summary, sizeof(r->summary), "%u of %u knobs changed; %.250s", bad,
			 checked, first);
	}
	if (!bad) {
		r->ok = 1;
		snprintf(r->summary, sizeof(r->summary), "%u sysctl, debugfs and cgroup knobs as "
			 "before the run", checked);
	}
}

const struct inv_ops invariant_sysctls_restored = {
	.name = "sysctls_restored",
	.description = "every sysctl, scheduler debugfs and cgroup knob is as before the run",
	.needs = INV_NEED_KNOBS,
	.finish = knobs_finish,
};

/* ---- spread ---- */

struct spread_state {
	int node_level;
	unsigned domains;
	unsigned samples, eligible, covered, most_busy;
	/* the eligible sample that covered fewest domains */
	int have_worst;
	uint64_t worst_ms;
	unsigned worst_busy, worst_covered;
	unsigned worst_per[CPU_SETSIZE];
};

static int spread_level_is_node(const struct inv_ctx *ic)
{
	return !strcmp(wl_str(&ic->args, "level"), "node");
}

static int spread_init(struct inv_ctx *ic)
{
	struct spread_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->node_level = spread_level_is_node(ic);
	s->domains = s->node_level ? ic->topo->nr_nodes : ic->topo->nr_llcs;
	ic->state = s;
	return 0;
}

static int domain_of(const struct inv_topo *t, int node_level, int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -1;
	return node_level ? t->node_of[cpu] : t->llc_of[cpu];
}

static void spread_sample(struct inv_ctx *ic, const struct inv_sample *smp)
{
	struct spread_state *s = ic->state;
	unsigned per[CPU_SETSIZE] = { 0 }, busy = 0, covered = 0;
	unsigned tolerance = (unsigned)wl_int(&ic->args, "tolerance");

	if (smp->t_ms < (uint64_t)wl_int(&ic->args, "settle") || s->domains < 2)
		return;
	s->samples++;
	for (unsigned i = 0; i < smp->nr_tasks; i++) {
		int d;

		if (smp->tasks[i].state != 'R')
			continue;
		busy++;
		d = domain_of(ic->topo, s->node_level, smp->tasks[i].cpu);
		if (d >= 0 && d < CPU_SETSIZE && !per[d]++)
			covered++;
	}
	if (busy > s->most_busy)
		s->most_busy = busy;
	if (busy < s->domains)
		return;
	s->eligible++;
	if (covered + tolerance >= s->domains)
		s->covered++;
	if (!s->have_worst || covered < s->worst_covered) {
		s->have_worst = 1;
		s->worst_ms = smp->t_ms;
		s->worst_busy = busy;
		s->worst_covered = covered;
		memcpy(s->worst_per, per, sizeof(per));
	}
}

static void spread_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	struct spread_state *s = ic->state;
	const char *what = s->node_level ? "node" : "LLC";
	unsigned min_pct = (unsigned)wl_int(&ic->args, "min_pct");
	char settle[16], t[16];
	struct fj *j;

	(void)o;
	plan_format_ms((unsigned)wl_int(&ic->args, "settle"), settle, sizeof(settle));
	if (s->domains < 2) {
		r->ok = 1;
		snprintf(r->summary, sizeof(r->summary), "one %s: nothing to spread over", what);
		return;
	}
	if (!s->eligible) {
		snprintf(r->summary, sizeof(r->summary), "no sample after %s s had %u busy tasks, "
			 "one per %s (at most %u of %u samples): nothing to judge", settle,
			 s->domains, what, s->most_busy, s->samples);
		return;
	}
	r->ok = (uint64_t)s->covered * 100 >= (uint64_t)min_pct * s->eligible;
	if (wl_int(&ic->args, "tolerance"))
		snprintf(r->summary, sizeof(r->summary), "busy tasks left at most %lld %ss without "
			 "one in %u of %u eligible samples (%u%%, needed %u%%)",
			 (long long)wl_int(&ic->args, "tolerance"), what, s->covered, s->eligible,
			 (unsigned)(100ull * s->covered / s->eligible), min_pct);
	else
		snprintf(r->summary, sizeof(r->summary), "busy tasks covered every %s in %u of %u "
			 "eligible samples (%u%%, needed %u%%)", what, s->covered, s->eligible,
			 (unsigned)(100ull * s->covered / s->eligible), min_pct);
	if (r->ok)
		return;
	fmt_s(s->worst_ms, t, sizeof(t));
	j = evidence(r);
	fj_printf(j, "\"t_s\": %s, \"busy\": %u, \"covered\": %u, \"%ss\": %u, \"busy_per_%s\": [",
		  t, s->worst_busy, s->worst_covered, s->node_level ? "node" : "llc", s->domains,
		  s->node_level ? "node" : "llc");
	for (unsigned d = 0; d < s->domains && d < CPU_SETSIZE; d++)
		fj_printf(j, "%s%u", d ? ", " : "", s->worst_per[d]);
	fj_add(j, "]}", 2);
}

static int spread_supported(const struct inv_ctx *ic, char *why, size_t len)
{
	if (!spread_level_is_node(ic) && !ic->topo->nr_llcs) {
		snprintf(why, len, "sysfs describes no last-level cache here");
		return 0;
	}
	return 1;
}

static const struct wl_option spread_options[] = {
	{ "level", WL_STR, 0, 0, "llc", "llc|node", "what the busy tasks should cover" },
	{ "settle", WL_SECONDS, 0, 3600000, "1", NULL,
	  "seconds after the run's start before samples count" },
	{ "tolerance", WL_INT, 0, 1024, "0", NULL,
	  "LLCs or nodes a sample may leave without a busy task" },
	{ "min_pct", WL_INT, 1, 100, "80", NULL,
	  "percent of eligible samples that must cover them" },
	{ "interval", WL_SECONDS, 20, 60000, "0.2", NULL, "seconds between samples" },
	{ .name = NULL },
};

const struct inv_ops invariant_spread = {
	.name = "spread",
	.description = "with as many busy tasks as LLCs (nodes), every LLC (node) has one",
	.options = spread_options,
	.needs = INV_NEED_TASKS,
	.supported = spread_supported,
	.init = spread_init,
	.sample = spread_sample,
	.finish = spread_finish,
};

/* ---- numa_convergence ---- */

struct conv_state {
	unsigned samples, judged;
	int reached;
	uint64_t reached_ms;
	double best;                  /* the best sample's weakest set */
	uint64_t best_ms;
	pid_t best_tgid;
	int best_node;
	double last;
	uint64_t last_ms;
};

static int conv_supported(const struct inv_ctx *ic, char *why, size_t len)
{
	if (ic->topo->nr_nodes < 2) {
		snprintf(why, len, "needs 2 NUMA nodes with CPUs, this system has %u",
			 ic->topo->nr_nodes ? ic->topo->nr_nodes : 1);
		return 0;
	}
	return 1;
}

static int conv_init(struct inv_ctx *ic)
{
	struct conv_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->best = -1;
	ic->state = s;
	return 0;
}

/*
 * A set is the threads of one process on one node; its local fraction is
 * the memory on that node over the share its threads should have (memory
 * in proportion to threads), at most 1.  With two bound sets and all the
 * memory first touched on node 0 (seed 001), node 1's set starts at 0 and
 * reaches 1 when its half has moved over.  The sample's value is its
 * weakest set.
 */
static void conv_sample(struct inv_ctx *ic, const struct inv_sample *smp)
{
	struct conv_state *s = ic->state;
	uint64_t min_kb = (uint64_t)wl_int(&ic->args, "min_mb") * 1024;
	double level = (double)wl_int(&ic->args, "level") / 100, value = 2;
	pid_t weak_tgid = 0;
	int weak_node = -1;

	s->samples++;
	for (unsigned m = 0; m < smp->nr_mms; m++) {
		const struct inv_mm *mm = &smp->mms[m];
		uint64_t total = 0;
		unsigned threads = 0;

		for (unsigned n = 0; n < INV_MAX_NODES; n++) {
			total += mm->kb[n];
			threads += mm->threads[n];
		}
		if (total < min_kb || !threads)
			continue;
		for (unsigned n = 0; n < INV_MAX_NODES; n++) {
			double share, frac;

			if (!mm->threads[n])
				continue;
			share = (double)mm->threads[n] / threads;
			frac = (double)mm->kb[n] / ((double)total * share);
			if (frac > 1)
				frac = 1;
			if (frac < value) {
				value = frac;
				weak_tgid = mm->tgid;
				weak_node = (int)n;
			}
		}
	}
	if (value > 1)
		return; /* no process big enough to judge yet */
	s->judged++;
	s->last = value;
	s->last_ms = smp->t_ms;
	if (value > s->best) {
		s->best = value;
		s->best_ms = smp->t_ms;
		s->best_tgid = weak_tgid;
		s->best_node = weak_node;
	}
	if (!s->reached && value >= level) {
		s->reached = 1;
		s->reached_ms = smp->t_ms;
	}
}

static void conv_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	struct conv_state *s = ic->state;
	unsigned level = (unsigned)wl_int(&ic->args, "level");
	uint64_t within = (uint64_t)wl_int(&ic->args, "within");
	char w[16], t[16], end[16];
	struct fj *j;

	plan_format_ms((unsigned)within, w, sizeof(w));
	fmt_s(o->end_ms, end, sizeof(end));
	if (!s->judged) {
		snprintf(r->summary, sizeof(r->summary), "no workload process held %lld MiB with "
			 "its threads sampled (%u samples): nothing to judge",
			 (long long)wl_int(&ic->args, "min_mb"), s->samples);
		return;
	}
	if (s->reached && s->reached_ms <= within) {
		r->ok = 1;
		fmt_s(s->reached_ms, t, sizeof(t));
		snprintf(r->summary, sizeof(r->summary), "every set reached %u%% local memory at "
			 "%s s (needed within %s s)", level, t, w);
		return;
	}
	fmt_s(s->best_ms, t, sizeof(t));
	if (s->reached)
		snprintf(r->summary, sizeof(r->summary), "every set reached %u%% local memory only "
			 "at %.1f s, after the %s s allowed", level, (double)s->reached_ms / 1000, w);
	else
		snprintf(r->summary, sizeof(r->summary), "the weakest set never reached %u%% local "
			 "memory: at best %.0f%% (pid %d, node %d, at %s s) in a %s s run; needed "
			 "within %s s", level, 100 * s->best, (int)s->best_tgid, s->best_node, t, end, w);
	j = evidence(r);
	fj_printf(j, "\"best_pct\": %.1f, \"best_t_s\": %s, \"pid\": %d, \"node\": %d, "
		  "\"last_pct\": %.1f, \"last_t_s\": %.1f, \"samples\": %u}", 100 * s->best, t,
		  (int)s->best_tgid, s->best_node, 100 * s->last, (double)s->last_ms / 1000,
		  s->judged);
}

static const struct wl_option conv_options[] = {
	{ "level", WL_INT, 1, 100, "80", NULL,
	  "percent of each set's memory that must be local" },
	{ "within", WL_SECONDS, 100, PLAN_MAX_MS, NULL, NULL,
	  "seconds after the run's start by which every set must get there" },
	{ "min_mb", WL_INT, 1, 1 << 20, "4", NULL,
	  "processes with less anonymous memory are not judged" },
	{ "interval", WL_SECONDS, 100, 60000, "0.5", NULL,
	  "seconds between samples (numa_maps walks every page)" },
	{ .name = NULL },
};

const struct inv_ops invariant_numa_convergence = {
	.name = "numa_convergence",
	.description = "each thread set's memory becomes local to its node within a time",
	.options = conv_options,
	.needs = INV_NEED_TASKS | INV_NEED_ALLOWED | INV_NEED_NUMA,
	.supported = conv_supported,
	.init = conv_init,
	.sample = conv_sample,
	.finish = conv_finish,
};

/* ---- latency_bound ---- */

static int bound_check(const struct inv_ctx *ic, char *err, size_t len)
{
	if (!wl_isset(&ic->args, "max") && !wl_isset(&ic->args, "min")) {
		snprintf(err, len, "give 'max' or 'min' (or both), in the metric's unit");
		return -1;
	}
	return 0;
}

static void bound_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r)
{
	const char *name = wl_str(&ic->args, "metric");
	int has_max = wl_isset(&ic->args, "max"), has_min = wl_isset(&ic->args, "min");
	double max = wl_number(&ic->args, "max"), min = wl_number(&ic->args, "min");
	const struct wl_metric *m = NULL;
	struct fj *j;

	for (unsigned i = 0; i < o->nr_metrics; i++)
		if (!strcmp(o->metrics[i].name, name))
			m = &o->metrics[i];
	if (!m) {
		snprintf(r->summary, sizeof(r->summary), "the run reported no metric '%s'%s%s", name,
			 strcmp(o->status, "ok") ? ": it ended " : "",
			 strcmp(o->status, "ok") ? o->status : "");
		return;
	}
	r->ok = (!has_max || m->value <= max) && (!has_min || m->value >= min);
	if (r->ok)
		snprintf(r->summary, sizeof(r->summary), "%s %.6g %s is within the bound", name,
			 m->value, m->unit);
	else
		snprintf(r->summary, sizeof(r->summary), "%s %.6g %s is %s the bound %.6g", name,
			 m->value, m->unit, has_max && m->value > max ? "above" : "below",
			 has_max && m->value > max ? max : min);
	if (r->ok)
		return;
	j = evidence(r);
	fj_add(j, "\"metric\": ", 10);
	fj_str(j, name);
	fj_printf(j, ", \"value\": %.9g, \"unit\": ", m->value);
	fj_str(j, m->unit);
	if (has_max)
		fj_printf(j, ", \"max\": %.9g", max);
	if (has_min)
		fj_printf(j, ", \"min\": %.9g", min);
	fj_add(j, "}", 1);
}

static const struct wl_option bound_options[] = {
	{ "metric", WL_STR, 0, 0, NULL, NULL, "the workload metric, e.g. wakeup_p99" },
	{ "max", WL_NUMBER, -1000000000000ll, 1000000000000ll, "", NULL,
	  "largest value allowed, in the metric's unit" },
	{ "min", WL_NUMBER, -1000000000000ll, 1000000000000ll, "", NULL,
	  "smallest value allowed (for throughputs)" },
	{ .name = NULL },
};

const struct inv_ops invariant_latency_bound = {
	.name = "latency_bound",
	.description = "a metric of each measured run stays under (or over) a limit",
	.options = bound_options,
	.check = bound_check,
	.finish = bound_finish,
};

/* ---- readers ---- */

int numa_maps_kb(const char *text, uint64_t *kb, unsigned max_nodes)
{
	int used = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		uint64_t pages[INV_MAX_NODES] = { 0 };
		unsigned long page_kb = 4;
		int anon = 0;

		for (const char *p = line; p < line + n;) {
			const char *sp = memchr(p, ' ', (size_t)(line + n - p));
			size_t w = sp ? (size_t)(sp - p) : (size_t)(line + n - p);

			if (w > 5 && !strncmp(p, "anon=", 5)) {
				anon = 1;
			} else if (w > 18 && !strncmp(p, "kernelpagesize_kB=", 18)) {
				page_kb = strtoul(p + 18, NULL, 10);
			} else if (w > 2 && p[0] == 'N' && p[1] >= '0' && p[1] <= '9') {
				char *eq;
				unsigned long node = strtoul(p + 1, &eq, 10);

				if (*eq == '=' && node < max_nodes && node < INV_MAX_NODES)
					pages[node] += strtoull(eq + 1, NULL, 10);
			}
			p += w + 1;
		}
		if (anon) {
			used++;
			for (unsigned i = 0; i < max_nodes && i < INV_MAX_NODES; i++)
				kb[i] += pages[i] * page_kb;
		}
		line = nl ? nl + 1 : NULL;
	}
	return used;
}

/* The first CPU of cpu's last-level cache, -1 when sysfs has none. */
static int llc_first_cpu(int cpu)
{
	char path[128], buf[4096];
	long best_level = 0;
	int first = -1;

	for (int i = 0; i < 16; i++) {
		char type[32];
		cpu_set_t set;
		long level;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
		if (wl_read_text(path, buf, sizeof(buf)) < 0)
			continue;
		level = strtol(buf, NULL, 10);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
		if (wl_read_text(path, type, sizeof(type)) < 0 || !strcmp(type, "Instruction") ||
		    level <= best_level)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, i);
		if (wl_read_text(path, buf, sizeof(buf)) < 0 || wl_parse_cpulist(buf, &set) <= 0)
			continue;
		best_level = level;
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (CPU_ISSET(c, &set)) {
				first = c;
				break;
			}
		}
	}
	return first;
}

int inv_topo_read(struct inv_topo *t)
{
	char buf[4096], path[96];
	short dense[CPU_SETSIZE];
	cpu_set_t nodes, seen_nodes;

	memset(t, 0, sizeof(*t));
	for (int c = 0; c < CPU_SETSIZE; c++) {
		t->llc_of[c] = -1;
		t->node_of[c] = -1;
		dense[c] = -1;
	}
	if (wl_read_text("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, &t->online) <= 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int first;

		if (!CPU_ISSET(c, &t->online) || (first = llc_first_cpu(c)) < 0)
			continue;
		if (dense[first] < 0)
			dense[first] = (short)t->nr_llcs++;
		t->llc_of[c] = dense[first];
	}
	CPU_ZERO(&seen_nodes);
	if (wl_read_text("/sys/devices/system/node/online", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, &nodes) <= 0) {
		/* no NUMA in this kernel: one node */
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &t->online))
				t->node_of[c] = 0;
		t->nr_nodes = 1;
		return 0;
	}
	for (int n = 0; n < INV_MAX_NODES; n++) {
		cpu_set_t cpus;

		if (!CPU_ISSET(n, &nodes))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", n);
		if (wl_read_text(path, buf, sizeof(buf)) < 0 || wl_parse_cpulist(buf, &cpus) <= 0)
			continue;
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &cpus))
				continue;
			t->node_of[c] = (short)n;
			if (CPU_ISSET(c, &t->online) && !CPU_ISSET(n, &seen_nodes)) {
				CPU_SET(n, &seen_nodes);
				t->nr_nodes++;
			}
		}
	}
	return 0;
}
