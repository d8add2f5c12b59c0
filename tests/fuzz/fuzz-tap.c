/* fuzz-tap.c - libFuzzer target for the runner's TAP line parser: the
 * output of a selftest program in the guest (untrusted). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tap_line t;

	if (tap_parse_line((const char *)data, size, &t)) {
		if (t.result != TAP_OK && t.result != TAP_NOT_OK && t.result != TAP_SKIP)
			abort();
		if (!memchr(t.name, '\0', sizeof(t.name)) || !memchr(t.reason, '\0', sizeof(t.reason)))
			abort();
		/* a line that parses starts with ok or not ok */
		if (size < 2 || (memcmp(data, "ok", 2) && (size < 6 || memcmp(data, "not ok", 6))))
			abort();
	}
	return 0;
}
