/* sysctl_flip.h - the parts of the sysctl_flip fault its unit tests reach:
 * the value list and the sched feature lookup. */
#ifndef LAB_SYSCTL_FLIP_H
#define LAB_SYSCTL_FLIP_H

#define FLIP_MAX_VALUES 16

unsigned flip_split_values(const char *s, char out[][64], unsigned max);
int flip_feature_state(const char *text, const char *name);

#endif
