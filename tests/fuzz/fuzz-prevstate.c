/* fuzz-prevstate.c - libFuzzer target for the prev_state encoding reader:
 * a sched_switch format's print fmt, its constant expressions, the
 * runner's "tasks" list; what is accepted must make sense. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/prevstate.h"
#include "results/schedmetrics.h"
#include "results/schedtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prevstate ps;
	char why[160];
	const char *twhy;
	int *tids;
	size_t nr;

	if (!prevstate_from_format((const char *)data, size, &ps, why, sizeof(why))) {
		/* one "+" bit outside a non-empty letters' mask */
		if (!ps.state_mask || !ps.preempt_bit || (ps.preempt_bit & (ps.preempt_bit - 1)) ||
		    (ps.preempt_bit & ps.state_mask))
			abort();
		if (prevstate_canonical(&ps, 0) != 0 ||
		    prevstate_canonical(&ps, (int64_t)ps.preempt_bit) != ST_STATE_PREEMPTED)
			abort();
		for (int b = 0; b < 63; b++)
			if ((ps.state_mask >> b & 1) &&
			    !(prevstate_canonical(&ps, (int64_t)1 << b) & ST_STATE_LEFT))
				abort();
	} else if (!why[0] || !memchr(why, '\0', sizeof(why))) {
		abort();
	}
	/* the same bytes as a "tasks" record: every tid listed is a pid */
	if (!schedtrace_parse_tasks((const char *)data, size, &tids, &nr, &twhy)) {
		for (size_t i = 0; i < nr; i++)
			if (tids[i] <= 0)
				abort();
		free(tids);
	} else if (tids || !twhy) {
		abort();
	}
	return 0;
}
