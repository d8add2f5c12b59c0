/* test-schedknob.c - unit tests of common/kversion.c, common/schedknob.c and
 * host-tools/run/schedknob.c: releases, knob lists, preemption modes, the
 * kernel checks before boot and the guest's report after it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/kversion.h"
#include "common/schedknob.h"
#include "run/labrun.h"
#include "run/schedfeat.h"
#include "run/schedknob.h"

static void test_kversion(void **state)
{
	unsigned maj, min;

	(void)state;
	assert_int_equal(kversion_parse("6.12.118+deb12-amd64", &maj, &min), 0);
	assert_int_equal(maj, 6);
	assert_int_equal(min, 12);
	assert_int_equal(kversion_parse("7.2", &maj, &min), 0);
	assert_int_equal(kversion_parse("6.13-rc3", &maj, &min), 0);
	assert_int_equal(min, 13);
	assert_int_equal(kversion_parse("unknown", &maj, &min), -1);
	assert_int_equal(kversion_parse("6", &maj, &min), -1);
	assert_int_equal(kversion_parse("6.x", &maj, &min), -1);
	assert_int_equal(kversion_parse("6.12a", &maj, &min), -1);
	assert_int_equal(kversion_parse("", &maj, &min), -1);
	assert_int_equal(kversion_parse(NULL, &maj, &min), -1);
	assert_int_equal(kversion_parse("99999999999.1", &maj, &min), -1);

	/* by number, not as text: 6.1 is older than 6.12, 7.2 newer */
	assert_int_equal(kversion_at_least("6.1.0-57-amd64", "6.12"), 0);
	assert_int_equal(kversion_at_least("6.1.0-57-amd64", "6.6"), 0);
	assert_int_equal(kversion_at_least("6.12.118+deb12-amd64", "6.12"), 1);
	assert_int_equal(kversion_at_least("6.12.118+deb12-amd64", "6.6"), 1);
	assert_int_equal(kversion_at_least("7.2.13+deb14-amd64", "6.12"), 1);
	assert_int_equal(kversion_at_least("5.19.0", "6.6"), 0);
	assert_int_equal(kversion_at_least("unknown", "6.6"), -1);
}

static void test_knob_list(void **state)
{
	struct sched_knob_set s;
	char err[256], buf[64];

	(void)state;
	assert_int_equal(sched_knob_parse("base_slice_ns=3000000", 21, &s, err, sizeof(err)), 0);
	assert_int_equal(s.nr, 1);
	assert_string_equal(s.v[0].knob->name, "base_slice_ns");
	assert_true(s.v[0].value == 3000000);
	assert_int_equal(sched_knob_join(&s, ',', buf, sizeof(buf)), 21);
	assert_string_equal(buf, "base_slice_ns=3000000");
	/* cut, but the length it needed */
	assert_int_equal(sched_knob_join(&s, ',', buf, 5), 21);
	assert_string_equal(buf, "base");

#define BAD(text, msg)                                                                    \
	do {                                                                              \
		assert_int_equal(sched_knob_parse(text, strlen(text), &s, err, sizeof(err)), -1); \
		assert_string_equal(err, msg);                                            \
	} while (0)
	BAD("", "empty item in the list of knobs");
	BAD("base_slice_ns=3000000,", "empty item in the list of knobs");
	BAD("base_slice_ns", "'base_slice_ns' is not NAME=VALUE");
	BAD("min_granularity_ns=3000000", "unknown scheduler knob 'min_granularity_ns' (known: base_slice_ns)");
	BAD("base_slice_ns=", "base_slice_ns must be a number from 100000 to 100000000, not ''");
	BAD("base_slice_ns=3ms", "base_slice_ns must be a number from 100000 to 100000000, not '3ms'");
	BAD("base_slice_ns=-1", "base_slice_ns must be a number from 100000 to 100000000, not '-1'");
	BAD("base_slice_ns=99999", "base_slice_ns must be a number from 100000 to 100000000, not '99999'");
	BAD("base_slice_ns=100000001", "base_slice_ns must be a number from 100000 to 100000000, not '100000001'");
	BAD("base_slice_ns=99999999999999999999999", "base_slice_ns must be a number from 100000 to 100000000, "
	    "not '99999999999999999999999'");
	BAD("base_slice_ns=100000,base_slice_ns=200000", "scheduler knob base_slice_ns is named twice");
	BAD("base_slice_ns=1\n00000", "base_slice_ns must be a number from 100000 to 100000000, not '1?00000'");
#undef BAD
	assert_int_equal(sched_knob_parse("x", 1, &s, NULL, 0), -1);
	assert_int_equal(sched_knob_parse("base_slice_ns=100000", 20, &s, NULL, 0), 0);
}

