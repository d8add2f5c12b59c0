/* tap.h - one line of TAP (Test Anything Protocol) output, as kselftest
 * runners print it: "ok 3 name # SKIP why", "not ok 4 - name". */
#ifndef RUNNER_TAP_H
#define RUNNER_TAP_H

#include <stddef.h>

enum tap_result { TAP_OK, TAP_NOT_OK, TAP_SKIP };

struct tap_line {
	enum tap_result result;  /* ok with a SKIP directive is TAP_SKIP */
	unsigned number;         /* 0 when the line has none */
	char name[128];          /* without a leading "- ", cut to fit */
	char reason[192];        /* after "# SKIP" (or "# TODO"), trimmed; "" */
	int todo;                /* a TODO directive: not ok does not count */
};

/* Parses line (len bytes, a trailing newline allowed).  1 and t filled
 * when it is a test line, 0 when it is anything else (plans, comments,
 * the test's own output). */
int tap_parse_line(const char *line, size_t len, struct tap_line *t);

#endif
