/* vcpupin.h - --pin applied: each vCPU thread of a running guest bound to
 * the host CPU topo/pin.h chose for it, and checked again at the end. */
#ifndef LAB_VCPUPIN_H
#define LAB_VCPUPIN_H

#include "lib/util.h"

struct backend;
struct json_object;

struct vcpu_pin {
	unsigned n;         /* vCPUs to pin: the boot vCPUs */
	unsigned *cpu;      /* cpu[i]: the host CPU of QEMU cpu-index i, owned */
	long *tid;          /* tid[i]: its thread, once applied, owned */
	int strict;         /* --pin=strict: not pinned is a failed run */
	int applied;        /* every boot vCPU's thread was bound */
	int held;           /* -1: not checked; 1: every thread still had only its CPU */
	char why[256];      /* why it was not applied, or did not hold */
};

void vcpu_pin_release(struct vcpu_pin *p);

/* Binds each boot vCPU's thread (QMP query-cpus-fast) to its CPU.  -1
 * with why set when a thread is missing or cannot be bound. */
int vcpu_pin_apply(struct vcpu_pin *p, struct backend *b);

/* Sets held: each thread's affinity is still exactly its CPU. */
void vcpu_pin_check(struct vcpu_pin *p);

/* {"mode", "applied", "held", "vcpu_to_host": [..], "why"} for run.json. */
struct json_object *vcpu_pin_json(const struct vcpu_pin *p);

#endif
