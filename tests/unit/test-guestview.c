/* test-guestview.c - unit tests of host-tools/topo/guestview.c: cpulists, the
 * guest view of a realistic runner snapshot, and malformed snapshots. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "topo/guestview.h"

#define NBITS 256
#define LONGS ((NBITS + CHAR_BIT * sizeof(long) - 1) / (CHAR_BIT * sizeof(long)))

static char *normalise(const char *in)
{
	static char out[512];
	unsigned long bits[LONGS];
	struct strbuf sb = STRBUF_INIT;

	if (cpulist_parse(in, bits, NBITS, NULL, 0) < 0)
		return NULL;
	cpulist_format(bits, NBITS, &sb);
	snprintf(out, sizeof(out), "%s", sb.buf);
	strbuf_release(&sb);
	return out;
}

static void test_cpulist_canonical(void **state)
{
	assert_string_equal(normalise("0-3,8-11"), "0-3,8-11");
	assert_string_equal(normalise("0,1,2,3"), "0-3");
	assert_string_equal(normalise("0,1"), "0-1");
	assert_string_equal(normalise("5"), "5");
	assert_string_equal(normalise("1,3,5"), "1,3,5");
	assert_string_equal(normalise("8-11,0-3"), "0-3,8-11");
	assert_string_equal(normalise("0-2,3,3,4-5"), "0-5");
	assert_string_equal(normalise(""), "");
	assert_string_equal(normalise(" 0-3\n"), "0-3");
	assert_string_equal(normalise("255"), "255");
	assert_string_equal(normalise("62-65"), "62-65"); /* across a word */
}

static void test_cpulist_malformed(void **state)
{
	static const char *const bad[] = {
		"1-", "-1", "1,,2", ",1", "1,", "a", "3-1", "1 2", "0x1", "256",
		"0-256", "1-2-3", "1:2", "0-3:2/4", "9999999999", "+1",
	};
	unsigned long bits[LONGS];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (cpulist_parse(bad[i], bits, NBITS, NULL, 0) != -1)
			fail_msg("cpulist '%s' was accepted", bad[i]);
	}
}

/* The runner's lines for an 8-CPU guest: 2 sockets x 2 cores x 2 threads,
 * an L3 per socket, node N = socket N, 512 MiB per node.  A few lists are
 * written in non-canonical forms a kernel could print. */
static void snapshot(struct strbuf *sb)
{
	strbuf_addstr(sb, "/proc/sys/kernel/osrelease=6.1.0-57-amd64\n"
		      "/sys/devices/system/cpu/online=0-7\n"
		      "/sys/devices/system/cpu/possible=0-7\n"
		      "/sys/devices/system/cpu/present=0-7\n");
	for (unsigned c = 0; c < 8; c++) {
		const char *p = "/sys/devices/system/cpu/cpu";
		unsigned sock = c / 4, first = c & ~1u;
		static const char *const cache_type[] = { "Data", "Instruction", "Unified", "Unified" };
		static const unsigned cache_level[] = { 1, 1, 2, 3 };

		strbuf_addf(sb, "%s%u/topology/physical_package_id=%u\n", p, c, sock);
		strbuf_addf(sb, "%s%u/topology/die_id=0\n", p, c);
		strbuf_addf(sb, "%s%u/topology/core_id=%u\n", p, c, (c / 2) % 2);
		if (c == 3)
			strbuf_addf(sb, "%s%u/topology/thread_siblings_list=2,3\n", p, c);
		else
			strbuf_addf(sb, "%s%u/topology/thread_siblings_list=%u-%u\n", p, c, first, first + 1);
		strbuf_addf(sb, "%s%u/topology/core_siblings_list=%u-%u\n", p, c, sock * 4, sock * 4 + 3);
		strbuf_addf(sb, "%s%u/topology/cluster_cpus_list=%u-%u\n", p, c, first, first + 1);
		for (unsigned k = 0; k < 4; k++) {
			strbuf_addf(sb, "%s%u/cache/index%u/level=%u\n", p, c, k, cache_level[k]);
			strbuf_addf(sb, "%s%u/cache/index%u/type=%s\n", p, c, k, cache_type[k]);
			if (k == 3)
				strbuf_addf(sb, "%s%u/cache/index3/shared_cpu_list=%u-%u\n",
					    p, c, sock * 4, sock * 4 + 3);
			else
				strbuf_addf(sb, "%s%u/cache/index%u/shared_cpu_list=%u-%u\n",
					    p, c, k, first, first + 1);
		}
	}
	for (unsigned n = 0; n < 2; n++) {
		strbuf_addf(sb, "/sys/devices/system/node/node%u/cpulist=%s\n", n,
			    n ? "4-5,6-7" : "0-3");
		strbuf_addf(sb, "/sys/devices/system/node/node%u/distance=%s\n", n,
			    n ? "20 10" : "10 20");
		strbuf_addf(sb, "/sys/devices/system/node/node%u/meminfo=Node %u MemTotal:"
			    "         %u kB Node %u MemFree:          435540 kB Node %u "
			    "HugePages_Surp:      0\n", n, n, n ? 514748 : 468620, n, n);
	}
	for (unsigned c = 0; c < 8; c++) {
		static const char *const names[] = { "SMT", "MC", "NUMA" };

		for (unsigned m = 0; m < 3; m++)
			strbuf_addf(sb, "/sys/kernel/debug/sched/domains/cpu%u/domain%u/name=%s\n",
				    c, m, names[m]);
	}
	/* paths the view does not use are ignored */
	strbuf_addstr(sb, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor=schedutil\n"
		      "/sys/kernel/something/new=1\n");
}

