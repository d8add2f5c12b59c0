/* test-kbuild.c - unit tests of kernel builds: SHA-256, fragment parsing and
 * merging, the option check and its Kconfig explanations, cache keys, lookups. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/child.h"
#include "kernel/kbuild.h"
#include "kernel/kconfig.h"
#include "kernel/kernel.h"
#include "lib/util.h"

/* A scratch directory per test run; LAB_CACHE and LAB_ROOT point into it
 * (util caches both on first use, so they are set before anything runs). */
static char scratch[] = "/tmp/test-kbuild.XXXXXX";
static char cwd[4096];

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", scratch, rel);
	char *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(mkdir_p(path, 0755), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

static char *sp(const char *rel)
{
	return xasprintf("%s/%s", scratch, rel);
}

/* A directory that passes kbuild_check_tree(). */
static void make_tree(const char *rel)
{
	char *p;

	p = xasprintf("%s/Makefile", rel);
	put(p, "# SPDX\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n");
	free(p);
	p = xasprintf("%s/scripts/kconfig/merge_config.sh", rel);
	put(p, "#!/bin/sh\n");
	free(p);
	p = xasprintf("%s/arch/x86/Kconfig", rel);
	put(p, "config X86\n\tdef_bool y\n");
	free(p);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* ---- SHA-256 ---- */

static void test_sha256_vectors(void **state)
{
	char hex[65];
	char *million = xmalloc(1000000);
	struct kbuild_sha256 c;

	kbuild_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	kbuild_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	kbuild_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	/* fed in uneven pieces: the buffering across blocks must not matter */
	kbuild_sha256_init(&c);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 1000 + 1)
		kbuild_sha256_update(&c, million + off, off + step > 1000000 ? 1000000 - off : step);
	kbuild_sha256_final(&c, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
}

static void test_sha256_file(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char a[65], b[65];
	char *p = sp("hash/f");

	put("hash/f", "abc");
	assert_int_equal(kbuild_sha256_file(p, a, &err), 0);
	kbuild_sha256_hex("abc", 3, b);
	assert_string_equal(a, b);
	free(p);
	p = sp("hash/missing");
	assert_int_equal(kbuild_sha256_file(p, a, &err), -1);
	assert_non_null(strstr(err.buf, "cannot open"));
	assert_non_null(strstr(err.buf, "hash/missing"));
	free(p);
	strbuf_release(&err);
}

/* ---- fragments ---- */

static void test_fragment_parse(void **state)
{
	struct kconfig_frags cfg = KCONFIG_FRAGS_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct kconfig_option *o;

	assert_int_equal(kconfig_frags_add(&cfg,
		"# base - why\n\n# SMP for balancing\nCONFIG_SMP=y\n"
		"# no modules\n# CONFIG_MODULES is not set\r\n"
		"  # indented comment\nCONFIG_NR_CPUS=256\nCONFIG_CMDLINE=\"a b#c\"\n",
		"base", &err), 0);
	assert_int_equal(cfg.nr, 4);
	o = kconfig_frags_find(&cfg, "SMP");
	assert_non_null(o);
	assert_string_equal(o->value, "y");
	assert_string_equal(o->origin, "base");
	assert_int_equal(o->line, 4);
	o = kconfig_frags_find(&cfg, "CONFIG_MODULES");
	assert_non_null(o);
	assert_string_equal(o->value, "n");
	assert_string_equal(kconfig_frags_find(&cfg, "NR_CPUS")->value, "256");
	assert_string_equal(kconfig_frags_find(&cfg, "CMDLINE")->value, "\"a b#c\"");
	assert_null(kconfig_frags_find(&cfg, "SM"));

	/* A later fragment overrides, as merge_config.sh does. */
	assert_int_equal(kconfig_frags_add(&cfg, "# kprobes need them\nCONFIG_MODULES=y\n",
					   "faults", &err), 0);
	assert_int_equal(cfg.nr, 4);
	o = kconfig_frags_find(&cfg, "MODULES");
	assert_string_equal(o->value, "y");
	assert_string_equal(o->origin, "faults");
	assert_int_equal(o->line, 2);
	kconfig_frags_release(&cfg);
	strbuf_release(&err);
}

static void expect_parse_error(const char *text, const char *needle)
{
	struct kconfig_frags cfg = KCONFIG_FRAGS_INIT;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(kconfig_frags_add(&cfg, text, "frag", &err), -1);
	if (!strstr(err.buf, needle))
		fail_msg("error '%s' lacks '%s'", err.buf, needle);
	assert_null(strchr(err.buf, '\n'));
	kconfig_frags_release(&cfg);
	strbuf_release(&err);
}

static void test_fragment_errors(void **state)
{
	expect_parse_error("CONFIG_A=y\nSMP=y\n", "fragment 'frag' line 2: not an option");
	expect_parse_error("CONFIG_A=y # why\n", "line 1: text after the value");
	expect_parse_error("CONFIG_A=\n", "line 1: expected CONFIG_NAME=value");
	expect_parse_error("CONFIG_=y\n", "line 1: expected CONFIG_NAME=value");
	/* a commented-out assignment is almost always a mistake */
	expect_parse_error("# CONFIG_A=y\n", "line 1: not an option");
	expect_parse_error("CONFIG_S=\"open\n", "line 1: text after the value");
}

static void test_fragment_canonical(void **state)
{
	struct kconfig_frags a = KCONFIG_FRAGS_INIT, b = KCONFIG_FRAGS_INIT;
	struct strbuf ca = STRBUF_INIT, cb = STRBUF_INIT, err = STRBUF_INIT;

	assert_int_equal(kconfig_frags_add(&a, "# one\nCONFIG_B=y\nCONFIG_A=m\n", "x", &err), 0);
	assert_int_equal(kconfig_frags_add(&b, "CONFIG_A=m\n\n# other words\nCONFIG_B=y\n", "y", &err), 0);
	kconfig_frags_canonical(&a, &ca);
	kconfig_frags_canonical(&b, &cb);
	assert_string_equal(ca.buf, "CONFIG_A=m\nCONFIG_B=y\n");
	assert_string_equal(ca.buf, cb.buf);
	/* an override changes it */
	assert_int_equal(kconfig_frags_add(&b, "# CONFIG_B is not set\n", "z", &err), 0);
	strbuf_reset(&cb);
	kconfig_frags_canonical(&b, &cb);
	assert_string_equal(cb.buf, "CONFIG_A=m\nCONFIG_B=n\n");
	kconfig_frags_release(&a);
	kconfig_frags_release(&b);
	strbuf_release(&ca);
	strbuf_release(&cb);
	strbuf_release(&err);
}

/* Every shipped fragment parses, and every option has a comment line right
 * above it saying why (comments may run over several lines). */
static void test_shipped_fragments(void **state)
{
	static const char *const names[] = {
		"lab-base", "sched-debug", "faults", "core-sched", "lockdep", "kasan",
		"numa-balancing", "image", "arch/x86_64", "arch/arm64", "arch/ppc64le",
	};
	struct strbuf err = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct kconfig_frags one = KCONFIG_FRAGS_INIT;
		char *path = xasprintf("%s/kernel-configs/%s", cwd, names[i]);
		char *text = read_file(path, NULL);
		const char *prev = "";
		unsigned lineno = 0;

		if (!text)
			fail_msg("cannot read %s", path);
		if (kconfig_frags_add(&one, text, names[i], &err) < 0)
			fail_msg("%s", err.buf);
		assert_true(one.nr > 0);
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			lineno++;
			if (!strncmp(line, "CONFIG_", 7) || strstr(line, " is not set")) {
				if (prev[0] != '#' || strstr(prev, " is not set"))
					fail_msg("%s: '%s' has no comment line above it", names[i], line);
			}
			prev = line;
		}
		kconfig_frags_release(&one);
		free(text);
		free(path);
	}
	strbuf_release(&err);
}

