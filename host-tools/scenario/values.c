/* values.c - one key at a time: each value checked against its section's
 * keys, with the file and line in the message. */
#include "scenario/loader.h"
#include "lib/expect.h"
#include "fault/hostfault.h"
#include "common/cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scx/scx.h"

static const char *const scenario_keys[NR_SCENARIO_KEYS] = {
	"name", "description", "workload", "runs", "warmup", "deadline", "counters",
	"profile", "profile_per", "trace_buffer_kb", "wc_grace_ms",
	"trace_keep_mb", "trace_run_mb", "pin", "scheduler", "primary", "expect",
};

static const char *const metric_keys[NR_METRIC_KEYS] = { "better", "statistic", "unit" };

static const char *const fault_keys[NR_FAULT_KEYS] = {
	"kind", "target", "start", "period", "count", "duration", "hold",
};

void scenario_param_release(struct scenario_param *p)
{
	for (unsigned i = 0; i < p->nr_values; i++)
		free(p->values[i]);
	free(p->values);
	p->values = NULL;
	p->nr_values = 0;
}

/* "a, b, c" is a matrix axis; a value in double quotes is taken whole. */
static int split_values(struct loader *l, struct scenario_param *p, const char *value)
{
	size_t len = strlen(value);
	char shown[64];

	if (value[0] == '"') {
		if (len < 2 || value[len - 1] != '"' || memchr(value + 1, '"', len - 2))
			return loader_fail_at(l, l->lineno, "unbalanced quotes in the value of '%s'", p->key);
		if (len == 2)
			return loader_fail_at(l, l->lineno, "empty value for '%s'", p->key);
		p->values = xmalloc(sizeof(*p->values));
		p->values[0] = xasprintf("%.*s", (int)(len - 2), value + 1);
		p->nr_values = 1;
		return 0;
	}
	for (const char *s = value;;) {
		const char *comma = strchr(s, ',');
		const char *e = comma ? comma : s + strlen(s);
		const char *b = scenario_lskip(s, e);
		char *v;

		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (e == b)
			return loader_fail_at(l, l->lineno, "empty element in the list for '%s'", p->key);
		v = xasprintf("%.*s", (int)(e - b), b);
		for (unsigned i = 0; i < p->nr_values; i++) {
			if (!strcmp(p->values[i], v)) {
				loader_fail_at(l, l->lineno, "'%s' is listed twice for '%s'",
					scenario_quoted(v, shown, sizeof(shown)), p->key);
				free(v);
				return -1;
			}
		}
		if (p->nr_values >= PLAN_MAX_CASES) {
			free(v);
			return loader_fail_at(l, l->lineno, "more than %d values for '%s'", PLAN_MAX_CASES,
				       p->key);
		}
		p->values = xrealloc(p->values, (p->nr_values + 1) * sizeof(*p->values));
		p->values[p->nr_values++] = v;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

static int set_number(struct loader *l, const char *key, const char *value, unsigned min,
		      unsigned max, unsigned *out)
{
	char shown[64];

	if (parse_uint(value, min, max, out))
		return loader_fail_at(l, l->lineno, "bad value '%s' for '%s' (a number %u..%u)",
			       scenario_quoted(value, shown, sizeof(shown)), key, min, max);
	return 0;
}

/* A size in MiB: "4", not "4M" or "4 MiB" (the unit is in the key's name). */
static int set_mib(struct loader *l, const char *key, const char *value, unsigned min,
		   unsigned max, const char *what, unsigned *out)
{
	char shown[64];

	if (parse_uint(value, min, max, out))
		return loader_fail_at(l, l->lineno, "bad value '%s' for '%s' (%s: a whole number "
			       "%u..%u)", scenario_quoted(value, shown, sizeof(shown)), key, what,
			       min, max);
	return 0;
}

static int set_counters(struct loader *l, const char *value)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "schedstat", PLAN_CNT_SCHEDSTAT },
		{ "vmstat", PLAN_CNT_VMSTAT },
		{ "tasks", PLAN_CNT_TASKS },
		{ "schedtrace", PLAN_CNT_SCHEDTRACE },
	};
	unsigned bits = 0;
	int none = 0, words = 0;
	const char *s = value;
	char word[64], shown[64];

	while (*s) {
		size_t n = strcspn(s, " ,\t");
		size_t i;

		if (!n) {
			s++;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(n < 60 ? n : 60), s);
		s += n;
		words++;
		if (!strcmp(word, "none")) {
			none = 1;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(word, names[i].name))
				break;
		if (i == ARRAY_SIZE(names))
			return loader_fail_at(l, l->lineno, "unknown counter '%s' (expected schedstat, "
				       "vmstat, tasks, schedtrace or none)", scenario_quoted(word, shown, sizeof(shown)));
		if (bits & names[i].bit)
			return loader_fail_at(l, l->lineno, "counter '%s' listed twice", word);
		bits |= names[i].bit;
	}
	if (none && words > 1)
		return loader_fail_at(l, l->lineno, "'none' cannot be combined with other counters");
	l->s->counters = bits;
	return 0;
}

