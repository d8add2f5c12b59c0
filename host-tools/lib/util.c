/* util.c - error reporting, checked allocation, strbuf/strvec and file
 * helpers used by every host-side part of the lab. */
#define _GNU_SOURCE
#include "lib/util.h"
#include "common/io.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char strbuf_empty[1];
const char *strvec_empty[1];

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "lab: %s%s\n", prefix, msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(code);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die(LAB_EXIT_FAIL, "out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		die(LAB_EXIT_FAIL, "out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die(LAB_EXIT_FAIL, "out of memory allocating %zu bytes", n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die(LAB_EXIT_FAIL, "out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want <= sb->alloc)
		return;
	if (sb->alloc == 0)
		sb->buf = NULL;
	sb->alloc = want < 64 ? 64 : want + want / 2;
	sb->buf = xrealloc(sb->buf, sb->alloc);
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;

	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

char *strbuf_detach(struct strbuf *sb)
{
	char *p;

	if (!sb->alloc)
		return xstrdup("");
	p = sb->buf;
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = 0;
	return p;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = 0;
}

void strvec_push(struct strvec *sv, const char *s)
{
	if (sv->nr + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 16;
		sv->v = xrealloc(sv->v == strvec_empty ? NULL : sv->v,
				 sv->alloc * sizeof(*sv->v));
	}
	sv->v[sv->nr++] = xstrdup(s);
	sv->v[sv->nr] = NULL;
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strvec_push(sv, sb.buf);
	strbuf_release(&sb);
}

void strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

void strvec_clear(struct strvec *sv)
{
	if (sv->v != strvec_empty) {
		for (size_t i = 0; i < sv->nr; i++)
			free((char *)sv->v[i]);
		free(sv->v);
	}
	sv->v = strvec_empty;
	sv->nr = sv->alloc = 0;
}

char *read_file(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while ((n = xread(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			int e = errno;

			close(fd);
			strbuf_release(&sb);
			errno = e;
			return NULL;
		}
		strbuf_add(&sb, buf, (size_t)n);
	}
	close(fd);
	if (len)
		*len = sb.len;
	return strbuf_detach(&sb);
}

int write_file_atomic_err(const char *path, const void *data, size_t len, struct strbuf *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0) {
		strbuf_addf(err, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (write_in_full(fd, data, len) < 0) {
		strbuf_addf(err, "cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int write_file_in(const char *dir, const char *name, const void *data, size_t len, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", dir, name);
	int r = write_file_atomic_err(path, data, len, err);

	free(path);
	return r;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	struct strbuf err = STRBUF_INIT;
	int ret = write_file_atomic_err(path, data, len, &err);

	if (ret < 0)
		error("%s", err.buf);
	strbuf_release(&err);
	return ret;
}

int temp_file_create(const char *what, char **path, struct strbuf *err)
{
	char *dir = xasprintf("%s/tmp", lab_cache_dir());
	int fd = -1;

	*path = xasprintf("%s/%s-XXXXXX", dir, what);
	if (mkdir_p(dir, 0755) == 0) {
		fd = mkstemp(*path);
		if (fd < 0)
			strbuf_addf(err, "cannot create a temporary %s in '%s': %s", what, dir,
				    strerror(errno));
	} else {
		strbuf_addf(err, "cannot create a temporary %s: cannot create '%s'", what, dir);
	}
	free(dir);
	if (fd < 0) {
		free(*path);
		*path = NULL;
	}
	return fd;
}

char *temp_file_write(const char *what, const void *data, size_t len, struct strbuf *err)
{
	char *path;
	int fd = temp_file_create(what, &path, err);

	if (fd < 0)
		return NULL;
	/* close() runs whatever the write did: no fd outlives a failure */
	if (write_in_full(fd, data, len) < 0) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
	} else if (close(fd) < 0) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(errno));
	} else {
		return path;
	}
	unlink(path);
	free(path);
	return NULL;
}

int mkdir_p(const char *path, unsigned mode)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			error("cannot create directory '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST) {
		error("cannot create directory '%s': %s", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

const char *lab_root(void)
{
	static char root[PATH_MAX];
	const char *env = getenv("LAB_ROOT");
	ssize_t n;
	char *slash;

	if (root[0])
		return root;
	if (env && *env) {
		snprintf(root, sizeof(root), "%s", env);
		return root;
	}
	/* The binary lives at <root>/lab or <root>/<O>/.../<name>: walk up
	 * from it until a directory holds topologies. */
	n = readlink("/proc/self/exe", root, sizeof(root) - 1);
	if (n <= 0) {
		snprintf(root, sizeof(root), ".");
		return root;
	}
	root[n] = '\0';
	while ((slash = strrchr(root, '/')) && slash != root) {
		char probe[PATH_MAX + 32];
		struct stat st;

		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/topologies", root);
		if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode))
			return root;
	}
	snprintf(root, sizeof(root), ".");
	return root;
}

const char *lab_cache_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("LAB_CACHE");

	if (!dir[0]) {
		if (env && *env)
			snprintf(dir, sizeof(dir), "%s", env);
		else
			snprintf(dir, sizeof(dir), "%s/.cache", lab_root());
	}
	return dir;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

int parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	unsigned long v = 0;

	if (!s || !*s || strlen(s) > 10)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int parse_size_mib(const char *s, uint64_t *mib)
{
	uint64_t v = 0, shift_kib;
	const char *p = s;
	size_t digits = 0;

	if (!s)
		return -1;
	while (*p >= '0' && *p <= '9') {
		if (++digits > 12)
			return -1;
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	if (!digits)
		return -1;
	switch (*p) {
	case 'K': case 'k': shift_kib = 0; p++; break;
	case 'M': case 'm': case '\0': shift_kib = 10; if (*p) p++; break;
	case 'G': case 'g': shift_kib = 20; p++; break;
	case 'T': case 't': shift_kib = 30; p++; break;
	default: return -1;
	}
	if (*p == 'i' && p[-1] != '\0')
		p++;
	if ((*p == 'B' || *p == 'b'))
		p++;
	if (*p)
		return -1;
	/* value in KiB, then MiB; refuse anything not a whole MiB */
	if (v > (UINT64_MAX >> 31))
		return -1;
	v <<= shift_kib;
	if (v % 1024)
		return -1;
	*mib = v / 1024;
	return 0;
}

int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int remove_tree(const char *path)
{
	if (access(path, F_OK) < 0)
		return 0;
	return nftw(path, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], min, len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, c &= 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (unsigned i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
		return 0;
	*cp = c;
	return len;
}

char *utf8_clean(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max);
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t len = utf8_seq(p + i, n - i, &cp);

		if (!len) {
			strbuf_addstr(&sb, "\xef\xbf\xbd");
			i++;
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			strbuf_addch(&sb, '?');
			i += len;
		} else {
			strbuf_add(&sb, s + i, len);
			i += len;
		}
	}
	return strbuf_detach(&sb);
}

int utf8_clean_already(const char *s)
{
	char *c = utf8_clean(s, SIZE_MAX);
	int same = !strcmp(c, s);

	free(c);
	return same;
}

void sweep_dead_owner_dirs(const char *dir, const char *prefix, void (*rm)(const char *path))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t plen = strlen(prefix);

	while (d && (e = readdir(d))) {
		char *end, *path;
		long pid;

		if (strncmp(e->d_name, prefix, plen))
			continue;
		pid = strtol(e->d_name + plen, &end, 10);
		if (end == e->d_name + plen || *end != '-' || pid <= 0 ||
		    pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		rm(path);
		free(path);
	}
	if (d)
		closedir(d);
}

/* 1 when prog is an executable in $PATH. */
int in_path(const char *prog)
{
	const char *path = getenv("PATH");
	struct strbuf p = STRBUF_INIT;
	int found = 0;

	for (const char *d = path ? path : "/usr/bin:/bin"; d && !found; ) {
		const char *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : strlen(d);

		strbuf_reset(&p);
		strbuf_addf(&p, "%.*s/%s", (int)n, n ? d : ".", prog);
		found = access(p.buf, X_OK) == 0;
		d = colon ? colon + 1 : NULL;
	}
	strbuf_release(&p);
	return found;
}
