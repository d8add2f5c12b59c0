/* wiretext.h - the record stream of wire.h as printable console lines, for
 * a machine with one serial console (a LAVA device); runner and host share it. */
#ifndef LAB_WIRETEXT_H
#define LAB_WIRETEXT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Every wire frame (header and payload, exactly the bytes records.bin
 * would hold) is cut into chunks of WIRETEXT_CHUNK bytes, one line each:
 *
 *   SLRT <stream> <seq> <index>/<count> <base64> <crc>
 *
 *   stream  8 lowercase hex digits, one value per runner start: lines of
 *           another boot in the same console are told apart and ignored
 *   seq     the frame's wire sequence number, lowercase hex
 *   index   0-based decimal chunk number, count the frame's chunk count
 *   base64  the chunk (RFC 4648, with padding), at most 60 characters
 *   crc     8 lowercase hex digits: CRC-32 (wire_crc32) of the line from
 *           the 'S' of SLRT up to, not including, the space before it
 *
 * A line stays below 110 characters, so neither the kernel's console nor
 * LAVA's log splits it in practice.  Anything may precede the prefix (a
 * timestamp, LAVA's framing) or follow the crc (CR, another record when
 * a logger merged two lines).  A frame is delivered only when all its
 * chunks arrived intact and in order; a lost or mangled line loses its
 * frame, and the wire decoder then reports the missing sequence numbers
 * against the END record's count.
 */
#define WIRETEXT_PREFIX "SLRT "
#define WIRETEXT_CHUNK 45u
#define WIRETEXT_LINE_MAX 128u
/* chunks of the largest frame wire.h allows */
#define WIRETEXT_MAX_CHUNKS ((20u + (1u << 20) + WIRETEXT_CHUNK - 1) / WIRETEXT_CHUNK)

/* Called once per line ("SLRT ...\n", len includes the newline); a
 * non-zero return stops the encoding and is returned. */
typedef int (*wiretext_line_fn)(const char *line, size_t len, void *ctx);

/* Encodes one whole frame (wire_encode's output; seq is its sequence
 * number) as lines.  Returns 0, or the first non-zero of fn. */
int wiretext_encode(uint32_t stream, uint32_t seq, const void *frame, size_t len,
		    wiretext_line_fn fn, void *ctx);

/* Called with each reassembled frame's bytes, in console order; valid
 * only during the call. */
typedef void (*wiretext_frame_fn)(const void *frame, size_t len, void *ctx);

/*
 * Streaming decoder of console text: arbitrary chunks, CR LF or LF,
 * kernel messages between the lines.  wiretext_decoder_release() frees.
 */
struct wiretext_decoder {
	char *line;              /* the console line so far */
	size_t line_len, line_alloc;
	char pending[WIRETEXT_LINE_MAX]; /* a record cut at the end of a line */
	size_t pending_len;
	unsigned pending_age;    /* lines since it was cut */
	uint32_t stream;
	int have_stream;
	uint8_t *frame;          /* the frame being reassembled */
	size_t frame_len, frame_alloc;
	uint32_t seq;
	unsigned next, count;    /* next chunk expected, chunks of the frame; 0: none */
	uint32_t lost_seq;       /* the last frame counted lost */
	int have_lost;

	uint64_t lines;          /* intact SLRT lines */
	uint64_t bad_lines;      /* an SLRT prefix whose line failed parse or crc */
	uint64_t other_stream;   /* intact lines of another runner start */
	uint64_t duplicates;     /* intact lines of a chunk already taken */
	uint64_t frames;         /* frames delivered */
	uint64_t lost_frames;    /* frames begun and never completed */
};
void wiretext_decoder_init(struct wiretext_decoder *d);
void wiretext_decoder_feed(struct wiretext_decoder *d, const void *text, size_t len,
			   wiretext_frame_fn fn, void *ctx);
/* The last line, when it has no newline; a frame still open is lost. */
void wiretext_decoder_finish(struct wiretext_decoder *d, wiretext_frame_fn fn, void *ctx);
void wiretext_decoder_release(struct wiretext_decoder *d);

#endif
