/* cmd-report.c - `lab report DIR`: rebuild a run's derived files
 * (results.jsonl, cases.json) from its raw records, and print the cases. */
#include "cmd/lab.h"
#include "cmd/options.h"
#include "results/runreport.h"

#include <json-c/json.h>
#include <stdio.h>

static const char report_usage[] = "lab report RUN_DIR";

int cmd_report(int argc, const char **argv)
{
	const struct lab_option opts[] = { OPT_END() };
	struct strbuf err = STRBUF_INIT;
	struct json_object *cases = NULL;
	const char *pos[1];
	int nr_pos, r;

	r = parse_options(argc, argv, opts, report_usage, pos, 1, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1)
		die(LAB_EXIT_USAGE, "a run directory is needed (usage: %s)", report_usage);
	r = run_report_build(pos[0], &cases, &err);
	if (r < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	run_report_print(cases);
	json_object_put(cases);
	strbuf_release(&err);
	return r ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
}
