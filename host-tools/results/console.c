/* console.c - turns the guest's kernel console into failure evidence:
 * the 0-day/syzbot failure patterns, reboot banners, and the first hit. */
#include "results/console.h"

#include <stdio.h>
#include <string.h>

struct pattern {
	const char *needle;
	enum console_class cls;
	const char *name;
	int anchored; /* must start the line (after the timestamp) */
};

/* Order matters: the first match wins, so crash patterns that contain a
 * splat pattern ("BUG: soft lockup" vs "BUG:") come first where the
 * class differs. */
static const struct pattern patterns[] = {
	{ "Kernel panic - not syncing", CON_CRASH, "panic", 0 },
	{ "kernel BUG at", CON_CRASH, "kernel-bug", 0 },
	{ "Oops:", CON_CRASH, "oops", 0 },
	{ "general protection fault", CON_CRASH, "gpf", 0 },
	{ "BUG: unable to handle", CON_CRASH, "bad-access", 0 },
	{ "BUG: kernel NULL pointer dereference", CON_CRASH, "null-deref", 0 },
	{ "divide error:", CON_CRASH, "divide-error", 0 },
	{ "invalid opcode:", CON_CRASH, "invalid-opcode", 0 },
	/* SLOF (pseries firmware) trapped: the kernel never started */
	{ ") Program Exception [", CON_CRASH, "firmware-exception", 0 },
	{ "BUG: soft lockup", CON_SPLAT, "soft-lockup", 0 },
	{ "hard LOCKUP", CON_SPLAT, "hard-lockup", 0 },
	{ "BUG: KASAN:", CON_SPLAT, "kasan", 0 },
	{ "BUG: workqueue lockup", CON_SPLAT, "workqueue-lockup", 0 },
	{ "BUG: sleeping function called from invalid context", CON_SPLAT, "sleep-in-atomic", 0 },
	{ "BUG: scheduling while atomic", CON_SPLAT, "sched-atomic", 0 },
	{ "possible circular locking dependency", CON_SPLAT, "lockdep", 0 },
	{ "possible recursive locking", CON_SPLAT, "lockdep", 0 },
	{ "inconsistent lock state", CON_SPLAT, "lockdep", 0 },
	{ "BUG:", CON_SPLAT, "bug", 0 },
	{ "WARNING:", CON_SPLAT, "warning", 1 },
	{ "UBSAN:", CON_SPLAT, "ubsan", 0 },
	{ "detected stall", CON_SPLAT, "rcu-stall", 0 },
	{ "self-detected stall", CON_SPLAT, "rcu-stall", 0 },
	{ "blocked for more than", CON_SPLAT, "hung-task", 0 },
};

const char *console_class_name(enum console_class c)
{
	switch (c) {
	case CON_NONE: return "none";
	case CON_SPLAT: return "splat";
	case CON_CRASH: return "crash";
	case CON_REBOOT: return "reboot";
	}
	return "?";
}

static const char *skip_timestamp(const char *s, size_t *len)
{
	size_t i = 0;

	while (i < *len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < *len && s[i] == '[') {
		size_t j = i + 1;

		while (j < *len && ((s[j] >= '0' && s[j] <= '9') || s[j] == '.' || s[j] == ' '))
			j++;
		if (j < *len && s[j] == ']') {
			i = j + 1;
			while (i < *len && s[i] == ' ')
				i++;
		}
	}
	*len -= i;
	return s + i;
}

static int contains(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	if (n > len)
		return 0;
	for (size_t i = 0; i + n <= len; i++)
		if (s[i] == needle[0] && !memcmp(s + i, needle, n))
			return 1;
	return 0;
}

enum console_class console_classify_line(const char *line, size_t len,
					 const char **pattern)
{
	const char *s = skip_timestamp(line, &len);

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		const struct pattern *p = &patterns[i];
		int hit = p->anchored ? (len >= strlen(p->needle) &&
					 !memcmp(s, p->needle, strlen(p->needle)))
				      : contains(s, len, p->needle);
		if (hit) {
			if (pattern)
				*pattern = p->name;
			return p->cls;
		}
	}
	if (len >= 14 && !memcmp(s, "Linux version ", 14)) {
		if (pattern)
			*pattern = "banner";
		return CON_REBOOT; /* the caller decides whether it is the first */
	}
	return CON_NONE;
}

/* x86's die() header for an int3 that no handler claimed, the first die
 * of the boot: "Oops: int3: 0000 [#1] SMP NOPTI" (6.x has the prefix),
 * "int3: 0000 [#1] SMP NOPTI" (6.1). */
int console_is_first_int3_die(const char *line, size_t len)
{
	const char *s = skip_timestamp(line, &len);
	static const char oops[] = "Oops: ", int3[] = "int3: ", tail[] = " [#1]";

	if (len >= strlen(oops) && !memcmp(s, oops, strlen(oops))) {
		s += strlen(oops);
		len -= strlen(oops);
	}
	if (len < strlen(int3) + 4 + strlen(tail) || memcmp(s, int3, strlen(int3)))
		return 0;
	s += strlen(int3);
	for (int i = 0; i < 4; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return !memcmp(s + 4, tail, strlen(tail));
}

void console_watch_init(struct console_watch *w)
{
	memset(w, 0, sizeof(*w));
}

static int rank(enum console_class c)
{
	switch (c) {
	case CON_NONE: return 0;
	case CON_SPLAT: return 1;
	case CON_REBOOT: return 2;
	case CON_CRASH: return 3;
	}
	return 0;
}

static void end_line(struct console_watch *w)
{
	const char *pat = NULL;
	enum console_class c;

	w->line[w->len] = '\0';
	w->lines++;
	c = console_classify_line(w->line, w->len, &pat);
	if (!w->init_line && !strncmp(w->line, CONSOLE_INIT_MARKER, strlen(CONSOLE_INIT_MARKER)))
		w->init_line = w->lines;
	if (!w->int3_line && console_is_first_int3_die(w->line, w->len))
		w->int3_line = w->lines;
	if (c == CON_REBOOT && ++w->banners == 1)
		c = CON_NONE; /* the boot banner itself */
	if (c == CON_SPLAT)
		w->splats++;
	if (c != CON_NONE && !w->first_pattern) {
		w->first_line_no = w->lines;
		w->first_pattern = pat;
		memcpy(w->first, w->line, w->len + 1);
	}
	if (rank(c) > rank(w->worst))
		w->worst = c;
	w->len = 0;
}

enum console_class console_watch_feed(struct console_watch *w, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];

		if (ch == '\n' || ch == '\r') {
			if (w->len)
				end_line(w);
			continue;
		}
		w->line[w->len++] = ch;
		if (w->len == CONSOLE_MAX_LINE)
			end_line(w);
	}
	return w->worst;
}

enum console_class console_watch_finish(struct console_watch *w)
{
	if (w->len)
		end_line(w);
	return w->worst;
}
