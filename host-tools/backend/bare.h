/* bare.h - what bare-metal mode needs besides the runner: its state
 * directory and lock, the undo journal's replay, the host probe, hygiene. */
#ifndef LAB_BARE_H
#define LAB_BARE_H

#include "lib/util.h"

struct json_object;

/* $LAB_STATE, else /var/lib/schedlab as root, else <cache>/state. */
const char *bare_state_dir(void);
/* <state>/journal: the path the runner gets in $SCHEDLAB_JOURNAL. */
const char *bare_journal_path(void);

/* Takes the bare-metal lock (one `lab bare` at a time on a host): the
 * descriptor to keep, or -1 with one line in err. */
int bare_lock(struct strbuf *err);

/*
 * Replays the journal (journal.h) when it holds changes nobody put back,
 * printing one line per change ("<how>: <path> ...") on stdout prefixed
 * with label, then removes it.  Returns the number of changes that could
 * not be put back (the journal is then kept for another try), 0 when all
 * were (or there was nothing), -1 when the journal is unreadable or
 * malformed (err says why; it is kept).  *restored counts what was put back.
 */
int bare_restore(const char *label, unsigned *restored, struct strbuf *err);

/* Runs `runner --probe-topology` on this host and returns the guest view
 * (guestview.h) of the host; NULL with one line in err. */
struct json_object *bare_probe(const char *runner, struct strbuf *err);

/*
 * Measurement hygiene: cpufreq governor, SMT control, how busy the host is
 * (a /proc/stat sample over sample_ms, load average), schedstats.  Returns
 * an object for run.json and prints one "warning:" line on stderr for
 * each thing that makes numbers less trustworthy.
 */
struct json_object *bare_hygiene(unsigned sample_ms);

/* The CPU busy fraction (0..1) between two /proc/stat "cpu" lines. */
double bare_busy_fraction(const char *before, const char *after);

#endif
