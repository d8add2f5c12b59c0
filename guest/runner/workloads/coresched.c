/* coresched.c - seed 004's pair: a latency workload (schbench) beside a
 * vector hog (vector_hog), each in a process and a cgroup of its own and,
 * with core_sched = on, each with its own core-scheduling cookie. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlutil.h"
#include "coresched.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CS_CGROUP_ROOT "/sys/fs/cgroup"

/*
 * Both sides are the existing workloads, driven through their ops in a
 * forked process each: the cookie is taken by the process (thread group)
 * before it starts a thread, so every worker inherits it, and the two
 * processes never share one.  A kernel without CONFIG_SCHED_CORE answers
 * PR_SCHED_CORE with EINVAL (the `on` case is then SKIP); one without
 * SMT siblings (booted with nosmt) with ENODEV: there is no sibling to
 * share, both rows run cookie-less and make the SMT-off baseline.
 */
enum { CS_LAT, CS_HOG, CS_GROUPS };

static const char *const cs_group_name[CS_GROUPS] = { "lat", "hog" };

struct cs_group_out {
	int ret;
	int no_smt;                 /* PR_SCHED_CORE_CREATE said ENODEV */
	uint64_t cookie;            /* PR_SCHED_CORE_GET after setup */
	unsigned nr_metrics;
	struct wl_metric metrics[WL_MAX_METRICS];
	char error[256];
};

/* Shared with both group processes. */
struct cs_shared {
	struct wl_task_totals totals[CS_GROUPS];
	struct cs_group_out out[CS_GROUPS];
};

struct cs_run {
	struct wl_ctx *ctx;
	int core_sched;
	const struct workload_ops *ops[CS_GROUPS];
	struct wl_args *args[CS_GROUPS];
	char cgroup[CS_GROUPS][256];  /* "" when the groups share the run's */
	struct cs_shared *sh;
	struct wl_gate gate;
	pid_t pid[CS_GROUPS];
};

int cs_prctl(unsigned long cmd, unsigned long type, uint64_t *cookie)
{
	if (cookie)
		*cookie = 0;
	if (prctl(PR_SCHED_CORE, cmd, 0, type, (unsigned long)cookie) < 0)
		return -errno;
	return 0;
}

static int cs_case_supported(const struct wl_args *a, char *why, size_t len)
{
	uint64_t cookie;
	int r;

	if (strcmp(wl_str(a, "core_sched"), "on"))
		return 1;
	r = cs_prctl(PR_SCHED_CORE_GET, PR_SCHED_CORE_SCOPE_THREAD, &cookie);
	if (r == -EINVAL) {
		snprintf(why, len, "core_sched=on needs a kernel with CONFIG_SCHED_CORE "
			 "(prctl PR_SCHED_CORE: EINVAL)");
		return 0;
	}
	if (r < 0 && r != -ENODEV) {
		snprintf(why, len, "prctl PR_SCHED_CORE: %s", strerror(-r));
		return 0;
	}
	return 1;
}

/* The groups' cgroups under the run's own one, when it can have children. */
static void cs_cgroups_make(struct cs_run *r)
{
	char text[4096], self[200];
	ssize_t n = wl_read_text("/proc/self/cgroup", text, sizeof(text));

	if (n <= 0 || wl_cgroup_path(text, (size_t)n, self, sizeof(self)) < 0 || !strcmp(self, "/"))
		return;
	for (int g = 0; g < CS_GROUPS; g++) {
		snprintf(r->cgroup[g], sizeof(r->cgroup[g]), CS_CGROUP_ROOT "%s/%s", self,
			 cs_group_name[g]);
		if (mkdir(r->cgroup[g], 0755) < 0 && errno != EEXIST) {
			/* read-only or foreign hierarchy: the processes alone */
			while (g >= 0)
				r->cgroup[g--][0] = '\0';
			return;
		}
	}
}

static void cs_cgroups_remove(struct cs_run *r)
{
	for (int g = 0; g < CS_GROUPS; g++) {
		/* the group's tasks were reaped; the last may still be leaving */
		for (int i = 0; r->cgroup[g][0] && i < 50 && rmdir(r->cgroup[g]) < 0 &&
		     errno == EBUSY; i++)
			usleep(20000);
	}
}

