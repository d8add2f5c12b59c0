/* pin.h - where each vCPU runs on the host (--pin): the threads of one
 * guest core on the hardware threads of one host core, the cores of one
 * guest LLC inside one host LLC.  Only the mapping; run/ applies it. */
#ifndef LAB_PIN_H
#define LAB_PIN_H

#include "topo/topo.h"
#include "lib/util.h"

struct json_object;

/* One host core: its hardware threads (online CPUs, ascending). */
struct pin_core {
	unsigned package;
	int llc;            /* the first CPU of its LLC; -1 - package without one */
	unsigned nr_threads;
	unsigned thread[8];
};

struct pin_host {
	unsigned nr_cpus;    /* online CPUs the lab may use */
	unsigned nr_cores;
	struct pin_core *core; /* ordered by package, LLC, first thread */
};

/*
 * The host's cores and LLCs from its guest view (guestview.h: "package",
 * "siblings", "llc" of each CPU), the view `lab bare --topology` reads.
 * -1 with one line in err when the view has no usable CPU list.
 */
int pin_host_from_view(struct json_object *view, struct pin_host *h, struct strbuf *err);
void pin_host_release(struct pin_host *h);

/* Drops the CPUs outside allowed (a cpulist bitmap of nbits, e.g. the
 * lab's own affinity in a cpuset) and the cores left without any. */
void pin_host_restrict(struct pin_host *h, const unsigned long *allowed, unsigned nbits);

/*
 * map[i] gets the host CPU of vCPU i (QEMU's cpu-index: socket, then LLC,
 * then core, then thread) for the topo_boot_cpus(t) vCPUs.  Each guest
 * core takes a whole host core with at least as many threads, each guest
 * LLC's cores come from one host LLC, no host CPU is used twice.  0, or -1
 * with one line in why naming the first level that does not fit (CPUs,
 * threads per core, cores, LLC).
 */
int pin_map(const struct topo *t, const struct pin_host *h, unsigned *map, struct strbuf *why);

#endif
