/* lavaimport.c - a finished LAVA job into a results directory: the console
 * lines of its log, the records rebuilt from them, the topology verified, the
 * scheduler settings checked, and LAVA's end of the job mapped to a verdict. */
#define _GNU_SOURCE
#include "run/lavaimport.h"
#include "common/wire.h"
#include "common/wiretext.h"
#include "kernel/kgen.h"
#include "results/console.h"
#include "results/lavalog.h"
#include "results/results.h"
#include "results/runfiles.h"
#include "results/runreport.h"
#include "run/schedfeat.h"
#include "run/schedknob.h"
#include "topo/guestview.h"
#include "topo/hosttopo.h"
#include "topo/topo.h"
#include "topo/verify.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A key of the metadata: 0 with *out (NULL when absent and not needed),
 * or -1 with one line in err. */
static int meta_str(struct json_object *o, const char *key, int need, const char *file,
		    const char **out, struct strbuf *err)
{
	struct json_object *v = json_object_object_get(o, key);

	*out = NULL;
	if (!v || json_object_is_type(v, json_type_null)) {
		if (need)
			strbuf_addf(err, "'%s': no \"%s\" (it needs server, job_id, device, "
				    "device_type, health)", file, key);
		return need ? -1 : 0;
	}
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int)) {
		strbuf_addf(err, "'%s': \"%s\" is not a string", file, key);
		return -1;
	}
	*out = json_object_get_string(v);
	return 0;
}

int lava_job_meta_read(const char *file, struct json_object **owner, struct lava_job_meta *m,
		       struct strbuf *err)
{
	const struct { const char *key; size_t off; int need; } keys[] = {
#define K(name, need) { #name, offsetof(struct lava_job_meta, name), need }
		K(server, 1), K(job_id, 1), K(device, 1), K(device_type, 1), K(health, 1),
		K(error_type, 0), K(error_msg, 0), K(spec, 0), K(suite, 0), K(scenario, 0),
		K(kernel, 0), K(label, 0), K(smt, 0), K(sched_feat, 0), K(sched_knob, 0),
		K(preempt, 0), K(append, 0),
#undef K
	};
	struct json_object *o = json_object_from_file(file);

	memset(m, 0, sizeof(*m));
	*owner = NULL;
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		strbuf_addf(err, "'%s': not a JSON object", file);
		return LAB_EXIT_USAGE;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (meta_str(o, keys[i].key, keys[i].need, file,
			     (const char **)((char *)m + keys[i].off), err) < 0) {
			json_object_put(o);
			return LAB_EXIT_USAGE;
		}
	if (m->smt && strcmp(m->smt, "on") && strcmp(m->smt, "off")) {
		json_object_put(o);
		strbuf_addf(err, "'%s': smt is '%s', not on or off", file, m->smt);
		return LAB_EXIT_USAGE;
	}
	*owner = o;
	return LAB_EXIT_PASS;
}

/* The scheduler settings asked for, parsed. */
struct wants {
	struct sched_feat_list feat;
	struct sched_knob_set knobs;
	int preempt_mode;
	int smt_off;
};

static int wants_parse(const struct lava_job_meta *m, struct wants *w, struct strbuf *err)
{
	memset(w, 0, sizeof(*w));
	w->preempt_mode = -1;
	w->smt_off = m->smt && !strcmp(m->smt, "off");
	if (m->sched_feat && sched_feat_request("sched_feat", m->sched_feat, &w->feat, err) < 0)
		return -1;
	if (m->sched_knob && sched_knob_request("sched_knob", m->sched_knob, &w->knobs, err) < 0)
		return -1;
	if (m->preempt && sched_preempt_request("preempt", m->preempt, &w->preempt_mode, err) < 0)
		return -1;
	return 0;
}

/* The import as it goes: console text, rebuilt records, what LAVA said. */
struct lava_import {
	struct strbuf console, records, sysfs;
	struct wiretext_decoder text;
	char *log_error_type, *log_error_msg, *last_error;
	unsigned long target_lines, lava_lines;
};

static void on_frame(const void *frame, size_t len, void *ctx)
{
	strbuf_add(&((struct lava_import *)ctx)->records, frame, len);
}

static void keep(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}

