/* compare-load.c - bounded loading of run directories for `lab compare`:
 * run.json, cases.json and the domain names of guest-topology.json. */
#define _GNU_SOURCE
#include "report/compare.h"
#include "report/stats.h"
#include "common/plan.h"
#include "results/results.h"
#include "lib/json.h"
#include "results/runfiles.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A copy of at most max bytes of s that any output can carry: valid
 * UTF-8, no control character to move the terminal's cursor. */
static char *dup_clean(const char *s, size_t max)
{
	return utf8_clean(s, max);
}

static int is_number(struct json_object *o)
{
	return json_object_is_type(o, json_type_double) || json_object_is_type(o, json_type_int);
}

/* run.json's "sched_feat" (lab run --sched-feat) joined by ',', "" without. */
static char *sched_feat_of(struct json_object *o)
{
	struct json_object *a;
	struct strbuf sb = STRBUF_INIT;
	char *s;

	if (json_object_object_get_ex(o, "sched_feat", &a) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a) && i < 32; i++) {
			struct json_object *x = json_object_array_get_idx(a, i);

			if (json_object_is_type(x, json_type_string))
				strbuf_addf(&sb, "%s%.64s", sb.len ? "," : "", json_object_get_string(x));
		}
	s = dup_clean(sb.len ? sb.buf : "", 2048);
	strbuf_release(&sb);
	return s;
}

/* run.json's "sched_knob" (lab run --sched-knob) and "preempt" (--preempt)
 * as "base_slice_ns=3000000,preempt=full", "" without. */
static char *sched_knob_of(struct json_object *o)
{
	struct json_object *k;
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	char *s;
	int n = 0;

	if (json_object_object_get_ex(o, "sched_knob", &k) && json_object_is_type(k, json_type_object)) {
		json_object_object_foreach(k, key, v) {
			if (n++ >= 16)
				break;
			if (json_object_is_type(v, json_type_int))
				strbuf_addf(&sb, "%s%.64s=%lld", sb.len ? "," : "", key,
					    (long long)json_object_get_int64(v));
		}
	}
	if ((p = json_get_str(o, "preempt")) && *p)
		strbuf_addf(&sb, "%spreempt=%.16s", sb.len ? "," : "", p);
	s = dup_clean(sb.len ? sb.buf : "", 2048);
	strbuf_release(&sb);
	return s;
}

/* The columns' facts from run.json, cleaned for the terminal. */
static void run_from_info(struct cmp_run *run, const struct run_info *info)
{
	struct json_object *o = info->json;
	const char *s;

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
	{
		char *w = dup_clean(run->what, 512);

		free(run->what);
		run->what = w;
	}
	s = json_get_str(o, "smt");
	run->smt = dup_clean(s ? s : "", 8);
	run->sched_feat = sched_feat_of(o);
	run->sched_knob = sched_knob_of(o);
	free(run->arch);
	run->arch = dup_clean(info->arch, 16);
	/* runs from before the virtual clock existed ran on the wall clock */
	s = json_get_str(o, "clock");
	run->clock = xstrdup(s && !strcmp(s, "virtual") ? "virtual" : "wall");
	/* "QEMU emulator version 10.0.2 (Debian ...)": its major.minor */
	s = json_get_str(o, "qemu");
	{
		unsigned maj, min;
		const char *v = s ? strstr(s, "version ") : NULL;

		if (v && sscanf(v + 8, "%u.%u", &maj, &min) == 2)
			run->qemu_series = xasprintf("%u.%u", maj, min);
		else
			run->qemu_series = xstrdup("");
	}
	/* a label recorded at run time (lab ab) beats the kernel release,
	 * which names what a run booted with (SMT off, features, knobs, the
	 * preemption mode, as lab ab's variants do): one kernel, two columns */
	s = json_get_str(o, "label");
	free(run->label);
	if (!(s && *s)) {
		struct strbuf l = STRBUF_INIT;

		strbuf_addstr(&l, run->kernel);
		if (!strcmp(run->smt, "off"))
			strbuf_addstr(&l, "-smt-off");
		if (*run->sched_feat)
			strbuf_addf(&l, "-%s", run->sched_feat);
		if (*run->sched_knob)
			strbuf_addf(&l, "-%s", run->sched_knob);
		run->label = dup_clean(l.buf, 64);
		strbuf_release(&l);
	} else {
		run->label = dup_clean(s, 64);
	}
}

int cmp_run_json_parse(struct cmp_run *run, const char *text, size_t len, struct strbuf *err)
{
	struct run_info info = RUN_INFO_INIT;
	int ret = run_parse(&info, text, len, err);

	if (!ret)
		run_from_info(run, &info);
	run_info_release(&info);
	return ret;
}

double cmp_case_metric_mean(const struct cmp_case *c, const char *name)
{
	for (size_t i = 0; c && i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].name, name) && c->metrics[i].n)
			return stats_amean(c->metrics[i].values, c->metrics[i].n);
	return NAN;
}

