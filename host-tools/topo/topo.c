/* topo.c - the topology model: turns a spec or a preset into struct topo,
 * describes it in one line and checks it against the accelerator and host. */
#define _GNU_SOURCE
#include "topo/topo.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A spec travels through make variables, argv and file names, so it is kept
 * short and to a character set that no shell, XML or path treats specially.
 */
#define SPEC_MAX_LEN 200
#define MEM_MAX_MIB (16ull << 20) /* 16 TiB of guest memory in all */
#define PRESET_FILE_MAX (64 * 1024)

#define DIST_LOCAL 10
#define DIST_SOCKET 12 /* between two nodes of one socket (nps > 1) */
#define DIST_REMOTE 20 /* default between sockets and to memory-only nodes */
#define DIST_MAX 254   /* ACPI SLIT: 255 means unreachable */

enum topo_opt {
	OPT_LLC,
	OPT_NPS,
	OPT_MEM,
	OPT_DIST,
	OPT_MEMNODES,
	OPT_MEMNODEMEM,
	OPT_HOTPLUG,
	OPT_ARCH,
	OPT_NR,
};

static const char *const opt_names[OPT_NR] = {
	[OPT_LLC] = "llc",
	[OPT_NPS] = "nps",
	[OPT_MEM] = "mem",
	[OPT_DIST] = "dist",
	[OPT_MEMNODES] = "memnodes",
	[OPT_MEMNODEMEM] = "memnodemem",
	[OPT_HOTPLUG] = "hotplug",
	[OPT_ARCH] = "arch",
};

/* Values point into a writable copy of the spec owned by the caller. */
struct topo_opts {
	const char *val[OPT_NR];
};

