/* plan.c - reads and writes the compiled plan (common/plan.h): the same code
 * in the host tools, which write it, and the static runner, which trusts nothing in it. */
#include "common/plan.h"
#include "common/lineerr.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A plan line never needs more: the longest record is a param with three
 * fields of at most PLAN_MAX_FIELD - 1 characters. */
#define PLAN_MAX_LINE (4 * PLAN_MAX_FIELD)
#define PLAN_MAX_FIELDS 5

static const struct {
	unsigned bit;
	const char *name;
} counter_names[] = {
	{ PLAN_CNT_SCHEDSTAT, "schedstat" },
	{ PLAN_CNT_VMSTAT, "vmstat" },
	{ PLAN_CNT_TASKS, "tasks" },
	{ PLAN_CNT_SCHEDTRACE, "schedtrace" },
};

const char *const plan_schedtrace_events[PLAN_NR_SCHEDTRACE_EVENTS] = {
	"sched_switch", "sched_waking", "sched_wakeup_new", "sched_migrate_task",
};

static const char *const statistics[] = { "amean", "hmean", "median" };

enum plan_seen {
	SEEN_SCENARIO = 1u << 0,
	SEEN_SOURCE = 1u << 1,
	SEEN_WORKLOAD = 1u << 2,
	SEEN_RUNS = 1u << 3,
	SEEN_WARMUP = 1u << 4,
	SEEN_DEADLINE = 1u << 5,
	SEEN_COUNTERS = 1u << 6,
	SEEN_ALL = (1u << 7) - 1,
	SEEN_TRACE_KB = 1u << 7, /* optional: not in SEEN_ALL */
	SEEN_WC_GRACE = 1u << 8, /* optional */
	SEEN_TRACE_KEEP = 1u << 9, /* optional */
	SEEN_TRACE_RUN = 1u << 10, /* optional */
	SEEN_PIN = 1u << 11, /* optional */
	SEEN_SCHEDULER = 1u << 12, /* optional */
};

struct field {
	const char *p;
	size_t len;
};

/* What the last fault record still needs before the next section. */
enum fault_seen {
	FSEEN_TIME = 1u << 0,
	FSEEN_TARGET = 1u << 1,
	FSEEN_ALL = (1u << 2) - 1,
};

enum plan_section { SECTION_NONE, SECTION_FAULT, SECTION_INVARIANT };

struct parser {
	struct plan *p;
	struct plan_case *cur; /* NULL between cases */
	unsigned seen;         /* enum plan_seen of the current case */
	enum plan_section section; /* what fopt/iopt records belong to */
	unsigned fault_seen;   /* enum fault_seen of the last fault */
	unsigned lineno;
	unsigned alloc;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line_verror(ps->err, ps->errlen, ps->lineno, fmt, ap);
	va_end(ap);
	return -1;
}

static int field_is(const struct field *f, const char *s)
{
	return f->len == strlen(s) && !memcmp(f->p, s, f->len);
}

/* Copies f into dst (size bytes) or fails naming what the field holds. */
static int copy_field(struct parser *ps, char *dst, size_t size, const struct field *f,
		      const char *what, int may_be_empty)
{
	if (!f->len && !may_be_empty)
		return fail(ps, "empty %s", what);
	if (f->len >= size)
		return fail(ps, "%s longer than %zu characters", what, size - 1);
	memcpy(dst, f->p, f->len);
	dst[f->len] = '\0';
	return 0;
}

static int parse_number(struct parser *ps, const struct field *f, unsigned min, unsigned max,
			const char *what, unsigned *out)
{
	unsigned long long v = 0;

	if (!f->len || f->len > 10)
		return fail(ps, "%s is not a number %u..%u", what, min, max);
	for (size_t i = 0; i < f->len; i++) {
		if (f->p[i] < '0' || f->p[i] > '9')
			return fail(ps, "%s is not a number %u..%u", what, min, max);
		v = v * 10 + (unsigned)(f->p[i] - '0');
	}
	if (v < min || v > max)
		return fail(ps, "%s %llu is out of range %u..%u", what, v, min, max);
	*out = (unsigned)v;
	return 0;
}

static int parse_counters(struct parser *ps, const struct field *f, unsigned *out)
{
	const char *p = f->p, *end = f->p + f->len;
	unsigned bits = 0;

	if (field_is(f, "none")) {
		*out = 0;
		return 0;
	}
	if (!f->len)
		return fail(ps, "empty counters");
	while (p < end) {
		const char *q = memchr(p, ' ', (size_t)(end - p));
		struct field name = { p, (size_t)((q ? q : end) - p) };
		size_t i;

		for (i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++)
			if (field_is(&name, counter_names[i].name))
				break;
		if (i == sizeof(counter_names) / sizeof(counter_names[0]))
			return fail(ps, "unknown counter '%.*s'", (int)(name.len > 32 ? 32 : name.len),
				    name.p);
		if (bits & counter_names[i].bit)
			return fail(ps, "counter '%s' listed twice", counter_names[i].name);
		bits |= counter_names[i].bit;
		if (!q)
			break;
		p = q + 1;
		if (p == end)
			return fail(ps, "trailing space in counters");
	}
	*out = bits;
	return 0;
}

