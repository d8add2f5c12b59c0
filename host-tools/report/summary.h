/* summary.h - what a comparison concludes, as a list of items that the text,
 * JSON and HTML renderers each draw: no renderer parses another's output. */
#ifndef LAB_SUMMARY_H
#define LAB_SUMMARY_H

#include "report/compare.h"

enum summary_kind {
	SUMMARY_LINE,	/* a heading or a fixed sentence: one line as it is */
	SUMMARY_PARA,	/* a sentence that may be wrapped */
	SUMMARY_ITEM,	/* one entry of the list the last line opened */
	SUMMARY_MORE,	/* "... and N more" closing a cut list */
	SUMMARY_END,	/* ends a group (text: a blank line) */
};

struct summary_item {
	enum summary_kind kind;
	char *text;		/* owned; "" for SUMMARY_END */
};

/* Owns its items; summary_release() frees them and leaves it empty. */
struct summary {
	struct summary_item *v;
	size_t nr;
};
#define SUMMARY_INIT { NULL, 0 }

/* The summary of c: per-run counts, largest changes, variance changes,
 * the counters that moved with them, undecided rows, failed and skipped cases. */
void comparison_summary(const struct comparison *c, struct summary *s);
void summary_release(struct summary *s);
const char *summary_kind_name(enum summary_kind k);

#endif
