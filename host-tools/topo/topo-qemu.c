/* topo-qemu.c - the topology part of a QEMU 7.2 command line: accelerator,
 * CPU model, -smp, memory and the NUMA layout, per guest architecture. */
#include "topo/topo.h"

#include <string.h>

/*
 * virt has a single PL011 (ttyAMA0), so the record channel is a PCI
 * 16550 (ttyS0: 8250_pci is built into Debian's arm64 kernel, while
 * virtio-console is a module).  pseries turns every -serial into a
 * spapr-vty: hvc0 and hvc1.
 */
static const struct topo_arch_info arch_table[TOPO_ARCH_NR] = {
	[TOPO_ARCH_X86_64] = {
		.name = "x86_64", .uname = "x86_64", .qemu = "qemu-system-x86_64",
		.machine = "q35", .console = "ttyS0", .rec_device = NULL,
		.rec_tty = "/dev/ttyS1", .dpkg_arch = "amd64",
		.kernel_meta = "linux-image-amd64", .max_cpus = TOPO_MAX_CPUS,
		.tcg_max_threads = 256, .kvm_max_threads = 256, .threads_why = "QEMU's limit",
	},
	[TOPO_ARCH_ARM64] = {
		.name = "arm64", .uname = "aarch64", .qemu = "qemu-system-aarch64",
		.machine = "virt,gic-version=3", .console = "ttyAMA0",
		.rec_device = "pci-serial", .rec_tty = "/dev/ttyS0", .dpkg_arch = "arm64",
		.kernel_meta = "linux-image-arm64:arm64", .max_cpus = 256,
		/*
		 * virt describes no caches, so the LLC (and MC) of Debian's 6.1
		 * is the CPU alone, narrower than SMT siblings: the guest says
		 * "BUG: arch topology borken" (seen with 2s2c2t,llc=1).
		 */
		.tcg_max_threads = 1, .kvm_max_threads = 1,
		.threads_why = "virt describes no shared cache, so SMT siblings break the guest's MC level (\"arch topology borken\"): use 1 thread",
	},
	[TOPO_ARCH_PPC64LE] = {
		.name = "ppc64le", .uname = "ppc64le", .qemu = "qemu-system-ppc64",
		.machine = "pseries", .console = "hvc0", .rec_device = NULL,
		.rec_tty = "/dev/hvc1", .dpkg_arch = "ppc64el",
		.kernel_meta = "linux-image-powerpc64le:ppc64el", .max_cpus = 1024,
		/* "TCG cannot support more than 1 thread/core on a pseries machine" */
		.tcg_max_threads = 1, .kvm_max_threads = 8,
		.threads_why = "QEMU 7.2's pseries has no SMT under TCG: use 1 thread, or KVM on a POWER host",
	},
};

const struct topo_arch_info *topo_arch_info(enum topo_arch arch)
{
	return &arch_table[arch < TOPO_ARCH_NR ? arch : TOPO_ARCH_X86_64];
}

int topo_arch_parse(const char *name, enum topo_arch *out, struct strbuf *err)
{
	static const struct {
		const char *alias;
		enum topo_arch arch;
	} aliases[] = {
		{ "x86_64", TOPO_ARCH_X86_64 }, { "amd64", TOPO_ARCH_X86_64 },
		{ "arm64", TOPO_ARCH_ARM64 }, { "aarch64", TOPO_ARCH_ARM64 },
		{ "ppc64le", TOPO_ARCH_PPC64LE }, { "ppc64el", TOPO_ARCH_PPC64LE },
	};

	for (size_t i = 0; name && i < ARRAY_SIZE(aliases); i++) {
		if (!strcmp(name, aliases[i].alias)) {
			*out = aliases[i].arch;
			return 0;
		}
	}
	if (err) {
		strbuf_reset(err);
		strbuf_addf(err, "unknown arch '%s' (x86_64, arm64 or ppc64le)", name ? name : "");
	}
	return -1;
}

static void push_memory_nodes(const struct topo *t, struct strvec *out)
{
	unsigned cpu_nodes = t->sockets * t->nps;

	for (unsigned n = 0; n < t->nr_nodes; n++) {
		uint64_t mib = n < cpu_nodes ? t->node_mem_mib : t->memnode_mem_mib;

		strvec_push(out, "-object");
		strvec_pushf(out, "memory-backend-ram,id=mem%u,size=%lluM", n, (unsigned long long)mib);
		strvec_push(out, "-numa");
		strvec_pushf(out, "node,nodeid=%u,memdev=mem%u", n, n);
	}
}