static int start_case(struct parser *ps, const struct field *id)
{
	struct plan *p = ps->p;

	if (ps->cur)
		return fail(ps, "case '%s' has no 'end' before the next case", ps->cur->id);
	if (p->nr_cases >= PLAN_MAX_CASES)
		return fail(ps, "more than %d cases", PLAN_MAX_CASES);
	if (p->nr_cases == ps->alloc) {
		unsigned n = ps->alloc ? ps->alloc * 2 : 4;
		struct plan_case *c;

		if (n > PLAN_MAX_CASES)
			n = PLAN_MAX_CASES;
		c = realloc(p->cases, n * sizeof(*c));
		if (!c)
			return fail(ps, "out of memory");
		p->cases = c;
		ps->alloc = n;
	}
	ps->cur = &p->cases[p->nr_cases++];
	memset(ps->cur, 0, sizeof(*ps->cur));
	ps->seen = 0;
	ps->section = SECTION_NONE;
	return copy_field(ps, ps->cur->id, sizeof(ps->cur->id), id, "case id", 0);
}

static const char *const seen_names[] = {
	"scenario", "source", "workload", "runs", "warmup", "deadline", "counters",
};

/* The last fault is complete before anything else starts. */
static int close_section(struct parser *ps)
{
	struct plan_fault *f;

	if (ps->section != SECTION_FAULT)
		return 0;
	f = &ps->cur->faults[ps->cur->nr_faults - 1];
	if (!(ps->fault_seen & FSEEN_TIME))
		return fail(ps, "fault '%s' has no 'fault_time' record", f->name);
	if (!(ps->fault_seen & FSEEN_TARGET))
		return fail(ps, "fault '%s' has no 'fault_target' record", f->name);
	return 0;
}

static int end_case(struct parser *ps)
{
	for (unsigned i = 0; i < sizeof(seen_names) / sizeof(seen_names[0]); i++)
		if (!(ps->seen & (1u << i)))
			return fail(ps, "case '%s' has no '%s' record", ps->cur->id, seen_names[i]);
	ps->cur = NULL;
	return 0;
}

static int once(struct parser *ps, unsigned bit, const char *kind)
{
	if (ps->seen & bit)
		return fail(ps, "second '%s' record in case '%s'", kind, ps->cur->id);
	ps->seen |= bit;
	return 0;
}

static int add_param(struct parser *ps, const struct field *f)
{
	struct plan_case *c = ps->cur;
	struct plan_param *pp;

	if (c->nr_params >= PLAN_MAX_PARAMS)
		return fail(ps, "more than %d params in case '%s'", PLAN_MAX_PARAMS, c->id);
	pp = &c->params[c->nr_params];
	if (copy_field(ps, pp->key, sizeof(pp->key), &f[1], "param key", 0) ||
	    copy_field(ps, pp->value, sizeof(pp->value), &f[2], "param value", 0) ||
	    copy_field(ps, pp->where, sizeof(pp->where), &f[3], "param location", 0))
		return -1;
	for (unsigned i = 0; i < c->nr_params; i++)
		if (!strcmp(c->params[i].key, pp->key))
			return fail(ps, "param '%s' twice in case '%s'", pp->key, c->id);
	c->nr_params++;
	return 0;
}

static int add_metric(struct parser *ps, const struct field *f)
{
	struct plan_case *c = ps->cur;
	struct plan_metric *m;
	size_t i;

	if (c->nr_metrics >= PLAN_MAX_METRICS)
		return fail(ps, "more than %d metrics in case '%s'", PLAN_MAX_METRICS, c->id);
	m = &c->metrics[c->nr_metrics];
	if (copy_field(ps, m->name, sizeof(m->name), &f[1], "metric name", 0))
		return -1;
	if (field_is(&f[2], "higher"))
		m->higher_is_better = 1;
	else if (field_is(&f[2], "lower"))
		m->higher_is_better = 0;
	else
		return fail(ps, "metric '%s': direction must be 'higher' or 'lower'", m->name);
	for (i = 0; i < sizeof(statistics) / sizeof(statistics[0]); i++)
		if (field_is(&f[3], statistics[i]))
			break;
	if (i == sizeof(statistics) / sizeof(statistics[0]))
		return fail(ps, "metric '%s': statistic must be amean, hmean or median", m->name);
	strcpy(m->statistic, statistics[i]);
	if (copy_field(ps, m->unit, sizeof(m->unit), &f[4], "metric unit", 1))
		return -1;
	for (unsigned j = 0; j < c->nr_metrics; j++)
		if (!strcmp(c->metrics[j].name, m->name))
			return fail(ps, "metric '%s' twice in case '%s'", m->name, c->id);
	c->nr_metrics++;
	return 0;
}

