/* scenario.c - loads scenario files: inih reads them through lines.c's
 * reader and values.c's handler, checks.c checks the whole; the helpers. */
#include "scenario/loader.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* User text inside a one-line message: printable and not too long. */
const char *scenario_quoted(const char *s, char *buf, size_t size)
{
	size_t n = 0, max = size > 4 ? size - 4 : 0;

	for (; *s && n < max; s++)
		buf[n++] = (unsigned char)*s >= 0x20 && (unsigned char)*s != 0x7f ? *s : '?';
	if (*s && size >= 4) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

int loader_fail_at(struct loader *l, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (l->err_line)
		return -1;
	l->err_line = line ? line : 1;
	strbuf_reset(l->err);
	strbuf_addf(l->err, "%s:%u: ", l->s->shown, l->err_line);
	va_start(ap, fmt);
	strbuf_vaddf(l->err, fmt, ap);
	va_end(ap);
	return -1;
}

int scenario_is_word(const char *s, size_t max, int extra_punct)
{
	size_t n = 0;

	for (; *s; s++, n++) {
		int c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
			continue;
		if (extra_punct && n && (c == '-' || c == '.'))
			continue;
		return 0;
	}
	return n && n <= max;
}

void scenario_init(struct scenario *s)
{
	memset(s, 0, sizeof(*s));
	s->runs = DEFAULT_RUNS;
	s->warmup = DEFAULT_WARMUP;
	s->deadline_s = DEFAULT_DEADLINE;
	s->counters = DEFAULT_COUNTERS;
}

void scenario_release(struct scenario *s)
{
	for (unsigned i = 0; i < s->nr_params; i++)
		scenario_param_release(&s->params[i]);
	free(s->shown);
	scenario_init(s);
}

int scenario_parse(const char *shown, const char *text, size_t len, struct scenario *s,
		   struct strbuf *err)
{
	struct loader *l = xcalloc(1, sizeof(*l));
	int saved = ini_max_line, ret;

	scenario_release(s);
	s->shown = xstrdup(shown);
	l->s = s;
	l->text = text;
	l->len = len;
	l->err = err;
	if (strlen(shown) + 12 >= PLAN_MAX_FIELD) {
		loader_fail_at(l, 1, "path too long for the plan (%d characters at most)",
			PLAN_MAX_FIELD - 12);
		goto out;
	}
	/*
	 * Debian's libinih is built with INI_RUNTIME_OPTIONS and without
	 * INI_HANDLER_LINENO: the handler gets no line numbers, so our reader
	 * counts lines (inih asks for exactly one line per call), and the
	 * line buffer is sized at run time, 200 bytes by default.
	 */
	if (ini_max_line < SCENARIO_MAX_LINE + 3)
		ini_max_line = SCENARIO_MAX_LINE + 3;
	ret = ini_parse_stream(loader_read_line, l, loader_handle_key, l);
	ini_max_line = saved;
	if (ret > 0 && (!l->err_line || (unsigned)ret < l->err_line)) {
		/* inih found what our reader let through: say where at least */
		l->err_line = 0;
		loader_fail_at(l, (unsigned)ret, "syntax error (expected 'key = value', '[section]' or "
			"a comment)");
	} else if (ret < 0 && !l->err_line) {
		loader_fail_at(l, 1, "the INI parser failed (%d)", ret);
	}
	if (!l->err_line)
		loader_check(l);
out:
	ret = l->err_line ? -1 : 0;
	free(l);
	return ret;
}

char *lab_shown_path(const char *path)
{
	char real[PATH_MAX], root[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!realpath(lab_root(), root))
		return xstrdup(path);
	if (!realpath(path, real)) {
		/* a file that is not there is still named from the tree */
		char *dir = slash ? xasprintf("%.*s", (int)(slash - path + 1), path) : xstrdup(".");
		int ok = realpath(dir, real) && strlen(real) + strlen(slash ? slash : path) + 2 <
			 sizeof(real);

		free(dir);
		if (!ok)
			return xstrdup(path);
		strcat(real, "/");
		strcat(real, slash ? slash + 1 : path);
	}
	n = strlen(root);
	if (n > 1 && !strncmp(real, root, n) && real[n] == '/')
		return xstrdup(real + n + 1);
	return xstrdup(path);
}

int scenario_load(const char *path, struct scenario *s, struct strbuf *err)
{
	char *shown = lab_shown_path(path);
	size_t len;
	char *text = read_file(path, &len);
	int ret;

	if (!text) {
		strbuf_reset(err);
		strbuf_addf(err, "cannot read scenario file '%s': %s", shown, strerror(errno));
		free(shown);
		return -1;
	}
	ret = scenario_parse(shown, text, len, s, err);
	free(text);
	free(shown);
	return ret;
}

