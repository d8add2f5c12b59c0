/* numa.h - the parts of the NUMA workload its unit tests reach: slices,
 * /proc/self/numa_maps lines, the region layout of each shape. */
#ifndef LAB_NUMA_H
#define LAB_NUMA_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "../workload.h"
#include "../wlutil.h"

#define NUMA_SETS 2

/* regions start on huge-page boundaries, as they would in one big buffer */
#define NUMA_ALIGN (2u << 20)

enum numa_shape { SHAPE_SEED001, SHAPE_NUMA01, SHAPE_NUMA02 };

struct numa_node {
	int id;
	cpu_set_t cpus;
	int nr_cpus;
};

/* Lives in MAP_SHARED memory: numa01's processes report through it. */
struct numa_shared {
	int stop;                /* set by the parent: leave at the gate */
	int timed_out;
	uint64_t end_ns;         /* numa01: when the last process's threads ended */
	uint64_t local[NUMA_SETS], pages[NUMA_SETS];
	char error[200];
};

struct numa_job;

struct numa_thread {
	struct numa_job *job;
	pthread_t tid;
	int set;
	int own_region;          /* 0: shares the region of the thread before */
	char *base;
	size_t len;
	const cpu_set_t *bind;   /* NULL: the scheduler places it */
	int end_node;
	int started;
};

struct numa_job {
	struct wl_ctx *ctx;
	struct wl_gate gate;
	struct numa_shared *sh;
	enum numa_shape shape;
	struct numa_node nodes[NUMA_SETS];
	unsigned nthreads[NUMA_SETS];
	unsigned passes;
	size_t page;
	size_t buf_len;          /* the memory option, in whole pages */
	char *map;               /* the reservation the regions live in */
	size_t map_len;
	int touch_failed;
	struct numa_thread *threads;
	unsigned nr_threads;
};

int numa_supported(char *why, size_t len);
void numa_slice(size_t total, size_t page, unsigned i, unsigned n, size_t *off, size_t *len);
int numa_maps_parse(const char *line, size_t page, uintptr_t *start,
		    uint64_t *pages, int max_nodes);
int numa_locality(struct numa_job *j);
void numa_layout(struct numa_job *j, size_t len, int only_set);
int numa_map_regions(struct numa_job *j);
void numa_unmap_regions(struct numa_job *j);

#endif
