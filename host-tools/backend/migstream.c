/* migstream.c - QEMU's migration stream rewritten on its way into a warm
 * start snapshot: the guest RAM pages that are all zeros are left out. */
#define _GNU_SOURCE
#include "backend/migstream.h"
#include "common/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The stream's framing as QEMU 7.2 writes it (migration/savevm.c, ram.c). */
#define MIG_MAGIC 0x5145564du		/* "QEVM" */
#define MIG_VERSION 3u
enum {
	SEC_EOF = 0x00, SEC_START = 0x01, SEC_PART = 0x02, SEC_END = 0x03,
	SEC_FULL = 0x04, SEC_CONFIGURATION = 0x07, SEC_FOOTER = 0x7e,
};
#define RAM_ZERO 0x02u
#define RAM_MEM_SIZE 0x04u
#define RAM_PAGE 0x08u
#define RAM_EOS 0x10u
#define RAM_CONTINUE 0x20u
#define RAM_FLAGS_MASK 0xfffu		/* below x86's 4 KiB target page */
#define RAM_PAGE_SIZE 4096u
#define MAX_BLOCKS 256

struct ms {
	int in, out;
	unsigned char ibuf[1 << 16], obuf[1 << 16];
	size_t ipos, ilen, olen;
	int eof, failed;
	struct strbuf *err;
	char in_block[256], out_block[256];	/* the block the last record read / written named */
	char ram_blocks[MAX_BLOCKS][256];	/* guest RAM, from the MEM_SIZE list */
	size_t nr_ram;
	uint32_t ram_section;
	int have_ram_section, dropped_since_sync;
};

static int flush_out(struct ms *m)
{
	if (m->olen && write_in_full(m->out, m->obuf, m->olen) < 0) {
		if (!m->failed)
			strbuf_addf(m->err, "cannot write the guest's state: %s", strerror(errno));
		m->failed = 1;
		return -1;
	}
	m->olen = 0;
	return m->failed ? -1 : 0;
}

static void put(struct ms *m, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n && !m->failed) {
		size_t k = sizeof(m->obuf) - m->olen;

		if (k > n)
			k = n;
		memcpy(m->obuf + m->olen, c, k);
		m->olen += k;
		c += k;
		n -= k;
		if (m->olen == sizeof(m->obuf))
			flush_out(m);
	}
}

/* Fills the input buffer; 0 at the end of the stream. */
static int fill(struct ms *m)
{
	ssize_t n;

	if (m->ipos < m->ilen)
		return 1;
	if (m->eof || m->failed)
		return 0;
	do
		n = read(m->in, m->ibuf, sizeof(m->ibuf));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		strbuf_addf(m->err, "cannot read the guest's state: %s", strerror(errno));
		m->failed = 1;
		return 0;
	}
	m->ipos = 0;
	m->ilen = (size_t)n;
	if (!n)
		m->eof = 1;
	return n > 0;
}

/* n bytes of input into p (NULL: skipped); -1 if the stream ends first. */
static int get(struct ms *m, void *p, size_t n)
{
	unsigned char *c = p;

	while (n) {
		size_t k;

		if (!fill(m))
			return -1;
		k = m->ilen - m->ipos;
		if (k > n)
			k = n;
		if (c) {
			memcpy(c, m->ibuf + m->ipos, k);
			c += k;
		}
		m->ipos += k;
		n -= k;
	}
	return 0;
}

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(struct ms *m, uint64_t v, int n)
{
	unsigned char b[8];

	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
	put(m, b, (size_t)n);
}

/* Everything from here on as it is.  Safe while every record written so
 * far leaves the loader where the unfiltered stream would: same block. */