/* ---- .config and the option check ---- */

/* kconfig_value(): what the kernel config lookups and the image's module
 * choice share; the first line counts, CRLF files too. */
static void test_kconfig_value(void **state)
{
	const char *dot = "CONFIG_EXT4_FS=m\r\n# CONFIG_SMP is not set\nCONFIG_HZ=250\n";
	struct strbuf v = STRBUF_INIT;

	assert_int_equal(kconfig_value(dot, "EXT4_FS", &v), 1);
	assert_string_equal(v.buf, "m");
	strbuf_reset(&v);
	assert_int_equal(kconfig_value(dot, "CONFIG_HZ", &v), 1);
	assert_string_equal(v.buf, "250");
	strbuf_reset(&v);
	assert_int_equal(kconfig_value(dot, "SMP", &v), 0);
	assert_int_equal(kconfig_value(dot, "EXT4", &v), 0);
	assert_int_equal(kconfig_value(dot, "ABSENT", &v), 0);
	assert_int_equal(v.len, 0);
	strbuf_release(&v);
}

static void test_dotconfig_value(void **state)
{
	const char *dot = "#\n# CONFIG_SMP is not set\nCONFIG_NR_CPUS=64\nCONFIG_NUMA=y\n"
			  "CONFIG_NUMA_BALANCING=m\nCONFIG_LOCALVERSION=\"-lab\"\n";
	struct strbuf v = STRBUF_INIT;

	kconfig_dotconfig_value(dot, "SMP", &v);
	assert_string_equal(v.buf, "n");
	strbuf_reset(&v);
	kconfig_dotconfig_value(dot, "CONFIG_NR_CPUS", &v);
	assert_string_equal(v.buf, "64");
	strbuf_reset(&v);
	/* NUMA must not match NUMA_BALANCING, nor the other way round */
	kconfig_dotconfig_value(dot, "NUMA", &v);
	assert_string_equal(v.buf, "y");
	strbuf_reset(&v);
	kconfig_dotconfig_value(dot, "NUMA_BALANCING", &v);
	assert_string_equal(v.buf, "m");
	strbuf_reset(&v);
	kconfig_dotconfig_value(dot, "LOCALVERSION", &v);
	assert_string_equal(v.buf, "\"-lab\"");
	strbuf_reset(&v);
	kconfig_dotconfig_value(dot, "ABSENT", &v);
	assert_string_equal(v.buf, "n");
	strbuf_release(&v);
}

/* A small Kconfig world: A needs B, B needs C and sits in "if D"; the help
 * text has prose starting with "if" and "config" that must not count. */
static void make_kconfig_tree(void)
{
	put("kc/Kconfig",
	    "mainmenu \"test\"\n"
	    "source \"init/Kconfig\"\n"
	    "config A\n"
	    "\tbool \"a\"\n"
	    "\tdepends on B\n"
	    "\thelp\n"
	    "\t  if you say y here\n"
	    "\t  config the world\n"
	    "\n"
	    "\t  endif of help\n"
	    "\n"
	    "config E\n"
	    "\tbool \"e\"\n"
	    "\tdepends on (B || C) && \\\n"
	    "\t\t!F\n"
	    "config NODEP\n"
	    "\tdef_bool y\n");
	put("kc/init/Kconfig",
	    "if D\n"
	    "config B\n"
	    "\tbool \"b\"\n"
	    "\tdepends on C\n"
	    "endif\n"
	    "config C\n"
	    "\tbool \"c\"\n"
	    "config F\n"
	    "\tbool \"f\"\n");
	/* Another architecture's definition of A is ignored. */
	put("kc/arch/arm/Kconfig", "config A\n\tbool\n\tdepends on ARM_ONLY\n");
	put("kc/arch/x86/Kconfig", "config X86\n\tdef_bool y\n");
}

static void test_kconfig_depends(void **state)
{
	struct strbuf deps = STRBUF_INIT;
	char *root;

	make_kconfig_tree();
	root = sp("kc");
	assert_int_equal(kconfig_depends(root, "A", &deps), 1);
	assert_string_equal(deps.buf, "B");
	strbuf_reset(&deps);
	assert_int_equal(kconfig_depends(root, "CONFIG_B", &deps), 1);
	assert_string_equal(deps.buf, "D && C");
	strbuf_reset(&deps);
	assert_int_equal(kconfig_depends(root, "E", &deps), 1);
	assert_string_equal(deps.buf, "(B || C) && !F");
	strbuf_reset(&deps);
	assert_int_equal(kconfig_depends(root, "NODEP", &deps), 1);
	assert_string_equal(deps.buf, "");
	assert_int_equal(kconfig_depends(root, "MISSING", &deps), 0);
	/* a prefix of a symbol is not the symbol */
	assert_int_equal(kconfig_depends(root, "NODE", &deps), 0);
	free(root);
	strbuf_release(&deps);
}

