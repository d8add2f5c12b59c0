/* runreport.c - turns a run's raw records into per-case verdicts and
 * statistics (results.jsonl, cases.json); works offline on results/. */
#define _GNU_SOURCE
#include "results/runreport.h"
#include "results/console.h"
#include "results/fprof.h"
#include "common/plan.h"
#include "results/schedstat.h"
#include "results/schedtrace.h"
#include "topo/guestview.h"
#include "common/wire.h"
#include "lib/json.h"
#include "results/runfiles.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void metric_stats_compute(const double *values, unsigned n, struct metric_stats *st)
{
	double *sorted;
	double inv = 0;
	int hmean_ok = 1;

	memset(st, 0, sizeof(*st));
	st->n = n;
	if (!n)
		return;
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, values, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);
	st->mean = gsl_stats_mean(values, 1, n);
	st->stdev = n > 1 ? gsl_stats_sd_m(values, 1, n, st->mean) : 0;
	st->cv_pct = st->mean != 0 ? 100.0 * st->stdev / fabs(st->mean) : 0;
	st->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	st->min = sorted[0];
	st->max = sorted[n - 1];
	for (unsigned i = 0; i < n; i++) {
		if (values[i] <= 0)
			hmean_ok = 0;
		else
			inv += 1.0 / values[i];
	}
	/* the harmonic mean is only defined for positive rates (STREAM) */
	st->hmean = hmean_ok ? n / inv : 0;
	free(sorted);
}

/* ---- console segments ---- */

static const char case_marker[] = "schedlab: case ";

struct json_object *console_by_case(const char *text, size_t len)
{
	struct json_object *out = json_object_new_object();
	char current[PLAN_MAX_FIELD] = "";
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *m = memmem(p, n, case_marker, sizeof(case_marker) - 1);
		const char *pat = NULL;
		enum console_class c;

		if (m) {
			/* "schedlab: case <id> start|end" */
			const char *id = m + sizeof(case_marker) - 1;
			const char *stop = p + n;

			while (stop > id && (stop[-1] == '\r' || stop[-1] == ' '))
				stop--;
			if (stop - id > 6 && !memcmp(stop - 6, " start", 6)) {
				size_t idlen = (size_t)(stop - 6 - id);

				if (idlen >= sizeof(current))
					idlen = sizeof(current) - 1;
				memcpy(current, id, idlen);
				current[idlen] = '\0';
			} else if (stop - id > 4 && !memcmp(stop - 4, " end", 4)) {
				current[0] = '\0';
			}
		} else if (current[0] && (c = console_classify_line(p, n, &pat)) != CON_NONE) {
			struct json_object *e;
			char line[CONSOLE_MAX_LINE + 1];
			size_t ln = n < CONSOLE_MAX_LINE ? n : CONSOLE_MAX_LINE;

			memcpy(line, p, ln);
			while (ln && line[ln - 1] == '\r')
				ln--;
			line[ln] = '\0';
			if (!json_object_object_get_ex(out, current, &e)) {
				e = json_object_new_object();
				json_object_object_add(e, "splats", json_object_new_int(0));
				json_object_object_add(e, "crash", json_object_new_boolean(0));
				json_object_object_add(e, "first", json_object_new_string(line));
				json_object_object_add(out, current, e);
			}
			if (c == CON_SPLAT) {
				struct json_object *s;

				json_object_object_get_ex(e, "splats", &s);
				json_object_object_add(e, "splats", json_object_new_int(json_object_get_int(s) + 1));
			} else {
				json_object_object_add(e, "crash", json_object_new_boolean(1));
			}
		}
		p += n + 1;
	}
	return out;
}

/* ---- records ---- */

/* A long storm at a short period makes thousands of actions; the
 * timeline keeps the first ones and counts the rest. */
#define TIMELINE_MAX 4000

struct case_data {
	const struct plan_case *pc;
	struct json_object *runs;      /* array of result objects */
	struct json_object *timeline;  /* fault actions, in stream order */
	struct json_object *cpu_events; /* hot-added CPUs the runner onlined, and their view */
	struct json_object *fault_summaries, *invariants;
	struct json_object *host_actions; /* this case's lines of host-faults.jsonl */
	unsigned timeline_dropped;
	int driver_killed;
	int started, ended;
	double runner_cpu_s, measured_s; /* from case_end */
	uint64_t t_start_ns, t_end_ns;  /* the runner's clock at case_start, case_end */
	unsigned part;                 /* the part of the run it (last) started in */
	char *counters[2][2];          /* [before/after][schedstat/vmstat] */
	struct json_object *fprof;     /* the profile of the run whose result comes next */
	unsigned fprof_run;
	struct schedtrace_case trace;  /* the traced run whose result comes next */
	unsigned trace_lost_runs;      /* measured runs whose buffers lost events */
	/* the case's sched_ext scheduler as the runner saw it: scx_enabled's
	 * fields, scx_ejected's error, scx_stopped's status; NULL: none ran */
	struct json_object *scx;
};

struct collect {
	struct plan *plan;
	struct case_data *cases;
	FILE *jsonl;
	unsigned bad_json;
	unsigned bad_host_faults;      /* lines of host-faults.jsonl that are not actions */
	const char *dir;
	struct strbuf sysfs;           /* the snapshot: the topology of trace metrics */
	struct st_topo topo;
	char topo_err[256];
	int topo_done;
	struct schedtrace_formats formats;
	unsigned part;                 /* the part being read: 0, then each resume */
};

static struct case_data *find_case(struct collect *c, const char *id, size_t len)
{
	for (unsigned i = 0; i < c->plan->nr_cases; i++)
		if (strlen(c->cases[i].pc->id) == len && !memcmp(c->cases[i].pc->id, id, len))
			return &c->cases[i];
	return NULL;
}

/* The runner sends a measured run's profile right before its result. */
static void attach_fprof(struct case_data *cd, struct json_object *result)
{
	struct json_object *w, *r;

	if (!cd->fprof)
		return;
	if (json_object_object_get_ex(result, "warmup", &w) && !json_object_get_boolean(w) &&
	    json_object_object_get_ex(result, "run", &r) &&
	    json_object_get_int(r) == (int)cd->fprof_run)
		json_object_object_add(result, "fprof", cd->fprof);
	else
		json_object_put(cd->fprof);
	cd->fprof = NULL;
}

