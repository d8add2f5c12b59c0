/* topo-qemu.c - the topology part of a QEMU 7.2 command line: accelerator,
 * CPU model, -smp, memory and the NUMA layout. */
#include "topo/topo.h"

/*
 * QEMU numbers vCPUs socket, die, core, thread from the outside in, and
 * the guest keeps that order, so node n (n < sockets * nps) holds a
 * contiguous run of CPUs: the dies (LLCs) [k * dies/nps, (k+1) * dies/nps)
 * of socket n / nps, k = n % nps.
 */
void topo_qemu_argv(const struct topo *t, enum lab_accel accel, unsigned flags,
		    struct strvec *out)
{
	unsigned dies = topo_llcs_per_socket(t);
	unsigned cpu_nodes = t->sockets * t->nps;

	if (accel == ACCEL_KVM) {
		strvec_pushl(out, "-accel", "kvm", "-cpu",
			     flags & TOPO_QEMU_HOST_AMD ? "host,topoext=on" : "host", NULL);
	} else {
		/*
		 * TCG's AMD models lose topoext, and with it SMT siblings and
		 * per-CCX L3 sharing; an Intel vendor keeps both, with L3
		 * shared per QEMU die, so one die models one LLC.
		 */
		strvec_pushl(out, "-accel", flags & TOPO_QEMU_TCG_SINGLE ? "tcg,thread=single" :
			     "tcg,thread=multi", "-cpu", "max,vendor=GenuineIntel", NULL);
	}
	strvec_push(out, "-smp");
	if (t->hotplug)
		/* the empty slots are what query-hotpluggable-cpus offers */
		strvec_pushf(out, "cpus=%u,maxcpus=%u,sockets=%u,dies=%u,cores=%u,threads=%u",
			     topo_boot_cpus(t), topo_nr_cpus(t), t->sockets, dies, t->llc, t->threads);
	else
		strvec_pushf(out, "%u,sockets=%u,dies=%u,cores=%u,threads=%u",
			     topo_nr_cpus(t), t->sockets, dies, t->llc, t->threads);
	strvec_push(out, "-m");
	strvec_pushf(out, "%lluM", (unsigned long long)topo_total_mem_mib(t));
	if (t->nr_nodes == 1)
		return;

	for (unsigned n = 0; n < t->nr_nodes; n++) {
		uint64_t mib = n < cpu_nodes ? t->node_mem_mib : t->memnode_mem_mib;

		strvec_push(out, "-object");
		strvec_pushf(out, "memory-backend-ram,id=mem%u,size=%lluM", n, (unsigned long long)mib);
		strvec_push(out, "-numa");
		strvec_pushf(out, "node,nodeid=%u,memdev=mem%u", n, n);
	}
	/*
	 * With one node per socket, place whole sockets: QEMU refuses die-id
	 * when there is a single die per socket.  With nps > 1 there are
	 * always several dies per socket.
	 */
	for (unsigned s = 0; s < t->sockets; s++) {
		if (t->nps == 1) {
			strvec_push(out, "-numa");
			strvec_pushf(out, "cpu,node-id=%u,socket-id=%u", s, s);
			continue;
		}
		for (unsigned d = 0; d < dies; d++) {
			strvec_push(out, "-numa");
			strvec_pushf(out, "cpu,node-id=%u,socket-id=%u,die-id=%u",
				     s * t->nps + d / (dies / t->nps), s, d);
		}
	}
	/* topo_parse() only accepts symmetric matrices: QEMU mirrors a->b */
	for (unsigned a = 0; a < t->nr_nodes; a++) {
		for (unsigned b = a + 1; b < t->nr_nodes; b++) {
			strvec_push(out, "-numa");
			strvec_pushf(out, "dist,src=%u,dst=%u,val=%u", a, b, t->dist[a][b]);
		}
	}
}