static void test_config_check(void **state)
{
	struct kconfig_frags want = KCONFIG_FRAGS_INIT;
	struct strvec problems = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *dot = "CONFIG_D=y\n# CONFIG_C is not set\nCONFIG_NODEP=y\nCONFIG_F=y\n";
	char *root;

	make_kconfig_tree();
	root = sp("kc");
	assert_int_equal(kconfig_frags_add(&want,
		"# a\nCONFIG_A=y\n# nodep\nCONFIG_NODEP=y\n# e\nCONFIG_E=y\n"
		"# typo\nCONFIG_TYPO=y\n# off\n# CONFIG_C is not set\n# nodep off\n"
		"# CONFIG_NODEP is not set\n", "frag", &err), 0);
	/* NODEP was overridden to n later in the fragment: it is a problem */
	assert_int_equal(kconfig_check(&want, dot, root, &problems), 4);
	assert_int_equal(problems.nr, 4);
	/* A: the option, its origin, what it became, the chain of unmet deps */
	assert_string_equal(problems.v[0],
		"CONFIG_A=y (frag line 2) is n after olddefconfig: depends on B; "
		"unmet: B (depends on D && C; unmet: C)");
	assert_string_equal(problems.v[1],
		"CONFIG_NODEP=n (frag line 12) is y after olddefconfig: it has no \"depends on\" "
		"(a choice, a range, a def_bool or another option's select decides it)");
	assert_non_null(strstr(problems.v[2], "CONFIG_E=y (frag line 6) is n"));
	assert_non_null(strstr(problems.v[2], "unmet: (B || C), !F"));
	assert_string_equal(problems.v[3],
		"CONFIG_TYPO=y (frag line 8) is n after olddefconfig: no such option in this tree");
	/* without a tree there are no hints, but the problems are the same */
	strvec_clear(&problems);
	assert_int_equal(kconfig_check(&want, dot, NULL, &problems), 4);
	assert_string_equal(problems.v[0], "CONFIG_A=y (frag line 2) is n after olddefconfig");
	/* everything met: no problems */
	strvec_clear(&problems);
	assert_int_equal(kconfig_check(&want,
		"CONFIG_A=y\nCONFIG_E=y\nCONFIG_TYPO=y\n", root, &problems), 0);
	assert_int_equal(problems.nr, 0);
	free(root);
	strvec_clear(&problems);
	kconfig_frags_release(&want);
	strbuf_release(&err);
}

/* ---- sources ---- */

static void test_check_tree(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *p;

	make_tree("tree1");
	p = sp("tree1");
	assert_int_equal(kbuild_check_tree(p, &err), 0);
	free(p);

	put("nottree/Makefile", "all:\n\techo hi\n");
	p = sp("nottree");
	assert_int_equal(kbuild_check_tree(p, &err), -1);
	assert_non_null(strstr(err.buf, "is not a kernel tree (no top-level Makefile with VERSION"));
	assert_non_null(strstr(err.buf, "nottree"));
	free(p);

	strbuf_reset(&err);
	put("halftree/Makefile", "VERSION = 6\nPATCHLEVEL = 1\n");
	p = sp("halftree");
	assert_int_equal(kbuild_check_tree(p, &err), -1);
	assert_non_null(strstr(err.buf, "no scripts/kconfig/merge_config.sh"));
	free(p);
	strbuf_release(&err);
}

static void set_mtime(const char *rel, time_t t)
{
	char *p = sp(rel);
	struct timeval tv[2] = { { t, 0 }, { t, 0 } };

	assert_int_equal(utimes(p, tv), 0);
	free(p);
}

static void test_tree_hash(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char h0[65], h1[65];
	char *root;

	make_tree("th");
	put("th/kernel/sched/fair.c", "int x;\n");
	put("th/.git/HEAD", "ref: refs/heads/master\n");
	set_mtime("th/kernel/sched/fair.c", 1700000000);
	root = sp("th");
	assert_int_equal(kbuild_tree_hash(root, h0, &err), 0);
	assert_int_equal(kbuild_tree_hash(root, h1, &err), 0);
	assert_string_equal(h0, h1);

	/* .git is not part of the tree */
	put("th/.git/HEAD", "ref: refs/heads/other-branch\n");
	assert_int_equal(kbuild_tree_hash(root, h1, &err), 0);
	assert_string_equal(h0, h1);

	/* a new mtime, same content: a different key (the documented trade-off) */
	set_mtime("th/kernel/sched/fair.c", 1700000001);
	assert_int_equal(kbuild_tree_hash(root, h1, &err), 0);
	assert_string_not_equal(h0, h1);

	/* same mtime and size, different bytes: unseen (the other side of it) */
	put("th/kernel/sched/fair.c", "int y;\n");
	set_mtime("th/kernel/sched/fair.c", 1700000000);
	assert_int_equal(kbuild_tree_hash(root, h1, &err), 0);
	assert_string_equal(h0, h1);

	/* a different size is seen */
	put("th/kernel/sched/fair.c", "int yy;\n");
	set_mtime("th/kernel/sched/fair.c", 1700000000);
	assert_int_equal(kbuild_tree_hash(root, h1, &err), 0);
	assert_string_not_equal(h0, h1);

	/* so is a new file */
	put("th/kernel/sched/fair.c", "int y;\n");
	set_mtime("th/kernel/sched/fair.c", 1700000000);
	put("th/kernel/sched/new.c", "");
	assert_int_equal(kbuild_tree_hash(root, h1, &err), 0);
	assert_string_not_equal(h0, h1);
	free(root);
	strbuf_release(&err);
}

/* ---- keys ---- */

