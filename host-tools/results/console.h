/* console.h - classifies the guest's kernel console: the failure patterns
 * the 0-day robot and syzbot treat as kernel failures, read line by line. */
#ifndef LAB_CONSOLE_H
#define LAB_CONSOLE_H

#include <stddef.h>

enum console_class {
	CON_NONE = 0,
	CON_SPLAT,   /* the kernel complained but kept going: FAIL with evidence */
	CON_CRASH,   /* the kernel is dead or dying: CRASH */
	CON_REBOOT,  /* a second "Linux version" banner: the guest rebooted */
};

const char *console_class_name(enum console_class c);

/* Classifies one console line (no line terminator needed; a leading
 * "[    1.234567] " timestamp is ignored).  *pattern, when not NULL,
 * receives the matched pattern's name. */
enum console_class console_classify_line(const char *line, size_t len,
					 const char **pattern);

/*
 * Splits a console byte stream into lines (CR, LF or CRLF), bounded: a
 * line longer than CONSOLE_MAX_LINE is classified in pieces.  Remembers
 * the first failure and the worst class seen.
 */
#define CONSOLE_MAX_LINE 1024
struct console_watch {
	char line[CONSOLE_MAX_LINE + 1];
	size_t len;
	unsigned long lines;
	unsigned banners;           /* "Linux version" lines seen */
	enum console_class worst;
	unsigned long first_line_no; /* line number of the first failure */
	char first[CONSOLE_MAX_LINE + 1]; /* its text */
	const char *first_pattern;
	unsigned splats;
	unsigned long init_line;    /* line of the lab's "schedlab: init start", 0 if none */
	unsigned long int3_line;    /* line of the boot's first die(), an int3 (below), 0 if none */
};
/* 1 when the line is x86's die() header for an int3 no handler claimed,
 * as the boot's first die ("[#1]"), with or without 6.x's "Oops: ". */
int console_is_first_int3_die(const char *line, size_t len);
#define CONSOLE_INIT_MARKER "schedlab: init start"
void console_watch_init(struct console_watch *w);
/* Returns the worst class seen so far after consuming buf. */
enum console_class console_watch_feed(struct console_watch *w, const char *buf, size_t len);
/* Flushes a final unterminated line. */
enum console_class console_watch_finish(struct console_watch *w);

#endif