/* "run<N>" and the runner's profile text; an unreadable record still
 * reaches the results, as the reason the profile is missing. */
static void on_fprof(struct case_data *cd, const char *phase, size_t plen, const char *text,
		     size_t len)
{
	struct fprof_result *r = xcalloc(1, sizeof(*r));
	char err[256], num[12];
	unsigned run;

	if (plen < 4 || plen - 3 >= sizeof(num) || strncmp(phase, "run", 3))
		goto out;
	memcpy(num, phase + 3, plen - 3);
	num[plen - 3] = '\0';
	if (parse_uint(num, 0, 1000000, &run))
		goto out;
	json_object_put(cd->fprof);
	cd->fprof_run = run;
	if (fprof_parse(text, len, r, err, sizeof(err)) < 0) {
		cd->fprof = json_object_new_object();
		json_object_object_add(cd->fprof, "absent",
				       json_object_new_string_len(err, (int)strlen(err)));
		json_object_object_add(cd->fprof, "unreadable", json_object_new_boolean(1));
	} else {
		cd->fprof = fprof_run_json(r);
	}
out:
	free(r);
}

/* The verified topology, built from the snapshot at the first traced run. */
static const struct st_topo *trace_topo(struct collect *c)
{
	if (!c->topo_done) {
		struct strbuf err = STRBUF_INIT;
		struct json_object *view;

		c->topo_done = 1;
		view = guest_view_from_sysfs(c->sysfs.buf, c->sysfs.len, &err);
		if (!view)
			snprintf(c->topo_err, sizeof(c->topo_err), "no topology snapshot: %s", err.buf);
		else
			st_topo_from_guest_view(view, &c->topo, c->topo_err, sizeof(c->topo_err));
		json_object_put(view);
		strbuf_release(&err);
	}
	return &c->topo;
}

/* A traced case's measured run: its pages come right before its result. */
static void attach_trace(struct collect *c, struct case_data *cd, struct json_object *result)
{
	struct json_object *w, *r, *st, *x;

	if (!(cd->pc->counters & PLAN_CNT_SCHEDTRACE) ||
	    (json_object_object_get_ex(result, "warmup", &w) && json_object_get_boolean(w)) ||
	    !json_object_object_get_ex(result, "run", &r))
		return;
	schedtrace_finish_run(&cd->trace, &c->formats, trace_topo(c), c->topo_err, c->dir,
			      cd->pc->id, (unsigned)json_object_get_int(r),
			      cd->pc->wc_grace_set ? cd->pc->wc_grace_ms * 1000000ull :
						     ST_WC_GRACE_DEFAULT_NS,
			      result);
	if (json_object_object_get_ex(result, "schedtrace", &st) &&
	    json_object_object_get_ex(st, "lost_events", &x) && json_object_get_int64(x) > 0)
		cd->trace_lost_runs++;
}

static void case_data_init(struct case_data *cd, const struct plan_case *pc)
{
	memset(cd, 0, sizeof(*cd));
	cd->pc = pc;
	cd->runs = json_object_new_array();
	cd->timeline = json_object_new_array();
	cd->cpu_events = json_object_new_array();
	cd->fault_summaries = json_object_new_array();
	cd->invariants = json_object_new_array();
	cd->host_actions = json_object_new_array();
	schedtrace_case_init(&cd->trace);
}

static void case_data_release(struct case_data *cd)
{
	json_object_put(cd->runs);
	json_object_put(cd->timeline);
	json_object_put(cd->cpu_events);
	json_object_put(cd->fault_summaries);
	json_object_put(cd->invariants);
	json_object_put(cd->host_actions);
	json_object_put(cd->fprof);
	json_object_put(cd->scx);
	schedtrace_case_release(&cd->trace);
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			free(cd->counters[a][b]);
}

static uint64_t event_ns(struct json_object *o)
{
	struct json_object *x;

	return json_object_object_get_ex(o, "t_ns", &x) ? (uint64_t)json_object_get_int64(x) : 0;
}

