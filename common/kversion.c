/* kversion.c - kernel releases compared by major.minor, for the facts that
 * differ by kernel generation (knobs, preemption modes, slices). */
#include "common/kversion.h"

static int number(const char **p, unsigned *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > 100000)
			return -1;
	}
	*out = (unsigned)v;
	*p = s;
	return 0;
}

int kversion_parse(const char *release, unsigned *major, unsigned *minor)
{
	const char *p = release;

	if (!p || number(&p, major) < 0 || *p++ != '.' || number(&p, minor) < 0)
		return -1;
	/* "6.12" ends, "6.12.1", "6.12-rc3" and "6.12+x" go on; "6.12a" is no release */
	if (*p && *p != '.' && *p != '-' && *p != '+' && *p != '_')
		return -1;
	return 0;
}

int kversion_at_least(const char *release, const char *since)
{
	unsigned rmaj, rmin, smaj, smin;

	if (kversion_parse(release, &rmaj, &rmin) < 0 || kversion_parse(since, &smaj, &smin) < 0)
		return -1;
	return rmaj > smaj || (rmaj == smaj && rmin >= smin);
}
