/* fault-json.h - the runner's growing text buffer for record payloads:
 * JSON (fault events, invariant evidence, results) or TAB-separated
 * counter text, with escaped strings and printf-style members. */
#ifndef RUNNER_FAULT_JSON_H
#define RUNNER_FAULT_JSON_H

#include <stddef.h>

struct fj {
	char *buf;       /* malloc'ed, NUL-terminated; fj_release() frees */
	size_t len, cap;
	size_t limit;    /* most bytes the text may take (NUL included), 0: no limit */
	int cut;         /* an add did not fit the limit or memory: text ends early */
};
#define FJ_INIT { NULL, 0, 0, 0, 0 }

/* Appends n bytes, or nothing (setting cut) when they do not fit: once
 * cut, every later add is dropped too. */
void fj_add(struct fj *j, const char *s, size_t n);
void fj_printf(struct fj *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string, quotes included; bytes below 0x20 are escaped. */
void fj_str(struct fj *j, const char *s);
/* The text so far ("" when empty). */
const char *fj_text(const struct fj *j);
void fj_reset(struct fj *j);
void fj_release(struct fj *j);

#endif
