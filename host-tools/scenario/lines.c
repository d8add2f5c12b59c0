/* lines.c - the line reader handed to inih: checks every line (length,
 * control bytes, continuation lines) and opens each section it sees. */
#include "scenario/loader.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* inih's rule: ';' starts an inline comment only after whitespace. */
static const char *find_chars_or_comment(const char *s, const char *e, const char *chars)
{
	int was_space = 0;

	for (; s < e; s++) {
		if (chars && strchr(chars, *s))
			return s;
		if (was_space && *s == ';')
			return s;
		was_space = isspace((unsigned char)*s);
	}
	return e;
}

const char *scenario_lskip(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	return s;
}

static int open_metric(struct loader *l, const char *name, size_t len)
{
	struct scenario *s = l->s;
	char buf[64], shown[64];
	struct plan_metric *m;

	if (!len)
		return loader_fail_at(l, l->lineno, "[metric] needs a name, e.g. [metric time]");
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 60 ? len : 60), name);
	if (len >= sizeof(m->name) || !scenario_is_word(buf, sizeof(m->name) - 1, 0))
		return loader_fail_at(l, l->lineno, "bad metric name '%s' (at most %zu lowercase letters, "
			       "digits and '_')", scenario_quoted(buf, shown, sizeof(shown)),
			       sizeof(m->name) - 1);
	for (unsigned i = 0; i < s->nr_metrics; i++)
		if (!strcmp(s->metrics[i].name, buf))
			return loader_fail_at(l, l->lineno, "duplicate section [metric %s] (first at line %u)",
				       buf, s->metric_lines[i]);
	if (s->nr_metrics >= PLAN_MAX_METRICS)
		return loader_fail_at(l, l->lineno, "more than %d [metric] sections", PLAN_MAX_METRICS);
	l->metric = s->nr_metrics++;
	m = &s->metrics[l->metric];
	memset(m, 0, sizeof(*m));
	strcpy(m->name, buf);
	strcpy(m->statistic, "amean");
	m->higher_is_better = -1; /* required: checked when the file is read */
	s->metric_lines[l->metric] = l->lineno;
	return 0;
}

/* [fault NAME] and [invariant NAME]: named like metrics, unique per kind. */
static int open_section(struct loader *l, enum section sec, const char *name, size_t len)
{
	struct scenario *s = l->s;
	const char *what = sec == SEC_FAULT ? "fault" : "invariant";
	unsigned max = sec == SEC_FAULT ? PLAN_MAX_FAULTS : PLAN_MAX_INVARIANTS;
	unsigned *nr = sec == SEC_FAULT ? &s->nr_faults : &s->nr_invariants;
	unsigned *lines = sec == SEC_FAULT ? l->fault_lines : l->invariant_lines;
	size_t size = sizeof(s->faults[0].name);
	char buf[64], shown[64];

	l->sec = sec;
	if (!len)
		return loader_fail_at(l, l->lineno, "[%s] needs a name, e.g. [%s %s]", what, what,
			       sec == SEC_FAULT ? "churn" : "placement");
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 60 ? len : 60), name);
	if (len >= size || !scenario_is_word(buf, size - 1, 0))
		return loader_fail_at(l, l->lineno, "bad %s name '%s' (at most %zu lowercase letters, "
			       "digits and '_')", what, scenario_quoted(buf, shown, sizeof(shown)), size - 1);
	for (unsigned i = 0; i < *nr; i++) {
		const char *other = sec == SEC_FAULT ? s->faults[i].name : s->invariants[i].name;

		if (!strcmp(other, buf))
			return loader_fail_at(l, l->lineno, "duplicate section [%s %s] (first at line %u)",
				       what, buf, lines[i]);
	}
	if (*nr >= max)
		return loader_fail_at(l, l->lineno, "more than %u [%s] sections", max, what);
	l->section_index = (*nr)++;
	lines[l->section_index] = l->lineno;
	if (sec == SEC_FAULT) {
		struct plan_fault *f = &s->faults[l->section_index];

		memset(f, 0, sizeof(*f));
		strcpy(f->name, buf);
		strcpy(f->target, "default");
		snprintf(f->where, sizeof(f->where), "%s:%u", s->shown, l->lineno);
	} else {
		struct plan_invariant *v = &s->invariants[l->section_index];

		memset(v, 0, sizeof(*v));
		strcpy(v->name, buf);
		snprintf(v->where, sizeof(v->where), "%s:%u", s->shown, l->lineno);
	}
	return 0;
}

