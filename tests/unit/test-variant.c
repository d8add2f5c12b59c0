/* test-variant.c - unit tests of host-tools/run/variant.c: the kinds of
 * --variant (lab ab, lab matrix), their checks, lab run options and labels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/variant.h"

static void parse_ok(const char *text, struct lab_variant *v)
{
	struct strbuf err = STRBUF_INIT;

	if (variant_parse(text, v, &err) < 0)
		fail_msg("%s: %s", text, err.buf);
	strbuf_release(&err);
}

static void parse_bad(const char *text, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_variant v;

	assert_int_equal(variant_parse(text, &v, &err), -1);
	assert_string_equal(err.buf, msg);
	strbuf_release(&err);
}

static char *args_of(const struct lab_variant *v)
{
	struct strvec a = STRVEC_INIT;
	struct strbuf s = STRBUF_INIT;

	variant_run_args(v, &a);
	for (size_t i = 0; i < a.nr; i++)
		strbuf_addf(&s, "%s%s", i ? " " : "", a.v[i]);
	strvec_clear(&a);
	return strbuf_detach(&s);
}

/* Every kind: its side, the lab run options that boot it, its column. */
static void test_kinds(void **state)
{
	static const struct {
		const char *text, *side, *args, *label;
	} cases[] = {
		{ "smt=off", "smt-off", "--smt off", "tip-smt-off" },
		{ "sched_feat=NO_WA_IDLE,NO_SIS_UTIL", "sched-feat", "--sched-feat NO_WA_IDLE,NO_SIS_UTIL",
		  "tip-NO_WA_IDLE,NO_SIS_UTIL" },
		{ "preempt=full", "preempt", "--preempt full", "tip-preempt=full" },
		{ "preempt=lazy", "preempt", "--preempt lazy", "tip-preempt=lazy" },
		{ "base_slice_ns=3000000", "base-slice-ns", "--sched-knob base_slice_ns=3000000",
		  "tip-base_slice_ns=3000000" },
	};
	struct lab_variant v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *args, *label;

		parse_ok(cases[i].text, &v);
		assert_string_equal(v.text, cases[i].text);
		assert_string_equal(v.side, cases[i].side);
		args = args_of(&v);
		assert_string_equal(args, cases[i].args);
		label = variant_label(&v, "tip");
		assert_string_equal(label, cases[i].label);
		free(args);
		free(label);
	}
}

static void test_bad(void **state)
{
	(void)state;
	parse_bad("smt=on", "--variant smt= takes only 'off', not 'on'");
	parse_bad("nosmt", "unknown --variant 'nosmt' (known: smt=off, sched_feat=NO_X,Y, "
		  "preempt=none|voluntary|full|lazy, scx=NAME|none, base_slice_ns=N)");
	parse_bad("min_granularity_ns=1000000", "unknown --variant 'min_granularity_ns=1000000' (known: "
		  "smt=off, sched_feat=NO_X,Y, preempt=none|voluntary|full|lazy, scx=NAME|none, base_slice_ns=N)");
	parse_bad("sched_feat=no_wa_idle", "--variant sched_feat: 'no_wa_idle' is not a scheduler feature "
		  "name (A-Z and _, an optional NO_, at most 63 characters)");
	parse_bad("preempt=rt", "--variant preempt must be one of none|voluntary|full|lazy, not 'rt'");
	parse_bad("base_slice_ns=3ms", "--variant base_slice_ns: base_slice_ns must be a number from "
		  "100000 to 100000000, not '3ms'");
	parse_bad("base_slice_ns=1,base_slice_ns=2", "--variant base_slice_ns: base_slice_ns must be a "
		  "number from 100000 to 100000000, not '1'");
}

/* A long feature list names the side instead; the base label is cut so
 * the whole stays within 64 characters. */
static void test_labels(void **state)
{
	struct lab_variant v;
	char base[80], *l;

	(void)state;
	parse_ok("sched_feat=NO_WA_IDLE,NO_SIS_UTIL,NO_TTWU_QUEUE,NO_WA_BIAS,NO_WA_WEIGHT", &v);
	l = variant_label(&v, "tip");
	assert_string_equal(l, "tip-sched-feat");
	free(l);
	memset(base, 'k', sizeof(base) - 1);
	base[sizeof(base) - 1] = '\0';
	parse_ok("base_slice_ns=3000000", &v);
	l = variant_label(&v, base);
	assert_int_equal(strlen(l), 64);
	assert_non_null(strstr(l, "k-base_slice_ns=3000000"));
	free(l);
}

static void test_topo(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_variant v;
	struct topo t;

	(void)state;
	parse_ok("smt=off", &v);
	assert_int_equal(topo_parse("1s2c2t", &t, &err), 0);
	assert_int_equal(variant_check_topo(&v, &t, "1s2c2t", &err), 0);
	assert_int_equal(topo_parse("1s2c", &t, &err), 0);
	assert_int_equal(variant_check_topo(&v, &t, "1s2c", &err), -1);
	assert_string_equal(err.buf, "--variant smt=off needs a topology with SMT: '1s2c' has one thread per core");
	strbuf_reset(&err);
	/* the others run on any topology */
	parse_ok("preempt=full", &v);
	assert_int_equal(variant_check_topo(&v, &t, "1s2c", &err), 0);
	strbuf_release(&err);
}

