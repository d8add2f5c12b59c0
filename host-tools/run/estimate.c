/* estimate.c - expected durations of plan cases from the cases.json of
 * earlier runs under results/, and the time left in a run under way. */
#include "run/estimate.h"
#include "lib/json.h"
#include "lib/util.h"
#include "results/runfiles.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void add_sample(struct estimate_history *h, const char *id, double s)
{
	if (h->nr == h->alloc) {
		h->alloc = h->alloc ? 2 * h->alloc : 64;
		h->v = xrealloc(h->v, h->alloc * sizeof(*h->v));
	}
	h->v[h->nr].id = xstrdup(id);
	h->v[h->nr].s = s;
	h->nr++;
}

/*
 * Arguments that change the time a case takes: the cost of a syscall or
 * a switch (page-table isolation, mitigations), the CPUs and preemption,
 * the scheduler's own settings, tracing from boot.  A prefix ending in '='
 * takes any value; the value is part of the key.
 */
static const char *const timing_args[] = {
	"pti=", "nopti", "mitigations=", "spectre_v2=", "spectre_v2_user=", "retbleed=",
	"spec_store_bypass_disable=", "mds=", "tsx=", "l1tf=", "nospectre_v1", "nospectre_v2",
	"nosmt", "maxcpus=", "nr_cpus=", "isolcpus=", "nohz_full=", "nohz=", "idle=",
	"threadirqs", "preempt=", "transparent_hugepage=", "numa_balancing=",
	"lab.sched_feat=", "lab.sched_knob=", "trace_event=", "lab.schedtrace=",
	"clocksource=", "tsc=",
};

static int timing_arg(const char *arg, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(timing_args); i++) {
		size_t k = strlen(timing_args[i]);

		if (timing_args[i][k - 1] == '=' ? n >= k && !strncmp(arg, timing_args[i], k)
						 : n == k && !strncmp(arg, timing_args[i], k))
			return 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void estimate_timing_args(const char *cmdline, struct strbuf *out)
{
	struct strvec v = STRVEC_INIT;

	while (cmdline && *cmdline) {
		size_t n;

		cmdline += strspn(cmdline, " \t\n");
		n = strcspn(cmdline, " \t\n");
		if (n && timing_arg(cmdline, n)) {
			struct strbuf a = STRBUF_INIT;

			strbuf_add(&a, cmdline, n);
			strvec_push(&v, a.buf);
			strbuf_release(&a);
		}
		cmdline += n;
	}
	qsort(v.v, v.nr, sizeof(*v.v), cmp_str);
	for (size_t i = 0; i < v.nr; i++)
		strbuf_addf(out, "%s%s", i ? " " : "", v.v[i]);
	strvec_clear(&v);
}

static int same_str(struct json_object *run, const char *field, const char *absent,
		    const char *want)
{
	const char *got;

	if (!want)
		return 1;
	got = json_get_str(run, field);
	if (!got)
		got = absent;
	return got && !strcmp(got, want);
}

static int same_timing_args(struct json_object *run, const char *want)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int same;

	if (!want)
		return 1;
	estimate_timing_args(json_get_str(run, "cmdline"), &a);
	estimate_timing_args(want, &b);
	same = !strcmp(a.buf, b.buf);
	strbuf_release(&a);
	strbuf_release(&b);
	return same;
}

/* Whether a run recorded under run's settings is history for key. */
static int run_matches(const struct run_info *run, const struct estimate_key *key)
{
	if (!key)
		return 1;
	return (!key->spec || (run->spec_resolved && !strcmp(run->spec_resolved, key->spec))) &&
	       (!key->kernel || (run->kernel && !strcmp(run->kernel, key->kernel))) &&
	       same_str(run->json, "accel", NULL, key->accel) &&
	       same_str(run->json, "clock", "wall", key->clock) &&
	       same_timing_args(run->json, key->cmdline);
}

static void load_run(struct estimate_history *h, const char *dir, const struct estimate_key *key)
{
	struct run_info run = RUN_INFO_INIT;
	struct json_object *cases_doc, *cases, *verdict;
	struct strbuf err = STRBUF_INIT;
	unsigned before = (unsigned)h->nr;
	double boot;
	int skip;

	/* a directory that is not a finished run under these settings says nothing */
	skip = run_load(&run, dir, NULL, &err) < 0 || !run_matches(&run, key);
	run_info_release(&run);
	if (skip)
		goto out;
	cases_doc = cases_load(dir, &cases, NULL, &err);
	if (cases_doc) {
		for (size_t i = 0; i < json_object_array_length(cases); i++) {
			struct json_object *c = json_object_array_get_idx(cases, i);
			const char *id = json_get_str(c, "case");
			double s;

			if (id && json_get_num(c, "duration_s", &s) == 0 && s >= 0)
				add_sample(h, id, s);
		}
		json_object_put(cases_doc);
	}
	if (h->nr == before)
		goto out;
	h->runs++;
	verdict = verdict_read(dir, NULL, &err);
	if (verdict && json_get_num(verdict, "wall_to_runner_s", &boot) == 0 && boot > 0) {
		h->boot_s = xrealloc(h->boot_s, (h->nr_boot + 1) * sizeof(*h->boot_s));
		h->boot_s[h->nr_boot++] = boot;
	}
	if (verdict)
		json_object_put(verdict);
out:
	strbuf_release(&err);
}

