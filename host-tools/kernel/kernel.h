/* kernel.h - the guest kernel: fetching Debian's kernel, resolving what
 * --kernel names to bootable files, reading its config. */
#ifndef LAB_KERNEL_H
#define LAB_KERNEL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/kimage.h"
#include "lib/util.h"
#include "topo/topo.h"

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
	/* lib/modules/<release> of this kernel (modules.dep and the .ko
	 * tree): the package's, kept beside the vmlinuz, or the build's
	 * modules_install; "" when the kernel has none the lab knows of */
	char modules[PATH_MAX];
	/* another arch's device trees (<vendor>/<board>.dtb under it):
	 * Debian's package's, kept beside the image; "" when none */
	char dtbs[PATH_MAX];
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
 * The same for arch, from its meta package (topo_arch_info()->kernel_meta,
 * e.g. linux-image-arm64:arm64; needs `dpkg --add-architecture`).  For
 * arm64 kp->bzimage is the Image (vmlinuz), for ppc64le kp->vmlinux is
 * the ELF; neither is checked as an x86 bzImage.
 */
int kernel_fetch_debian_arch(enum topo_arch arch, struct kernel_paths *kp, struct strbuf *err);

/*
 * A kernel of Debian's archive named by version: "debian:6.12",
 * "debian:7.2-rt", "debian:latest" (debarchive_parse_spec()), the newest
 * package of that series and flavour any suite of the lab's own apt
 * configuration carries, for arch.  Cached like Debian 12's default
 * kernel in <cache>/kernels/debian/<pkg>/; 7.x's split packages
 * (linux-binary-, linux-modules-, linux-base-) are unpacked into one
 * entry.  A series no suite has: one line naming the ones that exist.
 */
int kernel_fetch_named(const char *spec, enum topo_arch arch, struct kernel_paths *kp,
		       struct strbuf *err);

/* The single entry of dir whose name starts with prefix and ends with
 * suffix, as a path into path; -1 when there is none or more than one. */
int kernel_find_one(const char *dir, const char *prefix, const char *suffix, struct strbuf *path);

/*
 * busybox-static of arch (Debian's, <cache>/busybox/<dpkg arch>/busybox,
 * downloaded and unpacked once) into path.  0, or -1 with one line in err.
 */
int kernel_fetch_busybox(enum topo_arch arch, struct strbuf *path, struct strbuf *err);

/*
 * From `apt-cache depends linux-image-amd64` output, the versioned package
 * ("linux-image-6.1.0-57-amd64") into pkg.  Returns 0, or -1 when there is
 * no such dependency.
 */
int kernel_parse_apt_depends(const char *text, struct strbuf *pkg);

/*
 * spec NULL, "" or "debian": kernel_fetch_debian(); "debian:6.12" and the
 * like: kernel_fetch_named().  8 to 16 hex digits that
 * name no file: the key (or a unique prefix of it) of a kernel built by
 * kbuild_build(), from <cache>/kernels/built/<key>/.  Otherwise a path to a
 * bzImage, a vmlinux or a kernel build tree (its arch/x86/boot/bzImage).  An
 * xz bzImage gets a cached vmlinux in <cache>/kernels/extracted/<hash>/.
 * Returns 0, or -1 with one line in err and nothing written.
 */
int kernel_resolve(const char *spec, struct kernel_paths *kp, struct strbuf *err);
/*
 * kernel_resolve() for a guest of arch.  Other arches than x86_64 take
 * "debian" (the default) or a path to a kernel image QEMU boots as it is
 * (arm64: Image, ppc64le: vmlinux ELF); built kernels are x86_64 only.
 */
int kernel_resolve_arch(const char *spec, enum topo_arch arch, struct kernel_paths *kp,
			struct strbuf *err);

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
