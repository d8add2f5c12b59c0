/* bisect.c - a bisection's state (bisect.json), the next commit to test, and
 * the table, git log and page it ends with. */
#define _GNU_SOURCE
#include "bisect/bisect.h"
#include "lib/json.h"
#include "report/htmlreport.h"

#include <ctype.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BISECT_VERSION 1

const char *bisect_phase_name(enum bisect_phase p)
{
	switch (p) {
	case BISECT_ENDPOINTS: return "endpoints";
	case BISECT_STEPPING: return "stepping";
	case BISECT_DONE: return "done";
	default: return "stopped";
	}
}

void bisect_init(struct bisect *b)
{
	static const struct strvec empty = STRVEC_INIT;

	memset(b, 0, sizeof(*b));
	b->configs = empty;
	b->patches = empty;
	b->alpha = 0.05;
	b->max_runs = 10;
	b->min_runs = 2;
	b->endpoint_p = NAN;
	b->endpoint_ratio = NAN;
}

void bisect_release(struct bisect *b)
{
	free(b->ksrc);
	free(b->good);
	free(b->bad);
	free(b->topo);
	free(b->clock);
	free(b->scenario);
	free(b->suite);
	free(b->metric_case);
	free(b->metric_name);
	strvec_clear(&b->configs);
	strvec_clear(&b->patches);
	for (size_t i = 0; i < b->nr_commits; i++) {
		free(b->commits[i].subject);
		free(b->commits[i].why);
	}
	free(b->commits);
	for (size_t i = 0; i < b->nr_boots; i++)
		free(b->boots[i].run);
	free(b->boots);
	free(b->steps);
	free(b->message);
	bisect_init(b);
}

/* ---- bisect.json ---- */

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *num_or_null(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

static struct json_object *strvec_json(const struct strvec *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < v->nr; i++)
		json_object_array_add(a, json_object_new_string(v->v[i]));
	return a;
}

static const char *build_name(enum bisect_build s)
{
	return s == BISECT_BUILT ? "built" : s == BISECT_BUILD_FAILED ? "failed" : "unbuilt";
}

static struct json_object *result_json(const struct seq_result *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "decision", json_object_new_string(seq_decision_name(r->decision)));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)r->n));
	json_object_object_add(o, "p_like_good", num_or_null(r->p_good));
	json_object_object_add(o, "p_like_bad", num_or_null(r->p_bad));
	json_object_object_add(o, "level", num_or_null(r->level));
	json_object_object_add(o, "vs_good", num_or_null(r->vs_good));
	json_object_object_add(o, "vs_bad", num_or_null(r->vs_bad));
	json_object_object_add(o, "position", num_or_null(r->position));
	json_object_object_add(o, "log_scale", json_object_new_boolean(r->log_scale));
	return o;
}

struct json_object *bisect_json(const struct bisect *b)
{
	struct json_object *o = json_object_new_object(), *a, *x;

