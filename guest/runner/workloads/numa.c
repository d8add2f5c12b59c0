/* numa.c - NUMA balancing: seed 001's two bound thread sets on memory first
 * touched on one node, and autonuma-benchmark's numa01/numa02 shapes. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlutil.h"
#include "numa.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NUMA_MAX_NODES 64
#define NUMA_MAX_THREADS 512       /* per set */
/* sweep in pieces so a thread notices the deadline within one of them */
#define NUMA_STEP (2u << 20)

static const char *const numa_counter[] = {
	"numa_pte_updates", "numa_hint_faults", "numa_hint_faults_local",
	"numa_pages_migrated", "pgmigrate_success",
};
#define NR_COUNTERS (sizeof(numa_counter) / sizeof(numa_counter[0]))

/*
 * The online nodes that have CPUs (memory-only nodes cannot run a set),
 * in id order.  Returns how many, or -1 when sysfs has no node directory
 * (a kernel without NUMA: one node in effect).
 */
static int numa_nodes(struct numa_node *nodes, int max)
{
	char buf[4096], path[96];
	cpu_set_t online;
	int n = 0;

	if (wl_read_text("/sys/devices/system/node/online", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, &online) < 0)
		return -1;
	for (int id = 0; id < CPU_SETSIZE && n < max; id++) {
		if (!CPU_ISSET(id, &online))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", id);
		if (wl_read_text(path, buf, sizeof(buf)) < 0)
			continue;
		nodes[n].id = id;
		nodes[n].nr_cpus = wl_parse_cpulist(buf, &nodes[n].cpus);
		if (nodes[n].nr_cpus > 0)
			n++;
	}
	return n;
}

int numa_supported(char *why, size_t len)
{
	struct numa_node nodes[NUMA_SETS];
	int n = numa_nodes(nodes, NUMA_SETS);

	if (n >= NUMA_SETS)
		return 1;
	snprintf(why, len, "needs 2 NUMA nodes with CPUs, this system has %d", n < 1 ? 1 : n);
	return 0;
}

/* [*off, *off + *len) of part i of n over len bytes, in whole pages. */
void numa_slice(size_t total, size_t page, unsigned i, unsigned n, size_t *off, size_t *len)
{
	size_t pages = total / page;
	size_t lo = pages * i / n, hi = pages * (i + 1) / n;

	*off = lo * page;
	*len = (hi - lo) * page;
}

/*
 * One line of /proc/<pid>/numa_maps: the mapping's start address and its
 * resident pages per node (N<node>=<count>, counted in kernelpagesize_kB
 * units), converted to pages of `page` bytes.  Returns 0, or -1 when the
 * line does not start with an address.
 */
int numa_maps_parse(const char *line, size_t page, uintptr_t *start,
		    uint64_t *pages, int max_nodes)
{
	uint64_t kpage = page;
	const char *p;
	char *end;

	*start = (uintptr_t)strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return -1;
	memset(pages, 0, (size_t)max_nodes * sizeof(*pages));
	for (p = end; *p;) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (p[0] == 'N' && p[1] >= '0' && p[1] <= '9') {
			long node = strtol(p + 1, &end, 10);

			if (*end == '=' && node < max_nodes)
				pages[node] = strtoull(end + 1, NULL, 10);
		} else if (!strncmp(p, "kernelpagesize_kB=", 18)) {
			kpage = strtoull(p + 18, NULL, 10) * 1024;
		}
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	if (kpage && kpage != page)
		for (int n = 0; n < max_nodes; n++)
			pages[n] = pages[n] * kpage / page;
	return 0;
}

static int numa_current_node(void)
{
	unsigned cpu, node;

	if (syscall(SYS_getcpu, &cpu, &node, NULL) < 0)
		return -1;
	return (int)node;
}

