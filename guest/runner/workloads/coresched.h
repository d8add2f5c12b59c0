/* coresched.h - the part of the coresched workload its unit tests reach:
 * prctl(PR_SCHED_CORE), with the constants older headers lack. */
#ifndef LAB_CORESCHED_H
#define LAB_CORESCHED_H

#include <linux/prctl.h>
#include <stdint.h>
#include <sys/prctl.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#define PR_SCHED_CORE_SCOPE_THREAD 0
#define PR_SCHED_CORE_SCOPE_THREAD_GROUP 1
#endif

int cs_prctl(unsigned long cmd, unsigned long type, uint64_t *cookie);

#endif
