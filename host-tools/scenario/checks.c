/* checks.c - what only the whole file can tell: required keys, fault
 * timing, the matrix's size and the length of its case ids. */
#include "scenario/loader.h"
#include "fault/hostfault.h"

#include <string.h>

/* Timing of a fault once its section is read: count or duration. */
static int check_fault(struct loader *l, unsigned idx)
{
	struct plan_fault *f = &l->s->faults[idx];
	unsigned line = l->fault_lines[idx], duration = l->fault_duration_ms[idx];
	const unsigned *keys = l->fault_key_lines[idx];

	if (!f->kind[0])
		return loader_fail_at(l, line, "[fault %s] has no 'kind'", f->name);
	/* the runner checks its own kinds' keys; the host's are checked here */
	if (f->side == PLAN_SIDE_HOST) {
		struct strbuf why = STRBUF_INIT;
		unsigned at;

		if (hostfault_check_opts(hostfault_find(f->kind), f, &why, &at) < 0) {
			loader_fail_at(l, at ? at : line, "[fault %s]: %s", f->name, why.buf);
			strbuf_release(&why);
			return -1;
		}
	}
	if (keys[FKEY_COUNT] && keys[FKEY_DURATION])
		return loader_fail_at(l, keys[FKEY_DURATION], "[fault %s]: give 'count' or 'duration', "
			       "not both", f->name);
	if (f->count != 1 && !f->period_ms)
		return loader_fail_at(l, line, "[fault %s] repeats but has no 'period' (or say count = 1)",
			       f->name);
	if (duration) {
		/* actions at start, start + period, ... before start + duration */
		unsigned long n = (duration + f->period_ms - 1) / f->period_ms;

		f->count = n > 1000000 ? 1000000 : (unsigned)n;
	}
	if (f->count != 1 && f->hold_ms >= f->period_ms)
		return loader_fail_at(l, keys[FKEY_HOLD], "[fault %s]: 'hold' must be shorter than "
			       "'period'", f->name);
	return 0;
}

static int scenario_has_metric(const struct scenario *s, const char *name)
{
	for (unsigned i = 0; i < s->nr_metrics; i++)
		if (!strcmp(s->metrics[i].name, name))
			return 1;
	return 0;
}

int loader_check(struct loader *l)
{
	struct scenario *s = l->s;
	unsigned long cases = 1;
	size_t id_len = strlen(s->name);
	unsigned axes = 0;

	if (!l->scenario_line)
		return loader_fail_at(l, 1, "no [scenario] section");
	s->line = l->scenario_line;
	if (!s->name[0])
		return loader_fail_at(l, l->scenario_line, "[scenario] has no 'name'");
	if (!s->workload[0])
		return loader_fail_at(l, l->scenario_line, "[scenario] has no 'workload'");
	if (!s->nr_metrics)
		return loader_fail_at(l, l->scenario_line, "no [metric NAME] section: say which metrics "
			       "matter and which way is better");
	for (unsigned i = 0; i < s->nr_metrics; i++)
		if (s->metrics[i].higher_is_better < 0)
			return loader_fail_at(l, s->metric_lines[i], "[metric %s] has no 'better' "
				       "(higher or lower)", s->metrics[i].name);
	if (s->primary[0] && !scenario_has_metric(s, s->primary))
		return loader_fail_at(l, l->key_lines[KEY_PRIMARY], "'primary' names '%s', which is no "
				      "[metric] of the scenario", s->primary);
	for (unsigned i = 0; i < s->nr_expects; i++) {
		struct expect *e = &s->expects[i];
		char *text = strchr(e->text, ':') + 1;

		if (!scenario_has_metric(s, e->metric))
			return loader_fail_at(l, l->key_lines[KEY_EXPECT], "'expect' names '%s', which is "
					      "no [metric] of the scenario", e->metric);
		/* the case is the scenario's, known now */
		memmove(e->text + strlen(s->name) + 1, text, strlen(text) + 1);
		memcpy(e->text, s->name, strlen(s->name));
		e->text[strlen(s->name)] = ':';
		strcpy(e->case_id, s->name);
	}
	if (s->profile.per[0] && !s->profile.nr_funcs)
		return loader_fail_at(l, l->key_lines[KEY_PROFILE_PER], "'profile_per' without 'profile'");
	if (s->trace_kb && !(s->counters & PLAN_CNT_SCHEDTRACE))
		return loader_fail_at(l, l->key_lines[KEY_TRACE_BUFFER_KB],
				      "'trace_buffer_kb' without 'schedtrace' in counters");
	if (l->key_lines[KEY_WC_GRACE_MS] && !(s->counters & PLAN_CNT_SCHEDTRACE))
		return loader_fail_at(l, l->key_lines[KEY_WC_GRACE_MS],
				      "'wc_grace_ms' without 'schedtrace' in counters");
	if (l->key_lines[KEY_TRACE_RUN_MB] && !(s->counters & PLAN_CNT_SCHEDTRACE))
		return loader_fail_at(l, l->key_lines[KEY_TRACE_RUN_MB],
				      "'trace_run_mb' without 'schedtrace' in counters");
	if (s->trace_keep_set && !(s->counters & PLAN_CNT_SCHEDTRACE))
		return loader_fail_at(l, l->key_lines[KEY_TRACE_KEEP_MB],
				      "'trace_keep_mb' without 'schedtrace' in counters");
	for (unsigned i = 0; i < s->nr_faults; i++)
		if (check_fault(l, i))
			return -1;
	for (unsigned i = 0; i < s->nr_invariants; i++)
		if (!s->invariants[i].kind[0])
			return loader_fail_at(l, l->invariant_lines[i], "[invariant %s] has no 'kind'",
				       s->invariants[i].name);
	for (unsigned i = 0; i < s->nr_params; i++) {
		const struct scenario_param *p = &s->params[i];
		size_t longest = 0;

		if (p->nr_values < 2)
			continue;
		cases *= p->nr_values;
		if (cases > PLAN_MAX_CASES)
			return loader_fail_at(l, p->line, "the matrix expands to more than %d cases",
				       PLAN_MAX_CASES);
		for (unsigned v = 0; v < p->nr_values; v++)
			if (strlen(p->values[v]) > longest)
				longest = strlen(p->values[v]);
		id_len += 1 + strlen(p->key) + 1 + longest;
		axes++;
	}
	if (id_len >= PLAN_MAX_FIELD)
		return loader_fail_at(l, l->scenario_line, "case ids would be longer than %d characters "
			       "(shorten the name or the values)", PLAN_MAX_FIELD - 1);
	s->nr_cases = (unsigned)cases;
	return 0;
}

