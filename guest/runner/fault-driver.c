/* fault-driver.c - the fault driver: a process next to each measured run
 * that times the case's faults, samples its invariants and reports both. */
#define _GNU_SOURCE
#include "cpu-online.h"
#include "fault-driver.h"
#include "common/journal.h"
#include "fault-json.h"
#include "fault-tasks.h"
#include "fault.h"
#include "invariant.h"
#include "common/wire.h"
#include "wlutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define DRV_MAX_TASKS 8192
#define DRV_MAX_MMS 256
#define DRV_MAX_KNOBS 64
/* how long the runner waits for the driver to restore and report */
#define DRV_STOP_TIMEOUT_MS 60000
/* the driver ends by itself this long after the case's deadline */
#define DRV_GRACE_NS 5000000000ull

struct driver_shared {
	uint32_t seq;                 /* the next record's sequence number */
	volatile pid_t pgid;
	char status[16];
	char error[256];
	unsigned nr_metrics;
	struct wl_metric metrics[WL_MAX_METRICS];
	unsigned leftover;
	char leftover_desc[256];
	uint64_t end_ns;
};

int fault_driver_wanted(const struct plan_case *c)
{
	if (c->nr_invariants)
		return 1;
	/* a CPU the host hot-adds needs someone in the guest to online it */
	for (unsigned i = 0; i < c->nr_faults; i++)
		if (c->faults[i].side == PLAN_SIDE_GUEST ||
		    plan_host_fault_guest_helps(c->faults[i].kind))
			return 1;
	return 0;
}