static void fill_inputs(struct kbuild_inputs *in, const char *source, const char *p0,
			const char *p1, const char *config, const char *compiler)
{
	kbuild_inputs_release(in);
	strbuf_addstr(&in->source, source);
	strvec_push(&in->patches, p0);
	strvec_push(&in->patches, p1);
	strbuf_addstr(&in->config, config);
	strbuf_addstr(&in->compiler, compiler);
}

static void test_key(void **state)
{
	static const char cfg[] = "CONFIG_A=y\nCONFIG_B=n\n", gcc[] = "gcc (Debian 12.2.0-14) 12.2.0";
	struct kbuild_inputs in = KBUILD_INPUTS_INIT;
	struct strbuf text = STRBUF_INIT;
	char k1[KBUILD_KEY_LEN + 1];
	char seen[6][KBUILD_KEY_LEN + 1];

	fill_inputs(&in, "tarball 0123", "aaaa", "bbbb", cfg, gcc);
	kbuild_key(&in, seen[0]);
	assert_int_equal(strlen(seen[0]), KBUILD_KEY_LEN);
	assert_true(kbuild_looks_like_key(seen[0]));
	kbuild_key(&in, k1);
	assert_string_equal(seen[0], k1);
	kbuild_key_text(&in, &text);
	assert_non_null(strstr(text.buf, "\nsource tarball 0123\npatch aaaa\npatch bbbb\n"));
	assert_non_null(strstr(text.buf, "\ncompiler gcc (Debian 12.2.0-14) 12.2.0\n"));
	assert_non_null(strstr(text.buf, "\nconfig\nCONFIG_A=y\nCONFIG_B=n\n"));

	/* each input changes the key, and so does the order of the patches */
	fill_inputs(&in, "tarball 0124", "aaaa", "bbbb", cfg, gcc);
	kbuild_key(&in, seen[1]);
	fill_inputs(&in, "tarball 0123", "aaaa", "bbbc", cfg, gcc);
	kbuild_key(&in, seen[2]);
	fill_inputs(&in, "tarball 0123", "bbbb", "aaaa", cfg, gcc);
	kbuild_key(&in, seen[3]);
	fill_inputs(&in, "tarball 0123", "aaaa", "bbbb", "CONFIG_A=y\nCONFIG_B=n\nCONFIG_C=y\n", gcc);
	kbuild_key(&in, seen[4]);
	fill_inputs(&in, "tarball 0123", "aaaa", "bbbb", cfg, "gcc (Debian 12.2.0-14+deb12u1) 12.2.0");
	kbuild_key(&in, seen[5]);
	for (int i = 0; i < 6; i++)
		for (int j = i + 1; j < 6; j++)
			if (!strcmp(seen[i], seen[j]))
				fail_msg("inputs %d and %d give the same key %s", i, j, seen[i]);
	kbuild_inputs_release(&in);
	strbuf_release(&text);
}

static void test_looks_like_key(void **state)
{
	assert_true(kbuild_looks_like_key("0123abcd"));
	assert_true(kbuild_looks_like_key("0123456789abcdef"));
	assert_false(kbuild_looks_like_key("0123abc"));            /* too short */
	assert_false(kbuild_looks_like_key("0123456789abcdef0"));  /* too long */
	assert_false(kbuild_looks_like_key("0123ABCD"));           /* upper case */
	assert_false(kbuild_looks_like_key("debian"));
	assert_false(kbuild_looks_like_key("./0123abcd"));
}

/* A minimal bzImage kernel_check_bzimage() accepts, with a version banner. */
static void write_bzimage(const char *rel, const char *banner)
{
	char img[2560] = { 0 };
	char *path = sp(rel);
	FILE *f;

	img[0x1f1] = 4;                         /* setup_sects */
	img[0x1fe] = 0x55;
	img[0x1ff] = (char)0xaa;                /* boot flag */
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x06;
	img[0x207] = 0x02;                      /* protocol 2.06 */
	img[0x20e] = 0x00;
	img[0x20f] = 0x04;                      /* banner at 0x400 + 0x200 */
	strcpy(img + 0x600, banner);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, sizeof(img), f), sizeof(img));
	fclose(f);
	free(path);
}

static void test_lookup_and_resolve(void **state)
{
	struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_paths kp;
	char *expect;

	put("cache/kernels/built/aaaa1111bbbb2222/info.json", "{}");
	write_bzimage("cache/kernels/built/aaaa1111bbbb2222/bzImage", "6.1.99-lab (t@h) #1 SMP");
	put("cache/kernels/built/aaaa1111bbbb2222/config", "CONFIG_SMP=y\n");
	/* incomplete entries never match: a build in progress, one without info */
	put("cache/kernels/built/aaaa1111cccc3333.tmp/bzImage", "");
	put("cache/kernels/built/aaaa1111dddd4444/bzImage", "");

	expect = sp("cache/kernels/built/aaaa1111bbbb2222");
	assert_int_equal(kbuild_lookup("aaaa1111bbbb2222", &dir, &err), 1);
	assert_string_equal(dir.buf, expect);
	assert_int_equal(kbuild_lookup("aaaa1111", &dir, &err), 1);
	assert_string_equal(dir.buf, expect);
	assert_int_equal(kbuild_lookup("bbbb1111", &dir, &err), 0);

	assert_int_equal(kernel_resolve("aaaa1111", &kp, &err), 0);
	assert_string_equal(kp.source, "build");
	assert_string_equal(kp.release, "6.1.99-lab");
	assert_non_null(strstr(kp.bzimage, "aaaa1111bbbb2222/bzImage"));
	assert_non_null(strstr(kp.config, "aaaa1111bbbb2222/config"));
	assert_string_equal(kp.vmlinux, "");

	/* a key nobody built: one line naming it and the cache */
	strbuf_reset(&err);
	assert_int_equal(kernel_resolve("abcdef0123", &kp, &err), -1);
	assert_non_null(strstr(err.buf, "'abcdef0123' is neither a file nor the key"));
	assert_null(strchr(err.buf, '\n'));

	/* two complete builds share the prefix: ambiguous */
	put("cache/kernels/built/aaaa1111eeee5555/info.json", "{}");
	write_bzimage("cache/kernels/built/aaaa1111eeee5555/bzImage", "6.1.98 (t@h) #1");
	strbuf_reset(&err);
	assert_int_equal(kbuild_lookup("aaaa1111", &dir, &err), -1);
	assert_non_null(strstr(err.buf, "ambiguous"));
	assert_int_equal(kbuild_lookup("aaaa1111e", &dir, &err), 1);

	free(expect);
	strbuf_release(&dir);
	strbuf_release(&err);
}

