/* scenario.c - loads scenario files with inih, checks every value with the
 * file and line in the message, expands matrices into plan cases; suites. */
#include "scenario/scenario.h"
#include "fault/hostfault.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum section {
	SEC_NONE,
	SEC_SCENARIO,
	SEC_PARAMS,
	SEC_METRIC,
	SEC_FAULT,
	SEC_INVARIANT,
};

enum scenario_key {
	KEY_NAME,
	KEY_DESCRIPTION,
	KEY_WORKLOAD,
	KEY_RUNS,
	KEY_WARMUP,
	KEY_DEADLINE,
	KEY_COUNTERS,
	KEY_PROFILE,
	KEY_PROFILE_PER,
	NR_SCENARIO_KEYS,
};

static const char *const scenario_keys[NR_SCENARIO_KEYS] = {
	"name", "description", "workload", "runs", "warmup", "deadline", "counters",
	"profile", "profile_per",
};

enum metric_key { MKEY_BETTER, MKEY_STATISTIC, MKEY_UNIT, NR_METRIC_KEYS };
static const char *const metric_keys[NR_METRIC_KEYS] = { "better", "statistic", "unit" };

/* The keys every [fault] has; any other key belongs to the fault's kind
 * and is checked by the runner, which implements the kind. */
enum fault_key {
	FKEY_KIND,
	FKEY_TARGET,
	FKEY_START,
	FKEY_PERIOD,
	FKEY_COUNT,
	FKEY_DURATION,
	FKEY_HOLD,
	NR_FAULT_KEYS,
};
static const char *const fault_keys[NR_FAULT_KEYS] = {
	"kind", "target", "start", "period", "count", "duration", "hold",
};

/* What a file gets when it says nothing: a few runs, generous time, and the
 * per-task counters, which cost nothing (read once as each task exits). */
#define DEFAULT_RUNS 3
#define DEFAULT_WARMUP 0
#define DEFAULT_DEADLINE 600
#define DEFAULT_COUNTERS PLAN_CNT_TASKS

struct loader {
	struct scenario *s;
	const char *text;
	size_t len, pos;
	unsigned lineno;
	enum section sec;
	unsigned metric;        /* index into s->metrics in SEC_METRIC */
	unsigned section_index; /* into s->faults / s->invariants */
	int key_in_section;     /* inih would take an indented line as continuation */
	unsigned scenario_line, params_line;
	unsigned key_lines[NR_SCENARIO_KEYS];
	unsigned metric_key_lines[PLAN_MAX_METRICS][NR_METRIC_KEYS];
	unsigned fault_key_lines[PLAN_MAX_FAULTS][NR_FAULT_KEYS];
	unsigned fault_duration_ms[PLAN_MAX_FAULTS];
	unsigned fault_lines[PLAN_MAX_FAULTS], invariant_lines[PLAN_MAX_INVARIANTS];
	int invariant_has_kind[PLAN_MAX_INVARIANTS];
	struct strbuf *err;
	unsigned err_line;      /* of the first error; 0 = none yet */
};

/* User text inside a one-line message: printable and not too long. */
static const char *quoted(const char *s, char *buf, size_t size)
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

__attribute__((format(printf, 3, 4)))
static int fail_at(struct loader *l, unsigned line, const char *fmt, ...)
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

static int is_word(const char *s, size_t max, int extra_punct)
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

/* ---- the line reader handed to inih ---- */

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

static const char *lskip(const char *s, const char *e)
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
		return fail_at(l, l->lineno, "[metric] needs a name, e.g. [metric time]");
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 60 ? len : 60), name);
	if (len >= sizeof(m->name) || !is_word(buf, sizeof(m->name) - 1, 0))
		return fail_at(l, l->lineno, "bad metric name '%s' (at most %zu lowercase letters, "
			       "digits and '_')", quoted(buf, shown, sizeof(shown)),
			       sizeof(m->name) - 1);
	for (unsigned i = 0; i < s->nr_metrics; i++)
		if (!strcmp(s->metrics[i].name, buf))
			return fail_at(l, l->lineno, "duplicate section [metric %s] (first at line %u)",
				       buf, s->metric_lines[i]);
	if (s->nr_metrics >= PLAN_MAX_METRICS)
		return fail_at(l, l->lineno, "more than %d [metric] sections", PLAN_MAX_METRICS);
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
		return fail_at(l, l->lineno, "[%s] needs a name, e.g. [%s %s]", what, what,
			       sec == SEC_FAULT ? "churn" : "placement");
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 60 ? len : 60), name);
	if (len >= size || !is_word(buf, size - 1, 0))
		return fail_at(l, l->lineno, "bad %s name '%s' (at most %zu lowercase letters, "
			       "digits and '_')", what, quoted(buf, shown, sizeof(shown)), size - 1);
	for (unsigned i = 0; i < *nr; i++) {
		const char *other = sec == SEC_FAULT ? s->faults[i].name : s->invariants[i].name;

		if (!strcmp(other, buf))
			return fail_at(l, l->lineno, "duplicate section [%s %s] (first at line %u)",
				       what, buf, lines[i]);
	}
	if (*nr >= max)
		return fail_at(l, l->lineno, "more than %u [%s] sections", max, what);
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
	return lskip(name + n, name_end);
}

