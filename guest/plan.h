/* plan.h - the compiled plan the host hands the runner: scenario cases
 * after matrix expansion; one definition compiled into both sides. */
#ifndef LAB_PLAN_H
#define LAB_PLAN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Text, one record per line, fields separated by one TAB, no TAB or
 * newline inside a field (the host refuses such values):
 *
 *   schedlab-plan	1
 *   case	<case id>			starts a case, e.g. "hackbench/groups=4"
 *   scenario	<scenario name>
 *   source	<file>:<line>			where the scenario starts
 *   workload	<name>
 *   param	<key>	<value>	<file>:<line>	one per workload option
 *   runs	<n>				measured runs
 *   warmup	<n>				runs before them, not reported as results
 *   deadline	<seconds>			for the whole case (all runs)
 *   counters	<name> [<name>...]		space-separated: schedstat vmstat tasks
 *   metric	<name>	<higher|lower>	<amean|hmean|median>	<unit>
 *   end
 *
 * Cases run in file order.  Unknown record kinds are an error (the two
 * sides are built from one tree), as is anything after the last "end".
 */
#define PLAN_VERSION 1
#define PLAN_MAX_CASES 4096
#define PLAN_MAX_PARAMS 32
#define PLAN_MAX_METRICS 16
#define PLAN_MAX_FIELD 256

struct plan_param {
	char key[64];
	char value[PLAN_MAX_FIELD];
	char where[PLAN_MAX_FIELD]; /* file:line */
};

struct plan_metric {
	char name[48];
	int higher_is_better;
	char statistic[8];  /* amean, hmean, median */
	char unit[16];
};

enum plan_counter {
	PLAN_CNT_SCHEDSTAT = 1u << 0,
	PLAN_CNT_VMSTAT = 1u << 1,
	PLAN_CNT_TASKS = 1u << 2,
};

struct plan_case {
	char id[PLAN_MAX_FIELD];
	char scenario[128];
	char source[PLAN_MAX_FIELD];
	char workload[48];
	struct plan_param params[PLAN_MAX_PARAMS];
	unsigned nr_params;
	unsigned runs, warmup, deadline_s;
	unsigned counters; /* enum plan_counter bits */
	struct plan_metric metrics[PLAN_MAX_METRICS];
	unsigned nr_metrics;
};

struct plan {
	struct plan_case *cases; /* malloc'ed; plan_release() frees */
	unsigned nr_cases;
};

/* Parses text into p.  -1 with "line N: problem" in err. */
int plan_parse(const char *text, size_t len, struct plan *p, char *err, size_t errlen);
void plan_release(struct plan *p);

/* Appends the text form of one case to a caller-supplied writer. */
typedef void (*plan_emit_fn)(void *ctx, const char *s, size_t len);
void plan_write_header(plan_emit_fn emit, void *ctx);
/* -1 when a field holds a TAB or newline (err names it). */
int plan_write_case(const struct plan_case *c, plan_emit_fn emit, void *ctx,
		    char *err, size_t errlen);

#endif
