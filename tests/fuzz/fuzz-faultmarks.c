/* fuzz-faultmarks.c - libFuzzer target for the fault-mark parsers of
 * cases.json and host-faults.jsonl, and for the HTML page of a comparison
 * of the input's cases with themselves (plots off: no child per input). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/htmlreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const struct strbuf *err)
{
	if (!err->len || strchr(err->buf, '\n'))
		abort();
}

static void marks(const char *text, size_t size)
{
	struct fault_marks fm = FAULT_MARKS_INIT;
	struct strbuf err = STRBUF_INIT;

	if (fault_marks_parse_cases(&fm, text, size, &err) < 0)
		one_line(&err);
	strbuf_reset(&err);
	if (fault_marks_parse_host(&fm, text, size, &err) < 0)
		one_line(&err);
	for (size_t i = 0; i < fm.nr; i++)
		if (fm.v[i].run > FAULT_RUN_MAX || !(fm.v[i].t >= 0) ||
		    (fm.v[i].rel_known && !(fm.v[i].rel >= 0 && fm.v[i].rel <= 1e7)))
			abort();
	fault_marks_release(&fm);
	strbuf_release(&err);
}

static void fill(struct cmp_run *r, const char *name)
{
	r->label = xstrdup(name);
	r->what = xstrdup("suite 'fuzz'");
	r->spec = xstrdup("1s1c");
	r->spec_resolved = xstrdup("1s1c");
	r->kernel = xstrdup("k");
	r->name = xstrdup(name);
}

static size_t total_values(const struct cmp_run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nr_cases; i++)
		for (size_t j = 0; j < r->cases[i].nr_metrics; j++)
			n += r->cases[i].metrics[j].n + 1;
	return n;
}

static void page(const char *text, size_t size)
{
	struct cmp_run runs[2] = { { 0 }, { 0 } };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, skipped = STRBUF_INIT;
	struct html_opts o = { .no_plots = "fuzzing" };
	struct comparison c;

	if (cmp_cases_parse(&runs[0], text, size, &err) < 0 || total_values(&runs[0]) > 400 ||
	    runs[0].nr_cases > 64 || cmp_cases_parse(&runs[1], text, size, &err) < 0)
		goto out;
	fill(&runs[0], "a");
	fill(&runs[1], "b");
	comparison_build(&c, runs, 2);
	comparison_html(&c, &o, &out, &skipped);
	/* the writer never emits these: they could only come from the input */
	if (strstr(out.buf, "<script") || strstr(out.buf, "<img") || strcmp(skipped.buf, "fuzzing"))
		abort();
	comparison_release(&c);
out:
	cmp_run_release(&runs[0]);
	cmp_run_release(&runs[1]);
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&skipped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	marks((const char *)data, size);
	page((const char *)data, size);
	return 0;
}
