/* cmd-bare.c - `lab bare`: the same runner and scenarios on this host itself,
 * with its topology detected, host changes journaled and undone, and the
 * results in the layout of a guest run (so `lab compare` reads both). */
#define _GNU_SOURCE
#include "backend/bare.h"
#include "lib/child.h"
#include "results/fidelity.h"
#include "topo/hosttopo.h"
#include "kernel/initrd.h"
#include "kernel/kgen.h"
#include "cmd/lab.h"
#include "cmd/options.h"
#include "common/plan.h"
#include "results/results.h"
#include "common/journal.h"
#include "results/runreport.h"
#include "run/tracekeep-run.h"
#include "results/runfiles.h"
#include "scenario/scenario.h"
#include "run/progress-run.h"
#include "run/resume.h"
#include "run/session.h"
#include "topo/topo.h"
#include "common/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The generation of the kernel this host runs (uname -r). */
static const struct kernel_gen *host_kernel_gen(void)
{
	struct utsname u;

	return uname(&u) == 0 ? kgen_for_release(u.release) : NULL;
}

static const char bare_usage[] =
	"lab bare (--suite NAME | --scenario FILE) [--expect SPEC] [--allow-faults] [--results DIR] [--trace] [--quiet]"
	" | --restore | --topology [--expect SPEC]"
	" | --fidelity GUEST_BASE GUEST_TEST BARE_BASE BARE_TEST";

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void catch_signals(void)
{
	signals_catch(on_signal, SIGTERM, SIGINT, SIGHUP, 0);
}

/*
 * Whether a guest fault kind changes the host, as the runner's registry
 * says (`runner --list-faults`: each kind's run_only): a kind it does not
 * list, or a runner that cannot answer, counts as changing it.
 */