int fault_case_check(const struct plan_case *c, char *err, size_t errlen)
{
	static struct inv_topo topo; /* options only: no machine needed */

	for (unsigned i = 0; i < c->nr_faults; i++) {
		struct fault_ctx fc;

		if (c->faults[i].side == PLAN_SIDE_HOST)
			continue;
		if (fault_prepare(&fc, &c->faults[i], err, errlen) < 0)
			return -1;
	}
	for (unsigned i = 0; i < c->nr_invariants; i++) {
		struct inv_ctx ic;

		if (invariant_prepare(&ic, &c->invariants[i], &topo, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int fault_case_supported(const struct plan_case *c, char *why, size_t len)
{
	struct inv_topo *topo = malloc(sizeof(*topo));
	char err[512], reason[384];
	int ok = 1;

	if (!topo || inv_topo_read(topo) < 0) {
		snprintf(why, len, "cannot read the CPU topology from sysfs");
		free(topo);
		return 0;
	}
	for (unsigned i = 0; ok && i < c->nr_faults; i++) {
		const struct plan_fault *pf = &c->faults[i];
		struct fault_ctx fc;

		if (pf->side == PLAN_SIDE_HOST || fault_prepare(&fc, pf, err, sizeof(err)) < 0)
			continue;
		reason[0] = '\0';
		if (fc.ops->supported && !fc.ops->supported(&fc, reason, sizeof(reason))) {
			snprintf(why, len, "fault '%s' (%s): %s", pf->name, pf->kind,
				 reason[0] ? reason : "not supported here");
			ok = 0;
		}
	}
	for (unsigned i = 0; ok && i < c->nr_invariants; i++) {
		const struct plan_invariant *pi = &c->invariants[i];
		struct inv_ctx ic;

		if (invariant_prepare(&ic, pi, topo, err, sizeof(err)) < 0)
			continue;
		reason[0] = '\0';
		if (ic.ops->supported && !ic.ops->supported(&ic, reason, sizeof(reason))) {
			snprintf(why, len, "invariant '%s' (%s): %s", pi->name, pi->kind,
				 reason[0] ? reason : "cannot be judged here");
			ok = 0;
		}
	}
	free(topo);
	return ok;
}

void fault_case_controllers(const struct plan_case *c, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned i = 0; i < c->nr_faults; i++) {
		const struct fault_ops *ops = c->faults[i].side == PLAN_SIDE_GUEST ?
					      fault_find(c->faults[i].kind) : NULL;

		if (!ops || !ops->controllers || strstr(buf, ops->controllers))
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "",
			 ops->controllers);
	}
}

/* ---- the driver process ---- */

struct drv_fault {
	struct fault_ctx fc;
	int enabled;
	int done;                 /* no more actions */
	uint64_t next_ms;         /* the next action */
	uint64_t undo_ms;         /* when the action in effect ends (hold) */
};

struct drv_inv {
	struct inv_ctx ic;
	int ok;                   /* init() worked */
	unsigned interval_ms;
};

struct drv {
	struct out out;
	struct driver_shared *sh;
	const struct plan_case *c;
	unsigned run;
	struct fault_env env;
	struct inv_topo topo;
	struct drv_fault faults[PLAN_MAX_FAULTS];
	unsigned nr_faults;
	struct drv_inv invs[PLAN_MAX_INVARIANTS];
	unsigned nr_invs;
	struct inv_knob knobs[DRV_MAX_KNOBS];
	unsigned nr_knobs;
	/* the sampler thread's: a hotplug write that takes a second must not
	 * leave a hole in the samples */
	pid_t *tids;
	struct task_state *tasks;
	struct inv_mm *mms;
	int sampler_stop[2];
	int uevent_fd;            /* the kernel's uevents: hot-added CPUs */
	cpu_set_t hot_added;      /* CPUs this run brought online after a hot-add */
	cpu_set_t present_start;  /* the CPUs that existed when the run began */
};

/* One driver per process: fault_event() needs to find it. */
static struct drv *the_drv;

static uint64_t now_ms(const struct drv *d)
{
	uint64_t now = wl_now_ns();

	return now > d->env.t0_ns ? (now - d->env.t0_ns) / 1000000ull : 0;
}

static void send(struct drv *d, struct fj *j)
{
	if (j->cut)
		return;
	/* take the number first: a driver killed mid-write leaves a gap the
	 * host reports, never a number used twice */
	d->out.seq = __atomic_fetch_add(&d->sh->seq, 1, __ATOMIC_SEQ_CST);
	out_record(&d->out, WIRE_EVENT, j->buf, j->len);
}

/* {"event": <event>, "t_ns": .., "t_run_s": .., "case": .., "run": .. */
static void event_head(struct drv *d, struct fj *j, const char *event)
{
	uint64_t now = wl_now_ns();

	fj_add(j, "{\"event\": ", 10);
	fj_str(j, event);
	fj_printf(j, ", \"t_ns\": %llu, \"t_run_s\": %.3f, \"case\": ", (unsigned long long)now,
		  now > d->env.t0_ns ? (double)(now - d->env.t0_ns) / 1e9 : 0.0);
	fj_str(j, d->c->id);
	fj_printf(j, ", \"run\": %u", d->run);
}

void fault_event(struct fault_ctx *fc, const char *action, const char *target, int ok,
		 const char *fmt, ...)
{
	struct drv *d = the_drv;
	struct fj j = FJ_INIT;
	char detail[512] = "";
	uint64_t now = wl_now_ns(), took = fc->mark_ns && now > fc->mark_ns ? now - fc->mark_ns : 0;

	if (fmt) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	if (!ok) {
		fc->errors++;
		if (!fc->first_error[0])
			snprintf(fc->first_error, sizeof(fc->first_error), "%.32s %.40s: %.120s", action,
				 target, detail);
	}
	if (!d)
		return;
	event_head(d, &j, "fault");
	fj_add(&j, ", \"fault\": ", 11);
	fj_str(&j, fc->pf->name);
	fj_add(&j, ", \"kind\": ", 10);
	fj_str(&j, fc->pf->kind);
	fj_add(&j, ", \"action\": ", 12);
	fj_str(&j, action);
	fj_add(&j, ", \"target\": ", 12);
	fj_str(&j, target);
	fj_printf(&j, ", \"ok\": %s, \"took_ms\": %.1f", ok ? "true" : "false", (double)took / 1e6);
	fc->mark_ns = now;
	if (detail[0]) {
		fj_add(&j, ok ? ", \"detail\": " : ", \"error\": ", ok ? 12 : 11);
		fj_str(&j, detail);
	}
	fj_add(&j, "}", 1);
	send(d, &j);
	fj_release(&j);
}

static void add_knob(void *ctx, const char *path)
{
	struct drv *d = ctx;

	for (unsigned i = 0; i < d->nr_knobs; i++)
		if (!strcmp(d->knobs[i].path, path))
			return;
	if (d->nr_knobs >= DRV_MAX_KNOBS)
		return;
	snprintf(d->knobs[d->nr_knobs++].path, sizeof(d->knobs[0].path), "%s", path);
}

/* The writable scheduler tunables of a debugfs directory. */
static void add_dir_knobs(struct drv *d, const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *de;

	while (dh && (de = readdir(dh))) {
		char path[160];
		struct stat st;

		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IWUSR))
			add_knob(d, path);
	}
	if (dh)
		closedir(dh);
}