static struct json_object *field(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no key '%s' in %s", key, json_object_to_json_string(o));
	return v;
}

static void assert_json(struct json_object *v, const char *expected)
{
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), expected);
}

static struct json_object *view_of(const char *text, struct strbuf *err)
{
	strbuf_reset(err);
	return guest_view_from_sysfs(text, strlen(text), err);
}

static void test_realistic_snapshot(void **state)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct json_object *v, *cpus;

	snapshot(&sb);
	v = guest_view_from_sysfs(sb.buf, sb.len, &err);
	if (!v)
		fail_msg("rejected: %s", err.buf);
	assert_int_equal(json_object_get_int(field(v, "cpus")), 8);
	assert_string_equal(json_object_get_string(field(v, "kernel")), "6.1.0-57-amd64");
	assert_json(field(v, "nodes"),
		    "[{\"node\":0,\"cpus\":\"0-3\",\"mem_mib\":457},"
		    "{\"node\":1,\"cpus\":\"4-7\",\"mem_mib\":502}]");
	assert_json(field(v, "distances"), "[[10,20],[20,10]]");
	cpus = field(v, "cpu");
	assert_int_equal(json_object_array_length(cpus), 8);
	assert_json(json_object_array_get_idx(cpus, 0),
		    "{\"cpu\":0,\"package\":0,\"die\":0,\"node\":0,\"siblings\":\"0-1\","
		    "\"llc\":\"0-3\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]}");
	assert_json(json_object_array_get_idx(cpus, 3),
		    "{\"cpu\":3,\"package\":0,\"die\":0,\"node\":0,\"siblings\":\"2-3\","
		    "\"llc\":\"0-3\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]}");
	assert_json(json_object_array_get_idx(cpus, 6),
		    "{\"cpu\":6,\"package\":1,\"die\":0,\"node\":1,\"siblings\":\"6-7\","
		    "\"llc\":\"4-7\",\"domains\":[\"SMT\",\"MC\",\"NUMA\"]}");
	json_object_put(v);
	strbuf_release(&sb);
	strbuf_release(&err);
}

static void test_key_order(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *v = view_of("/sys/devices/system/cpu/online=0\n", &err);
	const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);

	assert_non_null(v);
	/* an online CPU the snapshot says nothing else about: nulls, so a
	 * comparison reports each missing value */
	assert_string_equal(s, "{\"cpus\":1,\"nodes\":[],\"distances\":[],\"cpu\":[{\"cpu\":0,"
			    "\"package\":null,\"die\":null,\"node\":null,\"siblings\":null,"
			    "\"llc\":null,\"domains\":[]}],\"kernel\":null}");
	json_object_put(v);
	strbuf_release(&err);
}

/* arm64's virt shows QEMU clusters only as cluster_cpus_list: with
 * GUEST_VIEW_CLUSTERS they join the view (null when the guest has none). */
