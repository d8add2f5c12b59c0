/* vector_hog.c - the vector-heavy hog of seed 004: threads keep the FMA
 * units busy with SSE2, AVX2 or AVX-512 registers for a fixed time. */
#define _GNU_SOURCE
#include "../workload.h"
#include "../wlproc.h"
#include "vector_hog.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#define HOG_MAX_THREADS 1024
/* iterations between clock reads: ~1 ms natively, still short under TCG */
#define HOG_CHUNK 32768
/*
 * acc = acc * M + A converges to A / (1 - M) = 1.0: starting near 1.0 the
 * values stay normal (denormals would slow some CPUs down and change what
 * we measure).  Read at run time, and the accumulators start apart, or the
 * compiler folds the loop away (1.0 is a fixed point) or merges the chains.
 */
static volatile double hog_param[2] = { 0.9999999, 1e-7 };
#define HOG_START(i) (1.0 + (i) * 1e-3)

static const char *const hog_kind_name[] = { "sse", "avx2", "avx512" };
static const unsigned hog_kind_bits[] = { 128, 256, 512 };

/*
 * Twelve independent accumulators hide the FMA latency (4 cycles on two
 * ports needs at least eight in flight).  Each returns the flops done.
 * The wide kernels are compiled for their ISA only, so the static binary
 * still runs on any x86-64 and picks one at run time.
 */
#if defined(__x86_64__)
uint64_t hog_sse(uint64_t iters, double *sink)
{
	__m128d m = _mm_set1_pd(hog_param[0]), a = _mm_set1_pd(hog_param[1]);
	__m128d x0 = _mm_set1_pd(HOG_START(0)), x1 = _mm_set1_pd(HOG_START(1));
	__m128d x2 = _mm_set1_pd(HOG_START(2)), x3 = _mm_set1_pd(HOG_START(3));
	__m128d x4 = _mm_set1_pd(HOG_START(4)), x5 = _mm_set1_pd(HOG_START(5));
	__m128d x6 = _mm_set1_pd(HOG_START(6)), x7 = _mm_set1_pd(HOG_START(7));
	__m128d x8 = _mm_set1_pd(HOG_START(8)), x9 = _mm_set1_pd(HOG_START(9));
	__m128d x10 = _mm_set1_pd(HOG_START(10)), x11 = _mm_set1_pd(HOG_START(11));

	for (uint64_t i = 0; i < iters; i++) {
		/* SSE2 has no FMA: a multiply and an add, 2 flops per lane */
		x0 = _mm_add_pd(_mm_mul_pd(x0, m), a);
		x1 = _mm_add_pd(_mm_mul_pd(x1, m), a);
		x2 = _mm_add_pd(_mm_mul_pd(x2, m), a);
		x3 = _mm_add_pd(_mm_mul_pd(x3, m), a);
		x4 = _mm_add_pd(_mm_mul_pd(x4, m), a);
		x5 = _mm_add_pd(_mm_mul_pd(x5, m), a);
		x6 = _mm_add_pd(_mm_mul_pd(x6, m), a);
		x7 = _mm_add_pd(_mm_mul_pd(x7, m), a);
		x8 = _mm_add_pd(_mm_mul_pd(x8, m), a);
		x9 = _mm_add_pd(_mm_mul_pd(x9, m), a);
		x10 = _mm_add_pd(_mm_mul_pd(x10, m), a);
		x11 = _mm_add_pd(_mm_mul_pd(x11, m), a);
	}
	x0 = _mm_add_pd(_mm_add_pd(_mm_add_pd(x0, x1), _mm_add_pd(x2, x3)),
			_mm_add_pd(_mm_add_pd(x4, x5), _mm_add_pd(x6, x7)));
	x0 = _mm_add_pd(x0, _mm_add_pd(_mm_add_pd(x8, x9), _mm_add_pd(x10, x11)));
	*sink += _mm_cvtsd_f64(x0);
	return iters * 12 * 2 * 2;
}

