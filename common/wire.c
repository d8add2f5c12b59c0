/* wire.c - framing, CRC-32 and the streaming decoder of the record format
 * in wire.h; plain C99, linked into the static runner and the host tools. */
#include "common/wire.h"

#include <stdlib.h>
#include <string.h>

/*
 * The reflected CRC-32 table of polynomial 0xEDB88320 (zlib's crc32).
 * Kept as a constant rather than built on first use so the runner may call
 * wire_crc32() from several threads without any initialisation race.
 */
static const uint32_t crc_table[256] = {
	0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f,
	0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988,
	0x09b64c2b, 0x7eb17cbd, 0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2,
	0xf3b97148, 0x84be41de, 0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7,
	0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
	0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4, 0xa2677172,
	0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
	0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59,
	0x26d930ac, 0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423,
	0xcfba9599, 0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
	0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190, 0x01db7106,
	0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f, 0x9fbfe4a5, 0xe8b8d433,
	0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb, 0x086d3d2d,
	0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
	0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
	0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65,
	0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7,
	0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a, 0x346ed9fc, 0xad678846, 0xda60b8d0,
	0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa,
	0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
	0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
	0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a,
	0xead54739, 0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84,
	0x0d6d6a3e, 0x7a6a5aa8, 0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1,
	0xf00f9344, 0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
	0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a, 0x67dd4acc,
	0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8, 0xa1d1937e,
	0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
	0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55,
	0x316e8eef, 0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
	0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28,
	0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d,
	0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a, 0x9c0906a9, 0xeb0e363f,
	0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38,
	0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777,
	0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69,
	0x616bffd3, 0x166ccf45, 0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2,
	0xa7672661, 0xd06016f7, 0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc,
	0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
	0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605, 0xcdd70693,
	0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
	0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,
};

uint32_t wire_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

