/* lavajob.h - a LAVA job definition for LAVA's qemu device type that boots
 * the lab's kernel and initrd on a topology (lab lava export). */
#ifndef LAB_LAVAJOB_H
#define LAB_LAVAJOB_H

#include "topo/topo.h"

struct json_object;

struct lava_job_in {
	const struct topo *topo;
	enum lab_accel accel;     /* ACCEL_KVM: LAVA's default -enable-kvm -cpu host */
	const char *name;         /* job_name */
	const char *artifacts;    /* URL root: <artifacts>/<kernel>, <artifacts>/<initrd> */
	const char *kernel;       /* file names under it */
	const char *initrd;
	const char *cmdline;      /* the kernel command line (lab.records=console in it) */
	unsigned boot_s, run_s;   /* deadlines: until /init, and the plan's */
};

/*
 * The job definition as a JSON object (the caller puts it): JSON is YAML
 * 1.2, which LAVA's loader reads.  The topology's QEMU arguments (those of
 * lab topo --qemu, but -m and the binary) go into the qemu device type's
 * context: arch, memory, no_kvm, extra_options.
 */
struct json_object *lava_job_definition(const struct lava_job_in *in);

#endif
