/* hostfault.h - faults the host inflicts on a running guest through QMP
 * (pause/resume, NMI, vCPU throttling, vCPU hot-add/remove), timed from
 * the runner's run_start. */
#ifndef LAB_HOSTFAULT_H
#define LAB_HOSTFAULT_H

#include <stdint.h>

#include "common/cpulist.h"
#include "common/plan.h"
#include "topo/topo.h"
#include "lib/util.h"

struct backend;
struct json_object;

struct hostfault;

#define HOSTFAULT_MAX_PENDING 64
#define HOSTFAULT_MAX_VCPUS TOPO_MAX_CPUS

#define HOSTFAULT_CG_PATH 256

/* The cgroup that throttles vCPU threads (hostfault-cgroup.c). */
struct hostfault_cg {
	int version;                     /* 1 or 2; 0 before hostfault_cg_find() */
	char base[HOSTFAULT_CG_PATH];    /* the hierarchy: /sys/fs/cgroup/unified, .../cpu */
	char dir[HOSTFAULT_CG_PATH + 32];  /* ours: <base>/schedlab-<pid>, "" if not made */
	char leaf[HOSTFAULT_CG_PATH + 48]; /* where throttled threads go (v2: <dir>/vcpus) */
	char orig[2 * HOSTFAULT_CG_PATH];  /* v2: QEMU's cgroup before we moved it */
	long qemu_pid;
	int moved;                       /* v2: QEMU is in dir */
};

/*
 * Picks the hierarchy under root (normally /sys/fs/cgroup): cgroup v2
 * (root itself, or root/unified on a hybrid host) when it offers the cpu
 * controller, else v1's root/cpu or root/cpu,cpuacct.  -1 with one line.
 */
int hostfault_cg_find(const char *root, struct hostfault_cg *cg, struct strbuf *err);
/* The v2 cgroup ("/machine/qemu") pid is in, from /proc/<pid>/cgroup. */
int hostfault_cg_current(long pid, char *rel, size_t len, struct strbuf *err);
/*
 * Throttles the threads tids to pct % of one CPU (undo: lets them go).
 * The first call creates the cgroup; under v2 it moves QEMU (qemu_pid,
 * now in orig_rel) into it, since threads only move within a threaded
 * subtree of their own process.
 */
int hostfault_cg_throttle(struct hostfault_cg *cg, long qemu_pid, const char *orig_rel,
			  const long *tids, unsigned n, unsigned pct, int undo, struct strbuf *err);
/* Puts QEMU back (v2) and removes what hostfault_cg_throttle() made. */
int hostfault_cg_release(struct hostfault_cg *cg, struct strbuf *err);

struct hostfault_action {
	uint64_t at_ns;             /* CLOCK_MONOTONIC */
	const struct plan_case *c;
	const struct plan_fault *f;
	uint64_t run_t0_ns;         /* when the host saw the run's run_start */
	unsigned run, seq;
	int undo;                   /* the second half of an action (cont, unthrottle,
				     * the check that a removed vCPU went away) */
};

/*
 * One per session.  The plan is borrowed.  Actions and their outcomes are
 * appended to <run_dir>/host-faults.jsonl as they happen (raw data).
 */
struct hostfault {
	const struct plan *plan;
	const char *run_dir;
	uint64_t t0_ns;             /* session start, for relative times */
	struct hostfault_action pending[HOSTFAULT_MAX_PENDING];
	unsigned nr_pending;
	int paused;                 /* the guest is stopped by us (QMP stop) */
	long frozen_pid;            /* QEMU stopped by us with SIGSTOP, 0 none */
	int finishing;              /* hostfault_finish(): no more waiting */
	struct hostfault_cg cg;     /* vCPU throttling; version 0 until first used */
	unsigned added[64];         /* vCPUs we hot-added and did not remove */
	unsigned nr_added;
	char removing[128];         /* QOM path of a vCPU asked to go, "" if none */
	unsigned removing_index;
	uint64_t removing_since_ns;
	unsigned long long actions, failures;
};

void hostfault_init(struct hostfault *h, const struct plan *plan, const char *run_dir,
		    uint64_t t0_ns);

/* Feed every WIRE_EVENT payload; run_start events schedule the host
 * faults of that case. */
void hostfault_on_event(struct hostfault *h, const char *json, size_t len);

/* CLOCK_MONOTONIC time of the next due action, or 0 when none. */
uint64_t hostfault_next_ns(const struct hostfault *h);

/* Performs every action due by now through the backend. */
void hostfault_tick(struct hostfault *h, struct backend *b, uint64_t now);

/* Undoes whatever is still in effect (resume, remove throttling) and
 * drops pending actions; call before stopping the backend. */
void hostfault_finish(struct hostfault *h, struct backend *b);

/* Parses "40" or "40%" into a percentage of one CPU in 1..100. */
int hostfault_parse_quota(const char *s, unsigned *pct);

/* Parses a vCPU list "0-3,8" into bits (may be NULL: check only); an
 * empty list is refused.  -1 with a line in err (may be NULL). */
int hostfault_parse_cpus(const char *list, unsigned long bits[CPULIST_LONGS(HOSTFAULT_MAX_VCPUS)],
			 struct strbuf *err);

