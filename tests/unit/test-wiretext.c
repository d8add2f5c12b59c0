/* test-wiretext.c - unit tests of the console transport in common/wiretext.c:
 * line shape, round trips through noisy consoles, loss and its accounting. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"
#include "common/wiretext.h"

struct buf {
	char *p;
	size_t len, alloc;
};

static void buf_add(struct buf *b, const void *p, size_t len)
{
	if (b->len + len + 1 > b->alloc) {
		b->alloc = (b->len + len + 1) * 2;
		b->p = realloc(b->p, b->alloc);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
	b->p[b->len] = '\0';
}

static void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static int line_to_buf(const char *line, size_t len, void *ctx)
{
	buf_add(ctx, line, len);
	return 0;
}

static void frame_to_buf(const void *frame, size_t len, void *ctx)
{
	buf_add(ctx, frame, len);
}

/* a binary stream of n records as the runner would send it, and its text */
static void make_stream(int n, size_t payload, struct buf *bin, struct buf *text)
{
	uint8_t *frame = malloc(WIRE_HDR_LEN + payload + 16);
	uint8_t *pl = malloc(payload + 16);

	assert_non_null(frame);
	for (int i = 0; i < n; i++) {
		size_t len = i == n - 1 ? 1 : payload + (size_t)i;
		uint16_t type = i == n - 1 ? WIRE_END : WIRE_TRACE;
		size_t flen;

		for (size_t k = 0; k < len; k++)
			pl[k] = (uint8_t)(k * 7 + (size_t)i); /* binary, NUL and \n included */
		if (i == n - 1)
			pl[0] = (uint8_t)('0' + n - 1);
		flen = wire_encode((uint32_t)i, type, pl, (uint32_t)len, frame, WIRE_HDR_LEN + len);
		assert_true(flen > 0);
		buf_add(bin, frame, flen);
		assert_int_equal(wiretext_encode(0x1234abcd, (uint32_t)i, frame, flen,
						 line_to_buf, text), 0);
	}
	free(frame);
	free(pl);
}

static void decode(const char *text, size_t len, size_t step, struct wiretext_decoder *d,
		   struct buf *out)
{
	wiretext_decoder_init(d);
	for (size_t off = 0; off < len; off += step)
		wiretext_decoder_feed(d, text + off, len - off < step ? len - off : step,
				      frame_to_buf, out);
	wiretext_decoder_finish(d, frame_to_buf, out);
}

