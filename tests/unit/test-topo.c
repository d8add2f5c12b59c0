/* test-topo.c - unit tests of the topology model: spec grammar, presets,
 * limits, QEMU argv, libvirt XML and the expected guest view. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/lab.h"
#include "topo/topo.h"

/*
 * Golden files live in tests/golden/topo/.  After an intended change of
 * output, regenerate them with
 *     UPDATE_GOLDEN=1 build/tests/test-topo
 * and review the diff (git diff tests/golden/topo) before committing.
 */

static void parse_ok(const char *spec, struct topo *t)
{
	struct strbuf err = STRBUF_INIT;
	int ret = topo_parse(spec, t, &err);

	if (ret)
		fail_msg("topo_parse('%s') failed: %s", spec, err.buf);
	strbuf_release(&err);
}

static char *describe(const struct topo *t)
{
	struct strbuf sb = STRBUF_INIT;

	topo_describe(t, &sb);
	return strbuf_detach(&sb);
}

static void test_parse_2s64c(void **state)
{
	struct topo t;
	char *d;

	parse_ok("2s64c", &t);
	assert_int_equal(t.sockets, 2);
	assert_int_equal(t.cores, 64);
	assert_int_equal(t.threads, 1);
	assert_int_equal(t.llc, 8);
	assert_int_equal(t.nps, 1);
	assert_int_equal(t.memnodes, 0);
	assert_int_equal(t.nr_nodes, 2);
	assert_int_equal(t.node_mem_mib, 4096);
	assert_int_equal(topo_nr_cpus(&t), 128);
	assert_int_equal(topo_llcs_per_socket(&t), 8);
	assert_int_equal(topo_total_mem_mib(&t), 8192);
	assert_int_equal(t.dist[0][0], 10);
	assert_int_equal(t.dist[0][1], 20);
	assert_int_equal(t.dist[1][0], 20);
	assert_string_equal(t.spec, "2s64c1t,llc=8,nps=1,mem=4G,dist=20");
	assert_string_equal(t.name, "");
	d = describe(&t);
	assert_string_equal(d, "2s64c = 2 sockets x 8 LLCs x 8 cores x 1 thread, 2 nodes, 128 CPUs, 8 GiB");
	free(d);
}

/* llc: 8 when 8 divides the cores and there are more than 8, else the socket */
static void test_defaults(void **state)
{
	static const struct {
		const char *spec;
		unsigned llc;
		uint64_t mem;
	} cases[] = {
		{ "1s8c", 8, 512 },
		{ "1s16c", 8, 1024 },
		{ "2s12c", 12, 1024 },     /* 12 * 64 = 768 -> 1024 */
		{ "2s24c2t", 8, 3072 },
		{ "2s26c2t", 26, 3584 },   /* 52 * 64 = 3328 -> 3584 */
		{ "1s1c", 1, 512 },
		{ "1s4c", 4, 512 },
		{ "2s32c,nps=2", 8, 1024 }, /* per node: 16 CPUs */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topo t;

		parse_ok(cases[i].spec, &t);
		assert_int_equal(t.llc, cases[i].llc);
		assert_int_equal(t.node_mem_mib, cases[i].mem);
	}
}

static void test_describe(void **state)
{
	static const struct {
		const char *spec, *want;
	} cases[] = {
		{ "1s1c", "1s1c = 1 socket x 1 LLC x 1 core x 1 thread, 1 node, 1 CPU, 512 MiB" },
		{ "2s26c2t,llc=26,mem=1536M",
		  "2s26c2t,mem=1536M = 2 sockets x 1 LLC x 26 cores x 2 threads, 2 nodes, 104 CPUs, 3 GiB" },
		{ "1s4c,mem=768M", "1s4c,mem=768M = 1 socket x 1 LLC x 4 cores x 1 thread, 1 node, 4 CPUs, 768 MiB" },
		{ "2s32c,nps=2,dist=32", "2s32c,nps=2,dist=32 = 2 sockets x 4 LLCs x 8 cores x 1 thread, "
		  "4 nodes (2 per socket), 64 CPUs, 4 GiB" },
		{ "1s4c,memnodes=2,memnodemem=256M", "1s4c,memnodes=2,memnodemem=256M = 1 socket x 1 LLC x 4 cores "
		  "x 1 thread, 3 nodes (2 memory-only of 256 MiB), 4 CPUs, 1 GiB" },
		{ "tiny-smt", "tiny-smt = 1 socket x 2 LLCs x 2 cores x 2 threads, 1 node, 8 CPUs, 512 MiB" },
		{ "skylake-2s26c,mem=1G",
		  "skylake-2s26c,mem=1G = 2 sockets x 1 LLC x 26 cores x 2 threads, 2 nodes, 104 CPUs, 2 GiB" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topo t;
		char *d;

		parse_ok(cases[i].spec, &t);
		d = describe(&t);
		assert_string_equal(d, cases[i].want);
		free(d);
	}
}

static void test_canonical_roundtrip(void **state)
{
	static const char *const specs[] = {
		"2s64c", "2s64c2t,llc=8,nps=1", "1s1c", "4s24c2t,llc=24", "2s32c,nps=2,dist=30",
		"1s8c,llc=2,nps=4", "2s4c,dist=10:30:30:10", "2s4c,dist=10:020:20:10",
		"1s4c,memnodes=1", "2s8c,nps=2,llc=4,memnodes=2,memnodemem=1536M,dist=40",
		"2s2c,memnodes=1,dist=10:20:30:20:10:30:30:30:10",
		"2s2c,memnodes=1,dist=10:20:30:20:10:40:30:40:10",
		"4s2c,dist=10:15:20:25:15:10:25:20:20:25:10:15:25:20:15:10",
		"1s8c,llc=4,nps=2,dist=10:15:15:10", "2s4c,mem=1024M", "1s4c,mem=4096K",
		"1s255c", "16s1024c", "64s1c",
	};

	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		struct topo a, b;

		parse_ok(specs[i], &a);
		parse_ok(a.spec, &b);
		if (memcmp(&a, &b, sizeof(a)))
			fail_msg("'%s' -> '%s' does not parse back to the same topology", specs[i], a.spec);
	}
}

