/* schedstat.c - parses /proc/schedstat versions 15-17 into per-CPU and
 * per-domain counters, subtracts two snapshots and summarises per level. */
#include "results/schedstat.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Layouts, from the kernel's Documentation/scheduler/sched-stats.rst and
 * show_schedstat() in kernel/sched/stats.c (torvalds/linux), at the
 * versions that introduced them:
 *
 *   version N
 *   timestamp <jiffies>
 *   cpu<N> yld_count 0 sched_count sched_goidle ttwu_count ttwu_local
 *          rq_cpu_time run_delay pcount                      (9 numbers, all versions)
 *   v15, v16:  domain<N> <cpumask> 3 x 8 + 12 numbers         (36)
 *   v17:       domain<N> <name> <cpumask> 3 x 11 + 12 numbers (45)
 *
 * Each of the three blocks is one idle type: lb_count lb_balanced
 * lb_failed lb_imbalance lb_gained lb_hot_gained lb_nobusyq lb_nobusyg;
 * v17 (Swapnil Sapkal, "sched: Report the different kinds of imbalances in
 * /proc/schedstat", with K Prateek Nayak's "print domain name") replaced
 * lb_imbalance by lb_imbalance_load/_util/_task/_misfit and added the
 * domain name.  The blocks follow enum cpu_idle_type: CPU_IDLE,
 * CPU_NOT_IDLE, CPU_NEWLY_IDLE in v15 (6.1); v16 reordered the enum to
 * __CPU_NOT_IDLE, CPU_IDLE, CPU_NEWLY_IDLE, i.e. busy before idle.  The
 * last twelve are alb_count alb_failed alb_pushed, sbe_* x3 and sbf_* x3
 * (unused), ttwu_wake_remote ttwu_move_affine ttwu_move_balance.
 *
 * Every domain counter and the first five runqueue counters are unsigned
 * int in the kernel and wrap at 2^32; rq_cpu_time and run_delay are u64
 * nanoseconds, pcount an unsigned long.
 */

#define CPU_NUMBERS 9
#define BLOCKS_V15 8
#define BLOCKS_V17 11
#define TAIL_NUMBERS 12
#define MAX_TOKENS (3 + SCHEDSTAT_NR_ITYPES * BLOCKS_V17 + TAIL_NUMBERS)
#define MAX_MASK_LEN 4096

static const enum schedstat_itype order_v15[SCHEDSTAT_NR_ITYPES] = {
	SCHEDSTAT_IDLE, SCHEDSTAT_BUSY, SCHEDSTAT_NEWIDLE,
};
static const enum schedstat_itype order_v16[SCHEDSTAT_NR_ITYPES] = {
	SCHEDSTAT_BUSY, SCHEDSTAT_IDLE, SCHEDSTAT_NEWIDLE,
};
static const char *const itype_names[SCHEDSTAT_NR_ITYPES] = { "idle", "busy", "newidle" };

#define LB_FIELDS(X) X(count) X(balanced) X(failed) X(imbalance_load) X(imbalance_util) \
	X(imbalance_task) X(imbalance_misfit) X(gained) X(hot_gained) X(nobusyq) X(nobusyg)
#define DOMAIN_FIELDS(X) X(alb_count) X(alb_failed) X(alb_pushed) X(sbe_count) \
	X(sbe_balanced) X(sbe_pushed) X(sbf_count) X(sbf_balanced) X(sbf_pushed) \
	X(ttwu_wake_remote) X(ttwu_move_affine) X(ttwu_move_balance)
#define CPU32_FIELDS(X) X(yld_count) X(sched_count) X(sched_goidle) X(ttwu_count) X(ttwu_local)
#define CPU64_FIELDS(X) X(rq_cpu_time) X(run_delay) X(pcount)

struct token {
	const char *p;
	size_t len;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct strbuf *err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(err);
	strbuf_addf(err, "line %u: ", line);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_u64(const struct token *t, uint64_t *out)
{
	uint64_t v = 0;

	if (!t->len || t->len > 20)
		return -1;
	for (size_t i = 0; i < t->len; i++) {
		unsigned d = (unsigned)(t->p[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* "cpu12" -> 12; the prefix is already checked. */
static int parse_index(const struct token *t, size_t prefix, unsigned max, unsigned *out)
{
	struct token num = { t->p + prefix, t->len - prefix };
	uint64_t v;

	if (num.len > 1 && num.p[0] == '0')
		return -1;
	if (parse_u64(&num, &v) || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int is_prefix(const struct token *t, const char *prefix)
{
	size_t n = strlen(prefix);

	return t->len > n && !memcmp(t->p, prefix, n);
}

static int token_is(const struct token *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->p, s, t->len);
}

static int parse_numbers(const struct token *t, unsigned n, uint64_t *v, unsigned line,
			 struct strbuf *err)
{
	for (unsigned i = 0; i < n; i++)
		if (parse_u64(&t[i], &v[i]))
			return fail(err, line, "field %u is not a number", i + 1);
	return 0;
}

static void fill_lb(struct schedstat_lb *lb, const uint64_t *v, int v17)
{
	lb->count = v[0];
	lb->balanced = v[1];
	lb->failed = v[2];
	if (v17) {
		lb->imbalance_load = v[3];
		lb->imbalance_util = v[4];
		lb->imbalance_task = v[5];
		lb->imbalance_misfit = v[6];
		lb->imbalance = v[3] + v[4] + v[5] + v[6];
		v += 4;
	} else {
		lb->imbalance = v[3];
		v += 1;
	}
	lb->gained = v[3];
	lb->hot_gained = v[4];
	lb->nobusyq = v[5];
	lb->nobusyg = v[6];
}

static int parse_cpu(struct schedstat *ss, const struct token *t, unsigned nt, unsigned line,
		     struct strbuf *err)
{
	uint64_t v[CPU_NUMBERS];
	struct schedstat_cpu *c;
	unsigned id;

	if (parse_index(&t[0], 3, SCHEDSTAT_MAX_CPUS * 8, &id))
		return fail(err, line, "bad cpu number");
	if (nt != 1 + CPU_NUMBERS)
		return fail(err, line, "cpu%u has %u fields, expected %d", id, nt - 1, CPU_NUMBERS);
	if (ss->nr_cpus && id <= ss->cpus[ss->nr_cpus - 1].cpu)
		return fail(err, line, "cpu%u out of order", id);
	if (ss->nr_cpus >= SCHEDSTAT_MAX_CPUS)
		return fail(err, line, "more than %d cpus", SCHEDSTAT_MAX_CPUS);
	if (parse_numbers(t + 1, CPU_NUMBERS, v, line, err))
		return -1;
	ss->cpus = xrealloc(ss->cpus, (ss->nr_cpus + 1) * sizeof(*ss->cpus));
	c = &ss->cpus[ss->nr_cpus++];
	memset(c, 0, sizeof(*c));
	c->cpu = id;
	/* v[1] is the O(1) scheduler's array expiration count, always 0 */
	c->yld_count = v[0];
	c->sched_count = v[2];
	c->sched_goidle = v[3];
	c->ttwu_count = v[4];
	c->ttwu_local = v[5];
	c->rq_cpu_time = v[6];
	c->run_delay = v[7];
	c->pcount = v[8];
	return 0;
}

static int valid_mask(const struct token *t)
{
	if (!t->len || t->len > MAX_MASK_LEN)
		return 0;
	for (size_t i = 0; i < t->len; i++) {
		char ch = t->p[i];

		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || ch == ','))
			return 0;
	}
	return 1;
}

static int parse_domain(struct schedstat *ss, const struct token *t, unsigned nt, unsigned line,
			struct strbuf *err)
{
	int v17 = ss->version >= 17;
	unsigned block = v17 ? BLOCKS_V17 : BLOCKS_V15;
	unsigned numbers = SCHEDSTAT_NR_ITYPES * block + TAIL_NUMBERS;
	unsigned head = v17 ? 3 : 2;
	const enum schedstat_itype *order = ss->version == 15 ? order_v15 : order_v16;
	uint64_t v[SCHEDSTAT_NR_ITYPES * BLOCKS_V17 + TAIL_NUMBERS];
	struct schedstat_cpu *c;
	struct schedstat_domain *d;
	const uint64_t *tail;
	unsigned level;

	if (!ss->nr_cpus)
		return fail(err, line, "domain line before any cpu line");
	c = &ss->cpus[ss->nr_cpus - 1];
	if (parse_index(&t[0], 6, SCHEDSTAT_MAX_DOMAINS, &level) || level != c->nr_domains)
		return fail(err, line, "expected domain%u of cpu%u", c->nr_domains, c->cpu);
	if (level >= SCHEDSTAT_MAX_DOMAINS)
		return fail(err, line, "more than %d domains", SCHEDSTAT_MAX_DOMAINS);
	if (nt != head + numbers)
		return fail(err, line, "domain%u has %u fields, expected %u for version %u", level,
			    nt - 1, head - 1 + numbers, ss->version);
	if (v17) {
		if (!t[1].len || t[1].len >= sizeof(d->name))
			return fail(err, line, "bad domain name");
		for (size_t i = 0; i < t[1].len; i++) {
			char ch = t[1].p[i];

			if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			      (ch >= '0' && ch <= '9') || ch == '_'))
				return fail(err, line, "bad domain name");
		}
	}
	if (!valid_mask(&t[head - 1]))
		return fail(err, line, "bad cpumask");
	if (parse_numbers(t + head, numbers, v, line, err))
		return -1;

	c->domains = xrealloc(c->domains, (c->nr_domains + 1) * sizeof(*c->domains));
	d = &c->domains[c->nr_domains++];
	memset(d, 0, sizeof(*d));
	d->level = level;
	if (v17)
		memcpy(d->name, t[1].p, t[1].len);
	d->cpumask = xasprintf("%.*s", (int)t[head - 1].len, t[head - 1].p);
	for (unsigned i = 0; i < SCHEDSTAT_NR_ITYPES; i++)
		fill_lb(&d->lb[order[i]], v + i * block, v17);
	tail = v + SCHEDSTAT_NR_ITYPES * block;
#define X(f) d->f = *tail++;
	DOMAIN_FIELDS(X)
#undef X
	return 0;
}

int schedstat_parse(const char *text, size_t len, struct schedstat *ss, struct strbuf *err)
{
	size_t off = 0;
	unsigned line = 0;
	int have_timestamp = 0;

	memset(ss, 0, sizeof(*ss));
	while (off < len) {
		const char *p = text + off, *nl = memchr(p, '\n', len - off);
		size_t n = nl ? (size_t)(nl - p) : len - off;
		struct token t[MAX_TOKENS];
		unsigned nt = 0;
		uint64_t v;

		off += n + (nl ? 1 : 0);
		line++;
		/* the kernel ends every line: a text cut short is not trusted */
		if (!nl) {
			fail(err, line, "truncated: the last line has no newline");
			goto bad;
		}
		for (size_t i = 0; i < n;) {
			size_t j = i;

			while (j < n && p[j] != ' ')
				j++;
			if (j == i) {
				i++; /* runs of spaces are tolerated */
				continue;
			}
			if (nt == MAX_TOKENS) {
				fail(err, line, "too many fields");
				goto bad;
			}
			t[nt].p = p + i;
			t[nt].len = j - i;
			nt++;
			i = j;
		}
		for (size_t i = 0; i < n; i++) {
			if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] >= 0x7f) {
				fail(err, line, "unexpected character 0x%02x", (unsigned char)p[i]);
				goto bad;
			}
		}
		if (line == 1) {
			if (nt != 2 || !token_is(&t[0], "version") || parse_u64(&t[1], &v)) {
				fail(err, line, "no 'version N' line: not /proc/schedstat");
				goto bad;
			}
			if (v < 15 || v > 17) {
				fail(err, line, "schedstat version %llu is not supported (15, 16 and 17 are)",
				     (unsigned long long)v);
				goto bad;
			}
			ss->version = (unsigned)v;
			continue;
		}
		if (!nt) {
			fail(err, line, "empty line");
			goto bad;
		}
		if (token_is(&t[0], "timestamp")) {
			if (have_timestamp || ss->nr_cpus || nt != 2 || parse_u64(&t[1], &ss->timestamp)) {
				fail(err, line, "bad timestamp line");
				goto bad;
			}
			have_timestamp = 1;
		} else if (is_prefix(&t[0], "cpu")) {
			if (parse_cpu(ss, t, nt, line, err))
				goto bad;
		} else if (is_prefix(&t[0], "domain")) {
			if (parse_domain(ss, t, nt, line, err))
				goto bad;
		} else {
			fail(err, line, "unexpected '%.*s'", (int)(t[0].len > 32 ? 32 : t[0].len),
			     t[0].p);
			goto bad;
		}
	}
	if (!ss->version) {
		fail(err, 1, "empty text: not /proc/schedstat");
		goto bad;
	}
	if (!have_timestamp || !ss->nr_cpus) {
		fail(err, line, "truncated: no %s", have_timestamp ? "cpu lines" : "timestamp");
		goto bad;
	}
	return 0;
bad:
	schedstat_release(ss);
	return -1;
}

void schedstat_release(struct schedstat *ss)
{
	for (unsigned i = 0; i < ss->nr_cpus; i++) {
		for (unsigned j = 0; j < ss->cpus[i].nr_domains; j++)
			free(ss->cpus[i].domains[j].cpumask);
		free(ss->cpus[i].domains);
	}
	free(ss->cpus);
	memset(ss, 0, sizeof(*ss));
}

/*
 * after - before for a counter the kernel keeps in 32 bits: a wrap is
 * fine, but a counter that "moved" by more than 2^31 in one scenario did
 * not wrap: it was reset (domains rebuilt by hotplug or cpusets).
 */
static int delta32(uint64_t before, uint64_t after, uint64_t *out)
{
	if (after >= before) {
		*out = after - before;
		return 0;
	}
	if (before > UINT32_MAX)
		return -1;
	*out = (after + (1ull << 32) - before) & UINT32_MAX;
	return *out > (1ull << 31) ? -1 : 0;
}

static int same_layout(const struct schedstat_cpu *a, const struct schedstat_cpu *b)
{
	if (a->nr_domains != b->nr_domains)
		return 0;
	for (unsigned i = 0; i < a->nr_domains; i++)
		if (strcmp(a->domains[i].name, b->domains[i].name) ||
		    strcmp(a->domains[i].cpumask, b->domains[i].cpumask))
			return 0;
	return 1;
}

static int domain_delta(const struct schedstat_domain *b, const struct schedstat_domain *a,
			struct schedstat_domain *o, int v17)
{
	int bad = 0;

	o->level = a->level;
	memcpy(o->name, a->name, sizeof(o->name));
	for (int i = 0; i < SCHEDSTAT_NR_ITYPES; i++) {
		const struct schedstat_lb *lb = &b->lb[i], *la = &a->lb[i];
		struct schedstat_lb *lo = &o->lb[i];

#define X(f) bad |= delta32(lb->f, la->f, &lo->f);
		LB_FIELDS(X)
#undef X
		if (v17)
			lo->imbalance = lo->imbalance_load + lo->imbalance_util +
					lo->imbalance_task + lo->imbalance_misfit;
		else
			bad |= delta32(lb->imbalance, la->imbalance, &lo->imbalance);
	}
#define X(f) bad |= delta32(b->f, a->f, &o->f);
	DOMAIN_FIELDS(X)
#undef X
	return bad ? -1 : 0;
}

/* 0 with o filled, -1 when the CPU's runqueue counters make no sense. */
static int cpu_delta(const struct schedstat_cpu *b, const struct schedstat_cpu *a,
		     struct schedstat_cpu *o, int v17, unsigned *domains_reset)
{
	int bad = 0;

	memset(o, 0, sizeof(*o));
	o->cpu = a->cpu;
#define X(f) bad |= delta32(b->f, a->f, &o->f);
	CPU32_FIELDS(X)
#undef X
#define X(f) if (a->f < b->f) bad = -1; else o->f = a->f - b->f;
	CPU64_FIELDS(X)
#undef X
	if (bad)
		return -1;
	if (!a->nr_domains && !b->nr_domains)
		return 0;
	if (!same_layout(b, a)) {
		(*domains_reset)++;
		return 0;
	}
	o->domains = xcalloc(a->nr_domains, sizeof(*o->domains));
	for (unsigned i = 0; i < a->nr_domains; i++) {
		if (domain_delta(&b->domains[i], &a->domains[i], &o->domains[i], v17) < 0) {
			free(o->domains);
			o->domains = NULL;
			(*domains_reset)++;
			return 0;
		}
	}
	o->nr_domains = a->nr_domains;
	for (unsigned i = 0; i < a->nr_domains; i++)
		o->domains[i].cpumask = xstrdup(a->domains[i].cpumask);
	return 0;
}

int schedstat_delta(const struct schedstat *before, const struct schedstat *after,
		    struct schedstat *out, struct strbuf *err)
{
	unsigned i = 0, j = 0;

	memset(out, 0, sizeof(*out));
	if (before->version != after->version) {
		strbuf_reset(err);
		strbuf_addf(err, "schedstat version changed from %u to %u between the snapshots",
			    before->version, after->version);
		return -1;
	}
	out->version = after->version;
	out->timestamp = after->timestamp >= before->timestamp ?
			 after->timestamp - before->timestamp : 0;
	out->cpus = xcalloc(after->nr_cpus ? after->nr_cpus : 1, sizeof(*out->cpus));
	/* both lists are sorted by cpu number (the parser insists) */
	while (i < before->nr_cpus || j < after->nr_cpus) {
		const struct schedstat_cpu *b = i < before->nr_cpus ? &before->cpus[i] : NULL;
		const struct schedstat_cpu *a = j < after->nr_cpus ? &after->cpus[j] : NULL;

		if (!a || (b && b->cpu < a->cpu)) {
			out->cpus_skipped++; /* went offline */
			i++;
			continue;
		}
		if (!b || a->cpu < b->cpu) {
			out->cpus_skipped++; /* came online */
			j++;
			continue;
		}
		if (cpu_delta(b, a, &out->cpus[out->nr_cpus], out->version >= 17,
			      &out->domains_reset) < 0)
			out->cpus_skipped++;
		else
			out->nr_cpus++;
		i++;
		j++;
	}
	return 0;
}

static void add_u64(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void sum_into(uint64_t *sum, uint64_t v)
{
	*sum = v > UINT64_MAX - *sum ? UINT64_MAX : *sum + v;
}

struct level_sum {
	char key[24];
	unsigned level, cpus;
	struct schedstat_domain d; /* cpumask unused */
};

static struct json_object *level_json(const struct level_sum *ls, int v17)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "level", json_object_new_int((int)ls->level));
	json_object_object_add(o, "cpus", json_object_new_int((int)ls->cpus));
	for (int i = 0; i < SCHEDSTAT_NR_ITYPES; i++) {
		const struct schedstat_lb *lb = &ls->d.lb[i];
		struct json_object *t = json_object_new_object();

		add_u64(t, "lb_count", lb->count);
		add_u64(t, "lb_balanced", lb->balanced);
		add_u64(t, "lb_failed", lb->failed);
		add_u64(t, "lb_imbalance", lb->imbalance);
		if (v17) {
			add_u64(t, "lb_imbalance_load", lb->imbalance_load);
			add_u64(t, "lb_imbalance_util", lb->imbalance_util);
			add_u64(t, "lb_imbalance_task", lb->imbalance_task);
			add_u64(t, "lb_imbalance_misfit", lb->imbalance_misfit);
		}
		add_u64(t, "lb_gained", lb->gained);
		add_u64(t, "lb_hot_gained", lb->hot_gained);
		add_u64(t, "lb_nobusyq", lb->nobusyq);
		add_u64(t, "lb_nobusyg", lb->nobusyg);
		json_object_object_add(o, itype_names[i], t);
	}
	add_u64(o, "alb_count", ls->d.alb_count);
	add_u64(o, "alb_failed", ls->d.alb_failed);
	add_u64(o, "alb_pushed", ls->d.alb_pushed);
	add_u64(o, "ttwu_wake_remote", ls->d.ttwu_wake_remote);
	add_u64(o, "ttwu_move_affine", ls->d.ttwu_move_affine);
	add_u64(o, "ttwu_move_balance", ls->d.ttwu_move_balance);
	return o;
}

