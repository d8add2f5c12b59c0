/* prevstate.h - how a guest kernel encodes sched_switch's prev_state, read
 * from the "print fmt" of its own format file rather than assumed. */
#ifndef LAB_PREVSTATE_H
#define LAB_PREVSTATE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The kernel prints prev_state as "R" when no bit of state_mask is set,
 * else the letters of those bits, and "+" (preempted) when preempt_bit is
 * set.  6.1 and 6.12: state_mask 0xff (TASK_REPORT_MAX - 1), preempt_bit
 * 0x100 (TASK_REPORT_MAX); before 4.14 a raw state under TASK_STATE_MAX
 * (2048 or 4096) and that bit.
 */
struct prevstate {
	uint64_t state_mask;
	uint64_t preempt_bit;
};

/*
 * Reads the encoding from the "print fmt:" line of a sched_switch format
 * file (text of len bytes, not NUL-terminated; untrusted, bounded): the
 * argument "(REC->prev_state & <mask>) ? __print_flags(...) : "R"" and the
 * argument "REC->prev_state & <bit> ? "+" : """, whose constant
 * expressions are evaluated.  0 and *ps; -1 and one line in why (no print
 * fmt, neither argument, an expression it cannot read, a bit that is not
 * one bit or overlaps the mask).
 */
int prevstate_from_format(const char *text, size_t len, struct prevstate *ps, char *why,
			  size_t whylen);

/* The lab's report bits (schedmetrics.h ST_STATE_*) of a raw prev_state. */
int prevstate_canonical(const struct prevstate *ps, int64_t raw);

#endif