/* ---- kbuild_build() up to the key: bad inputs, key stability ---- */

static int run_build(struct kbuild_opts *o, struct kbuild_result *res, struct strbuf *err)
{
	strbuf_reset(err);
	return kbuild_build(o, res, err);
}

static void test_build_bad_inputs(void **state)
{
	struct kbuild_opts o = KBUILD_OPTS_INIT;
	struct kbuild_result res;
	struct strbuf err = STRBUF_INIT;
	char *p;

	o.key_only = 1;
	o.ksrc = "/nonexistent/linux";
	assert_int_equal(run_build(&o, &res, &err), KBUILD_BAD_INPUT);
	assert_string_equal(err.buf, "kernel source '/nonexistent/linux' does not exist");

	put("notkernel/README", "hello\n");
	p = sp("notkernel");
	o.ksrc = p;
	assert_int_equal(run_build(&o, &res, &err), KBUILD_BAD_INPUT);
	assert_non_null(strstr(err.buf, "is not a kernel tree"));
	free(p);

	p = sp("notkernel/README");
	o.ksrc = p;
	assert_int_equal(run_build(&o, &res, &err), KBUILD_BAD_INPUT);
	assert_non_null(strstr(err.buf, "is not a kernel tree (a file, and not a .tar"));
	free(p);

	make_tree("goodtree");
	p = sp("goodtree");
	o.ksrc = p;
	strvec_push(&o.configs, "no-such-fragment");
	assert_int_equal(run_build(&o, &res, &err), KBUILD_BAD_INPUT);
	assert_non_null(strstr(err.buf, "no config fragment 'no-such-fragment'"));
	strvec_clear(&o.configs);

	strvec_push(&o.patches, "/nonexistent/0001.patch");
	assert_int_equal(run_build(&o, &res, &err), KBUILD_BAD_INPUT);
	assert_string_equal(err.buf, "patch '/nonexistent/0001.patch' does not exist");
	strvec_clear(&o.patches);

	/* a tree configured in place cannot be built with O= */
	put("goodtree/.config", "CONFIG_SMP=y\n");
	assert_int_equal(run_build(&o, &res, &err), KBUILD_BAD_INPUT);
	assert_non_null(strstr(err.buf, "configured in place"));
	p = sp("goodtree/.config");
	unlink(p);
	free(p);
	free((char *)o.ksrc);
	kbuild_opts_release(&o);
	strbuf_release(&err);
}

