/* counter.c - the value a bisection takes from a case (counter.h). */
#include "bisect/counter.h"
#include "common/plan.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned needs;		/* PLAN_CNT_* the case must collect */
	int higher_better;
} counters_known[] = {
	{ "ttwu_move_affine", PLAN_CNT_SCHEDSTAT, 1 },
	{ "lb_failed", PLAN_CNT_SCHEDSTAT, 0 },
	{ "migrations/run", PLAN_CNT_TASKS, 0 },
	{ "wakeups_migrate/run", PLAN_CNT_TASKS, 0 },
	{ "invol_switches/run", PLAN_CNT_TASKS, 0 },
	{ "failed_hot/run", PLAN_CNT_TASKS, 0 },
};

int bisect_counter_metric(const char *name, unsigned counters, int *higher_better)
{
	for (size_t k = 0; k < ARRAY_SIZE(counters_known); k++)
		if ((counters & counters_known[k].needs) && !strcmp(counters_known[k].name, name)) {
			*higher_better = counters_known[k].higher_better;
			return 1;
		}
	return 0;
}

void bisect_counter_names(unsigned counters, struct strbuf *sb)
{
	for (size_t k = 0; k < ARRAY_SIZE(counters_known); k++)
		if (counters & counters_known[k].needs)
			strbuf_addf(sb, "%s%s", sb->len ? ", " : "", counters_known[k].name);
}

double bisect_counter_value(const struct cmp_case *c, const char *name)
{
	double sum = 0;
	int have = 0;

	for (size_t k = 0; k < c->nr_counters; k++) {
		if (strcmp(c->counters[k].name, name) || !isfinite(c->counters[k].value))
			continue;
		sum += c->counters[k].value;
		have = 1;
	}
	return have ? sum : NAN;
}

double bisect_case_value(const struct cmp_case *c, const char *metric)
{
	double mean;

	if (!c->verdict || strcmp(c->verdict, "PASS"))
		return NAN;
	mean = cmp_case_metric_mean(c, metric);
	return isnan(mean) ? bisect_counter_value(c, metric) : mean;
}