__attribute__((format(printf, 2, 3)))
static int fail(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	strbuf_reset(err);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

unsigned topo_nr_cpus(const struct topo *t)
{
	return t->sockets * t->cores * t->threads;
}

unsigned topo_boot_cpus(const struct topo *t)
{
	return topo_nr_cpus(t) - t->hotplug;
}

unsigned topo_llcs_per_socket(const struct topo *t)
{
	return t->llc ? t->cores / t->llc : 0;
}

uint64_t topo_total_mem_mib(const struct topo *t)
{
	return (uint64_t)t->sockets * t->nps * t->node_mem_mib +
	       (uint64_t)t->memnodes * t->memnode_mem_mib;
}

/*
 * Default LLC: 8 cores, as on every EPYC CCX since Zen 3, whenever the
 * socket is made of more than one such group; otherwise the socket is one
 * LLC, as on Intel server parts.  topo_describe() shows the result.
 */
static unsigned default_llc(unsigned cores)
{
	return cores > 8 && cores % 8 == 0 ? 8 : cores;
}

/* Enough for the guest kernel and the runner's workloads: 64 MiB a CPU,
 * at least 512 MiB, in 512 MiB steps. */
static uint64_t default_node_mem(unsigned cores, unsigned threads, unsigned nps)
{
	uint64_t cpus = (uint64_t)cores * threads / nps;
	uint64_t mib = cpus * 64;

	if (mib < 512)
		mib = 512;
	return (mib + 511) / 512 * 512;
}

/* The matrix the scalar form `dist=<remote>` stands for. */
static void fill_dist(struct topo *t, unsigned remote)
{
	unsigned cpu_nodes = t->sockets * t->nps;

	for (unsigned a = 0; a < t->nr_nodes; a++) {
		for (unsigned b = 0; b < t->nr_nodes; b++) {
			unsigned d = remote;

			if (a == b)
				d = DIST_LOCAL;
			else if (a < cpu_nodes && b < cpu_nodes && a / t->nps == b / t->nps)
				d = DIST_SOCKET;
			t->dist[a][b] = d;
		}
	}
}

static int dist_is_scalar(const struct topo *t, unsigned remote)
{
	struct topo tmp;

	if (remote <= DIST_LOCAL || remote > DIST_MAX || (t->nps > 1 && remote <= DIST_SOCKET))
		return 0;
	tmp.sockets = t->sockets;
	tmp.nps = t->nps;
	tmp.nr_nodes = t->nr_nodes;
	fill_dist(&tmp, remote);
	for (unsigned a = 0; a < t->nr_nodes; a++)
		for (unsigned b = 0; b < t->nr_nodes; b++)
			if (tmp.dist[a][b] != t->dist[a][b])
				return 0;
	return 1;
}

/* The remote distance when the matrix is one fill_dist() makes, else 0. */
static unsigned scalar_dist(const struct topo *t)
{
	unsigned cpu_nodes = t->sockets * t->nps;
	unsigned remote = DIST_REMOTE;

	/* node 0 against the first node of another socket or memory-only node */
	if (t->nr_nodes > 1 && (t->sockets > 1 || t->memnodes))
		remote = t->dist[0][t->sockets > 1 ? t->nps : cpu_nodes];
	return dist_is_scalar(t, remote) ? remote : 0;
}

static void add_size(struct strbuf *sb, uint64_t mib)
{
	if (mib % 1024 == 0)
		strbuf_addf(sb, "%lluG", (unsigned long long)(mib / 1024));
	else
		strbuf_addf(sb, "%lluM", (unsigned long long)mib);
}

static void add_dist(struct strbuf *sb, const struct topo *t)
{
	unsigned remote = scalar_dist(t);

	if (remote) {
		strbuf_addf(sb, "dist=%u", remote);
		return;
	}
	strbuf_addstr(sb, "dist=");
	for (unsigned a = 0; a < t->nr_nodes; a++)
		for (unsigned b = 0; b < t->nr_nodes; b++)
			strbuf_addf(sb, "%s%u", a || b ? ":" : "", t->dist[a][b]);
}

static void canonical_spec(const struct topo *t, struct strbuf *sb)
{
	strbuf_addf(sb, "%us%uc%ut,llc=%u,nps=%u,mem=", t->sockets, t->cores,
		    t->threads, t->llc, t->nps);
	add_size(sb, t->node_mem_mib);
	strbuf_addch(sb, ',');
	add_dist(sb, t);
	if (t->memnodes) {
		strbuf_addf(sb, ",memnodes=%u,memnodemem=", t->memnodes);
		add_size(sb, t->memnode_mem_mib);
	}
	if (t->hotplug)
		strbuf_addf(sb, ",hotplug=%u", t->hotplug);
	if (t->arch != TOPO_ARCH_X86_64)
		strbuf_addf(sb, ",arch=%s", topo_arch_info(t->arch)->name);
}

/* The shortest spec giving this topology: what a person would type. */
static void short_spec(const struct topo *t, struct strbuf *sb)
{
	strbuf_addf(sb, "%us%uc", t->sockets, t->cores);
	if (t->threads != 1)
		strbuf_addf(sb, "%ut", t->threads);
	if (t->llc != default_llc(t->cores))
		strbuf_addf(sb, ",llc=%u", t->llc);
	if (t->nps != 1)
		strbuf_addf(sb, ",nps=%u", t->nps);
	if (t->node_mem_mib != default_node_mem(t->cores, t->threads, t->nps)) {
		strbuf_addstr(sb, ",mem=");
		add_size(sb, t->node_mem_mib);
	}
	if (t->nr_nodes > 1 && scalar_dist(t) != DIST_REMOTE) {
		strbuf_addch(sb, ',');
		add_dist(sb, t);
	}
	if (t->memnodes) {
		strbuf_addf(sb, ",memnodes=%u", t->memnodes);
		if (t->memnode_mem_mib != t->node_mem_mib) {
			strbuf_addstr(sb, ",memnodemem=");
			add_size(sb, t->memnode_mem_mib);
		}
	}
	if (t->hotplug)
		strbuf_addf(sb, ",hotplug=%u", t->hotplug);
	if (t->arch != TOPO_ARCH_X86_64)
		strbuf_addf(sb, ",arch=%s", topo_arch_info(t->arch)->name);
}

static int check_charset(const char *spec, struct strbuf *err)
{
	size_t len = strlen(spec);

	if (!len)
		return fail(err, "empty topology spec");
	if (len > SPEC_MAX_LEN)
		return fail(err, "spec is longer than %d characters", SPEC_MAX_LEN);
	for (const unsigned char *p = (const unsigned char *)spec; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(",=:._-", *p))
			continue;
		if (*p >= ' ' && *p < 0x7f)
			return fail(err, "character '%c' is not allowed (only letters, digits and , = : . _ -)", *p);
		return fail(err, "character 0x%02x is not allowed (only letters, digits and , = : . _ -)", *p);
	}
	return 0;
}

