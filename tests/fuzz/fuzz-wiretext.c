/* fuzz-wiretext.c - libFuzzer target for the console transport decoder: any
 * text, any chunking gives the same frames; any frame survives a round trip. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"
#include "common/wiretext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct digest {
	uint32_t crc;
	uint64_t bytes, frames;
};

static void digest_frame(const void *frame, size_t len, void *ctx)
{
	struct digest *g = ctx;

	if (!len || len > (size_t)WIRETEXT_MAX_CHUNKS * WIRETEXT_CHUNK)
		abort();
	g->crc = wire_crc32(g->crc, frame, len);
	g->bytes += len;
	g->frames++;
}

static void run(const uint8_t *data, size_t size, uint32_t seed, struct digest *g,
		struct wiretext_decoder *d)
{
	size_t off = 0;

	memset(g, 0, sizeof(*g));
	wiretext_decoder_init(d);
	while (off < size) {
		size_t n = size - off;

		if (seed) {
			seed = seed * 1103515245u + 12345u;
			n = (seed >> 16) % 97 + 1;
			if (n > size - off)
				n = size - off;
		}
		wiretext_decoder_feed(d, data + off, n, digest_frame, g);
		off += n;
	}
	wiretext_decoder_finish(d, digest_frame, g);
	if (g->frames != d->frames)
		abort();
}

struct text {
	char *p;
	size_t len, alloc;
};

static int add_line(const char *line, size_t len, void *ctx)
{
	struct text *t = ctx;

	if (len > WIRETEXT_LINE_MAX || line[len - 1] != '\n')
		abort();
	if (t->len + len > t->alloc) {
		t->alloc = (t->len + len) * 2;
		t->p = realloc(t->p, t->alloc);
		if (!t->p)
			abort();
	}
	memcpy(t->p + t->len, line, len);
	t->len += len;
	return 0;
}

static void collect(const void *frame, size_t len, void *ctx)
{
	struct text *t = ctx;

	t->p = malloc(len);
	if (!t->p)
		abort();
	memcpy(t->p, frame, len);
	t->len = len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wiretext_decoder a, b;
	struct digest ga, gb;
	struct text lines = { 0 }, back = { 0 };
	uint32_t seed = 1;

	if (size >= 4)
		memcpy(&seed, data, 4);
	run(data, size, 0, &ga, &a);
	run(data, size, seed | 1, &gb, &b);
	if (memcmp(&ga, &gb, sizeof(ga)) || a.bad_lines != b.bad_lines ||
	    a.lost_frames != b.lost_frames || a.duplicates != b.duplicates ||
	    a.other_stream != b.other_stream || a.lines != b.lines)
		abort();
	wiretext_decoder_release(&a);
	wiretext_decoder_release(&b);

	/* the input as one frame: text lines and back, byte for byte */
	if (size && size <= 20000) {
		wiretext_encode(seed, seed >> 8, data, size, add_line, &lines);
		wiretext_decoder_init(&a);
		wiretext_decoder_feed(&a, lines.p, lines.len, collect, &back);
		wiretext_decoder_finish(&a, collect, &back);
		if (a.frames != 1 || back.len != size || memcmp(back.p, data, size))
			abort();
		wiretext_decoder_release(&a);
		free(lines.p);
		free(back.p);
	}
	return 0;
}
