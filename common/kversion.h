/* kversion.h - kernel releases as uname -r prints them ("6.12.118+deb12-amd64"),
 * compared by major.minor: which generation a kernel belongs to. */
#ifndef LAB_KVERSION_H
#define LAB_KVERSION_H

/* "6.12.118+deb12-amd64" gives 6 and 12: 0, or -1 when release does not
 * start with MAJOR.MINOR (an unknown release, "unknown"). */
int kversion_parse(const char *release, unsigned *major, unsigned *minor);

/* 1 when release is since ("6.12") or later, 0 when older, -1 when either
 * does not parse (the caller cannot tell, and says so or lets the guest). */
int kversion_at_least(const char *release, const char *since);

#endif