static int read_count(const char **pp, unsigned *out)
{
	const char *p = *pp;
	unsigned long v = 0;
	int digits = 0;

	while (*p >= '0' && *p <= '9') {
		if (++digits > 6)
			return -1;
		v = v * 10 + (unsigned long)(*p++ - '0');
	}
	if (!digits)
		return -1;
	*pp = p;
	*out = (unsigned)v;
	return 0;
}

static int parse_counts(const char *head, struct topo *t, struct strbuf *err)
{
	const char *p = head;
	uint64_t cpus;

	t->threads = 1;
	if (read_count(&p, &t->sockets) || *p++ != 's' ||
	    read_count(&p, &t->cores) || *p++ != 'c')
		goto bad;
	if (*p && (read_count(&p, &t->threads) || *p++ != 't'))
		goto bad;
	if (*p)
		goto bad;
	if (!t->sockets)
		return fail(err, "'%s' has 0 sockets; at least 1 is needed", head);
	if (!t->cores)
		return fail(err, "'%s' has 0 cores per socket; at least 1 is needed", head);
	if (!t->threads)
		return fail(err, "'%s' has 0 threads per core; at least 1 is needed", head);
	cpus = (uint64_t)t->sockets * t->cores * t->threads;
	if (cpus > TOPO_MAX_CPUS)
		return fail(err, "%llu CPUs exceed the maximum of %d",
			    (unsigned long long)cpus, TOPO_MAX_CPUS);
	return 0;
bad:
	return fail(err, "'%s' is not <sockets>s<cores>c[<threads>t], e.g. 2s64c or 2s26c2t", head);
}

/* Splits "k=v,k=v" (modified in place) into opts; duplicates are errors. */
static int parse_opts(char *s, struct topo_opts *opts, struct strbuf *err)
{
	char *item, *next;

	for (item = s; item; item = next) {
		char *eq;
		int i;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item)
			return fail(err, "empty option (two commas, or a comma at the end)");
		eq = strchr(item, '=');
		if (!eq)
			return fail(err, "option '%s' has no value (expected key=value)", item);
		*eq = '\0';
		for (i = 0; i < OPT_NR; i++)
			if (!strcmp(item, opt_names[i]))
				break;
		if (i == OPT_NR)
			return fail(err, "unknown option '%s' (known: llc, nps, mem, dist, memnodes, memnodemem, hotplug, arch)", item);
		if (opts->val[i])
			return fail(err, "option '%s' is given twice", item);
		if (!eq[1])
			return fail(err, "option '%s' has an empty value", item);
		opts->val[i] = eq + 1;
	}
	return 0;
}

static int parse_mem(const char *key, const char *val, uint64_t *mib, struct strbuf *err)
{
	if (parse_size_mib(val, mib))
		return fail(err, "%s=%s is not a size in whole MiB (e.g. 512M, 2G)", key, val);
	if (!*mib)
		return fail(err, "%s=%s: a node needs some memory", key, val);
	if (*mib > MEM_MAX_MIB)
		return fail(err, "%s=%s is more than 16 TiB", key, val);
	return 0;
}

