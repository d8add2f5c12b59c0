/* test-debarchive.c - Debian's archive by version: kernel specs, image
 * package names, madison output, split 7.x packages; and the kernel
 * generation registry. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <string.h>

#include "kernel/debarchive.h"
#include "kernel/kgen.h"
#include "lib/util.h"

static void test_spec(void **state)
{
	char series[16], flavour[16];
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(debarchive_parse_spec("debian:6.12", series, flavour, &err), 1);
	assert_string_equal(series, "6.12");
	assert_string_equal(flavour, "");
	assert_int_equal(debarchive_parse_spec("debian:7.2-rt", series, flavour, &err), 1);
	assert_string_equal(series, "7.2");
	assert_string_equal(flavour, "rt");
	assert_int_equal(debarchive_parse_spec("debian:latest-cloud", series, flavour, &err), 1);
	assert_string_equal(series, "latest");
	assert_string_equal(flavour, "cloud");
	/* not archive names at all */
	assert_int_equal(debarchive_parse_spec("debian", series, flavour, &err), 0);
	assert_int_equal(debarchive_parse_spec("/boot/vmlinuz", series, flavour, &err), 0);
	/* archive names that say nothing the archive could have */
	const char *bad[] = { "debian:", "debian:6", "debian:6.", "debian:.12", "debian:6.12.1",
			      "debian:6.12-", "debian:6.12-lowlatency", "debian:1234.1", "debian:v6.1",
			      "debian:latest6" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		strbuf_reset(&err);
		assert_int_equal(debarchive_parse_spec(bad[i], series, flavour, &err), -1);
		assert_non_null(strstr(err.buf, bad[i]));
		assert_null(strchr(err.buf, '\n'));
	}
	/* a blank or a newline never reaches the message */
	strbuf_reset(&err);
	assert_int_equal(debarchive_parse_spec("debian:6.12\nx", series, flavour, &err), -1);
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
}

static void test_image_names(void **state)
{
	struct deb_kernel k;

	(void)state;
	assert_int_equal(debarchive_parse_image("linux-image-6.12.118+deb12-amd64", "amd64", &k), 1);
	assert_string_equal(k.release, "6.12.118+deb12-amd64");
	assert_string_equal(k.series, "6.12");
	assert_string_equal(k.flavour, "");
	assert_int_equal(k.num[2], 118);
	assert_int_equal(debarchive_parse_image("linux-image-6.1.0-57-rt-amd64", "amd64", &k), 1);
	assert_string_equal(k.series, "6.1");
	assert_string_equal(k.flavour, "rt");
	assert_int_equal(k.num[3], 57);
	assert_int_equal(debarchive_parse_image("linux-image-7.2.13+deb14-cloud-amd64", "amd64", &k), 1);
	assert_string_equal(k.flavour, "cloud");
	assert_string_equal(k.release, "7.2.13+deb14-cloud-amd64");
	assert_int_equal(debarchive_parse_image("linux-image-7.2.13+deb14-powerpc64le", "powerpc64le", &k), 1);
	/* meta packages, other arches and flavours, debug and unsigned images */
	const char *no[] = { "linux-image-6.12-amd64", "linux-image-amd64", "linux-image-6.12-rt-amd64",
			     "linux-image-6.12.118+deb12-arm64", "linux-image-6.12.118+deb12-amd64-dbg",
			     "linux-image-6.12.118+deb12-amd64-unsigned", "linux-image-7.2.13+deb14-arm64-16k",
			     "linux-image-6.12.118+-amd64", "linux-image--amd64", "linux-headers-6.1.0-57-amd64",
			     "linux-image-6.1.0--amd64", "linux-image-6.1.0-x-amd64", "linux-image-amd64-amd64" };
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		assert_int_equal(debarchive_parse_image(no[i], "amd64", &k), 0);
}

