/* prevstate.c - reads how a guest kernel encodes sched_switch's prev_state
 * from its format file's print fmt: the mask of the state letters and the
 * "+" (preempted) bit, as constant C expressions evaluated here. */
#include "results/prevstate.h"

#include <stdio.h>
#include <string.h>

/* What the scanner hands out; the print fmt is a C argument list. */
enum tok_kind { T_END, T_NUM, T_IDENT, T_STR, T_PUNCT, T_BAD };

struct tok {
	enum tok_kind kind;
	const char *s;   /* its text in the line */
	size_t len;
	uint64_t num;    /* T_NUM */
};

struct scan {
	const char *p, *end;
	struct tok t;    /* the current token */
	int depth;       /* recursion of the expression reader */
	const char *why; /* static text: why the expression was not read */
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static int hex_val(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A number: decimal or 0x hex, U/L suffixes; wider than 64 bits is T_BAD. */
static void scan_number(struct scan *s)
{
	const char *q = s->p;
	uint64_t v = 0;
	int base = 10, d;

	if (s->end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X') && hex_val(q[2]) >= 0) {
		base = 16;
		q += 2;
	}
	for (; q < s->end && (d = hex_val(*q)) >= 0 && d < base; q++) {
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
			s->t.kind = T_BAD;
			return;
		}
		v = v * (uint64_t)base + (uint64_t)d;
	}
	while (q < s->end && (*q == 'u' || *q == 'U' || *q == 'l' || *q == 'L'))
		q++;
	s->t.kind = q < s->end && is_ident(*q) ? T_BAD : T_NUM;
	s->t.num = v;
	s->t.len = (size_t)(q - s->p);
	s->p = q;
}

static void next(struct scan *s)
{
	static const char *const two[] = { "<<", ">>", "->", "&&", "||", "==", "!=", "<=", ">=" };

	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
		s->p++;
	s->t.s = s->p;
	s->t.len = 0;
	if (s->p >= s->end) {
		s->t.kind = T_END;
		return;
	}
	if (is_digit(*s->p)) {
		scan_number(s);
		return;
	}
	if (is_ident(*s->p)) {
		while (s->p < s->end && is_ident(*s->p))
			s->p++;
		s->t.kind = T_IDENT;
	} else if (*s->p == '"') {
		/* a string with its escapes; one without its end is T_BAD */
		for (s->p++; s->p < s->end && *s->p != '"'; s->p++)
			if (*s->p == '\\' && s->p + 1 < s->end)
				s->p++;
		s->t.kind = s->p < s->end ? T_STR : T_BAD;
		if (s->p < s->end)
			s->p++;
	} else {
		s->t.kind = T_PUNCT;
		s->p++;
		for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++)
			if (s->t.s + 2 <= s->end && !memcmp(s->t.s, two[i], 2)) {
				s->p = s->t.s + 2;
				break;
			}
	}
	s->t.len = (size_t)(s->p - s->t.s);
}

static int is_punct(const struct scan *s, const char *p)
{
	return s->t.kind == T_PUNCT && s->t.len == strlen(p) && !memcmp(s->t.s, p, s->t.len);
}

static int accept(struct scan *s, const char *p)
{
	if (!is_punct(s, p))
		return 0;
	next(s);
	return 1;
}

static int is_word(const struct scan *s, enum tok_kind k, const char *w)
{
	return s->t.kind == k && s->t.len == strlen(w) && !memcmp(s->t.s, w, s->t.len);
}

/* ---- constant expressions, C precedence from the shift level up ---- */

#define MAX_DEPTH 64

static int expr_or(struct scan *s, uint64_t *v);

static int fail(struct scan *s, const char *why)
{
	if (!s->why)
		s->why = why;
	return -1;
}

