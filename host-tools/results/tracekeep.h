/* tracekeep.h - which of a case's traced runs are worth their bytes: the
 * slowest and fastest, robust outliers, runs with a fault action or a failure. */
#ifndef LAB_TRACEKEEP_H
#define LAB_TRACEKEEP_H

#include <stddef.h>
#include <stdint.h>

#include "common/plan.h"
#include "lib/util.h"

#define TRACE_KEEP_BUDGET_MB PLAN_TRACE_KEEP_DEFAULT_MB /* per case, when none is given */
#define TRACE_KEEP_Z 3.5             /* robust z-score of an outlier */

enum tk_why {
	TK_FAILED = 1 << 0,  /* the run did not end ok */
	TK_FAULT = 1 << 1,   /* a fault action was taken during it */
	TK_OUTLIER = 1 << 2, /* |robust z| > TRACE_KEEP_Z within the case */
	TK_SLOWEST = 1 << 3, /* the worst primary metric of the case */
	TK_FASTEST = 1 << 4, /* the best */
};

/* One traced run of a case; the caller fills the first block. */
struct tk_run {
	unsigned run;
	double value;        /* the case's primary metric in this run */
	int has_value;
	int failed, faults;  /* status not ok; fault actions during the run */
	uint64_t bytes;      /* its raw pages */
	uint64_t cut_events; /* events its ring buffers overwrote (statsN.txt): the
			      * trace is the run's last part when not 0 */
	/* filled by trace_keep_choose() */
	unsigned why;        /* enum tk_why bits; 0: nothing worth keeping */
	double z;            /* robust z-score (0 without a spread) */
	int keep;
};

/*
 * Sets why, z and keep of every run: failed and faulted runs first (in run
 * order), then outliers (largest |z| first), the slowest, the fastest,
 * each kept while the kept bytes stay within budget (0: none is kept).  higher_better tells
 * which end of the metric is "slowest".  Returns how many runs are not kept
 * and their bytes in *dropped_bytes.
 */
size_t trace_keep_choose(struct tk_run *r, size_t n, int higher_better, uint64_t budget,
			 uint64_t *dropped_bytes);

/* "failed,fault,outlier,slowest,fastest" of why bits, into buf. */
void trace_keep_why(unsigned why, char *buf, size_t len);

/* One case's keep, as trace_keep_case() leaves it. */
struct tk_case {
	struct tk_run *r;        /* the case's traced runs on disk, malloc'ed */
	size_t n;
	size_t dropped;          /* runs whose pages were removed */
	uint64_t dropped_bytes;
	uint64_t budget;         /* of the kept runs' pages; 0 keeps none */
	uint64_t run_budget;     /* one run's trace (trace_run_mb); 0: none */
	size_t cut;              /* runs, kept or not, whose ring buffers overwrote */
	uint64_t cut_events;     /* the events they overwrote */
};
#define TK_CASE_INIT { NULL, 0, 0, 0, 0, 0, 0, 0 }
void tk_case_release(struct tk_case *kc);

/*
 * Removes <run_dir>/trace/<case_dir>/run<N>/ of kc's runs not kept and
 * writes trace/<case_dir>/kept.json: the budgets, each kept run with why,
 * z, bytes and events cut, the count and bytes of what was dropped, and
 * the runs cut to their last part (kc->cut, kc->cut_events) with where
 * the cut was made.  -1 with err.
 */
int trace_keep_apply(const char *run_dir, const char *case_dir, const struct tk_case *kc,
		     struct strbuf *err);

/* Whether a fault action was taken during a run of the case (ctx: the caller's marks). */
typedef int (*tk_faulted_fn)(void *ctx, const char *case_dir, unsigned run);

/*
 * The whole keep of one case of run_dir: the traced runs on disk, their
 * bytes and the events their ring buffers overwrote, each one's primary
 * metric and status from results.jsonl, faulted (may be NULL) for fault
 * actions; chooses within budget bytes and prunes (trace_keep_apply).
 * run_budget is what the case's runs were capped to (trace_run_mb, 0:
 * none), for kept.json and the summary.  -1 with err, kc then holds what
 * was chosen so far.
 */
int trace_keep_case(const char *run_dir, const char *case_dir, uint64_t budget,
		    uint64_t run_budget, tk_faulted_fn faulted, void *ctx, struct tk_case *kc,
		    struct strbuf *err);

/* "CASE: kept run3 (slowest) run0 (outlier, z 4.1); dropped 2 runs, 1.5 MiB
 * (budget 8 MiB)", then "; cut 2 runs to their last 2 MiB (ring buffer,
 * 310 events overwritten)" when some were, with a newline, appended to out. */
void trace_keep_summary(const char *case_dir, const struct tk_case *kc, struct strbuf *out);

/*
 * The outliers that trace/<case>/kept.json of run_dir says were kept (run,
 * z, why), at most max; 0 when the case was not pruned or had none.
 */
size_t trace_keep_outliers(const char *run_dir, const char *case_id, struct tk_run *out, size_t max);

/*
 * The measured runs of one case (its directory name under trace/) in a
 * results.jsonl text: run, status (failed unless "ok"), the first metric's
 * value and whether higher is better.  Lines that are not results are
 * counted in *bad; warmups are left out.  *runs malloc'ed.
 */
#define RESULT_LINE_MAX (4u << 20)
int trace_keep_parse_results(const char *text, size_t len, const char *case_dir, struct tk_run **runs,
			     size_t *nr, int *higher_better, unsigned *bad);

#endif
