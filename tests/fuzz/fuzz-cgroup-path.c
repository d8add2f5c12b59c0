/* fuzz-cgroup-path.c - libFuzzer target for wl_cgroup_path(), the reader of
 * /proc/<pid>/cgroup the coresched workload uses: any bytes either give no
 * path or an absolute one that is a "0::" line of the input, NUL-terminated
 * within the buffer. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../guest/runner/wlutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[64], *hay;
	size_t n;

	memset(out, 'x', sizeof(out));
	if (wl_cgroup_path((const char *)data, size, out, sizeof(out)) < 0)
		return 0;
	n = strnlen(out, sizeof(out));
	if (n == sizeof(out) || out[0] != '/' || memchr(out, '\n', n))
		abort();
	/* "0::" + the path is in the input, at the start of a line */
	hay = malloc(n + 4);
	if (!hay)
		return 0;
	memcpy(hay, "0::", 3);
	memcpy(hay + 3, out, n);
	for (size_t i = 0; i + n + 3 <= size; i++) {
		if ((i == 0 || data[i - 1] == '\n') && !memcmp(data + i, hay, n + 3) &&
		    (i + n + 3 == size || data[i + n + 3] == '\n')) {
			free(hay);
			return 0;
		}
	}
	abort();
}