/* profile = func1 func2 ...: kernel functions for the ftrace profiler. */
static int set_profile(struct loader *l, const char *value)
{
	struct plan_profile *pr = &l->s->profile;
	const char *s = value;
	char word[PLAN_MAX_SYMBOL + 8], shown[80];

	while (*s) {
		size_t n = strcspn(s, " ,\t");

		if (!n) {
			s++;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s",
			 (int)(n < sizeof(word) - 1 ? n : sizeof(word) - 1), s);
		s += n;
		if (n >= PLAN_MAX_SYMBOL || !plan_symbol_ok(word))
			return loader_fail_at(l, l->lineno, "bad function name '%s' in 'profile' (a "
				       "kernel symbol: letters, digits, '_' and '.', at most %d "
				       "characters)", scenario_quoted(word, shown, sizeof(shown)),
				       PLAN_MAX_SYMBOL - 1);
		for (unsigned i = 0; i < pr->nr_funcs; i++)
			if (!strcmp(pr->funcs[i], word))
				return loader_fail_at(l, l->lineno,
					       "function '%s' listed twice in 'profile'", word);
		if (pr->nr_funcs >= PLAN_MAX_PROFILE)
			return loader_fail_at(l, l->lineno, "more than %d functions in 'profile'",
				       PLAN_MAX_PROFILE);
		strcpy(pr->funcs[pr->nr_funcs++], word);
	}
	if (!pr->nr_funcs)
		return loader_fail_at(l, l->lineno, "'profile' names no function");
	return 0;
}

