/* test-stream.c - the STREAM workload: byte accounting per kernel, best
 * time without the first iteration, expected values, validation, runs. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl-harness.h"
#include "../../guest/runner/workloads/stream.h"

/* ---- tests ---- */

/* STREAM v5.10's bytes[] table: 2 and 3 arrays of 8-byte doubles. */
static void test_bytes_per_kernel(void **state)
{
	assert_int_equal(stream_bytes(K_COPY, 1000), 16000);
	assert_int_equal(stream_bytes(K_SCALE, 1000), 16000);
	assert_int_equal(stream_bytes(K_ADD, 1000), 24000);
	assert_int_equal(stream_bytes(K_TRIAD, 1000), 24000);
	assert_int_equal(stream_bytes(K_TRIAD, 10000000), 240000000ull);
}

static void test_best_time_skips_first(void **state)
{
	/* the first iteration is the fastest here, and must not count */
	const double t[] = { 0.1, 0.5, 0.3, 0.4 };
	const double two[] = { 0.01, 0.7 };

	assert_true(stream_best_time(t, 4) == 0.3);
	assert_true(stream_best_time(two, 2) == 0.7);
}

static void test_mb_s(void **state)
{
	/* 1e6 elements copied (16e6 bytes) in 16 ms: 1000 MB/s, MB = 1e6 */
	assert_true(fabs(stream_mb_s(K_COPY, 1000000, 0.016) - 1000.0) < 1e-9);
	/* triad moves 24 bytes per element: 24e6 bytes in 12 ms = 2000 MB/s */
	assert_true(fabs(stream_mb_s(K_TRIAD, 1000000, 0.012) - 2000.0) < 1e-9);
}

/*
 * Closed form of STREAM's checkSTREAMresults() loop, worked by hand: a
 * starts at 2; an iteration sets c = a, b = 3a, c = 4a, a = 15a.  So after
 * k iterations a = 2*15^k, b = 6*15^(k-1), c = 8*15^(k-1), all exact in a
 * double while below 2^53.
 */
static void test_expected_values(void **state)
{
	double a, b, c;

	stream_expected(1, &a, &b, &c);
	assert_true(a == 30.0 && b == 6.0 && c == 8.0);
	stream_expected(10, &a, &b, &c);
	assert_true(a == 1153300781250.0);
	assert_true(b == 230660156250.0);
	assert_true(c == 307546875000.0);
	stream_expected(200, &a, &b, &c);
	assert_true(isfinite(a) && isfinite(b) && isfinite(c));
}

static void test_check(void **state)
{
	double sums[3] = { 0, 0, 0 }, a, b, c;
	char why[200] = "";

	assert_int_equal(stream_check(sums, 1000, 10, why, sizeof(why)), 0);
	stream_expected(10, &a, &b, &c);
	/* an average relative error of 1e-12 on b: over STREAM's 1e-13 */
	sums[1] = 1e-12 * b * 1000;
	assert_int_equal(stream_check(sums, 1000, 10, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "array b"));
	/* 1e-14 is within */
	sums[1] = 1e-14 * b * 1000;
	assert_int_equal(stream_check(sums, 1000, 10, why, sizeof(why)), 0);
	sums[2] = NAN;
	assert_int_equal(stream_check(sums, 1000, 10, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "array c"));
}

static void test_slices(void **state)
{
	const uint64_t sizes[] = { 512, 513, 4096, 100000, 1 << 20 };
	const unsigned threads[] = { 1, 2, 3, 7, 64 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			uint64_t next = 0;

			for (unsigned i = 0; i < threads[t]; i++) {
				uint64_t lo, hi;

				stream_slice(sizes[s], i, threads[t], &lo, &hi);
				assert_int_equal(lo, next);
				assert_true(hi >= lo);
				/* a slice starts on a page, so its first touch is its own */
				assert_int_equal(lo % STREAM_CHUNK, 0);
				next = hi;
			}
			assert_int_equal(next, sizes[s]);
		}
	}
	assert_int_equal(stream_elements(4096 * 3 + 100), 512 * 3);
	assert_int_equal(stream_elements(4095), 0);
}

/* The kernels on real arrays: validation passes, then catches a bad element. */
static void test_kernels_validate(void **state)
{
	struct stream_run r = { .ntimes = 5, .nelem = 2048 };
	struct stream_thread t = { .run = &r, .lo = 0, .hi = 2048 };
	double sums[3];
	char why[200];

	r.a = calloc(r.nelem, sizeof(double));
	r.b = calloc(r.nelem, sizeof(double));
	r.c = calloc(r.nelem, sizeof(double));
	assert_non_null(r.a);
	stream_do(&r, &t, PH_INIT);
	for (unsigned k = 0; k < r.ntimes; k++)
		for (int ph = PH_COPY; ph <= PH_TRIAD; ph++)
			stream_do(&r, &t, (enum stream_phase)ph);
	stream_do(&r, &t, PH_CHECK);
	memcpy(sums, t.err, sizeof(sums));
	assert_int_equal(stream_check(sums, r.nelem, r.ntimes, why, sizeof(why)), 0);
	assert_true(r.a[77] == 2.0 * pow(15, 5));

	r.a[1000] *= 1.5;
	stream_do(&r, &t, PH_CHECK);
	memcpy(sums, t.err, sizeof(sums));
	assert_int_equal(stream_check(sums, r.nelem, r.ntimes, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "array a"));
	free(r.a);
	free(r.b);
	free(r.c);
}

static int run_stream(struct wl_ctx *ctx, unsigned seconds, const char *size, const char *threads,
		      const char *ntimes)
{
	return harness_run(ctx, &workload_stream, seconds, "array_size", size, "threads", threads,
			   "ntimes", ntimes, NULL);
}

static void test_run(void **state)
{
	static const char *const names[] = { "copy_mb_s", "scale_mb_s", "add_mb_s", "triad_mb_s" };
	struct wl_ctx ctx;

	assert_int_equal(run_stream(&ctx, 60, "4194304", "3", "4"), 0);
	assert_string_equal(ctx.error, "");
	assert_int_equal(ctx.nr_metrics, 4);
	for (int i = 0; i < 4; i++) {
		const struct wl_metric *m = harness_metric(&ctx, names[i]);

		assert_string_equal(m->unit, "MB/s");
		assert_true(m->value > 0 && isfinite(m->value));
		assert_int_equal(m->higher_is_better, 1);
	}
	/* every thread reported its counters before leaving */
	assert_tasks_done(3);
}

static void test_run_refusals(void **state)
{
	struct wl_ctx ctx;

	/* 3 x 1 TiB never fits in half of MemAvailable */
	assert_int_equal(run_stream(&ctx, 60, "1099511627776", "1", "2"), -1);
	assert_non_null(strstr(ctx.error, "MemAvailable"));
	assert_tasks_done(0);

	assert_int_equal(run_stream(&ctx, 60, "100", "1", "2"), -1);
	assert_non_null(strstr(ctx.error, "below one page"));

	/* a deadline already gone: stop by ourselves, join everyone */
	assert_int_equal(run_stream(&ctx, 0, "1048576", "2", "10"), -1);
	assert_non_null(strstr(ctx.error, "deadline passed"));
	assert_tasks_done(2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_per_kernel),
		cmocka_unit_test(test_best_time_skips_first),
		cmocka_unit_test(test_mb_s),
		cmocka_unit_test(test_expected_values),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_kernels_validate),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_run_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
