/* compare.c - `lab compare` behind the command line: bounded loading of
 * run directories, per-row statistics and verdicts, text, JSON and JUnit. */
#define _GNU_SOURCE
#include "report/compare.h"
#include "common/plan.h"
#include "results/results.h"
#include "lib/json.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

/* ---- loading ---- */

/* A copy of at most max bytes of s with control characters replaced, so
 * nothing a guest wrote can move the terminal's cursor in our tables. */
static char *dup_clean(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = xmalloc(n + 1);

	for (size_t i = 0; i < n; i++)
		d[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	d[n] = '\0';
	return d;
}

static int is_number(struct json_object *o)
{
	return json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int);
}

int cmp_run_json_parse(struct cmp_run *run, const char *text, size_t len, struct strbuf *err)
{
	struct json_object *o = json_read_object(text, len, CMP_MAX_FILE, "run.json", err);
	const char *s;

	if (!o)
		return -1;
	s = json_get_str(o, "kernel");
	run->kernel = dup_clean(s && *s ? s : "unknown", 128);
	s = json_get_str(o, "spec");
	run->spec = dup_clean(s ? s : "", 512);
	s = json_get_str(o, "spec_resolved");
	run->spec_resolved = dup_clean(s ? s : run->spec, 512);
	if ((s = json_get_str(o, "suite")))
		run->what = xasprintf("suite '%.200s'", s);
	else if ((s = json_get_str(o, "scenario")))
		run->what = xasprintf("scenario '%.200s'", s);
	else
		run->what = xstrdup("no suite");
	for (char *p = run->what; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	s = json_get_str(o, "smt");
	run->smt = dup_clean(s ? s : "", 8);
	/* a label recorded at run time (lab ab) beats the kernel release */
	s = json_get_str(o, "label");
	free(run->label);
	run->label = dup_clean(s && *s ? s : run->kernel, 64);
	json_object_put(o);
	return 0;
}

static void add_counter(struct cmp_case *c, const char *name, int level, double v)
{
	struct cmp_counter *k;

	c->counters = xrealloc(c->counters, (c->nr_counters + 1) * sizeof(*c->counters));
	k = &c->counters[c->nr_counters++];
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->level = level;
	k->value = v;
}

/* The counters a reader of the seeds asks about, in a fixed order. */
static const struct {
	const char *key, *name;
} task_counters[] = {
	{ "nr_migrations", "migrations/run" },
	{ "nr_involuntary_switches", "invol_switches/run" },
	{ "nr_wakeups_migrate", "wakeups_migrate/run" },
	{ "nr_failed_migrations_hot", "failed_hot/run" },
	{ "core_forceidle_ns", "forceidle_ns/run" },
}, vmstat_counters[] = {
	{ "numa_pte_updates", "numa_pte_updates" },
	{ "numa_hint_faults", "numa_hint_faults" },
	{ "numa_hint_faults_local", "numa_hint_faults_local" },
	{ "numa_pages_migrated", "numa_pages_migrated" },
	{ "pgmigrate_success", "pgmigrate_success" },
	{ "pgmigrate_fail", "pgmigrate_fail" },
};

/*
 * The function profile (runreport's "fprof"): per function the hits and
 * time per measured run, the time per call and, when the scenario named
 * a denominator, per unit of it: seed 001's overhead per migrated page.
 */
static int fprof_counters(struct cmp_case *c, struct json_object *fp)
{
	static const struct { const char *key, *suffix; } rows[] = {
		{ "hits_per_run", "hits/run" },
		{ "time_us_per_run", "us/run" },
		{ "avg_us", "us/call" },
		{ "us_per_unit", NULL },
	};
	struct json_object *fs;
	const char *per = json_get_str(fp, "per");
	unsigned nr = 0;
	double v;

	if (!json_object_object_get_ex(fp, "functions", &fs) ||
	    !json_object_is_type(fs, json_type_object))
		return 0;
	per = per && strchr(per, ':') ? strchr(per, ':') + 1 : "unit";
	json_object_object_foreach(fs, fname, f) {
		if (++nr > PLAN_MAX_PROFILE || !json_object_is_type(f, json_type_object))
			return -1;
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
			char name[sizeof(c->counters->name)];
			int r = json_get_num(f, rows[i].key, &v);

			if (r < 0)
				return -1;
			if (r)
				continue;
			/* "us/numa_pages_migrated" for vmstat:numa_pages_migrated */
			if (rows[i].suffix)
				snprintf(name, sizeof(name), "fprof %.30s %s", fname, rows[i].suffix);
			else
				snprintf(name, sizeof(name), "fprof %.30s us/%.28s", fname, per);
			add_counter(c, name, -1, v);
		}
	}
	return 0;
}

/* Names from the guest are printed as they are: [a-z0-9_], 1..47 chars. */
static int counter_name_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return n && n < sizeof(((struct cmp_counter *)0)->name) && !s[n];
}

static int parse_counters(struct cmp_case *c, struct json_object *cs, struct strbuf *err)
{
	struct json_object *t, *ss, *doms;
	double v;

	if (json_object_object_get_ex(cs, "tasks", &t) && json_object_is_type(t, json_type_object))
		for (size_t i = 0; i < ARRAY_SIZE(task_counters); i++) {
			int r = json_get_num(t, task_counters[i].key, &v);

			if (r < 0)
				goto bad;
			if (!r)
				add_counter(c, task_counters[i].name, -1, v);
		}
	/* schedstat is an error string when the guest's counters were unusable */
	if (json_object_object_get_ex(cs, "schedstat", &ss) &&
	    json_object_is_type(ss, json_type_object) &&
	    json_object_object_get_ex(ss, "domains", &doms) &&
	    json_object_is_type(doms, json_type_object)) {
		unsigned nr = 0;

		json_object_object_foreach(doms, dname, d) {
			static const char *const types[] = { "idle", "busy", "newidle" };
			double level, lb = 0, failed = 0, affine;
			int have = 0;

			(void)dname;
			if (++nr > CMP_MAX_DOMAINS || !json_object_is_type(d, json_type_object) ||
			    json_get_num(d, "level", &level) || level < 0 || level >= CMP_MAX_DOMAINS ||
			    level != floor(level)) {
				strbuf_addf(err, "case '%.200s': bad schedstat domain '%.40s'", c->id, dname);
				return -1;
			}
			for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
				struct json_object *ty;
				double x;

				if (!json_object_object_get_ex(d, types[i], &ty) ||
				    !json_object_is_type(ty, json_type_object))
					continue;
				if (!json_get_num(ty, "lb_count", &x))
					lb += x, have = 1;
				if (!json_get_num(ty, "lb_failed", &x))
					failed += x, have = 1;
			}
			if (have) {
				add_counter(c, "lb_count", (int)level, lb);
				add_counter(c, "lb_failed", (int)level, failed);
			}
			if (!json_get_num(d, "ttwu_move_affine", &affine))
				add_counter(c, "ttwu_move_affine", (int)level, affine);
		}
	}
	if (json_object_object_get_ex(cs, "vmstat_delta", &t) && json_object_is_type(t, json_type_object))
		for (size_t i = 0; i < ARRAY_SIZE(vmstat_counters); i++) {
			int r = json_get_num(t, vmstat_counters[i].key, &v);

			if (r < 0)
				goto bad;
			if (!r)
				add_counter(c, vmstat_counters[i].name, -1, v);
		}
	if (json_object_object_get_ex(cs, "fprof", &t) &&
	    json_object_is_type(t, json_type_object) && fprof_counters(c, t) < 0)
		goto bad;
	/* the workload's own (per-group cookies and forced idle of coresched) */
	if (json_object_object_get_ex(cs, "workload_counters", &t) &&
	    json_object_is_type(t, json_type_object)) {
		unsigned nr = 0;

		json_object_object_foreach(t, key, val) {
			(void)val;
			if (++nr > CMP_MAX_WL_COUNTERS)
				break;
			if (!counter_name_ok(key))
				continue;
			if (json_get_num(t, key, &v) < 0)
				goto bad;
			add_counter(c, key, -1, v);
		}
	}
	return 0;
bad:
	strbuf_addf(err, "case '%.200s': a counter is not a finite number", c->id);
	return -1;
}

static int parse_metric(struct cmp_case *c, const char *name, struct json_object *m,
			struct strbuf *err)
{
	struct cmp_metric *cm;
	struct json_object *vals, *decl;
	const char *better, *stat, *unit;
	size_t n;

	if (strlen(name) > 64 || !*name) {
		strbuf_addf(err, "case '%.200s': bad metric name", c->id);
		return -1;
	}
	if (c->nr_metrics >= CMP_MAX_METRICS) {
		strbuf_addf(err, "case '%.200s': more than %d metrics", c->id, CMP_MAX_METRICS);
		return -1;
	}
	if (!json_object_is_type(m, json_type_object) ||
	    !json_object_object_get_ex(m, "values", &vals) ||
	    !json_object_is_type(vals, json_type_array)) {
		strbuf_addf(err, "case '%.200s': metric '%s' has no values", c->id, name);
		return -1;
	}
	better = json_get_str(m, "better");
	if (!better || (strcmp(better, "higher") && strcmp(better, "lower"))) {
		strbuf_addf(err, "case '%.200s': metric '%s' says neither higher nor lower is better",
			    c->id, name);
		return -1;
	}
	n = json_object_array_length(vals);
	if (n > CMP_MAX_VALUES) {
		strbuf_addf(err, "case '%.200s': metric '%s' has more than %d values", c->id, name,
			    CMP_MAX_VALUES);
		return -1;
	}
	c->metrics = xrealloc(c->metrics, (c->nr_metrics + 1) * sizeof(*c->metrics));
	cm = &c->metrics[c->nr_metrics++];
	memset(cm, 0, sizeof(*cm));
	cm->name = dup_clean(name, 64);
	unit = json_get_str(m, "unit");
	cm->unit = dup_clean(unit ? unit : "", 32);
	cm->higher_better = !strcmp(better, "higher");
	stat = json_get_str(m, "statistic");
	if (stat && stats_statistic_parse(stat, &cm->stat) < 0) {
		strbuf_addf(err, "case '%.200s': metric '%s' has unknown statistic '%.20s'", c->id,
			    name, stat);
		return -1;
	}
	cm->declared = !json_object_object_get_ex(m, "declared", &decl) ||
		       json_object_get_boolean(decl);
	cm->values = xcalloc(n ? n : 1, sizeof(*cm->values));
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(vals, i);

