/* topo.h - the topology model: spec grammar and presets in, QEMU argv,
 * libvirt XML and the expected guest view out. */
#ifndef LAB_TOPO_H
#define LAB_TOPO_H

#include <stdint.h>

#include "lib/util.h"

struct json_object;
struct topo;

#define TOPO_MAX_NODES 64
#define TOPO_MAX_CPUS 16384
#define TOPO_TCG_MAX_CPUS 255 /* QEMU 7.2 TCG has no x2APIC */

enum lab_accel {
	ACCEL_TCG,
	ACCEL_KVM,
};

/* The guest's architecture: a topology is booted on one QEMU machine. */
enum topo_arch {
	TOPO_ARCH_X86_64,	/* q35, the default */
	TOPO_ARCH_ARM64,	/* virt, GICv3 */
	TOPO_ARCH_PPC64LE,	/* pseries */
	TOPO_ARCH_NR,
};

/*
 * What differs per architecture, from the QEMU machine to the Debian
 * packages; one const entry per arch (topo-qemu.c), never freed.
 */
struct topo_arch_info {
	const char *name;	/* "arm64": --arch, arch=, run.json */
	const char *uname;	/* the guest's `uname -m`: "aarch64" */
	const char *qemu;	/* "qemu-system-aarch64" */
	const char *machine;	/* -machine value */
	const char *console;	/* the kernel's console= for the first serial */
	const char *rec_device;	/* -device carrying the record chardev "rec";
				 * NULL: a second -serial */
	const char *rec_tty;	/* that channel in the guest: lab.out= for /init */
	const char *dpkg_arch;	/* Debian's name: "arm64", "ppc64el" */
	const char *kernel_meta; /* the package whose dependency names Debian's kernel */
	unsigned max_cpus;	/* what the QEMU machine and Debian's NR_CPUS allow */
	unsigned tcg_max_threads; /* threads per core QEMU 7.2's TCG can model */
	unsigned kvm_max_threads;
	const char *threads_why; /* why no more under TCG, for the error line */
};

const struct topo_arch_info *topo_arch_info(enum topo_arch arch);
/* "x86_64", "arm64"/"aarch64", "ppc64le"/"ppc64el": 0, else -1 with one line. */
int topo_arch_parse(const char *name, enum topo_arch *out, struct strbuf *err);
/*
 * Boots t on arch (--arch): -1 with one line in err when the spec named
 * another one (arch=) or arch cannot model t; t->spec gains arch=.
 */
int topo_set_arch(struct topo *t, enum topo_arch arch, struct strbuf *err);

struct topo {
	char name[64];      /* preset name, "" for a plain spec */
	char spec[256];     /* canonical spec, e.g. "2s64c1t,llc=8,nps=1,mem=4G" */
	char description[256]; /* preset description, "" for a plain spec */
	unsigned sockets;
	unsigned cores;     /* per socket */
	unsigned threads;   /* per core */
	unsigned llc;       /* cores sharing one LLC (one QEMU die); on arm64
			     * the cores of one cluster (see topo-qemu.c) */
	unsigned nps;       /* NUMA nodes per socket */
	unsigned memnodes;  /* memory-only nodes, numbered after the CPU nodes */
	uint64_t node_mem_mib;    /* memory of each CPU node */
	uint64_t memnode_mem_mib; /* memory of each memory-only node */
	unsigned nr_nodes;  /* sockets * nps + memnodes */
	unsigned hotplug;   /* the last CPU slots, empty at boot, for vCPU hot-add */
	enum topo_arch arch; /* arch=, x86_64 unless given */
	int arch_given;     /* the spec named its arch */
	unsigned dist[TOPO_MAX_NODES][TOPO_MAX_NODES];
};

/*
 * Parses a spec ("2s64c", "2s26c2t,llc=26,nps=2,mem=2G,dist=32") or a
 * preset name (optionally followed by ",option=value" overrides).  On
 * error returns -1 and puts one line (no newline, no "error:" prefix)
 * naming what is wrong into err.
 */