static void test_canonical_text(void **state)
{
	static const struct {
		const char *spec, *canon;
	} cases[] = {
		{ "2s32c,nps=2", "2s32c1t,llc=8,nps=2,mem=1G,dist=20" },
		{ "2s4c,dist=10:30:30:10", "2s4c1t,llc=4,nps=1,mem=512M,dist=30" },
		{ "2s4c,dist=10:20:20:10", "2s4c1t,llc=4,nps=1,mem=512M,dist=20" },
		{ "1s8c,llc=4,nps=2,dist=10:15:15:10", "1s8c1t,llc=4,nps=2,mem=512M,dist=10:15:15:10" },
		{ "1s4c,memnodes=1", "1s4c1t,llc=4,nps=1,mem=512M,dist=20,memnodes=1,memnodemem=512M" },
		{ "2s2c,memnodes=1,dist=10:20:30:20:10:30:30:30:10",
		  "2s2c1t,llc=2,nps=1,mem=512M,dist=10:20:30:20:10:30:30:30:10,memnodes=1,memnodemem=512M" },
		{ "1s4c,mem=4096K", "1s4c1t,llc=4,nps=1,mem=4M,dist=20" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topo t;

		parse_ok(cases[i].spec, &t);
		assert_string_equal(t.spec, cases[i].canon);
	}
}

static void test_distances(void **state)
{
	struct topo t;

	parse_ok("2s32c,nps=2,memnodes=1,dist=25", &t);
	assert_int_equal(t.nr_nodes, 5);
	assert_int_equal(t.dist[0][1], 12);
	assert_int_equal(t.dist[2][3], 12);
	assert_int_equal(t.dist[1][2], 25);
	assert_int_equal(t.dist[0][4], 25);
	assert_int_equal(t.dist[4][3], 25);
	assert_int_equal(t.dist[4][4], 10);
	assert_int_equal(t.memnode_mem_mib, 1024);
}

static void test_errors(void **state)
{
	static const struct {
		const char *spec, *want;
	} cases[] = {
		{ "", "empty topology spec" },
		{ "2s64c,llc=6", "llc=6 does not divide the 64 cores per socket" },
		{ "2s8c,llc=16", "llc=16 is more than the 8 cores per socket" },
		{ "2s64c,llc=0", "llc=0 is not a number" },
		{ "0s4c", "0 sockets" },
		{ "2s0c", "0 cores" },
		{ "2s4c0t", "0 threads" },
		{ "2s", "is not <sockets>s<cores>c[<threads>t]" },
		{ "2s4c2t1", "is not <sockets>s<cores>c[<threads>t]" },
		{ "s4c", "unknown preset 's4c'" },
		{ "2s4c,foo=1", "unknown option 'foo'" },
		{ "2s4c,mem=1G,mem=2G", "option 'mem' is given twice" },
		{ "2s4c,mem=", "option 'mem' has an empty value" },
		{ "2s4c,mem", "option 'mem' has no value" },
		{ "2s4c,", "empty option" },
		{ "2s4c,,mem=1G", "empty option" },
		{ "2s4c,mem=1000K", "mem=1000K is not a size in whole MiB" },
		{ "2s4c,mem=0", "needs some memory" },
		{ "2s4c,mem=2x", "is not a size" },
		{ "2s4c,mem=17T", "more than 16 TiB" },
		{ "4s4c,mem=8T", "more than 16 TiB" },
		{ "2s4c,memnodes=2,memnodemem=8T", "more than 16 TiB" },
		{ "2s4c,memnodemem=1G", "memnodemem=1G needs memnodes" },
		{ "1s4c,hotplug=4", "hotplug=4 leaves no CPU to boot with: the topology has 4 CPU slots" },
		{ "1s4c,hotplug=-1", "hotplug=-1 is not a number of spare CPU slots" },
		{ "1s4c,hotplug=1,hotplug=2", "option 'hotplug' is given twice" },
		{ "2s4c;reboot", "character ';' is not allowed" },
		{ "2s4c $(id)", "character ' ' is not allowed" },
		{ "2s4c,mem=1G/", "character '/' is not allowed" },
		{ "2s4c\n", "character 0x0a is not allowed" },
		{ "2s64c,nps=3", "nps=3 must be 1, 2 or 4" },
		{ "2s64c,nps=8", "nps=8 must be 1, 2 or 4" },
		{ "2s8c,nps=2", "nps=2 does not divide the 1 LLC per socket: each NUMA node must hold whole LLCs" },
		{ "2s24c,nps=4", "nps=4 does not divide the 3 LLCs per socket" },
		{ "2s4c,dist=10", "dist=10 is not a distance from 11 to 254" },
		{ "2s4c,dist=255", "dist=255 is not a distance" },
		{ "2s32c,nps=2,dist=12", "dist=12 must be more than 12" },
		{ "2s4c,dist=10:20:20", "dist matrix has 3 values, but 2 nodes need 4" },
		{ "2s4c,dist=10:20:30:10", "dist matrix is not symmetric" },
		{ "2s4c,dist=11:20:20:10", "node 0 to itself must be 10, not 11" },
		{ "2s4c,dist=10:10:10:10", "node 0 to node 1 is 10, outside 11..254" },
		{ "2s4c,dist=10:255:255:10", "outside 11..254" },
		{ "2s4c,dist=10::20:10", "dist matrix value '' is not a distance" },
		{ "17s1024c", "17408 CPUs exceed the maximum of 16384" },
		{ "99999s99999c", "CPUs exceed the maximum" },
		{ "1234567s1c", "is not <sockets>s<cores>c" },
		{ "65s1c", "65 NUMA nodes exceed the maximum of 64" },
		{ "2s4c,memnodes=63", "65 NUMA nodes exceed the maximum of 64" },
		{ "2s4c,memnodes=65", "memnodes=65 is not a number from 0 to 64" },
		{ "nosuch-preset", "unknown preset 'nosuch-preset'" },
		{ "Skylake", "neither a spec" },
		{ "a..b", "neither a spec" },
		{ "tiny-smt,llc=3", "llc=3 does not divide the 4 cores per socket" },
		{ "tiny-smt,bogus=1", "unknown option 'bogus'" },
		{ "tiny-smt,", "empty option" },
		{ "2s4c,mem=0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		  "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
		  "000000000001G", "longer than 200 characters" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf err = STRBUF_INIT;
		struct topo t, zero;

		memset(&zero, 0, sizeof(zero));
		if (topo_parse(cases[i].spec, &t, &err) != -1)
			fail_msg("'%s' was accepted", cases[i].spec);
		if (!strstr(err.buf, cases[i].want))
			fail_msg("'%s': error '%s' does not say '%s'", cases[i].spec, err.buf, cases[i].want);
		assert_null(strchr(err.buf, '\n'));
		assert_true(err.len > 0 && err.len < 300);
		/* a failed parse leaves nothing half-filled behind */
		assert_memory_equal(&t, &zero, sizeof(t));
		strbuf_release(&err);
	}
	/* err may be NULL */
	{
		struct topo t;

		assert_int_equal(topo_parse("2s4c,llc=3", &t, NULL), -1);
		assert_int_equal(topo_parse(NULL, &t, NULL), -1);
	}
}

static void test_resolved_too_long(void **state)
{
	/* a 7-node matrix of 3-digit distances fits in 200 characters, but
	 * not once the canonical options are added in front of it */
	struct strbuf spec = STRBUF_INIT, err = STRBUF_INIT;
	struct topo t;

	strbuf_addstr(&spec, "7s1c,dist=");
	for (int a = 0; a < 7; a++)
		for (int b = 0; b < 7; b++)
			strbuf_addf(&spec, "%s%d", a || b ? ":" : "", a == b ? 10 : 100 + a + b);
	assert_true(spec.len <= 200);
	assert_int_equal(topo_parse(spec.buf, &t, &err), -1);
	assert_non_null(strstr(err.buf, "resolved spec would be longer than 200"));
	strbuf_release(&spec);
	strbuf_release(&err);
}

static void test_presets(void **state)
{
	static const char *const needed[] = {
		"epyc-2s-nps2", "epyc-milan-2s", "epyc-milan-2s-nosmt", "skylake-2s26c",
		"small-numa", "tiny-smt", "xeon-4s24c", "power9-2s", "power8-2s", "arm64-2s-clusters",
	};
	struct topo_preset *p;
	int nr = topo_presets_load(&p);

	assert_true(nr >= (int)ARRAY_SIZE(needed));
	for (int i = 1; i < nr; i++)
		assert_true(strcmp(p[i - 1].name, p[i].name) < 0);
	for (size_t i = 0; i < ARRAY_SIZE(needed); i++) {
		int found = 0;

		for (int j = 0; j < nr; j++) {
			struct topo t;

			if (strcmp(p[j].name, needed[i]))
				continue;
			found = 1;
			assert_true(strlen(p[j].description) > 20);
			assert_non_null(strstr(p[j].description, "seed"));
			parse_ok(p[j].name, &t);
			assert_string_equal(t.name, p[j].name);
			assert_string_equal(t.description, p[j].description);
		}
		if (!found)
			fail_msg("preset '%s' is missing", needed[i]);
	}
	free(p);
}

static void test_preset_shapes(void **state)
{
	static const struct {
		const char *name;
		unsigned sockets, cores, threads, llc, nps, cpus, nodes;
	} cases[] = {
		{ "epyc-milan-2s", 2, 64, 2, 8, 1, 256, 2 },
		{ "epyc-milan-2s-nosmt", 2, 64, 1, 8, 1, 128, 2 },
		{ "xeon-4s24c", 4, 24, 2, 24, 1, 192, 4 },
		{ "skylake-2s26c", 2, 26, 2, 26, 1, 104, 2 },
		{ "epyc-2s-nps2", 2, 32, 1, 8, 2, 64, 4 },
		{ "tiny-smt", 1, 4, 2, 2, 1, 8, 1 },
		{ "small-numa", 2, 4, 1, 4, 1, 8, 2 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topo t, plain;

		parse_ok(cases[i].name, &t);
		assert_int_equal(t.sockets, cases[i].sockets);
		assert_int_equal(t.cores, cases[i].cores);
		assert_int_equal(t.threads, cases[i].threads);
		assert_int_equal(t.llc, cases[i].llc);
		assert_int_equal(t.nps, cases[i].nps);
		assert_int_equal(topo_nr_cpus(&t), cases[i].cpus);
		assert_int_equal(t.nr_nodes, cases[i].nodes);
		/* the canonical spec is the same machine without the name */
		parse_ok(t.spec, &plain);
		memset(t.name, 0, sizeof(t.name));
		memset(t.description, 0, sizeof(t.description));
		assert_memory_equal(&t, &plain, sizeof(t));
	}
}

static void test_preset_override(void **state)
{
	struct topo base, t;

	parse_ok("epyc-2s-nps2", &base);
	parse_ok("epyc-2s-nps2,mem=2G,nps=1", &t);
	assert_int_equal(t.node_mem_mib, 2048);
	assert_int_equal(t.nps, 1);
	assert_int_equal(t.cores, base.cores);
	assert_string_equal(t.name, "epyc-2s-nps2,mem=2G,nps=1");
	assert_string_equal(t.description, "");
	assert_string_equal(t.spec, "2s32c1t,llc=8,nps=1,mem=2G,dist=20");
	/* overrides are checked like any option */
	{
		struct strbuf err = STRBUF_INIT;

		assert_int_equal(topo_parse("epyc-2s-nps2,mem=1G,mem=2G", &t, &err), -1);
		assert_non_null(strstr(err.buf, "given twice"));
		strbuf_release(&err);
	}
}

static void test_limits(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct topo t;

	parse_ok("epyc-milan-2s", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), -1);
	assert_string_equal(err.buf, "256 vCPUs exceed the 255 that QEMU 7.2 TCG can address (no x2APIC); "
			    "this topology needs KVM (ACCEL=kvm)");
	assert_int_equal(topo_check_limits(&t, ACCEL_KVM, 0, &err), 0);

	/* 240 vCPUs, but 10 LLCs per socket take 4 APIC ID bits: socket 2
	 * starts at 256, which QEMU 7.2 refuses under TCG */
	parse_ok("3s80c", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), -1);
	assert_non_null(strstr(err.buf, "APIC IDs up to 335"));
	assert_non_null(strstr(err.buf, "needs KVM"));
	assert_int_equal(topo_check_limits(&t, ACCEL_KVM, 0, &err), 0);

	parse_ok("xeon-4s24c", &t); /* APIC IDs up to 239: fine */
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), 0);
	parse_ok("1s255c", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), 0);

	parse_ok("2s64c", &t); /* 8 GiB */
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 16384, &err), 0);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 10923, &err), 0);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 10922, &err), -1);
	assert_non_null(strstr(err.buf, "8192 MiB"));
	assert_non_null(strstr(err.buf, "10922 MiB"));
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
}

