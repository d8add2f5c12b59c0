/* fault-tasks.c - finding a run's workload tasks for faults and invariants:
 * the per-case cgroup v2 the runs join, process-group fallback, /proc task state. */
#include "fault-tasks.h"
#include "common/journal.h"
#include "wlutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define CGROUP2_MAGIC 0x63677270

static const char *const controller_names[] = { "cpu", "cpuset", "memory", "io", "pids" };
#define NR_CONTROLLERS (sizeof(controller_names) / sizeof(controller_names[0]))

static int read_ids(const char *path, pid_t *ids, int max);

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

int run_cgroup_v2(void)
{
	struct statfs sf;

	return statfs(RUN_CGROUP_ROOT, &sf) == 0 && (unsigned long)sf.f_type == CGROUP2_MAGIC;
}

/* Bits of the controllers listed in a cgroup.controllers-style file. */
static unsigned controller_bits(const char *text)
{
	unsigned bits = 0;

	for (size_t i = 0; i < NR_CONTROLLERS; i++) {
		size_t n = strlen(controller_names[i]);

		for (const char *p = text; (p = strstr(p, controller_names[i])); p += n)
			if ((p == text || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == '\n'))
				bits |= 1u << i;
	}
	return bits;
}

static unsigned read_bits(const char *dir, const char *file)
{
	char path[192], buf[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (wl_read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	return controller_bits(buf);
}

/* Enables the controllers of `want` in dir's subtree; returns what it added. */
static int enable(const char *dir, unsigned want, unsigned *added, char *err, size_t errlen)
{
	unsigned have = read_bits(dir, "cgroup.subtree_control");
	char path[192], cmd[8];

	*added = 0;
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	for (size_t i = 0; i < NR_CONTROLLERS; i++) {
		if (!(want & (1u << i)) || (have & (1u << i)))
			continue;
		snprintf(cmd, sizeof(cmd), "+%s", controller_names[i]);
		if (write_str(path, cmd) < 0) {
			snprintf(err, errlen, "cannot enable the %s controller in '%s': %s",
				 controller_names[i], dir, strerror(errno));
			return -1;
		}
		*added |= 1u << i;
	}
	return 0;
}

static void disable(const char *dir, unsigned bits)
{
	char path[192], cmd[8];

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	for (size_t i = 0; i < NR_CONTROLLERS; i++) {
		if (!(bits & (1u << i)))
			continue;
		snprintf(cmd, sizeof(cmd), "-%s", controller_names[i]);
		if (write_str(path, cmd) < 0) {
			/* a leftover controller only costs scheduling fidelity */
		}
	}
}

int run_cgroup_create(struct run_cgroup *cg, unsigned case_index, const char *controllers,
		      char *err, size_t errlen)
{
	unsigned want = controllers ? controller_bits(controllers) : 0;

	memset(cg, 0, sizeof(*cg));
	if (!run_cgroup_v2()) {
		if (want) {
			snprintf(err, errlen, "no cgroup v2 hierarchy at '%s'", RUN_CGROUP_ROOT);
			return -1;
		}
		return 0;
	}
	if (mkdir(RUN_CGROUP_DIR, 0755) == 0)
		journal_note_mkdir(RUN_CGROUP_DIR);
	else if (errno != EEXIST) {
		if (want) {
			snprintf(err, errlen, "cannot create '%s': %s", RUN_CGROUP_DIR, strerror(errno));
			return -1;
		}
		return 0; /* no permission: process groups will do */
	}
	if (want) {
		unsigned avail = read_bits(RUN_CGROUP_ROOT, "cgroup.controllers");

		if ((avail & want) != want) {
			snprintf(err, errlen, "cgroup v2 lacks a controller of '%s' (has '%s')",
				 controllers, "see " RUN_CGROUP_ROOT "/cgroup.controllers");
			return -1;
		}
		if (enable(RUN_CGROUP_ROOT, want, &cg->added_root, err, errlen) < 0)
			return -1;
		if (enable(RUN_CGROUP_DIR, want, &cg->added_dir, err, errlen) < 0) {
			disable(RUN_CGROUP_ROOT, cg->added_root);
			return -1;
		}
		snprintf(cg->controllers, sizeof(cg->controllers), "%s", controllers);
	}
	snprintf(cg->path, sizeof(cg->path), "%s/case-%u", RUN_CGROUP_DIR, case_index);
	if (mkdir(cg->path, 0755) == 0)
		journal_note_mkdir(cg->path);
	else if (errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%s': %s", cg->path, strerror(errno));
		cg->path[0] = '\0';
		disable(RUN_CGROUP_DIR, cg->added_dir);
		disable(RUN_CGROUP_ROOT, cg->added_root);
		return want ? -1 : 0;
	}
	return 0;
}

int run_cgroup_join(const struct run_cgroup *cg)
{
	char path[192], pid[24];

	if (!cg || !cg->path[0])
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->path);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return write_str(path, pid);
}

void run_cgroup_kill(const struct run_cgroup *cg)
{
	char path[192];
	pid_t pids[256];
	int n;

	if (!cg || !cg->path[0])
		return;
	snprintf(path, sizeof(path), "%s/cgroup.kill", cg->path);
	if (write_str(path, "1") < 0) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg->path);
		/* a fork racing with us lands in the cgroup too: a few rounds */
		for (int round = 0; round < 5 && (n = read_ids(path, pids, 256)) > 0; round++)
			for (int i = 0; i < n; i++)
				kill(pids[i], SIGKILL);
	}
	/* the next run must not meet this one's dying tasks: wait (at most a
	 * second, between runs) until the cgroup says it is empty */
	snprintf(path, sizeof(path), "%s/cgroup.events", cg->path);
	for (int i = 0; i < 100; i++) {
		char buf[256];

		if (wl_read_text(path, buf, sizeof(buf)) < 0 || strstr(buf, "populated 0"))
			break;
		usleep(10000);
	}
}