static void collect_knobs(struct drv *d)
{
	static const char *const fixed[] = {
		"/proc/sys/kernel/numa_balancing",
		"/proc/sys/kernel/sched_rt_runtime_us",
		"/proc/sys/kernel/sched_rt_period_us",
		"/proc/sys/kernel/sched_schedstats",
		"/proc/sys/kernel/sched_autogroup_enabled",
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (access(fixed[i], R_OK) == 0)
			add_knob(d, fixed[i]);
	add_dir_knobs(d, "/sys/kernel/debug/sched");
	add_dir_knobs(d, "/sys/kernel/debug/sched/numa_balancing");
	for (unsigned i = 0; i < d->nr_faults; i++)
		if (d->faults[i].fc.ops->knobs)
			d->faults[i].fc.ops->knobs(&d->faults[i].fc, add_knob, d);
}

static void read_knobs(struct drv *d, int after)
{
	for (unsigned i = 0; i < d->nr_knobs; i++) {
		struct inv_knob *k = &d->knobs[i];

		if (after)
			k->after_ok = wl_read_text(k->path, k->after, sizeof(k->after)) >= 0;
		else
			k->before_ok = wl_read_text(k->path, k->before, sizeof(k->before)) >= 0;
	}
}

/* One look at the workload for the invariants due now. */
static void take_sample(struct drv *d, unsigned needs, struct inv_sample *s)
{
	int n = workload_tids(d->env.cgroup, *d->env.pgid, d->tids, DRV_MAX_TASKS);
	unsigned nr = 0;

	memset(s, 0, sizeof(*s));
	s->t_ms = now_ms(d);
	for (int i = 0; i < n; i++)
		if (task_state_read(d->tids[i], !!(needs & INV_NEED_ALLOWED), &d->tasks[nr]) == 0)
			nr++;
	s->tasks = d->tasks;
	s->nr_tasks = nr;
	if (needs & INV_NEED_NUMA) {
		pid_t pids[DRV_MAX_MMS];
		int np = workload_pids(d->env.cgroup, *d->env.pgid, pids, DRV_MAX_MMS);
		unsigned nm = 0;

		for (int p = 0; p < np; p++) {
			struct inv_mm *mm = &d->mms[nm];
			char path[64], *text;

			memset(mm, 0, sizeof(*mm));
			mm->tgid = pids[p];
			snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)pids[p]);
			text = wl_slurp(path, NULL, 16u << 20);
			if (!text)
				continue;
			numa_maps_kb(text, mm->kb, INV_MAX_NODES);
			free(text);
			for (unsigned t = 0; t < nr; t++) {
				int node;

				if (d->tasks[t].tgid != pids[p] || d->tasks[t].cpu < 0 ||
				    d->tasks[t].cpu >= CPU_SETSIZE)
					continue;
				node = d->topo.node_of[d->tasks[t].cpu];
				if (node >= 0 && node < INV_MAX_NODES)
					mm->threads[node]++;
			}
			nm++;
		}
		s->mms = d->mms;
		s->nr_mms = nm;
	}
}

