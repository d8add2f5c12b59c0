/* stats-sim.c - simulations behind `lab compare`'s statistics: coverage of
 * the ratio interval by n, and whether "about N more runs" really decides. */
#include "report/stats.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 0.05
#define BAND 0.02
#define MIN_RUNS 5
#define MAX_N 400

static gsl_rng *rng;

enum shape { NORMAL, LOGNORMAL, RECIP_NORMAL };

/* One run of a metric whose statistic is m and whose CV is cv. */
static double draw(enum shape sh, double m, double cv)
{
	switch (sh) {
	case LOGNORMAL:	/* median m */
		return m * exp(gsl_ran_gaussian(rng, cv));
	case RECIP_NORMAL: /* a rate whose hmean is m: 1/x ~ N(1/m, (cv/m)^2) */
		return 1 / (1 / m + gsl_ran_gaussian(rng, cv / m));
	default:	/* mean m */
		return m + gsl_ran_gaussian(rng, cv * m);
	}
}

static void coverage(unsigned reps)
{
	static const size_t ns[] = { 2, 3, 4, 5, 6, 8, 10, 15, 20, 30 };
	static const struct {
		const char *name;
		enum stats_statistic s;
		enum shape sh;
		double cv;
	} kinds[] = {
		{ "amean cv 5%", STATS_AMEAN, NORMAL, 0.05 },
		{ "amean cv 20%", STATS_AMEAN, NORMAL, 0.20 },
		{ "hmean cv 5%", STATS_HMEAN, RECIP_NORMAL, 0.05 },
		{ "median cv 5%", STATS_MEDIAN, LOGNORMAL, 0.05 },
		{ "median cv 30%", STATS_MEDIAN, LOGNORMAL, 0.30 },
	};
	double a[64], b[64];

	printf("coverage of the 95%% interval of the ratio (true ratio 1.05, %u replicates)\n", reps);
	printf("%-14s", "n per side");
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		printf(" %6zu", ns[i]);
	printf("\n");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		printf("%-14s", kinds[k].name);
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			size_t n = ns[i], ok = 0, have = 0;

			for (unsigned r = 0; r < reps; r++) {
				double lo, hi;

				for (size_t j = 0; j < n; j++) {
					a[j] = draw(kinds[k].sh, 100, kinds[k].cv);
					b[j] = draw(kinds[k].sh, 105, kinds[k].cv);
				}
				if (stats_ratio_ci(kinds[k].s, a, n, b, n, 0.95, &lo, &hi, NULL))
					continue;
				have++;
				ok += lo <= 1.05 && 1.05 <= hi;
			}
			if (!have)
				printf("      -");
			else
				printf(" %5.1f%%", 100.0 * ok / have);
		}
		printf("\n");
	}
	printf("(-: no interval exists at that n; the table says why instead)\n\n");
}

struct row {
	double a[MAX_N], b[MAX_N];
	size_t n;
	double p, level, lo, hi;
	int real;	/* has a true change */
	int decided;
};

static double row_p(enum stats_statistic s, struct row *r)
{
	struct stats_test t;

	if (s == STATS_MEDIAN)
		stats_mann_whitney(r->a, r->n, r->b, r->n, &t);
	else
		stats_welch(r->a, r->n, r->b, r->n, &t);
	return t.p;
}

/* lab compare's rule: q < alpha and the interval excludes 1. */
static void judge(enum stats_statistic s, struct row *rows, size_t nr)
{
	double p[64] = { 0 }, q[64], lv[64];

	for (size_t i = 0; i < nr; i++) {
		p[i] = rows[i].p = row_p(s, &rows[i]);
		stats_ratio_ci(s, rows[i].a, rows[i].n, rows[i].b, rows[i].n, 0.95, &rows[i].lo,
			       &rows[i].hi, NULL);
	}
	stats_bh(p, nr, q);
	stats_bh_levels(p, nr, ALPHA, lv);
	for (size_t i = 0; i < nr; i++) {
		rows[i].level = lv[i];
		rows[i].decided = q[i] < ALPHA && (rows[i].lo > 1 || rows[i].hi < 1);
	}
}

