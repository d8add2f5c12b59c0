/* cmd-ab.c - `lab ab`: boot a base and a test kernel in ABBA order, run a
 * suite at every boot, pool each side's boots and compare them. */
#define _GNU_SOURCE
#include "report/abdecide.h"
#include "report/compare.h"
#include "scenario/scenario.h"
#include "lib/json.h"
#include "kernel/kernel.h"
#include "cmd/lab.h"
#include "run/jobs.h"
#include "run/labrun.h"
#include "run/lavajob.h"
#include "run/matrix.h"
#include "run/schedfeat.h"
#include "run/variant.h"
#include "cmd/options.h"
#include "lib/progress.h"
#include "results/results.h"
#include "topo/topo.h"

#include <json-c/json.h>
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static const char ab_usage[] =
	"lab ab --topo SPEC --base KERNEL_A --test KERNEL_B --suite NAME [--arch A] [--rounds N] "
	"[--variant smt=off|sched_feat=NO_X,Y|preempt=MODE|base_slice_ns=N|scx=NAME] [--test-variant KEY=VALUE] [--label-base X] [--label-test Y] [--results DIR] [--clock wall|virtual] [--warm|--cold] [--trace] "
	"[--until-decided [--budget 30m] [--max-rounds N] [--effect 2%]] [--expect 'CASE:METRIC OP N%' ...] [--junit FILE]; "
	"or lab ab --dir DIR [--junit FILE] (resumes a stopped ab)";

/* --help's last words: one line of usage in errors, these only in help */
static const char ab_exit_codes[] =
	"exit codes: 0 every expectation holds (without --expect: nothing regressed, every row decided),\n"
	"1 an expectation is violated, a row regressed or a boot failed, 2 bad input,\n"
	"3 the budget (or --max-rounds) ended with an expectation (without --expect: a row) undecided";

#define AB_MAX_SIDES 3
#define AB_MAX_ROUNDS 50
#define AB_DEFAULT_MAX_ROUNDS 20
#define AB_DEFAULT_BUDGET_S 1800
#define AB_ALPHA 0.05
#define AB_POLL_MS 200

static const char *const side_names[2] = { "base", "test" };

struct ab_side {
	char *kernel;		/* as given */
	char *label;
	char release[KERNEL_VERSION_MAX];
	char *files;		/* the files it boots ("bzImage\nvmlinux"), once
				 * resolved: what a warm start's key hashes */
};

enum ab_boot_state { AB_PENDING, AB_RUNNING, AB_DONE };

/* One boot of the sequence and what came of it. */
struct ab_boot {
	unsigned side, round;
	enum ab_boot_state state;
	char *run;		/* run directory, NULL when lab run made none */
	char verdict[16];
	double seconds;
	int status;
	unsigned seed;		/* lab run --seed, 0: none */
	struct lab_child_run j;	/* while it runs */
	char *root, *log;
};

struct ab {
	const char *topo, *suite;
	const char *backend, *uri;	/* passed to every lab run */
	const char *lava, *lava_token_file;	/* --lava: every boot a LAVA job (lab lava run) */
	const char *lava_device_type;	/* --device-type with --lava; NULL: qemu */
	/* --lava-artifacts and --lava-publish: the jobs' files over http */
	const char *lava_artifacts, *lava_publish;
	int warm;			/* lab run --warm: restored guests (docs/warm-start.md) */
	int trace;			/* lab run --trace: decision rows in every boot */
	unsigned rounds, nr_sides;
	struct ab_side sides[AB_MAX_SIDES];
	struct ab_boot *boots;
	size_t nr_boots;		/* started, or (fixed rounds) planned */
	size_t planned;			/* the boots of every round that may run */
	/* --until-decided and --expect (docs/comparing.md) */
	int until;
	unsigned budget_s, max_rounds;
	double effect;
	struct strvec expect_texts;	/* as given on the command line */
	struct strvec test_params;	/* --test-param: lab run --param for the test side */
	unsigned seed;			/* cold virtual boots: boot i gets seed + i - 1 */
	const char *clock;		/* "wall" or "virtual", as every boot ran */
	char *start_note;		/* why warm or cold, for the header */
	double spent_s;			/* boots' seconds so far, every session */
	double wall_s;			/* wall time of the boots, earlier sessions */
	uint64_t t0_ns;			/* this session's first boot */
	struct jobs_plan jobs;		/* guests at a time (--jobs) */
	unsigned running;
	unsigned deadline_s;
	struct strbuf dir;
	struct lab_variant variant;	/* --variant: the third side, the base kernel booted so */
	const char *test_variant_text;	/* --test-variant: the test side boots with it */
	struct lab_variant test_variant;
	int variant_checked;		/* against the base kernel, for sure (variant_check_kernel) */
};

/* The third side is named after its variant. */
static const char *side_name(const struct ab *ab, unsigned side)
{
	return side == 2 ? ab->variant.side : side_names[side];
}

/*
 * What the lab could not tell about the variant before the first boot
 * (features without a cached list), the base kernel's first boot told:
 * a variant the kernel cannot run stops the ab there, before the
 * variant's boots, as bad input (the directory goes, exit 2).
 */
static void recheck_variant(struct ab *ab, struct progress *pr)
{
	struct strbuf err = STRBUF_INIT;
	struct kernel_paths kp;

	if (ab->variant_checked || kernel_resolve(ab->sides[0].kernel, &kp, &err) < 0) {
		strbuf_release(&err);
		return;
	}
	if (variant_check_kernel(&ab->variant, &kp, &ab->variant_checked, &err) < 0) {
		progress_break(pr);
		lab_run_discard(ab->dir.buf);
		die(LAB_EXIT_USAGE, "%s", err.buf);
	}
	strbuf_release(&err);
}

static void check_label(const char *opt, const char *s)
{
	if (!*s || strlen(s) > 64)
		die(LAB_EXIT_USAGE, "--%s must have 1 to 64 characters", opt);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '+')
			die(LAB_EXIT_USAGE, "--%s '%s' has a blank, a control character or a '+'", opt, s);
}

/* --test-variant against the topology, LAVA and the test kernel: 0, or
 * -1 with the reason in err.  One the kernel's first boot must confirm
 * (features without a cached list) is taken: its boot refuses it. */
static int test_variant_check(struct ab *ab, const struct topo *t, const struct kernel_paths *kp,
			      struct strbuf *err)
{
	int sure;

	if (variant_parse_as("--test-variant", ab->test_variant_text, &ab->test_variant, err) < 0 ||
	    variant_check_topo(&ab->test_variant, t, ab->topo, err) < 0 ||
	    (ab->lava && variant_check_lava(&ab->test_variant, err) < 0))
		return -1;
	return variant_check_kernel(&ab->test_variant, kp, &sure, err);
}

/*
 * Whether both sides' warm restores start from one saved guest: one kernel
 * (the same files, however named), booted alike (no --test-variant, or one
 * the test side sets after its restore: features, knobs; the same for a
 * third side's --variant); --test-param changes only the plan.  Two saved
 * guests differ by more than the change under test (docs/comparing.md),
 * which a warm ab would take for part of it.
 */
static int sides_share_guest(const struct ab *ab)
{
	return (!ab->test_variant_text || variant_after_restore(&ab->test_variant)) &&
	       (ab->nr_sides < 3 || variant_after_restore(&ab->variant)) &&
	       ab->sides[0].files && ab->sides[1].files && !strcmp(ab->sides[0].files, ab->sides[1].files);
}

