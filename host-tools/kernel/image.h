/* image.h - distro disk images as guests: a qcow2 overlay of the user's
 * image carrying the runner, the plan and our boot hook, read back after. */
#ifndef LAB_IMAGE_H
#define LAB_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct cpio;

/* The image's own kernel (--kernel image): paths inside the image. */
struct image_boot {
	char *kernel;             /* "/boot/vmlinuz-6.1.0-57-amd64" */
	char *initrd;             /* "/boot/initrd.img-6.1.0-57-amd64" */
	char *config;             /* "/boot/config-6.1.0-57-amd64", NULL when absent */
	char *how;                /* "/vmlinuz" (the link) or "newest /boot/vmlinuz-*" */
};

/*
 * One image run.  image_init() then set path (and the inputs); everything
 * else is filled by the calls below; image_release() frees it all and
 * deletes a temporary overlay that never reached a run directory.
 */
struct image {
	/* in */
	const char *path;         /* the user's image: never opened for writing */
	int force_tcg;            /* libguestfs appliance without KVM */
	int own_kernel;           /* --kernel image: copy the image's kernel out too */

	/* resolved */
	char *abspath;            /* realpath of path: the overlay's backing file */
	const char *format;       /* "qcow2" or "raw" */
	char *root;               /* root filesystem as the appliance sees it, "/dev/sda1" */
	char *root_guest;         /* the same as our guest sees it, "/dev/vda1" */
	char *fstype;             /* "ext4" */
	char *os;                 /* "debian 12" or "unknown linux" */
	char *overlay;            /* qcow2 backed by abspath; moves into the run dir */
	int overlay_is_temp;
	char *uuid;               /* the root filesystem's UUID, "" when it has none */
	struct image_boot boot;   /* with own_kernel */
	/* with own_kernel: copies of the image's kernel, initramfs and config
	 * (NULL when it has none); temporary files until the run dir adopts
	 * them as kernel-image, initrd-image and config-image */
	char *kernel_file, *initrd_file, *config_file;
	double prepare_s, collect_s; /* wall time of the two appliance sessions */
	uint64_t guest_records;   /* records in the image's results file */
};

void image_init(struct image *im);
void image_release(struct image *im);
/* Deletes the overlay (and the copies of the image's kernel) while they
 * are still temporary files (not yet adopted by a run directory): callers
 * that die() on an error call it first. */
void image_drop_overlay(struct image *im);

/*
 * Cheap checks before anything starts: a readable regular file with a
 * qcow2 header, or a raw disk (an MBR/GPT signature or an ext superblock,
 * a whole number of sectors).  Sets im->format and im->abspath.  -1 with
 * one line in err otherwise ("not a disk image", "cannot read").
 */
int image_probe(struct image *im, struct strbuf *err);

/* The same checks on the first bytes of a file of file_size bytes; for
 * image_probe() and the unit tests.  Returns "qcow2", "raw" or NULL. */
const char *image_sniff(const unsigned char *head, size_t len, uint64_t file_size);

/* What goes into the overlay's /schedlab/. */
struct image_payload {
	const char *runner;       /* static runner binary */
	const char *busybox;      /* static busybox: the hook needs no distro tools */
	const char *hook;         /* our init hook script (guest/image/init) */
	const char *plan;         /* compiled plan, or NULL for a topology probe */
	size_t plan_len;
};

/*
 * Inspects the image with libguestfs (read-only), finds its root
 * filesystem, creates a qcow2 overlay in <cache>/tmp backed by it and
 * copies the payload into /schedlab of the overlay.  With own_kernel, also
 * finds the image's default kernel and initramfs (image_boot_choose()) and
 * copies them out into <cache>/tmp.  -1 with one line in err when there is
 * no usable root filesystem, no kernel or initramfs (with own_kernel), or
 * the overlay cannot be written; the user's image is only ever read.
 */
int image_prepare(struct image *im, const struct image_payload *pl, struct strbuf *err);

/*
 * The default boot entry of a Debian-like image, from what its links
 * resolve to and what /boot holds:
 *   vmlinuz_link  where /vmlinuz (or /boot/vmlinuz) leads in the image,
 *                 an absolute path to a regular file; NULL when absent
 *   initrd_link   the same for /initrd.img (or /boot/initrd.img)
 *   boot_names    the names of the regular files in /boot, NULL-terminated
 * The link wins; without it, the newest /boot/vmlinuz-<v> (version order)
 * with /boot/initrd.img-<v>.  Fills out (free with image_boot_release()),
 * or returns -1 with one line in err saying what was looked for.
 */
int image_boot_choose(const char *vmlinuz_link, const char *initrd_link,
		      const char *const *boot_names, struct image_boot *out,
		      struct strbuf *err);
void image_boot_release(struct image_boot *b);

/* Moves the overlay into dir (image.qcow2), and the copies of the image's
 * kernel as kernel-image, initrd-image, config-image: the run keeps them. */
int image_adopt_overlay(struct image *im, const char *dir, struct strbuf *err);

/*
 * After the guest powered off: copies /schedlab/results/records.bin out of
 * the overlay into dir/image-records.bin and compares its records with
 * dir/records.bin (what arrived over the record channel).  Returns 0 when
 * they agree, 1 when they do not (why says how), -1 when the results could
 * not be read at all (why says why).
 */
int image_collect(struct image *im, const char *dir, struct strbuf *why);

/*
 * Compares two record streams record by record (sequence, type, payload),
 * in order.  Returns 0 when they hold the same records, 1 otherwise with
 * one line in why; *nr_a gets the number of intact records in a.
 */
int image_records_compare(const void *a, size_t alen, const void *b, size_t blen,
			  uint64_t *nr_a, struct strbuf *why);

/*
 * The modules the kernel needs to mount a virtio disk's ext4 root, from a
 * modules.dep text: every module in `want` (names like "virtio_blk") and
 * its dependencies, dependencies first, each once, as paths relative to
 * the modules directory appended to out.  -1 with err when a wanted module
 * is not in the file.
 */
int image_modules_order(const char *dep, size_t len, const char *const *want,
			struct strvec *out, struct strbuf *err);

/*
 * The options (CONFIG_VIRTIO_PCI, CONFIG_VIRTIO_BLK, CONFIG_EXT4_FS,
 * CONFIG_BLOCK, CONFIG_MSDOS_PARTITION) a .config text lacks: appends
 * "CONFIG_A, CONFIG_B are" (or "CONFIG_A is") to missing and returns how
 * many; 0 when the kernel can mount an image's root.
 */
int image_config_missing(const char *config, struct strbuf *missing);

/*
 * Adds to c what turns the lab's initrd into one that boots the image:
 * /init (guest/image/stage1: load modules, mount the root, switch_root to
 * /schedlab/init) and, for what the kernel config has as modules, the .ko
 * files from modules (the kernel's lib/modules/<release>: kernel_paths'
 * modules, kept from its package or build).  -1 with one line in err when
 * the kernel cannot mount the root at all or its modules are not there.
 */
int image_initrd_add(const char *release, const char *config, const char *modules,
		     struct cpio *c, struct strbuf *err);

#endif
