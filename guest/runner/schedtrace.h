/* schedtrace.h - sched tracepoints around each measured run: tracefs set up,
 * the per-CPU raw ring-buffer pages shipped as WIRE_TRACE records. */
#ifndef RUNNER_SCHEDTRACE_H
#define RUNNER_SCHEDTRACE_H

#include "out.h"
#include "workload.h"

/* Per-CPU buffer when the scenario names none. */
#define SCHEDTRACE_DEFAULT_KB 4096u

struct schedtrace {
	char dir[64];          /* tracefs; "" when tracing is absent */
	char absent[200];      /* why, when it is */
	unsigned buffer_kb;
	int started;
	/* what we changed, put back by schedtrace_release() */
	char saved_on[8], saved_kb[32], saved_clock[32], saved_record_cmd[4];
	char clock[32];        /* the clock of the shipped pages */
	char saved_enable[8][4];
};

/*
 * Finds (or mounts) tracefs, sends the format files once per boot and sets
 * the events and buffer size.  When tracing is absent, a WIRE_TRACE
 * "absent" record with the reason is sent instead; 0 either way, -1 only
 * when the output failed.
 */
int schedtrace_setup(struct schedtrace *t, struct out *o, const char *case_id, unsigned kb);
/* Clears the buffers and turns tracing on: the run's start. */
void schedtrace_start(struct schedtrace *t);
/* Turns tracing off and ships every CPU's pages and stats for run `run`,
 * and the tids of the run's own tasks when tids is not NULL. */
int schedtrace_stop(struct schedtrace *t, struct out *o, const char *case_id, unsigned run,
		    const struct wl_task_tids *tids);
/* Puts back the events, buffer size and tracing_on found at setup; -1
 * when one of them could not be written back (the journal still has it). */
int schedtrace_release(struct schedtrace *t);
/* A guest booted with the events on (lab.schedtrace=boot): tracing_on
 * off and the boot's events cleared before the first case.  Nothing on
 * bare metal, whose command line is never the lab's. */
void schedtrace_boot_quiet(void);

#endif