/* ---- golden files ---- */

static char *golden_path(const char *file)
{
	return xasprintf("%s/tests/golden/topo/%s", lab_root(), file);
}

static void check_golden(const char *file, const char *got)
{
	char *path = golden_path(file);
	const char *update = getenv("UPDATE_GOLDEN");
	char *want;

	if (update && !strcmp(update, "1")) {
		char *dir = golden_path("");

		assert_int_equal(mkdir_p(dir, 0755), 0);
		assert_int_equal(write_file_atomic(path, got, strlen(got)), 0);
		free(dir);
	}
	want = read_file(path, NULL);
	if (!want)
		fail_msg("cannot read '%s' (UPDATE_GOLDEN=1 writes it)", path);
	if (strcmp(want, got))
		fail_msg("output differs from '%s' (UPDATE_GOLDEN=1 rewrites it):\n%s", path, got);
	free(want);
	free(path);
}

static char *qemu_text(const char *spec, enum lab_accel accel, int amd)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct topo t;

	parse_ok(spec, &t);
	topo_qemu_argv(&t, accel, amd ? TOPO_QEMU_HOST_AMD : 0, &av);
	for (size_t i = 0; i < av.nr; i++)
		strbuf_addf(&sb, "%s\n", av.v[i]);
	strvec_clear(&av);
	return strbuf_detach(&sb);
}