static void test_clusters(void **state)
{
	static const char text[] =
		"/sys/devices/system/cpu/online=0-1\n"
		"/sys/devices/system/cpu/cpu0/topology/cluster_cpus_list=0-1\n"
		"/sys/devices/system/cpu/cpu1/topology/cluster_cpus_list=1,0\n";
	struct strbuf err = STRBUF_INIT;
	struct json_object *v, *cpus, *c;

	v = guest_view_from_sysfs_flags(text, strlen(text), GUEST_VIEW_CLUSTERS, &err);
	assert_non_null(v);
	assert_true(json_object_object_get_ex(v, "cpu", &cpus));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(cpus, 1), "cluster", &c));
	assert_string_equal(json_object_get_string(c), "0-1");
	json_object_put(v);
	v = guest_view_from_sysfs(text, strlen(text), &err);
	assert_true(json_object_object_get_ex(v, "cpu", &cpus));
	assert_false(json_object_object_get_ex(json_object_array_get_idx(cpus, 0), "cluster", NULL));
	json_object_put(v);
	v = guest_view_from_sysfs_flags(text, strcspn(text, "\n") + 1, GUEST_VIEW_CLUSTERS, &err);
	assert_true(json_object_object_get_ex(v, "cpu", &cpus));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(cpus, 1), "cluster", &c));
	assert_null(c);
	json_object_put(v);
	strbuf_release(&err);
}

static void test_llc_choice_and_memory_node(void **state)
{
	static const char text[] =
		"/sys/devices/system/cpu/online=0-1\n"
		/* cpu0: no L3, two L2s: the unified one is the LLC */
		"/sys/devices/system/cpu/cpu0/cache/index0/level=1\n"
		"/sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_list=0\n"
		"/sys/devices/system/cpu/cpu0/cache/index1/level=2\n"
		"/sys/devices/system/cpu/cpu0/cache/index1/type=Instruction\n"
		"/sys/devices/system/cpu/cpu0/cache/index1/shared_cpu_list=0\n"
		"/sys/devices/system/cpu/cpu0/cache/index2/level=2\n"
		"/sys/devices/system/cpu/cpu0/cache/index2/type=Unified\n"
		"/sys/devices/system/cpu/cpu0/cache/index2/shared_cpu_list=0,1\n"
		/* cpu1: an L4 does not beat the L3 */
		"/sys/devices/system/cpu/cpu1/cache/index3/level=3\n"
		"/sys/devices/system/cpu/cpu1/cache/index3/shared_cpu_list=1\n"
		"/sys/devices/system/cpu/cpu1/cache/index4/level=4\n"
		"/sys/devices/system/cpu/cpu1/cache/index4/shared_cpu_list=0-1\n"
		"/sys/devices/system/cpu/cpu1/topology/physical_package_id=-1\n"
		/* a memory-only node and a node with a hole in its files */
		"/sys/devices/system/node/node0/cpulist=0-1\n"
		"/sys/devices/system/node/node0/meminfo=Node 0 MemTotal: 1048576 kB\n"
		"/sys/devices/system/node/node2/cpulist=\n"
		"/sys/devices/system/node/node2/distance=20 20 10\n"
		"/sys/devices/system/node/node2/meminfo=Node 2 MemTotal: 2097152 kB\n"
		/* a domain level gap shows as null */
		"/proc/sys/kernel/sched_domain/cpu1/domain1/name=NUMA\n";
	struct strbuf err = STRBUF_INIT;
	struct json_object *v = view_of(text, &err), *cpus;

	if (!v)
		fail_msg("rejected: %s", err.buf);
	assert_json(field(v, "nodes"),
		    "[{\"node\":0,\"cpus\":\"0-1\",\"mem_mib\":1024},"
		    "{\"node\":2,\"cpus\":\"\",\"mem_mib\":2048}]");
	assert_json(field(v, "distances"), "[null,[20,20,10]]");
	cpus = field(v, "cpu");
	assert_string_equal(json_object_get_string(field(json_object_array_get_idx(cpus, 0), "llc")), "0-1");
	assert_string_equal(json_object_get_string(field(json_object_array_get_idx(cpus, 1), "llc")), "1");
	assert_int_equal(json_object_get_int(field(json_object_array_get_idx(cpus, 1), "package")), -1);
	assert_int_equal(json_object_get_int(field(json_object_array_get_idx(cpus, 1), "node")), 0);
	assert_json(field(json_object_array_get_idx(cpus, 1), "domains"), "[null,\"NUMA\"]");
	json_object_put(v);
	strbuf_release(&err);
}

