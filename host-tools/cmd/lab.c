/* lab.c - entry point of ./lab: one table maps each subcommand to its
 * cmd_<name>() in host-tools/cmd-<name>.c. */
#include "cmd/lab.h"
#include "lib/util.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *help;
};

static const struct cmd commands[] = {
	{ "topo", cmd_topo, "resolve a topology spec: summary, --qemu, --libvirt, --json, --list" },
	{ "boot", cmd_boot, "boot a guest with a topology and verify what its kernel sees" },
	{ "run", cmd_run, "boot a topology and run a suite or scenario of workloads in it" },
	{ "ab", cmd_ab, "boot two kernels in ABBA order, run a suite each boot, compare the pooled runs" },
	{ "bisect", cmd_bisect, "find the commit that moved a metric, with a statistical decision per step" },
	{ "matrix", cmd_matrix, "run kernels x topologies x suites as resumable jobs with a deadline each" },
	{ "compare", cmd_compare, "compare runs of kernels: the LKML table, statistics, a summary" },
	{ "report", cmd_report, "rebuild a run's derived files from its raw records" },
	{ "trace", cmd_trace, "a run's kept sched traces: trace.dat, trace.json, timeline, digest" },
	{ "scenarios", cmd_scenarios, "list scenario files and suites, or print a compiled plan" },
	{ "kernel", cmd_kernel, "fetch (or locate) a kernel and print its path" },
	{ "scx", cmd_scx, "build a kernel tree's sched_ext BPF schedulers and selftests for the guest" },
	{ "initrd", cmd_initrd, "build the guest initrd and print its path" },
	{ "lava", cmd_lava, "LAVA farms: export a qemu job and its artifacts, import a job's log as a run" },
	{ "bare", cmd_bare, "run a suite or scenario on this host itself (bare-metal mode)" },
	{ "doctor", cmd_doctor, "what the lab found on this host: accelerator and why, QEMU, cached kernels" },
	{ "cache", cmd_cache, "list the cache (kernels, initrds, images, snapshots) or prune it" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: lab <command> [<args>]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "   %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'lab <command> --help' shows a command's options.\n");
}

int main(int argc, const char **argv)
{
	/* A closed guest or QEMU socket is an error to handle, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return LAB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return LAB_EXIT_PASS;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("schedlab %s\n", LAB_VERSION);
		return LAB_EXIT_PASS;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	error("unknown command '%s' (see 'lab --help')", argv[1]);
	return LAB_EXIT_USAGE;
}
