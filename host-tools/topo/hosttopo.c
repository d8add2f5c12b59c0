/* hosttopo.c - the machine `lab bare` runs on, in the spec grammar: derived
 * from the runner's topology probe, compared with presets and --expect. */
#include "topo/hosttopo.h"
#include "topo/guestview.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HT_BITS GUEST_VIEW_MAX_CPUS

/* CPUs in a cpulist string member of o; -1 when absent or malformed. */
static int list_count(struct json_object *o, const char *key, unsigned long *bits)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return -1;
	return cpulist_parse(json_object_get_string(v), bits, HT_BITS, NULL, 0);
}

static long int_member(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	return (long)json_object_get_int64(v);
}

struct ht_counts {
	unsigned cpus, sockets, threads, llc_cpus, cpu_nodes, memnodes;
	uint64_t node_mem, memnode_mem;
};

static int count_cpus(struct json_object *cpus, struct ht_counts *c, struct strbuf *notes)
{
	unsigned long *bits = xcalloc(CPULIST_LONGS(HT_BITS), sizeof(long));
	long pkgs[256];
	unsigned nr_pkgs = 0, odd_smt = 0, odd_llc = 0;
	size_t n = json_object_array_length(cpus);

	if (!n) {
		free(bits);
		return -1;
	}
	c->cpus = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(cpus, i);
		long pkg = int_member(o, "package");
		int th = list_count(o, "siblings", bits), lc = list_count(o, "llc", bits);
		unsigned k;

		for (k = 0; k < nr_pkgs && pkgs[k] != pkg; k++)
			;
		if (k == nr_pkgs && nr_pkgs < ARRAY_SIZE(pkgs))
			pkgs[nr_pkgs++] = pkg;
		if (i == 0) {
			c->threads = th > 0 ? (unsigned)th : 1;
			c->llc_cpus = lc > 0 ? (unsigned)lc : 0;
		} else {
			odd_smt += th > 0 && (unsigned)th != c->threads;
			odd_llc += lc > 0 && (unsigned)lc != c->llc_cpus;
		}
	}
	free(bits);
	c->sockets = nr_pkgs ? nr_pkgs : 1;
	if (odd_smt)
		strbuf_addf(notes, "%u CPUs have a different number of SMT siblings than cpu0 "
			    "(SMT partly off?)\n", odd_smt);
	if (odd_llc)
		strbuf_addf(notes, "%u CPUs share their LLC with a different number of CPUs than cpu0\n",
			    odd_llc);
	if (c->cpus % c->sockets || (c->cpus / c->sockets) % c->threads)
		strbuf_addf(notes, "%u online CPUs do not divide evenly into %u socket%s of %u-thread "
			    "cores (CPUs offline?)\n", c->cpus, c->sockets, c->sockets == 1 ? "" : "s",
			    c->threads);
	return 0;
}

static void count_nodes(struct json_object *nodes, struct ht_counts *c)
{
	size_t n = json_object_array_length(nodes);

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(nodes, i), *v;
		const char *cpus = json_object_object_get_ex(o, "cpus", &v) ? json_object_get_string(v) : "";
		long mem = int_member(o, "mem_mib");

		if (cpus && *cpus) {
			if (!c->cpu_nodes++ && mem > 0)
				c->node_mem = (uint64_t)mem;
		} else {
			if (!c->memnodes++ && mem > 0)
				c->memnode_mem = (uint64_t)mem;
		}
	}
	if (!c->cpu_nodes)
		c->cpu_nodes = 1;
}

/* ",dist=a:b:..." from the view's matrix, when it is complete and square. */
static void add_view_dist(struct json_object *dist, unsigned nr_nodes, struct strbuf *sb)
{
	struct strbuf m = STRBUF_INIT;

	if (!dist || nr_nodes < 2 || json_object_array_length(dist) != nr_nodes)
		return;
	for (unsigned a = 0; a < nr_nodes; a++) {
		struct json_object *row = json_object_array_get_idx(dist, a);

		if (!row || !json_object_is_type(row, json_type_array) ||
		    json_object_array_length(row) != nr_nodes) {
			strbuf_release(&m);
			return;
		}
		for (unsigned b = 0; b < nr_nodes; b++)
			strbuf_addf(&m, "%s%d", a || b ? ":" : "",
				    json_object_get_int(json_object_array_get_idx(row, b)));
	}
	strbuf_addf(sb, ",dist=%s", m.buf);
	strbuf_release(&m);
}

static void full_spec(const struct ht_counts *c, unsigned llc, struct json_object *view,
		      int with_dist, struct strbuf *sb)
{
	unsigned cores = c->cpus / c->sockets / c->threads;
	unsigned nps = c->cpu_nodes >= c->sockets ? c->cpu_nodes / c->sockets : 1;
	struct json_object *dist = NULL;

	strbuf_reset(sb);
	strbuf_addf(sb, "%us%uc%ut,llc=%u,nps=%u", c->sockets, cores ? cores : 1, c->threads, llc,
		    nps);
	if (c->node_mem)
		strbuf_addf(sb, ",mem=%lluM", (unsigned long long)c->node_mem);
	if (c->memnodes) {
		strbuf_addf(sb, ",memnodes=%u", c->memnodes);
		if (c->memnode_mem)
			strbuf_addf(sb, ",memnodemem=%lluM", (unsigned long long)c->memnode_mem);
	}
	if (with_dist && json_object_object_get_ex(view, "distances", &dist))
		add_view_dist(dist, c->cpu_nodes + c->memnodes, sb);
}

static unsigned default_llc(unsigned cores)
{
	return cores > 8 && cores % 8 == 0 ? 8 : cores;
}

