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
/* The same with links relative to page_dir (resolved, absolute: the
 * directory of the page), so that the page and the results directories
 * moved together keep working; page_dir NULL: file:// links. */
size_t timeline_links_html_rel(const char *run_dir, const char *label, const char *page_dir,
			       struct strbuf *out);

/* The path of to relative to the directory from_dir (both absolute and
 * resolved: no "." or ".." components, no symlinks left); malloc'ed. */
char *timeline_rel_path(const char *from_dir, const char *to);

/* The fault actions of fm that belong to case_dir's run (not the end
 * records), at most max, into out. */
size_t timeline_marks_of(const struct fault_marks *fm, const char *case_dir, unsigned run,
			 const struct fault_mark **out, size_t max);
/* Whether case_dir's run has a fault action in ctx (a struct fault_marks):
 * the tk_faulted_fn of the trace keep. */
int timeline_run_faulted(void *ctx, const char *case_dir, unsigned run);

/*
 * Writes t's trace.dat, trace.json and timeline.html into t->dir, each
 * path written pushed to written (may be NULL).  Returns how many could
 * not be written, each said in err ("; " between them).
 */
int timeline_write_files(const struct trace_run *t, const char *title,
			 const struct fault_mark *const *marks, size_t nr_marks,
			 struct strvec *written, struct strbuf *err);

/*
 * Draws the files of every kept run of run_dir that has no timeline.html
 * yet (fm: the run directory's fault marks, may be NULL), adding their
 * count to *drawn (may be NULL).  0 when all are there, -1 with what
 * failed in err; a run directory without traces is 0.
 */
int timeline_draw_missing(const char *run_dir, const struct fault_marks *fm, size_t *drawn,
			  struct strbuf *err);

/*
 * For a row of lab compare's table: a link to the timeline of each run of
 * case_id that run_dir kept and has a timeline.html for, relative to
 * page_dir (file:// when NULL), coloured, titled with side, the run and
 * kept.json's reason; at most TIMELINE_ROW_LINKS, then "+N".  Returns how
 * many timelines there are (0: nothing appended).
 */
#define TIMELINE_ROW_LINKS 6
size_t timeline_row_links(const char *run_dir, const char *case_id, const char *page_dir,
			  const char *side, const char *colour, struct strbuf *out);

#endif
