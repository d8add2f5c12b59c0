/* journal.c - the undo journal of host changes (format in journal.h):
 * written by the runner before each change, read and replayed by the lab. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- format ---- */

static int needs_escape(unsigned char c)
{
	return c <= ' ' || c >= 0x7f || c == '%';
}

size_t journal_escape(const char *s, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char enc[3] = { (char)c };
		size_t k = 1;

		if (needs_escape(c)) {
			enc[0] = '%';
			enc[1] = hex[c >> 4];
			enc[2] = hex[c & 15];
			k = 3;
		}
		for (size_t i = 0; i < k; i++, n++)
			if (n + 1 < outlen)
				out[n] = enc[i];
	}
	if (outlen)
		out[n < outlen ? n : outlen - 1] = '\0';
	return n;
}

static const char *const op_names[] = { "set", "mkdir" };

size_t journal_format(enum journal_op op, long pid, const char *path, const char *value,
		      char *out, size_t outlen)
{
	size_t n;
	int k;

	k = snprintf(out, outlen, "%s %ld ", op_names[op], pid);
	n = k > 0 ? (size_t)k : 0;
	n += journal_escape(path, n < outlen ? out + n : NULL, n < outlen ? outlen - n : 0);
	if (op == JOURNAL_SET) {
		if (n + 1 < outlen)
			out[n] = ' ';
		n++;
		n += journal_escape(value, n < outlen ? out + n : NULL, n < outlen ? outlen - n : 0);
	}
	if (n + 1 < outlen) {
		out[n] = '\n';
		out[n + 1] = '\0';
	}
	return n + 1;
}

/* ---- writer ---- */

/* Paths this process noted (a hash each): the first write holds the
 * original, later writes of the same file are the fault's own values. */
#define NOTED_MAX 512
static uint64_t noted[NOTED_MAX];
static unsigned nr_noted;
static pid_t noted_pid;
static pid_t wrote_pid; /* this process wrote records a "clean" must cover */

static uint64_t path_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* A forked child starts with its parent's list: not its own notes. */
static void noted_reset_if_forked(void)
{
	if (noted_pid != getpid()) {
		noted_pid = getpid();
		nr_noted = 0;
	}
}

static int already_noted(uint64_t h)
{
	for (unsigned i = 0; i < nr_noted; i++)
		if (noted[i] == h)
			return 1;
	return 0;
}

static int append_line(const char *line, size_t len)
{
	const char *path = getenv(JOURNAL_ENV);
	int fd, e;
	struct stat st;

	if (!path || !*path)
		return 0;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	/* a new journal gets its header first */
	if (fstat(fd, &st) == 0 && st.st_size == 0 &&
	    write(fd, JOURNAL_HEADER "\n", sizeof(JOURNAL_HEADER)) != (ssize_t)sizeof(JOURNAL_HEADER))
		goto fail;
	/* one write(2) per record: O_APPEND keeps records of processes whole */
	if (write(fd, line, len) != (ssize_t)len || fsync(fd) < 0)
		goto fail;
	return close(fd);
fail:
	e = errno ? errno : EIO;
	close(fd);
	errno = e;
	return -1;
}

static int read_value(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t got = 0;

	if (fd < 0)
		return -1;
	while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	buf[got] = '\0';
	while (got && buf[got - 1] == '\n')
		buf[--got] = '\0';
	return 0;
}

static int note(enum journal_op op, const char *path, const char *value)
{
	size_t need = journal_format(op, (long)getpid(), path, value, NULL, 0);
	char *line = malloc(need + 1);
	int ret;

	if (!line) {
		errno = ENOMEM;
		return -1;
	}
	journal_format(op, (long)getpid(), path, value, line, need + 1);
	ret = append_line(line, need);
	if (ret == 0)
		wrote_pid = getpid();
	free(line);
	return ret;
}

static int note_set(const char *path, const char *given)
{
	static char value[8192];
	uint64_t h;

	if (!getenv(JOURNAL_ENV) || !*getenv(JOURNAL_ENV))
		return 0;
	noted_reset_if_forked();
	h = path_hash(path);
	if (already_noted(h))
		return 0;
	/* a file that cannot be read has no original to note; the write
	 * itself will fail the same way, or it is write-only (nothing to
	 * restore) */
	if (given)
		snprintf(value, sizeof(value), "%s", given);
	else if (read_value(path, value, sizeof(value)) < 0)
		return 0;
	if (note(JOURNAL_SET, path, value) < 0)
		return -1;
	if (nr_noted < NOTED_MAX)
		noted[nr_noted++] = h;
	return 0;
}

int journal_note_set(const char *path)
{
	return note_set(path, NULL);
}

