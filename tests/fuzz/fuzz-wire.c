/* fuzz-wire.c - libFuzzer target for the streaming record decoder: any bytes,
 * any chunking; the records and counters must not depend on the chunking. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct digest {
	uint32_t crc;   /* over every delivered record, in order */
	uint64_t nr;
	uint64_t bytes;  /* frame bytes delivered, headers included */
	int stop_every; /* ask the decoder to stop after each record */
};

static int digest_record(const struct wire_record *rec, void *ctx)
{
	struct digest *g = ctx;
	uint8_t meta[10];

	if (rec->len > WIRE_MAX_PAYLOAD || rec->type == 0 || rec->type >= WIRE_TYPE_MAX)
		abort();
	memcpy(meta, &rec->seq, 4);
	memcpy(meta + 4, &rec->type, 2);
	memcpy(meta + 6, &rec->len, 4);
	g->crc = wire_crc32(g->crc, meta, sizeof(meta));
	g->crc = wire_crc32(g->crc, rec->payload, rec->len); /* touches every byte */
	g->nr++;
	g->bytes += WIRE_HDR_LEN + rec->len;
	return g->stop_every;
}

struct outcome {
	struct digest g;
	uint64_t records, bad_crc, bad_header, skipped, missing;
	int ended, finish;
	uint32_t end_count;
};

/* Chunk sizes come from a small generator seeded by the input's first
 * bytes, so the fuzzer explores chunkings along with contents. */
static size_t next_chunk(uint32_t *state, size_t left)
{
	size_t n;

	*state = *state * 1103515245u + 12345u;
	n = (*state >> 16) % 67 + 1;
	if ((*state & 0x300) == 0)
		n = 1;
	return n < left ? n : left;
}

static void run(const uint8_t *data, size_t size, uint32_t seed, int chunked,
		int stop_every, struct outcome *o)
{
	struct wire_decoder d = WIRE_DECODER_INIT;
	size_t off = 0;

	memset(o, 0, sizeof(*o));
	o->g.stop_every = stop_every;
	wire_decoder_init(&d);
	while (off < size) {
		size_t n = chunked ? next_chunk(&seed, size - off) : size - off;
		size_t used = wire_decoder_feed(&d, data + off, n, digest_record, &o->g);

		if (used > n || (!stop_every && used != n))
			abort();
		off += used;
	}
	/* With stop_every the decoder may hold whole frames it has not yet
	 * delivered; an empty feed lets it finish them before finish(). */
	while (stop_every && d.len) {
		uint64_t before = o->g.nr;

		wire_decoder_feed(&d, data, 0, digest_record, &o->g);
		if (o->g.nr == before)
			break;
	}
	o->records = d.records;
	o->bad_crc = d.bad_crc;
	o->bad_header = d.bad_header;
	o->skipped = d.skipped_bytes;
	o->missing = d.missing;
	o->ended = d.ended;
	o->end_count = d.end_count;
	o->finish = wire_decoder_finish(&d);
	/* every byte fed is in a delivered frame or counted as skipped */
	if (o->records != o->g.nr || o->g.bytes + d.skipped_bytes != size)
		abort();
	wire_decoder_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome whole, chunked;
	uint32_t seed = 0;

	if (size > 4) {
		memcpy(&seed, data, 4);
		data += 4;
		size -= 4;
	}
	run(data, size, seed, 0, 0, &whole);
	run(data, size, seed, 1, 0, &chunked);
	if (memcmp(&whole.g, &chunked.g, sizeof(whole.g)) ||
	    whole.records != chunked.records || whole.bad_crc != chunked.bad_crc ||
	    whole.bad_header != chunked.bad_header || whole.skipped != chunked.skipped ||
	    whole.missing != chunked.missing || whole.ended != chunked.ended ||
	    whole.end_count != chunked.end_count || whole.finish != chunked.finish)
		abort();
	run(data, size, seed, 1, 1, &chunked);
	if (whole.g.crc != chunked.g.crc || whole.records != chunked.records)
		abort();
	return 0;
}