static void test_line_shape(void **state)
{
	struct buf text = { 0 }, bin = { 0 };
	char *line, *save = NULL;
	int lines = 0;

	make_stream(3, 200, &bin, &text);
	for (line = strtok_r(text.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned stream, seq, idx, count, crc;
		char b64[128];

		assert_true(strlen(line) <= 110);
		assert_int_equal(sscanf(line, "SLRT %8x %x %u/%u %127s %8x", &stream, &seq,
					&idx, &count, b64, &crc), 6);
		assert_int_equal(stream, 0x1234abcd);
		assert_true(idx < count);
		assert_int_equal(crc, wire_crc32(0, line, strlen(line) - 9));
		for (const char *p = line; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
		lines++;
	}
	/* 220, 221 and 21 frame bytes: 5 + 5 + 1 chunks of 45 */
	assert_int_equal(lines, 11);
	free(text.p);
	free(bin.p);
}

static void test_round_trip_any_chunking(void **state)
{
	struct buf text = { 0 }, bin = { 0 };
	static const size_t steps[] = { 1, 2, 7, 64, 1 << 20 };

	make_stream(6, 1000, &bin, &text);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct wiretext_decoder d;
		struct buf out = { 0 };

		decode(text.p, text.len, steps[i], &d, &out);
		assert_int_equal(out.len, bin.len);
		assert_memory_equal(out.p, bin.p, bin.len);
		assert_int_equal(d.frames, 6);
		assert_int_equal(d.bad_lines + d.lost_frames + d.duplicates + d.other_stream, 0);
		wiretext_decoder_release(&d);
		free(out.p);
	}
	free(text.p);
	free(bin.p);
}

/* CR LF, kernel lines between records, timestamps and LAVA's framing
 * before the prefix: the same bytes come out. */
static void test_noisy_console(void **state)
{
	struct buf text = { 0 }, bin = { 0 }, noisy = { 0 }, out = { 0 };
	struct wiretext_decoder d;
	char *line, *save = NULL;
	int i = 0;

	make_stream(4, 300, &bin, &text);
	buf_adds(&noisy, "[    0.000000] Linux version 6.1.0\r\nschedlab: init start\r\n");
	for (line = strtok_r(text.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		if (i % 3 == 0)
			buf_adds(&noisy, "[   12.345678] random: crng init done\r\n");
		if (i % 3 == 1)
			buf_adds(&noisy, "- {\"dt\": \"2023-01-12T10:11:12.345678\", \"lvl\": \"target\", \"msg\": \"");
		else if (i % 3 == 2)
			buf_adds(&noisy, "[   13.000001] ");
		buf_adds(&noisy, line);
		buf_adds(&noisy, i % 3 == 1 ? "\"}\n" : "\r\n");
	}
	decode(noisy.p, noisy.len, 5, &d, &out);
	assert_int_equal(out.len, bin.len);
	assert_memory_equal(out.p, bin.p, bin.len);
	assert_int_equal(d.bad_lines, 0);
	wiretext_decoder_release(&d);
	free(text.p);
	free(bin.p);
	free(noisy.p);
	free(out.p);
}

/* A logger split one line in two and merged two others into one. */
static void test_split_and_merged_lines(void **state)
{
	struct buf text = { 0 }, bin = { 0 }, mangled = { 0 }, out = { 0 };
	struct wiretext_decoder d;
	char *line, *save = NULL;
	int i = 0;

	make_stream(3, 150, &bin, &text);
	for (line = strtok_r(text.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		if (i == 2) {
			buf_add(&mangled, line, 30);
			buf_adds(&mangled, "\n");
			buf_adds(&mangled, line + 30);
			buf_adds(&mangled, "\n");
		} else {
			buf_adds(&mangled, line);
			buf_adds(&mangled, i == 4 ? "" : "\n");
		}
	}
	decode(mangled.p, mangled.len, 3, &d, &out);
	assert_int_equal(out.len, bin.len);
	assert_memory_equal(out.p, bin.p, bin.len);
	assert_int_equal(d.bad_lines, 0);
	wiretext_decoder_release(&d);
	free(text.p);
	free(bin.p);
	free(mangled.p);
	free(out.p);
}

static int ignore_record(const struct wire_record *rec, void *ctx)
{
	return 0;
}

/* The kernel printed its own lines in the middle of ours, as the serial
 * console does with printk: the record's start, the kernel's lines, then
 * the record's rest on a line of its own. */
static void test_kernel_lines_inside_a_record(void **state)
{
	static const size_t cuts[] = { 3, 14, 20, 40, 90 };
	struct buf text = { 0 }, bin = { 0 }, log = { 0 }, out = { 0 };
	struct wiretext_decoder d;
	char *line, *save = NULL;
	int i = 0;

	make_stream(3, 200, &bin, &text);
	for (line = strtok_r(text.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		size_t cut = cuts[i % 5] < strlen(line) ? cuts[i % 5] : strlen(line) - 2;

		if (i % 2) {
			buf_adds(&log, line);
			buf_adds(&log, "\r\n");
			continue;
		}
		buf_add(&log, line, cut);
		buf_adds(&log, "[   17.583051] schedlab: case smoke-exec end\r\n");
		if (i % 4 == 0)
			buf_adds(&log, "[   17.585610] schedlab: case smoke-x start\r\n");
		buf_adds(&log, line + cut);
		buf_adds(&log, "\r\n");
	}
	decode(log.p, log.len, 11, &d, &out);
	assert_int_equal(d.bad_lines, 0);
	assert_int_equal(out.len, bin.len);
	assert_memory_equal(out.p, bin.p, bin.len);
	wiretext_decoder_release(&d);
	free(text.p);
	free(bin.p);
	free(log.p);
	free(out.p);
}

/* One mangled character loses its frame, and only that one; the wire
 * decoder then counts it missing against the END record. */
static void test_mangled_line_loses_one_frame(void **state)
{
	struct buf text = { 0 }, bin = { 0 }, out = { 0 };
	struct wiretext_decoder d;
	struct wire_decoder w;
	char *second;

	make_stream(4, 100, &bin, &text);
	/* the first line of frame 1 */
	second = strstr(text.p, " 1 0/");
	assert_non_null(second);
	second[10] ^= 0x01;
	decode(text.p, text.len, 17, &d, &out);
	assert_int_equal(d.bad_lines, 1);
	assert_int_equal(d.lost_frames, 1);
	assert_int_equal(d.frames, 3);
	wire_decoder_init(&w);
	wire_decoder_feed(&w, out.p, out.len, ignore_record, NULL);
	assert_int_equal(wire_decoder_finish(&w), -1);
	assert_int_equal(w.missing, 1);
	assert_int_equal(w.records, 3);
	assert_true(w.ended);
	wire_decoder_release(&w);
	wiretext_decoder_release(&d);
	free(text.p);
	free(bin.p);
	free(out.p);
}

/* A second boot in the same log (another stream id) is ignored; a
 * repeated line is taken once. */
static void test_other_stream_and_duplicates(void **state)
{
	struct buf text = { 0 }, bin = { 0 }, log = { 0 }, out = { 0 }, other = { 0 };
	struct wiretext_decoder d;
	const uint8_t junk[60] = { 1, 2, 3 };
	char *nl;

	make_stream(2, 10, &bin, &text);
	nl = strchr(text.p, '\n');
	buf_add(&log, text.p, (size_t)(nl - text.p) + 1);
	buf_add(&log, text.p, (size_t)(nl - text.p) + 1);
	buf_adds(&log, nl + 1);
	assert_int_equal(wiretext_encode(0x99, 0, junk, sizeof(junk), line_to_buf, &other), 0);
	buf_adds(&log, other.p);
	decode(log.p, log.len, 1000, &d, &out);
	assert_int_equal(out.len, bin.len);
	assert_memory_equal(out.p, bin.p, bin.len);
	assert_int_equal(d.duplicates, 1);
	assert_int_equal(d.other_stream, 2);
	wiretext_decoder_release(&d);
	free(text.p);
	free(bin.p);
	free(log.p);
	free(out.p);
	free(other.p);
}

static void test_hostile_fields_rejected(void **state)
{
	static const char *const bad[] = {
		"SLRT 0000000 0 0/1 AAAA 00000000\n",           /* short stream */
		"SLRT 00000000 0 1/1 AAAA 00000000\n",          /* index past count */
		"SLRT 00000000 0 0/99999 AAAA 00000000\n",      /* count too big */
		"SLRT 00000000 0 0/1 A=AA 00000000\n",          /* padding inside */
		"SLRT 00000000 0 0/1 AAAA 0000000g\n",          /* crc not hex */
		"SLRT 00000000 0 0/1 AAAA 00000000\n",          /* crc wrong */
		"SLRT 00000000 0 0/1 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA 00000000\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wiretext_decoder d;
		struct buf out = { 0 };

		decode(bad[i], strlen(bad[i]), 4, &d, &out);
		assert_int_equal(out.len, 0);
		assert_int_equal(d.bad_lines, 1);
		wiretext_decoder_release(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_shape),
		cmocka_unit_test(test_round_trip_any_chunking),
		cmocka_unit_test(test_noisy_console),
		cmocka_unit_test(test_split_and_merged_lines),
		cmocka_unit_test(test_kernel_lines_inside_a_record),
		cmocka_unit_test(test_mangled_line_loses_one_frame),
		cmocka_unit_test(test_other_stream_and_duplicates),
		cmocka_unit_test(test_hostile_fields_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