void run_cgroup_remove(struct run_cgroup *cg)
{
	if (cg->path[0]) {
		/* the run's tasks were killed; the last of them may still be
		 * on its way out, so give rmdir a few tries */
		int i = 0;

		while (rmdir(cg->path) < 0 && errno == EBUSY && i++ < 50)
			usleep(20000);
		if (access(cg->path, F_OK) < 0)
			journal_note_clean();
	}
	disable(RUN_CGROUP_DIR, cg->added_dir);
	disable(RUN_CGROUP_ROOT, cg->added_root);
	memset(cg, 0, sizeof(*cg));
}

/* Numbers, one per line, from a cgroup file. */
static int read_ids(const char *path, pid_t *ids, int max)
{
	FILE *f = fopen(path, "re");
	char line[32];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		long v = strtol(line, NULL, 10);

		if (v > 0)
			ids[n++] = (pid_t)v;
	}
	fclose(f);
	return n;
}

/* pgrp (field 5) of /proc/<pid>/stat. */
static pid_t stat_pgrp(const char *pid)
{
	char path[64], buf[1024];
	struct task_state ts;
	const char *p;
	long pgrp;

	snprintf(path, sizeof(path), "/proc/%d/stat", atoi(pid));
	if (wl_read_text(path, buf, sizeof(buf)) < 0 || task_stat_parse(buf, &ts) < 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %ld", &pgrp) != 1)
		return -1;
	return (pid_t)pgrp;
}

static int scan_pgrp(pid_t pgid, int threads, pid_t *ids, int max)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!proc)
		return -1;
	while (n < max && (de = readdir(proc))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || stat_pgrp(de->d_name) != pgid)
			continue;
		if (!threads) {
			ids[n++] = (pid_t)atoi(de->d_name);
			continue;
		}
		{
			char path[64];
			DIR *task;
			struct dirent *te;

			snprintf(path, sizeof(path), "/proc/%d/task", atoi(de->d_name));
			task = opendir(path);
			while (task && n < max && (te = readdir(task)))
				if (te->d_name[0] >= '1' && te->d_name[0] <= '9')
					ids[n++] = (pid_t)atoi(te->d_name);
			if (task)
				closedir(task);
		}
	}
	closedir(proc);
	return n;
}

/* The run's cgroup lists its own; without one, the process group is scanned. */
static int workload_ids(const char *cgroup, pid_t pgid, int threads, pid_t *ids, int max)
{
	if (cgroup && cgroup[0]) {
		char path[192];

		snprintf(path, sizeof(path), "%s/%s", cgroup,
			 threads ? "cgroup.threads" : "cgroup.procs");
		return read_ids(path, ids, max);
	}
	return pgid > 0 ? scan_pgrp(pgid, threads, ids, max) : 0;
}

int workload_tids(const char *cgroup, pid_t pgid, pid_t *tids, int max)
{
	return workload_ids(cgroup, pgid, 1, tids, max);
}

int workload_pids(const char *cgroup, pid_t pgid, pid_t *pids, int max)
{
	return workload_ids(cgroup, pgid, 0, pids, max);
}

int task_stat_parse(const char *text, struct task_state *ts)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	const char *p;
	size_t n;
	int field;

	if (!open || !close || close < open || close[1] != ' ')
		return -1;
	ts->tid = (pid_t)strtol(text, NULL, 10);
	n = (size_t)(close - open - 1);
	if (n >= sizeof(ts->comm))
		n = sizeof(ts->comm) - 1;
	memcpy(ts->comm, open + 1, n);
	ts->comm[n] = '\0';
	p = close + 2;
	ts->state = *p;
	if (!ts->state || ts->tid <= 0)
		return -1;
	/* fields after the comm start at 3 (state); processor is 39 */
	for (field = 3; field < 39 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || *p < '0' || *p > '9')
		return -1;
	ts->cpu = (int)strtol(p, NULL, 10);
	return 0;
}

int task_status_parse(const char *text, struct task_state *ts)
{
	const char *tgid = strstr(text, "\nTgid:");
	const char *allowed = strstr(text, "\nCpus_allowed_list:");
	char list[4096];
	size_t n;

	ts->have_allowed = 0;
	if (tgid)
		ts->tgid = (pid_t)strtol(tgid + 6, NULL, 10);
	if (!allowed)
		return tgid ? 0 : -1;
	allowed += strlen("\nCpus_allowed_list:");
	while (*allowed == ' ' || *allowed == '\t')
		allowed++;
	n = strcspn(allowed, "\n");
	if (n >= sizeof(list))
		return -1;
	memcpy(list, allowed, n);
	list[n] = '\0';
	if (wl_parse_cpulist(list, &ts->allowed) < 0)
		return -1;
	ts->have_allowed = 1;
	return 0;
}

int task_state_read(pid_t tid, int with_allowed, struct task_state *ts)
{
	char path[64], buf[4096];

	memset(ts, 0, sizeof(*ts));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (wl_read_text(path, buf, sizeof(buf)) < 0 || task_stat_parse(buf, ts) < 0)
		return -1;
	if (!with_allowed)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (wl_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	return task_status_parse(buf, ts);
}
