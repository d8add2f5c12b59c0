/* lavalog.h - reads the job log a LAVA server serves (/api/v0.2/jobs/ID/logs/):
 * a YAML list of {dt, lvl, msg} mappings, one per line LAVA recorded. */
#ifndef LAB_LAVALOG_H
#define LAB_LAVALOG_H

#include <stddef.h>

#include "lib/util.h"

/*
 * One entry.  msg is the text when the log holds a string there, else
 * NULL (lvl "results" carries a mapping: error_type and error_msg are
 * then its values of those keys, NULL when absent).  All valid only
 * during the call.
 */
struct lava_entry {
	const char *dt, *lvl, *msg;
	size_t msg_len;
	const char *error_type, *error_msg;
};
typedef void (*lava_entry_fn)(const struct lava_entry *e, void *ctx);

/* Parses the whole log (libyaml) and calls fn per entry, in order.
 * Returns the number of entries, or -1 with one line in err when the
 * text is not YAML or not a list of mappings with a string lvl. */
long lava_log_parse(const char *text, size_t len, lava_entry_fn fn, void *ctx,
		    struct strbuf *err);

/*
 * How a LAVA job's end maps to the lab's verdict (docs/lava.md): one row
 * per health and error type, the first match wins (NULL matches any).
 * own: the run's own verdict (from its records and console) stands;
 * else verdict, with the prefix and LAVA's error message as the reason.
 */
struct lava_health_map {
	const char *health;
	const char *error_type;
	int own;
	const char *verdict;    /* a verdict's name (verdict_name() of run/session.h) */
	const char *prefix;
};
/* The row for a job's health and error type; NULL: health unknown
 * (a job not finished, or not a LAVA health at all). */
const struct lava_health_map *lava_health_lookup(const char *health, const char *error_type);

#endif