static int cs_join(const char *cgroup)
{
	char path[300], pid[24];
	int fd, ok;

	if (!cgroup[0])
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, pid, strlen(pid)) == (ssize_t)strlen(pid);
	close(fd);
	return ok ? 0 : -1;
}

/* The setup of a group process before its workload may start. */
static int cs_group_setup(struct cs_run *r, int g, struct cs_group_out *out)
{
	int err;

	if (cs_join(r->cgroup[g]) < 0) {
		snprintf(out->error, sizeof(out->error), "%s: cannot join '%s': %s",
			 cs_group_name[g], r->cgroup[g], strerror(errno));
		return -1;
	}
	if (r->core_sched) {
		err = cs_prctl(PR_SCHED_CORE_CREATE, PR_SCHED_CORE_SCOPE_THREAD_GROUP, NULL);
		if (err == -ENODEV) {
			out->no_smt = 1;
		} else if (err < 0) {
			snprintf(out->error, sizeof(out->error),
				 "%s: prctl PR_SCHED_CORE_CREATE: %s", cs_group_name[g],
				 strerror(-err));
			return -1;
		}
	}
	/*
	 * Without CONFIG_SCHED_CORE this fails and the cookie stays 0.  The
	 * kernel shows a cookie hashed like a %p pointer, and until its
	 * random pool is ready (a guest without an RNG device: boot with
	 * random.trust_cpu=on) the hash, so the value read, is 0 even for a
	 * cookie that is set; the forced-idle counters still tell.
	 */
	cs_prctl(PR_SCHED_CORE_GET, PR_SCHED_CORE_SCOPE_THREAD, &out->cookie);
	return 0;
}

static void __attribute__((noreturn)) cs_group_main(struct cs_run *r, int g)
{
	struct cs_group_out *out = &r->sh->out[g];
	struct wl_ctx sub;

	wl_gate_child(&r->gate);
	out->ret = -1;
	if (cs_group_setup(r, g, out) < 0) {
		wl_gate_pass_failed(&r->gate);
		_exit(1);
	}
	/* both groups have their cookies before either starts working */
	wl_gate_pass(&r->gate);
	memset(&sub, 0, sizeof(sub));
	sub.args = r->args[g];
	sub.nr_cpus = r->ctx->nr_cpus;
	sub.deadline_ns = r->ctx->deadline_ns;
	sub.totals = &r->sh->totals[g];
	sub.tids = r->ctx->tids; /* shared: every task lists itself in the run's list */
	out->ret = r->ops[g]->run(&sub);
	out->nr_metrics = sub.nr_metrics;
	memcpy(out->metrics, sub.metrics, sizeof(out->metrics));
	snprintf(out->error, sizeof(out->error), "%s: %.200s", cs_group_name[g], sub.error);
	_exit(0);
}

/* The options of both sides, from ours. */
static int cs_args(struct cs_run *r)
{
	const struct wl_args *a = r->ctx->args;
	char hog_runtime[24], hog_threads[24], err[256];
	static const char *const lat_keys[] = {
		"message_threads", "workers", "runtime", "warmup", "operations", "sleep_us",
	};

	/* the hog covers the latency side's warm-up and measured window */
	snprintf(hog_runtime, sizeof(hog_runtime), "%lld",
		 (long long)(wl_int(a, "runtime") + wl_int(a, "warmup") + 1));
	/* 0: one per online CPU, every sibling has a hog to keep out */
	snprintf(hog_threads, sizeof(hog_threads), "%lld",
		 wl_int(a, "hog_threads") ? (long long)wl_int(a, "hog_threads") :
		 (long long)r->ctx->nr_cpus);
	r->ops[CS_LAT] = &workload_schbench;
	r->ops[CS_HOG] = &workload_vector_hog;
	for (int g = 0; g < CS_GROUPS; g++) {
		r->args[g] = wl_args_new();
		if (!r->args[g])
			return wl_fail(r->ctx, "out of memory");
	}
	for (size_t i = 0; i < sizeof(lat_keys) / sizeof(lat_keys[0]); i++)
		if (wl_args_set(r->args[CS_LAT], r->ops[CS_LAT], lat_keys[i],
				wl_str(a, lat_keys[i]), err, sizeof(err)) < 0)
			return wl_fail(r->ctx, "lat: %s", err);
	if (wl_args_set(r->args[CS_HOG], r->ops[CS_HOG], "threads", hog_threads,
			err, sizeof(err)) < 0 ||
	    wl_args_set(r->args[CS_HOG], r->ops[CS_HOG], "kind", wl_str(a, "hog_kind"),
			err, sizeof(err)) < 0 ||
	    wl_args_set(r->args[CS_HOG], r->ops[CS_HOG], "runtime", hog_runtime,
			err, sizeof(err)) < 0)
		return wl_fail(r->ctx, "hog: %s", err);
	for (int g = 0; g < CS_GROUPS; g++)
		if (wl_args_finish(r->args[g], r->ops[g], err, sizeof(err)) < 0)
			return wl_fail(r->ctx, "%s: %s", cs_group_name[g], err);
	return 0;
}

