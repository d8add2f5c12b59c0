/* cmd-lava-farm.c - `lab lava submit`, `lab lava follow` and `lab lava
 * run`: the lab's side of a LAVA server (docs/lava.md).  export and import
 * (cmd-lava.c) work on files; these talk to the server through
 * lava/client.c, with the token from $LAVA_TOKEN or --token-file only. */
#define _GNU_SOURCE
#include "cmd/lab.h"
#include "cmd/options.h"
#include "lava/client.h"
#include "lib/json.h"
#include "results/lavalog.h"
#include "results/results.h"
#include "run/lavaexport.h"
#include "run/lavaimport.h"
#include "run/lavajob.h"
#include "run/resume.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FOLLOW_POLL_S 2
#define FOLLOW_DEFAULT_TIMEOUT_S (6 * 3600)
/*
 * A queued job whose device type has no usable device (lava_device_usable:
 * all Bad after a failed health check, in Maintenance or Retired) waits in
 * LAVA's queue until an admin acts, which is not what a fleet's run should
 * do.  While the job is queued, its device type's devices are looked at
 * every FOLLOW_DEVICES_S; when none has been usable for FOLLOW_NO_DEVICE_GRACE_S
 * (an admin or a health check bringing one back in that time resets it),
 * the job is canceled and ends as an infrastructure error naming the
 * devices and their last health check's words (docs/lava.md).
 */
#define FOLLOW_DEVICES_S 20
#define FOLLOW_NO_DEVICE_GRACE_S 60
/* the reason fits the import's verdict reason, which keeps 250 bytes */
#define NO_DEVICE_REASON_MAX 250

static const char submit_usage[] =
	"lab lava submit --server URL [--token-file F] JOB (a job definition, as lab lava export writes it)";
static const char follow_usage[] =
	"lab lava follow --server URL [--token-file F] [--timeout S] --out DIR JOB_ID";
static const char run_usage[] =
	"lab lava run --server URL [--token-file F] --artifacts URL --dir DIR [--topo SPEC] "
	"(--suite S | --scenario FILE) [--kernel K] [--accel tcg|kvm] [--device-type T] "
	"[--smt on|off] [--sched-feat NO_X,Y] [--sched-knob K=V] [--preempt MODE] [--append ARGS] "
	"[--label L] [--publish PUB | --artifacts-served] [--results ROOT]";

