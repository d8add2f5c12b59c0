/* schedknob.c - lab run --sched-knob and --preempt on the host: the release and
 * the config say before boot whether the kernel has them, the guest's snapshot
 * says after it whether they are in effect (recorded in sched-knobs.json). */
#define _GNU_SOURCE
#include "run/schedknob.h"
#include "run/labrun.h"
#include "run/schedfeat.h"
#include "common/kversion.h"
#include "common/wire.h"
#include "kernel/kconfig.h"
#include "results/results.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sched_knob_request(const char *opt, const char *arg, struct sched_knob_set *want,
		       struct strbuf *err)
{
	char why[256];

	if (sched_knob_parse(arg, strlen(arg), want, why, sizeof(why)) < 0) {
		strbuf_addf(err, "%s: %s", opt, why);
		return -1;
	}
	return 0;
}

int sched_knob_check_release(const struct sched_knob_set *want, const char *release,
			     struct strbuf *err)
{
	for (unsigned i = 0; i < want->nr; i++) {
		const struct sched_knob *k = want->v[i].knob;

		if (kversion_at_least(release, k->since) != 0)
			continue;
		strbuf_addf(err, "kernel %s has no %s: it came with Linux %s", release, k->name, k->since);
		if (k->before)
			strbuf_addf(err, " (before it: %s)", k->before);
		return -1;
	}
	return 0;
}

int sched_preempt_request(const char *opt, const char *arg, int *mode, struct strbuf *err)
{
	*mode = sched_preempt_find(arg, strlen(arg));
	if (*mode < 0) {
		strbuf_addf(err, "%s must be one of %s, not '%.40s'", opt, SCHED_PREEMPT_CHOICES, arg);
		return -1;
	}
	return 0;
}

/* Whether the .config text has a line for CONFIG_<name>, set or "is not
 * set": Kconfig writes nothing for a symbol this kernel cannot select. */
static int config_mentions(const char *dotconfig, const char *name)
{
	struct strbuf v = STRBUF_INIT;
	char *set = xasprintf("CONFIG_%s=", name), *unset = xasprintf("# CONFIG_%s is not set", name);
	int found = kconfig_value(dotconfig, name, &v) == 1;

	for (const char *line = dotconfig; !found && line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		found = (len == strlen(unset) && !strncmp(line, unset, len)) ||
			!strncmp(line, set, strlen(set));
		line = nl ? nl + 1 : NULL;
	}
	free(set);
	free(unset);
	strbuf_release(&v);
	return found;
}

static int config_is_y(const char *dotconfig, const char *name)
{
	struct strbuf v = STRBUF_INIT;
	int y = kconfig_value(dotconfig, name, &v) == 1 && !strcmp(v.buf, "y");

	strbuf_release(&v);
	return y;
}

int sched_preempt_check_config(int mode, const char *dotconfig, const char *release,
			       struct strbuf *err)
{
	static const char *const choice[SCHED_PREEMPT_NR] = { "PREEMPT_NONE", "PREEMPT_VOLUNTARY", NULL, NULL };

	if (!config_is_y(dotconfig, "PREEMPT_DYNAMIC")) {
		strbuf_addf(err, "kernel %s has no CONFIG_PREEMPT_DYNAMIC: its preemption mode is fixed "
			    "at build time, preempt=%s cannot change it", release, sched_preempt_name(mode));
		return -1;
	}
	if (mode == SCHED_PREEMPT_LAZY && !config_is_y(dotconfig, "PREEMPT_LAZY")) {
		strbuf_addf(err, "kernel %s has no CONFIG_PREEMPT_LAZY: preempt=lazy needs it (Linux 6.13+, "
			    "and an arch that has it)", release);
		return -1;
	}
	if (choice[mode] && !config_mentions(dotconfig, choice[mode])) {
		strbuf_addf(err, "kernel %s does not offer preempt=%s: its config has no CONFIG_%s "
			    "(a kernel with lazy preemption may offer only full and lazy)", release,
			    sched_preempt_name(mode), choice[mode]);
		return -1;
	}
	return 0;
}

int sched_preempt_check_kernel(int mode, const struct kernel_paths *kp, struct strbuf *err)
{
	char *text;
	int ret;

	if (!*kp->config || !(text = read_file(kp->config, NULL)))
		return 0;
	ret = sched_preempt_check_config(mode, text, kp->release, err);
	free(text);
	return ret;
}