static void test_build_key_only(void **state)
{
	struct kbuild_opts o = KBUILD_OPTS_INIT;
	struct kbuild_result res;
	struct strbuf err = STRBUF_INIT;
	char k0[KBUILD_KEY_LEN + 1], k1[KBUILD_KEY_LEN + 1];
	char *tree, *patch, *frag, *built;
	DIR *d;

	make_tree("kt");
	put("patches/0001-a.patch", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
	put("frags/extra", "# why\nCONFIG_X=y\n");
	tree = sp("kt");
	patch = sp("patches/0001-a.patch");
	frag = sp("frags/extra");
	o.key_only = 1;
	o.ksrc = tree;
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_int_equal(res.cached, 0);
	assert_string_equal(res.dir, "");
	strcpy(k0, res.key);
	assert_true(kbuild_looks_like_key(k0));

	/* lab-base is merged first whether named or not: the same key */
	strvec_push(&o.configs, "lab-base");
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_equal(res.key, k0);

	/* a patch changes the key; its name does not, its bytes do */
	strvec_push(&o.patches, patch);
	assert_int_equal(run_build(&o, &res, &err), 0);
	strcpy(k1, res.key);
	assert_string_not_equal(k1, k0);
	put("patches/renamed.diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
	strvec_clear(&o.patches);
	{
		char *renamed = sp("patches/renamed.diff");

		strvec_push(&o.patches, renamed);
		free(renamed);
	}
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_equal(res.key, k1);
	put("patches/renamed.diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+c\n");
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_not_equal(res.key, k1);
	strvec_clear(&o.patches);

	/* a fragment by path changes it; a comment in it does not */
	strvec_push(&o.configs, frag);
	assert_int_equal(run_build(&o, &res, &err), 0);
	strcpy(k1, res.key);
	assert_string_not_equal(k1, k0);
	put("frags/extra", "# another reason\n\nCONFIG_X=y\n");
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_equal(res.key, k1);

	/* the tree's listing: touching a file gives a new key */
	put("kt/kernel/new.c", "");
	strvec_clear(&o.configs);
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_not_equal(res.key, k0);

	/* key_only built nothing: the cache root has no entry for these keys */
	built = xasprintf("%s", kbuild_cache_root());
	d = opendir(built);
	if (d) {
		struct dirent *de;

		while ((de = readdir(d)))
			if (!strncmp(de->d_name, k0, KBUILD_KEY_LEN) || !strncmp(de->d_name, k1, KBUILD_KEY_LEN))
				fail_msg("key-only left '%s' in the cache", de->d_name);
		closedir(d);
	}
	free(built);
	free(tree);
	free(patch);
	free(frag);
	kbuild_opts_release(&o);
	strbuf_release(&err);
}

/* A git tree: the key follows the HEAD commit and uncommitted changes. */
static void test_build_key_git(void **state)
{
	struct kbuild_opts o = KBUILD_OPTS_INIT;
	struct kbuild_result res;
	struct strbuf err = STRBUF_INIT;
	char clean[KBUILD_KEY_LEN + 1], dirty[KBUILD_KEY_LEN + 1];
	char *tree = sp("gt");
	const char *git_env[] = { "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
				  "GIT_COMMITTER_EMAIL=t@t" };

	for (size_t i = 0; i < ARRAY_SIZE(git_env); i++)
		putenv((char *)git_env[i]);
	make_tree("gt");
	put("gt/kernel/sched/fair.c", "int a;\n");
	{
		const char *init[] = { "git", "-C", tree, "init", "-q", NULL };
		const char *add[] = { "git", "-C", tree, "add", "-A", NULL };
		const char *commit[] = { "git", "-C", tree, "commit", "-q", "-m", "base", NULL };

		if (run_command_capture(init, 30000, NULL, NULL) != 0)
			skip();
		assert_int_equal(run_command_capture(add, 30000, NULL, NULL), 0);
		assert_int_equal(run_command_capture(commit, 30000, NULL, NULL), 0);
	}
	o.key_only = 1;
	o.ksrc = tree;
	assert_int_equal(run_build(&o, &res, &err), 0);
	strcpy(clean, res.key);
	/* untracked files are not part of the build, so not of the key */
	put("gt/untracked.txt", "x\n");
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_equal(res.key, clean);
	/* an uncommitted change to a tracked file is */
	put("gt/kernel/sched/fair.c", "int b;\n");
	assert_int_equal(run_build(&o, &res, &err), 0);
	strcpy(dirty, res.key);
	assert_string_not_equal(dirty, clean);
	/* committing it gives a third key (a new commit id) */
	{
		const char *commit[] = { "git", "-C", tree, "commit", "-q", "-a", "-m", "b", NULL };

		assert_int_equal(run_command_capture(commit, 30000, NULL, NULL), 0);
	}
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_not_equal(res.key, clean);
	assert_string_not_equal(res.key, dirty);
	free(tree);
	kbuild_opts_release(&o);
	strbuf_release(&err);
}

/* ---- other arches ---- */

/* x86_64's recipe is the one from before --arch (its keys did not move);
 * each arch has its own make ARCH=, cross compiler, target and image. */
static void test_arch_recipes(void **state)
{
	static const struct {
		enum topo_arch arch;
		const char *args, *ccache_args, *image_path;
	} want[] = {
		{ TOPO_ARCH_X86_64, "ARCH=x86_64", "ARCH=x86_64 CC=ccache gcc", "arch/x86/boot/bzImage" },
		{ TOPO_ARCH_ARM64, "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-",
		  "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=ccache aarch64-linux-gnu-gcc",
		  "arch/arm64/boot/Image" },
		{ TOPO_ARCH_PPC64LE, "ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu-",
		  "ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu- CC=ccache powerpc64le-linux-gnu-gcc",
		  "vmlinux" },
	};

	assert_string_equal(kbuild_arch(TOPO_ARCH_X86_64)->recipe,
			    "schedlab-kbuild 1 x86_64 tinyconfig+merge_config+olddefconfig bzImage");
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct kbuild_arch *a = kbuild_arch(want[i].arch);
		struct strvec argv = STRVEC_INIT;
		struct strbuf joined = STRBUF_INIT;

		assert_int_equal(a->arch, want[i].arch);
		assert_non_null(strstr(a->recipe, topo_arch_info(want[i].arch)->name));
		assert_string_equal(a->image_path, want[i].image_path);
		assert_true(!strncmp(a->fragment, "arch/", 5));
		assert_string_equal(a->fragment + 5, topo_arch_info(want[i].arch)->name);
		for (int ccache = 0; ccache < 2; ccache++) {
			strvec_clear(&argv);
			strbuf_reset(&joined);
			kbuild_arch_make_args(a, ccache, &argv);
			for (size_t j = 0; j < argv.nr; j++)
				strbuf_addf(&joined, "%s%s", j ? " " : "", argv.v[j]);
			assert_string_equal(joined.buf, ccache ? want[i].ccache_args : want[i].args);
		}
		/* every recipe differs: no two arches share a key */
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(a->recipe, kbuild_arch(want[j].arch)->recipe);
		strvec_clear(&argv);
		strbuf_release(&joined);
	}
}

/* The same inputs for another arch give another key; the text says which. */
static void test_key_arch(void **state)
{
	static const char cfg[] = "CONFIG_A=y\n", gcc[] = "gcc (Debian 12.2.0-14) 12.2.0";
	struct kbuild_inputs in = KBUILD_INPUTS_INIT;
	struct strbuf text = STRBUF_INIT;
	char keys[TOPO_ARCH_NR][KBUILD_KEY_LEN + 1];

	fill_inputs(&in, "tarball 0123", "aaaa", "bbbb", cfg, gcc);
	assert_int_equal(in.arch, TOPO_ARCH_X86_64);
	for (int a = 0; a < TOPO_ARCH_NR; a++) {
		in.arch = (enum topo_arch)a;
		kbuild_key(&in, keys[a]);
		strbuf_reset(&text);
		kbuild_key_text(&in, &text);
		assert_true(!strncmp(text.buf, "recipe ", 7));
		assert_non_null(strstr(text.buf, kbuild_arch(in.arch)->recipe));
		for (int b = 0; b < a; b++)
			assert_string_not_equal(keys[a], keys[b]);
	}
	kbuild_inputs_release(&in);
	strbuf_release(&text);
}

/* Kconfig files of two arches: an option only another arch defines is left
 * out with one line, a typo and an unmet dependency are still problems. */
static void test_config_check_arch(void **state)
{
	struct kconfig_frags want = KCONFIG_FRAGS_INIT;
	struct strvec problems = STRVEC_INIT, absent = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, deps = STRBUF_INIT, others = STRBUF_INIT;
	const char *dot = "CONFIG_SMP=y\nCONFIG_PL011=y\n";
	char *root;

	put("ka/Kconfig", "config SMP\n\tbool \"smp\"\nconfig NEEDS\n\tbool \"n\"\n\tdepends on MISSING_DEP\n");
	put("ka/arch/x86/Kconfig", "config PVH\n\tbool \"pvh\"\n\tdepends on SMP\n"
	    "config SCHED_MC\n\tbool \"mc\"\n");
	put("ka/arch/arm64/Kconfig", "config PL011\n\tbool \"pl011\"\nconfig SCHED_MC\n\tbool \"mc\"\n"
	    "config PVH\n\tbool\n\tdepends on ARM_ONLY\n");
	put("ka/arch/powerpc/Kconfig", "config PPC64\n\tbool \"ppc64\"\n");
	root = sp("ka");

	/* the arch's own definition explains it, not another arch's */
	assert_int_equal(kconfig_depends_arch(root, "arm64", "PVH", &deps), 1);
	assert_string_equal(deps.buf, "ARM_ONLY");
	strbuf_reset(&deps);
	assert_int_equal(kconfig_depends_arch(root, "powerpc", "PVH", &deps), 0);
	assert_int_equal(kconfig_other_arches(root, "powerpc", "SCHED_MC", &others), 2);
	assert_string_equal(others.buf, "arm64,x86");
	strbuf_reset(&others);
	assert_int_equal(kconfig_other_arches(root, "powerpc", "TYPO", &others), 0);
	assert_string_equal(others.buf, "");

	assert_int_equal(kconfig_frags_add(&want,
		"# smp\nCONFIG_SMP=y\n# pvh\nCONFIG_PVH=y\n# mc\nCONFIG_SCHED_MC=y\n"
		"# typo\nCONFIG_TYPO=y\n# needs\nCONFIG_NEEDS=y\n# off\n# CONFIG_PPC64 is not set\n",
		"frag", &err), 0);
	assert_int_equal(kconfig_check_arch(&want, dot, root, "powerpc", &problems, &absent), 2);
	assert_int_equal(absent.nr, 2);
	assert_string_equal(absent.v[0],
		"CONFIG_PVH=y (frag line 4) is not an option on arch/powerpc (only on arm64,x86): left out");
	assert_string_equal(absent.v[1],
		"CONFIG_SCHED_MC=y (frag line 6) is not an option on arch/powerpc (only on arm64,x86): "
		"left out");
	assert_string_equal(problems.v[0],
		"CONFIG_TYPO=y (frag line 8) is n after olddefconfig: no such option in this tree");
	assert_non_null(strstr(problems.v[1], "CONFIG_NEEDS=y (frag line 10) is n after olddefconfig: "
			       "depends on MISSING_DEP"));

	/* on arm64, PVH exists and its unmet dependency is the problem; SCHED_MC
	 * exists too, so it not surviving is one (with TYPO and NEEDS: 4) */
	strvec_clear(&problems);
	strvec_clear(&absent);
	assert_int_equal(kconfig_check_arch(&want, dot, root, "arm64", &problems, &absent), 4);
	assert_int_equal(absent.nr, 0);
	assert_string_equal(problems.v[0], "CONFIG_PVH=y (frag line 4) is n after olddefconfig: "
			    "depends on ARM_ONLY; unmet: ARM_ONLY");
	assert_non_null(strstr(problems.v[1], "CONFIG_SCHED_MC=y"));

	/* without somewhere to put them (kconfig_check), nothing is left out */
	strvec_clear(&problems);
	assert_int_equal(kconfig_check_arch(&want, dot, root, "powerpc", &problems, NULL), 4);
	free(root);
	strvec_clear(&problems);
	strvec_clear(&absent);
	kconfig_frags_release(&want);
	strbuf_release(&err);
	strbuf_release(&deps);
	strbuf_release(&others);
}

/* What an image's first bytes say about its arch. */
static void test_image_arch(void **state)
{
	unsigned char buf[0x210];

	memset(buf, 0, sizeof(buf));
	assert_null(kernel_image_arch_of(buf, sizeof(buf)));
	memcpy(buf + 0x38, "ARM\x64", 4);
	assert_string_equal(kernel_image_arch_of(buf, sizeof(buf)), "arm64");
	assert_null(kernel_image_arch_of(buf, 0x3b));           /* cut before the magic */
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 0x202, "HdrS", 4);
	assert_string_equal(kernel_image_arch_of(buf, sizeof(buf)), "x86_64");
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "\177ELF", 4);
	buf[4] = 2;
	buf[5] = 1;                                             /* little-endian */
	buf[18] = 21;                                           /* EM_PPC64 */
	assert_string_equal(kernel_image_arch_of(buf, 64), "ppc64le");
	buf[18] = 183;                                          /* EM_AARCH64 */
	assert_string_equal(kernel_image_arch_of(buf, 64), "arm64");
	buf[18] = 62;                                           /* EM_X86_64 */
	assert_string_equal(kernel_image_arch_of(buf, 64), "x86_64");
	buf[5] = 2;                                             /* big-endian */
	buf[18] = 0;
	buf[19] = 21;
	assert_string_equal(kernel_image_arch_of(buf, 64), "ppc64 (big-endian)");
	buf[19] = 3;                                            /* EM_386 */
	assert_null(kernel_image_arch_of(buf, 64));
	assert_null(kernel_image_arch_of(buf, 10));
}

