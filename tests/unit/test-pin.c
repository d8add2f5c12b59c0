/* test-pin.c - --pin's vCPU -> host CPU map: guest SMT siblings on one
 * host core, each guest LLC inside one host LLC, and the one line naming
 * the level that does not fit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "topo/pin.h"
#include "common/cpulist.h"

/* A host view (guestview.h): CPU i has package pkg[i], siblings sib[i]
 * and llc llc[i]; llc NULL is JSON null (no shared cache reported). */
static struct json_object *view(unsigned n, const unsigned *pkg, const char *const *sib,
				const char *const *llc)
{
	struct strbuf s = STRBUF_INIT;
	struct json_object *v;

	strbuf_addf(&s, "{\"cpus\": %u, \"cpu\": [", n);
	for (unsigned i = 0; i < n; i++) {
		strbuf_addf(&s, "%s{\"cpu\":%u,\"package\":%u,\"die\":0,\"node\":0,\"siblings\":\"%s\",",
			    i ? "," : "", i, pkg[i], sib[i]);
		if (llc[i])
			strbuf_addf(&s, "\"llc\":\"%s\"}", llc[i]);
		else
			strbuf_addstr(&s, "\"llc\":null}");
	}
	strbuf_addstr(&s, "]}");
	v = json_tokener_parse(s.buf);
	assert_non_null(v);
	strbuf_release(&s);
	return v;
}

/* 2 packages x 2 LLCs x 2 cores x 2 threads, Intel numbering: the second
 * threads of all cores come after the first ones (CPU c and c + 8). */
static struct json_object *view_2s2l2c2t(void)
{
	static unsigned pkg[16];
	static const char *sib[16], *llc[16];
	static char sb[16][16], lb[16][32];

	for (unsigned i = 0; i < 16; i++) {
		unsigned core = i % 8, l = core / 2;

		pkg[i] = core / 4;
		snprintf(sb[i], sizeof(sb[i]), "%u,%u", core, core + 8);
		snprintf(lb[i], sizeof(lb[i]), "%u-%u,%u-%u", l * 2, l * 2 + 1, l * 2 + 8, l * 2 + 9);
		sib[i] = sb[i];
		llc[i] = lb[i];
	}
	return view(16, pkg, sib, llc);
}

static void host_of(struct json_object *v, struct pin_host *h)
{
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(pin_host_from_view(v, h, &err), 0);
	json_object_put(v);
	strbuf_release(&err);
}

/* pin_map of spec on h: its result, the map, and why in *why_out */
static int map_of(const char *spec, const struct pin_host *h, unsigned *map, struct strbuf *why)
{
	struct strbuf err = STRBUF_INIT;
	struct topo t;

	if (topo_parse(spec, &t, &err) < 0)
		fail_msg("%s: %s", spec, err.buf);
	strbuf_release(&err);
	return pin_map(&t, h, map, why);
}

static const struct pin_core *core_of(const struct pin_host *h, unsigned cpu)
{
	for (unsigned i = 0; i < h->nr_cores; i++)
		for (unsigned k = 0; k < h->core[i].nr_threads; k++)
			if (h->core[i].thread[k] == cpu)
				return &h->core[i];
	fail_msg("CPU %u is on no core", cpu);
	return NULL;
}

static void test_this_vm(void **state)
{
	/* the lab's own 2-CPU VM: two cores, one LLC */
	static const unsigned pkg[] = { 0, 0 };
	static const char *const sib[] = { "0", "1" }, *const llc[] = { "0-1", "0-1" };
	struct strbuf why = STRBUF_INIT;
	struct pin_host h;
	unsigned map[2];

	(void)state;
	host_of(view(2, pkg, sib, llc), &h);
	assert_int_equal(h.nr_cpus, 2);
	assert_int_equal(h.nr_cores, 2);
	assert_int_equal(map_of("1s2c", &h, map, &why), 0);
	assert_int_equal(map[0], 0);
	assert_int_equal(map[1], 1);
	assert_int_equal(map_of("1s1c", &h, map, &why), 0);
	assert_int_equal(map[0], 0);

	assert_int_equal(map_of("1s4c2t,llc=2", &h, map, &why), -1);
	assert_string_equal(why.buf, "CPUs: the guest has 8 vCPUs, this host 2 usable CPUs");
	strbuf_reset(&why);
	assert_int_equal(map_of("1s1c2t", &h, map, &why), -1);
	assert_string_equal(why.buf, "threads per core: guest cores have 2, this host's at most 1");
	pin_host_release(&h);
	strbuf_release(&why);
}

