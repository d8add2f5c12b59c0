/* plan.h - the compiled plan the host hands the runner: scenario cases
 * after matrix expansion; one definition compiled into both sides. */
#ifndef LAB_PLAN_H
#define LAB_PLAN_H

#include <stddef.h>
#include <stdint.h>

/*
 * Text, one record per line, fields separated by one TAB, no TAB or
 * newline inside a field (the host refuses such values):
 *
 *   schedlab-plan	1
 *   case	<case id>			starts a case, e.g. "hackbench/groups=4"
 *   scenario	<scenario name>
 *   source	<file>:<line>			where the scenario starts
 *   workload	<name>
 *   param	<key>	<value>	<file>:<line>	one per workload option
 *   runs	<n>				measured runs
 *   warmup	<n>				runs before them, not reported as results
 *   deadline	<seconds>			for the whole case (all runs)
 *   counters	<name> [<name>...]		space-separated: schedstat vmstat tasks
 *						schedtrace
 *   metric	<name>	<higher|lower>	<amean|hmean|median>	<unit>
 *   fault	<name>	<kind>	<guest|host>	<file>:<line>	a [fault NAME] section
 *   fault_time	<start_ms>	<period_ms>	<count>	<hold_ms>	count 0: until the run ends
 *   fault_target	<cpu list|random|workload|default>
 *   fopt	<key>	<value>	<line>		a kind-specific key of the last fault
 *   invariant	<name>	<kind>	<file>:<line>	an [invariant NAME] section
 *   iopt	<key>	<value>	<line>		a key of the last invariant
 *   profile	<func> [<func>...]	<vmstat:NAME|none>	ftrace function profile of
 *						each measured run; the second field
 *						names the per-unit denominator
 *   trace_buffer_kb	<kb>			per-CPU ring buffer of the schedtrace
 *						counter (absent: the runner's default)
 *   wc_grace_ms	<ms>			work-conservation grace period of the
 *						schedtrace metrics (absent: 1 ms); read
 *						by the host only
 *   trace_keep_mb	<mb>			the case's budget of kept schedtrace
 *						runs: lab run keeps the failed,
 *						faulted, outlying, slowest and
 *						fastest within it (absent:
 *						PLAN_TRACE_KEEP_DEFAULT_MB; 0:
 *						none); read by the host only
 *   trace_run_mb	<mb>			one run's trace budget: the runner
 *						sizes each CPU's ring buffer to its
 *						share, so a longer run keeps its
 *						last part (absent: no cap)
 *   pin	<yes|strict>			bind each vCPU thread to a host CPU
 *						(lab run --pin); read by the host only
 *   scheduler	<name>	<ops>	<args>	a sched_ext BPF scheduler for the case:
 *						/scx/<name> in the initrd, started
 *						before the case and stopped after it;
 *						<ops> is what sched_ext's root/ops
 *						must read once it is enabled ("":
 *						any), <args> its arguments split on
 *						spaces ("": none)
 *   end
 *
 * At most one profile record per case, anywhere between its records.
 * Each fault has exactly one fault_time and one fault_target record after
 * its fault record, then its fopts; faults and invariants come after the
 * metrics.  Cases run in file order.  Unknown record kinds are an error (the
 * two sides are built from one tree), as is anything after the last "end".
 * The version changes when a record changes meaning; a new record kind
 * (faults and invariants came that way) leaves it, so older plans kept in
 * results/ still read.
 */
#define PLAN_VERSION 1
#define PLAN_MAX_CASES 4096
#define PLAN_MAX_PARAMS 32
#define PLAN_MAX_METRICS 16
#define PLAN_MAX_FIELD 256
#define PLAN_MAX_FAULTS 6
#define PLAN_MAX_INVARIANTS 6
#define PLAN_MAX_OPTS 8
#define PLAN_MAX_PROFILE 8  /* functions in one profile */
#define PLAN_MAX_SYMBOL 64  /* a profiled function's name, NUL included */
/* fault timing: seconds with up to three decimals, in milliseconds */
#define PLAN_MAX_MS 86400000u
/* per-CPU trace buffer a scenario may ask for: 64 KiB to 1 GiB */
#define PLAN_MIN_TRACE_KB 64u
#define PLAN_MAX_TRACE_KB (1024u * 1024)
/* grace of a work-conservation episode: 0 ms to 10 s */
#define PLAN_MAX_WC_GRACE_MS 10000u
/* a case's budget of kept traces: 0 (none) to 64 GiB; a few MiB unless said */
#define PLAN_MAX_TRACE_KEEP_MB 65536u
#define PLAN_TRACE_KEEP_DEFAULT_MB 4u
/* one run's trace: 1 MiB to 64 GiB over all CPUs */
#define PLAN_MAX_TRACE_RUN_MB 65536u
/* a sched_ext scheduler's binary name and ops name, NUL included */
#define PLAN_MAX_SCHED 48