static void test_qemu_golden(void **state)
{
	static const struct {
		const char *spec, *file;
		enum lab_accel accel;
		int amd;
	} cases[] = {
		{ "2s64c", "2s64c.qemu", ACCEL_TCG, 0 },
		{ "epyc-2s-nps2", "epyc-2s-nps2.qemu", ACCEL_TCG, 0 },
		{ "tiny-smt", "tiny-smt.qemu", ACCEL_TCG, 0 },
		{ "1s4c,memnodes=1,dist=30", "1s4c-memnodes.qemu", ACCEL_TCG, 0 },
		{ "epyc-milan-2s", "epyc-milan-2s-kvm-amd.qemu", ACCEL_KVM, 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s = qemu_text(cases[i].spec, cases[i].accel, cases[i].amd);

		check_golden(cases[i].file, s);
		free(s);
	}
}

static void test_qemu_argv(void **state)
{
	char *s;

	/* single node: no -numa at all */
	s = qemu_text("tiny-smt", ACCEL_TCG, 0);
	assert_null(strstr(s, "-numa"));
	assert_non_null(strstr(s, "-smp\n8,sockets=1,dies=2,cores=2,threads=2\n"));
	assert_non_null(strstr(s, "-cpu\nmax,vendor=GenuineIntel\n"));
	free(s);
	/* each die is one LLC; nps=2 places dies, nps=1 whole sockets */
	s = qemu_text("epyc-2s-nps2", ACCEL_TCG, 0);
	assert_non_null(strstr(s, "-smp\n64,sockets=2,dies=4,cores=8,threads=1\n"));
	assert_non_null(strstr(s, "cpu,node-id=3,socket-id=1,die-id=3\n"));
	assert_non_null(strstr(s, "dist,src=2,dst=3,val=12\n"));
	assert_null(strstr(s, "dist,src=3,dst=2"));
	free(s);
	s = qemu_text("small-numa", ACCEL_KVM, 0);
	assert_non_null(strstr(s, "-accel\nkvm\n-cpu\nhost\n"));
	assert_non_null(strstr(s, "cpu,node-id=1,socket-id=1\n"));
	assert_null(strstr(s, "die-id"));
	free(s);
	s = qemu_text("small-numa", ACCEL_KVM, 1);
	assert_non_null(strstr(s, "-cpu\nhost,topoext=on\n"));
	free(s);
}

static char *xml_for(const char *spec, enum lab_accel accel)
{
	struct topo t;

	parse_ok(spec, &t);
	return topo_libvirt_xml(&t, accel, "schedlab-test", "/boot/vmlinux",
				"/tmp/initrd.cpio", "console=ttyS0 lab.x=\"a&b\" <x>");
}

static void test_libvirt_golden(void **state)
{
	static const struct {
		const char *spec, *file;
		enum lab_accel accel;
	} cases[] = {
		{ "small-numa", "small-numa.xml", ACCEL_TCG },
		{ "epyc-2s-nps2", "epyc-2s-nps2.xml", ACCEL_TCG },
		{ "1s4c,memnodes=1", "1s4c-memnodes.xml", ACCEL_TCG },
		{ "tiny-smt", "tiny-smt-kvm.xml", ACCEL_KVM },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *x = xml_for(cases[i].spec, cases[i].accel);

		check_golden(cases[i].file, x);
		free(x);
	}
}

static void test_libvirt_escape(void **state)
{
	struct topo t;
	char *x;

	parse_ok("small-numa", &t);
	x = topo_libvirt_xml(&t, ACCEL_TCG, "a<b>&'c\"", NULL, NULL, "x\ny");
	assert_non_null(strstr(x, "<name>a&lt;b&gt;&amp;&apos;c&quot;</name>"));
	assert_non_null(strstr(x, "<cmdline>x?y</cmdline>"));
	assert_null(strstr(x, "<kernel>"));
	assert_null(strstr(x, "<initrd>"));
	assert_non_null(strstr(x, "<domain type='qemu'"));
	free(x);
	x = topo_libvirt_xml(&t, ACCEL_KVM, "k", NULL, NULL, NULL);
	assert_non_null(strstr(x, "<domain type='kvm'"));
	assert_non_null(strstr(x, "mode='host-passthrough'"));
	assert_null(strstr(x, "<cmdline>"));
	free(x);
}

static int find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;

	copy = xstrdup(path && *path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, prog);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

/* Runs argv with stdout/stderr to /dev/null; returns its exit status. */
static int run_quiet(const char *const *argv)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void test_libvirt_validates(void **state)
{
	static const struct {
		const char *spec;
		enum lab_accel accel;
	} cases[] = {
		{ "small-numa", ACCEL_TCG },
		{ "epyc-2s-nps2", ACCEL_TCG },
		{ "2s2c2t,memnodes=2,memnodemem=256M,dist=30", ACCEL_TCG },
		{ "tiny-smt", ACCEL_KVM },
		{ "2s2c,hotplug=2", ACCEL_TCG },
	};
	char dir[] = "/tmp/test-topo-XXXXXX";

	if (!find_in_path("virt-xml-validate"))
		skip();
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *x = xml_for(cases[i].spec, cases[i].accel);
		char *path = xasprintf("%s/domain.xml", dir);
		const char *argv[] = { "virt-xml-validate", path, "domain", NULL };

		assert_int_equal(write_file_atomic(path, x, strlen(x)), 0);
		if (run_quiet(argv))
			fail_msg("virt-xml-validate rejects the XML of '%s':\n%s", cases[i].spec, x);
		/* the check itself can fail: a broken document is refused */
		x[strlen(x) / 2] = '\0';
		assert_int_equal(write_file_atomic(path, x, strlen(x)), 0);
		assert_int_not_equal(run_quiet(argv), 0);
		unlink(path);
		free(path);
		free(x);
	}
	rmdir(dir);
}

