/* test-migstream.c - the warm start's stream filter: zero pages of guest
 * RAM left out, every other record kept, and a loader starting from zeroed
 * RAM ends with the same memory from the filtered stream as from QEMU's. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/migstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static void be(struct strbuf *sb, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--)
		strbuf_addch(sb, (char)(v >> (8 * i)));
}

static void name(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, (char)strlen(s));
	strbuf_addstr(sb, s);
}

/* header, machine type, START of "ram" (section 2) and its block list */
static void start(struct strbuf *sb)
{
	be(sb, 0x5145564d, 4);
	be(sb, 3, 4);
	strbuf_addch(sb, 0x07);
	be(sb, 10, 4);
	strbuf_addstr(sb, "pc-q35-7.2");
	strbuf_addch(sb, 0x01);
	be(sb, 2, 4);
	name(sb, "ram");
	be(sb, 0, 4);
	be(sb, 4, 4);
	be(sb, (uint64_t)(8 + 2) * PAGE | 0x04, 8);
	name(sb, "mem0");
	be(sb, 8 * PAGE, 8);
	name(sb, "pc.rom");
	be(sb, 2 * PAGE, 8);
}

/* one page record: block NULL continues the last one */
static void zero(struct strbuf *sb, const char *block, uint64_t page, int fill)
{
	be(sb, page * PAGE | 0x02 | (block ? 0 : 0x20), 8);
	if (block)
		name(sb, block);
	strbuf_addch(sb, (char)fill);
}

static void data(struct strbuf *sb, const char *block, uint64_t page, int byte)
{
	be(sb, page * PAGE | 0x08 | (block ? 0 : 0x20), 8);
	if (block)
		name(sb, block);
	for (int i = 0; i < PAGE; i++)
		strbuf_addch(sb, (char)byte);
}

static void eos_footer(struct strbuf *sb)
{
	be(sb, 0x10, 8);
	strbuf_addch(sb, 0x7e);
	be(sb, 2, 4);
}

/* device state the filter does not read, and the end */
static void finish(struct strbuf *sb)
{
	strbuf_addch(sb, 0x04);
	be(sb, 3, 4);
	name(sb, "timer");
	be(sb, 0, 4);
	be(sb, 2, 4);
	strbuf_addstr(sb, "\x01\x02\x03opaque device state");
	strbuf_addch(sb, 0x00);
}

static int filter(const struct strbuf *in, struct strbuf *out, struct migstream_stats *st,
		  struct strbuf *err)
{
	int ifd = memfd_create("in", 0), ofd = memfd_create("out", 0), ret;
	off_t len;

	assert_true(ifd >= 0 && ofd >= 0);
	assert_int_equal(write(ifd, in->buf, in->len), (ssize_t)in->len);
	lseek(ifd, 0, SEEK_SET);
	ret = migstream_drop_zero_pages(ifd, ofd, st, err);
	len = lseek(ofd, 0, SEEK_END);
	strbuf_reset(out);
	strbuf_grow(out, (size_t)len);
	assert_int_equal(pread(ofd, out->buf, (size_t)len, 0), (ssize_t)len);
	out->len = (size_t)len;
	out->buf[len] = 0;
	close(ifd);
	close(ofd);
	return ret;
}

/*
 * What QEMU's loader does with the RAM records, on zeroed memory: mem0
 * (8 pages) and pc.rom (2); a record continuing "the last block" takes the
 * one the last record named, across sections, as QEMU's loader does.
 */
static void load(const struct strbuf *s, unsigned char ram[10][PAGE])
{
	const unsigned char *p = (const unsigned char *)s->buf, *end = p + s->len;
	char block[256] = "";

	memset(ram, 0, 10 * PAGE);
	p += 8;
	p += 1 + 4 + 10;
	while (p < end) {
		unsigned t = *p++;

		if (t == 0x7e) {
			p += 4;
			continue;
		}
		if (t == 0x04 || t == 0x00)
			return;
		p += 4;
		if (t == 0x01)
			p += 1 + p[0] + 8;
		for (;;) {
			uint64_t h = 0;
			unsigned char *page;

			for (int i = 0; i < 8; i++)
				h = h << 8 | *p++;
			if (h & 0x10)
				break;
			if (h & 0x04) {
				p += 1 + 4 + 8 + 1 + 6 + 8;
				continue;
			}
			if (!(h & 0x20)) {
				memcpy(block, p + 1, p[0]);
				block[p[0]] = 0;
				p += 1 + p[0];
			}
			assert_true(block[0]);
			page = ram[(h >> 12) + (strcmp(block, "mem0") ? 8 : 0)];
			if (h & 0x02) {
				memset(page, *p++, PAGE);
			} else {
				memcpy(page, p, PAGE);
				p += PAGE;
			}
		}
	}
}

