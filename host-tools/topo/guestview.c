/* guestview.c - parses the runner's sysfs snapshot (untrusted guest text)
 * into the guest view JSON, with canonical cpulists for a fair comparison. */
#include "topo/guestview.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CACHES 64u   /* cache/indexK per CPU */
#define MAX_DOMAINS 64u  /* domainM per CPU */
#define MAX_ID 1000000L  /* package and die ids */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void cpulist_format(const unsigned long *bits, unsigned nbits, struct strbuf *out)
{
	int first = 1;

	for (unsigned i = 0; i < nbits;) {
		unsigned j;

		if (!cpulist_test(bits, i)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < nbits && cpulist_test(bits, j + 1); j++)
			;
		if (!first)
			strbuf_addch(out, ',');
		first = 0;
		if (j == i)
			strbuf_addf(out, "%u", i);
		else
			strbuf_addf(out, "%u-%u", i, j);
		i = j + 1;
	}
}

struct gv_cache {
	int level;          /* -1 until seen */
	int instruction;    /* an L1i never stands for "the LLC" */
	char *shared;       /* canonical cpulist, NULL until seen */
};

struct gv_cpu {
	long package, die;  /* LONG_MIN until seen */
	char *siblings;
	char *cluster;      /* cluster_cpus_list: arm64 shows QEMU's clusters */
	struct gv_cache *caches;
	unsigned nr_caches;
	char **domains;
	unsigned nr_domains;
};

struct gv_node {
	int seen;
	char *cpus;
	unsigned long *bits;
	long long mem_kib;  /* -1 until seen */
	long *dist;
	unsigned nr_dist;
	int has_dist;
};

struct gv {
	struct gv_cpu *cpu;
	unsigned nr_cpu;
	struct gv_node *node;
	unsigned nr_node;
	unsigned long *online;
	int has_online;
	char *kernel;
	unsigned long *scratch; /* bitmap for normalising lists */
	struct strbuf *err;
	unsigned lineno;
	const char *path;
	int clusters;       /* GUEST_VIEW_CLUSTERS */
};

static void gv_release(struct gv *g)
{
	for (unsigned i = 0; i < g->nr_cpu; i++) {
		struct gv_cpu *c = &g->cpu[i];

		free(c->siblings);
		free(c->cluster);
		for (unsigned k = 0; k < c->nr_caches; k++)
			free(c->caches[k].shared);
		free(c->caches);
		for (unsigned m = 0; m < c->nr_domains; m++)
			free(c->domains[m]);
		free(c->domains);
	}
	free(g->cpu);
	for (unsigned i = 0; i < g->nr_node; i++) {
		free(g->node[i].cpus);
		free(g->node[i].bits);
		free(g->node[i].dist);
	}
	free(g->node);
	free(g->online);
	free(g->kernel);
	free(g->scratch);
}

/* The path goes into an error line: keep it short and printable. */
static int gv_error(struct gv *g, const char *what)
{
	strbuf_addf(g->err, "sysfs snapshot line %u", g->lineno);
	if (g->path) {
		strbuf_addstr(g->err, " '");
		for (size_t i = 0; g->path[i] && i < 96; i++) {
			char c = g->path[i];

			strbuf_addch(g->err, c >= 0x20 && c < 0x7f ? c : '?');
		}
		strbuf_addch(g->err, '\'');
	}
	strbuf_addf(g->err, ": %s", what);
	return -1;
}

static struct gv_cpu *gv_cpu(struct gv *g, unsigned long n)
{
	if (n >= g->nr_cpu) {
		unsigned want = (unsigned)n + 1;

		g->cpu = xrealloc(g->cpu, want * sizeof(*g->cpu));
		for (unsigned i = g->nr_cpu; i < want; i++) {
			memset(&g->cpu[i], 0, sizeof(g->cpu[i]));
			g->cpu[i].package = g->cpu[i].die = LONG_MIN;
		}
		g->nr_cpu = want;
	}
	return &g->cpu[n];
}

static struct gv_node *gv_node(struct gv *g, unsigned long n)
{
	if (n >= g->nr_node) {
		unsigned want = (unsigned)n + 1;

		g->node = xrealloc(g->node, want * sizeof(*g->node));
		for (unsigned i = g->nr_node; i < want; i++) {
			memset(&g->node[i], 0, sizeof(g->node[i]));
			g->node[i].mem_kib = -1;
		}
		g->nr_node = want;
	}
	g->node[n].seen = 1;
	return &g->node[n];
}

