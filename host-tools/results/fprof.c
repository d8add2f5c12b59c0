/* fprof.c - parses the runner's function-profile records (raw lines of
 * trace_stat/function<cpu>), sums them per function, folds runs together. */
#include "results/fprof.h"
#include "common/lineerr.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* kernel/trace/ftrace.c prints a function name as "%-30.30s" */
#define NAME_COLS 30
#define MAX_LINE 1024
#define MAX_TOKENS 12

struct fparser {
	struct fprof_result *r;
	unsigned lineno;
	long cpu;         /* of the current "cpu" section, -1 before one */
	int per_seen;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct fparser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line_verror(ps->err, ps->errlen, ps->lineno, fmt, ap);
	va_end(ap);
	return -1;
}

/* Splits line (NUL-terminated, writable) at any of seps; empty tokens are
 * kept for TAB-separated records and skipped for space-separated ones. */
static unsigned split(char *line, const char *seps, int keep_empty, char **tok, unsigned max)
{
	unsigned n = 0;
	char *p = line;

	for (;;) {
		size_t len = strcspn(p, seps);
		int last = !p[len];

		if ((len || keep_empty) && n < max)
			tok[n++] = p;
		else if (len || keep_empty)
			return max + 1;
		p[len] = '\0';
		if (last)
			break;
		p += len + 1;
	}
	return n;
}

static int parse_ull(const char *s, unsigned long long *v)
{
	unsigned long long x = 0;

	if (!*s || strlen(s) > 19)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (unsigned)(*s - '0');
	}
	*v = x;
	return 0;
}

/* "1234.567" as trace_print_graph_duration() prints microseconds: up to
 * 20 digits, then at most three decimals. */
static int parse_us(const char *s, double *us)
{
	unsigned long long whole, frac = 0;
	const char *dot = strchr(s, '.');
	char buf[24];
	size_t wl = dot ? (size_t)(dot - s) : strlen(s), fl = 0;

	if (!wl || wl >= sizeof(buf))
		return -1;
	memcpy(buf, s, wl);
	buf[wl] = '\0';
	if (parse_ull(buf, &whole))
		return -1;
	if (dot) {
		fl = strlen(dot + 1);
		if (!fl || fl > 3 || parse_ull(dot + 1, &frac))
			return -1;
	}
	*us = (double)whole + (double)frac / pow(10, (double)fl);
	return 0;
}

static struct fprof_func *find_func(struct fprof_result *r, const char *name, size_t cols)
{
	for (unsigned i = 0; i < r->nr_funcs; i++) {
		size_t n = strlen(r->funcs[i].name);

		if (n > cols)
			n = cols;
		if (strlen(name) == n && !strncmp(r->funcs[i].name, name, n))
			return &r->funcs[i];
	}
	return NULL;
}

static int parse_func(struct fparser *ps, char **tok, unsigned nt)
{
	struct fprof_result *r = ps->r;
	struct fprof_func *f;

	if (ps->cpu >= 0)
		return fail(ps, "'func' after the first 'cpu'");
	if (nt < 3 || (strcmp(tok[2], "ok") ? (strcmp(tok[2], "missing") || nt != 4) : nt != 3))
		return fail(ps, "bad 'func' record");
	if (!plan_symbol_ok(tok[1]))
		return fail(ps, "bad function name");
	if (find_func(r, tok[1], PLAN_MAX_SYMBOL))
		return fail(ps, "function '%s' twice", tok[1]);
	if (r->nr_funcs >= PLAN_MAX_PROFILE)
		return fail(ps, "more than %d functions", PLAN_MAX_PROFILE);
	f = &r->funcs[r->nr_funcs++];
	snprintf(f->name, sizeof(f->name), "%s", tok[1]);
	f->ok = nt == 3;
	if (!f->ok)
		snprintf(f->reason, sizeof(f->reason), "%s", tok[3]);
	return 0;
}

