/* fuzz-park.c - libFuzzer target for what a parked runner reads from the
 * record channel: WIRE_PLAN frames and their seed/clock/variant header. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"
#include "runner/park.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_record(const struct wire_record *rec, void *ctx)
{
	struct park_header h;
	char err[128];

	(void)ctx;
	if (rec->type != WIRE_PLAN)
		return 0;
	if (park_header_parse(rec->payload, rec->len, &h, err, sizeof(err)) == 0) {
		/* the plan lies inside the payload, after the header */
		if (h.plan < rec->payload || h.plan + h.plan_len != rec->payload + rec->len)
			abort();
		if (h.realtime_ns < 0 || h.realtime_ns > 999999999 || h.realtime_s < 0)
			abort();
	} else if (!err[0]) {
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_decoder d;
	struct park_header h;
	char err[128];

	/* the header parser alone, on any bytes */
	err[0] = '\0';
	if (park_header_parse((const char *)data, size, &h, err, sizeof(err)) == 0) {
		const char *b = (const char *)data, *e = b + size;

		if (h.plan + h.plan_len != e)
			abort();
		/* what a warm run sets: inside the header, one line, not empty */
		if (h.sched_feat && (h.sched_feat < b || h.sched_feat + h.sched_feat_len >= h.plan ||
				     !h.sched_feat_len || memchr(h.sched_feat, '\n', h.sched_feat_len)))
			abort();
		if (h.sched_knob && (h.sched_knob < b || h.sched_knob + h.sched_knob_len >= h.plan ||
				     !h.sched_knob_len || memchr(h.sched_knob, '\n', h.sched_knob_len)))
			abort();
	}
	/* and as the runner meets it: frames amid noise */
	wire_decoder_init(&d);
	wire_decoder_feed(&d, data, size, on_record, NULL);
	wire_decoder_release(&d);
	return 0;
}
