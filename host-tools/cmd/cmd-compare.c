/* cmd-compare.c - `lab compare BASE TEST [TEST...]`: the seeds' tables with a
 * verdict per row, the counters next to them and a summary; JSON and JUnit. */
#include "report/compare.h"
#include "report/htmlreport.h"
#include "cmd/lab.h"
#include "cmd/options.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char compare_usage[] =
	"lab compare [--label NAME]... [--narrow] [--bare] [--summary-last] [--json] [--junit FILE] [--html FILE] "
	"BASE TEST [TEST...]  (a side may pool runs of one kernel: RUN1+RUN2+...)";

/* --label repeats, which the option table cannot say: take them out first. */
static void take_labels(int argc, const char **argv, struct strvec *labels, struct strvec *rest)
{
	strvec_push(rest, argv[0]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			for (; i < argc; i++)
				strvec_push(rest, argv[i]);
			break;
		}
		if (!strcmp(argv[i], "--label")) {
			if (i + 1 >= argc || !*argv[i + 1])
				die(LAB_EXIT_USAGE, "option '--label' needs a value");
			strvec_push(labels, argv[++i]);
		} else if (!strncmp(argv[i], "--label=", 8)) {
			if (!argv[i][8])
				die(LAB_EXIT_USAGE, "option '--label' needs a value");
			strvec_push(labels, argv[i] + 8);
		} else {
			strvec_push(rest, argv[i]);
		}
	}
}

static void check_label(const char *s)
{
	if (strlen(s) > 64)
		die(LAB_EXIT_USAGE, "label '%.64s...' is longer than 64 characters", s);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			die(LAB_EXIT_USAGE, "label '%s' has a control character", s);
	if (!utf8_clean_already(s)) {
		char *c = utf8_clean(s, 64);

		die(LAB_EXIT_USAGE, "label '%s' is not valid UTF-8", c);
	}
}

/* Two columns with one name (an A/A comparison) get "#2", "#3"... */
static void unique_labels(struct cmp_run *runs, size_t nr)
{
	for (size_t k = 1; k < nr; k++)
		for (size_t j = 0; j < k; j++)
			if (!strcmp(runs[j].label, runs[k].label)) {
				char *l = xasprintf("%s#%zu", runs[k].label, k + 1);

				free(runs[k].label);
				runs[k].label = l;
				break;
			}
}

/* Plots need gnuplot; without it the page still has every table and says why. */
static int write_html(const struct comparison *c, const char *path)
{
	struct strbuf page = STRBUF_INIT, skipped = STRBUF_INIT;
	char *copy = xstrdup(path), *slash = strrchr(copy, '/');
	struct html_opts o = { .draw_timelines = 1 };
	int r;

	/* links into the run directories are relative to where the page goes */
	if (slash)
		*(slash == copy ? slash + 1 : slash) = '\0';
	o.page_dir = realpath(slash ? copy : ".", NULL);
	free(copy);
	comparison_html(c, &o, &page, &skipped);
	free((char *)o.page_dir);
	if (skipped.len)
		warning("HTML report without plots: %s", skipped.buf);
	/* write_file_atomic() said why in one line */
	r = write_file_atomic(path, page.buf, page.len);
	strbuf_release(&page);
	strbuf_release(&skipped);
	return r;
}

/*
 * One side of the comparison: a run directory or id, or several joined by
 * '+' (the boots of one kernel in lab ab), pooled as samples.  A path that
 * exists as a whole is one run even if it holds a '+'.
 */
