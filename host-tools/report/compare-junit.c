/* compare-junit.c - the comparison as JUnit XML for CI: a test case per
 * case and per regressed row. */
#define _GNU_SOURCE
#include "report/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void xml_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&apos;"); break;
		default:
			/* loaded strings are already free of control characters */
			strbuf_addch(sb, *s);
		}
	}
}

void comparison_junit(const struct comparison *c, struct strbuf *out)
{
	const struct cmp_case **found = xcalloc(c->nr_runs, sizeof(*found));
	struct strbuf body = STRBUF_INIT;
	size_t tests = 0, failures = 0, skipped = 0;

	for (size_t i = 0; i < c->runs[0].nr_cases; i++) {
		const struct cmp_case *bc = &c->runs[0].cases[i];
		struct strbuf why = STRBUF_INIT;
		size_t skips = 0;

		cmp_find_all(c, bc->id, found);
		for (size_t k = 0; k < c->nr_runs; k++) {
			if (!found[k])
				strbuf_addf(&why, "%smissing in %s", why.len ? "; " : "", c->runs[k].label);
			else if (!strcmp(found[k]->verdict, "SKIP"))
				skips++;
			else if (strcmp(found[k]->verdict, "PASS"))
				strbuf_addf(&why, "%s%s in %s: %s", why.len ? "; " : "", found[k]->verdict,
					    c->runs[k].label, found[k]->reason);
		}
		tests++;
		strbuf_addstr(&body, "    <testcase classname=\"");
		xml_escaped(&body, bc->scenario);
		strbuf_addstr(&body, "\" name=\"");
		xml_escaped(&body, bc->id);
		strbuf_addstr(&body, "\"");
		if (why.len) {
			failures++;
			strbuf_addstr(&body, ">\n      <failure message=\"");
			xml_escaped(&body, why.buf);
			strbuf_addstr(&body, "\"/>\n    </testcase>\n");
		} else if (skips == c->nr_runs) {
			skipped++;
			strbuf_addstr(&body, ">\n      <skipped message=\"");
			xml_escaped(&body, found[0]->reason);
			strbuf_addstr(&body, "\"/>\n    </testcase>\n");
		} else {
			strbuf_addstr(&body, "/>\n");
		}
		strbuf_release(&why);
	}
	for (size_t i = 0; i < c->nr_blocks; i++) {
		const struct cmp_block *b = &c->blocks[i];

		for (size_t r = 0; r < b->nr_rows; r++)
			for (size_t k = 0; k + 1 < c->nr_runs; k++) {
				const struct cmp_test *t = &b->rows[r].tests[k];
				struct strbuf msg = STRBUF_INIT;

				if (t->verdict != CMP_REGRESSED)
					continue;
				tests++;
				failures++;
				strbuf_addstr(&body, "    <testcase classname=\"");
				xml_escaped(&body, b->scenario);
				strbuf_addstr(&body, ".regression\" name=\"");
				strbuf_addf(&msg, "%s %s: %s vs %s", b->rows[r].case_id, b->metric,
					    c->runs[k + 1].label, c->runs[0].label);
				xml_escaped(&body, msg.buf);
				strbuf_reset(&msg);
				strbuf_addf(&msg, "%.2f%% worse: %s ratio %.3f (95%% CI %.3f..%.3f), %s q=%.3g",
					    fabs(b->rows[r].cells[k + 1].pct_imp), stats_statistic_title(b->stat),
					    b->rows[r].cells[k + 1].norm, t->ci_lo, t->ci_hi, t->method, t->q);
				strbuf_addstr(&body, "\">\n      <failure message=\"");
				xml_escaped(&body, msg.buf);
				strbuf_addstr(&body, "\"/>\n    </testcase>\n");
				strbuf_release(&msg);
			}
	}
	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_addf(out, "<testsuites name=\"lab compare\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
		    tests, failures, skipped);
	strbuf_addstr(out, "  <testsuite name=\"");
	xml_escaped(out, c->runs[0].label);
	for (size_t k = 1; k < c->nr_runs; k++) {
		strbuf_addstr(out, k == 1 ? " vs " : ", ");
		xml_escaped(out, c->runs[k].label);
	}
	strbuf_addf(out, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", tests, failures, skipped);
	strbuf_add(out, body.buf, body.len);
	strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
	strbuf_release(&body);
	free(found);
}
