/* scenario.h - scenario files (INI, scenarios/README.md) and suites, and
 * their compilation into the runner's plan (common/plan.h). */
#ifndef LAB_SCENARIO_H
#define LAB_SCENARIO_H

#include "common/plan.h"
#include "lib/expect.h"
#include "lib/util.h"

#define SCENARIO_MAX_LINE 4096
#define SCENARIO_MAX_EXPECTS 8

/* One [params] key: a single value, or several (a matrix axis). */
struct scenario_param {
	char key[64];
	char **values;      /* owned, nr_values entries */
	unsigned nr_values;
	unsigned line;
};

/*
 * A loaded scenario file.  scenario_init() before use, scenario_release()
 * frees what the loader allocated.  `shown` is the path used in messages
 * and in the plan's source/where fields: relative to lab_root() when the
 * file is inside it, so plans do not depend on where the tree lives.
 */
struct scenario {
	char *shown;
	char name[128];
	char description[PLAN_MAX_FIELD];
	char workload[48];
	unsigned line;      /* of the [scenario] header */
	unsigned runs, warmup, deadline_s;
	unsigned counters;  /* enum plan_counter bits */
	struct scenario_param params[PLAN_MAX_PARAMS];
	unsigned nr_params;
	struct plan_metric metrics[PLAN_MAX_METRICS];
	unsigned metric_lines[PLAN_MAX_METRICS];
	unsigned nr_metrics;
	/* [fault NAME] and [invariant NAME] sections, as every case gets them;
	 * their `where` is "<shown>:<line of the header>" */
	struct plan_fault faults[PLAN_MAX_FAULTS];
	unsigned nr_faults;
	struct plan_invariant invariants[PLAN_MAX_INVARIANTS];
	unsigned nr_invariants;
	struct plan_profile profile; /* profile and profile_per keys */
	unsigned trace_kb;  /* trace_buffer_kb; 0: the runner's default */
	unsigned wc_grace_ms; /* wc_grace_ms, when wc_grace_set */
	int wc_grace_set;     /* 0: the host's default grace */
	unsigned trace_keep_mb; /* trace_keep_mb, when trace_keep_set (0 keeps none) */
	int trace_keep_set;     /* 0: PLAN_TRACE_KEEP_DEFAULT_MB */
	unsigned trace_run_mb;  /* trace_run_mb; 0: no per-run cap */
	enum plan_pin pin;      /* pin = yes|strict|no */
	/* scheduler = scx_NAME [ARGS]: a sched_ext scheduler of the registry
	 * (scx/scx.h) for every case; "" the kernel's own */
	char scheduler[PLAN_MAX_SCHED];
	char scheduler_ops[PLAN_MAX_SCHED];
	char scheduler_args[PLAN_MAX_FIELD];
	/* for lab ab (docs/comparing.md): the metric that decides a case
	 * (primary; "" is the first metric) and its expectations, whose
	 * case_id is the scenario's name */
	char primary[PLAN_MAX_SYMBOL];
	struct expect expects[SCENARIO_MAX_EXPECTS];
	unsigned nr_expects;
	unsigned nr_cases;  /* the matrix's size */
};


void scenario_init(struct scenario *s);
void scenario_release(struct scenario *s);

/* Reads and checks a scenario file.  -1 with one line in err:
 * "scenarios/x.ini:12: unknown key 'grups' in [scenario]". */
int scenario_load(const char *path, struct scenario *s, struct strbuf *err);
/* The same over text in memory (len bytes, NULs are errors); `shown`
 * names it in messages. */
int scenario_parse(const char *shown, const char *text, size_t len, struct scenario *s,
		   struct strbuf *err);

/* Appends the scenario's cases (the cartesian product of its list
 * params, in file order, the last axis varying fastest) to p, which
 * must be zero-initialised or hold earlier cases; plan_release() frees. */
int scenario_expand(const struct scenario *s, struct plan *p, struct strbuf *err);

/* Path a suite name resolves to: <lab_root>/scenarios/suites/<name>.suite,
 * or name itself when it holds a '/' or ends in ".suite".  Caller frees. */
char *suite_path(const char *name);
/* Reads a suite: one scenario file per line, relative to
 * <lab_root>/scenarios/ (".ini" may be left out), '#' comments.  Pushes
 * each file's full path to paths.  -1 with "file:line: problem" in err. */
int suite_load(const char *name, struct strvec *paths, struct strbuf *err);
int suite_parse(const char *shown, const char *text, size_t len, const char *scenario_dir,
		struct strvec *paths, struct strbuf *err);

/* Loads and expands every file into p, refusing two scenarios with the
 * same name and two cases with the same id. */
int plan_compile_paths(const char *const *paths, size_t nr, struct plan *p, struct strbuf *err);
/* The plan text of a suite (by name or path) or of one scenario file,
 * appended to plan_text; the text is parsed back before it is returned. */
int plan_compile_suite(const char *suite, struct strbuf *plan_text, struct strbuf *err);
int plan_compile_file(const char *path, struct strbuf *plan_text, struct strbuf *err);
/*
 * Hands plan text to the runner's --check-plan (runner NULL: the one
 * initrd_find_runner() finds), so workloads and their options are checked
 * by the very code that will run them; with release (not NULL) also
 * against the kernel that will run them (an option that kernel ignores).
 * -1 with the runner's first line ("scenarios/x.ini:12: ...") in err.
 */
int plan_check_on_runner(const char *runner, const char *text, size_t len, const char *release,
			 struct strbuf *err);
/* Appends the text form of p; -1 when a field cannot be written. */
int plan_to_text(const struct plan *p, struct strbuf *out, struct strbuf *err);
/* Adds the counters in bits (PLAN_CNT_*) to every case of plan_text, in
 * place (lab run --trace: schedtrace); -1 with one line in err. */
int plan_text_add_counters(struct strbuf *plan_text, unsigned bits, struct strbuf *err);
/*
 * lab run --param [SCENARIO:]KEY=VALUE: sets (or adds) the workload
 * parameter KEY of every case, or of SCENARIO's cases only, in place;
 * the case ids stay as they were, so a run with a parameter changed
 * compares against one without.  plan_check_on_runner() then refuses a
 * KEY the workload does not take.  -1 with one line in err (bad form,
 * no case of SCENARIO, no room for another parameter).
 */
int plan_text_set_param(struct strbuf *plan_text, const char *spec, struct strbuf *err);
/* Parses a compiled plan text, hands every case to fn (ctx passed on)
 * and writes the plan back into plan_text; -1 with err, text unchanged. */
int plan_text_map(struct strbuf *plan_text, void (*fn)(struct plan_case *c, const void *ctx),
		  const void *ctx, struct strbuf *err);

/* path relative to lab_root() when inside it, else path; caller frees. */
char *lab_shown_path(const char *path);

#endif
