/* tracekeep.c - picks a case's traced runs to keep under a size budget (the
 * runs that explain a row: its ends, its outliers, its faults) and prunes the rest. */
#include "results/tracekeep.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "lib/json.h"
#include "results/runfiles.h"
#include "results/schedtrace.h"
#include "results/tracerun.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* z = 0.6745 (x - median) / MAD (Iglewicz and Hoaglin); 0 when MAD is 0 */
static void robust_z(struct tk_run *r, size_t n)
{
	double *v = xcalloc(n ? n : 1, sizeof(*v)), med, mad;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (r[i].has_value && isfinite(r[i].value))
			v[m++] = r[i].value;
	if (m >= 3) {
		med = median(v, m);
		for (size_t i = 0; i < m; i++)
			v[i] = fabs(v[i] - med);
		mad = median(v, m);
		for (size_t i = 0; mad > 0 && i < n; i++)
			if (r[i].has_value && isfinite(r[i].value))
				r[i].z = 0.6745 * (r[i].value - med) / mad;
	}
	free(v);
}

static int take(struct tk_run *x, uint64_t budget, uint64_t *used)
{
	if (x->keep)
		return 1;
	/* 0 keeps none, not even a run without pages */
	if (!budget || *used + x->bytes > budget)
		return 0;
	*used += x->bytes;
	x->keep = 1;
	return 1;
}

size_t trace_keep_choose(struct tk_run *r, size_t n, int higher_better, uint64_t budget,
			 uint64_t *dropped_bytes)
{
	size_t slow = SIZE_MAX, fast = SIZE_MAX, dropped = 0;
	uint64_t used = 0;

	for (size_t i = 0; i < n; i++) {
		r[i].why = (r[i].failed ? TK_FAILED : 0) | (r[i].faults ? TK_FAULT : 0);
		r[i].z = 0;
		r[i].keep = 0;
	}
	robust_z(r, n);
	for (size_t i = 0; i < n; i++) {
		int worse, better;

		if (!r[i].has_value || !isfinite(r[i].value))
			continue;
		if (fabs(r[i].z) > TRACE_KEEP_Z)
			r[i].why |= TK_OUTLIER;
		worse = slow == SIZE_MAX || (higher_better ? r[i].value < r[slow].value :
						   r[i].value > r[slow].value);
		better = fast == SIZE_MAX || (higher_better ? r[i].value > r[fast].value :
						    r[i].value < r[fast].value);
		if (worse)
			slow = i;
		if (better)
			fast = i;
	}
	if (slow != SIZE_MAX)
		r[slow].why |= TK_SLOWEST;
	if (fast != SIZE_MAX && fast != slow)
		r[fast].why |= TK_FASTEST;
	for (size_t i = 0; i < n; i++)
		if (r[i].why & (TK_FAILED | TK_FAULT))
			take(&r[i], budget, &used);
	/* outliers, the farthest first */
	for (;;) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < n; i++)
			if ((r[i].why & TK_OUTLIER) && !r[i].keep && r[i].bytes <= budget - used &&
			    (best == SIZE_MAX || fabs(r[i].z) > fabs(r[best].z)))
				best = i;
		if (best == SIZE_MAX || !take(&r[best], budget, &used))
			break;
	}
	if (slow != SIZE_MAX)
		take(&r[slow], budget, &used);
	if (fast != SIZE_MAX)
		take(&r[fast], budget, &used);
	*dropped_bytes = 0;
	for (size_t i = 0; i < n; i++)
		if (!r[i].keep) {
			dropped++;
			*dropped_bytes += r[i].bytes;
		}
	return dropped;
}

void trace_keep_why(unsigned why, char *buf, size_t len)
{
	static const char *const names[] = { "failed", "fault", "outlier", "slowest", "fastest" };
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (why & (1u << i) && at < len) {
			int w = snprintf(buf + at, len - at, "%s%s", at ? "," : "", names[i]);

			at += w > 0 ? (size_t)w : 0;
		}
}

int trace_keep_apply(const char *run_dir, const char *case_dir, const struct tk_case *kc,
		     struct strbuf *err)
{
	struct json_object *doc = json_object_new_object(), *kept = json_object_new_array();
	const struct tk_run *r = kc->r;
	uint64_t dropped_bytes = 0;
	size_t dropped = 0;
	const char *text;
	char *path;
	int ret = 0;