int journal_note_set_value(const char *path, const char *value)
{
	return note_set(path, value);
}

int journal_note_mkdir(const char *path)
{
	return note(JOURNAL_MKDIR, path, "");
}

int journal_note_clean(void)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "clean %ld\n", (long)getpid());

	noted_reset_if_forked();
	nr_noted = 0;
	if (wrote_pid != getpid())
		return 0;
	wrote_pid = 0;
	return append_line(line, (size_t)n);
}

/* ---- reader ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes field [s, s+n) into a new string; NULL when malformed. */
static char *unescape(const char *s, size_t n, size_t max)
{
	char *out;
	size_t k = 0;

	if (n > max * 3)
		return NULL;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
			int lo = i + 2 < n ? hexval(s[i + 2]) : -1;

			/* %00 would cut the string short: never written */
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				free(out);
				return NULL;
			}
			out[k++] = (char)(hi << 4 | lo);
			i += 2;
		} else if (needs_escape(c)) {
			free(out);
			return NULL;
		} else {
			out[k++] = (char)c;
		}
	}
	out[k] = '\0';
	if (k > max) {
		free(out);
		return NULL;
	}
	return out;
}

static int parse_pid(const char *s, size_t n, long *pid)
{
	long v = 0;

	if (!n || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v <= 0 || v > 0x3fffffff)
		return -1;
	*pid = v;
	return 0;
}

#define MAX_FIELDS 4

/* Splits a line at single spaces; returns the field count, -1 if too many. */
static int split(const char *line, size_t len, const char **f, size_t *fl)
{
	int nf = 0;
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (nf == MAX_FIELDS)
			return -1;
		f[nf] = line + start;
		fl[nf++] = i - start;
		start = i + 1;
	}
	return nf;
}

static int add_entry(struct journal *j, const struct journal_entry *e)
{
	if (j->nr == JOURNAL_MAX_ENTRIES)
		return -1;
	if (j->nr == j->alloc) {
		size_t na = j->alloc ? j->alloc * 2 : 16;
		struct journal_entry *ne = realloc(j->e, na * sizeof(*ne));

		if (!ne)
			return -1;
		j->e = ne;
		j->alloc = na;
	}
	j->e[j->nr++] = *e;
	return 0;
}

static int field_is(const char *f, size_t n, const char *word)
{
	return n == strlen(word) && !memcmp(f, word, n);
}

static int parse_line(struct journal *j, const char *line, size_t len, char *err, size_t errlen)
{
	const char *f[MAX_FIELDS];
	size_t fl[MAX_FIELDS];
	int nf = split(line, len, f, fl);
	struct journal_entry e = { 0 };

	if (nf < 2) {
		snprintf(err, errlen, "not a journal record");
		return -1;
	}
	if (parse_pid(f[1], fl[1], &e.pid) < 0) {
		snprintf(err, errlen, "bad process id");
		return -1;
	}
	if (field_is(f[0], fl[0], "clean") && nf == 2) {
		for (size_t i = 0; i < j->nr; i++)
			if (j->e[i].pid == e.pid)
				j->e[i].cleaned = 1;
		return 0;
	}
	if (field_is(f[0], fl[0], "set") && nf == 4)
		e.op = JOURNAL_SET;
	else if (field_is(f[0], fl[0], "mkdir") && nf == 3)
		e.op = JOURNAL_MKDIR;
	else {
		snprintf(err, errlen, "unknown record or wrong number of fields");
		return -1;
	}
	e.path = unescape(f[2], fl[2], JOURNAL_MAX_PATH);
	e.value = e.op == JOURNAL_SET ? unescape(f[3], fl[3], JOURNAL_MAX_VALUE) : strdup("");
	if (!e.path || !e.value || e.path[0] != '/' || strstr(e.path, "/../") ||
	    add_entry(j, &e) < 0) {
		snprintf(err, errlen, "bad path or value (paths are absolute, values bounded)");
		free(e.path);
		free(e.value);
		return -1;
	}
	return 0;
}

int journal_parse(const char *text, size_t len, struct journal *j, char *err, size_t errlen)
{
	size_t pos = 0;
	unsigned line_no = 0;

	memset(j, 0, sizeof(*j));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n;
		char why[160];

		line_no++;
		if (!nl) {
			/* the writer died mid-record: that change was not made
			 * (the record comes before the change) */
			j->torn = 1;
			break;
		}
		n = (size_t)(nl - (text + pos));
		if (line_no == 1) {
			if (n != strlen(JOURNAL_HEADER) || memcmp(text, JOURNAL_HEADER, n)) {
				snprintf(err, errlen, "line 1: not a schedlab journal (no '%s' header)",
					 JOURNAL_HEADER);
				goto fail;
			}
		} else if (memchr(text + pos, '\0', n) || parse_line(j, text + pos, n, why,
								    sizeof(why)) < 0) {
			snprintf(err, errlen, "line %u: %s", line_no,
				 memchr(text + pos, '\0', n) ? "NUL byte in a record" : why);
			goto fail;
		}
		pos += n + 1;
	}
	return 0;