/* ---- expected guest view ---- */

static struct json_object *view_of(const char *spec)
{
	struct topo t;

	parse_ok(spec, &t);
	return topo_expected_view(&t);
}

static const char *cpu_str(struct json_object *view, unsigned cpu, const char *key)
{
	struct json_object *cpus, *c, *v;

	assert_true(json_object_object_get_ex(view, "cpu", &cpus));
	c = json_object_array_get_idx(cpus, cpu);
	assert_non_null(c);
	assert_true(json_object_object_get_ex(c, key, &v));
	if (json_object_is_type(v, json_type_array) || json_object_is_type(v, json_type_int))
		return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	return json_object_get_string(v);
}

static void assert_domains(const char *spec, unsigned cpu, const char *want)
{
	struct json_object *v = view_of(spec);
	const char *got = cpu_str(v, cpu, "domains");

	if (strcmp(got, want))
		fail_msg("'%s' cpu%u: domains %s, expected %s", spec, cpu, got, want);
	json_object_put(v);
}

/*
 * The first two are the brief's measurements; the rest were checked by
 * booting Debian's 6.1 kernel under QEMU 7.2 TCG with topo_qemu_argv()
 * and reading /sys/kernel/debug/sched/domains (see the report).
 */
static void test_view_domains(void **state)
{
	/* -smp 8,sockets=2,dies=2,cores=1,threads=2 + 2 nodes: MC == SMT */
	assert_domains("2s2c2t,llc=1", 0, "[\"SMT\",\"DIE\",\"NUMA\"]");
	/* 2 CPUs, one socket */
	assert_domains("1s2c", 0, "[\"MC\"]");
	assert_domains("1s2c", 1, "[\"MC\"]");
	assert_domains("1s1c", 0, "[]");
	assert_domains("tiny-smt", 5, "[\"SMT\",\"MC\",\"DIE\"]");
	assert_domains("2s4c2t,llc=2", 0, "[\"SMT\",\"MC\",\"DIE\",\"NUMA\"]");
	assert_domains("2s64c", 127, "[\"MC\",\"DIE\",\"NUMA\"]");
	assert_domains("skylake-2s26c", 0, "[\"SMT\",\"MC\",\"NUMA\"]");
	/* nps=2: no DIE; NODE survives when a node holds several LLCs */
	assert_domains("2s8c,llc=2,nps=2", 0, "[\"MC\",\"NODE\",\"NUMA\",\"NUMA\"]");
	assert_domains("2s8c,llc=4,nps=2", 0, "[\"MC\",\"NUMA\",\"NUMA\"]");
	assert_domains("epyc-2s-nps2", 63, "[\"MC\",\"NODE\",\"NUMA\",\"NUMA\"]");
	/* one NUMA level per distinct distance */
	assert_domains("4s2c,dist=10:15:20:25:15:10:25:20:20:25:10:15:25:20:15:10", 0,
		       "[\"MC\",\"NUMA\",\"NUMA\",\"NUMA\"]");
	/* memory-only nodes add no CPUs, hence no level of their own */
	assert_domains("2s2c2t,memnodes=1,dist=10:20:30:20:10:30:30:30:10", 0, "[\"SMT\",\"MC\",\"NUMA\"]");
	/* a NUMA level spanning what the one below spans is dropped */
	assert_domains("1s8c,llc=2,nps=2,dist=10:30:30:10", 0, "[\"MC\",\"NODE\",\"NUMA\"]");
}

static void test_view_layout(void **state)
{
	struct json_object *v = view_of("2s4c2t,llc=2,memnodes=1,memnodemem=256M");
	struct json_object *nodes, *n, *f;

	assert_string_equal(cpu_str(v, 0, "siblings"), "0-1");
	assert_string_equal(cpu_str(v, 5, "siblings"), "4-5");
	assert_string_equal(cpu_str(v, 5, "llc"), "4-7");
	assert_string_equal(cpu_str(v, 5, "die"), "1");
	assert_string_equal(cpu_str(v, 5, "package"), "0");
	assert_string_equal(cpu_str(v, 12, "die"), "1");
	assert_string_equal(cpu_str(v, 12, "package"), "1");
	assert_string_equal(cpu_str(v, 12, "node"), "1");
	assert_true(json_object_object_get_ex(v, "nodes", &nodes));
	assert_int_equal(json_object_array_length(nodes), 3);
	n = json_object_array_get_idx(nodes, 1);
	assert_true(json_object_object_get_ex(n, "cpus", &f));
	assert_string_equal(json_object_get_string(f), "8-15");
	n = json_object_array_get_idx(nodes, 2);
	assert_true(json_object_object_get_ex(n, "cpus", &f));
	assert_string_equal(json_object_get_string(f), "");
	assert_true(json_object_object_get_ex(n, "mem_mib", &f));
	assert_int_equal(json_object_get_int(f), 256);
	assert_true(json_object_object_get_ex(v, "distances", &f));
	assert_string_equal(json_object_to_json_string_ext(f, JSON_C_TO_STRING_PLAIN),
			    "[[10,20,20],[20,10,20],[20,20,10]]");
	assert_true(json_object_object_get_ex(v, "cpus", &f));
	assert_int_equal(json_object_get_int(f), 16);
	json_object_put(v);

	v = view_of("1s1c");
	assert_string_equal(cpu_str(v, 0, "siblings"), "0");
	assert_string_equal(cpu_str(v, 0, "llc"), "0");
	json_object_put(v);
}

