/* fault-json.c - the runner's growing text buffer for record payloads. */
#include "fault-json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fj_add(struct fj *j, const char *s, size_t n)
{
	if (j->cut || (j->limit && j->len + n + 1 > j->limit)) {
		j->cut = 1;
		return;
	}
	if (j->len + n + 1 > j->cap) {
		size_t cap = (j->cap ? j->cap * 2 : 256) + n;
		char *nb = realloc(j->buf, cap);

		if (!nb) {
			j->cut = 1;
			return;
		}
		j->buf = nb;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

void fj_printf(struct fj *j, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		fj_add(j, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

void fj_str(struct fj *j, const char *s)
{
	fj_add(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			fj_add(j, e, 2);
		} else if (c < 0x20 || c == 0x7f) {
			fj_printf(j, "\\u%04x", c);
		} else {
			fj_add(j, (const char *)&c, 1);
		}
	}
	fj_add(j, "\"", 1);
}

const char *fj_text(const struct fj *j)
{
	return j->buf ? j->buf : "";
}

void fj_reset(struct fj *j)
{
	j->len = 0;
	j->cut = 0;
	if (j->buf)
		j->buf[0] = '\0';
}

void fj_release(struct fj *j)
{
	free(j->buf);
	j->buf = NULL;
	j->len = j->cap = 0;
	j->cut = 0;
}