static int parse_per(struct fparser *ps, char **tok, unsigned nt)
{
	struct fprof_result *r = ps->r;
	unsigned long long before, after;

	if (ps->per_seen++ || ps->cpu >= 0)
		return fail(ps, "unexpected 'per' record");
	if (nt < 3 || strncmp(tok[1], "vmstat:", 7) || strlen(tok[1]) >= sizeof(r->per) ||
	    !plan_symbol_ok(tok[1] + 7))
		return fail(ps, "bad 'per' record");
	snprintf(r->per, sizeof(r->per), "%s", tok[1]);
	if (nt == 3 && !strcmp(tok[2], "missing"))
		return 0;
	if (nt != 4 || parse_ull(tok[2], &before) || parse_ull(tok[3], &after))
		return fail(ps, "bad 'per' values");
	r->per_found = 1;
	/* a vmstat event counter only grows; a wrap is not a cost of zero */
	if (after < before)
		return fail(ps, "'%s' went backwards", r->per);
	r->per_delta = after - before;
	return 0;
}

static int parse_cpu(struct fparser *ps, char **tok, unsigned nt)
{
	unsigned long long cpu;

	if (ps->r->absent)
		return fail(ps, "'cpu' in an absent profile");
	if (nt != 2 || parse_ull(tok[1], &cpu) || cpu >= FPROF_MAX_CPUS ||
	    (long)cpu <= ps->cpu)
		return fail(ps, "bad 'cpu' record");
	ps->cpu = (long)cpu;
	ps->r->nr_cpus++;
	return 0;
}

/* One trace_stat line: a header, its dashes, or
 * "  name  hits[  time us  avg us  s^2 us]". */
static int parse_stat(struct fparser *ps, char *line)
{
	struct fprof_result *r = ps->r;
	char *tok[MAX_TOKENS];
	unsigned nt = split(line, " ", 0, tok, MAX_TOKENS);
	unsigned long long hits;
	double t, avg, s2, mean;
	struct fprof_func *f;

	if (ps->cpu < 0)
		return fail(ps, "profile line before any 'cpu'");
	if (nt > MAX_TOKENS || !nt)
		return fail(ps, "bad profile line");
	if (!strcmp(tok[0], "Function")) {
		r->timed = nt >= 3 && !strcmp(tok[2], "Time");
		return 0;
	}
	if (tok[0][0] == '-')
		return 0;
	f = find_func(r, tok[0], NAME_COLS);
	if (!f || !f->ok)
		return fail(ps, "'%.40s' is not a profiled function", tok[0]);
	if (nt != (r->timed ? 8u : 2u) || parse_ull(tok[1], &hits) || !hits)
		return fail(ps, "bad profile line for '%s'", f->name);
	f->hits += hits;
	if (!r->timed)
		return 0;
	if (parse_us(tok[2], &t) || strcmp(tok[3], "us") || parse_us(tok[4], &avg) ||
	    strcmp(tok[5], "us") || parse_us(tok[6], &s2) || strcmp(tok[7], "us"))
		return fail(ps, "bad times for '%s'", f->name);
	/* this CPU's sum of squares: (n - 1) s^2 + n mean^2 */
	mean = t / (double)hits;
	f->time_us += t;
	f->sumsq_us2 += (double)(hits - 1) * s2 + (double)hits * mean * mean;
	return 0;
}

static int parse_line(struct fparser *ps, char *line)
{
	struct fprof_result *r = ps->r;
	char *tok[5];
	unsigned nt;

	if (ps->lineno == 1) {
		if (strcmp(line, "fprof\t1"))
			return fail(ps, "not a function-profile record of format 1");
		return 0;
	}
	if (!*line)
		return fail(ps, "empty line");
	if (*line == ' ')
		return parse_stat(ps, line);
	nt = split(line, "\t", 1, tok, 4);
	if (nt > 4)
		return fail(ps, "too many fields");
	if (!strcmp(tok[0], "absent")) {
		if (nt != 2 || r->absent || r->nr_funcs || ps->per_seen || ps->cpu >= 0)
			return fail(ps, "bad 'absent' record");
		r->absent = 1;
		snprintf(r->reason, sizeof(r->reason), "%s", tok[1]);
		return 0;
	}
	if (r->absent)
		return fail(ps, "records after 'absent'");
	if (!strcmp(tok[0], "func"))
		return parse_func(ps, tok, nt);
	if (!strcmp(tok[0], "per"))
		return parse_per(ps, tok, nt);
	if (!strcmp(tok[0], "cpu"))
		return parse_cpu(ps, tok, nt);
	return fail(ps, "unknown record '%.20s'", tok[0]);
}

