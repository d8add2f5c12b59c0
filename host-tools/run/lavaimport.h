/* lavaimport.h - a finished LAVA job (its log and the lab's metadata of it)
 * into a normal results directory: lab lava import, and lab lava run once it
 * has followed the job (docs/lava.md). */
#ifndef LAB_LAVAIMPORT_H
#define LAB_LAVAIMPORT_H

#include "lib/util.h"
#include "run/session.h"

struct json_object;

/*
 * lava-job.json: where the job ran and how LAVA ended it, and what the
 * lab asked of it.  Strings are owned by the JSON object the file was
 * read into; every one but the first five may be NULL.
 */
struct lava_job_meta {
	const char *server, *job_id, *device, *device_type, *health;
	const char *error_type, *error_msg;	/* NULL: the log's are used */
	const char *spec;			/* the topology asked for: verified */
	const char *suite, *scenario, *kernel, *label;
	/* the boot's scheduler settings, as lab run takes them */
	const char *smt, *sched_feat, *sched_knob, *preempt, *append;
};

/* Reads file into *m; *owner holds the strings (json_object_put() it).
 * LAB_EXIT_PASS, or LAB_EXIT_USAGE with one line in err. */
int lava_job_meta_read(const char *file, struct json_object **owner, struct lava_job_meta *m,
		       struct strbuf *err);

struct lava_import_result {
	enum verdict verdict;
	char reason[512];
	struct strbuf dir;		/* the run directory */
	struct strbuf diff;		/* the topology's differences, with ndiff > 0 */
	int ndiff;			/* -1: not verified */
	const char *unverified;		/* with ndiff -1: why (static text) */
	struct json_object *cases;	/* cases.json's */
};
#define LAVA_IMPORT_RESULT_INIT { .dir = STRBUF_INIT, .diff = STRBUF_INIT, .ndiff = -1 }

/*
 * The job's log (LAVA's YAML, log_path) and the plan its initrd ran into a
 * new run directory under root (built aside and renamed: never half an
 * import).  LAB_EXIT_PASS with *res filled, or LAB_EXIT_USAGE (bad input)
 * or LAB_EXIT_FAIL with one line in err and nothing left behind.
 */
int lava_import_run(const struct lava_job_meta *m, const char *log_path, const char *plan_path,
		    const char *root, struct lava_import_result *res, struct strbuf *err);

/* What lab run prints at its end: cases, topology, verdict, directory. */
void lava_import_print(const struct lava_import_result *res);
void lava_import_result_release(struct lava_import_result *res);

#endif
