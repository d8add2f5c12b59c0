/* abdecide.h - lab ab --until-decided and --expect over the boots so far:
 * a row per case on its primary metric, checks per expectation, and the
 * text, JSON and JUnit of where they stand.  Reads results/ only. */
#ifndef LAB_ABDECIDE_H
#define LAB_ABDECIDE_H

#include "report/compare.h"
#include "report/decide.h"

#include <json-c/json.h>

/* The scenario a row's case belongs to, and the metric that decides it. */
struct abd_primary {
	char scenario[128];
	char metric[64];	/* "": the case's first declared metric */
};

/* A row (a case's primary metric) or one case of an expectation. */
struct abd_item {
	char *case_id;
	char *metric;
	int expect;		/* index into expects, -1 for a row */
	int higher_better, no_direction;	/* the metric's */
	int worse;		/* a row changed the worse way */
	struct decide_item d;
};

/* One boot, loaded once it ended (run NULL: no results). */
struct abd_boot {
	unsigned side;		/* 0 base, 1 test */
	unsigned round;
	struct cmp_run *run;
};

/*
 * abd_init() then abd_add_primary()/abd_add_expect() before the first
 * look; abd_add_boot() after each boot; abd_look() after each round.
 * Everything is owned by the struct: abd_release().
 */
struct abd {
	struct decide_params params;
	struct abd_primary *primaries;
	size_t nr_primaries;
	struct expect *expects;
	size_t nr_expects;
	struct abd_boot *boots;
	size_t nr_boots, alloc_boots;
	struct abd_item *rows, *checks;
	size_t nr_rows, nr_checks;
	int have_items;
	unsigned looks_taken;
};

void abd_init(struct abd *a, const struct decide_params *p);
void abd_release(struct abd *a);
void abd_add_primary(struct abd *a, const char *scenario, const char *metric);
void abd_add_expect(struct abd *a, const struct expect *e);
/* Loads run (NULL or unloadable: a boot without values; a warning says why). */
void abd_add_boot(struct abd *a, unsigned side, unsigned round, const char *run);
/*
 * Look number `look` at the boots of rounds 1..look.  The first look with
 * results makes the rows and checks; an expectation no case matches, or
 * whose metric no case has, is -1 with one line in err.
 */
int abd_look(struct abd *a, unsigned look, struct strbuf *err);

/* Rows (or checks) decided, of how many. */
void abd_count(const struct abd *a, size_t *rows_done, size_t *checks_done, size_t *expects_done);
int abd_all_decided(const struct abd *a);
/* An expectation's state over its cases: violated when one is, holds when all do. */
enum decide_state abd_expect_state(const struct abd *a, size_t e, double *more_rounds);

/* The decisions, the undecided rows with the rounds each needs, the expectations. */
void abd_text(const struct abd *a, struct strbuf *out);
struct json_object *abd_json(const struct abd *a);
/* JUnit XML: one test case per expectation (violated: failure, open: error). */
void abd_junit(const struct abd *a, struct strbuf *out);
/*
 * 1 when an expectation is violated, else 3 (LAB_EXIT_UNDECIDED) when
 * one, or with no expectations a row, is open, else 0.
 */
int abd_exit_code(const struct abd *a);

#endif