struct plan_param {
	char key[64];
	char value[PLAN_MAX_FIELD];
	char where[PLAN_MAX_FIELD]; /* file:line */
};

struct plan_metric {
	char name[48];
	int higher_is_better;
	char statistic[8];  /* amean, hmean, median */
	char unit[16];
};

/* A key of a [fault] or [invariant] section that only the runner
 * understands; `line` is in the file of the section's `where`. */
struct plan_opt {
	char key[32];
	char value[128];
	unsigned line;
};

/*
 * A fault: `side` says who executes it.  The runner runs guest kinds in
 * its fault driver next to each measured run; host kinds (QMP: vCPU
 * hot-add, pause/resume, throttling) are skipped by the runner and left
 * to the host, which times them from the run_start event.
 */
enum plan_side { PLAN_SIDE_GUEST, PLAN_SIDE_HOST };

/*
 * The host's fault kinds, listed once for both sides: X(kind, guest_helps).
 * guest_helps: the runner's fault driver must run beside the case (a
 * hot-added vCPU is onlined from inside the guest).  fault/hostfault.h
 * builds the host's registry of kinds from this list.
 */
#define PLAN_HOST_FAULTS(X)  \
	X(pause, 0)          \
	X(nmi, 0)            \
	X(vcpu_throttle, 0)  \
	X(vcpu_add, 1)       \
	X(vcpu_remove, 0)

/* Whether a host kind needs the guest's fault driver (see above). */
int plan_host_fault_guest_helps(const char *kind);

struct plan_fault {
	char name[48];
	char kind[32];
	char target[128];     /* cpu list, "random", "workload" or "default" */
	char where[PLAN_MAX_FIELD];
	int side;             /* enum plan_side */
	unsigned start_ms;    /* after the measured run starts */
	unsigned period_ms;   /* between actions */
	unsigned count;       /* actions; 0 = until the run ends */
	unsigned hold_ms;     /* an action is undone after this; 0 = at the next one */
	struct plan_opt opts[PLAN_MAX_OPTS];
	unsigned nr_opts;
};

struct plan_invariant {
	char name[48];
	char kind[32];
	char where[PLAN_MAX_FIELD];
	struct plan_opt opts[PLAN_MAX_OPTS];
	unsigned nr_opts;
};

/*
 * The ftrace function profile of a case (trace_stat/function*), taken
 * around each measured run.  `per` names a /proc/vmstat counter whose delta
 * over the same window divides the time ("" = none).
 */
struct plan_profile {
	char funcs[PLAN_MAX_PROFILE][PLAN_MAX_SYMBOL];
	unsigned nr_funcs;
	char per[PLAN_MAX_SYMBOL];
};

/* A kernel symbol as set_ftrace_filter takes it: [A-Za-z0-9_.], not
 * starting with '.' or a digit (static functions carry ".isra.0" and the
 * like), shorter than PLAN_MAX_SYMBOL.  1 when s is one. */
int plan_symbol_ok(const char *s);

enum plan_counter {
	PLAN_CNT_SCHEDSTAT = 1u << 0,
	PLAN_CNT_VMSTAT = 1u << 1,
	PLAN_CNT_TASKS = 1u << 2,
	PLAN_CNT_SCHEDTRACE = 1u << 3, /* sched tracepoints of each measured run */
};

/*
 * The events of the schedtrace counter, in tracefs' events/sched/.  The
 * runner enables them around a traced case; a guest booted for a traced
 * plan has them enabled from boot (trace_event=, see run/labrun.c).
 * sched_waking gives the waker's CPU and the task's previous CPU, and
 * the CPU the wakeup chose is the sched_migrate_task that follows it on
 * the waker's CPU (or none: the previous one), so sched_wakeup, a quarter
 * of all events, is left out (results/schedmetrics.c); so is
 * sched_process_exit: no metric needs it, and every byte crosses the
 * serial line.
 */
