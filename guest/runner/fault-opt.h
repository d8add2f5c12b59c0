/* fault-opt.h - option tables of fault and invariant kinds: declared with
 * ranges, defaults and help like workload options, parsed from plan fopt/iopt records. */
#ifndef RUNNER_FAULT_OPT_H
#define RUNNER_FAULT_OPT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "common/plan.h"

enum fopt_type {
	FOPT_INT,     /* decimal integer within [min, max] */
	FOPT_SIZE,    /* bytes: 4096, 64K, 256M, 1G; within [min, max] */
	FOPT_STR,     /* one of `choices` ("|"-separated) or free text if NULL */
	FOPT_BOOL,    /* 0/1, yes/no, on/off */
	FOPT_SECONDS, /* "5", "0.25": milliseconds within [min, max] */
	FOPT_CPULIST, /* a kernel CPU list ("0-3,8"); "" allowed only as default */
	FOPT_NUMBER,  /* a decimal number (metric limits), within [min, max] */
};

struct fopt {
	const char *name;
	enum fopt_type type;
	int64_t min, max;
	const char *dflt;     /* default as text; NULL = required; "" = unset */
	const char *choices;  /* FOPT_STR only */
	const char *help;
};

#define FOPT_MAX 16

/* Parsed options of one fault or invariant, looked up by name. */
struct fopt_args {
	const struct fopt *table;
	unsigned nr;
	const struct fopt *opt[FOPT_MAX];
	char text[FOPT_MAX][sizeof(((struct plan_opt *)0)->value)];
	int64_t num[FOPT_MAX];
	double real[FOPT_MAX];
};

/*
 * Fills a from the plan's options against table (terminated by a NULL
 * name), then the defaults; `owner` names the fault or invariant kind in
 * messages.  -1 with one line in err, which names the offending key, and
 * sets *line to the option's line (0 when the section as a whole is wrong).
 */
int fopt_parse(struct fopt_args *a, const struct fopt *table, const char *owner,
	       const struct plan_opt *opts, unsigned nr, char *err, size_t errlen,
	       unsigned *line);

int64_t fopt_int(const struct fopt_args *a, const char *name);      /* INT, SIZE, BOOL, SECONDS (ms) */
double fopt_number(const struct fopt_args *a, const char *name);    /* NUMBER */
const char *fopt_str(const struct fopt_args *a, const char *name);  /* the text as given */
/* CPULIST: the set and how many CPUs are in it; 0 when unset. */
int fopt_cpus(const struct fopt_args *a, const char *name, cpu_set_t *set);
/* Whether the option was given or has a non-empty default. */
int fopt_isset(const struct fopt_args *a, const char *name);

/* "1-3,6" form of a CPU set into buf. */
void fopt_format_cpus(const cpu_set_t *set, char *buf, size_t len);

/* "file:line" of an option: the file of the section's where, and line. */
void fopt_where(const char *section_where, unsigned line, char *buf, size_t len);

#endif