static void run_faults(struct drv *d, uint64_t now)
{
	for (unsigned i = 0; i < d->nr_faults; i++) {
		struct drv_fault *f = &d->faults[i];
		const struct plan_fault *pf = f->fc.pf;

		if (!f->enabled)
			continue;
		if (f->fc.active && pf->hold_ms && f->undo_ms <= now) {
			f->fc.mark_ns = wl_now_ns();
			f->fc.ops->undo(&f->fc);
			f->fc.active = 0;
		}
		if (f->done || f->next_ms > now)
			continue;
		f->fc.mark_ns = wl_now_ns();
		if (f->fc.ops->step(&f->fc, f->fc.actions) < 0)
			f->fc.failed++;
		f->fc.actions++;
		f->fc.active = 1;
		/* a step may take a while (hotplug under TCG): hold counts from its end */
		now = now_ms(d);
		f->undo_ms = now + pf->hold_ms;
		if (pf->count && f->fc.actions >= pf->count) {
			f->done = 1;
			continue;
		}
		/* a late action is not made up for: the next one keeps the grid */
		f->next_ms += pf->period_ms;
		while (f->next_ms <= now)
			f->next_ms += pf->period_ms;
	}
}

static void run_samples(struct drv *d, uint64_t now)
{
	unsigned needs = 0;
	struct inv_sample s;

	for (unsigned i = 0; i < d->nr_invs; i++)
		if (d->invs[i].ok && d->invs[i].interval_ms && d->invs[i].ic.next_ms <= now)
			needs |= d->invs[i].ic.ops->needs | INV_NEED_TASKS;
	if (!needs)
		return;
	take_sample(d, needs, &s);
	for (unsigned i = 0; i < d->nr_invs; i++) {
		struct drv_inv *v = &d->invs[i];

		if (!v->ok || !v->interval_ms || v->ic.next_ms > now)
			continue;
		v->ic.ops->sample(&v->ic, &s);
		while (v->ic.next_ms <= now)
			v->ic.next_ms += v->interval_ms;
	}
}

static uint64_t next_action(const struct drv *d)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < d->nr_faults; i++) {
		const struct drv_fault *f = &d->faults[i];

		if (!f->enabled)
			continue;
		if (f->fc.active && f->fc.pf->hold_ms && f->undo_ms < next)
			next = f->undo_ms;
		if (!f->done && f->next_ms < next)
			next = f->next_ms;
	}
	return next;
}

static uint64_t next_sample(const struct drv *d)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < d->nr_invs; i++)
		if (d->invs[i].ok && d->invs[i].interval_ms && d->invs[i].ic.next_ms < next)
			next = d->invs[i].ic.next_ms;
	return next;
}

/* Sleeps until next (ms of the run) or until fd has something (1 then),
 * or the optional second fd (2 then; -1: none). */