const char *wire_type_name(unsigned type)
{
	static const char *const names[WIRE_TYPE_MAX] = {
		[WIRE_HELLO] = "hello",
		[WIRE_SYSFS] = "sysfs",
		[WIRE_LOG] = "log",
		[WIRE_RESULT] = "result",
		[WIRE_EVENT] = "event",
		[WIRE_END] = "end",
		[WIRE_COUNTERS] = "counters",
		[WIRE_TRACE] = "trace",
		[WIRE_PLAN] = "plan",
	};

	if (type >= WIRE_TYPE_MAX || !names[type])
		return "unknown";
	return names[type];
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t wire_encode(uint32_t seq, uint16_t type, const void *payload,
		   uint32_t len, void *out, size_t outlen)
{
	uint8_t *o = out;
	uint32_t crc;

	if (len > WIRE_MAX_PAYLOAD || outlen < WIRE_HDR_LEN + (size_t)len)
		return 0;
	memcpy(o, WIRE_MAGIC, 4);
	put_le32(o + 4, seq);
	put_le16(o + 8, type);
	put_le16(o + 10, 0);
	put_le32(o + 12, len);
	if (len)
		memcpy(o + WIRE_HDR_LEN, payload, len);
	crc = wire_crc32(0, o, 16);
	crc = wire_crc32(crc, o + WIRE_HDR_LEN, len);
	put_le32(o + 16, crc);
	return WIRE_HDR_LEN + (size_t)len;
}

void wire_decoder_init(struct wire_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

void wire_decoder_release(struct wire_decoder *d)
{
	free(d->buf);
	wire_decoder_init(d);
}

/* Header checks that need no payload: they let a decoder give up on a
 * false magic at once instead of waiting for up to 1 MiB of "payload". */
static int header_valid(const uint8_t *h)
{
	uint16_t type = get_le16(h + 8);

	return type != 0 && type < WIRE_TYPE_MAX && get_le16(h + 10) == 0 &&
	       get_le32(h + 12) <= WIRE_MAX_PAYLOAD;
}

/*
 * The END payload is a plain decimal without sign or spaces; anything else
 * is stored as UINT32_MAX, a count no stream can match, so finish() fails.
 */
static uint32_t parse_end_count(const char *p, uint32_t len)
{
	uint64_t v = 0;

	if (len == 0 || len > 10)
		return UINT32_MAX;
	for (uint32_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return UINT32_MAX;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	return v >= UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int deliver(struct wire_decoder *d, const uint8_t *frame,
		   wire_record_fn fn, void *ctx)
{
	struct wire_record rec;

	rec.seq = get_le32(frame + 4);
	rec.type = get_le16(frame + 8);
	rec.len = get_le32(frame + 12);
	rec.payload = (const char *)frame + WIRE_HDR_LEN;

	/* A sequence number behind the expected one (a duplicate or a
	 * restarted runner) is still delivered; only gaps count as missing. */
	if (rec.seq >= d->next_seq) {
		d->missing += rec.seq - d->next_seq;
		d->next_seq = rec.seq + 1;
	}
	d->records++;
	if (rec.type == WIRE_END) {
		d->ended = 1;
		d->end_count = parse_end_count(rec.payload, rec.len);
	}
	return fn ? fn(&rec, ctx) : 0;
}

/* Bad-CRC frames after which the decoder stops rescanning their bytes. */
#define WIRE_RESCAN_LIMIT 16

/*
 * Decodes what the buffer holds.  Returns how many buffered bytes are done
 * with (delivered or skipped); *stop is set when the callback asked to stop.
 * What remains is an incomplete frame or the start of a magic.
 */
static size_t decode_buffer(struct wire_decoder *d, wire_record_fn fn,
			    void *ctx, int *stop)
{
	const uint8_t *b = d->buf;
	size_t pos = 0;

	while (pos < d->len) {
		size_t avail = d->len - pos;
		size_t frame_len;
		uint32_t crc;

		if (avail < 4 || memcmp(b + pos, WIRE_MAGIC, 4)) {
			const uint8_t *m = NULL;

			/* Skip to the next magic, or keep a tail that may
			 * be the start of one. */
			for (size_t i = pos + 1; i + 4 <= d->len; i++) {
				if (b[i] == 'S' && !memcmp(b + i, WIRE_MAGIC, 4)) {
					m = b + i;
					break;
				}
			}
			if (!m) {
				size_t keep = 0;

				for (size_t k = avail < 3 ? avail : 3; k > 0; k--) {
					if (!memcmp(b + d->len - k, WIRE_MAGIC, k)) {
						keep = k;
						break;
					}
				}
				d->skipped_bytes += avail - keep;
				return d->len - keep;
			}
			d->skipped_bytes += (size_t)(m - (b + pos));
			pos = (size_t)(m - b);
			continue;
		}
		if (avail < WIRE_HDR_LEN)
			return pos;
		if (!header_valid(b + pos)) {
			d->bad_header++;
			d->skipped_bytes++;
			pos++;
			continue;
		}
		frame_len = WIRE_HDR_LEN + (size_t)get_le32(b + pos + 12);
		if (avail < frame_len)
			return pos;
		crc = wire_crc32(0, b + pos, 16);
		crc = wire_crc32(crc, b + pos + WIRE_HDR_LEN, frame_len - WIRE_HDR_LEN);
		if (crc != get_le32(b + pos + 16)) {
			/* Drop only the first byte: a corrupted length may
			 * have swallowed intact frames that follow.  Past a
			 * few bad frames, drop the whole claimed frame, or a
			 * hostile stream of overlapping headers each claiming
			 * 1 MiB would cost 1 MiB of CRC per 20 bytes fed. */
			size_t drop = ++d->bad_crc > WIRE_RESCAN_LIMIT ? frame_len : 1;

			d->skipped_bytes += drop;
			pos += drop;
			continue;
		}
		if (deliver(d, b + pos, fn, ctx)) {
			*stop = 1;
			return pos + frame_len;
		}
		pos += frame_len;
	}
	return pos;
}

/* Input is appended in slices so one huge feed() does not double memory. */
#define FEED_SLICE (64u * 1024)

size_t wire_decoder_feed(struct wire_decoder *d, const void *data, size_t len,
			 wire_record_fn fn, void *ctx)
{
	const uint8_t *in = data;
	size_t consumed = 0;

	/* Runs at least once: an empty feed decodes frames still buffered
	 * after a callback asked to stop. */
	do {
		size_t n = len - consumed, old = d->len, done;
		int stop = 0;

		if (n > FEED_SLICE)
			n = FEED_SLICE;
		if (n && d->len + n > d->alloc) {
			size_t want = d->alloc ? d->alloc : 4096;
			uint8_t *nb;

			while (want < d->len + n)
				want *= 2;
			nb = realloc(d->buf, want);
			if (!nb)
				abort(); /* no error path in a decoder API; as xmalloc */
			d->buf = nb;
			d->alloc = want;
		}
		if (n)
			memcpy(d->buf + d->len, in + consumed, n);
		d->len += n;

		done = decode_buffer(d, fn, ctx, &stop);
		if (stop) {
			/* Hand the caller back the bytes of this slice that
			 * follow the stopping frame.  That frame usually ends
			 * inside the slice, but may lie wholly in older bytes
			 * once a bad CRC made the decoder rescan them. */
			if (done >= old) {
				d->len = 0;
				return consumed + (done - old);
			}
			memmove(d->buf, d->buf + done, old - done);
			d->len = old - done;
			return consumed;
		}
		if (done) {
			memmove(d->buf, d->buf + done, d->len - done);
			d->len -= done;
		}
		consumed += n;
	} while (consumed < len);
	return consumed;
}

int wire_decoder_finish(struct wire_decoder *d)
{
	int truncated = d->len > 0;

	d->skipped_bytes += d->len;
	d->len = 0;
	if (truncated || !d->ended || d->missing || d->bad_crc || d->bad_header)
		return -1;
	/* END carries the count of records before it, so exactly one more
	 * record (END itself) must have been delivered. */
	if ((uint64_t)d->end_count + 1 != d->records)
		return -1;
	return 0;
}