static int expr_unary(struct scan *s, uint64_t *v)
{
	int ret;

	if (++s->depth > MAX_DEPTH)
		return fail(s, "an expression nested too deep");
	if (s->t.kind == T_NUM) {
		*v = s->t.num;
		next(s);
		ret = 0;
	} else if (accept(s, "(")) {
		ret = expr_or(s, v) < 0 || !accept(s, ")") ? fail(s, "an expression it cannot read") : 0;
	} else if (accept(s, "~")) {
		ret = expr_unary(s, v);
		*v = ~*v;
	} else if (accept(s, "-")) {
		ret = expr_unary(s, v);
		*v = (uint64_t)0 - *v;
	} else if (accept(s, "+")) {
		ret = expr_unary(s, v);
	} else {
		ret = fail(s, "an expression that is not a constant");
	}
	s->depth--;
	return ret;
}

static int expr_mul(struct scan *s, uint64_t *v)
{
	uint64_t r;

	if (expr_unary(s, v) < 0)
		return -1;
	while (accept(s, "*")) {
		if (expr_unary(s, &r) < 0)
			return -1;
		*v *= r;
	}
	return 0;
}

static int expr_add(struct scan *s, uint64_t *v)
{
	uint64_t r;

	if (expr_mul(s, v) < 0)
		return -1;
	for (;;) {
		int plus = is_punct(s, "+");

		if (!plus && !is_punct(s, "-"))
			return 0;
		next(s);
		if (expr_mul(s, &r) < 0)
			return -1;
		*v = plus ? *v + r : *v - r;
	}
}

static int expr_shift(struct scan *s, uint64_t *v)
{
	uint64_t r;

	if (expr_add(s, v) < 0)
		return -1;
	for (;;) {
		int left = is_punct(s, "<<");

		if (!left && !is_punct(s, ">>"))
			return 0;
		next(s);
		if (expr_add(s, &r) < 0)
			return -1;
		if (r >= 64)
			return fail(s, "a shift by 64 bits or more");
		*v = left ? *v << r : *v >> r;
	}
}

static int expr_and(struct scan *s, uint64_t *v)
{
	uint64_t r;

	if (expr_shift(s, v) < 0)
		return -1;
	while (accept(s, "&")) {
		if (expr_shift(s, &r) < 0)
			return -1;
		*v &= r;
	}
	return 0;
}

static int expr_xor(struct scan *s, uint64_t *v)
{
	uint64_t r;

	if (expr_and(s, v) < 0)
		return -1;
	while (accept(s, "^")) {
		if (expr_and(s, &r) < 0)
			return -1;
		*v ^= r;
	}
	return 0;
}

static int expr_or(struct scan *s, uint64_t *v)
{
	uint64_t r;

	if (expr_xor(s, v) < 0)
		return -1;
	while (accept(s, "|")) {
		if (expr_xor(s, &r) < 0)
			return -1;
		*v |= r;
	}
	return 0;
}

/* ---- the two arguments ---- */

/* "REC->prev_state & <expr>": the expression binds as tightly as C's & does. */
static int masked_state(struct scan *s, uint64_t *v)
{
	if (!is_word(s, T_IDENT, "REC"))
		return -1;
	next(s);
	if (!accept(s, "->") || !is_word(s, T_IDENT, "prev_state"))
		return -1;
	next(s);
	if (!accept(s, "&"))
		return -1;
	return expr_shift(s, v);
}

/* The argument in [p, end) is "(REC->prev_state & M) ? ... : "R"": M. */
static int state_arg(const char *p, const char *end, uint64_t *mask, const char **why)
{
	struct scan s = { p, end, { 0 }, 0, NULL };
	int paren, last_colon = 0, last_r = 0;

	next(&s);
	paren = accept(&s, "(");
	if (masked_state(&s, mask) < 0 || (paren && !accept(&s, ")")) || !accept(&s, "?")) {
		if (s.why)
			*why = s.why;
		return -1;
	}
	/* the rest is the letters' table; the argument must end in : "R" */
	while (s.t.kind != T_END && s.t.kind != T_BAD) {
		last_r = last_colon && is_word(&s, T_STR, "\"R\"");
		last_colon = is_punct(&s, ":");
		next(&s);
	}
	return s.t.kind == T_END && last_r ? 0 : -1;
}