static const char madison[] =
	"linux-image-6.12.118+deb12-amd64 | 6.12.118-1~deb12u1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages\n"
	"linux-image-6.12.117+deb13-amd64 | 6.12.117-1 | http://deb.debian.org/debian trixie/main amd64 Packages\n"
	"linux-image-6.12.117+deb13-amd64 | 6.12.117-1 | http://deb.debian.org/debian-security trixie-security/main amd64 Packages\n"
	"linux-image-6.12.117+deb13-amd64 | 6.12.117-1 | http://deb.debian.org/debian trixie/main arm64 Packages\n"
	"linux-image-7.2.13+deb14-amd64 | 7.2.13-1 | http://deb.debian.org/debian sid/main amd64 Packages\n"
	"linux-image-7.2.13+deb14-rt-amd64 | 7.2.13-1 | http://deb.debian.org/debian sid/main amd64 Packages\n"
	"garbage | | \n|||\nlinux-image-6.1.0-57-amd64 | 6.1.158-1 | nosuite\n";

static void test_madison_and_pick(void **state)
{
	const char *names[] = { "linux-image-6.12.118+deb12-amd64", "linux-image-6.12.117+deb13-amd64",
				"linux-image-7.2.13+deb14-amd64", "linux-image-7.2.13+deb14-rt-amd64",
				"linux-image-6.1.0-57-amd64" };
	struct deb_kernel l[ARRAY_SIZE(names)];
	const struct deb_kernel *k;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		assert_int_equal(debarchive_parse_image(names[i], "amd64", &l[i]), 1);
	assert_int_equal(debarchive_parse_madison(madison, "amd64", l, ARRAY_SIZE(l)), 5);
	assert_string_equal(l[0].suites, "bookworm-security");
	assert_string_equal(l[0].version, "6.12.118-1~deb12u1");
	assert_string_equal(l[1].suites, "trixie trixie-security");
	/* no suite names it: never picked */
	assert_string_equal(l[4].suites, "");
	k = debarchive_pick(l, ARRAY_SIZE(l), "6.12", "");
	assert_non_null(k);
	assert_string_equal(k->pkg, "linux-image-6.12.118+deb12-amd64");
	k = debarchive_pick(l, ARRAY_SIZE(l), "latest", "");
	assert_string_equal(k->pkg, "linux-image-7.2.13+deb14-amd64");
	k = debarchive_pick(l, ARRAY_SIZE(l), "7.2", "rt");
	assert_string_equal(k->pkg, "linux-image-7.2.13+deb14-rt-amd64");
	assert_null(debarchive_pick(l, ARRAY_SIZE(l), "6.1", ""));
	assert_null(debarchive_pick(l, ARRAY_SIZE(l), "6.12", "cloud"));
	assert_true(debarchive_cmp(&l[0], &l[1]) > 0);
	/* another arch's lines name the package with its arch */
	assert_int_equal(debarchive_parse_image("linux-image-6.12.117+deb13-arm64", "arm64", &l[0]), 1);
	assert_int_equal(debarchive_parse_madison(
		"linux-image-6.12.117+deb13-arm64:arm64 | 6.12.117-1 | http://deb.debian.org/debian trixie/main arm64 Packages\n",
		"arm64", l, 1), 1);
	assert_string_equal(l[0].suites, "trixie");
	assert_int_equal(debarchive_cmp(&l[2], &l[3]), 0);
}

static void test_split_parts(void **state)
{
	struct strvec parts = STRVEC_INIT;

	(void)state;
	assert_int_equal(debarchive_split_parts(
		"dracut | initramfs-tools (>= 0.120+deb8u2) | linux-initramfs-tool, "
		"linux-base-7.2.13+deb14-amd64 (= 7.2.13-1), linux-binary-7.2.13+deb14-amd64 (= 7.2.13-1), "
		"linux-modules-7.2.13+deb14-amd64 (= 7.2.13-1)", "7.2.13+deb14-amd64", &parts), 3);
	assert_string_equal(parts.v[0], "linux-base-7.2.13+deb14-amd64");
	assert_string_equal(parts.v[1], "linux-binary-7.2.13+deb14-amd64");
	assert_string_equal(parts.v[2], "linux-modules-7.2.13+deb14-amd64");
	strvec_clear(&parts);
	/* a classic image: its dependencies are tools, not parts of it */
	assert_int_equal(debarchive_split_parts("kmod, linux-base (>= 4.3~), initramfs-tools (>= 0.120+deb8u2) | linux-initramfs-tool",
						"6.1.0-57-amd64", &parts), 0);
	/* another release's parts are not this one's */
	assert_int_equal(debarchive_split_parts("linux-binary-7.2.13+deb14-cloud-amd64",
						"7.2.13+deb14-amd64", &parts), 0);
	assert_int_equal(debarchive_split_parts("", "7.2.13+deb14-amd64", &parts), 0);
	strvec_clear(&parts);
}

