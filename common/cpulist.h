/* cpulist.h - Linux CPU lists ("0-3,8-11", "5", "" for none) as bitmaps:
 * one bounded parser for the host tools and the runner. */
#ifndef LAB_CPULIST_H
#define LAB_CPULIST_H

#include <limits.h>
#include <stddef.h>

#define CPULIST_LONG_BITS (CHAR_BIT * sizeof(unsigned long))
/* Words of a bitmap of n bits. */
#define CPULIST_LONGS(n) (((n) + CPULIST_LONG_BITS - 1) / CPULIST_LONG_BITS)

/*
 * Parses s into bits (nbits bits, CPULIST_LONGS(nbits) words, cleared
 * first).  White space around the list is allowed, numbers have at most
 * 9 digits.  Returns how many CPUs the list names (each once), or -1 for
 * malformed text or a CPU >= nbits, with one line saying why in err
 * (errlen bytes, always NUL-terminated; err may be NULL).
 */
int cpulist_parse(const char *s, unsigned long *bits, unsigned nbits, char *err, size_t errlen);

/* A decimal of 1 to 9 digits, no sign (a cpu list's number; sysfs ids
 * are read with it too): 0 and *p moved past it, or -1. */
int cpulist_number(const char **p, unsigned long *out);

static inline int cpulist_test(const unsigned long *bits, unsigned i)
{
	return (bits[i / CPULIST_LONG_BITS] >> (i % CPULIST_LONG_BITS)) & 1;
}

static inline void cpulist_set(unsigned long *bits, unsigned i)
{
	bits[i / CPULIST_LONG_BITS] |= 1ul << (i % CPULIST_LONG_BITS);
}

#endif
