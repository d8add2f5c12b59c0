/* schedmetrics.h - decision metrics of one run (wakeup placement, idle found,
 * wake-to-run latency, migrations, work conservation, runqueue imbalance)
 * from decoded sched events and the verified topology. */
#ifndef LAB_SCHEDMETRICS_H
#define LAB_SCHEDMETRICS_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

enum st_ev_type {
	ST_SWITCH,       /* prev_pid -> next_pid on cpu */
	ST_WAKING,       /* on the waker's cpu; target_cpu = the task's previous cpu */
	ST_WAKEUP,       /* target_cpu = where the task was placed (no longer recorded) */
	ST_WAKEUP_NEW,
	ST_MIGRATE,      /* orig_cpu -> dest_cpu */
	ST_OTHER,
};

/*
 * A switch's prev_state as the metrics read it, whatever the guest
 * kernel's encoding (results/prevstate.c translates by its print fmt):
 * 6.1's report bits.  0 is R (runnable: it called schedule() running, a
 * yield or a resched on the way to user space), ST_STATE_PREEMPTED alone
 * R+ (preempted in the kernel); any bit of ST_STATE_LEFT is a state that
 * took it off the runqueue (S, D, T, t, X, Z, P, I).
 */
#define ST_STATE_LEFT 0xff
#define ST_STATE_PREEMPTED 0x100

struct st_event {
	uint64_t ts;
	int type;        /* enum st_ev_type */
	int cpu;         /* the buffer the event was recorded in */
	int pid;         /* woken / migrated task; next_pid of a switch */
	int prev_pid;    /* switch only */
	int prev_state;  /* switch only: ST_STATE_* bits above, -1 unknown */
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

/* Why a task moved: inside a wakeup (the sched_migrate_task of its
 * sched_waking, see st_link_wakings(); in a trace with sched_wakeup,
 * between the two) or anything else (load balancing, NUMA, exec,
 * affinity). */
enum st_cause { ST_CAUSE_WAKEUP, ST_CAUSE_BALANCE, ST_CAUSE_MAX };

/* The groups an idle CPU is compared with for work conservation. */
enum st_wc { ST_WC_LLC, ST_WC_NODE, ST_WC_MACHINE, ST_WC_MAX };

/* The groups whose summed nr_running is compared for imbalance. */
enum st_rq { ST_RQ_LLC, ST_RQ_NODE, ST_RQ_MAX };

/*
 * What a trace lacks, each bit with the rows it takes away (st_lack_rows()):
 * an event the guest sent no readable format for, or a field of it the
 * metrics read that the format does not have as an integer.
 */
enum st_lack {
	ST_LACK_SWITCH,     /* sched_switch, or its prev_pid / next_pid */
	ST_LACK_STATE,      /* sched_switch's prev_state, or its encoding */
	ST_LACK_WAKING,     /* sched_waking, or its pid / target_cpu */
	ST_LACK_MIGRATE,    /* sched_migrate_task, or its pid / orig_cpu / dest_cpu */
	ST_LACK_WAKEUP_NEW, /* sched_wakeup_new, or its pid / target_cpu */
	ST_LACK_MAX,
};
/* "preempt_*, own_preempt_*, wc_* and rq_imbalance_* left out": what bit l costs. */
const char *st_lack_rows(enum st_lack l);

/* The default grace period of a work-conservation episode. */
#define ST_WC_GRACE_DEFAULT_NS 1000000ull

struct st_metrics {
	uint64_t events;
	int from_wakeup;              /* placed by sched_wakeup (a trace that has it), else
				       * by sched_waking + sched_migrate_task */
	uint64_t wakeups;             /* sched_waking (sched_wakeup in a trace that has
				       * it), the placement denominator */
	uint64_t wakeups_new;
	uint64_t place[ST_PLACE_MAX];
	uint64_t migrations[ST_LVL_MAX];
	uint64_t migr_cause[ST_CAUSE_MAX][ST_LVL_MAX];
	uint64_t lost;                /* events the buffers dropped or overwrote */

	/* wakeups whose chosen CPU's current task was known at the
	 * decision, and of those the ones that found it running the idle task */
	uint64_t idle_known, idle_found;

	/* sched_waking (sched_wakeup in a trace that has it; sched_wakeup_new)
	 * to the switch that runs the task */
	uint64_t lat_samples;
	double lat_p50_us, lat_p99_us;

