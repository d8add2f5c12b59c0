/* tracerun.h - one kept run's sched trace read back from results/<run>/trace/:
 * format files and raw pages, decoded with task names, as slices and wakeups. */
#ifndef LAB_TRACERUN_H
#define LAB_TRACERUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/util.h"
#include "results/schedmetrics.h"
#include "results/schedtrace.h"

#define TR_COMM 16 /* TASK_COMM_LEN */

struct tr_event {
	struct st_event e;
	char comm[TR_COMM];      /* switch: the next task; others: the task woken or moved */
	char prev_comm[TR_COMM]; /* switch: the task that left */
	size_t seq;              /* decoding order: keeps one CPU's order on equal stamps */
};

/* A task on a CPU from one switch to the next (idle is not a slice). */
struct tr_slice {
	uint64_t start, end;
	int cpu, pid;
	const char *comm; /* points into the run's events */
};

/* A wakeup and when the task then ran: waker_cpu -1 when no sched_waking came. */
struct tr_wake {
	uint64_t waking, wakeup, run; /* run 0: it never ran within the trace */
	int pid, waker_cpu, target_cpu, run_cpu;
	const char *comm;
};

/*
 * A run as read back.  Everything is owned by the struct; release with
 * trace_run_release().  topo.nr_cpus is 0 (and topo_err says why) when the
 * run directory has no guest view.
 */
struct trace_run {
	char *dir;                  /* <run>/trace/<case>/run<N> */
	unsigned run;
	unsigned nr_cpus;           /* cpuK.raw files, K < nr_cpus */
	struct strbuf *pages;       /* [nr_cpus]: the raw pages as the guest read them */
	struct schedtrace_formats formats;
	struct tr_event *ev;        /* by time stamp */
	size_t nr;
	uint64_t lost;              /* events the buffers dropped or overwrote */
	struct st_topo topo;
	char topo_err[160];
	struct tr_slice *slices;    /* by CPU, then time */
	size_t nr_slices;
	struct tr_wake *wakes;      /* by wakeup time */
	size_t nr_wakes;
};
#define TRACE_RUN_INIT { 0 }

/* The case directories under <run_dir>/trace/ (not "format"), sorted. */
int trace_list_cases(const char *run_dir, struct strvec *cases, struct strbuf *err);
/* The run numbers of one case that have raw pages, ascending; *runs malloc'ed. */
int trace_list_runs(const char *run_dir, const char *case_dir, unsigned **runs, size_t *nr,
		    struct strbuf *err);

/*
 * Reads <run_dir>/trace/format/ and trace/<case_dir>/run<run>/cpuK.raw,
 * decodes them with schedtrace's parser (untrusted bytes: bounded, -1 with
 * one line in err), sorts, and builds the slices and wakeups.
 */
int trace_run_load(struct trace_run *t, const char *run_dir, const char *case_dir, unsigned run,
		   struct strbuf *err);
void trace_run_release(struct trace_run *t);
/* The decoding part of trace_run_load(), on t->formats and t->pages[0..nr_cpus). */
int trace_run_decode(struct trace_run *t, struct strbuf *err);

/* First and last time stamp of the run (0, 0 without events). */
void trace_run_span(const struct trace_run *t, uint64_t *first, uint64_t *last);

/* pid -> the last name it had in the trace ("" when none was seen). */
const char *trace_run_comm(const struct trace_run *t, int pid);

/* ---- the text digest of `lab trace` ---- */

struct tr_cpu_busy {
	int cpu;
	uint64_t busy_ns;
	unsigned tasks; /* distinct pids that ran on it */
};
struct tr_migr {
	int pid;
	const char *comm;
	unsigned count;
	unsigned level[ST_LVL_MAX]; /* by level crossed, from the topology */
};

/* Per-CPU busy time, busiest first; *out malloc'ed with t->nr_cpus entries. */
void trace_busy_cpus(const struct trace_run *t, struct tr_cpu_busy **out, size_t *nr);
/* Wakeups that ran, by runnable wait (run - wakeup), longest first; at most max. */
size_t trace_longest_waits(const struct trace_run *t, const struct tr_wake **out, size_t max);
/* Tasks by migrations, most first; *out malloc'ed. */
void trace_top_migrations(const struct trace_run *t, struct tr_migr **out, size_t *nr);
/* Prints the digest to f (at most top lines per section). */
void trace_digest_print(const struct trace_run *t, FILE *f, unsigned top);

#endif
