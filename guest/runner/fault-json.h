/* fault-json.h - a small growing JSON text buffer for fault events and
 * invariant evidence (escaped strings, printf-style members). */
#ifndef RUNNER_FAULT_JSON_H
#define RUNNER_FAULT_JSON_H

#include <stddef.h>

struct fj {
	char *buf;       /* malloc'ed, NUL-terminated; fj_release() frees */
	size_t len, cap;
	int oom;         /* an allocation failed: the text is cut */
};
#define FJ_INIT { NULL, 0, 0, 0 }

void fj_add(struct fj *j, const char *s, size_t n);
void fj_printf(struct fj *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string, quotes included; bytes below 0x20 are escaped. */
void fj_str(struct fj *j, const char *s);
/* The text so far ("" when empty). */
const char *fj_text(const struct fj *j);
void fj_reset(struct fj *j);
void fj_release(struct fj *j);

#endif