fail:
	journal_release(j);
	return -1;
}

void journal_release(struct journal *j)
{
	for (size_t i = 0; i < j->nr; i++) {
		free(j->e[i].path);
		free(j->e[i].value);
	}
	free(j->e);
	memset(j, 0, sizeof(*j));
}

size_t journal_pending(const struct journal *j)
{
	size_t n = 0;

	for (size_t i = 0; i < j->nr; i++)
		n += !j->e[i].cleaned;
	return n;
}

/* ---- restore ---- */

static int write_value(const char *path, const char *s)
{
	/* O_TRUNC as a shell's '>' does: kernel files ignore it, a plain
	 * file (tests) gets exactly the value */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	/* one write(2): sysfs, procfs and debugfs take one value per write */
	n = write(fd, len ? s : "\n", len ? len : 1);
	e = errno;
	close(fd);
	errno = n < 0 ? e : EIO;
	return n == (ssize_t)(len ? len : 1) ? 0 : -1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int word_in(const char *words, const char *w, size_t n)
{
	for (const char *p = words; *p;) {
		size_t k = strcspn(p, " \n");

		if (k == n && !memcmp(p, w, n))
			return 1;
		p += k;
		p += strspn(p, " \n");
	}
	return 0;
}

/* sched/features reads as every flag, but takes one flag per write: put
 * back the flags whose state differs now. */
static int restore_features(const char *path, const char *saved, char *detail, size_t dlen)
{
	static char now[8192];
	unsigned flips = 0, failed = 0;

	if (read_value(path, now, sizeof(now)) < 0)
		return -1;
	for (const char *p = saved; *p;) {
		size_t k = strcspn(p, " \n");
		char flag[128];

		if (k && k < sizeof(flag) && !word_in(now, p, k)) {
			memcpy(flag, p, k);
			flag[k] = '\0';
			flips++;
			if (write_value(path, flag) < 0)
				failed++;
		}
		p += k;
		p += strspn(p, " \n");
	}
	snprintf(detail, dlen, "%u flag%s set back%s", flips, flips == 1 ? "" : "s",
		 failed ? ", some failed" : "");
	return failed ? -1 : 0;
}

static int cgroup_empty(const char *dir)
{
	char path[JOURNAL_MAX_PATH + 32], buf[256];

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	if (read_value(path, buf, sizeof(buf)) < 0)
		return 1;
	return strstr(buf, "populated 0") != NULL;
}

static int remove_dir(const char *dir, char *detail, size_t dlen)
{
	char path[JOURNAL_MAX_PATH + 32];
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	write_value(path, "1");
	/* its killed tasks take a moment to leave; bounded */
	for (int i = 0; i < 100 && !cgroup_empty(dir); i++)
		nanosleep(&ts, NULL);
	if (rmdir(dir) == 0) {
		snprintf(detail, dlen, "removed");
		return 0;
	}
	if (errno == ENOENT) {
		snprintf(detail, dlen, "already gone");
		return 0;
	}
	snprintf(detail, dlen, "rmdir: %s", strerror(errno));
	return -1;
}

static int restore_one(const struct journal_entry *e, char *detail, size_t dlen)
{
	if (e->op == JOURNAL_MKDIR)
		return remove_dir(e->path, detail, dlen);
	if (access(e->path, F_OK) < 0 && errno == ENOENT) {
		snprintf(detail, dlen, "gone (nothing to restore)");
		return 0;
	}
	if (ends_with(e->path, "/sched/features"))
		return restore_features(e->path, e->value, detail, dlen);
	if (write_value(e->path, e->value) < 0) {
		snprintf(detail, dlen, "write '%.60s': %s", e->value, strerror(errno));
		return -1;
	}
	snprintf(detail, dlen, "= %.100s", e->value);
	return 0;
}

unsigned journal_restore(const struct journal *j, journal_report_fn report, void *ctx)
{
	unsigned failed = 0;
	char detail[256];

	for (size_t i = j->nr; i-- > 0;) {
		const struct journal_entry *e = &j->e[i];
		int ok;

		if (e->cleaned)
			continue;
		/* an older record of the same file holds the earlier original:
		 * it is written after this one, and wins */
		ok = restore_one(e, detail, sizeof(detail)) == 0;
		failed += !ok;
		if (report)
			report(ctx, e, ok, detail);
	}
	return failed;
}