static void test_view_golden(void **state)
{
	static const struct {
		const char *spec, *file;
	} cases[] = {
		{ "tiny-smt", "tiny-smt.json" },
		{ "2s2c2t,llc=1", "2s2c2t-llc1.json" },
		{ "2s8c,llc=2,nps=2,memnodes=1", "2s8c-nps2-memnode.json" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct json_object *v = view_of(cases[i].spec);
		char *s = xasprintf("%s\n", json_object_to_json_string_ext(v,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));

		check_golden(cases[i].file, s);
		free(s);
		json_object_put(v);
	}
}

/* The biggest spec still builds a view in reasonable time and memory. */
static void test_view_large(void **state)
{
	struct json_object *v = view_of("64s256c");
	struct json_object *f;

	assert_true(json_object_object_get_ex(v, "cpus", &f));
	assert_int_equal(json_object_get_int(f), 16384);
	assert_string_equal(cpu_str(v, 16383, "llc"), "16376-16383");
	assert_string_equal(cpu_str(v, 16383, "domains"), "[\"MC\",\"DIE\",\"NUMA\"]");
	json_object_put(v);
}

/* ---- lab topo ---- */

struct cmd_result {
	int status;
	char *out, *err;
};

static char *slurp_fd(int fd)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	return strbuf_detach(&sb);
}

static void run_cmd(struct cmd_result *r, const char **argv)
{
	char out_path[] = "/tmp/test-topo-out-XXXXXX", err_path[] = "/tmp/test-topo-err-XXXXXX";
	int out = mkstemp(out_path), err = mkstemp(err_path), status;
	int argc = 0;
	pid_t pid;

	assert_true(out >= 0 && err >= 0);
	unlink(out_path);
	unlink(err_path);
	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int ret;

		dup2(out, 1);
		dup2(err, 2);
		ret = cmd_topo(argc, argv);
		fflush(stdout);
		fflush(stderr);
		_exit(ret);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	r->out = slurp_fd(out);
	r->err = slurp_fd(err);
}

static void cmd_result_release(struct cmd_result *r)
{
	free(r->out);
	free(r->err);
}

static void test_cmd_topo(void **state)
{
	struct cmd_result r;

	run_cmd(&r, (const char *[]){ "topo", "2s64c", NULL });
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "2s64c = 2 sockets x 8 LLCs x 8 cores x 1 thread, 2 nodes, 128 CPUs, 8 GiB\n");
	assert_string_equal(r.err, "");
	cmd_result_release(&r);

	run_cmd(&r, (const char *[]){ "topo", "2s64c,llc=6", NULL });
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "lab: error: bad topology '2s64c,llc=6': llc=6 does not divide the 64 cores per socket\n");
	cmd_result_release(&r);

	/* the user's text is echoed without its control characters */
	run_cmd(&r, (const char *[]){ "topo", "2s4c\n\033[2J", NULL });
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "bad topology '2s4c??[2J'"));
	assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
	cmd_result_release(&r);

	run_cmd(&r, (const char *[]){ "topo", "--qemu", "tiny-smt", NULL });
	assert_int_equal(r.status, 0);
	assert_int_equal(strncmp(r.out, "qemu-system-x86_64\n-accel\ntcg,thread=multi\n", 43), 0);
	cmd_result_release(&r);

	/* TCG cannot boot 256 vCPUs: no argv, exit 2; KVM can */
	run_cmd(&r, (const char *[]){ "topo", "--qemu", "epyc-milan-2s", NULL });
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "needs KVM (ACCEL=kvm)"));
	cmd_result_release(&r);
	run_cmd(&r, (const char *[]){ "topo", "--accel", "kvm", "--qemu", "epyc-milan-2s", NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\n-accel\nkvm\n"));
	cmd_result_release(&r);

	run_cmd(&r, (const char *[]){ "topo", "--json", "small-numa", NULL });
	assert_int_equal(r.status, 0);
	{
		struct json_object *v = json_tokener_parse(r.out), *f;

		assert_non_null(v);
		assert_true(json_object_object_get_ex(v, "spec", &f));
		assert_string_equal(json_object_get_string(f), "2s4c1t,llc=4,nps=1,mem=512M,dist=20");
		json_object_put(v);
	}
	cmd_result_release(&r);
	/* what `lab topo --json` prints is what the golden file holds */
	run_cmd(&r, (const char *[]){ "topo", "--json", "tiny-smt", NULL });
	assert_int_equal(r.status, 0);
	check_golden("tiny-smt.json", r.out);
	cmd_result_release(&r);

	run_cmd(&r, (const char *[]){ "topo", "--libvirt", "small-numa", NULL });
	assert_int_equal(r.status, 0);
	assert_int_equal(strncmp(r.out, "<domain type='qemu'", 19), 0);
	cmd_result_release(&r);

	run_cmd(&r, (const char *[]){ "topo", "--list", NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\nskylake-2s26c = 2 sockets x 1 LLC x 26 cores x 2 threads, 2 nodes, "
				      "104 CPUs, 7 GiB; 2-socket Skylake server"));
	cmd_result_release(&r);

	const char *const *const bad[] = {
		(const char *[]){ "topo", NULL },
		(const char *[]){ "topo", "--frobnicate", "2s4c", NULL },
		(const char *[]){ "topo", "--accel", "xen", "2s4c", NULL },
		(const char *[]){ "topo", "--accel", NULL },
		(const char *[]){ "topo", "2s4c", "2s8c", NULL },
		(const char *[]){ "topo", "--qemu", "--json", "2s4c", NULL },
		(const char *[]){ "topo", "--list", "2s4c", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		run_cmd(&r, (const char **)bad[i]);
		assert_int_equal(r.status, 2);
		assert_string_equal(r.out, "");
		assert_non_null(strstr(r.err, "lab: error: "));
		cmd_result_release(&r);
	}
}

/* hotplug=N: the last N slots empty at boot, everywhere the model goes */
static void test_hotplug(void **state)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	struct json_object *v, *cpus, *nodes;
	struct topo t;
	char *s, spec[256];

	assert_int_equal(topo_parse("1s4c,hotplug=2", &t, &err), 0);
	assert_int_equal(t.hotplug, 2);
	assert_int_equal(topo_nr_cpus(&t), 4);
	assert_int_equal(topo_boot_cpus(&t), 2);
	assert_string_equal(t.spec, "1s4c1t,llc=4,nps=1,mem=512M,dist=20,hotplug=2");
	topo_describe(&t, &sb);
	assert_string_equal(sb.buf, "1s4c,hotplug=2 = 1 socket x 1 LLC x 4 cores x 1 thread, 1 node, "
			    "4 CPUs, 2 at boot + 2 hot-pluggable, 512 MiB");
	strbuf_release(&sb);
	/* the canonical spec parses back to the same machine */
	snprintf(spec, sizeof(spec), "%s", t.spec);
	assert_int_equal(topo_parse(spec, &t, &err), 0);
	assert_int_equal(t.hotplug, 2);
	assert_int_equal(topo_parse("1s4c,hotplug=0", &t, &err), 0);
	assert_string_equal(t.spec, "1s4c1t,llc=4,nps=1,mem=512M,dist=20");

	s = qemu_text("1s4c,hotplug=2", ACCEL_TCG, 0);
	assert_non_null(strstr(s, "-smp\ncpus=2,maxcpus=4,sockets=1,dies=1,cores=4,threads=1\n"));
	free(s);
	/* NUMA placement covers the empty slots too: node 1 is all spare */
	s = qemu_text("2s2c,hotplug=2", ACCEL_TCG, 0);
	assert_non_null(strstr(s, "-smp\ncpus=2,maxcpus=4,sockets=2,dies=1,cores=2,threads=1\n"));
	assert_non_null(strstr(s, "cpu,node-id=1,socket-id=1\n"));
	free(s);

	s = xml_for("1s4c,hotplug=2", ACCEL_TCG);
	assert_non_null(strstr(s, "<vcpu placement='static' current='2'>4</vcpu>\n"));
	assert_non_null(strstr(s, "<vcpu id='1' enabled='yes' hotpluggable='no'/>\n"));
	assert_non_null(strstr(s, "<vcpu id='2' enabled='no' hotpluggable='yes'/>\n"));
	assert_non_null(strstr(s, "<vcpu id='3' enabled='no' hotpluggable='yes'/>\n"));
	free(s);

	/* the guest at boot: 2 CPUs, LLC and node cut at the last present CPU */
	v = view_of("2s2c2t,hotplug=3");
	assert_int_equal(json_object_get_int(json_object_object_get(v, "cpus")), 5);
	cpus = json_object_object_get(v, "cpu");
	assert_int_equal(json_object_array_length(cpus), 5);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(cpus, 4), "llc")), "4");
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(cpus, 4), "siblings")), "4");
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(
		json_object_array_get_idx(cpus, 4), "domains"), JSON_C_TO_STRING_PLAIN), "[\"NUMA\"]");
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(
		json_object_array_get_idx(cpus, 0), "domains"), JSON_C_TO_STRING_PLAIN),
		"[\"SMT\",\"MC\",\"NUMA\"]");
	nodes = json_object_object_get(v, "nodes");
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(nodes, 1), "cpus")), "4");
	json_object_put(v);
	v = view_of("1s4c,hotplug=2");
	cpus = json_object_object_get(v, "cpu");
	assert_int_equal(json_object_array_length(cpus), 2);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(cpus, 1), "llc")), "0-1");
	/* MC and DIE span the same two CPUs: one level */
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(
		json_object_array_get_idx(cpus, 1), "domains"), JSON_C_TO_STRING_PLAIN), "[\"MC\"]");
	json_object_put(v);
	strbuf_release(&err);
}