void cmp_case_add_counter(struct cmp_case *c, const char *name, int level, double v)
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
			cmp_case_add_counter(c, name, -1, v);
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
				cmp_case_add_counter(c, task_counters[i].name, -1, v);
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
				cmp_case_add_counter(c, "lb_count", (int)level, lb);
				cmp_case_add_counter(c, "lb_failed", (int)level, failed);
			}
			if (!json_get_num(d, "ttwu_move_affine", &affine))
				cmp_case_add_counter(c, "ttwu_move_affine", (int)level, affine);
		}
	}
	if (json_object_object_get_ex(cs, "vmstat_delta", &t) && json_object_is_type(t, json_type_object))
		for (size_t i = 0; i < ARRAY_SIZE(vmstat_counters); i++) {
			int r = json_get_num(t, vmstat_counters[i].key, &v);

			if (r < 0)
				goto bad;
			if (!r)
				cmp_case_add_counter(c, vmstat_counters[i].name, -1, v);
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
			cmp_case_add_counter(c, key, -1, v);
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
	if (!better || (strcmp(better, "higher") && strcmp(better, "lower") && strcmp(better, "none"))) {
		strbuf_addf(err, "case '%.200s': metric '%s' says neither higher nor lower is better "
			    "(nor none)", c->id, name);
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
	/* "none": the change itself is shown, positive up */
	cm->no_direction = !strcmp(better, "none");
	cm->higher_better = cm->no_direction || !strcmp(better, "higher");
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
	if (json_object_object_get_ex(cs, "schedtrace", &ms) &&
	    json_object_is_type(ms, json_type_object) && (s = json_get_str(ms, "wakeups_from")) && *s)
		c->wakeups_from = dup_clean(s, 32);
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

static int cases_from_list(struct cmp_run *run, struct json_object *cases, struct strbuf *err)
{
	const struct cmp_case **sorted;
	size_t n;
	int ret = -1;

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
	sorted = cmp_cases_by_id(run);
	for (size_t i = 1; i < run->nr_cases; i++)
		if (!strcmp(sorted[i - 1]->id, sorted[i]->id)) {
			strbuf_addf(err, "cases.json lists case '%.200s' twice", sorted[i]->id);
			free(sorted);
			goto out;
		}
	free(sorted);
	ret = 0;
out:
	/* names in the message come from the file: keep it one printable line */
	for (size_t c = 0; c < err->len; c++)
		if ((unsigned char)err->buf[c] < 0x20)
			err->buf[c] = '?';
	return ret;
}

int cmp_cases_parse(struct cmp_run *run, const char *text, size_t len, struct strbuf *err)
{
	struct json_object *cases, *o = cases_parse(text, len, &cases, err);
	int ret;

	if (!o)
		return -1;
	ret = cases_from_list(run, cases, err);
	json_object_put(o);
	return ret;
}

/* The names of sched-features.json's "features" object: every scheduler
 * feature the run's kernel has, whatever its state. */
static char *parse_features(const char *text, size_t len)
{
	struct strbuf ignored = STRBUF_INIT, sb = STRBUF_INIT;
	struct json_object *o = json_read_object(text, len, CMP_MAX_FILE, "sched-features.json", &ignored), *f;

	strbuf_release(&ignored);
	if (o && json_object_object_get_ex(o, "features", &f) && json_object_is_type(f, json_type_object)) {
		json_object_object_foreach(f, name, v) {
			char *clean = dup_clean(name, 63);

			(void)v;
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "", clean);
			free(clean);
		}
	}
	json_object_put(o);
	return strbuf_detach(&sb);
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
	struct run_info info = RUN_INFO_INIT;
	struct json_object *doc, *cases;
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

	if (run_load(&info, run->dir, &missing, &sub) < 0) {
		if (missing)
			strbuf_addf(err, "'%s' is not a run directory: it has no run.json", run->dir);
		else if (!strncmp(sub.buf, "run.json", 8))
			strbuf_addf(err, "'%s': %s", run->dir, sub.buf);
		else
			strbuf_addstr(err, sub.buf);
		goto out;
	}
	run_from_info(run, &info);

	strbuf_reset(&sub);
	doc = cases_load(run->dir, &cases, &missing, &sub);
	if (!doc) {
		if (missing)
			strbuf_addf(err, "'%s' has no cases.json (a boot-only run, or rebuild it with 'lab report')",
				    run->dir);
		else if (!strncmp(sub.buf, "cases.json", 10))
			strbuf_addf(err, "'%s': %s", run->dir, sub.buf);
		else
			strbuf_addstr(err, sub.buf);
		goto out;
	}
	ret = cases_from_list(run, cases, &sub);
	json_object_put(doc);
	if (ret < 0) {
		strbuf_addf(err, "'%s': %s", run->dir, sub.buf);
		goto out;
	}

	path = xasprintf("%s/guest-topology.json", run->dir);
	strbuf_reset(&sub);
	text = json_read_bounded(path, CMP_MAX_FILE, &len, &missing, &sub);
	free(path);
	if (text)
		parse_domain_names(run, text, len);
	free(text);
	path = xasprintf("%s/sched-features.json", run->dir);
	text = json_read_bounded(path, CMP_MAX_FILE, &len, &missing, &sub);
	free(path);
	free(run->features);
	run->features = text ? parse_features(text, len) : xstrdup("");
	free(text);
	ret = 0;
out:
	run_info_release(&info);
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
	free(c->wakeups_from);
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
	free(run->sched_feat);
	free(run->features);
	free(run->sched_knob);
	free(run->arch);
	free(run->clock);
	free(run->qemu_series);
	memset(run, 0, sizeof(*run));
}

/* How a metric is judged, as the seeds' tables say it. */
static void metric_setting(const struct cmp_metric *m, struct strbuf *sb)
{
	strbuf_addf(sb, "%s %s", m->no_direction ? "without-direction" :
		    m->higher_better ? "higher-is-better" : "lower-is-better",
		    stats_statistic_title(m->stat));
}

/*
 * The same case must judge its metrics the same way in every run: a
 * scenario file edited between the runs (better=, statistic=) would
 * otherwise be compared under the baseline's rules without a word.
 */
static int metrics_check(const struct cmp_run *b, const struct cmp_case *cb, const struct cmp_run *t,
			 const struct cmp_case *ct, struct strbuf *err)
{
	for (size_t i = 0; i < cb->nr_metrics; i++) {
		const struct cmp_metric *mb = &cb->metrics[i];

		for (size_t j = 0; j < ct->nr_metrics; j++) {
			const struct cmp_metric *mt = &ct->metrics[j];
			struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

			if (strcmp(mb->name, mt->name) || !mb->declared || !mt->declared ||
			    (mb->higher_better == mt->higher_better &&
			     mb->no_direction == mt->no_direction && mb->stat == mt->stat))
				continue;
			metric_setting(mb, &x);
			metric_setting(mt, &y);
			/* decision rows lost their direction: a run recorded
			 * before says "higher" or "lower" until rebuilt */
			strbuf_addf(err, "runs differ: '%.200s' %.64s is %s in %s but %s in %s %s",
				    cb->id, mb->name, x.buf, b->name, y.buf, t->name,
				    mb->no_direction != mt->no_direction ?
				    "(one recorded before its direction changed? 'lab report RUN' "
				    "rebuilds a run's rows)" :
				    "(the scenario files changed between the runs?)");
			strbuf_release(&x);
			strbuf_release(&y);
			return -1;
		}
	}
	return 0;
}

int cmp_runs_check(const struct cmp_run *runs, size_t nr, struct strbuf *err)
{
	const struct cmp_run *b = &runs[0];
	const struct cmp_case **sb = cmp_cases_by_id(b);
	int ret = 0;

	for (size_t k = 1; k < nr && !ret; k++) {
		const struct cmp_run *t = &runs[k];
		const struct cmp_case **st;

		/* a virtual-time second is not a wall-clock one: never one table */
		if (b->clock && t->clock && strcmp(b->clock, t->clock)) {
			strbuf_addf(err, "cannot compare or pool runs on different clocks: %s ran in %s "
				    "time, %s in %s time (repeat one with --clock %s)", b->name,
				    b->clock, t->name, t->clock, b->clock);
			ret = -1;
			break;
		}
		/* virtual time counts instructions as a QEMU hands them out:
		 * 7.2's round robin and 10.0's give SMP guests other times */
		if (!strcmp(b->clock ? b->clock : "", "virtual") &&
		    !strcmp(t->clock ? t->clock : "", "virtual") && b->qemu_series &&
		    t->qemu_series && *b->qemu_series && *t->qemu_series &&
		    strcmp(b->qemu_series, t->qemu_series)) {
			strbuf_addf(err, "cannot compare or pool virtual-time runs of different QEMUs: %s "
				    "ran on QEMU %s, %s on %s (LAB_VIRTUAL_QEMU, docs/tcg.md)", b->name,
				    b->qemu_series, t->name, t->qemu_series);
			ret = -1;
			break;
		}
		if (strcmp(b->what, t->what) || strcmp(b->spec_resolved, t->spec_resolved)) {
			strbuf_addf(err, "runs differ: %s ran %s on '%s', %s ran %s on '%s'", b->name,
				    b->what, b->spec, t->name, t->what, t->spec);
			ret = -1;
			break;
		}
		st = cmp_cases_by_id(t);
		for (size_t i = 0, j = 0; i < b->nr_cases || j < t->nr_cases; i++, j++) {
			int c = i >= b->nr_cases ? 1 : j >= t->nr_cases ? -1 : strcmp(sb[i]->id, st[j]->id);

			if (c) {
				strbuf_addf(err, "runs differ: case '%.200s' is only in %s (the scenario files changed between the runs?)",
					    c < 0 ? sb[i]->id : st[j]->id, c < 0 ? b->name : t->name);
				ret = -1;
				break;
			}
			if (metrics_check(b, sb[i], t, st[j], err) < 0) {
				ret = -1;
				break;
			}
		}
		free(st);
	}
	free(sb);
	return ret;
}

