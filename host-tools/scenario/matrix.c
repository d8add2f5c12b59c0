/* matrix.c - a scenario's list params expanded into plan cases, the
 * cartesian product in file order, the last axis varying fastest. */
#include "scenario/scenario.h"

#include <stdio.h>
#include <string.h>

int scenario_expand(const struct scenario *s, struct plan *p, struct strbuf *err)
{
	unsigned idx[PLAN_MAX_PARAMS] = { 0 };

	if (!s->nr_cases || !s->name[0]) {
		strbuf_reset(err);
		strbuf_addf(err, "%s: scenario was not loaded", s->shown ? s->shown : "?");
		return -1;
	}
	if (p->nr_cases + s->nr_cases > PLAN_MAX_CASES) {
		strbuf_reset(err);
		strbuf_addf(err, "%s:%u: the plan would have more than %d cases", s->shown, s->line,
			    PLAN_MAX_CASES);
		return -1;
	}
	p->cases = xrealloc(p->cases, (p->nr_cases + s->nr_cases) * sizeof(*p->cases));
	for (unsigned k = 0; k < s->nr_cases; k++) {
		struct plan_case *c = &p->cases[p->nr_cases++];
		struct strbuf id = STRBUF_INIT;
		int axes = 0;

		memset(c, 0, sizeof(*c));
		strbuf_addstr(&id, s->name);
		for (unsigned i = 0; i < s->nr_params; i++) {
			const struct scenario_param *sp = &s->params[i];
			struct plan_param *pp = &c->params[c->nr_params++];

			snprintf(pp->key, sizeof(pp->key), "%s", sp->key);
			snprintf(pp->value, sizeof(pp->value), "%s", sp->values[idx[i]]);
			snprintf(pp->where, sizeof(pp->where), "%s:%u", s->shown, sp->line);
			if (sp->nr_values > 1)
				strbuf_addf(&id, "%c%s=%s", axes++ ? ',' : '/', sp->key,
					    sp->values[idx[i]]);
		}
		/* check_scenario() bounded the id's length */
		snprintf(c->id, sizeof(c->id), "%s", id.buf);
		strbuf_release(&id);
		snprintf(c->scenario, sizeof(c->scenario), "%s", s->name);
		snprintf(c->source, sizeof(c->source), "%s:%u", s->shown, s->line);
		snprintf(c->workload, sizeof(c->workload), "%s", s->workload);
		c->runs = s->runs;
		c->warmup = s->warmup;
		c->deadline_s = s->deadline_s;
		c->counters = s->counters;
		memcpy(c->metrics, s->metrics, sizeof(c->metrics));
		c->nr_metrics = s->nr_metrics;
		memcpy(c->faults, s->faults, sizeof(c->faults));
		c->nr_faults = s->nr_faults;
		memcpy(c->invariants, s->invariants, sizeof(c->invariants));
		c->nr_invariants = s->nr_invariants;
		c->profile = s->profile;
		c->trace_kb = s->trace_kb;
		c->wc_grace_ms = s->wc_grace_ms;
		c->wc_grace_set = s->wc_grace_set;
		c->trace_keep_mb = s->trace_keep_mb;
		c->trace_keep_set = s->trace_keep_set;
		c->trace_run_mb = s->trace_run_mb;
		c->pin = s->pin;
		memcpy(c->scheduler, s->scheduler, sizeof(c->scheduler));
		memcpy(c->scheduler_ops, s->scheduler_ops, sizeof(c->scheduler_ops));
		memcpy(c->scheduler_args, s->scheduler_args, sizeof(c->scheduler_args));

		/* odometer: the last axis in the file turns fastest */
		for (unsigned i = s->nr_params; i-- > 0;) {
			if (s->params[i].nr_values < 2)
				continue;
			if (++idx[i] < s->params[i].nr_values)
				break;
			idx[i] = 0;
		}
	}
	return 0;
}

