/* test-kernel.c - kernel images: bzImage and ELF parsing on crafted images,
 * xz extraction, path resolution with its cache, config lookups. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lzma.h>
#include <zstd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kernel.h"
#include "kernel/kimage.h"
#include "lib/util.h"

#define FAKE_RELEASE "6.9.0-lab-test"
#define FAKE_BANNER FAKE_RELEASE " (lab@test) #1 SMP PREEMPT_DYNAMIC"
#define FAKE_PVH_ENTRY 0x1000210u
#define SETUP_SECTS 3
#define SETUP_SIZE ((SETUP_SECTS + 1) * 512)
#define KV_PTR 0x400            /* banner at file offset 0x600 */
#define PAYLOAD_OFFSET 0x40     /* payload after 64 bytes of "decompressor" */

static char tmpdir[] = "/tmp/lab-test-kernel.XXXXXX";
static char cachedir[sizeof(tmpdir) + 16];

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

enum elf_variant {
	ELF_PVH,
	ELF_NO_PVH,
	ELF_DYN,
	ELF_32,
	ELF_PHOFF_PAST_EOF,
	ELF_NOTE_HUGE_NAMESZ,
	ELF_NOTE_PAST_EOF,
	ELF_NO_LOAD,
	ELF_AARCH64,
};

/* A small x86-64 ELF executable: header, PT_LOAD + PT_NOTE, an unrelated
 * note, optionally the Xen PVH note, and a linux_banner in "rodata". */
static void build_elf(struct strbuf *sb, enum elf_variant v)
{
	uint8_t img[1024] = { 0 };
	uint8_t *ph = img + 64, *note = img + 64 + 2 * 56;
	size_t note_len = 0;
	static const char banner[] = "Linux version " FAKE_BANNER "\n";

	memcpy(img, "\x7f" "ELF", 4);
	img[4] = v == ELF_32 ? 1 : 2;
	img[5] = 1;
	img[6] = 1;
	put16(img + 16, v == ELF_DYN ? 3 : 2);
	put16(img + 18, v == ELF_AARCH64 ? 183 : 62);
	put32(img + 20, 1);
	put64(img + 24, 0xffffffff81000000ull);
	put64(img + 32, v == ELF_PHOFF_PAST_EOF ? 0x10000 : 64);
	put16(img + 52, 64);
	put16(img + 54, 56);
	put16(img + 56, 2);

	/* A GNU build-id note first, so the parser has to walk past it. */
	put32(note, 4);
	put32(note + 4, 8);
	put32(note + 8, 3);
	memcpy(note + 12, "GNU", 4);
	memset(note + 16, 0xab, 8);
	note_len = 24;
	if (v == ELF_NO_PVH) {
		/* Xen's older PV entry note: same owner, not what PVH needs. */
		uint8_t *n = note + note_len;

		put32(n, 4);
		put32(n + 4, 8);
		put32(n + 8, 1);
		memcpy(n + 12, "Xen", 4);
		put64(n + 16, 0xffffffff81000000ull);
		note_len += 24;
	} else {
		uint8_t *n = note + note_len;

		put32(n, v == ELF_NOTE_HUGE_NAMESZ ? 0xfffffff0u : 4);
		put32(n + 4, 4);
		put32(n + 8, 18);
		memcpy(n + 12, "Xen", 4);
		put32(n + 16, FAKE_PVH_ENTRY);
		note_len += 20;
	}

	put32(ph, v == ELF_NO_LOAD ? 6 : 1);    /* PT_LOAD (or PT_PHDR) */
	put64(ph + 8, 0);
	put64(ph + 32, 512);
	put64(ph + 40, 512);
	ph += 56;
	put32(ph, 4);                           /* PT_NOTE */
	put64(ph + 8, v == ELF_NOTE_PAST_EOF ? 0xfffffff0u : (uint64_t)(note - img));
	put64(ph + 32, note_len);
	put64(ph + 40, note_len);

	memcpy(img + 600, "Linux version %s", 16); /* a format string: not the banner */
	memcpy(img + 700, banner, sizeof(banner));
	strbuf_reset(sb);
	strbuf_add(sb, img, sizeof(img));
}

static void xz_compress(const void *in, size_t len, struct strbuf *out)
{
	size_t cap = len + len / 2 + 4096, pos = 0;
	uint8_t *buf = xmalloc(cap);

	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in, len,
						 buf, &pos, cap), LZMA_OK);
	strbuf_reset(out);
	strbuf_add(out, buf, pos);
	free(buf);
}

