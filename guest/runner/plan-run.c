/* plan-run.c - the runner's main job: execute a compiled plan case by case,
 * each run in its own process group under a deadline, and report records. */
#define _GNU_SOURCE
#include "plan-run.h"
#include "common/io.h"
#include "common/journal.h"
#include "cpu-online.h"
#include "fault-driver.h"
#include "fault-json.h"
#include "fault-tasks.h"
#include "fprof.h"
#include "out.h"
#include "common/plan.h"
#include "probe.h"
#include "schedfeat.h"
#include "schedknob.h"
#include "schedtrace.h"
#include "scx.h"
#include "common/wire.h"
#include "wlutil.h"
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <unistd.h>

/* What a run's child process hands back through its pipe. */
struct run_report {
	int ret;
	unsigned nr_metrics;
	struct wl_metric metrics[WL_MAX_METRICS];
	unsigned nr_counters;
	struct wl_counter counters[WL_MAX_COUNTERS];
	struct wl_task_totals totals;
	/* ru_nvcsw / ru_nivcsw of every task the run's process reaped
	 * (RUSAGE_CHILDREN after run()): whole lives, their exit included,
	 * where wl_task_done() reads each task's counters before it exits */
	uint64_t reaped_nvcsw, reaped_nivcsw;
	char error[256];
	char skip[256];  /* wl_skip(): the case is a SKIP */
};

enum run_status { RUN_OK, RUN_FAILED, RUN_TIMEOUT, RUN_CRASHED };

static const char *const status_names[] = { "ok", "failed", "timeout", "crashed" };

/* A marker in the kernel log, so a splat can be tied to the case that
 * was running; KERN_WARNING so a loglevel=5 console shows it. */
static void kmsg_marker(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) < 0) {
		/* the marker is a convenience; the records carry the truth */
	}
	close(fd);
}

static int send_json(struct out *o, uint16_t type, struct fj *j)
{
	/* a cut text is not JSON any more: better no record than a broken one */
	int ret = j->cut ? -1 : out_record(o, type, fj_text(j), j->len);

	fj_release(j);
	return ret;
}