int sched_knob_from_snapshot(const char *text, size_t len, struct sched_knob_state *st,
			     struct strbuf *err)
{
	static const char pkey[] = SCHED_PREEMPT_PATH "=";
	size_t pos = 0;

	memset(st, 0, sizeof(*st));
	st->preempt_active = -1;
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *eq;
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		char why[128];

		pos += n + 1;
		if (n >= sizeof(pkey) - 1 && !memcmp(line, pkey, sizeof(pkey) - 1)) {
			unsigned offered;
			int active;

			if (sched_preempt_parse(line + sizeof(pkey) - 1, n - (sizeof(pkey) - 1), &offered,
						&active, why, sizeof(why)) < 0) {
				strbuf_addf(err, "the guest's %s: %s", SCHED_PREEMPT_PATH, why);
				return -1;
			}
			st->preempt_found = 1;
			st->preempt_offered = offered;
			st->preempt_active = active;
			continue;
		}
		if (n <= sizeof(SCHED_KNOB_DIR) || memcmp(line, SCHED_KNOB_DIR "/", sizeof(SCHED_KNOB_DIR)) ||
		    !(eq = memchr(line, '=', n)))
			continue;
		for (size_t i = 0; i < nr_sched_knobs && i < SCHED_KNOB_TABLE_MAX; i++) {
			const char *name = line + sizeof(SCHED_KNOB_DIR);

			if ((size_t)(eq - name) != strlen(sched_knobs[i].name) ||
			    memcmp(name, sched_knobs[i].name, (size_t)(eq - name)))
				continue;
			if (sched_knob_number(eq + 1, n - (size_t)(eq + 1 - line), &st->value[i]) < 0) {
				strbuf_addf(err, "the guest's %s/%s is not a number", SCHED_KNOB_DIR,
					    sched_knobs[i].name);
				return -1;
			}
			st->have |= 1u << i;
		}
	}
	return 0;
}

struct json_object *sched_knob_json(const struct sched_knob_set *s)
{
	struct json_object *o = json_object_new_object();

	for (unsigned i = 0; i < s->nr; i++)
		json_object_object_add(o, s->v[i].knob->name, json_object_new_int64((int64_t)s->v[i].value));
	return o;
}

/* A key the lab sets itself must not come through --append unchecked. */
static int append_has(const char *append, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = append; p && (p = strstr(p, key)); p += n)
		if (p == append || p[-1] == ' ')
			return 1;
	return 0;
}

int lab_run_sched_knob_resolve(struct lab_run *r, struct strbuf *err)
{
	char list[SCHED_KNOB_WANT_MAX * (SCHED_KNOB_NAME_MAX + 24) + 1];

	if (append_has(r->append, SCHED_KNOB_CMDLINE_KEY)) {
		strbuf_addstr(err, "--append: set scheduler knobs with --sched-knob, which checks and "
			      "records them");
		return -1;
	}
	if (append_has(r->append, "preempt=")) {
		strbuf_addstr(err, "--append: choose the preemption mode with --preempt, which checks and "
			      "records it");
		return -1;
	}
	if (r->knobs.nr && sched_knob_check_release(&r->knobs, r->kp.release, err) < 0)
		return -1;
	if (r->preempt_mode >= 0 && sched_preempt_check_kernel(r->preempt_mode, &r->kp, err) < 0)
		return -1;
	if (r->knobs.nr) {
		sched_knob_join(&r->knobs, ',', list, sizeof(list));
		/* after the restore, as lab_run_sched_feat_resolve() */
		if (r->warm)
			strbuf_addf(&r->warm_set, WIRE_PLAN_SCHED_KNOB "=%s\n", list);
		else
			strbuf_addf(&r->cmdline, " %s%s", SCHED_KNOB_CMDLINE_KEY, list);
	}
	if (r->preempt_mode >= 0)
		strbuf_addf(&r->cmdline, " preempt=%s", sched_preempt_name(r->preempt_mode));
	return 0;
}

static void modes(struct strbuf *sb, unsigned offered)
{
	const char *sep = "";

	for (int m = 0; m < SCHED_PREEMPT_NR; m++)
		if (offered & (1u << m)) {
			strbuf_addf(sb, "%s%s", sep, sched_preempt_name(m));
			sep = " ";
		}
}