static void on_entry(const struct lava_entry *e, void *ctx)
{
	struct lava_import *im = ctx;

	if (!strcmp(e->lvl, "target") && e->msg) {
		/* LAVA keeps a console line without its end */
		strbuf_add(&im->console, e->msg, e->msg_len);
		strbuf_addch(&im->console, '\n');
		wiretext_decoder_feed(&im->text, e->msg, e->msg_len, on_frame, im);
		wiretext_decoder_feed(&im->text, "\n", 1, on_frame, im);
		im->target_lines++;
		return;
	}
	im->lava_lines++;
	if (e->error_type)
		keep(&im->log_error_type, e->error_type);
	if (e->error_msg)
		keep(&im->log_error_msg, e->error_msg);
	if ((!strcmp(e->lvl, "error") || !strcmp(e->lvl, "exception")) && e->msg)
		keep(&im->last_error, e->msg);
}

static int on_record(const struct wire_record *rec, void *ctx)
{
	struct strbuf *sysfs = ctx;

	if (rec->type == WIRE_SYSFS) {
		strbuf_add(sysfs, rec->payload, rec->len);
		if (sysfs->len && sysfs->buf[sysfs->len - 1] != '\n')
			strbuf_addch(sysfs, '\n');
	}
	return 0;
}

static void lava_import_release(struct lava_import *im)
{
	wiretext_decoder_release(&im->text);
	strbuf_release(&im->console);
	strbuf_release(&im->records);
	strbuf_release(&im->sysfs);
	free(im->log_error_type);
	free(im->log_error_msg);
	free(im->last_error);
}

static enum verdict verdict_by_name(const char *name)
{
	for (int v = VERDICT_PASS; v <= VERDICT_STOPPED; v++)
		if (!strcmp(verdict_name((enum verdict)v), name))
			return (enum verdict)v;
	return VERDICT_FAIL;
}

/* run.json: a local run's keys, and where LAVA ran it */
static struct json_object *run_json(const struct lava_job_meta *m, const struct wants *w,
				    const struct topo *topo, const char *desc, const char *hspec,
				    const char *notes, struct json_object *guest, const char *etype,
				    const char *emsg)
{
	struct json_object *run, *lava;

	run = run_json_new("lava-import", m->spec ? m->spec : hspec, m->spec || *hspec ? topo->spec : "",
			   desc, "lava");
	if (!m->spec && *hspec) {
		results_add_str(run, "topology_notes", notes);
		json_object_object_add(run, "host_topology", json_object_get(guest));
	}
	/* a LAVA device runs on the wall clock, as a KVM or bare-metal run */
	results_add_str(run, "clock", "wall");
	lava = json_object_new_object();
	results_add_str(lava, "server", m->server);
	results_add_str(lava, "job_id", m->job_id);
	results_add_str(lava, "device", m->device);
	results_add_str(lava, "device_type", m->device_type);
	results_add_str(lava, "health", m->health);
	if (etype)
		results_add_str(lava, "error_type", etype);
	if (emsg)
		results_add_str(lava, "error_msg", emsg);
	json_object_object_add(run, "lava", lava);
	json_object_object_add(run, "records", json_object_new_string("console"));
	if (m->kernel)
		results_add_str(run, "kernel", m->kernel);
	if (m->suite)
		results_add_str(run, "suite", m->suite);
	if (m->scenario)
		results_add_str(run, "scenario", m->scenario);
	if (m->label)
		results_add_str(run, "label", m->label);
	/* as lab run records them, so lab compare labels and pairs the runs */
	if (m->spec)
		results_add_str(run, "smt", topo->threads < 2 ? "none" : w->smt_off ? "off" : "on");
	else if (w->smt_off)
		results_add_str(run, "smt", "off");
	if (w->feat.nr)
		json_object_object_add(run, "sched_feat", sched_feat_json(&w->feat));
	if (w->knobs.nr)
		json_object_object_add(run, "sched_knob", sched_knob_json(&w->knobs));
	if (w->preempt_mode >= 0)
		results_add_str(run, "preempt", sched_preempt_name(w->preempt_mode));
	if (m->append)
		results_add_str(run, "append", m->append);
	return run;
}

