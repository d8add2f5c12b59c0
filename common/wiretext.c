/* wiretext.c - encoder and streaming decoder of the console transport of
 * records (wiretext.h); plain C99, linked into the static runner and the host. */
#define _GNU_SOURCE
#include "common/wiretext.h"
#include "common/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t b64_encode(const uint8_t *in, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[o++] = b64_alphabet[(v >> 18) & 63];
		out[o++] = b64_alphabet[(v >> 12) & 63];
		out[o++] = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? b64_alphabet[v & 63] : '=';
	}
	return o;
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Strict: a multiple of 4 characters, '=' only as the last one or two.
 * Returns the decoded length, or -1. */
static long b64_decode(const char *in, size_t len, uint8_t *out)
{
	size_t o = 0;

	if (!len || len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;
		uint32_t w = 0;

		for (int k = 0; k < 4; k++) {
			if (in[i + k] == '=' && i + 4 == len && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad)
				return -1;
			v[k] = b64_value(in[i + k]);
			if (v[k] < 0)
				return -1;
		}
		w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
		out[o++] = (uint8_t)(w >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(w >> 8);
		if (pad < 1)
			out[o++] = (uint8_t)w;
	}
	return (long)o;
}

int wiretext_encode(uint32_t stream, uint32_t seq, const void *frame, size_t len,
		    wiretext_line_fn fn, void *ctx)
{
	const uint8_t *p = frame;
	unsigned count = (unsigned)((len + WIRETEXT_CHUNK - 1) / WIRETEXT_CHUNK);

	if (!len)
		return 0;
	for (unsigned i = 0; i < count; i++) {
		size_t off = (size_t)i * WIRETEXT_CHUNK;
		size_t n = len - off < WIRETEXT_CHUNK ? len - off : WIRETEXT_CHUNK;
		char line[WIRETEXT_LINE_MAX];
		int l = snprintf(line, sizeof(line), WIRETEXT_PREFIX "%08x %x %u/%u ",
				 (unsigned)stream, (unsigned)seq, i, count);
		size_t at = (size_t)l;
		int ret;

		at += b64_encode(p + off, n, line + at);
		at += (size_t)snprintf(line + at, sizeof(line) - at, " %08x\n",
				       (unsigned)wire_crc32(0, line, at));
		ret = fn(line, at, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

void wiretext_decoder_init(struct wiretext_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

void wiretext_decoder_release(struct wiretext_decoder *d)
{
	free(d->line);
	free(d->frame);
	wiretext_decoder_init(d);
}

struct chunk {
	uint32_t stream, seq;
	unsigned index, count;
	uint8_t data[WIRETEXT_CHUNK + 3];
	size_t len;
};

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * Reads a field of 1..max characters accepted by ok() up to the separator
 * sep (0: exactly max characters, no separator).  Returns 1 and moves *at
 * past it, 0 when the text ends first, -1 when it is malformed (*at is
 * then the offending character).
 */
static int field(const char *s, size_t n, size_t *at, int (*ok)(char), size_t max,
		 char sep, size_t *start, size_t *flen)
{
	size_t i = *at;

	*start = i;
	while (i < n && i - *start < max && ok(s[i]))
		i++;
	*flen = i - *start;
	if (!sep) {
		if (*flen == max) {
			*at = i;
			return 1;
		}
		*at = i;
		return i == n ? 0 : -1;
	}
	if (i == n)
		return 0;
	*at = i;
	if (!*flen || s[i] != sep)
		return -1;
	*at = i + 1;
	return 1;
}

static int ok_hex(char c)
{
	return is_hex(c);
}

static int ok_dec(char c)
{
	return c >= '0' && c <= '9';
}

static int ok_b64(char c)
{
	return c == '=' || b64_value(c) >= 0;
}

static uint32_t num(const char *s, size_t len, int base)
{
	uint32_t v = 0;

	for (size_t i = 0; i < len; i++)
		v = v * (uint32_t)base + (uint32_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
	return v;
}

/*
 * Parses one record at s (which starts with the prefix, or a piece of it).
 * Returns its length when intact, 0 when the text ends before it does,
 * -1 when it is malformed or its crc does not match.  On -1, *cut is where
 * the text stopped looking like a record (n when all of it did and only
 * the crc or a value is wrong): the kernel may print a line of its own
 * in the middle of one of ours, and the rest of ours follows later.
 */
static long parse_record(const char *s, size_t n, struct chunk *c, size_t *cut)
{
	const size_t plen = strlen(WIRETEXT_PREFIX);
	size_t at = plen, st, fl, b64_at, b64_len;
	long got;
	int r;

	*cut = n;
	for (size_t i = 0; i < plen; i++) {
		if (i == n)
			return 0;
		if (s[i] != WIRETEXT_PREFIX[i]) {
			*cut = i;
			return -1;
		}
	}
	if ((r = field(s, n, &at, ok_hex, 8, ' ', &st, &fl)) <= 0)
		goto field_end;
	if (fl != 8)
		return -1;
	c->stream = num(s + st, fl, 16);
	if ((r = field(s, n, &at, ok_hex, 8, ' ', &st, &fl)) <= 0)
		goto field_end;
	c->seq = num(s + st, fl, 16);
	if ((r = field(s, n, &at, ok_dec, 5, '/', &st, &fl)) <= 0)
		goto field_end;
	c->index = num(s + st, fl, 10);
	if ((r = field(s, n, &at, ok_dec, 5, ' ', &st, &fl)) <= 0)
		goto field_end;
	c->count = num(s + st, fl, 10);
	if ((r = field(s, n, &at, ok_b64, (WIRETEXT_CHUNK + 2) / 3 * 4, ' ', &b64_at, &b64_len)) <= 0)
		goto field_end;
	if ((r = field(s, n, &at, ok_hex, 8, 0, &st, &fl)) <= 0)
		goto field_end;
	if (num(s + st, fl, 16) != wire_crc32(0, s, st - 1))
		return -1;
	if (!c->count || c->count > WIRETEXT_MAX_CHUNKS || c->index >= c->count)
		return -1;
	got = b64_decode(s + b64_at, b64_len, c->data);
	if (got <= 0 || got > (long)WIRETEXT_CHUNK)
		return -1;
	c->len = (size_t)got;
	/* every chunk but the last is whole */
	if (c->index + 1 < c->count && c->len != WIRETEXT_CHUNK)
		return -1;
	return (long)at;
field_end:
	if (r < 0)
		*cut = at;
	return r;
}

static void lose(struct wiretext_decoder *d, uint32_t seq)
{
	if (!d->have_lost || d->lost_seq != seq)
		d->lost_frames++;
	d->have_lost = 1;
	d->lost_seq = seq;
}

static void take(struct wiretext_decoder *d, const struct chunk *c,
		 wiretext_frame_fn fn, void *ctx)
{
	int open = d->count && d->next < d->count;

	if (!d->have_stream) {
		d->stream = c->stream;
		d->have_stream = 1;
	}
	if (c->stream != d->stream) {
		d->other_stream++;
		return;
	}
	d->lines++;
	if (d->count && c->seq == d->seq && c->count == d->count && c->index < d->next) {
		d->duplicates++;
		return;
	}
	if (c->index == 0) {
		if (open)
			lose(d, d->seq);
		d->seq = c->seq;
		d->count = c->count;
		d->next = 0;
		d->frame_len = 0;
	} else if (!open || c->seq != d->seq || c->count != d->count || c->index != d->next) {
		if (open)
			lose(d, d->seq);
		d->count = d->next = 0;
		lose(d, c->seq);
		return;
	}
	if (d->frame_len + c->len > d->frame_alloc) {
		size_t want = d->frame_alloc ? d->frame_alloc * 2 : 4096;
		uint8_t *p;

		while (want < d->frame_len + c->len)
			want *= 2;
		p = realloc(d->frame, want);
		if (!p) {
			lose(d, d->seq);
			d->count = d->next = 0;
			return;
		}
		d->frame = p;
		d->frame_alloc = want;
	}
	memcpy(d->frame + d->frame_len, c->data, c->len);
	d->frame_len += c->len;
	if (++d->next == d->count) {
		d->frames++;
		fn(d->frame, d->frame_len, ctx);
	}
}

/* A record cut short: its start waits for the rest, at most this many
 * lines later (the kernel may print a few lines in between). */
#define PENDING_LINES 16

static void keep_pending(struct wiretext_decoder *d, const char *s, size_t n)
{
	if (n >= sizeof(d->pending)) {
		d->bad_lines++;
		return;
	}
	memmove(d->pending, s, n);
	d->pending_len = n;
	d->pending_age = 0;
}

/* Counted bad only when it had the whole prefix: an 'S' at the end of a
 * kernel line is not a record. */
static void drop_pending(struct wiretext_decoder *d)
{
	if (d->pending_len >= strlen(WIRETEXT_PREFIX))
		d->bad_lines++;
	d->pending_len = 0;
}

/* Parses a record at s; an intact one is taken.  Returns the length
 * consumed, 0 when a start was kept as pending (the rest of the line, from
 * the cut on, is then at *cut), -1 when nothing could be made of it. */
static long one_record(struct wiretext_decoder *d, const char *s, size_t n, size_t *cut,
		       wiretext_frame_fn fn, void *ctx)
{
	struct chunk c;
	long r = parse_record(s, n, &c, cut);

	size_t dummy;

	if (r > 0) {
		take(d, &c, fn, ctx);
		return r;
	}
	if (r == 0) {
		*cut = n;
		keep_pending(d, s, n);
		return 0;
	}
	if (*cut < n && *cut > 0 && parse_record(s, *cut, &c, &dummy) == 0) {
		keep_pending(d, s, *cut);
		return 0;
	}
	return -1;
}

static void process_line(struct wiretext_decoder *d, const char *s, size_t n,
			 wiretext_frame_fn fn, void *ctx)
{
	const size_t plen = strlen(WIRETEXT_PREFIX);
	size_t pos = 0, cut;
	long r;

	while (n && (s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	if (d->pending_len) {
		/* the rest of a record cut short, maybe with a kernel line in it */
		char joined[2 * WIRETEXT_LINE_MAX];
		size_t take_n = n < WIRETEXT_LINE_MAX ? n : WIRETEXT_LINE_MAX;
		size_t plen_was = d->pending_len;
		unsigned age = d->pending_age;

		memcpy(joined, d->pending, plen_was);
		memcpy(joined + plen_was, s, take_n);
		d->pending_len = 0;
		r = one_record(d, joined, plen_was + take_n, &cut, fn, ctx);
		if (r > (long)plen_was) {
			pos = (size_t)r - plen_was;
		} else if (r == 0 && cut > plen_was) {
			pos = cut - plen_was;
		} else {
			/* not its rest: wait a few lines unless a new record began */
			memcpy(d->pending, joined, plen_was);
			d->pending_len = plen_was;
			d->pending_age = age;
			if (memmem(s, n, WIRETEXT_PREFIX, plen) || ++d->pending_age > PENDING_LINES)
				drop_pending(d);
		}
	}
	while (pos < n) {
		const char *p = memmem(s + pos, n - pos, WIRETEXT_PREFIX, plen);
		size_t at;

		if (!p)
			break;
		at = (size_t)(p - s);
		drop_pending(d);
		r = one_record(d, p, n - at, &cut, fn, ctx);
		if (r > 0)
			pos = at + (size_t)r;
		else if (r == 0)
			pos = at + cut;
		else {
			d->bad_lines++;
			pos = at + 1;
		}
	}
	/* the prefix itself cut: by the end of the line, or by a kernel line
	 * (its printk timestamp) */
	for (size_t i = pos; i < n && !d->pending_len; i++) {
		size_t m = 0;

		while (m + 1 < plen && i + m < n && s[i + m] == WIRETEXT_PREFIX[m])
			m++;
		if (m && (i + m == n || s[i + m] == '['))
			keep_pending(d, s + i, m);
	}
}

/* Lines longer than this keep only their start: a record is far shorter,
 * and the cap does not depend on how the text was chunked. */
#define LINE_CAP (1u << 20)

void wiretext_decoder_feed(struct wiretext_decoder *d, const void *text, size_t len,
			   wiretext_frame_fn fn, void *ctx)
{
	const char *s = text;

	while (len) {
		const char *nl = memchr(s, '\n', len);
		size_t n = nl ? (size_t)(nl - s) : len;
		size_t keep = n;

		if (d->line_len + keep > LINE_CAP)
			keep = d->line_len < LINE_CAP ? LINE_CAP - d->line_len : 0;
		if (keep) {
			if (d->line_len + keep > d->line_alloc) {
				size_t want = d->line_alloc ? d->line_alloc : 256;
				char *p;

				while (want < d->line_len + keep)
					want *= 2;
				p = realloc(d->line, want);
				if (!p)
					keep = 0;
				else {
					d->line = p;
					d->line_alloc = want;
				}
			}
			if (keep) {
				memcpy(d->line + d->line_len, s, keep);
				d->line_len += keep;
			}
		}
		if (!nl)
			return;
		process_line(d, d->line ? d->line : "", d->line_len, fn, ctx);
		d->line_len = 0;
		s = nl + 1;
		len -= n + 1;
	}
}

void wiretext_decoder_finish(struct wiretext_decoder *d, wiretext_frame_fn fn, void *ctx)
{
	if (d->line_len)
		process_line(d, d->line, d->line_len, fn, ctx);
	d->line_len = 0;
	drop_pending(d);
	if (d->count && d->next < d->count)
		lose(d, d->seq);
	d->count = d->next = 0;
}
