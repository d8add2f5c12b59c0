/* test-matrix.c - lab ab's boot order, lab matrix's job expansion and its
 * state file (round trip and damaged files), and the progress ETA math. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/matrix.h"
#include "lib/progress.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_ab_order(void **state)
{
	unsigned o[64];
	static const unsigned abba[] = { 0, 1, 1, 0 };
	static const unsigned abba2[] = { 0, 1, 1, 0, 0, 1, 1, 0 };
	static const unsigned abccba[] = { 0, 1, 2, 2, 1, 0 };

	(void)state;
	assert_int_equal(ab_order(2, 1, o, 64), 4);
	assert_memory_equal(o, abba, sizeof(abba));
	assert_int_equal(ab_order(2, 2, o, 64), 8);
	assert_memory_equal(o, abba2, sizeof(abba2));
	assert_int_equal(ab_order(3, 1, o, 64), 6);
	assert_memory_equal(o, abccba, sizeof(abccba));
	/* every side boots equally often and at the same mean position */
	assert_int_equal(ab_order(3, 5, o, 64), 30);
	for (unsigned s = 0; s < 3; s++) {
		unsigned n = 0, pos = 0;

		for (unsigned i = 0; i < 30; i++)
			if (o[i] == s)
				n++, pos += i;
		assert_int_equal(n, 10);
		assert_int_equal(pos, 145);	/* 10 boots x mean position 14.5 */
	}
	/* never past max */
	assert_int_equal(ab_order(2, 3, o, 5), 5);
	assert_int_equal(ab_order(2, 0, o, 64), 0);
}

static void split_ok(const char *list, int is_topo, size_t nr, const char *const *want)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(mx_split_list("items", list, is_topo, &v, &err), 0);
	assert_int_equal(v.nr, nr);
	for (size_t i = 0; i < nr; i++)
		assert_string_equal(v.v[i], want[i]);
	strvec_clear(&v);
	strbuf_release(&err);
}

static void split_bad(const char *list, const char *why)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(mx_split_list("items", list, 1, &v, &err), -1);
	assert_non_null(strstr(err.buf, why));
	assert_null(strchr(err.buf, '\n'));
	strvec_clear(&v);
	strbuf_release(&err);
}

static void test_split(void **state)
{
	static const char *const a[] = { "2s8c,llc=4,nps=2", "1s2c" };
	static const char *const b[] = { "debian", "tip=3519d5f4" };
	static const char *const c[] = { "1s2c", "tiny-smt,mem=1G" };

	(void)state;
	split_ok("2s8c,llc=4,nps=2,1s2c", 1, 2, a);
	split_ok("debian,tip=3519d5f4", 0, 2, b);
	split_ok("1s2c,tiny-smt,mem=1G", 1, 2, c);
	split_bad("", "empty");
	split_bad("1s2c,,2s1c", "empty item");
	split_bad("1s2c,", "empty item");
	split_bad("1s2c,1s2c", "twice");
}

static void test_kernel_item(void **state)
{
	struct strbuf l = STRBUF_INIT, s = STRBUF_INIT;

	(void)state;
	mx_kernel_item("debian", &l, &s);
	assert_string_equal(l.buf, "");
	assert_string_equal(s.buf, "debian");
	mx_kernel_item("tip=debian", &l, &s);
	assert_string_equal(l.buf, "tip");
	assert_string_equal(s.buf, "debian");
	/* a '=' inside a path is the path's */
	mx_kernel_item("/k/a=b/bzImage", &l, &s);
	assert_string_equal(l.buf, "");
	assert_string_equal(s.buf, "/k/a=b/bzImage");
	strbuf_release(&l);
	strbuf_release(&s);
}

static void make_matrix(struct matrix *m)
{
	strvec_pushl(&m->kernels, "debian", "base=3519d5f4", NULL);
	strvec_pushl(&m->topos, "1s2c", "2s1c,mem=1G", NULL);
	strvec_pushl(&m->suites, "ab-tiny", NULL);
	matrix_expand(m);
}

