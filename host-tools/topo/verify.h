/* verify.h - compares the guest's view of its machine with the view the
 * topology model expects, producing a readable diff. */
#ifndef LAB_VERIFY_H
#define LAB_VERIFY_H

#include "lib/util.h"

struct json_object;

/* Memory a node may lose to the kernel before it counts as a mismatch:
 * the guest sees MemTotal, which excludes reserved and kernel memory. */
#define VIEW_MEM_SLACK_PCT 15
#define VIEW_MEM_SLACK_MIB 96

/*
 * Appends one line per difference to diff ("cpu 3: llc expected 0-7,
 * guest has 0-3"), at most max_lines of them plus a count of the rest.
 * Returns the number of differences (0: the guest matches).  Domain names
 * DIE (before 6.7) and PKG (since) count as the same level.
 */
int view_compare(struct json_object *expected, struct json_object *guest,
		 struct strbuf *diff, int max_lines);

#endif