static int changes_host(const char *runner, const char *kind)
{
	/* asked once per command: the registry does not change under us */
	static struct strbuf list = STRBUF_INIT;
	static int asked;
	char *want = xasprintf("%s\trun-only\t", kind);
	int ret = 1;

	if (!asked) {
		const char *argv[] = { runner, "--list-faults", NULL };
		struct strbuf err = STRBUF_INIT;

		asked = 1;
		if (run_command_capture(argv, 10000, &list, &err) != 0)
			strbuf_reset(&list);
		strbuf_release(&err);
	}
	for (const char *l = list.buf; l && *l && ret; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		ret = strncmp(l, want, strlen(want)) != 0;
	free(want);
	return ret;
}

/*
 * Bare metal has no hypervisor for host-side faults, and a fault that
 * changes the host needs root and --allow-faults: either is one error
 * line and exit 2 before anything runs (not a SKIP: a suite that silently
 * lost its faults would compare as if it had them).
 */
static int check_faults(const char *runner, const struct plan *p, int allow, struct strbuf *err)
{
	for (unsigned i = 0; i < p->nr_cases; i++) {
		const struct plan_case *c = &p->cases[i];

		for (unsigned k = 0; k < c->nr_faults; k++) {
			const struct plan_fault *f = &c->faults[k];

			if (f->side == PLAN_SIDE_HOST) {
				strbuf_addf(err, "%s: fault '%s' (%s) acts on a hypervisor, and bare "
					    "metal has none", c->id, f->name, f->kind);
				return -1;
			}
			if (!changes_host(runner, f->kind))
				continue;
			if (!allow) {
				strbuf_addf(err, "%s: fault '%s' (%s) changes this host: add "
					    "--allow-faults (as root) to run it", c->id, f->name, f->kind);
				return -1;
			}
			if (geteuid() != 0) {
				strbuf_addf(err, "%s: fault '%s' (%s) changes this host and needs root",
					    c->id, f->name, f->kind);
				return -1;
			}
		}
	}
	return 0;
}

struct host_topo {
	struct json_object *view;   /* the host's guest view, owned */
	struct topo t;
	struct strbuf spec, notes, diff;
	int ndiff;                  /* against --expect, -1 without one */
	struct topo expect;
};

static void host_topo_release(struct host_topo *h)
{
	if (h->view)
		json_object_put(h->view);
	strbuf_release(&h->spec);
	strbuf_release(&h->notes);
	strbuf_release(&h->diff);
}

/* Detects, prints and (with --expect) checks this host's topology. */
static int detect(const char *runner, const char *expect, struct host_topo *h, struct strbuf *err)
{
	struct topo_preset *presets = NULL;
	int n, best;

	h->ndiff = -1;
	if (expect && topo_parse(expect, &h->expect, err) < 0) {
		char *why = strbuf_detach(err);

		strbuf_addf(err, "bad topology '%s': %s", expect, why);
		free(why);
		return -1;
	}
	h->view = bare_probe(runner, err);
	if (!h->view || hosttopo_from_view(h->view, &h->t, &h->spec, &h->notes, err) < 0)
		return -1;
	printf("host topology: %s (%s)\n", h->spec.buf, h->t.spec);
	for (char *p = h->notes.buf; *p;) {
		size_t k = strcspn(p, "\n");

		printf("  note: %.*s\n", (int)k, p);
		p += k + (p[k] == '\n');
	}
	n = topo_presets_load(&presets);
	best = n > 0 ? hosttopo_closest(&h->t, presets, n) : -1;
	if (best >= 0) {
		struct topo p;
		struct strbuf d = STRBUF_INIT;

		if (topo_parse(presets[best].spec, &p, err) == 0) {
			int nd = hosttopo_diff(&h->t, "host", &p, presets[best].name, &d);

			printf("closest preset: %s (%s), %d difference%s\n", presets[best].name,
			       presets[best].spec, nd, nd == 1 ? "" : "s");
			for (char *q = d.buf; *q;) {
				size_t k = strcspn(q, "\n");

				printf("  %.*s\n", (int)k, q);
				q += k + (q[k] == '\n');
			}
		}
		strbuf_release(&d);
		strbuf_reset(err);
	}
	free(presets);
	if (expect) {
		h->ndiff = hosttopo_diff(&h->t, "host", &h->expect, "expected", &h->diff);
		if (h->ndiff)
			printf("topology: FAIL (%d difference%s from %s)\n%s", h->ndiff,
			       h->ndiff == 1 ? "" : "s", expect, h->diff.buf);
		else
			printf("topology: PASS (matches %s)\n", expect);
	}
	fflush(stdout);
	return 0;
}

/* Waits for the runner: forwards SIGTERM/SIGINT to it (it ends the run and
 * its faults restore), and kills its group at the deadline or when it
 * does not stop within 30 s of the signal.  Returns its wait status. */
static int wait_runner(pid_t pid, unsigned timeout_s, int *timed_out, int *signalled,
		       struct run_progress *rp, const char *records, const char **last,
		       const char **during)
{
	uint64_t end = now_ns() + (uint64_t)timeout_s * 1000000000ull, stop_end = 0;
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	int status = 0, forwarded = 0;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		uint64_t now = now_ns();

		if (r == pid || (r < 0 && errno != EINTR))
			return status;
		run_progress_tail(rp, records);
		if (got_signal && !forwarded) {
			/* the runner ends the case under way: it did not finish */
			*last = run_progress_last_case(rp);
			*during = run_progress_running_case(rp);
			*signalled = got_signal;
			kill(pid, SIGTERM);
			forwarded = 1;
			stop_end = now + 30 * 1000000000ull;
		}
		if (now >= end || (stop_end && now >= stop_end)) {
			*timed_out = now >= end;
			kill(-pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return status;
		}
		nanosleep(&tick, NULL);
	}
}

/* The kernel log of the run (the runner marks each case in it): the
 * bare-metal console.log, so splats are charged to cases as in a guest. */
static int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static void kmsg_drain(int fd, struct strbuf *out)
{
	char rec[8192];
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		char *text;

		if (n <= 0)
			continue; /* EPIPE: records overwritten; go on with the next */
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		strbuf_add(out, text, strcspn(text, "\n"));
		strbuf_addch(out, '\n');
	}
	close(fd);
}

struct record_counts {
	uint64_t records, missing, corrupt;
	int complete;
};

static int count_record(const struct wire_record *rec, void *ctx)
{
	(void)rec;
	(void)ctx;
	return 0;
}

