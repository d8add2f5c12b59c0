/* plan-run.h - executing a compiled plan (common/plan.h) and checking one
 * on the host before any guest boots. */
#ifndef RUNNER_PLAN_RUN_H
#define RUNNER_PLAN_RUN_H

#include <stddef.h>

#include "out.h"

/* Runs every case of the plan at path, sending HELLO and the topology
 * snapshot first when with_snapshot, results as they come, END last. */
int run_plan(struct out *o, const char *path, int with_snapshot);

/* A plan received as text by a parked runner (park.h), which already set
 * the sched features and sent the snapshot: its cases, then END. */
int run_plan_text(struct out *o, const char *text, size_t len);

/* Validates workloads and options of every case, against a kernel of
 * release when not NULL (the one lab run will boot: options a kernel that
 * old ignores are refused); prints one line "<file>:<line>: <problem>"
 * and returns 2 on the first bad one, else 0. */
int check_plan(const char *path, const char *release);

#endif