	json_object_object_add(o, "version", json_object_new_int(BISECT_VERSION));
	json_object_object_add(o, "ksrc", str_or_null(b->ksrc));
	json_object_object_add(o, "good", str_or_null(b->good));
	json_object_object_add(o, "bad", str_or_null(b->bad));
	json_object_object_add(o, "topology", str_or_null(b->topo));
	json_object_object_add(o, "clock", str_or_null(b->clock));
	json_object_object_add(o, "scenario", str_or_null(b->scenario));
	json_object_object_add(o, "suite", str_or_null(b->suite));
	json_object_object_add(o, "metric_case", str_or_null(b->metric_case));
	json_object_object_add(o, "metric", str_or_null(b->metric_name));
	json_object_object_add(o, "higher_better", json_object_new_boolean(b->higher_better));
	json_object_object_add(o, "no_direction", json_object_new_boolean(b->no_direction));
	json_object_object_add(o, "configs", strvec_json(&b->configs));
	json_object_object_add(o, "patches", strvec_json(&b->patches));
	json_object_object_add(o, "alpha", json_object_new_double(b->alpha));
	json_object_object_add(o, "max_runs", json_object_new_int((int)b->max_runs));
	json_object_object_add(o, "min_runs", json_object_new_int((int)b->min_runs));
	json_object_object_add(o, "phase", json_object_new_string(bisect_phase_name(b->phase)));
	json_object_object_add(o, "endpoint_p", num_or_null(b->endpoint_p));
	json_object_object_add(o, "endpoint_ratio", num_or_null(b->endpoint_ratio));
	json_object_object_add(o, "first_bad", b->phase == BISECT_DONE ?
			       json_object_new_string(b->commits[b->first_bad].sha) : NULL);
	json_object_object_add(o, "first_bad_subject", b->phase == BISECT_DONE ?
			       str_or_null(b->commits[b->first_bad].subject) : NULL);
	json_object_object_add(o, "message", json_object_new_string(b->message ? b->message : ""));
	json_object_object_add(o, "builds", json_object_new_int((int)b->builds));
	json_object_object_add(o, "build_seconds", json_object_new_double(b->build_seconds));
	json_object_object_add(o, "wall_seconds", json_object_new_double(b->wall_seconds));
	json_object_object_add(o, "boots_total", json_object_new_int64((int64_t)b->nr_boots));
	a = json_object_new_array();
	for (size_t i = 0; i < b->nr_commits; i++) {
		const struct bisect_commit *c = &b->commits[i];

		x = json_object_new_object();
		json_object_object_add(x, "sha", json_object_new_string(c->sha));
		json_object_object_add(x, "subject", json_object_new_string(c->subject ? c->subject : ""));
		json_object_object_add(x, "build", json_object_new_string(build_name(c->build)));
		json_object_object_add(x, "key", json_object_new_string(c->key));
		json_object_object_add(x, "decision", json_object_new_string(seq_decision_name(c->decision)));
		json_object_object_add(x, "skipped", json_object_new_boolean(c->skipped));
		json_object_object_add(x, "why", json_object_new_string(c->why ? c->why : ""));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "commits", a);
	a = json_object_new_array();
	for (size_t i = 0; i < b->nr_boots; i++) {
		const struct bisect_boot *t = &b->boots[i];

		x = json_object_new_object();
		json_object_object_add(x, "commit", json_object_new_int64((int64_t)t->commit));
		json_object_object_add(x, "step", json_object_new_int((int)t->step));
		json_object_object_add(x, "run", json_object_new_string(t->run ? t->run : ""));
		json_object_object_add(x, "verdict", json_object_new_string(t->verdict));
		json_object_object_add(x, "value", num_or_null(t->value));
		json_object_object_add(x, "seconds", json_object_new_double(t->seconds));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "boots", a);
	a = json_object_new_array();
	for (size_t i = 0; i < b->nr_steps; i++) {
		x = result_json(&b->steps[i].res);
		json_object_object_add(x, "commit", json_object_new_int64((int64_t)b->steps[i].commit));
		json_object_object_add(x, "sha", json_object_new_string(b->commits[b->steps[i].commit].sha));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "steps", a);
	return o;
}

/* A string member of at most BISECT_MAX_STR bytes; absent or null: NULL. */
static int get_str(struct json_object *o, const char *key, char **out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) > BISECT_MAX_STR)
		return -1;
	*out = xstrdup(json_object_get_string(v));
	return 0;
}

static int get_num(struct json_object *o, const char *key, double *out)
{
	double x;
	int r = json_get_num(o, key, &x);

	if (r < 0)
		return -1;
	*out = r == 0 ? x : NAN;
	return 0;
}

/* An integer member within [0, max]. */
static int get_uint(struct json_object *o, const char *key, size_t max, size_t *out)
{
	struct json_object *v;
	int64_t x;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	x = json_object_get_int64(v);
	if (x < 0 || (uint64_t)x > max)
		return -1;
	*out = (size_t)x;
	return 0;
}

static int get_strvec(struct json_object *o, const char *key, struct strvec *out)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > 64)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);

		if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) > BISECT_MAX_STR)
			return -1;
		strvec_push(out, json_object_get_string(v));
	}
	return 0;
}

