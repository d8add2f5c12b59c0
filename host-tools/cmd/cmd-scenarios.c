/* cmd-scenarios.c - `lab scenarios`: list the scenario files and suites, or
 * print the plan a suite or a scenario file compiles to, or how long it takes. */
#include "cmd/lab.h"
#include "lib/progress.h"
#include "lib/json.h"
#include "results/results.h"
#include "results/runfiles.h"
#include "run/estimate.h"
#include "run/labrun.h"
#include "fault/hostfault.h"
#include "scenario/scenario.h"
#include "topo/topo.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
	"usage: lab scenarios\n"
	"   or: lab scenarios --plan <suite|file.ini>\n"
	"   or: lab scenarios --plan <suite|file.ini> --estimate [--topo SPEC] [--like RUN]\n"
	"   or: lab scenarios --list-host-faults\n"
	"\n"
	"  (no option)   list scenarios/*.ini (name, workload, cases, description)\n"
	"                and scenarios/suites/*.suite\n"
	"  --plan X      print the compiled plan of suite X (a name under\n"
	"                scenarios/suites/ or a .suite path) or of scenario file X\n"
	"                (a path, or a file name under scenarios/)\n"
	"  --estimate    instead, the expected duration per scenario: the median\n"
	"                of what earlier runs under results/ recorded for each\n"
	"                case (on topology SPEC with --topo), else its deadline;\n"
	"                only runs on the same clock ($CLOCK, else wall) count\n"
	"  --like RUN    only runs booted as RUN was: its topology, accel, clock,\n"
	"                kernel and timing arguments (pti=, mitigations=, ...)\n"
	"  --list-host-faults  the host-side fault kinds (name, description, tab-\n"
	"                separated; options indented below); the guest's are\n"
	"                `runner --list-faults`\n";

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted full paths of dir/<*suffix>; an absent directory is empty. */
static void list_dir(const char *dir, const char *suffix, struct strvec *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && has_suffix(de->d_name, suffix))
			strvec_pushf(out, "%s/%s", dir, de->d_name);
	closedir(d);
	qsort(out->v, out->nr, sizeof(*out->v), cmp_str);
}

/* A suite's description is its first comment line. */
static char *suite_description(const char *path)
{
	char *text = read_file(path, NULL), *desc = NULL;

	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		if (line[0] == '#') {
			const char *b = line + 1;

			while (*b == ' ')
				b++;
			desc = xasprintf("%.*s", (int)(n - (size_t)(b - line)), b);
			break;
		}
		line = nl ? nl + 1 : line + n;
	}
	free(text);
	return desc ? desc : xstrdup("");
}

static int list_all(void)
{
	struct strvec files = STRVEC_INIT, suites = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *dir = xasprintf("%s/scenarios", lab_root());
	char *sdir = xasprintf("%s/scenarios/suites", lab_root());
	struct scenario s;
	int ret = LAB_EXIT_USAGE, wn = 24, ww = 13;

	scenario_init(&s);
	list_dir(dir, ".ini", &files);
	list_dir(sdir, ".suite", &suites);
	/* the columns are as wide as the longest name and workload */
	for (size_t i = 0; i < files.nr; i++) {
		if (scenario_load(files.v[i], &s, &err) < 0) {
			error("%s", err.buf);
			goto out;
		}
		wn = (int)strlen(s.name) > wn ? (int)strlen(s.name) : wn;
		ww = (int)strlen(s.workload) > ww ? (int)strlen(s.workload) : ww;
	}
	printf("%-*s %-*s %5s  %s\n", wn, "SCENARIO", ww, "WORKLOAD", "CASES", "DESCRIPTION");
	for (size_t i = 0; i < files.nr; i++) {
		if (scenario_load(files.v[i], &s, &err) < 0) {
			error("%s", err.buf);
			goto out;
		}
		printf("%-*s %-*s %5u  %s\n", wn, s.name, ww, s.workload, s.nr_cases, s.description);
	}
	printf("\n%-*s %-*s %5s  %s\n", wn, "SUITE", ww, "SCENARIOS", "CASES", "DESCRIPTION");
	for (size_t i = 0; i < suites.nr; i++) {
		struct strvec paths = STRVEC_INIT;
		struct plan p = { 0 };
		const char *base = strrchr(suites.v[i], '/') + 1;
		char *desc;

		if (suite_load(suites.v[i], &paths, &err) < 0 ||
		    plan_compile_paths(paths.v, paths.nr, &p, &err) < 0) {
			error("%s", err.buf);
			strvec_clear(&paths);
			plan_release(&p);
			goto out;
		}
		desc = suite_description(suites.v[i]);
		printf("%-*.*s %-*zu %5u  %s\n", wn, (int)(strlen(base) - 6), base, ww, paths.nr,
		       p.nr_cases, desc);
		free(desc);
		strvec_clear(&paths);
		plan_release(&p);
	}
	ret = LAB_EXIT_PASS;
out:
	scenario_release(&s);
	strvec_clear(&files);
	strvec_clear(&suites);
	strbuf_release(&err);
	free(dir);
	free(sdir);
	return ret;
}

