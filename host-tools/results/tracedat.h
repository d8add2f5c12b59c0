/* tracedat.h - a kept run's raw pages and format files as a trace-cmd
 * version 6 trace.dat (trace-cmd.dat.v6(5)), for trace-cmd report and KernelShark. */
#ifndef LAB_TRACEDAT_H
#define LAB_TRACEDAT_H

#include <stdint.h>

#include "lib/util.h"
#include "results/schedtrace.h"

struct trace_run;

/*
 * The file's head: everything before the first CPU's pages, padded to the
 * page size, with the flyrecord offsets of nr_cpus CPUs whose pages are
 * sizes[i] bytes, laid out one after the other behind it.  cmdlines is
 * "pid comm\n" lines (saved_cmdlines), stats[i] a CPU's stats text or NULL.
 * -1 with err when the formats lack a header.
 */
int tracedat_head(const struct schedtrace_formats *f, unsigned nr_cpus, const uint64_t *sizes,
		  const char *cmdlines, const struct strbuf *stats, struct strbuf *out,
		  struct strbuf *err);

/* "pid comm\n" of every task named in the run's events, by pid. */
void tracedat_cmdlines(const struct trace_run *t, struct strbuf *out);

/* Writes the run as a trace.dat at path (atomically); -1 with err. */
int tracedat_write(const struct trace_run *t, const char *path, struct strbuf *err);

#endif
