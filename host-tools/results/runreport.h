/* runreport.h - derived files of a `lab run`, rebuilt from the raw data in
 * results/<run>/ (records.bin, console.log, plan.txt) and nothing else. */
#ifndef LAB_RUNREPORT_H
#define LAB_RUNREPORT_H

#include "lib/util.h"

struct json_object;

/* Descriptive statistics of one metric over the measured runs. */
struct metric_stats {
	unsigned n;
	double mean, stdev, cv_pct, median, hmean, min, max;
};
/* values are not modified; n == 0 gives all zeros. */
void metric_stats_compute(const double *values, unsigned n, struct metric_stats *st);

/*
 * Splits a console log at the runner's "schedlab: case <id> start" markers
 * and returns a JSON object mapping case id -> {"splats": n, "first":
 * "<line>", "crash": bool} for the cases whose part of the console holds a
 * failure pattern.  The caller owns the object.
 */
struct json_object *console_by_case(const char *text, size_t len);

/* A run stopped by a signal holds this file (the signal, the case under
 * way); a run continued by `lab run --resume` keeps each later part in
 * <dir>/resume-<k>/ (records.bin, console.log, host-faults.jsonl). */
#define RUN_STOPPED_FILE "stopped.json"
#define RUN_RESUME_PREFIX "resume-"

/*
 * Reads <dir>/records.bin, <dir>/plan.txt and <dir>/console.log, writes
 * <dir>/results.jsonl (one line per run record) and <dir>/cases.json
 * (per case: verdict, metric statistics, task counters, counter deltas,
 * console findings, duration).  The parts of a resumed run are read in
 * order; a case a stopped part left half done counts from its new start.
 * When the last part was stopped, cases.json holds only the finished cases
 * and names the others under "stopped" ("during", "not_run").
 * *cases receives the cases array (caller puts it).
 * Returns the number of cases that did not PASS or SKIP, or -1.
 */
int run_report_build(const char *dir, struct json_object **cases, struct strbuf *err);

/*
 * host-faults.jsonl (the host's fault actions, one JSON object a line,
 * read by host_faults_parse() of results/runfiles.h) into an array of the well-formed actions (string case, fault and
 * action, integer run, boolean ok); *bad counts the other non-empty
 * lines.  Never NULL; the caller puts it.
 */
struct json_object *host_fault_actions(const char *text, size_t len, unsigned *bad);

/*
 * Why the host fault actions of case_id make the case FAIL, as a guest
 * fault would: a step that puts things back failed ("cont" or
 * "unthrottle"), or no step of a fault worked in a run.  1
 * with the reason in reason, or 0.
 */
int host_faults_failure(struct json_object *actions, const char *case_id, char *reason,
			size_t len);

/* One line per case on stdout: verdict, case id, key metrics. */
void run_report_print(struct json_object *cases);

#endif
