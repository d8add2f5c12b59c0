/* schedmetrics.h - decision metrics of one run (wakeup placement, migrations
 * by level crossed) from decoded sched events and the verified topology. */
#ifndef LAB_SCHEDMETRICS_H
#define LAB_SCHEDMETRICS_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

enum st_ev_type {
	ST_SWITCH,       /* prev_pid -> next_pid on cpu */
	ST_WAKING,       /* on the waker's cpu; target_cpu = the task's previous cpu */
	ST_WAKEUP,       /* target_cpu = where the task was placed */
	ST_WAKEUP_NEW,
	ST_MIGRATE,      /* orig_cpu -> dest_cpu */
	ST_OTHER,
};

struct st_event {
	uint64_t ts;
	int type;        /* enum st_ev_type */
	int cpu;         /* the buffer the event was recorded in */
	int pid;         /* woken / migrated task; next_pid of a switch */
	int prev_pid;    /* switch only */
	int target_cpu;  /* waking, wakeup, wakeup_new */
	int orig_cpu, dest_cpu; /* migrate */
};

/*
 * Levels of the verified topology, one id per CPU (-1 unknown): CPUs with
 * one core id are SMT siblings, one llc id share a last-level cache, one
 * node id a NUMA node.  Arrays owned by whoever filled them.
 */
struct st_topo {
	unsigned nr_cpus;
	int *core, *llc, *node;
};

/* -1 and "reason" in err when the guest view lacks the CPUs' levels. */
int st_topo_from_guest_view(struct json_object *view, struct st_topo *t, char *err, size_t len);
void st_topo_release(struct st_topo *t);

enum st_place {
	ST_PLACE_PREV,    /* the CPU it ran on before */
	ST_PLACE_WAKER,   /* the waker's CPU */
	ST_PLACE_SMT,     /* an SMT sibling of the previous CPU */
	ST_PLACE_LLC,     /* another core of the previous CPU's LLC */
	ST_PLACE_NODE,    /* another LLC of the same node */
	ST_PLACE_REMOTE,  /* another node */
	ST_PLACE_UNKNOWN, /* previous CPU or its level not known */
	ST_PLACE_MAX,
};

enum st_level { ST_LVL_SMT, ST_LVL_LLC, ST_LVL_NODE, ST_LVL_NUMA, ST_LVL_UNKNOWN, ST_LVL_MAX };

struct st_metrics {
	uint64_t events;
	uint64_t wakeups;             /* sched_wakeup, the placement denominator */
	uint64_t wakeups_new;
	uint64_t place[ST_PLACE_MAX];
	uint64_t migrations[ST_LVL_MAX];
	uint64_t lost;                /* events the buffers dropped or overwrote */
};

const char *st_place_name(enum st_place p);
/* The level two different CPUs share (ST_LVL_UNKNOWN outside the topology). */
enum st_level st_level_of(const struct st_topo *t, int a, int b);
const char *st_level_name(enum st_level l);

/*
 * Sorts ev by time (stable: per-CPU order kept on ties) and counts.  A
 * wakeup is matched to the latest sched_waking of the same pid before it:
 * its recording CPU is the waker's, its target_cpu the previous one.
 * m->lost is left as it was (the caller adds the buffers' counts).
 * Returns -1 only when memory runs out.
 */
int st_derive(struct st_event *ev, size_t n, const struct st_topo *t, struct st_metrics *m);

/*
 * Adds the run's metrics ({value, unit, better}) to a run result's
 * "metrics" object: wake_<place>_pct (shares summing to 100 when there
 * were wakeups), wakeups, migr_<level>, trace_lost_events.
 */
void st_metrics_to_json(const struct st_metrics *m, struct json_object *metrics);

#endif
