/* runfiles.h - the files of one results/<run>/ directory, each with one
 * writer and one reader: run.json, verdict.json, cases.json, host-faults.jsonl. */
#ifndef LAB_RUNFILES_H
#define LAB_RUNFILES_H

#include "common/plan.h"
#include "lib/json.h"

/* Every file of a run directory is read with this bound. */
#define RUNFILE_MAX (64u << 20)
/* One line of host-faults.jsonl. */
#define HOST_FAULT_LINE_MAX 65536

/* Adds key: "v" to o ("" for NULL). */
void results_add_str(struct json_object *o, const char *key, const char *v);

/* ---- run.json: what ran, where, by which lab; written when the run starts ---- */

/*
 * A new run.json object with the head every run has: lab_version,
 * command ("run", "ab", "bare", ...), spec as typed, spec_resolved,
 * topology (its description) and backend.  The caller adds the rest
 * and writes it with run_json_write().
 */
struct json_object *run_json_new(const char *command, const char *spec, const char *spec_resolved,
				 const char *topology, const char *backend);
int run_json_write(const char *dir, struct json_object *run);

/* What readers take from run.json; strings owned, "" when absent. */
struct run_info {
	char *kernel, *spec, *spec_resolved, *suite, *scenario, *smt, *label, *backend;
	char *arch;	/* "x86_64" when run.json (older ones) has none */
	struct json_object *json;	/* the whole file (owned), for the rest */
};
#define RUN_INFO_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL }

/* Parses run.json from text (bounded, strict); -1 with one line in err.
 * info must be released either way. */
int run_parse(struct run_info *info, const char *text, size_t len, struct strbuf *err);
/* <dir>/run.json; *missing (may be NULL) tells the file is absent. */
int run_load(struct run_info *info, const char *dir, int *missing, struct strbuf *err);
void run_info_release(struct run_info *info);

/* ---- plan.txt: the plan the runner ran (or runs), as lab wrote it ---- */

/* <dir>/plan.txt parsed into p (release it with plan_release() either
 * way); -1 with one line in err when it is missing or does not parse. */
int run_plan_load(const char *dir, struct plan *p, struct strbuf *err);

/* ---- verdict.json: how the run ended; written once, when it ended ---- */

/* A new verdict.json object: verdict, reason, topology ("PASS", "FAIL",
 * "not verified"); the caller adds the counts of its kind of run. */
struct json_object *verdict_json_new(const char *verdict, const char *reason, const char *topology);
int verdict_write(const char *dir, struct json_object *v);
/* The verdict word of <dir>/verdict.json into buf; -1 with err when the
 * file is missing, unreadable or has no verdict. */
int verdict_load(const char *dir, char *buf, size_t size, struct strbuf *err);
/* The whole of <dir>/verdict.json (the caller puts it), or NULL with err
 * (and *missing, when not NULL, set when the file is absent). */
struct json_object *verdict_read(const char *dir, int *missing, struct strbuf *err);

/* ---- cases.json: per case verdicts, metrics, counters, fault timelines ---- */

/*
 * Parses cases.json: an object with a "cases" array (of any content: each
 * reader judges the cases it needs).  Returns the document (the caller
 * puts it) and the array in *cases (borrowed from it), or NULL with one
 * line in err.
 */
struct json_object *cases_parse(const char *text, size_t len, struct json_object **cases,
				struct strbuf *err);
struct json_object *cases_load(const char *dir, struct json_object **cases, int *missing,
			       struct strbuf *err);

/* ---- host-faults.jsonl: one line per host fault action, appended ---- */

/*
 * Parses host-faults.jsonl: a JSON object per line with a "case" and an
 * "action" string; blank lines are skipped.  Lenient (strict == 0): other
 * lines are counted in *bad and left out.  Strict: the first one is an
 * error ("host-faults.jsonl: line N ...") and NULL is returned.  Returns
 * an array of the lines' objects (the caller puts it).
 */
struct json_object *host_faults_parse(const char *text, size_t len, int strict, unsigned *bad,
				      struct strbuf *err);
/* <dir>/host-faults.jsonl; a missing file is an empty list. */
struct json_object *host_faults_load(const char *dir, int strict, unsigned *bad, struct strbuf *err);

#endif
