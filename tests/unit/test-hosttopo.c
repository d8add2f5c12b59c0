/* test-hosttopo.c - bare-metal host topology: a probed view becomes the
 * shortest spec that says it, oddities become notes, the closest preset
 * and the differences are named; /proc/stat busy fractions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "backend/bare.h"
#include "topo/hosttopo.h"

/* {cpu, package, siblings, llc} per CPU, one node of 2048 MiB per socket */
struct cpu_row {
	int cpu, pkg;
	const char *sib, *llc;
};

static struct json_object *make_view(const struct cpu_row *rows, int n, const char *nodes,
				     const char *dist)
{
	struct strbuf s = STRBUF_INIT;
	struct json_object *v;

	strbuf_addf(&s, "{\"cpus\": %d, \"nodes\": %s, \"distances\": %s, \"cpu\": [", n, nodes, dist);
	for (int i = 0; i < n; i++)
		strbuf_addf(&s, "%s{\"cpu\":%d,\"package\":%d,\"die\":0,\"node\":0,\"siblings\":\"%s\","
			    "\"llc\":\"%s\",\"domains\":[]}", i ? "," : "", rows[i].cpu, rows[i].pkg,
			    rows[i].sib, rows[i].llc);
	strbuf_addstr(&s, "], \"kernel\": \"6.1\"}");
	v = json_tokener_parse(s.buf);
	assert_non_null(v);
	strbuf_release(&s);
	return v;
}

static const char one_node[] = "[{\"node\":0,\"cpus\":\"0-1\",\"mem_mib\":11481}]";

static void derive(struct json_object *v, const char *want_short, const char *want_spec_prefix,
		   const char *want_note)
{
	struct strbuf sh = STRBUF_INIT, notes = STRBUF_INIT, err = STRBUF_INIT;
	struct topo t;

	assert_int_equal(hosttopo_from_view(v, &t, &sh, &notes, &err), 0);
	assert_string_equal(sh.buf, want_short);
	if (strncmp(t.spec, want_spec_prefix, strlen(want_spec_prefix)))
		fail_msg("spec '%s' does not start with '%s'", t.spec, want_spec_prefix);
	if (want_note ? !strstr(notes.buf, want_note) : notes.len != 0)
		fail_msg("notes '%s', wanted '%s'", notes.buf, want_note ? want_note : "");
	json_object_put(v);
	strbuf_release(&sh);
	strbuf_release(&notes);
	strbuf_release(&err);
}

static void test_two_cores(void **state)
{
	/* this lab's own VM */
	static const struct cpu_row r[] = { { 0, 0, "0", "0-1" }, { 1, 0, "1", "0-1" } };

	(void)state;
	derive(make_view(r, 2, one_node, "[[10]]"), "1s2c", "1s2c1t,llc=2,nps=1,mem=11481M", NULL);
}

static void test_smt_two_sockets(void **state)
{
	static const struct cpu_row r[] = {
		{ 0, 0, "0-1", "0-3" }, { 1, 0, "0-1", "0-3" }, { 2, 0, "2-3", "0-3" }, { 3, 0, "2-3", "0-3" },
		{ 4, 1, "4-5", "4-7" }, { 5, 1, "4-5", "4-7" }, { 6, 1, "6-7", "4-7" }, { 7, 1, "6-7", "4-7" },
	};
	static const char nodes[] = "[{\"node\":0,\"cpus\":\"0-3\",\"mem_mib\":1024},"
				    "{\"node\":1,\"cpus\":\"4-7\",\"mem_mib\":1024}]";

	(void)state;
	derive(make_view(r, 8, nodes, "[[10,20],[20,10]]"), "2s2c2t", "2s2c2t,llc=2,nps=1,mem=1G",
	       NULL);
	/* a distance the grammar does not assume is spelled out */
	derive(make_view(r, 8, nodes, "[[10,32],[32,10]]"), "2s2c2t,dist=32", "2s2c2t", NULL);
}