static void count_records(const char *dir, struct record_counts *rc)
{
	char *path = xasprintf("%s/records.bin", dir);
	struct wire_decoder d;
	size_t len = 0;
	char *data = read_file(path, &len);

	wire_decoder_init(&d);
	if (data)
		wire_decoder_feed(&d, data, len, count_record, NULL);
	rc->complete = data && wire_decoder_finish(&d) == 0;
	rc->records = d.records;
	rc->missing = d.missing;
	rc->corrupt = d.bad_crc + d.bad_header;
	wire_decoder_release(&d);
	free(data);
	free(path);
}

static void write_run_json(const char *dir, const char *what, const char *name,
			   const struct host_topo *h, struct json_object *hygiene, int allow)
{
	struct strbuf desc = STRBUF_INIT;
	struct json_object *run;

	topo_describe(&h->t, &desc);
	run = run_json_new("bare", h->spec.buf, h->t.spec, desc.buf, "bare");
	results_add_str(run, "topology_notes", h->notes.buf);
	results_add_str(run, "accel", "none");
	{
		/* the host's boot arguments (pti=, mitigations=, ...): what
		 * ETAs and --estimate key their history on, as for a guest */
		char *cmdline = read_file("/proc/cmdline", NULL);

		if (cmdline)
			cmdline[strcspn(cmdline, "\n")] = '\0';
		results_add_str(run, "cmdline", cmdline ? cmdline : "");
		free(cmdline);
	}
	json_object_object_add(run, "host", results_host_info());
	json_object_object_add(run, "host_topology", json_object_get(h->view));
	json_object_object_add(run, "hygiene", json_object_get(hygiene));
	json_object_object_add(run, "allow_faults", json_object_new_boolean(allow));
	results_add_str(run, "journal", bare_journal_path());
	results_add_str(run, "kernel", json_object_get_string(json_object_object_get(h->view, "kernel")));
	results_add_str(run, what, name);
	run_json_write(dir, run);
	json_object_put(run);
	strbuf_release(&desc);
}

struct bare_opts {
	const char *suite, *scenario, *expect, *results;
	int allow, restore, topology, fidelity, quiet, trace;
	unsigned timeout_s;
};