static int parse_decision(const char *s, enum seq_decision *d)
{
	if (!s)
		return -1;
	if (!strcmp(s, "good"))
		*d = SEQ_GOOD;
	else if (!strcmp(s, "bad"))
		*d = SEQ_BAD;
	else if (!strcmp(s, "undecided"))
		*d = SEQ_UNDECIDED;
	else
		return -1;
	return 0;
}

static int is_sha(const char *s)
{
	if (strlen(s) != 40)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return 0;
	return 1;
}

static int parse_commit(struct json_object *x, struct bisect_commit *c)
{
	const char *sha = json_get_str(x, "sha"), *build = json_get_str(x, "build");
	const char *key = json_get_str(x, "key");
	struct json_object *v;

	if (!sha || !is_sha(sha) || !build || !key || strlen(key) > 16 ||
	    parse_decision(json_get_str(x, "decision"), &c->decision) < 0 ||
	    get_str(x, "subject", &c->subject) < 0 || get_str(x, "why", &c->why) < 0 ||
	    !json_object_object_get_ex(x, "skipped", &v) || !json_object_is_type(v, json_type_boolean))
		return -1;
	memcpy(c->sha, sha, 41);
	snprintf(c->key, sizeof(c->key), "%s", key);
	c->skipped = json_object_get_boolean(v);
	if (!strcmp(build, "built"))
		c->build = BISECT_BUILT;
	else if (!strcmp(build, "failed"))
		c->build = BISECT_BUILD_FAILED;
	else if (!strcmp(build, "unbuilt"))
		c->build = BISECT_UNBUILT;
	else
		return -1;
	return 0;
}

static int parse_boot(struct json_object *x, size_t nr_commits, struct bisect_boot *t)
{
	const char *verdict = json_get_str(x, "verdict");
	size_t step;

	if (!x || get_uint(x, "commit", nr_commits ? nr_commits - 1 : 0, &t->commit) < 0 ||
	    get_uint(x, "step", BISECT_MAX_COMMITS, &step) < 0 || !verdict ||
	    strlen(verdict) >= sizeof(t->verdict) || get_str(x, "run", &t->run) < 0 ||
	    get_num(x, "value", &t->value) < 0 || get_num(x, "seconds", &t->seconds) < 0)
		return -1;
	t->step = (unsigned)step;
	if (!isfinite(t->seconds))
		t->seconds = 0;
	snprintf(t->verdict, sizeof(t->verdict), "%s", verdict);
	return 0;
}

static int parse_step(struct json_object *x, size_t nr_commits, struct bisect_step *s)
{
	size_t runs;
	struct json_object *v;

	if (!x || get_uint(x, "commit", nr_commits ? nr_commits - 1 : 0, &s->commit) < 0 ||
	    get_uint(x, "runs", BISECT_MAX_BOOTS, &runs) < 0 ||
	    parse_decision(json_get_str(x, "decision"), &s->res.decision) < 0 ||
	    get_num(x, "p_like_good", &s->res.p_good) < 0 || get_num(x, "p_like_bad", &s->res.p_bad) < 0 ||
	    get_num(x, "level", &s->res.level) < 0 || get_num(x, "vs_good", &s->res.vs_good) < 0 ||
	    get_num(x, "vs_bad", &s->res.vs_bad) < 0 || get_num(x, "position", &s->res.position) < 0 ||
	    !json_object_object_get_ex(x, "log_scale", &v) || !json_object_is_type(v, json_type_boolean))
		return -1;
	s->res.n = runs;
	s->res.log_scale = json_object_get_boolean(v);
	return 0;
}

