/* fuzz-lavalog.c - libFuzzer target for LAVA's job log reader: any bytes give
 * entries or one error line, never a crash or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/lavalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_entry(const struct lava_entry *e, void *ctx)
{
	size_t *n = ctx;

	if (!e->lvl || (e->msg && strlen(e->msg) > e->msg_len))
		abort();
	*n += e->msg_len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;
	long r = lava_log_parse((const char *)data, size, on_entry, &n, &err);

	if (r < 0 && (!err.len || strchr(err.buf, '\n')))
		abort();
	strbuf_release(&err);
	return 0;
}