static int do_restore(void)
{
	struct strbuf err = STRBUF_INIT;
	unsigned restored;
	int lock = bare_lock(&err), failed;

	if (lock < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	failed = bare_restore("", &restored, &err);
	close(lock);
	if (failed < 0)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	if (failed) {
		error("%d change%s could not be put back; the journal '%s' is kept", failed,
		      failed == 1 ? "" : "s", bare_journal_path());
		return LAB_EXIT_FAIL;
	}
	printf("%u change%s restored (journal %s)\n", restored, restored == 1 ? "" : "s",
	       bare_journal_path());
	return LAB_EXIT_PASS;
}

/* Changes a killed run left behind go first: at the next start. */
static void restore_leftovers(void)
{
	struct strbuf err = STRBUF_INIT;
	unsigned restored;
	int failed;

	if (access(bare_journal_path(), F_OK) < 0)
		return;
	failed = bare_restore("leftover: ", &restored, &err);
	if (failed < 0)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	if (failed)
		die(LAB_EXIT_FAIL, "%d change%s left by an earlier run could not be put back "
		    "(journal '%s' kept)", failed, failed == 1 ? "" : "s", bare_journal_path());
	if (restored)
		warning("put back %u change%s an earlier, killed run left on this host", restored,
			restored == 1 ? "" : "s");
	strbuf_release(&err);
}

static int start_runner(struct child_process *cp, const char *runner, const char *dir,
			int errfd)
{
	child_process_init(cp);
	strvec_pushl(&cp->args, runner, "--plan", "plan.txt", "--out", "records.bin", NULL);
	strvec_pushf(&cp->env, "%s=%s", JOURNAL_ENV, bare_journal_path());
	cp->dir = dir;
	cp->in = CHILD_DEVNULL;
	cp->out = errfd;
	cp->err = errfd;
	/* its own group: a deadline kills it and its helpers; it dies with us,
	 * and the journal undoes what it leaves */
	cp->new_pgrp = 1;
	cp->die_with_parent = 1;
	return start_command(cp);
}

static int bare_run(const struct bare_opts *o, const char *runner, struct host_topo *h)
{
	struct strbuf err = STRBUF_INIT, plan = STRBUF_INIT, dir = STRBUF_INIT, con = STRBUF_INIT;
	struct json_object *hygiene, *cases = NULL, *v;
	struct topo_kernel_facts facts;
	struct child_process cp;
	struct plan p = { 0 };
	struct record_counts rc;
	char perr[256], reason[512] = "";
	char *path;
	int lock, errfd, kfd, status, timed_out = 0, signalled = 0, bad, ret;
	unsigned restored = 0;
	enum verdict verdict = VERDICT_PASS;
	struct run_progress rp;
	const char *last = NULL, *during = NULL;
	struct utsname u;

	if ((o->suite ? plan_compile_suite(o->suite, &plan, &err) :
			plan_compile_file(o->scenario, &plan, &err)) < 0 ||
	    (o->trace && plan_text_add_counters(&plan, PLAN_CNT_SCHEDTRACE, &err) < 0))
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (plan_parse(plan.buf, plan.len, &p, perr, sizeof(perr)) < 0)
		die(LAB_EXIT_USAGE, "compiled plan: %s", perr);
	if (check_faults(runner, &p, o->allow, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	lock = bare_lock(&err);
	if (lock < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	/* the runner runs the plan on this very kernel */
	if (uname(&u) < 0 || plan_check_on_runner(runner, plan.buf, plan.len, u.release, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.len ? err.buf : "uname failed");
	if (geteuid() == 0)
		restore_leftovers();
	if (detect(runner, o->expect, h, &err) < 0)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	if (h->ndiff > 0)
		return LAB_EXIT_FAIL;
	hygiene = bare_hygiene(1000);

	if (results_create_run(o->results ? o->results : results_root(), "bare", &dir) < 0)
		return LAB_EXIT_FAIL;
	write_run_json(dir.buf, o->suite ? "suite" : "scenario", o->suite ? o->suite : o->scenario,
		       h, hygiene, o->allow);
	json_object_put(hygiene);
	v = topo_expected_view_gen(o->expect ? &h->expect : &h->t, 0,
				   kgen_topo_facts(host_kernel_gen(), &facts));
	results_write_json(dir.buf, "expected-topology.json", v);
	json_object_put(v);
	results_write_json(dir.buf, "guest-topology.json", h->view);
	path = xasprintf("%s/plan.txt", dir.buf);
	write_file_atomic(path, plan.buf, plan.len);
	free(path);

	path = xasprintf("%s/runner.log", dir.buf);
	errfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(path);
	kfd = kmsg_open_at_end();
	catch_signals();
	if (errfd < 0 || start_runner(&cp, runner, dir.buf, errfd) < 0)
		die(LAB_EXIT_FAIL, "cannot start the runner '%s'", runner);
	printf("running %s on this host (results: %s)\n", o->suite ? o->suite : o->scenario, dir.buf);
	fflush(stdout);
	{
		char *cmdline = read_file("/proc/cmdline", NULL);
		struct estimate_key key = {
			.spec = h->t.spec, .accel = "none", .clock = "wall",
			.kernel = json_object_get_string(json_object_object_get(h->view, "kernel")),
			.cmdline = cmdline ? cmdline : "",
		};

		run_progress_init(&rp, "bare", &p, o->results ? o->results : results_root(), &key,
				  NULL, o->quiet);
		free(cmdline);
	}
	path = xasprintf("%s/records.bin", dir.buf);
	status = wait_runner(cp.pid, o->timeout_s ? o->timeout_s : plan_deadline_s(&p) + 60,
			     &timed_out, &signalled, &rp, path, &last, &during);
	run_progress_tail(&rp, path);
	run_progress_break(&rp);
	free(path);
	cp.pid = -1;
	child_process_clear(&cp);
	close(errfd);

	/* whatever the runner could not put back (killed, a failed restore) */
	ret = bare_restore("", &restored, &err);
	if (ret)
		error("%s", ret < 0 ? err.buf : "some host changes could not be put back; "
		      "see above and run 'lab bare --restore'");
	if (restored)
		warning("put back %u host change%s the runner left", restored, restored == 1 ? "" : "s");

	kmsg_drain(kfd, &con);
	path = xasprintf("%s/console.log", dir.buf);
	write_file_atomic(path, con.buf, con.len);
	free(path);

	count_records(dir.buf, &rc);
	/* a stopped run keeps its finished cases, as lab run's does */
	if (signalled)
		run_stop_record(dir.buf, signalled, last, during);
	bad = run_report_build(dir.buf, &cases, &err);
	if (bad < 0) {
		error("%s", err.buf);
	} else {
		run_report_print(cases);
		/* as lab run: the traces within the plan's budgets */
		run_keep_traces_print(dir.buf, &p);
	}
	if (signalled) {
		verdict = VERDICT_STOPPED;
		snprintf(reason, sizeof(reason), "stopped by signal %d; last case finished: %s",
			 signalled, last ? last : "none");
	} else if (timed_out) {
		verdict = VERDICT_HANG;
		snprintf(reason, sizeof(reason), "the runner passed its deadline and was killed");
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "the runner exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	} else if (!rc.complete) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "the record stream is incomplete");
	} else if (bad) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "%d case%s did not pass", bad, bad == 1 ? "" : "s");
	} else if (ret) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "host changes could not be put back");
	} else {
		snprintf(reason, sizeof(reason), "every case passed");
	}

	v = verdict_json_new(verdict_name(verdict), reason, h->ndiff == 0 ? "PASS" : "not verified");
	results_add_str(v, "backend", "bare");
	json_object_object_add(v, "records", json_object_new_int64((int64_t)rc.records));
	json_object_object_add(v, "records_missing", json_object_new_int64((int64_t)rc.missing));
	json_object_object_add(v, "records_corrupt", json_object_new_int64((int64_t)rc.corrupt));
	json_object_object_add(v, "host_changes_restored_by_lab", json_object_new_int((int)restored));
	json_object_object_add(v, "cases", json_object_new_int(
		cases ? (int)json_object_array_length(cases) : 0));
	json_object_object_add(v, "cases_failed", json_object_new_int(bad));
	verdict_write(dir.buf, v);
	json_object_put(v);
	printf("verdict: %s: %s\n", verdict_name(verdict), reason);
	printf("results: %s\n", dir.buf);
	if (cases)
		json_object_put(cases);
	run_progress_release(&rp);
	close(lock);
	plan_release(&p);
	strbuf_release(&plan);
	strbuf_release(&dir);
	strbuf_release(&con);
	strbuf_release(&err);
	return verdict_exit_code(verdict);
}

/* run.json and cases.json of a run directory, through the results model. */
static void load_run(const char *dir, struct json_object **run, struct json_object **cases)
{
	struct run_info info = RUN_INFO_INIT;
	struct strbuf err = STRBUF_INIT;
	struct json_object *list;

	if (run_load(&info, dir, NULL, &err) < 0)
		die(LAB_EXIT_USAGE, "%s (not a run directory with run.json)", err.buf);
	*run = json_object_get(info.json);
	run_info_release(&info);
	*cases = cases_load(dir, &list, NULL, &err);
	if (!*cases)
		die(LAB_EXIT_USAGE, "%s (not a run directory with cases.json)", err.buf);
	strbuf_release(&err);
}

/* The guest pair and the bare pair must be what they claim to be. */
static void check_backend(struct json_object *run, const char *dir, int want_bare)
{
	struct json_object *b = json_object_object_get(run, "backend");
	int bare = b && !strcmp(json_object_get_string(b), "bare");

	if (bare != want_bare)
		die(LAB_EXIT_USAGE, "'%s' is %s run, expected %s run", dir, bare ? "a bare" : "a guest",
		    want_bare ? "a bare" : "a guest");
}

static int fidelity_report(const char **dirs)
{
	struct json_object *runs[4], *cases[4];
	struct strbuf out = STRBUF_INIT;
	struct fidelity_counts k;
	unsigned moved;

	for (int i = 0; i < 4; i++) {
		load_run(dirs[i], &runs[i], &cases[i]);
		check_backend(runs[i], dirs[i], i >= 2);
	}
	printf("fidelity: kernel %s -> %s; guest %s (%s), bare metal %s\n",
	       json_object_get_string(json_object_object_get(runs[0], "kernel")),
	       json_object_get_string(json_object_object_get(runs[1], "kernel")),
	       json_object_get_string(json_object_object_get(runs[0], "spec")),
	       json_object_get_string(json_object_object_get(runs[0], "accel")),
	       json_object_get_string(json_object_object_get(runs[2], "spec")));
	{
		const char *kb = json_object_get_string(json_object_object_get(runs[2], "kernel"));
		const char *kt = json_object_get_string(json_object_object_get(runs[3], "kernel"));

		if (kb && kt && !strcmp(kb, kt))
			warning("both bare runs ran kernel %s: what moved there is run-to-run noise", kb);
	}
	k = fidelity_table(cases[0], cases[1], cases[2], cases[3], &out);
	fputs(out.buf, stdout);
	moved = k.same + k.opposite + k.one_sided;
	printf("summary: of %u metrics that moved beyond noise in either, %u moved the same way in "
	       "the guest, %u the opposite way, %u in one only; %u moved in neither, %u had no data\n",
	       moved, k.same, k.opposite, k.one_sided, k.both_noise, k.no_data);
	strbuf_reset(&out);
	fidelity_limits(runs[0], runs[2], &out);
	printf("what the guest cannot model:\n%s", out.buf);
	for (int i = 0; i < 4; i++) {
		json_object_put(runs[i]);
		json_object_put(cases[i]);
	}
	strbuf_release(&out);
	return LAB_EXIT_PASS;
}

int cmd_bare(int argc, const char **argv)
{
	struct bare_opts o = { 0 };
	struct host_topo h = { .spec = STRBUF_INIT, .notes = STRBUF_INIT, .diff = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	char runner[PATH_MAX];
	const char *pos[5];
	int nr_pos, ret;
	const struct lab_option opts[] = {
		OPT_STRING("suite", &o.suite, "a suite under scenarios/suites/"),
		OPT_STRING("scenario", &o.scenario, "one scenario file"),
		OPT_STRING("expect", &o.expect, "the host must have this topology (spec or preset)"),
		OPT_BOOL("allow-faults", &o.allow, "run faults that change this host (root only)"),
		OPT_STRING("results", &o.results, "results root (default results/ or $LAB_RESULTS)"),
		OPT_UINT("timeout", &o.timeout_s, 1, 604800, "seconds for the whole run (default: case deadlines + 60)"),
		OPT_BOOL("restore", &o.restore, "put back host changes a killed run left, and exit"),
		OPT_BOOL("topology", &o.topology, "print this host's topology, and exit"),
		OPT_BOOL("fidelity", &o.fidelity, "line up two kernels' guest runs and bare runs, and exit"),
		OPT_BOOL("quiet", &o.quiet, "no progress lines on stderr"),
		OPT_BOOL("trace", &o.trace, "the flight recorder in every case: schedtrace added to each case's counters"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, bare_usage, pos, 5, &nr_pos);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (o.fidelity) {
		if (nr_pos != 4)
			die(LAB_EXIT_USAGE, "--fidelity takes four run directories: GUEST_BASE "
			    "GUEST_TEST BARE_BASE BARE_TEST");
		return fidelity_report(pos);
	}
	if (nr_pos)
		die(LAB_EXIT_USAGE, "unexpected argument '%s' (see 'lab bare --help')", pos[0]);
	if (o.restore)
		return do_restore();
	if (o.expect && topo_parse(o.expect, &h.expect, &err) < 0)
		die(LAB_EXIT_USAGE, "bad topology '%s': %s", o.expect, err.buf);
	if (!o.topology && !o.suite == !o.scenario)
		die(LAB_EXIT_USAGE, "give exactly one of --suite and --scenario (see 'lab bare --help')");
	if (initrd_find_runner(runner, &err) < 0)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	if (o.topology) {
		if (detect(runner, o.expect, &h, &err) < 0)
			die(LAB_EXIT_FAIL, "%s", err.buf);
		ret = h.ndiff > 0 ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
		host_topo_release(&h);
		return ret;
	}
	ret = bare_run(&o, runner, &h);
	host_topo_release(&h);
	return ret;
}