	/* runqueue model: 0 when sched_switch had no prev_state */
	int rq_tracked;
	unsigned cpus_known;          /* CPUs that switched at least once */
	uint64_t span_ns;             /* first to last event */
	uint64_t wc_ns[ST_WC_MAX];    /* idle-while-waiting time past the grace */
	uint64_t wc_episodes[ST_WC_MAX];
	int rq_groups[ST_RQ_MAX];     /* groups at that level (a spread needs 2) */
	double rq_imbalance[ST_RQ_MAX]; /* time-weighted max - min of summed nr_running */

	/* switches whose previous task (not the idle task) stayed runnable:
	 * prev_state R or R+, what the kernel counts in nivcsw */
	uint64_t preempt;
	/* the same for the case's own tasks (st_derive_own()), and their
	 * wakeups (as wakeups counts them); own_known 0 without a task list */
	int own_known;
	uint64_t own_tasks, own_preempt, own_wakeups;

	/* in: 1 << enum st_lack bits; st_metrics_to_json() leaves their rows out */
	unsigned lacks;
};

const char *st_place_name(enum st_place p);
/* The level two different CPUs share (ST_LVL_UNKNOWN outside the topology). */
enum st_level st_level_of(const struct st_topo *t, int a, int b);
const char *st_level_name(enum st_level l);

/*
 * The wakeups' choices from sched_waking and sched_migrate_task alone.
 * ev holds n elements of stride bytes, each beginning with a struct
 * st_event, by time, each CPU's events in the order it recorded them.
 * try_to_wake_up() records sched_waking on the waker's CPU, and when
 * select_task_rq() picks a CPU other than the task's, set_task_cpu()
 * records sched_migrate_task in the same section with interrupts off
 * (p->pi_lock): that CPU's very next event.  Returns link (malloc'ed, n
 * entries): for a sched_waking the index of that migrate, for the migrate
 * the index of its waking, SIZE_MAX for every other event and a waking
 * that kept the previous CPU.  NULL when memory runs out.
 */
size_t *st_link_wakings(const void *ev, size_t n, size_t stride);
/* The CPU the sched_waking at index i chose: its migrate's dest_cpu when
 * link (st_link_wakings()) pairs one, else the previous CPU. */
int st_waking_cpu(const void *ev, size_t stride, const size_t *link, size_t i);
/* Whether the trace has sched_wakeup records: then the wakeups are placed
 * by them, as the runner recorded them before it left that event out. */
int st_has_wakeup(const void *ev, size_t n, size_t stride);

/*
 * Sorts ev by time (stable: per-CPU order kept on ties) and counts.
 * A trace without sched_wakeup (what the runner records): each
 * sched_waking is a wakeup, placed on its migrate's dest_cpu
 * (st_link_wakings()) or else on the previous CPU; idle found, the
 * runqueue and the wake-to-run clock start at the waking, except for a
 * task still running on another CPU, that the waker found already
 * dequeued: that wakeup takes effect when the task's CPU switches it out.
 * A trace with sched_wakeup (recorded before the runner left it out) is
 * derived as it always was: a wakeup is matched to the latest
 * sched_waking of the same pid before it: its recording CPU is the
 * waker's, its target_cpu the previous one.
 * A work-conservation episode counts only past grace_ns, and only that
 * part of it.  m->lost is left as it was (the caller adds the buffers'
 * counts).  Returns -1 only when memory runs out.
 */
int st_derive(struct st_event *ev, size_t n, const struct st_topo *t, uint64_t grace_ns,
	      struct st_metrics *m);

/*
 * Counts the preemptions and wakeups of the case's own tasks (tids, nr
 * of them, any order) into m->own_*, over events st_derive() sorted;
 * m->from_wakeup says which event is a wakeup.  -1 only when memory runs out.
 */
int st_derive_own(const struct st_event *ev, size_t n, const int *tids, size_t nr,
		  struct st_metrics *m);

/*
 * Adds the run's metrics ({value, unit, better}) to a run result's
 * "metrics" object: wake_<place>_pct (shares summing to 100 when there
 * were wakeups), wakeups, idle_found_pct, wake_lat_p50_us/p99_us,
 * migr_<level>, migr_wakeup_<level>, migr_balance_<level>,
 * wc_<llc|node|machine>_pct and _episodes, rq_imbalance_<llc|node>,
 * preemptions, preempt_per_wakeup, preempt_per_s and the same three
 * own_ rows, trace_lost_events.  A row whose denominator is empty is left
 * out, and so is every row of a bit in m->lacks.  The preemption rows
 * have no better direction ("better": "none").
 */
void st_metrics_to_json(const struct st_metrics *m, struct json_object *metrics);

#endif