/* ---- other guest architectures ---- */

static void test_arch_parse(void **state)
{
	struct strbuf err = STRBUF_INIT;
	enum topo_arch a;
	struct topo t, u;

	parse_ok("2s4c,llc=2,arch=arm64", &t);
	assert_int_equal(t.arch, TOPO_ARCH_ARM64);
	assert_string_equal(t.spec, "2s4c1t,llc=2,nps=1,mem=512M,dist=20,arch=arm64");
	parse_ok(t.spec, &u);
	assert_string_equal(u.spec, t.spec);
	parse_ok("2s4c,arch=aarch64", &t);
	assert_int_equal(t.arch, TOPO_ARCH_ARM64);
	parse_ok("2s4c,arch=ppc64el", &t);
	assert_int_equal(t.arch, TOPO_ARCH_PPC64LE);
	/* pseries has no level inside a chip: the default llc is the socket */
	assert_int_equal(t.llc, 4);
	parse_ok("2s4c", &t);
	assert_int_equal(t.arch, TOPO_ARCH_X86_64);
	assert_null(strstr(t.spec, "arch"));

	assert_int_equal(topo_arch_parse("riscv64", &a, &err), -1);
	assert_string_equal(err.buf, "unknown arch 'riscv64' (x86_64, arm64 or ppc64le)");
	assert_int_equal(topo_parse("2s4c,arch=s390x", &t, &err), -1);
	assert_non_null(strstr(err.buf, "unknown arch 's390x'"));
	assert_int_equal(topo_parse("2s4c,llc=2,arch=ppc64le", &t, &err), -1);
	assert_non_null(strstr(err.buf, "ppc64le (pseries) can emulate sockets, SMT threads and NUMA nodes"));
	assert_null(strchr(err.buf, '\n'));
	assert_int_equal(topo_parse("2s4c,hotplug=2,arch=arm64", &t, &err), -1);
	assert_non_null(strstr(err.buf, "x86_64 only"));
	assert_int_equal(topo_parse("2s4c,mem=300M,arch=ppc64le", &t, &err), -1);
	assert_non_null(strstr(err.buf, "256 MiB"));

	/* --arch on a spec: applied, or refused when the spec says otherwise */
	parse_ok("2s4c,llc=2", &t);
	assert_int_equal(topo_set_arch(&t, TOPO_ARCH_ARM64, &err), 0);
	assert_non_null(strstr(t.spec, ",arch=arm64"));
	parse_ok("2s4c,llc=2", &t);
	assert_int_equal(topo_set_arch(&t, TOPO_ARCH_PPC64LE, &err), -1);
	assert_int_equal(t.arch, TOPO_ARCH_X86_64);
	parse_ok("2s4c,arch=ppc64le", &t);
	assert_int_equal(topo_set_arch(&t, TOPO_ARCH_ARM64, &err), -1);
	assert_string_equal(err.buf, "the topology says arch=ppc64le, --arch says arm64");
	assert_int_equal(topo_set_arch(&t, TOPO_ARCH_PPC64LE, &err), 0);
	/* a preset keeps its arch */
	parse_ok("power9-2s", &t);
	assert_int_equal(t.arch, TOPO_ARCH_PPC64LE);
	assert_int_equal(t.threads, 4);
	assert_int_equal(topo_parse("power9-2s,arch=arm64", &t, &err), -1);
	assert_string_equal(err.buf, "preset 'power9-2s' is arch=ppc64le, not arch=arm64");
	parse_ok("tiny-smt,arch=arm64", &t);
	assert_int_equal(t.arch, TOPO_ARCH_ARM64);
	strbuf_release(&err);
}