static int on_record(const struct wire_record *rec, void *ctx)
{
	struct collect *c = ctx;
	struct json_object *o, *v;
	struct case_data *cd;

	if (rec->type == WIRE_RESULT || rec->type == WIRE_EVENT) {
		o = json_read_object(rec->payload, rec->len, 0, "record", NULL);
		if (!o || !json_object_object_get_ex(o, "case", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    !(cd = find_case(c, json_object_get_string(v), strlen(json_object_get_string(v))))) {
			c->bad_json++;
			json_object_put(o);
			return 0;
		}
		if (rec->type == WIRE_RESULT) {
			attach_fprof(cd, o);
			attach_trace(c, cd, o);
			json_object_array_add(cd->runs, o);
			return 0;
		}
		if (json_object_object_get_ex(o, "event", &v)) {
			const char *ev = json_object_get_string(v);

			if (!strcmp(ev, "fault")) {
				if (json_object_array_length(cd->timeline) < TIMELINE_MAX) {
					json_object_object_del(o, "event");
					json_object_object_del(o, "case");
					json_object_array_add(cd->timeline, o);
					return 0;
				}
				cd->timeline_dropped++;
			} else if (!strcmp(ev, "fault_summary") || !strcmp(ev, "invariant")) {
				struct json_object *to = !strcmp(ev, "invariant") ? cd->invariants :
							 cd->fault_summaries;

				json_object_object_del(o, "event");
				json_object_object_del(o, "case");
				json_object_array_add(to, o);
				return 0;
			} else if (!strcmp(ev, "cpu_added") || !strcmp(ev, "cpu_view")) {
				if (json_object_array_length(cd->cpu_events) < TIMELINE_MAX) {
					json_object_object_del(o, "case");
					json_object_array_add(cd->cpu_events, o);
					return 0;
				}
			} else if (!strcmp(ev, "fault_driver_killed")) {
				cd->driver_killed = 1;
			} else if (!strncmp(ev, "scx_", 4)) {
				/* one object: enabled's fields, then "ejected" (the
				 * kernel's reason) and the stopped one's status */
				if (!cd->scx)
					cd->scx = json_object_new_object();
				json_object_object_foreach(o, k, val) {
					const char *key = k;

					if (!strcmp(k, "event") || !strcmp(k, "case"))
						continue;
					if (!strcmp(k, "error"))
						key = "ejected";
					else if (!strcmp(k, "t_ns"))
						key = !strcmp(ev, "scx_enabled") ? "t_enabled_ns" :
						      !strcmp(ev, "scx_ejected") ? "t_ejected_ns" :
						      "t_stopped_ns";
					json_object_object_add(cd->scx, key, json_object_get(val));
				}
			}
			if (!strcmp(ev, "case_start")) {
				/* a resumed run starts again the case a stopped or
				 * timed-out one left half done: the new start counts */
				if (cd->started) {
					const struct plan_case *pc = cd->pc;

					case_data_release(cd);
					case_data_init(cd, pc);
				}
				cd->started = 1;
				cd->part = c->part;
				cd->t_start_ns = event_ns(o);
			} else if (!strcmp(json_object_get_string(v), "case_end")) {
				struct json_object *x;

				cd->ended = 1;
				cd->t_end_ns = event_ns(o);
				if (json_object_object_get_ex(o, "runner_cpu_s", &x))
					cd->runner_cpu_s = json_object_get_double(x);
				if (json_object_object_get_ex(o, "measured_s", &x))
					cd->measured_s = json_object_get_double(x);
			}
		}
		json_object_put(o);
	} else if (rec->type == WIRE_SYSFS) {
		strbuf_add(&c->sysfs, rec->payload, rec->len);
	} else if (rec->type == WIRE_TRACE) {
		struct schedtrace_rec tr;

		if (schedtrace_split(rec->payload, rec->len, &tr) < 0)
			return 0;
		if (tr.kind_len == 6 && !memcmp(tr.kind, "format", 6))
			schedtrace_add_format(&c->formats, &tr);
		else if ((cd = find_case(c, tr.case_id, tr.case_len)))
			schedtrace_add(&cd->trace, &tr);
	} else if (rec->type == WIRE_COUNTERS) {
		const char *nl = memchr(rec->payload, '\n', rec->len);
		const char *t1, *t2;
		int phase, src;

		if (!nl)
			return 0;
		t1 = memchr(rec->payload, '\t', (size_t)(nl - rec->payload));
		t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(nl - t1 - 1)) : NULL;
		if (!t2 || !(cd = find_case(c, rec->payload, (size_t)(t1 - rec->payload))))
			return 0;
		if (nl - t2 - 1 == 5 && !memcmp(t2 + 1, "fprof", 5)) {
			on_fprof(cd, t1 + 1, (size_t)(t2 - t1 - 1), nl + 1,
				 rec->len - (size_t)(nl + 1 - rec->payload));
			return 0;
		}
		phase = !strncmp(t1 + 1, "after", 5);
		src = !strncmp(t2 + 1, "vmstat", 6);
		free(cd->counters[phase][src]);
		cd->counters[phase][src] = xmalloc(rec->len - (size_t)(nl + 1 - rec->payload) + 1);
		memcpy(cd->counters[phase][src], nl + 1, rec->len - (size_t)(nl + 1 - rec->payload));
		cd->counters[phase][src][rec->len - (size_t)(nl + 1 - rec->payload)] = '\0';
	}
	return 0;
}

static struct json_object *vmstat_delta(const char *before, const char *after)
{
	struct json_object *out = json_object_new_object();