static int parse_dist_matrix(const char *val, struct topo *t, struct strbuf *err)
{
	unsigned n = t->nr_nodes, count = 1, i = 0;
	char *copy, *item, *next;

	for (const char *p = val; *p; p++)
		count += *p == ':';
	if (count != n * n)
		return fail(err, "dist matrix has %u values, but %u node%s need %u",
			    count, n, n == 1 ? "" : "s", n * n);
	copy = xstrdup(val);
	for (item = copy; item; item = next, i++) {
		unsigned a = i / n, b = i % n, d;

		next = strchr(item, ':');
		if (next)
			*next++ = '\0';
		if (parse_uint(item, 0, 1000, &d)) {
			fail(err, "dist matrix value '%s' is not a distance", item);
			goto out;
		}
		if (a == b && d != DIST_LOCAL) {
			fail(err, "dist matrix: node %u to itself must be %d, not %u", a, DIST_LOCAL, d);
			goto out;
		}
		if (a != b && (d <= DIST_LOCAL || d > DIST_MAX)) {
			fail(err, "dist matrix: node %u to node %u is %u, outside %d..%d",
			     a, b, d, DIST_LOCAL + 1, DIST_MAX);
			goto out;
		}
		t->dist[a][b] = d;
	}
	free(copy);
	/* QEMU and the kernel take asymmetric tables, but nothing we model
	 * needs one, and symmetry keeps one -numa dist per pair. */
	for (unsigned a = 0; a < n; a++)
		for (unsigned b = a + 1; b < n; b++)
			if (t->dist[a][b] != t->dist[b][a])
				return fail(err, "dist matrix is not symmetric: node %u to %u is %u, node %u to %u is %u",
					    a, b, t->dist[a][b], b, a, t->dist[b][a]);
	return 0;
out:
	free(copy);
	return -1;
}

/*
 * What the QEMU machine of a non-x86 arch cannot model, found while
 * parsing so that no spec the guest would not see gets that far.
 */
static int arch_check(const struct topo *t, struct strbuf *err)
{
	const char *name = topo_arch_info(t->arch)->name;

	if (t->arch == TOPO_ARCH_X86_64)
		return 0;
	if (t->hotplug)
		return fail(err, "hotplug=%u: vCPU hot-plug is x86_64 only here (%s has none in the lab)",
			    t->hotplug, name);
	/* pseries puts no level between core and chip into the device tree */
	if (t->arch == TOPO_ARCH_PPC64LE && t->llc != t->cores)
		return fail(err, "llc=%u: ppc64le (pseries) can emulate sockets, SMT threads and NUMA nodes, no LLC or cluster inside a socket (llc must be the %u cores)",
			    t->llc, t->cores);
	if (t->arch == TOPO_ARCH_PPC64LE && t->node_mem_mib % 256)
		return fail(err, "mem=%lluM: pseries NUMA nodes need a multiple of 256 MiB",
			    (unsigned long long)t->node_mem_mib);
	return 0;
}