/* The argument in [p, end) is "REC->prev_state & B ? "+" : """: B. */
static int preempt_arg(const char *p, const char *end, uint64_t *bit, const char **why)
{
	struct scan s = { p, end, { 0 }, 0, NULL };

	next(&s);
	if (masked_state(&s, bit) < 0 || !accept(&s, "?")) {
		if (s.why)
			*why = s.why;
		return -1;
	}
	if (!is_word(&s, T_STR, "\"+\""))
		return -1;
	next(&s);
	if (!accept(&s, ":") || !is_word(&s, T_STR, "\"\""))
		return -1;
	next(&s);
	return s.t.kind == T_END ? 0 : -1;
}

/* The "print fmt: " line's text after the label, [*b, *e). */
static int print_fmt_line(const char *text, size_t len, const char **b, const char **e)
{
	static const char label[] = "print fmt:";
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;

		if ((size_t)(eol - p) >= sizeof(label) - 1 && !memcmp(p, label, sizeof(label) - 1)) {
			*b = p + sizeof(label) - 1;
			*e = eol;
			return 0;
		}
		p = eol + 1;
	}
	return -1;
}

int prevstate_from_format(const char *text, size_t len, struct prevstate *ps, char *why,
			  size_t whylen)
{
	const char *b, *e, *arg, *xwhy = NULL;
	struct scan s;
	int level = 0, have_mask = 0, have_bit = 0;
	uint64_t mask = 0, bit = 0, v;

	memset(ps, 0, sizeof(*ps));
	if (!text || print_fmt_line(text, len, &b, &e) < 0) {
		snprintf(why, whylen, "its format has no print fmt");
		return -1;
	}
	s = (struct scan){ b, e, { 0 }, 0, NULL };
	next(&s);
	if (s.t.kind != T_STR) {
		snprintf(why, whylen, "its print fmt does not start with a string");
		return -1;
	}
	next(&s);
	if (!is_punct(&s, ",")) {
		snprintf(why, whylen, "its print fmt has no arguments");
		return -1;
	}
	/* the arguments, split at commas outside parentheses and braces */
	next(&s);
	arg = s.t.s;
	for (;;) {
		int comma = level == 0 && is_punct(&s, ",");

		if (s.t.kind == T_BAD) {
			snprintf(why, whylen, "its print fmt has an unreadable token");
			return -1;
		}
		if (comma || s.t.kind == T_END) {
			const char *aend = s.t.s;

			if (!have_mask && !state_arg(arg, aend, &v, &xwhy)) {
				mask = v;
				have_mask = 1;
			} else if (!have_bit && !preempt_arg(arg, aend, &v, &xwhy)) {
				bit = v;
				have_bit = 1;
			}
			if (s.t.kind == T_END)
				break;
			next(&s);
			arg = s.t.s;
			continue;
		}
		if (is_punct(&s, "(") || is_punct(&s, "{"))
			level++;
		else if ((is_punct(&s, ")") || is_punct(&s, "}")) && --level < 0)
			break;
		next(&s);
	}
	if (level) {
		snprintf(why, whylen, "its print fmt's parentheses do not match");
		return -1;
	}
	if (!have_mask || !have_bit) {
		snprintf(why, whylen, "its print fmt has no %s argument%s%s",
			 !have_mask ? "state-letters (: \"R\")" : "preempted (? \"+\")",
			 xwhy ? ": " : "", xwhy ? xwhy : "");
		return -1;
	}
	if (!mask || !bit || (bit & (bit - 1)) || (bit & mask)) {
		snprintf(why, whylen, "its print fmt gives state mask 0x%llx and preempted bit 0x%llx",
			 (unsigned long long)mask, (unsigned long long)bit);
		return -1;
	}
	ps->state_mask = mask;
	ps->preempt_bit = bit;
	return 0;
}

int prevstate_canonical(const struct prevstate *ps, int64_t raw)
{
	uint64_t left = (uint64_t)raw & ps->state_mask;
	int out = 0;

	/* 6.1's report bits are the canonical ones: a state letter in the
	 * low byte, 0x100 preempted; a letter bit above it is 0x80 */
	if (left)
		out = (left & 0xff) ? (int)(left & 0xff) : 0x80;
	if ((uint64_t)raw & ps->preempt_bit)
		out |= 0x100;
	return out;
}
