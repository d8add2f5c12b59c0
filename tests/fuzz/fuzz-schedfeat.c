/* fuzz-schedfeat.c - libFuzzer target for the scheduler-feature lists: the
 * guest's features line in a snapshot (untrusted) and a user's list. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/schedfeat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every parsed token is a valid name, and a list joined and parsed again
 * gives the same list. */
static void check_list(const struct sched_feat_list *l, char sep)
{
	static struct sched_feat_list again;
	static char buf[SCHED_FEAT_MAX * (SCHED_FEAT_NAME_MAX + 1) + 1];
	size_t n;

	if (l->nr > SCHED_FEAT_MAX)
		abort();
	for (unsigned i = 0; i < l->nr; i++)
		if (sched_feat_token_ok(l->name[i], strlen(l->name[i])) < 0 ||
		    sched_feat_find(l, l->name[i]) != (int)i)
			abort();
	n = sched_feat_join(l, sep, buf, sizeof(buf));
	if (n >= sizeof(buf) || strlen(buf) != n)
		abort();
	if (l->nr && sched_feat_list_parse(buf, n, sep, SCHED_FEAT_MAX, &again, NULL, 0) < 0)
		abort();
	if (l->nr && again.nr != l->nr)
		abort();
	for (unsigned i = 0; l->nr && i < l->nr; i++)
		if (strcmp(again.name[i], l->name[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched_feat_list l, want;
	struct strbuf err = STRBUF_INIT;
	char msg[256];
	int r;

	r = sched_feat_from_snapshot((const char *)data, size, &l, &err);
	if (r < 0 && (!err.len || strchr(err.buf, '\n')))
		abort();
	if (r > 0) {
		check_list(&l, ' ');
		/* a request of the first few features is known and in effect */
		want.nr = l.nr < SCHED_FEAT_WANT_MAX ? l.nr : SCHED_FEAT_WANT_MAX;
		memcpy(want.name, l.name, sizeof(l.name[0]) * want.nr);
		if (sched_feat_check_known(&want, &l, "k", &err) < 0 ||
		    sched_feat_check_state(&want, &l, &err) < 0)
			abort();
	}
	if (sched_feat_list_parse((const char *)data, size, ',', SCHED_FEAT_WANT_MAX, &l, msg,
				  sizeof(msg)) == 0)
		check_list(&l, ',');
	else if (strchr(msg, '\n'))
		abort();
	strbuf_release(&err);
	return 0;
}
