/* schedfeat.h - names of scheduler features (/sys/kernel/debug/sched/features):
 * the syntax both sides accept and lists of them; host and runner share it. */
#ifndef LAB_SCHEDFEAT_H
#define LAB_SCHEDFEAT_H

#include <stddef.h>

/* The kernel reads at most 63 bytes per write to the features file. */
#define SCHED_FEAT_NAME_MAX 63
/* Linux 6.1 has 26 features, 6.12 about 35: room for growth. */
#define SCHED_FEAT_MAX 128
/* What one run may ask for. */
#define SCHED_FEAT_WANT_MAX 16

/* The kernel-command-line key that carries a run's request to the runner. */
#define SCHED_FEAT_CMDLINE_KEY "lab.sched_feat="
#define SCHED_FEAT_PATH "/sys/kernel/debug/sched/features"

/*
 * A list of feature tokens as the kernel prints and takes them: NAME is
 * on, NO_NAME off.  Fixed size, no allocation (the runner uses it too).
 */
struct sched_feat_list {
	unsigned nr;
	char name[SCHED_FEAT_MAX][SCHED_FEAT_NAME_MAX + 1];
};

/* 0 when s[0..len) is a feature token: [A-Z][A-Z_]* after an optional
 * "NO_", at most SCHED_FEAT_NAME_MAX bytes; -1 otherwise. */
int sched_feat_token_ok(const char *s, size_t len);

/* The token without its "NO_", and whether it turns the feature on. */
const char *sched_feat_base(const char *token);
int sched_feat_is_on(const char *token);

/*
 * Splits text[0..len) at sep into tokens, each checked with
 * sched_feat_token_ok(), at most max of them (<= SCHED_FEAT_MAX).  With
 * sep ' ' (the kernel's features file) runs of blanks and newlines
 * separate and are skipped; with ',' (a user's list) an empty token is an
 * error.  A feature named twice (X and X, or X and NO_X) is an error.
 * Returns 0, or -1 with one line in err (errlen bytes, may be NULL).
 */
int sched_feat_list_parse(const char *text, size_t len, char sep, unsigned max,
			  struct sched_feat_list *l, char *err, size_t errlen);

/* The index of the token whose base name is base's (with or without
 * NO_), -1 when the list has none. */
int sched_feat_find(const struct sched_feat_list *l, const char *token);

/* Writes the tokens joined by sep into buf (size bytes, NUL-terminated,
 * cut when too small).  Returns the length it needed. */
size_t sched_feat_join(const struct sched_feat_list *l, char sep, char *buf, size_t size);

#endif
