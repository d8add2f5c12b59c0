/* fuzz-prevstate.c - libFuzzer target for the prev_state encoding reader:
 * a sched_switch format's print fmt and its constant expressions; what
 * is accepted must make sense. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/prevstate.h"
#include "results/schedmetrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prevstate ps;
	char why[160];

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
	return 0;
}