struct json_object *schedstat_summary_json(const struct schedstat *delta)
{
	struct json_object *o = json_object_new_object(), *cpu = json_object_new_object();
	struct json_object *domains = json_object_new_object();
	struct schedstat_cpu tot;
	struct level_sum *levels = NULL;
	unsigned nr_levels = 0;
	int v17 = delta->version >= 17;

	memset(&tot, 0, sizeof(tot));
	json_object_object_add(o, "version", json_object_new_int((int)delta->version));
	add_u64(o, "jiffies", delta->timestamp);
	json_object_object_add(o, "cpus", json_object_new_int((int)delta->nr_cpus));
	json_object_object_add(o, "cpus_skipped", json_object_new_int((int)delta->cpus_skipped));
	json_object_object_add(o, "domains_reset", json_object_new_int((int)delta->domains_reset));

	/* levels in order of depth, then of first appearance */
	for (unsigned depth = 0; depth < SCHEDSTAT_MAX_DOMAINS; depth++) {
		for (unsigned i = 0; i < delta->nr_cpus; i++) {
			const struct schedstat_cpu *c = &delta->cpus[i];
			const struct schedstat_domain *d;
			char key[24];
			unsigned k;

			if (depth >= c->nr_domains)
				continue;
			d = &c->domains[depth];
			if (v17 && d->name[0]) {
				/* every NUMA level is called "NUMA": number the deeper ones */
				unsigned seen = 0;

				for (unsigned up = 0; up < depth; up++)
					seen += !strcmp(c->domains[up].name, d->name);
				if (seen)
					snprintf(key, sizeof(key), "%s#%u", d->name, seen + 1);
				else
					snprintf(key, sizeof(key), "%s", d->name);
			} else {
				snprintf(key, sizeof(key), "domain%u", depth);
			}
			for (k = 0; k < nr_levels; k++)
				if (!strcmp(levels[k].key, key))
					break;
			if (k == nr_levels) {
				levels = xrealloc(levels, (nr_levels + 1) * sizeof(*levels));
				memset(&levels[k], 0, sizeof(levels[k]));
				snprintf(levels[k].key, sizeof(levels[k].key), "%s", key);
				levels[k].level = depth;
				nr_levels++;
			}
			levels[k].cpus++;
			for (int t = 0; t < SCHEDSTAT_NR_ITYPES; t++) {
#define X(f) sum_into(&levels[k].d.lb[t].f, d->lb[t].f);
				LB_FIELDS(X)
				X(imbalance)
#undef X
			}
#define X(f) sum_into(&levels[k].d.f, d->f);
			DOMAIN_FIELDS(X)
#undef X
		}
	}
	for (unsigned i = 0; i < delta->nr_cpus; i++) {
#define X(f) sum_into(&tot.f, delta->cpus[i].f);
		CPU32_FIELDS(X)
		CPU64_FIELDS(X)
#undef X
	}
#define X(f) add_u64(cpu, #f, tot.f);
	CPU32_FIELDS(X)
	CPU64_FIELDS(X)
#undef X
	json_object_object_add(o, "cpu", cpu);
	for (unsigned k = 0; k < nr_levels; k++)
		json_object_object_add(domains, levels[k].key, level_json(&levels[k], v17));
	json_object_object_add(o, "domains", domains);
	free(levels);
	return o;
}

struct json_object *schedstat_delta_json(const char *before, const char *after,
					 struct strbuf *err)
{
	struct schedstat b = SCHEDSTAT_INIT, a = SCHEDSTAT_INIT, d = SCHEDSTAT_INIT;
	struct strbuf why = STRBUF_INIT;
	struct json_object *o = NULL;

	strbuf_reset(err);
	if (schedstat_parse(before, strlen(before), &b, &why) < 0)
		strbuf_addf(err, "before: %s", why.buf);
	else if (schedstat_parse(after, strlen(after), &a, &why) < 0)
		strbuf_addf(err, "after: %s", why.buf);
	else if (schedstat_delta(&b, &a, &d, err) == 0)
		o = schedstat_summary_json(&d);
	schedstat_release(&b);
	schedstat_release(&a);
	schedstat_release(&d);
	strbuf_release(&why);
	return o;
}
