/* cgroup_churn.h - the parts of the cgroup_churn fault its unit tests
 * reach: the knobs and their list option. */
#ifndef LAB_CGROUP_CHURN_H
#define LAB_CGROUP_CHURN_H

#include <stddef.h>

enum knob { KNOB_CPU_MAX, KNOB_CPU_WEIGHT, KNOB_CPUSET_CPUS, KNOB_CPUSET_MEMS, NR_KNOBS };

int churn_parse_knobs(const char *list, unsigned *out, unsigned *nr, char *err, size_t len);

#endif
