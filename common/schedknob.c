/* schedknob.c - the scheduler knobs a run may set (one table, with the kernel
 * generation each appeared in), their syntax, and the preemption-mode file. */
#include "common/schedknob.h"
#include "common/lineerr.h"

#include <stdio.h>
#include <string.h>

const struct sched_knob sched_knobs[] = {
	/* EEVDF (6.6) replaced latency_ns, min_granularity_ns and
	 * wakeup_granularity_ns by the one base slice */
	{ "base_slice_ns", 100000, 100000000, "6.6", "min_granularity_ns",
	  "EEVDF's base slice (request size) of every fair task without its own, in ns" },
};
const size_t nr_sched_knobs = sizeof(sched_knobs) / sizeof(sched_knobs[0]);

const struct sched_knob *sched_knob_find(const char *s, size_t len)
{
	for (size_t i = 0; i < nr_sched_knobs; i++)
		if (strlen(sched_knobs[i].name) == len && !memcmp(sched_knobs[i].name, s, len))
			return &sched_knobs[i];
	return NULL;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

int sched_knob_number(const char *s, size_t len, uint64_t *v)
{
	size_t i = 0, digits = 0;
	uint64_t x = 0;

	while (i < len && is_blank(s[i]))
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	while (i < len && is_blank(s[i]))
		i++;
	if (!digits || i != len)
		return -1;
	*v = x;
	return 0;
}

/* s[0..n) for a message: printable, at most 40 bytes. */
static void shown(const char *s, size_t n, char *out, size_t size)
{
	size_t k = n < size - 1 ? n : size - 1;

	for (size_t i = 0; i < k; i++)
		out[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	out[k] = '\0';
}

static void known_names(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < nr_sched_knobs && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", sched_knobs[i].name);
}

int sched_knob_parse(const char *text, size_t len, struct sched_knob_set *s, char *err,
		     size_t errlen)
{
	char what[41], known[128];
	size_t pos = 0;

	s->nr = 0;
	while (pos <= len) {
		size_t start = pos, n, name_len;
		const char *item, *eq;
		const struct sched_knob *k;
		uint64_t v;

		while (pos < len && text[pos] != ',')
			pos++;
		n = pos - start;
		pos++;
		item = text + start;
		shown(item, n, what, sizeof(what));
		if (!n)
			return fixed_error(err, errlen, "empty item in the list of knobs");
		eq = memchr(item, '=', n);
		if (!eq)
			return fixed_error(err, errlen, "'%s' is not NAME=VALUE", what);
		name_len = (size_t)(eq - item);
		k = sched_knob_find(item, name_len);
		if (!k) {
			known_names(known, sizeof(known));
			shown(item, name_len, what, sizeof(what));
			return fixed_error(err, errlen, "unknown scheduler knob '%s' (known: %s)", what, known);
		}
		if (sched_knob_number(eq + 1, n - name_len - 1, &v) < 0 || v < k->min || v > k->max) {
			shown(eq + 1, n - name_len - 1, what, sizeof(what));
			return fixed_error(err, errlen, "%s must be a number from %llu to %llu, not '%s'",
					   k->name, (unsigned long long)k->min, (unsigned long long)k->max,
					   what);
		}
		for (unsigned i = 0; i < s->nr; i++)
			if (s->v[i].knob == k)
				return fixed_error(err, errlen, "scheduler knob %s is named twice", k->name);
		if (s->nr >= SCHED_KNOB_WANT_MAX)
			return fixed_error(err, errlen, "more than %d scheduler knobs", SCHED_KNOB_WANT_MAX);
		s->v[s->nr].knob = k;
		s->v[s->nr].value = v;
		s->nr++;
	}
	return 0;
}

size_t sched_knob_join(const struct sched_knob_set *s, char sep, char *buf, size_t size)
{
	size_t need = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < s->nr; i++) {
		char item[SCHED_KNOB_NAME_MAX + 24];
		int n = snprintf(item, sizeof(item), "%.*s%s=%llu", i ? 1 : 0, &sep,
				 s->v[i].knob->name, (unsigned long long)s->v[i].value);

		if (n < 0)
			continue;
		if (need < size)
			snprintf(buf + need, size - need, "%s", item);
		need += (size_t)n;
	}
	return need;
}

static const char *const preempt_names[SCHED_PREEMPT_NR] = { "none", "voluntary", "full", "lazy" };

const char *sched_preempt_name(int mode)
{
	return mode >= 0 && mode < SCHED_PREEMPT_NR ? preempt_names[mode] : "?";
}

int sched_preempt_find(const char *s, size_t len)
{
	for (int i = 0; i < SCHED_PREEMPT_NR; i++)
		if (strlen(preempt_names[i]) == len && !memcmp(preempt_names[i], s, len))
			return i;
	return -1;
}

int sched_preempt_parse(const char *text, size_t len, unsigned *offered, int *active, char *err,
			size_t errlen)
{
	char what[41];
	size_t pos = 0;

	*offered = 0;
	*active = -1;
	while (pos < len) {
		size_t start, n;
		int paren = 0, m;

		while (pos < len && is_blank(text[pos]))
			pos++;
		if (pos == len)
			break;
		start = pos;
		while (pos < len && !is_blank(text[pos]))
			pos++;
		n = pos - start;
		if (n >= 2 && text[start] == '(' && text[start + n - 1] == ')') {
			paren = 1;
			start++;
			n -= 2;
		}
		m = sched_preempt_find(text + start, n);
		if (m < 0) {
			shown(text + start, n, what, sizeof(what));
			return fixed_error(err, errlen, "'%s' is not a preemption mode", what);
		}
		if (*offered & (1u << m))
			return fixed_error(err, errlen, "preemption mode %s is listed twice", preempt_names[m]);
		*offered |= 1u << m;
		if (paren) {
			if (*active >= 0)
				return fixed_error(err, errlen, "two active preemption modes");
			*active = m;
		}
	}
	if (*active < 0)
		return fixed_error(err, errlen, "no active preemption mode (in parentheses)");
	return 0;
}
