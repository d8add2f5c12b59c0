/* cpulist.c - Linux CPU lists into bitmaps; the text may come from a
 * guest or a scenario file, so every number is bounded before use. */
#include "common/cpulist.h"
#include "common/lineerr.h"

#include <stdio.h>
#include <string.h>

#define MAX_DIGITS 9

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int cpulist_number(const char **p, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;
	int digits = 0;

	while (*s >= '0' && *s <= '9') {
		if (++digits > MAX_DIGITS)
			return -1;
		v = v * 10 + (unsigned long)(*s++ - '0');
	}
	if (!digits)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

int cpulist_parse(const char *s, unsigned long *bits, unsigned nbits, char *err, size_t errlen)
{
	const char *start, *end;
	int count = 0;

	memset(bits, 0, CPULIST_LONGS(nbits) * sizeof(*bits));
	while (is_blank(*s))
		s++;
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		end--;
	if (s == end)
		return 0;
	for (start = s;;) {
		unsigned long lo, hi;

		if (cpulist_number(&s, &lo) < 0)
			return fixed_error(err, errlen, "cpu list: expected a cpu number (at most %d digits) "
				         "at offset %zu", MAX_DIGITS, (size_t)(s - start));
		hi = lo;
		if (*s == '-') {
			s++;
			if (cpulist_number(&s, &hi) < 0)
				return fixed_error(err, errlen, "cpu list: range %lu- has no end", lo);
		}
		if (lo > hi)
			return fixed_error(err, errlen, "cpu list: range %lu-%lu goes backwards", lo, hi);
		if (hi >= nbits)
			return fixed_error(err, errlen, "cpu list: cpu %lu is out of range 0..%u", hi,
				         nbits ? nbits - 1 : 0);
		for (unsigned long i = lo; i <= hi; i++)
			cpulist_set(bits, (unsigned)i);
		if (s == end)
			break;
		if (*s++ != ',')
			return fixed_error(err, errlen, "cpu list: unexpected character at offset %zu "
				         "(expected ',' or '-')", (size_t)(s - 1 - start));
	}
	for (size_t w = 0; w < CPULIST_LONGS(nbits); w++)
		count += __builtin_popcountl(bits[w]);
	return count;
}
