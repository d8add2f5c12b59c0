/* vector_hog.h - the parts of the vector_hog workload its unit tests reach:
 * the SSE/AVX2/AVX-512 kernels and the CPU feature check. */
#ifndef LAB_VECTOR_HOG_H
#define LAB_VECTOR_HOG_H

#include <stdint.h>

enum hog_kind { HOG_SSE, HOG_AVX2, HOG_AVX512 };

uint64_t hog_sse(uint64_t iters, double *sink);
uint64_t hog_avx2(uint64_t iters, double *sink);
uint64_t hog_avx512(uint64_t iters, double *sink);
int hog_cpu_has(enum hog_kind k);

#endif