		if (!is_number(x) || !isfinite(json_object_get_double(x))) {
			strbuf_addf(err, "case '%.200s': metric '%s': value %zu is not a finite number",
				    c->id, name, i);
			return -1;
		}
		cm->values[i] = json_object_get_double(x);
	}
	cm->n = n;
	return 0;
}

static int parse_case(struct cmp_case *c, struct json_object *cs, struct strbuf *err)
{
	struct json_object *ms;
	const char *id, *s;

	if (!json_object_is_type(cs, json_type_object) || !(id = json_get_str(cs, "case")) || !*id) {
		strbuf_addstr(err, "cases.json: a case without a \"case\" id");
		return -1;
	}
	if (strlen(id) > 512) {
		strbuf_addstr(err, "cases.json: a case id longer than 512 bytes");
		return -1;
	}
	c->id = dup_clean(id, 512);
	if ((s = json_get_str(cs, "scenario")) && *s) {
		c->scenario = dup_clean(s, 256);
	} else {
		const char *slash = strchr(c->id, '/');

		c->scenario = slash ? xasprintf("%.*s", (int)(slash - c->id), c->id) : xstrdup(c->id);
	}
	s = json_get_str(cs, "workload");
	c->workload = dup_clean(s && *s ? s : c->scenario, 64);
	if (!(s = json_get_str(cs, "verdict")) || !*s) {
		strbuf_addf(err, "case '%.200s' has no verdict", c->id);
		return -1;
	}
	c->verdict = dup_clean(s, 16);
	s = json_get_str(cs, "reason");
	c->reason = dup_clean(s ? s : "", 600);
	if (json_object_object_get_ex(cs, "metrics", &ms) && !json_object_is_type(ms, json_type_null)) {
		if (!json_object_is_type(ms, json_type_object)) {
			strbuf_addf(err, "case '%.200s': metrics is not an object", c->id);
			return -1;
		}
		json_object_object_foreach(ms, name, m)
			if (parse_metric(c, name, m, err) < 0)
				return -1;
	}
	return parse_counters(c, cs, err);
}

static int cmp_case_ptr_id(const void *a, const void *b)
{
	return strcmp((*(const struct cmp_case *const *)a)->id, (*(const struct cmp_case *const *)b)->id);
}

/* Sorted pointers to the cases, for lookups and duplicate checks. */
static const struct cmp_case **cases_by_id(const struct cmp_run *run)
{
	const struct cmp_case **v = xmalloc((run->nr_cases ? run->nr_cases : 1) * sizeof(*v));

	for (size_t i = 0; i < run->nr_cases; i++)
		v[i] = &run->cases[i];
	qsort(v, run->nr_cases, sizeof(*v), cmp_case_ptr_id);
	return v;
}

int cmp_cases_parse(struct cmp_run *run, const char *text, size_t len, struct strbuf *err)
{
	struct json_object *o = json_read_object(text, len, CMP_MAX_FILE, "cases.json", err), *cases;
	const struct cmp_case **sorted;
	size_t n;
	int ret = -1;

	if (!o)
		return -1;
	if (!json_object_object_get_ex(o, "cases", &cases) ||
	    !json_object_is_type(cases, json_type_array)) {
		strbuf_addstr(err, "cases.json has no \"cases\" array");
		goto out;
	}
	n = json_object_array_length(cases);
	if (n > CMP_MAX_CASES) {
		strbuf_addf(err, "cases.json has more than %d cases", CMP_MAX_CASES);
		goto out;
	}
	run->cases = xcalloc(n ? n : 1, sizeof(*run->cases));
	for (size_t i = 0; i < n; i++) {
		run->nr_cases = i + 1;
		if (parse_case(&run->cases[i], json_object_array_get_idx(cases, i), err) < 0)
			goto out;
	}
	sorted = cases_by_id(run);
	for (size_t i = 1; i < run->nr_cases; i++)
		if (!strcmp(sorted[i - 1]->id, sorted[i]->id)) {
			strbuf_addf(err, "cases.json lists case '%.200s' twice", sorted[i]->id);
			free(sorted);
			goto out;
		}
	free(sorted);
	ret = 0;
out:
	json_object_put(o);
	/* names in the message come from the file: keep it one printable line */
	for (size_t c = 0; c < err->len; c++)
		if ((unsigned char)err->buf[c] < 0x20)
			err->buf[c] = '?';
	return ret;
}

/* Level names (SMT, MC, DIE, NUMA) as cpu 0 of the guest saw them. */
static void parse_domain_names(struct cmp_run *run, const char *text, size_t len)
{
	struct strbuf ignored = STRBUF_INIT;
	struct json_object *o = json_read_object(text, len, CMP_MAX_FILE, "guest-topology.json", &ignored), *cpus,
			   *cpu0, *doms;
	size_t n;

	strbuf_release(&ignored);
	if (!o)
		return;
	if (json_object_object_get_ex(o, "cpu", &cpus) && json_object_is_type(cpus, json_type_array) &&
	    json_object_array_length(cpus) > 0 && (cpu0 = json_object_array_get_idx(cpus, 0)) &&
	    json_object_object_get_ex(cpu0, "domains", &doms) &&
	    json_object_is_type(doms, json_type_array)) {
		n = json_object_array_length(doms);
		for (size_t i = 0; i < n && i < CMP_MAX_DOMAINS; i++) {
			struct json_object *d = json_object_array_get_idx(doms, i);

			if (!json_object_is_type(d, json_type_string))
				break;
			run->domain_names[run->nr_domain_names++] = dup_clean(json_object_get_string(d), 15);
		}
	}
	json_object_put(o);
}

int cmp_run_load(struct cmp_run *run, const char *arg, struct strbuf *err)
{
	struct stat st;
	struct strbuf sub = STRBUF_INIT;
	char *path, *text;
	const char *slash;
	size_t len;
	int missing, ret = -1;

	if (!*arg) {
		strbuf_addstr(err, "an empty run directory name");
		return -1;
	}
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		run->dir = xstrdup(arg);
	} else if (!strchr(arg, '/') && strcmp(arg, ".") && strcmp(arg, "..")) {
		path = xasprintf("%s/%s", results_root(), arg);
		if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			strbuf_addf(err, "no run '%s': neither a directory nor a run id in '%s'", arg,
				    results_root());
			free(path);
			return -1;
		}
		run->dir = path;
	} else {
		strbuf_addf(err, "no run directory '%s'", arg);
		return -1;
	}
	len = strlen(run->dir);
	while (len > 1 && run->dir[len - 1] == '/')
		run->dir[--len] = '\0';
	slash = strrchr(run->dir, '/');
	run->name = dup_clean(slash ? slash + 1 : run->dir, 256);

	path = xasprintf("%s/run.json", run->dir);
	text = json_read_bounded(path, CMP_MAX_FILE, &len, &missing, &sub);
	free(path);
	if (!text) {
		if (missing)
			strbuf_addf(err, "'%s' is not a run directory: it has no run.json", run->dir);
		else
			strbuf_addstr(err, sub.buf);
		goto out;
	}
	if (cmp_run_json_parse(run, text, len, &sub) < 0) {
		strbuf_addf(err, "'%s': %s", run->dir, sub.buf);
		free(text);
		goto out;
	}
	free(text);

	path = xasprintf("%s/cases.json", run->dir);
	strbuf_reset(&sub);
	text = json_read_bounded(path, CMP_MAX_FILE, &len, &missing, &sub);
	free(path);
	if (!text) {
		if (missing)
			strbuf_addf(err, "'%s' has no cases.json (a boot-only run, or rebuild it with 'lab report')",
				    run->dir);
		else
			strbuf_addstr(err, sub.buf);
		goto out;
	}
	if (cmp_cases_parse(run, text, len, &sub) < 0) {
		strbuf_addf(err, "'%s': %s", run->dir, sub.buf);
		free(text);
		goto out;
	}
	free(text);

	path = xasprintf("%s/guest-topology.json", run->dir);
	strbuf_reset(&sub);
	text = json_read_bounded(path, CMP_MAX_FILE, &len, &missing, &sub);
	free(path);
	if (text)
		parse_domain_names(run, text, len);
	free(text);
	ret = 0;
out:
	strbuf_release(&sub);
	return ret;
}

static void case_release(struct cmp_case *c)
{
	for (size_t i = 0; i < c->nr_metrics; i++) {
		free(c->metrics[i].name);
		free(c->metrics[i].unit);
		free(c->metrics[i].values);
	}
	free(c->metrics);
	free(c->counters);
	free(c->id);
	free(c->scenario);
	free(c->workload);
	free(c->verdict);
	free(c->reason);
}

void cmp_run_release(struct cmp_run *run)
{
	for (size_t i = 0; i < run->nr_cases; i++)
		case_release(&run->cases[i]);
	free(run->cases);
	for (size_t i = 0; i < run->nr_domain_names; i++)
		free(run->domain_names[i]);
	free(run->dir);
	free(run->name);
	free(run->label);
	free(run->kernel);
	free(run->what);
	free(run->spec);
	free(run->spec_resolved);
	free(run->smt);
	memset(run, 0, sizeof(*run));
}

int cmp_runs_check(const struct cmp_run *runs, size_t nr, struct strbuf *err)
{
	const struct cmp_run *b = &runs[0];
	const struct cmp_case **sb = cases_by_id(b);
	int ret = 0;

	for (size_t k = 1; k < nr && !ret; k++) {
		const struct cmp_run *t = &runs[k];
		const struct cmp_case **st;

		if (strcmp(b->what, t->what) || strcmp(b->spec_resolved, t->spec_resolved)) {
			strbuf_addf(err, "runs differ: %s ran %s on '%s', %s ran %s on '%s'", b->name,
				    b->what, b->spec, t->name, t->what, t->spec);
			ret = -1;
			break;
		}
		st = cases_by_id(t);
		for (size_t i = 0, j = 0; i < b->nr_cases || j < t->nr_cases; i++, j++) {
			int c = i >= b->nr_cases ? 1 : j >= t->nr_cases ? -1 : strcmp(sb[i]->id, st[j]->id);

			if (c) {
				strbuf_addf(err, "runs differ: case '%.200s' is only in %s (the scenario files changed between the runs?)",
					    c < 0 ? sb[i]->id : st[j]->id, c < 0 ? b->name : t->name);
				ret = -1;
				break;
			}
		}
		free(st);
	}
	free(sb);
	return ret;
}