void estimate_history_load(struct estimate_history *h, const char *root,
			   const struct estimate_key *key)
{
	DIR *d = opendir(root);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *dir;

		if (de->d_name[0] == '.')
			continue;
		dir = xasprintf("%s/%s", root, de->d_name);
		load_run(h, dir, key);
		free(dir);
	}
	closedir(d);
}

void estimate_history_release(struct estimate_history *h)
{
	for (size_t i = 0; i < h->nr; i++)
		free(h->v[i].id);
	free(h->v);
	free(h->boot_s);
	memset(h, 0, sizeof(*h));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

unsigned estimate_cases(const struct estimate_history *h, const struct plan *p,
			struct case_estimate *est)
{
	double *tmp = xcalloc(h->nr ? h->nr : 1, sizeof(*tmp));
	unsigned recorded = 0;

	for (unsigned i = 0; i < p->nr_cases; i++) {
		size_t n = 0;

		for (size_t k = 0; k < h->nr; k++)
			if (!strcmp(h->v[k].id, p->cases[i].id))
				tmp[n++] = h->v[k].s;
		est[i].samples = (unsigned)n;
		est[i].group = i && !strcmp(p->cases[i].scenario, p->cases[i - 1].scenario) ?
			       est[i - 1].group : (i ? est[i - 1].group + 1 : 0);
		est[i].s = n ? median(tmp, n) : p->cases[i].deadline_s;
		recorded += n > 0;
	}
	free(tmp);
	return recorded;
}

unsigned estimate_from_own(const char *dir, const struct plan *p, struct case_estimate *est)
{
	struct json_object *doc, *cases;
	struct strbuf err = STRBUF_INIT;
	unsigned learnt = 0;
	size_t nr;
	double *tmp;

	doc = dir ? cases_load(dir, &cases, NULL, &err) : NULL;
	strbuf_release(&err);
	if (!doc)
		return 0;
	nr = json_object_array_length(cases);
	tmp = xcalloc(nr ? nr : 1, sizeof(*tmp));
	for (unsigned i = 0; i < p->nr_cases; i++) {
		size_t n = 0;

		if (est[i].samples)
			continue;
		/* cases of one scenario differ in their parameters, not in kind */
		for (size_t k = 0; k < nr; k++) {
			struct json_object *c = json_object_array_get_idx(cases, k);
			const char *sc = json_get_str(c, "scenario");
			double s;

			if (sc && !strcmp(sc, p->cases[i].scenario) &&
			    json_get_num(c, "duration_s", &s) == 0 && s >= 0)
				tmp[n++] = s;
		}
		if (!n)
			continue;
		est[i].s = median(tmp, n);
		est[i].samples = (unsigned)n;
		learnt++;
	}
	free(tmp);
	json_object_put(doc);
	return learnt;
}

double estimate_boot_s(const struct estimate_history *h)
{
	double *tmp, m;

	if (!h->nr_boot)
		return -1;
	tmp = xmalloc(h->nr_boot * sizeof(*tmp));
	memcpy(tmp, h->boot_s, h->nr_boot * sizeof(*tmp));
	m = median(tmp, h->nr_boot);
	free(tmp);
	return m;
}

/* took / expected over the finished cases of `group` (UINT_MAX: all),
 * with the running case when it already ran past its expectation. */
static double scale_of(const struct case_estimate *est, const double *took, unsigned n, int cur,
		       double cur_elapsed_s, unsigned group, int *known)
{
	double took_sum = 0, exp_sum = 0, scale = 1;

	for (unsigned i = 0; i < n; i++)
		if (took[i] >= 0 && (group == UINT_MAX || est[i].group == group)) {
			took_sum += took[i];
			exp_sum += est[i].s;
		}
	*known = exp_sum > 0;
	if (exp_sum > 0)
		scale = took_sum / exp_sum;
	if (cur >= 0 && (group == UINT_MAX || est[cur].group == group) &&
	    cur_elapsed_s > est[cur].s * scale) {
		/* a case running past its expectation says the others will too */
		scale = (took_sum + cur_elapsed_s) / (exp_sum + est[cur].s);
		*known = 1;
	}
	/* a case that finished at once says little about the others */
	return scale < 0.02 ? 0.02 : scale;
}

double estimate_left_s(const struct case_estimate *est, const double *took, unsigned n, int cur,
		       double cur_elapsed_s)
{
	double all, left = 0;
	int known;

	all = scale_of(est, took, n, cur, cur_elapsed_s, UINT_MAX, &known);
	for (unsigned i = 0; i < n; i++) {
		double scale = scale_of(est, took, n, cur, cur_elapsed_s, est[i].group, &known);
		double e = est[i].s * (known ? scale : all);

		if (took[i] >= 0)
			continue;
		if ((int)i == cur)
			left += cur_elapsed_s < 0.9 * e ? e - cur_elapsed_s : e / 10;
		else
			left += e;
	}
	return left;
}
