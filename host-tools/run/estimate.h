/* estimate.h - how long the cases of a plan should take here: the durations
 * earlier runs under results/ recorded on this host, else the deadlines. */
#ifndef LAB_ESTIMATE_H
#define LAB_ESTIMATE_H

#include "common/plan.h"
#include "lib/util.h"

/* One case's expectation.  samples 0: no earlier run had it, s is its
 * deadline (an upper bound, not a forecast). */
struct case_estimate {
	double s;
	unsigned samples;
	unsigned group;    /* cases of one scenario share it */
};

/*
 * The settings a case's duration depends on besides the case: a run is
 * history for another only when they agree on every one given (NULL:
 * any).  A run.json without clock ran on the wall clock; without accel it
 * matches no accel given.
 */
struct estimate_key {
	const char *spec;	/* the canonical topology spec (topo.spec) */
	const char *accel;	/* "tcg", "kvm", "none" (bare metal) */
	const char *clock;	/* "wall", "virtual" */
	const char *kernel;	/* the kernel release */
	const char *cmdline;	/* the boot's command line: its timing arguments count */
};

/*
 * The arguments of a kernel command line that change how long a case
 * takes (pti=, mitigations=, nosmt, preempt=, the sched features and
 * knobs, tracing at boot, ...), sorted and space-separated, into out; the
 * rest (console, root, lab.mode, ...) is left out.
 */
void estimate_timing_args(const char *cmdline, struct strbuf *out);

/*
 * What earlier runs recorded: for every finished case of every run under
 * root whose run.json matches key (NULL: every run), its duration_s from
 * cases.json.  The history owns everything; estimate_history_release()
 * frees it.
 */
struct estimate_history {
	struct estimate_sample { char *id; double s; } *v;
	size_t nr, alloc;
	double *boot_s;          /* wall_to_runner_s of those runs */
	size_t nr_boot;
	unsigned runs;           /* run directories that contributed */
};
#define ESTIMATE_HISTORY_INIT { 0 }

void estimate_history_load(struct estimate_history *h, const char *root,
			   const struct estimate_key *key);
void estimate_history_release(struct estimate_history *h);

/* est[i] for each case of p: the median recorded duration, else the
 * case's deadline.  Returns how many cases had a recorded duration. */
unsigned estimate_cases(const struct estimate_history *h, const struct plan *p,
			struct case_estimate *est);

/*
 * A resumed run's own finished cases (dir's cases.json), learnt from: a
 * case of p without history takes the median duration of the finished
 * cases of its scenario.  Returns how many estimates that gave.
 */
unsigned estimate_from_own(const char *dir, const struct plan *p, struct case_estimate *est);

/* The median recorded boot (to the runner's first line), or -1. */
double estimate_boot_s(const struct estimate_history *h);

/*
 * The time left in a run of n cases: finished cases (took[i] >= 0) scale
 * the expectation of the others by how far the finished ones were from
 * theirs (a host twice as loaded as the history's takes twice as long),
 * those of the same group (scenario) when it has finished ones, else all
 * of them: a timed workload does not slow down like a counted one.  The
 * running case `cur` (-1: none) counts what it has left, at least a tenth
 * of its expectation.
 */
double estimate_left_s(const struct case_estimate *est, const double *took, unsigned n, int cur,
		       double cur_elapsed_s);

#endif
