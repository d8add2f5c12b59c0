/* cmd-scenarios.c - `lab scenarios`: list the scenario files and suites, or
 * print the plan a suite or a scenario file compiles to. */
#include "cmd/lab.h"
#include "scenario/scenario.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
	"usage: lab scenarios\n"
	"   or: lab scenarios --plan <suite|file.ini>\n"
	"\n"
	"  (no option)   list scenarios/*.ini (name, workload, cases, description)\n"
	"                and scenarios/suites/*.suite\n"
	"  --plan X      print the compiled plan of suite X (a name under\n"
	"                scenarios/suites/ or a .suite path) or of scenario file X\n"
	"                (a path, or a file name under scenarios/)\n";

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
	int ret = LAB_EXIT_USAGE;

	scenario_init(&s);
	list_dir(dir, ".ini", &files);
	list_dir(sdir, ".suite", &suites);
	printf("%-24s %-13s %5s  %s\n", "SCENARIO", "WORKLOAD", "CASES", "DESCRIPTION");
	for (size_t i = 0; i < files.nr; i++) {
		if (scenario_load(files.v[i], &s, &err) < 0) {
			error("%s", err.buf);
			goto out;
		}
		printf("%-24s %-13s %5u  %s\n", s.name, s.workload, s.nr_cases, s.description);
	}
	printf("\n%-24s %-13s %5s  %s\n", "SUITE", "SCENARIOS", "CASES", "DESCRIPTION");
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
		printf("%-24.*s %-13zu %5u  %s\n", (int)(strlen(base) - 6), base, paths.nr,
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
static int print_plan(const char *what)
{
	struct strbuf plan = STRBUF_INIT, err = STRBUF_INIT;
	struct stat st;
	int ret;

	if (has_suffix(what, ".ini")) {
		char *under = xasprintf("%s/scenarios/%s", lab_root(), what);
		const char *path = stat(what, &st) == 0 || strchr(what, '/') ? what : under;

		ret = plan_compile_file(path, &plan, &err);
		free(under);
	} else {
		ret = plan_compile_suite(what, &plan, &err);
	}
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

int cmd_scenarios(int argc, const char **argv)
{
	if (argc == 1)
		return list_all();
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return LAB_EXIT_PASS;
	}
	if (argc == 3 && !strcmp(argv[1], "--plan"))
		return print_plan(argv[2]);
	if (argc == 2 && !strncmp(argv[1], "--plan=", 7))
		return print_plan(argv[1] + 7);
	if (argc == 2 && !strcmp(argv[1], "--plan"))
		error("--plan needs a suite or a scenario file (see 'lab scenarios --help')");
	else
		error("unknown argument '%s' (see 'lab scenarios --help')", argv[1]);
	return LAB_EXIT_USAGE;
}
