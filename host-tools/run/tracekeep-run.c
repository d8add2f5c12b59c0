/* tracekeep-run.c - lab run keeps, per traced case, only the runs that
 * explain it within trace_keep_mb (or its default), and says what it dropped. */
#include "run/tracekeep-run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/schedtrace.h"
#include "results/tracekeep.h"
#include "results/tracerun.h"
#include "report/timeline.h"

int run_keep_traces(const char *run_dir, const struct plan *p, struct strbuf *out,
		    struct strbuf *err)
{
	struct fault_marks fm = FAULT_MARKS_INIT;
	struct strbuf why = STRBUF_INIT;
	int ret = 0, loaded = 0;

	for (unsigned i = 0; i < p->nr_cases; i++) {
		const struct plan_case *c = &p->cases[i];
		struct tk_case kc = TK_CASE_INIT;
		char *case_dir, *dir;

		if (!(c->counters & PLAN_CNT_SCHEDTRACE))
			continue;
		case_dir = schedtrace_case_dir(c->id);
		dir = xasprintf("%s/trace/%s", run_dir, case_dir);
		/* no trace of the case (tracing absent, or not reached) */
		if (!is_dir(dir)) {
			free(dir);
			free(case_dir);
			continue;
		}
		free(dir);
		/* marks are a nicety, as in lab trace: without them faulted runs
		 * are kept only as ends or outliers */
		if (!loaded) {
			loaded = 1;
			if (fault_marks_load(&fm, run_dir, &why) < 0)
				strbuf_reset(&why);
		}
		if (trace_keep_case(run_dir, case_dir, (uint64_t)plan_trace_keep_mb(c) << 20,
				    (uint64_t)c->trace_run_mb << 20, timeline_run_faulted, &fm, &kc,
				    &why) < 0) {
			if (!ret)
				strbuf_addf(err, "case '%s': %s", c->id, why.buf);
			strbuf_reset(&why);
			ret = -1;
		}
		if (kc.r) {
			strbuf_addstr(out, "trace: ");
			trace_keep_summary(case_dir, &kc, out);
		}
		tk_case_release(&kc);
		free(case_dir);
	}
	fault_marks_release(&fm);
	strbuf_release(&why);
	return ret;
}

void run_keep_traces_print(const char *run_dir, const struct plan *p)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	if (run_keep_traces(run_dir, p, &out, &err) < 0)
		warning("trace keep: %s", err.buf);
	fputs(out.buf, stdout);
	strbuf_release(&out);
	strbuf_release(&err);
}