static void test_knob_number(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(sched_knob_number("3000000", 7, &v), 0);
	assert_true(v == 3000000);
	/* as a debugfs file reads */
	assert_int_equal(sched_knob_number(" 1400000\n", 9, &v), 0);
	assert_true(v == 1400000);
	assert_int_equal(sched_knob_number("", 0, &v), -1);
	assert_int_equal(sched_knob_number(" ", 1, &v), -1);
	assert_int_equal(sched_knob_number("1 2", 3, &v), -1);
	assert_int_equal(sched_knob_number("18446744073709551615", 20, &v), 0);
	assert_int_equal(sched_knob_number("18446744073709551616", 20, &v), -1);
}

static void test_preempt_file(void **state)
{
	unsigned offered;
	int active;
	char err[128];
	const char *t;

	(void)state;
	/* Debian 6.1 and 6.12, booted with their default */
	t = "none (voluntary) full ";
	assert_int_equal(sched_preempt_parse(t, strlen(t), &offered, &active, err, sizeof(err)), 0);
	assert_int_equal(offered, 7);
	assert_int_equal(active, SCHED_PREEMPT_VOLUNTARY);
	/* Debian 7.2: lazy preemption, full and lazy only */
	t = "full (lazy)";
	assert_int_equal(sched_preempt_parse(t, strlen(t), &offered, &active, err, sizeof(err)), 0);
	assert_int_equal(offered, (1u << SCHED_PREEMPT_FULL) | (1u << SCHED_PREEMPT_LAZY));
	assert_int_equal(active, SCHED_PREEMPT_LAZY);
	t = "none voluntary full";
	assert_int_equal(sched_preempt_parse(t, strlen(t), &offered, &active, err, sizeof(err)), -1);
	assert_string_equal(err, "no active preemption mode (in parentheses)");
	t = "(none) (full)";
	assert_int_equal(sched_preempt_parse(t, strlen(t), &offered, &active, err, sizeof(err)), -1);
	assert_string_equal(err, "two active preemption modes");
	t = "none (rt)";
	assert_int_equal(sched_preempt_parse(t, strlen(t), &offered, &active, err, sizeof(err)), -1);
	assert_string_equal(err, "'rt' is not a preemption mode");
	t = "(full) full";
	assert_int_equal(sched_preempt_parse(t, strlen(t), &offered, &active, err, sizeof(err)), -1);
	assert_int_equal(sched_preempt_parse("()", 2, &offered, &active, err, sizeof(err)), -1);
	assert_int_equal(sched_preempt_parse("", 0, &offered, &active, NULL, 0), -1);

	assert_string_equal(sched_preempt_name(SCHED_PREEMPT_LAZY), "lazy");
	assert_string_equal(sched_preempt_name(7), "?");
	assert_int_equal(sched_preempt_find("full", 4), SCHED_PREEMPT_FULL);
	assert_int_equal(sched_preempt_find("ful", 3), -1);
}

