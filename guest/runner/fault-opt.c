/* fault-opt.c - parses the kind-specific keys of [fault] and [invariant]
 * sections against each kind's option table (ranges, defaults, choices). */
#include "fault-opt.h"
#include "wlutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A plain decimal: digits, one optional point, an optional leading '-'. */
static int parse_number(const char *s, double *out)
{
	const char *p = s;
	int digits = 0, point = 0;
	char *end;

	if (*p == '-')
		p++;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if (*p == '.' && !point)
			point = 1;
		else
			return -1;
	}
	if (!digits)
		return -1;
	*out = strtod(s, &end);
	return *end ? -1 : 0;
}

static int choice_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);

	for (const char *p = choices; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && !strncmp(p, v, n))
			return 1;
		p = bar ? bar + 1 : p + len;
	}
	return 0;
}

static int set_one(struct fopt_args *a, unsigned i, const struct fopt *o, const char *owner,
		   const char *val, char *err, size_t errlen)
{
	cpu_set_t set;
	unsigned ms;

	snprintf(a->text[i], sizeof(a->text[i]), "%s", val);
	a->num[i] = 0;
	a->real[i] = 0;
	a->opt[i] = o;
	if (!*val) /* an unset default */
		return 0;
	switch (o->type) {
	case FOPT_INT:
		if (wl_parse_int(val, &a->num[i]) < 0 || a->num[i] < o->min || a->num[i] > o->max)
			goto range;
		return 0;
	case FOPT_SIZE:
		if (wl_parse_size(val, &a->num[i]) < 0 || a->num[i] < o->min || a->num[i] > o->max) {
			snprintf(err, errlen, "%s: '%s' must be a size in %lld..%lld bytes (e.g. 64K, "
				 "256M), not '%s'", owner, o->name, (long long)o->min,
				 (long long)o->max, val);
			return -1;
		}
		return 0;
	case FOPT_BOOL:
		if (wl_parse_bool(val, &a->num[i]) < 0) {
			snprintf(err, errlen, "%s: '%s' must be yes or no, not '%s'", owner, o->name, val);
			return -1;
		}
		return 0;
	case FOPT_SECONDS:
		if (plan_parse_ms(val, PLAN_MAX_MS, &ms) < 0 || ms < o->min || ms > o->max) {
			char lo[16], hi[16];

			plan_format_ms((unsigned)o->min, lo, sizeof(lo));
			plan_format_ms((unsigned)o->max, hi, sizeof(hi));
			snprintf(err, errlen, "%s: '%s' must be seconds in %s..%s, not '%s'", owner,
				 o->name, lo, hi, val);
			return -1;
		}
		a->num[i] = ms;
		return 0;
	case FOPT_CPULIST:
		if (wl_parse_cpulist(val, &set) <= 0) {
			snprintf(err, errlen, "%s: '%s' must be a CPU list like 0-3,8, not '%s'", owner,
				 o->name, val);
			return -1;
		}
		a->num[i] = CPU_COUNT(&set);
		return 0;
	case FOPT_NUMBER:
		if (parse_number(val, &a->real[i]) < 0 || a->real[i] < (double)o->min ||
		    a->real[i] > (double)o->max) {
			snprintf(err, errlen, "%s: '%s' must be a number in %lld..%lld, not '%s'", owner,
				 o->name, (long long)o->min, (long long)o->max, val);
			return -1;
		}
		return 0;
	case FOPT_STR:
		if (o->choices && !choice_ok(o->choices, val)) {
			snprintf(err, errlen, "%s: '%s' must be one of %s, not '%s'", owner, o->name,
				 o->choices, val);
			return -1;
		}
		return 0;
	}
range:
	snprintf(err, errlen, "%s: '%s' must be an integer in %lld..%lld, not '%s'", owner, o->name,
		 (long long)o->min, (long long)o->max, val);
	return -1;
}

int fopt_parse(struct fopt_args *a, const struct fopt *table, const char *owner,
	       const struct plan_opt *opts, unsigned nr, char *err, size_t errlen,
	       unsigned *line)
{
	unsigned n = 0;

	memset(a, 0, sizeof(*a));
	a->table = table;
	*line = 0;
	for (const struct fopt *o = table; o && o->name; o++)
		n++;
	if (n > FOPT_MAX) {
		snprintf(err, errlen, "%s: bug: more than %d options", owner, FOPT_MAX);
		return -1;
	}
	a->nr = n;
	for (unsigned k = 0; k < nr; k++) {
		unsigned i;

		for (i = 0; i < n; i++)
			if (!strcmp(table[i].name, opts[k].key))
				break;
		*line = opts[k].line;
		if (i == n) {
			snprintf(err, errlen, "%s has no option '%s'", owner, opts[k].key);
			return -1;
		}
		if (set_one(a, i, &table[i], owner, opts[k].value, err, errlen) < 0)
			return -1;
	}
	*line = 0;
	for (unsigned i = 0; i < n; i++) {
		if (a->opt[i])
			continue;
		if (!table[i].dflt) {
			snprintf(err, errlen, "%s needs option '%s'", owner, table[i].name);
			return -1;
		}
		if (set_one(a, i, &table[i], owner, table[i].dflt, err, errlen) < 0)
			return -1;
	}
	return 0;
}

static int find(const struct fopt_args *a, const char *name)
{
	for (unsigned i = 0; i < a->nr; i++)
		if (a->opt[i] && !strcmp(a->opt[i]->name, name))
			return (int)i;
	/* a kind asking for an option it did not declare is a bug */
	fprintf(stderr, "runner: bug: undeclared option '%s'\n", name);
	abort();
}

int64_t fopt_int(const struct fopt_args *a, const char *name)
{
	return a->num[find(a, name)];
}

double fopt_number(const struct fopt_args *a, const char *name)
{
	return a->real[find(a, name)];
}

const char *fopt_str(const struct fopt_args *a, const char *name)
{
	return a->text[find(a, name)];
}

int fopt_cpus(const struct fopt_args *a, const char *name, cpu_set_t *set)
{
	int i = find(a, name);

	CPU_ZERO(set);
	if (!a->text[i][0])
		return 0;
	return wl_parse_cpulist(a->text[i], set) < 0 ? 0 : CPU_COUNT(set);
}

int fopt_isset(const struct fopt_args *a, const char *name)
{
	return a->text[find(a, name)][0] != '\0';
}

void fopt_format_cpus(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;
		int n;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		if (e == c)
			n = snprintf(buf + off, len - off, "%s%d", off ? "," : "", c);
		else
			n = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", c, e);
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = '\0';
			return;
		}
		off += (size_t)n;
		c = e;
	}
}

void fopt_where(const char *section_where, unsigned line, char *buf, size_t len)
{
	const char *colon = strrchr(section_where, ':');
	int flen = colon ? (int)(colon - section_where) : (int)strlen(section_where);

	if (line)
		snprintf(buf, len, "%.*s:%u", flen, section_where, line);
	else
		snprintf(buf, len, "%s", section_where);
}