/* A scenario file is named by its path or by its name under scenarios/;
 * anything else is a suite. */
static int compile_what(const char *what, struct strbuf *plan, struct strbuf *err)
{
	struct stat st;
	int ret;

	if (has_suffix(what, ".ini")) {
		char *under = xasprintf("%s/scenarios/%s", lab_root(), what);
		const char *path = stat(what, &st) == 0 || strchr(what, '/') ? what : under;

		ret = plan_compile_file(path, plan, err);
		free(under);
	} else {
		ret = plan_compile_suite(what, plan, err);
	}
	return ret;
}

static int print_plan(const char *what)
{
	struct strbuf plan = STRBUF_INIT, err = STRBUF_INIT;
	/* the runner's own option checks too: an out-of-range value is
	 * refused here, not at the first lab run */
	int ret = compile_what(what, &plan, &err);

	if (ret == 0)
		ret = plan_check_on_runner(NULL, plan.buf, plan.len, NULL, &err);
	if (ret < 0) {
		error("%s", err.buf);
		ret = LAB_EXIT_USAGE;
	} else {
		fwrite(plan.buf, 1, plan.len, stdout);
		ret = fflush(stdout) ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
	}
	strbuf_release(&plan);
	strbuf_release(&err);
	return ret;
}

static void estimate_row(const char *name, unsigned cases, double s, unsigned recorded)
{
	char d[32], from[64];

	progress_format_duration(d, sizeof(d), s);
	if (recorded == cases)
		snprintf(from, sizeof(from), "recorded");
	else if (!recorded)
		snprintf(from, sizeof(from), "deadlines (an upper bound)");
	else
		snprintf(from, sizeof(from), "recorded %u, deadlines %u", recorded, cases - recorded);
	printf("%-28s %5u %9s  %s\n", name, cases, d, from);
}

