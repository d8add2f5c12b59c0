/* lavaexport.h - a LAVA job and its files (kernel, initrd with the plan,
 * plan.txt, job.json) in a new directory: lab lava export, and lab lava run
 * before it submits (docs/lava.md). */
#ifndef LAB_LAVAEXPORT_H
#define LAB_LAVAEXPORT_H

#include "lib/util.h"

struct lava_export_req {
	const char *spec;		/* the qemu device type's topology; NULL on bare metal */
	const char *suite, *scenario;	/* one of them */
	const char *kernel;		/* as lab run --kernel; NULL: debian */
	const char *accel;		/* "tcg" (NULL) or "kvm" */
	const char *device_type;	/* NULL: qemu */
	const char *artifacts;		/* the URL the device downloads out's files from */
	const char *out;		/* a new directory */
	/* the boot's scheduler settings, as lab run takes them (NULL: none) */
	const char *smt;		/* "on" or "off" */
	const char *sched_feat, *sched_knob, *preempt, *append;
};

/*
 * Checks everything first (bad input: LAB_EXIT_USAGE with one line in
 * err, nothing written), then builds the directory as <out>.tmp-XXXXXX
 * and renames it: LAB_EXIT_PASS, or LAB_EXIT_FAIL with one line in err
 * and nothing left behind.
 */
int lava_export_job(const struct lava_export_req *q, struct strbuf *err);

#endif
