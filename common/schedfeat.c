/* schedfeat.c - scheduler feature names and lists, as /sys/kernel/debug/sched/features
 * prints and takes them; bounded parsing of untrusted text, no allocation. */
#include "common/schedfeat.h"
#include "common/lineerr.h"

#include <stdio.h>
#include <string.h>

int sched_feat_token_ok(const char *s, size_t len)
{
	if (!len || len > SCHED_FEAT_NAME_MAX)
		return -1;
	if (len >= 3 && !memcmp(s, "NO_", 3)) {
		s += 3;
		len -= 3;
	}
	if (!len || s[0] < 'A' || s[0] > 'Z')
		return -1;
	for (size_t i = 1; i < len; i++)
		if ((s[i] < 'A' || s[i] > 'Z') && s[i] != '_')
			return -1;
	return 0;
}

const char *sched_feat_base(const char *token)
{
	return strncmp(token, "NO_", 3) ? token : token + 3;
}

int sched_feat_is_on(const char *token)
{
	return strncmp(token, "NO_", 3) != 0;
}

int sched_feat_find(const struct sched_feat_list *l, const char *token)
{
	const char *base = sched_feat_base(token);

	for (unsigned i = 0; i < l->nr; i++)
		if (!strcmp(sched_feat_base(l->name[i]), base))
			return (int)i;
	return -1;
}

/* A token shown in a message: printable, and not longer than a name. */
static void shown(const char *s, size_t len, char *out, size_t size)
{
	size_t n = len < size - 1 ? len : size - 1;

	for (size_t i = 0; i < n; i++)
		out[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ? '?' : s[i];
	out[n] = '\0';
}

static int is_blank(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

int sched_feat_list_parse(const char *text, size_t len, char sep, unsigned max,
			  struct sched_feat_list *l, char *err, size_t errlen)
{
	char what[SCHED_FEAT_NAME_MAX + 1];
	size_t pos = 0;

	l->nr = 0;
	if (max > SCHED_FEAT_MAX)
		max = SCHED_FEAT_MAX;
	while (pos <= len) {
		size_t start = pos, n;

		if (sep == ' ') {
			while (pos < len && is_blank(text[pos]))
				pos++;
			if (pos == len)
				break;
			start = pos;
			while (pos < len && !is_blank(text[pos]))
				pos++;
		} else {
			while (pos < len && text[pos] != sep)
				pos++;
		}
		n = pos - start;
		pos++;	/* past the separator (or the end) */
		shown(text + start, n, what, sizeof(what));
		if (!n)
			return fixed_error(err, errlen, "empty feature name in the list");
		if (sched_feat_token_ok(text + start, n) < 0)
			return fixed_error(err, errlen, "'%s%s' is not a scheduler feature name (A-Z and _, "
				         "an optional NO_, at most %d characters)", what,
				         n >= sizeof(what) ? "..." : "", SCHED_FEAT_NAME_MAX);
		if (l->nr >= max)
			return fixed_error(err, errlen, "more than %u scheduler features", max);
		memcpy(l->name[l->nr], text + start, n);
		l->name[l->nr][n] = '\0';
		if (sched_feat_find(l, l->name[l->nr]) >= 0)
			return fixed_error(err, errlen, "scheduler feature %s is named twice",
				         sched_feat_base(l->name[l->nr]));
		l->nr++;
	}
	return 0;
}

size_t sched_feat_join(const struct sched_feat_list *l, char sep, char *buf, size_t size)
{
	size_t need = 0;

	if (size)
		buf[0] = '\0';
	for (unsigned i = 0; i < l->nr; i++) {
		size_t n = strlen(l->name[i]);

		if (i) {
			if (need + 1 < size) {
				buf[need] = sep;
				buf[need + 1] = '\0';
			}
			need++;
		}
		if (need + n < size) {
			memcpy(buf + need, l->name[i], n + 1);
		} else if (need < size) {
			memcpy(buf + need, l->name[i], size - need - 1);
			buf[size - 1] = '\0';
		}
		need += n;
	}
	return need;
}