int fprof_parse(const char *text, size_t len, struct fprof_result *r, char *err, size_t errlen)
{
	struct fparser ps = { .r = r, .cpu = -1, .err = err, .errlen = errlen };
	size_t off = 0;

	memset(r, 0, sizeof(*r));
	if (err && errlen)
		err[0] = '\0';
	while (off < len) {
		const char *p = text + off, *nl = memchr(p, '\n', len - off);
		size_t n = nl ? (size_t)(nl - p) : len - off;
		char line[MAX_LINE + 1];

		ps.lineno++;
		off += n + (nl ? 1 : 0);
		if (n > MAX_LINE)
			return fail(&ps, "longer than %d characters", MAX_LINE);
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20 && p[i] != '\t')
				return fail(&ps, "control character");
		memcpy(line, p, n);
		line[n] = '\0';
		if (parse_line(&ps, line))
			return -1;
	}
	if (!ps.lineno) {
		ps.lineno = 1;
		return fail(&ps, "empty record");
	}
	if (!r->absent && !r->nr_funcs)
		return fail(&ps, "neither functions nor a reason for their absence");
	return 0;
}

static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

struct json_object *fprof_run_json(const struct fprof_result *r)
{
	struct json_object *o = json_object_new_object(), *fs, *miss;

	if (r->absent) {
		json_object_object_add(o, "absent", json_object_new_string(r->reason));
		return o;
	}
	fs = json_object_new_object();
	miss = json_object_new_object();
	for (unsigned i = 0; i < r->nr_funcs; i++) {
		const struct fprof_func *f = &r->funcs[i];
		struct json_object *e;

		if (!f->ok) {
			json_object_object_add(miss, f->name, json_object_new_string(f->reason));
			continue;
		}
		e = json_object_new_object();
		json_object_object_add(e, "hits", json_object_new_int64((int64_t)f->hits));
		if (r->timed) {
			double n = (double)f->hits, mean = f->hits ? f->time_us / n : 0;
			double var = f->hits > 1 ? (f->sumsq_us2 - n * mean * mean) / (n - 1) : 0;

			json_object_object_add(e, "time_us", jnum(f->time_us));
			json_object_object_add(e, "avg_us", jnum(mean));
			json_object_object_add(e, "stddev_us", jnum(var > 0 ? sqrt(var) : 0));
			if (r->per_found)
				json_object_object_add(e, "us_per_unit", !r->per_delta ? NULL :
						       jnum(f->time_us / (double)r->per_delta));
		}
		json_object_object_add(fs, f->name, e);
	}
	json_object_object_add(o, "functions", fs);
	if (json_object_object_length(miss))
		json_object_object_add(o, "missing", miss);
	else
		json_object_put(miss);
	json_object_object_add(o, "timed", json_object_new_boolean(r->timed));
	if (r->per[0]) {
		json_object_object_add(o, "per", json_object_new_string(r->per));
		json_object_object_add(o, "per_delta", r->per_found ?
				       json_object_new_int64((int64_t)r->per_delta) : NULL);
	}
	json_object_object_add(o, "cpus", json_object_new_int((int)r->nr_cpus));
	return o;
}

static double jget(struct json_object *o, const char *key, int *have)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
		*have = 0;
		return 0;
	}
	*have = 1;
	return json_object_get_double(v);
}

static void push(struct json_object *entry, const char *key, struct json_object *v)
{
	struct json_object *values, *arr;

	json_object_object_get_ex(entry, "values", &values);
	if (!json_object_object_get_ex(values, key, &arr)) {
		arr = json_object_new_array();
		json_object_object_add(values, key, arr);
	}
	json_object_array_add(arr, v);
}

