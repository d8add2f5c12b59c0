/* cmd-ab.c - `lab ab`: boot a base and a test kernel in ABBA order, run a
 * suite at every boot, pool each side's boots and compare them. */
#define _GNU_SOURCE
#include "report/compare.h"
#include "kernel/kernel.h"
#include "cmd/lab.h"
#include "run/matrix.h"
#include "run/schedfeat.h"
#include "run/variant.h"
#include "cmd/options.h"
#include "lib/progress.h"
#include "results/results.h"
#include "topo/topo.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ab_usage[] =
	"lab ab --topo SPEC --base KERNEL_A --test KERNEL_B --suite NAME [--arch A] [--rounds N] "
	"[--variant smt=off|sched_feat=NO_X,Y|preempt=MODE|base_slice_ns=N|scx=NAME] [--label-base X] [--label-test Y] [--results DIR] [--clock wall|virtual] [--warm] [--trace]";

#define AB_MAX_SIDES 3
#define AB_MAX_ROUNDS 50

static const char *const side_names[2] = { "base", "test" };

struct ab_side {
	const char *kernel;	/* as given */
	char *label;
	char release[KERNEL_VERSION_MAX];
};

/* One boot of the sequence and what came of it. */
struct ab_boot {
	unsigned side, round;
	char *run;		/* run directory, NULL when lab run made none */
	char verdict[16];
	double seconds;
	int status;
};

