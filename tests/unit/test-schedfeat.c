/* test-schedfeat.c - unit tests of common/schedfeat.c and host-tools/run/schedfeat.c:
 * feature names, lists, the guest's report, the per-kernel cache. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/schedfeat.h"
#include "run/schedfeat.h"

/* As Debian's 6.1 kernel prints /sys/kernel/debug/sched/features (with
 * WA_IDLE turned off), folded onto one line by the runner's probe. */
static const char features_61[] =
	"GENTLE_FAIR_SLEEPERS START_DEBIT NO_NEXT_BUDDY LAST_BUDDY CACHE_HOT_BUDDY "
	"WAKEUP_PREEMPTION NO_HRTICK NO_HRTICK_DL NO_DOUBLE_TICK NONTASK_CAPACITY TTWU_QUEUE "
	"NO_SIS_PROP SIS_UTIL NO_WARN_DOUBLE_CLOCK NO_RT_PUSH_IPI NO_RT_RUNTIME_SHARE NO_LB_MIN "
	"ATTACH_AGE_LOAD NO_WA_IDLE WA_WEIGHT WA_BIAS UTIL_EST UTIL_EST_FASTUP NO_LATENCY_WARN "
	"NI_RANDOM ALT_PERIOD BASE_SLICE";

static int tok(const char *s)
{
	return sched_feat_token_ok(s, strlen(s));
}

static void test_token_syntax(void **state)
{
	char long_name[SCHED_FEAT_NAME_MAX + 2];

	(void)state;
	assert_int_equal(tok("WA_IDLE"), 0);
	assert_int_equal(tok("NO_WA_IDLE"), 0);
	assert_int_equal(tok("X"), 0);
	assert_int_equal(tok("NO_X"), 0);
	/* "NO_" alone names no feature */
	assert_int_equal(tok("NO_"), -1);
	assert_int_equal(tok(""), -1);
	assert_int_equal(tok("wa_idle"), -1);
	assert_int_equal(tok("WA IDLE"), -1);
	assert_int_equal(tok("_WA"), -1);
	assert_int_equal(tok("NO__WA"), -1);
	assert_int_equal(tok("WA1"), -1);
	assert_int_equal(tok("WA-IDLE"), -1);
	assert_int_equal(tok("NO_wa"), -1);
	memset(long_name, 'A', sizeof(long_name) - 1);
	long_name[SCHED_FEAT_NAME_MAX] = '\0';
	assert_int_equal(tok(long_name), 0);
	long_name[SCHED_FEAT_NAME_MAX] = 'A';
	long_name[SCHED_FEAT_NAME_MAX + 1] = '\0';
	assert_int_equal(tok(long_name), -1);
	assert_string_equal(sched_feat_base("NO_WA_IDLE"), "WA_IDLE");
	assert_string_equal(sched_feat_base("WA_IDLE"), "WA_IDLE");
	assert_int_equal(sched_feat_is_on("NO_WA_IDLE"), 0);
	assert_int_equal(sched_feat_is_on("WA_IDLE"), 1);
}