static void test_smt_llc(void **state)
{
	struct strbuf why = STRBUF_INIT;
	struct pin_host h;
	unsigned map[16];

	(void)state;
	host_of(view_2s2l2c2t(), &h);
	assert_int_equal(h.nr_cores, 8);
	assert_int_equal(h.core[1].nr_threads, 2);
	assert_int_equal(h.core[1].thread[0], 1);
	assert_int_equal(h.core[1].thread[1], 9);

	/* 2 guest LLCs of 2 cores x 2 threads: each in a host LLC, siblings
	 * on one host core */
	assert_int_equal(map_of("1s4c2t,llc=2", &h, map, &why), 0);
	for (unsigned i = 0; i < 8; i += 2) {
		assert_ptr_equal(core_of(&h, map[i]), core_of(&h, map[i + 1]));
		assert_int_not_equal(map[i], map[i + 1]);
	}
	for (unsigned g = 0; g < 2; g++) {
		const struct pin_core *a = core_of(&h, map[g * 4]), *b = core_of(&h, map[g * 4 + 2]);

		assert_int_equal(a->llc, b->llc);
		assert_int_equal(a->package, b->package);
	}
	assert_int_not_equal(core_of(&h, map[0])->llc, core_of(&h, map[4])->llc);
	assert_int_equal(map[0], 0);
	assert_int_equal(map[1], 8);
	assert_int_equal(map[2], 1);
	assert_int_equal(map[3], 9);

	/* guest cores without SMT still take whole host cores */
	assert_int_equal(map_of("2s4c,llc=2", &h, map, &why), 0);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned k = 0; k < i; k++)
			assert_ptr_not_equal(core_of(&h, map[i]), core_of(&h, map[k]));

	/* a guest LLC of 4 cores: the host's hold 2 */
	assert_int_equal(map_of("1s4c2t", &h, map, &why), -1);
	assert_string_equal(why.buf, "LLC: a guest LLC of 4 cores x 2 threads fits in no host LLC "
			    "(this host's hold at most 2 such cores)");
	strbuf_reset(&why);
	/* 9 cores of one thread are more than the host's 8 */
	assert_int_equal(map_of("1s9c,llc=1", &h, map, &why), -1);
	assert_string_equal(why.buf, "cores: the guest has 9 cores of 1 thread, this host 8 such cores");
	pin_host_release(&h);
	strbuf_release(&why);
}

static void test_hotplug_and_no_llc(void **state)
{
	/* no LLC reported: each package is one */
	static const unsigned pkg[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const char *const sib[] = { "0", "1", "2", "3", "4", "5", "6", "7" };
	static const char *const llc[8] = { NULL };
	struct strbuf why = STRBUF_INIT;
	struct pin_host h;
	unsigned map[8];

	(void)state;
	host_of(view(8, pkg, sib, llc), &h);
	/* 2 LLCs of 4, the last 2 CPUs hot-plug slots: 6 vCPUs at boot */
	assert_int_equal(map_of("1s8c,llc=4,hotplug=2", &h, map, &why), 0);
	assert_int_equal(map[0], 0);
	assert_int_equal(map[3], 3);
	assert_int_equal(map[4], 4);
	assert_int_equal(map[5], 5);
	/* 2 LLCs of 3: the second does not fit beside the first */
	assert_int_equal(map_of("1s6c,llc=3", &h, map, &why), 0);
	assert_int_equal(map[3], 4);
	assert_int_equal(map_of("1s8c,llc=8", &h, map, &why), -1);
	assert_non_null(strstr(why.buf, "LLC: a guest LLC of 8 cores"));
	pin_host_release(&h);
	strbuf_release(&why);
}

/* a cpuset that leaves the lab CPUs 1-2 and 8: half cores drop threads */
static void test_restrict(void **state)
{
	unsigned long allowed[CPULIST_LONGS(16)] = { 0 };
	struct strbuf why = STRBUF_INIT;
	struct pin_host h;
	unsigned map[4];

	(void)state;
	host_of(view_2s2l2c2t(), &h);
	cpulist_set(allowed, 1);
	cpulist_set(allowed, 2);
	cpulist_set(allowed, 8);
	cpulist_set(allowed, 9);
	pin_host_restrict(&h, allowed, 16);
	assert_int_equal(h.nr_cpus, 4);
	assert_int_equal(h.nr_cores, 3);
	/* core 1 keeps both threads (1, 9): one 2-thread guest core fits */
	assert_int_equal(map_of("1s1c2t", &h, map, &why), 0);
	assert_int_equal(map[0], 1);
	assert_int_equal(map[1], 9);
	assert_int_equal(map_of("1s2c2t", &h, map, &why), -1);
	assert_string_equal(why.buf, "cores: the guest has 2 cores of 2 threads, this host 1 such cores");
	pin_host_release(&h);
	strbuf_release(&why);
}

static void test_bad_view(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *v = json_tokener_parse("{\"cpus\": 0, \"cpu\": []}");
	struct pin_host h;

	(void)state;
	assert_int_equal(pin_host_from_view(v, &h, &err), -1);
	assert_string_equal(err.buf, "the host's topology lists no CPUs");
	json_object_put(v);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_this_vm),
		cmocka_unit_test(test_smt_llc),
		cmocka_unit_test(test_hotplug_and_no_llc),
		cmocka_unit_test(test_restrict),
		cmocka_unit_test(test_bad_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
