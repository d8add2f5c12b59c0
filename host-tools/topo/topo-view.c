/* topo-view.c - what the guest kernel should see of a topology: sysfs
 * CPU and node layout, distances and the scheduler domains it builds. */
#include "topo/topo.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* A CPU set as a bitmap; spans are compared as sets, like the kernel does. */
struct cpuset {
	uint64_t *w;
	unsigned nwords;
	unsigned nbits;     /* CPUs at or above are not present (empty slots) */
};

static void cpuset_init(struct cpuset *s, unsigned nr_cpus)
{
	s->nbits = nr_cpus;
	s->nwords = (nr_cpus + 63) / 64 + 1;
	s->w = xcalloc(s->nwords, sizeof(*s->w));
}

static void cpuset_release(struct cpuset *s)
{
	free(s->w);
	s->w = NULL;
}

static void cpuset_clear(struct cpuset *s)
{
	memset(s->w, 0, s->nwords * sizeof(*s->w));
}

static void cpuset_add_range(struct cpuset *s, unsigned lo, unsigned hi)
{
	for (unsigned i = lo; i < hi && i < s->nbits; i++)
		s->w[i / 64] |= 1ull << (i % 64);
}

static unsigned cpuset_weight(const struct cpuset *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nwords; i++)
		n += (unsigned)__builtin_popcountll(s->w[i]);
	return n;
}

static int cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return !memcmp(a->w, b->w, a->nwords * sizeof(*a->w));
}

static void cpulist_add_run(struct strbuf *sb, unsigned lo, unsigned hi)
{
	if (sb->len)
		strbuf_addch(sb, ',');
	if (hi == lo)
		strbuf_addf(sb, "%u", lo);
	else
		strbuf_addf(sb, "%u-%u", lo, hi);
}

/* Linux's "%*pbl" format for one run: "0-3", "5", "" when empty. */
static void cpulist_range(struct strbuf *sb, unsigned lo, unsigned hi_excl)
{
	if (hi_excl > lo)
		cpulist_add_run(sb, lo, hi_excl - 1);
}

/* Every step-th CPU of [lo, hi_excl) below `present`: sysfs lists only
 * present CPUs, and with SMT off only thread 0 of each core is online
 * (step = threads per core). */
static struct json_object *json_cpulist(unsigned lo, unsigned hi_excl, unsigned step,
					unsigned present)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *o;

	if (hi_excl > present)
		hi_excl = present;
	if (step <= 1)
		cpulist_range(&sb, lo, hi_excl);
	else
		for (unsigned i = lo; i < hi_excl; i += step)
			cpulist_add_run(&sb, i, i);
	o = json_object_new_string(sb.buf);
	strbuf_release(&sb);
	return o;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/*
 * The levels Linux 6.1 on x86 builds for CPUs of node `node`, lowest first
 * (arch/x86/kernel/smpboot.c, kernel/sched/topology.c):
 *   SMT  thread siblings          CLS  L2 sharing: the siblings under QEMU
 *   MC   LLC (one QEMU die)       DIE  cpu_cpu_mask(), the CPU's node, which
 *                                      is its package whenever DIE exists
 *   DIE is left out when a node is smaller than its package
 *   (x86_has_numa_in_package, i.e. nps > 1); then NODE (the node) and one
 *   NUMA level per distinct distance above 10 between nodes with CPUs
 *   (sched_init_numa() skips CPU-less nodes since 5.18; they add no CPUs
 *   to any span anyway).  cpu_attach_domain() drops a level spanning one
 *   CPU and a level whose span equals that of the nearest kept level below.
 * Only the CPUs present at boot count (the empty hot-plug slots are
 * not in any mask).
 * arm64 (virt) and ppc64le (pseries) with Debian's kernels: no CLS
 * (arm64 has no SCHED_CLUSTER, ppc64 no such level), no MC (the guest's
 * last level cache is the CPU's own L1, or its SMT core on POWER, since
 * QEMU describes no shared cache), DIE is the node even with nps > 1
 * (only x86 drops it), so its NODE twin goes.  Fills names (at most max) and returns how many
 * levels survive.
 */