/* Adds one run's function to the case's entry for it. */
static void fold_func(struct json_object *fs, const char *name, struct json_object *f,
		      double delta, int have_delta)
{
	struct json_object *e;
	double hits, t, sum;
	int h, ht, hs;

	if (!json_object_object_get_ex(fs, name, &e)) {
		e = json_object_new_object();
		json_object_object_add(e, "values", json_object_new_object());
		json_object_object_add(fs, name, e);
	}
	hits = jget(f, "hits", &h);
	t = jget(f, "time_us", &ht);
	push(e, "hits", json_object_new_double(hits));
	if (ht)
		push(e, "time_us", json_object_new_double(t));
	if (ht && have_delta)
		push(e, "us_per_unit", delta > 0 ? json_object_new_double(t / delta) : NULL);
	sum = jget(e, "sum_hits", &hs);
	json_object_object_add(e, "sum_hits", json_object_new_double(sum + hits));
	if (ht) {
		sum = jget(e, "sum_time_us", &hs);
		json_object_object_add(e, "sum_time_us", json_object_new_double(sum + t));
	}
	if (ht && have_delta) {
		sum = jget(e, "sum_units", &hs);
		json_object_object_add(e, "sum_units", json_object_new_double(sum + delta));
	}
}

/* Means per run and ratios of sums, from what fold_func() added up. */
static void finish_func(struct json_object *e, unsigned nruns)
{
	double hits, t, units;
	int h, ht, hu;

	hits = jget(e, "sum_hits", &h);
	t = jget(e, "sum_time_us", &ht);
	units = jget(e, "sum_units", &hu);
	json_object_object_add(e, "hits_per_run", json_object_new_double(hits / nruns));
	if (ht) {
		json_object_object_add(e, "time_us_per_run", json_object_new_double(t / nruns));
		json_object_object_add(e, "avg_us",
				       hits > 0 ? json_object_new_double(t / hits) : NULL);
	}
	if (ht && hu)
		json_object_object_add(e, "us_per_unit",
				       units > 0 ? json_object_new_double(t / units) : NULL);
	json_object_object_del(e, "sum_hits");
	json_object_object_del(e, "sum_time_us");
	json_object_object_del(e, "sum_units");
}

struct json_object *fprof_case_json(struct json_object *runs)
{
	struct json_object *out, *fs, *miss = NULL, *deltas = json_object_new_array();
	const char *absent = NULL, *per = NULL;
	unsigned nprof = 0, nabsent = 0;
	size_t n = runs ? json_object_array_length(runs) : 0;

	out = json_object_new_object();
	fs = json_object_new_object();
	for (size_t i = 0; i < n; i++) {
		struct json_object *run = json_object_array_get_idx(runs, i), *v, *funcs;
		double delta;
		int hd;

		if (!json_object_is_type(run, json_type_object))
			continue;
		if (json_object_object_get_ex(run, "absent", &v)) {
			if (!nabsent++)
				absent = json_object_get_string(v);
			continue;
		}
		if (!json_object_object_get_ex(run, "functions", &funcs) ||
		    !json_object_is_type(funcs, json_type_object))
			continue;
		nprof++;
		delta = jget(run, "per_delta", &hd);
		if (json_object_object_get_ex(run, "per", &v) &&
		    json_object_is_type(v, json_type_string))
			per = json_object_get_string(v);
		if (hd)
			json_object_array_add(deltas, json_object_new_double(delta));
		json_object_object_foreach(funcs, name, f)
			if (json_object_is_type(f, json_type_object))
				fold_func(fs, name, f, delta, hd);
		if (!miss && json_object_object_get_ex(run, "missing", &v))
			miss = json_object_get(v);
	}
	if (!nprof && !nabsent) {
		json_object_put(out);
		json_object_put(fs);
		json_object_put(deltas);
		return NULL;
	}
	json_object_object_add(out, "runs", json_object_new_int((int)nprof));
	if (nabsent) {
		json_object_object_add(out, "absent_runs", json_object_new_int((int)nabsent));
		json_object_object_add(out, "absent", json_object_new_string(absent ? absent : ""));
	}
	json_object_object_foreach(fs, name, e) {
		(void)name;
		finish_func(e, nprof);
	}
	json_object_object_add(out, "functions", fs);
	if (miss)
		json_object_object_add(out, "missing", miss);
	if (per) {
		json_object_object_add(out, "per", json_object_new_string(per));
		if (!json_object_array_length(deltas))
			json_object_object_add(out, "per_absent", json_object_new_string(
				"not in /proc/vmstat (no CONFIG_VM_EVENT_COUNTERS?)"));
		json_object_object_add(out, "per_delta", deltas);
	} else {
		json_object_put(deltas);
	}
	return out;
}