static int sleep_until(const struct drv *d, uint64_t next, uint64_t hard_end_ns, int fd, int fd2)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = fd2, .events = POLLIN } };
	uint64_t t = wl_now_ns(), now = now_ms(d);
	int timeout;

	if (t >= hard_end_ns)
		return 1;
	if (next == UINT64_MAX || next > now + (hard_end_ns - t) / 1000000ull)
		timeout = (int)((hard_end_ns - t) / 1000000ull) + 1;
	else
		timeout = next > now ? (int)(next - now) : 0;
	if (poll(pfd, fd2 >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
		return 1;
	if (pfd[0].revents)
		return 1;
	return fd2 >= 0 && pfd[1].revents ? 2 : 0;
}

static void *sampler_main(void *arg)
{
	struct drv *d = arg;
	uint64_t hard_end = d->env.deadline_ns + DRV_GRACE_NS;

	for (;;) {
		run_samples(d, now_ms(d));
		if (sleep_until(d, next_sample(d), hard_end, d->sampler_stop[0], -1))
			break;
	}
	return NULL;
}

static void report_fault(struct drv *d, struct drv_fault *f)
{
	struct fj j = FJ_INIT;
	const struct plan_fault *pf = f->fc.pf;

	event_head(d, &j, "fault_summary");
	fj_add(&j, ", \"fault\": ", 11);
	fj_str(&j, pf->name);
	fj_add(&j, ", \"kind\": ", 10);
	fj_str(&j, pf->kind);
	fj_printf(&j, ", \"planned\": %u, \"actions\": %u, \"failed\": %u, \"errors\": %u, "
		  "\"started\": %s, \"restored\": %s", pf->count, f->fc.actions, f->fc.failed,
		  f->fc.errors, f->fc.start_failed ? "false" : "true",
		  f->fc.restore_failed ? "false" : "true");
	if (f->fc.first_error[0]) {
		fj_add(&j, ", \"first_error\": ", 17);
		fj_str(&j, f->fc.first_error);
	}
	fj_add(&j, "}", 1);
	send(d, &j);
	fj_release(&j);
}

static void report_invariant(struct drv *d, struct drv_inv *v, const struct run_outcome *o)
{
	struct fj j = FJ_INIT;
	struct inv_result r;

	if (v->ok) {
		invariant_finish(&v->ic, o, &r);
	} else {
		memset(&r, 0, sizeof(r));
		snprintf(r.summary, sizeof(r.summary), "could not be set up (out of memory)");
		fj_add(&r.evidence, "[]", 2);
	}
	event_head(d, &j, "invariant");
	fj_add(&j, ", \"invariant\": ", 15);
	fj_str(&j, v->ic.pi->name);
	fj_add(&j, ", \"kind\": ", 10);
	fj_str(&j, v->ic.pi->kind);
	fj_printf(&j, ", \"ok\": %s, \"summary\": ", r.ok ? "true" : "false");
	fj_str(&j, r.summary);
	fj_add(&j, ", \"evidence\": ", 14);
	fj_add(&j, fj_text(&r.evidence), strlen(fj_text(&r.evidence)));
	fj_add(&j, "}", 1);
	send(d, &j);
	fj_release(&j);
	inv_result_release(&r);
}

/*
 * Brings hot-added CPUs online and says so: "cpu_added" with how long the
 * online took and where the kernel put the CPU (package, node, LLC and
 * the scheduling domains as they are right after the online).
 */
static void online_added(struct drv *d, const cpu_set_t *cpus, const char *how)
{
	for (int c = 0; c < CPU_SETSIZE; c++) {
		char err[200] = "", place[1024] = "";
		struct fj j = FJ_INIT;
		uint64_t t0;
		int ok;

		if (!CPU_ISSET(c, cpus))
			continue;
		t0 = wl_now_ns();
		ok = cpu_bring_online((unsigned)c, err, sizeof(err)) == 0;
		if (ok)
			CPU_SET(c, &d->hot_added);
		cpu_place_json((unsigned)c, place, sizeof(place));
		event_head(d, &j, "cpu_added");
		fj_printf(&j, ", \"cpu\": %d, \"seen_by\": ", c);
		fj_str(&j, how);
		fj_printf(&j, ", \"ok\": %s, \"online_ms\": %.1f%s", ok ? "true" : "false",
			  (double)(wl_now_ns() - t0) / 1e6, place);
		if (!ok) {
			fj_add(&j, ", \"error\": ", 11);
			fj_str(&j, err);
		}
		fj_add(&j, "}", 1);
		send(d, &j);
		fj_release(&j);
	}
}

/* Onlines CPUs added before anyone listened; with only_new, those that
 * did not exist when the run began (a CPU a guest fault failed to bring
 * back must stay offline for the invariant to see). */
static void sweep_added(struct drv *d, const char *how, int only_new)
{
	cpu_set_t todo;

	if (cpu_sweep(&todo) <= 0)
		return;
	if (only_new)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &d->present_start))
				CPU_CLR(c, &todo);
	if (CPU_COUNT(&todo))
		online_added(d, &todo, how);
}

