/* fuzz-console.c - libFuzzer target: arbitrary guest console bytes through
 * the line splitter and failure classifier. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "results/console.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_watch w;
	size_t step = size ? (size_t)data[0] % 17 + 1 : 1;

	console_watch_init(&w);
	for (size_t off = 0; off < size; off += step) {
		size_t n = size - off < step ? size - off : step;

		console_watch_feed(&w, (const char *)data + off, n);
	}
	console_watch_finish(&w);
	if (w.first_pattern && strlen(w.first) > CONSOLE_MAX_LINE)
		__builtin_trap();
	return 0;
}
