/* fuzz-schedstat.c - libFuzzer target for the /proc/schedstat parser, the
 * delta and the summary: a snapshot minus itself is all zeros. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/schedstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_zero(const struct schedstat *d, const struct schedstat *ss)
{
	if (d->nr_cpus != ss->nr_cpus || d->cpus_skipped || d->domains_reset || d->timestamp)
		abort();
	for (unsigned i = 0; i < d->nr_cpus; i++) {
		const struct schedstat_cpu *c = &d->cpus[i];

		if (c->cpu != ss->cpus[i].cpu || c->nr_domains != ss->cpus[i].nr_domains ||
		    c->sched_count || c->rq_cpu_time || c->pcount)
			abort();
		for (unsigned j = 0; j < c->nr_domains; j++) {
			const struct schedstat_domain *dd = &c->domains[j];

			for (int t = 0; t < SCHEDSTAT_NR_ITYPES; t++)
				if (dd->lb[t].count || dd->lb[t].imbalance || dd->lb[t].nobusyg)
					abort();
			if (dd->alb_count || dd->ttwu_move_balance ||
			    strcmp(dd->cpumask, ss->cpus[i].domains[j].cpumask))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedstat ss = SCHEDSTAT_INIT, d = SCHEDSTAT_INIT;
	struct strbuf err = STRBUF_INIT;
	struct json_object *j;

	if (schedstat_parse((const char *)data, size, &ss, &err) < 0) {
		if (strncmp(err.buf, "line ", 5) || strchr(err.buf, '\n') || ss.cpus)
			abort();
		strbuf_release(&err);
		return 0;
	}
	if (ss.version < 15 || ss.version > 17 || !ss.nr_cpus || ss.nr_cpus > SCHEDSTAT_MAX_CPUS)
		abort();
	j = schedstat_summary_json(&ss);
	if (!json_object_to_json_string(j))
		abort();
	json_object_put(j);
	if (schedstat_delta(&ss, &ss, &d, &err) < 0)
		abort();
	check_zero(&d, &ss);
	j = schedstat_summary_json(&d);
	json_object_put(j);
	schedstat_release(&d);
	schedstat_release(&ss);
	strbuf_release(&err);
	return 0;
}