static void test_generations(void **state)
{
	(void)state;
	assert_int_equal(kgen_version("6.12.118+deb12-amd64"), KGEN_V(6, 12));
	assert_int_equal(kgen_version("7.2.13"), KGEN_V(7, 2));
	assert_int_equal(kgen_version("unknown"), 0);
	assert_int_equal(kgen_version("6"), 0);
	assert_null(kgen_for_release(""));
	assert_null(kgen_for_release(NULL));
	assert_string_equal(kgen_for_release("6.1.0-57-amd64")->name, "6.1");
	assert_string_equal(kgen_for_release("5.15.0")->name, "6.1");
	assert_string_equal(kgen_for_release("6.6.30")->scheduler, "EEVDF");
	assert_string_equal(kgen_for_release("6.8.0")->pkg_level, "PKG");
	assert_int_equal(kgen_for_release("6.8.0")->die_id_global, 0);
	assert_int_equal(kgen_for_release("6.9.1")->die_id_global, 1);
	assert_string_equal(kgen_for_release("6.12.118+deb12-amd64")->name, "6.12");
	assert_true(kgen_for_release("6.12.118+deb12-amd64")->task_slice);
	assert_false(kgen_for_release("6.11.3")->task_slice);
	assert_string_equal(kgen_for_release("7.2.13+deb14-amd64")->name, "7.0");
	assert_string_equal(kgen_for_release_or_oldest("unknown")->name, "6.1");
	/* Kconfig changes accumulate: 7.2 has 6.15's and 7.0's */
	{
		const struct kernel_gen *g = NULL;
		const struct kgen_config_change *c;

		assert_null(kgen_config_change("6.12", "SCHED_DEBUG", &g));
		c = kgen_config_change("6.15", "SCHED_DEBUG", &g);
		assert_non_null(c);
		assert_null(c->replacement);
		assert_string_equal(g->name, "6.15");
		assert_non_null(kgen_config_change("7.2", "SCHED_DEBUG", &g));
		c = kgen_config_change("7.2", "PREEMPT_VOLUNTARY", &g);
		assert_string_equal(c->replacement, "PREEMPT_LAZY");
		assert_null(kgen_config_change("6.1", "PREEMPT_VOLUNTARY", &g));
		assert_null(kgen_config_change("", "SCHED_DEBUG", &g));
	}
	/* the registry is ordered and every entry says everything */
	for (size_t i = 0; kernel_gens[i]; i++) {
		const struct kernel_gen *g = kernel_gens[i];

		assert_non_null(g->name);
		assert_non_null(g->scheduler);
		assert_non_null(g->changed);
		assert_non_null(g->pkg_level);
		assert_non_null(g->slice_knob);
		if (i)
			assert_true(kernel_gens[i - 1]->since < g->since);
		if (g->since)
			assert_int_equal(kgen_version(g->name), g->since);
	}
}

/* x86's die_id and the package level per generation, on 2 sockets of 3
 * LLCs (QEMU dies): the die number needs 2 bits, so socket 1's dies are
 * 4, 5, 6 from 6.9 on (measured on Debian's 6.12.118 and 7.2.13), 0, 1, 2
 * before. */