/* A bzImage around payload: setup sectors with the boot header and banner,
 * 64 bytes standing in for the decompressor, the payload, 16-byte padding. */
static void build_bzimage(struct strbuf *sb, const void *payload, size_t plen)
{
	uint8_t setup[SETUP_SIZE] = { 0 };
	size_t pm_len = PAYLOAD_OFFSET + plen;
	uint8_t pad[16] = { 0 };

	setup[0x1f1] = SETUP_SECTS;
	put32(setup + 0x1f4, (uint32_t)((pm_len + 15) / 16));
	put16(setup + 0x1fe, 0xaa55);
	memcpy(setup + 0x202, "HdrS", 4);
	put16(setup + 0x206, 0x020f);
	put16(setup + 0x20e, KV_PTR);
	setup[0x211] = 0x01;
	put32(setup + 0x248, PAYLOAD_OFFSET);
	put32(setup + 0x24c, (uint32_t)plen);
	memcpy(setup + KV_PTR + 0x200, FAKE_BANNER, sizeof(FAKE_BANNER));

	strbuf_reset(sb);
	strbuf_add(sb, setup, sizeof(setup));
	for (int i = 0; i < PAYLOAD_OFFSET; i++)
		strbuf_addch(sb, 0x90);
	strbuf_add(sb, payload, plen);
	strbuf_add(sb, pad, (16 - pm_len % 16) % 16);
}

/* The kernel build appends the decompressed size after the xz stream. */
static void build_xz_bzimage(struct strbuf *sb, const struct strbuf *elf)
{
	struct strbuf payload = STRBUF_INIT;
	uint8_t size[4];

	xz_compress(elf->buf, elf->len, &payload);
	put32(size, (uint32_t)elf->len);
	strbuf_add(&payload, size, 4);
	build_bzimage(sb, payload.buf, payload.len);
	strbuf_release(&payload);
}

/* The same with a zstd frame, as Debian's 6.12 and 7.x kernels have. */
static void build_zstd_bzimage(struct strbuf *sb, const struct strbuf *elf, int damage)
{
	size_t cap = ZSTD_compressBound(elf->len), n;
	uint8_t *buf = xmalloc(cap + 4);

	n = ZSTD_compress(buf, cap, elf->buf, elf->len, 3);
	assert_false(ZSTD_isError(n));
	if (damage)	/* a frame cut short (a frame has no checksum to catch flipped bits) */
		n /= 2;
	put32(buf + n, (uint32_t)elf->len);
	build_bzimage(sb, buf, n + 4);
	free(buf);
}

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static char *write_tmp(const char *name, const void *data, size_t len)
{
	char *path = tmp_path(name);

	assert_int_equal(write_file_atomic(path, data, len), 0);
	return path;
}

static int parse(const struct strbuf *sb, struct kernel_info *ki, struct strbuf *err)
{
	return kernel_parse_image(sb->buf, sb->len, "img", ki, err);
}

static void assert_one_line(const struct strbuf *err)
{
	assert_true(err->len > 0);
	assert_null(strchr(err->buf, '\n'));
}

