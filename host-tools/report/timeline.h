/* timeline.h - a kept run's sched trace for people: a per-CPU timeline page
 * (SVG, no script) and Chrome trace event JSON that Perfetto opens. */
#ifndef LAB_TIMELINE_H
#define LAB_TIMELINE_H

#include "lib/util.h"
#include "report/htmlreport.h"
#include "results/tracerun.h"

#define TIMELINE_WIDTH 1600   /* px of the time axis */
#define TIMELINE_ARROWS 20    /* the slowest wakeups drawn as arrows */

/* The role a task plays, from its name: "hackbench-12" and "hackbench-3" are
 * one role; kernel threads are "kernel".  Into buf (at least TR_COMM + 8). */
void timeline_role(const char *comm, char *buf, size_t len);

/*
 * Appends the SVG of t to out: one row per CPU, grouped by node and LLC
 * (the run's verified topology; CPU order when it has none), slices
 * coloured by role, the time below a pixel aggregated per pixel, arrows
 * for the slowest wakeups, marks (may be NULL) for the run's fault
 * actions and shaded stretches where no CPU recorded anything.
 */
void timeline_svg(const struct trace_run *t, const struct fault_mark *const *marks, size_t nr_marks,
		  struct strbuf *out);

/* A whole HTML page: title, the numbers of the run, the SVG, the legend. */
void timeline_html(const struct trace_run *t, const char *title,
		   const struct fault_mark *const *marks, size_t nr_marks, struct strbuf *out);

/*
 * Chrome trace event format (JSON object format): a process per NUMA node,
 * a thread per CPU named with its LLC, "X" slices for the tasks, "i"
 * instant events for wakeups on the target CPU, "M" metadata for the
 * names and order.  The caller puts the result.
 */
struct json_object *timeline_trace_json(const struct trace_run *t);

/*
 * For lab compare's page: the kept traces of run_dir (labelled label) as a
 * list, a case per item with its runs, kept.json's reasons and file://
 * links to the files `lab trace` wrote.  Appends nothing and returns 0 when
 * the run kept no trace.
 */
size_t timeline_links_html(const char *run_dir, const char *label, struct strbuf *out);

#endif
