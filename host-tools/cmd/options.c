/* options.c - the one option parser behind every lab subcommand, so
 * errors and --help read the same everywhere. */
#include "cmd/options.h"
#include "lib/util.h"
#include "run/labrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_help(const struct lab_option *opts, const char *usage)
{
	printf("usage: %s\n\n", usage);
	for (const struct lab_option *o = opts; o->type != OPT_END; o++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s", o->name,
			 o->type == OPT_STRING || o->type == OPT_STRVEC ? " <value>" :
			 o->type == OPT_UINT ? " <n>" : o->type == OPT_OPTARG ? "[=<value>]" : "");
		printf("    %-24s %s\n", left, o->help);
	}
}

int parse_options(int argc, const char **argv, const struct lab_option *opts,
		  const char *usage, const char **pos, int max_pos, int *nr_pos)
{
	int only_pos = 0;

	*nr_pos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *val = NULL;
		const struct lab_option *o;
		size_t nlen;

		if (only_pos || a[0] != '-' || !a[1]) {
			if (*nr_pos >= max_pos) {
				error("unexpected argument '%s' (usage: %s)", a, usage);
				return -1;
			}
			pos[(*nr_pos)++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_pos = 1;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_help(opts, usage);
			return 1;
		}
		if (a[1] != '-') {
			error("unknown option '%s' (usage: %s)", a, usage);
			return -1;
		}
		a += 2;
		eq = strchr(a, '=');
		nlen = eq ? (size_t)(eq - a) : strlen(a);
		for (o = opts; o->type != OPT_END; o++)
			if (strlen(o->name) == nlen && !strncmp(o->name, a, nlen))
				break;
		if (o->type == OPT_END) {
			error("unknown option '--%.*s' (usage: %s)", (int)nlen, a, usage);
			return -1;
		}
		if (o->type == OPT_BOOL) {
			if (eq) {
				error("option '--%s' takes no value", o->name);
				return -1;
			}
			*(int *)o->value = 1;
			continue;
		}
		if (o->type == OPT_OPTARG) {
			if (eq && !eq[1]) {
				error("option '--%s=' needs a value after '='", o->name);
				return -1;
			}
			*(const char **)o->value = eq ? eq + 1 : "";
			continue;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		if (!val || !*val) {
			error("option '--%s' needs a value", o->name);
			return -1;
		}
		if (o->type == OPT_STRING) {
			*(const char **)o->value = val;
		} else if (o->type == OPT_STRVEC) {
			strvec_push((struct strvec *)o->value, val);
		} else if (parse_uint(val, o->min, o->max, (unsigned *)o->value) < 0) {
			error("option '--%s' wants a number in %u..%u, not '%s'", o->name,
			      o->min, o->max, val);
			return -1;
		}
	}
	return 0;
}

void lab_clock_export(const char *clock)
{
	const char *c = clock ? clock : getenv("CLOCK");

	if (lab_clock_parse(c) < 0)
		die(LAB_EXIT_USAGE, "unknown clock '%s' (wall or virtual)", c);
	if (clock)
		setenv("CLOCK", clock, 1);
}
