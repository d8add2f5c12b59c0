/* direct.c - `runner --workload NAME [--set k=v]...`: one run of one
 * workload, metrics on stdout; for developing workloads and for benches. */
#include "direct.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void list_workloads(void)
{
	for (size_t i = 0; i < nr_workloads; i++) {
		const struct workload_ops *w = workloads[i];
		char why[256] = "";
		int ok = !w->supported || w->supported(why, sizeof(why));

		if (ok)
			printf("%-14s %s\n", w->name, w->description);
		else
			printf("%-14s %s [cannot run here: %s]\n", w->name, w->description, why);
		wl_options_list(w->options);
	}
}

int run_direct(int argc, char **argv)
{
	const struct workload_ops *w = NULL;
	struct wl_args *args;
	struct wl_task_totals tt;
	struct wl_ctx ctx;
	unsigned seconds = 300;
	char err[512], why[256] = "";
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list-workloads")) {
			list_workloads();
			return 0;
		}
	}
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--workload") && i + 1 < argc)
			w = workload_find(argv[i + 1]);
	if (!w) {
		fprintf(stderr, "runner: error: unknown or missing --workload (see --list-workloads)\n");
		return 2;
	}
	args = wl_args_new();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--workload")) {
			i++;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			char *kv = argv[++i], *eq = strchr(kv, '=');

			if (!eq) {
				fprintf(stderr, "runner: error: --set wants key=value, not '%s'\n", kv);
				return 2;
			}
			*eq = '\0';
			if (wl_args_set(args, w, kv, eq + 1, err, sizeof(err)) < 0) {
				fprintf(stderr, "runner: error: %s\n", err);
				return 2;
			}
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			seconds = (unsigned)strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "runner: error: unexpected argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (wl_args_finish(args, w, err, sizeof(err)) < 0) {
		fprintf(stderr, "runner: error: %s\n", err);
		return 2;
	}
	if ((w->supported && !w->supported(why, sizeof(why))) ||
	    (w->case_supported && !w->case_supported(args, why, sizeof(why)))) {
		printf("skip: %s\n", why);
		return 77;
	}
	ret = wl_run_once(w, args, seconds, &ctx, &tt, NULL);
	if (ret < 0) {
		fprintf(stderr, "runner: error: %s: %s\n", w->name, ctx.error);
		return 1;
	}
	for (unsigned i = 0; i < ctx.nr_metrics; i++)
		printf("%s %.6g %s (%s is better)\n", ctx.metrics[i].name, ctx.metrics[i].value,
		       ctx.metrics[i].unit, ctx.metrics[i].higher_is_better ? "higher" : "lower");
	for (unsigned i = 0; i < ctx.nr_counters; i++)
		printf("counter %s %.6g\n", ctx.counters[i].name, ctx.counters[i].value);
	printf("tasks %llu migrations %llu voluntary %llu involuntary %llu\n",
	       (unsigned long long)tt.tasks, (unsigned long long)tt.nr_migrations,
	       (unsigned long long)tt.nr_voluntary_switches,
	       (unsigned long long)tt.nr_involuntary_switches);
	wl_args_free(args);
	return 0;
}
