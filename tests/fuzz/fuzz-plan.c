/* fuzz-plan.c - libFuzzer target for the compiled plan reader: any bytes
 * either fail with one "line N: ..." or round-trip exactly through the writer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/plan.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void emit_sb(void *ctx, const char *s, size_t len)
{
	strbuf_add(ctx, s, len);
}

static void check_case(const struct plan_case *c)
{
	if (strnlen(c->id, sizeof(c->id)) == sizeof(c->id) || !c->id[0] || !c->workload[0] ||
	    c->nr_params > PLAN_MAX_PARAMS || c->nr_metrics > PLAN_MAX_METRICS ||
	    c->runs < 1 || c->runs > 1000 || c->warmup > 100 ||
	    c->deadline_s < 1 || c->deadline_s > 86400 ||
	    (c->counters & ~(unsigned)(PLAN_CNT_SCHEDSTAT | PLAN_CNT_VMSTAT | PLAN_CNT_TASKS |
				       PLAN_CNT_SCHEDTRACE)) ||
	    c->trace_keep_mb > PLAN_MAX_TRACE_KEEP_MB)
		abort();
	for (unsigned i = 0; i < c->nr_params; i++)
		if (strnlen(c->params[i].value, PLAN_MAX_FIELD) == PLAN_MAX_FIELD ||
		    strchr(c->params[i].value, '\t'))
			abort();
	for (unsigned i = 0; i < c->nr_metrics; i++)
		if ((unsigned)c->metrics[i].higher_is_better > 1)
			abort();
}

static void write_plan(const struct plan *p, struct strbuf *out)
{
	char err[256];

	plan_write_header(emit_sb, out);
	for (unsigned i = 0; i < p->nr_cases; i++)
		if (plan_write_case(&p->cases[i], emit_sb, out, err, sizeof(err)))
			abort(); /* whatever the reader accepts, the writer can write */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf one = STRBUF_INIT, two = STRBUF_INIT;
	struct plan p, q;
	char err[256];

	if (plan_parse((const char *)data, size, &p, err, sizeof(err)) < 0) {
		if (strncmp(err, "line ", 5) || strchr(err, '\n') || p.cases || p.nr_cases)
			abort();
		return 0;
	}
	for (unsigned i = 0; i < p.nr_cases; i++)
		check_case(&p.cases[i]);
	write_plan(&p, &one);
	if (plan_parse(one.buf, one.len, &q, err, sizeof(err)) < 0 || q.nr_cases != p.nr_cases)
		abort();
	if (p.nr_cases && memcmp(p.cases, q.cases, p.nr_cases * sizeof(*p.cases)))
		abort();
	write_plan(&q, &two);
	if (one.len != two.len || memcmp(one.buf, two.buf, one.len))
		abort();
	plan_release(&p);
	plan_release(&q);
	strbuf_release(&one);
	strbuf_release(&two);
	return 0;
}
