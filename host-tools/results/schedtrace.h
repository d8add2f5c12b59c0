/* schedtrace.h - the host side of WIRE_TRACE: collects a run's raw ftrace
 * pages, writes them under results/<run>/trace/, decodes them (libtraceevent). */
#ifndef LAB_SCHEDTRACE_H
#define LAB_SCHEDTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"
#include "results/schedmetrics.h"

struct json_object;

#define SCHEDTRACE_MAX_CPUS 1024u
#define SCHEDTRACE_MAX_FORMATS 16u
#define SCHEDTRACE_MAX_FORMAT_LEN (64u * 1024)
/* all the pages of one run, every CPU together: bounds host memory */
#define SCHEDTRACE_MAX_RUN_BYTES (1ull << 31)

/* The format files of a boot (sent once, before the first traced run). */
struct schedtrace_formats {
	char *name[SCHEDTRACE_MAX_FORMATS];   /* owned */
	struct strbuf text[SCHEDTRACE_MAX_FORMATS];
	unsigned nr;
	unsigned page_size;                   /* 0 until "page_size" came */
};

/* The most tids one run's "tasks" record may list (the runner's WL_MAX_TIDS). */
#define SCHEDTRACE_MAX_TIDS 65536u

/* One case's trace records of the run in progress. */
struct schedtrace_case {
	char absent[256];        /* why the case has no trace ("" when it has) */
	int run;                 /* -1: no run collected */
	int done;                /* the runner's "done" for that run came */
	unsigned nr_cpus;        /* highest cpuN seen + 1 */
	struct strbuf *pages;    /* [SCHEDTRACE_MAX_CPUS], allocated on first use */
	struct strbuf *stats;
	uint64_t bytes;
	int overflow;            /* dropped for SCHEDTRACE_MAX_RUN_BYTES */
	/* the run's "tasks" record: the workload's own tasks (those the
	 * runner's `tasks` counters sum), listed when all of them fit */
	int tasks;               /* 1 listed, -1 the record was bad or cut, 0 none came */
	int *tids;               /* owned, nr_tids of them */
	size_t nr_tids;
	const char *tasks_why;   /* static text: why tasks is -1 */
};

void schedtrace_formats_release(struct schedtrace_formats *f);
void schedtrace_case_init(struct schedtrace_case *c);
void schedtrace_case_release(struct schedtrace_case *c);

/*
 * Splits a WIRE_TRACE payload's header line: case id, run, kind, name and
 * the bytes after it.  -1 when it is malformed.
 */
struct schedtrace_rec {
	const char *case_id, *run, *kind, *name, *data;
	size_t case_len, run_len, kind_len, name_len, data_len;
};
int schedtrace_split(const char *payload, size_t len, struct schedtrace_rec *r);

/* Files a "format" record into f; other kinds into c. */
void schedtrace_add_format(struct schedtrace_formats *f, const struct schedtrace_rec *r);
void schedtrace_add(struct schedtrace_case *c, const struct schedtrace_rec *r);

/*
 * Decodes the pages of one CPU with the format files; appends the sched
 * events to *ev (grown with realloc, *nr / *alloc) and adds the pages'
 * "missed events" to *lost.  Untrusted input: bounded, -1 with a reason.
 */
struct schedtrace_parser;
struct schedtrace_parser *schedtrace_parser_new(const struct schedtrace_formats *f,
						 struct strbuf *err);
void schedtrace_parser_free(struct schedtrace_parser *p);
/* What the formats lack (1 << enum st_lack), and the reason of lack l (NULL without). */
unsigned schedtrace_parser_lacks(const struct schedtrace_parser *p);
const char *schedtrace_parser_lack_why(const struct schedtrace_parser *p, unsigned l);

/*
 * A "tasks" record's text: "<ended> <tid> <tid> ...": how many tasks
 * ended (called wl_task_done()) and their tids, all of them when they fit
 * the runner's list.  0 and the tids (malloc'ed) when every task is
 * listed; -1 and a reason when the text is malformed or the list is cut.
 */
int schedtrace_parse_tasks(const char *text, size_t len, int **tids, size_t *nr, const char **why);
int schedtrace_parse_cpu(struct schedtrace_parser *p, int cpu, const char *pages, size_t len,
			 struct st_event **ev, size_t *nr, size_t *alloc, uint64_t *lost,
			 struct strbuf *err);

/*
 * The same, calling hook after each event it appended, with the record the
 * event came from (its data checked to lie inside the page): for readers
 * of fields the metrics do not keep (the comm of a switch).
 */
struct tep_handle;
struct tep_record;
typedef void schedtrace_hook_fn(void *arg, struct tep_handle *tep, const struct tep_record *rec,
				const struct st_event *e);
int schedtrace_parse_cpu_hook(struct schedtrace_parser *p, int cpu, const char *pages, size_t len,
			      struct st_event **ev, size_t *nr, size_t *alloc, uint64_t *lost,
			      struct strbuf *err, schedtrace_hook_fn *hook, void *arg);

/* "overrun: N" + "dropped events: N" of a per_cpu/cpuN/stats text. */
uint64_t schedtrace_stats_lost(const char *text, size_t len);

/* The directory name of a case under trace/ (owned by the caller). */
char *schedtrace_case_dir(const char *case_id);

/*
 * The run just collected in c: writes the format files into <dir>/trace/format/ (once) and
 * <dir>/trace/<case>/run<N>/cpuK.raw, statsK.txt, decodes and derives,
 * and adds the metrics to the result's "metrics" and a "schedtrace"
 * object (events, lost, or why there are no metrics; "degraded": what
 * the formats lack and which rows that leaves out; "own_tasks": tasks the
 * own_* rows count, or "own_absent": why there are none).  c is reset.
 */
void schedtrace_finish_run(struct schedtrace_case *c, const struct schedtrace_formats *f,
			   const struct st_topo *topo, const char *topo_err, const char *dir,
			   const char *case_id, unsigned run, uint64_t wc_grace_ns,
			   struct json_object *result);

#endif
