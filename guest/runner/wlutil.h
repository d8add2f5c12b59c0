/* wlutil.h - small helpers the workloads share: sysfs and procfs, CPU
 * lists and pinning, cache and memory sizes, deadline sleeps, a start gate. */
#ifndef RUNNER_WLUTIL_H
#define RUNNER_WLUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Reads at most len - 1 bytes of a (small, procfs or sysfs) file into buf
 * and NUL-terminates it; trailing newlines go.  Returns the length, or -1
 * with errno set.
 */
ssize_t wl_read_text(const char *path, char *buf, size_t len);
/* A whole file (procfs snapshots: schedstat, vmstat, numa_maps, plans),
 * growing up to about max bytes and cut there; malloc'ed and
 * NUL-terminated, its length in *len when len is not NULL; NULL when the
 * file cannot be opened or memory runs out. */
char *wl_slurp(const char *path, size_t *len, size_t max);
/* s into path with one write(2), as sysfs and tracefs files take a value;
 * flags adds to O_WRONLY (O_TRUNC clears a tracefs buffer).  -1 (errno). */
int wl_write_text(const char *path, const char *s, int flags);
/* Option values: a decimal integer; a byte count with an optional K/M/G
 * (binary) suffix, at most 64 TiB; 1/yes/on/true or 0/no/off/false.
 * 0 on success, -1 when the text is not one. */
int wl_parse_int(const char *s, int64_t *out);
int wl_parse_size(const char *s, int64_t *out);
int wl_parse_bool(const char *s, int64_t *out);
/*
 * The cgroup v2 path in a /proc/<pid>/cgroup text (len bytes, not
 * necessarily NUL-terminated): the "0::" line's path, "/schedlab/case-3".
 * 0 and the path in out, -1 when there is no such line or it does not fit
 * in outlen bytes with its NUL (a cgroup v1-only system).
 */
int wl_cgroup_path(const char *text, size_t len, char *out, size_t outlen);

/*
 * Parses a kernel CPU list ("0-3,8,10-11", also the empty list) into set.
 * Returns the number of CPUs in it, or -1 when the text is malformed or
 * names a CPU beyond CPU_SETSIZE.
 */
int wl_parse_cpulist(const char *s, cpu_set_t *set);

/* Parses a sysfs cache size ("32768K", "1M", "512") into bytes; -1 if bad. */
int wl_parse_cache_size(const char *s, uint64_t *bytes);

/*
 * Size of one last-level cache (the highest level data or unified cache of
 * cpu0) and how many distinct instances of it the online CPUs share out.
 * Returns the size in bytes, 0 when sysfs does not describe the caches.
 */
uint64_t wl_llc_bytes(unsigned *instances);

/* MemAvailable from /proc/meminfo in bytes, or -1 when it cannot be read. */
int64_t wl_mem_available(void);

/*
 * The CPUs this process may run on, in ascending order, at most max of
 * them.  Returns how many were stored (>= 1), or -1 with errno set.
 */
int wl_allowed_cpus(int *cpus, int max);

/* Restricts the calling thread to one CPU / to a set of CPUs. */
int wl_pin_self(int cpu);
/*
 * Names the calling task (thread or process) after its workload role,
 * "hb-send", "tbench-srv", as ps and the sched tracepoints show it (15
 * characters at most): a trace's timeline colours tasks by that name.
 */
void wl_name_self(const char *role);
int wl_bind_self(const cpu_set_t *set);

/*
 * Looks up named counters in /proc/vmstat; a counter this kernel does not
 * have reads as 0.  Returns 0, or -1 when /proc/vmstat cannot be read.
 */
int wl_vmstat_read(const char *const *names, size_t n, uint64_t *values);

/*
 * Sleeps until `until` (CLOCK_MONOTONIC ns) but not past deadline_ns
 * (0 = none).  0, or -1 when the deadline came first.
 */
int wl_sleep_until(uint64_t until, uint64_t deadline_ns);

/*
 * A start gate: the measuring parent starts the clock only when every task
 * it started is ready, and releases them all at once.  Both sides block on
 * pipes (no spinning); works for threads and for forked processes alike.
 *
 *   parent: wl_gate_init(); start tasks; wl_gate_wait_ready(n);
 *           t0 = now; wl_gate_open(); ... wait for the tasks;
 *           wl_gate_release()
 *   task:   (forked child: wl_gate_child() first) ... wl_gate_pass()
 *
 * A task that cannot run calls wl_gate_pass_failed() instead and quits
 * without waiting; the parent learns it while waiting (wl_gate_wait_ready()
 * returns 1) and should then tell the others to stop before opening.
 */
struct wl_gate {
	int ready[2];
	int go[2];
};
#define WL_GATE_INIT { { -1, -1 }, { -1, -1 } }

int wl_gate_init(struct wl_gate *g);
/* 0 when n tasks are ready, 1 when one of them failed, -1 at the deadline
 * (0 = none), when a forked child died unready, or on an error */
int wl_gate_wait_ready(struct wl_gate *g, unsigned n, uint64_t deadline_ns);
void wl_gate_open(struct wl_gate *g);
/* parent, once every task is forked: a child that dies unready shows as EOF */
void wl_gate_forked(struct wl_gate *g);
void wl_gate_child(struct wl_gate *g);
void wl_gate_pass(struct wl_gate *g);
void wl_gate_pass_failed(struct wl_gate *g);
void wl_gate_release(struct wl_gate *g);

#endif