static void test_llcs_and_notes(void **state)
{
	static const struct cpu_row two_llc[] = {
		{ 0, 0, "0", "0-1" }, { 1, 0, "1", "0-1" }, { 2, 0, "2", "2-3" }, { 3, 0, "3", "2-3" },
	};
	static const struct cpu_row odd_smt[] = {
		{ 0, 0, "0-1", "0-3" }, { 1, 0, "0-1", "0-3" }, { 2, 0, "2", "0-3" }, { 3, 0, "3", "0-3" },
	};
	static const char nodes[] = "[{\"node\":0,\"cpus\":\"0-3\",\"mem_mib\":2048}]";

	(void)state;
	derive(make_view(two_llc, 4, nodes, "[[10]]"), "1s4c,llc=2", "1s4c1t,llc=2", NULL);
	derive(make_view(odd_smt, 4, nodes, "[[10]]"), "1s2c2t", "1s2c2t", "SMT siblings");
}

static void test_no_cpus(void **state)
{
	struct strbuf sh = STRBUF_INIT, notes = STRBUF_INIT, err = STRBUF_INIT;
	struct json_object *v = json_tokener_parse("{\"cpu\": []}");
	struct topo t;

	(void)state;
	assert_int_equal(hosttopo_from_view(v, &t, &sh, &notes, &err), -1);
	assert_string_equal(err.buf, "the topology probe found no CPUs");
	assert_int_equal(hosttopo_from_view(NULL, &t, &sh, &notes, &err), -1);
	json_object_put(v);
	strbuf_release(&sh);
	strbuf_release(&notes);
	strbuf_release(&err);
}

static void test_closest_and_diff(void **state)
{
	struct topo_preset p[3];
	struct topo host, other;
	struct strbuf d = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	memset(p, 0, sizeof(p));
	snprintf(p[0].name, sizeof(p[0].name), "small-numa");
	snprintf(p[0].spec, sizeof(p[0].spec), "2s4c");
	snprintf(p[1].name, sizeof(p[1].name), "tiny-smt");
	snprintf(p[1].spec, sizeof(p[1].spec), "1s4c2t,llc=2");
	snprintf(p[2].name, sizeof(p[2].name), "broken");
	snprintf(p[2].spec, sizeof(p[2].spec), "nonsense");
	assert_int_equal(topo_parse("1s2c", &host, &err), 0);
	assert_int_equal(hosttopo_closest(&host, p, 3), 1);
	assert_int_equal(hosttopo_closest(&host, p, 0), -1);
	/* same structure: the nearest CPU count wins */
	assert_int_equal(topo_parse("1s8c", &host, &err), 0);
	snprintf(p[0].spec, sizeof(p[0].spec), "1s64c,llc=64");
	snprintf(p[1].spec, sizeof(p[1].spec), "1s4c");
	assert_int_equal(hosttopo_closest(&host, p, 2), 1);

	assert_int_equal(topo_parse("1s2c", &host, &err), 0);
	assert_int_equal(topo_parse("2s4c2t", &other, &err), 0);
	assert_int_equal(hosttopo_diff(&host, "host", &other, "expected", &d), 4);
	assert_non_null(strstr(d.buf, "sockets: host has 1, expected has 2\n"));
	assert_non_null(strstr(d.buf, "threads per core: host has 1, expected has 2\n"));
	strbuf_reset(&d);
	/* memory sizes are no structural difference */
	assert_int_equal(topo_parse("1s2c,mem=4G", &other, &err), 0);
	assert_int_equal(hosttopo_diff(&host, "host", &other, "expected", &d), 0);
	strbuf_release(&d);
	strbuf_release(&err);
}

static void test_busy_fraction(void **state)
{
	(void)state;
	assert_true(bare_busy_fraction("cpu  100 0 100 800 0 0 0 0 0 0",
				       "cpu  200 0 200 1400 0 0 0 0 0 0") > 0.249);
	assert_true(bare_busy_fraction("cpu  100 0 100 800 0 0 0 0 0 0",
				       "cpu  200 0 200 1400 0 0 0 0 0 0") < 0.251);
	/* iowait is idle time */
	assert_true(bare_busy_fraction("cpu 0 0 0 100 100", "cpu 0 0 0 200 200") < 0.001);
	assert_true(bare_busy_fraction("cpu 1 2 3 4", "cpu 1 2 3 4") < 0);
	assert_true(bare_busy_fraction("garbage", "cpu 1 2 3 4") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cores),
		cmocka_unit_test(test_smt_two_sockets),
		cmocka_unit_test(test_llcs_and_notes),
		cmocka_unit_test(test_no_cpus),
		cmocka_unit_test(test_closest_and_diff),
		cmocka_unit_test(test_busy_fraction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