static void *numa_worker(void *arg)
{
	struct numa_thread *t = arg;
	struct numa_job *j = t->job;
	uint64_t deadline = j->ctx->deadline_ns;

	if (t->bind && wl_bind_self(t->bind) < 0) {
		wl_gate_pass_failed(&j->gate);
		goto out;
	}
	wl_gate_pass(&j->gate);
	if (__atomic_load_n(&j->sh->stop, __ATOMIC_ACQUIRE))
		goto out;
	for (unsigned p = 0; p < j->passes; p++) {
		for (size_t off = 0; off < t->len; off += NUMA_STEP) {
			size_t n = t->len - off < NUMA_STEP ? t->len - off : NUMA_STEP;

			if (wl_now_ns() >= deadline) {
				__atomic_store_n(&j->sh->timed_out, 1, __ATOMIC_RELAXED);
				goto out;
			}
			/* autonuma-benchmark's access: write every byte (bzero) */
			memset(t->base + off, (int)(p & 0x7f) + 1, n);
			__asm__ volatile("" : : "r"(t->base) : "memory");
		}
	}
out:
	t->end_node = numa_current_node();
	wl_task_done(j->ctx);
	return NULL;
}

static void *numa_toucher(void *arg)
{
	struct numa_job *j = arg;

	if (wl_bind_self(&j->nodes[0].cpus) < 0) {
		j->touch_failed = 1;
	} else {
		for (unsigned i = 0; i < j->nr_threads; i++)
			memset(j->threads[i].base, 0, j->threads[i].len);
	}
	wl_task_done(j->ctx);
	return NULL;
}

/* Starts a thread per entry of j->threads; -1 with the error in j->sh. */
static int numa_start_threads(struct numa_job *j)
{
	for (unsigned i = 0; i < j->nr_threads; i++) {
		int err = pthread_create(&j->threads[i].tid, NULL, numa_worker, &j->threads[i]);

		if (!err)
			pthread_setname_np(j->threads[i].tid, "numa-worker");
		if (err) {
			snprintf(j->sh->error, sizeof(j->sh->error), "cannot start thread %u of %u: %s",
				 i, j->nr_threads, strerror(err));
			return -1;
		}
		j->threads[i].started = 1;
	}
	return 0;
}

static void numa_join_threads(struct numa_job *j)
{
	for (unsigned i = 0; i < j->nr_threads; i++)
		if (j->threads[i].started)
			pthread_join(j->threads[i].tid, NULL);
}

/*
 * Adds each thread's pages that sit on the node it ended on to its set.
 * numa_maps, not move_pages(2): some kernels report pages whose PTEs NUMA
 * balancing has just made PROT_NONE as absent to move_pages(2) queries.
 */
int numa_locality(struct numa_job *j)
{
	FILE *f = fopen("/proc/self/numa_maps", "re");
	uint64_t pages[NUMA_MAX_NODES];
	char line[4096];
	uintptr_t start;

	if (!f) {
		snprintf(j->sh->error, sizeof(j->sh->error), "cannot open '/proc/self/numa_maps': %s",
			 strerror(errno));
		return -1;
	}
	for (unsigned i = 0; i < j->nr_threads; i++)
		__atomic_add_fetch(&j->sh->pages[j->threads[i].set], j->threads[i].len / j->page,
				   __ATOMIC_RELAXED);
	while (fgets(line, sizeof(line), f)) {
		if (numa_maps_parse(line, j->page, &start, pages, NUMA_MAX_NODES) < 0)
			continue;
		for (unsigned i = 0; i < j->nr_threads; i++) {
			struct numa_thread *t = &j->threads[i];

			if ((uintptr_t)t->base != start || t->end_node < 0 ||
			    t->end_node >= NUMA_MAX_NODES)
				continue;
			__atomic_add_fetch(&j->sh->local[t->set], pages[t->end_node], __ATOMIC_RELAXED);
		}
	}
	fclose(f);
	return 0;
}

/*
 * Sizes each thread's memory: seed001 binds set s to node s and splits
 * half s among it; numa02 leaves them unbound on a slice each; numa01
 * (one process, one set) has all threads share one region of len bytes.
 */
void numa_layout(struct numa_job *j, size_t len, int only_set)
{
	unsigned all = j->nthreads[0] + j->nthreads[1], k = 0;

	for (int s = 0; s < NUMA_SETS; s++) {
		if (only_set >= 0 && s != only_set)
			continue;
		for (unsigned i = 0; i < j->nthreads[s]; i++, k++) {
			struct numa_thread *t = &j->threads[k];
			size_t off;

			t->job = j;
			t->set = s;
			t->own_region = 1;
			switch (j->shape) {
			case SHAPE_SEED001:
				numa_slice(len / 2, j->page, i, j->nthreads[s], &off, &t->len);
				t->bind = &j->nodes[s].cpus;
				break;
			case SHAPE_NUMA02:
				numa_slice(len, j->page, s ? j->nthreads[0] + i : i, all, &off, &t->len);
				break;
			case SHAPE_NUMA01:
				t->len = len;
				t->own_region = !i;
				break;
			}
		}
	}
	j->nr_threads = k;
}

