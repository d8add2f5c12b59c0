/* scx.h - a case's sched_ext BPF scheduler: started before the case, seen
 * enabled, watched for the kernel ejecting it, stopped after the case. */
#ifndef RUNNER_SCX_H
#define RUNNER_SCX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/plan.h"
#include "common/scxmsg.h"

#define SCX_SYSFS "/sys/kernel/sched_ext"
/* Where the host puts the schedulers in the initrd. */
#define SCX_BIN_DIR "/scx"

/* What the watcher process shares with the runner. */
struct scx_watch {
	volatile int ejected;      /* state left "enabled" while the case ran */
	uint64_t t_ns;             /* CLOCK_MONOTONIC when it was seen */
	char state[16];
	struct scx_msg msg;        /* the kernel's disable lines, when it said them */
};

struct scx_run {
	pid_t pid;                 /* the scheduler's process; -1 none */
	pid_t watcher;             /* -1 none */
	struct scx_watch *w;       /* shared memory */
	char ops[PLAN_MAX_SCHED];  /* root/ops once enabled */
	double load_s;             /* from exec to "enabled" */
	uint64_t enable_seq;       /* sched_ext's enable_seq after it enabled */
};
#define SCX_RUN_INIT { -1, -1, NULL, "", 0, 0 }

/*
 * Starts c->scheduler (SCX_BIN_DIR/<name> with c->scheduler_args) and
 * waits until sched_ext's state reads "enabled", enable_seq has moved and
 * root/ops names c->scheduler_ops (when set); then a watcher polls the
 * state every 20 ms.  -1 with one line in err (the scheduler's own last
 * words and the kernel's when it exited or was refused: a verifier
 * rejection), everything stopped again.
 */
int scx_start(const struct plan_case *c, struct scx_run *s, char *err, size_t errlen);

/* 1 when the kernel has ejected the scheduler since scx_start() (why
 * filled with the kernel's reason and when, relative to since_ns), else 0. */
int scx_ejected(struct scx_run *s, uint64_t since_ns, char *why, size_t len);

/* The last size - 1 bytes of the scheduler's own output (stdout and
 * stderr: libbpf's verifier log on a refused load, "EXIT: ..." after an
 * ejection) into buf, NUL-terminated; their length. */
size_t scx_output_tail(char *buf, size_t size);

/* Stops the scheduler (SIGINT, then SIGKILL), the watcher, and waits for
 * sched_ext to read "disabled" so the next case starts fresh.  Returns the
 * scheduler's exit status as waitpid() gave it, -1 when it was gone. */
int scx_stop(struct scx_run *s);

#endif
