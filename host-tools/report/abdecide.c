/* abdecide.c - where lab ab --until-decided stands: rows on each case's
 * primary metric, checks of the expectations, looked at after each round. */
#define _GNU_SOURCE
#include "report/abdecide.h"
#include "report/htmlreport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void abd_init(struct abd *a, const struct decide_params *p)
{
	memset(a, 0, sizeof(*a));
	a->params = *p;
}

static void items_free(struct abd_item *it, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(it[i].case_id);
		free(it[i].metric);
	}
	free(it);
}

void abd_release(struct abd *a)
{
	for (size_t i = 0; i < a->nr_boots; i++)
		if (a->boots[i].run) {
			cmp_run_release(a->boots[i].run);
			free(a->boots[i].run);
		}
	free(a->boots);
	free(a->primaries);
	free(a->expects);
	items_free(a->rows, a->nr_rows);
	items_free(a->checks, a->nr_checks);
	memset(a, 0, sizeof(*a));
}

void abd_add_primary(struct abd *a, const char *scenario, const char *metric)
{
	struct abd_primary *p;

	a->primaries = xrealloc(a->primaries, (a->nr_primaries + 1) * sizeof(*a->primaries));
	p = &a->primaries[a->nr_primaries++];
	snprintf(p->scenario, sizeof(p->scenario), "%s", scenario);
	snprintf(p->metric, sizeof(p->metric), "%s", metric ? metric : "");
}

void abd_add_expect(struct abd *a, const struct expect *e)
{
	a->expects = xrealloc(a->expects, (a->nr_expects + 1) * sizeof(*a->expects));
	a->expects[a->nr_expects++] = *e;
}

void abd_add_boot(struct abd *a, unsigned side, unsigned round, const char *run)
{
	struct abd_boot *b;

	if (a->nr_boots == a->alloc_boots) {
		a->alloc_boots = a->alloc_boots ? 2 * a->alloc_boots : 16;
		a->boots = xrealloc(a->boots, a->alloc_boots * sizeof(*a->boots));
	}
	b = &a->boots[a->nr_boots++];
	b->side = side;
	b->round = round;
	b->run = NULL;
	if (run) {
		struct strbuf err = STRBUF_INIT;

		b->run = xcalloc(1, sizeof(*b->run));
		if (cmp_run_load(b->run, run, &err) < 0) {
			warning("boot %zu gives no values: %s", a->nr_boots, err.buf);
			cmp_run_release(b->run);
			free(b->run);
			b->run = NULL;
		}
		strbuf_release(&err);
	}
}

static const struct cmp_case *find_case(const struct cmp_run *r, const char *id)
{
	for (size_t i = 0; i < r->nr_cases; i++)
		if (!strcmp(r->cases[i].id, id))
			return &r->cases[i];
	return NULL;
}