static int resolve(struct topo *t, const struct topo_opts *o, struct strbuf *err)
{
	const char *v;
	unsigned llcs, cpu_nodes;
	uint64_t total;

	if ((v = o->val[OPT_ARCH])) {
		if (topo_arch_parse(v, &t->arch, err))
			return -1;
		t->arch_given = 1;
	}
	if ((v = o->val[OPT_LLC])) {
		if (parse_uint(v, 1, TOPO_MAX_CPUS, &t->llc))
			return fail(err, "llc=%s is not a number of cores from 1 to %d", v, TOPO_MAX_CPUS);
		if (t->llc > t->cores)
			return fail(err, "llc=%u is more than the %u core%s per socket",
				    t->llc, t->cores, t->cores == 1 ? "" : "s");
		if (t->cores % t->llc)
			return fail(err, "llc=%u does not divide the %u cores per socket", t->llc, t->cores);
	} else {
		t->llc = t->arch == TOPO_ARCH_PPC64LE ? t->cores : default_llc(t->cores);
	}
	llcs = t->cores / t->llc;

	t->nps = 1;
	if ((v = o->val[OPT_NPS])) {
		if (parse_uint(v, 1, 4, &t->nps) || t->nps == 3)
			return fail(err, "nps=%s must be 1, 2 or 4 (NUMA nodes per socket)", v);
		if (llcs % t->nps)
			return fail(err, "nps=%u does not divide the %u LLC%s per socket: each NUMA node must hold whole LLCs",
				    t->nps, llcs, llcs == 1 ? "" : "s");
	}
	cpu_nodes = t->sockets * t->nps;

	if ((v = o->val[OPT_MEMNODES]) && parse_uint(v, 0, TOPO_MAX_NODES, &t->memnodes))
		return fail(err, "memnodes=%s is not a number from 0 to %d", v, TOPO_MAX_NODES);
	if (cpu_nodes + t->memnodes > TOPO_MAX_NODES)
		return fail(err, "%u NUMA nodes exceed the maximum of %d", cpu_nodes + t->memnodes, TOPO_MAX_NODES);
	t->nr_nodes = cpu_nodes + t->memnodes;

	if ((v = o->val[OPT_MEM])) {
		if (parse_mem("mem", v, &t->node_mem_mib, err))
			return -1;
	} else {
		t->node_mem_mib = default_node_mem(t->cores, t->threads, t->nps);
	}
	if ((v = o->val[OPT_MEMNODEMEM])) {
		/* without memory-only nodes the canonical spec could not carry it */
		if (!t->memnodes)
			return fail(err, "memnodemem=%s needs memnodes=<count> as well", v);
		if (parse_mem("memnodemem", v, &t->memnode_mem_mib, err))
			return -1;
	} else if (t->memnodes) {
		t->memnode_mem_mib = t->node_mem_mib;
	}
	/*
	 * hotplug=N leaves the last N slots of the topology empty at boot
	 * (QEMU: -smp cpus=<boot>,maxcpus=<all>); the model keeps the whole
	 * machine, so a hot-added CPU has its place in sockets, LLCs, nodes.
	 */
	if ((v = o->val[OPT_HOTPLUG])) {
		unsigned cpus = topo_nr_cpus(t);

		if (parse_uint(v, 0, TOPO_MAX_CPUS, &t->hotplug))
			return fail(err, "hotplug=%s is not a number of spare CPU slots", v);
		if (t->hotplug >= cpus)
			return fail(err, "hotplug=%u leaves no CPU to boot with: the topology has %u CPU slot%s",
				    t->hotplug, cpus, cpus == 1 ? "" : "s");
	}
	if (arch_check(t, err))
		return -1;
	total = topo_total_mem_mib(t);
	if (total > MEM_MAX_MIB)
		return fail(err, "%llu GiB of guest memory in all is more than 16 TiB",
			    (unsigned long long)(total / 1024));

	v = o->val[OPT_DIST];
	if (v && strchr(v, ':'))
		return parse_dist_matrix(v, t, err);
	if (v) {
		unsigned d;

		if (parse_uint(v, DIST_LOCAL + 1, DIST_MAX, &d))
			return fail(err, "dist=%s is not a distance from %d to %d (or a full n*n matrix a:b:...)",
				    v, DIST_LOCAL + 1, DIST_MAX);
		if (t->nps > 1 && d <= DIST_SOCKET)
			return fail(err, "dist=%u must be more than %d, the distance between two nodes of one socket",
				    d, DIST_SOCKET);
		fill_dist(t, d);
	} else {
		fill_dist(t, DIST_REMOTE);
	}
	return 0;
}

static int valid_preset_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= sizeof(((struct topo_preset *)0)->name) || name[0] < 'a' || name[0] > 'z')
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return 0;
	return 1;
}

struct preset_ini {
	struct topo_preset *p;
	int have_spec;
	char err[160];
};

static int preset_ini_handler(void *user, const char *section, const char *name, const char *value)
{
	struct preset_ini *ctx = user;
	struct topo_preset *p = ctx->p;

	if (ctx->err[0])
		return 0;
	if (strcmp(section, "preset")) {
		snprintf(ctx->err, sizeof(ctx->err), "unknown section '[%.40s]'", section);
		return 0;
	}
	if (!strcmp(name, "spec")) {
		if (ctx->have_spec || strlen(value) >= sizeof(p->spec)) {
			snprintf(ctx->err, sizeof(ctx->err), "spec is given twice or too long");
			return 0;
		}
		strcpy(p->spec, value);
		ctx->have_spec = 1;
		return 1;
	}
	if (!strcmp(name, "description")) {
		/* inih hands continuation lines over one by one */
		size_t len = strlen(p->description);

		if (len + 1 + strlen(value) >= sizeof(p->description)) {
			snprintf(ctx->err, sizeof(ctx->err), "description is longer than %zu characters",
				 sizeof(p->description) - 1);
			return 0;
		}
		snprintf(p->description + len, sizeof(p->description) - len, "%s%s",
			 len ? " " : "", value);
		return 1;
	}
	snprintf(ctx->err, sizeof(ctx->err), "unknown key '%.40s'", name);
	return 0;
}

