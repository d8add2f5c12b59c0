/* cmd-bisect.c - `lab bisect`: find the commit that moved a metric, with a
 * statistical decision at every step; `lab bisect --dir DIR` resumes. */
#define _GNU_SOURCE
#include "bisect/bisect.h"
#include "bisect/counter.h"
#include "bisect/revs.h"
#include "cmd/lab.h"
#include "cmd/options.h"
#include "kernel/kbuild.h"
#include "lib/progress.h"
#include "report/compare.h"
#include "results/results.h"
#include "results/schedmetrics.h"
#include "run/jobs.h"
#include "run/labrun.h"
#include "run/matrix.h"
#include "scenario/scenario.h"
#include "topo/topo.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char bisect_usage[] =
	"lab bisect --ksrc DIR --good REV --bad REV --topo SPEC (--scenario FILE | --suite NAME) "
	"--metric CASE:METRIC [--config FRAGMENTS] [--patch P] [--alpha 0.05] [--max-runs N] "
	"[--clock wall|virtual] [--dir DIR] [--jobs N] [--make-jobs N] [--json]\n   or: lab bisect --dir DIR [--json]";

/* Boots a side may fail in a row before the bisection gives up on it. */
#define MAX_FAILED_BOOTS 3

/* A test aid (docs/bisect.md): every commit boots this kernel, with the
 * scheduler features its file `sched-feat` lists, instead of a build. */
#define FAKE_KERNEL_ENV "LAB_BISECT_KERNEL"

/* A boot begun and not yet over (--jobs runs several at once). */
struct bisect_pending {
	size_t idx;		/* into b->boots */
	struct lab_child_run j;
	char *root, *log;
};

struct run_ctx {
	struct bisect *b;
	const char *dir;
	unsigned jobs;			/* make -j */
	struct jobs_plan guests;	/* boots at a time */
	struct bisect_pending pend[JOBS_MAX];
	unsigned nr_pend;		/* the last nr_pend of b->boots */
	unsigned deadline_s;
	const char *fake_kernel;
	struct progress pr;
	uint64_t t0_ns;
	double wall_before;
};

/* bisect.json with the boots that are over: a resume boots the others
 * again (they are the last ones) */
static void save(struct run_ctx *x)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	x->b->wall_seconds = x->wall_before + (double)(now_ns() - x->t0_ns) / 1e9;
	x->b->nr_boots -= x->nr_pend;
	ret = bisect_save(x->b, x->dir, &err);
	x->b->nr_boots += x->nr_pend;
	if (ret < 0)
		die(LAB_EXIT_FAIL, "%s", err.buf);
}

/* CASE:METRIC, split at the last colon. */
static void split_metric(const char *arg, struct bisect *b)
{
	const char *colon = strrchr(arg, ':');

	if (!colon || colon == arg || !colon[1])
		die(LAB_EXIT_USAGE, "--metric '%s' is not CASE:METRIC", arg);
	b->metric_case = xasprintf("%.*s", (int)(colon - arg), arg);
	b->metric_name = xstrdup(colon + 1);
}

/* The case and metric named exist in the plan; their direction into b.
 * A case is its id, or a scenario name with exactly one case. */