/* Everything is checked before the first boot: bad input costs no guest. */
static void ab_validate(struct ab *ab, const char *variant, const char *lbase, const char *ltest)
{
	struct strbuf err = STRBUF_INIT;
	struct kernel_paths kp;
	struct topo t;

	if (lab_run_deadline_s(ab->topo, ab->suite, &ab->deadline_s, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (topo_parse(ab->topo, &t, &err) < 0)
		die(LAB_EXIT_USAGE, "bad topology '%s': %s", ab->topo, err.buf);
	if (variant && (variant_parse(variant, &ab->variant, &err) < 0 ||
			variant_check_topo(&ab->variant, &t, ab->topo, &err) < 0 ||
			(ab->lava && variant_check_lava(&ab->variant, &err) < 0)))
		die(LAB_EXIT_USAGE, "%s", err.buf);
	for (unsigned s = 0; s < 2; s++) {
		if (kernel_resolve_arch(ab->sides[s].kernel, t.arch, &kp, &err) < 0)
			die(LAB_EXIT_USAGE, "--%s: %s", side_name(ab, s), err.buf);
		snprintf(ab->sides[s].release, sizeof(ab->sides[s].release), "%s", kp.release);
		free(ab->sides[s].files);
		ab->sides[s].files = xasprintf("%s\n%s", kp.bzimage, kp.vmlinux);
		/* the variant boots the base kernel */
		if (s == 0 && variant &&
		    variant_check_kernel(&ab->variant, &kp, &ab->variant_checked, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		if (s == 1 && ab->test_variant_text && test_variant_check(ab, &t, &kp, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
	}
	if (ab->test_params.nr) {
		struct strbuf plan = STRBUF_INIT;

		/* the test side's plan, checked as its lab run will check it */
		if (plan_compile_suite(ab->suite, &plan, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		for (size_t i = 0; i < ab->test_params.nr; i++)
			if (plan_text_set_param(&plan, ab->test_params.v[i], &err) < 0)
				die(LAB_EXIT_USAGE, "--test-param: %s", err.buf);
		if (plan_check_on_runner(NULL, plan.buf, plan.len, NULL, &err) < 0)
			die(LAB_EXIT_USAGE, "--test-param: %s", err.buf);
		strbuf_release(&plan);
	}
	if (lbase)
		check_label("label-base", lbase);
	if (ltest)
		check_label("label-test", ltest);
	/* the default label is the release; one release on both sides is an
	 * A/A run, told apart as base and test, unless the test side is the
	 * kernel booted with a variant, labelled after it */
	if (ab->test_variant_text) {
		ab->sides[0].label = xstrdup(lbase ? lbase : ab->sides[0].release);
		ab->sides[1].label = ltest ? xstrdup(ltest) :
			variant_label(&ab->test_variant, ab->sides[1].release);
	} else if (!strcmp(ab->sides[0].release, ab->sides[1].release)) {
		ab->sides[0].label = xstrdup(lbase ? lbase : "base");
		ab->sides[1].label = xstrdup(ltest ? ltest : "test");
	} else {
		ab->sides[0].label = xstrdup(lbase ? lbase : ab->sides[0].release);
		ab->sides[1].label = xstrdup(ltest ? ltest : ab->sides[1].release);
	}
	if (!strcmp(ab->sides[0].label, ab->sides[1].label))
		die(LAB_EXIT_USAGE, "both sides are labelled '%s'", ab->sides[0].label);
	ab->nr_sides = 2;
	if (variant) {
		struct ab_side *v = &ab->sides[2];

		v->kernel = ab->sides[0].kernel;
		memcpy(v->release, ab->sides[0].release, sizeof(v->release));
		v->label = variant_label(&ab->variant, ab->sides[0].label);
		ab->nr_sides = 3;
		if (!strcmp(v->label, ab->sides[1].label))
			die(LAB_EXIT_USAGE, "the test and the variant are both labelled '%s'", v->label);
	}
	strbuf_release(&err);
}

/* The wall time the boots took so far, every session's. */
static double ab_wall_s(const struct ab *ab)
{
	return ab->wall_s + (ab->t0_ns ? (double)(now_ns() - ab->t0_ns) / 1e9 : 0);
}

static struct json_object *ab_json(const struct ab *ab)
{
	struct json_object *o = json_object_new_object(), *sides = json_object_new_array(),
			   *boots = json_object_new_array(), *order = json_object_new_array();

	json_object_object_add(o, "topology", json_object_new_string(ab->topo));
	json_object_object_add(o, "suite", json_object_new_string(ab->suite));
	json_object_object_add(o, "rounds", json_object_new_int((int)ab->rounds));
	json_object_object_add(o, "trace", json_object_new_boolean(ab->trace));
	/* what a resume (lab ab --dir) boots with */
	json_object_object_add(o, "clock", json_object_new_string(ab->clock));
	json_object_object_add(o, "start", json_object_new_string(ab->warm ? "warm" : "cold"));
	if (ab->backend)
		json_object_object_add(o, "backend", json_object_new_string(ab->backend));
	if (ab->uri)
		json_object_object_add(o, "uri", json_object_new_string(ab->uri));
	if (ab->lava)
		json_object_object_add(o, "lava", json_object_new_string(ab->lava));
	if (ab->lava_device_type)
		json_object_object_add(o, "lava_device_type", json_object_new_string(ab->lava_device_type));
	if (ab->lava_artifacts) {
		json_object_object_add(o, "lava_artifacts", json_object_new_string(ab->lava_artifacts));
		json_object_object_add(o, "lava_publish", json_object_new_string(ab->lava_publish));
	}
	/* where the token is, never the token */
	if (ab->lava_token_file)
		json_object_object_add(o, "lava_token_file", json_object_new_string(ab->lava_token_file));
	json_object_object_add(o, "until_decided", json_object_new_boolean(ab->until));
	if (ab->until) {
		json_object_object_add(o, "budget_s", json_object_new_int((int)ab->budget_s));
		json_object_object_add(o, "max_rounds", json_object_new_int((int)ab->max_rounds));
		json_object_object_add(o, "effect", json_object_new_double(ab->effect));
	}
	{
		struct json_object *ex = json_object_new_array();

		for (size_t i = 0; i < ab->expect_texts.nr; i++)
			json_object_array_add(ex, json_object_new_string(ab->expect_texts.v[i]));
		json_object_object_add(o, "expect", ex);
	}
	json_object_object_add(o, "spent_s", json_object_new_double(ab->spent_s));
	json_object_object_add(o, "wall_s", json_object_new_double(ab_wall_s(ab)));
	json_object_object_add(o, "jobs", json_object_new_int((int)ab->jobs.n));
	if (ab->seed)
		json_object_object_add(o, "seed", json_object_new_int((int)ab->seed));
	for (unsigned s = 0; s < ab->nr_sides; s++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "side", json_object_new_string(side_name(ab, s)));
		json_object_object_add(x, "kernel", json_object_new_string(ab->sides[s].kernel ?
									   ab->sides[s].kernel : "debian"));
		json_object_object_add(x, "release", json_object_new_string(ab->sides[s].release));
		json_object_object_add(x, "label", json_object_new_string(ab->sides[s].label));
		json_object_object_add(x, "smt", json_object_new_string("on"));
		if (s == 1 && ab->test_params.nr) {
			struct json_object *pa = json_object_new_array();

			for (size_t i = 0; i < ab->test_params.nr; i++)
				json_object_array_add(pa, json_object_new_string(ab->test_params.v[i]));
			json_object_object_add(x, "params", pa);
		}
		if (s == 2)
			variant_json(&ab->variant, x);
		if (s == 1 && ab->test_variant_text)
			variant_json(&ab->test_variant, x);
		json_object_array_add(sides, x);
	}
	json_object_object_add(o, "sides", sides);
	for (size_t i = 0; i < ab->nr_boots; i++) {
		const struct ab_boot *b = &ab->boots[i];
		struct json_object *x = json_object_new_object();

		json_object_array_add(order, json_object_new_string(side_name(ab, b->side)));
		json_object_object_add(x, "boot", json_object_new_int((int)i + 1));
		json_object_object_add(x, "side", json_object_new_string(side_name(ab, b->side)));
		json_object_object_add(x, "label", json_object_new_string(ab->sides[b->side].label));
		json_object_object_add(x, "round", json_object_new_int((int)b->round));
		json_object_object_add(x, "run", b->run ? json_object_new_string(b->run) : NULL);
		json_object_object_add(x, "verdict", json_object_new_string(b->verdict));
		json_object_object_add(x, "seconds", json_object_new_double(b->seconds));
		if (b->seed)
			json_object_object_add(x, "seed", json_object_new_int((int)b->seed));
		json_object_array_add(boots, x);
	}
	json_object_object_add(o, "order", order);
	json_object_object_add(o, "boots", boots);
	return o;
}

static void ab_save(const struct ab *ab)
{
	struct json_object *o = ab_json(ab);

	results_write_json(ab->dir.buf, "ab.json", o);
	json_object_put(o);
}

static void ab_boot_start(struct ab *ab, size_t i, struct progress *pr, const char *state)
{
	struct ab_boot *b = &ab->boots[i];
	const struct ab_side *side = &ab->sides[b->side];
	struct strbuf err = STRBUF_INIT, detail = STRBUF_INIT;

	if (!ab->t0_ns)
		ab->t0_ns = now_ns();
	b->root = xasprintf("%s/boot-%02zu-%s", ab->dir.buf, i + 1, side_name(ab, b->side));
	b->log = xasprintf("%s.log", b->root);
	if (!ab->until) {
		strbuf_addf(&detail, "boot %zu/%zu (%s, round %u)", i + 1, ab->planned,
			    side_name(ab, b->side), b->round);
		if (ab->running)
			strbuf_addf(&detail, ", %u more running", ab->running);
		progress_show(pr, detail.buf, NULL, 0);
	} else {
		double left = ab->budget_s - ab_wall_s(ab);

		/* the number of boots is not known: the budget is the horizon */
		strbuf_addf(&detail, "boot %zu (%s, round %u of at most %u)%s", i + 1,
			    side_name(ab, b->side), b->round, ab->max_rounds, state);
		if (ab->running)
			strbuf_addf(&detail, ", %u more running", ab->running);
		progress_show_eta(pr, detail.buf, left > 0 ? left : 0);
	}
	memset(&b->j, 0, sizeof(b->j));
	b->j.kernel = side->kernel ? side->kernel : "debian";
	b->j.label = side->label;
	b->j.topo = ab->topo;
	b->j.suite = ab->suite;
	b->j.variant = b->side == 2 ? ab->variant.text :
		       b->side == 1 && ab->test_variant_text ? ab->test_variant.text : NULL;
	b->j.backend = ab->backend;
	b->j.uri = ab->uri;
	b->j.warm = ab->warm;
	b->j.trace = ab->trace;
	b->j.seed = b->seed;
	b->j.params = b->side == 1 ? &ab->test_params : NULL;
	b->j.lava_server = ab->lava;
	b->j.lava_token_file = ab->lava_token_file;
	b->j.lava_device_type = ab->lava_device_type;
	b->j.lava_artifacts = ab->lava_artifacts;
	b->j.lava_publish = ab->lava_publish;
	b->j.results_root = b->root;
	b->j.log_path = b->log;
	b->j.deadline_s = ab->deadline_s;
	b->state = AB_RUNNING;
	b->verdict[0] = '\0';
	if (i >= ab->nr_boots)
		ab->nr_boots = i + 1;
	ab_save(ab);	/* a resume sees the boot begun */
	if (lab_child_start(&b->j, &err) < 0) {
		progress_break(pr);
		error("%s", err.buf);
		snprintf(b->verdict, sizeof(b->verdict), "ERROR");
		b->status = -1;
		b->state = AB_DONE;
	} else {
		ab->running++;
	}
	strbuf_release(&err);
	strbuf_release(&detail);
}

/* The boot's lab run is over with `status`: what it left, in ab.json. */
static void ab_boot_finish(struct ab *ab, size_t i, int status, struct progress *pr)
{
	struct ab_boot *b = &ab->boots[i];
	struct strbuf run = STRBUF_INIT;

	if (b->state == AB_RUNNING) {
		ab->running--;
		b->status = status;
		b->seconds = (double)(now_ns() - b->j.t_start_ns) / 1e9;
		ab->spent_s += b->seconds;
		if (lab_child_find_run(b->root, &run, b->verdict, sizeof(b->verdict)) == 0)
			b->run = strbuf_detach(&run);
		if (b->status == CHILD_TIMED_OUT)
			snprintf(b->verdict, sizeof(b->verdict), "HANG");
		else if (!b->verdict[0])
			snprintf(b->verdict, sizeof(b->verdict), "ERROR");
		b->state = AB_DONE;
	}
	progress_item_done(pr, b->seconds);
	/* a refused input is the ab's one error line (ab_refused) */
	if (strcmp(b->verdict, "PASS") && b->status != LAB_EXIT_USAGE) {
		progress_break(pr);
		warning("boot %zu (%s) ended %s (exit %d); its log: %s", i + 1, side_name(ab, b->side),
			b->verdict, b->status, b->log);
	}
	ab_save(ab);
	free(b->root);
	free(b->log);
	b->root = b->log = NULL;
}

/* Loads the boots of one side that produced results, pooled as samples. */
static int load_side(const struct ab *ab, unsigned side, struct cmp_run *pooled, struct strbuf *err)
{
	struct cmp_run runs[CMP_MAX_RUNS];
	size_t nr = 0;
	int ret;

	memset(runs, 0, sizeof(runs));
	for (size_t i = 0; i < ab->nr_boots && nr < CMP_MAX_RUNS; i++) {
		struct strbuf e = STRBUF_INIT;

		if (ab->boots[i].side != side || !ab->boots[i].run)
			continue;
		if (cmp_run_load(&runs[nr], ab->boots[i].run, &e) < 0) {
			warning("boot %zu left out of the comparison: %s", i + 1, e.buf);
			cmp_run_release(&runs[nr]);
		} else {
			nr++;
		}
		strbuf_release(&e);
	}
	if (!nr) {
		strbuf_addf(err, "no boot of the %s side (%s) left results to compare", side_name(ab, side),
			    ab->sides[side].label);
		return -1;
	}
	ret = cmp_run_pool(pooled, runs, nr, err);
	for (size_t i = 0; i < nr; i++)
		cmp_run_release(&runs[i]);
	return ret;
}

static int ab_compare(struct ab *ab)
{
	struct cmp_run sides[AB_MAX_SIDES];
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct comparison c;
	struct json_object *o;
	unsigned nr = 0;
	char *path;
	int ret = LAB_EXIT_FAIL;

	memset(sides, 0, sizeof(sides));
	for (; nr < ab->nr_sides; nr++)
		if (load_side(ab, nr, &sides[nr], &err) < 0) {
			error("%s", err.buf);
			cmp_run_release(&sides[nr]);
			goto out;
		}
	if (cmp_runs_check(sides, nr, &err) < 0) {
		error("%s", err.buf);
		goto out;
	}
	comparison_build(&c, sides, nr);
	comparison_text(&c, 0, &text);
	fwrite(text.buf, 1, text.len, stdout);
	fflush(stdout);
	path = xasprintf("%s/compare.txt", ab->dir.buf);
	write_file_atomic(path, text.buf, text.len);
	free(path);
	o = comparison_json(&c);
	results_write_json(ab->dir.buf, "compare.json", o);
	json_object_put(o);
	ret = comparison_exit_code(&c);
	comparison_release(&c);
out:
	for (unsigned s = 0; s < nr; s++)
		cmp_run_release(&sides[s]);
	strbuf_release(&err);
	strbuf_release(&text);
	return ret;
}

/* The scenarios of the suite: each one's primary metric and expectations;
 * --expect must name a scenario (or a case of one) and one of its metrics. */
static void ab_scenarios(struct ab *ab, struct abd *a)
{
	struct strvec paths = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct scenario *sc;
	size_t nr;

	if (suite_load(ab->suite, &paths, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	nr = paths.nr;
	sc = xcalloc(nr + 1, sizeof(*sc));
	for (size_t i = 0; i < nr; i++) {
		scenario_init(&sc[i]);
		if (scenario_load(paths.v[i], &sc[i], &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		abd_add_primary(a, sc[i].name, sc[i].primary);
		for (unsigned e = 0; e < sc[i].nr_expects; e++)
			abd_add_expect(a, &sc[i].expects[e]);
	}
	for (size_t k = 0; k < ab->expect_texts.nr; k++) {
		struct expect e;
		size_t i;

		if (expect_parse(ab->expect_texts.v[k], NULL, &e, &err) < 0)
			die(LAB_EXIT_USAGE, "--expect: %s", err.buf);
		for (i = 0; i < nr; i++) {
			size_t n = strlen(sc[i].name);

			if (!strncmp(e.case_id, sc[i].name, n) && (!e.case_id[n] || e.case_id[n] == '/'))
				break;
		}
		if (i == nr)
			die(LAB_EXIT_USAGE, "--expect '%s': suite '%s' has no scenario '%.*s'", e.text, ab->suite,
			    (int)strcspn(e.case_id, "/"), e.case_id);
		{
			unsigned m = 0;

			while (m < sc[i].nr_metrics && strcmp(sc[i].metrics[m].name, e.metric))
				m++;
			if (m == sc[i].nr_metrics)
				die(LAB_EXIT_USAGE, "--expect '%s': scenario '%s' has no [metric %s]", e.text,
				    sc[i].name, e.metric);
		}
		abd_add_expect(a, &e);
	}
	for (size_t i = 0; i < nr; i++)
		scenario_release(&sc[i]);
	free(sc);
	strvec_clear(&paths);
	strbuf_release(&err);
}

/* What a stopped ab was asked, from its ab.json (lab ab --dir DIR). */
struct ab_resume {
	struct json_object *o;
	const char *labels[2];
	const char *variant;
};

static void ab_load(struct ab *ab, const char *dir, struct ab_resume *rs)
{
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/ab.json", dir);
	struct json_object *o, *sides, *boots, *ex;
	double v;
	int missing = 0;

	o = json_read_file(path, NULL, 16u << 20, &missing, &err);
	if (!o)
		die(LAB_EXIT_USAGE, "--dir '%s': %s", dir, missing ? "no ab.json there" : err.buf);
	rs->o = o;
	ab->topo = json_get_str(o, "topology");
	ab->suite = json_get_str(o, "suite");
	ab->clock = json_get_str(o, "clock");
	ab->backend = json_get_str(o, "backend");
	ab->uri = json_get_str(o, "uri");
	ab->lava = json_get_str(o, "lava");
	ab->lava_token_file = json_get_str(o, "lava_token_file");
	ab->lava_device_type = json_get_str(o, "lava_device_type");
	if (ab->lava_device_type && (!ab->lava || !lava_device_type_lookup(ab->lava_device_type)))
		die(LAB_EXIT_USAGE, "--dir '%s': ab.json's lava_device_type '%s' is not one the lab writes "
		    "jobs for (%s)", dir, ab->lava_device_type, lava_device_type_names());
	ab->lava_artifacts = json_get_str(o, "lava_artifacts");
	ab->lava_publish = json_get_str(o, "lava_publish");
	{
		char abs[PATH_MAX];

		if (lava_fleet_publish_check(ab->lava, ab->lava_artifacts, ab->lava_publish, abs, &err) < 0)
			die(LAB_EXIT_USAGE, "--dir '%s': ab.json: %s", dir, err.buf);
	}
	if (!ab->topo || !ab->suite || !ab->clock || !json_object_object_get_ex(o, "sides", &sides) ||
	    !json_object_is_type(sides, json_type_array) || json_object_array_length(sides) != 2 ||
	    !json_object_object_get_ex(o, "boots", &boots) || !json_object_is_type(boots, json_type_array))
		die(LAB_EXIT_USAGE, "--dir '%s': ab.json lacks what a resume needs (topology, suite, clock, "
		    "two sides, boots): only an ab of this version resumes", dir);
	ab->warm = !strcmp(json_get_str(o, "start") ? json_get_str(o, "start") : "", "warm");
	ab->trace = json_object_get_boolean(json_object_object_get(o, "trace"));
	ab->until = json_object_get_boolean(json_object_object_get(o, "until_decided"));
	if (json_get_num(o, "rounds", &v) == 0)
		ab->rounds = (unsigned)v;
	if (json_get_num(o, "budget_s", &v) == 0)
		ab->budget_s = (unsigned)v;
	if (json_get_num(o, "max_rounds", &v) == 0)
		ab->max_rounds = (unsigned)v;
	if (json_get_num(o, "effect", &v) == 0)
		ab->effect = v;
	if (json_get_num(o, "spent_s", &v) == 0)
		ab->spent_s = v;
	/* an ab from before --seed gave the k-th boot of each side seed k */
	ab->seed = json_get_num(o, "seed", &v) == 0 && v >= 1 && v < 2147483647 ? (unsigned)v : 0;
	/* an ab from before parallel boots ran one at a time */
	ab->wall_s = json_get_num(o, "wall_s", &v) == 0 ? v : ab->spent_s;
	if (json_object_object_get_ex(o, "expect", &ex) && json_object_is_type(ex, json_type_array))
		for (size_t i = 0; i < json_object_array_length(ex); i++)
			strvec_push(&ab->expect_texts, json_object_get_string(json_object_array_get_idx(ex, i)));
	for (unsigned s = 0; s < 2; s++) {
		struct json_object *x = json_object_array_get_idx(sides, s);

		struct json_object *pa;

		ab->sides[s].kernel = xstrdup(json_get_str(x, "kernel") ? json_get_str(x, "kernel") : "debian");
		rs->labels[s] = json_get_str(x, "label");
		if (s == 1 && json_get_str(x, "variant"))
			ab->test_variant_text = json_get_str(x, "variant");
		if (s == 1 && json_object_object_get_ex(x, "params", &pa) &&
		    json_object_is_type(pa, json_type_array))
			for (size_t i = 0; i < json_object_array_length(pa); i++)
				strvec_push(&ab->test_params,
					    json_object_get_string(json_object_array_get_idx(pa, i)));
	}
	if (ab->rounds < 1 || ab->rounds > AB_MAX_ROUNDS || (ab->until && (ab->max_rounds < 1 ||
	    ab->max_rounds > AB_MAX_ROUNDS || !(ab->effect > 0 && ab->effect < 0.5) || !ab->budget_s)))
		die(LAB_EXIT_USAGE, "--dir '%s': ab.json has rounds, budget or effect out of range", dir);
	free(path);
	strbuf_release(&err);
}

/* A boot cut short is booted again; what it left goes to aside/, never
 * reused: a half-written run directory is evidence, not a result.  So
 * does a boot the decision did not wait for (why says so). */
static void set_aside_boot(struct ab *ab, size_t i, const char *why)
{
	char *root = xasprintf("%s/boot-%02zu-%s", ab->dir.buf, i + 1, side_name(ab, ab->boots[i].side));
	char *asides = xasprintf("%s/aside", ab->dir.buf);
	char *aside = xasprintf("%s/boot-%02zu-%s-%d", asides, i + 1, side_name(ab, ab->boots[i].side),
				(int)getpid());
	char *log = xasprintf("%s.log", root), *alog = xasprintf("%s.log", aside);
	struct stat st;

	if (stat(root, &st) == 0) {
		if (mkdir_p(asides, 0755) < 0 || rename(root, aside) < 0)
			die(LAB_EXIT_FAIL, "cannot move '%s' aside to '%s': %s", root, aside, strerror(errno));
		if (why)
			rename(log, alog);
		fprintf(stderr, "ab: boot %zu %s; its remains are in %s\n", i + 1,
			why ? why : "was cut short, booting it again", aside);
	}
	free(root);
	free(asides);
	free(aside);
	free(log);
	free(alog);
}

/*
 * The boots a resumed ab had finished are kept, in their order; one that
 * was begun and not finished (several may be, with --jobs) is set aside
 * and booted again.
 */
static void ab_load_boots(struct ab *ab, struct ab_resume *rs)
{
	struct json_object *boots = json_object_object_get(rs->o, "boots");
	size_t n = json_object_array_length(boots);

	for (size_t i = 0; i < n && i < ab->planned; i++) {
		struct json_object *x = json_object_array_get_idx(boots, i);
		const char *verdict = json_get_str(x, "verdict"), *run = json_get_str(x, "run");
		const char *side = json_get_str(x, "side");
		struct ab_boot *b = &ab->boots[i];
		double sec = 0;

		if (!side || strcmp(side, side_name(ab, b->side)))
			die(LAB_EXIT_USAGE, "--dir '%s': boot %zu is of side '%s', not '%s' as ABBA has it",
			    ab->dir.buf, i + 1, side ? side : "", side_name(ab, b->side));
		ab->nr_boots = i + 1;
		if (!verdict || !verdict[0]) {
			set_aside_boot(ab, i, NULL);
			continue;
		}
		snprintf(b->verdict, sizeof(b->verdict), "%s", verdict);
		b->run = run ? xstrdup(run) : NULL;
		json_get_num(x, "seconds", &sec);
		b->seconds = sec;
		b->state = AB_DONE;
	}
	if (ab->nr_boots < ab->planned)
		set_aside_boot(ab, ab->nr_boots, NULL);
}

static void ab_header(const struct ab *ab, const struct abd *a, const char *clock_note)
{
	char budget[32];

	if (ab->until) {
		decide_format_duration(budget, sizeof(budget), ab->budget_s);
		printf("ab: %s, suite '%s', until decided: budget %s, at most %u round%s of ABBA, effect +-%g%%, "
		       "alpha %g over the rows (Benjamini-Hochberg) and looks (Bonferroni)\n", ab->topo, ab->suite,
		       budget, ab->max_rounds, ab->max_rounds == 1 ? "" : "s", 100 * ab->effect, AB_ALPHA);
	} else {
		printf("ab: %s, suite '%s', %u round%s, %zu boots in the order", ab->topo, ab->suite, ab->rounds,
		       ab->rounds == 1 ? "" : "s", ab->planned);
		for (size_t i = 0; i < ab->planned; i++)
			printf(" %s", ab->sides[ab->boots[i].side].label);
		printf("\n");
	}
	printf("ab: clock %s%s, start %s%s%s\n", ab->clock, clock_note, ab->warm ? "warm" : "cold",
	       ab->start_note ? ab->start_note : "",
	       ab->planned && ab->boots[0].seed ? "; boots seeded in boot order (lab run --seed)" : "");
	if (ab->test_params.nr) {
		printf("ab: %s boots with", ab->sides[1].label);
		for (size_t i = 0; i < ab->test_params.nr; i++)
			printf(" --param %s", ab->test_params.v[i]);
		printf(" (--test-param)\n");
	}
	if (ab->test_variant_text)
		printf("ab: %s boots %s with --variant %s (--test-variant)\n", ab->sides[1].label,
		       ab->sides[1].release, ab->test_variant.text);
	{
		struct strbuf j = STRBUF_INIT;
		int warn;

		if (ab->lava) {
			printf("ab: on LAVA at %s: %u jobs at a time, submitted in ABBA order; the farm "
			       "schedules them\n", ab->lava, ab->jobs.n);
		} else {
			jobs_note(&ab->jobs, &j, &warn);
			printf("ab: %s%s\n", warn ? "warning: " : "", j.buf);
		}
		strbuf_release(&j);
	}
	for (size_t e = 0; e < a->nr_expects; e++)
		printf("ab: expect %s\n", a->expects[e].text);
	printf("ab: directory %s\n", ab->dir.buf);
	fflush(stdout);
}

/* The boot's lab run refused its input: every later boot would too. */
static void ab_refused(struct ab *ab, size_t i, struct progress *pr)
{
	struct strbuf line = STRBUF_INIT;
	char *log = xasprintf("%s/boot-%02zu-%s.log", ab->dir.buf, i + 1, side_name(ab, ab->boots[i].side));

	lab_child_error(log, &line);
	progress_break(pr);
	lab_run_discard(ab->dir.buf);
	die(LAB_EXIT_USAGE, "boot %zu (%s): %s", i + 1, side_name(ab, ab->boots[i].side),
	    line.len ? line.buf : "lab run refused its input");
}

static void round_state(const struct ab *ab, const struct abd *a, struct strbuf *out)
{
	size_t r, c, e;
	char left[32];

	abd_count(a, &r, &c, &e);
	decide_format_duration(left, sizeof(left), ab->budget_s > ab_wall_s(ab) ? ab->budget_s - ab_wall_s(ab) : 0);
	strbuf_addf(out, "%zu of %zu rows decided", r, a->nr_rows);
	if (a->nr_expects)
		strbuf_addf(out, ", %zu of %zu expectations", e, a->nr_expects);
	strbuf_addf(out, ", %s of the budget left", left);
}

static int write_junit(const char *path, const struct abd *a)
{
	struct strbuf x = STRBUF_INIT;
	int ret;

	abd_junit(a, &x);
	ret = write_file_atomic(path, x.buf, x.len);
	strbuf_release(&x);
	return ret;
}

/* Every boot of round `round` is done. */
static int ab_round_done(const struct ab *ab, unsigned round)
{
	int any = 0;

	for (size_t i = 0; i < ab->planned; i++) {
		if (ab->boots[i].round != round)
			continue;
		if (ab->boots[i].state != AB_DONE)
			return 0;
		any = 1;
	}
	return any;
}

/*
 * Whether boot i may start now.  --until-decided looks at each round when
 * it is done: with one guest at a time a round starts after the look at
 * the one before, with more the next round may begin while the last boots
 * of one run (they are stopped when the look decides).  A round starts only
 * when one like the past ones fits in the budget (*budget_ended otherwise);
 * the boots of a round begun all run.
 */
static int ab_may_start(const struct ab *ab, size_t i, unsigned look, int *budget_ended)
{
	unsigned round = ab->boots[i].round, per_round = 2 * ab->nr_sides;
	size_t done = 0;

	if (!ab->until)
		return 1;
	if (round > look + (ab->jobs.n > 1 ? 2 : 1))
		return 0;
	if (i % per_round || round == 1)
		return 1;
	for (size_t k = 0; k < ab->planned; k++)
		if (ab->boots[k].round == round && ab->boots[k].state != AB_PENDING)
			return 1;	/* begun in an earlier session */
	for (size_t k = 0; k < ab->planned; k++)
		done += ab->boots[k].state == AB_DONE;
	if (*budget_ended)
		return 0;
	/* the wall time a boot took so far, one or several at a time */
	if (done && ab_wall_s(ab) + ab_wall_s(ab) / (double)done * per_round > ab->budget_s) {
		*budget_ended = 1;
		return 0;
	}
	return 1;
}

/* Stops a running boot the decision no longer needs. */
static void ab_boot_cancel(struct ab *ab, size_t i, unsigned look)
{
	struct ab_boot *b = &ab->boots[i];
	char why[96];

	finish_command_timeout(&b->j.cp, 0);
	child_process_clear(&b->j.cp);
	ab->running--;
	b->state = AB_PENDING;
	b->verdict[0] = '\0';
	snprintf(why, sizeof(why), "was stopped: round %u decided every row", look);
	set_aside_boot(ab, i, why);
	free(b->root);
	free(b->log);
	b->root = b->log = NULL;
}

/* What a finished boot means for the rest: a refused input stops the ab,
 * the variant is checked against what the base's first boot told, the
 * decision gets the boot's values. */
static void ab_boot_done(struct ab *ab, size_t i, struct abd *a, struct progress *pr, int decisions, int *bad)
{
	struct ab_boot *b = &ab->boots[i];

	*bad |= !!strcmp(b->verdict, "PASS");
	if (b->status == LAB_EXIT_USAGE)
		ab_refused(ab, i, pr);
	if (ab->nr_sides == 3)
		recheck_variant(ab, pr);
	if (decisions)
		abd_add_boot(a, b->side, b->round, b->run);
}

/*
 * --until-decided stopped at look `look`: the boots of later rounds (begun
 * beside the last ones with --jobs) go aside, so the tables hold the
 * rounds the decision saw and nothing else.
 */
static void ab_drop_undecided_rounds(struct ab *ab, unsigned look)
{
	size_t keep = (size_t)look * 2 * ab->nr_sides;

	for (size_t i = keep; i < ab->nr_boots; i++) {
		struct ab_boot *b = &ab->boots[i];
		char why[96];

		if (b->state != AB_DONE)
			continue;
		snprintf(why, sizeof(why), "is of round %u, after the last look (round %u)", b->round, look);
		set_aside_boot(ab, i, why);
		free(b->run);
		b->run = NULL;
		b->verdict[0] = '\0';
		b->state = AB_PENDING;
	}
	if (ab->nr_boots > keep)
		ab->nr_boots = keep;
}

int cmd_ab(int argc, const char **argv)
{
	const char *variant = NULL, *lbase = NULL, *ltest = NULL, *root = NULL, *arch = NULL, *clock = NULL;
	const char *budget = NULL, *effect = NULL, *junit = NULL, *resume = NULL, *base = NULL, *test = NULL;
	const char *clock_note = "";
	char *topo_arch = NULL;
	struct ab ab = { .rounds = 0, .dir = STRBUF_INIT, .expect_texts = STRVEC_INIT };
	struct ab_resume rs = { 0 };
	struct strbuf err = STRBUF_INIT, state = STRBUF_INIT;
	unsigned *order, look = 0, max_rounds = 0, jobs = 0, seed = 0;
	struct abd a;
	struct progress pr;
	char slug[300];
	int nr_pos, ret, bad = 0, cold = 0, budget_ended = 0, stopping = 0, decisions;
	const struct lab_option opts[] = {
		OPT_STRING("topo", &ab.topo, "topology spec or preset (required)"),
		OPT_STRING("arch", &arch, "guest architecture: x86_64 (default), arm64 or ppc64le"),
		OPT_STRING("base", &base, "the baseline kernel: debian, debian:6.12 and the like, a path or a build key"),
		OPT_STRING("test", &test, "the kernel under test"),
		OPT_STRING("suite", &ab.suite, "a suite under scenarios/suites/ (required)"),
		OPT_UINT("rounds", &ab.rounds, 1, AB_MAX_ROUNDS,
			 "ABBA rounds: 4 boots each, 6 with a variant (default 1)"),
		OPT_STRING("variant", &variant, "a third column, the base kernel booted with: smt=off (nosmt), "
			   "sched_feat=NO_X,Y (scheduler features), preempt=MODE (preempt=), a scheduler "
			   "knob such as base_slice_ns=N, or scx=NAME (a sched_ext scheduler: lab scx --list; "
			   "scx=none: the kernel's own)"),
		OPT_STRING("label-base", &lbase, "column title of the base (default: its release, or base)"),
		OPT_STRING("label-test", &ltest, "column title of the test (default: its release, or test)"),
		OPT_STRING("results", &root, "where the ab directory goes (default results/ or $LAB_RESULTS)"),
		OPT_STRING("backend", &ab.backend, "qemu (default) or libvirt ($BACKEND)"),
		OPT_STRING("uri", &ab.uri, "libvirt URI ($LIBVIRT_URI, default qemu:///system)"),
		OPT_STRING("clock", &clock, "wall (default; virtual with --until-decided) or virtual, for every boot: see lab run --help ($CLOCK)"),
		OPT_BOOL("warm", &ab.warm, "restore saved guests instead of booting each run (the default of --until-decided on x86_64; else cold: boot-to-boot variation belongs in each side's sample)"),
		OPT_BOOL("cold", &cold, "boot every run, also with --until-decided"),
		OPT_BOOL("trace", &ab.trace, "every boot with the flight recorder (lab run --trace): decision and preemption rows beside time and latency"),
		OPT_BOOL("until-decided", &ab.until, "ABBA rounds until every case's primary metric is decided (changed, or = within +-effect) or the budget ends"),
		OPT_STRING("budget", &budget, "with --until-decided: the boots' time, such as 90s, 30m, 1h (default 30m)"),
		OPT_UINT("max-rounds", &max_rounds, 1, AB_MAX_ROUNDS, "with --until-decided: the most rounds (default 20; each is a look the false-flag rate is split over)"),
		OPT_STRING("effect", &effect, "with --until-decided: the smallest change worth calling a change; within it is \"=\" (default 2%)"),
		OPT_STRVEC("expect", &ab.expect_texts, "a gate, 'CASE:METRIC OP N%' with OP <=, >= or == (within +-N%): 'smoke-hackbench:time <= +1%'; repeatable"),
		OPT_STRING("junit", &junit, "write the expectations as JUnit XML (one test each) to this file"),
		OPT_UINT("jobs", &jobs, 1, JOBS_MAX, "guests at a time (default: the host's CPUs over the "
			 "threads a guest keeps busy: one under the virtual clock, one per vCPU on the wall clock)"),
		OPT_STRING("lava", &ab.lava, "a LAVA server (http://host:port): every boot is a job there "
			   "(lab lava run), submitted in ABBA order, --jobs at a time (default: a round); "
			   "the token in $LAVA_TOKEN or --lava-token-file"),
		OPT_STRING("lava-token-file", &ab.lava_token_file, "with --lava: a file (mode 600) holding the API token"),
		OPT_UINT("seed", &seed, 1, 1000000000, "boots on the virtual clock: the first boot's "
			 "lab run --seed, the next boot's one more (default 1): another seed, another "
			 "sample of the kernel's randomness"),
		OPT_STRING("test-variant", &ab.test_variant_text, "KEY=VALUE: the test side boots its kernel "
			   "(without --test the base kernel) with this variant, as --variant would: a "
			   "scheduler variant as the side --until-decided and --expect judge"),
		OPT_STRVEC("test-param", &ab.test_params, "[SCENARIO:]KEY=VALUE: the test side's cases run "
			   "with this workload parameter (lab run --param), such as decide-hackbench:work=2000: "
			   "an effect of known size on one kernel; repeatable"),
		OPT_STRING("device-type", &ab.lava_device_type, "with --lava: the LAVA device type of every job "
			   "(default qemu; lab lava run --device-type)"),
		OPT_STRING("lava-artifacts", &ab.lava_artifacts, "with --lava and --lava-publish: the http(s) URL "
			   "a web server serves --lava-publish at (lab lava run --artifacts)"),
		OPT_STRING("lava-publish", &ab.lava_publish, "with --lava: every job's files are copied into a "
			   "directory of their own here before it is submitted (lab lava run --publish)"),
		OPT_STRING("dir", &resume, "resume the stopped ab in this directory, as it began"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, ab_usage, NULL, 0, &nr_pos);
	if (ret > 0)
		printf("\n%s\n", ab_exit_codes);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (resume) {
		if (ab.topo || ab.suite || base || test || arch || variant || lbase || ltest || root || clock ||
		    ab.warm || cold || ab.trace || ab.until || budget || max_rounds || effect || ab.rounds ||
		    ab.expect_texts.nr || ab.backend || ab.uri || ab.lava || ab.lava_token_file || seed ||
		    ab.test_params.nr || ab.lava_device_type || ab.lava_artifacts || ab.lava_publish ||
		    ab.test_variant_text)
			die(LAB_EXIT_USAGE, "lab ab --dir DIR resumes as the ab began: give --dir alone "
			    "(and --junit, --jobs)");
		ab_load(&ab, resume, &rs);
		lbase = rs.labels[0];
		ltest = rs.labels[1];
		strbuf_addstr(&ab.dir, resume);
		clock = ab.clock;
		setenv("CLOCK", clock, 1);
		ab.start_note = xstrdup(" (as the ab began)");
		clock_note = " (as the ab began)";
	} else {
		ab.sides[0].kernel = base ? xstrdup(base) : NULL;
		/* --test-variant alone: the base kernel against itself so booted */
		ab.sides[1].kernel = test ? xstrdup(test) : ab.test_variant_text && base ? xstrdup(base) : NULL;
		if (!ab.until && (budget || max_rounds || effect))
			die(LAB_EXIT_USAGE, "--budget, --max-rounds and --effect go with --until-decided");
		if (ab.warm && cold)
			die(LAB_EXIT_USAGE, "--warm and --cold exclude each other");
		if (ab.until && ab.rounds)
			die(LAB_EXIT_USAGE, "--rounds and --until-decided exclude each other (see --max-rounds)");
		if (ab.until) {
			ab.budget_s = AB_DEFAULT_BUDGET_S;
			ab.max_rounds = max_rounds ? max_rounds : AB_DEFAULT_MAX_ROUNDS;
			ab.effect = 0.02;
			if (budget && decide_parse_duration(budget, &ab.budget_s, &err) < 0)
				die(LAB_EXIT_USAGE, "--budget: %s", err.buf);
			if (effect && decide_parse_effect(effect, &ab.effect, &err) < 0)
				die(LAB_EXIT_USAGE, "--effect: %s", err.buf);
		}
		if ((ab.until || ab.expect_texts.nr) && variant)
			die(LAB_EXIT_USAGE, "--until-decided and --expect judge two sides: not with --variant "
			    "(--test-variant boots the test side with it)");
		if (ab.lava && (ab.warm || ab.trace || ab.backend || ab.uri ||
				(clock && lab_clock_parse(clock) > 0)))
			die(LAB_EXIT_USAGE, "--lava boots every run as a LAVA job: "
			    "not with --warm, --trace, --backend, --uri or --clock virtual");
		{
			char abs[PATH_MAX];

			if (lava_fleet_publish_check(ab.lava, ab.lava_artifacts, ab.lava_publish, abs, &err) < 0)
				die(LAB_EXIT_USAGE, "%s", err.buf);
			if (ab.lava_publish)
				ab.lava_publish = xstrdup(abs);
		}
		if (ab.lava && ab.test_params.nr)
			die(LAB_EXIT_USAGE, "--test-param boots the test side with lab run --param: not with --lava");
		if (ab.lava_device_type && ab.lava && lava_device_type_bare(lava_device_type_lookup(ab.lava_device_type)))
			die(LAB_EXIT_USAGE, "--device-type '%s': an ab's boots are on a topology, and a machine "
			    "of its own has its own: lab lava run --device-type %s runs one", ab.lava_device_type,
			    ab.lava_device_type);
		if (ab.lava_device_type && (!ab.lava || !lava_device_type_lookup(ab.lava_device_type)))
			die(LAB_EXIT_USAGE, "--device-type '%s': %s%s%s", ab.lava_device_type,
			    !ab.lava ? "it goes with --lava" : "the lab writes jobs for ",
			    !ab.lava ? "" : lava_device_type_names(), !ab.lava ? "" : " only");
		if (ab.lava && !clock)
			clock = "wall";
		if (ab.lava)
			cold = 1;
		lab_clock_export(clock);
		clock = clock ? clock : getenv("CLOCK");
		if (ab.until && !clock) {
			/* instruction-counted time: a boot's timings vary by a
			 * percent or less, so rows decide in fewer rounds */
			clock = "virtual";
			setenv("CLOCK", clock, 1);
			clock_note = " (the default of --until-decided: instruction-counted time, the same at any "
				     "host load, with ticks where the kernel's arithmetic puts them; --clock wall "
				     "for the host's, docs/tcg.md)";
		}
		ab.clock = clock ? clock : "wall";
		if (!ab.rounds)
			ab.rounds = 1;
		ab.seed = seed ? seed : 1;
	}
	lab_clock_export(NULL);
	if (!ab.topo || !ab.suite || !ab.sides[0].kernel || !ab.sides[1].kernel)
		die(LAB_EXIT_USAGE, "--topo, --base, --test (or --test-variant) and --suite are required "
		    "(see lab ab --help)");
	if (arch) {
		/* every boot of the comparison gets it through the spec (arch=) */
		topo_arch = xasprintf("%s,arch=%s", ab.topo, arch);
		ab.topo = topo_arch;
	}
	ab_validate(&ab, variant, lbase, ltest);
	if (jobs_plan(ab.topo, lab_clock_parse(ab.clock) > 0, jobs, &ab.jobs, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (ab.lava && !jobs)
		ab.jobs.n = 2 * ab.nr_sides;	/* a round at a time: the farm schedules them */
	if (!resume && ab.until && !ab.warm && !cold) {
		struct topo t;

		/* warm start where it applies: x86_64 guests, no disk image
		 * (docs/warm-start.md), both sides restoring one saved guest */
		if (topo_parse(ab.topo, &t, &err) != 0 || t.arch != TOPO_ARCH_X86_64) {
			ab.start_note = xstrdup(" (warm start is for x86_64 guests only)");
		} else if (!sides_share_guest(&ab)) {
			ab.start_note = xstrdup(" (the sides boot different guests: warm, every boot of a side "
						"would start from its one saved guest, and whatever else tells the two "
						"saved guests apart, up to 2 % on 2s8c2t, would be in every round; "
						"docs/comparing.md)");
		} else if (ab.test_variant_text) {
			ab.warm = 1;
			ab.start_note = xasprintf(" (the default of --until-decided: both sides restore one saved "
						  "guest, and the test side sets %s after its restore)",
						  ab.test_variant.text);
		} else {
			ab.warm = 1;
			ab.start_note = xstrdup(" (the default of --until-decided: both sides restore one saved "
						"guest)");
		}
	} else if (!resume && ab.warm && !sides_share_guest(&ab)) {
		warning("--warm with two saved guests: every boot of a side starts from its one saved guest, "
			"and whatever else tells them apart (up to 2 %% on 2s8c2t) is in every round, which "
			"no number of rounds averages out; --cold boots sample it (docs/comparing.md)");
	}
	if (seed && strcmp(ab.clock, "virtual"))
		die(LAB_EXIT_USAGE, "--seed seeds boots on the virtual clock: not with the wall clock");
	abd_init(&a, &(struct decide_params){ AB_ALPHA, ab.effect > 0 ? ab.effect : 0.02,
					       ab.until ? ab.max_rounds : 1, 2 });
	ab_scenarios(&ab, &a);
	decisions = ab.until || a.nr_expects;
	if (junit && !a.nr_expects)
		die(LAB_EXIT_USAGE, "--junit has no expectations to write: give --expect (or a scenario's expect key)");

	/* the boots of every round that may run, in ABBA order */
	{
		unsigned rounds = ab.until ? ab.max_rounds : ab.rounds;
		size_t max = (size_t)rounds * 2 * ab.nr_sides;

		order = xcalloc(max, sizeof(*order));
		ab.planned = ab_order(ab.nr_sides, rounds, order, max);
		ab.boots = xcalloc(ab.planned, sizeof(*ab.boots));
		unsigned nth[AB_MAX_SIDES] = { 0 };

		for (size_t i = 0; i < ab.planned; i++) {
			ab.boots[i].side = order[i];
			ab.boots[i].round = (unsigned)(i / (2 * ab.nr_sides)) + 1;
			/* boots on the virtual clock: boot i gets seed
			 * seed + i - 1, so boots differ as the kernel's own
			 * randomness makes them (one seed on both sides would
			 * make an A/A's boots pairwise identical and hide the
			 * noise the test must see), and the same ab gives the
			 * same numbers at any --jobs (a warm start restores one
			 * saved guest and reseeds its RNG from the seed); an ab
			 * begun before --seed gave the k-th cold boot of each
			 * side seed k, and its warm boots none */
			nth[order[i]]++;
			if (!strcmp(ab.clock, "virtual") && (!ab.warm || ab.seed))
				ab.boots[i].seed = ab.seed ? ab.seed + (unsigned)i : nth[order[i]];
		}
		free(order);
	}
	if (resume) {
		ab_load_boots(&ab, &rs);
	} else {
		snprintf(slug, sizeof(slug), "ab-%s", ab.topo);
		if (results_create_run(root ? root : results_root(), slug, &ab.dir) < 0)
			return LAB_EXIT_FAIL;
	}
	ab_header(&ab, &a, clock_note);
	ab_save(&ab);

	progress_init(&pr, "ab", (unsigned)ab.planned, ab.jobs.n);
	for (size_t i = 0; i < ab.nr_boots; i++) {
		if (ab.boots[i].state != AB_DONE)
			continue;
		progress_item_skipped(&pr);
		bad |= !!strcmp(ab.boots[i].verdict, "PASS");
		abd_add_boot(&a, ab.boots[i].side, ab.boots[i].round, ab.boots[i].run);
	}
	for (;;) {
		size_t next = ab.planned;

		/* a look at every round whose boots are all done, in order
		 * (a resumed ab looks again at every round it had finished) */
		while (ab.until && look < ab.max_rounds && ab_round_done(&ab, look + 1)) {
			if (abd_look(&a, ++look, &err) < 0) {
				progress_break(&pr);
				die(LAB_EXIT_USAGE, "%s", err.buf);
			}
			strbuf_reset(&state);
			round_state(&ab, &a, &state);
			progress_break(&pr);
			fprintf(stderr, "ab: round %u of at most %u: %s\n", look, ab.max_rounds, state.buf);
		}
		if (ab.until && look && abd_all_decided(&a))
			stopping = 1;
		for (size_t i = 0; i < ab.planned && !stopping; i++)
			if (ab.boots[i].state == AB_PENDING) {
				next = i;
				break;
			}
		if (next < ab.planned && ab.running < ab.jobs.n &&
		    ab_may_start(&ab, next, look, &budget_ended)) {
			strbuf_reset(&state);
			if (ab.until && look) {
				strbuf_addstr(&state, ": ");
				round_state(&ab, &a, &state);
			}
			ab_boot_start(&ab, next, &pr, state.buf);
			if (ab.boots[next].state == AB_DONE)
				ab_boot_done(&ab, next, &a, &pr, decisions, &bad);
			continue;
		}
		if (stopping) {
			/* decided: what still runs is not needed */
			for (size_t i = 0; i < ab.planned; i++)
				if (ab.boots[i].state == AB_RUNNING)
					ab_boot_cancel(&ab, i, look);
		}
		if (!ab.running)
			break;
		for (size_t i = 0; i < ab.planned; i++) {
			int status;

			if (ab.boots[i].state != AB_RUNNING || !lab_child_poll(&ab.boots[i].j, &status))
				continue;
			ab_boot_finish(&ab, i, status, &pr);
			ab_boot_done(&ab, i, &a, &pr, decisions, &bad);
		}
		usleep(AB_POLL_MS * 1000);
	}
	if (ab.until)
		ab_drop_undecided_rounds(&ab, look);
	if (!ab.until && decisions && abd_look(&a, ab.rounds, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	progress_show(&pr, "all boots done", NULL, 0);
	progress_break(&pr);

	ret = ab_compare(&ab);
	if (decisions) {
		struct strbuf text = STRBUF_INIT;
		struct json_object *o = abd_json(&a);
		char spent[32], total[32];

		json_object_object_add(o, "budget_ended", json_object_new_boolean(budget_ended));
		results_write_json(ab.dir.buf, "decisions.json", o);
		json_object_put(o);
		abd_text(&a, &text);
		fwrite(text.buf, 1, text.len, stdout);
		strbuf_release(&text);
		if (ab.until && !abd_all_decided(&a)) {
			decide_format_duration(spent, sizeof(spent), ab_wall_s(&ab));
			decide_format_duration(total, sizeof(total), ab.budget_s);
			printf("ab: %s after %u round%s (%s of %s): the rows and expectations above marked "
			       "undecided are not, with the rounds each would need\n",
			       budget_ended ? "the budget ended" : "--max-rounds reached", look, look == 1 ? "" : "s",
			       spent, total);
		}
		if (a.nr_expects) {
			char *path = xasprintf("%s/junit.xml", ab.dir.buf);

			write_junit(path, &a);
			free(path);
			if (junit && write_junit(junit, &a) < 0)
				error("cannot write '%s'", junit);
		}
		if (a.nr_expects) {
			/* the gate is the expectations (and the boots) */
			ret = bad ? LAB_EXIT_FAIL : abd_exit_code(&a);
		} else if (ab.until) {
			int worse = 0;

			for (size_t r = 0; r < a.nr_rows; r++)
				worse |= a.rows[r].worse;
			ret = bad || worse ? LAB_EXIT_FAIL : abd_exit_code(&a);
		}
	}
	if (bad && ret == LAB_EXIT_PASS)
		ret = LAB_EXIT_FAIL;
	ab_save(&ab);
	printf("ab: every run is listed in %s/ab.json; the comparison is in compare.txt and "
	       "compare.json%s\n", ab.dir.buf, decisions ? ", the decisions in decisions.json" : "");
	abd_release(&a);
	for (size_t i = 0; i < ab.planned; i++)
		free(ab.boots[i].run);
	free(ab.boots);
	for (unsigned s = 0; s < ab.nr_sides; s++) {
		free(ab.sides[s].label);
		free(ab.sides[s].files);
		if (s < 2)
			free(ab.sides[s].kernel);
	}
	if (rs.o)
		json_object_put(rs.o);
	strvec_clear(&ab.expect_texts);
	strbuf_release(&ab.dir);
	strbuf_release(&err);
	strbuf_release(&state);
	free(ab.start_note);
	free(topo_arch);
	return ret;
}
