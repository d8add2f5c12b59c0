/* fuzz-tracekeep.c - libFuzzer target for the results.jsonl lines the trace
 * keeper reads, and its choice of runs over what it read. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "results/tracekeep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: results.jsonl text; the case is "c" (seeds) or "hackbench" (a real run's). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const cases[] = { "c", "trace-hackbench_mode=process" };

	for (size_t k = 0; k < 2; k++) {
		struct tk_run *r;
		size_t n;
		int higher;
		unsigned bad;
		uint64_t dropped;

		trace_keep_parse_results((const char *)data, size, cases[k], &r, &n, &higher, &bad);
		for (size_t i = 0; i < n; i++)
			r[i].bytes = (uint64_t)(i * 4096);
		trace_keep_choose(r, n, higher, 3 * 4096, &dropped);
		/* a budget of 0 keeps none, whatever was read */
		if (trace_keep_choose(r, n, higher, 0, &dropped) != n)
			abort();
		free(r);
	}
	return 0;
}