static int add_fault(struct parser *ps, const struct field *f)
{
	struct plan_case *c = ps->cur;
	struct plan_fault *pf;

	if (c->nr_faults >= PLAN_MAX_FAULTS)
		return fail(ps, "more than %d faults in case '%s'", PLAN_MAX_FAULTS, c->id);
	pf = &c->faults[c->nr_faults];
	if (copy_field(ps, pf->name, sizeof(pf->name), &f[1], "fault name", 0) ||
	    copy_field(ps, pf->kind, sizeof(pf->kind), &f[2], "fault kind", 0) ||
	    copy_field(ps, pf->where, sizeof(pf->where), &f[4], "fault location", 0))
		return -1;
	if (field_is(&f[3], "guest"))
		pf->side = PLAN_SIDE_GUEST;
	else if (field_is(&f[3], "host"))
		pf->side = PLAN_SIDE_HOST;
	else
		return fail(ps, "fault '%s': side must be 'guest' or 'host'", pf->name);
	for (unsigned i = 0; i < c->nr_faults; i++)
		if (!strcmp(c->faults[i].name, pf->name))
			return fail(ps, "fault '%s' twice in case '%s'", pf->name, c->id);
	c->nr_faults++;
	ps->section = SECTION_FAULT;
	ps->fault_seen = 0;
	return 0;
}

static int fault_time(struct parser *ps, const struct field *f)
{
	struct plan_fault *pf;

	if (ps->section != SECTION_FAULT)
		return fail(ps, "'fault_time' record outside a fault");
	pf = &ps->cur->faults[ps->cur->nr_faults - 1];
	if (ps->fault_seen & FSEEN_TIME)
		return fail(ps, "second 'fault_time' record in fault '%s'", pf->name);
	ps->fault_seen |= FSEEN_TIME;
	if (parse_number(ps, &f[1], 0, PLAN_MAX_MS, "fault start", &pf->start_ms) ||
	    parse_number(ps, &f[2], 0, PLAN_MAX_MS, "fault period", &pf->period_ms) ||
	    parse_number(ps, &f[3], 0, 1000000, "fault count", &pf->count) ||
	    parse_number(ps, &f[4], 0, PLAN_MAX_MS, "fault hold", &pf->hold_ms))
		return -1;
	/* at most one action of a fault is in effect at any time */
	if (pf->count != 1 && !pf->period_ms)
		return fail(ps, "fault '%s' repeats but has no period", pf->name);
	if (pf->count != 1 && pf->hold_ms >= pf->period_ms)
		return fail(ps, "fault '%s': hold must be shorter than the period", pf->name);
	return 0;
}

static int fault_target(struct parser *ps, const struct field *f)
{
	struct plan_fault *pf;

	if (ps->section != SECTION_FAULT)
		return fail(ps, "'fault_target' record outside a fault");
	pf = &ps->cur->faults[ps->cur->nr_faults - 1];
	if (ps->fault_seen & FSEEN_TARGET)
		return fail(ps, "second 'fault_target' record in fault '%s'", pf->name);
	ps->fault_seen |= FSEEN_TARGET;
	return copy_field(ps, pf->target, sizeof(pf->target), &f[1], "fault target", 0);
}

static int add_invariant(struct parser *ps, const struct field *f)
{
	struct plan_case *c = ps->cur;
	struct plan_invariant *pi;

	if (c->nr_invariants >= PLAN_MAX_INVARIANTS)
		return fail(ps, "more than %d invariants in case '%s'", PLAN_MAX_INVARIANTS, c->id);
	pi = &c->invariants[c->nr_invariants];
	if (copy_field(ps, pi->name, sizeof(pi->name), &f[1], "invariant name", 0) ||
	    copy_field(ps, pi->kind, sizeof(pi->kind), &f[2], "invariant kind", 0) ||
	    copy_field(ps, pi->where, sizeof(pi->where), &f[3], "invariant location", 0))
		return -1;
	for (unsigned i = 0; i < c->nr_invariants; i++)
		if (!strcmp(c->invariants[i].name, pi->name))
			return fail(ps, "invariant '%s' twice in case '%s'", pi->name, c->id);
	c->nr_invariants++;
	ps->section = SECTION_INVARIANT;
	return 0;
}

/* fopt and iopt: a key of the fault or invariant right before it. */
static int add_opt(struct parser *ps, const struct field *f, enum plan_section sec)
{
	const char *kind = sec == SECTION_FAULT ? "fopt" : "iopt";
	struct plan_opt *opts, *o;
	unsigned *nr;
	const char *name;

	if (ps->section != sec)
		return fail(ps, "'%s' record outside %s", kind,
			    sec == SECTION_FAULT ? "a fault" : "an invariant");
	if (sec == SECTION_FAULT) {
		struct plan_fault *pf = &ps->cur->faults[ps->cur->nr_faults - 1];

		opts = pf->opts;
		nr = &pf->nr_opts;
		name = pf->name;
	} else {
		struct plan_invariant *pi = &ps->cur->invariants[ps->cur->nr_invariants - 1];

		opts = pi->opts;
		nr = &pi->nr_opts;
		name = pi->name;
	}
	if (*nr >= PLAN_MAX_OPTS)
		return fail(ps, "more than %d options in '%s'", PLAN_MAX_OPTS, name);
	o = &opts[*nr];
	if (copy_field(ps, o->key, sizeof(o->key), &f[1], "option key", 0) ||
	    copy_field(ps, o->value, sizeof(o->value), &f[2], "option value", 0) ||
	    parse_number(ps, &f[3], 1, 1000000000, "option line", &o->line))
		return -1;
	for (unsigned i = 0; i < *nr; i++)
		if (!strcmp(opts[i].key, o->key))
			return fail(ps, "option '%s' twice in '%s'", o->key, name);
	(*nr)++;
	return 0;
}