static void cs_add_totals(struct wl_task_totals *to, const struct wl_task_totals *t)
{
	to->tasks += t->tasks;
	to->nr_migrations += t->nr_migrations;
	to->nr_voluntary_switches += t->nr_voluntary_switches;
	to->nr_involuntary_switches += t->nr_involuntary_switches;
	to->wait_sum_ns += t->wait_sum_ns;
	to->nr_wakeups += t->nr_wakeups;
	to->nr_wakeups_migrate += t->nr_wakeups_migrate;
	to->numa_pages_migrated += t->numa_pages_migrated;
	to->core_forceidle_ns += t->core_forceidle_ns;
	to->nr_failed_migrations_hot += t->nr_failed_migrations_hot;
}

/* The latency side's metrics as they are, the hog's with "hog_" before. */
static void cs_report(struct cs_run *r)
{
	const struct cs_group_out *lat = &r->sh->out[CS_LAT], *hog = &r->sh->out[CS_HOG];
	char name[WL_NAME_LEN];

	for (unsigned i = 0; i < lat->nr_metrics && i < WL_MAX_METRICS; i++)
		wl_metric(r->ctx, lat->metrics[i].name, lat->metrics[i].unit, lat->metrics[i].value,
			  lat->metrics[i].higher_is_better);
	for (unsigned i = 0; i < hog->nr_metrics && i < WL_MAX_METRICS; i++) {
		snprintf(name, sizeof(name), "hog_%.40s", hog->metrics[i].name);
		wl_metric(r->ctx, name, hog->metrics[i].unit, hog->metrics[i].value,
			  hog->metrics[i].higher_is_better);
	}
	for (int g = 0; g < CS_GROUPS; g++) {
		snprintf(name, sizeof(name), "%s_cookie_set", cs_group_name[g]);
		wl_counter(r->ctx, name, r->sh->out[g].cookie != 0);
		snprintf(name, sizeof(name), "%s_forceidle_ms", cs_group_name[g]);
		wl_counter(r->ctx, name, (double)r->sh->totals[g].core_forceidle_ns / 1e6);
		if (r->ctx->totals)
			cs_add_totals(r->ctx->totals, &r->sh->totals[g]);
	}
	wl_counter(r->ctx, "cookies_distinct",
		   lat->cookie && hog->cookie && lat->cookie != hog->cookie);
	wl_counter(r->ctx, "own_cgroups", r->cgroup[CS_LAT][0] != '\0');
}

static int cs_fork_groups(struct cs_run *r)
{
	for (int g = 0; g < CS_GROUPS; g++) {
		r->pid[g] = fork();
		if (r->pid[g] < 0)
			return wl_fail(r->ctx, "fork: %s", strerror(errno));
		if (r->pid[g] == 0)
			cs_group_main(r, g);
	}
	wl_gate_forked(&r->gate);
	return 0;
}