/* The guest's view, and its differences from what the spec says the
 * kernel it ran (the view's "kernel") shows, as lab run verifies it. */
static int verify(const struct lava_job_meta *m, const struct wants *w, const struct topo *topo,
		  struct json_object *guest, const char *tmp, struct strbuf *diff)
{
	struct json_object *k = NULL, *expected;
	struct topo_kernel_facts facts;
	const struct kernel_gen *g = NULL;
	int ndiff;

	if (!guest || !m->spec)
		return -1;
	if (json_object_object_get_ex(guest, "kernel", &k) && json_object_is_type(k, json_type_string))
		g = kgen_for_release(json_object_get_string(k));
	expected = topo_expected_view_gen(topo, w->smt_off, kgen_topo_facts(g, &facts));
	results_write_json(tmp, "expected-topology.json", expected);
	ndiff = view_compare(expected, guest, diff, 40);
	json_object_put(expected);
	return ndiff;
}

/* sched-features.json and sched-knobs.json from the snapshot, and why a
 * setting asked for did not hold ("" when all did). */
static void sched_settings(const struct wants *w, const char *sysfs, size_t len, const char *release,
			   const char *tmp, struct strbuf *bad)
{
	struct sched_feat_list *state = xmalloc(sizeof(*state));
	struct strbuf why = STRBUF_INIT, err = STRBUF_INIT;

	if (sched_feat_report(tmp, &w->feat, sysfs, len, release, state, &why, &err) < 0)
		strbuf_add(bad, err.buf, err.len);
	else if (w->feat.nr && why.len)
		strbuf_add(bad, why.buf, why.len);
	strbuf_reset(&why);
	strbuf_reset(&err);
	if (sched_knob_report(tmp, &w->knobs, w->preempt_mode, sysfs, len, release, &why, &err) < 0) {
		if (!bad->len)
			strbuf_add(bad, err.buf, err.len);
	} else if ((w->knobs.nr || w->preempt_mode >= 0) && why.len && !bad->len) {
		strbuf_add(bad, why.buf, why.len);
	}
	free(state);
	strbuf_release(&why);
	strbuf_release(&err);
}

