/* compare.h - `lab compare`: load finished runs from results/, judge every
 * declared metric of every case against the baseline, and render the verdicts. */
#ifndef LAB_COMPARE_H
#define LAB_COMPARE_H

#include "report/stats.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <stddef.h>

/* Bounds of what the loader accepts from run directories. */
#define CMP_MAX_FILE (64u << 20)
#define CMP_MAX_CASES 4096	/* a plan's limit (common/plan.h) */
#define CMP_MAX_METRICS 64
#define CMP_MAX_VALUES 100000
#define CMP_MAX_DOMAINS 16
#define CMP_MAX_WL_COUNTERS 16	/* a workload's own counters per case */
#define CMP_MAX_RUNS 32

/* One metric of one case in one run: the measured runs' raw values. */
struct cmp_metric {
	char *name;
	char *unit;		/* "" when the scenario named none */
	int higher_better;
	/* "better": "none": a row that changes up or down, never better or
	 * worse (higher_better is 1 then: its pct_imp is the change) */
	int no_direction;
	enum stats_statistic stat;
	int declared;		/* undeclared metrics are kept, not judged */
	double *values;
	size_t n;
};

/* A kernel counter of one case: tasks' counters per measured run,
 * schedstat and vmstat deltas over the whole case. */
struct cmp_counter {
	char name[72];		/* "fprof <function> us/<vmstat key>" is the longest */
	int level;		/* scheduling-domain level; -1 when not per domain */
	double value;
};

struct cmp_case {
	char *id;		/* "seed000-hackbench/groups=4,mode=thread" */
	char *scenario;
	char *workload;
	char *verdict;		/* PASS, FAIL, CRASH, HANG, SKIP, NOTRUN */
	char *reason;
	/* cases.json schedtrace.wakeups_from: "sched_waking" (what the runner
	 * records), "sched_wakeup" (recorded before), "mixed"; NULL untraced */
	char *wakeups_from;
	struct cmp_metric *metrics;
	size_t nr_metrics;
	struct cmp_counter *counters;
	size_t nr_counters;
};

/* One results/<run>/ directory; everything is owned by the struct. */
struct cmp_run {
	char *dir;
	char *name;		/* the run id: the directory's last component */
	char *label;		/* column title; set by cmp_run_load, may be replaced */
	char *kernel;
	char *what;		/* "suite 'smoke'" or "scenario 'x.ini'" */
	char *spec;		/* as typed */
	char *spec_resolved;
	char *smt;		/* "on", "off" (booted with nosmt), "none" or "" */
	char *sched_feat;	/* run.json's features, "NO_A,B"; "" without */
	char *sched_knob;	/* run.json's knobs and preemption mode,
				 * "base_slice_ns=3000000,preempt=full"; "" without */
	char *arch;		/* the guest's: "x86_64" when run.json has none */
	char *clock;		/* run.json's "clock": "virtual" or "wall" (also when absent) */
	char *qemu_series;	/* "7.2", "10.0" from run.json's "qemu"; "" unknown */
	size_t nr_pooled;	/* runs pooled into this one (cmp_run_pool), else 0 */
	char *features;		/* the kernel's scheduler features (sched-features.json), space-separated; "" unknown */
	char *domain_names[CMP_MAX_DOMAINS]; /* per level, from guest-topology.json */
	size_t nr_domain_names;
	struct cmp_case *cases;
	size_t nr_cases;
};

/*
 * Loads a run from a directory, or from a run id (a directory name under
 * results_root()).  Reads run.json, cases.json and, when present,
 * guest-topology.json (names of the domain levels).  On error fills err
 * with one line and returns -1; the run must still be released.
 */
int cmp_run_load(struct cmp_run *run, const char *dir_or_id, struct strbuf *err);
/* The parsers behind cmp_run_load; bounded, for untrusted bytes (fuzzed). */
int cmp_run_json_parse(struct cmp_run *run, const char *text, size_t len, struct strbuf *err);
int cmp_cases_parse(struct cmp_run *run, const char *text, size_t len, struct strbuf *err);
void cmp_run_release(struct cmp_run *run);

/*
 * Pools runs of one kernel into one side (lab ab, several boots per
 * kernel): the measured values of every metric are concatenated, so
 * boot-to-boot variation is part of the sample; counters are averaged
 * per run.  A case passes only when it passed in every run (else the
 * first other verdict, its reason naming the run).  The runs must be of
 * the same kernel, smt state, scheduler features, suite, topology and
 * cases, else one line in
 * err and -1.  runs stay owned by the caller; dst must be zeroed and is
 * released with cmp_run_release().  With nr == 1 dst is a copy.
 */
int cmp_run_pool(struct cmp_run *dst, const struct cmp_run *runs, size_t nr, struct strbuf *err);

/* Every run must have run the same suite (or scenario) with the same
 * cases on the same topology as runs[0]; else one line in err, -1. */
int cmp_runs_check(const struct cmp_run *runs, size_t nr, struct strbuf *err);

