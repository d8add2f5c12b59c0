/* cmd-lava.c - `lab lava import`: a LAVA job's log and metadata into a normal
 * results directory (run/lavaimport.c); `lab lava export`: a LAVA job and
 * its artifacts (run/lavaexport.c). */
#define _GNU_SOURCE
#include "cmd/lab.h"
#include "cmd/options.h"
#include "run/lavaimport.h"
#include "results/results.h"
#include "run/lavaexport.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static const char lava_usage[] =
	"lab lava import --job JOB.json --plan PLAN [--results DIR] LOG.yaml\n"
	"   or: lab lava export [--topo SPEC] (--suite S | --scenario FILE) [--kernel K]\n"
	"                       [--accel tcg|kvm] [--device-type T] [BOOT OPTIONS] --artifacts URL --out DIR\n"
	"   or: lab lava submit --server URL [--token-file F] JOB\n"
	"   or: lab lava follow --server URL [--token-file F] [--timeout S] --out DIR JOB_ID\n"
	"   or: lab lava run --server URL [--token-file F] --artifacts URL --dir DIR --topo SPEC\n"
	"                    (--suite S | --scenario FILE) [--kernel K] [BOOT OPTIONS] [--results ROOT]\n"
	"   BOOT OPTIONS, as lab run's: [--smt on|off] [--sched-feat NO_X,Y] [--sched-knob K=V]\n"
	"                [--preempt MODE] [--append ARGS]\n"
	"   (the token: $LAVA_TOKEN or --token-file, never printed or written)";
static const char export_usage[] =
	"lab lava export [--topo SPEC] (--suite S | --scenario FILE) [--kernel K] "
	"[--accel tcg|kvm] [--device-type T] [--smt on|off] [--sched-feat NO_X,Y] [--sched-knob K=V] "
	"[--preempt MODE] [--append ARGS] --artifacts URL --out DIR";

static int lava_import(int argc, const char **argv)
{
	const char *job_file = NULL, *plan_file = NULL, *root = NULL, *pos[1];
	const struct lab_option opts[] = {
		OPT_STRING("job", &job_file, "the job's metadata (JSON): server, job_id, device, "
			   "device_type, health; optional error_type, error_msg, spec, suite, "
			   "scenario, kernel, label, smt, sched_feat, sched_knob, preempt, append"),
		OPT_STRING("plan", &plan_file, "the compiled plan the job's initrd ran "
			   "(lab scenarios --plan, or lab lava export's plan.txt)"),
		OPT_STRING("results", &root, "where the run directory goes (default: results/)"),
		OPT_END(),
	};
	struct lava_import_result res = LAVA_IMPORT_RESULT_INIT;
	struct strbuf err = STRBUF_INIT;
	struct json_object *owner;
	struct lava_job_meta meta;
	int nr_pos, r;

	r = parse_options(argc, argv, opts, lava_usage, pos, 1, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1 || !job_file || !plan_file)
		die(LAB_EXIT_USAGE, "a log, --job and --plan are needed (usage: %s)", lava_usage);
	if ((r = lava_job_meta_read(job_file, &owner, &meta, &err)) ||
	    (r = lava_import_run(&meta, pos[0], plan_file, root ? root : results_root(), &res, &err)))
		die(r, "%s", err.buf);
	lava_import_print(&res);
	r = verdict_exit_code(res.verdict);
	lava_import_result_release(&res);
	json_object_put(owner);
	strbuf_release(&err);
	return r;
}

static int lava_export(int argc, const char **argv)
{
	struct lava_export_req q = { .kernel = "debian" };
	const char *pos[1];
	const struct lab_option opts[] = {
		OPT_STRING("topo", &q.spec, "topology spec or preset (the qemu device type's; none on bare metal)"),
		OPT_STRING("suite", &q.suite, "a suite under scenarios/suites/"),
		OPT_STRING("scenario", &q.scenario, "a scenario file"),
		OPT_STRING("kernel", &q.kernel, "kernel, as lab run --kernel (default: debian)"),
		OPT_STRING("accel", &q.accel, "tcg (default: LAVA's no_kvm) or kvm (LAVA's -enable-kvm)"),
		OPT_STRING("device-type", &q.device_type, "the LAVA device type the job is for (default qemu; "
			   "docs/lava.md lists those the lab writes jobs for)"),
		OPT_STRING("artifacts", &q.artifacts, "the URL the device downloads DIR's files from "
			   "(http://, https:// or file:// for a local LAVA)"),
		OPT_STRING("out", &q.out, "a new directory: job.json, the kernel, initrd.cpio, plan.txt"),
		LAVA_BOOT_OPTIONS(q),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	int nr_pos, r;

	r = parse_options(argc, argv, opts, export_usage, pos, 0, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (!q.artifacts || !q.out || !q.suite == !q.scenario)
		die(LAB_EXIT_USAGE, "one of --suite and --scenario, --artifacts and --out "
		    "are needed (usage: %s)", export_usage);
	if ((r = lava_export_job(&q, &err)))
		die(r, "%s", err.buf);
	printf("%s/job.json\n", q.out);
	strbuf_release(&err);
	return LAB_EXIT_PASS;
}

int cmd_lava(int argc, const char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return lava_import(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return lava_export(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "submit"))
		return cmd_lava_submit(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "follow"))
		return cmd_lava_follow(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_lava_run(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n", lava_usage);
		return LAB_EXIT_PASS;
	}
	die(LAB_EXIT_USAGE, "lava needs a subcommand: export, submit, follow, import or run (see lab lava --help)");
}