static int load_side(struct cmp_run *side, const char *arg, struct strbuf *err)
{
	struct cmp_run runs[CMP_MAX_RUNS];
	struct stat st;
	size_t nr = 0;
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!strchr(arg, '+') || stat(arg, &st) == 0)
		return cmp_run_load(side, arg, err);
	memset(runs, 0, sizeof(runs));
	copy = xstrdup(arg);
	for (tok = strtok_r(copy, "+", &save); tok && !ret; tok = strtok_r(NULL, "+", &save)) {
		if (nr == CMP_MAX_RUNS) {
			strbuf_addf(err, "more than %d runs pooled in one side", CMP_MAX_RUNS);
			ret = -1;
			break;
		}
		ret = cmp_run_load(&runs[nr++], tok, err);
	}
	if (!ret && !nr) {
		strbuf_addf(err, "no run directory in '%s'", arg);
		ret = -1;
	}
	if (!ret)
		ret = cmp_run_pool(side, runs, nr, err);
	for (size_t i = 0; i < nr; i++)
		cmp_run_release(&runs[i]);
	free(copy);
	return ret;
}

int cmd_compare(int argc, const char **argv)
{
	int narrow = 0, bare = 0, summary_last = 0, json = 0, nr_pos, r;
	const char *junit = NULL, *html = NULL, *pos[CMP_MAX_RUNS];
	const struct lab_option opts[] = {
		OPT_BOOL("narrow", &narrow, "fit every line into 80 columns (mail)"),
		OPT_BOOL("bare", &bare, "only the tables, exactly as the seed threads post them"),
		OPT_BOOL("summary-last", &summary_last, "the summary after the tables (default: before)"),
		OPT_BOOL("json", &json, "print every number as JSON instead of the text"),
		OPT_STRING("junit", &junit, "also write JUnit XML to this file"),
		OPT_STRING("html", &html, "also write an HTML report with plots to this file"),
		OPT_STRING("label", NULL, "column title, once per run in order (default: kernel release)"),
		OPT_END(),
	};
	struct strvec labels = STRVEC_INIT, rest = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct cmp_run runs[CMP_MAX_RUNS] = { 0 };
	struct comparison c;

	take_labels(argc, argv, &labels, &rest);
	r = parse_options((int)rest.nr, rest.v, opts, compare_usage, pos, CMP_MAX_RUNS, &nr_pos);
	if (r) {
		strvec_clear(&labels);
		strvec_clear(&rest);
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	}
	if (nr_pos < 2)
		die(LAB_EXIT_USAGE, "a baseline and at least one run to compare are needed (usage: %s)",
		    compare_usage);
	if (labels.nr > (size_t)nr_pos)
		die(LAB_EXIT_USAGE, "%zu labels for %d runs", labels.nr, nr_pos);
	for (size_t i = 0; i < labels.nr; i++)
		check_label(labels.v[i]);
	for (int i = 0; i < nr_pos; i++)
		if (load_side(&runs[i], pos[i], &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
	if (cmp_runs_check(runs, (size_t)nr_pos, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	for (size_t i = 0; i < labels.nr; i++) {
		free(runs[i].label);
		runs[i].label = xstrdup(labels.v[i]);
	}
	unique_labels(runs, (size_t)nr_pos);

	comparison_build(&c, runs, (size_t)nr_pos);
	if (junit) {
		struct strbuf xml = STRBUF_INIT;

		comparison_junit(&c, &xml);
		/* write_file_atomic() said why in one line */
		if (write_file_atomic(junit, xml.buf, xml.len) < 0)
			return LAB_EXIT_USAGE;
		strbuf_release(&xml);
	}
	if (html && write_html(&c, html) < 0)
		return LAB_EXIT_USAGE;
	if (json) {
		struct json_object *o = comparison_json(&c);

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								     JSON_C_TO_STRING_SPACED |
								     JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		comparison_text(&c, (narrow ? CMP_TEXT_NARROW : 0) | (bare ? CMP_TEXT_BARE : 0) |
				    (summary_last ? CMP_TEXT_SUMMARY_LAST : 0), &out);
		fwrite(out.buf, 1, out.len, stdout);
	}
	fflush(stdout);
	r = comparison_exit_code(&c);
	comparison_release(&c);
	for (int i = 0; i < nr_pos; i++)
		cmp_run_release(&runs[i]);
	strvec_clear(&labels);
	strvec_clear(&rest);
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}
