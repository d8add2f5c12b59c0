/* tap.c - parses TAP test lines. */
#include "tap.h"

#include <string.h>
#include <strings.h>

static void copy_trim(char *dst, size_t size, const char *p, const char *end)
{
	size_t n;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	n = (size_t)(end - p);
	if (n >= size)
		n = size - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

int tap_parse_line(const char *line, size_t len, struct tap_line *t)
{
	const char *p = line, *end = line + len, *hash, *name_end;
	unsigned long num = 0;

	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	memset(t, 0, sizeof(*t));
	if ((size_t)(end - p) >= 6 && !memcmp(p, "not ok", 6)) {
		t->result = TAP_NOT_OK;
		p += 6;
	} else if ((size_t)(end - p) >= 2 && !memcmp(p, "ok", 2)) {
		t->result = TAP_OK;
		p += 2;
	} else {
		return 0;
	}
	/* "ok" must end there: "okay" is not a test line */
	if (p < end && *p != ' ' && *p != '\t')
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && *p >= '0' && *p <= '9' && num < 100000000ul)
		num = num * 10 + (unsigned long)(*p++ - '0');
	t->number = (unsigned)num;
	hash = memchr(p, '#', (size_t)(end - p));
	name_end = hash ? hash : end;
	while (p < name_end && (*p == ' ' || *p == '\t'))
		p++;
	if (name_end - p >= 2 && p[0] == '-' && p[1] == ' ')
		p += 2;
	copy_trim(t->name, sizeof(t->name), p, name_end);
	if (hash) {
		const char *d = hash + 1;

		while (d < end && (*d == ' ' || *d == '\t'))
			d++;
		if ((size_t)(end - d) >= 4 && !strncasecmp(d, "skip", 4)) {
			if (t->result == TAP_OK)
				t->result = TAP_SKIP;
			copy_trim(t->reason, sizeof(t->reason), d + 4, end);
		} else if ((size_t)(end - d) >= 4 && !strncasecmp(d, "todo", 4)) {
			t->todo = 1;
			copy_trim(t->reason, sizeof(t->reason), d + 4, end);
		}
	}
	return 1;
}
