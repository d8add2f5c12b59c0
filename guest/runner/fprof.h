/* fprof.h - the ftrace function profiler around a measured run: filter the
 * named functions, enable, disable, send trace_stat/function* as one record. */
#ifndef RUNNER_FPROF_H
#define RUNNER_FPROF_H

#include "out.h"
#include "common/plan.h"

/*
 * The record (WIRE_COUNTERS, source "fprof", phase "run<N>"), text after
 * the first line; host-tools/results/fprof.c parses it:
 *
 *   fprof	1
 *   absent	<reason>			no profile was taken (nothing follows)
 *   func	<name>	ok			in the filter
 *   func	<name>	missing	<reason>	not traceable here
 *   per	vmstat:<key>	<before>	<after>	the denominator around the window
 *   per	vmstat:<key>	missing		no such key in /proc/vmstat
 *   cpu	<N>				then trace_stat/function<N>: its header
 *					and the lines of the profiled functions
 *
 * The runner only selects lines; the host sums them, so the raw numbers
 * stay in results/.
 */
#define FPROF_FORMAT 1

struct fprof {
	const struct plan_profile *pr;
	char dir[64];          /* the tracefs directory */
	int enabled;           /* function_profile_enabled is 1 */
	unsigned ok;           /* bit i: pr->funcs[i] is in the filter */
	char *saved_filter;    /* set_ftrace_filter before, malloc'ed */
	int per_found;
	unsigned long long per_before;
	char absent[256];      /* why there is no profile; "" when there is */
	char missing[PLAN_MAX_PROFILE][128];
};

/*
 * Sets the filter and starts the profiler.  Never fails the run: what
 * cannot be done ends in f->absent or f->missing and in the record.
 */
void fprof_start(struct fprof *f, const struct plan_profile *pr);
/* Stops the profiler, restores the filter and sends the record; -1 only
 * when the record cannot be written. */
int fprof_stop(struct fprof *f, struct out *o, const char *case_id, unsigned run);

#endif