int topo_parse(const char *spec, struct topo *t, struct strbuf *err);

/* Every CPU slot of the machine (QEMU's maxcpus), hot-pluggable ones too. */
unsigned topo_nr_cpus(const struct topo *t);
/* The CPUs present at boot: topo_nr_cpus() - hotplug. */
unsigned topo_boot_cpus(const struct topo *t);
unsigned topo_llcs_per_socket(const struct topo *t);
uint64_t topo_total_mem_mib(const struct topo *t);

/* "2s64c = 2 sockets x 8 LLCs x 8 cores x 1 thread, 2 nodes, 128 CPUs, 8 GiB" */
void topo_describe(const struct topo *t, struct strbuf *out);

/* Limits of the chosen accelerator and host: -1 with one line in err. */
int topo_check_limits(const struct topo *t, enum lab_accel accel,
		      uint64_t host_mem_mib, struct strbuf *err);

/* topo_qemu_argv() flags */
#define TOPO_QEMU_HOST_AMD 1u	/* KVM on an AMD host: topoext */
#define TOPO_QEMU_TCG_SINGLE 2u	/* TCG with one thread for every vCPU */

/* Appends the topology part of a QEMU argv: -accel, -cpu, -smp, -m,
 * memory backends and -numa options (no binary name, kernel or devices). */
void topo_qemu_argv(const struct topo *t, enum lab_accel accel, unsigned flags,
		    struct strvec *out);

/* A complete libvirt domain XML (caller frees) that virt-xml-validate
 * accepts; kernel/initrd/cmdline may be NULL (then omitted). */
char *topo_libvirt_xml(const struct topo *t, enum lab_accel accel,
		       const char *domain_name, const char *kernel,
		       const char *initrd, const char *cmdline);
/* Appends s escaped for XML text and attribute values. */
void topo_xml_escape(struct strbuf *sb, const char *s);

/* The same with the serial devices replaced by chardevs (XML inside
 * <devices>, already escaped) and tail (elements of <domain> after
 * <devices>, e.g. <seclabel>) added; NULL keeps the pty console. */
char *topo_libvirt_xml_devices(const struct topo *t, enum lab_accel accel,
			       const char *domain_name, const char *kernel,
			       const char *initrd, const char *cmdline,
			       const char *chardevs, const char *tail);

/* The view the guest kernel should have of this machine at boot, before
 * any hot-add (schema in docs/topologies.md, "The guest view"); the caller owns
 * the returned object. */
struct json_object *topo_expected_view(const struct topo *t);
/* The same machine booted with `nosmt` when smt_off: siblings offline. */
struct json_object *topo_expected_view_smt(const struct topo *t, int smt_off);
/*
 * What the kernel's version changes in the view (kernel/kgen.h has them
 * per generation): x86's sysfs die_id, within the package (0) or the APIC
 * ID above the die level (1), and the package level's name.
 */
struct topo_kernel_facts {
	const char *generation;	/* recorded in the view as "generation" */
	const char *pkg_level;	/* "DIE" or "PKG" */
	int die_id_global;
	/* arm64 virt (no cache description): the LLC sysfs shows is every
	 * CPU (1, 6.12) rather than the CPU's own L1 (0, 6.1); then
	 * cpu_coregroup_mask() builds an MC level of the node */
	int arm64_llc_all;
};
/* The view as a kernel with facts k shows it; NULL: Linux 6.1's facts,
 * which the two above use, and no "generation" key. */
struct json_object *topo_expected_view_gen(const struct topo *t, int smt_off,
					   const struct topo_kernel_facts *k);

/* Presets live in <lab_root()>/topologies/<name>.topo. */
struct topo_preset {
	char name[64];
	char spec[256];
	char description[256];
};
/* Fills *out with a malloc'ed array sorted by name; returns the count or -1. */
int topo_presets_load(struct topo_preset **out);

#endif