static int same_dist(const struct topo *a, const struct topo *b)
{
	if (a->nr_nodes != b->nr_nodes)
		return 0;
	for (unsigned i = 0; i < a->nr_nodes; i++)
		for (unsigned k = 0; k < a->nr_nodes; k++)
			if (a->dist[i][k] != b->dist[i][k])
				return 0;
	return 1;
}

static void short_form(const struct topo *t, struct strbuf *out)
{
	struct topo plain;
	struct strbuf e = STRBUF_INIT;
	const char *d;

	strbuf_addf(out, "%us%uc", t->sockets, t->cores);
	if (t->threads > 1)
		strbuf_addf(out, "%ut", t->threads);
	if (t->llc != default_llc(t->cores))
		strbuf_addf(out, ",llc=%u", t->llc);
	if (t->nps > 1)
		strbuf_addf(out, ",nps=%u", t->nps);
	if (t->memnodes)
		strbuf_addf(out, ",memnodes=%u", t->memnodes);
	/* distances only when they are not what the grammar assumes */
	if (topo_parse(out->buf, &plain, &e) == 0 && !same_dist(&plain, t) &&
	    (d = strstr(t->spec, ",dist=")))
		strbuf_add(out, d, strcspn(d + 1, ",") + 1);
	strbuf_release(&e);
}

int hosttopo_from_view(struct json_object *view, struct topo *t, struct strbuf *short_spec,
		       struct strbuf *notes, struct strbuf *err)
{
	struct json_object *cpus, *nodes;
	struct ht_counts c;
	struct strbuf spec = STRBUF_INIT, e = STRBUF_INIT;
	unsigned llc;
	int ret = -1;

	memset(&c, 0, sizeof(c));
	if (!view || !json_object_object_get_ex(view, "cpu", &cpus) ||
	    !json_object_is_type(cpus, json_type_array) || count_cpus(cpus, &c, notes) < 0) {
		strbuf_addstr(err, "the topology probe found no CPUs");
		return -1;
	}
	if (json_object_object_get_ex(view, "nodes", &nodes) &&
	    json_object_is_type(nodes, json_type_array))
		count_nodes(nodes, &c);
	else
		c.cpu_nodes = 1;
	if (!c.llc_cpus)
		strbuf_addstr(notes, "no last-level cache information: one LLC per socket assumed\n");
	llc = c.llc_cpus ? c.llc_cpus / c.threads : c.cpus / c.sockets / c.threads;
	if (!llc)
		llc = 1;
	/* the exact machine first; then what the grammar can say about it */
	full_spec(&c, llc, view, 1, &spec);
	if (topo_parse(spec.buf, t, &e) < 0) {
		strbuf_addf(notes, "the host's node distances do not fit the spec grammar (%s)\n", e.buf);
		strbuf_reset(&e);
		full_spec(&c, llc, view, 0, &spec);
		if (topo_parse(spec.buf, t, &e) < 0) {
			strbuf_addf(notes, "its LLCs do not fit either (%s): one LLC per socket assumed\n",
				    e.buf);
			strbuf_reset(&e);
			full_spec(&c, c.cpus / c.sockets / c.threads, view, 0, &spec);
			if (topo_parse(spec.buf, t, &e) < 0) {
				strbuf_addf(err, "cannot express the host as a spec: %s", e.buf);
				goto out;
			}
		}
	}
	short_form(t, short_spec);
	ret = 0;
out:
	strbuf_release(&spec);
	strbuf_release(&e);
	return ret;
}

static int diff_uint(struct strbuf *diff, const char *what, const char *an, unsigned a,
		     const char *bn, unsigned b)
{
	if (a == b)
		return 0;
	strbuf_addf(diff, "%s: %s has %u, %s has %u\n", what, an, a, bn, b);
	return 1;
}

int hosttopo_diff(const struct topo *a, const char *an, const struct topo *b, const char *bn,
		  struct strbuf *diff)
{
	int n = 0;

	n += diff_uint(diff, "sockets", an, a->sockets, bn, b->sockets);
	n += diff_uint(diff, "cores per socket", an, a->cores, bn, b->cores);
	n += diff_uint(diff, "threads per core", an, a->threads, bn, b->threads);
	n += diff_uint(diff, "cores per LLC", an, a->llc, bn, b->llc);
	n += diff_uint(diff, "NUMA nodes per socket", an, a->nps, bn, b->nps);
	n += diff_uint(diff, "memory-only nodes", an, a->memnodes, bn, b->memnodes);
	if (a->nr_nodes == b->nr_nodes && !same_dist(a, b)) {
		strbuf_addf(diff, "node distances: %s and %s differ\n", an, bn);
		n++;
	}
	return n;
}

int hosttopo_closest(const struct topo *t, const struct topo_preset *presets, int n)
{
	int best = -1, best_score = 0;
	unsigned best_gap = 0;

	for (int i = 0; i < n; i++) {
		struct topo p;
		struct strbuf e = STRBUF_INIT, d = STRBUF_INIT;
		int score;
		unsigned gap;

		if (topo_parse(presets[i].spec, &p, &e) < 0) {
			strbuf_release(&e);
			continue;
		}
		score = hosttopo_diff(t, "a", &p, "b", &d);
		gap = topo_nr_cpus(&p) > topo_nr_cpus(t) ? topo_nr_cpus(&p) - topo_nr_cpus(t) :
							    topo_nr_cpus(t) - topo_nr_cpus(&p);
		if (best < 0 || score < best_score || (score == best_score && gap < best_gap)) {
			best = i;
			best_score = score;
			best_gap = gap;
		}
		strbuf_release(&e);
		strbuf_release(&d);
	}
	return best;
}
