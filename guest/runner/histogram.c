/* histogram.c - log-linear latency histogram: bucket geometry, adding,
 * merging across threads and processes, nearest-rank percentiles. */
#include "histogram.h"

#include <math.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_bucket(uint64_t v)
{
	unsigned msb, shift;

	if (v < HIST_SUB)
		return (unsigned)v;
	if (v >> HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	msb = 63 - (unsigned)__builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	/* group shift+1 holds [2^msb, 2^(msb+1)) in HIST_SUB slices */
	return (shift + 1) * HIST_SUB + (unsigned)((v >> shift) - HIST_SUB);
}

uint64_t hist_bucket_low(unsigned b)
{
	unsigned group = b / HIST_SUB, slot = b % HIST_SUB;

	if (group == 0)
		return slot;
	return (uint64_t)(HIST_SUB + slot) << (group - 1);
}

uint64_t hist_bucket_width(unsigned b)
{
	unsigned group = b / HIST_SUB;

	return group ? 1ull << (group - 1) : 1;
}

void hist_add(struct hist *h, uint64_t v)
{
	h->bucket[hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

static void atomic_min(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

static void atomic_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		if (src->bucket[b])
			__atomic_add_fetch(&dst->bucket[b], src->bucket[b], __ATOMIC_RELAXED);
	__atomic_add_fetch(&dst->sum, src->sum, __ATOMIC_RELAXED);
	atomic_min(&dst->min, src->min);
	atomic_max(&dst->max, src->max);
	/* count last: a reader that sees it has seen the buckets too */
	__atomic_add_fetch(&dst->count, src->count, __ATOMIC_RELEASE);
}

double hist_percentile(const struct hist *h, double pct)
{
	double r, mid;
	uint64_t rank, seen = 0;
	unsigned b;

	if (!h->count)
		return 0;
	if (pct > 100)
		pct = 100;
	r = pct / 100.0 * (double)h->count;
	/* 99.9 % of 100000 is 99900.00000000001 in binary: not rank 99901 */
	rank = (uint64_t)ceil(r - r * 1e-12);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (b = 0; b < HIST_BUCKETS - 1; b++) {
		seen += h->bucket[b];
		if (seen >= rank)
			break;
	}
	/* the last bucket is open-ended: all we know up there is the max */
	if (b == HIST_BUCKETS - 1 && h->max >> HIST_MAX_BITS)
		return (double)h->max;
	/* integer samples in [low, low + width - 1]: the middle of those */
	mid = (double)hist_bucket_low(b) + (double)(hist_bucket_width(b) - 1) / 2;
	if (mid < (double)h->min)
		mid = (double)h->min;
	if (mid > (double)h->max)
		mid = (double)h->max;
	return mid;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}
