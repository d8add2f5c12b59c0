/* runreport.h - derived files of a `lab run`, rebuilt from the raw data in
 * results/<run>/ (records.bin, console.log, plan.txt) and nothing else. */
#ifndef LAB_RUNREPORT_H
#define LAB_RUNREPORT_H

#include "util.h"

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

/*
 * Reads <dir>/records.bin, <dir>/plan.txt and <dir>/console.log, writes
 * <dir>/results.jsonl (one line per run record) and <dir>/cases.json
 * (per case: verdict, metric statistics, task counters, counter deltas,
 * console findings).  *cases receives the cases array (caller puts it).
 * Returns the number of cases that did not PASS or SKIP, or -1.
 */
int run_report_build(const char *dir, struct json_object **cases, struct strbuf *err);

/* One line per case on stdout: verdict, case id, key metrics. */
void run_report_print(struct json_object *cases);

#endif
