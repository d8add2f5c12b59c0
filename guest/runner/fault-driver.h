/* fault-driver.h - the fault driver: a process next to each measured run
 * that times the case's faults, samples its invariants and reports both. */
#ifndef RUNNER_FAULT_DRIVER_H
#define RUNNER_FAULT_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "out.h"
#include "common/plan.h"
#include "workload.h"

/*
 * The runner, per measured run of a case with faults or invariants:
 *
 *   fault_driver_start()   forks the driver; it saves state and starts
 *                          its clock at t0, the run's start
 *   run the workload       publishing its process group through
 *                          fault_driver_pgid()
 *   fault_driver_stop()    hands over the run's outcome; the driver ends
 *                          every fault, restores, judges the invariants,
 *                          reports, and exits; the runner waits (bounded)
 *
 * The driver writes its WIRE_EVENT records to the runner's output itself
 * while the runner sleeps; both draw sequence numbers from one counter in
 * shared memory, so the stream stays gapless.
 */
struct driver_shared;

struct fault_driver {
	pid_t pid;             /* 0: not running */
	int ctl;               /* a byte written here says "stop" */
	struct driver_shared *sh;
};
#define FAULT_DRIVER_INIT { 0, -1, NULL }

/* Whether the case needs a driver (a guest fault or any invariant). */
int fault_driver_wanted(const struct plan_case *c);

/* Options and kinds of every fault and invariant of the case, with the
 * runner's own tables; "<file>:<line>: <problem>" in err.  -1 if bad. */
int fault_case_check(const struct plan_case *c, char *err, size_t errlen);
/* 0 with why filled when a fault or invariant of the case cannot run
 * on this machine (the case is then SKIP). */
int fault_case_supported(const struct plan_case *c, char *why, size_t len);
/* The cgroup v2 controllers the case's faults need ("" for none). */
void fault_case_controllers(const struct plan_case *c, char *buf, size_t len);

/* -1 with err when the driver cannot be started (the run then fails). */
int fault_driver_start(struct fault_driver *d, struct out *o, const struct plan_case *c,
		       unsigned run, const char *cgroup, uint64_t t0_ns, uint64_t deadline_ns,
		       char *err, size_t errlen);
/* Where the runner puts the workload's process group for the driver. */
volatile pid_t *fault_driver_pgid(struct fault_driver *d);

/* How the run ended, for the invariants. */
struct fault_run_end {
	const char *status;            /* ok, failed, timeout, crashed */
	const char *error;
	const struct wl_metric *metrics;
	unsigned nr_metrics;
	unsigned leftover;
	const char *leftover_desc;
};

/* Stops the driver and waits for its report; o->seq follows its records.
 * A driver that does not finish in time is killed, and -1 returned. */
int fault_driver_stop(struct fault_driver *d, struct out *o, const struct fault_run_end *end);

#endif