/* ---- pooling several runs of one kernel into one side ---- */

static const struct cmp_case *find_case(const struct cmp_case **sorted, size_t n, const char *id);

static void pool_metric(struct cmp_case *dst, const struct cmp_metric *m)
{
	struct cmp_metric *d = NULL;

	for (size_t i = 0; i < dst->nr_metrics && !d; i++)
		if (!strcmp(dst->metrics[i].name, m->name))
			d = &dst->metrics[i];
	if (!d) {
		if (dst->nr_metrics >= CMP_MAX_METRICS)
			return;
		dst->metrics = xrealloc(dst->metrics, (dst->nr_metrics + 1) * sizeof(*dst->metrics));
		d = &dst->metrics[dst->nr_metrics++];
		*d = *m;
		d->name = xstrdup(m->name);
		d->unit = xstrdup(m->unit);
		d->values = NULL;
		d->n = 0;
	}
	if (!m->n)
		return;
	d->values = xrealloc(d->values, (d->n + m->n) * sizeof(*d->values));
	memcpy(d->values + d->n, m->values, m->n * sizeof(*m->values));
	d->n += m->n;
}

/* Counters are per case and run: the pool shows their mean per run. */
static void pool_counters(struct cmp_case *dst, const struct cmp_case *const *src, size_t nr)
{
	for (size_t r = 0; r < nr; r++)
		for (size_t i = 0; i < src[r]->nr_counters; i++) {
			const struct cmp_counter *k = &src[r]->counters[i];
			size_t j, seen = 0;
			double sum = 0;

			for (j = 0; j < dst->nr_counters; j++)
				if (!strcmp(dst->counters[j].name, k->name) && dst->counters[j].level == k->level)
					break;
			if (j < dst->nr_counters)
				continue;
			for (size_t q = 0; q < nr; q++)
				for (size_t x = 0; x < src[q]->nr_counters; x++)
					if (!strcmp(src[q]->counters[x].name, k->name) &&
					    src[q]->counters[x].level == k->level) {
						sum += src[q]->counters[x].value;
						seen++;
						break;
					}
			add_counter(dst, k->name, k->level, sum / (double)seen);
		}
}

static void pool_case(struct cmp_case *dst, const struct cmp_case *const *src, const struct cmp_run *runs,
		      size_t nr)
{
	const struct cmp_case *bad = NULL;
	size_t bad_run = 0, skipped = 0;

	dst->id = xstrdup(src[0]->id);
	dst->scenario = xstrdup(src[0]->scenario);
	dst->workload = xstrdup(src[0]->workload);
	for (size_t r = 0; r < nr; r++) {
		if (!strcmp(src[r]->verdict, "SKIP"))
			skipped++;
		else if (strcmp(src[r]->verdict, "PASS") && !bad)
			bad = src[r], bad_run = r;
		if (!strcmp(src[r]->verdict, "PASS"))
			for (size_t i = 0; i < src[r]->nr_metrics; i++)
				pool_metric(dst, &src[r]->metrics[i]);
	}
	if (bad) {
		dst->verdict = xstrdup(bad->verdict);
		dst->reason = xasprintf("in %s: %.500s", runs[bad_run].name, bad->reason);
	} else if (skipped == nr) {
		dst->verdict = xstrdup("SKIP");
		dst->reason = xstrdup(src[0]->reason);
	} else {
		dst->verdict = xstrdup("PASS");
		dst->reason = xstrdup("");
	}
	pool_counters(dst, src, nr);
}

static const char *smt_of(const struct cmp_run *r)
{
	return r->smt && *r->smt ? r->smt : "unknown";
}

static int pool_check(const struct cmp_run *runs, size_t nr, struct strbuf *err)
{
	for (size_t k = 1; k < nr; k++) {
		if (strcmp(runs[0].kernel, runs[k].kernel)) {
			strbuf_addf(err, "cannot pool runs of different kernels: %s ran %s, %s ran %s",
				    runs[0].name, runs[0].kernel, runs[k].name, runs[k].kernel);
			return -1;
		}
		if (strcmp(smt_of(&runs[0]), smt_of(&runs[k]))) {
			strbuf_addf(err, "cannot pool runs with SMT %s (%s) and SMT %s (%s)",
				    smt_of(&runs[0]), runs[0].name, smt_of(&runs[k]), runs[k].name);
			return -1;
		}
	}
	return cmp_runs_check(runs, nr, err);
}

int cmp_run_pool(struct cmp_run *dst, const struct cmp_run *runs, size_t nr, struct strbuf *err)
{
	const struct cmp_case ***sorted;
	const struct cmp_case **src;
	struct strbuf name = STRBUF_INIT;

	if (!nr) {
		strbuf_addstr(err, "no runs to pool");
		return -1;
	}
	if (pool_check(runs, nr, err) < 0)
		return -1;
	dst->dir = xstrdup(runs[0].dir);
	for (size_t k = 0; k < nr; k++)
		strbuf_addf(&name, "%s%s", k ? " + " : "", runs[k].name);
	dst->name = strbuf_detach(&name);
	dst->label = xstrdup(runs[0].label);
	dst->kernel = xstrdup(runs[0].kernel);
	dst->what = xstrdup(runs[0].what);
	dst->spec = xstrdup(runs[0].spec);
	dst->spec_resolved = xstrdup(runs[0].spec_resolved);
	dst->smt = xstrdup(runs[0].smt ? runs[0].smt : "");
	dst->nr_pooled = nr;
	for (size_t i = 0; i < runs[0].nr_domain_names; i++)
		dst->domain_names[dst->nr_domain_names++] = xstrdup(runs[0].domain_names[i]);

	sorted = xcalloc(nr, sizeof(*sorted));
	src = xcalloc(nr, sizeof(*src));
	for (size_t k = 0; k < nr; k++)
		sorted[k] = cases_by_id(&runs[k]);
	dst->cases = xcalloc(runs[0].nr_cases ? runs[0].nr_cases : 1, sizeof(*dst->cases));
	for (size_t i = 0; i < runs[0].nr_cases; i++) {
		/* pool_check() made sure every run has every case */
		for (size_t k = 0; k < nr; k++)
			src[k] = find_case(sorted[k], runs[k].nr_cases, runs[0].cases[i].id);
		pool_case(&dst->cases[dst->nr_cases++], src, runs, nr);
	}
	for (size_t k = 0; k < nr; k++)
		free(sorted[k]);
	free(sorted);
	free(src);
	return 0;
}

/* ---- the comparison ---- */

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = { "no data", "improvement", "regression", "no change",
					     "undecided" };

	return (unsigned)v < ARRAY_SIZE(names) ? names[v] : "?";
}

char cmp_verdict_mark(enum cmp_verdict v)
{
	return "x+-=?"[(unsigned)v < 5 ? v : 0];
}

static const struct cmp_case *find_case(const struct cmp_case **sorted, size_t n, const char *id)
{
	struct cmp_case key = { .id = (char *)id };
	const struct cmp_case *kp = &key, **hit;

	hit = bsearch(&kp, sorted, n, sizeof(*sorted), cmp_case_ptr_id);
	return hit ? *hit : NULL;
}

