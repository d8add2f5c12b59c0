/* resume.h - a run stopped by SIGINT/SIGTERM keeps its finished cases, and
 * `lab run --resume DIR` runs the others into DIR/resume-<k>/. */
#ifndef LAB_RESUME_H
#define LAB_RESUME_H

#include "lib/util.h"

#include <signal.h>

struct json_object;

/* Set to the signal by the handlers run_stop_catch() installs; a second
 * signal ends the lab at once, as without them. */
extern volatile sig_atomic_t run_stop_signal;
void run_stop_catch(void);

/* Writes <part>/stopped.json: the signal, the last finished case and the
 * one under way (either may be NULL). */
int run_stop_record(const char *part, int sig, const char *last, const char *during);

/*
 * What a resume needs from the stopped run.  Strings are owned;
 * run_resume_release() frees them.
 */
struct run_resume {
	char *dir;          /* the run continued */
	char *part;         /* its new part, dir/resume-<k> (created by run_resume_start) */
	char *spec;         /* run.json: the spec as given, and resolved */
	char *spec_resolved;
	char *kernel;       /* run.json: kernel release, and the image booted */
	char *kernel_image;
	char *suite, *scenario, *label;
	char *clock;        /* run.json: "virtual", "wall", or NULL (ran before --clock) */
	unsigned seed;      /* run.json: the virtual clock's seed, 0: none recorded */
	/* what it booted with, as lab run takes it; NULL: it booted without */
	char *sched_feat;   /* --sched-feat "NO_A,B" */
	char *sched_knob;   /* --sched-knob "base_slice_ns=N" */
	char *preempt;      /* --preempt MODE */
	int smt_off;        /* --smt off */
	struct strbuf plan;       /* the whole plan (dir/plan.txt) */
	struct strbuf plan_left;  /* the plan of the cases still to run */
	unsigned done, left;
};
#define RUN_RESUME_INIT { .plan = STRBUF_INIT, .plan_left = STRBUF_INIT }

/* The boot settings above from a run.json object (run_resume_load()). */
void run_resume_boot(struct run_resume *rr, struct json_object *run);

/* Reads dir's run.json, plan.txt and cases.json; -1 with one line in err
 * when dir is no `lab run` directory or has nothing left to run. */
int run_resume_load(struct run_resume *rr, const char *dir, struct strbuf *err);
/* The same topology (canonical spec), kernel release and plan as the run
 * continued, or -1 with one line in err.  NULL arguments are not checked. */
int run_resume_check(const struct run_resume *rr, const char *spec_resolved,
		     const char *kernel_release, const char *plan, size_t plan_len,
		     struct strbuf *err);
/* Creates the next dir/resume-<k>/ and writes its plan.txt. */
int run_resume_start(struct run_resume *rr, struct strbuf *err);
void run_resume_release(struct run_resume *rr);

/* The plan text of the cases of `plan` whose ids are not in `skip`. */
int plan_without_cases(const char *plan, size_t len, const struct strvec *skip,
		       struct strbuf *out, unsigned *kept, struct strbuf *err);

#endif