static void same_memory(const struct strbuf *a, const struct strbuf *b)
{
	static unsigned char ra[10][PAGE], rb[10][PAGE];

	load(a, ra);
	load(b, rb);
	assert_memory_equal(ra, rb, sizeof(ra));
}

static void test_drops_guest_zero_pages(void **state)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT;
	struct migstream_stats st;

	(void)state;
	start(&in);
	zero(&in, "mem0", 0, 0);	/* left out, with the block's name */
	zero(&in, NULL, 1, 0);
	data(&in, NULL, 2, 0xab);	/* now has to name mem0 itself */
	zero(&in, NULL, 3, 0x11);	/* a filled page is data */
	zero(&in, "pc.rom", 0, 0);	/* ROMs keep their zero pages */
	zero(&in, "mem0", 4, 0);
	eos_footer(&in);
	/* the next section goes on with mem0: the filtered one last wrote pc.rom */
	strbuf_addch(&in, 0x02);
	be(&in, 2, 4);
	data(&in, NULL, 5, 0xcd);
	zero(&in, NULL, 6, 0);
	eos_footer(&in);
	finish(&in);
	assert_int_equal(filter(&in, &out, &st, &err), 0);
	assert_int_equal(st.zero_dropped, 4);
	assert_int_equal(st.zero_kept, 2);
	assert_int_equal(st.pages, 2);
	assert_int_equal(st.passthrough, 1);

	start(&want);
	data(&want, "mem0", 2, 0xab);
	zero(&want, NULL, 3, 0x11);
	zero(&want, "pc.rom", 0, 0);
	eos_footer(&want);
	strbuf_addch(&want, 0x02);
	be(&want, 2, 4);
	data(&want, "mem0", 5, 0xcd);
	eos_footer(&want);
	finish(&want);
	assert_int_equal(out.len, want.len);
	assert_memory_equal(out.buf, want.buf, want.len);
	same_memory(&in, &out);
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&want);
}

/* A stream this filter does not know goes through byte for byte. */
static void test_unknown_passes_through(void **state)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct migstream_stats st;

	(void)state;
	strbuf_add(&in, "QEVM\0\0\0\x04 a future version", 25);
	assert_int_equal(filter(&in, &out, &st, &err), 0);
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.buf, in.buf, in.len);

	/* an unknown RAM record kind before anything was left out */
	strbuf_reset(&in);
	start(&in);
	data(&in, "mem0", 0, 1);
	be(&in, 1 * PAGE | 0x40 | 0x20, 8);	/* XBZRLE */
	strbuf_addstr(&in, "whatever follows");
	assert_int_equal(filter(&in, &out, &st, &err), 0);
	assert_int_equal(st.passthrough, 1);
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.buf, in.buf, in.len);
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* Unknown after a left-out page that named another block: the rest would
 * load into the wrong block, so the save fails in one line. */
static void test_unknown_after_drop_fails(void **state)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct migstream_stats st;

	(void)state;
	start(&in);
	zero(&in, "pc.rom", 0, 0);
	zero(&in, "mem0", 0, 0);
	be(&in, 1 * PAGE | 0x40 | 0x20, 8);
	strbuf_addstr(&in, "xbzrle data");
	assert_int_equal(filter(&in, &out, &st, &err), -1);
	assert_non_null(strstr(err.buf, "after a left-out page"));
	assert_null(strchr(err.buf, '\n'));

	/* a stream cut inside a page */
	strbuf_reset(&in);
	strbuf_reset(&err);
	start(&in);
	data(&in, "mem0", 0, 1);
	in.len -= 100;
	assert_int_equal(filter(&in, &out, &st, &err), -1);
	assert_non_null(strstr(err.buf, "ends or breaks inside a record"));
	strbuf_release(&in);
	strbuf_release(&out);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drops_guest_zero_pages),
		cmocka_unit_test(test_unknown_passes_through),
		cmocka_unit_test(test_unknown_after_drop_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
