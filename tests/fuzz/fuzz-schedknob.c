/* fuzz-schedknob.c - libFuzzer target for the scheduler knobs and modes: a
 * user's knob list, the guest's snapshot lines (untrusted), kernel releases. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/kversion.h"
#include "run/schedknob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A parsed list is in range, and joined and parsed again gives itself. */
static void check_knobs(const struct sched_knob_set *s)
{
	struct sched_knob_set again;
	char buf[SCHED_KNOB_WANT_MAX * (SCHED_KNOB_NAME_MAX + 24) + 1];
	size_t n;

	if (!s->nr || s->nr > SCHED_KNOB_WANT_MAX)
		abort();
	for (unsigned i = 0; i < s->nr; i++)
		if (s->v[i].value < s->v[i].knob->min || s->v[i].value > s->v[i].knob->max)
			abort();
	n = sched_knob_join(s, ',', buf, sizeof(buf));
	if (n >= sizeof(buf) || sched_knob_parse(buf, n, &again, NULL, 0) < 0 || again.nr != s->nr)
		abort();
	for (unsigned i = 0; i < s->nr; i++)
		if (again.v[i].knob != s->v[i].knob || again.v[i].value != s->v[i].value)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct sched_knob_set s;
	struct sched_knob_state st;
	struct strbuf err = STRBUF_INIT;
	char msg[256], release[64];
	unsigned offered, maj, min;
	int active;

	if (sched_knob_parse(text, size, &s, msg, sizeof(msg)) == 0)
		check_knobs(&s);
	else if (strchr(msg, '\n'))
		abort();
	if (sched_preempt_parse(text, size, &offered, &active, msg, sizeof(msg)) == 0) {
		if (active < 0 || active >= SCHED_PREEMPT_NR || !(offered & (1u << active)) ||
		    offered >> SCHED_PREEMPT_NR)
			abort();
	} else if (strchr(msg, '\n')) {
		abort();
	}
	if (sched_knob_from_snapshot(text, size, &st, &err) < 0 && (!err.len || strchr(err.buf, '\n')))
		abort();
	if (st.preempt_found && (st.preempt_active < 0 || !(st.preempt_offered & (1u << st.preempt_active))))
		abort();
	/* a release is a string: the first line of the input */
	if (size < sizeof(release)) {
		memcpy(release, data, size);
		release[size] = '\0';
		if (kversion_parse(release, &maj, &min) == 0 &&
		    (kversion_at_least(release, release) != 1 || kversion_at_least(release, "0.0") != 1))
			abort();
	}
	strbuf_release(&err);
	return 0;
}
