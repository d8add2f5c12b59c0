/* compile.c - scenario files and suites compiled into the runner's plan
 * text, which is parsed back before anyone gets it. */
#include "scenario/scenario.h"
#include "kernel/initrd.h"
#include "lib/child.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int plan_compile_paths(const char *const *paths, size_t nr, struct plan *p, struct strbuf *err)
{
	struct scenario s;
	struct { char name[128]; char *where; } *seen = xcalloc(nr ? nr : 1, sizeof(*seen));
	int ret = -1;
	size_t i;

	scenario_init(&s);
	for (i = 0; i < nr; i++) {
		if (scenario_load(paths[i], &s, err) < 0)
			goto out;
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(seen[j].name, s.name)) {
				strbuf_reset(err);
				strbuf_addf(err, "%s:%u: scenario name '%s' is already used by %s",
					    s.shown, s.line, s.name, seen[j].where);
				goto out;
			}
		}
		strcpy(seen[i].name, s.name);
		seen[i].where = xasprintf("%s:%u", s.shown, s.line);
		if (scenario_expand(&s, p, err) < 0)
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < nr; i++)
		free(seen[i].where);
	free(seen);
	scenario_release(&s);
	return ret;
}

static void emit_strbuf(void *ctx, const char *s, size_t len)
{
	strbuf_add(ctx, s, len);
}

int plan_to_text(const struct plan *p, struct strbuf *out, struct strbuf *err)
{
	char why[512];

	plan_write_header(emit_strbuf, out);
	for (unsigned i = 0; i < p->nr_cases; i++) {
		if (plan_write_case(&p->cases[i], emit_strbuf, out, why, sizeof(why)) < 0) {
			strbuf_reset(err);
			strbuf_addf(err, "cannot write the plan: %s", why);
			return -1;
		}
	}
	return 0;
}

int plan_text_map(struct strbuf *plan_text, void (*fn)(struct plan_case *c, const void *ctx),
		  const void *ctx, struct strbuf *err)
{
	struct plan p = { 0 };
	struct strbuf text = STRBUF_INIT;
	char why[512];
	int ret = -1;

	if (plan_parse(plan_text->buf, plan_text->len, &p, why, sizeof(why)) < 0) {
		strbuf_addf(err, "compiled plan: %s", why);
		goto out;
	}
	for (unsigned i = 0; i < p.nr_cases; i++)
		fn(&p.cases[i], ctx);
	if (plan_to_text(&p, &text, err) < 0)
		goto out;
	strbuf_reset(plan_text);
	strbuf_add(plan_text, text.buf, text.len);
	ret = 0;
out:
	plan_release(&p);
	strbuf_release(&text);
	return ret;
}

static void add_counters(struct plan_case *c, const void *bits)
{
	c->counters |= *(const unsigned *)bits;
}

int plan_text_add_counters(struct strbuf *plan_text, unsigned bits, struct strbuf *err)
{
	return plan_text_map(plan_text, add_counters, &bits, err);
}

/* --param [SCENARIO:]KEY=VALUE, split, and what applying it found */
struct param_set {
	char scenario[128], key[64];
	const char *value;
	unsigned *matched, *full;
};

static void set_param(struct plan_case *c, const void *ctx)
{
	const struct param_set *ps = ctx;
	unsigned i;

	if (*ps->scenario && strcmp(ps->scenario, c->scenario))
		return;
	for (i = 0; i < c->nr_params && strcmp(c->params[i].key, ps->key); i++)
		;
	if (i == c->nr_params) {
		if (c->nr_params == PLAN_MAX_PARAMS) {
			(*ps->full)++;
			return;
		}
		c->nr_params++;
		snprintf(c->params[i].key, sizeof(c->params[i].key), "%s", ps->key);
	}
	snprintf(c->params[i].value, sizeof(c->params[i].value), "%s", ps->value);
	snprintf(c->params[i].where, sizeof(c->params[i].where), "--param %s", ps->key);
	(*ps->matched)++;
}