	if (!before || !after)
		return out;
	for (const char *p = after; *p;) {
		char key[64];
		long long va, vb;
		int n = 0;

		if (sscanf(p, "%63s %lld%n", key, &va, &n) == 2 &&
		    (!strncmp(key, "numa_", 5) || !strncmp(key, "pgmigrate_", 10))) {
			const char *q = strstr(before, key);

			while (q && ((q != before && q[-1] != '\n') || q[strlen(key)] != ' '))
				q = strstr(q + 1, key);
			if (q && sscanf(q + strlen(key), " %lld", &vb) == 1)
				json_object_object_add(out, key, json_object_new_int64(va - vb));
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return out;
}

/* The statistic the scenario declared for a metric; NULL when the metric
 * is reported by the workload but not declared (informational). */
static const struct plan_metric *metric_declared(const struct plan_case *pc, const char *name)
{
	for (unsigned i = 0; i < pc->nr_metrics; i++)
		if (!strcmp(pc->metrics[i].name, name))
			return &pc->metrics[i];
	return NULL;
}

static struct json_object *metrics_summary(const struct case_data *cd)
{
	struct json_object *out = json_object_new_object();
	size_t nr = json_object_array_length(cd->runs);

	for (size_t i = 0; i < nr; i++) {
		struct json_object *run = json_object_array_get_idx(cd->runs, i), *ms, *w;

		if (!json_object_object_get_ex(run, "metrics", &ms) ||
		    (json_object_object_get_ex(run, "warmup", &w) && json_object_get_boolean(w)))
			continue;
		json_object_object_foreach(ms, name, m) {
			struct json_object *entry, *vals, *x;

			if (!json_object_object_get_ex(m, "value", &x))
				continue;
			if (!json_object_object_get_ex(out, name, &entry)) {
				const struct plan_metric *decl = metric_declared(cd->pc, name);
				struct json_object *u, *b;

				entry = json_object_new_object();
				/* the scenario's [metric] section says what the
				 * workload's record may not know (an exec pattern's
				 * direction): the declaration wins */
				if (decl && decl->unit[0])
					json_object_object_add(entry, "unit", json_object_new_string(decl->unit));
				else if (json_object_object_get_ex(m, "unit", &u))
					json_object_object_add(entry, "unit", json_object_get(u));
				if (decl)
					json_object_object_add(entry, "better", json_object_new_string(
						decl->higher_is_better ? "higher" : "lower"));
				else if (json_object_object_get_ex(m, "better", &b))
					json_object_object_add(entry, "better", json_object_get(b));
				{
					const char *stat = decl ? decl->statistic : NULL;
					struct json_object *own;

					/* the host's own metrics (sched trace) name their
					 * statistic: declared, so compare shows them */
					if (!stat && json_object_object_get_ex(m, "statistic", &own) &&
					    json_object_is_type(own, json_type_string))
						stat = json_object_get_string(own);

					json_object_object_add(entry, "statistic",
							       json_object_new_string(stat ? stat : "amean"));
					json_object_object_add(entry, "declared",
							       json_object_new_boolean(stat != NULL));
				}
				json_object_object_add(entry, "values", json_object_new_array());
				json_object_object_add(out, name, entry);
			}
			json_object_object_get_ex(entry, "values", &vals);
			json_object_array_add(vals, json_object_new_double(json_object_get_double(x)));
		}
	}
	json_object_object_foreach(out, name, entry) {
		struct json_object *vals;
		struct metric_stats st;
		double *v;
		size_t n;

		(void)name;
		json_object_object_get_ex(entry, "values", &vals);
		n = json_object_array_length(vals);
		v = xcalloc(n, sizeof(*v));
		for (size_t i = 0; i < n; i++)
			v[i] = json_object_get_double(json_object_array_get_idx(vals, i));
		metric_stats_compute(v, (unsigned)n, &st);
		free(v);
		json_object_object_add(entry, "n", json_object_new_int((int)st.n));
		json_object_object_add(entry, "mean", json_object_new_double(st.mean));
		json_object_object_add(entry, "stdev", json_object_new_double(st.stdev));
		json_object_object_add(entry, "cv_pct", json_object_new_double(st.cv_pct));
		json_object_object_add(entry, "median", json_object_new_double(st.median));
		json_object_object_add(entry, "hmean", json_object_new_double(st.hmean));
		json_object_object_add(entry, "min", json_object_new_double(st.min));
		json_object_object_add(entry, "max", json_object_new_double(st.max));
	}
	return out;
}

/* The mean per measured run of each number in the runs' `key` objects
 * ("tasks": the workload's task counters, "counters": its own). */
static struct json_object *runs_mean(const struct case_data *cd, const char *key)
{
	struct json_object *out = json_object_new_object();
	size_t nr = json_object_array_length(cd->runs);
	unsigned n = 0;

	for (size_t i = 0; i < nr; i++) {
		struct json_object *run = json_object_array_get_idx(cd->runs, i), *t, *w;

		if (!json_object_object_get_ex(run, key, &t) ||
		    !json_object_is_type(t, json_type_object) ||
		    (json_object_object_get_ex(run, "warmup", &w) && json_object_get_boolean(w)))
			continue;
		n++;
		json_object_object_foreach(t, k, v) {
			struct json_object *sum;
			double prev = 0;

			if (!json_object_is_type(v, json_type_int) &&
			    !json_object_is_type(v, json_type_double))
				continue;
			if (json_object_object_get_ex(out, k, &sum))
				prev = json_object_get_double(sum);
			json_object_object_add(out, k,
					       json_object_new_double(prev + json_object_get_double(v)));
		}
	}
	/* per run: the seeds quote migrations per benchmark run */
	json_object_object_foreach(out, k, v)
		json_object_object_add(out, k,
				       json_object_new_double(n ? json_object_get_double(v) / n : 0));
	return out;
}

/* The measured runs' profiles folded into one, or why there is none. */
static struct json_object *fprof_summary(const struct case_data *cd)
{
	struct json_object *runs = json_object_new_array(), *out;
	size_t nr = json_object_array_length(cd->runs);

	for (size_t i = 0; i < nr; i++) {
		struct json_object *run = json_object_array_get_idx(cd->runs, i), *f, *w;

		if ((json_object_object_get_ex(run, "warmup", &w) && json_object_get_boolean(w)) ||
		    !json_object_object_get_ex(run, "fprof", &f))
			continue;
		json_object_array_add(runs, json_object_get(f));
	}
	out = fprof_case_json(runs);
	json_object_put(runs);
	if (!out) {
		out = json_object_new_object();
		json_object_object_add(out, "absent",
				       json_object_new_string("no measured run sent a profile"));
	}
	return out;
}

static const char *jstr(struct json_object *o, const char *key, const char *dflt)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return dflt;
	return json_object_get_string(v);
}

static int jbool(struct json_object *o, const char *key, int dflt)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_boolean))
		return dflt;
	return json_object_get_boolean(v);
}

static int jint(struct json_object *o, const char *key, int dflt)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return dflt;
	return json_object_get_int(v);
}

/* ---- host faults ---- */

/* The actions of all (host_faults_parse()'s) that a verdict can read. */
static struct json_object *well_formed(struct json_object *all, unsigned *bad)
{
	struct json_object *out = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(all); i++) {
		struct json_object *o = json_object_array_get_idx(all, i);

		if (json_has(o, "fault", json_type_string) && json_has(o, "run", json_type_int) &&
		    json_has(o, "ok", json_type_boolean))
			json_object_array_add(out, json_object_get(o));
		else
			(*bad)++;
	}
	json_object_put(all);
	return out;
}

struct json_object *host_fault_actions(const char *text, size_t len, unsigned *bad)
{
	return well_formed(host_faults_parse(text, len, 0, bad, NULL), bad);
}

/*
 * The steps that put back what a host fault changed.  vcpu_remove's
 * "removed" (the guest ejected the vCPU in time) is not one: the host
 * asked, and a guest that is slow to eject under TCG is no failure of
 * the case; host-faults.jsonl shows it.
 */
static int is_undo_step(const char *action)
{
	return !strcmp(action, "cont") || !strcmp(action, "unthrottle");
}