static const struct cmp_metric *find_metric(const struct cmp_case *c, const char *name)
{
	for (size_t i = 0; c && i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

/* The ',' that starts the next "key=" of a case id, or the end: values may
 * hold commas themselves, keys are workload option names. */
static const char *next_axis(const char *p)
{
	for (const char *q = p; *q; q++) {
		const char *k = q + 1;

		if (*q != ',')
			continue;
		while (islower((unsigned char)*k) || isdigit((unsigned char)*k) || *k == '_')
			k++;
		if (k > q + 1 && *k == '=')
			return q;
	}
	return p + strlen(p);
}

/* "scen/groups=4,mode=thread" -> row label "4-groups", other axes "mode=thread". */
static void split_axes(const struct cmp_case *c, char **label, char **rest)
{
	const char *p = strchr(c->id, '/'), *end, *eq;

	if (!p || !p[1]) {
		*label = xstrdup(c->workload);
		*rest = xstrdup("");
		return;
	}
	p++;
	end = next_axis(p);
	eq = memchr(p, '=', (size_t)(end - p));
	if (eq)
		*label = xasprintf("%.*s-%.*s", (int)(end - eq - 1), eq + 1, (int)(eq - p), p);
	else
		*label = xasprintf("%.*s", (int)(end - p), p);
	*rest = xstrdup(*end ? end + 1 : "");
}

static struct cmp_block *find_block(struct comparison *c, const char *scenario, const char *metric,
				    const char *axes)
{
	for (size_t i = 0; i < c->nr_blocks; i++) {
		struct cmp_block *b = &c->blocks[i];

		if (!strcmp(b->scenario, scenario) && !strcmp(b->metric, metric) &&
		    !strcmp(b->axes, axes))
			return b;
	}
	return NULL;
}

static void fill_cell(struct cmp_cell *cell, const struct cmp_case *cs, const struct cmp_block *b,
		      const struct cmp_cell *base)
{
	const struct cmp_metric *m = NULL;

	cell->m = NULL;
	cell->stat = cell->cv_pct = cell->norm = cell->pct_imp = NAN;
	/* a failed case's partial runs would compare apples with crashes */
	if (cs && !strcmp(cs->verdict, "PASS"))
		m = find_metric(cs, b->metric);
	if (!m || !m->n)
		return;
	cell->m = m;
	cell->stat = stats_summary(b->stat, m->values, m->n);
	cell->cv_pct = stats_cv_pct(m->values, m->n);
	if (!base)
		base = cell;
	if (!base->m)
		return;
	if (base->stat == 0)
		cell->norm = cell->stat == 0 ? 1 : copysign(INFINITY, cell->stat);
	else
		cell->norm = cell->stat / base->stat;
	cell->pct_imp = (cell->norm - 1) * 100 * (b->higher_better ? 1 : -1);
}

static void run_tests(struct cmp_test *t, const struct cmp_block *b, const struct cmp_cell *base,
		      const struct cmp_cell *test)
{
	const double *x, *y;
	size_t nx, ny;

	memset(t, 0, sizeof(*t));
	t->q = t->bf_q = t->ci_lo = t->ci_hi = t->more_runs = NAN;
	t->t.p = t->bf.p = NAN;
	t->verdict = CMP_NODATA;
	t->method = b->stat == STATS_MEDIAN ? "mann-whitney" : "welch";
	if (!base->m || !test->m)
		return;
	x = base->m->values;
	nx = base->m->n;
	y = test->m->values;
	ny = test->m->n;
	/* means get Welch; medians of latency percentiles get a rank test */
	if (b->stat == STATS_MEDIAN)
		stats_mann_whitney(x, nx, y, ny, &t->t);
	else
		stats_welch(x, nx, y, ny, &t->t);
	/* one run per side resamples to itself: a zero-width interval that lies */
	if (nx >= 2 && ny >= 2)
		stats_bootstrap_ratio(x, nx, y, ny, b->stat, CMP_RESAMPLES, CMP_BOOT_SEED, 0.95,
				      &t->ci_lo, &t->ci_hi);
	stats_brown_forsythe(x, nx, y, ny, &t->bf);
}

/*
 * Runs per side that would decide an undecided row: the fewer of those a
 * t-test needs to detect the observed difference (alpha 0.05, power 0.8)
 * and those that would bring the interval of the ratio inside the
 * no-change band (normal approximation of the ratio of means).
 */
static double more_runs(const struct cmp_cell *base, const struct cmp_cell *test)
{
	const double *x = base->m->values, *y = test->m->values;
	size_t nx = base->m->n, ny = test->m->n, have = nx < ny ? nx : ny;
	double need, mx, my, r;

	if (have < 2)
		return (double)(2 - have);
	need = stats_runs_needed(x, nx, y, ny, CMP_ALPHA, 0.8);
	mx = gsl_stats_mean(x, 1, nx);
	my = gsl_stats_mean(y, 1, ny);
	r = mx != 0 ? my / mx : NAN;
	if (mx != 0 && fabs(r - 1) < CMP_SAME_BAND) {
		double s2 = (gsl_stats_variance(x, 1, nx) + gsl_stats_variance(y, 1, ny)) / 2;
		double z = gsl_cdf_ugaussian_Pinv(0.975);
		double w = fabs(mx) * (CMP_SAME_BAND - fabs(r - 1));
		double eq = ceil(2 * z * z * s2 / (w * w));

		if (isnan(need) || eq < need)
			need = eq;
	}
	if (!isfinite(need))
		return NAN;
	/* below five runs a side, bootstrap intervals are too coarse to trust
	 * the normal approximations above */
	if (need < CMP_MIN_RUNS)
		need = CMP_MIN_RUNS;
	return need > have ? need - have : 1;
}

static void decide(struct cmp_test *t, const struct cmp_block *b, const struct cmp_cell *base,
		   const struct cmp_cell *test)
{
	int up = t->ci_lo > 1, down = t->ci_hi < 1;

	if (!base->m || !test->m) {
		t->verdict = CMP_NODATA;
	} else if (t->q < CMP_ALPHA && (up || down)) {
		t->verdict = up == b->higher_better ? CMP_IMPROVED : CMP_REGRESSED;
	} else if (base->m->n >= 2 && test->m->n >= 2 && t->ci_lo >= 1 - CMP_SAME_BAND &&
		   t->ci_hi <= 1 + CMP_SAME_BAND) {
		t->verdict = CMP_SAME;
	} else {
		t->verdict = CMP_UNDECIDED;
		t->more_runs = more_runs(base, test);
	}
}

static void add_row(struct comparison *c, struct cmp_block *b, const char *label, const char *case_id,
		    const struct cmp_case **found)
{
	struct cmp_row *row;

	b->rows = xrealloc(b->rows, (b->nr_rows + 1) * sizeof(*b->rows));
	row = &b->rows[b->nr_rows++];
	row->label = xstrdup(label);
	row->case_id = case_id;
	row->cells = xcalloc(c->nr_runs, sizeof(*row->cells));
	row->tests = xcalloc(c->nr_runs > 1 ? c->nr_runs - 1 : 1, sizeof(*row->tests));
	for (size_t k = 0; k < c->nr_runs; k++)
		fill_cell(&row->cells[k], found[k], b, k ? &row->cells[0] : NULL);
	for (size_t k = 1; k < c->nr_runs; k++)
		run_tests(&row->tests[k - 1], b, &row->cells[0], &row->cells[k]);
}

/* The declared metrics of one case, over every run (a run whose case
 * failed may have none), in the order the baseline lists them. */
static void case_metrics(const struct cmp_case **found, size_t nr, struct strvec *names)
{
	for (size_t k = 0; k < nr; k++) {
		if (!found[k])
			continue;
		for (size_t i = 0; i < found[k]->nr_metrics; i++) {
			const struct cmp_metric *m = &found[k]->metrics[i];
			size_t j;

			if (!m->declared)
				continue;
			for (j = 0; j < names->nr && strcmp(names->v[j], m->name); j++)
				;
			if (j == names->nr)
				strvec_push(names, m->name);
		}
	}
}

static void new_block(struct comparison *c, const struct cmp_case **found, size_t nr_found,
		      const char *metric, const char *rest, size_t nr_metrics)
{
	const struct cmp_case *base = found[0];
	const struct cmp_metric *m = NULL;
	struct cmp_block *b;

	for (size_t k = 0; k < nr_found && !m; k++)
		m = find_metric(found[k], metric);
	c->blocks = xrealloc(c->blocks, (c->nr_blocks + 1) * sizeof(*c->blocks));
	b = &c->blocks[c->nr_blocks++];
	memset(b, 0, sizeof(*b));
	b->scenario = xstrdup(base->scenario);
	b->metric = xstrdup(metric);
	b->axes = xstrdup(rest);
	b->unit = xstrdup(m->unit);
	b->higher_better = m->higher_better;
	b->stat = m->stat;
	b->title = xasprintf("%s%s%s%s%s", base->scenario, nr_metrics > 1 ? " " : "",
			     nr_metrics > 1 ? metric : "", *rest ? " " : "", rest);
}

void comparison_build(struct comparison *c, const struct cmp_run *runs, size_t nr)
{
	const struct cmp_case ***sorted = xcalloc(nr, sizeof(*sorted));
	const struct cmp_case **found = xcalloc(nr, sizeof(*found));
	size_t nr_tests = 0, at = 0;
	double *p, *q, *bp, *bq;

	memset(c, 0, sizeof(*c));
	c->runs = runs;
	c->nr_runs = nr;
	for (size_t k = 0; k < nr; k++) {
		sorted[k] = cases_by_id(&runs[k]);
		for (size_t i = 0; i < runs[k].nr_cases; i++)
			if (strcmp(runs[k].cases[i].verdict, "PASS") &&
			    strcmp(runs[k].cases[i].verdict, "SKIP"))
				c->bad_cases++;
	}
	for (size_t i = 0; i < runs[0].nr_cases; i++) {
		const struct cmp_case *bc = &runs[0].cases[i];
		struct strvec metrics = STRVEC_INIT;
		char *label, *rest;

		for (size_t k = 0; k < nr; k++)
			found[k] = find_case(sorted[k], runs[k].nr_cases, bc->id);
		case_metrics(found, nr, &metrics);
		split_axes(bc, &label, &rest);
		for (size_t j = 0; j < metrics.nr; j++) {
			struct cmp_block *b = find_block(c, bc->scenario, metrics.v[j], rest);

			if (!b) {
				new_block(c, found, nr, metrics.v[j], rest, metrics.nr);
				b = &c->blocks[c->nr_blocks - 1];
			}
			add_row(c, b, label, bc->id, found);
			nr_tests += nr - 1;
		}
		free(label);
		free(rest);
		strvec_clear(&metrics);
	}
	/* one family for Benjamini-Hochberg: every row of every table */
	p = xcalloc(nr_tests + 1, sizeof(*p));
	q = xcalloc(nr_tests + 1, sizeof(*q));
	bp = xcalloc(nr_tests + 1, sizeof(*bp));
	bq = xcalloc(nr_tests + 1, sizeof(*bq));
	for (size_t i = 0; i < c->nr_blocks; i++)
		for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
			for (size_t k = 0; k + 1 < nr; k++, at++) {
				p[at] = c->blocks[i].rows[r].tests[k].t.p;
				bp[at] = c->blocks[i].rows[r].tests[k].bf.p;
			}
	stats_bh(p, nr_tests, q);
	stats_bh(bp, nr_tests, bq);
	at = 0;
	for (size_t i = 0; i < c->nr_blocks; i++)
		for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
			for (size_t k = 0; k + 1 < nr; k++, at++) {
				struct cmp_row *row = &c->blocks[i].rows[r];
				struct cmp_test *t = &row->tests[k];

				t->q = q[at];
				t->bf_q = bq[at];
				decide(t, &c->blocks[i], &row->cells[0], &row->cells[k + 1]);
				c->count[t->verdict]++;
			}
	free(p);
	free(q);
	free(bp);
	free(bq);
	for (size_t k = 0; k < nr; k++)
		free(sorted[k]);
	free(sorted);
	free(found);
}

void comparison_release(struct comparison *c)
{
	for (size_t i = 0; i < c->nr_blocks; i++) {
		struct cmp_block *b = &c->blocks[i];

		for (size_t r = 0; r < b->nr_rows; r++) {
			free(b->rows[r].label);
			free(b->rows[r].cells);
			free(b->rows[r].tests);
		}
		free(b->rows);
		free(b->title);
		free(b->scenario);
		free(b->metric);
		free(b->axes);
		free(b->unit);
	}
	free(c->blocks);
	memset(c, 0, sizeof(*c));
}

int comparison_exit_code(const struct comparison *c)
{
	return c->count[CMP_REGRESSED] || c->bad_cases ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
}

/* ---- text: the seeds' tables, counters and a summary ---- */

#define TEXT_WIDTH 80
#define CELL_WIDTH 20	/* "1.00 [ -0.00]( 2.10)" */
#define NAME_NARROW 14
static const char bar_eq[] = "==================================================================";
static const char bar_dash[] = "------------------------------------------------------------------";

struct layout {
	size_t labw;		/* row labels are right-aligned in this width */
	size_t gap;		/* spaces before each cell */
	size_t namemax;		/* column names are cut to this */
	size_t first, nr;	/* the test runs shown: runs[first .. first + nr - 1] */
	int marks;
};

static size_t col_run(const struct layout *l, size_t k)
{
	return k ? l->first + k - 1 : 0;
}

/* Ends a line without trailing blanks: mail clients and diff both care. */
static void end_line(struct strbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
	strbuf_addch(sb, '\n');
}

static void pad(struct strbuf *sb, size_t n)
{
	while (n--)
		strbuf_addch(sb, ' ');
}

static void col_name(const struct comparison *c, const struct layout *l, size_t k, struct strbuf *sb)
{
	const char *name = c->runs[col_run(l, k)].label;
	size_t n = strlen(name);

	if (n <= l->namemax)
		strbuf_addstr(sb, name);
	else
		strbuf_addf(sb, "%.*s~", (int)l->namemax - 1, name);
}

/*
 * As in seed 000: "Case:" in the label column, then each column's
 * "name[pct imp](CV)" over its cells, seven blanks after the label and at
 * least two after the previous header.
 */
static void table_header(struct strbuf *out, const struct comparison *c, const struct layout *l)
{
	size_t cursor = l->labw, pitch = l->gap + CELL_WIDTH;

	strbuf_addf(out, "%-*s", (int)l->labw, "Case:");
	for (size_t k = 0; k <= l->nr; k++) {
		size_t cell = l->labw + k * pitch + l->gap;
		size_t least = k ? cursor + 2 : l->labw + 7;
		size_t at = cell > least ? cell : least, before;

		pad(out, at - cursor);
		before = out->len;
		col_name(c, l, k, out);
		strbuf_addstr(out, "[pct imp](CV)");
		cursor = at + (out->len - before);
	}
	end_line(out);
}

static void add_cell(struct strbuf *out, const struct cmp_cell *cell)
{
	if (!cell->m)
		strbuf_addstr(out, "   - [     -](    -)");
	else
		strbuf_addf(out, "%4.2f [%6.2f](%5.2f)", cell->norm, cell->pct_imp, cell->cv_pct);
}

static void table_row(struct strbuf *out, const struct cmp_row *row, const struct layout *l)
{
	strbuf_addf(out, "%*s", (int)l->labw, row->label);
	for (size_t k = 0; k <= l->nr; k++) {
		pad(out, l->gap);
		add_cell(out, &row->cells[col_run(l, k)]);
	}
	if (l->marks) {
		strbuf_addstr(out, "  ");
		for (size_t k = 1; k <= l->nr; k++)
			strbuf_addch(out, cmp_verdict_mark(row->tests[col_run(l, k) - 1].verdict));
	}
	end_line(out);
}

static size_t longest_line(const char *s)
{
	size_t best = 0;

	while (*s) {
		size_t n = strcspn(s, "\n");

		if (n > best)
			best = n;
		s += n + (s[n] == '\n');
	}
	return best;
}

static const char *unit_words(const char *unit)
{
	return !strcmp(unit, "s") ? "seconds" : unit;
}

static void block_header(struct strbuf *out, const struct cmp_block *b)
{
	strbuf_addf(out, "%s\n", bar_eq);
	strbuf_addf(out, "Test          : %s\n", b->title);
	strbuf_addf(out, "Units         : Normalized %s%s%s\n", b->metric, *b->unit ? " in " : "",
		    unit_words(b->unit));
	strbuf_addf(out, "Interpretation: %s is better\n", b->higher_better ? "Higher" : "Lower");
	strbuf_addf(out, "Statistic     : %s\n", stats_statistic_title(b->stat));
	strbuf_addf(out, "%s\n", bar_eq);
}

static void block_table(struct strbuf *out, const struct comparison *c, const struct cmp_block *b,
			const struct layout *l)
{
	table_header(out, c, l);
	for (size_t r = 0; r < b->nr_rows; r++)
		table_row(out, &b->rows[r], l);
}

static size_t block_labw(const struct cmp_block *b)
{
	size_t w = 9; /* "16-groups", as in seed 000 */

	for (size_t r = 0; r < b->nr_rows; r++)
		if (strlen(b->rows[r].label) > w)
			w = strlen(b->rows[r].label);
	return w;
}

/* ---- counters ---- */

struct ctr_line {
	char name[96];
	int level;
	const char *key;
	double *v;	/* per run, NAN when that run has no such counter */
};

static void counter_display(const struct comparison *c, int level, const char *key, char *buf,
			    size_t size)
{
	const struct cmp_run *b = &c->runs[0];

	if (level < 0)
		snprintf(buf, size, "%s", key);
	else if ((size_t)level < b->nr_domain_names)
		snprintf(buf, size, "%s %s", b->domain_names[level], key);
	else
		snprintf(buf, size, "domain%d %s", level, key);
}

/* The counters of one case across the runs, in the order first seen. */
static size_t case_counters(const struct comparison *c, const struct cmp_case **found,
			    struct ctr_line **out)
{
	struct ctr_line *lines = NULL;
	size_t nr = 0;

	for (size_t k = 0; k < c->nr_runs; k++) {
		for (size_t i = 0; found[k] && i < found[k]->nr_counters; i++) {
			const struct cmp_counter *ct = &found[k]->counters[i];
			size_t j;

			for (j = 0; j < nr; j++)
				if (lines[j].level == ct->level && !strcmp(lines[j].key, ct->name))
					break;
			if (j == nr) {
				lines = xrealloc(lines, (nr + 1) * sizeof(*lines));
				lines[nr].level = ct->level;
				lines[nr].key = ct->name;
				counter_display(c, ct->level, ct->name, lines[nr].name, sizeof(lines[nr].name));
				lines[nr].v = xmalloc(c->nr_runs * sizeof(double));
				for (size_t x = 0; x < c->nr_runs; x++)
					lines[nr].v[x] = NAN;
				nr++;
			}
			lines[j].v[k] = ct->value;
		}
	}
	*out = lines;
	return nr;
}

static void free_counters(struct ctr_line *lines, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(lines[i].v);
	free(lines);
}

static void format_count(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else if (v == floor(v) || fabs(v) >= 1e6)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.1f", v);
}

static void format_change(char *buf, size_t size, double base, double v)
{
	if (isnan(base) || isnan(v) || (base == 0 && v == 0))
		buf[0] = '\0';
	else if (base == 0)
		snprintf(buf, size, "(new)");
	else
		snprintf(buf, size, "(%+.1f%%)", 100 * (v - base) / fabs(base));
}

static int line_shown(const struct ctr_line *ln, size_t nr_runs)
{
	for (size_t k = 0; k < nr_runs; k++)
		if (!isnan(ln->v[k]) && ln->v[k] != 0)
			return 1;
	return 0;
}

/* The cases of one scenario, as the baseline orders them. */
static size_t scenario_cases(const struct comparison *c, const char *scenario,
			     const struct cmp_case ***out)
{
	const struct cmp_case **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->runs[0].nr_cases; i++)
		if (!strcmp(c->runs[0].cases[i].scenario, scenario)) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = &c->runs[0].cases[i];
		}
	*out = v;
	return n;
}