static int section_header(struct loader *l, const char *start, const char *e)
{
	const char *close = find_chars_or_comment(start + 1, e, "]");
	const char *name, *name_end, *rest;
	char shown[64], buf[64];
	size_t len;

	if (close == e || *close != ']')
		return fail_at(l, l->lineno, "missing ']' in section header");
	rest = lskip(close + 1, e);
	if (rest < e && *rest != ';' && *rest != '#')
		return fail_at(l, l->lineno, "text after ']' in section header");
	name = lskip(start + 1, close);
	name_end = close;
	while (name_end > name && isspace((unsigned char)name_end[-1]))
		name_end--;
	len = (size_t)(name_end - name);
	l->key_in_section = 0;

	if (len == 8 && !memcmp(name, "scenario", 8)) {
		if (l->scenario_line)
			return fail_at(l, l->lineno, "duplicate section [scenario] (first at line %u)",
				       l->scenario_line);
		l->scenario_line = l->lineno;
		l->sec = SEC_SCENARIO;
		return 0;
	}
	if (len == 6 && !memcmp(name, "params", 6)) {
		if (l->params_line)
			return fail_at(l, l->lineno, "duplicate section [params] (first at line %u)",
				       l->params_line);
		l->params_line = l->lineno;
		l->sec = SEC_PARAMS;
		return 0;
	}
	if (len >= 6 && !memcmp(name, "metric", 6) &&
	    (len == 6 || isspace((unsigned char)name[6]))) {
		const char *mname = lskip(name + 6, name_end);

		l->sec = SEC_METRIC;
		return open_metric(l, mname, (size_t)(name_end - mname));
	}
	if ((rest = named_section(name, name_end, "fault")))
		return open_section(l, SEC_FAULT, rest, (size_t)(name_end - rest));
	if ((rest = named_section(name, name_end, "invariant")))
		return open_section(l, SEC_INVARIANT, rest, (size_t)(name_end - rest));
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 60 ? len : 60), name);
	return fail_at(l, l->lineno, "unknown section [%s] (expected [scenario], [params], "
		       "[metric NAME], [fault NAME] or [invariant NAME])",
		       quoted(buf, shown, sizeof(shown)));
}

/* Checks one physical line the way inih will read it, so every problem
 * gets a precise message here rather than a bare line number from inih. */
static int check_line(struct loader *l, const char *line, const char *e)
{
	const char *start;

	if (l->lineno == 1 && e - line >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
		line += 3;
	start = lskip(line, e);
	if (start == e || *start == ';' || *start == '#')
		return 0;
	if (start > line && l->key_in_section)
		return fail_at(l, l->lineno, "indented line would continue the previous value; "
			       "continuation lines are not supported");
	if (*start == '[')
		return section_header(l, start, e);
	start = find_chars_or_comment(start, e, "=:");
	if (start == e || (*start != '=' && *start != ':'))
		return fail_at(l, l->lineno, "expected 'key = value', '[section]' or a comment");
	return 0;
}

static char *read_line(char *buf, int num, void *stream)
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
		fail_at(l, l->lineno, "line longer than %d characters", SCENARIO_MAX_LINE);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if (!c) {
			fail_at(l, l->lineno, "NUL byte in the file");
			return NULL;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			fail_at(l, l->lineno, "control character 0x%02x", c);
			return NULL;
		}
	}
	if (num < 2 || (size_t)num < n + 2) {
		fail_at(l, l->lineno, "line too long for the INI parser (%d characters)", num - 2);
		return NULL;
	}
	if (check_line(l, line, line + n) < 0)
		return NULL;
	memcpy(buf, line, n);
	buf[n] = '\n';
	buf[n + 1] = '\0';
	return buf;
}

/* ---- values ---- */

static void param_release(struct scenario_param *p)
{
	for (unsigned i = 0; i < p->nr_values; i++)
		free(p->values[i]);
	free(p->values);
	p->values = NULL;
	p->nr_values = 0;
}

