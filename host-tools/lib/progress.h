/* progress.h - progress with an ETA on stderr for long batches of guest
 * boots (lab ab, lab matrix): one line per step, redrawn in place on a tty. */
#ifndef LAB_PROGRESS_H
#define LAB_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The ETA of a batch from the durations of its finished items: the work
 * left is the mean finished duration for every unfinished item, less what
 * the running ones already spent (a running item never counts for less
 * than nothing), spread over `parallel` slots (never more slots than items
 * left).  -1 when nothing finished yet (no basis for an estimate), 0 when
 * nothing is left.
 */
double progress_eta_s(unsigned done, double done_sum_s, unsigned left,
		      const double *running_elapsed_s, unsigned nr_running, unsigned parallel);

/* "45s", "4m10s", "6m" (whole minutes from 10 minutes up), "1h02m". */
void progress_format_duration(char *buf, size_t size, double seconds);

/*
 * One batch.  The struct is the caller's; nothing is allocated.
 *   what      prefix of every line ("ab", "matrix")
 *   total     items in the batch; done counts finished ones (a resumed
 *             matrix starts with the jobs it finished before, which add
 *             nothing to the duration sum)
 *   tty       stderr is a terminal: the line is redrawn with \r and an
 *             erase-line escape; otherwise every update is a plain line
 */
struct progress {
	const char *what;
	unsigned total, done, timed;
	unsigned parallel;
	double done_sum_s;
	uint64_t t0_ns;
	int tty;
	int open_line;	/* a tty line is waiting for its newline */
};

void progress_init(struct progress *p, const char *what, unsigned total, unsigned parallel);
/* An item finished after `seconds` (its duration feeds the ETA). */
void progress_item_done(struct progress *p, double seconds);
/* An item finished without a duration worth averaging (skipped, resumed). */
void progress_item_skipped(struct progress *p);
/*
 * Prints "<what>: <detail> ... elapsed 4m10s, ETA 6m"; running_elapsed_s
 * holds how long each running item has run so far (may be NULL with
 * nr_running 0).
 */
void progress_show(struct progress *p, const char *detail, const double *running_elapsed_s,
		   unsigned nr_running);
/* The same line with an ETA the caller worked out (< 0: "unknown"), for
 * batches whose items differ too much for a mean (lab run's cases). */
void progress_show_eta(struct progress *p, const char *detail, double eta_s);
/* Ends a redrawn line before other output; harmless otherwise. */
void progress_break(struct progress *p);

#endif