static void find_all(const struct comparison *c, const char *id, const struct cmp_case **found)
{
	for (size_t k = 0; k < c->nr_runs; k++) {
		found[k] = NULL;
		for (size_t i = 0; i < c->runs[k].nr_cases; i++)
			if (!strcmp(c->runs[k].cases[i].id, id)) {
				found[k] = &c->runs[k].cases[i];
				break;
			}
	}
}

/* The case id without its scenario: "groups=4,mode=thread". */
static const char *case_axes(const struct cmp_case *cs)
{
	const char *slash = strchr(cs->id, '/');

	return slash && slash[1] ? slash + 1 : cs->workload;
}

#define CHANGE_WIDTH 9	/* "(-100.0%)" */

static void counter_block(struct strbuf *out, const struct comparison *c, const char *scenario,
			  const struct layout *l)
{
	const struct cmp_case **cases, **found = xcalloc(c->nr_runs, sizeof(*found));
	size_t nr = scenario_cases(c, scenario, &cases), namew = 14, valw = 8, shown = 0;
	struct strbuf body = STRBUF_INIT;

	for (size_t k = 0; k <= l->nr; k++) {
		struct strbuf n = STRBUF_INIT;

		col_name(c, l, k, &n);
		if (n.len > valw)
			valw = n.len;
		strbuf_release(&n);
	}
	for (size_t i = 0; i < nr; i++) {
		struct ctr_line *lines;
		size_t nl;

		find_all(c, cases[i]->id, found);
		nl = case_counters(c, found, &lines);
		for (size_t j = 0; j < nl; j++)
			if (line_shown(&lines[j], c->nr_runs) && strlen(lines[j].name) > namew)
				namew = strlen(lines[j].name);
		free_counters(lines, nl);
	}
	for (size_t i = 0; i < nr; i++) {
		struct ctr_line *lines;
		size_t nl, before;

		find_all(c, cases[i]->id, found);
		nl = case_counters(c, found, &lines);
		before = body.len;
		strbuf_addf(&body, "%s\n", case_axes(cases[i]));
		for (size_t j = 0; j < nl; j++) {
			if (!line_shown(&lines[j], c->nr_runs))
				continue;
			strbuf_addf(&body, "  %-*s", (int)namew, lines[j].name);
			for (size_t k = 0; k <= l->nr; k++) {
				char num[40], chg[40];

				format_count(num, sizeof(num), lines[j].v[col_run(l, k)]);
				strbuf_addf(&body, " %*s", (int)valw, num);
				if (k) {
					format_change(chg, sizeof(chg), lines[j].v[0], lines[j].v[col_run(l, k)]);
					strbuf_addf(&body, " %-*s", CHANGE_WIDTH, chg);
				}
			}
			end_line(&body);
			shown++;
		}
		if (body.len - before == strlen(case_axes(cases[i])) + 1) {
			/* no counter of this case was ever non-zero */
			body.len = before;
			body.buf[before] = '\0';
		}
		free_counters(lines, nl);
	}
	if (shown) {
		strbuf_addf(out, "%s\n", bar_dash);
		strbuf_addf(out, "Counters      : %s\n", scenario);
		strbuf_addstr(out, "Counted       : tasks, fprof per measured run; "
			      "schedstat, vmstat over the case\n");
		strbuf_addf(out, "%s\n", bar_dash);
		strbuf_addf(out, "  %-*s", (int)namew, "");
		for (size_t k = 0; k <= l->nr; k++) {
			struct strbuf n = STRBUF_INIT;

			col_name(c, l, k, &n);
			strbuf_addf(out, " %*s", (int)valw, n.buf);
			if (k)
				pad(out, CHANGE_WIDTH + 1);
			strbuf_release(&n);
		}
		end_line(out);
		strbuf_add(out, body.buf, body.len);
		strbuf_addstr(out, "\n\n");
	}
	strbuf_release(&body);
	free(cases);
	free(found);
}