int plan_text_set_param(struct strbuf *plan_text, const char *spec, struct strbuf *err)
{
	const char *eq = strchr(spec, '='), *colon = strchr(spec, ':');
	unsigned matched = 0, full = 0;
	struct param_set ps = { .matched = &matched, .full = &full };
	size_t klen;

	if (colon && eq && colon > eq)
		colon = NULL;	/* a ':' in the value */
	if (colon && (size_t)(colon - spec) >= sizeof(ps.scenario))
		colon = NULL;	/* refused below as a key */
	if (colon)
		snprintf(ps.scenario, sizeof(ps.scenario), "%.*s", (int)(colon - spec), spec);
	klen = eq ? (size_t)(eq - (colon ? colon + 1 : spec)) : 0;
	if (!eq || !klen || klen >= sizeof(ps.key) || (colon && colon == spec) || !eq[1] ||
	    strlen(eq + 1) >= PLAN_MAX_FIELD || strpbrk(spec, "\t\n")) {
		strbuf_addf(err, "--param '%.80s': give [SCENARIO:]KEY=VALUE, such as "
			    "decide-hackbench:work=2000", spec);
		return -1;
	}
	snprintf(ps.key, sizeof(ps.key), "%.*s", (int)klen, colon ? colon + 1 : spec);
	ps.value = eq + 1;
	if (plan_text_map(plan_text, set_param, &ps, err) < 0)
		return -1;
	if (full) {
		strbuf_addf(err, "--param '%.80s': a case already has %d parameters", spec, PLAN_MAX_PARAMS);
		return -1;
	}
	if (!matched) {
		strbuf_addf(err, "--param '%.80s': the plan has no case of scenario '%s'", spec, ps.scenario);
		return -1;
	}
	return 0;
}

static int compile(const char *const *paths, size_t nr, struct strbuf *plan_text,
		   struct strbuf *err)
{
	struct plan p = { 0 }, again = { 0 };
	struct strbuf text = STRBUF_INIT;
	char why[512];
	int ret = -1;

	if (plan_compile_paths(paths, nr, &p, err) < 0 || plan_to_text(&p, &text, err) < 0)
		goto out;
	/* what the runner will read, read here first */
	if (plan_parse(text.buf, text.len, &again, why, sizeof(why)) < 0) {
		strbuf_reset(err);
		strbuf_addf(err, "compiled plan does not parse back: %s", why);
		goto out;
	}
	strbuf_add(plan_text, text.buf, text.len);
	ret = 0;
out:
	plan_release(&again);
	plan_release(&p);
	strbuf_release(&text);
	return ret;
}

int plan_compile_suite(const char *suite, struct strbuf *plan_text, struct strbuf *err)
{
	struct strvec paths = STRVEC_INIT;
	int ret = suite_load(suite, &paths, err);

	if (!ret)
		ret = compile(paths.v, paths.nr, plan_text, err);
	strvec_clear(&paths);
	return ret;
}

int plan_compile_file(const char *path, struct strbuf *plan_text, struct strbuf *err)
{
	return compile(&path, 1, plan_text, err);
}

int plan_check_on_runner(const char *runner, const char *text, size_t len, const char *release,
			 struct strbuf *err)
{
	char found[PATH_MAX];
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	const char *argv[6];
	char *path;
	int rc;

	if (!runner) {
		if (initrd_find_runner(found, err) < 0)
			return -1;
		runner = found;
	}
	path = temp_file_write("plan", text, len, err);
	if (!path)
		return -1;
	argv[0] = runner;
	argv[1] = "--check-plan";
	argv[2] = path;
	argv[3] = release ? "--kernel" : NULL;
	argv[4] = release;
	argv[5] = NULL;
	rc = run_command_capture(argv, 30000, &out, &errout);
	if (rc != 0) {
		errout.buf[strcspn(errout.buf, "\n")] = '\0';
		strbuf_addstr(err, errout.buf[0] ? errout.buf : "the runner rejected the plan");
	}
	unlink(path);
	free(path);
	strbuf_release(&out);
	strbuf_release(&errout);
	return rc == 0 ? 0 : -1;
}