/* Reaps both group processes, killing them at the deadline. */
static int cs_reap(struct cs_run *r)
{
	int late = 0;

	for (int g = 0; g < CS_GROUPS; g++) {
		int status;

		while (r->pid[g] > 0) {
			pid_t w = waitpid(r->pid[g], &status, WNOHANG);

			if (w == r->pid[g] || (w < 0 && errno != EINTR)) {
				r->pid[g] = 0;
				break;
			}
			if (wl_now_ns() >= r->ctx->deadline_ns && !late) {
				late = 1;
				for (int k = 0; k < CS_GROUPS; k++)
					if (r->pid[k] > 0)
						kill(r->pid[k], SIGKILL);
			}
			usleep(20000);
		}
	}
	return late ? wl_fail(r->ctx, "deadline passed") : 0;
}

static int cs_outcome(struct cs_run *r)
{
	for (int g = 0; g < CS_GROUPS; g++) {
		const struct cs_group_out *o = &r->sh->out[g];

		if (o->ret < 0)
			return wl_fail(r->ctx, "%s", o->error[0] ? o->error : "a group died");
	}
	cs_report(r);
	return 0;
}

static int cs_run(struct wl_ctx *ctx)
{
	struct cs_run r = { .ctx = ctx, .gate = WL_GATE_INIT };
	int ret = -1, ready;

	r.core_sched = !strcmp(wl_str(ctx->args, "core_sched"), "on");
	if (cs_args(&r) < 0)
		goto out;
	r.sh = mmap(NULL, sizeof(*r.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r.sh == MAP_FAILED) {
		r.sh = NULL;
		wl_fail(ctx, "mmap: %s", strerror(errno));
		goto out;
	}
	memset(r.sh, 0, sizeof(*r.sh));
	if (wl_gate_init(&r.gate) < 0) {
		wl_fail(ctx, "pipe: %s", strerror(errno));
		goto out;
	}
	cs_cgroups_make(&r);
	if (cs_fork_groups(&r) < 0) {
		cs_reap(&r);
		goto out;
	}
	ready = wl_gate_wait_ready(&r.gate, CS_GROUPS, ctx->deadline_ns);
	if (ready) {
		/* a group could not set up: the other must not wait forever */
		for (int g = 0; g < CS_GROUPS; g++)
			if (r.pid[g] > 0)
				kill(r.pid[g], SIGKILL);
	}
	wl_gate_open(&r.gate);
	if (cs_reap(&r) < 0)
		goto out;
	ret = cs_outcome(&r);
	if (ready && !ret)
		ret = wl_fail(ctx, "a group did not start");
out:
	cs_cgroups_remove(&r);
	wl_gate_release(&r.gate);
	for (int g = 0; g < CS_GROUPS; g++)
		wl_args_free(r.args[g]);
	if (r.sh)
		munmap(r.sh, sizeof(*r.sh));
	return ret;
}

static const struct wl_option cs_options[] = {
	{ "core_sched", WL_STR, 0, 0, "off", "off|on",
	  "on: each group gets its own core-scheduling cookie (prctl PR_SCHED_CORE_CREATE)" },
	{ "message_threads", WL_INT, 1, 1024, "1", NULL, "latency side: schbench message threads" },
	{ "workers", WL_INT, 1, 1024, "2", NULL, "latency side: workers per message thread" },
	{ "operations", WL_INT, 0, 1000, "5", NULL, "latency side: matrix multiplies per request" },
	{ "sleep_us", WL_INT, 0, 1000000, "100", NULL, "latency side: sleep before each request" },
	{ "runtime", WL_INT, 1, 3600, "5", NULL, "latency side: measured seconds" },
	{ "warmup", WL_INT, 0, 3600, "1", NULL, "latency side: seconds before measuring" },
	{ "hog_threads", WL_INT, 0, 1024, "0", NULL,
	  "vector hog threads (not pinned); 0: one per online CPU" },
	{ "hog_kind", WL_STR, 0, 0, "auto", "auto|sse|avx2|avx512", "vector width of the hog" },
	{ .name = NULL },
};

const struct workload_ops workload_coresched = {
	.name = "coresched",
	.description = "schbench beside a vector hog in two cgroups, own core-sched cookies "
		       "when on (seed 004)",
	.options = cs_options,
	.case_supported = cs_case_supported,
	.run = cs_run,
};