/* -m; returns whether there are NUMA nodes to describe. */
static int push_memory_size(const struct topo *t, struct strvec *out)
{
	strvec_push(out, "-m");
	strvec_pushf(out, "%lluM", (unsigned long long)topo_total_mem_mib(t));
	return t->nr_nodes > 1;
}

static void push_distances(const struct topo *t, struct strvec *out)
{
	/* topo_parse() only accepts symmetric matrices: QEMU mirrors a->b */
	for (unsigned a = 0; a < t->nr_nodes; a++) {
		for (unsigned b = a + 1; b < t->nr_nodes; b++) {
			strvec_push(out, "-numa");
			strvec_pushf(out, "dist,src=%u,dst=%u,val=%u", a, b, t->dist[a][b]);
		}
	}
}

/*
 * Nodes, their CPUs and distances when a node holds whole groups (x86
 * dies, arm64 clusters) of one socket.  With one node per socket, whole
 * sockets are placed: QEMU refuses die-id when a socket has a single die.
 * With nps > 1 there are always several groups per socket.
 */
static void push_numa_groups(const struct topo *t, unsigned groups, const char *key,
			     struct strvec *out)
{
	push_memory_nodes(t, out);
	for (unsigned s = 0; s < t->sockets; s++) {
		if (t->nps == 1) {
			strvec_push(out, "-numa");
			strvec_pushf(out, "cpu,node-id=%u,socket-id=%u", s, s);
			continue;
		}
		for (unsigned g = 0; g < groups; g++) {
			strvec_push(out, "-numa");
			strvec_pushf(out, "cpu,node-id=%u,socket-id=%u,%s=%u",
				     s * t->nps + g / (groups / t->nps), s, key, g);
		}
	}
	push_distances(t, out);
}

static void push_accel(enum lab_accel accel, unsigned flags, const char *tcg_cpu,
		       struct strvec *out)
{
	if (accel == ACCEL_KVM)
		strvec_pushl(out, "-accel", "kvm", "-cpu", "host", NULL);
	else
		strvec_pushl(out, "-accel", flags & TOPO_QEMU_TCG_SINGLE ? "tcg,thread=single" :
			     "tcg,thread=multi", "-cpu", tcg_cpu, NULL);
}

/*
 * arm64 virt: an LLC of the model is one QEMU cluster.  QEMU writes
 * socket/cluster/core/thread into the device tree's cpu-map and the guest
 * shows it as cluster_cpus; it describes no caches, so the guest's last
 * level cache is each CPU's own L1 (topo-view.c expects exactly that).
 * A node holds whole clusters of one socket.
 */
static void arm64_argv(const struct topo *t, enum lab_accel accel, unsigned flags,
		       struct strvec *out)
{
	unsigned clusters = topo_llcs_per_socket(t);

	/* cortex-a72: no SVE or pointer authentication to emulate */
	push_accel(accel, flags, "cortex-a72", out);
	strvec_push(out, "-smp");
	strvec_pushf(out, "%u,sockets=%u,clusters=%u,cores=%u,threads=%u",
		     topo_nr_cpus(t), t->sockets, clusters, t->llc, t->threads);
	if (push_memory_size(t, out))
		push_numa_groups(t, clusters, "cluster-id", out);
}

/*
 * ppc64 pseries: sockets become chips (ibm,chip-id), threads SMT
 * siblings; a node is placed by whole cores, named by the index of
 * their first thread (pseries hot-plugs cores, not sockets).
 */
static void ppc64_argv(const struct topo *t, enum lab_accel accel, unsigned flags,
		       struct strvec *out)
{
	unsigned cores = t->sockets * t->cores, per_node = cores / (t->sockets * t->nps);

	push_accel(accel, flags, "power9", out);
	strvec_push(out, "-smp");
	strvec_pushf(out, "%u,sockets=%u,cores=%u,threads=%u",
		     topo_nr_cpus(t), t->sockets, t->cores, t->threads);
	if (!push_memory_size(t, out))
		return;
	push_memory_nodes(t, out);
	for (unsigned c = 0; c < cores; c++) {
		strvec_push(out, "-numa");
		strvec_pushf(out, "cpu,node-id=%u,core-id=%u", c / per_node, c * t->threads);
	}
	push_distances(t, out);
}

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

	if (t->arch == TOPO_ARCH_ARM64) {
		arm64_argv(t, accel, flags, out);
		return;
	}
	if (t->arch == TOPO_ARCH_PPC64LE) {
		ppc64_argv(t, accel, flags, out);
		return;
	}
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
	if (push_memory_size(t, out))
		push_numa_groups(t, dies, "die-id", out);
}
