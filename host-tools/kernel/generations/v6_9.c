/* Linux 6.9: the x86 topology rework; die_id counts across the machine. */
#include "kernel/kgen.h"

const struct kernel_gen kgen_v6_9 = {
	.name = "6.9",
	.since = KGEN_V(6, 9),
	.scheduler = "EEVDF",
	/* arch/x86/kernel/cpu/topology_common.c: topo.die_id =
	 * topo_shift_apicid(apicid, TOPO_DIE_DOMAIN), i.e. the APIC ID
	 * shifted by the die level's width: package bits stay in it */
	.changed = "x86 topology rework: sysfs die_id is the APIC ID above the die level "
		   "(unique across packages), no longer the die within its package",
	.die_id_global = 1,
	.pkg_level = "PKG",
	.slice_knob = "base_slice_ns",
	.task_slice = 0,
	.sched_ext = 0,
};
