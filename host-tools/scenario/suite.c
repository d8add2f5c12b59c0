/* suite.c - suites: one scenario file per line, '#' comments, each
 * resolved under scenarios/. */
#include "scenario/loader.h"

#include <ctype.h>
#include <errno.h>
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

int suite_parse(const char *shown, const char *text, size_t len, const char *scenario_dir,
		struct strvec *paths, struct strbuf *err)
{
	struct strvec names = STRVEC_INIT;
	unsigned *lines = NULL;
	size_t off = 0, first = paths->nr;
	unsigned lineno = 0;
	int ret = -1;

	while (off < len) {
		const char *line = text + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;
		const char *b, *e;
		char *entry, *full, shown_entry[64];
		struct stat st;

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
		for (size_t i = 0; i < names.nr; i++) {
			if (!strcmp(names.v[i], entry)) {
				suite_fail(err, shown, lineno, "'%s' is listed twice (first at line %u)",
					   scenario_quoted(entry, shown_entry, sizeof(shown_entry)), lines[i]);
				free(entry);
				goto out;
			}
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
		lines = xrealloc(lines, (names.nr + 1) * sizeof(*lines));
		lines[names.nr] = lineno;
		strvec_push(&names, entry);
		strvec_push(paths, full);
		free(full);
		free(entry);
	}
	if (!names.nr) {
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
	strvec_clear(&names);
	free(lines);
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

