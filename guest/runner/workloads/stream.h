/* stream.h - the parts of the STREAM workload its unit tests reach: sizes,
 * slices, the check and one kernel pass over a slice. */
#ifndef LAB_STREAM_H
#define LAB_STREAM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../workload.h"
#include "../wlutil.h"

#define STREAM_SCALAR 3.0

/* STREAM's tolerance for 8-byte elements (checkSTREAMresults) */
#define STREAM_EPSILON 1.e-13

/* each thread's slice starts on a page of its own, so first touch places it */
#define STREAM_CHUNK (4096 / sizeof(double))

enum stream_kernel { K_COPY, K_SCALE, K_ADD, K_TRIAD, NR_KERNELS };

struct stream_run;

enum stream_phase { PH_INIT, PH_COPY, PH_SCALE, PH_ADD, PH_TRIAD, PH_CHECK, PH_STOP };

struct stream_thread {
	struct stream_run *run;
	pthread_t tid;
	int cpu;
	uint64_t lo, hi;
	double err[3];
};

struct stream_run {
	struct wl_ctx *ctx;
	double *a, *b, *c;
	uint64_t nelem;
	unsigned ntimes;
	enum stream_phase phase;     /* written by the parent between barriers */
	struct wl_gate gate;
	pthread_barrier_t start, done;
	struct stream_thread *threads;
};

uint64_t stream_bytes(enum stream_kernel k, uint64_t n);
double stream_best_time(const double *times, unsigned ntimes);
double stream_mb_s(enum stream_kernel k, uint64_t n, double best_s);
void stream_expected(unsigned ntimes, double *a, double *b, double *c);
int stream_check(const double sums[3], uint64_t n, unsigned ntimes,
		 char *why, size_t len);
uint64_t stream_elements(uint64_t array_bytes);
void stream_slice(uint64_t nelem, unsigned t, unsigned n, uint64_t *lo, uint64_t *hi);
void stream_do(struct stream_run *r, struct stream_thread *t, enum stream_phase ph);

#endif
