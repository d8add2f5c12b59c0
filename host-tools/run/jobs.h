/* jobs.h - guests at a time: the default of --jobs in lab ab, lab matrix
 * and lab bisect, and the line their header prints about it. */
#ifndef LAB_JOBS_H
#define LAB_JOBS_H

#include "lib/util.h"

#define JOBS_MAX 16

struct jobs_plan {
	unsigned n;		/* guests at a time */
	int given;		/* --jobs said so */
	int virtual_clock;	/* every guest on icount's one TCG thread */
	unsigned host_cpus;	/* CPUs this process may run on */
	unsigned threads;	/* host threads one busy guest keeps running */
	unsigned by_mem;	/* guests the host's available memory holds */
	unsigned vcpus;		/* the guest's boot vCPUs */
};

/*
 * Host facts the default is made of; jobs_plan() reads them from this host
 * (sched_getaffinity, /proc/meminfo), tests give their own.
 */
struct jobs_host {
	unsigned cpus;
	uint64_t mem_avail_mib;	/* 0: not known, memory sets no bound */
};

/*
 * The plan for guests of topology spec `topo` on clock virtual (1) or wall
 * (0): `given` guests at a time when nonzero, else the default, which is
 * the host CPUs over the threads a guest keeps busy (one under the virtual
 * clock: icount runs every vCPU on one TCG thread; else one per boot vCPU,
 * at most the host's CPUs), at most what 3/4 of the available memory
 * holds, at least 1.  -1 with one line in err for a bad spec.
 */
int jobs_plan_for(const char *topo, int virtual_clock, unsigned given, const struct jobs_host *h,
		  struct jobs_plan *p, struct strbuf *err);
int jobs_plan(const char *topo, int virtual_clock, unsigned given, struct jobs_plan *p,
	      struct strbuf *err);

/*
 * What the run's header says (one line, no newline): the guests at a time
 * and where the number came from; under the virtual clock that results do
 * not depend on it, on the wall clock with more than one a warning that
 * the guests disturb each other.  *warn is set for the latter.
 */
void jobs_note(const struct jobs_plan *p, struct strbuf *out, int *warn);

#endif