/* A minimal arm64 Image: the header's magic at 0x38. */
static void write_arm64_image(const char *rel)
{
	char img[512] = { 0 };
	char *path = sp(rel);
	FILE *f;

	memcpy(img + 0x38, "ARM\x64", 4);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(img, 1, sizeof(img), f), sizeof(img));
	fclose(f);
	free(path);
}

/* A built kernel records its arch; it boots only a guest of that arch, and
 * an image of one arch is refused for another in one line. */
static void test_resolve_arch(void **state)
{
	struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT;
	struct kernel_paths kp;
	char *bz, *img;

	put("cache/kernels/built/cccc2222dddd3333/info.json",
	    "{ \"arch\": \"arm64\", \"image\": \"Image\", \"release\": \"6.1.99-arm\" }");
	write_arm64_image("cache/kernels/built/cccc2222dddd3333/Image");
	put("cache/kernels/built/cccc2222dddd3333/config", "CONFIG_ARM64=y\n");
	/* an arm64 entry without its Image is not complete */
	put("cache/kernels/built/cccc2222eeee4444/info.json", "{ \"arch\": \"arm64\" }");
	put("cache/kernels/built/cccc2222eeee4444/bzImage", "");
	assert_int_equal(kbuild_lookup("cccc2222", &dir, &err), 1);
	assert_int_equal(kbuild_entry_arch(dir.buf), TOPO_ARCH_ARM64);

	assert_int_equal(kernel_resolve_arch("cccc2222", TOPO_ARCH_ARM64, &kp, &err), 0);
	assert_string_equal(kp.source, "build");
	assert_string_equal(kp.release, "6.1.99-arm");
	assert_non_null(strstr(kp.bzimage, "cccc2222dddd3333/Image"));
	assert_non_null(strstr(kp.config, "cccc2222dddd3333/config"));
	assert_string_equal(kernel_paths_boot_image(&kp), kp.bzimage);

	strbuf_reset(&err);
	assert_int_equal(kernel_resolve("cccc2222", &kp, &err), -1);
	assert_string_equal(err.buf, "kernel cccc2222 was built for arm64, not for x86_64 (give --arch "
			    "arm64, or build it with lab kernel build --arch x86_64)");
	strbuf_reset(&err);
	assert_int_equal(kernel_resolve_arch("cccc2222", TOPO_ARCH_PPC64LE, &kp, &err), -1);
	assert_non_null(strstr(err.buf, "was built for arm64, not for ppc64le"));

	/* an entry from before --arch (no "arch") is an x86_64 kernel */
	put("cache/kernels/built/ffff0000aaaa1111/info.json", "{}");
	write_bzimage("cache/kernels/built/ffff0000aaaa1111/bzImage", "6.1.97 (t@h) #1");
	strbuf_reset(&err);
	assert_int_equal(kernel_resolve_arch("ffff0000", TOPO_ARCH_ARM64, &kp, &err), -1);
	assert_non_null(strstr(err.buf, "was built for x86_64, not for arm64"));
	assert_null(strchr(err.buf, '\n'));

	/* images given by path */
	bz = sp("cache/kernels/built/ffff0000aaaa1111/bzImage");
	img = sp("cache/kernels/built/cccc2222dddd3333/Image");
	strbuf_reset(&err);
	assert_int_equal(kernel_resolve_arch(bz, TOPO_ARCH_ARM64, &kp, &err), -1);
	assert_non_null(strstr(err.buf, "is built for x86_64, not for arm64 (give --arch x86_64)"));
	strbuf_reset(&err);
	assert_int_equal(kernel_resolve(img, &kp, &err), -1);
	assert_non_null(strstr(err.buf, "is built for arm64, not for x86_64 (give --arch arm64)"));
	strbuf_reset(&err);
	assert_int_equal(kernel_resolve_arch(img, TOPO_ARCH_ARM64, &kp, &err), 0);
	assert_string_equal(kp.source, "path");
	free(bz);
	free(img);
	strbuf_release(&dir);
	strbuf_release(&err);
}