/* ---- summary ---- */

/* Appends text wrapped at `width`, continuation lines indented by `indent`. */
static void add_wrapped(struct strbuf *out, const char *text, size_t first, size_t indent,
			size_t width)
{
	size_t col = first;
	int at_start = 1;

	pad(out, first);
	while (*text) {
		size_t n;

		while (*text == ' ')
			text++;
		n = strcspn(text, " ");
		if (!n)
			break;
		if (!at_start && col + 1 + n > width) {
			strbuf_addch(out, '\n');
			pad(out, indent);
			col = indent;
			at_start = 1;
		}
		if (!at_start) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, text, n);
		col += n;
		text += n;
		at_start = 0;
	}
	strbuf_addch(out, '\n');
}

struct rowref {
	const struct cmp_block *b;
	const struct cmp_row *r;
	size_t k;	/* the test: r->tests[k], runs[k + 1] */
};

static const struct cmp_test *ref_test(const struct rowref *x)
{
	return &x->r->tests[x->k];
}

static const struct cmp_cell *ref_cell(const struct rowref *x)
{
	return &x->r->cells[x->k + 1];
}

static double ref_size(const struct rowref *x)
{
	double n = ref_cell(x)->norm;

	return isfinite(n) && n > 0 ? fabs(log(n)) : (isnan(n) ? -1 : INFINITY);
}

static int by_size(const void *a, const void *b)
{
	double x = ref_size(a), y = ref_size(b);

	return x > y ? -1 : x < y;
}

static int by_bf_q(const void *a, const void *b)
{
	double x = ref_test(a)->bf_q, y = ref_test(b)->bf_q;

	return x < y ? -1 : x > y;
}

static int by_more_runs(const void *a, const void *b)
{
	double x = ref_test(a)->more_runs, y = ref_test(b)->more_runs;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? -1 : x > y;
}

static size_t collect(const struct comparison *c, struct rowref **out,
		      int (*want)(const struct rowref *))
{
	struct rowref *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->nr_blocks; i++)
		for (size_t r = 0; r < c->blocks[i].nr_rows; r++)
			for (size_t k = 0; k + 1 < c->nr_runs; k++) {
				struct rowref x = { &c->blocks[i], &c->blocks[i].rows[r], k };

				if (want(&x)) {
					v = xrealloc(v, (n + 1) * sizeof(*v));
					v[n++] = x;
				}
			}
	*out = v;
	return n;
}

static int want_decided(const struct rowref *x)
{
	return ref_test(x)->verdict == CMP_IMPROVED || ref_test(x)->verdict == CMP_REGRESSED;
}

/* One run a side has no spread to weigh a difference against. */
static int want_data(const struct rowref *x)
{
	return ref_test(x)->verdict != CMP_NODATA && !isnan(ref_cell(x)->norm) &&
	       x->r->cells[0].m->n >= 2 && ref_cell(x)->m->n >= 2;
}

static int want_variance(const struct rowref *x)
{
	return ref_test(x)->bf_q < CMP_ALPHA;
}

static int want_undecided(const struct rowref *x)
{
	return ref_test(x)->verdict == CMP_UNDECIDED;
}

static void ref_name(const struct comparison *c, const struct rowref *x, struct strbuf *sb)
{
	strbuf_addf(sb, "%s %s", x->r->case_id, x->b->metric);
	if (c->nr_runs > 2)
		strbuf_addf(sb, " (%s)", c->runs[x->k + 1].label);
}

static void describe_change(const struct comparison *c, const struct rowref *x, struct strbuf *sb)
{
	const struct cmp_test *t = ref_test(x);
	const struct cmp_cell *cell = ref_cell(x);

	strbuf_addstr(sb, "- ");
	ref_name(c, x, sb);
	strbuf_addf(sb, ": %.2f%% %s, %s ratio %.3f", fabs(cell->pct_imp),
		    cell->pct_imp >= 0 ? "better" : "worse", stats_statistic_title(x->b->stat), cell->norm);
	if (!isnan(t->ci_lo))
		strbuf_addf(sb, " (95%% CI %.3f..%.3f)", t->ci_lo, t->ci_hi);
	strbuf_addf(sb, ", %s p=%.3g q=%.3g", t->method, t->t.p, t->q);
}

/* Counters of the case of x that moved by 10 % or more (and by 10 or more). */
static void moved_counters(const struct comparison *c, const struct rowref *x, struct strbuf *sb)
{
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));
	struct ctr_line *lines;
	size_t nl, shown = 0;
	double *chg;
	size_t *order;

	find_all(c, x->r->case_id, found);
	nl = case_counters(c, found, &lines);
	chg = xcalloc(nl + 1, sizeof(*chg));
	order = xcalloc(nl + 1, sizeof(*order));
	for (size_t j = 0; j < nl; j++) {
		double b = lines[j].v[0], t = lines[j].v[x->k + 1];

		order[j] = j;
		chg[j] = 0;
		if (!isnan(b) && !isnan(t) && fmax(fabs(b), fabs(t)) >= 10 && b != t)
			chg[j] = b == 0 ? INFINITY : fabs(t - b) / fabs(b);
	}
	/* largest relative change first; nl is a few dozen at most */
	for (size_t i = 0; i < nl; i++)
		for (size_t j = i + 1; j < nl; j++)
			if (chg[order[j]] > chg[order[i]]) {
				size_t tmp = order[i];

				order[i] = order[j];
				order[j] = tmp;
			}
	for (size_t i = 0; i < nl && shown < 4; i++) {
		const struct ctr_line *ln = &lines[order[i]];
		char b[40], t[40], d[40];

		if (chg[order[i]] < 0.10)
			break;
		format_count(b, sizeof(b), ln->v[0]);
		format_count(t, sizeof(t), ln->v[x->k + 1]);
		format_change(d, sizeof(d), ln->v[0], ln->v[x->k + 1]);
		strbuf_addf(sb, "%s %s %s -> %s %s", shown ? "," : "", ln->name, b, t, d);
		shown++;
	}
	free(chg);
	free(order);
	free_counters(lines, nl);
	free(found);
}