int host_faults_failure(struct json_object *actions, const char *case_id, char *reason,
			size_t len)
{
	size_t n = json_object_array_length(actions);

	for (size_t i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(actions, i);
		const char *fault = jstr(a, "fault", "?"), *action = jstr(a, "action", "?");
		const char *why = jstr(a, "error", "no error given");
		int run = jint(a, "run", -1), worked = 0;

		if (strcmp(jstr(a, "case", ""), case_id) || jbool(a, "ok", 1))
			continue;
		if (is_undo_step(action)) {
			snprintf(reason, len, "host fault '%.100s' failed to finish ('%.20s') in run "
				 "%d: %.300s", fault, action, run, why);
			return 1;
		}
		for (size_t k = 0; k < n && !worked; k++) {
			struct json_object *b = json_object_array_get_idx(actions, k);

			worked = jbool(b, "ok", 0) && jint(b, "run", -2) == run &&
				 !strcmp(jstr(b, "case", ""), case_id) &&
				 !strcmp(jstr(b, "fault", ""), fault);
		}
		if (!worked) {
			snprintf(reason, len, "host fault '%.100s' never took effect in run %d: %.300s",
				 fault, run, why);
			return 1;
		}
	}
	return 0;
}

/*
 * Why the faults and invariants of a case make it FAIL, or 0: a broken
 * invariant (its evidence is in "invariants"), a fault that could not
 * start, never took effect or did not put the system back, a driver that
 * had to be killed, or a measured run whose reports are missing.
 */
static int faults_verdict(const struct case_data *cd, char *reason, size_t len)
{
	size_t nr_inv = json_object_array_length(cd->invariants);
	size_t nr_sum = json_object_array_length(cd->fault_summaries);
	size_t nr_runs = json_object_array_length(cd->runs);
	unsigned guest = 0;

	for (size_t i = 0; i < nr_inv; i++) {
		struct json_object *v = json_object_array_get_idx(cd->invariants, i);

		if (!jbool(v, "ok", 0)) {
			snprintf(reason, len, "invariant '%s' (%s) broken in run %d: %s",
				 jstr(v, "invariant", "?"), jstr(v, "kind", "?"), jint(v, "run", -1),
				 jstr(v, "summary", ""));
			return 1;
		}
	}
	for (size_t i = 0; i < nr_sum; i++) {
		struct json_object *f = json_object_array_get_idx(cd->fault_summaries, i);
		const char *name = jstr(f, "fault", "?"), *why = jstr(f, "first_error", "no error given");
		int actions = jint(f, "actions", 0), failed = jint(f, "failed", 0);

		if (!jbool(f, "started", 1)) {
			snprintf(reason, len, "fault '%s' could not start in run %d: %s", name,
				 jint(f, "run", -1), why);
			return 1;
		}
		if (!jbool(f, "restored", 0)) {
			snprintf(reason, len, "fault '%s' did not restore what it changed in run %d: %s",
				 name, jint(f, "run", -1), why);
			return 1;
		}
		if (actions && failed == actions) {
			snprintf(reason, len, "fault '%s' never took effect in run %d: %s", name,
				 jint(f, "run", -1), why);
			return 1;
		}
	}
	if (host_faults_failure(cd->host_actions, cd->pc->id, reason, len))
		return 1;
	if (cd->driver_killed) {
		snprintf(reason, len, "the fault driver did not finish restoring in time");
		return 1;
	}
	for (unsigned i = 0; i < cd->pc->nr_faults; i++)
		guest += cd->pc->faults[i].side == PLAN_SIDE_GUEST;
	if (!guest && !cd->pc->nr_invariants)
		return 0;
	/* every measured run that ran reported its faults and invariants */
	for (size_t i = 0; i < nr_runs; i++) {
		struct json_object *run = json_object_array_get_idx(cd->runs, i);
		int r = jint(run, "run", -1);
		unsigned inv = 0, sum = 0;

		if (jbool(run, "warmup", 0) || strcmp(jstr(run, "status", ""), "ok"))
			continue;
		for (size_t k = 0; k < nr_inv; k++)
			inv += jint(json_object_array_get_idx(cd->invariants, k), "run", -1) == r;
		for (size_t k = 0; k < nr_sum; k++)
			sum += jint(json_object_array_get_idx(cd->fault_summaries, k), "run", -1) == r;
		if (inv < cd->pc->nr_invariants || sum < guest) {
			snprintf(reason, len, "run %d reported %u of %u invariants and %u of %u fault "
				 "summaries", r, inv, cd->pc->nr_invariants, sum, guest);
			return 1;
		}
	}
	return 0;
}

static void set_verdict(struct json_object *o, const char *v, const char *reason)
{
	json_object_object_add(o, "verdict", json_object_new_string(v));
	json_object_object_add(o, "reason", json_object_new_string(reason));
}

/*
 * A traced case says why it has no decision metrics (SKIP-like: the
 * verdict stays, the reason and "schedtrace" say it) or that a buffer
 * overflowed; never a silent row of zeros.
 */