static void server_or_die(struct lava_server *s, const char *url, const char *token_file)
{
	struct strbuf err = STRBUF_INIT;

	if (!url)
		die(LAB_EXIT_USAGE, "--server URL is needed (the LAVA server, http://host:port)");
	if (lava_server_init(s, url, token_file, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	strbuf_release(&err);
}

/* Submits the definition in path: the job's id, or exit 2 with LAVA's
 * words (removing `made` first, a directory of ours nothing is in yet,
 * and `published`, the copy a web server was to serve the job). */
static long submit_file(const struct lava_server *s, const char *path, const char *made,
			const char *published)
{
	struct strbuf err = STRBUF_INIT;
	size_t len = 0;
	char *def = read_file(path, &len);
	long id = 0;

	if (!def)
		die(LAB_EXIT_USAGE, "cannot read the job definition '%s': %s", path, strerror(errno));
	if (!s->token[0])
		die(LAB_EXIT_USAGE, "submitting needs a token: $LAVA_TOKEN or --token-file");
	if (memchr(def, '\0', len))
		die(LAB_EXIT_USAGE, "'%s' is not a text file", path);
	if (lava_submit(s, def, &id, &err) < 0) {
		if (made)
			remove_tree(made);
		if (published)
			remove_tree(published);
		die(LAB_EXIT_USAGE, "%s", err.buf);
	}
	free(def);
	strbuf_release(&err);
	return id;
}

int cmd_lava_submit(int argc, const char **argv)
{
	const char *url = NULL, *token_file = NULL, *pos[1];
	const struct lab_option opts[] = {
		OPT_STRING("server", &url, "the LAVA server (http://host:port)"),
		OPT_STRING("token-file", &token_file, "a file (mode 600) holding the API token ($LAVA_TOKEN wins)"),
		OPT_END(),
	};
	struct lava_server s;
	int nr_pos, r;

	r = parse_options(argc, argv, opts, submit_usage, pos, 1, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1)
		die(LAB_EXIT_USAGE, "one job definition is needed (usage: %s)", submit_usage);
	server_or_die(&s, url, token_file);
	printf("%ld\n", submit_file(&s, pos[0], NULL, NULL));
	memset(&s, 0, sizeof(s));
	return LAB_EXIT_PASS;
}

/* The last error LAVA logged: a results entry's error_msg, else an
 * error line's text. */
struct log_error {
	char *msg, *line;
};

static void on_log_entry(const struct lava_entry *e, void *ctx)
{
	struct log_error *le = ctx;

	if (e->error_msg) {
		free(le->msg);
		le->msg = xstrdup(e->error_msg);
	} else if ((!strcmp(e->lvl, "error") || !strcmp(e->lvl, "exception")) && e->msg) {
		free(le->line);
		le->line = xasprintf("%.*s", (int)e->msg_len, e->msg);
	}
}

/*
 * Each Bad device's note: its last health check job, its health and
 * LAVA's words on why it failed (the failure comment an admin or LAVA
 * set, else the error its log ends with).  A server that cannot tell
 * leaves the note short; the verdict does not wait on it.
 */
static void note_health_checks(const struct lava_server *s, struct lava_devices *devs)
{
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	int asked = 0;

	for (size_t i = 0; i < devs->nr; i++) {
		struct lava_device *d = &devs->v[i];
		struct log_error le = { NULL, NULL };
		struct lava_job hc;
		const char *why = NULL;

		/* a few of them: a fleet's device type can have hundreds */
		if (!d->health_job || strcmp(d->health, "Bad") || asked++ >= 4)
			continue;
		strbuf_reset(&err);
		if (lava_job_get(s, d->health_job, &hc, &err) < 0) {
			snprintf(d->note, sizeof(d->note), "health check job %ld", d->health_job);
			continue;
		}
		if (hc.failure_comment[0]) {
			why = hc.failure_comment;
		} else if (lava_job_log(s, d->health_job, &log, &err) == 0 && log.len) {
			strbuf_reset(&err);
			if (lava_log_parse(log.buf, log.len, on_log_entry, &le, &err) >= 0)
				why = le.msg ? le.msg : le.line;
		}
		snprintf(d->note, sizeof(d->note), "health check job %ld %s%s%.200s", d->health_job, hc.health,
			 why ? ": " : "", why ? why : "");
		/* LAVA's messages end with a newline */
		for (size_t n = strlen(d->note); n && (d->note[n - 1] == ' ' || d->note[n - 1] == '\n'); n--)
			d->note[n - 1] = '\0';
		free(le.msg);
		free(le.line);
	}
	strbuf_release(&err);
	strbuf_release(&log);
}

/* Whether a job still waits for a device (LAVA has not picked one). */
static int queued(const struct lava_job *j)
{
	return !j->device[0] && (!strcmp(j->state, "Submitted") || !strcmp(j->state, "Scheduling"));
}

/*
 * Follows job id until it is Finished (or timeout_s), one line on stderr
 * at each change of state or device, then writes DIR/lava-job.json (the
 * metadata lab lava import reads, without the job's own secrets) and
 * DIR/lava-log.yaml.  A job no usable device can take is canceled after
 * FOLLOW_NO_DEVICE_GRACE_S and written as Canceled with error_type
 * Infrastructure and the devices in error_msg.  Returns the job's health:
 * 1 Complete, 0 otherwise; -1 with the reason in why when it did not
 * finish in timeout_s or *stop (a signal; may be NULL) was set first: it
 * is canceled then, and nothing is written; exits 2 on a bad server,
 * token or job.
 */
static int follow(const struct lava_server *s, long id, unsigned timeout_s, const char *dir,
		  const volatile sig_atomic_t *stop, struct lava_job *j, struct strbuf *why)
{
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT, reason = STRBUF_INIT;
	char last[200] = "", now_state[200], *path;
	time_t t0 = time(NULL), next_look = t0, none_since = 0;
	int gave_up = 0, list_failed = 0;
	struct json_object *o;

	for (;;) {
		if (lava_job_get(s, id, j, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		snprintf(now_state, sizeof(now_state), "%s%s%s", j->state, j->device[0] ? " on " : "",
			 j->device);
		if (strcmp(now_state, last)) {
			fprintf(stderr, "lava: job %ld %s (%lds)\n", id, now_state, (long)(time(NULL) - t0));
			snprintf(last, sizeof(last), "%s", now_state);
		}
		if (lava_job_finished(j))
			break;
		if (queued(j) && j->device_type[0] && time(NULL) >= next_look) {
			struct lava_devices devs = { NULL, 0, 0 };
			int usable = 0;

			next_look = time(NULL) + FOLLOW_DEVICES_S;
			strbuf_reset(&err);
			/* a server that cannot list them: the job waits as before */
			if (lava_devices_of_type(s, j->device_type, &devs, &err) < 0) {
				if (!list_failed++)
					warning("%s (the job waits for a device as long as --timeout)", err.buf);
				usable = 1;
			}
			for (size_t i = 0; i < devs.nr && !usable; i++)
				usable = lava_device_usable(&devs.v[i]);
			if (usable) {
				if (none_since)
					fprintf(stderr, "lava: a %s device is usable again\n", j->device_type);
				none_since = 0;
			} else if (!none_since) {
				none_since = time(NULL);
				strbuf_reset(&reason);
				lava_devices_describe(&devs, j->device_type, 200, &reason);
				fprintf(stderr, "lava: %s; waiting %d s for one\n", reason.buf, FOLLOW_NO_DEVICE_GRACE_S);
			} else if (time(NULL) - none_since >= FOLLOW_NO_DEVICE_GRACE_S) {
				note_health_checks(s, &devs);
				strbuf_reset(&reason);
				lava_devices_describe(&devs, j->device_type, NO_DEVICE_REASON_MAX, &reason);
				gave_up = 1;
				/* the last look before the cancel: a device that
				 * came back and took the job meanwhile keeps it (the
				 * window left is one request's) */
				if (lava_job_get(s, id, j, &err) < 0)
					die(LAB_EXIT_USAGE, "%s", err.buf);
				if (!queued(j)) {
					fprintf(stderr, "lava: job %ld %s%s%s: a device took it after all\n", id,
						j->state, j->device[0] ? " on " : "", j->device);
					gave_up = 0;
					none_since = 0;
				}
			}
			lava_devices_release(&devs);
			if (gave_up)
				break;
		}
		if ((timeout_s && time(NULL) - t0 > (time_t)timeout_s) || (stop && *stop)) {
			strbuf_reset(&err);
			if (lava_job_cancel(s, id, &err) < 0)
				warning("%s", err.buf);
			if (stop && *stop)
				strbuf_addf(why, "stopped by %s: job %ld (state %s) canceled", strsignal(*stop),
					    id, j->state);
			else
				strbuf_addf(why, "job %ld did not finish in %u s (state %s): canceled", id,
					    timeout_s, j->state);
			strbuf_release(&err);
			strbuf_release(&reason);
			return -1;
		}
		sleep(FOLLOW_POLL_S);
	}
	if (gave_up) {
		/* no device took it: canceled here, and what LAVA says of it
		 * after that (a queued job is Finished at once) */
		strbuf_reset(&err);
		if (lava_job_cancel(s, id, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		fprintf(stderr, "lava: job %ld canceled: %s\n", id, reason.buf);
		for (int i = 0; i < 15 && !lava_job_finished(j); i++) {
			sleep(FOLLOW_POLL_S);
			if (lava_job_get(s, id, j, &err) < 0)
				die(LAB_EXIT_USAGE, "%s", err.buf);
		}
		snprintf(j->health, sizeof(j->health), "Canceled");
	}
	if (lava_job_log(s, id, &log, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (mkdir_p(dir, 0755) < 0)
		die(LAB_EXIT_FAIL, "cannot create '%s': %s", dir, strerror(errno));
	path = xasprintf("%s/lava-log.yaml", dir);
	if (write_file_atomic(path, log.buf, log.len) < 0)
		die(LAB_EXIT_FAIL, "cannot write '%s'", path);
	free(path);
	o = json_object_new_object();
	json_object_object_add(o, "server", json_object_new_string(s->url));
	{
		char idtext[24];

		snprintf(idtext, sizeof(idtext), "%ld", id);
		json_object_object_add(o, "job_id", json_object_new_string(idtext));
	}
	json_object_object_add(o, "device", json_object_new_string(j->device));
	json_object_object_add(o, "device_type", json_object_new_string(j->device_type));
	json_object_object_add(o, "state", json_object_new_string(j->state));
	json_object_object_add(o, "health", json_object_new_string(j->health));
	if (j->failure_comment[0])
		json_object_object_add(o, "failure_comment", json_object_new_string(j->failure_comment));
	if (gave_up) {
		json_object_object_add(o, "error_type", json_object_new_string("Infrastructure"));
		json_object_object_add(o, "error_msg", json_object_new_string(reason.buf));
	}
	json_object_object_add(o, "submit_time", json_object_new_string(j->submit_time));
	json_object_object_add(o, "start_time", json_object_new_string(j->start_time));
	json_object_object_add(o, "end_time", json_object_new_string(j->end_time));
	if (results_write_json(dir, "lava-job.json", o) < 0)
		die(LAB_EXIT_FAIL, "cannot write '%s/lava-job.json'", dir);
	json_object_put(o);
	fprintf(stderr, "lava: job %ld %s, %s on %s; log and metadata in %s\n", id, j->state, j->health,
		j->device[0] ? j->device : "no device", dir);
	strbuf_release(&err);
	strbuf_release(&log);
	strbuf_release(&reason);
	return !strcmp(j->health, "Complete");
}

int cmd_lava_follow(int argc, const char **argv)
{
	const char *url = NULL, *token_file = NULL, *out = NULL, *pos[1];
	unsigned timeout_s = FOLLOW_DEFAULT_TIMEOUT_S;
	const struct lab_option opts[] = {
		OPT_STRING("server", &url, "the LAVA server (http://host:port)"),
		OPT_STRING("token-file", &token_file, "a file (mode 600) holding the API token ($LAVA_TOKEN wins)"),
		OPT_UINT("timeout", &timeout_s, 1, 7 * 86400, "seconds to wait for the job, queue included "
			 "(default 6 h); then it is canceled"),
		OPT_STRING("out", &out, "where lava-job.json and lava-log.yaml go"),
		OPT_END(),
	};
	struct strbuf timed_out = STRBUF_INIT;
	struct lava_server s;
	struct lava_job j;
	char *end;
	long id;
	int nr_pos, r;

	r = parse_options(argc, argv, opts, follow_usage, pos, 1, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1 || !out)
		die(LAB_EXIT_USAGE, "a job id and --out are needed (usage: %s)", follow_usage);
	id = strtol(pos[0], &end, 10);
	if (*end || id <= 0)
		die(LAB_EXIT_USAGE, "'%s' is not a LAVA job id", pos[0]);
	server_or_die(&s, url, token_file);
	r = follow(&s, id, timeout_s, out, NULL, &j, &timed_out);
	memset(&s, 0, sizeof(s));
	if (r < 0)
		die(LAB_EXIT_FAIL, "%s", timed_out.buf);
	return r ? LAB_EXIT_PASS : LAB_EXIT_FAIL;
}

/*
 * Copies the files of the exported job (from) into pub/name, built as
 * pub/.name and renamed: a web server serving pub never shows a job's
 * files half-copied.  Exits 1 (removing made) when it cannot.
 */
static void publish(const char *from, const char *pub, const char *name, const char *made)
{
	char *tmp = xasprintf("%s/.%s", pub, name), *dst = xasprintf("%s/%s", pub, name);
	struct dirent *e;
	DIR *d = opendir(from);
	int bad = !d || mkdir(tmp, 0755) < 0;

	while (!bad && (e = readdir(d))) {
		char *src = xasprintf("%s/%s", from, e->d_name), *to = xasprintf("%s/%s", tmp, e->d_name);
		size_t len;
		char *data = is_file(src) ? read_file(src, &len) : NULL;

		if (is_file(src) && (!data || write_file_atomic(to, data, len) < 0))
			bad = 1;
		free(data);
		free(src);
		free(to);
	}
	if (d)
		closedir(d);
	if (bad || rename(tmp, dst) < 0) {
		int err = errno;

		remove_tree(tmp);
		remove_tree(made);
		die(LAB_EXIT_FAIL, "cannot publish the job's files in '%s': %s", dst, strerror(err));
	}
	free(tmp);
	free(dst);
}

/* lava-job.json, as follow wrote it, with what was asked of the job, so
 * the import verifies the topology and checks the scheduler settings. */
static void meta_add_request(const char *dir, const struct lava_export_req *q, const char *label)
{
	struct strbuf err = STRBUF_INIT;
	char *meta = xasprintf("%s/lava-job.json", dir);
	struct json_object *o = json_read_file(meta, NULL, 1u << 20, NULL, &err);
	const struct { const char *key, *value; } asked[] = {
		{ "spec", q->spec }, { "suite", q->suite }, { "scenario", q->scenario },
		{ "kernel", q->kernel }, { "label", label }, { "smt", q->smt },
		{ "sched_feat", q->sched_feat }, { "sched_knob", q->sched_knob },
		{ "preempt", q->preempt }, { "append", q->append },
	};

	if (!o)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	for (size_t i = 0; i < ARRAY_SIZE(asked); i++)
		if (asked[i].value)
			json_object_object_add(o, asked[i].key, json_object_new_string(asked[i].value));
	if (results_write_json(dir, "lava-job.json", o) < 0)
		die(LAB_EXIT_FAIL, "cannot write '%s'", meta);
	json_object_put(o);
	strbuf_release(&err);
	free(meta);
}

int cmd_lava_run(int argc, const char **argv)
{
	const char *url = NULL, *token_file = NULL, *dir = NULL, *results = NULL, *pub = NULL, *label = NULL;
	struct lava_export_req q = { .kernel = "debian" };
	unsigned timeout_s = FOLLOW_DEFAULT_TIMEOUT_S;
	int served = 0;
	const struct lab_option opts[] = {
		OPT_STRING("server", &url, "the LAVA server (http://host:port)"),
		OPT_STRING("token-file", &token_file, "a file (mode 600) holding the API token ($LAVA_TOKEN wins)"),
		OPT_STRING("artifacts", &q.artifacts, "the URL the device downloads DIR/job's files from "
			   "(file://DIR/job for a LAVA on this host)"),
		OPT_STRING("dir", &dir, "a new directory: the exported job (DIR/job), LAVA's log and metadata"),
		OPT_STRING("publish", &pub, "a directory a web server serves at --artifacts: the job's files "
			   "are copied into PUB/NAME before the job is submitted, and downloaded from URL/NAME"),
		OPT_BOOL("artifacts-served", &served, "--artifacts is an http(s) URL that already serves "
			 "DIR/job (no --publish)"),
		OPT_STRING("topo", &q.spec, "topology spec or preset (the qemu device type's; none on bare metal)"),
		OPT_STRING("suite", &q.suite, "a suite under scenarios/suites/"),
		OPT_STRING("scenario", &q.scenario, "a scenario file"),
		OPT_STRING("kernel", &q.kernel, "kernel, as lab run --kernel (default: debian)"),
		OPT_STRING("accel", &q.accel, "tcg (default) or kvm"),
		OPT_STRING("device-type", &q.device_type, "the LAVA device type the job is for (default qemu)"),
		LAVA_BOOT_OPTIONS(q),
		OPT_STRING("label", &label, "run.json's label of the imported run (lab ab, lab matrix)"),
		OPT_STRING("results", &results, "results root for the imported run (default results/)"),
		OPT_UINT("timeout", &timeout_s, 1, 7 * 86400, "seconds to wait for the job, queue included"),
		OPT_END(),
	};
	struct lava_import_result res = LAVA_IMPORT_RESULT_INIT;
	struct strbuf err = STRBUF_INIT;
	struct json_object *owner;
	struct lava_job_meta meta;
	struct lava_server s;
	struct lava_job j;
	struct stat st;
	const char *artifacts;
	char *job_dir, *def, *log, *meta_file, *plan, *name = NULL, *job_url = NULL, *published;
	long id;
	int nr_pos, r, ok, http;

	r = parse_options(argc, argv, opts, run_usage, NULL, 0, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (!dir || !q.artifacts || !q.suite == !q.scenario)
		die(LAB_EXIT_USAGE, "--dir, --artifacts and one of --suite or --scenario are needed "
		    "(usage: %s)", run_usage);
	artifacts = q.artifacts;
	if (stat(dir, &st) == 0)
		die(LAB_EXIT_USAGE, "'%s' exists: lab lava run makes a new directory", dir);
	if (label && (!*label || strlen(label) > 64 || strpbrk(label, "\n\r\t")))
		die(LAB_EXIT_USAGE, "a label must be one word-like line of 1-64 characters");
	http = !strncmp(artifacts, "http://", 7) || !strncmp(artifacts, "https://", 8);
	if (pub && (!http || served))
		die(LAB_EXIT_USAGE, "--publish '%s' goes with an http(s) --artifacts URL that serves it, "
		    "not with %s", pub, served ? "--artifacts-served" : artifacts);
	if (http && !pub && !served)
		die(LAB_EXIT_USAGE, "--artifacts '%s': the device downloads the job's files there; --publish "
		    "DIR copies them into the directory it serves, or --artifacts-served says it serves DIR/job",
		    artifacts);
	if (pub && !is_dir(pub))
		die(LAB_EXIT_USAGE, "--publish '%s' is not a directory", pub);
	server_or_die(&s, url, token_file);
	if (!s.token[0])
		die(LAB_EXIT_USAGE, "submitting needs a token: $LAVA_TOKEN or --token-file");
	if (mkdir_p(dir, 0755) < 0)
		die(LAB_EXIT_FAIL, "cannot create '%s': %s", dir, strerror(errno));
	job_dir = xasprintf("%s/job", dir);
	if (pub) {
		/* a name of its own under PUB: the fleet's jobs share it */
		char *t = xasprintf("%s/.lab-lava-XXXXXX", pub);

		if (!mkdtemp(t)) {
			remove_tree(dir);
			die(LAB_EXIT_FAIL, "cannot create a directory in '%s': %s", pub, strerror(errno));
		}
		rmdir(t);
		name = xstrdup(strrchr(t, '/') + 2);
		free(t);
		job_url = xasprintf("%s%s%s", artifacts, artifacts[strlen(artifacts) - 1] == '/' ? "" : "/",
				    name);
		q.artifacts = job_url;
	}
	q.out = job_dir;
	if ((r = lava_export_job(&q, &err))) {
		remove_tree(dir);
		die(r, "%s", err.buf);
	}
	/* from here a SIGINT or SIGTERM cancels the job: it is this run's */
	run_stop_catch();
	if (pub) {
		publish(job_dir, pub, name, dir);
		fprintf(stderr, "lava: the job's files are in %s/%s, served as %s\n", pub, name, job_url);
	}
	def = xasprintf("%s/job.json", job_dir);
	published = pub ? xasprintf("%s/%s", pub, name) : NULL;
	id = submit_file(&s, def, dir, published);
	fprintf(stderr, "lava: job %ld submitted to %s\n", id, s.url);
	strbuf_reset(&err);
	ok = follow(&s, id, timeout_s, dir, &run_stop_signal, &j, &err);
	memset(&s, 0, sizeof(s));
	if (published) {
		/* a finished or canceled job downloads nothing more (a
		 * resubmission is a new job, with files of its own): the copy
		 * goes; DIR/job keeps them */
		if (remove_tree(published) < 0)
			warning("cannot remove '%s': %s", published, strerror(errno));
		free(published);
	}
	if (ok < 0)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	meta_add_request(dir, &q, label);

	log = xasprintf("%s/lava-log.yaml", dir);
	meta_file = xasprintf("%s/lava-job.json", dir);
	plan = xasprintf("%s/plan.txt", job_dir);
	if ((r = lava_job_meta_read(meta_file, &owner, &meta, &err)) ||
	    (r = lava_import_run(&meta, log, plan, results ? results : results_root(), &res, &err)))
		die(r == LAB_EXIT_USAGE ? LAB_EXIT_FAIL : r, "importing job %ld: %s", id, err.buf);
	lava_import_print(&res);
	r = verdict_exit_code(res.verdict);
	lava_import_result_release(&res);
	json_object_put(owner);
	strbuf_release(&err);
	free(job_dir);
	free(name);
	free(job_url);
	free(def);
	free(log);
	free(meta_file);
	free(plan);
	return ok && !r ? LAB_EXIT_PASS : LAB_EXIT_FAIL;
}