static struct gv_cache *gv_cache(struct gv_cpu *c, unsigned long k)
{
	if (k >= c->nr_caches) {
		unsigned want = (unsigned)k + 1;

		c->caches = xrealloc(c->caches, want * sizeof(*c->caches));
		for (unsigned i = c->nr_caches; i < want; i++) {
			c->caches[i].level = -1;
			c->caches[i].instruction = 0;
			c->caches[i].shared = NULL;
		}
		c->nr_caches = want;
	}
	return &c->caches[k];
}

/* Replaces *slot with the canonical form of the cpulist in value. */
static int set_cpulist(struct gv *g, const char *value, char **slot)
{
	struct strbuf sb = STRBUF_INIT;

	if (cpulist_parse(value, g->scratch, GUEST_VIEW_MAX_CPUS, NULL, 0) < 0)
		return gv_error(g, "not a cpulist of CPUs below 16384");
	cpulist_format(g->scratch, GUEST_VIEW_MAX_CPUS, &sb);
	free(*slot);
	*slot = strbuf_detach(&sb);
	return 0;
}

static void set_string(char **slot, const char *value)
{
	free(*slot);
	*slot = xstrdup(value);
}

static int parse_id(struct gv *g, const char *value, long *out)
{
	unsigned long v;
	int neg = *value == '-';

	if (neg)
		value++;
	if (cpulist_number(&value, &v) < 0 || *value || v > MAX_ID || (neg && v != 1))
		return gv_error(g, "not an id");
	*out = neg ? -1 : (long)v;
	return 0;
}

/* Consumes a literal prefix of *p. */
static int eat(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return 0;
	*p += n;
	return 1;
}

/* "<num>/" with num < max: the number of a cpuN, nodeN, indexK, domainM. */
static int eat_index(struct gv *g, const char **p, unsigned long max, unsigned long *out)
{
	if (cpulist_number(p, out) < 0 || **p != '/')
		return gv_error(g, "malformed path");
	if (*out >= max)
		return gv_error(g, "number in path out of range");
	(*p)++;
	return 0;
}

static int cpu_line(struct gv *g, const char *rest, const char *value)
{
	unsigned long n, k;
	struct gv_cpu *c;

	if (eat_index(g, &rest, GUEST_VIEW_MAX_CPUS, &n) < 0)
		return -1;
	if (!strcmp(rest, "topology/physical_package_id"))
		return parse_id(g, value, &gv_cpu(g, n)->package);
	if (!strcmp(rest, "topology/die_id"))
		return parse_id(g, value, &gv_cpu(g, n)->die);
	if (!strcmp(rest, "topology/thread_siblings_list"))
		return set_cpulist(g, value, &gv_cpu(g, n)->siblings);
	if (!strcmp(rest, "topology/cluster_cpus_list"))
		return set_cpulist(g, value, &gv_cpu(g, n)->cluster);
	if (!eat(&rest, "cache/index"))
		return 0;
	if (eat_index(g, &rest, MAX_CACHES, &k) < 0)
		return -1;
	c = gv_cpu(g, n);
	if (!strcmp(rest, "level")) {
		unsigned long level;
		const char *v = value;

		if (cpulist_number(&v, &level) < 0 || *v || level > 255)
			return gv_error(g, "not a cache level");
		gv_cache(c, k)->level = (int)level;
	} else if (!strcmp(rest, "type")) {
		gv_cache(c, k)->instruction = !strcmp(value, "Instruction");
	} else if (!strcmp(rest, "shared_cpu_list")) {
		return set_cpulist(g, value, &gv_cache(c, k)->shared);
	}
	return 0;
}

/* "Node 0 MemTotal:  524288 kB Node 0 MemFree: ..." (newlines folded). */
static int parse_meminfo(struct gv *g, const char *value, long long *kib)
{
	const char *p = strstr(value, "MemTotal:");
	unsigned long long v = 0;
	int digits = 0;

	if (!p)
		return gv_error(g, "no MemTotal");
	p += strlen("MemTotal:");
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9') {
		if (++digits > 15)
			return gv_error(g, "MemTotal out of range");
		v = v * 10 + (unsigned long long)(*p++ - '0');
	}
	if (!digits || (*p && *p != ' '))
		return gv_error(g, "malformed MemTotal");
	*kib = (long long)v;
	return 0;
}

static int parse_distances(struct gv *g, const char *value, struct gv_node *nd)
{
	const char *p = value;

	nd->nr_dist = 0;
	nd->has_dist = 1;
	while (*p == ' ')
		p++;
	while (*p) {
		unsigned long d;

		if (cpulist_number(&p, &d) < 0 || d > 1000000 || (*p && *p != ' '))
			return gv_error(g, "not a list of distances");
		if (nd->nr_dist >= GUEST_VIEW_MAX_NODES)
			return gv_error(g, "too many distances");
		if (!nd->dist)
			nd->dist = xcalloc(GUEST_VIEW_MAX_NODES, sizeof(*nd->dist));
		nd->dist[nd->nr_dist++] = (long)d;
		while (*p == ' ')
			p++;
	}
	return 0;
}