/* Per scenario, in plan order: the sum of its cases' expectations. */
static int print_estimate(const char *what, const char *spec, const char *like)
{
	struct estimate_key key = { NULL };
	struct run_info run = RUN_INFO_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct estimate_history h = ESTIMATE_HISTORY_INIT;
	struct case_estimate *est;
	struct plan p = { 0 };
	struct topo t;
	char perr[256], d[32];
	double total = 0, boot;
	unsigned recorded;

	if (spec && topo_parse(spec, &t, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	key.spec = spec ? t.spec : NULL;
	/* a virtual-time second is no wall-clock one: never history for it */
	key.clock = lab_clock_parse(getenv("CLOCK")) > 0 ? "virtual" : "wall";
	if (like) {
		if (run_load(&run, like, NULL, &err) < 0)
			die(LAB_EXIT_USAGE, "--like: %s", err.buf);
		if (!spec)
			key.spec = *run.spec_resolved ? run.spec_resolved : NULL;
		key.kernel = *run.kernel ? run.kernel : NULL;
		key.accel = json_get_str(run.json, "accel");
		key.clock = json_get_str(run.json, "clock") ? json_get_str(run.json, "clock") : "wall";
		key.cmdline = json_get_str(run.json, "cmdline") ? json_get_str(run.json, "cmdline") : "";
	}
	if (compile_what(what, &text, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (plan_parse(text.buf, text.len, &p, perr, sizeof(perr)) < 0)
		die(LAB_EXIT_FAIL, "compiled plan: %s", perr);
	estimate_history_load(&h, results_root(), &key);
	est = xcalloc(p.nr_cases ? p.nr_cases : 1, sizeof(*est));
	recorded = estimate_cases(&h, &p, est);
	printf("%s on %s: %u case%s, %u with a duration recorded by %u earlier run%s under %s\n",
	       what, key.spec ? key.spec : "any topology", p.nr_cases, p.nr_cases == 1 ? "" : "s",
	       recorded, h.runs, h.runs == 1 ? "" : "s", results_root());
	if (like) {
		struct strbuf args = STRBUF_INIT;

		estimate_timing_args(key.cmdline, &args);
		printf("booted like %s: %s, %s clock, kernel %s, %s\n", like,
		       key.accel ? key.accel : "any accel", key.clock, key.kernel ? key.kernel : "any",
		       args.len ? args.buf : "no timing arguments");
		strbuf_release(&args);
	} else {
		printf("on the %s clock; any kernel, accel and command line (--like RUN narrows)\n",
		       key.clock);
	}
	printf("%-28s %5s %9s  %s\n", "SCENARIO", "CASES", "EXPECTED", "FROM");
	for (unsigned i = 0; i < p.nr_cases;) {
		unsigned k = i, rec = 0;
		double s = 0;

		for (; k < p.nr_cases && !strcmp(p.cases[k].scenario, p.cases[i].scenario); k++) {
			s += est[k].s;
			rec += est[k].samples > 0;
		}
		estimate_row(p.cases[i].scenario, k - i, s, rec);
		total += s;
		i = k;
	}
	boot = estimate_boot_s(&h);
	if (boot >= 0) {
		progress_format_duration(d, sizeof(d), boot);
		printf("%-28s %5s %9s  %s\n", "boot", "", d, "recorded");
	} else if (spec) {
		boot = 30 + topo_nr_cpus(&t) / 2.0;
		progress_format_duration(d, sizeof(d), boot);
		printf("%-28s %5s %9s  %s\n", "boot", "", d, "a guess from the vCPU count");
	} else {
		boot = 0;
	}
	estimate_row("total", p.nr_cases, total + boot, recorded);
	free(est);
	estimate_history_release(&h);
	run_info_release(&run);
	plan_release(&p);
	strbuf_release(&text);
	strbuf_release(&err);
	return fflush(stdout) ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
}

int cmd_scenarios(int argc, const char **argv)
{
	const char *plan = NULL, *spec = NULL, *like = NULL;
	int estimate = 0;

	if (argc == 1)
		return list_all();
	if (argc == 2 && !strcmp(argv[1], "--list-host-faults")) {
		for (const struct hostfault_ops *const *k = hostfault_kinds; *k; k++) {
			printf("%s\t%s\n", (*k)->name, (*k)->description);
			for (const struct hostfault_opt *o = (*k)->options; o && o->name; o++)
				printf("    %-16s %s (default %s)\n", o->name, o->help,
				       o->dflt ? o->dflt : "required");
		}
		return LAB_EXIT_PASS;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return LAB_EXIT_PASS;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--estimate")) {
			estimate = 1;
		} else if (!strcmp(argv[i], "--like")) {
			if (i + 1 == argc) {
				error("--like needs a run directory (see 'lab scenarios --help')");
				return LAB_EXIT_USAGE;
			}
			like = argv[++i];
		} else if (!strcmp(argv[i], "--topo") || !strcmp(argv[i], "--plan")) {
			if (i + 1 == argc) {
				error("%s needs %s (see 'lab scenarios --help')", argv[i],
				      argv[i][2] == 't' ? "a topology spec" : "a suite or a scenario file");
				return LAB_EXIT_USAGE;
			}
			*(argv[i][2] == 't' ? &spec : &plan) = argv[i + 1];
			i++;
		} else if (!strncmp(argv[i], "--topo=", 7)) {
			spec = argv[i] + 7;
		} else if (!strncmp(argv[i], "--plan=", 7)) {
			plan = argv[i] + 7;
		} else {
			error("unknown argument '%s' (see 'lab scenarios --help')", argv[i]);
			return LAB_EXIT_USAGE;
		}
	}
	if (!plan)
		error("--plan needs a suite or a scenario file (see 'lab scenarios --help')");
	else if ((spec || like) && !estimate)
		error("%s goes with --estimate (see 'lab scenarios --help')", spec ? "--topo" : "--like");
	else
		return estimate ? print_estimate(plan, spec, like) : print_plan(plan);
	return LAB_EXIT_USAGE;
}
