/* verify.c - topology verification: walks the expected and the guest view
 * (same schema) and reports every difference a scheduler would notice. */
#include "topo/verify.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

struct differ {
	struct strbuf *out;
	int count, max_lines;
};

static void diff(struct differ *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diff(struct differ *d, const char *fmt, ...)
{
	va_list ap;

	if (d->count++ >= d->max_lines)
		return;
	strbuf_addstr(d->out, "  ");
	va_start(ap, fmt);
	strbuf_vaddf(d->out, fmt, ap);
	va_end(ap);
	strbuf_addch(d->out, '\n');
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static const char *str_or(struct json_object *o, const char *key, const char *dflt)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}

static long long int_or(struct json_object *o, const char *key, long long dflt)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : dflt;
}

static size_t arr_len(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static void domains_text(struct json_object *a, struct strbuf *sb)
{
	for (size_t i = 0; i < arr_len(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (i)
			strbuf_addch(sb, ' ');
		strbuf_addstr(sb, json_object_get_string(e));
	}
	if (!arr_len(a))
		strbuf_addstr(sb, "(none)");
}

static int domains_equal(struct json_object *a, struct json_object *b)
{
	if (arr_len(a) != arr_len(b))
		return 0;
	for (size_t i = 0; i < arr_len(a); i++) {
		const char *x = json_object_get_string(json_object_array_get_idx(a, i));
		const char *y = json_object_get_string(json_object_array_get_idx(b, i));

		if (!x || !y || strcmp(x, y))
			return 0;
	}
	return 1;
}

static void compare_cpu(struct differ *d, struct json_object *e, struct json_object *g)
{
	static const char *const ints[] = { "package", "die", "node" };
	static const char *const strs[] = { "siblings", "llc" };
	long long cpu = int_or(e, "cpu", -1);

	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		long long x = int_or(e, ints[i], -1), y = int_or(g, ints[i], -1);

		if (x != y)
			diff(d, "cpu %lld: %s expected %lld, guest has %lld", cpu, ints[i], x, y);
	}
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		const char *x = str_or(e, strs[i], "?"), *y = str_or(g, strs[i], "(missing)");

		if (strcmp(x, y))
			diff(d, "cpu %lld: %s expected %s, guest has %s", cpu, strs[i], x, y);
	}
	/* clusters are a level of their own only on arm64 (topo-view.c) */
	if (get(e, "cluster") && strcmp(str_or(e, "cluster", "?"), str_or(g, "cluster", "(missing)")))
		diff(d, "cpu %lld: cluster expected %s, guest has %s", cpu,
		     str_or(e, "cluster", "?"), str_or(g, "cluster", "(missing)"));
	if (!domains_equal(get(e, "domains"), get(g, "domains"))) {
		struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

		domains_text(get(e, "domains"), &x);
		domains_text(get(g, "domains"), &y);
		diff(d, "cpu %lld: sched domains expected %s, guest has %s", cpu, x.buf, y.buf);
		strbuf_release(&x);
		strbuf_release(&y);
	}
}

static void compare_nodes(struct differ *d, struct json_object *en, struct json_object *gn)
{
	if (arr_len(en) != arr_len(gn)) {
		diff(d, "nodes: expected %zu, guest has %zu", arr_len(en), arr_len(gn));
		return;
	}
	for (size_t i = 0; i < arr_len(en); i++) {
		struct json_object *e = json_object_array_get_idx(en, i);
		struct json_object *g = json_object_array_get_idx(gn, i);
		long long em = int_or(e, "mem_mib", 0), gm = int_or(g, "mem_mib", -1);
		long long floor = em - em * VIEW_MEM_SLACK_PCT / 100 - VIEW_MEM_SLACK_MIB;

		if (strcmp(str_or(e, "cpus", "?"), str_or(g, "cpus", "(missing)")))
			diff(d, "node %zu: cpus expected %s, guest has %s", i,
			     str_or(e, "cpus", "?"), str_or(g, "cpus", "(missing)"));
		if (gm > em || gm < floor)
			diff(d, "node %zu: memory expected %lld MiB (at least %lld visible), guest has %lld MiB",
			     i, em, floor, gm);
	}
}

static void compare_distances(struct differ *d, struct json_object *ed, struct json_object *gd)
{
	size_t n = arr_len(ed);

	if (n != arr_len(gd)) {
		diff(d, "distances: expected a %zux%zu matrix, guest has %zu rows", n, n, arr_len(gd));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *er = json_object_array_get_idx(ed, i);
		struct json_object *gr = json_object_array_get_idx(gd, i);

		for (size_t j = 0; j < arr_len(er); j++) {
			int x = json_object_get_int(json_object_array_get_idx(er, j));
			int y = j < arr_len(gr) ? json_object_get_int(json_object_array_get_idx(gr, j)) : -1;

			if (x != y)
				diff(d, "distance node %zu -> node %zu: expected %d, guest has %d", i, j, x, y);
		}
	}
}

int view_compare(struct json_object *expected, struct json_object *guest,
		 struct strbuf *out, int max_lines)
{
	struct differ d = { out, 0, max_lines };
	struct json_object *ec = get(expected, "cpu"), *gc = get(guest, "cpu");
	long long ne = int_or(expected, "cpus", -1), ng = int_or(guest, "cpus", -1);

	if (ne != ng)
		diff(&d, "cpus: expected %lld, guest has %lld online", ne, ng);
	compare_nodes(&d, get(expected, "nodes"), get(guest, "nodes"));
	compare_distances(&d, get(expected, "distances"), get(guest, "distances"));
	for (size_t i = 0; i < arr_len(ec); i++) {
		struct json_object *e = json_object_array_get_idx(ec, i), *g = NULL;
		long long cpu = int_or(e, "cpu", -1);

		for (size_t j = 0; j < arr_len(gc); j++) {
			struct json_object *c = json_object_array_get_idx(gc, j);

			if (int_or(c, "cpu", -2) == cpu) {
				g = c;
				break;
			}
		}
		if (!g) {
			diff(&d, "cpu %lld: missing in the guest", cpu);
			continue;
		}
		compare_cpu(&d, e, g);
	}
	if (d.count > d.max_lines)
		strbuf_addf(out, "  ... and %d more differences\n", d.count - d.max_lines);
	return d.count;
}