static void summary(struct strbuf *out, const struct comparison *c)
{
	struct rowref *big, *var, *und, *any;
	size_t nbig = collect(c, &big, want_decided);
	size_t nvar = collect(c, &var, want_variance);
	size_t nund = collect(c, &und, want_undecided);
	size_t nany = collect(c, &any, want_data);
	struct strbuf sb = STRBUF_INIT;
	int any_counter = 0;

	strbuf_addstr(out, "Summary\n-------\n");
	for (size_t k = 1; k < c->nr_runs; k++) {
		unsigned cnt[5] = { 0 };
		size_t rows = 0;

		for (size_t i = 0; i < c->nr_blocks; i++)
			for (size_t r = 0; r < c->blocks[i].nr_rows; r++, rows++)
				cnt[c->blocks[i].rows[r].tests[k - 1].verdict]++;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s against %s: %zu row%s, %u improved, %u regressed, %u unchanged, %u undecided",
			    c->runs[k].label, c->runs[0].label, rows, rows == 1 ? "" : "s", cnt[CMP_IMPROVED],
			    cnt[CMP_REGRESSED], cnt[CMP_SAME], cnt[CMP_UNDECIDED]);
		if (cnt[CMP_NODATA])
			strbuf_addf(&sb, ", %u without data", cnt[CMP_NODATA]);
		strbuf_addstr(&sb, ".");
		add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
	}
	strbuf_addch(out, '\n');
	if (nbig) {
		qsort(big, nbig, sizeof(*big), by_size);
		strbuf_addstr(out, "Largest changes (q<0.05 and the 95% interval of the ratio excludes 1):\n");
		for (size_t i = 0; i < nbig && i < 5; i++) {
			strbuf_reset(&sb);
			describe_change(c, &big[i], &sb);
			add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
		}
		if (nbig > 5)
			strbuf_addf(out, "  ... and %zu more\n", nbig - 5);
	} else if (nany) {
		qsort(any, nany, sizeof(*any), by_size);
		strbuf_addstr(out, "No row changed beyond the noise. Largest differences, not significant:\n");
		for (size_t i = 0; i < nany && i < 3; i++) {
			strbuf_reset(&sb);
			describe_change(c, &any[i], &sb);
			add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
		}
	}
	strbuf_addch(out, '\n');
	if (nvar) {
		qsort(var, nvar, sizeof(*var), by_bf_q);
		strbuf_addstr(out, "Variance changed (Brown-Forsythe q<0.05):\n");
		for (size_t i = 0; i < nvar && i < 5; i++) {
			strbuf_reset(&sb);
			strbuf_addstr(&sb, "- ");
			ref_name(c, &var[i], &sb);
			strbuf_addf(&sb, ": CV %.2f%% -> %.2f%% (F=%.3g, q=%.3g)", var[i].r->cells[0].cv_pct,
				    ref_cell(&var[i])->cv_pct, ref_test(&var[i])->bf.stat,
				    ref_test(&var[i])->bf_q);
			add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
		}
		if (nvar > 5)
			strbuf_addf(out, "  ... and %zu more\n", nvar - 5);
	} else {
		strbuf_addstr(out, "No row's variance changed significantly (Brown-Forsythe, q<0.05).\n");
	}
	strbuf_addch(out, '\n');
	if (nbig || nvar) {
		struct strvec seen = STRVEC_INIT;

		for (size_t pass = 0; pass < 2; pass++) {
			const struct rowref *v = pass ? var : big;
			size_t n = pass ? (nvar < 5 ? nvar : 5) : (nbig < 5 ? nbig : 5);

			for (size_t i = 0; i < n; i++) {
				char *key = xasprintf("%s\n%zu", v[i].r->case_id, v[i].k);
				struct strbuf moved = STRBUF_INIT;
				size_t j;

				for (j = 0; j < seen.nr && strcmp(seen.v[j], key); j++)
					;
				if (j < seen.nr) {
					free(key);
					continue;
				}
				strvec_push(&seen, key);
				free(key);
				moved_counters(c, &v[i], &moved);
				if (!moved.len) {
					strbuf_release(&moved);
					continue;
				}
				if (!any_counter++)
					strbuf_addstr(out, "Counters that moved with them (10% or more):\n");
				strbuf_reset(&sb);
				strbuf_addf(&sb, "- %s", v[i].r->case_id);
				if (c->nr_runs > 2)
					strbuf_addf(&sb, " (%s)", c->runs[v[i].k + 1].label);
				strbuf_addf(&sb, ":%s", moved.buf);
				add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
				strbuf_release(&moved);
			}
		}
		if (!any_counter)
			strbuf_addstr(out, "No counter of those cases moved by 10% or more.\n");
		strbuf_addch(out, '\n');
		strvec_clear(&seen);
	}
	if (nund) {
		qsort(und, nund, sizeof(*und), by_more_runs);
		strbuf_addf(out, "%zu row%s undecided (too noisy for a verdict either way):\n", nund,
			    nund == 1 ? "" : "s");
		for (size_t i = 0; i < nund && i < 5; i++) {
			const struct cmp_test *t = ref_test(&und[i]);
			const struct cmp_cell *base = &und[i].r->cells[0], *test = ref_cell(&und[i]);
			size_t have = base->m->n < test->m->n ? base->m->n : test->m->n;

			strbuf_reset(&sb);
			strbuf_addstr(&sb, "- ");
			ref_name(c, &und[i], &sb);
			if (have < 2)
				strbuf_addf(&sb, ": %zu run%s per side; at least %.0f more per side before any test",
					    have, have == 1 ? "" : "s", t->more_runs);
			else if (isnan(t->more_runs))
				strbuf_addstr(&sb, ": more runs would not decide this row");
			else
				strbuf_addf(&sb, ": about %.0f more run%s per side would decide this row",
					    t->more_runs, t->more_runs == 1 ? "" : "s");
			add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
		}
		if (nund > 5)
			strbuf_addf(out, "  ... and %zu more (see --json)\n", nund - 5);
		strbuf_addch(out, '\n');
	}
	for (int skipped = 0; skipped < 2; skipped++) {
		size_t listed = 0;

		for (size_t k = 0; k < c->nr_runs; k++)
			for (size_t i = 0; i < c->runs[k].nr_cases; i++) {
				const struct cmp_case *cs = &c->runs[k].cases[i];

				if (!strcmp(cs->verdict, "PASS") || (!strcmp(cs->verdict, "SKIP")) != skipped)
					continue;
				if (!listed++)
					strbuf_addstr(out, skipped ? "Skipped:\n" : "Cases that did not pass:\n");
				if (listed > 10)
					continue;
				strbuf_reset(&sb);
				strbuf_addf(&sb, "- %s in %s: %s%s%s%s", cs->id, c->runs[k].label, cs->verdict,
					    *cs->reason ? " (" : "", cs->reason, *cs->reason ? ")" : "");
				add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
			}
		if (listed > 10)
			strbuf_addf(out, "  ... and %zu more\n", listed - 10);
		if (listed)
			strbuf_addch(out, '\n');
	}
	strbuf_release(&sb);
	free(big);
	free(var);
	free(und);
	free(any);
}

/* ---- putting the text together ---- */

static void preamble(struct strbuf *out, const struct comparison *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t pooled = 0;

	for (size_t k = 0; k < c->nr_runs; k++)
		pooled += c->runs[k].nr_pooled ? c->runs[k].nr_pooled : 1;
	if (pooled > c->nr_runs)
		strbuf_addf(&sb, "%zu sides (%zu runs pooled) of %s on '%s', baseline first:",
			    c->nr_runs, pooled, c->runs[0].what, c->runs[0].spec);
	else
		strbuf_addf(&sb, "%zu runs of %s on '%s', baseline first:", c->nr_runs, c->runs[0].what,
			    c->runs[0].spec);
	add_wrapped(out, sb.buf, 0, 2, TEXT_WIDTH - 2);
	for (size_t k = 0; k < c->nr_runs; k++) {
		const struct cmp_run *r = &c->runs[k];

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s: %s", r->label, r->name);
		if (strcmp(r->label, r->kernel))
			strbuf_addf(&sb, " (kernel %s)", r->kernel);
		add_wrapped(out, sb.buf, 2, 6, TEXT_WIDTH - 2);
	}
	strbuf_addch(out, '\n');
	strbuf_release(&sb);
}

static const char legend[] =
	"Marks: + better, - worse, = no change (95% CI of the ratio within +-2%),\n"
	"       ? undecided (noise), x no data; one per test column, q<0.05 (BH).\n";

/* How many test columns fit one table within 80 columns (at least one). */
static size_t fit_columns(const struct comparison *c, struct layout l, size_t ntests)
{
	for (size_t g = ntests; g > 1; g--) {
		struct strbuf sb = STRBUF_INIT;
		size_t w;

		l.first = 1;
		l.nr = g;
		table_header(&sb, c, &l);
		w = longest_line(sb.buf);
		strbuf_release(&sb);
		if (w <= TEXT_WIDTH && l.labw + (g + 1) * (l.gap + CELL_WIDTH) + (l.marks ? 2 + g : 0) <=
					       TEXT_WIDTH &&
		    2 + 24 + (g + 1) * (1 + NAME_NARROW) + g * (CHANGE_WIDTH + 1) <= TEXT_WIDTH)
			return g;
	}
	return 1;
}

void comparison_text(const struct comparison *c, unsigned flags, struct strbuf *out)
{
	int bare = !!(flags & CMP_TEXT_BARE), narrow = !!(flags & CMP_TEXT_NARROW);
	size_t ntests = c->nr_runs - 1, longest = 0;
	int legend_shown = 0;

	for (size_t k = 0; k < c->nr_runs; k++)
		if (strlen(c->runs[k].label) > longest)
			longest = strlen(c->runs[k].label);
	if (!bare)
		preamble(out, c);
	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];
		struct layout l = { .labw = block_labw(b), .marks = !bare };
		size_t group;

		/* seed 000's cells sit five blanks apart for names up to "allow_imb" */
		l.gap = 5 + (longest > 9 ? longest - 9 : 0);
		l.namemax = longest;
		group = ntests;
		if (narrow) {
			l.namemax = longest < NAME_NARROW ? longest : NAME_NARROW;
			/* as few blanks as keep "name[pct imp](CV)" over its cells */
			l.gap = l.namemax > 7 ? l.namemax - 5 : 2;
			group = fit_columns(c, l, ntests);
		}
		block_header(out, b);
		for (size_t f = 1; f <= ntests || (ntests == 0 && f == 1); f += group) {
			l.first = f;
			l.nr = ntests ? (f + group - 1 <= ntests ? group : ntests - f + 1) : 0;
			if (f > 1)
				strbuf_addch(out, '\n');
			block_table(out, c, b, &l);
			if (ntests == 0)
				break;
		}
		if (!bare && !legend_shown++)
			strbuf_addstr(out, legend);
		strbuf_addstr(out, "\n\n");
		/* a scenario's counters follow its last table */
		if (!bare && (i + 1 == c->nr_blocks || strcmp(c->blocks[i + 1].scenario, b->scenario)))
			for (size_t f = 1; f <= ntests; f += group) {
				l.first = f;
				l.nr = f + group - 1 <= ntests ? group : ntests - f + 1;
				counter_block(out, c, b->scenario, &l);
			}
	}
	if (!bare)
		summary(out, c);
}

/* ---- JSON ---- */

/* JSON has no NaN or infinity: those become null. */
static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *jcell(const struct cmp_run *run, const struct cmp_cell *cell)
{
	struct json_object *o = json_object_new_object(), *vals;

	json_object_object_add(o, "run", json_object_new_string(run->label));
	if (!cell->m) {
		json_object_object_add(o, "n", json_object_new_int(0));
		return o;
	}
	vals = json_object_new_array();
	for (size_t i = 0; i < cell->m->n; i++)
		json_object_array_add(vals, jnum(cell->m->values[i]));
	json_object_object_add(o, "n", json_object_new_int((int)cell->m->n));
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "statistic_value", jnum(cell->stat));
	json_object_object_add(o, "mean", jnum(stats_amean(cell->m->values, cell->m->n)));
	json_object_object_add(o, "stdev", jnum(stats_sd(cell->m->values, cell->m->n)));
	json_object_object_add(o, "cv_pct", jnum(cell->cv_pct));
	json_object_object_add(o, "normalized", jnum(cell->norm));
	json_object_object_add(o, "pct_imp", jnum(cell->pct_imp));
	return o;
}

static struct json_object *jtest(const struct cmp_test *t)
{
	struct json_object *o = json_object_new_object(), *ci = json_object_new_array(), *bf;

	json_object_object_add(o, "method", json_object_new_string(t->method));
	json_object_object_add(o, "statistic", jnum(t->t.stat));
	if (!isnan(t->t.df))
		json_object_object_add(o, "df", jnum(t->t.df));
	if (!isnan(t->t.z))
		json_object_object_add(o, "z", jnum(t->t.z));
	if (!strcmp(t->method, "mann-whitney"))
		json_object_object_add(o, "exact", json_object_new_boolean(t->t.exact));
	json_object_object_add(o, "p", jnum(t->t.p));
	json_object_object_add(o, "q", jnum(t->q));
	json_object_array_add(ci, jnum(t->ci_lo));
	json_object_array_add(ci, jnum(t->ci_hi));
	json_object_object_add(o, "ratio_ci95", ci);
	bf = json_object_new_object();
	json_object_object_add(bf, "F", jnum(t->bf.stat));
	json_object_object_add(bf, "df1", jnum(t->bf.df));
	json_object_object_add(bf, "df2", jnum(t->bf.df2));
	json_object_object_add(bf, "p", jnum(t->bf.p));
	json_object_object_add(bf, "q", jnum(t->bf_q));
	json_object_object_add(o, "brown_forsythe", bf);
	json_object_object_add(o, "more_runs_per_side", jnum(t->more_runs));
	json_object_object_add(o, "verdict", json_object_new_string(cmp_verdict_name(t->verdict)));
	return o;
}

