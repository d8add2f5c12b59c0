/* schedstat.h - /proc/schedstat (versions 15, 16 and 17) parsed into per-CPU
 * and per-domain counters, deltas between two snapshots, a JSON summary. */
#ifndef LAB_SCHEDSTAT_H
#define LAB_SCHEDSTAT_H

#include <stdint.h>

#include "lib/util.h"

struct json_object;

#define SCHEDSTAT_MAX_CPUS 8192
#define SCHEDSTAT_MAX_DOMAINS 16

/* Our order, whatever the version prints: v15 prints idle, busy, newidle;
 * v16 and v17 print busy, idle, newidle. */
enum schedstat_itype {
	SCHEDSTAT_IDLE,
	SCHEDSTAT_BUSY,
	SCHEDSTAT_NEWIDLE,
	SCHEDSTAT_NR_ITYPES,
};

/* load_balance() counters of one domain for one idle type. */
struct schedstat_lb {
	uint64_t count, balanced, failed;
	/* v15/v16: as printed; v17: the sum of the four kinds below */
	uint64_t imbalance;
	uint64_t imbalance_load, imbalance_util, imbalance_task, imbalance_misfit; /* v17 */
	uint64_t gained, hot_gained, nobusyq, nobusyg;
};

struct schedstat_domain {
	unsigned level;         /* N of "domainN" */
	char name[16];          /* v17: "SMT", "MC", "PKG", "NUMA"...; "" before */
	char *cpumask;          /* as printed ("00000000,000000ff"); owned */
	struct schedstat_lb lb[SCHEDSTAT_NR_ITYPES];
	uint64_t alb_count, alb_failed, alb_pushed;
	uint64_t sbe_count, sbe_balanced, sbe_pushed; /* unused by the kernel */
	uint64_t sbf_count, sbf_balanced, sbf_pushed; /* unused by the kernel */
	uint64_t ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance;
};

struct schedstat_cpu {
	unsigned cpu;
	uint64_t yld_count, sched_count, sched_goidle, ttwu_count, ttwu_local;
	uint64_t rq_cpu_time, run_delay; /* nanoseconds (the documentation says jiffies) */
	uint64_t pcount;
	struct schedstat_domain *domains; /* owned */
	unsigned nr_domains;
};

/*
 * One snapshot, or the delta of two.  Zero-initialise (SCHEDSTAT_INIT);
 * schedstat_release() frees and leaves it empty.  In a delta, CPUs present
 * in only one snapshot are left out and counted in cpus_skipped; a CPU
 * whose domains were rebuilt in between (hotplug, cpusets) keeps its
 * runqueue counters, loses its domains and is counted in domains_reset.
 */
struct schedstat {
	unsigned version;
	uint64_t timestamp;     /* jiffies */
	struct schedstat_cpu *cpus;
	unsigned nr_cpus;
	unsigned cpus_skipped, domains_reset;
};
#define SCHEDSTAT_INIT { 0 }

/* Parses the text of /proc/schedstat; -1 with "line N: problem" in err. */
int schedstat_parse(const char *text, size_t len, struct schedstat *ss, struct strbuf *err);
void schedstat_release(struct schedstat *ss);

/* out = after - before, counter by counter; -1 (err) when the versions differ. */
int schedstat_delta(const struct schedstat *before, const struct schedstat *after,
		    struct schedstat *out, struct strbuf *err);

/* Per-CPU counters summed over all CPUs, and domain counters summed per
 * level across CPUs: levels keyed by their v17 name ("MC"; a second level
 * of the same name, as NUMA levels are, is "NUMA#2"), else "domainN".
 * A new object the caller puts. */
struct json_object *schedstat_summary_json(const struct schedstat *delta);

/* The summary of after - before straight from the two texts (NUL
 * terminated); NULL with "before: line N: problem" (or "after: ...") in err. */
struct json_object *schedstat_delta_json(const char *before, const char *after,
					 struct strbuf *err);

#endif