static void test_parse_bzimage(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_info ki;

	build_elf(&elf, ELF_PVH);
	build_xz_bzimage(&bz, &elf);
	assert_int_equal(parse(&bz, &ki, &err), 0);
	assert_int_equal(ki.kind, KERNEL_KIND_BZIMAGE);
	assert_int_equal(ki.boot_protocol, 0x020f);
	assert_int_equal(ki.setup_sects, SETUP_SECTS);
	assert_int_equal(ki.loadflags, 1);
	assert_string_equal(ki.version, FAKE_BANNER);
	assert_string_equal(ki.release, FAKE_RELEASE);
	assert_int_equal(ki.payload_offset, PAYLOAD_OFFSET);
	assert_int_equal(ki.payload_file_offset, SETUP_SIZE + PAYLOAD_OFFSET);
	assert_int_equal(ki.compression, KERNEL_COMP_XZ);
	assert_string_equal(kernel_comp_name(ki.compression), "xz");
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static void test_compression_magic(void **state)
{
	static const struct {
		const char *bytes;
		size_t len;
		enum kernel_comp comp;
	} cases[] = {
		{ "\x1f\x8b\x08\x00", 4, KERNEL_COMP_GZIP },
		{ "\xfd" "7zXZ\0\0", 7, KERNEL_COMP_XZ },
		{ "\x28\xb5\x2f\xfd\x00", 5, KERNEL_COMP_ZSTD },
		{ "\x5d\x00\x00\x80\x00", 5, KERNEL_COMP_LZMA },
		{ "\x02\x21\x4c\x18\x00", 5, KERNEL_COMP_LZ4 },
		{ "BZh91AY", 7, KERNEL_COMP_BZIP2 },
		{ "\x00\x01\x02\x03", 4, KERNEL_COMP_UNKNOWN },
		{ "\xfd" "7z", 3, KERNEL_COMP_UNKNOWN }, /* too short for the xz magic */
	};
	struct strbuf bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_info ki;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		build_bzimage(&bz, cases[i].bytes, cases[i].len);
		assert_int_equal(parse(&bz, &ki, &err), 0);
		if (ki.compression != cases[i].comp)
			fail_msg("case %zu: got %s, expected %s", i,
				 kernel_comp_name(ki.compression),
				 kernel_comp_name(cases[i].comp));
	}
	strbuf_release(&bz);
	strbuf_release(&err);
}

