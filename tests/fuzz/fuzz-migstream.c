/* fuzz-migstream.c - libFuzzer target for the warm start's stream filter:
 * any bytes give a filtered stream no longer than its input, or one line. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/migstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int in = memfd_create("in", 0), out = memfd_create("out", 0);
	struct migstream_stats st;
	struct strbuf err = STRBUF_INIT;
	off_t len;

	if (in < 0 || out < 0 || write(in, data, size) != (ssize_t)size)
		abort();
	lseek(in, 0, SEEK_SET);
	if (migstream_drop_zero_pages(in, out, &st, &err) < 0) {
		if (!err.len || strchr(err.buf, '\n'))
			abort();
	} else {
		/* a name written again always replaces a longer left-out record */
		len = lseek(out, 0, SEEK_END);
		if (len < 0 || (size_t)len > size)
			abort();
	}
	close(in);
	close(out);
	strbuf_release(&err);
	return 0;
}
