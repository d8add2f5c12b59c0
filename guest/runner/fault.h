/* fault.h - what every fault kind of the runner provides (one file each
 * under guest/runner/faults/, one const struct fault_ops each) and what they share. */
#ifndef RUNNER_FAULT_H
#define RUNNER_FAULT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "options.h"
#include "common/plan.h"

/*
 * A fault's life in one measured run, driven by the fault driver
 * (fault-driver.c), a process of its own next to the workload:
 *
 *   start()           save what stop() must put back
 *   step(i)           action i, at start + i * period (i = 0, 1, ...);
 *                     when the previous action is still in effect (hold
 *                     0), step() replaces it
 *   undo()            end the action in effect, `hold` after it began
 *   stop()            at the end of the run: end any action, restore
 *                     everything start() saved, release resources
 *
 * Each action is reported with fault_event(); errors of an action are
 * events too (the run goes on), a failed restore sets restore_failed.
 */

enum fault_target_type {
	FAULT_TARGET_DEFAULT,
	FAULT_TARGET_CPUS,      /* a CPU list */
	FAULT_TARGET_RANDOM,    /* CPUs drawn at each action */
	FAULT_TARGET_WORKLOAD,  /* the run's workload tasks or cgroup */
	FAULT_TARGET_NONE,      /* the kind picks its object from its options */
};
#define FAULT_TARGET_BIT(t) (1u << (t))

struct fault_env;

struct fault_ctx {
	const struct plan_fault *pf;
	const struct fault_ops *ops;
	struct wl_args args;
	enum fault_target_type target;  /* never DEFAULT once prepared */
	cpu_set_t target_cpus;          /* FAULT_TARGET_CPUS */
	struct fault_env *env;          /* NULL in --check-plan */
	void *priv;                     /* the kind's state between start and stop */
	uint64_t rng;
	int active;                     /* an action is in effect */
	uint64_t mark_ns;               /* when the current operation began */
	unsigned actions, failed;       /* steps done, and those that failed */
	unsigned errors;                /* events with ok false */
	int start_failed, restore_failed;
	char first_error[200];
};

/* What the driver knows about the run, shared by every fault. */
struct fault_env {
	const char *cgroup;      /* the run's cgroup directory, "" without one */
	volatile pid_t *pgid;    /* the workload's process group, once it started */
	cpu_set_t online;        /* CPUs online when the run started */
	cpu_set_t runner_allowed; /* the runner's own affinity (what workloads inherit) */
	uint64_t t0_ns;          /* the run's start (CLOCK_MONOTONIC) */
	uint64_t deadline_ns;    /* nothing a fault starts outlives this */
};

struct fault_ops {
	const char *name;
	const char *description;
	const struct wl_option *options;     /* terminated by { .name = NULL } */
	unsigned targets;               /* FAULT_TARGET_BIT()s the kind accepts */
	enum fault_target_type default_target;
	const char *controllers;        /* cgroup v2 controllers the run's cgroup needs */
	/* 1: acts on the run's own tasks only, nothing of the system to put
	 * back (lab bare runs it without --allow-faults).  0, the default a
	 * new kind gets, means it changes the host. */
	int run_only;
	/* Cross-checks of options and timing beyond the table; err one line. */
	int (*check)(const struct fault_ctx *fc, char *err, size_t len);
	/* 0 with why filled when this system cannot run the fault (SKIP). */
	int (*supported)(const struct fault_ctx *fc, char *why, size_t len);
	/* Files (sysfs, procfs, debugfs, cgroup) the fault writes, for the
	 * sysctls_restored invariant; add() each path. */
	void (*knobs)(const struct fault_ctx *fc, void (*add)(void *ctx, const char *path),
		      void *ctx);
	int (*start)(struct fault_ctx *fc);
	int (*step)(struct fault_ctx *fc, unsigned i);
	int (*undo)(struct fault_ctx *fc);
	int (*stop)(struct fault_ctx *fc);
};

/* The registry (fault.c), generated from FAULT_LIST. */
#define FAULT_LIST(X)    \
	X(cpu_hotplug)    \
	X(affinity_storm) \
	X(cgroup_churn)   \
	X(rt_hog)         \
	X(sysctl_flip)    \
	X(fail_inject)    \
	X(mem_pressure)

#define X(n) extern const struct fault_ops fault_##n;
FAULT_LIST(X)
#undef X

extern const struct fault_ops *const faults[];
extern const size_t nr_faults;
const struct fault_ops *fault_find(const char *kind);

/* `runner --list-faults`: one line per kind, "<name>\t<changes-host|
 * run-only>\t<description>", each option under it indented; lab bare
 * and the tests read it rather than keep lists of their own. */
void fault_list(void);

/*
 * Prepares fc for a guest fault of the plan: kind, options, target,
 * the kind's check().  -1 with "<file>:<line>: <problem>" in err.
 */
int fault_prepare(struct fault_ctx *fc, const struct plan_fault *pf, char *err, size_t errlen);

/* Sends a "fault" event: action ("offline", "setaffinity", ...), target
 * ("cpu3", "12 tasks", "cpu.max"), an optional detail (printf) and, when
 * !ok, the error, which also counts against the fault.  The event also
 * says how long the action took (since the operation or the previous
 * event of it began): a hotplug or cpuset write can take seconds, and
 * the event is sent when it is over.  fault-driver.c. */
void fault_event(struct fault_ctx *fc, const char *action, const char *target, int ok,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- helpers for kinds ---- */

/* xorshift64*: reproducible within a run, different per fault and run. */
uint64_t fault_rand(struct fault_ctx *fc);
/* A uniformly drawn number in [0, n). */
unsigned fault_rand_below(struct fault_ctx *fc, unsigned n);
/* k CPUs drawn from pool without repetition (all of it when k >= its size). */
void fault_pick_cpus(struct fault_ctx *fc, const cpu_set_t *pool, unsigned k, cpu_set_t *out);
/* The CPUs of the fault's target for this action: the list, or k drawn
 * from pool (random). */
void fault_target_cpus(struct fault_ctx *fc, const cpu_set_t *pool, unsigned k, cpu_set_t *out);

/* Writes s to path; -1 with errno. */
int fault_write(const char *path, const char *s);
/* Reads a small file into buf, trailing newlines cut; -1 with errno. */
int fault_read(const char *path, char *buf, size_t len);
/* The workload's thread ids / process ids now (see fault-tasks.h). */
int fault_tids(const struct fault_ctx *fc, pid_t *tids, int max);

/* The CPUs online now (/sys/devices/system/cpu/online); -1 if unreadable. */
int fault_online_now(cpu_set_t *set);

/* Milliseconds since the run started. */
uint64_t fault_now_ms(const struct fault_ctx *fc);

#endif