static void test_bogus_header_fields(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_info ki;
	uint8_t *h;

	build_elf(&elf, ELF_PVH);
	build_xz_bzimage(&bz, &elf);
	h = (uint8_t *)bz.buf;

	/* A kernel_version pointer past the setup area: no banner, no crash. */
	put16(h + 0x20e, 0xfff0);
	assert_int_equal(parse(&bz, &ki, &err), 0);
	assert_string_equal(ki.version, "");
	assert_string_equal(ki.release, "");
	put16(h + 0x20e, KV_PTR);

	/* A banner running into binary: cut at the first control byte. */
	h[KV_PTR + 0x200 + 5] = 0x01;
	assert_int_equal(parse(&bz, &ki, &err), 0);
	assert_string_equal(ki.version, "6.9.0");
	memcpy(h + KV_PTR + 0x200, FAKE_BANNER, sizeof(FAKE_BANNER));

	/* Payload offset and length pointing past the end of the file. */
	put32(h + 0x248, 0xfffffff0u);
	assert_int_equal(parse(&bz, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "truncated or damaged"));
	assert_one_line(&err);
	put32(h + 0x248, PAYLOAD_OFFSET);
	put32(h + 0x24c, 0xffffffffu);
	assert_int_equal(parse(&bz, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "truncated or damaged"));
	put32(h + 0x24c, (uint32_t)(bz.len - SETUP_SIZE - PAYLOAD_OFFSET));
	assert_int_equal(parse(&bz, &ki, &err), 0);
	put32(h + 0x24c, (uint32_t)(bz.len - SETUP_SIZE - PAYLOAD_OFFSET + 1));
	assert_int_equal(parse(&bz, &ki, &err), -1);
	build_xz_bzimage(&bz, &elf);
	h = (uint8_t *)bz.buf;

	/* syssize promising more than the file holds. */
	put32(h + 0x1f4, 0x10000000u);
	assert_int_equal(parse(&bz, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "truncated"));
	put32(h + 0x1f4, 0);
	assert_int_equal(parse(&bz, &ki, &err), 0);

	/* 255 setup sectors in a small file. */
	h[0x1f1] = 255;
	assert_int_equal(parse(&bz, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "setup code needs 131072 bytes"));
	h[0x1f1] = SETUP_SECTS;

	/* Too old a boot protocol. */
	put16(h + 0x206, 0x0204);
	assert_int_equal(parse(&bz, &ki, &err), -1);
	assert_string_equal(err.buf, "'img' uses boot protocol 2.04, QEMU needs 2.06 or later");
	put16(h + 0x206, 0x0206);
	assert_int_equal(parse(&bz, &ki, &err), 0);
	assert_int_equal(ki.compression, KERNEL_COMP_UNKNOWN); /* no payload fields before 2.08 */

	/* HdrS without the boot sector signature. */
	put16(h + 0x1fe, 0);
	assert_int_equal(parse(&bz, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "is not a bootable x86 kernel image"));
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static void test_truncated_bzimage(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_info ki;

	build_elf(&elf, ELF_PVH);
	build_xz_bzimage(&bz, &elf);
	/* Every cut of a valid image is refused; none crashes (ASan watches). */
	for (size_t len = 0; len < bz.len; len += (len < 0x260 ? 1 : 7)) {
		uint8_t *copy = xmalloc(len);

		memcpy(copy, bz.buf, len);
		if (kernel_parse_image(copy, len, "cut", &ki, &err) != -1)
			fail_msg("image cut at %zu bytes was accepted", len);
		assert_one_line(&err);
		free(copy);
	}
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static void test_garbage(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct kernel_info ki;
	uint8_t junk[8192];
	char *path;

	srand(1234);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)rand();
	assert_int_equal(kernel_parse_image(junk, sizeof(junk), "junk", &ki, &err), -1);
	assert_string_equal(err.buf, "'junk' is not a bootable x86 kernel image "
			    "(no bzImage header, not an x86-64 ELF)");
	assert_int_equal(kernel_parse_image(NULL, 0, "empty", &ki, &err), -1);
	assert_int_equal(ki.kind, KERNEL_KIND_NONE);

	path = write_tmp("text", "#!/bin/sh\necho hi\n", 18);
	assert_int_equal(kernel_check_bzimage(path, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "is not a bootable x86 kernel image"));
	free(path);
	path = write_tmp("empty", "", 0);
	assert_int_equal(kernel_check_bzimage(path, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "is not a bootable x86 kernel image"));
	free(path);
	assert_int_equal(kernel_check_bzimage(tmpdir, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "is not a bootable x86 kernel image"));

	path = tmp_path("no-such-kernel");
	assert_int_equal(kernel_check_bzimage(path, &ki, &err), -1);
	{
		char *want = xasprintf("kernel '%s' does not exist", path);

		assert_string_equal(err.buf, want);
		free(want);
	}
	free(path);
	strbuf_release(&err);
}

static void test_elf(void **state)
{
	struct strbuf elf = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_info ki;

	build_elf(&elf, ELF_PVH);
	assert_int_equal(parse(&elf, &ki, &err), 0);
	assert_int_equal(ki.kind, KERNEL_KIND_ELF);
	assert_int_equal(ki.compression, KERNEL_COMP_NONE);
	assert_int_equal(ki.pvh, 1);
	assert_int_equal(ki.pvh_entry, FAKE_PVH_ENTRY);
	assert_true(ki.entry == 0xffffffff81000000ull);
	assert_string_equal(ki.version, FAKE_BANNER);
	assert_string_equal(ki.release, FAKE_RELEASE);

	build_elf(&elf, ELF_NO_PVH);
	assert_int_equal(parse(&elf, &ki, &err), 0);
	assert_int_equal(ki.kind, KERNEL_KIND_ELF);
	assert_int_equal(ki.pvh, 0);

	/* A name size that would run far past the note: stop, do not read. */
	build_elf(&elf, ELF_NOTE_HUGE_NAMESZ);
	assert_int_equal(parse(&elf, &ki, &err), 0);
	assert_int_equal(ki.pvh, 0);

	build_elf(&elf, ELF_DYN);
	assert_int_equal(parse(&elf, &ki, &err), -1);
	assert_string_equal(err.buf, "'img' is an x86-64 ELF file but not an executable "
			    "kernel (ELF type 3)");

	build_elf(&elf, ELF_32);
	assert_int_equal(parse(&elf, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "not an x86-64 ELF"));
	build_elf(&elf, ELF_AARCH64);
	assert_int_equal(parse(&elf, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "not an x86-64 ELF"));

	build_elf(&elf, ELF_PHOFF_PAST_EOF);
	assert_int_equal(parse(&elf, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "program headers"));
	build_elf(&elf, ELF_NOTE_PAST_EOF);
	assert_int_equal(parse(&elf, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "segment 1 lies past its end"));
	build_elf(&elf, ELF_NO_LOAD);
	assert_int_equal(parse(&elf, &ki, &err), -1);
	assert_non_null(strstr(err.buf, "without loadable segments"));

	/* Truncated ELF headers. */
	build_elf(&elf, ELF_PVH);
	for (size_t len = 4; len < 64 + 2 * 56; len++) {
		assert_int_equal(kernel_parse_image(elf.buf, len, "cut", &ki, &err), -1);
		assert_one_line(&err);
	}
	strbuf_release(&elf);
	strbuf_release(&err);
}

static void test_extract(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_info ki;
	char *bzpath, *out;
	size_t len;
	char *got;

	build_elf(&elf, ELF_PVH);
	build_xz_bzimage(&bz, &elf);
	bzpath = write_tmp("bzImage-xz", bz.buf, bz.len);
	out = tmp_path("vmlinux-out");
	assert_int_equal(kernel_extract_vmlinux(bzpath, out, &err), 0);
	got = read_file(out, &len);
	assert_non_null(got);
	assert_int_equal(len, elf.len);
	assert_memory_equal(got, elf.buf, len);
	free(got);
	assert_int_equal(kernel_check_bzimage(out, &ki, &err), 0);
	assert_int_equal(ki.kind, KERNEL_KIND_ELF);
	assert_int_equal(ki.pvh, 1);
	assert_string_equal(ki.release, FAKE_RELEASE);
	/* Extracting an ELF is not a thing: nothing to do. */
	assert_int_equal(kernel_extract_vmlinux(out, bzpath, &err), 1);
	unlink(out);
	free(bzpath);

	/* zstd payload: the same vmlinux; a damaged frame writes nothing */
	build_zstd_bzimage(&bz, &elf, 0);
	bzpath = write_tmp("bzImage-zstd", bz.buf, bz.len);
	assert_int_equal(kernel_extract_vmlinux(bzpath, out, &err), 0);
	got = read_file(out, &len);
	assert_non_null(got);
	assert_int_equal(len, elf.len);
	assert_memory_equal(got, elf.buf, len);
	free(got);
	unlink(out);
	free(bzpath);
	build_zstd_bzimage(&bz, &elf, 1);
	bzpath = write_tmp("bzImage-zstd-bad", bz.buf, bz.len);
	strbuf_reset(&err);
	assert_int_equal(kernel_extract_vmlinux(bzpath, out, &err), -1);
	assert_non_null(strstr(err.buf, "zstd"));
	assert_int_equal(access(out, F_OK), -1);
	free(bzpath);

	/* gzip payload: not supported, nothing written. */
	build_bzimage(&bz, "\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
	bzpath = write_tmp("bzImage-gz", bz.buf, bz.len);
	assert_int_equal(kernel_extract_vmlinux(bzpath, out, &err), 1);
	assert_non_null(strstr(err.buf, "gzip"));
	assert_int_equal(access(out, F_OK), -1);
	free(bzpath);
	free(out);
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_extract_damaged(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	char *bzpath, *out, *dir = tmp_path("damaged");
	int before;

	assert_int_equal(mkdir_p(dir, 0755), 0);
	before = count_entries(dir);
	out = xasprintf("%s/vmlinux", dir);

	/* A flipped byte in the xz stream: CRC or format error. */
	build_elf(&elf, ELF_PVH);
	build_xz_bzimage(&bz, &elf);
	bz.buf[SETUP_SIZE + PAYLOAD_OFFSET + 40] ^= 0x55;
	bzpath = write_tmp("bzImage-bad-xz", bz.buf, bz.len);
	assert_int_equal(kernel_extract_vmlinux(bzpath, out, &err), -1);
	assert_non_null(strstr(err.buf, "damaged xz payload"));
	assert_one_line(&err);
	assert_int_equal(count_entries(dir), before); /* no tmp file, no output */
	free(bzpath);

	/* Appended size disagrees with the stream. */
	build_xz_bzimage(&bz, &elf);
	{
		const uint8_t *l = (const uint8_t *)bz.buf + 0x24c;
		uint32_t payload_len = l[0] | l[1] << 8 | l[2] << 16 | (uint32_t)l[3] << 24;

		put32((uint8_t *)bz.buf + SETUP_SIZE + PAYLOAD_OFFSET + payload_len - 4,
		      (uint32_t)elf.len + 1);
	}
	bzpath = write_tmp("bzImage-bad-size", bz.buf, bz.len);
	assert_int_equal(kernel_extract_vmlinux(bzpath, out, &err), -1);
	assert_non_null(strstr(err.buf, "the image says"));
	assert_int_equal(count_entries(dir), before);
	free(bzpath);

	/* A valid xz stream that does not hold an ELF. */
	{
		static const char text[] = "this is not a kernel";
		struct strbuf payload = STRBUF_INIT;
		uint8_t size[4];

		xz_compress(text, sizeof(text), &payload);
		put32(size, sizeof(text));
		strbuf_add(&payload, size, 4);
		build_bzimage(&bz, payload.buf, payload.len);
		strbuf_release(&payload);
	}
	bzpath = write_tmp("bzImage-not-elf", bz.buf, bz.len);
	assert_int_equal(kernel_extract_vmlinux(bzpath, out, &err), -1);
	assert_non_null(strstr(err.buf, "is not an ELF vmlinux"));
	assert_int_equal(count_entries(dir), before);
	free(bzpath);
	free(out);
	free(dir);
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static void test_config_has(void **state)
{
	static const char config[] =
		"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
		"CONFIG_SCHED_DEBUG=y\n"
		"CONFIG_VIRTIO_PCI=m\n"
		"CONFIG_NR_CPUS=8192\n"
		"# CONFIG_SCHED_CORE is not set\n"
		"CONFIG_NUMA_BALANCING_DEFAULT_ENABLED=y\n"
		"CONFIG_LOCALVERSION=\"y\"\n"
		"CONFIG_NO_NEWLINE=y";
	char *path = write_tmp("config", config, sizeof(config) - 1);
	char *missing = tmp_path("no-config");

	assert_int_equal(kernel_config_has(path, "CONFIG_SCHED_DEBUG"), 1);
	assert_int_equal(kernel_config_has(path, "SCHED_DEBUG"), 1);
	assert_int_equal(kernel_config_has(path, "VIRTIO_PCI"), 1);
	assert_int_equal(kernel_config_has(path, "SCHED_CORE"), 0);
	assert_int_equal(kernel_config_has(path, "NR_CPUS"), 0);
	assert_int_equal(kernel_config_has(path, "NUMA_BALANCING"), 0); /* prefix only */
	assert_int_equal(kernel_config_has(path, "LOCALVERSION"), 0);
	assert_int_equal(kernel_config_has(path, "NO_NEWLINE"), 1);
	assert_int_equal(kernel_config_has(path, "DEBUG"), 0);
	assert_int_equal(kernel_config_has(missing, "SCHED_DEBUG"), -1);
	free(path);
	free(missing);
}

static void test_config_value(void **state)
{
	static const char config[] =
		"CONFIG_HZ_250=y\n"
		"CONFIG_HZ=250\r\n"
		"# CONFIG_HZ_1000 is not set\n"
		"CONFIG_LOCALVERSION=\"-lab\"\n"
		"CONFIG_EMPTY=\n"
		"CONFIG_LAST=17";
	char *path = write_tmp("config-value", config, sizeof(config) - 1);
	char *missing = tmp_path("no-config");
	struct strbuf v = STRBUF_INIT;

	assert_int_equal(kernel_config_value(path, "HZ", &v), 1);
	assert_string_equal(v.buf, "250");
	assert_int_equal(kernel_config_value(path, "CONFIG_HZ_250", &v), 1);
	assert_string_equal(v.buf, "y");
	assert_int_equal(kernel_config_value(path, "HZ_1000", &v), 0);
	assert_string_equal(v.buf, "");
	assert_int_equal(kernel_config_value(path, "LOCALVERSION", &v), 1);
	assert_string_equal(v.buf, "\"-lab\"");
	assert_int_equal(kernel_config_value(path, "EMPTY", &v), 1);
	assert_string_equal(v.buf, "");
	assert_int_equal(kernel_config_value(path, "LAST", &v), 1);
	assert_string_equal(v.buf, "17");
	assert_int_equal(kernel_config_value(path, "H", &v), 0);
	assert_int_equal(kernel_config_value(missing, "HZ", &v), -1);
	strbuf_release(&v);
	free(path);
	free(missing);
}

static void test_apt_depends(void **state)
{
	struct strbuf pkg = STRBUF_INIT;

	assert_int_equal(kernel_parse_apt_depends(
		"linux-image-amd64\n  Depends: linux-image-6.1.0-57-amd64\n", &pkg), 0);
	assert_string_equal(pkg.buf, "linux-image-6.1.0-57-amd64");
	assert_int_equal(kernel_parse_apt_depends(
		"linux-image-amd64\n |Depends: <linux-image-virtual>\n"
		"  Depends: linux-image-6.12.9+bpo-amd64\n  Recommends: foo\n", &pkg), 0);
	assert_string_equal(pkg.buf, "linux-image-6.12.9+bpo-amd64");
	/* another architecture's (dpkg --add-architecture): the :arch stays */
	assert_int_equal(kernel_parse_apt_depends(
		"linux-image-arm64:arm64\n  Depends: linux-image-6.1.0-57-arm64:arm64\n", &pkg), 0);
	assert_string_equal(pkg.buf, "linux-image-6.1.0-57-arm64:arm64");
	assert_int_equal(kernel_parse_apt_depends("  Depends: linux-image-6.1.0-57-arm64:\n", &pkg), -1);
	assert_int_equal(kernel_parse_apt_depends("  Depends: linux-image-6.1.0:../x\n", &pkg), -1);
	assert_int_equal(kernel_parse_apt_depends("linux-image-amd64\n", &pkg), -1);
	assert_int_equal(kernel_parse_apt_depends("  Depends: libc6\n", &pkg), -1);
	assert_int_equal(kernel_parse_apt_depends("  Depends: linux-image-../../etc\n", &pkg), -1);
	assert_int_equal(kernel_parse_apt_depends("", &pkg), -1);
	assert_int_equal(pkg.len, 0);
	strbuf_release(&pkg);
}

static void test_resolve_path(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_paths kp;
	char *dir = tmp_path("boot"), *bzpath, *config, *first;
	struct stat st1, st2;
	struct timespec times[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };

	assert_int_equal(mkdir_p(dir, 0755), 0);
	build_elf(&elf, ELF_PVH);
	build_xz_bzimage(&bz, &elf);
	bzpath = xasprintf("%s/vmlinuz-" FAKE_RELEASE, dir);
	config = xasprintf("%s/config-" FAKE_RELEASE, dir);
	assert_int_equal(write_file_atomic(bzpath, bz.buf, bz.len), 0);
	assert_int_equal(write_file_atomic(config, "CONFIG_SMP=y\n", 13), 0);

	assert_int_equal(kernel_resolve(bzpath, &kp, &err), 0);
	assert_string_equal(kp.bzimage, bzpath);
	assert_string_equal(kp.config, config);
	assert_string_equal(kp.release, FAKE_RELEASE);
	assert_string_equal(kp.source, "path");
	assert_true(!strncmp(kp.vmlinux, cachedir, strlen(cachedir)));
	assert_non_null(strstr(kp.vmlinux, "/kernels/extracted/"));
	assert_string_equal(kernel_paths_boot_image(&kp), kp.vmlinux);
	assert_int_equal(stat(kp.vmlinux, &st1), 0);
	first = xstrdup(kp.vmlinux);

	/* Cached: the same file, not extracted again. */
	assert_int_equal(kernel_resolve(bzpath, &kp, &err), 0);
	assert_string_equal(kp.vmlinux, first);
	assert_int_equal(stat(kp.vmlinux, &st2), 0);
	assert_true(st1.st_ino == st2.st_ino && st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec);

	/* A rebuilt kernel (new mtime) gets its own extraction. */
	assert_int_equal(utimensat(AT_FDCWD, bzpath, times, 0), 0);
	assert_int_equal(kernel_resolve(bzpath, &kp, &err), 0);
	assert_string_not_equal(kp.vmlinux, first);
	free(first);
	first = xstrdup(kp.vmlinux);
	times[1].tv_sec = 23456;
	assert_int_equal(utimensat(AT_FDCWD, bzpath, times, 0), 0);
	assert_int_equal(kernel_resolve(bzpath, &kp, &err), 0);
	assert_string_not_equal(kp.vmlinux, first);

	/* A vmlinux with the PVH note is used as it is. */
	{
		char *v = write_tmp("vmlinux-pvh", elf.buf, elf.len);

		assert_int_equal(kernel_resolve(v, &kp, &err), 0);
		assert_string_equal(kp.vmlinux, v);
		assert_string_equal(kp.bzimage, "");
		assert_string_equal(kernel_paths_boot_image(&kp), v);
		free(v);
	}
	/* A gzip bzImage resolves without a vmlinux. */
	build_bzimage(&bz, "\x1f\x8b\x08\x00", 4);
	{
		char *g = write_tmp("bzImage-gz2", bz.buf, bz.len);

		assert_int_equal(kernel_resolve(g, &kp, &err), 0);
		assert_string_equal(kp.vmlinux, "");
		assert_string_equal(kernel_paths_boot_image(&kp), g);
		free(g);
	}
	free(first);
	free(bzpath);
	free(config);
	free(dir);
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static void test_resolve_tree(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_paths kp;
	char *tree = tmp_path("linux"), *boot, *bzpath, *dotconfig, *vmlinux;

	boot = xasprintf("%s/arch/x86/boot", tree);
	bzpath = xasprintf("%s/bzImage", boot);
	dotconfig = xasprintf("%s/.config", tree);
	vmlinux = xasprintf("%s/vmlinux", tree);
	assert_int_equal(mkdir_p(boot, 0755), 0);
	build_elf(&elf, ELF_NO_PVH);
	build_xz_bzimage(&bz, &elf);
	assert_int_equal(write_file_atomic(bzpath, bz.buf, bz.len), 0);
	assert_int_equal(write_file_atomic(dotconfig, "CONFIG_PVH=n\n", 13), 0);
	assert_int_equal(write_file_atomic(vmlinux, elf.buf, elf.len), 0);

	/* The tree, its bzImage and its PVH-less vmlinux all mean the bzImage;
	 * its payload has no PVH note, so no vmlinux is offered. */
	const char *specs[] = { tree, bzpath, vmlinux };
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		assert_int_equal(kernel_resolve(specs[i], &kp, &err), 0);
		assert_string_equal(kp.bzimage, bzpath);
		assert_string_equal(kp.vmlinux, "");
		assert_string_equal(kp.config, dotconfig);
	}
	free(tree);
	free(boot);
	free(bzpath);
	free(dotconfig);
	free(vmlinux);
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static void test_resolve_bad(void **state)
{
	struct strbuf elf = STRBUF_INIT, bz = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_paths kp;
	char *missing = tmp_path("nope/bzImage"), *junk, *want, *novmlinux, *bad, *emptydir;
	char *extracted = xasprintf("%s/kernels/extracted", cachedir);
	int before = count_entries(extracted);

	assert_int_equal(kernel_resolve(missing, &kp, &err), -1);
	want = xasprintf("kernel '%s' does not exist", missing);
	assert_string_equal(err.buf, want);
	free(want);

	junk = write_tmp("junk", "MZ not a kernel at all, just some bytes", 39);
	assert_int_equal(kernel_resolve(junk, &kp, &err), -1);
	assert_one_line(&err);

	build_elf(&elf, ELF_NO_PVH);
	novmlinux = write_tmp("vmlinux-nopvh", elf.buf, elf.len);
	assert_int_equal(kernel_resolve(novmlinux, &kp, &err), -1);
	assert_non_null(strstr(err.buf, "without a PVH entry note"));
	assert_one_line(&err);

	build_xz_bzimage(&bz, &elf);
	bz.buf[SETUP_SIZE + PAYLOAD_OFFSET + 40] ^= 0x55;
	bad = write_tmp("bzImage-damaged", bz.buf, bz.len);
	assert_int_equal(kernel_resolve(bad, &kp, &err), -1);
	assert_non_null(strstr(err.buf, "damaged xz payload"));

	emptydir = tmp_path("emptydir");
	assert_int_equal(mkdir_p(emptydir, 0755), 0);
	assert_int_equal(kernel_resolve(emptydir, &kp, &err), -1);
	assert_non_null(strstr(err.buf, "not a built kernel tree"));

	/* Nothing was left in the cache by any of them. */
	assert_int_equal(count_entries(extracted), before);
	assert_string_equal(kp.bzimage, "");
	assert_string_equal(kp.vmlinux, "");
	free(missing);
	free(junk);
	free(novmlinux);
	free(bad);
	free(emptydir);
	free(extracted);
	strbuf_release(&elf);
	strbuf_release(&bz);
	strbuf_release(&err);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_bzimage),
		cmocka_unit_test(test_compression_magic),
		cmocka_unit_test(test_bogus_header_fields),
		cmocka_unit_test(test_truncated_bzimage),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_elf),
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_extract_damaged),
		cmocka_unit_test(test_config_has),
		cmocka_unit_test(test_config_value),
		cmocka_unit_test(test_apt_depends),
		cmocka_unit_test(test_resolve_path),
		cmocka_unit_test(test_resolve_tree),
		cmocka_unit_test(test_resolve_bad),
	};
	int ret;

	if (!mkdtemp(tmpdir))
		return 1;
	/* Before anything asks lab_cache_dir(), which remembers its answer. */
	snprintf(cachedir, sizeof(cachedir), "%s/cache", tmpdir);
	setenv("LAB_CACHE", cachedir, 1);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}