static void write_report(const char *dir, const struct sched_knob_set *knobs, int preempt_mode,
			 const struct sched_knob_state *st)
{
	struct json_object *o = json_object_new_object(), *req = sched_knob_json(knobs),
			   *k = json_object_new_object();

	if (preempt_mode >= 0)
		json_object_object_add(req, "preempt", json_object_new_string(sched_preempt_name(preempt_mode)));
	json_object_object_add(o, "requested", req);
	for (size_t i = 0; i < nr_sched_knobs && i < SCHED_KNOB_TABLE_MAX; i++)
		if (st->have & (1u << i))
			json_object_object_add(k, sched_knobs[i].name, json_object_new_int64((int64_t)st->value[i]));
	json_object_object_add(o, "knobs", k);
	if (st->preempt_found) {
		struct json_object *p = json_object_new_object(), *a = json_object_new_array();

		json_object_object_add(p, "active", json_object_new_string(sched_preempt_name(st->preempt_active)));
		for (int m = 0; m < SCHED_PREEMPT_NR; m++)
			if (st->preempt_offered & (1u << m))
				json_object_array_add(a, json_object_new_string(sched_preempt_name(m)));
		json_object_object_add(p, "offered", a);
		json_object_object_add(o, "preempt", p);
	} else {
		json_object_object_add(o, "preempt", NULL);
	}
	results_write_json(dir, "sched-knobs.json", o);
	json_object_put(o);
}

/* What the kernel lacks (bad input: -1 in err) or did not take (why). */
static int judge(const struct sched_knob_set *knobs, int preempt_mode, const char *release,
		 const struct sched_knob_state *st, struct strbuf *err, struct strbuf *why)
{
	for (unsigned i = 0; i < knobs->nr; i++) {
		const struct sched_knob *k = knobs->v[i].knob;
		size_t t = (size_t)(k - sched_knobs);

		if (t >= SCHED_KNOB_TABLE_MAX || !(st->have & (1u << t))) {
			strbuf_addf(err, "kernel %s has no %s/%s (Linux %s or later, with debugfs; "
				    "CONFIG_SCHED_DEBUG on older ones): --sched-knob cannot apply",
				    release, SCHED_KNOB_DIR, k->name, k->since);
			return -1;
		}
		if (!why->len && st->value[t] != knobs->v[i].value)
			strbuf_addf(why, "%s=%llu not in effect: the guest reads %llu", k->name,
				    (unsigned long long)knobs->v[i].value, (unsigned long long)st->value[t]);
	}
	if (preempt_mode < 0)
		return 0;
	if (!st->preempt_found) {
		strbuf_addf(err, "kernel %s has no %s: preempt=%s needs CONFIG_PREEMPT_DYNAMIC (and debugfs)",
			    release, SCHED_PREEMPT_PATH, sched_preempt_name(preempt_mode));
		return -1;
	}
	if (!(st->preempt_offered & (1u << preempt_mode))) {
		strbuf_addf(err, "kernel %s does not offer preempt=%s (it offers: ", release,
			    sched_preempt_name(preempt_mode));
		modes(err, st->preempt_offered);
		strbuf_addch(err, ')');
		return -1;
	}
	if (!why->len && st->preempt_active != preempt_mode)
		strbuf_addf(why, "preempt=%s not in effect: the guest runs %s", sched_preempt_name(preempt_mode),
			    sched_preempt_name(st->preempt_active));
	return 0;
}

int sched_knob_report(const char *dir, const struct sched_knob_set *knobs, int preempt_mode,
		      const char *sysfs, size_t len, const char *release, struct strbuf *why,
		      struct strbuf *err)
{
	struct sched_knob_state st;

	if (sched_knob_from_snapshot(sysfs, len, &st, why) < 0)
		return 0;
	if (st.have || st.preempt_found)
		write_report(dir, knobs, preempt_mode, &st);
	return judge(knobs, preempt_mode, release, &st, err, why);
}

int lab_run_sched_knob_check(struct lab_run *r, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret;

	/* no snapshot: the guest never got that far, and the verdict says why */
	if (!r->s.sysfs.len)
		return 0;
	ret = sched_knob_report(r->dir.buf, &r->knobs, r->preempt_mode, r->s.sysfs.buf, r->s.sysfs.len,
				r->kp.release, &why, err);
	if (ret < 0) {
		/* bad input found by the boot: no run to keep, nothing half-written */
		lab_run_discard(r->dir.buf);
	} else if (why.len && (r->knobs.nr || r->preempt_mode >= 0) && r->verdict == VERDICT_PASS) {
		r->verdict = VERDICT_FAIL;
		snprintf(r->reason, sizeof(r->reason), "%.500s", why.buf);
	}
	strbuf_release(&why);
	return ret;
}
