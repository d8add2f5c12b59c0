/* options.c - checks option values of workloads, fault kinds and
 * invariants against their tables (ranges, defaults, choices). */
#include "options.h"
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

/*
 * Checks val against table entry i and keeps it.  An empty default means
 * "unset"; any other value must parse.  Messages start "<owner>: " when
 * owner is not NULL.
 */
static int set_one(struct wl_args *a, unsigned i, const char *owner, const char *val,
		   int is_default, char *err, size_t errlen)
{
	const struct wl_option *o = &a->table[i];
	const char *sep = owner ? ": " : "";
	cpu_set_t set;
	unsigned ms;

	if (!owner)
		owner = "";
	if (strlen(val) >= sizeof(a->text[i])) {
		snprintf(err, errlen, "%s%svalue of '%s' is longer than %zu characters", owner, sep,
			 o->name, sizeof(a->text[i]) - 1);
		return -1;
	}
	snprintf(a->text[i], sizeof(a->text[i]), "%s", val);
	a->num[i] = 0;
	a->real[i] = 0;
	a->opt[i] = o;
	if (!*val && is_default)
		return 0;
	switch (o->type) {
	case WL_INT:
		if (wl_parse_int(val, &a->num[i]) < 0 || a->num[i] < o->min || a->num[i] > o->max)
			break;
		return 0;
	case WL_SIZE:
		if (wl_parse_size(val, &a->num[i]) < 0 || a->num[i] < o->min || a->num[i] > o->max) {
			snprintf(err, errlen, "%s%s'%s' must be a size in %lld..%lld bytes (e.g. 64K, "
				 "256M), not '%s'", owner, sep, o->name, (long long)o->min,
				 (long long)o->max, val);
			return -1;
		}
		return 0;
	case WL_BOOL:
		if (wl_parse_bool(val, &a->num[i]) < 0) {
			snprintf(err, errlen, "%s%s'%s' must be yes or no, not '%s'", owner, sep, o->name,
				 val);
			return -1;
		}
		return 0;
	case WL_SECONDS:
		if (plan_parse_ms(val, PLAN_MAX_MS, &ms) < 0 || ms < o->min || ms > o->max) {
			char lo[16], hi[16];

			plan_format_ms((unsigned)o->min, lo, sizeof(lo));
			plan_format_ms((unsigned)o->max, hi, sizeof(hi));
			snprintf(err, errlen, "%s%s'%s' must be seconds in %s..%s, not '%s'", owner, sep,
				 o->name, lo, hi, val);
			return -1;
		}
		a->num[i] = ms;
		return 0;
	case WL_CPULIST:
		if (wl_parse_cpulist(val, &set) <= 0) {
			snprintf(err, errlen, "%s%s'%s' must be a CPU list like 0-3,8, not '%s'", owner,
				 sep, o->name, val);
			return -1;
		}
		a->num[i] = CPU_COUNT(&set);
		return 0;
	case WL_NUMBER:
		if (parse_number(val, &a->real[i]) < 0 || a->real[i] < (double)o->min ||
		    a->real[i] > (double)o->max) {
			snprintf(err, errlen, "%s%s'%s' must be a number in %lld..%lld, not '%s'", owner,
				 sep, o->name, (long long)o->min, (long long)o->max, val);
			return -1;
		}
		return 0;
	case WL_STR:
		if (o->choices && !choice_ok(o->choices, val)) {
			snprintf(err, errlen, "%s%s'%s' must be one of %s, not '%s'", owner, sep, o->name,
				 o->choices, val);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "%s%s'%s' must be an integer in %lld..%lld, not '%s'", owner, sep,
		 o->name, (long long)o->min, (long long)o->max, val);
	return -1;
}

int wl_args_start(struct wl_args *a, const struct wl_option *table, char *err, size_t errlen)
{
	unsigned n = 0;

	memset(a, 0, sizeof(*a));
	a->table = table;
	for (const struct wl_option *o = table; o && o->name; o++)
		n++;
	if (n > WL_MAX_ARGS) {
		snprintf(err, errlen, "bug: more than %d options", WL_MAX_ARGS);
		return -1;
	}
	a->nr = n;
	return 0;
}

int wl_args_put(struct wl_args *a, const char *name, const char *val, const char *owner,
		char *err, size_t errlen)
{
	for (unsigned i = 0; i < a->nr; i++)
		if (!strcmp(a->table[i].name, name))
			return set_one(a, i, owner, val, 0, err, errlen);
	return 1;
}

int wl_args_fill(struct wl_args *a, const char *owner, const char **missing, char *err,
		 size_t errlen)
{
	for (unsigned i = 0; i < a->nr; i++) {
		if (a->opt[i])
			continue;
		if (!a->table[i].dflt) {
			*missing = a->table[i].name;
			return 1;
		}
		if (set_one(a, i, owner, a->table[i].dflt, 1, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int wl_args_parse(struct wl_args *a, const struct wl_option *table, const char *owner,
		  const struct plan_opt *opts, unsigned nr, char *err, size_t errlen,
		  unsigned *line)
{
	const char *missing;
	int ret;

	*line = 0;
	if (wl_args_start(a, table, err, errlen) < 0)
		return -1;
	for (unsigned k = 0; k < nr; k++) {
		*line = opts[k].line;
		ret = wl_args_put(a, opts[k].key, opts[k].value, owner, err, errlen);
		if (ret > 0)
			snprintf(err, errlen, "%s has no option '%s'", owner, opts[k].key);
		if (ret)
			return -1;
	}
	*line = 0;
	ret = wl_args_fill(a, owner, &missing, err, errlen);
	if (ret > 0)
		snprintf(err, errlen, "%s needs option '%s'", owner, missing);
	return ret ? -1 : 0;
}

static int find(const struct wl_args *a, const char *name)
{
	for (unsigned i = 0; i < a->nr; i++)
		if (a->opt[i] && !strcmp(a->opt[i]->name, name))
			return (int)i;
	/* a workload or kind asking for an option it did not declare is a bug */
	fprintf(stderr, "runner: bug: undeclared option '%s'\n", name);
	abort();
}

int64_t wl_int(const struct wl_args *a, const char *name)
{
	return a->num[find(a, name)];
}

double wl_number(const struct wl_args *a, const char *name)
{
	return a->real[find(a, name)];
}

const char *wl_str(const struct wl_args *a, const char *name)
{
	return a->text[find(a, name)];
}

int wl_cpus(const struct wl_args *a, const char *name, cpu_set_t *set)
{
	int i = find(a, name);

	CPU_ZERO(set);
	if (!a->text[i][0])
		return 0;
	return wl_parse_cpulist(a->text[i], set) < 0 ? 0 : CPU_COUNT(set);
}

int wl_isset(const struct wl_args *a, const char *name)
{
	return a->text[find(a, name)][0] != '\0';
}

void wl_format_cpus(const cpu_set_t *set, char *buf, size_t len)
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

void wl_opt_where(const char *section_where, unsigned line, char *buf, size_t len)
{
	const char *colon = strrchr(section_where, ':');
	int flen = colon ? (int)(colon - section_where) : (int)strlen(section_where);

	if (line)
		snprintf(buf, len, "%.*s:%u", flen, section_where, line);
	else
		snprintf(buf, len, "%s", section_where);
}

void wl_options_list(const struct wl_option *table)
{
	for (const struct wl_option *o = table; o && o->name; o++)
		printf("    %-16s %s (default %s)\n", o->name, o->help, o->dflt ? o->dflt : "required");
}