static void on_uevents(struct drv *d)
{
	cpu_set_t added, todo, present;

	if (!cpu_uevent_drain(d->uevent_fd, &added))
		return;
	/* only those still offline: an add of a CPU that onlined itself is news to nobody */
	if (cpu_sweep(&todo) > 0) {
		CPU_AND(&todo, &todo, &added);
		online_added(d, &todo, "uevent");
	}
	/* added and already gone again (a quick hot-remove): say so */
	if (cpu_present_now(&present) < 0)
		return;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		struct fj j = FJ_INIT;

		if (!CPU_ISSET(c, &added) || CPU_ISSET(c, &present))
			continue;
		event_head(d, &j, "cpu_added");
		fj_printf(&j, ", \"cpu\": %d, \"seen_by\": \"uevent\", \"ok\": false, \"error\": "
			  "\"removed again before it could be onlined\"}", c);
		send(d, &j);
		fj_release(&j);
	}
}

/* After the run, the final word on each CPU it onlined: the scheduling
 * domains have been rebuilt by now. */
static void report_added(struct drv *d)
{
	for (int c = 0; c < CPU_SETSIZE; c++) {
		char place[1024] = "", online[8] = "?", path[96];
		struct fj j = FJ_INIT;

		if (!CPU_ISSET(c, &d->hot_added))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", c);
		if (wl_read_text(path, online, sizeof(online)) < 0)
			snprintf(online, sizeof(online), "gone");
		cpu_place_json((unsigned)c, place, sizeof(place));
		event_head(d, &j, "cpu_view");
		fj_printf(&j, ", \"cpu\": %d, \"online\": ", c);
		fj_str(&j, online);
		fj_add(&j, place, strlen(place));
		fj_add(&j, "}", 1);
		send(d, &j);
		fj_release(&j);
	}
}

static void driver_setup(struct drv *d)
{
	char err[512];

	if (inv_topo_read(&d->topo) < 0)
		CPU_ZERO(&d->topo.online);
	d->topo.boot_offline = *cpu_boot_offline();
	d->env.online = d->topo.online;
	/* listen first, then catch up with CPUs added before we listened */
	d->uevent_fd = cpu_uevent_open();
	sweep_added(d, "sweep", 0);
	if (cpu_present_now(&d->present_start) < 0)
		CPU_ZERO(&d->present_start);
	if (sched_getaffinity(0, sizeof(d->env.runner_allowed), &d->env.runner_allowed) < 0)
		d->env.runner_allowed = d->topo.online;
	for (unsigned i = 0; i < d->c->nr_faults; i++) {
		const struct plan_fault *pf = &d->c->faults[i];
		struct drv_fault *f = &d->faults[d->nr_faults];

		if (pf->side != PLAN_SIDE_GUEST || fault_prepare(&f->fc, pf, err, sizeof(err)) < 0)
			continue;
		f->fc.env = &d->env;
		/* a different stream per fault and run, the same on a rerun */
		f->fc.rng = (d->env.t0_ns | 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(d->run + 1) << 32) ^
			    (uint64_t)(i + 1) * 0xbf58476d1ce4e5b9ull;
		f->next_ms = pf->start_ms;
		f->enabled = 1;
		d->nr_faults++;
	}
	for (unsigned i = 0; i < d->c->nr_invariants; i++) {
		struct drv_inv *v = &d->invs[d->nr_invs];

		if (invariant_prepare(&v->ic, &d->c->invariants[i], &d->topo, err, sizeof(err)) < 0)
			continue;
		v->ok = invariant_init(&v->ic) == 0;
		v->interval_ms = invariant_interval_ms(&v->ic);
		v->ic.next_ms = v->interval_ms ? v->interval_ms / 2 : 0;
		d->nr_invs++;
	}
	collect_knobs(d);
	read_knobs(d, 0);
	for (unsigned i = 0; i < d->nr_faults; i++) {
		struct drv_fault *f = &d->faults[i];

		f->fc.mark_ns = wl_now_ns();
		if (f->fc.ops->start(&f->fc) < 0) {
			fault_event(&f->fc, "start", f->fc.pf->kind, 0, "%s", strerror(errno));
			f->fc.start_failed = 1;
			f->enabled = 0;
		}
	}
}