static void test_generation_views(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct topo_kernel_facts f;
	struct topo t;
	const char *rel[] = { "6.1.0-57-amd64", "6.8.0", "6.12.118+deb12-amd64" };
	const int die6[] = { 0, 0, 4 }, die11[] = { 2, 2, 6 };
	const char *pkg[] = { "DIE", "PKG", "PKG" };

	(void)state;
	assert_int_equal(topo_parse("2s6c,llc=2", &t, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		struct json_object *v = topo_expected_view_gen(&t, 0,
			kgen_topo_facts(kgen_for_release(rel[i]), &f));
		struct json_object *cpus = json_object_object_get(v, "cpu");
		struct json_object *c6 = json_object_array_get_idx(cpus, 6);
		struct json_object *c11 = json_object_array_get_idx(cpus, 11);
		struct json_object *doms = json_object_object_get(c6, "domains");

		assert_int_equal(json_object_get_int(json_object_object_get(c6, "die")), die6[i]);
		assert_int_equal(json_object_get_int(json_object_object_get(c11, "die")), die11[i]);
		/* MC, then the package, then NUMA */
		assert_string_equal(json_object_get_string(json_object_array_get_idx(doms, 1)), pkg[i]);
		assert_string_equal(json_object_get_string(json_object_object_get(v, "generation")),
				    kgen_for_release(rel[i])->name);
		json_object_put(v);
	}
	strbuf_release(&err);
}

/* arm64 virt has no cache description: 6.1 shows each CPU as its own LLC
 * and builds DIE and NUMA; 6.12 shows every CPU sharing the LLC, so
 * cpu_coregroup_mask() gives an MC level of the node and PKG, equal to
 * it, goes (measured on Debian's 6.12.118 arm64). */
static void test_arm64_generation_views(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct topo_kernel_facts f;
	struct topo t;
	const char *rel[] = { "6.1.0-57-arm64", "6.12.118+deb12-arm64" };
	const char *llc[] = { "0", "0-7" }, *doms[] = { "DIE NUMA", "MC NUMA" };

	(void)state;
	assert_int_equal(topo_parse("2s4c,arch=arm64", &t, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		struct json_object *v = topo_expected_view_gen(&t, 0,
			kgen_topo_facts(kgen_for_release(rel[i]), &f));
		struct json_object *c0 = json_object_array_get_idx(json_object_object_get(v, "cpu"), 0);
		struct json_object *d = json_object_object_get(c0, "domains");
		struct strbuf names = STRBUF_INIT;

		for (size_t j = 0; j < json_object_array_length(d); j++)
			strbuf_addf(&names, "%s%s", j ? " " : "",
				    json_object_get_string(json_object_array_get_idx(d, j)));
		assert_string_equal(json_object_get_string(json_object_object_get(c0, "llc")), llc[i]);
		assert_string_equal(names.buf, doms[i]);
		strbuf_release(&names);
		json_object_put(v);
	}
	strbuf_release(&err);
}

/* apt-get update's stderr: a mirror mid-sync is a partial update naming
 * the index; any other error, or none named, is not. */
static void test_partial_update(void **state)
{
	struct strbuf f = STRBUF_INIT;
	const char *sync =
		"W: no sandbox\n"
		"E: Failed to fetch http://deb.debian.org/debian-security/dists/bookworm-security/main/"
		"binary-ppc64el/Packages.xz  File has unexpected size (367892 != 368280). Mirror sync "
		"in progress? [IP: 203.0.113.80 80]\n"
		"   Hashes of expected file:\n"
		"    - Filesize:368280 [weak]\n"
		"E: Some index files failed to download. They have been ignored, or old ones used "
		"instead.\n";

	(void)state;
	assert_int_equal(debarchive_partial_update(sync, &f), 1);
	assert_string_equal(f.buf, "http://deb.debian.org/debian-security/dists/bookworm-security/"
				   "main/binary-ppc64el/Packages.xz (File has unexpected size "
				   "(367892 != 368280). Mirror sync in progress? [IP: 203.0.113.80 80])");
	strbuf_reset(&f);
	/* two indexes */
	assert_int_equal(debarchive_partial_update("E: Failed to fetch a  x\nE: Failed to fetch b  y\n"
						   "E: Some index files failed to download.\n", &f), 1);
	assert_string_equal(f.buf, "a (x); b (y)");
	strbuf_reset(&f);
	/* a lock or a bad key is not a mirror syncing */
	assert_int_equal(debarchive_partial_update("E: Failed to fetch a  x\nE: Could not get lock "
						   "/var/lib/apt/lists/lock\nE: Some index files "
						   "failed to download.\n", &f), 0);
	strbuf_reset(&f);
	assert_int_equal(debarchive_partial_update("E: Failed to fetch a  x\n", &f), 0);
	strbuf_reset(&f);
	assert_int_equal(debarchive_partial_update("E: Some index files failed to download.\n", &f), 0);
	assert_int_equal(debarchive_partial_update("", &f), 0);
	strbuf_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_image_names),
		cmocka_unit_test(test_madison_and_pick),
		cmocka_unit_test(test_split_parts),
		cmocka_unit_test(test_partial_update),
		cmocka_unit_test(test_generations),
		cmocka_unit_test(test_generation_views),
		cmocka_unit_test(test_arm64_generation_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