static int node_line(struct gv *g, const char *rest, const char *value)
{
	unsigned long n;
	struct gv_node *nd;

	if (eat_index(g, &rest, GUEST_VIEW_MAX_NODES, &n) < 0)
		return -1;
	if (!strcmp(rest, "cpulist")) {
		nd = gv_node(g, n);
		if (set_cpulist(g, value, &nd->cpus) < 0)
			return -1;
		if (!nd->bits)
			nd->bits = xcalloc(CPULIST_LONGS(GUEST_VIEW_MAX_CPUS), sizeof(*nd->bits));
		memcpy(nd->bits, g->scratch, CPULIST_LONGS(GUEST_VIEW_MAX_CPUS) * sizeof(*nd->bits));
	} else if (!strcmp(rest, "distance")) {
		return parse_distances(g, value, gv_node(g, n));
	} else if (!strcmp(rest, "meminfo")) {
		return parse_meminfo(g, value, &gv_node(g, n)->mem_kib);
	}
	return 0;
}

static int domain_line(struct gv *g, const char *rest, const char *value)
{
	unsigned long n, m;
	struct gv_cpu *c;

	if (eat_index(g, &rest, GUEST_VIEW_MAX_CPUS, &n) < 0)
		return -1;
	if (!eat(&rest, "domain"))
		return 0;
	if (eat_index(g, &rest, MAX_DOMAINS, &m) < 0)
		return -1;
	if (strcmp(rest, "name"))
		return 0;
	if (!*value)
		return gv_error(g, "empty domain name");
	c = gv_cpu(g, n);
	if (m >= c->nr_domains) {
		c->domains = xrealloc(c->domains, (m + 1) * sizeof(*c->domains));
		for (unsigned i = c->nr_domains; i <= m; i++)
			c->domains[i] = NULL;
		c->nr_domains = (unsigned)m + 1;
	}
	set_string(&c->domains[m], value);
	return 0;
}

static int gv_line(struct gv *g, const char *path, const char *value)
{
	const char *rest = path;

	g->path = path;
	if (!strcmp(path, "/proc/sys/kernel/osrelease")) {
		set_string(&g->kernel, value);
		return 0;
	}
	if (!strcmp(path, "/sys/devices/system/cpu/online")) {
		if (cpulist_parse(value, g->online, GUEST_VIEW_MAX_CPUS, NULL, 0) < 0)
			return gv_error(g, "not a cpulist of CPUs below 16384");
		g->has_online = 1;
		return 0;
	}
	if (eat(&rest, "/sys/devices/system/cpu/cpu"))
		return cpu_line(g, rest, value);
	if (eat(&rest, "/sys/devices/system/node/node"))
		return node_line(g, rest, value);
	if (eat(&rest, "/sys/kernel/debug/sched/domains/cpu") ||
	    eat(&rest, "/proc/sys/kernel/sched_domain/cpu"))
		return domain_line(g, rest, value);
	return 0;
}

static int gv_parse(struct gv *g, const char *text, size_t len)
{
	char *line = xmalloc(GUEST_VIEW_MAX_LINE + 1);
	size_t pos = 0;
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char *eq;

		g->lineno++;
		g->path = NULL;
		if (n > GUEST_VIEW_MAX_LINE) {
			ret = gv_error(g, "line longer than 8192 bytes");
			break;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (strlen(line) != n) {
			ret = gv_error(g, "NUL byte in line");
			break;
		}
		while (n && is_space(line[n - 1]))
			line[--n] = '\0';
		if (!n)
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			ret = gv_error(g, "not a 'path=value' line");
			break;
		}
		*eq = '\0';
		ret = gv_line(g, line, eq + 1);
	}
	free(line);
	return ret;
}

static struct json_object *json_string_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *json_id_or_null(long v)
{
	return v == LONG_MIN ? NULL : json_object_new_int((int)v);
}

/* L3 when there is one, else the highest level; a data or unified cache
 * wins over an instruction cache of the same level. */
static const struct gv_cache *pick_llc(const struct gv_cpu *c)
{
	const struct gv_cache *best = NULL;
	int want = -1;

	for (unsigned k = 0; k < c->nr_caches; k++) {
		int l = c->caches[k].level;

		if (l == 3 || (want != 3 && l > want))
			want = l;
	}
	if (want < 0)
		return NULL;
	for (unsigned k = 0; k < c->nr_caches; k++) {
		const struct gv_cache *ca = &c->caches[k];

		if (ca->level != want)
			continue;
		if (!best || (best->instruction && !ca->instruction))
			best = ca;
	}
	return best;
}

