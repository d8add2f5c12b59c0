/* htmlreport.h - `lab compare --html`: one self-contained HTML page with the
 * comparison's tables, summary and gnuplot SVG plots (no script, no network). */
#ifndef LAB_HTMLREPORT_H
#define LAB_HTMLREPORT_H

#include "report/compare.h"
#include "lib/util.h"

/* One fault action of a case, from cases.json ("timeline") or, for faults
 * the host injects, host-faults.jsonl. */
struct fault_mark {
	char *case_id;
	char *what;		/* "cpu_hotplug offline" */
	unsigned run;		/* measured run index */
	double t;		/* guest: seconds into the run; host: seconds into the session */
	double rel;		/* seconds since the run started (guest, and host
				 * actions with t_run_s), else since the run's first
				 * host action */
	int rel_known;		/* rel came with the record, host_rel leaves it */
	int ok;
	int host;
	int end;		/* not an action: when the fault's run ended (guest only) */
};

#define FAULT_MARKS_MAX 100000	/* per run directory; the rest is counted */
#define FAULT_RUN_MAX 100000	/* the largest run index accepted */

struct fault_marks {
	struct fault_mark *v;
	size_t nr, alloc;
	size_t dropped;
};
#define FAULT_MARKS_INIT { NULL, 0, 0, 0 }

/* Parsers of the two sources, bounded, for untrusted bytes (fuzzed).  They
 * append to fm; on error one line in err and -1 (fm keeps what it had). */
int fault_marks_parse_cases(struct fault_marks *fm, const char *text, size_t len,
			    struct strbuf *err);
int fault_marks_parse_host(struct fault_marks *fm, const char *text, size_t len,
			   struct strbuf *err);
/* Both files of a run directory; a missing host-faults.jsonl is no error.
 * Sets every mark's rel. */
int fault_marks_load(struct fault_marks *fm, const char *dir, struct strbuf *err);
void fault_marks_release(struct fault_marks *fm);

struct html_opts {
	const char *gnuplot;	/* NULL: $LAB_GNUPLOT, else "gnuplot" */
	int plot_timeout_ms;	/* 0: PLOT_TIMEOUT_MS */
	const char *no_plots;	/* when set, no plot is drawn and this says why */
	const char *page_dir;	/* the page's directory, absolute and resolved:
				 * links to the runs' traces are relative to it;
				 * NULL: file:// links */
	int draw_timelines;	/* write the timeline (and trace.dat, trace.json)
				 * of each kept run that has none yet */
};

/*
 * Appends the whole document to out.  When plots could not be drawn the
 * page says why, and so does plots_skipped (one line; may be NULL);
 * drawing stops at the first plot that fails.
 */
void comparison_html(const struct comparison *c, const struct html_opts *o, struct strbuf *out,
		     struct strbuf *plots_skipped);

/* Appends s with &, <, >, " and ' as entities, and bytes that are not
 * UTF-8 and control characters but newline and tab as U+FFFD: safe in
 * HTML and XML element content and in quoted attributes. */
void html_escape(struct strbuf *sb, const char *s);

#endif
