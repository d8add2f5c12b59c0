/* tracekeep-run.h - lab run's own keep of traced runs: a traced case keeps
 * its failed, faulted, outlying, slowest and fastest runs within
 * trace_keep_mb (or its default), as `lab trace --keep` does after the fact. */
#ifndef LAB_RUN_TRACEKEEP_RUN_H
#define LAB_RUN_TRACEKEEP_RUN_H

#include <stddef.h>

#include "common/plan.h"
#include "lib/util.h"
#include "report/htmlreport.h"

/*
 * Prunes the traces of run_dir's cases that traced (schedtrace), each
 * within its plan_trace_keep_mb() (the cases of one matrix share a trace directory only when their ids do,
 * which they do not).  One summary line per pruned case is appended to out,
 * "trace: CASE: kept ...".  -1 with err when a case could not be pruned;
 * the others still are.
 */
int run_keep_traces(const char *run_dir, const struct plan *p, struct strbuf *out,
		    struct strbuf *err);
/* The same, printing the summary lines on stdout and a failure as a
 * warning: what lab run and lab bare do once the report is built. */
void run_keep_traces_print(const char *run_dir, const struct plan *p);

#endif
