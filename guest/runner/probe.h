/* probe.h - the runner's topology probe: what the guest kernel believes
 * about CPUs, caches, NUMA nodes and scheduling domains, as records. */
#ifndef RUNNER_PROBE_H
#define RUNNER_PROBE_H

#include "out.h"

/* Sends HELLO and the SYSFS snapshot; -1 after a failed write. */
int probe_snapshot(struct out *o);
/* The SYSFS records of the scheduler's features, knobs and preemption
 * mode as they are now (after a restore set them); -1 after a failed
 * write.  The host takes the last record of a path. */
int probe_sched_state(struct out *o);
/* probe_snapshot() and then END; -1 after a failed write. */
int probe_topology(struct out *o);

#endif