static void test_expand(void **state)
{
	struct matrix m = MATRIX_INIT;

	(void)state;
	make_matrix(&m);
	assert_int_equal(m.nr_jobs, 4);
	/* kernels innermost: the pair one compares finishes together */
	assert_string_equal(m.jobs[0].id, "001-debian-1s2c-ab-tiny");
	assert_string_equal(m.jobs[1].id, "002-base-1s2c-ab-tiny");
	assert_string_equal(m.jobs[1].kernel, "3519d5f4");
	assert_string_equal(m.jobs[1].label, "base");
	assert_string_equal(m.jobs[2].topo, "2s1c,mem=1G");
	assert_string_equal(m.jobs[2].id, "003-debian-2s1c_mem_1G-ab-tiny");
	for (size_t i = 0; i < m.nr_jobs; i++) {
		assert_int_equal(m.jobs[i].state, MX_PENDING);
		assert_string_equal(m.jobs[i].suite, "ab-tiny");
		assert_null(strchr(m.jobs[i].id, '/'));
	}
	matrix_release(&m);
}

static char *state_text(const struct matrix *m)
{
	struct json_object *o = matrix_state_json(m);
	char *s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return s;
}

static void test_state_round_trip(void **state)
{
	struct matrix m = MATRIX_INIT, back = MATRIX_INIT;
	struct strbuf err = STRBUF_INIT;
	char *a, *b;

	(void)state;
	make_matrix(&m);
	m.jobs[0].state = MX_DONE;
	free(m.jobs[0].verdict);
	m.jobs[0].verdict = xstrdup("PASS");
	free(m.jobs[0].run);
	m.jobs[0].run = xstrdup("/tmp/m/jobs/001-debian-1s2c-ab-tiny/20261130-1s2c-1");
	m.jobs[0].seconds = 12.5;
	m.jobs[0].attempts = 1;
	m.jobs[1].state = MX_RUNNING;
	m.jobs[1].attempts = 2;
	free(m.jobs[1].uri);
	m.jobs[1].uri = xstrdup("qemu+ssh://root@h:22/system?keyfile=/k&no_tty=1");
	strvec_push(&m.uris, "qemu:///system");
	strvec_push(&m.uris, m.jobs[1].uri);
	a = state_text(&m);
	assert_int_equal(matrix_state_parse(a, strlen(a), &back, &err), 0);
	assert_int_equal(back.nr_jobs, 4);
	assert_int_equal(back.jobs[0].state, MX_DONE);
	assert_string_equal(back.jobs[0].verdict, "PASS");
	assert_string_equal(back.jobs[0].run, m.jobs[0].run);
	assert_true(fabs(back.jobs[0].seconds - 12.5) < 1e-9);
	assert_int_equal(back.jobs[1].state, MX_RUNNING);
	assert_int_equal(back.jobs[1].attempts, 2);
	assert_string_equal(back.jobs[1].label, "base");
	assert_string_equal(back.topos.v[1], "2s1c,mem=1G");
	assert_string_equal(back.jobs[0].uri, "");
	assert_string_equal(back.jobs[1].uri, m.jobs[1].uri);
	assert_int_equal(back.uris.nr, 2);
	assert_string_equal(back.uris.v[1], m.jobs[1].uri);
	b = state_text(&back);
	assert_string_equal(a, b);
	free(a);
	free(b);
	matrix_release(&m);
	matrix_release(&back);
	strbuf_release(&err);
}

static void parse_bad(const char *text, const char *why)
{
	struct matrix m = MATRIX_INIT;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(matrix_state_parse(text, strlen(text), &m, &err), -1);
	if (!strstr(err.buf, why))
		fail_msg("'%s' does not say '%s'", err.buf, why);
	assert_null(strchr(err.buf, '\n'));
	matrix_release(&m);
	strbuf_release(&err);
}