/* --arch: its own key, the arch fragment merged after lab-base (named or
 * not), and a missing cross compiler named before anything is built. */
static void test_build_key_arch(void **state)
{
	struct kbuild_opts o = KBUILD_OPTS_INIT;
	struct kbuild_result res;
	struct strbuf err = STRBUF_INIT;
	char x86[KBUILD_KEY_LEN + 1], arm[KBUILD_KEY_LEN + 1];
	char *tree;

	make_tree("at");
	tree = sp("at");
	o.key_only = 1;
	o.ksrc = tree;
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_int_equal(res.arch, TOPO_ARCH_X86_64);
	strcpy(x86, res.key);
	/* naming the arch fragment is the same as not naming it */
	strvec_push(&o.configs, "lab-base");
	strvec_push(&o.configs, "arch/x86_64");
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_equal(res.key, x86);
	strvec_clear(&o.configs);

	o.arch = TOPO_ARCH_ARM64;
	if (run_build(&o, &res, &err) != 0) {
		/* no aarch64-linux-gnu-gcc on this machine: said in one line */
		assert_non_null(strstr(err.buf, "apt-get install gcc-aarch64-linux-gnu"));
		assert_null(strchr(err.buf, '\n'));
		skip();
	}
	assert_int_equal(res.arch, TOPO_ARCH_ARM64);
	strcpy(arm, res.key);
	assert_string_not_equal(arm, x86);
	strvec_push(&o.configs, "arch/arm64");
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_equal(res.key, arm);
	/* another arch's fragment is an ordinary one: it changes the key */
	strvec_clear(&o.configs);
	strvec_push(&o.configs, "arch/ppc64le");
	assert_int_equal(run_build(&o, &res, &err), 0);
	assert_string_not_equal(res.key, arm);
	free(tree);
	kbuild_opts_release(&o);
	strbuf_release(&err);
}

static int setup_all(void **state)
{
	char *cache, *root;

	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	if (!mkdtemp(scratch))
		return -1;
	cache = sp("cache");
	root = sp("root");
	setenv("LAB_CACHE", cache, 1);
	setenv("LAB_ROOT", root, 1);
	/* kernel-configs/lab-base of the fake root: what key computation reads */
	put("root/kernel-configs/lab-base", "# smp\nCONFIG_SMP=y\n");
	put("root/kernel-configs/arch/x86_64", "# pvh\nCONFIG_PVH=y\n");
	put("root/kernel-configs/arch/arm64", "# pl011\nCONFIG_SERIAL_AMBA_PL011=y\n");
	put("root/kernel-configs/arch/ppc64le", "# pseries\nCONFIG_PPC_PSERIES=y\n");
	free(cache);
	free(root);
	return 0;
}

static int teardown_all(void **state)
{
	nftw(scratch, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_file),
		cmocka_unit_test(test_fragment_parse),
		cmocka_unit_test(test_fragment_errors),
		cmocka_unit_test(test_fragment_canonical),
		cmocka_unit_test(test_shipped_fragments),
		cmocka_unit_test(test_kconfig_value),
		cmocka_unit_test(test_dotconfig_value),
		cmocka_unit_test(test_kconfig_depends),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_check_tree),
		cmocka_unit_test(test_tree_hash),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_looks_like_key),
		cmocka_unit_test(test_lookup_and_resolve),
		cmocka_unit_test(test_build_bad_inputs),
		cmocka_unit_test(test_build_key_only),
		cmocka_unit_test(test_build_key_git),
		cmocka_unit_test(test_arch_recipes),
		cmocka_unit_test(test_key_arch),
		cmocka_unit_test(test_config_check_arch),
		cmocka_unit_test(test_image_arch),
		cmocka_unit_test(test_resolve_arch),
		cmocka_unit_test(test_build_key_arch),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