static int passthrough(struct ms *m, struct migstream_stats *st, const char *what)
{
	if (m->dropped_since_sync && strcmp(m->in_block, m->out_block)) {
		strbuf_addf(m->err, "guest state stream: %s after a left-out page", what);
		m->failed = 1;
		return -1;
	}
	st->passthrough = 1;
	put(m, m->ibuf + m->ipos, m->ilen - m->ipos);
	m->ipos = m->ilen;
	while (fill(m)) {
		put(m, m->ibuf, m->ilen);
		m->ipos = m->ilen;
	}
	return m->failed ? -1 : 0;
}

static int is_guest_ram(const struct ms *m, const char *name)
{
	for (size_t i = 0; i < m->nr_ram; i++)
		if (!strcmp(m->ram_blocks[i], name))
			return 1;
	return 0;
}

/* "pc.ram", or a memory backend the lab named "mem<N>" */
static int ram_block_name(const char *name)
{
	if (!strcmp(name, "pc.ram"))
		return 1;
	if (strncmp(name, "mem", 3) || !name[3])
		return 0;
	for (const char *p = name + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* A length byte and that many bytes of name, copied out when keep. */
static int get_name(struct ms *m, char name[256], int keep)
{
	unsigned char len;

	if (get(m, &len, 1) < 0 || get(m, name, len) < 0)
		return -1;
	name[len] = 0;
	if (keep) {
		put(m, &len, 1);
		put(m, name, len);
	}
	return 0;
}

/* The RAM block list: each block's name and used length, up to total. */
static int mem_size(struct ms *m, uint64_t total)
{
	uint64_t sum = 0;

	for (size_t i = 0; sum < total; i++) {
		char name[256];
		unsigned char len[8];

		if (i == MAX_BLOCKS || get_name(m, name, 1) < 0 || get(m, len, 8) < 0)
			return -1;
		put(m, len, 8);
		if (be(len, 8) > total - sum)
			return -1;
		sum += be(len, 8);
		if (ram_block_name(name) && m->nr_ram < MAX_BLOCKS)
			snprintf(m->ram_blocks[m->nr_ram++], sizeof(m->ram_blocks[0]), "%s", name);
	}
	return 0;
}

/* One RAM section's records, up to its EOS.  1: done, 0: something this
 * filter does not know (the header is written, the rest passes through). */
static int ram_records(struct ms *m, struct migstream_stats *st)
{
	for (;;) {
		unsigned char h[8], fill_byte;
		uint64_t hdr, flags;
		int keep;

		if (get(m, h, 8) < 0)
			return -1;
		hdr = be(h, 8);
		flags = hdr & RAM_FLAGS_MASK;
		if (flags == RAM_MEM_SIZE) {
			put(m, h, 8);
			if (mem_size(m, hdr & ~(uint64_t)RAM_FLAGS_MASK) < 0)
				return -1;
			continue;
		}
		if (flags == RAM_EOS) {
			put(m, h, 8);
			return 1;
		}
		if ((flags & ~(uint64_t)RAM_CONTINUE) != RAM_ZERO &&
		    (flags & ~(uint64_t)RAM_CONTINUE) != RAM_PAGE) {
			/* compressed, XBZRLE, hooks: not sized here */
			put(m, h, 8);
			return 0;
		}
		if (!(flags & RAM_CONTINUE)) {
			if (get_name(m, m->in_block, 0) < 0)
				return -1;
		} else if (!m->in_block[0]) {
			return -1;
		}
		if (flags & RAM_ZERO) {
			if (get(m, &fill_byte, 1) < 0)
				return -1;
			keep = fill_byte || !is_guest_ram(m, m->in_block);
			if (!keep) {
				st->zero_dropped++;
				m->dropped_since_sync = 1;
				continue;
			}
			st->zero_kept++;
		}
		/* the block name travels again whenever the last one written differs */
		if (!strcmp(m->in_block, m->out_block)) {
			put_be(m, hdr | RAM_CONTINUE, 8);
		} else {
			unsigned char len = (unsigned char)strlen(m->in_block);

			put_be(m, hdr & ~(uint64_t)RAM_CONTINUE, 8);
			put(m, &len, 1);
			put(m, m->in_block, len);
			memcpy(m->out_block, m->in_block, sizeof(m->out_block));
		}
		m->dropped_since_sync = 0;
		if (flags & RAM_ZERO) {
			put(m, &fill_byte, 1);
		} else {
			unsigned char page[RAM_PAGE_SIZE];

			if (get(m, page, sizeof(page)) < 0)
				return -1;
			put(m, page, sizeof(page));
			st->pages++;
		}
	}
}

static int sections(struct ms *m, struct migstream_stats *st)
{
	for (;;) {
		unsigned char t, b[8];
		char name[256];
		uint32_t id;
		int r;

		if (get(m, &t, 1) < 0)
			return m->failed ? -1 : 0;	/* a stream may end without its EOF byte */
		put(m, &t, 1);
		switch (t) {
		case SEC_START:
			if (get(m, b, 4) < 0 || get_name(m, name, 0) < 0)
				return -1;
			put(m, b, 4);
			{
				unsigned char len = (unsigned char)strlen(name);

				put(m, &len, 1);
				put(m, name, len);
			}
			id = (uint32_t)be(b, 4);
			if (get(m, b, 8) < 0)	/* instance and version */
				return -1;
			put(m, b, 8);
			if (strcmp(name, "ram") || m->have_ram_section)
				return passthrough(m, st, "another iterative device");
			m->ram_section = id;
			m->have_ram_section = 1;
			break;
		case SEC_PART:
		case SEC_END:
			if (get(m, b, 4) < 0)
				return -1;
			put(m, b, 4);
			if (!m->have_ram_section || (uint32_t)be(b, 4) != m->ram_section)
				return passthrough(m, st, "another iterative device");
			break;
		case SEC_FOOTER:
			if (get(m, b, 4) < 0)
				return -1;
			put(m, b, 4);
			continue;
		case SEC_FULL:
		case SEC_EOF:
			/* device state (sized only by its own description) and the
			 * end: no RAM records follow */
			return passthrough(m, st, "device state");
		default:
			return passthrough(m, st, "an unknown section");
		}
		r = ram_records(m, st);
		if (r < 0)
			return -1;
		if (!r)
			return passthrough(m, st, "a RAM record of an unknown kind");
	}
}

int migstream_drop_zero_pages(int in, int out, struct migstream_stats *st, struct strbuf *err)
{
	struct ms *m = xcalloc(1, sizeof(*m));	/* 200 KiB: not on a thread's stack */
	unsigned char h[8], t;
	int ret = -1;

	memset(st, 0, sizeof(*st));
	m->in = in;
	m->out = out;
	m->err = err;
	if (get(m, h, 8) < 0)
		goto damaged;
	put(m, h, 8);
	if (be(h, 4) != MIG_MAGIC || be(h + 4, 4) != MIG_VERSION) {
		ret = passthrough(m, st, "header");
		goto out;
	}
	/* the machine type: a 32-bit length and the name */
	if (get(m, &t, 1) < 0)
		goto damaged;
	put(m, &t, 1);
	if (t != SEC_CONFIGURATION) {
		ret = passthrough(m, st, "header");
		goto out;
	}
	if (get(m, h, 4) < 0 || be(h, 4) > 255)
		goto damaged;
	put(m, h, 4);
	{
		char name[256];
		size_t n = (size_t)be(h, 4);

		if (get(m, name, n) < 0)
			goto damaged;
		put(m, name, n);
	}
	ret = sections(m, st);
	if (ret < 0 && !m->failed)
		goto damaged;
	goto out;
damaged:
	if (!m->failed)
		strbuf_addstr(err, "guest state stream ends or breaks inside a record");
	ret = -1;
out:
	if (flush_out(m) < 0)
		ret = -1;
	/* whatever is left is read, so the writer (QEMU) is never stuck */
	while (!m->eof) {
		ssize_t n = read(in, m->ibuf, sizeof(m->ibuf));

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	free(m);
	return ret;
}
