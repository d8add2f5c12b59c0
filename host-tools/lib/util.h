/* util.h - small helpers shared by every host-side file of the lab:
 * error reporting, checked allocation, growable strings and argv vectors. */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* The one exit-code contract of every schedlab binary (README has the table). */
enum lab_exit {
	LAB_EXIT_PASS = 0,
	LAB_EXIT_FAIL = 1,
	LAB_EXIT_USAGE = 2,
	LAB_EXIT_UNDECIDED = 3,	/* lab ab: the budget ended before every decision */
	LAB_EXIT_SKIP = 77,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * error() prints "lab: error: <msg>" on stderr and returns -1, so library
 * code can say `return error("cannot open '%s'", path);`.  die() is for
 * command entry points only: it prints the same line and exits with `code`.
 */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A NUL-terminated growable string.  STRBUF_INIT needs no allocation;
 * strbuf_release() frees the buffer and leaves an empty, reusable strbuf. */
struct strbuf {
	size_t len, alloc;
	char *buf;
};
extern char strbuf_empty[];
#define STRBUF_INIT { 0, 0, strbuf_empty }
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_reset(struct strbuf *sb);
/* Hands the buffer to the caller (who frees it); sb is left empty. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

/* A NULL-terminated vector of owned strings, usable as an execv() argv. */
struct strvec {
	const char **v;
	size_t nr, alloc;
};
extern const char *strvec_empty[];
#define STRVEC_INIT { strvec_empty, 0, 0 }
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strvec_pushl(struct strvec *sv, ...); /* NULL-terminated list */
void strvec_clear(struct strvec *sv);

/* Whole-file helpers.  read_file() returns a malloc'ed, NUL-terminated
 * buffer (length in *len when len is not NULL) or NULL with errno set. */
char *read_file(const char *path, size_t *len);
/* Writes via a temporary file and rename(), so readers never see half a file. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* The same, with the one-line reason in err instead of on stderr. */
int write_file_atomic_err(const char *path, const void *data, size_t len, struct strbuf *err);
/* write_file_atomic_err() of dir/name. */
int write_file_in(const char *dir, const char *name, const void *data, size_t len, struct strbuf *err);
int mkdir_p(const char *path, unsigned mode);

/*
 * Scratch files under <cache>/tmp, named "<what>-XXXXXX".  temp_file_create()
 * returns the open fd and the path in *path (malloc'ed: the caller unlinks
 * and frees it), or -1 with the reason in err.  temp_file_write() fills a
 * new one with data and returns its path (the caller's), or NULL with err
 * and nothing left behind: no file, no open fd.
 */
int temp_file_create(const char *what, char **path, struct strbuf *err);
char *temp_file_write(const char *what, const void *data, size_t len, struct strbuf *err);

/* The lab's version, recorded in every run.json. */
#define LAB_VERSION "0.1"

/* Directory holding the lab's data (presets, guest init, scenarios):
 * $LAB_ROOT, else the directory of the running binary's repository. */
const char *lab_root(void);
/* Cache for kernels and initrds: $LAB_CACHE, else <root>/.cache. */
const char *lab_cache_dir(void);

/* Monotonic clock in nanoseconds. */
uint64_t now_ns(void);

/* FNV-1a 64 of data, continuing from h (start with FNV1A64_INIT): not
 * cryptographic, but enough to tell the cache's own inputs apart. */
#define FNV1A64_INIT 0xcbf29ce484222325ull
uint64_t fnv1a64(uint64_t h, const void *data, size_t len);

/* Parse a size such as "512M", "2G", "4096K" (binary units) into MiB.
 * Returns 0 on success, -1 when the text is not a size or out of range. */
int parse_size_mib(const char *s, uint64_t *mib);
/* Parse an unsigned decimal in [min, max]; no sign, no spaces, no suffix. */
int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out);

/* 1 when path (symlinks followed) is a directory / a regular file, else 0. */
int is_dir(const char *path);
int is_file(const char *path);
/* 1 when prog is an executable in $PATH. */
int in_path(const char *prog);
/* Removes path and everything below it without following symlinks or
 * crossing mount points; 0 also when path does not exist, -1 with errno. */
int remove_tree(const char *path);
/* Calls rm(path) for each entry of dir named "<prefix><pid>-..." whose pid
 * no longer runs (a lab killed before it cleaned up); ours is left. */
void sweep_dead_owner_dirs(const char *dir, const char *prefix, void (*rm)(const char *path));

/*
 * A malloc'ed copy of at most max bytes of s that is valid UTF-8 and
 * safe to print, whatever s holds: a byte that does not start a
 * well-formed sequence (overlong, surrogate, above U+10FFFF, U+FFFE or
 * U+FFFF, or cut short by max) becomes U+FFFD, and C0, DEL and C1
 * control characters become '?'.  Guest and file text goes through it
 * before any table, JSON, XML or HTML carries it.
 */
char *utf8_clean(const char *s, size_t max);
/* Length of the well-formed UTF-8 sequence at s (at most n bytes, n > 0)
 * and its code point in *cp; 0 when s starts none (as utf8_clean() sees it). */
size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp);
/* 1 when s (NUL-terminated) is what utf8_clean() would leave unchanged. */
int utf8_clean_already(const char *s);

#endif
