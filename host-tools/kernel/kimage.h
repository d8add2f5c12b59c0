/* kimage.h - kernel image files: validating bzImage/vmlinux headers and
 * extracting the PVH-bootable vmlinux from an xz bzImage. */
#ifndef LAB_KIMAGE_H
#define LAB_KIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

enum kernel_kind {
	KERNEL_KIND_NONE,
	KERNEL_KIND_BZIMAGE,    /* x86 boot protocol image (vmlinuz) */
	KERNEL_KIND_ELF,        /* x86-64 ELF executable (vmlinux) */
};

enum kernel_comp {
	KERNEL_COMP_UNKNOWN,    /* no payload fields, or magic not recognised */
	KERNEL_COMP_NONE,       /* an ELF vmlinux: nothing to decompress */
	KERNEL_COMP_GZIP,
	KERNEL_COMP_XZ,
	KERNEL_COMP_ZSTD,
	KERNEL_COMP_LZMA,
	KERNEL_COMP_LZ4,
	KERNEL_COMP_BZIP2,
};

#define KERNEL_VERSION_MAX 256

/* What kernel_parse_image() learned; plain data, nothing to free. */
struct kernel_info {
	enum kernel_kind kind;
	/* The banner: "6.1.0-57-amd64 (debian-kernel@...) #1 SMP ..." for a
	 * bzImage, the same after "Linux version " for a vmlinux; "" if absent. */
	char version[KERNEL_VERSION_MAX];
	char release[KERNEL_VERSION_MAX]; /* first word of version */

	/* bzImage only */
	unsigned boot_protocol;   /* 0x020f for 2.15 */
	unsigned setup_sects;     /* 0 in the header already mapped to 4 */
	unsigned loadflags;
	uint32_t payload_offset;  /* as in the header: from the protected-mode code */
	uint32_t payload_length;
	uint64_t payload_file_offset; /* where the payload starts in the file */
	enum kernel_comp compression;

	/* ELF only */
	uint64_t entry;
	int pvh;                  /* has a Xen PVH entry note: QEMU -kernel boots it */
	uint32_t pvh_entry;
};

const char *kernel_kind_name(enum kernel_kind kind);
const char *kernel_comp_name(enum kernel_comp comp);

/*
 * Parses an image held in memory.  name is only used in messages.  Every
 * offset read from the image is checked against len.  Returns 0 and fills ki,
 * or -1 with one line in err.
 */
int kernel_parse_image(const void *buf, size_t len, const char *name,
		       struct kernel_info *ki, struct strbuf *err);

/* kernel_parse_image() on a file (mapped, not read).  A missing file gives
 * "kernel 'X' does not exist". */
int kernel_check_bzimage(const char *path, struct kernel_info *ki, struct strbuf *err);

/* Decompressed vmlinux images larger than this are refused as damaged. */
#define KERNEL_VMLINUX_MAX (512ull << 20)

/*
 * Decompresses the xz payload of bzImage into an ELF vmlinux at out (via a
 * temporary file and rename()).  Returns 0 when written, 1 when the payload
 * is not xz (nothing written: boot the bzImage), -1 with one line in err.
 */
int kernel_extract_vmlinux(const char *bzimage, const char *out, struct strbuf *err);

/* 1 when path is an x86-64 ELF vmlinux with the PVH entry note, one QEMU's
 * -kernel boots without decompression; 0 otherwise (also when missing). */
int kernel_is_pvh_vmlinux(const char *path);

/*
 * The architecture a kernel image is for, from its first bytes: an ELF's
 * e_machine and byte order, x86's "HdrS" boot header, arm64's Image magic.
 * "x86_64", "arm64", "ppc64le", "ppc64 (big-endian)", or NULL when the
 * bytes say nothing (another format, a compressed image, a short file).
 */
const char *kernel_image_arch_of(const unsigned char *buf, size_t len);
/* The same for the file at path (NULL when it cannot be read). */
const char *kernel_image_arch(const char *path);

/* Resets err to one line from fmt and returns -1: the kernel module's
 * way to fail with a message. */
int kernel_error(struct strbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