/* Fills b from o; -1 with the member that is wrong in *what. */
static int parse_object(struct json_object *o, struct bisect *b, const char **what)
{
	struct json_object *a, *v;
	const char *phase;
	size_t n, u;

	*what = "version";
	if (!json_object_object_get_ex(o, "version", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != BISECT_VERSION)
		return -1;
	*what = "request";
	if (get_str(o, "ksrc", &b->ksrc) || get_str(o, "good", &b->good) || get_str(o, "bad", &b->bad) ||
	    get_str(o, "topology", &b->topo) || get_str(o, "scenario", &b->scenario) ||
	    get_str(o, "suite", &b->suite) || get_str(o, "metric_case", &b->metric_case) ||
	    get_str(o, "metric", &b->metric_name) || get_str(o, "message", &b->message) ||
	    get_strvec(o, "configs", &b->configs) || get_strvec(o, "patches", &b->patches) ||
	    get_str(o, "clock", &b->clock) ||
	    (b->clock && strcmp(b->clock, "wall") && strcmp(b->clock, "virtual")) ||
	    !b->ksrc || !b->topo || !b->metric_case || !b->metric_name || !b->scenario == !b->suite)
		return -1;
	*what = "alpha";
	if (json_get_num(o, "alpha", &b->alpha) != 0 || !(b->alpha > 0 && b->alpha < 0.5))
		return -1;
	*what = "max_runs";
	if (get_uint(o, "max_runs", 1000, &u) < 0 || u < 2)
		return -1;
	b->max_runs = (unsigned)u;
	if (get_uint(o, "min_runs", b->max_runs, &u) < 0 || u < 1)
		return -1;
	b->min_runs = (unsigned)u;
	if (!json_object_object_get_ex(o, "higher_better", &v) || !json_object_is_type(v, json_type_boolean))
		return -1;
	b->higher_better = json_object_get_boolean(v);
	/* absent from a bisect.json written before undirected rows were taken */
	if (json_object_object_get_ex(o, "no_direction", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return -1;
		b->no_direction = json_object_get_boolean(v);
	}
	*what = "numbers";
	if (get_num(o, "endpoint_p", &b->endpoint_p) || get_num(o, "endpoint_ratio", &b->endpoint_ratio) ||
	    get_num(o, "build_seconds", &b->build_seconds) || get_num(o, "wall_seconds", &b->wall_seconds) ||
	    get_uint(o, "builds", BISECT_MAX_COMMITS, &u))
		return -1;
	b->builds = (unsigned)u;
	if (!isfinite(b->build_seconds))
		b->build_seconds = 0;
	if (!isfinite(b->wall_seconds))
		b->wall_seconds = 0;
	*what = "commits";
	if (!json_object_object_get_ex(o, "commits", &a) || !json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) < 2 || n > BISECT_MAX_COMMITS)
		return -1;
	b->commits = xcalloc(n, sizeof(*b->commits));
	for (size_t i = 0; i < n; i++) {
		b->nr_commits = i + 1;
		if (parse_commit(json_object_array_get_idx(a, i), &b->commits[i]) < 0)
			return -1;
	}
	*what = "boots";
	if (!json_object_object_get_ex(o, "boots", &a) || !json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > BISECT_MAX_BOOTS)
		return -1;
	b->boots = xcalloc(n ? n : 1, sizeof(*b->boots));
	for (size_t i = 0; i < n; i++) {
		b->nr_boots = i + 1;
		if (parse_boot(json_object_array_get_idx(a, i), b->nr_commits, &b->boots[i]) < 0)
			return -1;
	}
	*what = "steps";
	if (!json_object_object_get_ex(o, "steps", &a) || !json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > b->nr_commits)
		return -1;
	b->steps = xcalloc(n ? n : 1, sizeof(*b->steps));
	for (size_t i = 0; i < n; i++) {
		if (parse_step(json_object_array_get_idx(a, i), b->nr_commits, &b->steps[i]) < 0)
			return -1;
		b->nr_steps = i + 1;
	}
	*what = "phase";
	phase = json_get_str(o, "phase");
	if (!phase)
		return -1;
	for (int p = BISECT_ENDPOINTS; p <= BISECT_STOPPED; p++)
		if (!strcmp(phase, bisect_phase_name(p)))
			b->phase = p;
	if (strcmp(phase, bisect_phase_name(b->phase)))
		return -1;
	if (b->phase == BISECT_DONE) {
		const char *fb = json_get_str(o, "first_bad");

		*what = "first_bad";
		for (n = 0; fb && n < b->nr_commits && strcmp(b->commits[n].sha, fb); n++)
			;
		if (!fb || n == b->nr_commits)
			return -1;
		b->first_bad = n;
	}
	return 0;
}

int bisect_parse(const char *text, size_t len, struct bisect *b, struct strbuf *err)
{
	struct json_object *o = json_read_object(text, len, 64u << 20, "bisect.json", err);
	const char *what = "";
	int ret;

	if (!o)
		return -1;
	ret = parse_object(o, b, &what);
	if (ret < 0)
		strbuf_addf(err, "bisect.json is damaged (its %s)", what);
	json_object_put(o);
	return ret;
}

int bisect_save(const struct bisect *b, const char *dir, struct strbuf *err)
{
	struct json_object *o = bisect_json(b);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_NOSLASHESCAPE);
	char *path = xasprintf("%s/bisect.json", dir);
	int r = write_file_atomic_err(path, s, strlen(s), err);

	free(path);
	json_object_put(o);
	return r;
}