__attribute__((target("avx2,fma")))
uint64_t hog_avx2(uint64_t iters, double *sink)
{
	__m256d m = _mm256_set1_pd(hog_param[0]), a = _mm256_set1_pd(hog_param[1]);
	__m256d x0 = _mm256_set1_pd(HOG_START(0)), x1 = _mm256_set1_pd(HOG_START(1));
	__m256d x2 = _mm256_set1_pd(HOG_START(2)), x3 = _mm256_set1_pd(HOG_START(3));
	__m256d x4 = _mm256_set1_pd(HOG_START(4)), x5 = _mm256_set1_pd(HOG_START(5));
	__m256d x6 = _mm256_set1_pd(HOG_START(6)), x7 = _mm256_set1_pd(HOG_START(7));
	__m256d x8 = _mm256_set1_pd(HOG_START(8)), x9 = _mm256_set1_pd(HOG_START(9));
	__m256d x10 = _mm256_set1_pd(HOG_START(10)), x11 = _mm256_set1_pd(HOG_START(11));

	for (uint64_t i = 0; i < iters; i++) {
		x0 = _mm256_fmadd_pd(x0, m, a);
		x1 = _mm256_fmadd_pd(x1, m, a);
		x2 = _mm256_fmadd_pd(x2, m, a);
		x3 = _mm256_fmadd_pd(x3, m, a);
		x4 = _mm256_fmadd_pd(x4, m, a);
		x5 = _mm256_fmadd_pd(x5, m, a);
		x6 = _mm256_fmadd_pd(x6, m, a);
		x7 = _mm256_fmadd_pd(x7, m, a);
		x8 = _mm256_fmadd_pd(x8, m, a);
		x9 = _mm256_fmadd_pd(x9, m, a);
		x10 = _mm256_fmadd_pd(x10, m, a);
		x11 = _mm256_fmadd_pd(x11, m, a);
	}
	x0 = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(x0, x1), _mm256_add_pd(x2, x3)),
			   _mm256_add_pd(_mm256_add_pd(x4, x5), _mm256_add_pd(x6, x7)));
	x0 = _mm256_add_pd(x0, _mm256_add_pd(_mm256_add_pd(x8, x9), _mm256_add_pd(x10, x11)));
	*sink += _mm256_cvtsd_f64(x0);
	/* leave the upper halves clean: no AVX-SSE transition penalty after us */
	_mm256_zeroupper();
	return iters * 12 * 4 * 2;
}

__attribute__((target("avx512f")))
uint64_t hog_avx512(uint64_t iters, double *sink)
{
	__m512d m = _mm512_set1_pd(hog_param[0]), a = _mm512_set1_pd(hog_param[1]);
	__m512d x0 = _mm512_set1_pd(HOG_START(0)), x1 = _mm512_set1_pd(HOG_START(1));
	__m512d x2 = _mm512_set1_pd(HOG_START(2)), x3 = _mm512_set1_pd(HOG_START(3));
	__m512d x4 = _mm512_set1_pd(HOG_START(4)), x5 = _mm512_set1_pd(HOG_START(5));
	__m512d x6 = _mm512_set1_pd(HOG_START(6)), x7 = _mm512_set1_pd(HOG_START(7));
	__m512d x8 = _mm512_set1_pd(HOG_START(8)), x9 = _mm512_set1_pd(HOG_START(9));
	__m512d x10 = _mm512_set1_pd(HOG_START(10)), x11 = _mm512_set1_pd(HOG_START(11));

	for (uint64_t i = 0; i < iters; i++) {
		x0 = _mm512_fmadd_pd(x0, m, a);
		x1 = _mm512_fmadd_pd(x1, m, a);
		x2 = _mm512_fmadd_pd(x2, m, a);
		x3 = _mm512_fmadd_pd(x3, m, a);
		x4 = _mm512_fmadd_pd(x4, m, a);
		x5 = _mm512_fmadd_pd(x5, m, a);
		x6 = _mm512_fmadd_pd(x6, m, a);
		x7 = _mm512_fmadd_pd(x7, m, a);
		x8 = _mm512_fmadd_pd(x8, m, a);
		x9 = _mm512_fmadd_pd(x9, m, a);
		x10 = _mm512_fmadd_pd(x10, m, a);
		x11 = _mm512_fmadd_pd(x11, m, a);
	}
	x0 = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(x0, x1), _mm512_add_pd(x2, x3)),
			   _mm512_add_pd(_mm512_add_pd(x4, x5), _mm512_add_pd(x6, x7)));
	x0 = _mm512_add_pd(x0, _mm512_add_pd(_mm512_add_pd(x8, x9), _mm512_add_pd(x10, x11)));
	*sink += _mm512_reduce_add_pd(x0);
	_mm256_zeroupper();
	return iters * 12 * 8 * 2;
}

int hog_cpu_has(enum hog_kind k)
{
	__builtin_cpu_init();
	switch (k) {
	case HOG_AVX512:
		return !!__builtin_cpu_supports("avx512f");
	case HOG_AVX2:
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	case HOG_SSE:
		return 1;
	}
	return 0;
}
#else
/*
 * Other guest arches (arm64, ppc64le): the 128-bit kind only, written with
 * GCC's generic vectors, which become NEON or VSX multiply-adds.
 */
typedef double hog_v2d __attribute__((vector_size(16)));

uint64_t hog_sse(uint64_t iters, double *sink)
{
	hog_v2d m = { hog_param[0], hog_param[0] }, a = { hog_param[1], hog_param[1] };
	hog_v2d x[12], sum = { 0, 0 };

	for (int k = 0; k < 12; k++)
		x[k] = (hog_v2d){ HOG_START(k), HOG_START(k) };
	for (uint64_t i = 0; i < iters; i++)
		for (int k = 0; k < 12; k++)
			x[k] = x[k] * m + a;
	for (int k = 0; k < 12; k++)
		sum += x[k];
	*sink += sum[0] + sum[1];
	return iters * 12 * 2 * 2;
}

