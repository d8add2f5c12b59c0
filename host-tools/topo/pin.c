/* pin.c - the vCPU -> host CPU map of --pin (pin.h). */
#include "topo/pin.h"
#include "topo/guestview.h"
#include "common/cpulist.h"
#include "lib/json.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

struct pin_row {
	unsigned package, cpu;
	int llc, core;
};

static int row_cmp(const void *a, const void *b)
{
	const struct pin_row *x = a, *y = b;

	if (x->package != y->package)
		return x->package < y->package ? -1 : 1;
	if (x->llc != y->llc)
		return x->llc < y->llc ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* The first CPU of a canonical CPU list, -1 when there is none. */
static int first_cpu(struct json_object *o, const char *key)
{
	const char *s = json_get_str(o, key);
	unsigned long v;

	if (!s || cpulist_number(&s, &v) < 0 || v >= GUEST_VIEW_MAX_CPUS)
		return -1;
	return (int)v;
}

int pin_host_from_view(struct json_object *view, struct pin_host *h, struct strbuf *err)
{
	struct json_object *cpus = NULL;
	struct pin_row *rows;
	size_t n, nr = 0;
	double v;

	memset(h, 0, sizeof(*h));
	if (!json_object_object_get_ex(view, "cpu", &cpus) ||
	    !json_object_is_type(cpus, json_type_array) ||
	    !(n = json_object_array_length(cpus)) || n > GUEST_VIEW_MAX_CPUS) {
		strbuf_addstr(err, "the host's topology lists no CPUs");
		return -1;
	}
	rows = xcalloc(n, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i);
		struct pin_row *r = &rows[nr];

		if (json_get_num(c, "cpu", &v) < 0 || v < 0 || v >= GUEST_VIEW_MAX_CPUS)
			continue;
		r->cpu = (unsigned)v;
		r->package = json_get_num(c, "package", &v) == 0 && v >= 0 && v < 65536 ? (unsigned)v : 0;
		r->core = first_cpu(c, "siblings");
		if (r->core < 0)
			r->core = (int)r->cpu;
		r->llc = first_cpu(c, "llc");
		if (r->llc < 0)
			r->llc = -1 - (int)r->package;
		nr++;
	}
	if (!nr) {
		free(rows);
		strbuf_addstr(err, "the host's topology lists no CPUs");
		return -1;
	}
	qsort(rows, nr, sizeof(*rows), row_cmp);
	h->core = xcalloc(nr, sizeof(*h->core));
	for (size_t i = 0; i < nr; i++) {
		struct pin_core *c = h->nr_cores ? &h->core[h->nr_cores - 1] : NULL;

		if (!i || row_cmp(&(struct pin_row){ rows[i].package, 0, rows[i].llc, rows[i].core },
				  &(struct pin_row){ rows[i - 1].package, 0, rows[i - 1].llc,
						     rows[i - 1].core })) {
			c = &h->core[h->nr_cores++];
			c->package = rows[i].package;
			c->llc = rows[i].llc;
		}
		if (c->nr_threads < sizeof(c->thread) / sizeof(c->thread[0]))
			c->thread[c->nr_threads++] = rows[i].cpu;
	}
	h->nr_cpus = (unsigned)nr;
	free(rows);
	return 0;
}

void pin_host_release(struct pin_host *h)
{
	free(h->core);
	memset(h, 0, sizeof(*h));
}

void pin_host_restrict(struct pin_host *h, const unsigned long *allowed, unsigned nbits)
{
	unsigned nr = 0, cpus = 0;

	for (unsigned i = 0; i < h->nr_cores; i++) {
		struct pin_core c = h->core[i];

		c.nr_threads = 0;
		for (unsigned k = 0; k < h->core[i].nr_threads; k++) {
			unsigned cpu = h->core[i].thread[k];

			if (cpu < nbits && cpulist_test(allowed, cpu))
				c.thread[c.nr_threads++] = cpu;
		}
		if (c.nr_threads) {
			h->core[nr++] = c;
			cpus += c.nr_threads;
		}
	}
	h->nr_cores = nr;
	h->nr_cpus = cpus;
}

static int same_llc(const struct pin_core *a, const struct pin_core *b)
{
	return a->package == b->package && a->llc == b->llc;
}

int pin_map(const struct topo *t, const struct pin_host *h, unsigned *map, struct strbuf *why)
{
	unsigned n = topo_boot_cpus(t), T = t->threads, L = t->llc;
	unsigned nllc = (n + T * L - 1) / (T * L), guest_cores = (n + T - 1) / T;
	unsigned max_threads = 0, fit = 0, best_llc = 0;
	unsigned *assigned;
	char *used;
	int ret = 0;

	if (n > h->nr_cpus) {
		strbuf_addf(why, "CPUs: the guest has %u vCPUs, this host %u usable CPU%s", n, h->nr_cpus,
			    h->nr_cpus == 1 ? "" : "s");
		return -1;
	}
	for (unsigned i = 0, run = 0; i < h->nr_cores; i++) {
		if (h->core[i].nr_threads > max_threads)
			max_threads = h->core[i].nr_threads;
		if (i && !same_llc(&h->core[i], &h->core[i - 1]))
			run = 0;
		if (h->core[i].nr_threads >= T) {
			fit++;
			if (++run > best_llc)
				best_llc = run;
		}
	}
	if (max_threads < T) {
		strbuf_addf(why, "threads per core: guest cores have %u, this host's at most %u",
			    T, max_threads);
		return -1;
	}
	if (fit < guest_cores) {
		strbuf_addf(why, "cores: the guest has %u cores of %u thread%s, this host %u such cores",
			    guest_cores, T, T == 1 ? "" : "s", fit);
		return -1;
	}
	assigned = xcalloc((size_t)nllc * L, sizeof(*assigned));
	used = xcalloc(h->nr_cores, 1);
	for (unsigned g = 0; g < nllc && !ret; g++) {
		/* the last LLCs may be partly hot-plug slots, empty at boot */
		unsigned in = n - g * T * L < T * L ? n - g * T * L : T * L;
		unsigned need = (in + T - 1) / T, start = 0, done = 0;

		/* first fit: the first host LLC with `need` free cores that fit */
		while (start < h->nr_cores && !done) {
			unsigned end = start, free_cores = 0;

			while (end < h->nr_cores && same_llc(&h->core[end], &h->core[start])) {
				free_cores += !used[end] && h->core[end].nr_threads >= T;
				end++;
			}
			if (free_cores >= need) {
				for (unsigned i = start, k = 0; k < need; i++) {
					if (used[i] || h->core[i].nr_threads < T)
						continue;
					used[i] = 1;
					assigned[g * L + k++] = i;
				}
				done = 1;
			}
			start = end;
		}
		if (!done) {
			strbuf_addf(why, "LLC: a guest LLC of %u cores x %u thread%s fits in no host LLC "
				    "(this host's hold at most %u such cores)", need, T, T == 1 ? "" : "s",
				    best_llc);
			ret = -1;
		}
	}
	for (unsigned i = 0; i < n && !ret; i++)
		map[i] = h->core[assigned[(i / (T * L)) * L + (i / T) % L]].thread[i % T];
	free(assigned);
	free(used);
	return ret;
}
