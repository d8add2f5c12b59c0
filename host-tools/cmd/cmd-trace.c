/* cmd-trace.c - `lab trace RUN [--case C] [--run N]`: where a run's kept sched
 * traces are, their trace.dat, trace.json and timeline page, and a text digest. */
#include "cmd/lab.h"
#include "cmd/options.h"
#include "report/htmlreport.h"
#include "report/timeline.h"
#include "lib/json.h"
#include "results/runfiles.h"
#include "results/tracekeep.h"
#include "results/tracerun.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char trace_usage[] =
	"lab trace [--case CASE] [--run N] [--top N] [--keep [--budget-mb N]] RUN_DIR";

/*
 * --keep: the case's traced runs that explain it (failed, faulted, outliers,
 * slowest, fastest) within the budget; the others' pages are removed and
 * trace/<case>/kept.json says what stayed and what went.  The budgets are
 * the plan's (trace_keep_mb, trace_run_mb, as lab run used them) unless
 * --budget-mb names one.
 */
static int keep_case(const char *dir, const char *case_dir, const struct fault_marks *fm,
		     const struct plan *plan, unsigned budget_mb)
{
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	struct tk_case kc = TK_CASE_INIT;
	unsigned keep_mb = TRACE_KEEP_BUDGET_MB, run_mb = 0;
	int ret = 0;

	for (unsigned i = 0; i < plan->nr_cases; i++) {
		char *cd = schedtrace_case_dir(plan->cases[i].id);
		int same = !strcmp(cd, case_dir);

		free(cd);
		if (same) {
			keep_mb = plan_trace_keep_mb(&plan->cases[i]);
			run_mb = plan->cases[i].trace_run_mb;
			break;
		}
	}
	if (budget_mb)
		keep_mb = budget_mb;
	if (trace_keep_case(dir, case_dir, (uint64_t)keep_mb << 20, (uint64_t)run_mb << 20,
			    timeline_run_faulted, (void *)fm, &kc, &err) < 0) {
		error("%s", err.buf);
		ret = 1;
	}
	if (kc.r) {
		trace_keep_summary(case_dir, &kc, &line);
		fputs(line.buf, stdout);
	}
	tk_case_release(&kc);
	strbuf_release(&line);
	strbuf_release(&err);
	return ret;
}

/* Writes the three derived files of one kept run and says where they are. */
static int write_outputs(const struct trace_run *t, const char *title,
			 const struct fault_mark *const *marks, size_t nr_marks)
{
	struct strvec written = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	int bad = timeline_write_files(t, title, marks, nr_marks, &written, &err);

	if (bad)
		error("%s", err.buf);
	for (size_t i = 0; i < written.nr; i++) {
		const char *name = strrchr(written.v[i], '/');

		printf("  %-15s%s\n", name ? name + 1 : written.v[i], written.v[i]);
	}
	strvec_clear(&written);
	strbuf_release(&err);
	return bad != 0;
}

static int one_run(const char *dir, const char *case_dir, unsigned run, unsigned top,
		   const struct fault_marks *fm)
{
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct fault_mark *marks[256];
	size_t nm = timeline_marks_of(fm, case_dir, run, marks, ARRAY_SIZE(marks));
	char *title = xasprintf("%s run%u", case_dir, run);
	int bad;

	printf("%s\n", title);
	if (trace_run_load(&t, dir, case_dir, run, &err) < 0) {
		error("%s run%u: %s", case_dir, run, err.buf);
		strbuf_release(&err);
		free(title);
		trace_run_release(&t);
		return 1;
	}
	printf("  raw pages      %s/cpu0..%u.raw\n", t.dir, t.nr_cpus - 1);
	bad = write_outputs(&t, title, marks, nm);
	trace_digest_print(&t, stdout, top);
	if (nm)
		printf("  fault actions: %zu marked on the timeline\n", nm);
	trace_run_release(&t);
	strbuf_release(&err);
	free(title);
	return bad;
}

int cmd_trace(int argc, const char **argv)
{
	const char *case_arg = NULL, *pos[1];
	unsigned run = 0, top = 5;
	int have_run = 0, nr_pos, r, bad = 0, found_case = 0;
	char *want = NULL;
	struct strvec cases = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct fault_marks fm = FAULT_MARKS_INIT;
	const char *run_str = NULL;
	int keep = 0;
	unsigned budget_mb = 0; /* 0: the plan's */
	struct plan plan = { 0 };
	const struct lab_option opts[] = {
		OPT_BOOL("keep", &keep, "keep only the runs that explain each case (failed, faulted, "
			 "outliers, slowest, fastest) within the budget; remove the other runs' pages"),
		OPT_UINT("budget-mb", &budget_mb, 1, 1u << 20, "--keep's size budget per case (default: the plan's trace_keep_mb, else 4)"),
		OPT_STRING("case", &case_arg, "only this case (its id or its directory under trace/)"),
		OPT_STRING("run", &run_str, "only this measured run (N as in runN)"),
		OPT_UINT("top", &top, 1, 1000, "lines per digest section (default 5)"),
		OPT_END(),
	};

	r = parse_options(argc, argv, opts, trace_usage, pos, 1, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1)
		die(LAB_EXIT_USAGE, "a run directory is needed (usage: %s)", trace_usage);
	if (run_str) {
		if (parse_uint(run_str, 0, 1000000, &run))
			die(LAB_EXIT_USAGE, "--run '%s' is not a run number", run_str);
		have_run = 1;
	}
	if (!is_dir(pos[0]))
		die(LAB_EXIT_USAGE, "'%s' is not a run directory", pos[0]);
	if (trace_list_cases(pos[0], &cases, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (!cases.nr)
		die(LAB_EXIT_USAGE, "'%s': the run kept no sched trace", pos[0]);
	if (case_arg)
		want = schedtrace_case_dir(case_arg);
	/* marks are a nicety: a run whose fault files do not parse still shows */
	if (fault_marks_load(&fm, pos[0], &err) < 0)
		warning("no fault marks on the timelines: %s", err.buf);
	strbuf_reset(&err);
	/* a run without a readable plan prunes on the defaults */
	if (keep && run_plan_load(pos[0], &plan, &err) < 0)
		warning("--keep uses the default budgets: %s", err.buf);
	strbuf_reset(&err);
	for (size_t i = 0; i < cases.nr; i++) {
		unsigned *runs = NULL;
		size_t nr = 0, shown = 0;

		if (want && strcmp(cases.v[i], want) && strcmp(cases.v[i], case_arg))
			continue;
		found_case = 1;
		if (keep)
			bad |= keep_case(pos[0], cases.v[i], &fm, &plan, budget_mb);
		if (trace_list_runs(pos[0], cases.v[i], &runs, &nr, &err) < 0) {
			error("%s", err.buf);
			strbuf_reset(&err);
			bad = 1;
			continue;
		}
		for (size_t k = 0; k < nr; k++) {
			if (have_run && runs[k] != run)
				continue;
			bad |= one_run(pos[0], cases.v[i], runs[k], top, &fm);
			shown++;
		}
		if (have_run && !shown && !keep) {
			free(runs);
			die(LAB_EXIT_USAGE, "case '%s' kept no trace of run %u", cases.v[i], run);
		}
		free(runs);
	}
	if (!found_case)
		die(LAB_EXIT_USAGE, "no kept trace of case '%s' in '%s'", case_arg, pos[0]);
	fault_marks_release(&fm);
	plan_release(&plan);
	strvec_clear(&cases);
	strbuf_release(&err);
	free(want);
	return bad ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
}
