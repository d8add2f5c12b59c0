/* invariant.h - invariants of a run (affinity respected, no lost work, CPUs
 * online and sysctls restored at the end, spread, NUMA convergence, latency bound). */
#ifndef RUNNER_INVARIANT_H
#define RUNNER_INVARIANT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fault-json.h"
#include "options.h"
#include "fault-tasks.h"
#include "common/plan.h"
#include "workload.h"

/*
 * An invariant is sampled while the run goes (sample(), at its `interval`,
 * by the fault driver) and judged once at the end (finish()), from the
 * samples and the run's outcome.  Evaluation is pure: everything it looks
 * at arrives in these structures, so it is tested on made-up samples.
 */

#define INV_MAX_NODES 64
#define INV_MAX_EVIDENCE 8

/* The machine as the run found it. */
struct inv_topo {
	cpu_set_t online;             /* at the run's start */
	cpu_set_t boot_offline;       /* present but offline when the runner began:
				       * nobody expects those online */
	short llc_of[CPU_SETSIZE];    /* dense LLC index, -1 unknown */
	short node_of[CPU_SETSIZE];   /* node id, -1 unknown */
	unsigned nr_llcs, nr_nodes;   /* among the online CPUs */
};

/* One workload process's memory by node, and where its threads are. */
struct inv_mm {
	pid_t tgid;
	uint64_t kb[INV_MAX_NODES];        /* anonymous memory on each node */
	unsigned threads[INV_MAX_NODES];   /* its threads on each node now */
};

struct inv_sample {
	uint64_t t_ms;                     /* since the run started */
	const struct task_state *tasks;
	unsigned nr_tasks;
	const struct inv_mm *mms;          /* INV_NEED_NUMA only */
	unsigned nr_mms;
};

/* A file a fault may change, before the run and after every fault stopped. */
struct inv_knob {
	char path[160];
	char before[256], after[256];
	int before_ok, after_ok;
};

/* How the run ended, as the runner and the driver saw it. */
struct run_outcome {
	const char *status;                /* ok, failed, timeout, crashed */
	const char *error;                 /* "" when none */
	const struct wl_metric *metrics;
	unsigned nr_metrics;
	unsigned leftover;                 /* workload tasks alive after it returned */
	const char *leftover_desc;         /* "tid 12 (hackbench), ..." */
	uint64_t end_ms;                   /* the run's length */
	cpu_set_t online_after;            /* after every fault stopped */
	cpu_set_t present_after;           /* the CPUs that exist then; empty: unknown */
	const struct inv_knob *knobs;
	unsigned nr_knobs;
};

struct inv_result {
	int ok;
	char summary[320];                 /* one line */
	struct fj evidence;                /* a JSON array, at most INV_MAX_EVIDENCE items */
	unsigned nr_evidence;
};

enum inv_need {
	INV_NEED_TASKS = 1u << 0,     /* stat of every workload task */
	INV_NEED_ALLOWED = 1u << 1,   /* and status (allowed CPUs, tgid) */
	INV_NEED_NUMA = 1u << 2,      /* numa_maps of every workload process */
	INV_NEED_KNOBS = 1u << 3,     /* the knobs faults change, before and after */
};

struct inv_ops;

struct inv_ctx {
	const struct plan_invariant *pi;
	const struct inv_ops *ops;
	struct wl_args args;
	const struct inv_topo *topo;
	void *state;                  /* init() .. release() */
	uint64_t next_ms;             /* the driver's schedule */
};

struct inv_ops {
	const char *name;
	const char *description;
	const struct wl_option *options;   /* an "interval" option makes it sampled */
	unsigned needs;               /* enum inv_need */
	int (*check)(const struct inv_ctx *ic, char *err, size_t len);
	/* 0 with why filled when it cannot be judged on this machine (SKIP) */
	int (*supported)(const struct inv_ctx *ic, char *why, size_t len);
	int (*init)(struct inv_ctx *ic);
	void (*sample)(struct inv_ctx *ic, const struct inv_sample *s);
	void (*finish)(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r);
	void (*release)(struct inv_ctx *ic);
};

#define INVARIANT_LIST(X)     \
	X(affinity_respected) \
	X(no_lost_work)       \
	X(cpus_online_at_end) \
	X(sysctls_restored)   \
	X(spread)             \
	X(numa_convergence)   \
	X(latency_bound)

#define X(n) extern const struct inv_ops invariant_##n;
INVARIANT_LIST(X)
#undef X

extern const struct inv_ops *const invariants[];
extern const size_t nr_invariants;
const struct inv_ops *invariant_find(const char *kind);
/* `runner --list-invariants`: "<name>\t<description>" per kind, each
 * option indented under it. */
void invariant_list(void);

/* Kind, options and check() of one invariant of the plan; -1 with
 * "<file>:<line>: <problem>" in err.  Does not call init(). */
int invariant_prepare(struct inv_ctx *ic, const struct plan_invariant *pi,
		      const struct inv_topo *topo, char *err, size_t errlen);
/* Its sampling interval in ms, 0 when it is judged at the end only. */
unsigned invariant_interval_ms(const struct inv_ctx *ic);
/* init(), the samples, finish(), release() in one: r is filled. */
int invariant_init(struct inv_ctx *ic);
void invariant_finish(struct inv_ctx *ic, const struct run_outcome *o, struct inv_result *r);
void inv_result_release(struct inv_result *r);

/* The machine's LLCs and nodes from sysfs. */
int inv_topo_read(struct inv_topo *t);

/* Adds the anonymous memory of one numa_maps text per node into kb (KiB,
 * weighted by kernelpagesize_kB).  Returns the lines used. */
int numa_maps_kb(const char *text, uint64_t *kb, unsigned max_nodes);

#endif