/* profile_per = vmstat:NAME: the counter whose delta divides the time. */
static int set_profile_per(struct loader *l, const char *value)
{
	char shown[80];
	const char *p;

	if (strncmp(value, "vmstat:", 7) || !value[7] || strlen(value) >= PLAN_MAX_SYMBOL)
		goto bad;
	for (p = value + 7; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			goto bad;
	strcpy(l->s->profile.per, value);
	return 0;
bad:
	return loader_fail_at(l, l->lineno, "bad value '%s' for 'profile_per' (vmstat:NAME, a "
		       "/proc/vmstat key such as vmstat:numa_pages_migrated)",
		       scenario_quoted(value, shown, sizeof(shown)));
}

/* scheduler = scx_NAME [ARGS]: one of the registry's (scx/scx.h), whose
 * ops name the runner checks; "none" is the kernel's own scheduler. */
static int set_scheduler(struct loader *l, const char *value)
{
	struct scenario *s = l->s;
	size_t n = strcspn(value, " \t");
	const char *args = value + n + strspn(value + n, " \t");
	const struct scx_sched *sch;
	char name[PLAN_MAX_SCHED], shown[64], names[256];

	if (!n || n >= sizeof(name))
		return loader_fail_at(l, l->lineno, "bad value '%s' for 'scheduler' (a sched_ext "
				      "scheduler: %s; or none)", scenario_quoted(value, shown, sizeof(shown)),
				      scx_sched_names(names, sizeof(names)));
	memcpy(name, value, n);
	name[n] = '\0';
	if (!strcmp(name, "none") && !*args) {
		s->scheduler[0] = s->scheduler_ops[0] = s->scheduler_args[0] = '\0';
		return 0;
	}
	sch = scx_sched_find(name);
	if (!sch)
		return loader_fail_at(l, l->lineno, "unknown sched_ext scheduler '%s' (%s; or none; "
				      "a scheduler of your own: lab run --scx PATH)",
				      scenario_quoted(name, shown, sizeof(shown)),
				      scx_sched_names(names, sizeof(names)));
	if (strlen(args) >= sizeof(s->scheduler_args))
		return loader_fail_at(l, l->lineno, "the arguments of 'scheduler' are longer than %zu "
				      "characters", sizeof(s->scheduler_args) - 1);
	snprintf(s->scheduler, sizeof(s->scheduler), "%s", sch->binary);
	snprintf(s->scheduler_ops, sizeof(s->scheduler_ops), "%s", sch->ops);
	snprintf(s->scheduler_args, sizeof(s->scheduler_args), "%s", args);
	return 0;
}

/* expect = METRIC OP N%[, METRIC OP N%]: the case is the scenario's
 * (lib/expect.h), named once the whole file is read. */
static int set_expect(struct loader *l, const char *value)
{
	struct scenario *s = l->s;
	const char *p = value;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		struct strbuf err = STRBUF_INIT;
		char *one;
		int ret;

		while (len && *p == ' ') {
			p++;
			len--;
		}
		while (len && p[len - 1] == ' ')
			len--;
		if (s->nr_expects >= SCENARIO_MAX_EXPECTS)
			return loader_fail_at(l, l->lineno, "more than %d expectations in 'expect'",
					      SCENARIO_MAX_EXPECTS);
		one = xasprintf("%.*s", (int)len, p);
		ret = expect_parse(one, "x", &s->expects[s->nr_expects], &err);
		free(one);
		if (ret < 0) {
			loader_fail_at(l, l->lineno, "%s", err.buf);
			strbuf_release(&err);
			return -1;
		}
		s->nr_expects++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int scenario_key(struct loader *l, const char *name, const char *value)
{
	struct scenario *s = l->s;
	char shown[64];
	int k;

	for (k = 0; k < NR_SCENARIO_KEYS; k++)
		if (!strcmp(name, scenario_keys[k]))
			break;
	if (k == NR_SCENARIO_KEYS)
		return loader_fail_at(l, l->lineno, "unknown key '%s' in [scenario] (expected name, "
			       "description, workload, runs, warmup, deadline, counters, profile, "
			       "profile_per, trace_buffer_kb, wc_grace_ms, trace_keep_mb, trace_run_mb, pin, "
			       "scheduler, primary or expect)",
			       scenario_quoted(name, shown, sizeof(shown)));
	if (l->key_lines[k])
		return loader_fail_at(l, l->lineno, "duplicate key '%s' in [scenario] (first at line %u)",
			       name, l->key_lines[k]);
	l->key_lines[k] = l->lineno;

	switch (k) {
	case KEY_NAME:
		if (!scenario_is_word(value, sizeof(s->name) - 1, 1))
			return loader_fail_at(l, l->lineno, "bad scenario name '%s' (at most %zu lowercase "
				       "letters, digits, '_', '-' and '.', not first)",
				       scenario_quoted(value, shown, sizeof(shown)), sizeof(s->name) - 1);
		strcpy(s->name, value);
		return 0;
	case KEY_DESCRIPTION:
		snprintf(s->description, sizeof(s->description), "%s", value);
		return 0;
	case KEY_WORKLOAD:
		if (!scenario_is_word(value, sizeof(s->workload) - 1, 0))
			return loader_fail_at(l, l->lineno, "bad workload name '%s' (lowercase letters, "
				       "digits and '_')", scenario_quoted(value, shown, sizeof(shown)));
		strcpy(s->workload, value);
		return 0;
	case KEY_RUNS:
		return set_number(l, name, value, 1, 1000, &s->runs);
	case KEY_WARMUP:
		return set_number(l, name, value, 0, 100, &s->warmup);
	case KEY_DEADLINE:
		return set_number(l, name, value, 1, 86400, &s->deadline_s);
	case KEY_PROFILE:
		return set_profile(l, value);
	case KEY_PROFILE_PER:
		return set_profile_per(l, value);
	case KEY_TRACE_BUFFER_KB:
		return set_number(l, name, value, PLAN_MIN_TRACE_KB, PLAN_MAX_TRACE_KB, &s->trace_kb);
	case KEY_WC_GRACE_MS:
		s->wc_grace_set = 1;
		return set_number(l, name, value, 0, PLAN_MAX_WC_GRACE_MS, &s->wc_grace_ms);
	case KEY_TRACE_KEEP_MB:
		s->trace_keep_set = 1;
		return set_mib(l, name, value, 0, PLAN_MAX_TRACE_KEEP_MB,
			       "MiB of kept traces per case; 0 keeps none", &s->trace_keep_mb);
	case KEY_TRACE_RUN_MB:
		return set_mib(l, name, value, 1, PLAN_MAX_TRACE_RUN_MB,
			       "MiB of one run's trace over all CPUs", &s->trace_run_mb);
	case KEY_PIN:
		if (!strcmp(value, "yes") || !strcmp(value, "strict") || !strcmp(value, "no")) {
			s->pin = !strcmp(value, "yes") ? PLAN_PIN_YES :
				 !strcmp(value, "strict") ? PLAN_PIN_STRICT : PLAN_PIN_NONE;
			return 0;
		}
		return loader_fail_at(l, l->lineno, "bad value '%s' for 'pin' (yes, strict or no)",
				      scenario_quoted(value, shown, sizeof(shown)));
	case KEY_SCHEDULER:
		return set_scheduler(l, value);
	case KEY_PRIMARY:
		if (!scenario_is_word(value, sizeof(s->primary) - 1, 0))
			return loader_fail_at(l, l->lineno, "bad value '%s' for 'primary' (a metric's name)",
					      scenario_quoted(value, shown, sizeof(shown)));
		strcpy(s->primary, value);
		return 0;
	case KEY_EXPECT:
		return set_expect(l, value);
	default:
		return set_counters(l, value);
	}
}

static int params_key(struct loader *l, const char *name, const char *value)
{
	struct scenario *s = l->s;
	struct scenario_param *p;
	char shown[64];

	if (!scenario_is_word(name, sizeof(p->key) - 1, 0))
		return loader_fail_at(l, l->lineno, "bad parameter name '%s' (at most %zu lowercase "
			       "letters, digits and '_')", scenario_quoted(name, shown, sizeof(shown)),
			       sizeof(p->key) - 1);
	for (unsigned i = 0; i < s->nr_params; i++)
		if (!strcmp(s->params[i].key, name))
			return loader_fail_at(l, l->lineno, "duplicate key '%s' in [params] (first at line %u)",
				       name, s->params[i].line);
	if (s->nr_params >= PLAN_MAX_PARAMS)
		return loader_fail_at(l, l->lineno, "more than %d keys in [params]", PLAN_MAX_PARAMS);
	p = &s->params[s->nr_params++];
	strcpy(p->key, name);
	p->line = l->lineno;
	return split_values(l, p, value);
}

static int metric_key(struct loader *l, const char *name, const char *value)
{
	struct plan_metric *m = &l->s->metrics[l->metric];
	char shown[64];
	int k;

	for (k = 0; k < NR_METRIC_KEYS; k++)
		if (!strcmp(name, metric_keys[k]))
			break;
	if (k == NR_METRIC_KEYS)
		return loader_fail_at(l, l->lineno, "unknown key '%s' in [metric %s] (expected better, "
			       "statistic or unit)", scenario_quoted(name, shown, sizeof(shown)), m->name);
	if (l->metric_key_lines[l->metric][k])
		return loader_fail_at(l, l->lineno, "duplicate key '%s' in [metric %s] (first at line %u)",
			       name, m->name, l->metric_key_lines[l->metric][k]);
	l->metric_key_lines[l->metric][k] = l->lineno;

	switch (k) {
	case MKEY_BETTER:
		if (strcmp(value, "higher") && strcmp(value, "lower"))
			return loader_fail_at(l, l->lineno, "bad value '%s' for 'better' (higher or lower)",
				       scenario_quoted(value, shown, sizeof(shown)));
		m->higher_is_better = !strcmp(value, "higher");
		return 0;
	case MKEY_STATISTIC:
		if (strcmp(value, "amean") && strcmp(value, "hmean") && strcmp(value, "median"))
			return loader_fail_at(l, l->lineno, "bad value '%s' for 'statistic' (amean, hmean "
				       "or median)", scenario_quoted(value, shown, sizeof(shown)));
		strcpy(m->statistic, value);
		return 0;
	default:
		if (strlen(value) >= sizeof(m->unit) || strchr(value, ' '))
			return loader_fail_at(l, l->lineno, "bad unit '%s' (at most %zu characters, no "
				       "spaces)", scenario_quoted(value, shown, sizeof(shown)),
				       sizeof(m->unit) - 1);
		strcpy(m->unit, value);
		return 0;
	}
}

/* A kind-specific key: passed to the runner as written. */
static int add_opt(struct loader *l, const char *what, const char *section, struct plan_opt *opts,
		   unsigned *nr, const char *name, const char *value)
{
	char shown[64];

	if (!scenario_is_word(name, sizeof(opts->key) - 1, 0))
		return loader_fail_at(l, l->lineno, "bad key '%s' in [%s %s] (at most %zu lowercase "
			       "letters, digits and '_')", scenario_quoted(name, shown, sizeof(shown)), what,
			       section, sizeof(opts->key) - 1);
	for (unsigned i = 0; i < *nr; i++)
		if (!strcmp(opts[i].key, name))
			return loader_fail_at(l, l->lineno, "duplicate key '%s' in [%s %s] (first at line %u)",
				       name, what, section, opts[i].line);
	if (strlen(value) >= sizeof(opts->value))
		return loader_fail_at(l, l->lineno, "value of '%s' longer than %zu characters", name,
			       sizeof(opts->value) - 1);
	if (*nr >= PLAN_MAX_OPTS)
		return loader_fail_at(l, l->lineno, "more than %d kind-specific keys in [%s %s]",
			       PLAN_MAX_OPTS, what, section);
	strcpy(opts[*nr].key, name);
	strcpy(opts[*nr].value, value);
	opts[*nr].line = l->lineno;
	(*nr)++;
	return 0;
}

/* "random", "workload", or a CPU list ("3", "1-3,6"). */
static int target_ok(const char *v)
{
	unsigned long bits[CPULIST_LONGS(8192)];

	if (!strcmp(v, "random") || !strcmp(v, "workload"))
		return 1;
	return cpulist_parse(v, bits, 8192, NULL, 0) > 0;
}

static int set_seconds(struct loader *l, const char *key, const char *value, unsigned *ms)
{
	char shown[64];

	if (plan_parse_ms(value, PLAN_MAX_MS, ms))
		return loader_fail_at(l, l->lineno, "bad value '%s' for '%s' (seconds, e.g. 5 or 0.25; "
			       "at most 86400)", scenario_quoted(value, shown, sizeof(shown)), key);
	return 0;
}

static int fault_key(struct loader *l, const char *name, const char *value)
{
	unsigned idx = l->section_index;
	struct plan_fault *f = &l->s->faults[idx];
	char shown[64];
	int k;

	for (k = 0; k < NR_FAULT_KEYS; k++)
		if (!strcmp(name, fault_keys[k]))
			break;
	if (k == NR_FAULT_KEYS)
		return add_opt(l, "fault", f->name, f->opts, &f->nr_opts, name, value);
	if (l->fault_key_lines[idx][k])
		return loader_fail_at(l, l->lineno, "duplicate key '%s' in [fault %s] (first at line %u)",
			       name, f->name, l->fault_key_lines[idx][k]);
	l->fault_key_lines[idx][k] = l->lineno;
	switch (k) {
	case FKEY_KIND:
		if (!scenario_is_word(value, sizeof(f->kind) - 1, 0))
			return loader_fail_at(l, l->lineno, "bad fault kind '%s' (lowercase letters, digits "
				       "and '_')", scenario_quoted(value, shown, sizeof(shown)));
		strcpy(f->kind, value);
		/* the host's kinds (QMP) go to the plan as side "host": the runner
		 * skips them and the host times them from the run's run_start */
		f->side = hostfault_find(value) ? PLAN_SIDE_HOST : PLAN_SIDE_GUEST;
		return 0;
	case FKEY_TARGET:
		if (strlen(value) >= sizeof(f->target) || !target_ok(value))
			return loader_fail_at(l, l->lineno, "bad target '%s' (a CPU list like 1-3,6, "
				       "'random' or 'workload')", scenario_quoted(value, shown, sizeof(shown)));
		strcpy(f->target, value);
		return 0;
	case FKEY_START:
		return set_seconds(l, name, value, &f->start_ms);
	case FKEY_PERIOD:
		if (set_seconds(l, name, value, &f->period_ms))
			return -1;
		if (!f->period_ms)
			return loader_fail_at(l, l->lineno, "'period' must be more than 0 seconds");
		return 0;
	case FKEY_COUNT:
		return set_number(l, name, value, 1, 1000000, &f->count);
	case FKEY_DURATION:
		if (set_seconds(l, name, value, &l->fault_duration_ms[idx]))
			return -1;
		if (!l->fault_duration_ms[idx])
			return loader_fail_at(l, l->lineno, "'duration' must be more than 0 seconds");
		return 0;
	default:
		return set_seconds(l, name, value, &f->hold_ms);
	}
}

static int invariant_key(struct loader *l, const char *name, const char *value)
{
	unsigned idx = l->section_index;
	struct plan_invariant *v = &l->s->invariants[idx];
	char shown[64];

	if (strcmp(name, "kind"))
		return add_opt(l, "invariant", v->name, v->opts, &v->nr_opts, name, value);
	if (l->invariant_has_kind[idx])
		return loader_fail_at(l, l->lineno, "duplicate key 'kind' in [invariant %s] (first at "
			       "line %u)", v->name, l->invariant_has_kind[idx]);
	l->invariant_has_kind[idx] = (int)l->lineno;
	if (!scenario_is_word(value, sizeof(v->kind) - 1, 0))
		return loader_fail_at(l, l->lineno, "bad invariant kind '%s' (lowercase letters, digits "
			       "and '_')", scenario_quoted(value, shown, sizeof(shown)));
	strcpy(v->kind, value);
	return 0;
}

static int check_key(struct loader *l, const char *name, const char *value)
{
	char shown[64];

	if (!*name)
		return loader_fail_at(l, l->lineno, "missing key name before '='");
	if (l->sec == SEC_NONE)
		return loader_fail_at(l, l->lineno, "key '%s' outside a section (start with [scenario])",
			       scenario_quoted(name, shown, sizeof(shown)));
	if (!*value)
		return loader_fail_at(l, l->lineno, "empty value for '%s'",
			       scenario_quoted(name, shown, sizeof(shown)));
	if (strchr(value, '\t'))
		return loader_fail_at(l, l->lineno, "TAB in the value of '%s'",
			       scenario_quoted(name, shown, sizeof(shown)));
	if (strlen(value) >= PLAN_MAX_FIELD)
		return loader_fail_at(l, l->lineno, "value of '%s' longer than %d characters",
			       scenario_quoted(name, shown, sizeof(shown)), PLAN_MAX_FIELD - 1);
	switch (l->sec) {
	case SEC_SCENARIO:
		return scenario_key(l, name, value);
	case SEC_PARAMS:
		return params_key(l, name, value);
	case SEC_FAULT:
		return fault_key(l, name, value);
	case SEC_INVARIANT:
		return invariant_key(l, name, value);
	default:
		return metric_key(l, name, value);
	}
}

/* inih's handler: nonzero to go on.  The section name is not used: inih
 * truncates long ones, so the reader keeps track of sections itself. */
int loader_handle_key(void *user, const char *section, const char *name, const char *value)
{
	struct loader *l = user;

	(void)section;
	if (l->err_line)
		return 0;
	l->key_in_section = 1;
	return check_key(l, name, value) == 0;
}