int bisect_load(const char *dir, struct bisect *b, struct strbuf *err)
{
	char *path = xasprintf("%s/bisect.json", dir);
	size_t len;
	int missing = 0, r = -1;
	char *text = json_read_bounded(path, 64u << 20, &len, &missing, err);

	if (text)
		r = bisect_parse(text, len, b, err);
	else if (missing) {
		strbuf_reset(err);
		strbuf_addf(err, "'%s' has no bisect.json: not a lab bisect directory", dir);
	}
	free(text);
	free(path);
	return r;
}

/* ---- the choice ---- */

size_t bisect_values(const struct bisect *b, size_t c, unsigned step, double *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nr_boots && n < max; i++)
		if (b->boots[i].commit == c && (step == (unsigned)-1 || b->boots[i].step == step) &&
		    isfinite(b->boots[i].value))
			out[n++] = b->boots[i].value;
	return n;
}

size_t bisect_ref_values(const struct bisect *b, size_t c, double *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < b->nr_boots && n < max; i++)
		if (b->boots[i].commit == c && b->boots[i].step >= 1 && isfinite(b->boots[i].value))
			out[n++] = b->boots[i].value;
	return n;
}

size_t bisect_failed_in_a_row(const struct bisect *b, size_t c, unsigned step)
{
	size_t n = 0;

	for (size_t i = b->nr_boots; i-- > 0;) {
		if (b->boots[i].commit != c || b->boots[i].step != step)
			continue;
		if (isfinite(b->boots[i].value))
			break;
		n++;
	}
	return n;
}

int bisect_next(const struct bisect *b, size_t *next, size_t *lo, size_t *hi)
{
	size_t last = b->nr_commits - 1, nr = 0, pick = 0;

	*lo = 0;
	*hi = last;
	/* the bad commit closest to good, and the good commit closest to it */
	for (size_t i = 1; i < last; i++)
		if (b->commits[i].decision == SEQ_BAD && !b->commits[i].skipped) {
			*hi = i;
			break;
		}
	for (size_t i = *hi; i-- > 1; )
		if (b->commits[i].decision == SEQ_GOOD && !b->commits[i].skipped) {
			*lo = i;
			break;
		}
	for (size_t i = *lo + 1; i < *hi; i++)
		if (!b->commits[i].skipped && b->commits[i].decision == SEQ_UNDECIDED)
			nr++;
	if (!nr)
		return 0;
	/* the middle one of those left, by position in the range */
	for (size_t i = *lo + 1, k = 0; i < *hi; i++) {
		if (b->commits[i].skipped || b->commits[i].decision != SEQ_UNDECIDED)
			continue;
		if (k++ == nr / 2) {
			pick = i;
			break;
		}
	}
	*next = pick;
	return 1;
}

/* ---- the end ---- */

static void fmt_rel(struct strbuf *out, double x, int log_scale)
{
	if (!isfinite(x))
		strbuf_addstr(out, "-");
	else if (log_scale)
		strbuf_addf(out, "%+.1f%%", 100 * (x - 1));
	else
		strbuf_addf(out, "%+.4g", x);
}

static void fmt_p(struct strbuf *out, double p)
{
	if (!isfinite(p))
		strbuf_addstr(out, "-");
	else if (p < 1e-4)
		strbuf_addstr(out, "<0.0001");
	else
		strbuf_addf(out, "%.4f", p);
}

