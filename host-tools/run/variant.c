/* variant.c - the kinds of --variant (lab ab, lab matrix) in one table: how
 * each is checked before a boot, which lab run option boots it, and how its
 * column is named.  Adding a kind is one entry here. */
#define _GNU_SOURCE
#include "run/variant.h"
#include "run/schedfeat.h"
#include "run/schedknob.h"
#include "scx/scx.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT_KEY_MAX 64

struct variant_kind {
	const char *key;	/* before the '='; NULL: any knob of common/schedknob.c */
	const char *side;	/* its side in lab ab; NULL: the key, '_' as '-' */
	const char *run_opt;	/* the lab run option that boots it */
	int pass_key;		/* run_opt takes KEY=VALUE, not VALUE */
	int after_restore;	/* a warm run sets it after restoring the guest
				 * saved without it (debugfs, not the boot) */
	int (*parse)(const struct lab_variant *v, struct strbuf *err);
	int (*check_topo)(const struct lab_variant *v, const struct topo *t, const char *spec,
			  struct strbuf *err);
	/* -1 with err; else 1 when sure, 0 when only a boot can tell */
	int (*check_kernel)(const struct lab_variant *v, const struct kernel_paths *kp, struct strbuf *err);
	/* the column's suffix; NULL: the variant as given */
	const char *suffix;
	int suffix_is_value;	/* the suffix is the value (a feature list) */
	/* NULL, or what ab.json's side records besides "variant" */
	void (*json)(const struct lab_variant *v, struct json_object *side);
};

/* "--variant sched_feat": the option and the variant's key, for messages */
static const char *opt_key(const struct lab_variant *v, char buf[OPT_KEY_MAX])
{
	snprintf(buf, OPT_KEY_MAX, "%s %.*s", v->opt, (int)(v->value - 1 - v->text), v->text);
	return buf;
}

static int smt_parse(const struct lab_variant *v, struct strbuf *err)
{
	if (strcmp(v->value, "off")) {
		strbuf_addf(err, "%s smt= takes only 'off', not '%.40s'", v->opt, v->value);
		return -1;
	}
	return 0;
}

static int smt_check_topo(const struct lab_variant *v, const struct topo *t, const char *spec,
			  struct strbuf *err)
{
	if (t->threads >= 2)
		return 0;
	strbuf_addf(err, "%s %s needs a topology with SMT: '%s' has one thread per core", v->opt,
		    v->text, spec);
	return -1;
}

static void smt_json(const struct lab_variant *v, struct json_object *side)
{
	json_object_object_add(side, "smt", json_object_new_string("off"));
}

static int feat_parse(const struct lab_variant *v, struct strbuf *err)
{
	char opt[OPT_KEY_MAX];
	struct sched_feat_list *want = xmalloc(sizeof(*want));
	int ret = sched_feat_request(opt_key(v, opt), v->value, want, err);

	free(want);
	return ret;
}

static int feat_check_kernel(const struct lab_variant *v, const struct kernel_paths *kp,
			     struct strbuf *err)
{
	char opt[OPT_KEY_MAX];
	struct sched_feat_list *want = xmalloc(sizeof(*want)), *known = xmalloc(sizeof(*known));
	struct strbuf e = STRBUF_INIT;
	int ret = 0;

	if (sched_feat_request(opt_key(v, opt), v->value, want, err) < 0) {
		ret = -1;
	} else if (sched_feat_cache_load(kp, known) == 1) {
		ret = 1;
		if (sched_feat_check_known(want, known, kp->release, &e) < 0) {
			strbuf_addf(err, "%s sched_feat: %s", v->opt, e.buf);
			ret = -1;
		}
	}
	strbuf_release(&e);
	free(want);
	free(known);
	return ret;
}

static int preempt_parse(const struct lab_variant *v, struct strbuf *err)
{
	char opt[OPT_KEY_MAX];
	int mode;

	return sched_preempt_request(opt_key(v, opt), v->value, &mode, err);
}

static int preempt_check_kernel(const struct lab_variant *v, const struct kernel_paths *kp,
				struct strbuf *err)
{
	char opt[OPT_KEY_MAX];
	struct strbuf e = STRBUF_INIT;
	int mode, ret = 1;