/* Bytes a region takes in the reservation: aligned, plus a gap after it. */
static size_t numa_span(size_t len)
{
	return (len + NUMA_ALIGN - 1) / NUMA_ALIGN * NUMA_ALIGN + NUMA_ALIGN;
}

/*
 * Maps the threads' regions inside one PROT_NONE reservation with a gap
 * between them, so each stays its own mapping (numa_maps reports each
 * alone) while keeping the huge-page alignment one big buffer would have.
 */
int numa_map_regions(struct numa_job *j)
{
	size_t total = NUMA_ALIGN;
	uintptr_t p;

	for (unsigned i = 0; i < j->nr_threads; i++)
		if (j->threads[i].own_region)
			total += numa_span(j->threads[i].len);
	j->map = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (j->map == MAP_FAILED) {
		j->map = NULL;
		goto fail;
	}
	j->map_len = total;
	p = ((uintptr_t)j->map + NUMA_ALIGN - 1) / NUMA_ALIGN * NUMA_ALIGN;
	for (unsigned i = 0; i < j->nr_threads; i++) {
		struct numa_thread *t = &j->threads[i];

		if (!t->own_region) {
			t->base = j->threads[i - 1].base;
			continue;
		}
		t->base = (char *)p;
		if (t->len && mprotect(t->base, t->len, PROT_READ | PROT_WRITE) < 0)
			goto fail;
		p += numa_span(t->len);
	}
	return 0;
fail:
	snprintf(j->sh->error, sizeof(j->sh->error), "cannot map %zu MiB: %s", j->buf_len >> 20,
		 strerror(errno));
	return -1;
}

void numa_unmap_regions(struct numa_job *j)
{
	if (j->map)
		munmap(j->map, j->map_len);
	j->map = NULL;
}

