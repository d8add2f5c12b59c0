/* lineerr.c - "line N: why" into a fixed error buffer. */
#include "common/lineerr.h"

#include <stdio.h>

int line_verror(char *err, size_t errlen, unsigned lineno, const char *fmt, va_list ap)
{
	int n;

	if (!err || !errlen)
		return -1;
	n = snprintf(err, errlen, "line %u: ", lineno);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	return -1;
}

int fixed_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
