/* histogram.h - fixed-size log-linear latency histogram (fio/schbench
 * style) shared by the workloads: no per-sample storage, percentiles. */
#ifndef LAB_HISTOGRAM_H
#define LAB_HISTOGRAM_H

#include <stdint.h>

/*
 * Values below 2^HIST_SUB_BITS get one bucket each; every power-of-two
 * range [2^k, 2^(k+1)) above is split into 2^HIST_SUB_BITS equal buckets,
 * so a bucket is never wider than 1/64 of its lower bound (1.6 %), and the
 * middle of a bucket is within 0.8 % of any value in it.  Values of
 * 2^HIST_MAX_BITS and more land in the last bucket (max stays exact).
 * Units are the caller's; workloads record nanoseconds (2^40 ns = 18 min).
 */
#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 40
#define HIST_BUCKETS ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

/* Plain data, no pointers: may live in MAP_SHARED memory between processes. */
struct hist {
	uint64_t count;
	uint64_t sum;       /* for the mean; wraps only past 2^64 units */
	uint64_t min, max;  /* exact; min is UINT64_MAX while empty */
	uint64_t bucket[HIST_BUCKETS];
};

void hist_init(struct hist *h);
/* Not thread-safe: one writer per histogram (keep one per thread). */
void hist_add(struct hist *h, uint64_t v);
/*
 * Adds src into dst with atomic operations, so several threads or
 * processes may merge their private histograms into one shared dst
 * at the same time.
 */
void hist_merge(struct hist *dst, const struct hist *src);
/*
 * The value at percentile pct (0 < pct <= 100) by the nearest-rank rule
 * (the smallest sample with at least pct % of the samples <= it), given
 * as the middle of its bucket clamped to [min, max]; 0 when empty.
 */
double hist_percentile(const struct hist *h, double pct);
double hist_mean(const struct hist *h);

/* Bucket geometry, for tests and for callers that report resolution. */
unsigned hist_bucket(uint64_t v);
uint64_t hist_bucket_low(unsigned b);
uint64_t hist_bucket_width(unsigned b);

#endif
