/* hostfault.h - faults the host inflicts on a running guest through QMP
 * (pause/resume, NMI, vCPU throttling), timed from the runner's run_start. */
#ifndef LAB_HOSTFAULT_H
#define LAB_HOSTFAULT_H

#include <stdint.h>

#include "plan.h"
#include "util.h"

struct backend;

/* The kinds the host implements; scenario.c marks these side "host". */
extern const char *const hostfault_kinds[];

#define HOSTFAULT_MAX_PENDING 64

struct hostfault_action {
	uint64_t at_ns;             /* CLOCK_MONOTONIC */
	const struct plan_case *c;
	const struct plan_fault *f;
	unsigned run, seq;
	int undo;                   /* the second half of an action (cont, unthrottle) */
};

/*
 * One per session.  The plan is borrowed.  Actions and their outcomes are
 * appended to <run_dir>/host-faults.jsonl as they happen (raw data).
 */
struct hostfault {
	const struct plan *plan;
	const char *run_dir;
	uint64_t t0_ns;             /* session start, for relative times */
	struct hostfault_action pending[HOSTFAULT_MAX_PENDING];
	unsigned nr_pending;
	int paused;                 /* the guest is stopped by us */
	char cgroup[256];           /* throttle cgroup we created, "" if none */
	unsigned long long actions, failures;
};

void hostfault_init(struct hostfault *h, const struct plan *plan, const char *run_dir,
		    uint64_t t0_ns);

/* Feed every WIRE_EVENT payload; run_start events schedule the host
 * faults of that case. */
void hostfault_on_event(struct hostfault *h, const char *json, size_t len);

/* CLOCK_MONOTONIC time of the next due action, or 0 when none. */
uint64_t hostfault_next_ns(const struct hostfault *h);

/* Performs every action due by now through the backend. */
void hostfault_tick(struct hostfault *h, struct backend *b, uint64_t now);

/* Undoes whatever is still in effect (resume, remove throttling) and
 * drops pending actions; call before stopping the backend. */
void hostfault_finish(struct hostfault *h, struct backend *b);

/* Parses "40" or "40%" into a percentage of one CPU in 1..100. */
int hostfault_parse_quota(const char *s, unsigned *pct);

#endif