/* One valid state with `from` replaced by `to`. */
static void parse_bad_edit(const char *from, const char *to, const char *why)
{
	struct matrix m = MATRIX_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *a, *p;

	make_matrix(&m);
	a = state_text(&m);
	p = strstr(a, from);
	assert_non_null(p);
	strbuf_add(&sb, a, (size_t)(p - a));
	strbuf_addstr(&sb, to);
	strbuf_addstr(&sb, p + strlen(from));
	parse_bad(sb.buf, why);
	free(a);
	strbuf_release(&sb);
	matrix_release(&m);
}

static void test_state_bad(void **state)
{
	(void)state;
	parse_bad("", "not valid JSON");
	parse_bad("{", "not valid JSON");
	parse_bad("[]", "version 1");
	parse_bad("{\"version\": 2}", "version 1");
	parse_bad("{\"version\": 1, \"kernels\": [], \"topos\": [\"1s2c\"], "
		  "\"suites\": [\"s\"], \"jobs\": []}", "bad kernels");
	parse_bad_edit("\"version\":1", "\"version\":1, \"x\": 1} {", "not valid JSON");
	parse_bad_edit("\"state\":\"pending\"", "\"state\":\"lost\"", "job 1 is damaged");
	parse_bad_edit("\"id\":\"001-debian-1s2c-ab-tiny\"", "\"id\":\"../x\"", "job 1 is damaged");
	parse_bad_edit("\"id\":\"002-base-1s2c-ab-tiny\"", "\"id\":\"001-debian-1s2c-ab-tiny\"",
		       "appears twice");
	parse_bad_edit("\"suites\":[\"ab-tiny\"]", "\"suites\":[\"ab-tiny\",\"x\"]",
		       "do not match the lists");
	parse_bad_edit("\"seconds\":0.0", "\"seconds\":-1", "job 1 is damaged");
	parse_bad_edit("\"attempts\":0", "\"attempts\":\"0\"", "job 1 is damaged");
	parse_bad_edit("\"uris\":[]", "\"uris\":[1]", "bad list of URIs");
	parse_bad_edit("\"uris\":[]", "\"uris\":\"qemu:///system\"", "bad list of URIs");
	parse_bad_edit("\"uri\":\"\"", "\"uri\":7", "job 1 is damaged");
	parse_bad_edit("\"uris\":[]", "\"uris\":[],\"clock\":\"host\"", "neither wall nor virtual");
	parse_bad_edit("\"uris\":[]", "\"uris\":[],\"clock\":1", "neither wall nor virtual");
	parse_bad_edit("\"uris\":[]", "\"uris\":[],\"warm\":1", "warm is not true or false");
	parse_bad_edit("\"uris\":[]", "\"uris\":[],\"variants\":[2]", "bad list of variants");
	parse_bad_edit("\"uris\":[]", "\"uris\":[],\"lava_device_type\":\"qemu\"",
		       "lava_device_type is not one the lab writes jobs for");
	parse_bad_edit("\"uris\":[]", "\"uris\":[],\"lava\":\"http://l:8000\",\"lava_device_type\":\"x\"",
		       "lava_device_type is not one the lab writes jobs for");
	/* a variant in a matrix without variants */
	parse_bad_edit("\"label\":\"base\"", "\"label\":\"base\",\"variant\":\"smt=off\"", "job 2 is damaged");
}

/* --variant: each kernel plain, then with each variant, side by side; a
 * labelled kernel labels its variants' columns, an unlabelled one leaves
 * that to lab compare (run.json says what the run booted with). */