static void test_requests(void **state)
{
	struct sched_knob_set s;
	struct strbuf err = STRBUF_INIT;
	int mode;

	(void)state;
	assert_int_equal(sched_knob_request("--sched-knob", "base_slice_ns=3000000", &s, &err), 0);
	assert_int_equal(sched_knob_check_release(&s, "6.12.118+deb12-amd64", &err), 0);
	assert_int_equal(sched_knob_check_release(&s, "6.6.0", &err), 0);
	/* a release the lab cannot read: the boot tells */
	assert_int_equal(sched_knob_check_release(&s, "unknown", &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(sched_knob_check_release(&s, "6.1.0-57-amd64", &err), -1);
	assert_string_equal(err.buf, "kernel 6.1.0-57-amd64 has no base_slice_ns: it came with Linux 6.6 "
			    "(before it: min_granularity_ns)");
	strbuf_reset(&err);
	assert_int_equal(sched_knob_request("--variant base_slice_ns", "x=1", &s, &err), -1);
	assert_string_equal(err.buf, "--variant base_slice_ns: unknown scheduler knob 'x' (known: base_slice_ns)");
	strbuf_reset(&err);

	assert_int_equal(sched_preempt_request("--preempt", "lazy", &mode, &err), 0);
	assert_int_equal(mode, SCHED_PREEMPT_LAZY);
	assert_int_equal(sched_preempt_request("--preempt", "Full", &mode, &err), -1);
	assert_string_equal(err.buf, "--preempt must be one of none|voluntary|full|lazy, not 'Full'");
	strbuf_release(&err);
}

/* The lines that matter of Debian's configs: 6.1 and 6.12 (voluntary by
 * default, dynamic), 7.2 (lazy, dynamic, no none or voluntary), and a
 * kernel built without PREEMPT_DYNAMIC. */
static const char config_612[] =
	"CONFIG_PREEMPT_BUILD=y\n# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n"
	"# CONFIG_PREEMPT is not set\n# CONFIG_PREEMPT_RT is not set\nCONFIG_PREEMPT_DYNAMIC=y\n";
static const char config_72[] =
	"CONFIG_PREEMPT_BUILD=y\nCONFIG_ARCH_HAS_PREEMPT_LAZY=y\n# CONFIG_PREEMPT is not set\n"
	"CONFIG_PREEMPT_LAZY=y\n# CONFIG_PREEMPT_RT is not set\nCONFIG_PREEMPT_DYNAMIC=y\n";
static const char config_static[] =
	"# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT is not set\n"
	"# CONFIG_PREEMPT_DYNAMIC is not set\n# CONFIG_PREEMPT_NONE_BUILD is not set\n";

static void test_preempt_config(void **state)
{
	struct strbuf err = STRBUF_INIT;

	(void)state;
	for (int m = SCHED_PREEMPT_NONE; m <= SCHED_PREEMPT_FULL; m++)
		assert_int_equal(sched_preempt_check_config(m, config_612, "6.12", &err), 0);
	assert_int_equal(sched_preempt_check_config(SCHED_PREEMPT_LAZY, config_612, "6.12", &err), -1);
	assert_string_equal(err.buf, "kernel 6.12 has no CONFIG_PREEMPT_LAZY: preempt=lazy needs it "
			    "(Linux 6.13+, and an arch that has it)");
	strbuf_reset(&err);

	assert_int_equal(sched_preempt_check_config(SCHED_PREEMPT_FULL, config_72, "7.2", &err), 0);
	assert_int_equal(sched_preempt_check_config(SCHED_PREEMPT_LAZY, config_72, "7.2", &err), 0);
	assert_int_equal(sched_preempt_check_config(SCHED_PREEMPT_NONE, config_72, "7.2", &err), -1);
	assert_string_equal(err.buf, "kernel 7.2 does not offer preempt=none: its config has no "
			    "CONFIG_PREEMPT_NONE (a kernel with lazy preemption may offer only full and lazy)");
	strbuf_reset(&err);
	assert_int_equal(sched_preempt_check_config(SCHED_PREEMPT_VOLUNTARY, config_72, "7.2", &err), -1);
	strbuf_reset(&err);

	/* no dynamic preemption: every mode refused, the first reason first */
	for (int m = 0; m < SCHED_PREEMPT_NR; m++) {
		assert_int_equal(sched_preempt_check_config(m, config_static, "6.1", &err), -1);
		assert_non_null(strstr(err.buf, "has no CONFIG_PREEMPT_DYNAMIC"));
		assert_null(strchr(err.buf, '\n'));
		strbuf_reset(&err);
	}
	/* a prefix of another option is not the option */
	assert_int_equal(sched_preempt_check_config(SCHED_PREEMPT_NONE,
						    "CONFIG_PREEMPT_DYNAMIC=y\n# CONFIG_PREEMPT_NONE_BUILD is not set\n",
						    "x", &err), -1);
	strbuf_release(&err);
}

static const char snapshot_612[] =
	"/proc/sys/kernel/osrelease=6.12.118+deb12-amd64\n"
	"/sys/kernel/debug/sched/features=PLACE_LAG RUN_TO_PARITY\n"
	"/sys/kernel/debug/sched/preempt=none voluntary (full)\n"
	"/sys/kernel/debug/sched/base_slice_ns=3000000\n"
	"/sys/devices/system/cpu/online=0-1";

static void test_from_snapshot(void **state)
{
	struct sched_knob_state st;
	struct strbuf err = STRBUF_INIT;
	const char *t;

	(void)state;
	assert_int_equal(sched_knob_from_snapshot(snapshot_612, strlen(snapshot_612), &st, &err), 0);
	assert_int_equal(st.have, 1);
	assert_true(st.value[0] == 3000000);
	assert_int_equal(st.preempt_found, 1);
	assert_int_equal(st.preempt_active, SCHED_PREEMPT_FULL);
	assert_int_equal(st.preempt_offered, 7);
	/* reported again after a warm restore set the knob: the last line wins */
	t = "/sys/kernel/debug/sched/base_slice_ns=3000000\n/sys/kernel/debug/sched/base_slice_ns=750000\n";
	assert_int_equal(sched_knob_from_snapshot(t, strlen(t), &st, &err), 0);
	assert_true(st.value[0] == 750000);
	/* 6.1: neither file's line is there but the features' */
	t = "/sys/kernel/debug/sched/features=WA_IDLE\n/sys/kernel/debug/sched/base_slice_nsx=1\n";
	assert_int_equal(sched_knob_from_snapshot(t, strlen(t), &st, &err), 0);
	assert_int_equal(st.have, 0);
	assert_int_equal(st.preempt_found, 0);
	assert_int_equal(st.preempt_active, -1);
	t = "/sys/kernel/debug/sched/base_slice_ns=fast\n";
	assert_int_equal(sched_knob_from_snapshot(t, strlen(t), &st, &err), -1);
	assert_string_equal(err.buf, "the guest's /sys/kernel/debug/sched/base_slice_ns is not a number");
	strbuf_reset(&err);
	t = "/sys/kernel/debug/sched/preempt=none full\n";
	assert_int_equal(sched_knob_from_snapshot(t, strlen(t), &st, &err), -1);
	assert_string_equal(err.buf, "the guest's /sys/kernel/debug/sched/preempt: no active preemption "
			    "mode (in parentheses)");
	strbuf_release(&err);
}

/* A run that booted, as lab_run_start() leaves it: a directory, a snapshot. */
static void fake_run(struct lab_run *r, char *dir, const char *snapshot, const char *knobs, int mode)
{
	struct strbuf err = STRBUF_INIT;
	char *f;

	lab_run_init(r);
	assert_non_null(mkdtemp(dir));
	strbuf_addstr(&r->dir, dir);
	f = xasprintf("%s/run.json", dir);
	assert_int_equal(write_file_atomic(f, "{}\n", 3), 0);
	free(f);
	strbuf_addstr(&r->s.sysfs, snapshot);
	snprintf(r->kp.release, sizeof(r->kp.release), "6.12.118+deb12-amd64");
	if (knobs)
		assert_int_equal(sched_knob_request("--sched-knob", knobs, &r->knobs, &err), 0);
	r->preempt_mode = mode;
	r->verdict = VERDICT_PASS;
	strbuf_release(&err);
}

static struct json_object *report_of(const char *dir)
{
	char *f = xasprintf("%s/sched-knobs.json", dir);
	struct json_object *o = json_object_from_file(f);

	free(f);
	return o;
}

static void remove_run(const char *dir)
{
	lab_run_discard(dir);
}

static void test_check_after_boot(void **state)
{
	char dir[] = "/tmp/schedknob-test-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct json_object *o, *v;
	struct lab_run r;
	struct stat st;

	(void)state;
	/* asked and in effect: PASS, everything recorded */
	fake_run(&r, dir, snapshot_612, "base_slice_ns=3000000", SCHED_PREEMPT_FULL);
	assert_int_equal(lab_run_sched_knob_check(&r, &err), 0);
	assert_int_equal(r.verdict, VERDICT_PASS);
	o = report_of(dir);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "knobs", &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    "{\"base_slice_ns\":3000000}");
	assert_true(json_object_object_get_ex(o, "requested", &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    "{\"base_slice_ns\":3000000,\"preempt\":\"full\"}");
	assert_true(json_object_object_get_ex(o, "preempt", &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    "{\"active\":\"full\",\"offered\":[\"none\",\"voluntary\",\"full\"]}");
	json_object_put(o);
	remove_run(dir);
	lab_run_release(&r);

	/* offered but not in effect: FAIL with the reason */
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
	fake_run(&r, dir, snapshot_612, "base_slice_ns=2000000", SCHED_PREEMPT_NONE);
	assert_int_equal(lab_run_sched_knob_check(&r, &err), 0);
	assert_int_equal(r.verdict, VERDICT_FAIL);
	assert_string_equal(r.reason, "base_slice_ns=2000000 not in effect: the guest reads 3000000");
	remove_run(dir);
	lab_run_release(&r);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
	fake_run(&r, dir, snapshot_612, NULL, SCHED_PREEMPT_VOLUNTARY);
	assert_int_equal(lab_run_sched_knob_check(&r, &err), 0);
	assert_string_equal(r.reason, "preempt=voluntary not in effect: the guest runs full");
	remove_run(dir);
	lab_run_release(&r);

	/* a mode the kernel does not offer: bad input, the run removed */
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
	fake_run(&r, dir, snapshot_612, NULL, SCHED_PREEMPT_LAZY);
	assert_int_equal(lab_run_sched_knob_check(&r, &err), -1);
	assert_string_equal(err.buf, "kernel 6.12.118+deb12-amd64 does not offer preempt=lazy (it offers: "
			    "none voluntary full)");
	assert_int_equal(stat(dir, &st), -1);
	strbuf_reset(&err);
	lab_run_release(&r);

	/* a kernel without the knob's file, or without dynamic preemption */
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
	fake_run(&r, dir, "/sys/kernel/debug/sched/preempt=none (voluntary) full\n", "base_slice_ns=3000000", -1);
	assert_int_equal(lab_run_sched_knob_check(&r, &err), -1);
	assert_non_null(strstr(err.buf, "has no /sys/kernel/debug/sched/base_slice_ns"));
	assert_int_equal(stat(dir, &st), -1);
	strbuf_reset(&err);
	lab_run_release(&r);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
	fake_run(&r, dir, "/sys/devices/system/cpu/online=0-1\n", NULL, SCHED_PREEMPT_FULL);
	assert_int_equal(lab_run_sched_knob_check(&r, &err), -1);
	assert_string_equal(err.buf, "kernel 6.12.118+deb12-amd64 has no /sys/kernel/debug/sched/preempt: "
			    "preempt=full needs CONFIG_PREEMPT_DYNAMIC (and debugfs)");
	strbuf_reset(&err);
	lab_run_release(&r);

	/* nothing asked: the guest's values are recorded, the verdict untouched */
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
	fake_run(&r, dir, snapshot_612, NULL, -1);
	assert_int_equal(lab_run_sched_knob_check(&r, &err), 0);
	assert_int_equal(r.verdict, VERDICT_PASS);
	o = report_of(dir);
	assert_non_null(o);
	json_object_put(o);
	remove_run(dir);
	lab_run_release(&r);
	strbuf_release(&err);
}

static void test_resolve_cmdline(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_run r;

	(void)state;
	lab_run_init(&r);
	snprintf(r.kp.release, sizeof(r.kp.release), "6.12.118+deb12-amd64");
	assert_int_equal(sched_knob_request("--sched-knob", "base_slice_ns=3000000", &r.knobs, &err), 0);
	r.preempt_mode = SCHED_PREEMPT_FULL;
	assert_int_equal(lab_run_sched_knob_resolve(&r, &err), 0);
	assert_string_equal(r.cmdline.buf, " lab.sched_knob=base_slice_ns=3000000 preempt=full");
	lab_run_release(&r);

	lab_run_init(&r);
	r.append = "quiet preempt=none";
	assert_int_equal(lab_run_sched_knob_resolve(&r, &err), -1);
	assert_string_equal(err.buf, "--append: choose the preemption mode with --preempt, which checks "
			    "and records it");
	strbuf_reset(&err);
	/* a key that only ends in preempt= is another one */
	r.append = "xpreempt=none";
	assert_int_equal(lab_run_sched_knob_resolve(&r, &err), 0);
	r.append = "lab.sched_knob=base_slice_ns=1";
	assert_int_equal(lab_run_sched_knob_resolve(&r, &err), -1);
	lab_run_release(&r);

	lab_run_init(&r);
	snprintf(r.kp.release, sizeof(r.kp.release), "6.1.0-57-amd64");
	assert_int_equal(sched_knob_request("--sched-knob", "base_slice_ns=3000000", &r.knobs, &err), 0);
	assert_int_equal(lab_run_sched_knob_resolve(&r, &err), -1);
	assert_int_equal(r.cmdline.len, 0);
	lab_run_release(&r);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kversion),
		cmocka_unit_test(test_knob_list),
		cmocka_unit_test(test_knob_number),
		cmocka_unit_test(test_preempt_file),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_preempt_config),
		cmocka_unit_test(test_from_snapshot),
		cmocka_unit_test(test_check_after_boot),
		cmocka_unit_test(test_resolve_cmdline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
