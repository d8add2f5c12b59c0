/* progress-run.h - progress of `lab run` and `lab bare` on stderr: case i of
 * N, run j of M, elapsed and an ETA, fed by the runner's own records. */
#ifndef LAB_PROGRESS_RUN_H
#define LAB_PROGRESS_RUN_H

#include "lib/progress.h"
#include "common/plan.h"
#include "common/wire.h"
#include "run/estimate.h"
#include "run/session.h"

#include <sys/types.h>

/*
 * On a terminal the line is redrawn in place (at least once a second); in
 * a log there is one line per finished case, and one a minute while a
 * case runs long.  The struct is the caller's; run_progress_release()
 * frees what init allocated.  The plan must outlive it.
 */
struct run_progress {
	struct progress p;
	const struct plan *plan;
	struct case_estimate *est;   /* per case */
	double *took;                /* per case: seconds, -1 while unfinished */
	int cur;                     /* the running case, -1 */
	int last;                    /* the last finished case, -1 */
	unsigned results;            /* run records of the running case so far */
	unsigned recorded;           /* cases whose estimate is recorded history */
	uint64_t case_t0_ns, last_line_ns, last_draw_ns;
	int quiet;
	struct wire_decoder tail;    /* run_progress_tail() */
	off_t tail_off;
	struct session_watch watch;  /* for session.watch */
};

/* what: the line's prefix ("run", "bare"); history from the runs under
 * results_root recorded under key's settings (NULL root: deadlines only);
 * own: the run a resume continues, whose finished cases are learnt from
 * (NULL: none). */
void run_progress_init(struct run_progress *rp, const char *what, const struct plan *plan,
		       const char *results_root, const struct estimate_key *key, const char *own,
		       int quiet);
void run_progress_release(struct run_progress *rp);

/* A record of the runner's stream (case_start, results, case_end). */
void run_progress_record(struct run_progress *rp, const struct wire_record *rec);
/* Redraws or writes the heartbeat when due; call it often. */
void run_progress_tick(struct run_progress *rp);
/* For a runner writing its records into a file (lab bare): reads what
 * was appended since the last call and ticks. */
void run_progress_tail(struct run_progress *rp, const char *records_path);
/* Ends a redrawn line before other output. */
void run_progress_break(struct run_progress *rp);

/* Case ids for a verdict's reason; NULL when there is none. */
const char *run_progress_last_case(const struct run_progress *rp);
const char *run_progress_running_case(const struct run_progress *rp);

#endif