static void test_kernel(void **state)
{
	char dir[] = "/tmp/variant-test-XXXXXX", *config;
	struct strbuf err = STRBUF_INIT;
	struct kernel_paths kp;
	struct lab_variant v;
	int known;
	FILE *f;

	(void)state;
	memset(&kp, 0, sizeof(kp));
	snprintf(kp.release, sizeof(kp.release), "6.1.0-57-amd64");
	parse_ok("base_slice_ns=3000000", &v);
	assert_int_equal(variant_check_kernel(&v, &kp, &known, &err), -1);
	assert_string_equal(err.buf, "--variant base_slice_ns=3000000: kernel 6.1.0-57-amd64 has no "
			    "base_slice_ns: it came with Linux 6.6 (before it: min_granularity_ns)");
	strbuf_reset(&err);
	snprintf(kp.release, sizeof(kp.release), "6.12.118+deb12-amd64");
	assert_int_equal(variant_check_kernel(&v, &kp, &known, &err), 0);
	assert_int_equal(known, 1);

	/* the preemption mode by the kernel's config; without one the boot tells */
	parse_ok("preempt=lazy", &v);
	assert_int_equal(variant_check_kernel(&v, &kp, &known, &err), 0);
	assert_int_equal(known, 0);
	assert_non_null(mkdtemp(dir));
	config = xasprintf("%s/config", dir);
	f = fopen(config, "w");
	assert_non_null(f);
	fputs("# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\n", f);
	fclose(f);
	snprintf(kp.config, sizeof(kp.config), "%s", config);
	assert_int_equal(variant_check_kernel(&v, &kp, &known, &err), -1);
	assert_string_equal(err.buf, "--variant preempt=lazy: kernel 6.12.118+deb12-amd64 has no "
			    "CONFIG_PREEMPT_LAZY: preempt=lazy needs it (Linux 6.13+, and an arch that has it)");
	parse_ok("preempt=none", &v);
	assert_int_equal(variant_check_kernel(&v, &kp, &known, &err), 0);
	assert_int_equal(known, 1);
	/* smt=off asks nothing of the kernel */
	parse_ok("smt=off", &v);
	assert_int_equal(variant_check_kernel(&v, &kp, &known, &err), 0);
	assert_int_equal(known, 1);
	unlink(config);
	rmdir(dir);
	free(config);
	strbuf_release(&err);
}

static void test_json(void **state)
{
	struct json_object *o = json_object_new_object();
	struct lab_variant v;

	(void)state;
	parse_ok("sched_feat=NO_WA_IDLE", &v);
	variant_json(&v, o);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"variant\":\"sched_feat=NO_WA_IDLE\",\"sched_feat\":[\"NO_WA_IDLE\"]}");
	json_object_put(o);
	o = json_object_new_object();
	json_object_object_add(o, "smt", json_object_new_string("on"));
	parse_ok("smt=off", &v);
	variant_json(&v, o);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"smt\":\"off\",\"variant\":\"smt=off\"}");
	json_object_put(o);
}

/* a variant given with lab ab's --test-variant: every message names it */
static void test_other_option(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_variant v;
	struct topo t;
	const struct {
		const char *text, *msg;
	} bad[] = {
		{ "smt=on", "--test-variant smt= takes only 'off', not 'on'" },
		{ "nosmt", "unknown --test-variant 'nosmt' (known: " },
		{ "sched_feat=no_wa_idle", "--test-variant sched_feat: 'no_wa_idle' is not a scheduler" },
		{ "preempt=rt", "--test-variant preempt must be one of none|voluntary|full|lazy" },
		{ "base_slice_ns=3ms", "--test-variant base_slice_ns: base_slice_ns must be a number" },
		{ "scx=nosuch", "--test-variant scx: unknown sched_ext scheduler 'nosuch'" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		strbuf_reset(&err);
		assert_int_equal(variant_parse_as("--test-variant", bad[i].text, &v, &err), -1);
		if (strncmp(err.buf, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("%s: '%s'", bad[i].text, err.buf);
	}
	strbuf_reset(&err);
	assert_int_equal(variant_parse_as("--test-variant", "smt=off", &v, &err), 0);
	assert_int_equal(topo_parse("1s2c", &t, &err), 0);
	assert_int_equal(variant_check_topo(&v, &t, "1s2c", &err), -1);
	assert_string_equal(err.buf, "--test-variant smt=off needs a topology with SMT: '1s2c' has one "
				     "thread per core");
	/* plain variant_parse() keeps --variant */
	strbuf_reset(&err);
	assert_int_equal(variant_parse("smt=on", &v, &err), -1);
	assert_string_equal(err.buf, "--variant smt= takes only 'off', not 'on'");
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_topo),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_other_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