static void trace_note(struct case_data *cd, struct json_object *o, char *reason, size_t len)
{
	struct json_object *st, *why = NULL, *degraded = NULL;
	size_t nr = json_object_array_length(cd->runs), used = strlen(reason);
	const char *from = NULL;

	if (!(cd->pc->counters & PLAN_CNT_SCHEDTRACE))
		return;
	for (size_t i = 0; i < nr; i++) {
		struct json_object *run = json_object_array_get_idx(cd->runs, i), *x, *f;

		if (!json_object_object_get_ex(run, "schedtrace", &x))
			continue;
		if (!why)
			json_object_object_get_ex(x, "absent", &why);
		/* one boot, one set of formats: the first run's list says it */
		if (!degraded && json_object_object_get_ex(x, "degraded", &f) &&
		    json_object_is_type(f, json_type_array) && json_object_array_length(f))
			degraded = f;
		/* which event placed the wakeups: one for all runs, or "mixed" */
		if (json_object_object_get_ex(x, "wakeups_from", &f) &&
		    json_object_is_type(f, json_type_string))
			from = !from || !strcmp(from, json_object_get_string(f)) ?
			       json_object_get_string(f) : "mixed";
	}
	if (!why && cd->trace.absent[0])
		why = json_object_new_string(cd->trace.absent);
	else if (why)
		why = json_object_get(why);
	st = json_object_new_object();
	if (why) {
		json_object_object_add(st, "skip", json_object_get(why));
		snprintf(reason + used, len - used, "; no sched trace metrics: %.200s",
			 json_object_get_string(why));
	} else if (cd->trace_lost_runs && cd->pc && cd->pc->trace_run_mb) {
		/* a cap the scenario asked for: the flight recorder kept each end */
		snprintf(reason + used, len - used,
			 "; sched trace cut to the last %u MiB in %u run%s (trace_run_mb: the ring "
			 "buffers overwrote their oldest events, see trace_lost_events)",
			 cd->pc->trace_run_mb, cd->trace_lost_runs, cd->trace_lost_runs == 1 ? "" : "s");
	} else if (cd->trace_lost_runs) {
		snprintf(reason + used, len - used,
			 "; sched trace lost events in %u run%s (buffer overflowed, see trace_lost_events)",
			 cd->trace_lost_runs, cd->trace_lost_runs == 1 ? "" : "s");
	}
	if (!why && degraded) {
		size_t n = json_object_array_length(degraded);

		used = strlen(reason);
		snprintf(reason + used, len - used, "; sched trace degraded: %.240s%s",
			 json_object_get_string(json_object_array_get_idx(degraded, 0)),
			 n > 1 ? " (and more: schedtrace.degraded)" : "");
		json_object_object_add(st, "degraded", json_object_get(degraded));
	}
	json_object_object_add(st, "lost_runs", json_object_new_int((int)cd->trace_lost_runs));
	if (from)
		json_object_object_add(st, "wakeups_from", json_object_new_string(from));
	json_object_object_add(o, "schedtrace", st);
	json_object_put(why);
}

static struct json_object *case_summary(struct case_data *cd, struct json_object *console)
{
	struct json_object *o = json_object_new_object(), *con = NULL, *wc;
	size_t nr = json_object_array_length(cd->runs);
	const char *verdict = "PASS";
	char reason[600] = "";
	unsigned measured = 0;

	json_object_object_add(o, "case", json_object_new_string(cd->pc->id));
	json_object_object_add(o, "scenario", json_object_new_string(cd->pc->scenario));
	json_object_object_add(o, "workload", json_object_new_string(cd->pc->workload));
	json_object_object_add(o, "source", json_object_new_string(cd->pc->source));
	for (size_t i = 0; i < nr; i++) {
		struct json_object *run = json_object_array_get_idx(cd->runs, i), *st, *err, *w;
		const char *status;

		if (!json_object_object_get_ex(run, "status", &st))
			continue;
		status = json_object_get_string(st);
		json_object_object_get_ex(run, "error", &err);
		if (!strcmp(status, "skip")) {
			verdict = "SKIP";
			snprintf(reason, sizeof(reason), "%s", err ? json_object_get_string(err) : "skipped");
		} else if (!strcmp(status, "timeout") && strcmp(verdict, "FAIL")) {
			verdict = "HANG";
			snprintf(reason, sizeof(reason), "run %zu: %s", i, err ? json_object_get_string(err) : "");
		} else if (strcmp(status, "ok")) {
			verdict = "FAIL";
			snprintf(reason, sizeof(reason), "run %zu %s: %s", i, status,
				 err ? json_object_get_string(err) : "");
		} else if (!json_object_object_get_ex(run, "warmup", &w) || !json_object_get_boolean(w)) {
			measured++;
		}
	}
	if (console && json_object_object_get_ex(console, cd->pc->id, &con)) {
		struct json_object *crash, *first;

		json_object_object_get_ex(con, "crash", &crash);
		json_object_object_get_ex(con, "first", &first);
		verdict = json_object_get_boolean(crash) ? "CRASH" : "FAIL";
		snprintf(reason, sizeof(reason), "kernel %s during the case: %.500s",
			 json_object_get_boolean(crash) ? "crash" : "splat", json_object_get_string(first));
		json_object_object_add(o, "console", json_object_get(con));
	} else if (!cd->started) {
		verdict = "NOTRUN";
		snprintf(reason, sizeof(reason), "the guest stopped before this case");
	} else if (!cd->ended) {
		verdict = "HANG";
		snprintf(reason, sizeof(reason), "the case never finished (guest deadline)");
	} else if (!strcmp(verdict, "PASS")) {
		snprintf(reason, sizeof(reason), "%u measured run%s", measured, measured == 1 ? "" : "s");
		if (measured < cd->pc->runs) {
			verdict = "FAIL";
			snprintf(reason, sizeof(reason), "%u of %u runs reported", measured, cd->pc->runs);
		} else if (faults_verdict(cd, reason, sizeof(reason))) {
			verdict = "FAIL";
		}
	}
	trace_note(cd, o, reason, sizeof(reason));
	set_verdict(o, verdict, reason);
	if (cd->pc->nr_faults || cd->pc->nr_invariants) {
		json_object_object_add(o, "invariants", json_object_get(cd->invariants));
		json_object_object_add(o, "faults", json_object_get(cd->fault_summaries));
		json_object_object_add(o, "timeline", json_object_get(cd->timeline));
		if (json_object_array_length(cd->host_actions))
			json_object_object_add(o, "host_faults", json_object_get(cd->host_actions));
		if (json_object_array_length(cd->cpu_events))
			json_object_object_add(o, "cpu_events", json_object_get(cd->cpu_events));
		if (cd->timeline_dropped)
			json_object_object_add(o, "timeline_dropped",
					       json_object_new_int((int)cd->timeline_dropped));
	}
	if (cd->ended && cd->t_end_ns >= cd->t_start_ns && cd->t_start_ns)
		json_object_object_add(o, "duration_s",
				       json_object_new_double((double)(cd->t_end_ns - cd->t_start_ns) / 1e9));
	if (cd->measured_s > 0) {
		json_object_object_add(o, "runner_cpu_s", json_object_new_double(cd->runner_cpu_s));
		json_object_object_add(o, "measured_s", json_object_new_double(cd->measured_s));
		json_object_object_add(o, "runner_cpu_pct",
				       json_object_new_double(100.0 * cd->runner_cpu_s / cd->measured_s));
	}
	json_object_object_add(o, "scheduler", cd->scx ? json_object_get(cd->scx) : NULL);
	json_object_object_add(o, "metrics", metrics_summary(cd));
	json_object_object_add(o, "tasks", runs_mean(cd, "tasks"));
	wc = runs_mean(cd, "counters");
	if (json_object_object_length(wc))
		json_object_object_add(o, "workload_counters", wc);
	else
		json_object_put(wc);
	json_object_object_add(o, "vmstat_delta", vmstat_delta(cd->counters[0][1], cd->counters[1][1]));
	if (cd->pc->profile.nr_funcs)
		json_object_object_add(o, "fprof", fprof_summary(cd));
	if (cd->counters[0][0] && cd->counters[1][0]) {
		struct strbuf err = STRBUF_INIT;
		struct json_object *ss = schedstat_delta_json(cd->counters[0][0], cd->counters[1][0], &err);

		json_object_object_add(o, "schedstat", ss ? ss : json_object_new_string(err.buf));
		strbuf_release(&err);
	}
	return o;
}