static void driver_finish(struct drv *d)
{
	struct driver_shared *sh = d->sh;
	struct run_outcome o;
	unsigned k;

	for (unsigned i = 0; i < d->nr_faults; i++) {
		struct drv_fault *f = &d->faults[i];

		if (!f->enabled)
			continue;
		f->fc.mark_ns = wl_now_ns();
		if (f->fc.active && f->fc.ops->undo(&f->fc) < 0)
			f->fc.restore_failed = 1;
		f->fc.active = 0;
		f->fc.mark_ns = wl_now_ns();
		if (f->fc.ops->stop(&f->fc) < 0)
			f->fc.restore_failed = 1;
	}
	/* everything put back: the journal's records of this driver are done */
	for (k = 0; k < d->nr_faults && !d->faults[k].fc.restore_failed; k++)
		;
	if (k == d->nr_faults)
		journal_note_clean();
	if (d->uevent_fd >= 0)
		on_uevents(d);
	sweep_added(d, "sweep", 1);
	report_added(d);
	memset(&o, 0, sizeof(o));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	o.status = sh->status[0] ? sh->status : "unknown";
	o.error = sh->status[0] ? sh->error : "the runner never said how the run ended";
	o.metrics = sh->metrics;
	o.nr_metrics = sh->nr_metrics < WL_MAX_METRICS ? sh->nr_metrics : WL_MAX_METRICS;
	o.leftover = sh->leftover;
	o.leftover_desc = sh->leftover_desc;
	o.end_ms = sh->end_ns > d->env.t0_ns ? (sh->end_ns - d->env.t0_ns) / 1000000ull : now_ms(d);
	if (fault_online_now(&o.online_after) < 0)
		CPU_ZERO(&o.online_after);
	if (cpu_present_now(&o.present_after) < 0)
		CPU_ZERO(&o.present_after);
	read_knobs(d, 1);
	o.knobs = d->knobs;
	o.nr_knobs = d->nr_knobs;
	for (unsigned i = 0; i < d->nr_invs; i++)
		report_invariant(d, &d->invs[i], &o);
	for (unsigned i = 0; i < d->nr_faults; i++)
		report_fault(d, &d->faults[i]);
}

static void driver_main(struct drv *d, int ctl)
{
	uint64_t hard_end = d->env.deadline_ns + DRV_GRACE_NS;
	pthread_t sampler;
	int sampling;

	the_drv = d;
	d->tids = calloc(DRV_MAX_TASKS, sizeof(*d->tids));
	d->tasks = calloc(DRV_MAX_TASKS, sizeof(*d->tasks));
	d->mms = calloc(DRV_MAX_MMS, sizeof(*d->mms));
	if (!d->tids || !d->tasks || !d->mms || pipe2(d->sampler_stop, O_CLOEXEC) < 0)
		_exit(3);
	driver_setup(d);
	sampling = next_sample(d) != UINT64_MAX &&
		   pthread_create(&sampler, NULL, sampler_main, d) == 0;
	/* asleep between actions: the driver must cost the run nothing */
	for (;;) {
		int r;

		run_faults(d, now_ms(d));
		r = sleep_until(d, next_action(d), hard_end, ctl, d->uevent_fd);
		if (r == 2) {
			on_uevents(d);
			continue;
		}
		if (r)
			break; /* the runner's byte, its end, or the deadline */
	}
	if (sampling) {
		if (write(d->sampler_stop[1], "s", 1) < 0) {
			/* the sampler stops at the deadline anyway */
		}
		pthread_join(sampler, NULL);
	}
	driver_finish(d);
	out_close(&d->out);
	_exit(0);
}

