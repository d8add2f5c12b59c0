/* image.h - distro disk images as guests: a qcow2 overlay of the user's
 * image carrying the runner, the plan and our boot hook, read back after. */
#ifndef LAB_IMAGE_H
#define LAB_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct cpio;

/*
 * One image run.  image_init() then set path (and the inputs); everything
 * else is filled by the calls below; image_release() frees it all and
 * deletes a temporary overlay that never reached a run directory.
 */
struct image {
	/* in */
	const char *path;         /* the user's image: never opened for writing */
	int force_tcg;            /* libguestfs appliance without KVM */

	/* resolved */
	char *abspath;            /* realpath of path: the overlay's backing file */
	const char *format;       /* "qcow2" or "raw" */
	char *root;               /* root filesystem as the appliance sees it, "/dev/sda1" */
	char *root_guest;         /* the same as our guest sees it, "/dev/vda1" */
	char *fstype;             /* "ext4" */
	char *os;                 /* "debian 12" or "unknown linux" */
	char *overlay;            /* qcow2 backed by abspath; moves into the run dir */
	int overlay_is_temp;
	double prepare_s, collect_s; /* wall time of the two appliance sessions */
	uint64_t guest_records;   /* records in the image's results file */
};

void image_init(struct image *im);
void image_release(struct image *im);
/* Deletes the overlay while it is still a temporary file (not yet adopted
 * by a run directory): callers that die() on an error call it first. */
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
 * copies the payload into /schedlab of the overlay.  -1 with one line in
 * err when there is no usable root filesystem or the overlay cannot be
 * written; the user's image is only ever read.
 */
int image_prepare(struct image *im, const struct image_payload *pl, struct strbuf *err);

/* Moves the overlay into dir (image.qcow2): the run keeps its disk. */
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
 * Adds to c what turns the lab's initrd into one that boots the image:
 * /init (guest/image/stage1: load modules, mount the root, switch_root to
 * /schedlab/init) and, for what the kernel config has as modules, the .ko
 * files from /lib/modules/<release>.  -1 with one line in err when the
 * kernel cannot mount the root at all.
 */
int image_initrd_add(const char *release, const char *config, struct cpio *c,
		     struct strbuf *err);

#endif
