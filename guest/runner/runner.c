/* runner.c - entry point of the static guest runner: parses the mode and
 * its options and sends its records to the host (or a file, or stdout). */
#include "direct.h"
#include "fault.h"
#include "invariant.h"
#include "out.h"
#include "park.h"
#include "plan-run.h"
#include "probe.h"
#include "bootopt.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: runner --probe-topology --out <path|->\n"
	"       runner --plan <file> --out <path|-> [--no-snapshot]\n"
	"       runner --park --out <tty>\n"
	"       runner --check-plan <file> [--kernel <release>]\n"
	"       runner --workload NAME [--set key=value]... [--timeout S]\n"
	"       runner --list-workloads\n"
	"       runner --list-faults\n"
	"       runner --list-invariants\n"
	"\n"
	"  --probe-topology  send the kernel's view of CPUs, caches, nodes and\n"
	"                    scheduling domains as framed records\n"
	"  --plan <file>     run a compiled plan (the topology snapshot first)\n"
	"  --park            snapshot, then wait on the --out tty for the plan\n"
	"                    (warm start: the host saves the guest meanwhile)\n"
	"  --check-plan      validate a plan's workloads and options, run nothing;\n"
	"                    with --kernel, also against that kernel release\n"
	"  --list-faults     fault kinds, one per line: name, changes-host or\n"
	"                    run-only, description (tab-separated); options below\n"
	"  --list-invariants invariant kinds: name, description; options below\n"
	"  --out <path>      where records go: a serial port (made raw), a file,\n"
	"                    or - for stdout; lab.records=console on the kernel\n"
	"                    command line sends them as text lines on /dev/console\n";

int main(int argc, char **argv)
{
	const char *out_path = NULL, *plan = NULL;
	int probe = 0, park = 0, snapshot = 1, ret;
	struct out o;

	if (argc > 1 && (!strcmp(argv[1], "--workload") || !strcmp(argv[1], "--list-workloads")))
		return run_direct(argc, argv);
	if (argc == 2 && !strcmp(argv[1], "--list-faults")) {
		fault_list();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--list-invariants")) {
		invariant_list();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--check-plan"))
		return check_plan(argv[2], NULL);
	if (argc == 5 && !strcmp(argv[1], "--check-plan") && !strcmp(argv[3], "--kernel"))
		return check_plan(argv[2], argv[4]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--probe-topology")) {
			probe = 1;
		} else if (!strcmp(argv[i], "--park")) {
			park = 1;
		} else if (!strcmp(argv[i], "--no-snapshot")) {
			snapshot = 0;
		} else if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--plan")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "runner: error: '%s' needs a path\n%s", argv[i], usage_text);
				return 2;
			}
			if (!strcmp(argv[i], "--out"))
				out_path = argv[++i];
			else
				plan = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		} else {
			fprintf(stderr, "runner: error: unknown option '%s'\n%s", argv[i], usage_text);
			return 2;
		}
	}
	if (probe + park + !!plan != 1 || !out_path) {
		fputs(usage_text, stderr);
		return 2;
	}
	/* lab.records=console: one serial console only (a LAVA device); a
	 * parked runner still needs its duplex channel */
	if (park)
		ret = out_open_duplex(&o, out_path);
	else if (bootopt_records_console())
		ret = out_open_console(&o);
	else
		ret = out_open(&o, out_path);
	if (ret < 0)
		return 1;
	ret = park ? run_parked(&o) : plan ? run_plan(&o, plan, snapshot) : probe_topology(&o);
	if (out_close(&o) < 0)
		ret = -1;
	return ret < 0 ? 1 : 0;
}
