/* schedknob.h - the runner's side of lab run --sched-knob: write the knobs
 * named on the kernel command line to debugfs before any case runs. */
#ifndef RUNNER_SCHEDKNOB_H
#define RUNNER_SCHEDKNOB_H

#include <stddef.h>

#include "out.h"

/*
 * Writes every NAME=VALUE of lab.sched_knob= to /sys/kernel/debug/sched/NAME
 * and reads it back.  0 when the command line asks for nothing or every
 * knob holds its value; -1 when one could not be set (each refusal is on
 * stderr and in a LOG record): the plan must not run.  The values in
 * effect afterwards travel in the topology snapshot.
 */
int sched_knob_apply(struct out *o);

/* The same for the list [val, val + len) from elsewhere (a warm run's
 * plan header), which refusals name as from. */
int sched_knob_apply_list(struct out *o, const char *val, size_t len, const char *from);

#endif