/* "a, b, c" is a matrix axis; a value in double quotes is taken whole. */
static int split_values(struct loader *l, struct scenario_param *p, const char *value)
{
	size_t len = strlen(value);
	char shown[64];

	if (value[0] == '"') {
		if (len < 2 || value[len - 1] != '"' || memchr(value + 1, '"', len - 2))
			return fail_at(l, l->lineno, "unbalanced quotes in the value of '%s'", p->key);
		if (len == 2)
			return fail_at(l, l->lineno, "empty value for '%s'", p->key);
		p->values = xmalloc(sizeof(*p->values));
		p->values[0] = xasprintf("%.*s", (int)(len - 2), value + 1);
		p->nr_values = 1;
		return 0;
	}
	for (const char *s = value;;) {
		const char *comma = strchr(s, ',');
		const char *e = comma ? comma : s + strlen(s);
		const char *b = lskip(s, e);
		char *v;

		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (e == b)
			return fail_at(l, l->lineno, "empty element in the list for '%s'", p->key);
		v = xasprintf("%.*s", (int)(e - b), b);
		for (unsigned i = 0; i < p->nr_values; i++) {
			if (!strcmp(p->values[i], v)) {
				fail_at(l, l->lineno, "'%s' is listed twice for '%s'",
					quoted(v, shown, sizeof(shown)), p->key);
				free(v);
				return -1;
			}
		}
		if (p->nr_values >= PLAN_MAX_CASES) {
			free(v);
			return fail_at(l, l->lineno, "more than %d values for '%s'", PLAN_MAX_CASES,
				       p->key);
		}
		p->values = xrealloc(p->values, (p->nr_values + 1) * sizeof(*p->values));
		p->values[p->nr_values++] = v;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

static int set_number(struct loader *l, const char *key, const char *value, unsigned min,
		      unsigned max, unsigned *out)
{
	char shown[64];

	if (parse_uint(value, min, max, out))
		return fail_at(l, l->lineno, "bad value '%s' for '%s' (a number %u..%u)",
			       quoted(value, shown, sizeof(shown)), key, min, max);
	return 0;
}

static int set_counters(struct loader *l, const char *value)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "schedstat", PLAN_CNT_SCHEDSTAT },
		{ "vmstat", PLAN_CNT_VMSTAT },
		{ "tasks", PLAN_CNT_TASKS },
	};
	unsigned bits = 0;
	int none = 0, words = 0;
	const char *s = value;
	char word[64], shown[64];

	while (*s) {
		size_t n = strcspn(s, " ,\t");
		size_t i;

		if (!n) {
			s++;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(n < 60 ? n : 60), s);
		s += n;
		words++;
		if (!strcmp(word, "none")) {
			none = 1;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(word, names[i].name))
				break;
		if (i == ARRAY_SIZE(names))
			return fail_at(l, l->lineno, "unknown counter '%s' (expected schedstat, "
				       "vmstat, tasks or none)", quoted(word, shown, sizeof(shown)));
		if (bits & names[i].bit)
			return fail_at(l, l->lineno, "counter '%s' listed twice", word);
		bits |= names[i].bit;
	}
	if (none && words > 1)
		return fail_at(l, l->lineno, "'none' cannot be combined with other counters");
	l->s->counters = bits;
	return 0;
}

/* profile = func1 func2 ...: kernel functions for the ftrace profiler. */
static int set_profile(struct loader *l, const char *value)
{
	struct plan_profile *pr = &l->s->profile;
	const char *s = value;
	char word[PLAN_MAX_SYMBOL + 8], shown[80];

	while (*s) {
		size_t n = strcspn(s, " ,\t");

		if (!n) {
			s++;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s",
			 (int)(n < sizeof(word) - 1 ? n : sizeof(word) - 1), s);
		s += n;
		if (n >= PLAN_MAX_SYMBOL || !plan_symbol_ok(word))
			return fail_at(l, l->lineno, "bad function name '%s' in 'profile' (a "
				       "kernel symbol: letters, digits, '_' and '.', at most %d "
				       "characters)", quoted(word, shown, sizeof(shown)),
				       PLAN_MAX_SYMBOL - 1);
		for (unsigned i = 0; i < pr->nr_funcs; i++)
			if (!strcmp(pr->funcs[i], word))
				return fail_at(l, l->lineno,
					       "function '%s' listed twice in 'profile'", word);
		if (pr->nr_funcs >= PLAN_MAX_PROFILE)
			return fail_at(l, l->lineno, "more than %d functions in 'profile'",
				       PLAN_MAX_PROFILE);
		strcpy(pr->funcs[pr->nr_funcs++], word);
	}
	if (!pr->nr_funcs)
		return fail_at(l, l->lineno, "'profile' names no function");
	return 0;
}

