/* schedfeat.h - the runner's side of lab run --sched-feat: write the features
 * named on the kernel command line to debugfs before any case runs. */
#ifndef RUNNER_SCHEDFEAT_H
#define RUNNER_SCHEDFEAT_H

#include <stddef.h>

#include "out.h"

/*
 * Writes every token of lab.sched_feat= (NAME or NO_NAME) to
 * /sys/kernel/debug/sched/features.  0 when the command line asks for
 * nothing or every write was taken; -1 when one was refused (each
 * refusal is on stderr and in a LOG record): the plan must not run.
 * The features in effect afterwards travel in the topology snapshot.
 */
int sched_feat_apply(struct out *o);

/* The same for the list [val, val + len) from elsewhere (a warm run's
 * plan header), which refusals name as from. */
int sched_feat_apply_list(struct out *o, const char *val, size_t len, const char *from);

#endif