/* Hands each host fault action to its case. */
static void sort_host_faults(struct collect *c, const char *dir)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *all = host_faults_load(dir, 0, &c->bad_host_faults, &err);

	strbuf_release(&err);
	if (!all)
		return;
	all = well_formed(all, &c->bad_host_faults);

	for (size_t i = 0; i < json_object_array_length(all); i++) {
		struct json_object *a = json_object_array_get_idx(all, i);
		const char *id = jstr(a, "case", "");

		for (unsigned k = 0; k < c->plan->nr_cases; k++)
			if (!strcmp(c->plan->cases[k].id, id)) {
				json_object_array_add(c->cases[k].host_actions, json_object_get(a));
				break;
			}
	}
	json_object_put(all);
}

/* The case a stop interrupted, from the part's stopped.json: a runner
 * that ends it itself (lab bare) still did not finish it. */
static char *stopped_during(const char *part)
{
	char *path = xasprintf("%s/" RUN_STOPPED_FILE, part), *id = NULL;
	struct strbuf err = STRBUF_INIT;
	struct json_object *o = json_read_file(path, RUN_STOPPED_FILE, 1u << 16, NULL, &err);
	const char *v = o ? json_get_str(o, "during") : NULL;

	if (v)
		id = xstrdup(v);
	if (o)
		json_object_put(o);
	strbuf_release(&err);
	free(path);
	return id;
}

/* The raw data of one part of a run: the run directory itself, then each
 * resume-<k>/ that `lab run --resume` added.  1 when the part was stopped. */
static int collect_part(struct collect *c, const char *part, struct json_object *console)
{
	struct wire_decoder d;
	char *path, *text;
	size_t len;
	int stopped;

	path = xasprintf("%s/records.bin", part);
	text = read_file(path, &len);
	free(path);
	wire_decoder_init(&d);
	if (text)
		wire_decoder_feed(&d, text, len, on_record, c);
	wire_decoder_finish(&d);
	wire_decoder_release(&d);
	free(text);

	/* a case started again here leaves its earlier console behind */
	for (unsigned i = 0; c->part && i < c->plan->nr_cases; i++)
		if (c->cases[i].started && c->cases[i].part == c->part)
			json_object_object_del(console, c->cases[i].pc->id);
	path = xasprintf("%s/console.log", part);
	text = read_file(path, &len);
	free(path);
	if (text) {
		struct json_object *found = console_by_case(text, len);

		json_object_object_foreach(found, id, v)
			json_object_object_add(console, id, json_object_get(v));
		json_object_put(found);
	}
	free(text);

	sort_host_faults(c, part);

	path = xasprintf("%s/" RUN_STOPPED_FILE, part);
	stopped = access(path, F_OK) == 0;
	free(path);
	return stopped;
}

int run_report_build(const char *dir, struct json_object **cases_out, struct strbuf *err)
{
	struct plan plan = { 0 };
	struct collect c = { 0 };
	struct json_object *cases, *console, *not_run = NULL;
	const char *stopped_in = NULL;
	char *path, *interrupted = NULL;
	int bad = 0, stopped;

	if (run_plan_load(dir, &plan, err) < 0) {
		plan_release(&plan);
		return -1;
	}
	c.plan = &plan;
	c.dir = dir;
	c.sysfs = (struct strbuf)STRBUF_INIT;
	c.cases = xcalloc(plan.nr_cases ? plan.nr_cases : 1, sizeof(*c.cases));
	for (unsigned i = 0; i < plan.nr_cases; i++)
		case_data_init(&c.cases[i], &plan.cases[i]);
	path = xasprintf("%s/results.jsonl", dir);
	c.jsonl = fopen(path, "w");
	free(path);
	if (!c.jsonl) {
		strbuf_addf(err, "cannot write results.jsonl in '%s'", dir);
		bad = -1;
		goto out;
	}
	console = json_object_new_object();
	stopped = collect_part(&c, dir, console);
	if (stopped)
		interrupted = stopped_during(dir);
	for (unsigned k = 1;; k++) {
		char *part = xasprintf("%s/" RUN_RESUME_PREFIX "%u", dir, k);
		int there = access(part, F_OK) == 0;

		c.part = k;
		if (there)
			stopped = collect_part(&c, part, console);
		if (there && stopped) {
			free(interrupted);
			interrupted = stopped_during(part);
		}
		free(part);
		if (!there)
			break;
	}

	/* a stopped run keeps what finished; the rest is named, not judged */
	cases = json_object_new_array();
	for (unsigned i = 0; i < plan.nr_cases; i++) {
		struct json_object *cs, *v;

		if (stopped && (!c.cases[i].ended ||
				(interrupted && !strcmp(interrupted, plan.cases[i].id)))) {
			if (!not_run)
				not_run = json_object_new_array();
			json_object_array_add(not_run, json_object_new_string(plan.cases[i].id));
			if (c.cases[i].started)
				stopped_in = plan.cases[i].id;
			continue;
		}
		for (size_t r = 0; r < json_object_array_length(c.cases[i].runs); r++)
			fprintf(c.jsonl, "%s\n", json_object_to_json_string_ext(
				json_object_array_get_idx(c.cases[i].runs, r), JSON_C_TO_STRING_PLAIN));
		cs = case_summary(&c.cases[i], console);
		json_object_object_get_ex(cs, "verdict", &v);
		if (strcmp(json_object_get_string(v), "PASS") && strcmp(json_object_get_string(v), "SKIP"))
			bad++;
		json_object_array_add(cases, cs);
	}
	fclose(c.jsonl);
	json_object_put(console);
	free(interrupted);
	{
		struct json_object *doc = json_object_new_object();
		char *p = xasprintf("%s/cases.json", dir);
		const char *s;

		json_object_object_add(doc, "cases", json_object_get(cases));
		if (stopped) {
			struct json_object *st = json_object_new_object();

			json_object_object_add(st, "during", stopped_in ?
					       json_object_new_string(stopped_in) : NULL);
			json_object_object_add(st, "not_run", not_run ? not_run : json_object_new_array());
			json_object_object_add(doc, "stopped", st);
		}
		if (c.bad_json)
			json_object_object_add(doc, "unparsable_records", json_object_new_int((int)c.bad_json));
		if (c.bad_host_faults)
			json_object_object_add(doc, "unparsable_host_faults",
					       json_object_new_int((int)c.bad_host_faults));
		s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
		write_file_atomic(p, s, strlen(s));
		free(p);
		json_object_put(doc);
	}
	*cases_out = cases;
out:
	for (unsigned i = 0; i < plan.nr_cases; i++)
		case_data_release(&c.cases[i]);
	free(c.cases);
	strbuf_release(&c.sysfs);
	st_topo_release(&c.topo);
	schedtrace_formats_release(&c.formats);
	plan_release(&plan);
	return bad;
}

