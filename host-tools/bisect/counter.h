/* counter.h - the value a bisection takes from one boot's case: a metric's
 * mean, or one of the kernel counters of the case (as lab compare lists
 * them) that a bisection can follow without tracing. */
#ifndef LAB_BISECT_COUNTER_H
#define LAB_BISECT_COUNTER_H

#include "lib/util.h"
#include "report/compare.h"

/*
 * Whether `name` is such a counter of a case collecting `counters`
 * (PLAN_CNT_* bits): 1 with its direction in *higher_better, else 0.
 * A wakeup that wake_affine() pulled to the waker's CPU is locality, so
 * ttwu_move_affine is higher-is-better (as wake_waker_pct); moves and
 * failures are lower-is-better.
 */
int bisect_counter_metric(const char *name, unsigned counters, int *higher_better);
/* Appends the names a case collecting `counters` offers, ", " between. */
void bisect_counter_names(unsigned counters, struct strbuf *sb);
/* The counter's value in one case, summed over the scheduling domains it
 * has one for; NAN when the case has none. */
double bisect_counter_value(const struct cmp_case *c, const char *name);
/*
 * The value of `metric` in one boot's case: the mean of its runs, else the
 * counter of that name; NAN when the case did not pass (a stalled or
 * crashed guest's numbers are not the kernel's, and lab compare leaves
 * them out too) or has neither.
 */
double bisect_case_value(const struct cmp_case *c, const char *metric);

#endif
