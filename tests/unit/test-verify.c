/* test-verify.c - topology verification: identical views match, each kind
 * of difference is reported once and readably, DIE and PKG are one level. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <string.h>

#include "topo/verify.h"

/* Two sockets, each one node with one LLC of 2 SMT cores (4 CPUs). */
static const char view[] =
	"{\"cpus\": 8,"
	" \"nodes\": [{\"node\": 0, \"cpus\": \"0-3\", \"mem_mib\": 1024},"
	"            {\"node\": 1, \"cpus\": \"4-7\", \"mem_mib\": 1024}],"
	" \"distances\": [[10, 20], [20, 10]],"
	" \"cpu\": ["
	"  {\"cpu\":0,\"package\":0,\"die\":0,\"node\":0,\"siblings\":\"0-1\",\"llc\":\"0-3\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]},"
	"  {\"cpu\":1,\"package\":0,\"die\":0,\"node\":0,\"siblings\":\"0-1\",\"llc\":\"0-3\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]},"
	"  {\"cpu\":2,\"package\":0,\"die\":0,\"node\":0,\"siblings\":\"2-3\",\"llc\":\"0-3\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]},"
	"  {\"cpu\":3,\"package\":0,\"die\":0,\"node\":0,\"siblings\":\"2-3\",\"llc\":\"0-3\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]},"
	"  {\"cpu\":4,\"package\":1,\"die\":0,\"node\":1,\"siblings\":\"4-5\",\"llc\":\"4-7\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]},"
	"  {\"cpu\":5,\"package\":1,\"die\":0,\"node\":1,\"siblings\":\"4-5\",\"llc\":\"4-7\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]},"
	"  {\"cpu\":6,\"package\":1,\"die\":0,\"node\":1,\"siblings\":\"6-7\",\"llc\":\"4-7\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]},"
	"  {\"cpu\":7,\"package\":1,\"die\":0,\"node\":1,\"siblings\":\"6-7\",\"llc\":\"4-7\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]}]}";

static struct json_object *cpu(struct json_object *v, int i)
{
	struct json_object *a;

	json_object_object_get_ex(v, "cpu", &a);
	return json_object_array_get_idx(a, i);
}

static void test_identical(void **state)
{
	struct json_object *e = json_tokener_parse(view), *g = json_tokener_parse(view);
	struct strbuf d = STRBUF_INIT;

	assert_non_null(e);
	assert_int_equal(view_compare(e, g, &d, 10), 0);
	assert_int_equal(d.len, 0);
	json_object_put(e);
	json_object_put(g);
}

static void test_memory_slack(void **state)
{
	struct json_object *e = json_tokener_parse(view), *g = json_tokener_parse(view), *nodes;
	struct strbuf d = STRBUF_INIT;

	json_object_object_get_ex(g, "nodes", &nodes);
	/* the kernel keeps some memory for itself: 900 of 1024 MiB is fine */
	json_object_object_add(json_object_array_get_idx(nodes, 0), "mem_mib", json_object_new_int(900));
	assert_int_equal(view_compare(e, g, &d, 10), 0);
	/* half the memory is a wrong configuration */
	json_object_object_add(json_object_array_get_idx(nodes, 1), "mem_mib", json_object_new_int(512));
	assert_int_equal(view_compare(e, g, &d, 10), 1);
	assert_non_null(strstr(d.buf, "node 1: memory expected 1024 MiB"));
	json_object_put(e);
	json_object_put(g);
	strbuf_release(&d);
}

