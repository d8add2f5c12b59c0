/* park.h - warm start, the runner's side: after the topology snapshot it
 * parks until the host, having saved the guest, sends the plan. */
#ifndef RUNNER_PARK_H
#define RUNNER_PARK_H

#include <stddef.h>
#include <stdint.h>

#include "out.h"

#define PARK_SEED_LEN 32

/* What the host sends with the plan (WIRE_PLAN, common/wire.h). */
struct park_header {
	uint8_t seed[PARK_SEED_LEN];
	int64_t realtime_s;
	long realtime_ns;
	/* lab run --warm's --sched-feat and --sched-knob, set after the
	 * restore (the saved guest is the one without them): "NO_X,Y" and
	 * "NAME=VALUE,...", into the payload; NULL when not asked */
	const char *sched_feat, *sched_knob;
	size_t sched_feat_len, sched_knob_len;
	const char *plan;       /* points into the payload */
	size_t plan_len;
};

/* Parses a WIRE_PLAN payload; -1 with a reason in err on a bad one. */
int park_header_parse(const char *payload, size_t len, struct park_header *h,
		      char *err, size_t errlen);

/*
 * lab.mode=warm: sched features, topology snapshot, then a WIRE_LOG
 * WIRE_LOG_PARKED and a blocking read of o's fd for the plan; the guest's
 * RNG and wall clock are set from it, and the scheduler features and
 * knobs its header names (reported again as they are then), before the
 * first case runs.
 */
int run_parked(struct out *o);

#endif
