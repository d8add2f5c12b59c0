/* lavajob.h - a LAVA job definition for LAVA's qemu device type that boots
 * the lab's kernel and initrd on a topology (lab lava export). */
#ifndef LAB_LAVAJOB_H
#define LAB_LAVAJOB_H

#include "topo/topo.h"

struct json_object;

/* How a LAVA device type boots the lab's kernel and initrd. */
enum lava_boot {
	LAVA_BOOT_QEMU,		/* deploy to tmpfs, boot method qemu */
	LAVA_BOOT_IPXE,		/* bare metal: deploy to tftp, boot method ipxe */
	LAVA_BOOT_GRUB,		/* bare metal: deploy to tftp, boot method grub */
	LAVA_BOOT_UBOOT,	/* a board: kernel, initrd and device tree over
				 * tftp, boot method u-boot */
};

/* A device type the lab writes jobs for (docs/lava.md lists them). */
struct lava_device_type {
	const char *name;	/* LAVA's device type: the job's device_type */
	enum lava_boot boot;
	enum topo_arch arch;	/* the kernel and initrd it boots */
	const char *kernel_type;	/* tftp deploy's kernel type, or NULL */
	const char *dtb;	/* U-Boot: the board's device tree, <vendor>/<board>.dtb
				 * in the kernel package's (kernel_paths.dtbs) */
};

/* A machine of its own: the job sets no topology and no QEMU. */
static inline int lava_device_type_bare(const struct lava_device_type *dt)
{
	return dt && dt->boot != LAVA_BOOT_QEMU;
}

/* The device type called name, or NULL: the lab cannot write its job. */
const struct lava_device_type *lava_device_type_lookup(const char *name);
/* The names lava_device_type_lookup() knows, "a, b or c", for an error. */
const char *lava_device_type_names(void);
#define LAVA_DEFAULT_DEVICE_TYPE "qemu"

/* -1 with one line in err when spec (NULL: none given) does not go with
 * dt: a qemu job needs a topology, a machine of its own takes none. */
int lava_device_type_check_topo(const struct lava_device_type *dt, const char *spec, struct strbuf *err);

/*
 * A fleet's jobs over http (lab matrix and lab ab with --lava): every
 * job's files copied into publish, which a web server serves at artifacts
 * (lab lava run --publish).  Both or neither, only with lava; artifacts an
 * http(s) URL, publish a directory (made absolute into abs, PATH_MAX).
 * 0, or -1 with one line in err.
 */
int lava_fleet_publish_check(const char *lava, const char *artifacts, const char *publish, char *abs,
			     struct strbuf *err);

struct lava_job_in {
	const struct lava_device_type *dt;	/* NULL: qemu */
	const struct topo *topo;  /* qemu only: NULL for bare metal */
	enum lab_accel accel;     /* ACCEL_KVM: LAVA's default -enable-kvm -cpu host */
	const char *name;         /* job_name */
	const char *artifacts;    /* URL root: <artifacts>/<kernel>, <artifacts>/<initrd> */
	const char *kernel;       /* file names under it */
	const char *initrd;       /* U-Boot: with mkimage's ramdisk header */
	const char *dtb;          /* U-Boot: the board's device tree; else NULL */
	const char *cmdline;      /* the kernel command line (lab.records=console in it);
				   * bare metal: without console=, the device's */
	unsigned boot_s, run_s;   /* deadlines: until /init, and the plan's */
};

/*
 * The job definition as a JSON object (the caller puts it): JSON is YAML
 * 1.2, which LAVA's loader reads.  The topology's QEMU arguments (those of
 * lab topo --qemu, but -m and the binary) go into the qemu device type's
 * context: arch, memory, no_kvm, extra_options.  A bare-metal type gets
 * the kernel and initrd (and a U-Boot board its device tree) over TFTP,
 * its bootloader's "ramdisk" commands from the device type's template,
 * and the command line in the context's extra_kernel_args (x86.jinja2,
 * base-grub.jinja2, base-uboot.jinja2 read it), after the console the
 * device dictionary sets.
 */
struct json_object *lava_job_definition(const struct lava_job_in *in);

#endif
