/* expect.h - performance expectations, `CASE:METRIC OP [+-]N%` on the
 * command line and `METRIC OP [+-]N%` in a scenario's `expect` key. */
#ifndef LAB_EXPECT_H
#define LAB_EXPECT_H

#include "lib/util.h"

enum expect_op {
	EXPECT_LE,	/* <=: test/base - 1 is at most the bound */
	EXPECT_GE,	/* >=: at least the bound */
	EXPECT_EQ,	/* ==: within +-bound */
};

#define EXPECT_MAX_CASE 200
#define EXPECT_MAX_METRIC 48

/*
 * One expectation on the change of a metric, test against base, as a
 * fraction: `time <= +1%` is bound 0.01, `>= -3%` is -0.03, `== 2%` (or
 * `== +-2%`) is 0.02 and means within +-2 %.  The change is the ratio
 * of the sides' statistics minus one, whatever the metric's direction.
 * case_id is a case id, or a scenario name standing for each of its cases.
 */
struct expect {
	char case_id[EXPECT_MAX_CASE + 1];
	char metric[EXPECT_MAX_METRIC];
	enum expect_op op;
	double bound;
	char text[EXPECT_MAX_CASE + EXPECT_MAX_METRIC + 32];	/* as written, normalized */
};

/*
 * Parses `CASE:METRIC OP [+-]N%` (case_id NULL) or, for a scenario's key,
 * `METRIC OP [+-]N%` with case_id the scenario's name.  Blanks around the
 * operator are optional; N is a decimal below 100 (above 0 for ==).
 * -1 with one line in err (no file position), else 0.
 */
int expect_parse(const char *s, const char *case_id, struct expect *out, struct strbuf *err);
const char *expect_op_name(enum expect_op op);	/* "<=", ">=", "==" */

#endif