int fault_driver_start(struct fault_driver *d, struct out *o, const struct plan_case *c,
		       unsigned run, const char *cgroup, uint64_t t0_ns, uint64_t deadline_ns,
		       char *err, size_t errlen)
{
	int fds[2];
	pid_t pid;

	d->pid = 0;
	d->ctl = -1;
	d->sh = mmap(NULL, sizeof(*d->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (d->sh == MAP_FAILED) {
		d->sh = NULL;
		snprintf(err, errlen, "fault driver: mmap: %s", strerror(errno));
		return -1;
	}
	memset(d->sh, 0, sizeof(*d->sh));
	d->sh->seq = o->seq;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "fault driver: pipe: %s", strerror(errno));
		munmap(d->sh, sizeof(*d->sh));
		d->sh = NULL;
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fault driver: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		munmap(d->sh, sizeof(*d->sh));
		d->sh = NULL;
		return -1;
	}
	if (pid == 0) {
		static struct drv drv; /* big: not on the stack */

		/* its own group: the kill of the workload's group spares it;
		 * the runner's stop request reaches it through the pipe */
		setpgid(0, 0);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_IGN);
		close(fds[1]);
		drv.out = *o;
		drv.out.owned = 0; /* the runner's descriptor, not ours to close */
		drv.sh = d->sh;
		drv.c = c;
		drv.run = run;
		drv.env.cgroup = cgroup ? cgroup : "";
		drv.env.pgid = &d->sh->pgid;
		drv.env.t0_ns = t0_ns;
		drv.env.deadline_ns = deadline_ns;
		driver_main(&drv, fds[0]);
	}
	setpgid(pid, pid);
	close(fds[0]);
	d->pid = pid;
	d->ctl = fds[1];
	return 0;
}

volatile pid_t *fault_driver_pgid(struct fault_driver *d)
{
	return d->sh ? &d->sh->pgid : NULL;
}

/* Waits for pid until deadline_ms from now; 0 when it exited. */
static int wait_bounded(pid_t pid, int timeout_ms)
{
	uint64_t end = wl_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		uint64_t now = wl_now_ns();

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (now >= end) {
			if (pidfd >= 0)
				close(pidfd);
			return -1;
		}
		if (pidfd >= 0) {
			struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

			poll(&pfd, 1, (int)((end - now) / 1000000ull) + 1);
		} else {
			usleep(10000); /* kernels before 5.3: no pidfd to sleep on */
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return 0;
}

int fault_driver_stop(struct fault_driver *d, struct out *o, const struct fault_run_end *end)
{
	struct driver_shared *sh = d->sh;
	int ret = 0;

	if (!d->pid || !sh)
		return 0;
	snprintf(sh->status, sizeof(sh->status), "%s", end->status);
	snprintf(sh->error, sizeof(sh->error), "%s", end->error ? end->error : "");
	sh->nr_metrics = end->nr_metrics < WL_MAX_METRICS ? end->nr_metrics : WL_MAX_METRICS;
	if (end->metrics)
		memcpy(sh->metrics, end->metrics, sh->nr_metrics * sizeof(sh->metrics[0]));
	sh->leftover = end->leftover;
	snprintf(sh->leftover_desc, sizeof(sh->leftover_desc), "%s",
		 end->leftover_desc ? end->leftover_desc : "");
	sh->end_ns = wl_now_ns();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (write(d->ctl, "s", 1) < 0) {
		/* a driver that already ended sees the pipe close below */
	}
	close(d->ctl);
	d->ctl = -1;
	if (wait_bounded(d->pid, DRV_STOP_TIMEOUT_MS) < 0) {
		int status;

		/* its group: spinners and memory hogs it started go too */
		kill(-d->pid, SIGKILL);
		while (waitpid(d->pid, &status, 0) < 0 && errno == EINTR)
			;
		ret = -1;
	}
	o->seq = __atomic_load_n(&sh->seq, __ATOMIC_SEQ_CST);
	munmap(sh, sizeof(*sh));
	d->sh = NULL;
	d->pid = 0;
	return ret;
}