static void test_each_difference(void **state)
{
	struct json_object *e = json_tokener_parse(view), *g = json_tokener_parse(view), *dist, *doms;
	struct strbuf d = STRBUF_INIT;

	json_object_object_add(cpu(g, 2), "llc", json_object_new_string("2-3"));
	json_object_object_add(cpu(g, 5), "package", json_object_new_int(0));
	json_object_object_get_ex(g, "distances", &dist);
	json_object_array_put_idx(json_object_array_get_idx(dist, 0), 1, json_object_new_int(32));
	doms = json_object_new_array();
	json_object_array_add(doms, json_object_new_string("MC"));
	json_object_object_add(cpu(g, 7), "domains", doms);
	assert_int_equal(view_compare(e, g, &d, 10), 4);
	assert_non_null(strstr(d.buf, "cpu 2: llc expected 0-3, guest has 2-3"));
	assert_non_null(strstr(d.buf, "cpu 5: package expected 1, guest has 0"));
	assert_non_null(strstr(d.buf, "distance node 0 -> node 1: expected 20, guest has 32"));
	assert_non_null(strstr(d.buf, "cpu 7: sched domains expected SMT MC NUMA, guest has MC"));
	json_object_put(e);
	json_object_put(g);
	strbuf_release(&d);
}

/* A cluster is compared where the expected view has one (arm64). */
static void test_cluster(void **state)
{
	struct json_object *e = json_tokener_parse(view), *g = json_tokener_parse(view);
	struct strbuf d = STRBUF_INIT;

	json_object_object_add(cpu(g, 1), "cluster", json_object_new_string("0-3"));
	assert_int_equal(view_compare(e, g, &d, 10), 0);
	json_object_object_add(cpu(e, 1), "cluster", json_object_new_string("0-1"));
	assert_int_equal(view_compare(e, g, &d, 10), 1);
	assert_non_null(strstr(d.buf, "cpu 1: cluster expected 0-1, guest has 0-3"));
	strbuf_reset(&d);
	json_object_object_del(cpu(g, 1), "cluster");
	assert_int_equal(view_compare(e, g, &d, 10), 1);
	assert_non_null(strstr(d.buf, "cpu 1: cluster expected 0-1, guest has (missing)"));
	json_object_put(e);
	json_object_put(g);
	strbuf_release(&d);
}

/* 6.1 names the package level DIE, 6.7 and later PKG: the expected view
 * is made for the guest's generation, so a name that differs is a
 * difference (a kernel of another generation than the view's). */
static void test_pkg_is_not_die_and_cap(void **state)
{
	struct json_object *e = json_tokener_parse(view), *g = json_tokener_parse(view), *doms;
	struct strbuf d = STRBUF_INIT;

	for (int i = 0; i < 8; i++) {
		doms = json_object_new_array();
		json_object_array_add(doms, json_object_new_string("SMT"));
		json_object_array_add(doms, json_object_new_string("DIE"));
		json_object_object_add(cpu(e, i), "domains", json_object_get(doms));
		json_object_put(doms);
		doms = json_object_new_array();
		json_object_array_add(doms, json_object_new_string("SMT"));
		json_object_array_add(doms, json_object_new_string("PKG"));
		json_object_object_add(cpu(g, i), "domains", doms);
	}
	assert_int_equal(view_compare(e, g, &d, 10), 8);
	assert_non_null(strstr(d.buf, "sched domains expected SMT DIE, guest has SMT PKG"));
	strbuf_reset(&d);
	for (int i = 0; i < 8; i++)
		json_object_object_add(cpu(g, i), "domains",
				       json_object_get(json_object_object_get(cpu(e, i), "domains")));
	assert_int_equal(view_compare(e, g, &d, 10), 0);
	json_object_object_add(g, "cpus", json_object_new_int(4));
	for (int i = 0; i < 8; i++)
		json_object_object_add(cpu(g, i), "siblings", json_object_new_string("0"));
	/* 9 differences, 3 printed, and the rest counted */
	assert_int_equal(view_compare(e, g, &d, 3), 9);
	assert_non_null(strstr(d.buf, "cpus: expected 8, guest has 4 online"));
	assert_non_null(strstr(d.buf, "... and 6 more differences"));
	json_object_put(e);
	json_object_put(g);
	strbuf_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_memory_slack),
		cmocka_unit_test(test_each_difference),
		cmocka_unit_test(test_cluster),
		cmocka_unit_test(test_pkg_is_not_die_and_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
