/* lineerr.h - "line N: why" (or just "why") into a fixed error buffer,
 * for the parsers both sides share (plans, function profiles, cpu lists,
 * scheduler features). */
#ifndef LAB_LINEERR_H
#define LAB_LINEERR_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Writes "line <lineno>: " and the formatted message into err (errlen
 * bytes, always NUL-terminated, cut when too long); nothing when err is
 * NULL or errlen is 0.  Returns -1, for `return line_error(...)`.
 */
int line_verror(char *err, size_t errlen, unsigned lineno, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/*
 * Writes the formatted message into err (errlen bytes, always
 * NUL-terminated, cut when too long); nothing when err is NULL or errlen
 * is 0.  Returns -1, for `return fixed_error(...)`.
 */
int fixed_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
