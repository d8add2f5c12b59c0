/* kernel.h - the guest kernel: validating bzImage/vmlinux files, extracting
 * a PVH-bootable vmlinux, fetching Debian's kernel, reading its config. */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <limits.h>
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

/*
 * A resolved kernel: plain data, nothing to free; kernel_resolve() and
 * kernel_fetch_debian() fill every field ("" when absent).
 *   bzimage  the bzImage, "" when the kernel was given as a vmlinux
 *   vmlinux  an ELF with a PVH note, bootable with -kernel without
 *            decompression; "" when there is none
 *   config   the kernel's .config, "" when not found
 *   release  e.g. "6.1.0-57-amd64"
 *   source   "debian", "path" or "build" (a cache key of lab kernel build)
 */
struct kernel_paths {
	char bzimage[PATH_MAX];
	char vmlinux[PATH_MAX];
	char config[PATH_MAX];
	char release[KERNEL_VERSION_MAX];
	char source[16];
};

/* What to pass to QEMU's -kernel: the vmlinux when there is one (it boots
 * ~2 s faster under TCG), else the bzImage. */
const char *kernel_paths_boot_image(const struct kernel_paths *kp);

/*
 * Debian's default kernel, cached in <lab_cache_dir()>/kernels/debian/<pkg>/
 * (vmlinuz, vmlinux, config, info).  The first call downloads the package
 * named by linux-image-amd64's dependency with apt-get and unpacks it; the
 * cache directory appears only once complete.  Returns 0 or -1 with err.
 */
int kernel_fetch_debian(struct kernel_paths *kp, struct strbuf *err);

/*
 * From `apt-cache depends linux-image-amd64` output, the versioned package
 * ("linux-image-6.1.0-57-amd64") into pkg.  Returns 0, or -1 when there is
 * no such dependency.
 */
int kernel_parse_apt_depends(const char *text, struct strbuf *pkg);

/*
 * spec NULL, "" or "debian": kernel_fetch_debian().  8 to 16 hex digits that
 * name no file: the key (or a unique prefix of it) of a kernel built by
 * kbuild_build(), from <cache>/kernels/built/<key>/.  Otherwise a path to a
 * bzImage, a vmlinux or a kernel build tree (its arch/x86/boot/bzImage).  An
 * xz bzImage gets a cached vmlinux in <cache>/kernels/extracted/<hash>/.
 * Returns 0, or -1 with one line in err and nothing written.
 */
int kernel_resolve(const char *spec, struct kernel_paths *kp, struct strbuf *err);

/*
 * 1 when config_path sets option ("CONFIG_FOO" or "FOO") to y or m, 0 when
 * it is unset, n or another value, -1 when the file cannot be read.
 */
int kernel_config_has(const char *config_path, const char *option);

/*
 * The value config_path gives option, as written (CONFIG_HZ=250 gives
 * "250", a string keeps its quotes): 1 with it in value, 0 when the
 * option is absent or "is not set", -1 when the file cannot be read.
 */
int kernel_config_value(const char *config_path, const char *option, struct strbuf *value);

#endif