void bisect_text(const struct bisect *b, struct strbuf *out)
{
	strbuf_addf(out, "bisect: %s:%s on %s, %s '%s', alpha %.3g, at most %u boots a step\n",
		    b->metric_case, b->metric_name, b->topo, b->scenario ? "scenario" : "suite",
		    b->scenario ? b->scenario : b->suite, b->alpha, b->max_runs);
	strbuf_addf(out, "endpoints: bad/good ");
	fmt_rel(out, b->endpoint_ratio, 1);
	strbuf_addf(out, ", p ");
	fmt_p(out, b->endpoint_p);
	if (b->no_direction)
		strbuf_addf(out, " (%s has no better direction: bad is changed, good is not)\n",
			    b->metric_name);
	else
		strbuf_addf(out, " (%s is %s)\n", b->metric_name, b->higher_better ? "higher-is-better" :
			    "lower-is-better");
	strbuf_addf(out, "%-3s %-12s %4s %9s %9s %8s %8s %-9s %s\n", "#", "commit", "runs", "vs good",
		    "vs bad", "p(good)", "p(bad)", "decision", "subject");
	for (size_t i = 0; i < b->nr_steps; i++) {
		const struct bisect_step *s = &b->steps[i];
		const struct bisect_commit *c = &b->commits[s->commit];
		struct strbuf vg = STRBUF_INIT, vb = STRBUF_INIT, pg = STRBUF_INIT, pb = STRBUF_INIT;

		fmt_rel(&vg, s->res.vs_good, s->res.log_scale);
		fmt_rel(&vb, s->res.vs_bad, s->res.log_scale);
		fmt_p(&pg, s->res.p_good);
		fmt_p(&pb, s->res.p_bad);
		strbuf_addf(out, "%-3zu %-12.12s %4zu %9s %9s %8s %8s %-9s %.60s\n", i + 1, c->sha,
			    s->res.n, vg.buf, vb.buf, pg.buf, pb.buf,
			    c->skipped ? "skip" : seq_decision_name(s->res.decision),
			    c->subject ? c->subject : "");
		strbuf_release(&vg);
		strbuf_release(&vb);
		strbuf_release(&pg);
		strbuf_release(&pb);
	}
	for (size_t i = 0; i < b->nr_commits; i++)
		if (b->commits[i].skipped && b->commits[i].why && *b->commits[i].why)
			strbuf_addf(out, "skipped %.12s: %s\n", b->commits[i].sha, b->commits[i].why);
	if (b->phase == BISECT_DONE) {
		const struct bisect_commit *c = &b->commits[b->first_bad];

		strbuf_addf(out, "first bad commit: %s %s\n", c->sha, c->subject ? c->subject : "");
	}
	if (b->message && *b->message)
		strbuf_addf(out, "%s\n", b->message);
	strbuf_addf(out, "builds: %u (%.0f s), boots: %zu, wall time: %.0f s\n", b->builds,
		    b->build_seconds, b->nr_boots, b->wall_seconds);
}

void bisect_git_log(const struct bisect *b, struct strbuf *out)
{
	const struct bisect_commit *good = &b->commits[0], *bad = &b->commits[b->nr_commits - 1];

	strbuf_addf(out, "git bisect start\n");
	strbuf_addf(out, "# bad: [%s] %s\ngit bisect bad %s\n", bad->sha, bad->subject ? bad->subject : "",
		    bad->sha);
	strbuf_addf(out, "# good: [%s] %s\ngit bisect good %s\n", good->sha,
		    good->subject ? good->subject : "", good->sha);
	for (size_t i = 0; i < b->nr_steps; i++) {
		const struct bisect_commit *c = &b->commits[b->steps[i].commit];
		const char *word = c->skipped ? "skip" : b->steps[i].res.decision == SEQ_BAD ? "bad" : "good";

		strbuf_addf(out, "# %s: [%s] %s\ngit bisect %s %s\n", word, c->sha,
			    c->subject ? c->subject : "", word, c->sha);
	}
	/* commits skipped without a step (their build failed) */
	for (size_t i = 1; i + 1 < b->nr_commits; i++) {
		int stepped = 0;

		for (size_t k = 0; k < b->nr_steps; k++)
			stepped |= b->steps[k].commit == i;
		if (b->commits[i].skipped && !stepped)
			strbuf_addf(out, "# skip: [%s] %s\ngit bisect skip %s\n", b->commits[i].sha,
				    b->commits[i].subject ? b->commits[i].subject : "", b->commits[i].sha);
	}
	if (b->phase == BISECT_DONE)
		strbuf_addf(out, "# first bad commit: [%s] %s\n", b->commits[b->first_bad].sha,
			    b->commits[b->first_bad].subject ? b->commits[b->first_bad].subject : "");
}

