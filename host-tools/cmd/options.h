/* options.h - declarative command-line options for lab's subcommands:
 * each command lists its options in a table and gets one parser. */
#ifndef LAB_OPTIONS_H
#define LAB_OPTIONS_H

enum lab_opt_type {
	OPT_END = 0,
	OPT_STRING, /* --name VALUE or --name=VALUE into *(const char **)value */
	OPT_BOOL,   /* --name sets *(int *)value to 1 */
	OPT_UINT,   /* --name N into *(unsigned *)value, within [min, max] */
	OPT_STRVEC, /* --name VALUE, repeatable: appended to *(struct strvec *)value */
	OPT_OPTARG, /* --name sets *(const char **)value to "", --name=VALUE to VALUE;
		     * never takes the next argument */
};

struct lab_option {
	enum lab_opt_type type;
	const char *name;    /* without the leading "--" */
	void *value;
	const char *help;
	unsigned min, max;
};

#define OPT_STRING(n, v, h) { OPT_STRING, (n), (v), (h), 0, 0 }
#define OPT_BOOL(n, v, h) { OPT_BOOL, (n), (v), (h), 0, 0 }
#define OPT_UINT(n, v, lo, hi, h) { OPT_UINT, (n), (v), (h), (lo), (hi) }
#define OPT_STRVEC(n, v, h) { OPT_STRVEC, (n), (v), (h), 0, 0 }
#define OPT_OPTARG(n, v, h) { OPT_OPTARG, (n), (v), (h), 0, 0 }
#define OPT_END() { OPT_END, NULL, NULL, NULL, 0, 0 }

/*
 * Parses argv[1..] (argv[0] is the command name).  Positional arguments
 * are collected into pos (at most max_pos; *nr_pos gets the count).
 * --help prints usage and the table on stdout and returns 1; a bad option
 * prints one error line and returns -1; success returns 0.
 */
int parse_options(int argc, const char **argv, const struct lab_option *opts,
		  const char *usage, const char **pos, int max_pos, int *nr_pos);

/* lab ab / lab matrix --clock: checked (exit 2 when unknown) and handed
 * to every `lab run` child as $CLOCK; NULL leaves $CLOCK as it is. */
void lab_clock_export(const char *clock);

#endif