static void test_variants(void **state)
{
	struct matrix m = MATRIX_INIT, back = MATRIX_INIT;
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *a, *b, *p;

	(void)state;
	strvec_pushl(&m.kernels, "debian", "tip=3519d5f4", NULL);
	strvec_pushl(&m.topos, "1s2c", NULL);
	strvec_pushl(&m.suites, "ab-tiny", NULL);
	strvec_pushl(&m.variants, "base_slice_ns=3000000", "preempt=full", NULL);
	assert_int_equal(matrix_columns(&m), 6);
	matrix_expand(&m);
	assert_int_equal(m.nr_jobs, 6);
	assert_string_equal(m.jobs[0].id, "001-debian-1s2c-ab-tiny");
	assert_string_equal(m.jobs[0].variant, "");
	assert_string_equal(m.jobs[1].id, "002-debian-base_slice_ns_3000000-1s2c-ab-tiny");
	assert_string_equal(m.jobs[1].variant, "base_slice_ns=3000000");
	assert_string_equal(m.jobs[1].label, "");
	assert_string_equal(m.jobs[2].variant, "preempt=full");
	assert_string_equal(m.jobs[3].label, "tip");
	assert_string_equal(m.jobs[4].label, "tip-base_slice_ns=3000000");
	assert_string_equal(m.jobs[5].label, "tip-preempt=full");
	assert_string_equal(m.jobs[5].id, "006-tip-preempt_full-1s2c-ab-tiny");

	a = state_text(&m);
	assert_int_equal(matrix_state_parse(a, strlen(a), &back, &err), 0);
	assert_int_equal(back.variants.nr, 2);
	assert_string_equal(back.jobs[4].variant, "base_slice_ns=3000000");
	b = state_text(&back);
	assert_string_equal(a, b);
	free(b);
	/* a job's variant must be one of the matrix's */
	p = strstr(a, "\"variant\":\"preempt=full\"");
	assert_non_null(p);
	strbuf_add(&sb, a, (size_t)(p - a));
	strbuf_addstr(&sb, "\"variant\":\"preempt=none\"");
	strbuf_addstr(&sb, p + strlen("\"variant\":\"preempt=full\""));
	parse_bad(sb.buf, "job 3 is damaged");
	/* the jobs are kernels x (1 + variants) */
	strbuf_reset(&sb);
	p = strstr(a, "\"variants\":[\"base_slice_ns=3000000\",\"preempt=full\"]");
	assert_non_null(p);
	strbuf_add(&sb, a, (size_t)(p - a));
	strbuf_addstr(&sb, "\"variants\":[\"base_slice_ns=3000000\"]");
	strbuf_addstr(&sb, p + strlen("\"variants\":[\"base_slice_ns=3000000\",\"preempt=full\"]"));
	parse_bad(sb.buf, "do not match the lists");
	free(a);
	matrix_release(&m);
	matrix_release(&back);
	strbuf_release(&err);
	strbuf_release(&sb);
}

/* The clock and the warm start are kept, so a resume boots the same way;
 * a state from before they were kept says neither. */
static void test_state_boot_mode(void **state)
{
	struct matrix m = MATRIX_INIT, back = MATRIX_INIT, old = MATRIX_INIT;
	struct strbuf err = STRBUF_INIT;
	char *a;

	(void)state;
	make_matrix(&m);
	a = state_text(&m);
	assert_null(strstr(a, "clock"));
	assert_null(strstr(a, "warm"));
	assert_int_equal(matrix_state_parse(a, strlen(a), &old, &err), 0);
	assert_string_equal(old.clock, "");
	assert_int_equal(old.warm, -1);
	free(a);
	snprintf(m.clock, sizeof(m.clock), "virtual");
	m.warm = 1;
	a = state_text(&m);
	assert_int_equal(matrix_state_parse(a, strlen(a), &back, &err), 0);
	assert_string_equal(back.clock, "virtual");
	assert_int_equal(back.warm, 1);
	free(a);
	matrix_release(&back);
	back = (struct matrix)MATRIX_INIT;
	snprintf(m.clock, sizeof(m.clock), "wall");
	m.warm = 0;
	a = state_text(&m);
	assert_int_equal(matrix_state_parse(a, strlen(a), &back, &err), 0);
	assert_string_equal(back.clock, "wall");
	assert_int_equal(back.warm, 0);
	free(a);
	matrix_release(&back);
	back = (struct matrix)MATRIX_INIT;
	/* a LAVA fleet keeps its server and device type */
	snprintf(m.lava, sizeof(m.lava), "http://lava:8000");
	snprintf(m.lava_device_type, sizeof(m.lava_device_type), "qemu");
	a = state_text(&m);
	assert_int_equal(matrix_state_parse(a, strlen(a), &back, &err), 0);
	assert_string_equal(back.lava, "http://lava:8000");
	assert_string_equal(back.lava_device_type, "qemu");
	free(a);
	matrix_release(&m);
	matrix_release(&back);
	matrix_release(&old);
	strbuf_release(&err);
}