/* ---- the kinds: one const struct hostfault_ops each ---- */

/* A kind's option: an unsigned number in [min, max], `suffix` may follow
 * it; or, with words, one of those words (its value is the word's index). */
struct hostfault_opt {
	const char *name;
	unsigned min, max;
	const char *const *words;  /* NULL-terminated, or NULL: a number */
	const char *dflt;       /* as text; NULL: required */
	const char *suffix;     /* e.g. "%", or NULL */
	const char *help;
};

struct hostfault_ops {
	const char *name;
	const char *description;
	const struct hostfault_opt *options; /* terminated by { .name = NULL }; NULL: none */
	/* names of the two halves in host-faults.jsonl */
	const char *action, *undo_action;
	unsigned default_hold_ms;   /* how long the action lasts without 'hold' */
	unsigned raises_nmi : 1;    /* an NMI is the scenario's own: it must not panic */
	unsigned removes_vcpus : 1; /* needs multi-threaded TCG (see labrun.c) */
	/* 0 with why filled when this backend cannot do it (one line). */
	int (*supported)(const struct backend *b, char *why, size_t len);
	/* The action; -1 with one line in err, detail says what was done. */
	int (*act)(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		   struct strbuf *detail, struct strbuf *err);
	/* Its second half `hold` later (NULL: none); 1 when not done yet
	 * (ask again later), 0 done, -1 with err. */
	int (*undo)(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		    struct strbuf *detail, struct strbuf *err);
};

/* The registry (hostfault.c), generated from the plan's list of host
 * kinds, X(kind, guest_helps): one const hostfault_kind_<kind> each. */
#define HOSTFAULT_LIST(X) PLAN_HOST_FAULTS(X)

#define X(n, guest_helps) extern const struct hostfault_ops hostfault_kind_##n;
HOSTFAULT_LIST(X)
#undef X

/* An option's value: the number, `suffix` allowed after it, in range; or
 * the index of its word. */
int hostfault_opt_parse(const struct hostfault_opt *o, const char *s, unsigned *out);

/* NULL-terminated, in HOSTFAULT_LIST order. */
extern const struct hostfault_ops *const hostfault_kinds[];
/* The host's kind of that name (the scenario marks its faults side
 * "host"), or NULL: a guest kind, for the runner. */
const struct hostfault_ops *hostfault_find(const char *kind);

/*
 * Checks a fault's kind-specific keys against its kind's table: -1 with
 * one line in err ("'quota' must be 1..100, not 'x'") and *line set to
 * the option's line.
 */
int hostfault_check_opts(const struct hostfault_ops *k, const struct plan_fault *f,
			 struct strbuf *err, unsigned *line);
/* The value of a declared option (the fault's, else the default); -1
 * with err when it does not parse. */
int hostfault_opt(const struct hostfault_ops *k, const struct plan_fault *f, const char *name,
		  unsigned *out, struct strbuf *err);

/* The process a thread belongs to (QEMU, for a vCPU thread), -1 unknown. */
long hostfault_tgid_of(long tid);
/* QEMU's pid on this host, from a vCPU thread of query-cpus-fast; -1 with err. */
long hostfault_qemu_pid(struct backend *b, struct strbuf *err);

/* ---- vCPU hot-plug (hostfault-vcpu.c) ---- */

/* One entry of QEMU's query-hotpluggable-cpus. */
struct hostfault_slot {
	char driver[64];            /* "type": the CPU model's device name */
	long long id[4];            /* socket-id, die-id, core-id, thread-id; -1 if absent */
	unsigned index;             /* rank among all slots = the vCPU's number */
	int present;                /* a CPU sits there (the reply has its qom-path) */
	char qom_path[128];
	char dev_id[32];            /* the id we give device_add */
};

/*
 * Picks a slot from a query-hotpluggable-cpus reply (borrowed): a free
 * one (want_present 0) or an occupied one other than vCPU 0; among those
 * the target's vCPU list allows ("default": any), the lowest numbered,
 * or the highest with prefer_last.  -1 with one line in err.
 */
int hostfault_pick_slot(struct json_object *reply, const char *target, int want_present,
			int prefer_last, struct hostfault_slot *out, struct strbuf *err);
/* The device_add arguments for a slot (caller puts). */
struct json_object *hostfault_slot_device_args(const struct hostfault_slot *s);

/* Actions: the vCPU number on success (detail says which slot), -1 with err. */
int hostfault_vcpu_add(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		       struct strbuf *detail, struct strbuf *err);
int hostfault_vcpu_remove(struct hostfault *h, struct backend *b, const struct plan_fault *f,
			  struct strbuf *detail, struct strbuf *err);
/* How long a removal may take: the guest must offline the CPU first,
 * which takes seconds under TCG with a loaded guest. */
#define HOSTFAULT_EJECT_WAIT_MS 30000
/* 0 when the vCPU the last removal asked for is gone from query-cpus-fast,
 * 1 when it is still there but may yet go (ask again later; final: no
 * more waiting), -1 with err when it did not go. */
int hostfault_vcpu_removed(struct hostfault *h, struct backend *b, int final,
			   struct strbuf *detail, struct strbuf *err);

#endif