struct ab {
	const char *topo, *suite;
	const char *backend, *uri;	/* passed to every lab run */
	int warm;			/* lab run --warm: restored guests (docs/warm-start.md) */
	int trace;			/* lab run --trace: decision rows in every boot */
	unsigned rounds, nr_sides;
	struct ab_side sides[AB_MAX_SIDES];
	struct ab_boot *boots;
	size_t nr_boots;
	unsigned deadline_s;
	struct strbuf dir;
	struct lab_variant variant;	/* --variant: the third side, the base kernel booted so */
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
			variant_check_topo(&ab->variant, &t, ab->topo, &err) < 0))
		die(LAB_EXIT_USAGE, "%s", err.buf);
	for (unsigned s = 0; s < 2; s++) {
		if (kernel_resolve_arch(ab->sides[s].kernel, t.arch, &kp, &err) < 0)
			die(LAB_EXIT_USAGE, "--%s: %s", side_name(ab, s), err.buf);
		snprintf(ab->sides[s].release, sizeof(ab->sides[s].release), "%s", kp.release);
		/* the variant boots the base kernel */
		if (s == 0 && variant &&
		    variant_check_kernel(&ab->variant, &kp, &ab->variant_checked, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
	}
	if (lbase)
		check_label("label-base", lbase);
	if (ltest)
		check_label("label-test", ltest);
	/* the default label is the release; one release on both sides is an
	 * A/A run, told apart as base and test */
	if (!strcmp(ab->sides[0].release, ab->sides[1].release)) {
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

static struct json_object *ab_json(const struct ab *ab)
{
	struct json_object *o = json_object_new_object(), *sides = json_object_new_array(),
			   *boots = json_object_new_array(), *order = json_object_new_array();

	json_object_object_add(o, "topology", json_object_new_string(ab->topo));
	json_object_object_add(o, "suite", json_object_new_string(ab->suite));
	json_object_object_add(o, "rounds", json_object_new_int((int)ab->rounds));
	json_object_object_add(o, "trace", json_object_new_boolean(ab->trace));
	for (unsigned s = 0; s < ab->nr_sides; s++) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "side", json_object_new_string(side_name(ab, s)));
		json_object_object_add(x, "kernel", json_object_new_string(ab->sides[s].kernel ?
									   ab->sides[s].kernel : "debian"));
		json_object_object_add(x, "release", json_object_new_string(ab->sides[s].release));
		json_object_object_add(x, "label", json_object_new_string(ab->sides[s].label));
		json_object_object_add(x, "smt", json_object_new_string("on"));
		if (s == 2)
			variant_json(&ab->variant, x);
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

static void ab_boot(struct ab *ab, size_t i, struct progress *pr)
{
	struct ab_boot *b = &ab->boots[i];
	const struct ab_side *side = &ab->sides[b->side];
	struct lab_child_run j = { 0 };
	struct strbuf err = STRBUF_INIT, run = STRBUF_INIT, detail = STRBUF_INIT;
	char *root = xasprintf("%s/boot-%02zu-%s", ab->dir.buf, i + 1, side_name(ab, b->side));
	char *log = xasprintf("%s.log", root);

	strbuf_addf(&detail, "boot %zu/%zu (%s, round %u)", i + 1, ab->nr_boots, side_name(ab, b->side),
		    b->round);
	progress_show(pr, detail.buf, NULL, 0);
	j.kernel = side->kernel ? side->kernel : "debian";
	j.label = side->label;
	j.topo = ab->topo;
	j.suite = ab->suite;
	j.variant = b->side == 2 ? ab->variant.text : NULL;
	j.backend = ab->backend;
	j.uri = ab->uri;
	j.warm = ab->warm;
	j.trace = ab->trace;
	j.results_root = root;
	j.log_path = log;
	j.deadline_s = ab->deadline_s;
	if (lab_child_start(&j, &err) < 0) {
		progress_break(pr);
		error("%s", err.buf);
		snprintf(b->verdict, sizeof(b->verdict), "ERROR");
		b->status = -1;
	} else {
		b->status = lab_child_wait(&j);
		b->seconds = (double)(now_ns() - j.t_start_ns) / 1e9;
		if (lab_child_find_run(root, &run, b->verdict, sizeof(b->verdict)) == 0)
			b->run = strbuf_detach(&run);
		if (b->status == CHILD_TIMED_OUT)
			snprintf(b->verdict, sizeof(b->verdict), "HANG");
		else if (!b->verdict[0])
			snprintf(b->verdict, sizeof(b->verdict), "ERROR");
	}
	progress_item_done(pr, b->seconds);
	if (strcmp(b->verdict, "PASS")) {
		progress_break(pr);
		warning("boot %zu (%s) ended %s (exit %d); its log: %s", i + 1, side_name(ab, b->side),
			b->verdict, b->status, log);
	}
	ab_save(ab);
	free(root);
	free(log);
	strbuf_release(&err);
	strbuf_release(&detail);
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

int cmd_ab(int argc, const char **argv)
{
	const char *variant = NULL, *lbase = NULL, *ltest = NULL, *root = NULL, *arch = NULL, *clock = NULL;
	char *topo_arch = NULL;
	struct ab ab = { .rounds = 1, .dir = STRBUF_INIT };
	unsigned order[AB_MAX_ROUNDS * 2 * AB_MAX_SIDES];
	struct progress pr;
	char slug[300];
	int nr_pos, ret, bad = 0;
	const struct lab_option opts[] = {
		OPT_STRING("topo", &ab.topo, "topology spec or preset (required)"),
		OPT_STRING("arch", &arch, "guest architecture: x86_64 (default), arm64 or ppc64le"),
		OPT_STRING("base", &ab.sides[0].kernel, "the baseline kernel: debian, debian:6.12 and the like, a path or a build key"),
		OPT_STRING("test", &ab.sides[1].kernel, "the kernel under test"),
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
		OPT_STRING("clock", &clock, "wall (default) or virtual, for every boot: see lab run --help ($CLOCK)"),
		OPT_BOOL("warm", &ab.warm, "restore saved guests instead of booting each run (default cold: boot-to-boot variation belongs in each side's sample)"),
		OPT_BOOL("trace", &ab.trace, "every boot with the flight recorder (lab run --trace): decision and preemption rows beside time and latency"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, ab_usage, NULL, 0, &nr_pos);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	lab_clock_export(clock);
	if (!ab.topo || !ab.suite || !ab.sides[0].kernel || !ab.sides[1].kernel)
		die(LAB_EXIT_USAGE, "--topo, --base, --test and --suite are required (see lab ab --help)");
	if (arch) {
		/* every boot of the comparison gets it through the spec (arch=) */
		topo_arch = xasprintf("%s,arch=%s", ab.topo, arch);
		ab.topo = topo_arch;
	}
	ab_validate(&ab, variant, lbase, ltest);

	ab.nr_boots = ab_order(ab.nr_sides, ab.rounds, order, ARRAY_SIZE(order));
	ab.boots = xcalloc(ab.nr_boots, sizeof(*ab.boots));
	for (size_t i = 0; i < ab.nr_boots; i++) {
		ab.boots[i].side = order[i];
		ab.boots[i].round = (unsigned)(i / (2 * ab.nr_sides)) + 1;
	}
	snprintf(slug, sizeof(slug), "ab-%s", ab.topo);
	if (results_create_run(root ? root : results_root(), slug, &ab.dir) < 0)
		return LAB_EXIT_FAIL;
	printf("ab: %s, suite '%s', %u round%s, %zu boots in the order", ab.topo, ab.suite, ab.rounds,
	       ab.rounds == 1 ? "" : "s", ab.nr_boots);
	for (size_t i = 0; i < ab.nr_boots; i++)
		printf(" %s", ab.sides[ab.boots[i].side].label);
	printf("\nab: directory %s\n", ab.dir.buf);
	fflush(stdout);
	ab_save(&ab);

	progress_init(&pr, "ab", (unsigned)ab.nr_boots, 1);
	for (size_t i = 0; i < ab.nr_boots; i++) {
		ab_boot(&ab, i, &pr);
		bad |= !!strcmp(ab.boots[i].verdict, "PASS");
		if (ab.boots[i].status == LAB_EXIT_USAGE) {
			/* lab run found bad input: every later boot would too */
			struct strbuf line = STRBUF_INIT;
			char *log = xasprintf("%s/boot-%02zu-%s.log", ab.dir.buf, i + 1,
					      side_name(&ab, ab.boots[i].side));

			lab_child_error(log, &line);
			progress_break(&pr);
			lab_run_discard(ab.dir.buf);
			die(LAB_EXIT_USAGE, "boot %zu (%s): %s", i + 1, side_name(&ab, ab.boots[i].side),
			    line.len ? line.buf : "lab run refused its input");
		}
		if (ab.nr_sides == 3)
			recheck_variant(&ab, &pr);
	}
	progress_show(&pr, "all boots done", NULL, 0);
	progress_break(&pr);

	ret = ab_compare(&ab);
	if (bad && ret == LAB_EXIT_PASS)
		ret = LAB_EXIT_FAIL;
	printf("ab: every run is listed in %s/ab.json; the comparison is in compare.txt and "
	       "compare.json\n", ab.dir.buf);
	for (size_t i = 0; i < ab.nr_boots; i++)
		free(ab.boots[i].run);
	free(ab.boots);
	for (unsigned s = 0; s < ab.nr_sides; s++)
		free(ab.sides[s].label);
	strbuf_release(&ab.dir);
	free(topo_arch);
	return ret;
}