/* A state file from before URIs were recorded still resumes. */
static void test_state_without_uris(void **state)
{
	struct matrix m = MATRIX_INIT, back = MATRIX_INIT;
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *a, *p;

	(void)state;
	make_matrix(&m);
	a = state_text(&m);
	for (p = a; *p; p++) {
		/* drop ,"uris":[] and every ,"uri":"" */
		if (!strncmp(p, ",\"uris\":[]", 10)) {
			p += 9;
			continue;
		}
		if (!strncmp(p, ",\"uri\":\"\"", 9)) {
			p += 8;
			continue;
		}
		strbuf_addch(&sb, *p);
	}
	assert_null(strstr(sb.buf, "uri"));
	assert_int_equal(matrix_state_parse(sb.buf, sb.len, &back, &err), 0);
	assert_int_equal(back.nr_jobs, 4);
	assert_int_equal(back.uris.nr, 0);
	assert_string_equal(back.jobs[3].uri, "");
	free(a);
	strbuf_release(&sb);
	strbuf_release(&err);
	matrix_release(&m);
	matrix_release(&back);
}

static void test_eta(void **state)
{
	double run[2] = { 4, 30 };

	(void)state;
	assert_true(progress_eta_s(0, 0, 4, NULL, 0, 1) < 0);	/* no basis yet */
	assert_true(progress_eta_s(3, 30, 0, NULL, 0, 1) == 0);	/* nothing left */
	/* mean 10 s, 3 left, one slot */
	assert_true(fabs(progress_eta_s(2, 20, 3, NULL, 0, 1) - 30) < 1e-9);
	/* the running one already spent 4 s of its 10 */
	assert_true(fabs(progress_eta_s(2, 20, 3, run, 1, 1) - 26) < 1e-9);
	/* two slots halve the rest; never more slots than items left */
	assert_true(fabs(progress_eta_s(2, 20, 3, run, 1, 2) - 13) < 1e-9);
	assert_true(fabs(progress_eta_s(2, 20, 1, NULL, 0, 8) - 10) < 1e-9);
	/* a running item past the mean still counts a tenth of it */
	assert_true(fabs(progress_eta_s(2, 20, 2, run, 2, 1) - (6 + 1)) < 1e-9);
}

static void test_duration(void **state)
{
	char b[32];

	(void)state;
	progress_format_duration(b, sizeof(b), 0);
	assert_string_equal(b, "0s");
	progress_format_duration(b, sizeof(b), 44.6);
	assert_string_equal(b, "45s");
	progress_format_duration(b, sizeof(b), 250);
	assert_string_equal(b, "4m10s");
	progress_format_duration(b, sizeof(b), 360);
	assert_string_equal(b, "6m00s");
	progress_format_duration(b, sizeof(b), 3599);
	assert_string_equal(b, "60m");
	progress_format_duration(b, sizeof(b), 3720);
	assert_string_equal(b, "1h02m");
	progress_format_duration(b, sizeof(b), -5);
	assert_string_equal(b, "0s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ab_order),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_kernel_item),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_state_bad),
		cmocka_unit_test(test_state_without_uris),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_state_boot_mode),
		cmocka_unit_test(test_eta),
		cmocka_unit_test(test_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
