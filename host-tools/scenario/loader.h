/* loader.h - what the parts of the scenario loader share (private to
 * scenario/): the reader's state, the section keys, one-line errors. */
#ifndef LAB_SCENARIO_LOADER_H
#define LAB_SCENARIO_LOADER_H

#include "scenario/scenario.h"

enum section {
	SEC_NONE,
	SEC_SCENARIO,
	SEC_PARAMS,
	SEC_METRIC,
	SEC_FAULT,
	SEC_INVARIANT,
};

enum scenario_key {
	KEY_NAME,
	KEY_DESCRIPTION,
	KEY_WORKLOAD,
	KEY_RUNS,
	KEY_WARMUP,
	KEY_DEADLINE,
	KEY_COUNTERS,
	KEY_PROFILE,
	KEY_PROFILE_PER,
	KEY_TRACE_BUFFER_KB,
	KEY_WC_GRACE_MS,
	KEY_TRACE_KEEP_MB,
	KEY_TRACE_RUN_MB,
	KEY_PIN,
	KEY_SCHEDULER,
	KEY_PRIMARY,
	KEY_EXPECT,
	NR_SCENARIO_KEYS,
};

enum metric_key { MKEY_BETTER, MKEY_STATISTIC, MKEY_UNIT, NR_METRIC_KEYS };

/* The keys every [fault] has; any other key belongs to the fault's kind
 * and is checked by the runner, which implements the kind. */
enum fault_key {
	FKEY_KIND,
	FKEY_TARGET,
	FKEY_START,
	FKEY_PERIOD,
	FKEY_COUNT,
	FKEY_DURATION,
	FKEY_HOLD,
	NR_FAULT_KEYS,
};

/* What a file gets when it says nothing: a few runs, generous time, and the
 * per-task counters, which cost nothing (read once as each task exits). */
#define DEFAULT_RUNS 3
#define DEFAULT_WARMUP 0
#define DEFAULT_DEADLINE 600
#define DEFAULT_COUNTERS PLAN_CNT_TASKS

struct loader {
	struct scenario *s;
	const char *text;
	size_t len, pos;
	unsigned lineno;
	enum section sec;
	unsigned metric;        /* index into s->metrics in SEC_METRIC */
	unsigned section_index; /* into s->faults / s->invariants */
	int key_in_section;     /* inih would take an indented line as continuation */
	unsigned scenario_line, params_line;
	unsigned key_lines[NR_SCENARIO_KEYS];
	unsigned metric_key_lines[PLAN_MAX_METRICS][NR_METRIC_KEYS];
	unsigned fault_key_lines[PLAN_MAX_FAULTS][NR_FAULT_KEYS];
	unsigned fault_duration_ms[PLAN_MAX_FAULTS];
	unsigned fault_lines[PLAN_MAX_FAULTS], invariant_lines[PLAN_MAX_INVARIANTS];
	int invariant_has_kind[PLAN_MAX_INVARIANTS];
	struct strbuf *err;
	unsigned err_line;      /* of the first error; 0 = none yet */
};

/* User text inside a one-line message: printable, cut to fit buf. */
const char *scenario_quoted(const char *s, char *buf, size_t size);
/* Lowercase letters, digits and '_' (with extra_punct also '-' and '.'
 * after the first), 1 to max characters. */
int scenario_is_word(const char *s, size_t max, int extra_punct);
/* The first character of [s, e) that is not white space. */
const char *scenario_lskip(const char *s, const char *e);
/* "<shown>:<line>: <why>" into l->err; the first error wins.  Returns -1. */
int loader_fail_at(struct loader *l, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* lines.c: inih's line reader; checks each line and follows the sections. */
char *loader_read_line(char *buf, int num, void *stream);
/* values.c: inih's handler, one key at a time; nonzero to go on. */
int loader_handle_key(void *user, const char *section, const char *name, const char *value);
void scenario_param_release(struct scenario_param *p);
/* checks.c: what only the whole file tells (missing keys, the matrix's size). */
int loader_check(struct loader *l);

#endif