int lava_import_run(const struct lava_job_meta *m, const char *log_path, const char *plan_path,
		    const char *root, struct lava_import_result *res, struct strbuf *err)
{
	struct lava_import im = { .console = STRBUF_INIT, .records = STRBUF_INIT, .sysfs = STRBUF_INIT };
	struct strbuf desc = STRBUF_INIT, hspec = STRBUF_INIT, notes = STRBUF_INIT, bad = STRBUF_INIT;
	struct strbuf why = STRBUF_INIT;
	struct json_object *run, *v, *guest = NULL, *k;
	const struct lava_health_map *map;
	struct console_watch cw;
	struct wire_decoder wd;
	struct wants w;
	struct topo topo;
	const char *etype, *emsg, *release;
	char *log = NULL, *plan = NULL, *tmp = NULL, *label;
	size_t log_len, plan_len;
	int ret = LAB_EXIT_USAGE, failed_cases, complete;

	wiretext_decoder_init(&im.text);
	if (wants_parse(m, &w, &why) < 0) {
		strbuf_addf(err, "job metadata: %s", why.buf);
		goto out;
	}
	if (m->spec) {
		if (topo_parse(m->spec, &topo, &why) < 0) {
			strbuf_addf(err, "job metadata: spec: %s", why.buf);
			goto out;
		}
		if (w.smt_off && topo.threads < 2) {
			strbuf_addf(err, "job metadata: smt off needs a topology with SMT: '%s' has one thread per core", m->spec);
			goto out;
		}
		topo_describe(&topo, &desc);
	}
	log = read_file(log_path, &log_len);
	if (!log) {
		strbuf_addf(err, "cannot read '%s': %s", log_path, strerror(errno));
		goto out;
	}
	plan = read_file(plan_path, &plan_len);
	if (!plan) {
		strbuf_addf(err, "cannot read '%s': %s", plan_path, strerror(errno));
		goto out;
	}
	if (lava_log_parse(log, log_len, on_entry, &im, &why) < 0) {
		strbuf_addf(err, "'%s': %s", log_path, why.buf);
		goto out;
	}
	wiretext_decoder_finish(&im.text, on_frame, &im);
	etype = m->error_type ? m->error_type : im.log_error_type;
	emsg = m->error_msg ? m->error_msg : im.log_error_msg ? im.log_error_msg : im.last_error;
	map = lava_health_lookup(m->health, etype);
	if (!map) {
		strbuf_addf(err, "job metadata: health '%s' is not a finished LAVA job's (Complete, Incomplete, Canceled)",
			    m->health);
		goto out;
	}

	/* built aside and renamed at the end: never a half-imported run */
	ret = LAB_EXIT_FAIL;
	if (mkdir_p(root, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", root, strerror(errno));
		goto out;
	}
	tmp = xasprintf("%s/.lava-import-XXXXXX", root);
	if (!mkdtemp(tmp)) {
		strbuf_addf(err, "cannot create a directory in '%s': %s", root, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (write_file_in(tmp, "console.log", im.console.buf, im.console.len, err) < 0 ||
	    write_file_in(tmp, "records.bin", im.records.buf, im.records.len, err) < 0 ||
	    write_file_in(tmp, "plan.txt", plan, plan_len, err) < 0)
		goto out;

	wire_decoder_init(&wd);
	wire_decoder_feed(&wd, im.records.buf, im.records.len, on_record, &im.sysfs);
	complete = wire_decoder_finish(&wd) == 0;
	console_watch_init(&cw);
	console_watch_feed(&cw, im.console.buf, im.console.len);
	console_watch_finish(&cw);

	if (im.sysfs.len) {
		guest = guest_view_from_sysfs_flags(im.sysfs.buf, im.sysfs.len,
						    m->spec && topo.arch == TOPO_ARCH_ARM64 ? GUEST_VIEW_CLUSTERS : 0,
						    &why);
		strbuf_reset(&why);
	}
	/* a machine of its own (no spec: the job set no topology) is
	 * recorded as lab bare records its host: the spec of what the
	 * runner saw, the view itself, and no topology verdict */
	if (!m->spec && guest && hosttopo_from_view(guest, &topo, &hspec, &notes, &why) == 0)
		topo_describe(&topo, &desc);
	strbuf_reset(&why);
	run = run_json(m, &w, &topo, desc.buf, hspec.buf, notes.buf, guest, etype, emsg);
	if (run_json_write(tmp, run) < 0) {
		json_object_put(run);
		strbuf_addf(err, "cannot write run.json in '%s'", tmp);
		goto out_wire;
	}
	json_object_put(run);
	if (guest)
		results_write_json(tmp, "guest-topology.json", guest);
	res->ndiff = verify(m, &w, &topo, guest, tmp, &res->diff);
	res->unverified = !m->spec ? "no spec in the job's metadata" : "the guest sent no topology snapshot";
	release = guest && json_object_object_get_ex(guest, "kernel", &k) ? json_object_get_string(k) :
		  m->kernel ? m->kernel : "?";
	if (im.sysfs.len)
		sched_settings(&w, im.sysfs.buf, im.sysfs.len, release, tmp, &bad);

	failed_cases = run_report_build(tmp, &res->cases, &why);
	if (failed_cases < 0) {
		strbuf_add(err, why.buf, why.len);
		ret = LAB_EXIT_USAGE;
		goto out_wire;
	}

	/* the same order of evidence as a local run's session */
	if (!map->own) {
		res->verdict = verdict_by_name(map->verdict);
		if (res->verdict == VERDICT_HANG && cw.worst == CON_CRASH)
			res->verdict = VERDICT_CRASH;
		snprintf(res->reason, sizeof(res->reason), "%s%s%.250s%s%.150s", map->prefix,
			 emsg ? ": " : "", emsg ? emsg : "",
			 res->verdict == VERDICT_CRASH ? "; kernel crashed at console line " : "",
			 res->verdict == VERDICT_CRASH ? cw.first : "");
	} else if (cw.worst == CON_CRASH || cw.worst == CON_REBOOT) {
		res->verdict = VERDICT_CRASH;
		snprintf(res->reason, sizeof(res->reason), "kernel crashed at console line %lu: %.300s",
			 cw.first_line_no, cw.first);
	} else if (!complete) {
		res->verdict = VERDICT_FAIL;
		snprintf(res->reason, sizeof(res->reason),
			 "record stream incomplete: %llu received, %llu missing, %llu corrupt, end %s",
			 (unsigned long long)wd.records, (unsigned long long)wd.missing,
			 (unsigned long long)(wd.bad_crc + wd.bad_header + im.text.bad_lines),
			 wd.ended ? "seen" : "never seen");
	} else if (cw.worst == CON_SPLAT) {
		res->verdict = VERDICT_FAIL;
		snprintf(res->reason, sizeof(res->reason), "kernel splat at console line %lu: %.300s",
			 cw.first_line_no, cw.first);
	} else if (res->ndiff > 0) {
		res->verdict = VERDICT_FAIL;
		snprintf(res->reason, sizeof(res->reason), "guest topology differs");
	} else if (bad.len) {
		/* a local run refuses a setting the kernel lacks before any
		 * case counts; here the job has run: its verdict says so */
		res->verdict = VERDICT_FAIL;
		snprintf(res->reason, sizeof(res->reason), "%.500s", bad.buf);
	} else if (failed_cases) {
		res->verdict = VERDICT_FAIL;
		snprintf(res->reason, sizeof(res->reason), "%d case%s did not pass", failed_cases,
			 failed_cases == 1 ? "" : "s");
	} else {
		res->verdict = VERDICT_PASS;
		snprintf(res->reason, sizeof(res->reason), "%llu records, console clean",
			 (unsigned long long)wd.records);
	}
	v = verdict_json_new(verdict_name(res->verdict), res->reason,
			     res->ndiff < 0 ? "not verified" : res->ndiff ? "FAIL" : "PASS");
	results_add_str(v, "backend", "lava");
	json_object_object_add(v, "records", json_object_new_int64((int64_t)wd.records));
	json_object_object_add(v, "records_missing", json_object_new_int64((int64_t)wd.missing));
	json_object_object_add(v, "records_corrupt", json_object_new_int64((int64_t)(wd.bad_crc + wd.bad_header)));
	json_object_object_add(v, "console_lines_bad", json_object_new_int64((int64_t)im.text.bad_lines));
	json_object_object_add(v, "cases", json_object_new_int(
		res->cases ? (int)json_object_array_length(res->cases) : 0));
	json_object_object_add(v, "cases_failed", json_object_new_int(failed_cases));
	if (verdict_write(tmp, v) < 0) {
		json_object_put(v);
		strbuf_addf(err, "cannot write verdict.json in '%s'", tmp);
		goto out_wire;
	}
	json_object_put(v);

	label = xasprintf("lava-%s", m->job_id);
	if (results_create_run(root, label, &res->dir) < 0 || rename(tmp, res->dir.buf) < 0) {
		strbuf_addf(err, "cannot move the import into place: %s", strerror(errno));
		if (res->dir.len)
			rmdir(res->dir.buf);
		free(label);
		goto out_wire;
	}
	free(label);
	free(tmp);
	tmp = NULL;
	ret = LAB_EXIT_PASS;
out_wire:
	wire_decoder_release(&wd);
out:
	if (tmp)
		remove_tree(tmp);
	free(tmp);
	json_object_put(guest);
	lava_import_release(&im);
	strbuf_release(&desc);
	strbuf_release(&hspec);
	strbuf_release(&notes);
	strbuf_release(&bad);
	strbuf_release(&why);
	free(log);
	free(plan);
	return ret;
}

void lava_import_print(const struct lava_import_result *res)
{
	run_report_print(res->cases);
	if (res->ndiff > 0)
		printf("topology: FAIL\n%s", res->diff.buf);
	else
		printf("topology: %s%s%s\n", res->ndiff < 0 ? "not verified (" : "PASS",
		       res->ndiff < 0 ? res->unverified : "", res->ndiff < 0 ? ")" : "");
	printf("verdict: %s: %s\n", verdict_name(res->verdict), res->reason);
	printf("results: %s\n", res->dir.buf);
}

void lava_import_result_release(struct lava_import_result *res)
{
	json_object_put(res->cases);
	res->cases = NULL;
	strbuf_release(&res->dir);
	strbuf_release(&res->diff);
}
