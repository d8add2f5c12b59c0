/* test-histogram.c - the workloads' log-linear histogram: bucket geometry,
 * percentiles against exact sorted-sample percentiles, merging. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../guest/runner/histogram.h"

#define NR_SAMPLES 100000

/* xorshift64*: our own generator, so the samples do not depend on libc */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(void)
{
	return (double)(rng_next() >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* log-normal around ~20 us in ns, the shape of wakeup latencies */
static uint64_t sample_lognormal(void)
{
	double u1 = rng_unit(), u2 = rng_unit();
	double z = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);

	return (uint64_t)exp(log(20000.0) + 1.5 * z);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The reference: the nearest-rank percentile of the raw samples, computed
 * without the histogram.  Sort all samples (qsort) and take the sample of
 * 1-based rank ceil(p * N), with p in basis points and integer arithmetic
 * so no floating point rounding enters the reference:
 * rank = (bp * N + 9999) / 10000.
 */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, unsigned bp)
{
	uint64_t rank = ((uint64_t)bp * n + 9999) / 10000;

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static const unsigned check_bp[] = { 100, 1000, 5000, 9000, 9500, 9900, 9990, 9999, 10000 };

/* histogram value vs exact value: same bucket, within half a bucket */
static void check_against_exact(const struct hist *h, uint64_t *samples, size_t n)
{
	qsort(samples, n, sizeof(*samples), cmp_u64);
	for (size_t i = 0; i < sizeof(check_bp) / sizeof(check_bp[0]); i++) {
		uint64_t exact = exact_percentile(samples, n, check_bp[i]);
		double got = hist_percentile(h, check_bp[i] / 100.0);
		unsigned b = hist_bucket(exact);
		double tol = (double)hist_bucket_width(b) / 2;

		if (fabs(got - (double)exact) > tol || hist_bucket((uint64_t)got) != b)
			fail_msg("p%.2f: histogram %.1f, exact %llu (bucket %u, width %llu)",
				 check_bp[i] / 100.0, got, (unsigned long long)exact, b,
				 (unsigned long long)hist_bucket_width(b));
		/* the bucket promise: relative error at most 1/2^HIST_SUB_BITS */
		if (exact >= HIST_SUB)
			assert_true(fabs(got - (double)exact) <= (double)exact / HIST_SUB);
	}
}

static void test_geometry(void **state)
{
	(void)state;
	/* buckets tile [0, 2^HIST_MAX_BITS) without gaps or overlaps */
	assert_int_equal(hist_bucket_low(0), 0);
	for (unsigned b = 0; b + 1 < HIST_BUCKETS; b++) {
		assert_int_equal(hist_bucket_low(b) + hist_bucket_width(b), hist_bucket_low(b + 1));
		if (b >= HIST_SUB)
			assert_true(hist_bucket_width(b) * HIST_SUB <= hist_bucket_low(b));
	}
	assert_int_equal(hist_bucket_low(HIST_BUCKETS - 1) + hist_bucket_width(HIST_BUCKETS - 1),
			 1ull << HIST_MAX_BITS);
	/* every value maps into the bucket whose range holds it */
	for (uint64_t v = 0; v < (1u << 20); v++) {
		unsigned b = hist_bucket(v);

		assert_true(hist_bucket_low(b) <= v && v < hist_bucket_low(b) + hist_bucket_width(b));
	}
	rng_state = 42;
	for (int i = 0; i < 100000; i++) {
		uint64_t v = rng_next() >> (64 - HIST_MAX_BITS);
		unsigned b = hist_bucket(v);

		assert_true(hist_bucket_low(b) <= v && v < hist_bucket_low(b) + hist_bucket_width(b));
	}
	/* beyond the range: the last bucket */
	assert_int_equal(hist_bucket(1ull << HIST_MAX_BITS), HIST_BUCKETS - 1);
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_empty_and_single(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	assert_true(hist_percentile(&h, 99) == 0);
	assert_true(hist_mean(&h) == 0);
	hist_add(&h, 123456789);
	/* one sample: every percentile is that sample (clamped to min/max) */
	assert_true(hist_percentile(&h, 1) == 123456789.0);
	assert_true(hist_percentile(&h, 50) == 123456789.0);
	assert_true(hist_percentile(&h, 100) == 123456789.0);
	assert_true(hist_mean(&h) == 123456789.0);
}

static void test_small_values_exact(void **state)
{
	struct hist h;

	(void)state;
	/* 1..60 once each: below HIST_SUB buckets are exact */
	hist_init(&h);
	for (uint64_t v = 60; v >= 1; v--)
		hist_add(&h, v);
	assert_true(hist_percentile(&h, 50) == 30.0);   /* rank 30 */
	assert_true(hist_percentile(&h, 90) == 54.0);   /* rank 54 */
	assert_true(hist_percentile(&h, 99) == 60.0);   /* rank ceil(59.4) = 60 */
	assert_true(hist_percentile(&h, 100) == 60.0);
	assert_true(hist_mean(&h) == 30.5);
	assert_int_equal(h.min, 1);
	assert_int_equal(h.max, 60);
}

static void test_lognormal_vs_exact(void **state)
{
	uint64_t *s = malloc(NR_SAMPLES * sizeof(*s));
	struct hist h;
	long double sum = 0;

	(void)state;
	assert_non_null(s);
	hist_init(&h);
	rng_state = 0x5eed;
	for (size_t i = 0; i < NR_SAMPLES; i++) {
		s[i] = sample_lognormal();
		sum += s[i];
		hist_add(&h, s[i]);
	}
	assert_int_equal(h.count, NR_SAMPLES);
	assert_true(fabs(hist_mean(&h) - (double)(sum / NR_SAMPLES)) < 1e-6 * hist_mean(&h));
	check_against_exact(&h, s, NR_SAMPLES);
	free(s);
}

static void test_uniform_and_heavy_tail_vs_exact(void **state)
{
	uint64_t *s = malloc(NR_SAMPLES * sizeof(*s));
	struct hist h;

	(void)state;
	assert_non_null(s);
	hist_init(&h);
	rng_state = 7;
	for (size_t i = 0; i < NR_SAMPLES; i++) {
		/* 90 % uniform 0..200 us, 10 % spread over 1 ms..1 s */
		if (rng_next() % 10)
			s[i] = rng_next() % 200000;
		else
			s[i] = 1000000 + rng_next() % 1000000000;
		hist_add(&h, s[i]);
	}
	check_against_exact(&h, s, NR_SAMPLES);
	free(s);
}

static void test_overflow_clamps_to_max(void **state)
{
	struct hist h;
	uint64_t big = (1ull << HIST_MAX_BITS) * 3;

	(void)state;
	hist_init(&h);
	for (int i = 0; i < 99; i++)
		hist_add(&h, 1000);
	hist_add(&h, big);
	assert_int_equal(h.bucket[HIST_BUCKETS - 1], 1);
	/* the top sample is reported as the exact max, not a bucket middle */
	assert_true(hist_percentile(&h, 100) == (double)big);
	assert_true(fabs(hist_percentile(&h, 99) - 1000) <= 1000.0 / HIST_SUB);
}

static void test_merge_equals_single(void **state)
{
	struct hist *parts = calloc(4, sizeof(*parts));
	struct hist *all = malloc(sizeof(*all)), *merged = malloc(sizeof(*merged));

	(void)state;
	assert_non_null(parts);
	assert_non_null(all);
	assert_non_null(merged);
	hist_init(all);
	hist_init(merged);
	for (int p = 0; p < 4; p++)
		hist_init(&parts[p]);
	rng_state = 99;
	for (int i = 0; i < NR_SAMPLES; i++) {
		uint64_t v = sample_lognormal();

		hist_add(all, v);
		hist_add(&parts[rng_next() % 4], v);
	}
	for (int p = 0; p < 4; p++)
		hist_merge(merged, &parts[p]);
	assert_int_equal(merged->count, all->count);
	assert_int_equal(merged->sum, all->sum);
	assert_int_equal(merged->min, all->min);
	assert_int_equal(merged->max, all->max);
	assert_memory_equal(merged->bucket, all->bucket, sizeof(all->bucket));
	/* merging an empty one changes nothing (its min is UINT64_MAX) */
	hist_init(&parts[0]);
	hist_merge(merged, &parts[0]);
	assert_int_equal(merged->min, all->min);
	free(parts);
	free(all);
	free(merged);
}

/* processes merging into one MAP_SHARED histogram at once lose nothing */
static void test_concurrent_merge_across_processes(void **state)
{
	struct hist *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pids[4];

	(void)state;
	assert_true(shared != MAP_FAILED);
	hist_init(shared);
	for (int c = 0; c < 4; c++) {
		pids[c] = fork();
		assert_true(pids[c] >= 0);
		if (pids[c] == 0) {
			struct hist mine;

			hist_init(&mine);
			for (uint64_t v = 0; v < 1000; v++)
				hist_add(&mine, v * (uint64_t)(c + 1));
			for (int i = 0; i < 200; i++)
				hist_merge(shared, &mine);
			_exit(0);
		}
	}
	for (int c = 0; c < 4; c++) {
		int st;

		assert_int_equal(waitpid(pids[c], &st, 0), pids[c]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	assert_int_equal(shared->count, 4 * 200 * 1000);
	assert_int_equal(shared->min, 0);
	assert_int_equal(shared->max, 999 * 4);
	{
		uint64_t total = 0;

		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			total += shared->bucket[b];
		assert_int_equal(total, shared->count);
		/* value 0 comes from every child in every merge */
		assert_int_equal(shared->bucket[0], 4 * 200);
	}
	munmap(shared, sizeof(*shared));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry),
		cmocka_unit_test(test_empty_and_single),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_lognormal_vs_exact),
		cmocka_unit_test(test_uniform_and_heavy_tail_vs_exact),
		cmocka_unit_test(test_overflow_clamps_to_max),
		cmocka_unit_test(test_merge_equals_single),
		cmocka_unit_test(test_concurrent_merge_across_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