enum cmp_verdict {
	CMP_NODATA,	/* a side has no measured runs (case not PASS) */
	CMP_IMPROVED,
	CMP_REGRESSED,
	CMP_SAME,	/* the interval of the ratio lies within +-2 % */
	CMP_UNDECIDED,	/* too noisy for either */
	CMP_UP,		/* a row without direction that went up ... */
	CMP_DOWN,	/* ... or down, by the same rule as + and - */
	CMP_NR_VERDICTS,
};
const char *cmp_verdict_name(enum cmp_verdict v);
char cmp_verdict_mark(enum cmp_verdict v);

/* One run's numbers in one row. */
struct cmp_cell {
	const struct cmp_metric *m;	/* NULL: no data */
	double stat;			/* the declared statistic of the runs */
	double cv_pct;
	double norm;			/* stat / baseline stat */
	double pct_imp;			/* positive is better */
};

/* One test column against the baseline in one row. */
struct cmp_test {
	const char *method;		/* "welch" or "mann-whitney" */
	struct stats_test t;
	double q;			/* BH across every row of the comparison */
	double ci_lo, ci_hi;		/* 95 % interval of the ratio (stats_ratio_ci) */
	const char *ci_why;		/* why there is none (static text), or NULL */
	const char *why;		/* why an undecided row is undecided, or NULL */
	struct stats_test bf;		/* Brown-Forsythe */
	double bf_q;
	double more_runs;		/* per side, for undecided rows; NAN if unknown */
	enum cmp_verdict verdict;
};

struct cmp_row {
	char *label;			/* "4-groups" */
	const char *case_id;
	struct cmp_cell *cells;		/* one per run, [0] is the baseline */
	struct cmp_test *tests;		/* one per test run: tests[k] is runs[k + 1] */
};

/* One table: a scenario's metric, at fixed values of the other axes. */
struct cmp_block {
	char *title;
	char *scenario;
	char *metric;
	char *axes;			/* the other axes: "mode=thread,ipc=pipe" or "" */
	char *unit;
	int higher_better;
	int no_direction;		/* as the metric's */
	enum stats_statistic stat;
	struct cmp_row *rows;
	size_t nr_rows;
};

struct comparison {
	const struct cmp_run *runs;	/* borrowed; [0] is the baseline */
	size_t nr_runs;
	struct cmp_block *blocks;
	size_t nr_blocks;
	unsigned count[CMP_NR_VERDICTS]; /* rows by verdict, over all test columns */
	unsigned bad_cases;		/* case results neither PASS nor SKIP */
};

/* Row verdict thresholds: FDR level, and the no-change band of the ratio. */
#define CMP_ALPHA 0.05
#define CMP_SAME_BAND 0.02
#define CMP_MIN_RUNS 5		/* per side, the least for a "=" (no change) */
#define CMP_MIN_RUNS_STR "5"

/* Builds the comparison of runs[1..] against runs[0] (runs stay owned by the caller). */
void comparison_build(struct comparison *c, const struct cmp_run *runs, size_t nr);
void comparison_release(struct comparison *c);

#define CMP_TEXT_NARROW 1u	/* every line fits 80 columns */
#define CMP_TEXT_BARE 2u	/* only the tables, exactly as the seeds post them */
#define CMP_TEXT_SUMMARY_LAST 4u	/* the summary after the tables, not before them */
void comparison_text(const struct comparison *c, unsigned flags, struct strbuf *out);
/* Every number; the caller owns the object. */
struct json_object *comparison_json(const struct comparison *c);
/* JUnit XML: a test case per case and per regressed row. */
void comparison_junit(const struct comparison *c, struct strbuf *out);
/* 0 nothing regressed and every case passed (or skipped), else 1. */
int comparison_exit_code(const struct comparison *c);

/*
 * Shared by the compare*.c files and summary.c.  Counters of one case
 * across the runs: a line per counter, in the order first seen, values
 * per run (NAN when a run has none); free with cmp_counters_free().
 */
struct cmp_ctr_line {
	char name[96];		/* as shown: "MC migrations" */
	int level;
	const char *key;
	double *v;		/* per run, NAN when that run has no such counter */
};
/* found[k]: the case id in runs[k], NULL when that run lacks it. */
void cmp_find_all(const struct comparison *c, const char *id, const struct cmp_case **found);
size_t cmp_case_counters(const struct comparison *c, const struct cmp_case **found,
			 struct cmp_ctr_line **out);
void cmp_counters_free(struct cmp_ctr_line *lines, size_t nr);
/* "-" for NAN, whole numbers bare, else one decimal. */
void cmp_format_count(char *buf, size_t size, double v);
/* "(+12.5%)", "(new)" from zero, "" when either side has none. */
void cmp_format_change(char *buf, size_t size, double base, double v);
/* The case id without its scenario: "groups=4,mode=thread". */
const char *cmp_case_axes(const struct cmp_case *cs);
/* Sorted pointers to a run's cases (the caller frees the array). */
const struct cmp_case **cmp_cases_by_id(const struct cmp_run *run);
void cmp_case_add_counter(struct cmp_case *c, const char *name, int level, double v);
/* The mean of a case's values of metric name; NAN when it has none. */
double cmp_case_metric_mean(const struct cmp_case *c, const char *name);

#endif