static struct json_object *gv_json(struct gv *g)
{
	struct json_object *view = json_object_new_object();
	struct json_object *nodes = json_object_new_array();
	struct json_object *dist = json_object_new_array();
	struct json_object *cpus = json_object_new_array();
	long *node_of = xmalloc(GUEST_VIEW_MAX_CPUS * sizeof(*node_of));
	unsigned nr_online = 0;

	for (unsigned i = 0; i < GUEST_VIEW_MAX_CPUS; i++) {
		node_of[i] = -1;
		nr_online += cpulist_test(g->online, i);
	}
	json_object_object_add(view, "cpus", json_object_new_int((int)nr_online));

	for (unsigned n = 0; n < g->nr_node; n++) {
		struct gv_node *nd = &g->node[n];
		struct json_object *o, *row = NULL;

		if (!nd->seen)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "node", json_object_new_int((int)n));
		json_object_object_add(o, "cpus", json_string_or_null(nd->cpus));
		json_object_object_add(o, "mem_mib", nd->mem_kib < 0 ? NULL :
				       json_object_new_int64(nd->mem_kib / 1024));
		json_object_array_add(nodes, o);
		if (nd->has_dist) {
			row = json_object_new_array();
			for (unsigned m = 0; m < nd->nr_dist; m++)
				json_object_array_add(row, json_object_new_int((int)nd->dist[m]));
		}
		json_object_array_add(dist, row);
		/* the lowest node listing a CPU is its node */
		for (unsigned w = 0; nd->bits && w < CPULIST_LONGS(GUEST_VIEW_MAX_CPUS); w++) {
			for (unsigned b = 0; nd->bits[w] && b < CPULIST_LONG_BITS; b++) {
				unsigned i = (unsigned)(w * CPULIST_LONG_BITS + b);

				if (node_of[i] < 0 && cpulist_test(nd->bits, i))
					node_of[i] = (long)n;
			}
		}
	}
	json_object_object_add(view, "nodes", nodes);
	json_object_object_add(view, "distances", dist);

	for (unsigned i = 0; i < GUEST_VIEW_MAX_CPUS; i++) {
		static const struct gv_cpu none = { .package = LONG_MIN, .die = LONG_MIN };
		const struct gv_cpu *c = i < g->nr_cpu ? &g->cpu[i] : &none;
		const struct gv_cache *llc;
		struct json_object *o, *doms;

		if (!cpulist_test(g->online, i))
			continue;
		o = json_object_new_object();
		doms = json_object_new_array();
		llc = pick_llc(c);
		json_object_object_add(o, "cpu", json_object_new_int((int)i));
		json_object_object_add(o, "package", json_id_or_null(c->package));
		json_object_object_add(o, "die", json_id_or_null(c->die));
		json_object_object_add(o, "node", node_of[i] < 0 ? NULL :
				       json_object_new_int((int)node_of[i]));
		json_object_object_add(o, "siblings", json_string_or_null(c->siblings));
		json_object_object_add(o, "llc", json_string_or_null(llc ? llc->shared : NULL));
		/* compared only where the expected view has it (arm64) */
		if (g->clusters)
			json_object_object_add(o, "cluster", json_string_or_null(c->cluster));
		for (unsigned m = 0; m < c->nr_domains; m++)
			json_object_array_add(doms, json_string_or_null(c->domains[m]));
		json_object_object_add(o, "domains", doms);
		json_object_array_add(cpus, o);
	}
	json_object_object_add(view, "cpu", cpus);
	json_object_object_add(view, "kernel", json_string_or_null(g->kernel));
	free(node_of);
	return view;
}

struct json_object *guest_view_from_sysfs(const char *text, size_t len, struct strbuf *err)
{
	return guest_view_from_sysfs_flags(text, len, 0, err);
}

struct json_object *guest_view_from_sysfs_flags(const char *text, size_t len, unsigned flags,
						struct strbuf *err)
{
	struct gv g;
	struct json_object *view = NULL;

	memset(&g, 0, sizeof(g));
	g.err = err;
	g.clusters = flags & GUEST_VIEW_CLUSTERS;
	g.online = xcalloc(CPULIST_LONGS(GUEST_VIEW_MAX_CPUS), sizeof(*g.online));
	g.scratch = xcalloc(CPULIST_LONGS(GUEST_VIEW_MAX_CPUS), sizeof(*g.scratch));
	if (gv_parse(&g, text, len) == 0) {
		if (!g.has_online)
			strbuf_addstr(err, "sysfs snapshot has no '/sys/devices/system/cpu/online'");
		else
			view = gv_json(&g);
	}
	gv_release(&g);
	return view;
}