static unsigned node_domains(const struct topo *t, unsigned node, const unsigned *dists,
			     unsigned nr_dists, const struct topo_kernel_facts *k, const char **names,
			     unsigned max)
{
	unsigned nr_cpus = topo_nr_cpus(t);
	unsigned cpu_nodes = t->sockets * t->nps;
	unsigned cpn = nr_cpus / cpu_nodes;
	unsigned first = node * cpn;  /* every CPU of the node builds the same levels */
	unsigned llc_cpus = t->llc * t->threads;
	struct cpuset cur, kept;
	unsigned n = 0, have_kept = 0;

	cpuset_init(&cur, topo_boot_cpus(t));
	cpuset_init(&kept, topo_boot_cpus(t));
	for (unsigned level = 0; level < 4 + nr_dists && n < max; level++) {
		const char *name;

		if ((level == 1 || level == 2) && t->arch != TOPO_ARCH_X86_64 &&
		    !(level == 2 && t->arch == TOPO_ARCH_ARM64 && k->arm64_llc_all))
			continue;	/* CLS and MC */
		cpuset_clear(&cur);
		switch (level) {
		case 0:
		case 1:
			name = level ? "CLS" : "SMT";
			cpuset_add_range(&cur, first, first + t->threads);
			break;
		case 2:
			name = "MC";
			/* arm64's cpu_coregroup_mask(): the smaller of node and
			 * package when the LLC (every CPU) is wider than both */
			if (t->arch == TOPO_ARCH_ARM64)
				cpuset_add_range(&cur, node * cpn, (node + 1) * cpn);
			else
				cpuset_add_range(&cur, first, first + llc_cpus);
			break;
		case 3:
			if (t->nps > 1 && t->arch == TOPO_ARCH_X86_64)
				continue;
			name = k->pkg_level;
			cpuset_add_range(&cur, node * cpn, (node + 1) * cpn);
			break;
		default:
			name = level == 4 ? "NODE" : "NUMA";
			for (unsigned m = 0; m < cpu_nodes; m++)
				if (t->dist[node][m] <= dists[level - 4])
					cpuset_add_range(&cur, m * cpn, (m + 1) * cpn);
			break;
		}
		if (cpuset_weight(&cur) <= 1)
			continue;
		if (have_kept && cpuset_equal(&cur, &kept))
			continue;
		memcpy(kept.w, cur.w, cur.nwords * sizeof(*cur.w));
		have_kept = 1;
		names[n++] = name;
	}
	cpuset_release(&cur);
	cpuset_release(&kept);
	return n;
}

/* Distinct distances between nodes with CPUs, ascending; 10 comes first. */
static unsigned distinct_dists(const struct topo *t, unsigned *out)
{
	unsigned cpu_nodes = t->sockets * t->nps, n = 0;

	for (unsigned a = 0; a < cpu_nodes; a++) {
		for (unsigned b = 0; b < cpu_nodes; b++) {
			unsigned i;

			for (i = 0; i < n && out[i] != t->dist[a][b]; i++)
				;
			if (i == n)
				out[n++] = t->dist[a][b];
		}
	}
	qsort(out, n, sizeof(*out), cmp_unsigned);
	return n;
}

#define MAX_LEVELS (4 + 256)

struct json_object *topo_expected_view(const struct topo *t)
{
	return topo_expected_view_smt(t, 0);
}

/*
 * With smt_off the kernel was booted with `nosmt`: every sibling thread
 * but the first of each core is brought up once and taken offline again,
 * as on a machine with SMT disabled in firmware or sysfs.  Offline CPUs
 * have no topology in sysfs, the online CPUs have themselves as their only
 * sibling and build the levels of a one-thread-per-core machine (the SMT
 * and CLS spans shrink to one CPU and are dropped).
 */
struct json_object *topo_expected_view_smt(const struct topo *t, int smt_off)
{
	return topo_expected_view_gen(t, smt_off, NULL);
}

/*
 * x86's sysfs die_id: the die within its package up to 6.8; from 6.9 the
 * APIC ID shifted by the die level's width (topology_common.c), i.e. the
 * package number above ceil(log2(dies per package)) bits of die number.
 */
static unsigned sysfs_die_id(unsigned socket, unsigned die, unsigned dies, int global)
{
	unsigned bits = 0;

	if (!global)
		return die;
	while ((1u << bits) < dies)
		bits++;
	return (socket << bits) | die;
}

