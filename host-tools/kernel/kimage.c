/* kimage.c - kernel image files: bzImage and x86-64 ELF headers, the PVH
 * entry note, and the xz payload decompressed into a vmlinux. */
#define _GNU_SOURCE
#include "kernel/kimage.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <zstd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Offsets of the x86 boot protocol header (Documentation/arch/x86/boot.rst). */
#define BZ_SETUP_SECTS   0x1f1
#define BZ_SYSSIZE       0x1f4
#define BZ_BOOT_FLAG     0x1fe
#define BZ_HEADER        0x202
#define BZ_VERSION       0x206
#define BZ_KERNEL_VERSION 0x20e
#define BZ_LOADFLAGS     0x211
#define BZ_PAYLOAD_OFFSET 0x248
#define BZ_PAYLOAD_LENGTH 0x24c
#define BZ_MIN_PROTOCOL  0x0206

/* ELF64 layout, read by offset so nothing depends on the host's alignment. */
#define ELF_EHDR_SIZE    64
#define ELF_PHDR_SIZE    56
#define ELF_ET_EXEC      2
#define ELF_EM_X86_64    62
#define ELF_PT_LOAD      1
#define ELF_PT_NOTE      4
#define XEN_ELFNOTE_PHYS32_ENTRY 18

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

const char *kernel_kind_name(enum kernel_kind kind)
{
	switch (kind) {
	case KERNEL_KIND_BZIMAGE: return "bzImage";
	case KERNEL_KIND_ELF: return "vmlinux";
	default: return "none";
	}
}

const char *kernel_comp_name(enum kernel_comp comp)
{
	switch (comp) {
	case KERNEL_COMP_NONE: return "none";
	case KERNEL_COMP_GZIP: return "gzip";
	case KERNEL_COMP_XZ: return "xz";
	case KERNEL_COMP_ZSTD: return "zstd";
	case KERNEL_COMP_LZMA: return "lzma";
	case KERNEL_COMP_LZ4: return "lz4";
	case KERNEL_COMP_BZIP2: return "bzip2";
	default: return "unknown";
	}
}

static int not_an_image(const char *name, struct strbuf *err)
{
	strbuf_reset(err);
	strbuf_addf(err, "'%s' is not a bootable x86 kernel image "
		    "(no bzImage header, not an x86-64 ELF)", name);
	return -1;
}

