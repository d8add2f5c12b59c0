/* bisect.h - the state of a statistical bisection (bisect.json: one reader,
 * one writer), its choice of the next commit, and what it prints at the end. */
#ifndef LAB_BISECT_H
#define LAB_BISECT_H

#include "bisect/seqtest.h"
#include "lib/util.h"

#include <stddef.h>

struct json_object;

#define BISECT_MAX_COMMITS 100000
#define BISECT_MAX_BOOTS 10000
#define BISECT_MAX_STR 4096

enum bisect_build {
	BISECT_UNBUILT,
	BISECT_BUILT,
	BISECT_BUILD_FAILED,	/* a skip, as git bisect skip */
};

/* A commit of good..bad (the good endpoint is commits[0], bad the last). */
struct bisect_commit {
	char sha[41];
	char *subject;
	enum bisect_build build;
	char key[17];		/* its kernel in the cache, "" until built */
	enum seq_decision decision;	/* endpoints: good / bad from the start */
	int skipped;		/* build or boot failure, or undecided after the budget */
	char *why;		/* of the skip, "" else */
};

/* One boot: of which commit, for which step (0: the endpoints), its value. */
struct bisect_boot {
	size_t commit;
	unsigned step;
	char *run;		/* the run directory, "" when none was made */
	char verdict[16];	/* PASS FAIL CRASH HANG ERROR */
	double value;		/* the metric's mean in this boot; NAN: none */
	double seconds;
};

/* A step's outcome, as the table shows it. */
struct bisect_step {
	size_t commit;
	struct seq_result res;
};

enum bisect_phase {
	BISECT_ENDPOINTS,	/* measuring good and bad */
	BISECT_STEPPING,
	BISECT_DONE,		/* first_bad found (or a range of skipped commits) */
	BISECT_STOPPED,		/* nothing to bisect: the endpoints do not differ, or reversed */
};
const char *bisect_phase_name(enum bisect_phase p);

/* Everything; every string and array is owned.  bisect_release() frees. */
struct bisect {
	/* the request, as given (resolved revisions in commits[]) */
	char *ksrc, *good, *bad, *topo, *scenario, *suite, *metric_case, *metric_name;
	char *clock;     /* "virtual" for QEMU icount runs; NULL: the wall clock */
	struct strvec configs, patches;
	double alpha;
	unsigned max_runs;	/* candidate boots per step; endpoint boots per side */
	unsigned min_runs;
	int higher_better;	/* the metric's direction, from the scenario */
	int no_direction;	/* "better": "none" (a decision row): bad is "changed" */
	/* the work */
	struct bisect_commit *commits;
	size_t nr_commits;
	struct bisect_boot *boots;
	size_t nr_boots;
	struct bisect_step *steps;
	size_t nr_steps;
	enum bisect_phase phase;
	double endpoint_p, endpoint_ratio;
	size_t first_bad;	/* DONE: index into commits */
	char *message;		/* STOPPED, or DONE with skips: one line; "" else */
	unsigned builds;	/* kernels built (not found in the cache) */
	double build_seconds, wall_seconds;
};
void bisect_init(struct bisect *b);
void bisect_release(struct bisect *b);

/* bisect.json; the caller owns the object. */
struct json_object *bisect_json(const struct bisect *b);
/* Bounded parser for an untrusted bisect.json (fuzzed): fills an empty
 * (initialised) b, or -1 with one line in err (b must still be released). */
int bisect_parse(const char *text, size_t len, struct bisect *b, struct strbuf *err);
/* DIR/bisect.json, written atomically (temp + rename); DIR/bisect.json read. */
int bisect_save(const struct bisect *b, const char *dir, struct strbuf *err);
int bisect_load(const char *dir, struct bisect *b, struct strbuf *err);

/* The values of commit c's boots of step `step` (any step when step is
 * (unsigned)-1), the boots without a value left out; returns how many. */
size_t bisect_values(const struct bisect *b, size_t c, unsigned step, double *out, size_t max);
/* The reference values the steps judge by: the endpoint's boots taken
 * after the endpoint phase (step >= 1), see seqtest.h for why. */
size_t bisect_ref_values(const struct bisect *b, size_t c, double *out, size_t max);
/* How many of commit c's last boots in step `step` gave no value, in a row
 * (a boot with a value ends the run of failures). */
size_t bisect_failed_in_a_row(const struct bisect *b, size_t c, unsigned step);

/*
 * The next commit to test: the middle of the untested, unskipped commits
 * strictly between the last good and the first bad.  1 with *next set, 0
 * when none is left (the bisection is over), with *lo and *hi set to the
 * last good and the first bad commit.
 */
int bisect_next(const struct bisect *b, size_t *next, size_t *lo, size_t *hi);

/* The end, for people and for git: */
/* the step table and the verdict line */
void bisect_text(const struct bisect *b, struct strbuf *out);
/* `git bisect log` lines: replayable with `git bisect replay` */
void bisect_git_log(const struct bisect *b, struct strbuf *out);
/* one self-contained page: the verdict, the table, the log and compare_text */
void bisect_html(const struct bisect *b, const char *compare_text, struct strbuf *out);

#endif