static void advice(const char *name, enum stats_statistic s, enum shape sh, size_t nreal,
		   size_t nnull, size_t n0, unsigned reps)
{
	size_t nr = nreal + nnull, followed = 0, decided_after = 0, capped = 0, early = 0;
	size_t false_dec = 0, null_rows = 0;
	double runs_added = 0;
	struct row *rows = calloc(nr, sizeof(*rows));

	for (unsigned r = 0; r < reps; r++) {
		size_t want[64];

		for (size_t i = 0; i < nr; i++) {
			rows[i].real = i < nreal;
			rows[i].n = n0;
			for (size_t j = 0; j < n0; j++) {
				rows[i].a[j] = draw(sh, 100, 0.05);
				rows[i].b[j] = draw(sh, rows[i].real ? 105 : 100, 0.05);
			}
		}
		judge(s, rows, nr);
		for (size_t i = 0; i < nr; i++) {
			double need;

			want[i] = 0;
			if (rows[i].decided) {
				early += rows[i].real;
				continue;
			}
			need = stats_runs_to_decide(s, rows[i].a, n0, rows[i].b, n0, rows[i].level, 0.8,
						    0.95, BAND, MIN_RUNS);
			if (!isfinite(need) || need > MAX_N) {
				want[i] = MAX_N;
				capped += rows[i].real;
			} else {
				want[i] = (size_t)need;
			}
		}
		for (size_t i = 0; i < nr; i++) {
			for (size_t j = rows[i].n; j < want[i]; j++) {
				rows[i].a[j] = draw(sh, 100, 0.05);
				rows[i].b[j] = draw(sh, rows[i].real ? 105 : 100, 0.05);
			}
			if (want[i] > rows[i].n) {
				if (rows[i].real)
					runs_added += (double)(want[i] - rows[i].n);
				rows[i].n = want[i];
			}
		}
		judge(s, rows, nr);
		for (size_t i = 0; i < nr; i++) {
			if (!rows[i].real) {
				null_rows++;
				false_dec += rows[i].decided;
				continue;
			}
			if (!want[i])
				continue;
			followed++;
			decided_after += rows[i].decided;
		}
	}
	printf("%-34s %6zu %8.1f%% %9.1f %7zu %8.1f%%", name, followed,
	       followed ? 100.0 * decided_after / followed : 0, followed ? runs_added / followed : 0,
	       early, nnull ? 100.0 * false_dec / null_rows : 0);
	if (capped)
		printf("  (%zu capped at %d)", capped, MAX_N);
	printf("\n");
	free(rows);
}

int main(int argc, char **argv)
{
	unsigned reps = argc > 2 ? (unsigned)atoi(argv[2]) : 2000;
	const char *what = argc > 1 ? argv[1] : "all";

	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 20261201);
	if (!strcmp(what, "coverage") || !strcmp(what, "all"))
		coverage(reps);
	if (!strcmp(what, "advice") || !strcmp(what, "all")) {
		unsigned fam = reps / 4 ? reps / 4 : 1;

		printf("following \"about N more runs\": rows with a true 5%% change at CV 5%%,\n"
		       "start at 3 runs a side, runs added as advised (%u tables)\n", fam);
		printf("%-34s %6s %9s %9s %7s %9s\n", "table", "rows", "decided", "runs/row", "early",
		       "null dec");
		advice("8 real rows, amean (welch)", STATS_AMEAN, NORMAL, 8, 0, 3, fam);
		advice("4 real + 4 null rows, amean", STATS_AMEAN, NORMAL, 4, 4, 3, fam);
		advice("1 real row, amean", STATS_AMEAN, NORMAL, 1, 0, 3, fam);
		advice("8 real rows, median (mann-whitney)", STATS_MEDIAN, LOGNORMAL, 8, 0, 3, fam);
		advice("4 real + 4 null rows, median", STATS_MEDIAN, LOGNORMAL, 4, 4, 3, fam);
		advice("8 real rows, amean, from 5 runs", STATS_AMEAN, NORMAL, 8, 0, 5, fam);
	}
	gsl_rng_free(rng);
	return 0;
}