static void print_fprof(struct json_object *cs)
{
	struct json_object *fp, *fs, *v;
	const char *per = NULL;

	if (!json_object_object_get_ex(cs, "fprof", &fp))
		return;
	if (json_object_object_get_ex(fp, "absent", &v) &&
	    (!json_object_object_get_ex(fp, "runs", &fs) || !json_object_get_int(fs))) {
		printf("       fprof: no profile: %s\n", json_object_get_string(v));
		return;
	}
	if (json_object_object_get_ex(fp, "per", &v))
		per = strchr(json_object_get_string(v), ':');
	if (!json_object_object_get_ex(fp, "functions", &fs))
		return;
	{
		json_object_object_foreach(fs, name, f) {
			printf("       fprof: %-28s", name);
			if (json_object_object_get_ex(f, "hits_per_run", &v))
				printf(" %.0f hits/run", json_object_get_double(v));
			if (json_object_object_get_ex(f, "avg_us", &v) && v)
				printf(" %.3f us/call", json_object_get_double(v));
			if (json_object_object_get_ex(f, "us_per_unit", &v) && v)
				printf(" %.3f us/%s", json_object_get_double(v),
				       per ? per + 1 : "unit");
			printf("\n");
		}
	}
	if (per && json_object_object_get_ex(fp, "per_absent", &v))
		printf("       fprof: no time per %s: %s\n", per + 1, json_object_get_string(v));
	if (json_object_object_get_ex(fp, "missing", &fs)) {
		json_object_object_foreach(fs, name, why)
			printf("       fprof: %-28s missing: %s\n", name,
			       json_object_get_string(why));
	}
}

void run_report_print(struct json_object *cases)
{
	size_t n = json_object_array_length(cases);

	for (size_t i = 0; i < n; i++) {
		struct json_object *cs = json_object_array_get_idx(cases, i), *v, *id, *ms, *t, *mig;
		struct strbuf line = STRBUF_INIT;
		int shown = 0;

		json_object_object_get_ex(cs, "verdict", &v);
		json_object_object_get_ex(cs, "case", &id);
		strbuf_addf(&line, "%-6s %-36s", json_object_get_string(v), json_object_get_string(id));
		if (json_object_object_get_ex(cs, "metrics", &ms)) {
			/* the metrics the scenario declared, in the statistic it chose */
			json_object_object_foreach(ms, name, m) {
				struct json_object *val, *cv, *unit, *stat, *decl, *nv;
				const char *s, *key;

				if (!json_object_object_get_ex(m, "declared", &decl) ||
				    !json_object_get_boolean(decl) || shown++ >= 3)
					continue;
				json_object_object_get_ex(m, "statistic", &stat);
				s = json_object_get_string(stat);
				key = !strcmp(s, "hmean") ? "hmean" : !strcmp(s, "median") ? "median" : "mean";
				json_object_object_get_ex(m, key, &val);
				json_object_object_get_ex(m, "cv_pct", &cv);
				json_object_object_get_ex(m, "unit", &unit);
				strbuf_addf(&line, "  %s %.4g %s (%s", name, json_object_get_double(val),
					    unit ? json_object_get_string(unit) : "", s);
				/* one value has no spread to speak of: no "cv 0.0%" */
				if (json_object_object_get_ex(m, "n", &nv) && json_object_get_int(nv) <= 1)
					strbuf_addstr(&line, ", 1 value)");
				else
					strbuf_addf(&line, ", cv %.1f%%)", json_object_get_double(cv));
			}
		}
		/* `migrations` is the tasks' count, and only that (iperf reports
		 * its rate as migrations_per_s) */
		if (json_object_object_get_ex(cs, "tasks", &t) &&
		    json_object_object_get_ex(t, "nr_migrations", &mig))
			strbuf_addf(&line, "  migrations %.0f", json_object_get_double(mig));
		if (strcmp(json_object_get_string(v), "PASS")) {
			struct json_object *r;

			json_object_object_get_ex(cs, "reason", &r);
			strbuf_addf(&line, "  (%s)", json_object_get_string(r));
		}
		printf("%s\n", line.buf);
		strbuf_release(&line);
		print_fprof(cs);
	}
}