static void expect_rejected(const char *text, size_t len, const char *needle)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *v = guest_view_from_sysfs(text, len, &err);

	if (v)
		fail_msg("accepted: %.60s", text);
	if (!strstr(err.buf, needle))
		fail_msg("error '%s' does not mention '%s'", err.buf, needle);
	if (strchr(err.buf, '\n'))
		fail_msg("error '%s' is not one line", err.buf);
	strbuf_release(&err);
}

static void test_malformed(void **state)
{
	static char longline[GUEST_VIEW_MAX_LINE + 64];
	static const char nul[] = "/sys/devices/system/cpu/online=0\0-3\n";
	static const char *const cases[][2] = {
		{ "/sys/devices/system/cpu/online=0-3\nno equals sign\n", "line 2" },
		{ "/sys/devices/system/cpu/online=3-1\n", "not a cpulist" },
		{ "/sys/devices/system/cpu/online=0-16384\n", "not a cpulist" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/cpu/cpu16384/topology/die_id=0\n", "out of range" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/cpu/cpu0/topology/die_id=0x1\n", "not an id" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/cpu/cpu0/topology/die_id=99999999999999999999\n", "not an id" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/cpu/cpu0/topology/die_id=-2\n", "not an id" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/cpu/cpuX/topology/die_id=0\n", "malformed path" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/cpu/cpu0/cache/index0/level=three\n", "cache level" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/node/node0/meminfo=Node 0 MemFree: 5 kB\n", "MemTotal" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/node/node0/distance=10,20\n", "distances" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/node/node1024/cpulist=0\n", "out of range" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/kernel/debug/sched/domains/cpu0/domain0/name=\n", "empty domain" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/kernel/debug/sched/domains/cpu0/domain64/name=MC\n", "out of range" },
		{ "/sys/devices/system/cpu/cpu0/topology/die_id=0\n", "no '/sys/devices/system/cpu/online'" },
		{ "/sys/devices/system/cpu/online=0\n"
		  "/sys/devices/system/cpu/cpu0/topology/die_id=\x1b[2J\n", "not an id" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		expect_rejected(cases[i][0], strlen(cases[i][0]), cases[i][1]);
	expect_rejected(nul, sizeof(nul) - 1, "NUL");

	memset(longline, 'a', sizeof(longline) - 1);
	memcpy(longline, "/sys/kernel/x=", 14);
	expect_rejected(longline, strlen(longline), "8192");

	/* the path in an error line is printable and bounded */
	{
		static const char evil[] = "/sys/devices/system/cpu/online=0\n"
			"/sys/devices/system/node/node\x1b[31m/cpulist=0\n";
		struct strbuf err = STRBUF_INIT;

		assert_null(guest_view_from_sysfs(evil, strlen(evil), &err));
		assert_null(strchr(err.buf, '\x1b'));
		strbuf_release(&err);
	}
}

static void test_exact_line_limit(void **state)
{
	/* a line of exactly 8192 bytes is fine, one more is not */
	static char text[GUEST_VIEW_MAX_LINE + 64];
	struct strbuf err = STRBUF_INIT;
	struct json_object *v;
	size_t head = strlen("/sys/devices/system/cpu/online=0\n");

	memcpy(text, "/sys/devices/system/cpu/online=0\n/sys/kernel/x=", head + 14);
	memset(text + head + 14, 'a', GUEST_VIEW_MAX_LINE - 14);
	text[head + GUEST_VIEW_MAX_LINE] = '\n';
	v = guest_view_from_sysfs(text, head + GUEST_VIEW_MAX_LINE + 1, &err);
	assert_non_null(v);
	json_object_put(v);
	text[head + GUEST_VIEW_MAX_LINE] = 'a';
	text[head + GUEST_VIEW_MAX_LINE + 1] = '\n';
	assert_null(guest_view_from_sysfs(text, head + GUEST_VIEW_MAX_LINE + 2, &err));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_canonical),
		cmocka_unit_test(test_cpulist_malformed),
		cmocka_unit_test(test_realistic_snapshot),
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_clusters),
		cmocka_unit_test(test_llc_choice_and_memory_node),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_exact_line_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