int kernel_error(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(err);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Copies printable text from [p, end) up to NUL or newline; a banner with
 * control bytes in it is cut there rather than passed on to terminals. */
static void copy_banner(char *dst, size_t dstlen, const uint8_t *p, const uint8_t *end)
{
	size_t n = 0;

	while (p < end && n + 1 < dstlen && *p >= 0x20 && *p < 0x7f)
		dst[n++] = (char)*p++;
	dst[n] = '\0';
}

static void set_release(struct kernel_info *ki)
{
	size_t n = strcspn(ki->version, " ");

	memcpy(ki->release, ki->version, n);
	ki->release[n] = '\0';
}

static enum kernel_comp detect_comp(const uint8_t *p, size_t len)
{
	static const struct {
		enum kernel_comp comp;
		size_t len;
		const char *magic;
	} magics[] = {
		{ KERNEL_COMP_XZ, 6, "\xfd" "7zXZ\0" },
		{ KERNEL_COMP_ZSTD, 4, "\x28\xb5\x2f\xfd" },
		{ KERNEL_COMP_LZ4, 4, "\x02\x21\x4c\x18" },
		{ KERNEL_COMP_BZIP2, 3, "BZh" },
		{ KERNEL_COMP_LZMA, 3, "\x5d\0\0" },
		{ KERNEL_COMP_GZIP, 2, "\x1f\x8b" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(magics); i++)
		if (len >= magics[i].len && !memcmp(p, magics[i].magic, magics[i].len))
			return magics[i].comp;
	return KERNEL_COMP_UNKNOWN;
}

static int parse_bzimage(const uint8_t *b, size_t len, const char *name,
			 struct kernel_info *ki, struct strbuf *err)
{
	uint64_t setup_size, pm_size;
	uint16_t kv;

	if (len < BZ_VERSION + 2 || get_le16(b + BZ_BOOT_FLAG) != 0xaa55)
		return not_an_image(name, err);
	ki->kind = KERNEL_KIND_BZIMAGE;
	ki->boot_protocol = get_le16(b + BZ_VERSION);
	if (ki->boot_protocol < BZ_MIN_PROTOCOL)
		return kernel_error(err, "'%s' uses boot protocol %u.%02u, QEMU needs 2.06 or later",
				   name, ki->boot_protocol >> 8, ki->boot_protocol & 0xff);

	ki->setup_sects = b[BZ_SETUP_SECTS] ? b[BZ_SETUP_SECTS] : 4;
	setup_size = ((uint64_t)ki->setup_sects + 1) * 512;
	if (setup_size > len)
		return kernel_error(err, "'%s' is truncated (the setup code needs %llu bytes, "
				   "the file has %zu)", name, (unsigned long long)setup_size, len);
	/* From here on every header field (all below 0x250) lies inside the
	 * setup area, which is at least 1024 bytes. */
	pm_size = (uint64_t)get_le32(b + BZ_SYSSIZE) * 16;
	if (setup_size + pm_size > len)
		return kernel_error(err, "'%s' is truncated (the header promises %llu bytes, "
				   "the file has %zu)", name,
				   (unsigned long long)(setup_size + pm_size), len);
	ki->loadflags = b[BZ_LOADFLAGS];

	kv = get_le16(b + BZ_KERNEL_VERSION);
	if (kv && (uint64_t)kv + 0x200 < setup_size)
		copy_banner(ki->version, sizeof(ki->version), b + kv + 0x200, b + setup_size);
	set_release(ki);

	ki->compression = KERNEL_COMP_UNKNOWN;
	if (ki->boot_protocol >= 0x0208) {
		uint64_t start, end;

		ki->payload_offset = get_le32(b + BZ_PAYLOAD_OFFSET);
		ki->payload_length = get_le32(b + BZ_PAYLOAD_LENGTH);
		start = setup_size + ki->payload_offset;
		end = start + ki->payload_length;
		if (end > len)
			return kernel_error(err, "'%s' is truncated or damaged (its payload ends at "
					   "byte %llu, the file has %zu)", name,
					   (unsigned long long)end, len);
		ki->payload_file_offset = start;
		ki->compression = detect_comp(b + start, ki->payload_length);
	}
	return 0;
}

/* Looks for the Xen PVH entry note in one PT_NOTE segment. */
static void scan_notes(const uint8_t *p, uint64_t size, struct kernel_info *ki)
{
	while (size >= 12) {
		uint64_t namesz = get_le32(p), descsz = get_le32(p + 4);
		uint32_t type = get_le32(p + 8);
		uint64_t name_pad = (namesz + 3) & ~3ull, desc_pad = (descsz + 3) & ~3ull;

		p += 12;
		size -= 12;
		if (name_pad > size || desc_pad > size - name_pad)
			return;
		if (namesz == 4 && !memcmp(p, "Xen", 4) &&
		    type == XEN_ELFNOTE_PHYS32_ENTRY && descsz >= 4) {
			ki->pvh = 1;
			ki->pvh_entry = get_le32(p + name_pad);
		}
		p += name_pad + desc_pad;
		size -= name_pad + desc_pad;
	}
}

static void find_linux_banner(const uint8_t *b, size_t len, struct kernel_info *ki)
{
	static const char tag[] = "Linux version ";
	const uint8_t *p = b, *end = b + len;

	while ((p = memmem(p, (size_t)(end - p), tag, sizeof(tag) - 1))) {
		p += sizeof(tag) - 1;
		if (p < end && isdigit(*p)) {
			copy_banner(ki->version, sizeof(ki->version), p, end);
			break;
		}
	}
	set_release(ki);
}

static int parse_elf(const uint8_t *b, size_t len, const char *name,
		     struct kernel_info *ki, struct strbuf *err)
{
	uint64_t phoff;
	unsigned phentsize, phnum, type, loads = 0;

	if (len < ELF_EHDR_SIZE)
		return kernel_error(err, "'%s' is a truncated ELF file (%zu bytes)", name, len);
	/* ELFCLASS64, little-endian, EM_X86_64 */
	if (b[4] != 2 || b[5] != 1 || get_le16(b + 18) != ELF_EM_X86_64)
		return not_an_image(name, err);
	type = get_le16(b + 16);
	if (type != ELF_ET_EXEC)
		return kernel_error(err, "'%s' is an x86-64 ELF file but not an executable "
				   "kernel (ELF type %u)", name, type);
	ki->kind = KERNEL_KIND_ELF;
	ki->compression = KERNEL_COMP_NONE;
	ki->entry = get_le64(b + 24);
	phoff = get_le64(b + 32);
	phentsize = get_le16(b + 54);
	phnum = get_le16(b + 56);
	if (!phnum || phentsize < ELF_PHDR_SIZE || phoff > len ||
	    (uint64_t)phnum * phentsize > len - phoff)
		return kernel_error(err, "'%s' is a damaged ELF file (program headers "
				   "missing or past its end)", name);
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = b + phoff + (uint64_t)i * phentsize;
		uint32_t ptype = get_le32(ph);
		uint64_t off = get_le64(ph + 8), filesz = get_le64(ph + 32);

		if (ptype == ELF_PT_LOAD)
			loads++;
		if (off > len || filesz > len - off)
			return kernel_error(err, "'%s' is truncated or damaged (segment %u "
					   "lies past its end)", name, i);
		if (ptype == ELF_PT_NOTE)
			scan_notes(b + off, filesz, ki);
	}
	if (!loads)
		return kernel_error(err, "'%s' is an x86-64 ELF file without loadable "
				   "segments", name);
	find_linux_banner(b, len, ki);
	return 0;
}

int kernel_parse_image(const void *buf, size_t len, const char *name,
		       struct kernel_info *ki, struct strbuf *err)
{
	const uint8_t *b = buf;

	memset(ki, 0, sizeof(*ki));
	if (len >= BZ_HEADER + 4 && !memcmp(b + BZ_HEADER, "HdrS", 4))
		return parse_bzimage(b, len, name, ki, err);
	if (len >= 4 && !memcmp(b, "\x7f" "ELF", 4))
		return parse_elf(b, len, name, ki, err);
	return not_an_image(name, err);
}

/* A read-only mapping of a whole file. */
struct mapped_file {
	const uint8_t *buf;
	size_t len;
};

static int map_file(const char *path, struct mapped_file *mf, struct strbuf *err)
{
	struct stat st;
	int fd;

	mf->buf = NULL;
	mf->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return kernel_error(err, "kernel '%s' does not exist", path);
		return kernel_error(err, "cannot open kernel '%s': %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		kernel_error(err, "cannot stat kernel '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return not_an_image(path, err);
	}
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			kernel_error(err, "cannot map kernel '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		mf->buf = p;
		mf->len = (size_t)st.st_size;
	}
	close(fd);
	return 0;
}

static void unmap_file(struct mapped_file *mf)
{
	if (mf->len)
		munmap((void *)mf->buf, mf->len);
	mf->buf = NULL;
	mf->len = 0;
}

int kernel_check_bzimage(const char *path, struct kernel_info *ki, struct strbuf *err)
{
	struct mapped_file mf;
	int ret;

	memset(ki, 0, sizeof(*ki));
	if (map_file(path, &mf, err) < 0)
		return -1;
	ret = kernel_parse_image(mf.buf, mf.len, path, ki, err);
	unmap_file(&mf);
	return ret;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Streams the xz payload through liblzma into fd.  Returns 0 or -1 with err. */
static int unxz_to_fd(const char *name, const uint8_t *in, size_t in_len, int fd,
		      const char *outname, struct strbuf *err)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	uint8_t *out = xmalloc(1 << 20);
	lzma_ret lr;
	int ret = -1;

	/* The kernel's xz_wrap.sh keeps the dictionary at 32 MiB at most. */
	lr = lzma_stream_decoder(&strm, 256ull << 20, 0);
	if (lr != LZMA_OK) {
		kernel_error(err, "cannot start the xz decoder (liblzma error %d)", (int)lr);
		goto out;
	}
	strm.next_in = in;
	strm.avail_in = in_len;
	do {
		strm.next_out = out;
		strm.avail_out = 1 << 20;
		/* The payload is the xz stream plus 4 bytes of size: the decoder
		 * stops at the end of the stream, before them. */
		lr = lzma_code(&strm, strm.avail_in ? LZMA_RUN : LZMA_FINISH);
		if (lr != LZMA_OK && lr != LZMA_STREAM_END) {
			kernel_error(err, "'%s' has a damaged xz payload (liblzma error %d)",
				    name, (int)lr);
			goto out;
		}
		if (strm.total_out > KERNEL_VMLINUX_MAX) {
			kernel_error(err, "'%s' decompresses to more than %llu MiB; refusing it",
				    name, KERNEL_VMLINUX_MAX >> 20);
			goto out;
		}
		if (write_all(fd, out, (1 << 20) - strm.avail_out) < 0) {
			kernel_error(err, "cannot write '%s': %s", outname, strerror(errno));
			goto out;
		}
	} while (lr != LZMA_STREAM_END);

	/* Cross-check with the decompressed size the kernel build appended. */
	if (in_len - strm.total_in >= 4 &&
	    get_le32(in + in_len - 4) != (uint32_t)strm.total_out) {
		kernel_error(err, "'%s' has a damaged xz payload (%llu bytes decompressed, "
			    "the image says %u)", name, (unsigned long long)strm.total_out,
			    get_le32(in + in_len - 4));
		goto out;
	}
	ret = 0;
out:
	lzma_end(&strm);
	free(out);
	return ret;
}

/*
 * The zstd payload of 6.12 and later Debian kernels, streamed to fd; the
 * frame is followed by the 4 bytes of size the build appends, as for xz.
 */
static int unzstd_to_fd(const char *name, const uint8_t *in, size_t in_len, int fd,
			const char *outname, struct strbuf *err)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	size_t cap = ZSTD_DStreamOutSize(), r = 1;
	uint8_t *out = xmalloc(cap);
	ZSTD_inBuffer ib = { in, in_len, 0 };
	unsigned long long total = 0;
	int ret = -1;

	if (!ds || ZSTD_isError(ZSTD_initDStream(ds))) {
		kernel_error(err, "cannot start the zstd decoder");
		goto out;
	}
	/* the kernel's zstd_wrap keeps its window within 2^27 bytes */
	ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, 31);
	while (r) {
		ZSTD_outBuffer ob = { out, cap, 0 };

		if (ib.pos >= ib.size) {
			kernel_error(err, "'%s' has a truncated zstd payload", name);
			goto out;
		}
		r = ZSTD_decompressStream(ds, &ob, &ib);
		if (ZSTD_isError(r)) {
			kernel_error(err, "'%s' has a damaged zstd payload (%s)", name, ZSTD_getErrorName(r));
			goto out;
		}
		total += ob.pos;
		if (total > KERNEL_VMLINUX_MAX) {
			kernel_error(err, "'%s' decompresses to more than %llu MiB; refusing it",
				    name, KERNEL_VMLINUX_MAX >> 20);
			goto out;
		}
		if (write_all(fd, out, ob.pos) < 0) {
			kernel_error(err, "cannot write '%s': %s", outname, strerror(errno));
			goto out;
		}
	}
	if (in_len - ib.pos >= 4 && get_le32(in + in_len - 4) != (uint32_t)total) {
		kernel_error(err, "'%s' has a damaged zstd payload (%llu bytes decompressed, "
			    "the image says %u)", name, total, get_le32(in + in_len - 4));
		goto out;
	}
	ret = 0;