/* "[word rest]" with word one of ours: the rest, trimmed, else NULL. */
static const char *named_section(const char *name, const char *name_end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(name_end - name) < n || memcmp(name, word, n) ||
	    (name + n < name_end && !isspace((unsigned char)name[n])))
		return NULL;
	return scenario_lskip(name + n, name_end);
}

static int section_header(struct loader *l, const char *start, const char *e)
{
	const char *close = find_chars_or_comment(start + 1, e, "]");
	const char *name, *name_end, *rest;
	char shown[64], buf[64];
	size_t len;

	if (close == e || *close != ']')
		return loader_fail_at(l, l->lineno, "missing ']' in section header");
	rest = scenario_lskip(close + 1, e);
	if (rest < e && *rest != ';' && *rest != '#')
		return loader_fail_at(l, l->lineno, "text after ']' in section header");
	name = scenario_lskip(start + 1, close);
	name_end = close;
	while (name_end > name && isspace((unsigned char)name_end[-1]))
		name_end--;
	len = (size_t)(name_end - name);
	l->key_in_section = 0;

	if (len == 8 && !memcmp(name, "scenario", 8)) {
		if (l->scenario_line)
			return loader_fail_at(l, l->lineno, "duplicate section [scenario] (first at line %u)",
				       l->scenario_line);
		l->scenario_line = l->lineno;
		l->sec = SEC_SCENARIO;
		return 0;
	}
	if (len == 6 && !memcmp(name, "params", 6)) {
		if (l->params_line)
			return loader_fail_at(l, l->lineno, "duplicate section [params] (first at line %u)",
				       l->params_line);
		l->params_line = l->lineno;
		l->sec = SEC_PARAMS;
		return 0;
	}
	if (len >= 6 && !memcmp(name, "metric", 6) &&
	    (len == 6 || isspace((unsigned char)name[6]))) {
		const char *mname = scenario_lskip(name + 6, name_end);

		l->sec = SEC_METRIC;
		return open_metric(l, mname, (size_t)(name_end - mname));
	}
	if ((rest = named_section(name, name_end, "fault")))
		return open_section(l, SEC_FAULT, rest, (size_t)(name_end - rest));
	if ((rest = named_section(name, name_end, "invariant")))
		return open_section(l, SEC_INVARIANT, rest, (size_t)(name_end - rest));
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 60 ? len : 60), name);
	return loader_fail_at(l, l->lineno, "unknown section [%s] (expected [scenario], [params], "
		       "[metric NAME], [fault NAME] or [invariant NAME])",
		       scenario_quoted(buf, shown, sizeof(shown)));
}

/* Checks one physical line the way inih will read it, so every problem
 * gets a precise message here rather than a bare line number from inih. */
static int check_line(struct loader *l, const char *line, const char *e)
{
	const char *start;

	if (l->lineno == 1 && e - line >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
		line += 3;
	start = scenario_lskip(line, e);
	if (start == e || *start == ';' || *start == '#')
		return 0;
	if (start > line && l->key_in_section)
		return loader_fail_at(l, l->lineno, "indented line would continue the previous value; "
			       "continuation lines are not supported");
	if (*start == '[')
		return section_header(l, start, e);
	start = find_chars_or_comment(start, e, "=:");
	if (start == e || (*start != '=' && *start != ':'))
		return loader_fail_at(l, l->lineno, "expected 'key = value', '[section]' or a comment");
	return 0;
}

char *loader_read_line(char *buf, int num, void *stream)
{
	struct loader *l = stream;
	const char *line, *nl;
	size_t n;

	if (l->err_line || l->pos >= l->len)
		return NULL;
	line = l->text + l->pos;
	nl = memchr(line, '\n', l->len - l->pos);
	n = nl ? (size_t)(nl - line) : l->len - l->pos;
	l->pos += n + (nl ? 1 : 0);
	l->lineno++;
	if (n && line[n - 1] == '\r')
		n--;
	if (n > SCENARIO_MAX_LINE) {
		loader_fail_at(l, l->lineno, "line longer than %d characters", SCENARIO_MAX_LINE);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if (!c) {
			loader_fail_at(l, l->lineno, "NUL byte in the file");
			return NULL;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			loader_fail_at(l, l->lineno, "control character 0x%02x", c);
			return NULL;
		}
	}
	if (num < 2 || (size_t)num < n + 2) {
		loader_fail_at(l, l->lineno, "line too long for the INI parser (%d characters)", num - 2);
		return NULL;
	}
	if (check_line(l, line, line + n) < 0)
		return NULL;
	memcpy(buf, line, n);
	buf[n] = '\n';
	buf[n + 1] = '\0';
	return buf;
}