uint64_t hog_avx2(uint64_t iters, double *sink)
{
	return hog_sse(iters, sink);
}

uint64_t hog_avx512(uint64_t iters, double *sink)
{
	return hog_sse(iters, sink);
}

int hog_cpu_has(enum hog_kind k)
{
	return k == HOG_SSE;
}
#endif

struct hog_run;

struct hog_thread {
	struct hog_run *run;
	uint64_t flops;
	uint64_t last_end_ns;
	double sink;
};

struct hog_run {
	struct wl_ctx *ctx;
	struct wl_timed timed;
	enum hog_kind kind;
	struct hog_thread *threads;
};

static void *hog_worker(void *arg)
{
	struct hog_thread *t = arg;
	struct hog_run *r = t->run;
	uint64_t (*fn)(uint64_t, double *);
	uint64_t stop, now;

	switch (r->kind) {
	case HOG_AVX512: fn = hog_avx512; break;
	case HOG_AVX2: fn = hog_avx2; break;
	default: fn = hog_sse; break;
	}
	stop = wl_timed_pass(&r->timed);
	for (now = wl_now_ns(); now < stop; now = wl_now_ns())
		t->flops += fn(HOG_CHUNK, &t->sink);
	t->last_end_ns = now;
	wl_task_done(r->ctx);
	return NULL;
}

static int hog_pick_kind(struct wl_ctx *ctx, enum hog_kind *kind)
{
	const char *want = wl_str(ctx->args, "kind");

	if (!strcmp(want, "auto")) {
		*kind = hog_cpu_has(HOG_AVX512) ? HOG_AVX512 :
			hog_cpu_has(HOG_AVX2) ? HOG_AVX2 : HOG_SSE;
		return 0;
	}
	for (int k = HOG_SSE; k <= HOG_AVX512; k++) {
		if (strcmp(want, hog_kind_name[k]))
			continue;
		if (!hog_cpu_has((enum hog_kind)k))
			return wl_fail(ctx, "this cpu does not support '%s'", want);
		*kind = (enum hog_kind)k;
		return 0;
	}
	return wl_fail(ctx, "unknown kind '%s'", want);
}

static int hog_run(struct wl_ctx *ctx)
{
	struct hog_run r = { .ctx = ctx, .timed = { WL_GATE_INIT, 0, NULL, "vector-hog" } };
	unsigned nthreads = (unsigned)wl_int(ctx->args, "threads");
	uint64_t runtime_ns = (uint64_t)wl_int(ctx->args, "runtime") * 1000000000ull;
	uint64_t t0, end = 0, flops = 0;
	int ret = -1;

	if (hog_pick_kind(ctx, &r.kind) < 0)
		return -1;
	r.threads = calloc(nthreads, sizeof(*r.threads));
	if (!r.threads)
		return wl_fail(ctx, "out of memory");
	if (wl_timed_init(&r.timed, ctx, nthreads) < 0)
		goto out;
	for (unsigned i = 0; i < nthreads; i++)
		r.threads[i].run = &r;
	if (wl_timed_run(&r.timed, ctx, nthreads, runtime_ns, hog_worker, r.threads,
			 sizeof(r.threads[0]), &t0) < 0)
		goto out;
	for (unsigned i = 0; i < nthreads; i++) {
		flops += r.threads[i].flops;
		if (r.threads[i].last_end_ns > end)
			end = r.threads[i].last_end_ns;
	}
	wl_metric(ctx, "gflops", "GFLOP/s", (double)flops * 1e-9 / ((double)(end - t0) * 1e-9), 1);
	/* which kernel ran, so "auto" results from different CPUs stay apart */
	wl_metric(ctx, "vector_bits", "bits", hog_kind_bits[r.kind], 1);
	ret = 0;
out:
	wl_timed_release(&r.timed);
	free(r.threads);
	return ret;
}

static const struct wl_option hog_options[] = {
	{ "threads", WL_INT, 1, HOG_MAX_THREADS, "1",
	  NULL, "threads doing vector multiply-adds (not pinned)" },
	{ "runtime", WL_INT, 1, 86400, "3",
	  NULL, "seconds to run" },
	{ "kind", WL_STR, 0, 0, "auto", "auto|sse|avx2|avx512",
	  "vector width; auto = the widest this CPU supports" },
	{ .name = NULL },
};

const struct workload_ops workload_vector_hog = {
	.name = "vector_hog",
	.description = "vector-heavy FMA hog beside latency workloads (seed 004); GFLOP/s",
	.options = hog_options,
	.run = hog_run,
};
