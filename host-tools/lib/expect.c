/* expect.c - the grammar of performance expectations (`lab ab --expect`
 * and a scenario's `expect` key): parsed strictly, bad input one line. */
#include "lib/expect.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *expect_op_name(enum expect_op op)
{
	return op == EXPECT_LE ? "<=" : op == EXPECT_GE ? ">=" : "==";
}

static int is_case_char(int c)
{
	return isalnum(c) || (c && strchr("_-.=,/+", c));
}

static int is_metric_char(int c)
{
	return isalnum(c) || c == '_' || c == '/';
}

/* "[+-]N%", "+-N%" for ==: a decimal below 100, nothing after the '%' */
static int parse_bound(const char *s, enum expect_op op, double *out)
{
	int sign = 1, both = 0;
	char *end;
	double v;

	if (!strncmp(s, "+-", 2)) {
		both = 1;
		s += 2;
	} else if (*s == '+' || *s == '-') {
		sign = *s == '-' ? -1 : 1;
		s++;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtod(s, &end);
	if (end == s || *end != '%' || end[1] || !isfinite(v) || v >= 100)
		return -1;
	for (const char *p = s; p < end; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return -1;	/* no exponents, no hex */
	if (op == EXPECT_EQ) {
		if (sign < 0 || (s[-1] == '+' && !both) || !(v > 0))
			return -1;
	} else if (both) {
		return -1;
	}
	*out = sign * v / 100;
	return 0;
}

int expect_parse(const char *s, const char *case_id, struct expect *out, struct strbuf *err)
{
	const char *p = s, *b, *ops[] = { "<=", ">=", "==" };
	size_t n;
	int op = -1;

	memset(out, 0, sizeof(*out));
	if (!case_id) {
		for (b = p; is_case_char((unsigned char)*p); p++)
			;
		n = (size_t)(p - b);
		if (*p != ':' || !n || n > EXPECT_MAX_CASE)
			goto bad;
		memcpy(out->case_id, b, n);
		p++;
	} else {
		if (strlen(case_id) > EXPECT_MAX_CASE)
			goto bad;
		strcpy(out->case_id, case_id);
	}
	for (b = p; is_metric_char((unsigned char)*p); p++)
		;
	n = (size_t)(p - b);
	if (!n || n >= EXPECT_MAX_METRIC)
		goto bad;
	memcpy(out->metric, b, n);
	while (*p == ' ')
		p++;
	for (int k = 0; k < 3; k++)
		if (!strncmp(p, ops[k], 2))
			op = k;
	if (op < 0)
		goto bad;
	out->op = (enum expect_op)op;
	p += 2;
	while (*p == ' ')
		p++;
	if (parse_bound(p, out->op, &out->bound) < 0)
		goto bad;
	snprintf(out->text, sizeof(out->text), "%s:%s %s %s%g%%", out->case_id, out->metric,
		 expect_op_name(out->op), out->op == EXPECT_EQ ? "+-" : out->bound >= 0 ? "+" : "",
		 out->bound * 100);
	return 0;
bad:
	strbuf_addf(err, "bad expectation '%.80s' (%sMETRIC OP N%%, OP one of <=, >=, ==, N a signed "
		    "percentage below 100 such as +1%% or -0.5%%, == takes N%% or +-N%%)", s,
		    case_id ? "" : "CASE:");
	return -1;
}
