/* variant.h - a boot variant for lab ab and lab matrix (--variant KEY=VALUE):
 * one table of kinds, each checked before any boot and turned into lab run
 * options, a column label and a side name. */
#ifndef LAB_RUN_VARIANT_H
#define LAB_RUN_VARIANT_H

#include "kernel/kernel.h"
#include "topo/topo.h"
#include "lib/util.h"

struct json_object;
struct variant_kind;

#define VARIANT_TEXT_MAX 256

/* A parsed variant: plain data, nothing to free. */
struct lab_variant {
	const struct variant_kind *kind;
	const char *opt;		/* the option it came with, for messages: "--variant" */
	char text[VARIANT_TEXT_MAX];	/* "base_slice_ns=3000000", as given */
	const char *value;		/* into text: after the first '=' */
	char side[32];			/* lab ab's side and boot directories: "base-slice-ns" */
};

/* "smt=off, sched_feat=NO_X,Y, base_slice_ns=N, preempt=none|voluntary|full|lazy" */
const char *variant_known(void);

/* Its kind and its value's syntax: 0, or -1 with one line in err. */
int variant_parse(const char *text, struct lab_variant *v, struct strbuf *err);

/* The same for a variant given with another option (lab ab's
 * "--test-variant"), which every message about it names; opt must live
 * as long as v. */
int variant_parse_as(const char *opt, const char *text, struct lab_variant *v, struct strbuf *err);

/* Whether the variant can run on topology t, given as spec (smt=off
 * needs SMT): 0, or -1 with one line in err. */
int variant_check_topo(const struct lab_variant *v, const struct topo *t, const char *spec,
		       struct strbuf *err);

/*
 * Whether kernel kp has what the variant changes, as far as the lab can
 * tell before booting it (a knob by its release, a preemption mode by its
 * config, features by the list an earlier boot cached): 0, or -1 with one
 * line in err.  *known, when not NULL, is 1 when the answer was certain
 * and 0 when only a boot can tell (features without a cached list).
 */
int variant_check_kernel(const struct lab_variant *v, const struct kernel_paths *kp, int *known,
			 struct strbuf *err);

/* Whether a LAVA job can boot it (lab lava run takes the options of
 * variant_run_args()): 0, or -1 with one line in err. */
int variant_check_lava(const struct lab_variant *v, struct strbuf *err);

/* 1 when a warm run sets it after restoring the guest saved without it
 * (sched_feat, the knobs: debugfs writes), so that both sides of an ab
 * restore one saved guest; 0 when it changes the boot (smt, preempt,
 * scx). */
int variant_after_restore(const struct lab_variant *v);

/* The `lab run` options that boot it (lab lava run takes them too). */
void variant_run_args(const struct lab_variant *v, struct strvec *args);

/* The column title: "<base>-<what it sets>", at most 64 characters
 * ("tip-NO_WA_IDLE", "tip-smt-off", "tip-base_slice_ns=3000000"); malloc'ed. */
char *variant_label(const struct lab_variant *v, const char *base);

/* Records it in a side of ab.json: "variant", and what its kind adds. */
void variant_json(const struct lab_variant *v, struct json_object *side);

#endif
