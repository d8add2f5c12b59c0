/* journal.h - the undo journal of host changes on bare metal: the runner
 * notes each original value before it changes it, the lab puts them back. */
#ifndef RUNNER_JOURNAL_H
#define RUNNER_JOURNAL_H

#include <stddef.h>

/*
 * The journal is a text file, appended to with one write(2) and fsync'd
 * per record, so a record is either whole or (killed mid-write) an
 * unterminated last line, which the reader ignores:
 *
 *   schedlab-journal 1
 *   set <pid> <path> <original value>   a file is about to be written
 *   mkdir <pid> <path>                  a directory (cgroup) was created
 *   clean <pid>                         pid put back everything it noted
 *
 * Paths and values are escaped: '%', bytes <= ' ' and >= 0x7f become %XX,
 * so a record is one line of space-separated fields (an empty value is an
 * empty last field).  Only the first write of a file by a process is
 * noted: that one holds the original.
 *
 * The runner writes it only when $SCHEDLAB_JOURNAL names the file (the
 * lab sets it for `lab bare`); in a guest nothing is journaled.
 */
#define JOURNAL_ENV "SCHEDLAB_JOURNAL"
#define JOURNAL_HEADER "schedlab-journal 1"
#define JOURNAL_MAX_PATH 4096u
#define JOURNAL_MAX_VALUE 65536u
#define JOURNAL_MAX_ENTRIES 100000u

enum journal_op {
	JOURNAL_SET,
	JOURNAL_MKDIR,
};

struct journal_entry {
	enum journal_op op;
	long pid;
	char *path;        /* owned */
	char *value;       /* owned; "" for mkdir */
	int cleaned;       /* a later "clean <pid>" covers it */
};

/* A parsed journal; journal_release() frees the entries. */
struct journal {
	struct journal_entry *e;
	size_t nr, alloc;
	int torn;          /* the last line had no newline (writer killed) */
};
#define JOURNAL_INIT { NULL, 0, 0, 0 }

/* ---- writer side (the runner) ---- */

/* Notes path's current value before the caller writes it.  0 when noted,
 * already noted by this process, or journaling is off; -1 (errno) when the
 * journal cannot be written: the caller must then not make the change. */
int journal_note_set(const char *path);
/* The same with the value to put back given: for a file whose reading is
 * not what it takes (tracefs buffer_size_kb reads "7 (expanded: 1408)"). */
int journal_note_set_value(const char *path, const char *value);
/* Notes a directory the caller just created. */
int journal_note_mkdir(const char *path);
/* Says this process has put back everything it noted. */
int journal_note_clean(void);

/* Appends the escaped text of s to out (at most outlen bytes with the NUL);
 * returns the length it needed, like snprintf. */
size_t journal_escape(const char *s, char *out, size_t outlen);
/* Formats one record line (with its newline) into out; returns the length
 * needed like snprintf.  value is ignored for mkdir. */
size_t journal_format(enum journal_op op, long pid, const char *path, const char *value,
		      char *out, size_t outlen);

/* ---- reader side (the lab) ---- */

/* Parses journal text (untrusted: bounded, every line checked).  -1 with
 * "line N: problem" in err on a malformed record.  "clean" lines mark the
 * entries they cover; they are not entries themselves. */
int journal_parse(const char *text, size_t len, struct journal *j, char *err, size_t errlen);
void journal_release(struct journal *j);
/* Entries not covered by a "clean": what a restore must put back. */
size_t journal_pending(const struct journal *j);

/*
 * Puts back every pending entry, newest first (so the oldest original of a
 * file wins): writes each original value (sched/features one flag at a
 * time), removes created cgroups after killing what is left in them.  A
 * file or directory that no longer exists counts as restored.  report()
 * is called once per entry with ok and a short detail.  Returns the number
 * of entries that could not be put back.
 */
typedef void (*journal_report_fn)(void *ctx, const struct journal_entry *e, int ok,
				  const char *detail);
unsigned journal_restore(const struct journal *j, journal_report_fn report, void *ctx);

#endif