struct json_object *comparison_json(const struct comparison *c)
{
	struct json_object *o = json_object_new_object(), *runs = json_object_new_array();
	struct json_object *settings = json_object_new_object(), *rows = json_object_new_array();
	struct json_object *counters = json_object_new_array(), *cases = json_object_new_array();
	struct json_object *sum = json_object_new_object();
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));

	for (size_t k = 0; k < c->nr_runs; k++) {
		const struct cmp_run *r = &c->runs[k];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "label", json_object_new_string(r->label));
		json_object_object_add(j, "run", json_object_new_string(r->name));
		json_object_object_add(j, "dir", json_object_new_string(r->dir));
		json_object_object_add(j, "kernel", json_object_new_string(r->kernel));
		json_object_object_add(j, "ran", json_object_new_string(r->what));
		json_object_object_add(j, "spec", json_object_new_string(r->spec));
		json_object_object_add(j, "spec_resolved", json_object_new_string(r->spec_resolved));
		json_object_object_add(j, "baseline", json_object_new_boolean(k == 0));
		json_object_array_add(runs, j);
	}
	json_object_object_add(o, "runs", runs);
	json_object_object_add(settings, "fdr", jnum(CMP_ALPHA));
	json_object_object_add(settings, "no_change_band", jnum(CMP_SAME_BAND));
	json_object_object_add(settings, "ci_level", jnum(0.95));
	json_object_object_add(settings, "bootstrap_resamples", json_object_new_int(CMP_RESAMPLES));
	json_object_object_add(settings, "bootstrap_seed", json_object_new_int64((int64_t)CMP_BOOT_SEED));
	json_object_object_add(settings, "mann_whitney_exact_max", json_object_new_int(STATS_MW_EXACT_MAX));
	json_object_object_add(o, "settings", settings);

	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];

		for (size_t r = 0; r < b->nr_rows; r++)
			for (size_t k = 0; k + 1 < c->nr_runs; k++) {
				const struct cmp_row *row = &b->rows[r];
				struct json_object *j = json_object_new_object();

				json_object_object_add(j, "test", json_object_new_string(b->title));
				json_object_object_add(j, "scenario", json_object_new_string(b->scenario));
				json_object_object_add(j, "case", json_object_new_string(row->case_id));
				json_object_object_add(j, "label", json_object_new_string(row->label));
				json_object_object_add(j, "metric", json_object_new_string(b->metric));
				json_object_object_add(j, "unit", json_object_new_string(b->unit));
				json_object_object_add(j, "better",
						       json_object_new_string(b->higher_better ? "higher" : "lower"));
				json_object_object_add(j, "statistic",
						       json_object_new_string(stats_statistic_title(b->stat)));
				json_object_object_add(j, "base", jcell(&c->runs[0], &row->cells[0]));
				json_object_object_add(j, "test", jcell(&c->runs[k + 1], &row->cells[k + 1]));
				json_object_object_add(j, "comparison", jtest(&row->tests[k]));
				json_object_object_add(j, "verdict",
						       json_object_new_string(cmp_verdict_name(row->tests[k].verdict)));
				json_object_array_add(rows, j);
			}
	}
	json_object_object_add(o, "rows", rows);

	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const struct cmp_case *bc = &c->runs[0].cases[i];
		struct json_object *jc = json_object_new_object(), *verdicts = json_object_new_array();
		struct json_object *list = json_object_new_array();
		struct ctr_line *lines;
		size_t nl;

		find_all(c, bc->id, found);
		for (size_t k = 0; k < c->nr_runs; k++) {
			struct json_object *v = json_object_new_object();

			json_object_object_add(v, "run", json_object_new_string(c->runs[k].label));
			json_object_object_add(v, "verdict",
					       json_object_new_string(found[k] ? found[k]->verdict : "MISSING"));
			json_object_object_add(v, "reason",
					       json_object_new_string(found[k] ? found[k]->reason : ""));
			json_object_array_add(verdicts, v);
		}
		json_object_object_add(jc, "case", json_object_new_string(bc->id));
		json_object_object_add(jc, "verdicts", verdicts);
		json_object_array_add(cases, jc);

		nl = case_counters(c, found, &lines);
		for (size_t j = 0; j < nl; j++) {
			struct json_object *e = json_object_new_object(), *vals = json_object_new_array();

			json_object_object_add(e, "name", json_object_new_string(lines[j].key));
			if (lines[j].level >= 0) {
				json_object_object_add(e, "level", json_object_new_int(lines[j].level));
				json_object_object_add(e, "domain", json_object_new_string(lines[j].name));
			}
			for (size_t k = 0; k < c->nr_runs; k++)
				json_object_array_add(vals, jnum(lines[j].v[k]));
			json_object_object_add(e, "values", vals);
			json_object_array_add(list, e);
		}
		free_counters(lines, nl);
		{
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "case", json_object_new_string(bc->id));
			json_object_object_add(e, "counters", list);
			json_object_array_add(counters, e);
		}
	}
	json_object_object_add(o, "counters", counters);
	json_object_object_add(o, "cases", cases);
	json_object_object_add(sum, "improvement", json_object_new_int((int)c->count[CMP_IMPROVED]));
	json_object_object_add(sum, "regression", json_object_new_int((int)c->count[CMP_REGRESSED]));
	json_object_object_add(sum, "no change", json_object_new_int((int)c->count[CMP_SAME]));
	json_object_object_add(sum, "undecided", json_object_new_int((int)c->count[CMP_UNDECIDED]));
	json_object_object_add(sum, "no data", json_object_new_int((int)c->count[CMP_NODATA]));
	json_object_object_add(sum, "cases_not_passed", json_object_new_int((int)c->bad_cases));
	json_object_object_add(o, "summary", sum);
	json_object_object_add(o, "exit_code", json_object_new_int(comparison_exit_code(c)));
	free(found);
	return o;
}

/* ---- JUnit ---- */

static void xml_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&apos;"); break;
		default:
			/* loaded strings are already free of control characters */
			strbuf_addch(sb, *s);
		}
	}
}

void comparison_junit(const struct comparison *c, struct strbuf *out)
{
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));
	struct strbuf body = STRBUF_INIT;
	size_t tests = 0, failures = 0, skipped = 0;

	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const struct cmp_case *bc = &c->runs[0].cases[i];
		struct strbuf why = STRBUF_INIT;
		size_t skips = 0;

		find_all(c, bc->id, found);
		for (size_t k = 0; k < c->nr_runs; k++) {
			if (!found[k])
				strbuf_addf(&why, "%smissing in %s", why.len ? "; " : "", c->runs[k].label);
			else if (!strcmp(found[k]->verdict, "SKIP"))
				skips++;
			else if (strcmp(found[k]->verdict, "PASS"))
				strbuf_addf(&why, "%s%s in %s: %s", why.len ? "; " : "", found[k]->verdict,
					    c->runs[k].label, found[k]->reason);
		}
		tests++;
		strbuf_addstr(&body, "    <testcase classname=\"");
		xml_escaped(&body, bc->scenario);
		strbuf_addstr(&body, "\" name=\"");
		xml_escaped(&body, bc->id);
		strbuf_addstr(&body, "\"");
		if (why.len) {
			failures++;
			strbuf_addstr(&body, ">\n      <failure message=\"");
			xml_escaped(&body, why.buf);
			strbuf_addstr(&body, "\"/>\n    </testcase>\n");
		} else if (skips == c->nr_runs) {
			skipped++;
			strbuf_addstr(&body, ">\n      <skipped message=\"");
			xml_escaped(&body, found[0]->reason);
			strbuf_addstr(&body, "\"/>\n    </testcase>\n");
		} else {
			strbuf_addstr(&body, "/>\n");
		}
		strbuf_release(&why);
	}
	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];

		for (size_t r = 0; r < b->nr_rows; r++)
			for (size_t k = 0; k + 1 < c->nr_runs; k++) {
				const struct cmp_test *t = &b->rows[r].tests[k];
				struct strbuf msg = STRBUF_INIT;

				if (t->verdict != CMP_REGRESSED)
					continue;
				tests++;
				failures++;
				strbuf_addstr(&body, "    <testcase classname=\"");
				xml_escaped(&body, b->scenario);
				strbuf_addstr(&body, ".regression\" name=\"");
				strbuf_addf(&msg, "%s %s: %s vs %s", b->rows[r].case_id, b->metric,
					    c->runs[k + 1].label, c->runs[0].label);
				xml_escaped(&body, msg.buf);
				strbuf_reset(&msg);
				strbuf_addf(&msg, "%.2f%% worse: %s ratio %.3f (95%% CI %.3f..%.3f), %s q=%.3g",
					    fabs(b->rows[r].cells[k + 1].pct_imp), stats_statistic_title(b->stat),
					    b->rows[r].cells[k + 1].norm, t->ci_lo, t->ci_hi, t->method, t->q);
				strbuf_addstr(&body, "\">\n      <failure message=\"");
				xml_escaped(&body, msg.buf);
				strbuf_addstr(&body, "\"/>\n    </testcase>\n");
				strbuf_release(&msg);
			}
	}
	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_addf(out, "<testsuites name=\"lab compare\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
		    tests, failures, skipped);
	strbuf_addstr(out, "  <testsuite name=\"");
	xml_escaped(out, c->runs[0].label);
	for (size_t k = 1; k < c->nr_runs; k++) {
		strbuf_addstr(out, k == 1 ? " vs " : ", ");
		xml_escaped(out, c->runs[k].label);
	}
	strbuf_addf(out, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", tests, failures, skipped);
	strbuf_add(out, body.buf, body.len);
	strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
	strbuf_release(&body);
	free(found);
}
