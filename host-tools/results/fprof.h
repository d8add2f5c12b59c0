/* fprof.h - the runner's function-profile record (guest/runner/fprof.h):
 * trace_stat/function<cpu> lines summed per function, the per-unit cost. */
#ifndef LAB_FPROF_H
#define LAB_FPROF_H

#include <stddef.h>

#include "common/plan.h"

struct json_object;

#define FPROF_MAX_CPUS 8192

struct fprof_func {
	char name[PLAN_MAX_SYMBOL];
	int ok;                  /* the filter took it */
	char reason[128];        /* why not, when !ok */
	unsigned long long hits; /* summed over CPUs */
	double time_us;          /* total time, summed over CPUs */
	double sumsq_us2;        /* sum of squared call times, from each CPU's s^2 */
};

/*
 * One run's profile.  absent: no profile was taken, reason says why.
 * timed: the kernel printed Time/Avg/s^2 (CONFIG_FUNCTION_GRAPH_TRACER);
 * without it only hits are known.
 */
struct fprof_result {
	int absent;
	char reason[256];
	int timed;
	unsigned nr_cpus;
	struct fprof_func funcs[PLAN_MAX_PROFILE];
	unsigned nr_funcs;
	char per[PLAN_MAX_SYMBOL]; /* "vmstat:KEY" or "" */
	int per_found;
	unsigned long long per_delta;
};

/*
 * Parses the record's text (after its "<case>\trun<N>\tfprof" line) into r.
 * -1 with "line N: problem" in err when it is not such a record.
 */
int fprof_parse(const char *text, size_t len, struct fprof_result *r, char *err, size_t errlen);

/* A run's profile as JSON: {"functions": {name: {hits, time_us, avg_us,
 * stddev_us, us_per_unit}}, "missing": {name: reason}, "per", "per_delta",
 * "cpus"} or {"absent": reason}.  The caller owns it. */
struct json_object *fprof_run_json(const struct fprof_result *r);

/*
 * The profiles of a case's measured runs (an array of fprof_run_json
 * objects) folded into one: per function the mean hits and time per run,
 * the time per call and per unit over all runs, and the per-run values.
 * NULL when no run has a profile object.  The caller owns it.
 */
struct json_object *fprof_case_json(struct json_object *runs);

#endif