/* profile_per = vmstat:NAME: the counter whose delta divides the time. */
static int set_profile_per(struct loader *l, const char *value)
{
	char shown[80];
	const char *p;

	if (strncmp(value, "vmstat:", 7) || !value[7] || strlen(value) >= PLAN_MAX_SYMBOL)
		goto bad;
	for (p = value + 7; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			goto bad;
	strcpy(l->s->profile.per, value);
	return 0;
bad:
	return fail_at(l, l->lineno, "bad value '%s' for 'profile_per' (vmstat:NAME, a "
		       "/proc/vmstat key such as vmstat:numa_pages_migrated)",
		       quoted(value, shown, sizeof(shown)));
}

static int scenario_key(struct loader *l, const char *name, const char *value)
{
	struct scenario *s = l->s;
	char shown[64];
	int k;

	for (k = 0; k < NR_SCENARIO_KEYS; k++)
		if (!strcmp(name, scenario_keys[k]))
			break;
	if (k == NR_SCENARIO_KEYS)
		return fail_at(l, l->lineno, "unknown key '%s' in [scenario] (expected name, "
			       "description, workload, runs, warmup, deadline, counters, profile "
			       "or profile_per)",
			       quoted(name, shown, sizeof(shown)));
	if (l->key_lines[k])
		return fail_at(l, l->lineno, "duplicate key '%s' in [scenario] (first at line %u)",
			       name, l->key_lines[k]);
	l->key_lines[k] = l->lineno;

	switch (k) {
	case KEY_NAME:
		if (!is_word(value, sizeof(s->name) - 1, 1))
			return fail_at(l, l->lineno, "bad scenario name '%s' (at most %zu lowercase "
				       "letters, digits, '_', '-' and '.', not first)",
				       quoted(value, shown, sizeof(shown)), sizeof(s->name) - 1);
		strcpy(s->name, value);
		return 0;
	case KEY_DESCRIPTION:
		snprintf(s->description, sizeof(s->description), "%s", value);
		return 0;
	case KEY_WORKLOAD:
		if (!is_word(value, sizeof(s->workload) - 1, 0))
			return fail_at(l, l->lineno, "bad workload name '%s' (lowercase letters, "
				       "digits and '_')", quoted(value, shown, sizeof(shown)));
		strcpy(s->workload, value);
		return 0;
	case KEY_RUNS:
		return set_number(l, name, value, 1, 1000, &s->runs);
	case KEY_WARMUP:
		return set_number(l, name, value, 0, 100, &s->warmup);
	case KEY_DEADLINE:
		return set_number(l, name, value, 1, 86400, &s->deadline_s);
	case KEY_PROFILE:
		return set_profile(l, value);
	case KEY_PROFILE_PER:
		return set_profile_per(l, value);
	default:
		return set_counters(l, value);
	}
}

static int params_key(struct loader *l, const char *name, const char *value)
{
	struct scenario *s = l->s;
	struct scenario_param *p;
	char shown[64];

	if (!is_word(name, sizeof(p->key) - 1, 0))
		return fail_at(l, l->lineno, "bad parameter name '%s' (at most %zu lowercase "
			       "letters, digits and '_')", quoted(name, shown, sizeof(shown)),
			       sizeof(p->key) - 1);
	for (unsigned i = 0; i < s->nr_params; i++)
		if (!strcmp(s->params[i].key, name))
			return fail_at(l, l->lineno, "duplicate key '%s' in [params] (first at line %u)",
				       name, s->params[i].line);
	if (s->nr_params >= PLAN_MAX_PARAMS)
		return fail_at(l, l->lineno, "more than %d keys in [params]", PLAN_MAX_PARAMS);
	p = &s->params[s->nr_params++];
	strcpy(p->key, name);
	p->line = l->lineno;
	return split_values(l, p, value);
}

static int metric_key(struct loader *l, const char *name, const char *value)
{
	struct plan_metric *m = &l->s->metrics[l->metric];
	char shown[64];
	int k;

	for (k = 0; k < NR_METRIC_KEYS; k++)
		if (!strcmp(name, metric_keys[k]))
			break;
	if (k == NR_METRIC_KEYS)
		return fail_at(l, l->lineno, "unknown key '%s' in [metric %s] (expected better, "
			       "statistic or unit)", quoted(name, shown, sizeof(shown)), m->name);
	if (l->metric_key_lines[l->metric][k])
		return fail_at(l, l->lineno, "duplicate key '%s' in [metric %s] (first at line %u)",
			       name, m->name, l->metric_key_lines[l->metric][k]);
	l->metric_key_lines[l->metric][k] = l->lineno;

	switch (k) {
	case MKEY_BETTER:
		if (strcmp(value, "higher") && strcmp(value, "lower"))
			return fail_at(l, l->lineno, "bad value '%s' for 'better' (higher or lower)",
				       quoted(value, shown, sizeof(shown)));
		m->higher_is_better = !strcmp(value, "higher");
		return 0;
	case MKEY_STATISTIC:
		if (strcmp(value, "amean") && strcmp(value, "hmean") && strcmp(value, "median"))
			return fail_at(l, l->lineno, "bad value '%s' for 'statistic' (amean, hmean "
				       "or median)", quoted(value, shown, sizeof(shown)));
		strcpy(m->statistic, value);
		return 0;
	default:
		if (strlen(value) >= sizeof(m->unit) || strchr(value, ' '))
			return fail_at(l, l->lineno, "bad unit '%s' (at most %zu characters, no "
				       "spaces)", quoted(value, shown, sizeof(shown)),
				       sizeof(m->unit) - 1);
		strcpy(m->unit, value);
		return 0;
	}
}

/* A kind-specific key: passed to the runner as written. */
static int add_opt(struct loader *l, const char *what, const char *section, struct plan_opt *opts,
		   unsigned *nr, const char *name, const char *value)
{
	char shown[64];

	if (!is_word(name, sizeof(opts->key) - 1, 0))
		return fail_at(l, l->lineno, "bad key '%s' in [%s %s] (at most %zu lowercase "
			       "letters, digits and '_')", quoted(name, shown, sizeof(shown)), what,
			       section, sizeof(opts->key) - 1);
	for (unsigned i = 0; i < *nr; i++)
		if (!strcmp(opts[i].key, name))
			return fail_at(l, l->lineno, "duplicate key '%s' in [%s %s] (first at line %u)",
				       name, what, section, opts[i].line);
	if (strlen(value) >= sizeof(opts->value))
		return fail_at(l, l->lineno, "value of '%s' longer than %zu characters", name,
			       sizeof(opts->value) - 1);
	if (*nr >= PLAN_MAX_OPTS)
		return fail_at(l, l->lineno, "more than %d kind-specific keys in [%s %s]",
			       PLAN_MAX_OPTS, what, section);
	strcpy(opts[*nr].key, name);
	strcpy(opts[*nr].value, value);
	opts[*nr].line = l->lineno;
	(*nr)++;
	return 0;
}

/* "random", "workload", or a CPU list ("3", "1-3,6"). */
static int target_ok(const char *v)
{
	if (!strcmp(v, "random") || !strcmp(v, "workload"))
		return 1;
	for (const char *p = v;;) {
		unsigned long lo, hi;
		char *end;

		if (*p < '0' || *p > '9')
			return 0;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return 0;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (hi < lo || hi >= 8192)
			return 0;
		if (!*p)
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

static int set_seconds(struct loader *l, const char *key, const char *value, unsigned *ms)
{
	char shown[64];

	if (plan_parse_ms(value, PLAN_MAX_MS, ms))
		return fail_at(l, l->lineno, "bad value '%s' for '%s' (seconds, e.g. 5 or 0.25; "
			       "at most 86400)", quoted(value, shown, sizeof(shown)), key);
	return 0;
}

static int fault_key(struct loader *l, const char *name, const char *value)
{
	unsigned idx = l->section_index;
	struct plan_fault *f = &l->s->faults[idx];
	char shown[64];
	int k;

	for (k = 0; k < NR_FAULT_KEYS; k++)
		if (!strcmp(name, fault_keys[k]))
			break;
	if (k == NR_FAULT_KEYS)
		return add_opt(l, "fault", f->name, f->opts, &f->nr_opts, name, value);
	if (l->fault_key_lines[idx][k])
		return fail_at(l, l->lineno, "duplicate key '%s' in [fault %s] (first at line %u)",
			       name, f->name, l->fault_key_lines[idx][k]);
	l->fault_key_lines[idx][k] = l->lineno;
	switch (k) {
	case FKEY_KIND:
		if (!is_word(value, sizeof(f->kind) - 1, 0))
			return fail_at(l, l->lineno, "bad fault kind '%s' (lowercase letters, digits "
				       "and '_')", quoted(value, shown, sizeof(shown)));
		strcpy(f->kind, value);
		f->side = PLAN_SIDE_GUEST;
		/* the host's kinds (QMP) go to the plan as side "host": the runner
		 * skips them and the host times them from the run's run_start */
		for (const char *const *h = hostfault_kinds; *h; h++)
			if (!strcmp(*h, value))
				f->side = PLAN_SIDE_HOST;
		return 0;
	case FKEY_TARGET:
		if (strlen(value) >= sizeof(f->target) || !target_ok(value))
			return fail_at(l, l->lineno, "bad target '%s' (a CPU list like 1-3,6, "
				       "'random' or 'workload')", quoted(value, shown, sizeof(shown)));
		strcpy(f->target, value);
		return 0;
	case FKEY_START:
		return set_seconds(l, name, value, &f->start_ms);
	case FKEY_PERIOD:
		if (set_seconds(l, name, value, &f->period_ms))
			return -1;
		if (!f->period_ms)
			return fail_at(l, l->lineno, "'period' must be more than 0 seconds");
		return 0;
	case FKEY_COUNT:
		return set_number(l, name, value, 1, 1000000, &f->count);
	case FKEY_DURATION:
		if (set_seconds(l, name, value, &l->fault_duration_ms[idx]))
			return -1;
		if (!l->fault_duration_ms[idx])
			return fail_at(l, l->lineno, "'duration' must be more than 0 seconds");
		return 0;
	default:
		return set_seconds(l, name, value, &f->hold_ms);
	}
}

static int invariant_key(struct loader *l, const char *name, const char *value)
{
	unsigned idx = l->section_index;
	struct plan_invariant *v = &l->s->invariants[idx];
	char shown[64];

	if (strcmp(name, "kind"))
		return add_opt(l, "invariant", v->name, v->opts, &v->nr_opts, name, value);
	if (l->invariant_has_kind[idx])
		return fail_at(l, l->lineno, "duplicate key 'kind' in [invariant %s] (first at "
			       "line %u)", v->name, l->invariant_has_kind[idx]);
	l->invariant_has_kind[idx] = (int)l->lineno;
	if (!is_word(value, sizeof(v->kind) - 1, 0))
		return fail_at(l, l->lineno, "bad invariant kind '%s' (lowercase letters, digits "
			       "and '_')", quoted(value, shown, sizeof(shown)));
	strcpy(v->kind, value);
	return 0;
}

static int check_key(struct loader *l, const char *name, const char *value)
{
	char shown[64];

	if (!*name)
		return fail_at(l, l->lineno, "missing key name before '='");
	if (l->sec == SEC_NONE)
		return fail_at(l, l->lineno, "key '%s' outside a section (start with [scenario])",
			       quoted(name, shown, sizeof(shown)));
	if (!*value)
		return fail_at(l, l->lineno, "empty value for '%s'",
			       quoted(name, shown, sizeof(shown)));
	if (strchr(value, '\t'))
		return fail_at(l, l->lineno, "TAB in the value of '%s'",
			       quoted(name, shown, sizeof(shown)));
	if (strlen(value) >= PLAN_MAX_FIELD)
		return fail_at(l, l->lineno, "value of '%s' longer than %d characters",
			       quoted(name, shown, sizeof(shown)), PLAN_MAX_FIELD - 1);
	switch (l->sec) {
	case SEC_SCENARIO:
		return scenario_key(l, name, value);
	case SEC_PARAMS:
		return params_key(l, name, value);
	case SEC_FAULT:
		return fault_key(l, name, value);
	case SEC_INVARIANT:
		return invariant_key(l, name, value);
	default:
		return metric_key(l, name, value);
	}
}

/* inih's handler: nonzero to go on.  The section name is not used: inih
 * truncates long ones, so the reader keeps track of sections itself. */
static int handle_key(void *user, const char *section, const char *name, const char *value)
{
	struct loader *l = user;

	(void)section;
	if (l->err_line)
		return 0;
	l->key_in_section = 1;
	return check_key(l, name, value) == 0;
}

/* ---- whole-file checks ---- */

/* Timing of a fault once its section is read: count or duration. */
static int check_fault(struct loader *l, unsigned idx)
{
	struct plan_fault *f = &l->s->faults[idx];
	unsigned line = l->fault_lines[idx], duration = l->fault_duration_ms[idx];
	const unsigned *keys = l->fault_key_lines[idx];

	if (!f->kind[0])
		return fail_at(l, line, "[fault %s] has no 'kind'", f->name);
	if (keys[FKEY_COUNT] && keys[FKEY_DURATION])
		return fail_at(l, keys[FKEY_DURATION], "[fault %s]: give 'count' or 'duration', "
			       "not both", f->name);
	if (f->count != 1 && !f->period_ms)
		return fail_at(l, line, "[fault %s] repeats but has no 'period' (or say count = 1)",
			       f->name);
	if (duration) {
		/* actions at start, start + period, ... before start + duration */
		unsigned long n = (duration + f->period_ms - 1) / f->period_ms;

		f->count = n > 1000000 ? 1000000 : (unsigned)n;
	}
	if (f->count != 1 && f->hold_ms >= f->period_ms)
		return fail_at(l, keys[FKEY_HOLD], "[fault %s]: 'hold' must be shorter than "
			       "'period'", f->name);
	return 0;
}

static int check_scenario(struct loader *l)
{
	struct scenario *s = l->s;
	unsigned long cases = 1;
	size_t id_len = strlen(s->name);
	unsigned axes = 0;

	if (!l->scenario_line)
		return fail_at(l, 1, "no [scenario] section");
	s->line = l->scenario_line;
	if (!s->name[0])
		return fail_at(l, l->scenario_line, "[scenario] has no 'name'");
	if (!s->workload[0])
		return fail_at(l, l->scenario_line, "[scenario] has no 'workload'");
	if (!s->nr_metrics)
		return fail_at(l, l->scenario_line, "no [metric NAME] section: say which metrics "
			       "matter and which way is better");
	for (unsigned i = 0; i < s->nr_metrics; i++)
		if (s->metrics[i].higher_is_better < 0)
			return fail_at(l, s->metric_lines[i], "[metric %s] has no 'better' "
				       "(higher or lower)", s->metrics[i].name);
	if (s->profile.per[0] && !s->profile.nr_funcs)
		return fail_at(l, l->key_lines[KEY_PROFILE_PER], "'profile_per' without 'profile'");
	for (unsigned i = 0; i < s->nr_faults; i++)
		if (check_fault(l, i))
			return -1;
	for (unsigned i = 0; i < s->nr_invariants; i++)
		if (!s->invariants[i].kind[0])
			return fail_at(l, l->invariant_lines[i], "[invariant %s] has no 'kind'",
				       s->invariants[i].name);
	for (unsigned i = 0; i < s->nr_params; i++) {
		const struct scenario_param *p = &s->params[i];
		size_t longest = 0;

		if (p->nr_values < 2)
			continue;
		cases *= p->nr_values;
		if (cases > PLAN_MAX_CASES)
			return fail_at(l, p->line, "the matrix expands to more than %d cases",
				       PLAN_MAX_CASES);
		for (unsigned v = 0; v < p->nr_values; v++)
			if (strlen(p->values[v]) > longest)
				longest = strlen(p->values[v]);
		id_len += 1 + strlen(p->key) + 1 + longest;
		axes++;
	}
	if (id_len >= PLAN_MAX_FIELD)
		return fail_at(l, l->scenario_line, "case ids would be longer than %d characters "
			       "(shorten the name or the values)", PLAN_MAX_FIELD - 1);
	s->nr_cases = (unsigned)cases;
	return 0;
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
		param_release(&s->params[i]);
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
		fail_at(l, 1, "path too long for the plan (%d characters at most)",
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
	ret = ini_parse_stream(read_line, l, handle_key, l);
	ini_max_line = saved;
	if (ret > 0 && (!l->err_line || (unsigned)ret < l->err_line)) {
		/* inih found what our reader let through: say where at least */
		l->err_line = 0;
		fail_at(l, (unsigned)ret, "syntax error (expected 'key = value', '[section]' or "
			"a comment)");
	} else if (ret < 0 && !l->err_line) {
		fail_at(l, 1, "the INI parser failed (%d)", ret);
	}
	if (!l->err_line)
		check_scenario(l);
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

/* ---- matrix expansion ---- */

int scenario_expand(const struct scenario *s, struct plan *p, struct strbuf *err)
{
	unsigned idx[PLAN_MAX_PARAMS] = { 0 };

	if (!s->nr_cases || !s->name[0]) {
		strbuf_reset(err);
		strbuf_addf(err, "%s: scenario was not loaded", s->shown ? s->shown : "?");
		return -1;
	}
	if (p->nr_cases + s->nr_cases > PLAN_MAX_CASES) {
		strbuf_reset(err);
		strbuf_addf(err, "%s:%u: the plan would have more than %d cases", s->shown, s->line,
			    PLAN_MAX_CASES);
		return -1;
	}
	p->cases = xrealloc(p->cases, (p->nr_cases + s->nr_cases) * sizeof(*p->cases));
	for (unsigned k = 0; k < s->nr_cases; k++) {
		struct plan_case *c = &p->cases[p->nr_cases++];
		struct strbuf id = STRBUF_INIT;
		int axes = 0;

		memset(c, 0, sizeof(*c));
		strbuf_addstr(&id, s->name);
		for (unsigned i = 0; i < s->nr_params; i++) {
			const struct scenario_param *sp = &s->params[i];
			struct plan_param *pp = &c->params[c->nr_params++];

			snprintf(pp->key, sizeof(pp->key), "%s", sp->key);
			snprintf(pp->value, sizeof(pp->value), "%s", sp->values[idx[i]]);
			snprintf(pp->where, sizeof(pp->where), "%s:%u", s->shown, sp->line);
			if (sp->nr_values > 1)
				strbuf_addf(&id, "%c%s=%s", axes++ ? ',' : '/', sp->key,
					    sp->values[idx[i]]);
		}
		/* check_scenario() bounded the id's length */
		snprintf(c->id, sizeof(c->id), "%s", id.buf);
		strbuf_release(&id);
		snprintf(c->scenario, sizeof(c->scenario), "%s", s->name);
		snprintf(c->source, sizeof(c->source), "%s:%u", s->shown, s->line);
		snprintf(c->workload, sizeof(c->workload), "%s", s->workload);
		c->runs = s->runs;
		c->warmup = s->warmup;
		c->deadline_s = s->deadline_s;
		c->counters = s->counters;
		memcpy(c->metrics, s->metrics, sizeof(c->metrics));
		c->nr_metrics = s->nr_metrics;
		memcpy(c->faults, s->faults, sizeof(c->faults));
		c->nr_faults = s->nr_faults;
		memcpy(c->invariants, s->invariants, sizeof(c->invariants));
		c->nr_invariants = s->nr_invariants;
		c->profile = s->profile;

		/* odometer: the last axis in the file turns fastest */
		for (unsigned i = s->nr_params; i-- > 0;) {
			if (s->params[i].nr_values < 2)
				continue;
			if (++idx[i] < s->params[i].nr_values)
				break;
			idx[i] = 0;
		}
	}
	return 0;
}

/* ---- suites ---- */

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
		b = lskip(line, e);
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (b == e)
			continue;
		entry = xasprintf("%.*s", (int)(e - b), b);
		if (strpbrk(entry, " \t")) {
			suite_fail(err, shown, lineno, "one scenario file per line, without options: "
				   "'%s'", quoted(entry, shown_entry, sizeof(shown_entry)));
			free(entry);
			goto out;
		}
		if (entry[0] == '/' || !strcmp(entry, "..") || !strncmp(entry, "../", 3) ||
		    strstr(entry, "/../") || (strlen(entry) >= 3 &&
					      !strcmp(entry + strlen(entry) - 3, "/.."))) {
			suite_fail(err, shown, lineno, "'%s' is not a file under scenarios/",
				   quoted(entry, shown_entry, sizeof(shown_entry)));
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
					   quoted(entry, shown_entry, sizeof(shown_entry)), lines[i]);
				free(entry);
				goto out;
			}
		}
		full = xasprintf("%s/%s", scenario_dir, entry);
		if (stat(full, &st) < 0 || !S_ISREG(st.st_mode)) {
			char *fshown = lab_shown_path(full);

			suite_fail(err, shown, lineno, "no scenario file '%s' (%s)",
				   quoted(entry, shown_entry, sizeof(shown_entry)), fshown);
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

/* ---- compiling ---- */

int plan_compile_paths(const char *const *paths, size_t nr, struct plan *p, struct strbuf *err)
{
	struct scenario s;
	struct { char name[128]; char *where; } *seen = xcalloc(nr ? nr : 1, sizeof(*seen));
	int ret = -1;
	size_t i;

	scenario_init(&s);
	for (i = 0; i < nr; i++) {
		if (scenario_load(paths[i], &s, err) < 0)
			goto out;
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(seen[j].name, s.name)) {
				strbuf_reset(err);
				strbuf_addf(err, "%s:%u: scenario name '%s' is already used by %s",
					    s.shown, s.line, s.name, seen[j].where);
				goto out;
			}
		}
		strcpy(seen[i].name, s.name);
		seen[i].where = xasprintf("%s:%u", s.shown, s.line);
		if (scenario_expand(&s, p, err) < 0)
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < nr; i++)
		free(seen[i].where);
	free(seen);
	scenario_release(&s);
	return ret;
}

static void emit_strbuf(void *ctx, const char *s, size_t len)
{
	strbuf_add(ctx, s, len);
}

int plan_to_text(const struct plan *p, struct strbuf *out, struct strbuf *err)
{
	char why[512];

	plan_write_header(emit_strbuf, out);
	for (unsigned i = 0; i < p->nr_cases; i++) {
		if (plan_write_case(&p->cases[i], emit_strbuf, out, why, sizeof(why)) < 0) {
			strbuf_reset(err);
			strbuf_addf(err, "cannot write the plan: %s", why);
			return -1;
		}
	}
	return 0;
}

static int compile(const char *const *paths, size_t nr, struct strbuf *plan_text,
		   struct strbuf *err)
{
	struct plan p = { 0 }, again = { 0 };
	struct strbuf text = STRBUF_INIT;
	char why[512];
	int ret = -1;

	if (plan_compile_paths(paths, nr, &p, err) < 0 || plan_to_text(&p, &text, err) < 0)
		goto out;
	/* what the runner will read, read here first */
	if (plan_parse(text.buf, text.len, &again, why, sizeof(why)) < 0) {
		strbuf_reset(err);
		strbuf_addf(err, "compiled plan does not parse back: %s", why);
		goto out;
	}
	strbuf_add(plan_text, text.buf, text.len);
	ret = 0;
out:
	plan_release(&again);
	plan_release(&p);
	strbuf_release(&text);
	return ret;
}

int plan_compile_suite(const char *suite, struct strbuf *plan_text, struct strbuf *err)
{
	struct strvec paths = STRVEC_INIT;
	int ret = suite_load(suite, &paths, err);

	if (!ret)
		ret = compile(paths.v, paths.nr, plan_text, err);
	strvec_clear(&paths);
	return ret;
}

int plan_compile_file(const char *path, struct strbuf *plan_text, struct strbuf *err)
{
	return compile(&path, 1, plan_text, err);
}