struct json_object *topo_expected_view_gen(const struct topo *t, int smt_off,
					   const struct topo_kernel_facts *k)
{
	static const struct topo_kernel_facts linux_6_1 = { NULL, "DIE", 0, 0 };
	const struct topo_kernel_facts *gen = k ? k : &linux_6_1;
	unsigned nr_cpus = topo_nr_cpus(t), boot = topo_boot_cpus(t);
	unsigned step = smt_off ? t->threads : 1;
	struct topo *one = NULL;
	unsigned cpu_nodes = t->sockets * t->nps;
	unsigned cpn = nr_cpus / cpu_nodes;
	unsigned dies = topo_llcs_per_socket(t);
	unsigned dists[256], nr_dists;
	const char *(*names)[MAX_LEVELS] = xcalloc(cpu_nodes, sizeof(*names));
	unsigned *nr_names = xcalloc(cpu_nodes, sizeof(*nr_names));
	struct json_object *view = json_object_new_object();
	struct json_object *nodes = json_object_new_array();
	struct json_object *dist = json_object_new_array();
	struct json_object *cpus = json_object_new_array();
	struct strbuf sb = STRBUF_INIT;

	nr_dists = distinct_dists(t, dists);
	if (step > 1) {
		one = xmalloc(sizeof(*one));
		*one = *t;
		one->threads = 1;
	}
	for (unsigned n = 0; n < cpu_nodes; n++)
		nr_names[n] = node_domains(one ? one : t, n, dists, nr_dists, gen, names[n],
					   MAX_LEVELS);
	free(one);

	json_object_object_add(view, "cpus", json_object_new_int((int)((boot + step - 1) / step)));
	for (unsigned n = 0; n < t->nr_nodes; n++) {
		struct json_object *o = json_object_new_object();
		struct json_object *row = json_object_new_array();
		int has_cpus = n < cpu_nodes;

		json_object_object_add(o, "node", json_object_new_int((int)n));
		json_object_object_add(o, "cpus", has_cpus ? json_cpulist(n * cpn, (n + 1) * cpn, step, boot)
							   : json_object_new_string(""));
		json_object_object_add(o, "mem_mib", json_object_new_int64(
			(int64_t)(has_cpus ? t->node_mem_mib : t->memnode_mem_mib)));
		json_object_array_add(nodes, o);
		for (unsigned m = 0; m < t->nr_nodes; m++)
			json_object_array_add(row, json_object_new_int((int)t->dist[n][m]));
		json_object_array_add(dist, row);
	}
	json_object_object_add(view, "nodes", nodes);
	json_object_object_add(view, "distances", dist);

	for (unsigned i = 0; i < boot; i++) {
		struct json_object *o, *doms;
		unsigned thread = i % t->threads;
		unsigned llc_cpus = t->threads * t->llc;
		unsigned die = (i / llc_cpus) % dies;
		unsigned socket = i / (llc_cpus * dies);
		unsigned node = i / cpn;

		if (thread % step)
			continue;	/* an offline sibling: not in sysfs */
		o = json_object_new_object();
		doms = json_object_new_array();
		json_object_object_add(o, "cpu", json_object_new_int((int)i));
		json_object_object_add(o, "package", json_object_new_int((int)socket));
		/* die_id exists in sysfs on x86 only */
		if (t->arch == TOPO_ARCH_X86_64)
			json_object_object_add(o, "die", json_object_new_int(
				(int)sysfs_die_id(socket, die, dies, gen->die_id_global)));
		json_object_object_add(o, "node", json_object_new_int((int)node));
		json_object_object_add(o, "siblings", step > 1 ? json_cpulist(i, i + 1, 1, boot) :
				       json_cpulist(i - thread, i - thread + t->threads, 1, boot));
		if (t->arch == TOPO_ARCH_ARM64) {
			/* no cache in virt's device tree: L1 is the LLC (6.1), or
			 * every CPU shares the unified cache (6.12) */
			json_object_object_add(o, "llc", gen->arm64_llc_all ? json_cpulist(0, boot, step, boot) :
					       json_cpulist(i, i + 1, 1, boot));
			json_object_object_add(o, "cluster", json_cpulist(i - i % llc_cpus,
				i - i % llc_cpus + llc_cpus, step, boot));
		} else if (t->arch == TOPO_ARCH_PPC64LE) {
			json_object_object_add(o, "llc", json_cpulist(i - thread,
				i - thread + t->threads, step, boot));
		} else {
			json_object_object_add(o, "llc", json_cpulist(i - i % llc_cpus,
				i - i % llc_cpus + llc_cpus, step, boot));
		}
		for (unsigned d = 0; d < nr_names[node]; d++)
			json_object_array_add(doms, json_object_new_string(names[node][d]));
		json_object_object_add(o, "domains", doms);
		json_object_array_add(cpus, o);
	}
	json_object_object_add(view, "cpu", cpus);
	json_object_object_add(view, "spec", json_object_new_string(t->spec));
	if (t->arch != TOPO_ARCH_X86_64)
		json_object_object_add(view, "arch", json_object_new_string(topo_arch_info(t->arch)->name));
	if (smt_off)
		json_object_object_add(view, "smt", json_object_new_string("off"));
	if (gen->generation)
		json_object_object_add(view, "generation", json_object_new_string(gen->generation));
	topo_describe(t, &sb);
	json_object_object_add(view, "summary", json_object_new_string(sb.buf));
	strbuf_release(&sb);
	free(names);
	free(nr_names);
	return view;
}
