/* scx.c - the registry of sched_ext schedulers, built from SCX_SCHED_LIST. */
#include "scx/scx.h"

#include <stdio.h>
#include <string.h>

const struct scx_sched *const scx_scheds[] = {
#define X(n) &scx_sched_##n,
	SCX_SCHED_LIST
#undef X
};
const size_t nr_scx_scheds = sizeof(scx_scheds) / sizeof(scx_scheds[0]);

const struct scx_sched *scx_sched_find(const char *name)
{
	for (size_t i = 0; i < nr_scx_scheds; i++)
		if (!strcmp(name, scx_scheds[i]->name) || !strcmp(name, scx_scheds[i]->binary))
			return scx_scheds[i];
	return NULL;
}

const char *scx_sched_names(char *buf, size_t size)
{
	size_t at = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < nr_scx_scheds && at < size; i++) {
		int n = snprintf(buf + at, size - at, "%s%s", i ? ", " : "", scx_scheds[i]->binary);

		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}
