/* resume.c - stopping a run without losing it (signal handlers, the stop
 * record) and continuing it with the cases it did not finish. */
#define _GNU_SOURCE
#include "run/resume.h"
#include "common/plan.h"
#include "results/results.h"
#include "results/runfiles.h"
#include "results/runreport.h"
#include "lib/child.h"
#include "lib/json.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t run_stop_signal;

static void on_stop(int sig)
{
	if (run_stop_signal) {
		/* asked twice: the user means it */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	run_stop_signal = sig;
}

void run_stop_catch(void)
{
	/* no SA_RESTART: the session's poll() returns and sees the flag */
	signals_catch(on_stop, SIGINT, SIGTERM, 0);
}

int run_stop_record(const char *part, int sig, const char *last, const char *during)
{
	struct json_object *o = json_object_new_object();
	int ret;

	json_object_object_add(o, "signal", json_object_new_string(
		sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "other"));
	json_object_object_add(o, "last_case", last ? json_object_new_string(last) : NULL);
	json_object_object_add(o, "during", during ? json_object_new_string(during) : NULL);
	ret = results_write_json(part, RUN_STOPPED_FILE, o);
	json_object_put(o);
	return ret;
}

static void emit(void *ctx, const char *s, size_t len)
{
	strbuf_add(ctx, s, len);
}

int plan_without_cases(const char *plan, size_t len, const struct strvec *skip,
		       struct strbuf *out, unsigned *kept, struct strbuf *err)
{
	struct plan p = { 0 };
	char perr[256];

	*kept = 0;
	if (plan_parse(plan, len, &p, perr, sizeof(perr)) < 0) {
		strbuf_addf(err, "cannot read the plan: %s", perr);
		return -1;
	}
	plan_write_header(emit, out);
	for (unsigned i = 0; i < p.nr_cases; i++) {
		size_t k;

		for (k = 0; k < skip->nr; k++)
			if (!strcmp(skip->v[k], p.cases[i].id))
				break;
		if (k < skip->nr)
			continue;
		if (plan_write_case(&p.cases[i], emit, out, perr, sizeof(perr)) < 0) {
			strbuf_addf(err, "cannot write the plan: %s", perr);
			plan_release(&p);
			return -1;
		}
		(*kept)++;
	}
	plan_release(&p);
	return 0;
}

/* The run, cases and verdict files of dir through the results model; one
 * line "'<dir>' is not a run to resume: <why>" otherwise. */
static int not_a_run(const char *dir, struct strbuf *why, struct strbuf *err)
{
	strbuf_addf(err, "'%s' is not a run to resume: %s", dir, why->buf);
	strbuf_release(why);
	return -1;
}

/* A copy of the string member key of o, NULL when absent or not a string. */
/* A run_info field, NULL where run.json had none (or an empty one). */
static char *present(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

static char *member(struct json_object *o, const char *key)
{
	const char *s = json_get_str(o, key);

	return s ? xstrdup(s) : NULL;
}

/* An array of strings joined by ',', or a {"name": number} object as
 * "name=number,...": NULL when absent, empty or of another shape. */
static char *joined(struct json_object *o, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v) && i < 64; i++) {
			struct json_object *x = json_object_array_get_idx(v, i);

			if (json_object_is_type(x, json_type_string))
				strbuf_addf(&sb, "%s%.64s", sb.len ? "," : "", json_object_get_string(x));
		}
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, name, n)
			if (json_object_is_type(n, json_type_int))
				strbuf_addf(&sb, "%s%.64s=%lld", sb.len ? "," : "", name,
					    (long long)json_object_get_int64(n));
	}
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

void run_resume_boot(struct run_resume *rr, struct json_object *run)
{
	const char *smt = json_get_str(run, "smt");

	rr->sched_feat = joined(run, "sched_feat");
	rr->sched_knob = joined(run, "sched_knob");
	rr->preempt = member(run, "preempt");
	rr->smt_off = smt && !strcmp(smt, "off");
}

