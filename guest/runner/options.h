/* options.h - the runner's one option system: workloads, fault kinds and
 * invariants declare options in a table (type, range, default, help). */
#ifndef RUNNER_OPTIONS_H
#define RUNNER_OPTIONS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "common/plan.h"

enum wl_opt_type {
	WL_INT,     /* decimal integer within [min, max] */
	WL_SIZE,    /* bytes: 4096, 64K, 256M, 1G; within [min, max] bytes */
	WL_STR,     /* one of `choices` (a "|"-separated list) or free text if NULL */
	WL_BOOL,    /* 0/1, yes/no, on/off */
	WL_SECONDS, /* "5", "0.25": milliseconds within [min, max] */
	WL_CPULIST, /* a kernel CPU list ("0-3,8"); "" allowed only as default */
	WL_NUMBER,  /* a decimal number (metric limits), within [min, max] */
};

struct wl_option {
	const char *name;
	enum wl_opt_type type;
	int64_t min, max;
	const char *dflt;     /* default as text; NULL = required; "" = unset */
	const char *choices;  /* WL_STR only */
	const char *help;
};

#define WL_MAX_ARGS 32

/*
 * Parsed options, one slot per entry of the table (opt[i] is table[i]
 * once set), looked up by name.  Plain data: embed it, or take one from
 * wl_args_new() (the workloads' path, freed with wl_args_free()).
 */
struct wl_args {
	const struct wl_option *table;
	unsigned nr;                      /* entries of table */
	const struct wl_option *opt[WL_MAX_ARGS];
	char text[WL_MAX_ARGS][PLAN_MAX_FIELD];
	int64_t num[WL_MAX_ARGS];
	double real[WL_MAX_ARGS];
};

/*
 * Fills a from the plan's options against table (terminated by a NULL
 * name), then the defaults; `owner` ("[fault x] (cpu_hotplug)") starts
 * every message.  -1 with one line in err, which names the offending key,
 * and sets *line to the option's line (0 when the section as a whole is
 * wrong).
 */
int wl_args_parse(struct wl_args *a, const struct wl_option *table, const char *owner,
		  const struct plan_opt *opts, unsigned nr, char *err, size_t errlen,
		  unsigned *line);

/* The value of a declared option; asking for an undeclared one is a bug
 * and aborts. */
/* The table for `runner --list-*`: one indented line per option, its
 * help and its default. */
void wl_options_list(const struct wl_option *table);

int64_t wl_int(const struct wl_args *a, const char *name);      /* INT, SIZE, BOOL, SECONDS (ms) */
double wl_number(const struct wl_args *a, const char *name);    /* NUMBER */
const char *wl_str(const struct wl_args *a, const char *name);  /* the text as given */
/* CPULIST: the set and how many CPUs are in it; 0 when unset. */
int wl_cpus(const struct wl_args *a, const char *name, cpu_set_t *set);
/* Whether the option was given or has a non-empty default. */
int wl_isset(const struct wl_args *a, const char *name);

/* "1-3,6" form of a CPU set into buf. */
void wl_format_cpus(const cpu_set_t *set, char *buf, size_t len);

/* "file:line" of an option: the file of the section's where, and line. */
void wl_opt_where(const char *section_where, unsigned line, char *buf, size_t len);

/* ---- for the workloads' path (workload.c) ---- */

/* Starts a on table: nothing set.  -1 when the table is too long (a bug). */
int wl_args_start(struct wl_args *a, const struct wl_option *table, char *err, size_t errlen);
/* Sets one option by name: 1 when table has no such option, 0, or -1 with
 * one line in err (starting "<owner>: " when owner is not NULL). */
int wl_args_put(struct wl_args *a, const char *name, const char *val, const char *owner,
		char *err, size_t errlen);
/* The defaults of what is not set: 0, 1 with *missing the first required
 * option not given, -1 when a default is bad (a bug; err says). */
int wl_args_fill(struct wl_args *a, const char *owner, const char **missing, char *err,
		 size_t errlen);

#endif