static double self_cpu_s(void)
{
	struct rusage ru;

	/* RUSAGE_SELF: the runner alone, not the workloads it forked */
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* extra: already-formatted JSON members (", \"k\": v") or NULL */
static int send_event(struct out *o, const char *event, const char *case_id, const char *extra)
{
	struct fj j = FJ_INIT;

	fj_printf(&j, "{\"event\": ");
	fj_str(&j, event);
	fj_printf(&j, ", \"t_ns\": %llu, \"case\": ", (unsigned long long)wl_now_ns());
	fj_str(&j, case_id);
	if (extra)
		fj_add(&j, extra, strlen(extra));
	fj_add(&j, "}", 1);
	return send_json(o, WIRE_EVENT, &j);
}

static int send_counters(struct out *o, const struct plan_case *c, const char *phase)
{
	static const struct { unsigned bit; const char *name, *path; } src[] = {
		{ PLAN_CNT_SCHEDSTAT, "schedstat", "/proc/schedstat" },
		{ PLAN_CNT_VMSTAT, "vmstat", "/proc/vmstat" },
	};

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		struct fj j = FJ_INIT;
		size_t len = 0;
		char *text;
		int ret;

		if (!(c->counters & src[i].bit))
			continue;
		text = wl_slurp(src[i].path, &len, WIRE_MAX_PAYLOAD / 2);
		fj_printf(&j, "%s\t%s\t%s\n", c->id, phase, src[i].name);
		if (text)
			fj_add(&j, text, len);
		free(text);
		ret = out_record(o, WIRE_COUNTERS, fj_text(&j), j.len);
		fj_release(&j);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* SIGTERM or SIGINT: end the run in progress (its faults restore as at
 * any run's end) and run no further case. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: the runner's poll() must wake up */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

static int read_full(int fd, void *buf, size_t len, uint64_t deadline)
{
	char *p = buf;

	while (len) {
		uint64_t now = wl_now_ns();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (now >= deadline)
			return -2;
		if (stop_requested)
			return -3;
		/* block: the runner must cost nothing while a workload runs */
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000ull) + 1);
		if (stop_requested)
			return -3;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		n = xread(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Where a run's tasks live, and what the runner learns about them. */
struct run_place {
	const struct run_cgroup *cg;   /* the case's cgroup (path "" without one) */
	volatile pid_t *pgid;          /* published for the fault driver, or NULL */
	struct wl_task_tids *tids;     /* shared: the tasks' tids, or NULL */
	int count_leftovers;           /* look for tasks outliving the workload */
	unsigned leftover;             /* out: how many */
	char leftover_desc[256];       /* out: "tid 12 (hackbench), ..." */
};

/* Reaps pid if it exits within timeout_ms; 1 when reaped. */
static int reap_within(pid_t pid, int timeout_ms, int *status)
{
	uint64_t end = wl_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), reaped = 0;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		uint64_t now = wl_now_ns();

		if (r == pid) {
			reaped = 1;
			break;
		}
		if ((r < 0 && errno != EINTR) || now >= end)
			break;
		if (pidfd >= 0) {
			struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

			poll(&pfd, 1, (int)((end - now) / 1000000ull) + 1);
		} else {
			usleep(5000);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return reaped;
}

/* Workload tasks still alive after the workload returned and was reaped:
 * it should have reaped and joined every one of them. */
static void count_leftovers(struct run_place *pl, pid_t pgid)
{
	pid_t tids[64];
	int n = workload_tids(pl->cg ? pl->cg->path : "", pgid, tids, 64);
	size_t off = 0;

	pl->leftover = n > 0 ? (unsigned)n : 0;
	pl->leftover_desc[0] = '\0';
	for (int i = 0; i < n && i < 5; i++) {
		char path[64], comm[32] = "?";
		int w;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)tids[i]);
		wl_read_text(path, comm, sizeof(comm));
		w = snprintf(pl->leftover_desc + off, sizeof(pl->leftover_desc) - off, "%stid %d (%s)",
			     i ? ", " : "", (int)tids[i], comm);
		if (w < 0 || (size_t)w >= sizeof(pl->leftover_desc) - off)
			break;
		off += (size_t)w;
	}
}

/* One run of a workload in a child process group with a deadline. */
static enum run_status run_once(const struct workload_ops *w, const struct wl_args *args,
				uint64_t deadline, struct run_report *rep, double *wall_s,
				struct run_place *pl)
{
	uint64_t t0 = wl_now_ns();
	unsigned seconds = deadline > t0 ? (unsigned)((deadline - t0) / 1000000000ull) + 1 : 1;
	int fds[2], status = 0, r;
	pid_t pid;

	memset(rep, 0, sizeof(*rep));
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(rep->error, sizeof(rep->error), "pipe: %s", strerror(errno));
		return RUN_FAILED;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(rep->error, sizeof(rep->error), "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return RUN_FAILED;
	}
	if (pid == 0) {
		struct wl_ctx ctx;
		struct run_report out;
		struct rusage ru;

		setpgid(0, 0);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		close(fds[0]);
		/* before any task starts: they all inherit the cgroup */
		if (run_cgroup_join(pl->cg) < 0)
			_exit(5);
		memset(&out, 0, sizeof(out));
		out.ret = wl_run_once(w, args, seconds, &ctx, &out.totals, pl->tids);
		if (!getrusage(RUSAGE_CHILDREN, &ru)) {
			out.reaped_nvcsw = (uint64_t)ru.ru_nvcsw;
			out.reaped_nivcsw = (uint64_t)ru.ru_nivcsw;
		}
		out.nr_metrics = ctx.nr_metrics;
		memcpy(out.metrics, ctx.metrics, sizeof(out.metrics));
		out.nr_counters = ctx.nr_counters;
		memcpy(out.counters, ctx.counters, sizeof(out.counters));
		memcpy(out.error, ctx.error, sizeof(out.error));
		memcpy(out.skip, ctx.skip, sizeof(out.skip));
		if (write(fds[1], &out, sizeof(out)) != (ssize_t)sizeof(out))
			_exit(3);
		_exit(0);
	}
	setpgid(pid, pid); /* both sides set it: no race with the kill below */
	if (pl->pgid)
		*pl->pgid = pid;
	close(fds[1]);
	/* a second of grace past the workload's own deadline */
	r = read_full(fds[0], rep, sizeof(*rep), deadline + 1000000000ull);
	close(fds[0]);
	if (r == -2 || r == -3) {
		kill(-pid, SIGKILL);
		run_cgroup_kill(pl->cg);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		*wall_s = (double)(wl_now_ns() - t0) / 1e9;
		if (r == -3)
			snprintf(rep->error, sizeof(rep->error), "interrupted by a signal after %.1f s",
				 *wall_s);
		else
			snprintf(rep->error, sizeof(rep->error), "deadline passed after %.1f s",
				 *wall_s);
		return RUN_TIMEOUT;
	}
	/* the workload reaped its own tasks; anything left in the group goes */
	if (r == 0 && pl->count_leftovers && reap_within(pid, 2000, &status)) {
		count_leftovers(pl, pid);
		kill(-pid, SIGKILL);
	} else {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	/* and whatever left the group (setsid daemons) but not the cgroup */
	run_cgroup_kill(pl->cg);
	*wall_s = (double)(wl_now_ns() - t0) / 1e9;
	if (r < 0) {
		memset(rep, 0, sizeof(*rep));
		if (WIFSIGNALED(status))
			snprintf(rep->error, sizeof(rep->error), "workload died of signal %d",
				 WTERMSIG(status));
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 5)
			snprintf(rep->error, sizeof(rep->error), "cannot join the cgroup '%s'",
				 pl->cg ? pl->cg->path : "");
		else
			snprintf(rep->error, sizeof(rep->error), "workload exited %d without a report",
				 WEXITSTATUS(status));
		return RUN_CRASHED;
	}
	rep->error[sizeof(rep->error) - 1] = '\0';
	rep->skip[sizeof(rep->skip) - 1] = '\0';
	return rep->ret < 0 ? RUN_FAILED : RUN_OK;
}

static int send_result(struct out *o, const struct plan_case *c, unsigned run, int warmup,
		       enum run_status st, const struct run_report *rep, double wall_s,
		       const char *skip_reason)
{
	struct fj j = FJ_INIT;

	fj_printf(&j, "{\"case\": ");
	fj_str(&j, c->id);
	fj_printf(&j, ", \"scenario\": ");
	fj_str(&j, c->scenario);
	fj_printf(&j, ", \"workload\": ");
	fj_str(&j, c->workload);
	fj_printf(&j, ", \"run\": %u, \"warmup\": %s, \"status\": ", run, warmup ? "true" : "false");
	fj_str(&j, skip_reason ? "skip" : status_names[st]);
	if (skip_reason || (rep && rep->error[0])) {
		fj_printf(&j, ", \"error\": ");
		fj_str(&j, skip_reason ? skip_reason : rep->error);
	}
	fj_printf(&j, ", \"wall_s\": %.6f, \"metrics\": {", wall_s);
	for (unsigned i = 0; rep && st == RUN_OK && i < rep->nr_metrics && i < WL_MAX_METRICS; i++) {
		const struct wl_metric *m = &rep->metrics[i];

		fj_printf(&j, "%s", i ? ", " : "");
		fj_str(&j, m->name);
		fj_printf(&j, ": {\"value\": %.9g, \"unit\": ", m->value);
		fj_str(&j, m->unit);
		fj_printf(&j, ", \"better\": \"%s\"}", m->higher_is_better ? "higher" : "lower");
	}
	fj_printf(&j, "}");
	if (rep && (c->counters & PLAN_CNT_TASKS))
		fj_printf(&j, ", \"tasks\": {\"tasks\": %llu, \"nr_migrations\": %llu, "
			  "\"nr_voluntary_switches\": %llu, \"nr_involuntary_switches\": %llu, "
			  "\"wait_sum_ns\": %llu, \"nr_wakeups\": %llu, \"nr_wakeups_migrate\": %llu, "
			  "\"numa_pages_migrated\": %llu, \"core_forceidle_ns\": %llu, "
			  "\"nr_failed_migrations_hot\": %llu, \"reaped_voluntary_switches\": %llu, "
			  "\"reaped_involuntary_switches\": %llu}",
			  (unsigned long long)rep->totals.tasks,
			  (unsigned long long)rep->totals.nr_migrations,
			  (unsigned long long)rep->totals.nr_voluntary_switches,
			  (unsigned long long)rep->totals.nr_involuntary_switches,
			  (unsigned long long)rep->totals.wait_sum_ns,
			  (unsigned long long)rep->totals.nr_wakeups,
			  (unsigned long long)rep->totals.nr_wakeups_migrate,
			  (unsigned long long)rep->totals.numa_pages_migrated,
			  (unsigned long long)rep->totals.core_forceidle_ns,
			  (unsigned long long)rep->totals.nr_failed_migrations_hot,
			  (unsigned long long)rep->reaped_nvcsw,
			  (unsigned long long)rep->reaped_nivcsw);
	if (rep && st == RUN_OK && rep->nr_counters) {
		fj_printf(&j, ", \"counters\": {");
		for (unsigned i = 0; i < rep->nr_counters && i < WL_MAX_COUNTERS; i++) {
			fj_printf(&j, "%s", i ? ", " : "");
			fj_str(&j, rep->counters[i].name);
			fj_printf(&j, ": %.9g", rep->counters[i].value);
		}
		fj_add(&j, "}", 1);
	}
	fj_add(&j, "}", 1);
	return send_json(o, WIRE_RESULT, &j);
}

/* Builds the case's options and checks them against a kernel of release
 * (NULL: any); on error err holds "<file:line>: <problem>". */
static struct wl_args *case_args(const struct plan_case *c, const char *release,
				 const struct workload_ops **wp, char *err, size_t errlen)
{
	const struct workload_ops *w = workload_find(c->workload);
	struct wl_args *a;
	char why[384];

	if (!w) {
		snprintf(err, errlen, "%s: unknown workload '%s'", c->source, c->workload);
		return NULL;
	}
	a = wl_args_new();
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (unsigned i = 0; i < c->nr_params; i++) {
		if (wl_args_set(a, w, c->params[i].key, c->params[i].value, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s: %s", c->params[i].where, why);
			wl_args_free(a);
			return NULL;
		}
	}
	if (wl_args_finish(a, w, why, sizeof(why)) < 0 ||
	    (release && w->kernel_check && w->kernel_check(a, release, why, sizeof(why)) < 0)) {
		snprintf(err, errlen, "%s: %s", c->source, why);
		wl_args_free(a);
		return NULL;
	}
	*wp = w;
	return a;
}

/* The running kernel's release, for the options that need a newer one. */
static const char *this_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	return u.release;
}

static int load_plan(const char *path, struct plan *p)
{
	char err[512];
	size_t len = 0;
	char *text = wl_slurp(path, &len, 64u << 20);
	int ret;

	if (!text) {
		runner_error("cannot read plan '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = plan_parse(text, len, p, err, sizeof(err));
	free(text);
	if (ret < 0)
		runner_error("plan '%s': %s", path, err);
	return ret;
}

int check_plan(const char *path, const char *release)
{
	struct plan p = { 0 };
	int bad = 0;

	if (load_plan(path, &p) < 0)
		return 2;
	for (unsigned i = 0; i < p.nr_cases; i++) {
		const struct workload_ops *w;
		char err[768];
		struct wl_args *a = case_args(&p.cases[i], release, &w, err, sizeof(err));

		if (!a || fault_case_check(&p.cases[i], err, sizeof(err)) < 0) {
			/* one line per broken scenario, the first of its cases */
			fprintf(stderr, "%s\n", err);
			wl_args_free(a);
			bad = 1;
			break;
		}
		wl_args_free(a);
	}
	plan_release(&p);
	return bad ? 2 : 0;
}

/* Sent before each measured run of a case with faults or invariants: the
 * host times its own (QMP) faults from it. */
static int send_run_start(struct out *o, const struct plan_case *c, unsigned run)
{
	unsigned guest = 0, host = 0;
	char extra[96];

	for (unsigned i = 0; i < c->nr_faults; i++) {
		if (c->faults[i].side == PLAN_SIDE_HOST)
			host++;
		else
			guest++;
	}
	snprintf(extra, sizeof(extra), ", \"run\": %u, \"faults\": %u, \"host_faults\": %u", run,
		 guest, host);
	return send_event(o, "run_start", c->id, extra);
}

/*
 * One run; a measured run of a case with faults or invariants gets the
 * fault driver beside it, which reports its own events in between.
 */
static int run_measured(struct out *o, const struct plan_case *c, const struct workload_ops *w,
			const struct wl_args *a, unsigned r, uint64_t deadline,
			const struct run_cgroup *cg, struct wl_task_tids *tids, enum run_status *st,
			struct run_report *rep, double *wall)
{
	struct fault_driver d = FAULT_DRIVER_INIT;
	struct run_place pl = { .cg = cg, .tids = tids };
	int measured = r >= c->warmup, driven = measured && fault_driver_wanted(c);
	char err[256];

	if (measured && (c->nr_faults || c->nr_invariants) && send_run_start(o, c, r - c->warmup) < 0)
		return -1;
	if (driven) {
		if (fault_driver_start(&d, o, c, r - c->warmup, cg->path, wl_now_ns(), deadline,
				       err, sizeof(err)) < 0) {
			memset(rep, 0, sizeof(*rep));
			snprintf(rep->error, sizeof(rep->error), "%s", err);
			*st = RUN_FAILED;
			*wall = 0;
			return 0;
		}
		pl.pgid = fault_driver_pgid(&d);
		pl.count_leftovers = 1;
	}
	*st = run_once(w, a, deadline, rep, wall, &pl);
	if (driven) {
		struct fault_run_end end = {
			.status = status_names[*st],
			.error = rep->error,
			.metrics = rep->metrics,
			.nr_metrics = *st == RUN_OK ? rep->nr_metrics : 0,
			.leftover = pl.leftover,
			.leftover_desc = pl.leftover_desc,
		};

		if (fault_driver_stop(&d, o, &end) < 0 &&
		    send_event(o, "fault_driver_killed", c->id,
			       ", \"error\": \"the fault driver did not finish restoring in time\"") < 0)
			return -1;
	}
	return 0;
}

/* The tail of the case's scheduler's own output (the verifier's log of a
 * refused load, its EXIT line after an ejection), for cases.json. */
static int send_scx_output(struct out *o, const struct plan_case *c)
{
	static char tail[8192];
	struct fj j = FJ_INIT;
	int ret;

	scx_output_tail(tail, sizeof(tail));
	/* the verifier's log is ASCII; anything else is not worth a bad record */
	for (char *p = tail; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	fj_printf(&j, ", \"output\": ");
	fj_str(&j, tail);
	ret = send_event(o, "scx_output", c->id, fj_text(&j));
	fj_release(&j);
	return ret;
}

/* A case that could not run at all: one failed result with the reason. */
static int send_failed(struct out *o, const struct plan_case *c, const char *why)
{
	struct run_report rep = { .ret = -1 };

	snprintf(rep.error, sizeof(rep.error), "%.*s", (int)sizeof(rep.error) - 1, why);
	return send_result(o, c, 0, 0, RUN_FAILED, &rep, 0, NULL);
}

static int run_case(struct out *o, const struct plan_case *c, unsigned index)
{
	uint64_t deadline = wl_now_ns() + (uint64_t)c->deadline_s * 1000000000ull;
	const struct workload_ops *w = NULL;
	char err[768], why[384] = "", extra[128] = "", controllers[64];
	struct run_cgroup cg = { .path = "" };
	struct wl_args *a;
	unsigned total = c->warmup + c->runs;
	double cpu0 = 0, wall = 0, measured = 0;
	int trace_restored = 0; /* a traced case put tracefs back */
	struct scx_run scx = SCX_RUN_INIT;
	uint64_t run_t0;
	int ejected = 0;

	kmsg_marker("<4>schedlab: case %s start\n", c->id);
	if (send_event(o, "case_start", c->id, NULL) < 0)
		return -1;
	a = case_args(c, this_release(), &w, err, sizeof(err));
	fault_case_controllers(c, controllers, sizeof(controllers));
	if (!a || fault_case_check(c, err, sizeof(err)) < 0) {
		if (send_failed(o, c, err) < 0)
			return -1;
	} else if ((w->supported && !w->supported(why, sizeof(why))) ||
		   (w->case_supported && !w->case_supported(a, why, sizeof(why))) ||
		   ((c->nr_faults || c->nr_invariants) && !fault_case_supported(c, why, sizeof(why)))) {
		if (send_result(o, c, 0, 0, RUN_OK, NULL, 0, why[0] ? why : "not supported here") < 0)
			return -1;
	} else if (run_cgroup_create(&cg, index, controllers, err, sizeof(err)) < 0) {
		if (send_failed(o, c, err) < 0)
			return -1;
	} else if (c->scheduler[0] && scx_start(c, &scx, err, sizeof(err)) < 0) {
		/* a verifier rejection, a scheduler that exits: the case fails */
		if (send_scx_output(o, c) < 0 || send_failed(o, c, err) < 0)
			return -1;
	} else {
		struct schedtrace trace = { .dir = "" };
		int traced = c->counters & PLAN_CNT_SCHEDTRACE;
		/* the trace's rows of the case's own tasks: their tids, from
		 * every task of the run (shared, so the runner reads them) */
		struct wl_task_tids *tids = NULL;

		if (traced) {
			tids = mmap(NULL, sizeof(*tids), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (tids == MAP_FAILED)
				tids = NULL; /* the host says the list is missing */
		}

		if (c->scheduler[0]) {
			char ev[256];

			snprintf(ev, sizeof(ev), ", \"scheduler\": \"%s\", \"ops\": \"%s\", "
				 "\"load_s\": %.3f, \"enable_seq\": %llu", c->scheduler, scx.ops,
				 scx.load_s, (unsigned long long)scx.enable_seq);
			if (send_event(o, "scx_enabled", c->id, ev) < 0)
				return -1;
		}
		if (send_counters(o, c, "before") < 0)
			return -1;
		/* trace_run_mb: each CPU's share, the ring overwriting its oldest */
		if (traced && schedtrace_setup(&trace, o, c->id,
					       plan_trace_cpu_kb(c, (unsigned)sysconf(_SC_NPROCESSORS_CONF),
								 SCHEDTRACE_DEFAULT_KB)) < 0)
			return -1;
		for (unsigned r = 0; r < total; r++) {
			struct run_report rep;
			enum run_status st;
			struct fprof fp;
			int profiled = r >= c->warmup && c->profile.nr_funcs;
			int tracing = traced && r >= c->warmup;

			/* the profiler's switch stops the machine: outside the timing */
			if (profiled)
				fprof_start(&fp, &c->profile);
			if (tids)
				tids->ended = 0;
			if (tracing)
				schedtrace_start(&trace);
			/* only the measured phase: the runner asleep in poll() */
			cpu0 -= self_cpu_s();
			run_t0 = wl_now_ns();
			if (run_measured(o, c, w, a, r, deadline, &cg, tids, &st, &rep, &wall) < 0)
				return -1;
			cpu0 += self_cpu_s();
			/* measured partly under the kernel's own scheduler: not a
			 * result of this one, and the case ends here */
			if (c->scheduler[0] && scx_ejected(&scx, run_t0, why, sizeof(why))) {
				struct fj ev = FJ_INIT;
				int sent;

				st = RUN_FAILED;
				snprintf(rep.error, sizeof(rep.error), "%s", why);
				ejected = 1;
				fj_printf(&ev, ", \"error\": ");
				fj_str(&ev, why);
				sent = send_event(o, "scx_ejected", c->id, fj_text(&ev));
				fj_release(&ev);
				if (sent < 0)
					return -1;
			}
			measured += wall;
			/* before the result, as the profile: the host ties them */
			if (tracing) {
				uint64_t t_ship = wl_now_ns();

				if (schedtrace_stop(&trace, o, c->id, r - c->warmup, tids) < 0) {
					schedtrace_release(&trace);
					return -1;
				}
				/* the pages' trip over the serial line is not the
				 * case's: under --clock virtual the guest idles while
				 * the line drains, and idle virtual time jumps (10
				 * minutes of it for 0.5 MB) */
				deadline += wl_now_ns() - t_ship;
			}
			/* before the result, so the host attaches it to that run */
			if (profiled && fprof_stop(&fp, o, c->id, r - c->warmup) < 0)
				return -1;

			if (send_result(o, c, r < c->warmup ? r : r - c->warmup, r < c->warmup,
					st, &rep, wall, st == RUN_OK && rep.skip[0] ? rep.skip : NULL) < 0)
				return -1;
			if (st == RUN_TIMEOUT || stop_requested || ejected || (st == RUN_OK && rep.skip[0]))
				break; /* the case's time is used up, we were stopped, or it skipped */
		}
		if (c->scheduler[0]) {
			int status = scx_stop(&scx);
			char ev[64];

			snprintf(ev, sizeof(ev), ", \"status\": %d", status);
			if (send_event(o, "scx_stopped", c->id, ev) < 0 || send_scx_output(o, c) < 0)
				return -1;
		}
		trace_restored = traced && !schedtrace_release(&trace) && !cg.path[0];
		if (tids)
			munmap(tids, sizeof(*tids));
		if (send_counters(o, c, "after") < 0)
			return -1;
		snprintf(extra, sizeof(extra), ", \"runner_cpu_s\": %.6f, \"measured_s\": %.6f",
			 cpu0, measured);
	}
	run_cgroup_remove(&cg); /* its journal "clean" covers the trace's notes too */
	/* without a cgroup nobody says clean: the tracefs notes are put back */
	if (trace_restored)
		journal_note_clean();
	wl_args_free(a);
	kmsg_marker("<4>schedlab: case %s end\n", c->id);
	return send_event(o, "case_end", c->id, extra[0] ? extra : NULL);
}

/* Every case of p (released here), then END; refused: the variant asked
 * for could not be set, so nothing is measured. */
static int run_cases(struct out *o, struct plan *p, int refused, int ret)
{
	/* never measure without the variant that was asked for */
	for (unsigned i = 0; !ret && !refused && !stop_requested && i < p->nr_cases; i++)
		if (run_case(o, &p->cases[i], i) < 0)
			ret = -1;
	plan_release(p);
	if (stop_requested && !ret &&
	    send_event(o, "interrupted", "", ", \"error\": \"stopped by a signal\"") < 0)
		ret = -1;
	if (!ret)
		ret = out_end(o);
	return ret < 0 || refused || stop_requested ? -1 : 0;
}

int run_plan(struct out *o, const char *path, int with_snapshot)
{
	struct plan p = { 0 };
	int ret = 0, refused;

	if (load_plan(path, &p) < 0)
		return -1;
	catch_stop_signals();
	/* before any fault: which CPUs the machine keeps offline by design */
	cpu_note_boot();
	/* lab run --sched-feat, --sched-knob: before the snapshot, which
	 * shows the result; both are tried, so every refusal is said */
	refused = sched_feat_apply(o) < 0;
	refused |= sched_knob_apply(o) < 0;
	schedtrace_boot_quiet();
	/* the topology the results were measured on travels with them */
	if (with_snapshot && probe_snapshot(o) < 0)
		ret = -1;
	return run_cases(o, &p, refused, ret);
}

int run_plan_text(struct out *o, const char *text, size_t len)
{
	struct plan p = { 0 };
	char err[512];

	if (plan_parse(text, len, &p, err, sizeof(err)) < 0) {
		runner_error("plan from the host: %s", err);
		return -1;
	}
	catch_stop_signals();
	return run_cases(o, &p, 0, 0);
}