	if (sched_preempt_request(opt_key(v, opt), v->value, &mode, err) < 0)
		return -1;
	if (sched_preempt_check_kernel(mode, kp, &e) < 0) {
		strbuf_addf(err, "%s %s: %s", v->opt, v->text, e.buf);
		ret = -1;
	}
	/* without a config the boot tells */
	if (ret > 0 && !*kp->config)
		ret = 0;
	strbuf_release(&e);
	return ret;
}

/* The variant as a --sched-knob list of one: 0, or -1 with err. */
static int knob_set(const struct lab_variant *v, struct sched_knob_set *want, struct strbuf *err)
{
	char opt[OPT_KEY_MAX];

	return sched_knob_request(opt_key(v, opt), v->text, want, err);
}

static int knob_parse(const struct lab_variant *v, struct strbuf *err)
{
	struct sched_knob_set want;

	return knob_set(v, &want, err);
}

static int knob_check_kernel(const struct lab_variant *v, const struct kernel_paths *kp,
			     struct strbuf *err)
{
	struct sched_knob_set want;
	struct strbuf e = STRBUF_INIT;
	int ret = 1;

	if (knob_set(v, &want, err) < 0)
		return -1;
	if (sched_knob_check_release(&want, kp->release, &e) < 0) {
		strbuf_addf(err, "%s %s: %s", v->opt, v->text, e.buf);
		ret = -1;
	}
	strbuf_release(&e);
	return ret;
}

/* ab.json has recorded a feature variant's list since before "variant" */
static void feat_json(const struct lab_variant *v, struct json_object *side)
{
	char opt[OPT_KEY_MAX];
	struct sched_feat_list *want = xmalloc(sizeof(*want));
	struct strbuf err = STRBUF_INIT;

	if (sched_feat_request(opt_key(v, opt), v->value, want, &err) == 0)
		json_object_object_add(side, "sched_feat", sched_feat_json(want));
	strbuf_release(&err);
	free(want);
}

/* scx=NAME (a scheduler of the registry, arguments after a space), a
 * path to a static one, or none: lab run --scx */
static int scx_parse(const struct lab_variant *v, struct strbuf *err)
{
	size_t n = strcspn(v->value, " \t");
	char name[48], names[256];

	if (strchr(v->value, '/'))
		return is_file(v->value) ? 0 : (strbuf_addf(err, "%s scx: '%.64s' is not a file",
							     v->opt, v->value), -1);
	if (!strcmp(v->value, "none"))
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), v->value);
	if (scx_sched_find(name))
		return 0;
	strbuf_addf(err, "%s scx: unknown sched_ext scheduler '%s' (%s; none; or a path)", v->opt,
		    name, scx_sched_names(names, sizeof(names)));
	return -1;
}

static int scx_check_kernel(const struct lab_variant *v, const struct kernel_paths *kp,
			    struct strbuf *err)
{
	if (!strcmp(v->value, "none"))
		return 1;
	if (!*kp->config)
		return 0;
	if (kernel_config_has(kp->config, "SCHED_CLASS_EXT") > 0)
		return 1;
	strbuf_addf(err, "%s %s: kernel %s has no sched_ext (CONFIG_SCHED_CLASS_EXT is not set)",
		    v->opt, v->text, kp->release);
	return -1;
}

static const struct variant_kind kinds[] = {
	{ .key = "scx", .side = "scx", .run_opt = "--scx", .parse = scx_parse,
	  .check_kernel = scx_check_kernel },
	{ .key = "smt", .side = "smt-off", .run_opt = "--smt", .parse = smt_parse,
	  .check_topo = smt_check_topo, .suffix = "smt-off", .json = smt_json },
	{ .key = "sched_feat", .side = "sched-feat", .run_opt = "--sched-feat", .parse = feat_parse,
	  .check_kernel = feat_check_kernel, .suffix_is_value = 1, .json = feat_json, .after_restore = 1 },
	{ .key = "preempt", .side = "preempt", .run_opt = "--preempt", .parse = preempt_parse,
	  .check_kernel = preempt_check_kernel },
	/* every knob of common/schedknob.c, by its name */
	{ .key = NULL, .run_opt = "--sched-knob", .pass_key = 1, .parse = knob_parse,
	  .check_kernel = knob_check_kernel, .after_restore = 1 },
};