static void test_arch_limits(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct topo t;

	parse_ok("2s4c8t,arch=ppc64le", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), -1);
	assert_non_null(strstr(err.buf, "8 threads per core: ppc64le under TCG emulates at most 1"));
	assert_int_equal(topo_check_limits(&t, ACCEL_KVM, 0, &err), 0);
	parse_ok("2s4c,arch=ppc64le", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), 0);
	parse_ok("2s2c2t,llc=1,arch=arm64", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), -1);
	assert_non_null(strstr(err.buf, "arch topology borken"));
	assert_null(strchr(err.buf, '\n'));
	parse_ok("2s256c,arch=arm64", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), -1);
	assert_non_null(strstr(err.buf, "512 vCPUs exceed the 256"));
	parse_ok("2s64c,llc=4,nps=2,arch=arm64", &t);
	assert_int_equal(topo_check_limits(&t, ACCEL_TCG, 0, &err), 0);
	assert_string_equal(topo_arch_info(TOPO_ARCH_ARM64)->qemu, "qemu-system-aarch64");
	assert_string_equal(topo_arch_info(TOPO_ARCH_PPC64LE)->rec_tty, "/dev/hvc1");
	strbuf_release(&err);
}

static void test_arch_qemu(void **state)
{
	static const struct {
		const char *spec, *file;
	} cases[] = {
		{ "2s4c,llc=2,arch=arm64", "arm64-2s4c-clusters.qemu" },
		{ "1s8c,llc=2,nps=2,arch=arm64", "arm64-1s8c-nps2.qemu" },
		{ "2s4c,arch=ppc64le,dist=40", "ppc64le-2s4c.qemu" },
	};
	char *s;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		s = qemu_text(cases[i].spec, ACCEL_TCG, 0);
		check_golden(cases[i].file, s);
		free(s);
	}
	s = qemu_text("2s4c,llc=2,arch=arm64", ACCEL_TCG, 0);
	assert_non_null(strstr(s, "-smp\n8,sockets=2,clusters=2,cores=2,threads=1\n"));
	assert_non_null(strstr(s, "cpu,node-id=1,socket-id=1\n"));
	assert_null(strstr(s, "die"));
	free(s);
	s = qemu_text("1s8c,llc=2,nps=2,arch=arm64", ACCEL_TCG, 0);
	assert_non_null(strstr(s, "cpu,node-id=1,socket-id=0,cluster-id=3\n"));
	free(s);
	s = qemu_text("2s4c,arch=ppc64le", ACCEL_TCG, 0);
	assert_non_null(strstr(s, "-cpu\npower9\n"));
	assert_non_null(strstr(s, "cpu,node-id=1,core-id=7\n"));
	free(s);
	/* KVM (on a POWER host): core-id is the core's first thread */
	s = qemu_text("2s2c4t,arch=ppc64le", ACCEL_KVM, 0);
	assert_non_null(strstr(s, "-cpu\nhost\n"));
	assert_non_null(strstr(s, "cpu,node-id=1,core-id=12\n"));
	free(s);
}

static void test_arch_view(void **state)
{
	static const struct {
		const char *spec, *file;
	} cases[] = {
		{ "2s4c,llc=2,arch=arm64", "arm64-2s4c-clusters.json" },
		{ "2s4c,arch=ppc64le", "ppc64le-2s4c.json" },
	};
	struct json_object *v, *f;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s;

		v = view_of(cases[i].spec);
		s = xasprintf("%s\n", json_object_to_json_string_ext(v,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
		check_golden(cases[i].file, s);
		free(s);
		json_object_put(v);
	}
	/* what the guests showed (lab boot --arch, Debian 6.1 kernels) */
	v = view_of("2s4c,llc=2,arch=arm64");
	assert_string_equal(cpu_str(v, 5, "cluster"), "4-5");
	assert_string_equal(cpu_str(v, 5, "llc"), "5");
	assert_string_equal(cpu_str(v, 5, "domains"), "[\"DIE\",\"NUMA\"]");
	assert_true(json_object_object_get_ex(v, "cpu", &f));
	/* die_id is x86's only */
	assert_false(json_object_object_get_ex(json_object_array_get_idx(f, 0), "die", NULL));
	json_object_put(v);
	v = view_of("1s8c,llc=2,nps=2,arch=arm64");
	assert_string_equal(cpu_str(v, 0, "domains"), "[\"DIE\",\"NUMA\"]");
	json_object_put(v);
	v = view_of("2s4c,arch=ppc64le");
	assert_string_equal(cpu_str(v, 3, "llc"), "3");
	assert_string_equal(cpu_str(v, 3, "domains"), "[\"DIE\",\"NUMA\"]");
	json_object_put(v);
	v = view_of("2s2c4t,arch=ppc64le");
	assert_string_equal(cpu_str(v, 5, "siblings"), "4-7");
	assert_string_equal(cpu_str(v, 5, "domains"), "[\"SMT\",\"DIE\",\"NUMA\"]");
	json_object_put(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_2s64c),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_canonical_roundtrip),
		cmocka_unit_test(test_canonical_text),
		cmocka_unit_test(test_distances),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_resolved_too_long),
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_preset_shapes),
		cmocka_unit_test(test_preset_override),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_qemu_golden),
		cmocka_unit_test(test_qemu_argv),
		cmocka_unit_test(test_libvirt_golden),
		cmocka_unit_test(test_libvirt_escape),
		cmocka_unit_test(test_hotplug),
		cmocka_unit_test(test_libvirt_validates),
		cmocka_unit_test(test_view_domains),
		cmocka_unit_test(test_view_layout),
		cmocka_unit_test(test_view_golden),
		cmocka_unit_test(test_view_large),
		cmocka_unit_test(test_cmd_topo),
		cmocka_unit_test(test_arch_parse),
		cmocka_unit_test(test_arch_limits),
		cmocka_unit_test(test_arch_qemu),
		cmocka_unit_test(test_arch_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