void bisect_html(const struct bisect *b, const char *compare_text, struct strbuf *out)
{
	struct strbuf t = STRBUF_INIT, log = STRBUF_INIT;

	bisect_text(b, &t);
	bisect_git_log(b, &log);
	strbuf_addstr(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>lab bisect ");
	html_escape(out, b->metric_case);
	strbuf_addstr(out, ":");
	html_escape(out, b->metric_name);
	strbuf_addstr(out, "</title>\n<style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;"
		      "padding:1em}td,th{padding:2px 8px;text-align:right}td.l{text-align:left}"
		      ".good{color:#060}.bad{color:#a00}.skip{color:#888}</style></head><body>\n");
	strbuf_addstr(out, "<h1>lab bisect</h1>\n<p>");
	if (b->phase == BISECT_DONE) {
		strbuf_addstr(out, "First bad commit: <b>");
		html_escape(out, b->commits[b->first_bad].sha);
		strbuf_addstr(out, "</b> ");
		html_escape(out, b->commits[b->first_bad].subject ? b->commits[b->first_bad].subject : "");
	} else {
		strbuf_addstr(out, "No first bad commit: ");
		html_escape(out, b->message ? b->message : bisect_phase_name(b->phase));
	}
	strbuf_addstr(out, "</p>\n<table><tr><th>#</th><th>commit</th><th>runs</th><th>vs good</th>"
		      "<th>vs bad</th><th>p(good)</th><th>p(bad)</th><th>decision</th>"
		      "<th class=\"l\">subject</th></tr>\n");
	for (size_t i = 0; i < b->nr_steps; i++) {
		const struct bisect_step *s = &b->steps[i];
		const struct bisect_commit *c = &b->commits[s->commit];
		const char *d = c->skipped ? "skip" : seq_decision_name(s->res.decision);
		struct strbuf cell = STRBUF_INIT;

		strbuf_addf(out, "<tr><td>%zu</td><td class=\"l\"><code>%.12s</code></td><td>%zu</td><td>",
			    i + 1, c->sha, s->res.n);
		fmt_rel(&cell, s->res.vs_good, s->res.log_scale);
		strbuf_addstr(&cell, "</td><td>");
		fmt_rel(&cell, s->res.vs_bad, s->res.log_scale);
		strbuf_addstr(&cell, "</td><td>");
		fmt_p(&cell, s->res.p_good);
		strbuf_addstr(&cell, "</td><td>");
		fmt_p(&cell, s->res.p_bad);
		strbuf_addstr(out, cell.buf);
		strbuf_addf(out, "</td><td class=\"%s\">%s</td><td class=\"l\">", d, d);
		html_escape(out, c->subject ? c->subject : "");
		strbuf_addstr(out, "</td></tr>\n");
		strbuf_release(&cell);
	}
	strbuf_addstr(out, "</table>\n<h2>Summary</h2>\n<pre>");
	html_escape(out, t.buf);
	strbuf_addstr(out, "</pre>\n<h2>git bisect log</h2>\n<pre>");
	html_escape(out, log.buf);
	strbuf_addstr(out, "</pre>\n");
	if (compare_text && *compare_text) {
		strbuf_addstr(out, "<h2>First bad commit against its parent (lab compare)</h2>\n<pre>");
		html_escape(out, compare_text);
		strbuf_addstr(out, "</pre>\n");
	}
	strbuf_addstr(out, "</body></html>\n");
	strbuf_release(&t);
	strbuf_release(&log);
}