static void test_user_list(void **state)
{
	struct sched_feat_list *l = malloc(sizeof(*l));
	char err[256], buf[64];
	const char *in = "NO_WA_IDLE,SIS_PROP,NO_TTWU_QUEUE";

	(void)state;
	assert_int_equal(sched_feat_list_parse(in, strlen(in), ',', SCHED_FEAT_WANT_MAX, l, err,
					       sizeof(err)), 0);
	assert_int_equal(l->nr, 3);
	assert_string_equal(l->name[0], "NO_WA_IDLE");
	assert_string_equal(l->name[1], "SIS_PROP");
	assert_int_equal(sched_feat_find(l, "WA_IDLE"), 0);
	assert_int_equal(sched_feat_find(l, "NO_SIS_PROP"), 1);
	assert_int_equal(sched_feat_find(l, "SIS_UTIL"), -1);
	assert_int_equal(sched_feat_join(l, ',', buf, sizeof(buf)), strlen(in));
	assert_string_equal(buf, in);
	/* too small a buffer: cut, NUL-terminated, the length it needed */
	assert_int_equal(sched_feat_join(l, ' ', buf, 8), strlen(in));
	assert_string_equal(buf, "NO_WA_I");

	assert_int_equal(sched_feat_list_parse("", 0, ',', 16, l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty"));
	assert_int_equal(sched_feat_list_parse("A,", 2, ',', 16, l, err, sizeof(err)), -1);
	assert_int_equal(sched_feat_list_parse("A,,B", 4, ',', 16, l, err, sizeof(err)), -1);
	assert_int_equal(sched_feat_list_parse("A, B", 4, ',', 16, l, err, sizeof(err)), -1);
	assert_string_equal(err, "' B' is not a scheduler feature name (A-Z and _, an optional NO_, "
			    "at most 63 characters)");
	assert_int_equal(sched_feat_list_parse("WA_IDLE,NO_WA_IDLE", 18, ',', 16, l, err, sizeof(err)), -1);
	assert_string_equal(err, "scheduler feature WA_IDLE is named twice");
	assert_int_equal(sched_feat_list_parse("A,B,C", 5, ',', 2, l, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 2 scheduler features");
	/* control characters never reach a message */
	assert_int_equal(sched_feat_list_parse("A\x1b[2J", 6, ',', 2, l, err, sizeof(err)), -1);
	assert_null(strchr(err, '\x1b'));
	/* no error buffer: still refused */
	assert_int_equal(sched_feat_list_parse("a", 1, ',', 2, l, NULL, 0), -1);
	free(l);
}

static void test_kernel_list(void **state)
{
	struct sched_feat_list *l = malloc(sizeof(*l));
	char err[256];
	const char *text = "  GENTLE_FAIR_SLEEPERS NO_NEXT_BUDDY \n";

	(void)state;
	assert_int_equal(sched_feat_list_parse(features_61, strlen(features_61), ' ', SCHED_FEAT_MAX,
					       l, err, sizeof(err)), 0);
	assert_int_equal(l->nr, 27);
	assert_string_equal(l->name[18], "NO_WA_IDLE");
	/* blanks and newlines separate, runs of them included */
	assert_int_equal(sched_feat_list_parse(text, strlen(text), ' ', SCHED_FEAT_MAX, l, err,
					       sizeof(err)), 0);
	assert_int_equal(l->nr, 2);
	assert_int_equal(sched_feat_list_parse("", 0, ' ', SCHED_FEAT_MAX, l, err, sizeof(err)), 0);
	assert_int_equal(l->nr, 0);
	assert_int_equal(sched_feat_list_parse("A b", 3, ' ', SCHED_FEAT_MAX, l, err, sizeof(err)), -1);
	free(l);
}

static void test_request(void **state)
{
	struct sched_feat_list want;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(sched_feat_request("--sched-feat", "NO_SIS_UTIL", &want, &err), 0);
	assert_int_equal(want.nr, 1);
	assert_int_equal(sched_feat_request("--sched-feat", "bad name", &want, &err), -1);
	assert_string_equal(err.buf, "--sched-feat: 'bad name' is not a scheduler feature name (A-Z "
			    "and _, an optional NO_, at most 63 characters)");
	strbuf_release(&err);
}

static void parse_kernel(struct sched_feat_list *l, const char *text)
{
	assert_int_equal(sched_feat_list_parse(text, strlen(text), ' ', SCHED_FEAT_MAX, l, NULL, 0), 0);
}

static void test_check_known_and_state(void **state)
{
	struct sched_feat_list *known = malloc(sizeof(*known)), want;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	parse_kernel(known, features_61);
	assert_int_equal(sched_feat_request("--sched-feat", "NO_WA_IDLE,SIS_UTIL", &want, &err), 0);
	assert_int_equal(sched_feat_check_known(&want, known, "6.1.0-57-amd64", &err), 0);
	/* in effect: WA_IDLE off, SIS_UTIL on */
	assert_int_equal(sched_feat_check_state(&want, known, &err), 0);
	assert_int_equal(err.len, 0);

	assert_int_equal(sched_feat_request("--sched-feat", "NO_WA_IDLE,NO_NOT_A_FEATURE", &want,
					    &err), 0);
	assert_int_equal(sched_feat_check_known(&want, known, "6.1.0-57-amd64", &err), -1);
	assert_non_null(strstr(err.buf, "unknown scheduler feature 'NOT_A_FEATURE' in kernel "
				 "6.1.0-57-amd64 (it has: GENTLE_FAIR_SLEEPERS START_DEBIT NEXT_BUDDY"));
	assert_null(strchr(err.buf, '\n'));
	strbuf_reset(&err);

	/* a write the kernel did not take: the feature is still on */
	assert_int_equal(sched_feat_request("--sched-feat", "NO_SIS_UTIL", &want, &err), 0);
	assert_int_equal(sched_feat_check_state(&want, known, &err), -1);
	assert_string_equal(err.buf, "scheduler feature NO_SIS_UTIL not in effect: the guest reads "
			    "SIS_UTIL after the write");
	strbuf_reset(&err);
	assert_int_equal(sched_feat_request("--sched-feat", "NEXT_BUDDY", &want, &err), 0);
	assert_int_equal(sched_feat_check_state(&want, known, &err), -1);
	strbuf_reset(&err);
	assert_int_equal(sched_feat_request("--sched-feat", "TOTALLY_NEW", &want, &err), 0);
	assert_int_equal(sched_feat_check_state(&want, known, &err), -1);
	assert_non_null(strstr(err.buf, "missing"));
	strbuf_release(&err);
	free(known);
}

static void test_from_snapshot(void **state)
{
	struct sched_feat_list *l = malloc(sizeof(*l));
	struct strbuf err = STRBUF_INIT, snap = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&snap, "/proc/sys/kernel/osrelease=6.1.0-57-amd64\n"
		      "/sys/devices/system/cpu/online=0-1\n");
	assert_int_equal(sched_feat_from_snapshot(snap.buf, snap.len, l, &err), 0);
	strbuf_addf(&snap, "/sys/kernel/debug/sched/features=%s\n"
		    "/sys/devices/system/cpu/possible=0-1", features_61);
	assert_int_equal(sched_feat_from_snapshot(snap.buf, snap.len, l, &err), 1);
	assert_int_equal(l->nr, 27);
	assert_int_equal(sched_feat_is_on(l->name[sched_feat_find(l, "WA_IDLE")]), 0);
	/* the last line without its newline, and a similar path that is not it */
	strbuf_reset(&snap);
	strbuf_addstr(&snap, "/sys/kernel/debug/sched/features_x=A\n/sys/kernel/debug/sched/features=B C");
	assert_int_equal(sched_feat_from_snapshot(snap.buf, snap.len, l, &err), 1);
	assert_int_equal(l->nr, 2);
	/* a warm guest reports again after the restore set its features: the last wins */
	strbuf_addstr(&snap, "\n/sys/devices/system/cpu/online=0-1\n/sys/kernel/debug/sched/features=NO_B");
	assert_int_equal(sched_feat_from_snapshot(snap.buf, snap.len, l, &err), 1);
	assert_int_equal(l->nr, 1);
	assert_string_equal(l->name[0], "NO_B");
	strbuf_reset(&snap);
	strbuf_addstr(&snap, "/sys/kernel/debug/sched/features=B c\n");
	assert_int_equal(sched_feat_from_snapshot(snap.buf, snap.len, l, &err), -1);
	assert_non_null(strstr(err.buf, "'c'"));
	strbuf_release(&snap);
	strbuf_release(&err);
	free(l);
}

static void test_json(void **state)
{
	struct sched_feat_list want;
	struct strbuf err = STRBUF_INIT;
	struct json_object *a;

	(void)state;
	assert_int_equal(sched_feat_request("--sched-feat", "NO_WA_IDLE,NO_SIS_UTIL", &want, &err), 0);
	a = sched_feat_json(&want);
	assert_string_equal(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN),
			    "[\"NO_WA_IDLE\",\"NO_SIS_UTIL\"]");
	json_object_put(a);
	strbuf_release(&err);
}

/* The cache is keyed by the kernel image: another image (or the same one
 * rebuilt) has no list until it boots. */
static void test_cache(void **state)
{
	char dir[] = "/tmp/schedfeat-test-XXXXXX", *image, *other;
	struct sched_feat_list *known = malloc(sizeof(*known)), *got = malloc(sizeof(*got));
	struct kernel_paths kp;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("LAB_CACHE", dir, 1);
	image = xasprintf("%s/vmlinux", dir);
	other = xasprintf("%s/vmlinux-2", dir);
	f = fopen(image, "w");
	fputs("not really a kernel", f);
	fclose(f);
	f = fopen(other, "w");
	fputs("another one", f);
	fclose(f);
	memset(&kp, 0, sizeof(kp));
	snprintf(kp.vmlinux, sizeof(kp.vmlinux), "%s", image);
	snprintf(kp.release, sizeof(kp.release), "6.1.0-57-amd64");

	assert_int_equal(sched_feat_cache_load(&kp, got), 0);
	parse_kernel(known, features_61);
	sched_feat_cache_store(&kp, known);
	assert_int_equal(sched_feat_cache_load(&kp, got), 1);
	/* the names only: what one boot turned off is no property of the kernel */
	assert_int_equal(got->nr, 27);
	assert_string_equal(got->name[18], "WA_IDLE");

	snprintf(kp.vmlinux, sizeof(kp.vmlinux), "%s", other);
	assert_int_equal(sched_feat_cache_load(&kp, got), 0);
	/* no image to key by: nothing cached, nothing found */
	kp.vmlinux[0] = '\0';
	sched_feat_cache_store(&kp, known);
	assert_int_equal(sched_feat_cache_load(&kp, got), 0);

	unlink(image);
	unlink(other);
	{
		char *cdir = xasprintf("%s/sched-features", dir);
		glob_t g;

		/* one entry, named after the release */
		assert_int_equal(chdir(cdir), 0);
		assert_int_equal(glob("6.1.0-57-amd64-*", 0, NULL, &g), 0);
		assert_int_equal(g.gl_pathc, 1);
		assert_int_equal(unlink(g.gl_pathv[0]), 0);
		globfree(&g);
		assert_int_equal(chdir("/"), 0);
		assert_int_equal(rmdir(cdir), 0);
		assert_int_equal(rmdir(dir), 0);
		free(cdir);
	}
	free(image);
	free(other);
	free(known);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_syntax),
		cmocka_unit_test(test_user_list),
		cmocka_unit_test(test_kernel_list),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_check_known_and_state),
		cmocka_unit_test(test_from_snapshot),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