int plan_symbol_ok(const char *s)
{
	size_t n = 0;

	if (!*s || *s == '.' || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++, n++) {
		char c = *s;

		if (n >= PLAN_MAX_SYMBOL - 1 ||
		    !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.'))
			return 0;
	}
	return 1;
}

/* "vmstat:NAME": a /proc/vmstat key, lowercase, digits and '_'. */
static int per_ok(const char *s)
{
	if (strncmp(s, "vmstat:", 7) || !s[7])
		return 0;
	for (s += 7; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int add_profile(struct parser *ps, const struct field *f)
{
	struct plan_profile *pr = &ps->cur->profile;
	const char *p = f[1].p, *end = f[1].p + f[1].len;

	if (pr->nr_funcs)
		return fail(ps, "second 'profile' record in case '%s'", ps->cur->id);
	if (!f[1].len)
		return fail(ps, "empty profile");
	while (p <= end) {
		const char *q = memchr(p, ' ', (size_t)(end - p));
		struct field name = { p, (size_t)((q ? q : end) - p) };
		char *dst;

		if (pr->nr_funcs >= PLAN_MAX_PROFILE)
			return fail(ps, "more than %d profiled functions", PLAN_MAX_PROFILE);
		dst = pr->funcs[pr->nr_funcs];
		if (copy_field(ps, dst, PLAN_MAX_SYMBOL, &name, "profiled function", 0))
			return -1;
		if (!plan_symbol_ok(dst))
			return fail(ps, "bad profiled function '%s'", dst);
		for (unsigned i = 0; i < pr->nr_funcs; i++)
			if (!strcmp(pr->funcs[i], dst))
				return fail(ps, "profiled function '%s' listed twice", dst);
		pr->nr_funcs++;
		if (!q)
			break;
		p = q + 1;
	}
	if (field_is(&f[2], "none"))
		return 0;
	if (copy_field(ps, pr->per, sizeof(pr->per), &f[2], "profile denominator", 0))
		return -1;
	if (!per_ok(pr->per))
		return fail(ps, "profile denominator '%s' is not vmstat:NAME or none", pr->per);
	return 0;
}

/* One record; f[0] is its kind, nf the number of fields. */
static int parse_record(struct parser *ps, const struct field *f, unsigned nf)
{
	static const struct {
		const char *kind;
		unsigned nf;
	} kinds[] = {
		{ "case", 2 }, { "scenario", 2 }, { "source", 2 }, { "workload", 2 },
		{ "param", 4 }, { "runs", 2 }, { "warmup", 2 }, { "deadline", 2 },
		{ "counters", 2 }, { "metric", 5 }, { "end", 1 },
		{ "fault", 5 }, { "fault_time", 5 }, { "fault_target", 2 }, { "fopt", 4 },
		{ "invariant", 4 }, { "iopt", 4 }, { "profile", 3 }, { "trace_buffer_kb", 2 },
		{ "wc_grace_ms", 2 }, { "trace_keep_mb", 2 }, { "trace_run_mb", 2 },
		{ "pin", 2 }, { "scheduler", 4 },
	};
	struct plan_case *c = ps->cur;
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (field_is(&f[0], kinds[k].kind))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return fail(ps, "unknown record '%.*s'", (int)(f[0].len > 32 ? 32 : f[0].len), f[0].p);
	if (nf != kinds[k].nf)
		return fail(ps, "'%s' record has %u fields, expected %u", kinds[k].kind, nf, kinds[k].nf);
	if (k == 0)
		return start_case(ps, &f[1]);
	if (!c)
		return fail(ps, "'%s' record outside a case", kinds[k].kind);
	/* fault_time, fault_target, fopt and iopt continue a section; any
	 * other record ends it */
	if (k < 12 || k == 15 || k >= 17) {
		if (close_section(ps))
			return -1;
		ps->section = SECTION_NONE;
	}

	switch (k) {
	case 1:
		return once(ps, SEEN_SCENARIO, "scenario") ||
		       copy_field(ps, c->scenario, sizeof(c->scenario), &f[1], "scenario name", 0);
	case 2:
		return once(ps, SEEN_SOURCE, "source") ||
		       copy_field(ps, c->source, sizeof(c->source), &f[1], "source", 0);
	case 3:
		return once(ps, SEEN_WORKLOAD, "workload") ||
		       copy_field(ps, c->workload, sizeof(c->workload), &f[1], "workload", 0);
	case 4:
		return add_param(ps, f);
	case 5:
		return once(ps, SEEN_RUNS, "runs") ||
		       parse_number(ps, &f[1], 1, 1000, "runs", &c->runs);
	case 6:
		return once(ps, SEEN_WARMUP, "warmup") ||
		       parse_number(ps, &f[1], 0, 100, "warmup", &c->warmup);
	case 7:
		return once(ps, SEEN_DEADLINE, "deadline") ||
		       parse_number(ps, &f[1], 1, 86400, "deadline", &c->deadline_s);
	case 8:
		return once(ps, SEEN_COUNTERS, "counters") ||
		       parse_counters(ps, &f[1], &c->counters);
	case 9:
		return add_metric(ps, f);
	case 10:
		return end_case(ps);
	case 11:
		return add_fault(ps, f);
	case 12:
		return fault_time(ps, f);
	case 13:
		return fault_target(ps, f);
	case 14:
		return add_opt(ps, f, SECTION_FAULT);
	case 15:
		return add_invariant(ps, f);
	case 17:
		return add_profile(ps, f);
	case 18:
		return once(ps, SEEN_TRACE_KB, "trace_buffer_kb") ||
		       parse_number(ps, &f[1], PLAN_MIN_TRACE_KB, PLAN_MAX_TRACE_KB, "trace_buffer_kb",
				    &c->trace_kb);
	case 19:
		c->wc_grace_set = 1;
		return once(ps, SEEN_WC_GRACE, "wc_grace_ms") ||
		       parse_number(ps, &f[1], 0, PLAN_MAX_WC_GRACE_MS, "wc_grace_ms", &c->wc_grace_ms);
	case 20:
		c->trace_keep_set = 1;
		return once(ps, SEEN_TRACE_KEEP, "trace_keep_mb") ||
		       parse_number(ps, &f[1], 0, PLAN_MAX_TRACE_KEEP_MB, "trace_keep_mb",
				    &c->trace_keep_mb);
	case 21:
		return once(ps, SEEN_TRACE_RUN, "trace_run_mb") ||
		       parse_number(ps, &f[1], 1, PLAN_MAX_TRACE_RUN_MB, "trace_run_mb",
				    &c->trace_run_mb);
	case 22:
		if (once(ps, SEEN_PIN, "pin"))
			return -1;
		if (field_is(&f[1], "yes") || field_is(&f[1], "strict")) {
			c->pin = field_is(&f[1], "yes") ? PLAN_PIN_YES : PLAN_PIN_STRICT;
			return 0;
		}
		return fail(ps, "bad pin '%.*s' (yes or strict)", (int)(f[1].len > 32 ? 32 : f[1].len),
			    f[1].p);
	case 23:
		if (once(ps, SEEN_SCHEDULER, "scheduler") ||
		    copy_field(ps, c->scheduler, sizeof(c->scheduler), &f[1], "scheduler name", 0) ||
		    copy_field(ps, c->scheduler_ops, sizeof(c->scheduler_ops), &f[2],
			       "scheduler ops name", 1) ||
		    copy_field(ps, c->scheduler_args, sizeof(c->scheduler_args), &f[3],
			       "scheduler arguments", 1))
			return -1;
		if (!plan_scheduler_name_ok(c->scheduler) ||
		    (c->scheduler_ops[0] && !plan_scheduler_name_ok(c->scheduler_ops)))
			return fail(ps, "bad scheduler name '%s' or ops '%s'", c->scheduler,
				    c->scheduler_ops);
		return 0;
	default:
		return add_opt(ps, f, SECTION_INVARIANT);
	}
}

static int parse_header(struct parser *ps, const struct field *f, unsigned nf)
{
	char version[16];

	snprintf(version, sizeof(version), "%d", PLAN_VERSION);
	if (nf != 2 || !field_is(&f[0], "schedlab-plan"))
		return fail(ps, "not a schedlab plan (no 'schedlab-plan' header)");
	if (!field_is(&f[1], version))
		return fail(ps, "plan version '%.*s', this side reads version %d",
			    (int)(f[1].len > 16 ? 16 : f[1].len), f[1].p, PLAN_VERSION);
	return 0;
}

int plan_parse(const char *text, size_t len, struct plan *p, char *err, size_t errlen)
{
	struct parser ps = { .p = p, .err = err, .errlen = errlen };
	size_t off = 0;

	memset(p, 0, sizeof(*p));
	if (err && errlen)
		err[0] = '\0';
	while (off < len) {
		const char *line = text + off;
		const char *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;
		struct field f[PLAN_MAX_FIELDS];
		unsigned nf = 0;
		size_t start = 0;

		ps.lineno++;
		off += n + (nl ? 1 : 0);
		if (n > PLAN_MAX_LINE) {
			fail(&ps, "longer than %d characters", PLAN_MAX_LINE);
			goto bad;
		}
		for (size_t i = 0; i <= n; i++) {
			unsigned char ch = i < n ? (unsigned char)line[i] : '\t';

			if (ch == '\t') {
				if (nf == PLAN_MAX_FIELDS) {
					fail(&ps, "more than %d fields", PLAN_MAX_FIELDS);
					goto bad;
				}
				f[nf].p = line + start;
				f[nf].len = i - start;
				nf++;
				start = i + 1;
			} else if (ch < 0x20 || ch == 0x7f) {
				fail(&ps, "control character 0x%02x", ch);
				goto bad;
			}
		}
		if (ps.lineno == 1) {
			if (parse_header(&ps, f, nf))
				goto bad;
			continue;
		}
		if (!n) {
			fail(&ps, "empty line");
			goto bad;
		}
		if (parse_record(&ps, f, nf))
			goto bad;
	}
	if (!ps.lineno) {
		ps.lineno = 1;
		fail(&ps, "empty plan");
		goto bad;
	}
	if (ps.cur) {
		fail(&ps, "case '%s' has no 'end'", ps.cur->id);
		goto bad;
	}
	return 0;
bad:
	plan_release(p);
	return -1;
}

void plan_release(struct plan *p)
{
	free(p->cases);
	p->cases = NULL;
	p->nr_cases = 0;
}

int plan_host_fault_guest_helps(const char *kind)
{
#define X(n, helps) { #n, helps },
	static const struct { const char *kind; int helps; } kinds[] = { PLAN_HOST_FAULTS(X) };
#undef X

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			return kinds[i].helps;
	return 0;
}

unsigned plan_deadline_s(const struct plan *p)
{
	unsigned total = 0;

	for (unsigned i = 0; i < p->nr_cases; i++)
		total += p->cases[i].deadline_s;
	return total;
}

unsigned plan_trace_keep_mb(const struct plan_case *c)
{
	return c->trace_keep_set ? c->trace_keep_mb : PLAN_TRACE_KEEP_DEFAULT_MB;
}

unsigned plan_trace_cpu_kb(const struct plan_case *c, unsigned ncpus, unsigned default_kb)
{
	unsigned kb = c->trace_kb ? c->trace_kb : default_kb;

	if (c->trace_run_mb && ncpus) {
		/* 64 GiB at most in KiB fits 32 bits with room */
		unsigned share = (unsigned)((uint64_t)c->trace_run_mb * 1024 / ncpus);

		if (share < kb)
			kb = share;
	}
	return kb < PLAN_MIN_TRACE_KB ? PLAN_MIN_TRACE_KB : kb;
}

void plan_write_header(plan_emit_fn emit, void *ctx)
{
	char header[32];
	int n = snprintf(header, sizeof(header), "schedlab-plan\t%d\n", PLAN_VERSION);

	emit(ctx, header, (size_t)n);
}

/* A field fits the format when it is terminated within its array and
 * holds no TAB, newline or other control character. */
static int check_field(const char *s, size_t size, const char *what, const char *id,
		       char *err, size_t errlen)
{
	size_t n = strnlen(s, size);

	if (n == size) {
		if (err && errlen)
			snprintf(err, errlen, "case '%.64s': %s is not terminated", id, what);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch == 0x7f) {
			if (err && errlen)
				snprintf(err, errlen, "case '%.64s': %s holds a %s", id, what,
					 ch == '\t' ? "tab" : ch == '\n' ? "newline" :
					 "control character");
			return -1;
		}
	}
	return 0;
}

static int check_opts(const struct plan_opt *opts, unsigned nr, const char *id,
		      char *err, size_t errlen)
{
	if (nr > PLAN_MAX_OPTS) {
		if (err && errlen)
			snprintf(err, errlen, "case '%.64s': too many options in a section", id);
		return -1;
	}
	for (unsigned i = 0; i < nr; i++) {
		if (check_field(opts[i].key, sizeof(opts[i].key), "an option key", id, err, errlen) ||
		    check_field(opts[i].value, sizeof(opts[i].value), "an option value", id,
				err, errlen))
			return -1;
	}
	return 0;
}

static int check_sections(const struct plan_case *c, const char *id, char *err, size_t errlen)
{
	if (c->nr_faults > PLAN_MAX_FAULTS || c->nr_invariants > PLAN_MAX_INVARIANTS) {
		if (err && errlen)
			snprintf(err, errlen, "case '%.64s': too many faults or invariants", id);
		return -1;
	}
	for (unsigned i = 0; i < c->nr_faults; i++) {
		const struct plan_fault *f = &c->faults[i];

		if (check_field(f->name, sizeof(f->name), "a fault name", id, err, errlen) ||
		    check_field(f->kind, sizeof(f->kind), "a fault kind", id, err, errlen) ||
		    check_field(f->target, sizeof(f->target), "a fault target", id, err, errlen) ||
		    check_field(f->where, sizeof(f->where), "a fault location", id, err, errlen) ||
		    check_opts(f->opts, f->nr_opts, id, err, errlen))
			return -1;
	}
	for (unsigned i = 0; i < c->nr_invariants; i++) {
		const struct plan_invariant *v = &c->invariants[i];

		if (check_field(v->name, sizeof(v->name), "an invariant name", id, err, errlen) ||
		    check_field(v->kind, sizeof(v->kind), "an invariant kind", id, err, errlen) ||
		    check_field(v->where, sizeof(v->where), "an invariant location", id, err,
				errlen) ||
		    check_opts(v->opts, v->nr_opts, id, err, errlen))
			return -1;
	}
	return 0;
}

static void emit_str(plan_emit_fn emit, void *ctx, const char *s);

static int check_profile(const struct plan_profile *pr, const char *id, char *err,
			 size_t errlen)
{
	int bad = pr->nr_funcs > PLAN_MAX_PROFILE;

	for (unsigned i = 0; !bad && i < pr->nr_funcs; i++)
		bad = strnlen(pr->funcs[i], PLAN_MAX_SYMBOL) == PLAN_MAX_SYMBOL ||
		      !plan_symbol_ok(pr->funcs[i]);
	if (!bad && strnlen(pr->per, sizeof(pr->per)) == sizeof(pr->per))
		bad = 1;
	else if (!bad && pr->per[0])
		bad = !per_ok(pr->per);
	if (bad && err && errlen)
		snprintf(err, errlen, "case '%.64s': a bad profile", id);
	return bad ? -1 : 0;
}

static void emit_profile(const struct plan_profile *pr, plan_emit_fn emit, void *ctx)
{
	if (!pr->nr_funcs)
		return;
	emit_str(emit, ctx, "profile\t");
	for (unsigned i = 0; i < pr->nr_funcs; i++) {
		if (i)
			emit(ctx, " ", 1);
		emit_str(emit, ctx, pr->funcs[i]);
	}
	emit(ctx, "\t", 1);
	emit_str(emit, ctx, pr->per[0] ? pr->per : "none");
	emit(ctx, "\n", 1);
}

static void emit_str(plan_emit_fn emit, void *ctx, const char *s)
{
	emit(ctx, s, strlen(s));
}

static void emit_record(plan_emit_fn emit, void *ctx, const char *kind, const char *a,
			const char *b, const char *c, const char *d)
{
	const char *fields[] = { a, b, c, d };

	emit_str(emit, ctx, kind);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && fields[i]; i++) {
		emit(ctx, "\t", 1);
		emit_str(emit, ctx, fields[i]);
	}
	emit(ctx, "\n", 1);
}

static void emit_opts(const char *kind, const struct plan_opt *opts, unsigned nr,
		      plan_emit_fn emit, void *ctx)
{
	char line[16];

	for (unsigned i = 0; i < nr; i++) {
		snprintf(line, sizeof(line), "%u", opts[i].line);
		emit_record(emit, ctx, kind, opts[i].key, opts[i].value, line, NULL);
	}
}

static void emit_sections(const struct plan_case *c, plan_emit_fn emit, void *ctx)
{
	char num[4][16];

	for (unsigned i = 0; i < c->nr_faults; i++) {
		const struct plan_fault *f = &c->faults[i];

		emit_record(emit, ctx, "fault", f->name, f->kind,
			    f->side == PLAN_SIDE_HOST ? "host" : "guest", f->where);
		snprintf(num[0], sizeof(num[0]), "%u", f->start_ms);
		snprintf(num[1], sizeof(num[1]), "%u", f->period_ms);
		snprintf(num[2], sizeof(num[2]), "%u", f->count);
		snprintf(num[3], sizeof(num[3]), "%u", f->hold_ms);
		emit_record(emit, ctx, "fault_time", num[0], num[1], num[2], num[3]);
		emit_record(emit, ctx, "fault_target", f->target, NULL, NULL, NULL);
		emit_opts("fopt", f->opts, f->nr_opts, emit, ctx);
	}
	for (unsigned i = 0; i < c->nr_invariants; i++) {
		const struct plan_invariant *v = &c->invariants[i];

		emit_record(emit, ctx, "invariant", v->name, v->kind, v->where, NULL);
		emit_opts("iopt", v->opts, v->nr_opts, emit, ctx);
	}
}

int plan_write_case(const struct plan_case *c, plan_emit_fn emit, void *ctx,
		    char *err, size_t errlen)
{
	char id[PLAN_MAX_FIELD], num[3][16], counters[64] = "";
	size_t i;

	/* check everything first: a refused case emits nothing */
	snprintf(id, sizeof(id), "%.*s", (int)strnlen(c->id, sizeof(c->id)), c->id);
	if (check_field(c->id, sizeof(c->id), "id", id, err, errlen) ||
	    check_field(c->scenario, sizeof(c->scenario), "scenario", id, err, errlen) ||
	    check_field(c->source, sizeof(c->source), "source", id, err, errlen) ||
	    check_field(c->workload, sizeof(c->workload), "workload", id, err, errlen) ||
	    check_field(c->scheduler, sizeof(c->scheduler), "scheduler", id, err, errlen) ||
	    check_field(c->scheduler_ops, sizeof(c->scheduler_ops), "scheduler ops", id, err, errlen) ||
	    check_field(c->scheduler_args, sizeof(c->scheduler_args), "scheduler arguments", id,
			err, errlen))
		return -1;
	if (c->nr_params > PLAN_MAX_PARAMS || c->nr_metrics > PLAN_MAX_METRICS) {
		if (err && errlen)
			snprintf(err, errlen, "case '%.64s': too many params or metrics", id);
		return -1;
	}
	for (i = 0; i < c->nr_params; i++) {
		const struct plan_param *pp = &c->params[i];

		if (check_field(pp->key, sizeof(pp->key), "a param key", id, err, errlen) ||
		    check_field(pp->value, sizeof(pp->value), "a param value", id, err, errlen) ||
		    check_field(pp->where, sizeof(pp->where), "a param location", id, err, errlen))
			return -1;
	}
	for (i = 0; i < c->nr_metrics; i++) {
		const struct plan_metric *m = &c->metrics[i];

		if (check_field(m->name, sizeof(m->name), "a metric name", id, err, errlen) ||
		    check_field(m->statistic, sizeof(m->statistic), "a metric statistic", id,
				err, errlen) ||
		    check_field(m->unit, sizeof(m->unit), "a metric unit", id, err, errlen))
			return -1;
	}
	if (check_sections(c, id, err, errlen) || check_profile(&c->profile, id, err, errlen))
		return -1;
	for (i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++) {
		if (!(c->counters & counter_names[i].bit))
			continue;
		if (counters[0])
			strcat(counters, " ");
		strcat(counters, counter_names[i].name);
	}
	if (!counters[0])
		strcpy(counters, "none");

	emit_record(emit, ctx, "case", c->id, NULL, NULL, NULL);
	emit_record(emit, ctx, "scenario", c->scenario, NULL, NULL, NULL);
	emit_record(emit, ctx, "source", c->source, NULL, NULL, NULL);
	emit_record(emit, ctx, "workload", c->workload, NULL, NULL, NULL);
	for (i = 0; i < c->nr_params; i++)
		emit_record(emit, ctx, "param", c->params[i].key, c->params[i].value,
			    c->params[i].where, NULL);
	snprintf(num[0], sizeof(num[0]), "%u", c->runs);
	snprintf(num[1], sizeof(num[1]), "%u", c->warmup);
	snprintf(num[2], sizeof(num[2]), "%u", c->deadline_s);
	emit_record(emit, ctx, "runs", num[0], NULL, NULL, NULL);
	emit_record(emit, ctx, "warmup", num[1], NULL, NULL, NULL);
	emit_record(emit, ctx, "deadline", num[2], NULL, NULL, NULL);
	emit_record(emit, ctx, "counters", counters, NULL, NULL, NULL);
	for (i = 0; i < c->nr_metrics; i++) {
		const struct plan_metric *m = &c->metrics[i];

		/* emit_record stops at the first NULL, so an empty unit is "" */
		emit_record(emit, ctx, "metric", m->name, m->higher_is_better ? "higher" : "lower",
			    m->statistic, m->unit);
	}
	emit_sections(c, emit, ctx);
	emit_profile(&c->profile, emit, ctx);
	if (c->trace_kb) {
		char kb[16];

		snprintf(kb, sizeof(kb), "%u", c->trace_kb);
		emit_record(emit, ctx, "trace_buffer_kb", kb, NULL, NULL, NULL);
	}
	if (c->wc_grace_set) {
		char ms[16];

		snprintf(ms, sizeof(ms), "%u", c->wc_grace_ms);
		emit_record(emit, ctx, "wc_grace_ms", ms, NULL, NULL, NULL);
	}
	if (c->trace_keep_set) {
		char mb[16];

		snprintf(mb, sizeof(mb), "%u", c->trace_keep_mb);
		emit_record(emit, ctx, "trace_keep_mb", mb, NULL, NULL, NULL);
	}
	if (c->trace_run_mb) {
		char mb[16];

		snprintf(mb, sizeof(mb), "%u", c->trace_run_mb);
		emit_record(emit, ctx, "trace_run_mb", mb, NULL, NULL, NULL);
	}
	if (c->pin)
		emit_record(emit, ctx, "pin", c->pin == PLAN_PIN_YES ? "yes" : "strict", NULL, NULL,
			    NULL);
	if (c->scheduler[0])
		emit_record(emit, ctx, "scheduler", c->scheduler, c->scheduler_ops,
			    c->scheduler_args, NULL);
	emit_record(emit, ctx, "end", NULL, NULL, NULL, NULL);
	return 0;
}

int plan_scheduler_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= PLAN_MAX_SCHED || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-'))
			return 0;
	}
	return 1;
}

int plan_parse_ms(const char *s, unsigned max_ms, unsigned *ms)
{
	unsigned long long v = 0;
	unsigned frac = 0, digits = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > max_ms / 1000 + 1)
			return -1;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (++digits > 3)
				return -1;
			frac = frac * 10 + (unsigned)(*p - '0');
		}
		while (digits++ < 3)
			frac *= 10;
	}
	if (*p)
		return -1;
	v = v * 1000 + frac;
	if (v > max_ms)
		return -1;
	*ms = (unsigned)v;
	return 0;
}

void plan_format_ms(unsigned ms, char *buf, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%u", ms / 1000);
	else if (ms % 100 == 0)
		snprintf(buf, len, "%u.%u", ms / 1000, ms % 1000 / 100);
	else if (ms % 10 == 0)
		snprintf(buf, len, "%u.%02u", ms / 1000, ms % 1000 / 10);
	else
		snprintf(buf, len, "%u.%03u", ms / 1000, ms % 1000);
}