/* Reads <root>/topologies/<name>.topo; name must be valid. */
static int preset_read(const char *name, struct topo_preset *p, struct strbuf *err)
{
	struct preset_ini ctx = { .p = p };
	char *path, *text;
	size_t len;
	int ret;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	path = xasprintf("%s/topologies/%s.topo", lab_root(), name);
	text = read_file(path, &len);
	if (!text) {
		if (errno == ENOENT)
			fail(err, "unknown preset '%s' (see 'lab topo --list')", name);
		else
			fail(err, "cannot read '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (len > PRESET_FILE_MAX || memchr(text, '\0', len)) {
		fail(err, "preset file '%s' is not a small text file", path);
		goto bad;
	}
	ret = ini_parse_string(text, preset_ini_handler, &ctx);
	if (ctx.err[0]) {
		fail(err, "preset file '%s': %s", path, ctx.err);
		goto bad;
	}
	if (ret) {
		fail(err, "preset file '%s': syntax error on line %d", path, ret);
		goto bad;
	}
	if (!ctx.have_spec || !p->description[0]) {
		fail(err, "preset file '%s' needs both spec and description", path);
		goto bad;
	}
	/* a preset is made of a plain spec: no chains of presets */
	if (p->spec[0] < '0' || p->spec[0] > '9') {
		fail(err, "preset file '%s': spec '%s' must start with <sockets>s<cores>c", path, p->spec);
		goto bad;
	}
	free(text);
	free(path);
	return 0;
bad:
	free(text);
	free(path);
	return -1;
}

/*
 * For a preset with overrides, name is what was typed when it fits (so the
 * summary says "skylake-2s26c,mem=1G") and description is dropped, since
 * it describes the machine as shipped.
 */
int topo_parse(const char *spec, struct topo *t, struct strbuf *err)
{
	struct topo_opts opts = { { NULL } }, over = { { NULL } };
	struct topo_preset preset;
	struct strbuf canon = STRBUF_INIT;
	char *copy = NULL, *pcopy = NULL, *rest, *head;
	int ret = -1, is_preset;

	memset(t, 0, sizeof(*t));
	if (!spec)
		return fail(err, "empty topology spec");
	if (check_charset(spec, err))
		return -1;
	copy = xstrdup(spec);
	rest = strchr(copy, ',');
	if (rest)
		*rest++ = '\0';
	head = copy;
	is_preset = !(head[0] >= '0' && head[0] <= '9');

	if (is_preset) {
		char *prest;

		if (!valid_preset_name(head)) {
			fail(err, "'%s' is neither a spec like 2s64c nor a preset name ([a-z][a-z0-9-]*)", head);
			goto out;
		}
		if (preset_read(head, &preset, err))
			goto out;
		pcopy = xstrdup(preset.spec);
		prest = strchr(pcopy, ',');
		if (prest)
			*prest++ = '\0';
		if (check_charset(preset.spec, err) || parse_counts(pcopy, t, err) ||
		    (prest && parse_opts(prest, &opts, err))) {
			char *why = xstrdup(err ? err->buf : "");

			fail(err, "preset '%s': %s", head, why);
			free(why);
			goto out;
		}
		if (rest && parse_opts(rest, &over, err))
			goto out;
		/* a preset of one arch is no machine of another */
		if (opts.val[OPT_ARCH] && over.val[OPT_ARCH] &&
		    strcmp(opts.val[OPT_ARCH], over.val[OPT_ARCH])) {
			fail(err, "preset '%s' is arch=%s, not arch=%s", head, opts.val[OPT_ARCH],
			     over.val[OPT_ARCH]);
			goto out;
		}
		for (int i = 0; i < OPT_NR; i++)
			if (over.val[i])
				opts.val[i] = over.val[i];
	} else {
		if (parse_counts(head, t, err))
			goto out;
		if (rest && parse_opts(rest, &opts, err))
			goto out;
	}
	if (resolve(t, &opts, err))
		goto out;

	canonical_spec(t, &canon);
	if (canon.len > SPEC_MAX_LEN) {
		fail(err, "the resolved spec would be longer than %d characters", SPEC_MAX_LEN);
		goto out;
	}
	memcpy(t->spec, canon.buf, canon.len + 1);
	if (is_preset && !rest) {
		snprintf(t->name, sizeof(t->name), "%s", preset.name);
		snprintf(t->description, sizeof(t->description), "%s", preset.description);
	} else if (is_preset && strlen(spec) < sizeof(t->name)) {
		snprintf(t->name, sizeof(t->name), "%s", spec);
	}
	ret = 0;
out:
	if (ret)
		memset(t, 0, sizeof(*t));
	strbuf_release(&canon);
	free(pcopy);
	free(copy);
	return ret;
}

int topo_set_arch(struct topo *t, enum topo_arch arch, struct strbuf *err)
{
	struct strbuf canon = STRBUF_INIT;
	enum topo_arch old = t->arch;

	if (t->arch_given && t->arch != arch)
		return fail(err, "the topology says arch=%s, --arch says %s",
			    topo_arch_info(t->arch)->name, topo_arch_info(arch)->name);
	t->arch = arch;
	if (arch_check(t, err)) {
		t->arch = old;
		return -1;
	}
	canonical_spec(t, &canon);
	if (canon.len > SPEC_MAX_LEN) {
		t->arch = old;
		strbuf_release(&canon);
		return fail(err, "the resolved spec would be longer than %d characters", SPEC_MAX_LEN);
	}
	memcpy(t->spec, canon.buf, canon.len + 1);
	strbuf_release(&canon);
	return 0;
}

static const char *plural(unsigned n)
{
	return n == 1 ? "" : "s";
}

static void add_mem_human(struct strbuf *sb, uint64_t mib)
{
	if (mib % 1024 == 0)
		strbuf_addf(sb, "%llu GiB", (unsigned long long)(mib / 1024));
	else
		strbuf_addf(sb, "%llu MiB", (unsigned long long)mib);
}

void topo_describe(const struct topo *t, struct strbuf *out)
{
	unsigned llcs = topo_llcs_per_socket(t);
	unsigned cpus = topo_nr_cpus(t);

	if (t->name[0])
		strbuf_addstr(out, t->name);
	else
		short_spec(t, out);
	/* arm64's virt shows clusters, not shared caches (topo-qemu.c) */
	strbuf_addf(out, " = %u socket%s x %u %s%s x %u core%s x %u thread%s, %u node%s",
		    t->sockets, plural(t->sockets), llcs,
		    t->arch == TOPO_ARCH_ARM64 ? "cluster" : "LLC", plural(llcs),
		    t->llc, plural(t->llc), t->threads, plural(t->threads),
		    t->nr_nodes, plural(t->nr_nodes));
	if (t->nps > 1 || t->memnodes) {
		strbuf_addstr(out, " (");
		if (t->nps > 1)
			strbuf_addf(out, "%u per socket%s", t->nps, t->memnodes ? ", " : "");
		if (t->memnodes) {
			strbuf_addf(out, "%u memory-only of ", t->memnodes);
			add_mem_human(out, t->memnode_mem_mib);
		}
		strbuf_addch(out, ')');
	}
	strbuf_addf(out, ", %u CPU%s, ", cpus, plural(cpus));
	if (t->hotplug)
		strbuf_addf(out, "%u at boot + %u hot-pluggable, ", topo_boot_cpus(t), t->hotplug);
	add_mem_human(out, topo_total_mem_mib(t));
	if (t->arch != TOPO_ARCH_X86_64)
		strbuf_addf(out, ", %s", topo_arch_info(t->arch)->name);
}

static unsigned bits_for(unsigned count)
{
	unsigned bits = 0;

	while (count > 1 && (1u << bits) < count)
		bits++;
	return bits;
}

/* QEMU packs (socket, die, core, thread) into APIC ID bit fields, each
 * rounded up to a power of two (hw/i386/topology.h). */
static uint64_t max_apic_id(const struct topo *t)
{
	unsigned core_shift = bits_for(t->threads);
	unsigned die_shift = core_shift + bits_for(t->llc);
	unsigned pkg_shift = die_shift + bits_for(topo_llcs_per_socket(t));

	return ((uint64_t)(t->sockets - 1) << pkg_shift) |
	       ((uint64_t)(topo_llcs_per_socket(t) - 1) << die_shift) |
	       ((uint64_t)(t->llc - 1) << core_shift) | (t->threads - 1);
}

int topo_check_limits(const struct topo *t, enum lab_accel accel,
		      uint64_t host_mem_mib, struct strbuf *err)
{
	unsigned cpus = topo_nr_cpus(t);
	uint64_t mem = topo_total_mem_mib(t);
	const struct topo_arch_info *ai = topo_arch_info(t->arch);
	unsigned max_threads = accel == ACCEL_TCG ? ai->tcg_max_threads : ai->kvm_max_threads;

	if (t->arch != TOPO_ARCH_X86_64 && cpus > ai->max_cpus)
		return fail(err, "%u vCPUs exceed the %u that %s guests can have here (QEMU's %s machine, Debian's NR_CPUS)",
			    cpus, ai->max_cpus, ai->name, ai->machine);
	if (t->threads > max_threads)
		return fail(err, "%u threads per core: %s under %s emulates at most %u (%s)",
			    t->threads, ai->name, accel == ACCEL_TCG ? "TCG" : "KVM", max_threads,
			    ai->threads_why);
	if (accel == ACCEL_TCG && t->arch == TOPO_ARCH_X86_64) {
		uint64_t apic = max_apic_id(t);

		if (cpus > TOPO_TCG_MAX_CPUS)
			return fail(err, "%u vCPUs exceed the %d that QEMU 7.2 TCG can address (no x2APIC); this topology needs KVM (ACCEL=kvm)",
				    cpus, TOPO_TCG_MAX_CPUS);
		/* QEMU refuses to start when the APIC ID limit passes 255 */
		if (apic + 1 > TOPO_TCG_MAX_CPUS)
			return fail(err, "%u vCPUs need APIC IDs up to %llu (QEMU rounds threads, cores and LLCs up to powers of two), beyond the 254 that QEMU 7.2 TCG can address (no x2APIC); this topology needs KVM (ACCEL=kvm)",
				    cpus, (unsigned long long)apic);
	}
	if (host_mem_mib && mem > host_mem_mib * 3 / 4)
		return fail(err, "the guest needs %llu MiB, more than 3/4 of the host's %llu MiB; lower mem=",
			    (unsigned long long)mem, (unsigned long long)host_mem_mib);
	return 0;
}

static int preset_cmp(const void *a, const void *b)
{
	return strcmp(((const struct topo_preset *)a)->name, ((const struct topo_preset *)b)->name);
}

int topo_presets_load(struct topo_preset **out)
{
	char *dirpath = xasprintf("%s/topologies", lab_root());
	struct strbuf err = STRBUF_INIT;
	struct topo_preset *v = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *de;
	DIR *dir;

	*out = NULL;
	dir = opendir(dirpath);
	if (!dir) {
		error("cannot open '%s': %s", dirpath, strerror(errno));
		free(dirpath);
		return -1;
	}
	while ((de = readdir(dir))) {
		char name[sizeof(v->name)];
		size_t len = strlen(de->d_name);
		struct topo t;

		if (len <= 5 || strcmp(de->d_name + len - 5, ".topo"))
			continue;
		if (len - 5 >= sizeof(name)) {
			warning("ignoring preset file '%s': name too long", de->d_name);
			continue;
		}
		memcpy(name, de->d_name, len - 5);
		name[len - 5] = '\0';
		if (!valid_preset_name(name)) {
			warning("ignoring preset file '%s': names are [a-z][a-z0-9-]*", de->d_name);
			continue;
		}
		if (nr == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		/* a preset that does not resolve is a bug in the lab's data */
		if (preset_read(name, &v[nr], &err) || topo_parse(name, &t, &err)) {
			error("%s", err.buf);
			strbuf_release(&err);
			closedir(dir);
			free(dirpath);
			free(v);
			return -1;
		}
		nr++;
	}
	closedir(dir);
	free(dirpath);
	strbuf_release(&err);
	if (nr)
		qsort(v, nr, sizeof(*v), preset_cmp);
	*out = v;
	return (int)nr;
}
