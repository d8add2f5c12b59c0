/* fuzz-scxmsg.c - libFuzzer target for sched_ext's disable lines: kernel
 * text read from the guest's /dev/kmsg and console (untrusted). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/scxmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_msg m = { 0 };
	const char *p = (const char *)data, *end = p + size;
	char buf[512];

	/* line by line, as the watcher and the console reader feed it */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		int r = scx_msg_feed(&m, p, n);

		if (r != 0 && r != 1)
			abort();
		if (memchr(m.ops, '\0', sizeof(m.ops)) == NULL ||
		    memchr(m.reason, '\0', sizeof(m.reason)) == NULL ||
		    memchr(m.detail, '\0', sizeof(m.detail)) == NULL)
			abort();
		if (r && !m.have_disabled)
			abort();
		p += n;
	}
	scx_msg_format(&m, buf, sizeof(buf));
	if (strlen(buf) >= sizeof(buf) || strchr(buf, '\n'))
		abort();
	return 0;
}
