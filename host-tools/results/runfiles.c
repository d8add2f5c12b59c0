/* runfiles.c - the one writer and the one reader of each file of a run
 * directory; every reader is bounded and goes through lib/json. */
#define _GNU_SOURCE
#include "results/runfiles.h"
#include "results/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void results_add_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, json_object_new_string(v ? v : ""));
}

static char *path_in(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* ---- run.json ---- */

struct json_object *run_json_new(const char *command, const char *spec, const char *spec_resolved,
				 const char *topology, const char *backend)
{
	struct json_object *run = json_object_new_object();

	results_add_str(run, "lab_version", LAB_VERSION);
	results_add_str(run, "command", command);
	results_add_str(run, "spec", spec);
	results_add_str(run, "spec_resolved", spec_resolved);
	results_add_str(run, "topology", topology);
	results_add_str(run, "backend", backend);
	return run;
}

int run_json_write(const char *dir, struct json_object *run)
{
	return results_write_json(dir, "run.json", run);
}

static char *member_dup(struct json_object *o, const char *key)
{
	const char *s = json_get_str(o, key);

	return xstrdup(s ? s : "");
}

int run_parse(struct run_info *info, const char *text, size_t len, struct strbuf *err)
{
	struct json_object *o = json_read_object(text, len, RUNFILE_MAX, "run.json", err);

	if (!o)
		return -1;
	info->json = o;
	info->kernel = member_dup(o, "kernel");
	info->spec = member_dup(o, "spec");
	info->spec_resolved = member_dup(o, "spec_resolved");
	info->suite = member_dup(o, "suite");
	info->scenario = member_dup(o, "scenario");
	info->smt = member_dup(o, "smt");
	info->label = member_dup(o, "label");
	info->backend = member_dup(o, "backend");
	info->arch = xstrdup(json_get_str(o, "arch") && *json_get_str(o, "arch") ?
			     json_get_str(o, "arch") : "x86_64");
	return 0;
}

int run_load(struct run_info *info, const char *dir, int *missing, struct strbuf *err)
{
	char *path = path_in(dir, "run.json");
	size_t len;
	char *text = json_read_bounded(path, RUNFILE_MAX, &len, missing, err);
	int ret = -1;

	if (text)
		ret = run_parse(info, text, len, err);
	free(text);
	free(path);
	return ret;
}

void run_info_release(struct run_info *info)
{
	free(info->kernel);
	free(info->spec);
	free(info->spec_resolved);
	free(info->suite);
	free(info->scenario);
	free(info->smt);
	free(info->label);
	free(info->backend);
	free(info->arch);
	if (info->json)
		json_object_put(info->json);
	memset(info, 0, sizeof(*info));
}

/* ---- plan.txt ---- */

int run_plan_load(const char *dir, struct plan *p, struct strbuf *err)
{
	char *path = path_in(dir, "plan.txt"), *text, perr[512];
	size_t len;
	int ret = -1;

	text = read_file(path, &len);
	free(path);
	if (!text)
		strbuf_addf(err, "cannot read the plan of '%s': missing plan.txt", dir);
	else if (plan_parse(text, len, p, perr, sizeof(perr)) < 0)
		strbuf_addf(err, "cannot read the plan of '%s': %s", dir, perr);
	else
		ret = 0;
	free(text);
	return ret;
}

/* ---- verdict.json ---- */

struct json_object *verdict_json_new(const char *verdict, const char *reason, const char *topology)
{
	struct json_object *v = json_object_new_object();

	results_add_str(v, "verdict", verdict);
	results_add_str(v, "reason", reason);
	results_add_str(v, "topology", topology);
	return v;
}

int verdict_write(const char *dir, struct json_object *v)
{
	return results_write_json(dir, "verdict.json", v);
}

struct json_object *verdict_read(const char *dir, int *missing, struct strbuf *err)
{
	char *path = path_in(dir, "verdict.json");
	struct json_object *o = json_read_file(path, "verdict.json", RUNFILE_MAX, missing, err);

	free(path);
	return o;
}

int verdict_load(const char *dir, char *buf, size_t size, struct strbuf *err)
{
	struct json_object *o = verdict_read(dir, NULL, err);
	const char *s = o ? json_get_str(o, "verdict") : NULL;
	int ret = -1;

	if (s) {
		snprintf(buf, size, "%s", s);
		ret = 0;
	} else if (o) {
		strbuf_addf(err, "'%s/verdict.json' has no verdict", dir);
	}
	if (o)
		json_object_put(o);
	return ret;
}

/* ---- cases.json ---- */

struct json_object *cases_parse(const char *text, size_t len, struct json_object **cases,
				struct strbuf *err)
{
	struct json_object *o = json_read(text, len, RUNFILE_MAX, "cases.json", err);

	*cases = NULL;
	if (!o)
		return NULL;
	if (!json_object_is_type(o, json_type_object)) {
		strbuf_addstr(err, "cases.json is not a JSON object: no list of cases");
	} else if (!json_object_object_get_ex(o, "cases", cases) ||
		   !json_object_is_type(*cases, json_type_array)) {
		strbuf_addstr(err, "cases.json has no list of cases (no \"cases\" array)");
	} else {
		return o;
	}
	json_object_put(o);
	*cases = NULL;
	return NULL;
}

struct json_object *cases_load(const char *dir, struct json_object **cases, int *missing,
			       struct strbuf *err)
{
	char *path = path_in(dir, "cases.json");
	size_t len;
	char *text = json_read_bounded(path, RUNFILE_MAX, &len, missing, err);
	struct json_object *o = text ? cases_parse(text, len, cases, err) : NULL;

	free(text);
	free(path);
	return o;
}

/* ---- host-faults.jsonl ---- */

struct json_object *host_faults_parse(const char *text, size_t len, int strict, unsigned *bad,
				      struct strbuf *err)
{
	struct json_object *out = json_object_new_array();
	size_t line = 0;

	*bad = 0;
	for (size_t at = 0; at < len; line++) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		struct strbuf why = STRBUF_INIT;
		struct json_object *o;

		if (!n) {
			at++;
			continue;
		}
		o = json_read_object(text + at, n, HOST_FAULT_LINE_MAX, "host-faults.jsonl", &why);
		if (o) {
			strbuf_addf(&why, "host-faults.jsonl: line %zu is not a fault action", line + 1);
			if (!json_has(o, "case", json_type_string) ||
			    !json_has(o, "action", json_type_string)) {
				json_object_put(o);
				o = NULL;
			}
		} else {
			strbuf_addf(&why, " (line %zu)", line + 1);
		}
		if (o) {
			json_object_array_add(out, o);
		} else if (strict) {
			strbuf_addstr(err, why.buf);
			strbuf_release(&why);
			json_object_put(out);
			return NULL;
		} else {
			(*bad)++;
		}
		strbuf_release(&why);
		at += n + (nl != NULL);
	}
	return out;
}

struct json_object *host_faults_load(const char *dir, int strict, unsigned *bad, struct strbuf *err)
{
	char *path = path_in(dir, "host-faults.jsonl");
	struct strbuf why = STRBUF_INIT;
	size_t len;
	int missing;
	char *text = json_read_bounded(path, RUNFILE_MAX, &len, &missing, &why);
	struct json_object *o = NULL;

	*bad = 0;
	if (text)
		o = host_faults_parse(text, len, strict, bad, err);
	else if (missing)
		o = json_object_new_array();
	else
		strbuf_addstr(err, why.buf);
	strbuf_release(&why);
	free(text);
	free(path);
	return o;
}
