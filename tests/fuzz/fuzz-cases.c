/* fuzz-cases.c - libFuzzer target for the loader of run.json and cases.json
 * behind `lab compare`, and for the comparison of a loaded run with itself. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bootstrapping thousands of values per row would only slow the fuzzer. */
static size_t total_values(const struct cmp_run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nr_cases; i++)
		for (size_t j = 0; j < r->cases[i].nr_metrics; j++)
			n += r->cases[i].metrics[j].n + 1;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmp_run runs[2] = { { 0 }, { 0 } };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	const char *text = (const char *)data;

	if (cmp_run_json_parse(&runs[0], text, size, &err) < 0) {
		/* one line, always */
		if (!err.len || strchr(err.buf, '\n'))
			abort();
	}
	cmp_run_release(&runs[0]);
	strbuf_reset(&err);

	if (cmp_cases_parse(&runs[0], text, size, &err) < 0) {
		if (!err.len || strchr(err.buf, '\n'))
			abort();
	} else if (total_values(&runs[0]) <= 400 && runs[0].nr_cases <= 64 &&
		   cmp_cases_parse(&runs[1], text, size, &err) == 0) {
		struct comparison c;
		struct json_object *j, *back;

		runs[0].label = xstrdup("a");
		runs[1].label = xstrdup("b");
		runs[0].what = xstrdup("suite 'fuzz'");
		runs[1].what = xstrdup("suite 'fuzz'");
		runs[0].spec = xstrdup("1s1c");
		runs[1].spec = xstrdup("1s1c");
		runs[0].spec_resolved = xstrdup("1s1c");
		runs[1].spec_resolved = xstrdup("1s1c");
		runs[0].kernel = xstrdup("k");
		runs[1].kernel = xstrdup("k");
		runs[0].name = xstrdup("a");
		runs[1].name = xstrdup("b");
		runs[0].dir = xstrdup("a");
		runs[1].dir = xstrdup("b");
		if (cmp_runs_check(runs, 2, &err) < 0)
			abort();
		comparison_build(&c, runs, 2);
		/* the same numbers on both sides can never be a change */
		if (c.count[CMP_IMPROVED] || c.count[CMP_REGRESSED])
			abort();
		comparison_text(&c, 0, &out);
		strbuf_reset(&out);
		comparison_text(&c, CMP_TEXT_NARROW, &out);
		strbuf_reset(&out);
		comparison_junit(&c, &out);
		j = comparison_json(&c);
		/* NaN and infinities must have become null: the output parses */
		back = json_tokener_parse(json_object_to_json_string(j));
		if (!back)
			abort();
		json_object_put(back);
		json_object_put(j);
		comparison_release(&c);
	}
	cmp_run_release(&runs[0]);
	cmp_run_release(&runs[1]);
	strbuf_release(&err);
	strbuf_release(&out);
	return 0;
}