static const struct cmp_metric *find_metric(const struct cmp_case *c, const char *name)
{
	for (size_t i = 0; i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

static const char *primary_of(const struct abd *a, const struct cmp_case *c)
{
	for (size_t i = 0; i < a->nr_primaries; i++)
		if (c->scenario && !strcmp(a->primaries[i].scenario, c->scenario) &&
		    a->primaries[i].metric[0])
			return a->primaries[i].metric;
	for (size_t i = 0; i < c->nr_metrics; i++)
		if (c->metrics[i].declared)
			return c->metrics[i].name;
	return NULL;
}

static void push_item(struct abd_item **v, size_t *n, const struct cmp_case *c, const char *metric,
		      int expect, const struct expect *e)
{
	const struct cmp_metric *m = find_metric(c, metric);
	struct abd_item *it;

	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	it = &(*v)[(*n)++];
	memset(it, 0, sizeof(*it));
	it->case_id = xstrdup(c->id);
	it->metric = xstrdup(metric);
	it->higher_better = m ? m->higher_better : 0;
	it->no_direction = m ? m->no_direction : 1;
	it->expect = expect;
	if (e) {
		it->d.op = e->op;
		it->d.bound = e->bound;
	}
	decide_item_init(&it->d);
}

/* The rows and checks, from the first boot with results. */
static int make_items(struct abd *a, const struct cmp_run *r, struct strbuf *err)
{
	const struct cmp_case **sorted = cmp_cases_by_id(r);

	for (size_t i = 0; i < r->nr_cases; i++) {
		const char *m = primary_of(a, sorted[i]);

		if (m)
			push_item(&a->rows, &a->nr_rows, sorted[i], m, -1, NULL);
	}
	for (size_t e = 0; e < a->nr_expects; e++) {
		const struct expect *x = &a->expects[e];
		size_t matched = 0;

		for (size_t i = 0; i < r->nr_cases; i++) {
			const struct cmp_case *c = sorted[i];

			if (strcmp(c->id, x->case_id) && (!c->scenario || strcmp(c->scenario, x->case_id)))
				continue;
			if (!find_metric(c, x->metric)) {
				strbuf_addf(err, "expectation '%s': case '%s' has no metric '%s'", x->text,
					    c->id, x->metric);
				free(sorted);
				return -1;
			}
			push_item(&a->checks, &a->nr_checks, c, x->metric, (int)e, x);
			matched++;
		}
		if (!matched) {
			strbuf_addf(err, "expectation '%s': no case '%s' in the suite", x->text, x->case_id);
			free(sorted);
			return -1;
		}
	}
	free(sorted);
	a->have_items = 1;
	return 0;
}

/* The boots' values of an item up to round `look`: a boot whose case did
 * not pass gives none (its numbers are not the kernel's). */
static void gather(const struct abd *a, struct abd_item *it, unsigned look, double *vb, double *vt)
{
	it->d.nb = it->d.nt = 0;
	for (size_t i = 0; i < a->nr_boots; i++) {
		const struct abd_boot *b = &a->boots[i];
		const struct cmp_case *c;
		const struct cmp_metric *m;

		if (b->round > look || !b->run || b->side > 1 || !(c = find_case(b->run, it->case_id)) ||
		    strcmp(c->verdict, "PASS") || !(m = find_metric(c, it->metric)) || !m->n)
			continue;
		if (b->side == 0)
			vb[it->d.nb++] = stats_summary(m->stat, m->values, m->n);
		else
			vt[it->d.nt++] = stats_summary(m->stat, m->values, m->n);
	}
	it->d.base = vb;
	it->d.test = vt;
}

int abd_look(struct abd *a, unsigned look, struct strbuf *err)
{
	double *vb, *vt;
	struct decide_item *d;

	if (!a->have_items) {
		for (size_t i = 0; i < a->nr_boots; i++)
			if (a->boots[i].run) {
				if (make_items(a, a->boots[i].run, err) < 0)
					return -1;
				break;
			}
		if (!a->have_items)
			return 0;
	}
	vb = xcalloc((a->nr_rows + a->nr_checks) * (a->nr_boots + 1), sizeof(*vb));
	vt = xcalloc((a->nr_rows + a->nr_checks) * (a->nr_boots + 1), sizeof(*vt));
	d = xcalloc(a->nr_rows + a->nr_checks + 1, sizeof(*d));
	for (size_t i = 0; i < a->nr_rows + a->nr_checks; i++) {
		struct abd_item *it = i < a->nr_rows ? &a->rows[i] : &a->checks[i - a->nr_rows];

		gather(a, it, look, vb + i * (a->nr_boots + 1), vt + i * (a->nr_boots + 1));
		d[i] = it->d;
	}
	decide_rows(d, a->nr_rows, look, &a->params);
	decide_checks(d + a->nr_rows, a->nr_checks, look, &a->params);
	for (size_t i = 0; i < a->nr_rows + a->nr_checks; i++) {
		struct abd_item *it = i < a->nr_rows ? &a->rows[i] : &a->checks[i - a->nr_rows];

		it->d = d[i];
		it->d.base = it->d.test = NULL;	/* the arrays go now */
		if (it->expect < 0 && it->d.state == DECIDE_CHANGED && !it->no_direction)
			it->worse = it->higher_better ? it->d.est < 0 : it->d.est > 0;
	}
	a->looks_taken = look;
	free(vb);
	free(vt);
	free(d);
	return 0;
}

enum decide_state abd_expect_state(const struct abd *a, size_t e, double *more_rounds)
{
	int open = 0, violated = 0;
	double more = 0;

	for (size_t i = 0; i < a->nr_checks; i++) {
		const struct decide_item *d = &a->checks[i].d;

		if (a->checks[i].expect != (int)e)
			continue;
		violated |= d->state == DECIDE_VIOLATED;
		if (d->state == DECIDE_OPEN) {
			open = 1;
			more = isnan(d->more_rounds) || isnan(more) ? NAN : fmax(more, d->more_rounds);
		}
	}
	if (more_rounds)
		*more_rounds = open ? more : 0;
	if (!a->have_items)
		return DECIDE_OPEN;
	return violated ? DECIDE_VIOLATED : open ? DECIDE_OPEN : DECIDE_HOLDS;
}

void abd_count(const struct abd *a, size_t *rows_done, size_t *checks_done, size_t *expects_done)
{
	*rows_done = *checks_done = *expects_done = 0;
	for (size_t i = 0; i < a->nr_rows; i++)
		*rows_done += a->rows[i].d.state != DECIDE_OPEN;
	for (size_t i = 0; i < a->nr_checks; i++)
		*checks_done += a->checks[i].d.state != DECIDE_OPEN;
	for (size_t e = 0; e < a->nr_expects; e++)
		*expects_done += abd_expect_state(a, e, NULL) != DECIDE_OPEN;
}

int abd_all_decided(const struct abd *a)
{
	size_t r, c, e;

	if (!a->have_items)
		return 0;
	abd_count(a, &r, &c, &e);
	return r == a->nr_rows && e == a->nr_expects;
}

static void pct(struct strbuf *out, double f)
{
	strbuf_addf(out, "%+.1f%%", 100 * f);
}

/* "+5.1% [+2.0%, +8.3%] (99.4% CI)" */
static void est_ci(struct strbuf *out, const struct decide_item *d)
{
	pct(out, d->est);
	strbuf_addstr(out, " [");
	pct(out, d->lo);
	strbuf_addstr(out, ", ");
	pct(out, d->hi);
	strbuf_addf(out, "] (%.4g%% CI)", 100 * d->level);
}

static void more_text(struct strbuf *out, double more)
{
	if (isnan(more))
		strbuf_addstr(out, "rounds needed unknown");
	else if (isinf(more))
		strbuf_addstr(out, "no number of rounds in sight would decide it");
	else
		strbuf_addf(out, "about %.0f more round%s", more, more == 1 ? "" : "s");
}

static void item_text(const struct abd *a, struct strbuf *out, const struct abd_item *it)
{
	const struct decide_item *d = &it->d;

	strbuf_addf(out, "  %s %s: ", it->case_id, it->metric);
	switch (d->state) {
	case DECIDE_CHANGED:
		strbuf_addstr(out, "changed by ");
		est_ci(out, d);
		strbuf_addf(out, ", decided at round %u", d->decided_at);
		break;
	case DECIDE_SAME:
		strbuf_addf(out, "= within +-%g%%: ", 100 * a->params.effect);
		est_ci(out, d);
		strbuf_addf(out, ", decided at round %u", d->decided_at);
		break;
	case DECIDE_HOLDS:
	case DECIDE_VIOLATED:
		strbuf_addf(out, "%s: ", decide_state_name(d->state));
		est_ci(out, d);
		strbuf_addf(out, ", decided at round %u", d->decided_at);
		break;
	default:
		strbuf_addstr(out, "undecided");
		if (d->why) {
			strbuf_addf(out, " (%s)", d->why);
		} else {
			strbuf_addstr(out, ": ");
			est_ci(out, d);
			strbuf_addstr(out, ", ");
			more_text(out, d->more_rounds);
		}
		break;
	}
	strbuf_addch(out, '\n');
}

void abd_text(const struct abd *a, struct strbuf *out)
{
	size_t r, c, e;

	abd_count(a, &r, &c, &e);
	strbuf_addf(out, "decisions after %u round%s: %zu of %zu rows decided (alpha %g, "
		    "effect +-%g%%, at most %u look%s)\n", a->looks_taken, a->looks_taken == 1 ? "" : "s",
		    r, a->nr_rows, a->params.alpha, 100 * a->params.effect, a->params.looks,
		    a->params.looks == 1 ? "" : "s");
	for (size_t i = 0; i < a->nr_rows; i++)
		item_text(a, out, &a->rows[i]);
	for (size_t x = 0; x < a->nr_expects; x++) {
		double more;
		enum decide_state s = abd_expect_state(a, x, &more);

		strbuf_addf(out, "expect %s: %s", a->expects[x].text,
			    s == DECIDE_OPEN ? "undecided" : decide_state_name(s));
		if (s == DECIDE_OPEN && a->have_items) {
			strbuf_addstr(out, ", ");
			more_text(out, more);
		}
		strbuf_addch(out, '\n');
		for (size_t i = 0; i < a->nr_checks; i++)
			if (a->checks[i].expect == (int)x)
				item_text(a, out, &a->checks[i]);
	}
}

static struct json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *item_json(const struct abd_item *it)
{
	struct json_object *o = json_object_new_object();
	const struct decide_item *d = &it->d;

	json_object_object_add(o, "case", json_object_new_string(it->case_id));
	json_object_object_add(o, "metric", json_object_new_string(it->metric));
	json_object_object_add(o, "state", json_object_new_string(decide_state_name(d->state)));
	json_object_object_add(o, "change", num(d->est));
	json_object_object_add(o, "ci_lo", num(d->lo));
	json_object_object_add(o, "ci_hi", num(d->hi));
	json_object_object_add(o, "ci_level", num(d->level));
	json_object_object_add(o, "boots_base", json_object_new_int((int)d->nb));
	json_object_object_add(o, "boots_test", json_object_new_int((int)d->nt));
	json_object_object_add(o, "decided_at", json_object_new_int((int)d->decided_at));
	json_object_object_add(o, "more_rounds", d->state == DECIDE_OPEN && isinf(d->more_rounds) ?
				  json_object_new_string("never") : num(d->more_rounds));
	if (d->why)
		json_object_object_add(o, "why", json_object_new_string(d->why));
	return o;
}

struct json_object *abd_json(const struct abd *a)
{
	struct json_object *o = json_object_new_object(), *rows = json_object_new_array(),
			   *ex = json_object_new_array();

	json_object_object_add(o, "alpha", json_object_new_double(a->params.alpha));
	json_object_object_add(o, "effect", json_object_new_double(a->params.effect));
	json_object_object_add(o, "max_looks", json_object_new_int((int)a->params.looks));
	json_object_object_add(o, "looks", json_object_new_int((int)a->looks_taken));
	for (size_t i = 0; i < a->nr_rows; i++)
		json_object_array_add(rows, item_json(&a->rows[i]));
	for (size_t x = 0; x < a->nr_expects; x++) {
		struct json_object *e = json_object_new_object(), *cs = json_object_new_array();
		double more;
		enum decide_state s = abd_expect_state(a, x, &more);

		json_object_object_add(e, "expect", json_object_new_string(a->expects[x].text));
		json_object_object_add(e, "state", json_object_new_string(decide_state_name(s)));
		json_object_object_add(e, "more_rounds", s == DECIDE_OPEN && isinf(more) ?
					  json_object_new_string("never") : num(more));
		for (size_t i = 0; i < a->nr_checks; i++)
			if (a->checks[i].expect == (int)x)
				json_object_array_add(cs, item_json(&a->checks[i]));
		json_object_object_add(e, "cases", cs);
		json_object_array_add(ex, e);
	}
	json_object_object_add(o, "rows", rows);
	json_object_object_add(o, "expectations", ex);
	return o;
}

void abd_junit(const struct abd *a, struct strbuf *out)
{
	struct strbuf body = STRBUF_INIT;
	size_t failures = 0, errors = 0;

	for (size_t x = 0; x < a->nr_expects; x++) {
		struct strbuf msg = STRBUF_INIT;
		double more;
		enum decide_state s = abd_expect_state(a, x, &more);

		for (size_t i = 0; i < a->nr_checks; i++) {
			const struct abd_item *it = &a->checks[i];

			if (it->expect != (int)x)
				continue;
			strbuf_addf(&msg, "%s%s %s ", msg.len ? "; " : "", it->case_id,
				    it->d.state == DECIDE_OPEN ? "undecided" : decide_state_name(it->d.state));
			if (isfinite(it->d.est))
				est_ci(&msg, &it->d);
		}
		if (s == DECIDE_OPEN) {
			strbuf_addstr(&msg, "; ");
			more_text(&msg, more);
		}
		strbuf_addstr(&body, "    <testcase classname=\"lab-ab.expect\" name=\"");
		html_escape(&body, a->expects[x].text);
		strbuf_addstr(&body, "\"");
		if (s == DECIDE_HOLDS) {
			strbuf_addstr(&body, "/>\n");
		} else {
			failures += s == DECIDE_VIOLATED;
			errors += s == DECIDE_OPEN;
			strbuf_addstr(&body, s == DECIDE_VIOLATED ? ">\n      <failure type=\"violated\" message=\"" :
				      ">\n      <error type=\"undecided\" message=\"");
			html_escape(&body, msg.buf);
			strbuf_addstr(&body, s == DECIDE_VIOLATED ? "\"/>\n    </testcase>\n" :
				      "\"/>\n    </testcase>\n");
		}
		strbuf_release(&msg);
	}
	strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_addf(out, "<testsuites name=\"lab ab\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		    a->nr_expects, failures, errors);
	strbuf_addf(out, "  <testsuite name=\"expectations\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		    a->nr_expects, failures, errors);
	strbuf_add(out, body.buf, body.len);
	strbuf_addstr(out, "  </testsuite>\n</testsuites>\n");
	strbuf_release(&body);
}

int abd_exit_code(const struct abd *a)
{
	int open = !a->have_items;

	for (size_t x = 0; x < a->nr_expects; x++) {
		enum decide_state s = abd_expect_state(a, x, NULL);

		if (s == DECIDE_VIOLATED)
			return LAB_EXIT_FAIL;
		open |= s == DECIDE_OPEN;
	}
	if (!a->nr_expects)
		for (size_t i = 0; i < a->nr_rows; i++)
			open |= a->rows[i].d.state == DECIDE_OPEN;
	return open ? LAB_EXIT_UNDECIDED : LAB_EXIT_PASS;
}