int run_resume_load(struct run_resume *rr, const char *dir, struct strbuf *err)
{
	struct json_object *doc = NULL, *cases, *verdict;
	struct strvec done = STRVEC_INIT;
	char *path, *text, *cmd = NULL, *during = NULL;
	size_t len;
	int ret = -1;

	rr->dir = xstrdup(dir);
	{
		struct run_info info = RUN_INFO_INIT;
		struct strbuf why = STRBUF_INIT;

		if (run_load(&info, dir, NULL, &why) < 0) {
			run_info_release(&info);
			return not_a_run(dir, &why, err);
		}
		/* the results model parsed run.json; take what a resume needs */
		cmd = member(info.json, "command");
		rr->kernel_image = member(info.json, "kernel_image");
		rr->clock = member(info.json, "clock");
		{
			struct json_object *v;
			int64_t seed;

			if (json_object_object_get_ex(info.json, "seed", &v) &&
			    json_object_is_type(v, json_type_int) &&
			    (seed = json_object_get_int64(v)) >= 1 && seed <= 2147483647)
				rr->seed = (unsigned)seed;
		}
		run_resume_boot(rr, info.json);
		rr->spec = present(info.spec);
		rr->spec_resolved = present(info.spec_resolved);
		rr->kernel = present(info.kernel);
		rr->suite = present(info.suite);
		rr->scenario = present(info.scenario);
		rr->label = present(info.label);
		run_info_release(&info);
		strbuf_release(&why);
	}
	if (!cmd || strcmp(cmd, "run") || !rr->spec || !rr->spec_resolved || !rr->kernel) {
		strbuf_addf(err, "'%s' is not a 'lab run' directory (run.json)", dir);
		goto out;
	}
	path = xasprintf("%s/plan.txt", dir);
	text = read_file(path, &len);
	free(path);
	if (!text) {
		strbuf_addf(err, "'%s' has no plan.txt to resume", dir);
		goto out;
	}
	strbuf_add(&rr->plan, text, len);
	free(text);
	/* what finished is what cases.json judged; NOTRUN is not finished,
	 * nor the case a timeout cut short (verdict.json names it) */
	{
		struct strbuf why = STRBUF_INIT;

		if (!(doc = cases_load(dir, &cases, NULL, &why))) {
			not_a_run(dir, &why, err);
			goto out;
		}
	}
	{
		/* a run killed hard has cases.json but no verdict: nothing was cut short */
		struct strbuf why = STRBUF_INIT;

		verdict = verdict_read(dir, NULL, &why);
		if (verdict) {
			during = member(verdict, "stopped_during");
			json_object_put(verdict);
		}
		strbuf_release(&why);
	}
	if (cases)
		for (size_t i = 0; i < json_object_array_length(cases); i++) {
			struct json_object *c = json_object_array_get_idx(cases, i), *id, *v;

			if (json_object_object_get_ex(c, "case", &id) &&
			    !(json_object_object_get_ex(c, "verdict", &v) &&
			      !strcmp(json_object_get_string(v), "NOTRUN")) &&
			    !(during && !strcmp(during, json_object_get_string(id))))
				strvec_push(&done, json_object_get_string(id));
		}
	rr->done = (unsigned)done.nr;
	if (plan_without_cases(rr->plan.buf, rr->plan.len, &done, &rr->plan_left, &rr->left, err) < 0)
		goto out;
	if (!rr->left) {
		strbuf_addf(err, "'%s' has no case left to run", dir);
		goto out;
	}
	ret = 0;
out:
	free(cmd);
	free(during);
	json_object_put(doc);
	strvec_clear(&done);
	return ret;
}

int run_resume_check(const struct run_resume *rr, const char *spec_resolved,
		     const char *kernel_release, const char *plan, size_t plan_len,
		     struct strbuf *err)
{
	if (spec_resolved && strcmp(spec_resolved, rr->spec_resolved)) {
		strbuf_addf(err, "cannot resume '%s' on topology %s: it ran on %s", rr->dir,
			    spec_resolved, rr->spec_resolved);
		return -1;
	}
	if (kernel_release && strcmp(kernel_release, rr->kernel)) {
		strbuf_addf(err, "cannot resume '%s' with kernel %s: it ran %s", rr->dir,
			    kernel_release, rr->kernel);
		return -1;
	}
	if (plan && (plan_len != rr->plan.len || memcmp(plan, rr->plan.buf, plan_len))) {
		strbuf_addf(err, "cannot resume '%s' with another plan: its suite or scenarios changed",
			    rr->dir);
		return -1;
	}
	return 0;
}

int run_resume_start(struct run_resume *rr, struct strbuf *err)
{
	char *path;

	for (unsigned k = 1; k < 1000; k++) {
		rr->part = xasprintf("%s/" RUN_RESUME_PREFIX "%u", rr->dir, k);
		if (mkdir(rr->part, 0755) == 0)
			break;
		if (errno != EEXIST) {
			strbuf_addf(err, "cannot create '%s': %s", rr->part, strerror(errno));
			return -1;
		}
		free(rr->part);
		rr->part = NULL;
	}
	if (!rr->part) {
		strbuf_addf(err, "'%s' was resumed too often", rr->dir);
		return -1;
	}
	path = xasprintf("%s/plan.txt", rr->part);
	if (write_file_atomic_err(path, rr->plan_left.buf, rr->plan_left.len, err) < 0) {
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

void run_resume_release(struct run_resume *rr)
{
	free(rr->dir);
	free(rr->part);
	free(rr->spec);
	free(rr->spec_resolved);
	free(rr->kernel);
	free(rr->kernel_image);
	free(rr->suite);
	free(rr->scenario);
	free(rr->label);
	free(rr->clock);
	free(rr->sched_feat);
	free(rr->sched_knob);
	free(rr->preempt);
	strbuf_release(&rr->plan);
	strbuf_release(&rr->plan_left);
	memset(rr, 0, sizeof(*rr));
}