/* numa01: one process of the pair; its own buffer, every thread on all of it. */
static int numa01_child(struct numa_job *j, int set, size_t len)
{
	struct numa_thread threads[NUMA_MAX_THREADS];
	int ret = 1;

	wl_gate_child(&j->gate);
	memset(threads, 0, sizeof(threads));
	j->threads = threads;
	numa_layout(j, len, set);
	if (numa_map_regions(j) < 0) {
		/* count ourselves out, so the parent stops waiting for us */
		for (unsigned i = 0; i < j->nr_threads; i++)
			wl_gate_pass_failed(&j->gate);
		goto out;
	}
	if (numa_start_threads(j) < 0) {
		for (unsigned i = 0; i < j->nr_threads; i++)
			if (!threads[i].started)
				wl_gate_pass_failed(&j->gate);
	}
	numa_join_threads(j);
	{
		uint64_t now = wl_now_ns(), cur = __atomic_load_n(&j->sh->end_ns, __ATOMIC_RELAXED);

		/* the placement query below is not part of the measured work */
		while (now > cur && !__atomic_compare_exchange_n(&j->sh->end_ns, &cur, now, 0,
								 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	if (!j->sh->error[0] && !j->sh->stop && !j->sh->timed_out && !numa_locality(j))
		ret = 0;
out:
	numa_unmap_regions(j);
	wl_task_done(j->ctx);
	return ret;
}

/* numa01: two processes; returns 0 when both ran, -1 with sh->error. */
static int numa01_run(struct numa_job *j, uint64_t *t0, uint64_t *t1,
		      uint64_t *before, uint64_t *after)
{
	pid_t pid[NUMA_SETS] = { -1, -1 };
	int ret = 0, r;

	for (int s = 0; s < NUMA_SETS; s++) {
		pid[s] = fork();
		if (pid[s] < 0) {
			snprintf(j->sh->error, sizeof(j->sh->error), "fork: %s", strerror(errno));
			__atomic_store_n(&j->sh->stop, 1, __ATOMIC_RELEASE);
			ret = -1;
			break;
		}
		if (!pid[s])
			_exit(numa01_child(j, s, j->buf_len / 2));
	}
	wl_gate_forked(&j->gate);
	if (!ret) {
		r = wl_gate_wait_ready(&j->gate, j->nthreads[0] + j->nthreads[1], j->ctx->deadline_ns);
		if (r) {
			if (!j->sh->error[0])
				snprintf(j->sh->error, sizeof(j->sh->error), r > 0 ?
					 "a task could not start" : "tasks did not get ready before the deadline");
			__atomic_store_n(&j->sh->stop, 1, __ATOMIC_RELEASE);
			ret = -1;
		}
	}
	wl_vmstat_read(numa_counter, NR_COUNTERS, before);
	*t0 = wl_now_ns();
	wl_gate_open(&j->gate);
	for (int s = 0; s < NUMA_SETS; s++) {
		int status = 0;

		if (pid[s] <= 0)
			continue;
		while (waitpid(pid[s], &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!j->sh->error[0] && !j->sh->timed_out)
				snprintf(j->sh->error, sizeof(j->sh->error), "numa01 process %d failed", s);
			ret = -1;
		}
	}
	*t1 = j->sh->end_ns ? j->sh->end_ns : wl_now_ns();
	wl_vmstat_read(numa_counter, NR_COUNTERS, after);
	return ret;
}

/* seed001 and numa02: threads of this process. */
static int numa_threads_run(struct numa_job *j, uint64_t *t0, uint64_t *t1,
			    uint64_t *before, uint64_t *after)
{
	int ret = 0, r;

	numa_layout(j, j->buf_len, -1);
	if (numa_map_regions(j) < 0)
		return -1;
	if (j->shape == SHAPE_SEED001) {
		pthread_t toucher;
		int err = pthread_create(&toucher, NULL, numa_toucher, j);

		if (err) {
			snprintf(j->sh->error, sizeof(j->sh->error), "cannot start a thread: %s",
				 strerror(err));
			return -1;
		}
		pthread_join(toucher, NULL);
		if (j->touch_failed) {
			snprintf(j->sh->error, sizeof(j->sh->error), "cannot bind to node %d's cpus",
				 j->nodes[0].id);
			return -1;
		}
	}
	if (numa_start_threads(j) < 0) {
		__atomic_store_n(&j->sh->stop, 1, __ATOMIC_RELEASE);
		ret = -1;
	} else {
		r = wl_gate_wait_ready(&j->gate, j->nr_threads, j->ctx->deadline_ns);
		if (r) {
			snprintf(j->sh->error, sizeof(j->sh->error), r > 0 ?
				 "cannot bind a thread to its node's cpus" :
				 "threads did not get ready before the deadline");
			__atomic_store_n(&j->sh->stop, 1, __ATOMIC_RELEASE);
			ret = -1;
		}
	}
	wl_vmstat_read(numa_counter, NR_COUNTERS, before);
	*t0 = wl_now_ns();
	wl_gate_open(&j->gate);
	numa_join_threads(j);
	*t1 = wl_now_ns();
	wl_vmstat_read(numa_counter, NR_COUNTERS, after);
	if (!ret && !j->sh->timed_out && numa_locality(j) < 0)
		ret = -1;
	return ret;
}

static int numa_setup(struct wl_ctx *ctx, struct numa_job *j)
{
	const char *shape = wl_str(ctx->args, "shape");
	unsigned want = (unsigned)wl_int(ctx->args, "threads");
	struct numa_node nodes[NUMA_MAX_NODES];
	int64_t avail = wl_mem_available();
	size_t min_len;
	int n;

	j->shape = !strcmp(shape, "numa01") ? SHAPE_NUMA01 :
		   !strcmp(shape, "numa02") ? SHAPE_NUMA02 : SHAPE_SEED001;
	j->passes = (unsigned)wl_int(ctx->args, "passes");
	j->page = (size_t)sysconf(_SC_PAGESIZE);
	/* two halves of whole pages */
	j->buf_len = (size_t)wl_int(ctx->args, "memory") / (2 * j->page) * (2 * j->page);
	n = numa_nodes(nodes, NUMA_MAX_NODES);
	if (n < NUMA_SETS)
		return wl_fail(ctx, "needs 2 NUMA nodes with CPUs, this system has %d", n < 1 ? 1 : n);
	for (int s = 0; s < NUMA_SETS; s++) {
		j->nodes[s] = nodes[s];
		j->nthreads[s] = want ? want : (unsigned)nodes[s].nr_cpus;
		if (j->nthreads[s] > NUMA_MAX_THREADS)
			j->nthreads[s] = NUMA_MAX_THREADS;
	}
	if (avail < 0)
		return wl_fail(ctx, "cannot read MemAvailable from '/proc/meminfo'");
	if (j->buf_len > (uint64_t)avail / 2)
		return wl_fail(ctx, "memory %zu MiB is more than half of MemAvailable (%llu MiB)",
			       j->buf_len >> 20, (unsigned long long)(avail >> 20));
	/* every thread gets at least a page of its own */
	min_len = j->page * (j->nthreads[0] + j->nthreads[1]) * 2;
	if (j->buf_len < min_len)
		return wl_fail(ctx, "memory must be at least %zu KiB for %u + %u threads",
			       min_len >> 10, j->nthreads[0], j->nthreads[1]);
	return 0;
}

static int numa_run(struct wl_ctx *ctx)
{
	struct numa_job j = { .ctx = ctx, .gate = WL_GATE_INIT };
	uint64_t before[NR_COUNTERS], after[NR_COUNTERS], t0 = 0, t1 = 0;
	int ret = -1, r;

	if (numa_setup(ctx, &j) < 0)
		return -1;
	j.sh = mmap(NULL, sizeof(*j.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (j.sh == MAP_FAILED)
		return wl_fail(ctx, "mmap: %s", strerror(errno));
	memset(j.sh, 0, sizeof(*j.sh));
	if (wl_gate_init(&j.gate) < 0) {
		wl_fail(ctx, "pipe: %s", strerror(errno));
		goto out;
	}
	if (j.shape == SHAPE_NUMA01) {
		r = numa01_run(&j, &t0, &t1, before, after);
	} else {
		j.threads = calloc(j.nthreads[0] + j.nthreads[1], sizeof(*j.threads));
		if (!j.threads) {
			wl_fail(ctx, "out of memory");
			goto out;
		}
		r = numa_threads_run(&j, &t0, &t1, before, after);
		numa_unmap_regions(&j);
	}
	if (j.sh->timed_out) {
		wl_fail(ctx, "deadline passed after %.1fs of %u passes", (double)(t1 - t0) * 1e-9,
			j.passes);
		goto out;
	}
	if (r < 0) {
		wl_fail(ctx, "%s", j.sh->error[0] ? j.sh->error : "failed");
		goto out;
	}
	wl_metric(ctx, "time", "s", (double)(t1 - t0) * 1e-9, 0);
	/* informational: fewer migrations for the same time is cheaper */
	for (size_t i = 0; i < NR_COUNTERS; i++)
		wl_metric(ctx, numa_counter[i], "count",
			  after[i] >= before[i] ? (double)(after[i] - before[i]) : 0, 0);
	for (int s = 0; s < NUMA_SETS; s++) {
		char name[WL_NAME_LEN];

		snprintf(name, sizeof(name), "local_frac_set%d", s);
		wl_metric(ctx, name, "frac",
			  j.sh->pages[s] ? (double)j.sh->local[s] / (double)j.sh->pages[s] : 0, 1);
	}
	ret = 0;
out:
	wl_gate_release(&j.gate);
	free(j.threads);
	munmap(j.sh, sizeof(*j.sh));
	return ret;
}

static const struct wl_option numa_options[] = {
	{ "shape", WL_STR, 0, 0, "seed001", "seed001|numa01|numa02",
	  "seed001: sets bound to nodes 0/1 on halves first touched on node 0; "
	  "numa01: 2 processes, each thread writes all of its process's buffer; "
	  "numa02: one process, a slice per thread; numa01/02 unbound" },
	{ "memory", WL_SIZE, 1 << 20, 1ll << 40, "64M",
	  NULL, "bytes in all (numa01: half per process)" },
	{ "threads", WL_INT, 0, NUMA_MAX_THREADS, "0",
	  NULL, "threads per set (set s runs on node s); 0 = that node's CPU count" },
	{ "passes", WL_INT, 1, 1000000, "20",
	  NULL, "the fixed work: sweeps of each thread over its memory" },
	{ .name = NULL },
};

const struct workload_ops workload_numa = {
	.name = "numa",
	.description = "NUMA balancing microbenchmark (seed 001, numa01/numa02): time, pages migrated",
	.options = numa_options,
	.supported = numa_supported,
	.run = numa_run,
};
