/* suite.c - suites: one scenario file or pattern per line, '#' comments,
 * each resolved under scenarios/.
 *
 *   smoke-hackbench      one file (".ini" is implied)
 *   smoke-*              every file the pattern matches, in name order,
 *                        except those already listed: a new scenario file
 *                        joins the suite by its name
 *   !fault-host-*        drops what the lines before added
 */
#include "scenario/loader.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *suite_path(const char *name)
{
	size_t n = strlen(name);

	if (strchr(name, '/') || (n > 6 && !strcmp(name + n - 6, ".suite")))
		return xstrdup(name);
	return xasprintf("%s/scenarios/suites/%s.suite", lab_root(), name);
}

__attribute__((format(printf, 4, 5)))
static int suite_fail(struct strbuf *err, const char *shown, unsigned line, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(err);
	if (line)
		strbuf_addf(err, "%s:%u: ", shown, line);
	else
		strbuf_addf(err, "%s: ", shown);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

struct suite_list {
	struct strvec names;   /* entries as listed, relative to scenarios/ */
	unsigned *lines;       /* the line that added each */
	unsigned char *gone;   /* dropped by a later !pattern */
};

static size_t list_find(const struct suite_list *l, const char *entry)
{
	for (size_t i = 0; i < l->names.nr; i++)
		if (!l->gone[i] && !strcmp(l->names.v[i], entry))
			return i;
	return (size_t)-1;
}

static void list_add(struct suite_list *l, const char *entry, unsigned lineno)
{
	l->lines = xrealloc(l->lines, (l->names.nr + 1) * sizeof(*l->lines));
	l->gone = xrealloc(l->gone, l->names.nr + 1);
	l->lines[l->names.nr] = lineno;
	l->gone[l->names.nr] = 0;
	strvec_push(&l->names, entry);
}

/* Adds the files a pattern matches (not listed yet), or with drop, marks
 * those listed that it matches; the number it matched. */
static size_t list_pattern(struct suite_list *l, const char *dir, const char *pattern,
			   int drop, unsigned lineno)
{
	size_t n = 0;

	if (drop) {
		for (size_t i = 0; i < l->names.nr; i++)
			if (!l->gone[i] && fnmatch(pattern, l->names.v[i], FNM_PATHNAME) == 0) {
				l->gone[i] = 1;
				n++;
			}
	} else {
		char *full = xasprintf("%s/%s", dir, pattern);
		glob_t g;

		if (glob(full, 0, NULL, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++) {
				const char *entry = g.gl_pathv[i] + strlen(dir) + 1;
				struct stat st;

				if (stat(g.gl_pathv[i], &st) < 0 || !S_ISREG(st.st_mode))
					continue;
				n++;
				if (list_find(l, entry) == (size_t)-1)
					list_add(l, entry, lineno);
			}
			globfree(&g);
		}
		free(full);
	}
	return n;
}

int suite_parse(const char *shown, const char *text, size_t len, const char *scenario_dir,
		struct strvec *paths, struct strbuf *err)
{
	struct suite_list l = { STRVEC_INIT, NULL, NULL };
	size_t off = 0, first = paths->nr;
	unsigned lineno = 0;
	int ret = -1;

	while (off < len) {
		const char *line = text + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;
		const char *b, *e;
		char *entry, *full, shown_entry[64];
		struct stat st;
		int drop;
		size_t was;

		off += n + (nl ? 1 : 0);
		lineno++;
		if (n > SCENARIO_MAX_LINE) {
			suite_fail(err, shown, lineno, "line longer than %d characters",
				   SCENARIO_MAX_LINE);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)line[i];

			if ((c < 0x20 && c != '\t' && !(c == '\r' && i == n - 1)) || c == 0x7f) {
				suite_fail(err, shown, lineno, "control character 0x%02x", c);
				goto out;
			}
		}
		e = memchr(line, '#', n);
		if (!e)
			e = line + n;
		b = scenario_lskip(line, e);
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (b == e)
			continue;
		drop = *b == '!';
		b += drop;
		entry = xasprintf("%.*s", (int)(e - b), b);
		if (strpbrk(entry, " \t")) {
			suite_fail(err, shown, lineno, "one scenario file per line, without options: "
				   "'%s'", scenario_quoted(entry, shown_entry, sizeof(shown_entry)));
			free(entry);
			goto out;
		}
		if (entry[0] == '/' || !strcmp(entry, "..") || !strncmp(entry, "../", 3) ||
		    strstr(entry, "/../") || (strlen(entry) >= 3 &&
					      !strcmp(entry + strlen(entry) - 3, "/.."))) {
			suite_fail(err, shown, lineno, "'%s' is not a file under scenarios/",
				   scenario_quoted(entry, shown_entry, sizeof(shown_entry)));
			free(entry);
			goto out;
		}
		if (strlen(entry) < 4 || strcmp(entry + strlen(entry) - 4, ".ini")) {
			char *with = xasprintf("%s.ini", entry);

			free(entry);
			entry = with;
		}
		if (drop || strpbrk(entry, "*?[")) {
			if (!list_pattern(&l, scenario_dir, entry, drop, lineno)) {
				suite_fail(err, shown, lineno, drop ? "'!%s' drops nothing listed before it" :
					   "'%s' matches no scenario file",
					   scenario_quoted(entry, shown_entry, sizeof(shown_entry)));
				free(entry);
				goto out;
			}
			free(entry);
			continue;
		}
		if ((was = list_find(&l, entry)) != (size_t)-1) {
			suite_fail(err, shown, lineno, "'%s' is listed twice (first at line %u)",
				   scenario_quoted(entry, shown_entry, sizeof(shown_entry)), l.lines[was]);
			free(entry);
			goto out;
		}
		full = xasprintf("%s/%s", scenario_dir, entry);
		if (stat(full, &st) < 0 || !S_ISREG(st.st_mode)) {
			char *fshown = lab_shown_path(full);

			suite_fail(err, shown, lineno, "no scenario file '%s' (%s)",
				   scenario_quoted(entry, shown_entry, sizeof(shown_entry)), fshown);
			free(fshown);
			free(full);
			free(entry);
			goto out;
		}
		list_add(&l, entry, lineno);
		free(full);
		free(entry);
	}
	for (size_t i = 0; i < l.names.nr; i++) {
		char *full;

		if (l.gone[i])
			continue;
		full = xasprintf("%s/%s", scenario_dir, l.names.v[i]);
		strvec_push(paths, full);
		free(full);
	}
	if (paths->nr == first) {
		suite_fail(err, shown, 0, "the suite names no scenario file");
		goto out;
	}
	ret = 0;
out:
	if (ret) {
		/* leave paths as it was given */
		while (paths->nr > first) {
			free((char *)paths->v[--paths->nr]);
			paths->v[paths->nr] = NULL;
		}
	}
	strvec_clear(&l.names);
	free(l.lines);
	free(l.gone);
	return ret;
}

int suite_load(const char *name, struct strvec *paths, struct strbuf *err)
{
	char *path = suite_path(name), *shown = lab_shown_path(path);
	char *dir = xasprintf("%s/scenarios", lab_root());
	size_t len;
	char *text = read_file(path, &len);
	int ret;

	if (!text) {
		strbuf_reset(err);
		if (errno == ENOENT)
			strbuf_addf(err, "no suite '%s' (%s)", name, shown);
		else
			strbuf_addf(err, "cannot read suite '%s': %s", shown, strerror(errno));
		ret = -1;
	} else if (memchr(text, '\0', len)) {
		ret = suite_fail(err, shown, 0, "NUL byte in the file");
	} else {
		ret = suite_parse(shown, text, len, dir, paths, err);
	}
	free(text);
	free(dir);
	free(shown);
	free(path);
	return ret;
}

