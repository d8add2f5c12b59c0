/* fuzz-scenario.c - libFuzzer target for scenario files and suites: one-line
 * "file:line: problem" errors, or a matrix that compiles to a plan that parses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cmp_id(const void *a, const void *b)
{
	return strcmp(((const struct plan_case *)a)->id, ((const struct plan_case *)b)->id);
}

static void check_error(const struct strbuf *err, const char *prefix)
{
	if (strncmp(err->buf, prefix, strlen(prefix)) || strchr(err->buf, '\n'))
		abort();
}

static void fuzz_scenario(const char *text, size_t size)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct plan p = { 0 }, q = { 0 };
	struct scenario s;
	char why[512];

	scenario_init(&s);
	if (scenario_parse("f.ini", text, size, &s, &err) < 0) {
		check_error(&err, "f.ini:");
		goto out;
	}
	if (!s.nr_cases || s.nr_cases > PLAN_MAX_CASES || !s.name[0] || !s.workload[0] ||
	    !s.nr_metrics || s.nr_params > PLAN_MAX_PARAMS)
		abort();
	/* lab ab's keys name declared metrics and the scenario's cases */
	for (unsigned i = 0; i < s.nr_expects; i++) {
		unsigned k = 0;

		while (k < s.nr_metrics && strcmp(s.metrics[k].name, s.expects[i].metric))
			k++;
		if (k == s.nr_metrics || strcmp(s.expects[i].case_id, s.name) ||
		    strncmp(s.expects[i].text, s.name, strlen(s.name)))
			abort();
	}
	if (s.primary[0]) {
		unsigned k = 0;

		while (k < s.nr_metrics && strcmp(s.metrics[k].name, s.primary))
			k++;
		if (k == s.nr_metrics)
			abort();
	}
	/* big matrices cost time, not coverage */
	if (s.nr_cases > 256)
		goto out;
	if (scenario_expand(&s, &p, &err) < 0 || p.nr_cases != s.nr_cases)
		abort();
	if (plan_to_text(&p, &out, &err) < 0)
		abort();
	if (plan_parse(out.buf, out.len, &q, why, sizeof(why)) < 0 || q.nr_cases != p.nr_cases)
		abort();
	/* every case of a matrix has its own id */
	qsort(q.cases, q.nr_cases, sizeof(*q.cases), cmp_id);
	for (unsigned i = 1; i < q.nr_cases; i++)
		if (!strcmp(q.cases[i - 1].id, q.cases[i].id))
			abort();
out:
	plan_release(&p);
	plan_release(&q);
	scenario_release(&s);
	strbuf_release(&err);
	strbuf_release(&out);
}

static void fuzz_suite(const char *text, size_t size)
{
	struct strvec paths = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *dir = xasprintf("%s/scenarios", lab_root());

	if (suite_parse("f.suite", text, size, dir, &paths, &err) < 0) {
		check_error(&err, "f.suite");
		if (paths.nr)
			abort();
	} else if (!paths.nr) {
		abort();
	}
	strvec_clear(&paths);
	strbuf_release(&err);
	free(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_scenario((const char *)data, size);
	fuzz_suite((const char *)data, size);
	return 0;
}