static void check_metric(struct bisect *b)
{
	struct strbuf plan = STRBUF_INIT, err = STRBUF_INIT, ids = STRBUF_INIT;
	struct plan p = { 0 };
	const struct plan_case *found = NULL;
	unsigned by_scenario = 0;
	char perr[256];

	if ((b->scenario ? plan_compile_file(b->scenario, &plan, &err)
			 : plan_compile_suite(b->suite, &plan, &err)) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (plan_parse(plan.buf, plan.len, &p, perr, sizeof(perr)) < 0)
		die(LAB_EXIT_USAGE, "%s: %s", b->scenario ? b->scenario : b->suite, perr);
	for (unsigned i = 0; i < p.nr_cases; i++) {
		strbuf_addf(&ids, "%s%s", i ? ", " : "", p.cases[i].id);
		if (!strcmp(p.cases[i].id, b->metric_case))
			found = &p.cases[i];
	}
	for (unsigned i = 0; !found && i < p.nr_cases; i++)
		if (!strcmp(p.cases[i].scenario, b->metric_case) && !by_scenario++)
			found = &p.cases[i];
	if (by_scenario > 1)
		die(LAB_EXIT_USAGE, "--metric: scenario '%s' has several cases; name one: %s",
		    b->metric_case, ids.buf);
	if (!found)
		die(LAB_EXIT_USAGE, "--metric: no case '%s' (cases: %s)", b->metric_case, ids.buf);
	for (unsigned m = 0; m < found->nr_metrics; m++)
		if (!strcmp(found->metrics[m].name, b->metric_name)) {
			b->higher_better = found->metrics[m].higher_is_better;
			goto take;
		}
	strbuf_reset(&ids);
	for (unsigned m = 0; m < found->nr_metrics; m++)
		strbuf_addf(&ids, "%s%s", m ? ", " : "", found->metrics[m].name);
	if (bisect_counter_metric(b->metric_name, found->counters, &b->higher_better))
		goto take;
	bisect_counter_names(found->counters, &ids);
	if (found->counters & PLAN_CNT_SCHEDTRACE) {
		/* the decision metrics, named and directed as the results model
		 * writes them (every row present: one wakeup, one unknown level) */
		struct st_metrics sm;
		struct json_object *rows = json_object_new_object(), *row, *better;

		memset(&sm, 0, sizeof(sm));
		sm.wakeups = 1;
		sm.migrations[ST_LVL_UNKNOWN] = 1;
		sm.rq_tracked = sm.own_known = 1;
		sm.span_ns = sm.own_wakeups = 1;
		st_metrics_to_json(&sm, rows);
		if (json_object_object_get_ex(rows, b->metric_name, &row) &&
		    json_object_object_get_ex(row, "better", &better)) {
			/* a row that only changes (a decision, preemptions) has no
			 * good or bad side: the bisection asks changed or not */
			b->no_direction = !strcmp(json_object_get_string(better), "none");
			b->higher_better = b->no_direction ||
					   !strcmp(json_object_get_string(better), "higher");
			json_object_put(rows);
			goto take;
		}
		json_object_object_foreach(rows, name, val) {
			(void)val;
			strbuf_addf(&ids, "%s%s", ids.len ? ", " : "", name);
		}
		json_object_put(rows);
	}
	die(LAB_EXIT_USAGE, "--metric: case '%s' has no metric '%s' (it has: %s)", found->id,
	    b->metric_name, ids.len ? ids.buf : "none");
take:
	/* the metric's case by its id from here on */
	free(b->metric_case);
	b->metric_case = xstrdup(found->id);
	plan_release(&p);
	strbuf_release(&plan);
	strbuf_release(&ids);
}

static void kbuild_opts_of(const struct bisect *b, size_t c, unsigned jobs, struct kbuild_opts *o)
{
	o->ksrc = b->ksrc;
	for (size_t i = 0; i < b->patches.nr; i++)
		strvec_push(&o->patches, b->patches.v[i]);
	for (size_t i = 0; i < b->configs.nr; i++)
		strvec_push(&o->configs, b->configs.v[i]);
	o->rev = b->commits[c].sha;
	o->incremental = 1;
	o->jobs = jobs;
	o->progress = isatty(2);
}

/* Every check that needs no build and no boot. */
static void validate(struct bisect *b, const char *good, const char *bad, const char *fake)
{
	struct strbuf err = STRBUF_INIT;
	char gsha[41], bsha[41];
	struct topo t;
	unsigned deadline;

	if (revs_check_tree(b->ksrc, &err) < 0 || revs_resolve(b->ksrc, good, gsha, &err) < 0 ||
	    revs_resolve(b->ksrc, bad, bsha, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (!strcmp(gsha, bsha))
		die(LAB_EXIT_USAGE, "good '%s' and bad '%s' are the same commit", good, bad);
	switch (revs_is_ancestor(b->ksrc, gsha, bsha, &err)) {
	case 0:
		die(LAB_EXIT_USAGE, "good '%s' is not an ancestor of bad '%s'", good, bad);
	case -1:
		die(LAB_EXIT_FAIL, "%s", err.buf);
	}
	if (topo_parse(b->topo, &t, &err) < 0)
		die(LAB_EXIT_USAGE, "bad topology '%s': %s", b->topo, err.buf);
	check_metric(b);
	if (lab_run_deadline_s(b->topo, b->scenario ? b->scenario : b->suite, &deadline, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (revs_fill(b, gsha, bsha, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (!fake) {
		/* the fragments, patches and compiler, as the first build will see them */
		struct kbuild_opts o = KBUILD_OPTS_INIT;
		struct kbuild_result res;

		kbuild_opts_of(b, 0, 0, &o);
		o.key_only = 1;
		if (kbuild_build(&o, &res, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		kbuild_opts_release(&o);
	}
	strbuf_release(&err);
}

/* The kernel of commit c: 0 with its spec in *spec (and, with a fake
 * kernel, its features as a lab run variant in *variant), -1 when it is a
 * skip. */
static int kernel_of(struct run_ctx *x, size_t c, const char **spec, const char **variant,
		     struct strbuf *featbuf)
{
	struct bisect_commit *k = &x->b->commits[c];
	struct kbuild_opts o = KBUILD_OPTS_INIT;
	struct kbuild_result res;
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT;
	int r;

	*variant = NULL;
	if (x->fake_kernel) {
		struct strbuf list = STRBUF_INIT;

		strbuf_reset(featbuf);
		if (revs_show(x->b->ksrc, k->sha, "sched-feat", &list) == 0) {
			while (list.len && (list.buf[list.len - 1] == '\n'))
				list.buf[--list.len] = '\0';
			if (list.len) {
				strbuf_addf(featbuf, "sched_feat=%s", list.buf);
				*variant = featbuf->buf;
			}
		}
		strbuf_release(&list);
		*spec = x->fake_kernel;
		return 0;
	}
	if (k->build == BISECT_BUILD_FAILED)
		return -1;
	if (k->build == BISECT_BUILT && kbuild_lookup(k->key, &dir, &err) == 1) {
		strbuf_release(&dir);
		*spec = k->key;
		return 0;
	}
	strbuf_release(&dir);
	strbuf_reset(&err);
	kbuild_opts_of(x->b, c, x->jobs, &o);
	/* a kernel already in the cache (built by lab kernel build, or by an
	 * earlier bisection) is taken as it is: no "building" line for it */
	o.key_only = 1;
	r = kbuild_build(&o, &res, &err);
	o.key_only = 0;
	if (r < 0 || !res.cached) {
		strbuf_reset(&err);
		progress_break(&x->pr);
		info("building %.12s %s", k->sha, k->subject ? k->subject : "");
		r = kbuild_build(&o, &res, &err);
	}
	kbuild_opts_release(&o);
	if (r == -1)
		die(LAB_EXIT_FAIL, "building %.12s: %s", k->sha, err.buf);
	if (r < 0) {
		k->build = BISECT_BUILD_FAILED;
		free(k->why);
		k->why = xasprintf("the build failed: %s", err.buf);
		warning("%.12s is skipped: %s", k->sha, k->why);
		strbuf_release(&err);
		save(x);
		return -1;
	}
	k->build = BISECT_BUILT;
	memcpy(k->key, res.key, sizeof(k->key));
	if (!res.cached) {
		x->b->builds++;
		x->b->build_seconds += res.seconds;
		info("built %.12s as kernel %s in %.0f s", k->sha, res.key, res.seconds);
	}
	strbuf_release(&err);
	save(x);
	*spec = k->key;
	return 0;
}

/* The metric's value in one run directory, NAN when it has none. */
static double value_of(const struct bisect *b, const char *run)
{
	struct cmp_run r;
	struct strbuf err = STRBUF_INIT;
	double v = NAN;

	memset(&r, 0, sizeof(r));
	if (cmp_run_load(&r, run, &err) == 0) {
		for (size_t i = 0; i < r.nr_cases; i++)
			if (!strcmp(r.cases[i].id, b->metric_case))
				v = bisect_case_value(&r.cases[i], b->metric_name);
	}
	cmp_run_release(&r);
	strbuf_release(&err);
	return v;
}

/* One boot of commit c for step `step`; appends it to the state. */
/* The boots begun together are over: their values, in the order begun. */
static void flush(struct run_ctx *x)
{
	struct bisect *b = x->b;

	for (unsigned k = 0; k < x->nr_pend; k++) {
		struct bisect_pending *q = &x->pend[k];
		struct bisect_boot *t = &b->boots[q->idx];
		struct strbuf run = STRBUF_INIT;
		int status = lab_child_wait(&q->j);

		t->seconds = (double)(now_ns() - q->j.t_start_ns) / 1e9;
		if (lab_child_find_run(q->root, &run, t->verdict, sizeof(t->verdict)) == 0) {
			t->run = strbuf_detach(&run);
			t->value = value_of(b, t->run);
		}
		if (status == CHILD_TIMED_OUT)
			snprintf(t->verdict, sizeof(t->verdict), "HANG");
		else if (!t->verdict[0])
			snprintf(t->verdict, sizeof(t->verdict), "ERROR");
		if (!t->run)
			t->run = xstrdup("");
		progress_item_done(&x->pr, t->seconds);
		if (!isfinite(t->value)) {
			progress_break(&x->pr);
			warning("boot of %.12s ended %s without a value of %s:%s; its log: %s",
				b->commits[t->commit].sha, t->verdict, b->metric_case, b->metric_name, q->log);
		}
		free(q->root);
		free(q->log);
	}
	x->nr_pend = 0;
	save(x);
}

/* Boots of commit c in step `step` begun and not over. */
static size_t pending_of(const struct run_ctx *x, size_t c, unsigned step)
{
	size_t n = 0;

	for (unsigned k = 0; k < x->nr_pend; k++) {
		const struct bisect_boot *t = &x->b->boots[x->pend[k].idx];

		n += t->commit == c && t->step == step;
	}
	return n;
}

/*
 * Begins a boot of commit c (its kernel built first when it is not in the
 * cache); with --jobs N the first N - 1 of a batch only begin, the N-th
 * waits for all of them (flush()).
 */
static void boot(struct run_ctx *x, size_t c, unsigned step, const char *role)
{
	struct bisect *b = x->b;
	struct bisect_boot *t;
	struct bisect_pending *q;
	struct strbuf err = STRBUF_INIT, featbuf = STRBUF_INIT, detail = STRBUF_INIT;
	const char *spec, *variant;
	size_t done = b->nr_boots - x->nr_pend;

	if (kernel_of(x, c, &spec, &variant, &featbuf) < 0) {
		/* the step decides without it: on what the others give */
		if (x->nr_pend)
			flush(x);
		strbuf_release(&featbuf);
		return;
	}
	if (b->nr_boots == BISECT_MAX_BOOTS)
		die(LAB_EXIT_FAIL, "more than %d boots: stopping", BISECT_MAX_BOOTS);
	b->boots = xrealloc(b->boots, (b->nr_boots + 1) * sizeof(*b->boots));
	t = &b->boots[b->nr_boots];
	memset(t, 0, sizeof(*t));
	t->commit = c;
	t->step = step;
	t->value = NAN;
	q = &x->pend[x->nr_pend];
	memset(q, 0, sizeof(*q));
	q->idx = b->nr_boots;
	q->root = xasprintf("%s/boots/%04zu-%.12s", x->dir, b->nr_boots + 1, b->commits[c].sha);
	q->log = xasprintf("%s.log", q->root);
	/* left by a boot the bisection was killed in: that boot is redone */
	remove_tree(q->root);
	if (step)
		strbuf_addf(&detail, "step %u: %.12s (%s)", step, b->commits[c].sha, role);
	else
		strbuf_addf(&detail, "endpoints: %.12s (%s)", b->commits[c].sha, role);
	if (x->nr_pend)
		strbuf_addf(&detail, ", beside %u more", x->nr_pend);
	/* what the boot before this one gave: the noise shows as it comes */
	if (done) {
		const struct bisect_boot *l = &b->boots[done - 1];

		if (isfinite(l->value))
			strbuf_addf(&detail, "; the last boot (%.12s) gave %.6g", b->commits[l->commit].sha,
				    l->value);
		else
			strbuf_addf(&detail, "; the last boot (%.12s) ended %s", b->commits[l->commit].sha,
				    l->verdict);
	}
	progress_show(&x->pr, detail.buf, NULL, 0);
	q->j.kernel = spec;
	q->j.label = role;
	q->j.topo = b->topo;
	q->j.suite = b->suite;
	q->j.scenario = b->scenario;
	q->j.variant = variant;
	q->j.results_root = q->root;
	q->j.log_path = q->log;
	q->j.deadline_s = x->deadline_s;
	if (lab_child_start(&q->j, &err) < 0) {
		progress_break(&x->pr);
		die(LAB_EXIT_FAIL, "%s", err.buf);
	}
	b->nr_boots++;
	x->nr_pend++;
	if (x->nr_pend >= x->guests.n)
		flush(x);
	strbuf_release(&err);
	strbuf_release(&featbuf);
	strbuf_release(&detail);
}

/* Boots of commit c in step `step`, and how many of them have no value. */
static size_t boots_of(const struct bisect *b, size_t c, unsigned step, size_t *failed)
{
	size_t n = 0;

	*failed = 0;
	for (size_t i = 0; i < b->nr_boots; i++)
		if (b->boots[i].commit == c && b->boots[i].step == step) {
			n++;
			*failed += !isfinite(b->boots[i].value);
		}
	return n;
}

static void stop(struct run_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void stop(struct run_ctx *x, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(x->b->message);
	x->b->message = strbuf_detach(&sb);
	x->b->phase = BISECT_STOPPED;
	save(x);
}

/* Good and bad in ABBA rounds until their test says they differ. */
static void endpoints(struct run_ctx *x)
{
	struct bisect *b = x->b;
	size_t last = b->nr_commits - 1, ng, nb, fg, fb;
	double *g = xcalloc(BISECT_MAX_BOOTS, sizeof(double)), *d = xcalloc(BISECT_MAX_BOOTS, sizeof(double));
	unsigned looks = b->max_runs > 1 ? b->max_runs - 1 : 1;

	for (;;) {
		size_t vg = bisect_values(b, 0, 0, g, BISECT_MAX_BOOTS);
		size_t vb = bisect_values(b, last, 0, d, BISECT_MAX_BOOTS);
		enum seq_endpoints e = SEQ_ENDS_SAME;

		/* boots begun beside others: the test looks when they are over */
		if (x->nr_pend)
			goto choose;
		/* one look per complete pair: max-runs - 1 looks at most, as the
		 * Bonferroni split assumes */
		if (vg == vb)
			e = seq_endpoints_check(g, vg, d, vb,
						b->no_direction ? SEQ_UNDIRECTED : b->higher_better,
						b->alpha, looks, &b->endpoint_p, &b->endpoint_ratio);

		ng = boots_of(b, 0, 0, &fg);
		nb = boots_of(b, last, 0, &fb);
		fg = bisect_failed_in_a_row(b, 0, 0);
		fb = bisect_failed_in_a_row(b, last, 0);
		if (b->commits[0].build == BISECT_BUILD_FAILED || b->commits[last].build == BISECT_BUILD_FAILED) {
			stop(x, "the %s endpoint does not build: %s",
			     b->commits[0].build == BISECT_BUILD_FAILED ? "good" : "bad",
			     b->commits[b->commits[0].build == BISECT_BUILD_FAILED ? 0 : last].why);
			break;
		}
		if (fg >= MAX_FAILED_BOOTS || fb >= MAX_FAILED_BOOTS) {
			stop(x, "the %s endpoint gave no value of %s:%s in %zu boots in a row (%zu boots)",
			     fg >= MAX_FAILED_BOOTS ? "good" : "bad", b->metric_case, b->metric_name,
			     fg >= MAX_FAILED_BOOTS ? fg : fb, fg >= MAX_FAILED_BOOTS ? ng : nb);
			break;
		}
		if (e == SEQ_ENDS_DIFFERENT && vg >= b->min_runs && vb >= b->min_runs) {
			b->phase = BISECT_STEPPING;
			save(x);
			progress_break(&x->pr);
			if (isfinite(b->endpoint_ratio))
				info("the endpoints differ after %zu boots each (bad/good %.4g, p %.3g): "
				     "bisecting the %zu commits between them", vg, b->endpoint_ratio,
				     b->endpoint_p, b->nr_commits - 2);
			else /* good's mean is 0 */
				info("the endpoints differ after %zu boots each (p %.3g): bisecting the %zu "
				     "commits between them", vg, b->endpoint_p, b->nr_commits - 2);
			break;
		}
		if (e == SEQ_ENDS_REVERSED) {
			stop(x, "the endpoints differ the other way: bad is better than good (bad/good %.4g, "
			     "p %.3g): nothing to bisect", b->endpoint_ratio, b->endpoint_p);
			break;
		}
		if (vg >= b->max_runs && vb >= b->max_runs) {
			stop(x, "good and bad do not differ significantly after %zu boots each (bad/good "
			     "%.4g, p %.3g): nothing to bisect", vg, b->endpoint_ratio, b->endpoint_p);
			break;
		}
choose:
		/* counting the boots begun as values to come */
		vg += pending_of(x, 0, 0);
		vb += pending_of(x, last, 0);
		if (vg >= b->max_runs && vb >= b->max_runs) {
			flush(x);
			continue;
		}
		/* A B B A ...: the side with fewer values next, good first on a
		 * tie in even rounds, bad first in odd ones; by values, not boots:
		 * a boot without a value is taken again, and the test looks only
		 * when both sides have as many values */
		if (vg < vb || (vg == vb && (vg % 2) == 0))
			boot(x, 0, 0, "good");
		else
			boot(x, last, 0, "bad");
	}
	free(g);
	free(d);
}

/* One step on commit c: boots until the decision or the budget. */
static void step(struct run_ctx *x, size_t c)
{
	struct bisect *b = x->b;
	size_t last = b->nr_commits - 1;
	unsigned s = (unsigned)b->nr_steps + 1;
	struct seq_params p = { b->alpha, b->min_runs, b->max_runs };
	double *g = xcalloc(BISECT_MAX_BOOTS, sizeof(double)), *d = xcalloc(BISECT_MAX_BOOTS, sizeof(double));
	double *v = xcalloc(BISECT_MAX_BOOTS, sizeof(double));
	struct bisect_step st = { c, { 0 } };
	struct bisect_commit *k = &b->commits[c];

	for (;;) {
		size_t ng = bisect_ref_values(b, 0, g, BISECT_MAX_BOOTS);
		size_t nb = bisect_ref_values(b, last, d, BISECT_MAX_BOOTS);
		size_t nc = bisect_values(b, c, s, v, BISECT_MAX_BOOTS), fc, fg, fb, kc, kg, kb, n;

		if (x->nr_pend) {
			/* boots begun beside others: the test looks when they are over */
			kc = boots_of(b, c, s, &fc);
			kg = boots_of(b, 0, s, &fg);
			kb = boots_of(b, last, s, &fb);
			goto choose;
		}
		seq_decide(g, ng, d, nb, v, nc, &p, &st.res);
		st.res.n = nc;
		if (st.res.decision != SEQ_UNDECIDED) {
			k->decision = st.res.decision;
			break;
		}
		if (k->build == BISECT_BUILD_FAILED) {
			k->skipped = 1;
			break;
		}
		kc = boots_of(b, c, s, &fc);
		kg = boots_of(b, 0, s, &fg);
		kb = boots_of(b, last, s, &fb);
		fg = bisect_failed_in_a_row(b, 0, s);
		fb = bisect_failed_in_a_row(b, last, s);
		if (nc >= b->max_runs) {
			k->skipped = 1;
			free(k->why);
			k->why = xasprintf("undecided after %zu boots (p like good %.3g, like bad %.3g, "
					   "level %.3g)", nc, st.res.p_good, st.res.p_bad, st.res.level);
			break;
		}
		if (fc >= MAX_FAILED_BOOTS && fc * 2 > kc) {
			k->skipped = 1;
			free(k->why);
			k->why = xasprintf("%zu of %zu boots gave no value (the last ended %s)", fc, kc,
					   b->boots[b->nr_boots - 1].verdict);
			break;
		}
		if (fg >= MAX_FAILED_BOOTS || fb >= MAX_FAILED_BOOTS) {
			stop(x, "the %s endpoint stopped giving values (%zu failed boots in a row in step %u)",
			     fg >= MAX_FAILED_BOOTS ? "good" : "bad", fg >= MAX_FAILED_BOOTS ? fg : fb, s);
			goto out;
		}
choose:
		/* counting the boots begun as values to come */
		nc += pending_of(x, c, s);
		ng += pending_of(x, 0, s);
		nb += pending_of(x, last, s);
		if (nc >= b->max_runs) {
			flush(x);
			continue;
		}
		/* C G B while there are fewer than two references a side, then
		 * C G C B: the candidate and both references interleaved */
		n = kc + kg + kb;
		if (ng < 2 || nb < 2) {
			if (n % 3 == 0)
				boot(x, c, s, "candidate");
			else if (ng <= nb)
				boot(x, 0, s, "good");
			else
				boot(x, last, s, "bad");
		} else if (kc <= kg + kb) {
			boot(x, c, s, "candidate");
		} else if (kg <= kb) {
			boot(x, 0, s, "good");
		} else {
			boot(x, last, s, "bad");
		}
	}
	b->steps = xrealloc(b->steps, (b->nr_steps + 1) * sizeof(*b->steps));
	b->steps[b->nr_steps++] = st;
	progress_break(&x->pr);
	info("step %u: %.12s is %s after %zu boots (p like good %.3g, like bad %.3g)", s, k->sha,
	     k->skipped ? "skipped" : seq_decision_name(k->decision), st.res.n, st.res.p_good,
	     st.res.p_bad);
	save(x);
out:
	free(g);
	free(d);
	free(v);
}

/* The lab compare table of the first bad commit against its parent. */
static void compare_first_bad(struct run_ctx *x, size_t lo, struct strbuf *out)
{
	struct bisect *b = x->b;
	size_t sides[2] = { b->first_bad - 1, b->first_bad };
	struct cmp_run pooled[2];
	struct strbuf err = STRBUF_INIT;
	struct comparison cmp;
	unsigned nr = 0;

	/* the parent when it was measured, else the last good commit */
	if (!bisect_values(b, sides[0], (unsigned)-1, (double[1]){ 0 }, 1))
		sides[0] = lo;
	memset(pooled, 0, sizeof(pooled));
	for (; nr < 2; nr++) {
		struct cmp_run runs[CMP_MAX_RUNS];
		size_t n = 0;

		memset(runs, 0, sizeof(runs));
		for (size_t i = b->nr_boots; i-- > 0 && n < CMP_MAX_RUNS; ) {
			if (b->boots[i].commit != sides[nr] || !isfinite(b->boots[i].value))
				continue;
			if (cmp_run_load(&runs[n], b->boots[i].run, &err) < 0) {
				cmp_run_release(&runs[n]);
				strbuf_reset(&err);
				continue;
			}
			n++;
		}
		if (!n || cmp_run_pool(&pooled[nr], runs, n, &err) < 0) {
			for (size_t i = 0; i < n; i++)
				cmp_run_release(&runs[i]);
			cmp_run_release(&pooled[nr]);
			strbuf_addf(out, "(no comparison: %s)\n", err.len ? err.buf : "no runs");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			cmp_run_release(&runs[i]);
		free(pooled[nr].label);
		pooled[nr].label = xasprintf("%.12s", b->commits[sides[nr]].sha);
	}
	if (cmp_runs_check(pooled, 2, &err) < 0) {
		strbuf_addf(out, "(no comparison: %s)\n", err.buf);
		goto out;
	}
	comparison_build(&cmp, pooled, 2);
	comparison_text(&cmp, 0, out);
	comparison_release(&cmp);
out:
	for (unsigned i = 0; i < nr; i++)
		cmp_run_release(&pooled[i]);
	strbuf_release(&err);
}

static void write_out(const char *dir, const char *name, const struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);

	if (write_file_atomic(path, sb->buf, sb->len) < 0)
		warning("cannot write '%s'", path);
	free(path);
}

static int finish(struct run_ctx *x, size_t lo, int json)
{
	struct bisect *b = x->b;
	struct strbuf text = STRBUF_INIT, log = STRBUF_INIT, cmp = STRBUF_INIT, html = STRBUF_INIT;

	if (b->phase == BISECT_DONE)
		compare_first_bad(x, lo, &cmp);
	save(x);
	bisect_text(b, &text);
	bisect_git_log(b, &log);
	bisect_html(b, cmp.buf, &html);
	write_out(x->dir, "bisect.txt", &text);
	write_out(x->dir, "bisect-log.txt", &log);
	write_out(x->dir, "compare.txt", &cmp);
	write_out(x->dir, "bisect.html", &html);
	if (json) {
		struct json_object *o = bisect_json(b);

		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		fwrite(text.buf, 1, text.len, stdout);
		printf("\ngit bisect log:\n%s", log.buf);
		if (cmp.len)
			printf("\nfirst bad commit against its parent:\n%s", cmp.buf);
		printf("bisect: directory %s (bisect.json, bisect.txt, bisect-log.txt, compare.txt, "
		       "bisect.html)\n", x->dir);
	}
	strbuf_release(&text);
	strbuf_release(&log);
	strbuf_release(&cmp);
	strbuf_release(&html);
	return b->phase == BISECT_DONE ? LAB_EXIT_PASS : LAB_EXIT_FAIL;
}

static int run_bisect(struct bisect *b, const char *dir, unsigned jobs, unsigned guests, int json)
{
	struct run_ctx x = { .b = b, .dir = dir, .jobs = jobs, .t0_ns = now_ns(),
			     .wall_before = b->wall_seconds };
	struct strbuf err = STRBUF_INIT;
	size_t next, lo = 0, hi = b->nr_commits - 1, left;

	x.fake_kernel = getenv(FAKE_KERNEL_ENV);
	if (x.fake_kernel && !*x.fake_kernel)
		x.fake_kernel = NULL;
	if (lab_run_deadline_s(b->topo, b->scenario ? b->scenario : b->suite, &x.deadline_s, &err) < 0 ||
	    jobs_plan(b->topo, b->clock && !strcmp(b->clock, "virtual"), guests, &x.guests, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	{
		struct strbuf note = STRBUF_INIT;
		int warn;

		jobs_note(&x.guests, &note, &warn);
		if (warn)
			warning("%s", note.buf);
		else
			info("%s", note.buf);
		strbuf_release(&note);
	}
	/* about log2(commits) steps of about 6 boots, and the endpoints' */
	for (left = b->nr_commits, next = 0; left > 1; left /= 2)
		next++;
	progress_init(&x.pr, "bisect", (unsigned)(4 + 6 * next), x.guests.n);
	if (b->phase == BISECT_ENDPOINTS)
		endpoints(&x);
	while (b->phase == BISECT_STEPPING) {
		if (!bisect_next(b, &next, &lo, &hi)) {
			int skips = 0;

			b->first_bad = hi;
			b->phase = BISECT_DONE;
			for (size_t i = lo + 1; i < hi; i++)
				skips += b->commits[i].skipped;
			if (skips) {
				struct strbuf m = STRBUF_INIT;

				strbuf_addstr(&m, "only skipped commits are left between the last good and "
					      "the first bad one; the first bad commit could be any of:");
				for (size_t i = lo + 1; i <= hi; i++)
					strbuf_addf(&m, " %.12s", b->commits[i].sha);
				free(b->message);
				b->message = strbuf_detach(&m);
			}
			break;
		}
		step(&x, next);
	}
	progress_break(&x.pr);
	if (b->phase == BISECT_DONE)
		bisect_next(b, &next, &lo, &hi);
	strbuf_release(&err);
	return finish(&x, lo, json);
}

int cmd_bisect(int argc, const char **argv)
{
	const char *good = NULL, *bad = NULL, *metric = NULL, *alpha = NULL, *dir = NULL;
	const char *ksrc = NULL, *topo = NULL, *scenario = NULL, *suite = NULL, *clock = NULL;
	struct strvec configs = STRVEC_INIT, patches = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, d = STRBUF_INIT;
	unsigned max_runs = 10, jobs = 0, guests = 0;
	int json = 0, nr_pos, ret;
	struct bisect b;
	const struct lab_option opts[] = {
		OPT_STRING("ksrc", &ksrc, "the kernel's git tree (never written: builds use a shared clone)"),
		OPT_STRING("good", &good, "a revision with the old behaviour"),
		OPT_STRING("bad", &bad, "a later revision with the new one"),
		OPT_STRING("topo", &topo, "topology spec or preset"),
		OPT_STRING("scenario", &scenario, "a scenario file to run at every boot"),
		OPT_STRING("suite", &suite, "or a suite under scenarios/suites/"),
		OPT_STRING("metric", &metric, "CASE:METRIC, the number that moved"),
		OPT_STRVEC("config", &configs, "Kconfig fragments (lab-base is always first)"),
		OPT_STRVEC("patch", &patches, "patches applied to every commit"),
		OPT_STRING("alpha", &alpha, "wrong decisions allowed per step (default 0.05)"),
		OPT_UINT("max-runs", &max_runs, 2, 100,
			 "boots of a commit per step, and of each endpoint, before giving up (default 10)"),
		OPT_STRING("clock", &clock, "wall (default) or virtual: every boot in QEMU icount time (docs/tcg.md)"),
		OPT_STRING("dir", &dir, "the bisection's directory; alone: resume it"),
		OPT_UINT("jobs", &guests, 1, JOBS_MAX, "guests at a time (default: the host's CPUs over the threads "
			 "a guest keeps busy: one under the virtual clock, one per vCPU on the wall clock)"),
		OPT_UINT("make-jobs", &jobs, 1, 1024, "make -j for the builds (default: online CPUs)"),
		OPT_BOOL("json", &json, "print bisect.json instead of the text"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, bisect_usage, NULL, 0, &nr_pos);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	bisect_init(&b);
	if (dir && !ksrc && !good && !bad && !topo && !scenario && !suite && !metric) {
		if (bisect_load(dir, &b, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		/* every boot of a bisection on the clock it started on */
		setenv("CLOCK", b.clock ? b.clock : "wall", 1);
		if (revs_check_tree(b.ksrc, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		if (b.phase == BISECT_ENDPOINTS || b.phase == BISECT_STEPPING)
			info("resuming the bisection in %s (%s; %zu boot%s and %zu step%s so far)", dir,
			     b.phase == BISECT_ENDPOINTS ? "measuring the endpoints" : "stepping",
			     b.nr_boots, b.nr_boots == 1 ? "" : "s", b.nr_steps, b.nr_steps == 1 ? "" : "s");
		ret = run_bisect(&b, dir, jobs, guests, json);
		bisect_release(&b);
		return ret;
	}
	if (!ksrc || !good || !bad || !topo || !metric || !scenario == !suite)
		die(LAB_EXIT_USAGE, "--ksrc, --good, --bad, --topo, --metric and one of --scenario or "
		    "--suite are required (see lab bisect --help)");
	b.ksrc = realpath(ksrc, NULL);
	if (!b.ksrc)
		die(LAB_EXIT_USAGE, "'%s' is not a git tree (it does not exist)", ksrc);
	b.good = xstrdup(good);
	b.bad = xstrdup(bad);
	b.topo = xstrdup(topo);
	if (clock && lab_clock_parse(clock) < 0)
		die(LAB_EXIT_USAGE, "unknown clock '%s' (wall or virtual)", clock);
	if (clock && lab_clock_parse(clock) > 0)
		b.clock = xstrdup("virtual");
	/* the child runs and their deadlines read it (run/matrix.c) */
	setenv("CLOCK", b.clock ? b.clock : "wall", 1);
	if (scenario) {
		b.scenario = realpath(scenario, NULL);
		if (!b.scenario)
			die(LAB_EXIT_USAGE, "scenario file '%s' does not exist", scenario);
	}
	b.suite = suite ? xstrdup(suite) : NULL;
	split_metric(metric, &b);
	if (alpha) {
		char *end;

		b.alpha = strtod(alpha, &end);
		if (*end || end == alpha || !(b.alpha >= 0.001 && b.alpha <= 0.2))
			die(LAB_EXIT_USAGE, "--alpha must be a number from 0.001 to 0.2, not '%s'", alpha);
	}
	b.max_runs = max_runs;
	for (size_t i = 0; i < configs.nr; i++)
		strvec_push(&b.configs, configs.v[i]);
	for (size_t i = 0; i < patches.nr; i++) {
		char *p = realpath(patches.v[i], NULL);

		if (!p)
			die(LAB_EXIT_USAGE, "patch '%s' does not exist", patches.v[i]);
		strvec_push(&b.patches, p);
		free(p);
	}
	validate(&b, good, bad, getenv(FAKE_KERNEL_ENV) && *getenv(FAKE_KERNEL_ENV) ?
		 getenv(FAKE_KERNEL_ENV) : NULL);
	if (dir) {
		struct strbuf p = STRBUF_INIT;

		strbuf_addf(&p, "%s/bisect.json", dir);
		if (is_file(p.buf))
			die(LAB_EXIT_USAGE, "'%s' already holds a bisection: resume it with 'lab bisect "
			    "--dir %s' alone", dir, dir);
		strbuf_release(&p);
		if (mkdir_p(dir, 0755) < 0)
			die(LAB_EXIT_FAIL, "cannot create '%s'", dir);
		strbuf_addstr(&d, dir);
	} else if (results_create_run(results_root(), "bisect", &d) < 0) {
		return LAB_EXIT_FAIL;
	}
	printf("bisect: %zu commits from good %.12s to bad %.12s, %s:%s on %s\nbisect: directory %s\n",
	       b.nr_commits - 1, b.commits[0].sha, b.commits[b.nr_commits - 1].sha, b.metric_case,
	       b.metric_name, b.topo, d.buf);
	fflush(stdout);
	ret = run_bisect(&b, d.buf, jobs, guests, json);
	bisect_release(&b);
	strvec_clear(&configs);
	strvec_clear(&patches);
	strbuf_release(&d);
	strbuf_release(&err);
	return ret;
}