	for (size_t i = 0; i < kc->n; i++) {
		char why[80];
		struct json_object *o;

		if (!r[i].keep) {
			char *dir = xasprintf("%s/trace/%s/run%u", run_dir, case_dir, r[i].run);

			if (remove_tree(dir) < 0) {
				strbuf_addf(err, "cannot remove '%s'", dir);
				ret = -1;
			}
			free(dir);
			dropped++;
			dropped_bytes += r[i].bytes;
			continue;
		}
		o = json_object_new_object();
		trace_keep_why(r[i].why, why, sizeof(why));
		json_object_object_add(o, "run", json_object_new_int((int)r[i].run));
		json_object_object_add(o, "why", json_object_new_string(why));
		json_object_object_add(o, "z", json_object_new_double(r[i].z));
		json_object_object_add(o, "bytes", json_object_new_int64((int64_t)r[i].bytes));
		json_object_object_add(o, "cut_events", json_object_new_int64((int64_t)r[i].cut_events));
		json_object_array_add(kept, o);
	}
	json_object_object_add(doc, "budget_bytes", json_object_new_int64((int64_t)kc->budget));
	json_object_object_add(doc, "run_budget_bytes", kc->run_budget ?
			       json_object_new_int64((int64_t)kc->run_budget) : NULL);
	json_object_object_add(doc, "kept", kept);
	json_object_object_add(doc, "dropped_runs", json_object_new_int64((int64_t)dropped));
	json_object_object_add(doc, "dropped_bytes", json_object_new_int64((int64_t)dropped_bytes));
	/* the flight recorder: a full ring buffer overwrites its oldest pages,
	 * so what a cut run shipped is its end, never its start */
	json_object_object_add(doc, "cut_runs", json_object_new_int64((int64_t)kc->cut));
	json_object_object_add(doc, "cut_events", json_object_new_int64((int64_t)kc->cut_events));
	json_object_object_add(doc, "cut_where", json_object_new_string(
				       "guest: each CPU's ring buffer (buffer_size_kb) overwrote its oldest events"));
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY);
	path = xasprintf("%s/trace/%s/kept.json", run_dir, case_dir);
	if (write_file_atomic_err(path, text, strlen(text), err) < 0)
		ret = -1;
	free(path);
	json_object_put(doc);
	return ret;
}

/* The first metric of a result: the workload's primary one (trace metrics come after it). */
static int primary(struct json_object *res, double *value, int *higher_better)
{
	struct json_object *metrics, *v;
	struct json_object_iterator it, end;

	if (!json_object_object_get_ex(res, "metrics", &metrics) ||
	    !json_object_is_type(metrics, json_type_object))
		return -1;
	it = json_object_iter_begin(metrics);
	end = json_object_iter_end(metrics);
	if (json_object_iter_equal(&it, &end))
		return -1;
	v = json_object_iter_peek_value(&it);
	if (json_get_num(v, "value", value) < 0)
		return -1;
	*higher_better = json_get_str(v, "better") && !strcmp(json_get_str(v, "better"), "higher");
	return 0;
}

int trace_keep_parse_results(const char *text, size_t len, const char *case_dir, struct tk_run **runs,
			     size_t *nr, int *higher_better, unsigned *bad)
{
	const char *p = text, *end = text + len;
	size_t alloc = 0;

	*runs = NULL;
	*nr = 0;
	*higher_better = 0;
	*bad = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
		struct json_object *o, *v;
		const char *id, *status;
		char *dir;
		double run;

		if (eol == p) {
			p = eol + 1;
			continue;
		}
		o = json_read_object(p, (size_t)(eol - p), RESULT_LINE_MAX, "result", NULL);
		p = eol + 1;
		if (!o || !(id = json_get_str(o, "case")) || json_get_num(o, "run", &run) < 0 ||
		    run < 0 || run > 1000000 || run != (double)(unsigned)run) {
			(*bad)++;
			json_object_put(o);
			continue;
		}
		if (json_object_object_get_ex(o, "warmup", &v) && json_object_get_boolean(v)) {
			json_object_put(o);
			continue;
		}
		dir = schedtrace_case_dir(id);
		if (!strcmp(dir, case_dir)) {
			struct tk_run *r;

			if (*nr == alloc) {
				alloc = alloc ? alloc * 2 : 16;
				*runs = xrealloc(*runs, alloc * sizeof(**runs));
			}
			r = &(*runs)[(*nr)++];
			memset(r, 0, sizeof(*r));
			r->run = (unsigned)run;
			r->has_value = !primary(o, &r->value, higher_better);
			status = json_get_str(o, "status");
			r->failed = !status || strcmp(status, "ok");
		}
		free(dir);
		json_object_put(o);
	}
	return 0;
}

size_t trace_keep_outliers(const char *run_dir, const char *case_id, struct tk_run *out, size_t max)
{
	struct strbuf err = STRBUF_INIT;
	char *cdir = schedtrace_case_dir(case_id);
	char *path = xasprintf("%s/trace/%s/kept.json", run_dir, cdir);
	struct json_object *doc = json_read_file(path, "kept.json", 1u << 20, NULL, &err), *kept;
	size_t n = 0;

	if (doc && json_object_object_get_ex(doc, "kept", &kept) &&
	    json_object_is_type(kept, json_type_array))
		for (size_t i = 0; i < json_object_array_length(kept) && n < max; i++) {
			struct json_object *o = json_object_array_get_idx(kept, i);
			const char *why = json_get_str(o, "why");
			double run, z = 0;

			if (!why || !strstr(why, "outlier") || json_get_num(o, "run", &run) < 0 ||
			    run < 0 || run > 1000000 || run != (double)(unsigned)run)
				continue;
			json_get_num(o, "z", &z);
			out[n] = (struct tk_run){ .run = (unsigned)run, .z = isfinite(z) ? z : 0,
						  .why = TK_OUTLIER, .keep = 1 };
			if (strstr(why, "slowest"))
				out[n].why |= TK_SLOWEST;
			if (strstr(why, "fastest"))
				out[n].why |= TK_FASTEST;
			n++;
		}
	json_object_put(doc);
	free(path);
	free(cdir);
	strbuf_release(&err);
	return n;
}

