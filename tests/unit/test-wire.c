/* test-wire.c - unit tests of the record framing in common/wire.c: CRC,
 * round trips, chunking, corruption, resync and end-of-stream accounting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"

#define MAX_RECS 16

struct collected {
	int nr;
	uint32_t seq[MAX_RECS];
	uint16_t type[MAX_RECS];
	char *payload[MAX_RECS];
	uint32_t len[MAX_RECS];
	int stop_after; /* stop after this many records; 0 = never */
};

static int collect(const struct wire_record *rec, void *ctx)
{
	struct collected *c = ctx;

	assert_true(c->nr < MAX_RECS);
	c->seq[c->nr] = rec->seq;
	c->type[c->nr] = rec->type;
	c->len[c->nr] = rec->len;
	c->payload[c->nr] = malloc(rec->len + 1);
	memcpy(c->payload[c->nr], rec->payload, rec->len);
	c->payload[c->nr][rec->len] = '\0';
	c->nr++;
	return c->stop_after && c->nr >= c->stop_after;
}

static void collected_release(struct collected *c)
{
	for (int i = 0; i < c->nr; i++)
		free(c->payload[i]);
	memset(c, 0, sizeof(*c));
}

/* A growable byte stream the tests assemble frames and garbage into. */
struct stream {
	uint8_t buf[1 << 16];
	size_t len;
	size_t frame_off[MAX_RECS]; /* where each frame starts */
	int frames;
};

static void add_frame(struct stream *s, uint32_t seq, uint16_t type, const char *payload)
{
	size_t n = wire_encode(seq, type, payload, (uint32_t)strlen(payload),
			       s->buf + s->len, sizeof(s->buf) - s->len);

	assert_int_equal(n, WIRE_HDR_LEN + strlen(payload));
	s->frame_off[s->frames++] = s->len;
	s->len += n;
}

static void add_bytes(struct stream *s, const char *bytes)
{
	size_t n = strlen(bytes);

	memcpy(s->buf + s->len, bytes, n);
	s->len += n;
}

static const char *const payloads[] = {
	"version=0.1\nuname=6.1.0\n",
	"/sys/devices/system/cpu/online=0-7\n",
	"/sys/devices/system/node/node0/cpulist=0-3\n",
};

/* HELLO, two SYSFS, END "3". */
static void standard_stream(struct stream *s)
{
	add_frame(s, 0, WIRE_HELLO, payloads[0]);
	add_frame(s, 1, WIRE_SYSFS, payloads[1]);
	add_frame(s, 2, WIRE_SYSFS, payloads[2]);
	add_frame(s, 3, WIRE_END, "3");
}

static void assert_standard_records(const struct collected *c)
{
	assert_int_equal(c->nr, 4);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(c->seq[i], i);
		assert_string_equal(c->payload[i], payloads[i]);
	}
	assert_int_equal(c->type[0], WIRE_HELLO);
	assert_int_equal(c->type[1], WIRE_SYSFS);
	assert_int_equal(c->type[3], WIRE_END);
	assert_string_equal(c->payload[3], "3");
}