#define PLAN_NR_SCHEDTRACE_EVENTS 4
extern const char *const plan_schedtrace_events[PLAN_NR_SCHEDTRACE_EVENTS];

/* A scenario's `pin` key: --pin (yes) or --pin=strict, unless the
 * command line says otherwise. */
enum plan_pin { PLAN_PIN_NONE, PLAN_PIN_YES, PLAN_PIN_STRICT };

struct plan_case {
	char id[PLAN_MAX_FIELD];
	char scenario[128];
	char source[PLAN_MAX_FIELD];
	char workload[48];
	struct plan_param params[PLAN_MAX_PARAMS];
	unsigned nr_params;
	unsigned runs, warmup, deadline_s;
	unsigned counters; /* enum plan_counter bits */
	struct plan_metric metrics[PLAN_MAX_METRICS];
	unsigned nr_metrics;
	struct plan_fault faults[PLAN_MAX_FAULTS];
	unsigned nr_faults;
	struct plan_invariant invariants[PLAN_MAX_INVARIANTS];
	unsigned nr_invariants;
	struct plan_profile profile; /* nr_funcs 0: none */
	unsigned trace_kb;           /* per-CPU trace buffer; 0: the runner's default */
	unsigned wc_grace_ms;        /* work-conservation grace, when wc_grace_set */
	int wc_grace_set;            /* 0: the host's default (0 ms is a grace too) */
	unsigned trace_keep_mb;      /* budget of kept traced runs, when trace_keep_set */
	int trace_keep_set;          /* 0: PLAN_TRACE_KEEP_DEFAULT_MB (0 MiB keeps none) */
	unsigned trace_run_mb;       /* one run's trace budget over all CPUs; 0: none */
	enum plan_pin pin;           /* the scenario's pin key */
	char scheduler[PLAN_MAX_SCHED];     /* "": the kernel's own scheduler */
	char scheduler_ops[PLAN_MAX_SCHED]; /* "": whatever the binary loads */
	char scheduler_args[PLAN_MAX_FIELD];
};

/* 1 when s can name a scheduler binary under /scx/: [A-Za-z0-9_.-],
 * not starting with '.' or '-', shorter than PLAN_MAX_SCHED. */
int plan_scheduler_name_ok(const char *s);

struct plan {
	struct plan_case *cases; /* malloc'ed; plan_release() frees */
	unsigned nr_cases;
};

/* Parses text into p.  -1 with "line N: problem" in err. */
int plan_parse(const char *text, size_t len, struct plan *p, char *err, size_t errlen);
void plan_release(struct plan *p);
/* Seconds the whole plan may take: the sum of its cases' deadlines. */
unsigned plan_deadline_s(const struct plan *p);
/* The case's budget of kept traces in MiB, its default when unset. */
unsigned plan_trace_keep_mb(const struct plan_case *c);
/*
 * Each CPU's ring buffer in KiB for a machine of ncpus buffers: trace_kb
 * (or default_kb when unset), capped by trace_run_mb's share per CPU, never
 * below PLAN_MIN_TRACE_KB.  The buffer overwrites its oldest events when
 * full, so a run longer than the cap keeps its last part (a flight recorder).
 */
unsigned plan_trace_cpu_kb(const struct plan_case *c, unsigned ncpus, unsigned default_kb);

/* Appends the text form of one case to a caller-supplied writer. */
typedef void (*plan_emit_fn)(void *ctx, const char *s, size_t len);
void plan_write_header(plan_emit_fn emit, void *ctx);
/* -1 when a field holds a TAB or newline (err names it). */
int plan_write_case(const struct plan_case *c, plan_emit_fn emit, void *ctx,
		    char *err, size_t errlen);

/*
 * Seconds as written in scenario files and fault options ("5", "0.25",
 * "1.5"; at most three decimals) into milliseconds, at most max_ms.
 * -1 when the text is not such a number or is out of range.
 */
int plan_parse_ms(const char *s, unsigned max_ms, unsigned *ms);
/* The text form of ms for the plan and messages ("1.5", "0.25", "3"). */
void plan_format_ms(unsigned ms, char *buf, size_t len);

#endif
