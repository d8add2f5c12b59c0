/* fault-tasks.h - finding a run's workload tasks for faults and invariants:
 * the per-case cgroup v2 the runs join, process-group fallback, /proc task state. */
#ifndef RUNNER_FAULT_TASKS_H
#define RUNNER_FAULT_TASKS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#define RUN_CGROUP_ROOT "/sys/fs/cgroup"
#define RUN_CGROUP_DIR RUN_CGROUP_ROOT "/schedlab"

/*
 * The cgroup of one case: RUN_CGROUP_DIR/case-<index>.  Without a cgroup
 * v2 hierarchy at RUN_CGROUP_ROOT (bare metal with v1, no permission)
 * path is "" and tasks are found by process group instead.  Controllers
 * are enabled only for cases that ask (cgroup_churn): the cpu controller
 * makes the cgroup a task group, which changes scheduling, so plain
 * benchmark cases stay outside any controller.
 */
struct run_cgroup {
	char path[128];
	char controllers[64];   /* enabled for this case, space-separated */
	unsigned added_root;    /* controller bits we enabled and must take back */
	unsigned added_dir;
};

/* Creates the case's cgroup; 0 with path "" when there is no cgroup v2,
 * -1 with err when controllers were asked for and cannot be had. */
int run_cgroup_create(struct run_cgroup *cg, unsigned case_index, const char *controllers,
		      char *err, size_t errlen);
/* Moves the calling process into it (no-op without one); -1 on failure. */
int run_cgroup_join(const struct run_cgroup *cg);
/* SIGKILLs every task in it (cgroup.kill, or each of cgroup.procs on
 * kernels before 5.14): tasks that left the run's process group too. */
void run_cgroup_kill(const struct run_cgroup *cg);
/* Removes it and takes back the controllers enabled for it. */
void run_cgroup_remove(struct run_cgroup *cg);
/* Whether cgroup v2 is mounted at RUN_CGROUP_ROOT. */
int run_cgroup_v2(void);

/*
 * The thread ids of the workload: from <cgroup>/cgroup.threads, else every
 * thread of the processes in process group pgid.  Returns how many were
 * stored (at most max), -1 when neither source can be read.
 */
int workload_tids(const char *cgroup, pid_t pgid, pid_t *tids, int max);
/* The same for processes (thread-group leaders). */
int workload_pids(const char *cgroup, pid_t pgid, pid_t *pids, int max);

/* What /proc/<tid>/stat and status say about one task. */
struct task_state {
	pid_t tid, tgid;
	char comm[16];
	char state;          /* R, S, D, ... */
	int cpu;             /* field 39: the CPU it runs or last ran on */
	int have_allowed;
	cpu_set_t allowed;   /* Cpus_allowed_list */
};

/* Pure parsers: /proc/<tid>/stat text (comm may hold spaces and
 * parentheses) and /proc/<tid>/status text.  0 or -1 when malformed. */
int task_stat_parse(const char *text, struct task_state *ts);
int task_status_parse(const char *text, struct task_state *ts);
/* Reads both for tid; with_allowed also reads status.  -1 when the task is gone. */
int task_state_read(pid_t tid, int with_allowed, struct task_state *ts);

#endif