static void test_crc_check_value(void **state)
{
	assert_int_equal(wire_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(wire_crc32(0, "", 0), 0);
	/* every table entry against a bitwise reference */
	for (unsigned i = 0; i < 256; i++) {
		uint8_t byte = (uint8_t)i;
		uint32_t ref = 0xffffffffu ^ i;

		for (int k = 0; k < 8; k++)
			ref = ref & 1 ? 0xedb88320u ^ (ref >> 1) : ref >> 1;
		assert_int_equal(wire_crc32(0, &byte, 1), ref ^ 0xffffffffu);
	}
	/* chaining over pieces gives the same value as one call */
	assert_int_equal(wire_crc32(wire_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
}

static void test_encode_layout(void **state)
{
	uint8_t out[64];
	size_t n = wire_encode(0x01020304, WIRE_LOG, "hi", 2, out, sizeof(out));
	uint32_t crc;

	assert_int_equal(n, 22);
	assert_memory_equal(out, "SLR1", 4);
	assert_int_equal(out[4], 0x04);
	assert_int_equal(out[7], 0x01);
	assert_int_equal(out[8], WIRE_LOG);
	assert_int_equal(out[9], 0);
	assert_int_equal(out[10] | out[11], 0);
	assert_int_equal(out[12], 2);
	crc = wire_crc32(wire_crc32(0, out, 16), "hi", 2);
	assert_int_equal(out[16] | out[17] << 8 | out[18] << 16 | (uint32_t)out[19] << 24, crc);
	assert_memory_equal(out + 20, "hi", 2);
	/* output too small */
	assert_int_equal(wire_encode(0, WIRE_LOG, "hi", 2, out, 21), 0);
	assert_string_equal(wire_type_name(WIRE_SYSFS), "sysfs");
	assert_string_equal(wire_type_name(999), "unknown");
}

static void test_round_trip(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	standard_stream(&s);
	wire_decoder_init(&d);
	assert_int_equal(wire_decoder_feed(&d, s.buf, s.len, collect, &c), s.len);
	assert_standard_records(&c);
	assert_int_equal(d.records, 4);
	assert_int_equal(d.skipped_bytes, 0);
	assert_true(d.ended);
	assert_int_equal(d.end_count, 3);
	assert_int_equal(wire_decoder_finish(&d), 0);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_one_byte_chunks(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	standard_stream(&s);
	for (size_t i = 0; i < s.len; i++)
		assert_int_equal(wire_decoder_feed(&d, s.buf + i, 1, collect, &c), 1);
	assert_standard_records(&c);
	assert_int_equal(d.skipped_bytes, 0);
	assert_int_equal(wire_decoder_finish(&d), 0);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_corrupted_payload(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	standard_stream(&s);
	s.buf[s.frame_off[1] + WIRE_HDR_LEN + 5] ^= 0x20;
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(d.bad_crc, 1);
	assert_int_equal(c.nr, 3);
	assert_int_equal(c.seq[0], 0);
	assert_int_equal(c.seq[1], 2); /* the next record still arrives */
	assert_string_equal(c.payload[1], payloads[2]);
	assert_int_equal(c.type[2], WIRE_END);
	assert_int_equal(d.missing, 1);
	assert_int_equal(d.skipped_bytes, WIRE_HDR_LEN + strlen(payloads[1]));
	assert_int_equal(wire_decoder_finish(&d), -1);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_garbage_around_frames(void **state)
{
	static const char *const noise[] = { "[    1.234] console noise SL", "SLR", "S", "xSLR1junk" };
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;
	size_t garbage = 0;

	add_bytes(&s, noise[0]);
	add_frame(&s, 0, WIRE_HELLO, payloads[0]);
	add_bytes(&s, noise[1]);
	add_frame(&s, 1, WIRE_SYSFS, payloads[1]);
	add_bytes(&s, noise[2]);
	add_frame(&s, 2, WIRE_SYSFS, payloads[2]);
	add_bytes(&s, noise[3]);
	add_frame(&s, 3, WIRE_END, "3");
	for (size_t i = 0; i < 4; i++)
		garbage += strlen(noise[i]);

	/* once at a time and in odd chunks must agree */
	for (size_t chunk = 1; chunk <= s.len; chunk += chunk < 8 ? 1 : 37) {
		wire_decoder_init(&d);
		for (size_t off = 0; off < s.len; off += chunk) {
			size_t n = s.len - off < chunk ? s.len - off : chunk;

			assert_int_equal(wire_decoder_feed(&d, s.buf + off, n, collect, &c), n);
		}
		assert_standard_records(&c);
		assert_int_equal(d.skipped_bytes, garbage);
		/* "SLR1junk" has a magic: its header is invalid */
		assert_true(d.bad_header >= 1);
		assert_int_equal(d.bad_crc, 0);
		assert_int_equal(d.missing, 0);
		wire_decoder_release(&d);
		collected_release(&c);
	}
}

static void test_truncated_final_frame(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	standard_stream(&s);
	wire_decoder_feed(&d, s.buf, s.len - 1, collect, &c);
	assert_int_equal(c.nr, 3);
	assert_false(d.ended);
	assert_int_equal(wire_decoder_finish(&d), -1);
	assert_int_equal(d.skipped_bytes, WIRE_HDR_LEN); /* END minus one byte */
	wire_decoder_release(&d);
	collected_release(&c);

	/* a complete stream followed by half a header is not complete either */
	memset(&s, 0, sizeof(s));
	standard_stream(&s);
	add_bytes(&s, "SLR1\x04");
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(c.nr, 4);
	assert_int_equal(wire_decoder_finish(&d), -1);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_end_count_mismatch(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	add_frame(&s, 0, WIRE_HELLO, payloads[0]);
	add_frame(&s, 1, WIRE_END, "5");
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(c.nr, 2);
	assert_true(d.ended);
	assert_int_equal(d.end_count, 5);
	assert_int_equal(d.missing, 0);
	assert_int_equal(wire_decoder_finish(&d), -1);
	wire_decoder_release(&d);
	collected_release(&c);

	/* a non-numeric count can never match */
	memset(&s, 0, sizeof(s));
	add_frame(&s, 0, WIRE_END, "0x0");
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_true(d.ended);
	assert_int_equal(wire_decoder_finish(&d), -1);
	wire_decoder_release(&d);
	collected_release(&c);

	/* no END at all */
	memset(&s, 0, sizeof(s));
	add_frame(&s, 0, WIRE_HELLO, payloads[0]);
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_false(d.ended);
	assert_int_equal(wire_decoder_finish(&d), -1);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_missing_before_end(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	add_frame(&s, 0, WIRE_HELLO, payloads[0]);
	add_frame(&s, 3, WIRE_END, "3"); /* records 1 and 2 never arrived */
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(d.missing, 2);
	assert_int_equal(wire_decoder_finish(&d), -1);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void test_oversized_len_rejected(void **state)
{
	static uint8_t big[WIRE_HDR_LEN + 16];
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;
	uint8_t *hdr;

	assert_int_equal(wire_encode(0, WIRE_LOG, big, WIRE_MAX_PAYLOAD + 1,
				     big, SIZE_MAX), 0);

	/* A header announcing WIRE_MAX_PAYLOAD + 1 bytes with a CRC that
	 * matches its 16 bytes: the decoder must not wait for the payload. */
	hdr = s.buf;
	memcpy(hdr, "SLR1", 4);
	put32(hdr + 4, 0);
	hdr[8] = WIRE_LOG;
	hdr[9] = hdr[10] = hdr[11] = 0;
	put32(hdr + 12, WIRE_MAX_PAYLOAD + 1);
	put32(hdr + 16, wire_crc32(0, hdr, 16));
	s.len = WIRE_HDR_LEN;
	standard_stream(&s);
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(d.bad_header, 1);
	assert_int_equal(d.skipped_bytes, WIRE_HDR_LEN);
	assert_standard_records(&c);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_bad_flags_and_type(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	add_frame(&s, 0, WIRE_HELLO, payloads[0]);
	s.buf[10] = 1; /* flags */
	add_frame(&s, 0, 0, "x"); /* type 0 */
	add_frame(&s, 0, WIRE_TYPE_MAX, "x");
	standard_stream(&s);
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(d.bad_header, 3);
	assert_int_equal(d.bad_crc, 0);
	assert_standard_records(&c);
	/* the rejected frames left a trace, so the stream is not clean */
	assert_int_equal(wire_decoder_finish(&d), -1);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_callback_stops_early(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { .stop_after = 2 };
	struct wire_decoder d = WIRE_DECODER_INIT;
	size_t used;

	standard_stream(&s);
	used = wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(c.nr, 2);
	assert_int_equal(used, s.frame_off[2]);
	c.stop_after = 0;
	assert_int_equal(wire_decoder_feed(&d, s.buf + used, s.len - used, collect, &c),
			 s.len - used);
	assert_standard_records(&c);
	assert_int_equal(wire_decoder_finish(&d), 0);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_corrupted_length_hides_nothing(void **state)
{
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;
	uint8_t pad[4096];

	standard_stream(&s);
	/* HELLO now claims 4000 payload bytes: the frames after it must be
	 * found once the decoder sees that the CRC does not match. */
	put32(s.buf + 12, 4000);
	memset(pad, '.', sizeof(pad));
	memcpy(s.buf + s.len, pad, sizeof(pad));
	s.len += sizeof(pad);
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	assert_int_equal(d.bad_crc, 1);
	assert_int_equal(c.nr, 3);
	assert_int_equal(c.seq[0], 1);
	assert_int_equal(d.missing, 1);
	assert_true(d.ended);
	wire_decoder_release(&d);
	collected_release(&c);
}

static void test_hostile_headers_stay_cheap(void **state)
{
	/* 4 MiB of headers every 20 bytes, each claiming 1 MiB with a
	 * wrong CRC: rescanning every one would need ~200 TB of CRC work,
	 * so this test finishing at all is the point. */
	size_t size = 4u << 20, frames_bytes = 0;
	uint8_t *buf = calloc(1, size);
	struct stream s = { .len = 0 };
	struct collected c = { 0 };
	struct wire_decoder d = WIRE_DECODER_INIT;

	assert_non_null(buf);
	for (size_t off = 0; off + WIRE_HDR_LEN <= size; off += WIRE_HDR_LEN) {
		memcpy(buf + off, "SLR1", 4);
		buf[off + 8] = WIRE_LOG;
		put32(buf + off + 12, WIRE_MAX_PAYLOAD);
		put32(buf + off + 16, 0x12345678);
	}
	add_frame(&s, 0, WIRE_HELLO, payloads[0]);
	wire_decoder_feed(&d, s.buf, s.len, collect, &c);
	wire_decoder_feed(&d, buf, size, collect, &c);
	/* enough trailing zeros to settle every frame claimed above */
	memset(buf, 0, size);
	wire_decoder_feed(&d, buf, size, collect, &c);
	assert_int_equal(c.nr, 1);
	assert_true(d.bad_crc > 16);
	assert_int_equal(wire_decoder_finish(&d), -1);
	/* every byte is in a delivered frame or counted as skipped */
	for (int i = 0; i < c.nr; i++)
		frames_bytes += WIRE_HDR_LEN + c.len[i];
	assert_int_equal(frames_bytes + d.skipped_bytes, s.len + 2 * size);
	wire_decoder_release(&d);
	collected_release(&c);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_check_value),
		cmocka_unit_test(test_encode_layout),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_one_byte_chunks),
		cmocka_unit_test(test_corrupted_payload),
		cmocka_unit_test(test_garbage_around_frames),
		cmocka_unit_test(test_truncated_final_frame),
		cmocka_unit_test(test_end_count_mismatch),
		cmocka_unit_test(test_missing_before_end),
		cmocka_unit_test(test_oversized_len_rejected),
		cmocka_unit_test(test_bad_flags_and_type),
		cmocka_unit_test(test_callback_stops_early),
		cmocka_unit_test(test_corrupted_length_hides_nothing),
		cmocka_unit_test(test_hostile_headers_stay_cheap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