int variant_after_restore(const struct lab_variant *v)
{
	return v->kind->after_restore;
}

const char *variant_known(void)
{
	static char known[256];
	size_t n;

	if (known[0])
		return known;
	n = (size_t)snprintf(known, sizeof(known), "smt=off, sched_feat=NO_X,Y, preempt=%s, "
			     "scx=NAME|none", SCHED_PREEMPT_CHOICES);
	for (size_t i = 0; i < nr_sched_knobs && n < sizeof(known); i++)
		n += (size_t)snprintf(known + n, sizeof(known) - n, ", %s=N", sched_knobs[i].name);
	return known;
}

int variant_parse(const char *text, struct lab_variant *v, struct strbuf *err)
{
	return variant_parse_as("--variant", text, v, err);
}

int variant_parse_as(const char *opt, const char *text, struct lab_variant *v, struct strbuf *err)
{
	const char *eq = strchr(text, '=');
	size_t klen = eq ? (size_t)(eq - text) : 0;

	memset(v, 0, sizeof(*v));
	v->opt = opt;
	if (strlen(text) >= sizeof(v->text)) {
		strbuf_addf(err, "%s '%.40s...' is longer than %d characters", opt, text,
			    VARIANT_TEXT_MAX - 1);
		return -1;
	}
	for (size_t i = 0; eq && i < sizeof(kinds) / sizeof(kinds[0]) && !v->kind; i++) {
		const struct variant_kind *k = &kinds[i];

		if (k->key ? strlen(k->key) == klen && !memcmp(k->key, text, klen)
			   : sched_knob_find(text, klen) != NULL)
			v->kind = k;
	}
	if (!v->kind) {
		strbuf_addf(err, "unknown %s '%.64s' (known: %s)", opt, text, variant_known());
		return -1;
	}
	snprintf(v->text, sizeof(v->text), "%s", text);
	v->value = v->text + klen + 1;
	if (v->kind->side) {
		snprintf(v->side, sizeof(v->side), "%s", v->kind->side);
	} else {
		snprintf(v->side, sizeof(v->side), "%.*s", (int)klen, text);
		for (char *p = v->side; *p; p++)
			if (*p == '_')
				*p = '-';
	}
	return v->kind->parse(v, err);
}

int variant_check_topo(const struct lab_variant *v, const struct topo *t, const char *spec,
		       struct strbuf *err)
{
	return v->kind->check_topo ? v->kind->check_topo(v, t, spec, err) : 0;
}

int variant_check_kernel(const struct lab_variant *v, const struct kernel_paths *kp, int *known,
			 struct strbuf *err)
{
	int r = v->kind->check_kernel ? v->kind->check_kernel(v, kp, err) : 1;

	if (known)
		*known = r > 0;
	return r < 0 ? -1 : 0;
}

int variant_check_lava(const struct lab_variant *v, struct strbuf *err)
{
	/* a sched_ext scheduler goes into the initrd lab run builds for it */
	if (!strcmp(v->kind->run_opt, "--scx")) {
		strbuf_addf(err, "%s %s: a LAVA job boots the lab's plain initrd, without a "
			    "sched_ext scheduler", v->opt, v->text);
		return -1;
	}
	return 0;
}

void variant_run_args(const struct lab_variant *v, struct strvec *args)
{
	strvec_pushl(args, v->kind->run_opt, v->kind->pass_key ? v->text : v->value, NULL);
}

char *variant_label(const struct lab_variant *v, const char *base)
{
	const char *suffix = v->kind->suffix ? v->kind->suffix : v->kind->suffix_is_value ? v->value : v->text;
	size_t n = strlen(suffix);

	/* a long list names the side instead: the label stays readable */
	if (n > 48) {
		suffix = v->side;
		n = strlen(suffix);
	}
	return xasprintf("%.*s-%s", (int)(63 - n), base, suffix);
}

void variant_json(const struct lab_variant *v, struct json_object *side)
{
	json_object_object_add(side, "variant", json_object_new_string(v->text));
	if (v->kind->json)
		v->kind->json(v, side);
}