out:
	ZSTD_freeDStream(ds);
	free(out);
	return ret;
}

int kernel_extract_vmlinux(const char *bzimage, const char *out, struct strbuf *err)
{
	struct kernel_info ki, vk;
	struct mapped_file mf;
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret = -1;

	if (map_file(bzimage, &mf, err) < 0)
		return -1;
	if (kernel_parse_image(mf.buf, mf.len, bzimage, &ki, err) < 0)
		goto out;
	if (ki.kind != KERNEL_KIND_BZIMAGE) {
		kernel_error(err, "'%s' is already an ELF vmlinux", bzimage);
		ret = 1;
		goto out;
	}
	if (ki.compression != KERNEL_COMP_XZ && ki.compression != KERNEL_COMP_ZSTD) {
		kernel_error(err, "'%s' has a %s payload; only xz and zstd are extracted", bzimage,
			    kernel_comp_name(ki.compression));
		ret = 1;
		goto out;
	}

	strbuf_addf(&tmp, "%s.tmp.%ld", out, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		kernel_error(err, "cannot create '%s': %s", tmp.buf, strerror(errno));
		goto out;
	}
	if ((ki.compression == KERNEL_COMP_XZ ? unxz_to_fd : unzstd_to_fd)(bzimage,
			mf.buf + ki.payload_file_offset, ki.payload_length, fd, tmp.buf, err) < 0) {
		close(fd);
		unlink(tmp.buf);
		goto out;
	}
	if (close(fd) < 0) {
		kernel_error(err, "cannot write '%s': %s", tmp.buf, strerror(errno));
		unlink(tmp.buf);
		goto out;
	}
	if (kernel_check_bzimage(tmp.buf, &vk, err) < 0 || vk.kind != KERNEL_KIND_ELF) {
		kernel_error(err, "the xz payload of '%s' is not an ELF vmlinux", bzimage);
		unlink(tmp.buf);
		goto out;
	}
	if (rename(tmp.buf, out) < 0) {
		kernel_error(err, "cannot rename '%s' to '%s': %s", tmp.buf, out, strerror(errno));
		unlink(tmp.buf);
		goto out;
	}
	ret = 0;
out:
	unmap_file(&mf);
	strbuf_release(&tmp);
	return ret;
}