void tk_case_release(struct tk_case *kc)
{
	free(kc->r);
	*kc = (struct tk_case)TK_CASE_INIT;
}

/* The raw pages of one traced run (cpu0.raw, cpu1.raw, ... up to the first
 * gap) and the events its buffers overwrote (statsN.txt, as shipped). */
static uint64_t run_bytes(const char *dir, const char *case_dir, unsigned run, uint64_t *cut)
{
	uint64_t sum = 0;

	*cut = 0;
	for (unsigned c = 0; c < SCHEDTRACE_MAX_CPUS; c++) {
		char *path = xasprintf("%s/trace/%s/run%u/cpu%u.raw", dir, case_dir, run, c), *text;
		struct strbuf err = STRBUF_INIT;
		struct stat st;
		size_t len = 0;
		int ok = !stat(path, &st), missing = 0;

		free(path);
		if (!ok)
			break;
		sum += (uint64_t)st.st_size;
		path = xasprintf("%s/trace/%s/run%u/stats%u.txt", dir, case_dir, run, c);
		text = json_read_bounded(path, 65536, &len, &missing, &err);
		if (text)
			*cut += schedtrace_stats_lost(text, len);
		free(text);
		free(path);
		strbuf_release(&err);
	}
	return sum;
}

int trace_keep_case(const char *run_dir, const char *case_dir, uint64_t budget,
		    uint64_t run_budget, tk_faulted_fn faulted, void *ctx, struct tk_case *kc,
		    struct strbuf *err)
{
	char *path = xasprintf("%s/results.jsonl", run_dir), *text;
	struct tk_run *all = NULL;
	unsigned *on_disk = NULL, bad = 0;
	size_t len = 0, nr_all = 0, nr_disk = 0;
	int higher = 0, missing = 0, ret = -1;

	kc->budget = budget;
	kc->run_budget = run_budget;
	text = json_read_bounded(path, RUNFILE_MAX, &len, &missing, err);
	free(path);
	if (!text)
		return -1;
	trace_keep_parse_results(text, len, case_dir, &all, &nr_all, &higher, &bad);
	free(text);
	if (trace_list_runs(run_dir, case_dir, &on_disk, &nr_disk, err) < 0)
		goto out;
	kc->r = xcalloc(nr_disk ? nr_disk : 1, sizeof(*kc->r));
	for (size_t k = 0; k < nr_disk; k++) {
		struct tk_run *r = &kc->r[kc->n++];

		*r = (struct tk_run){ .run = on_disk[k] };
		for (size_t i = 0; i < nr_all; i++)
			if (all[i].run == on_disk[k])
				*r = all[i];
		r->bytes = run_bytes(run_dir, case_dir, on_disk[k], &r->cut_events);
		r->faults = faulted && faulted(ctx, case_dir, on_disk[k]);
		if (r->cut_events) {
			kc->cut++;
			kc->cut_events += r->cut_events;
		}
	}
	kc->dropped = trace_keep_choose(kc->r, kc->n, higher, budget, &kc->dropped_bytes);
	ret = trace_keep_apply(run_dir, case_dir, kc, err);
out:
	free(all);
	free(on_disk);
	return ret;
}

void trace_keep_summary(const char *case_dir, const struct tk_case *kc, struct strbuf *out)
{
	size_t kept = 0;

	strbuf_addf(out, "%s: kept", case_dir);
	for (size_t i = 0; i < kc->n; i++) {
		char why[80];

		if (!kc->r[i].keep)
			continue;
		kept++;
		trace_keep_why(kc->r[i].why, why, sizeof(why));
		if (kc->r[i].why & TK_OUTLIER)
			strbuf_addf(out, " run%u (%s, z %.1f)", kc->r[i].run, why, kc->r[i].z);
		else
			strbuf_addf(out, " run%u (%s)", kc->r[i].run, why[0] ? why : "-");
	}
	if (!kept)
		strbuf_addstr(out, " none");
	strbuf_addf(out, "; dropped %zu run%s, %.1f MiB (budget %llu MiB)", kc->dropped,
		    kc->dropped == 1 ? "" : "s", (double)kc->dropped_bytes / (1 << 20),
		    (unsigned long long)(kc->budget >> 20));
	if (kc->cut && kc->run_budget)
		strbuf_addf(out, "; cut %zu run%s to the last %llu MiB (ring buffer, %llu events "
			    "overwritten)", kc->cut, kc->cut == 1 ? "" : "s",
			    (unsigned long long)(kc->run_budget >> 20),
			    (unsigned long long)kc->cut_events);
	else if (kc->cut)
		strbuf_addf(out, "; cut %zu run%s to their end (ring buffer full, %llu events "
			    "overwritten)", kc->cut, kc->cut == 1 ? "" : "s",
			    (unsigned long long)kc->cut_events);
	strbuf_addch(out, '\n');
}
