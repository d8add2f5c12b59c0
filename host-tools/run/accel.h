/* accel.h - ACCEL=auto|tcg|kvm: a KVM is trusted only once a guest has
 * booted under it; the answer is cached per host, QEMU and /dev/kvm. */
#ifndef LAB_ACCEL_H
#define LAB_ACCEL_H

#include "lib/util.h"
#include "topo/topo.h"

/* What the lab knows about KVM on this host (accel_probe()). */
struct accel_probe {
	int dev_kvm;          /* /dev/kvm exists */
	int works;            /* a guest booted to its first record under KVM */
	int cached;           /* the answer came from the cache, not a probe now */
	double probe_s;       /* what the probe cost when it ran */
	char why[400];        /* !works: one line, e.g. "guest stopped with
			       * 'KVM internal error. Suberror: 1' in the probe" */
	char key[512];        /* host kernel, QEMU, CPU model, /dev/kvm device */
	char cache_file[4096];
	char date[32];        /* when it was probed, UTC */
};

/*
 * Whether KVM can run the lab's guests here.  Without /dev/kvm: not, at
 * once.  Else the cache answers, or a probe does: QEMU's query-kvm, then
 * the lab's own Debian kernel and initrd on 1 vCPU booted under KVM to
 * its first record, within ACCEL_PROBE_S (fetching that kernel first if
 * needed).  reprobe: ignore the cache.  -1 with err only when the probe
 * could not be made at all (no kernel, no initrd).
 */
#define ACCEL_PROBE_S 15
int accel_probe(struct accel_probe *ap, int reprobe, struct strbuf *err);

/*
 * Resolves ACCEL=auto|tcg|kvm.  auto falls back to TCG where KVM fails,
 * with one line in note naming why (note stays empty where there is no
 * /dev/kvm at all); kvm where KVM fails is -1 with one line in err.
 */
int accel_resolve(const char *want, enum lab_accel *out, struct strbuf *note, struct strbuf *err);

#endif