int kernel_is_pvh_vmlinux(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct kernel_info ki;
	int ok = is_file(path) && kernel_check_bzimage(path, &ki, &err) == 0 &&
		 ki.kind == KERNEL_KIND_ELF && ki.pvh;

	strbuf_release(&err);
	return ok;
}

const char *kernel_image_arch_of(const unsigned char *buf, size_t len)
{
	unsigned machine;

	if (len >= 20 && !memcmp(buf, "\177ELF", 4) && (buf[5] == 1 || buf[5] == 2)) {
		/* e_machine, in the file's own byte order */
		machine = buf[5] == 1 ? buf[18] | buf[19] << 8 : buf[18] << 8 | buf[19];
		switch (machine) {
		case 62: return "x86_64";
		case 183: return "arm64";
		case 21: return buf[5] == 1 ? "ppc64le" : "ppc64 (big-endian)";
		default: return NULL;
		}
	}
	if (len >= 0x206 && !memcmp(buf + 0x202, "HdrS", 4))
		return "x86_64";
	/* arm64's Image header: "ARM\x64" at 0x38 (Documentation/arm64/booting.rst) */
	if (len >= 0x3c && !memcmp(buf + 0x38, "ARM\x64", 4))
		return "arm64";
	return NULL;
}

const char *kernel_image_arch(const char *path)
{
	unsigned char buf[0x210];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? kernel_image_arch_of(buf, (size_t)n) : NULL;
}
