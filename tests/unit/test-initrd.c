/* test-initrd.c - unit tests of host-tools/kernel/initrd.c: the archive is read back
 * with an independent newc reader; static-binary checks and the cache. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/initrd.h"

static char root[64];          /* LAB_ROOT: holds guest/init */
static char scratch[128];      /* fake binaries and outputs */

static const char init_text[] = "#!/bin/busybox sh\necho fake init\n";

/* A minimal ELF64 little-endian executable header with one program
 * header of the given type (1 = PT_LOAD, 3 = PT_INTERP), plus a tail. */
static size_t fake_elf(unsigned char *buf, uint32_t ptype, const char *tail)
{
	size_t n = 64 + 56;

	memset(buf, 0, n);
	memcpy(buf, "\177ELF", 4);
	buf[4] = 2;             /* ELFCLASS64 */
	buf[5] = 1;             /* little endian */
	buf[6] = 1;
	buf[16] = 2;            /* ET_EXEC */
	buf[18] = 62;           /* x86-64 */
	buf[0x20] = 64;         /* e_phoff */
	buf[0x36] = 56;         /* e_phentsize */
	buf[0x38] = 1;          /* e_phnum */
	buf[64] = (unsigned char)ptype;
	memcpy(buf + n, tail, strlen(tail));
	return n + strlen(tail);
}

static void write_fake(const char *name, uint32_t ptype, const char *tail, char *path_out)
{
	unsigned char buf[512];
	size_t n = fake_elf(buf, ptype, tail);
	FILE *f;

	snprintf(path_out, PATH_MAX, "%s/%s", scratch, name);
	f = fopen(path_out, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static char static_runner[PATH_MAX], static_busybox[PATH_MAX], dynamic_elf[PATH_MAX];

static int setup(void **state)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(root, sizeof(root), "/tmp/test-initrd.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/guest", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/guest/init", root);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(init_text, f);
	fclose(f);
	snprintf(scratch, sizeof(scratch), "%s/scratch", root);
	mkdir(scratch, 0755);
	snprintf(path, sizeof(path), "%s/cache", root);
	/* lab_root() and lab_cache_dir() remember their first answer */
	setenv("LAB_ROOT", root, 1);
	setenv("LAB_CACHE", path, 1);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

struct entry {
	char name[128];
	unsigned mode, nlink, rmajor, rminor;
	size_t size;
	const unsigned char *data;
};

static unsigned hex8(const unsigned char *p)
{
	char tmp[9];

	memcpy(tmp, p, 8);
	tmp[8] = '\0';
	for (int i = 0; i < 8; i++)
		assert_non_null(strchr("0123456789abcdefABCDEF", tmp[i]));
	return (unsigned)strtoul(tmp, NULL, 16);
}

/* An independent newc reader: returns the entry count, trailer excluded. */
static int read_cpio(const unsigned char *a, size_t len, struct entry *out, int max)
{
	size_t pos = 0;
	int nr = 0;

	for (;;) {
		struct entry e;
		unsigned namesize;

		assert_true(pos + 110 <= len);
		assert_int_equal(pos % 4, 0);
		assert_memory_equal(a + pos, "070701", 6);
		e.mode = hex8(a + pos + 14);
		assert_int_equal(hex8(a + pos + 22), 0); /* uid */
		assert_int_equal(hex8(a + pos + 30), 0); /* gid */
		e.nlink = hex8(a + pos + 38);
		e.size = hex8(a + pos + 54);
		e.rmajor = hex8(a + pos + 78);
		e.rminor = hex8(a + pos + 86);
		namesize = hex8(a + pos + 94);
		assert_true(namesize >= 2 && namesize < sizeof(e.name));
		assert_true(pos + 110 + namesize <= len);
		assert_int_equal(a[pos + 110 + namesize - 1], '\0');
		memcpy(e.name, a + pos + 110, namesize);
		pos = (pos + 110 + namesize + 3) & ~(size_t)3;
		if (!strcmp(e.name, "TRAILER!!!")) {
			assert_int_equal(e.size, 0);
			assert_int_equal((len - pos), 0); /* nothing after the trailer */
			return nr;
		}
		assert_true(pos + e.size <= len);
		e.data = a + pos;
		pos = (pos + e.size + 3) & ~(size_t)3;
		assert_true(nr < max);
		out[nr++] = e;
	}
}

static const struct entry *find(const struct entry *e, int nr, const char *name)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(e[i].name, name))
			return &e[i];
	fail_msg("no '%s' in the archive", name);
	return NULL;
}

static void assert_file_entry(const struct entry *e, int nr, const char *name,
			      const char *src_path)
{
	const struct entry *x = find(e, nr, name);
	size_t len;
	char *src = read_file(src_path, &len);

	assert_non_null(src);
	assert_int_equal(x->mode, 0100755);
	assert_int_equal(x->size, len);
	assert_memory_equal(x->data, src, len);
	free(src);
}

static void test_build_and_read_back(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct entry e[32];
	char out[PATH_MAX + 16], init_path[PATH_MAX + 16];
	char *archive;
	size_t len;
	int nr;
	static const struct {
		const char *name;
		unsigned mode, major, minor;
	} nodes[] = {
		{ "bin", 040755, 0, 0 }, { "dev", 040755, 0, 0 }, { "proc", 040755, 0, 0 },
		{ "sys", 040755, 0, 0 }, { "tmp", 040755, 0, 0 }, { "sbin", 040755, 0, 0 },
		{ "dev/console", 020600, 5, 1 }, { "dev/null", 020666, 1, 3 },
		{ "dev/ttyS0", 020660, 4, 64 }, { "dev/ttyS1", 020660, 4, 65 },
	};

	write_fake("runner", 1, "fake runner body", static_runner);
	write_fake("busybox", 1, "fake busybox body, a bit longer", static_busybox);
	setenv("LAB_RUNNER", static_runner, 1);
	setenv("LAB_BUSYBOX", static_busybox, 1);
	snprintf(out, sizeof(out), "%s/initrd.cpio", scratch);
	if (initrd_build(out, &err) < 0)
		fail_msg("initrd_build: %s", err.buf);
	archive = read_file(out, &len);
	assert_non_null(archive);
	nr = read_cpio((unsigned char *)archive, len, e, 32);
	assert_int_equal(nr, 13);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(*nodes); i++) {
		const struct entry *x = find(e, nr, nodes[i].name);

		assert_int_equal(x->mode, nodes[i].mode);
		assert_int_equal(x->size, 0);
		assert_int_equal(x->rmajor, nodes[i].major);
		assert_int_equal(x->rminor, nodes[i].minor);
	}
	snprintf(init_path, sizeof(init_path), "%s/guest/init", root);
	assert_file_entry(e, nr, "init", init_path);
	assert_file_entry(e, nr, "bin/busybox", static_busybox);
	assert_file_entry(e, nr, "bin/runner", static_runner);
	/* directories come before what they hold */
	assert_true(find(e, nr, "dev") < find(e, nr, "dev/console"));
	assert_true(find(e, nr, "bin") < find(e, nr, "bin/runner"));
	free(archive);
	strbuf_release(&err);
}

static void test_real_busybox(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char out[PATH_MAX + 16];
	struct stat st;

	if (stat("/bin/busybox", &st) < 0)
		skip();
	write_fake("runner", 1, "r", static_runner);
	setenv("LAB_RUNNER", static_runner, 1);
	unsetenv("LAB_BUSYBOX");
	snprintf(out, sizeof(out), "%s/real.cpio", scratch);
	if (initrd_build(out, &err) < 0) {
		/* a dynamic /bin/busybox is refused, and said so */
		assert_non_null(strstr(err.buf, "busybox-static"));
		skip();
	}
	assert_int_equal(stat(out, &st), 0);
	assert_true(st.st_size > 100000);
	strbuf_release(&err);
}

static void expect_refused(const char *out, const char *needle)
{
	struct strbuf err = STRBUF_INIT;
	struct stat st;

	assert_int_equal(initrd_build(out, &err), -1);
	if (!strstr(err.buf, needle))
		fail_msg("error '%s' does not mention '%s'", err.buf, needle);
	assert_null(strchr(err.buf, '\n'));
	assert_int_equal(stat(out, &st), -1); /* nothing half-written */
	strbuf_release(&err);
}

static void test_refusals(void **state)
{
	char out[PATH_MAX + 16], path[PATH_MAX + 16];
	FILE *f;

	snprintf(out, sizeof(out), "%s/refused.cpio", scratch);
	write_fake("runner", 1, "r", static_runner);
	write_fake("busybox", 1, "b", static_busybox);
	write_fake("dynamic", 3, "/lib64/ld-linux-x86-64.so.2", dynamic_elf);

	setenv("LAB_RUNNER", static_runner, 1);
	setenv("LAB_BUSYBOX", dynamic_elf, 1);
	expect_refused(out, "install busybox-static");
	if (access("/bin/ls", R_OK) == 0) {
		setenv("LAB_BUSYBOX", "/bin/ls", 1); /* a real dynamic binary */
		expect_refused(out, "dynamically linked");
	}
	setenv("LAB_BUSYBOX", "/nonexistent/busybox", 1);
	expect_refused(out, "/nonexistent/busybox");

	setenv("LAB_BUSYBOX", static_busybox, 1);
	setenv("LAB_RUNNER", dynamic_elf, 1);
	expect_refused(out, "runner");
	setenv("LAB_RUNNER", "/nonexistent/runner", 1);
	expect_refused(out, "/nonexistent/runner");
	snprintf(path, sizeof(path), "%s/text", scratch);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho not elf, and long enough to be read as a header ......\n", f);
	fclose(f);
	setenv("LAB_RUNNER", path, 1);
	expect_refused(out, "not an ELF");

	/* no LAB_RUNNER and no build under LAB_ROOT: the paths tried */
	unsetenv("LAB_RUNNER");
	expect_refused(out, "run make");
	expect_refused(out, "build/guest/runner");

	/* an unwritable destination */
	setenv("LAB_RUNNER", static_runner, 1);
	expect_refused("/nonexistent/dir/initrd.cpio", "cannot create");
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_cache(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char first[PATH_MAX], dir[PATH_MAX + 16];
	const char *p;
	struct stat st1, st2;

	write_fake("runner", 1, "runner v1", static_runner);
	write_fake("busybox", 1, "b", static_busybox);
	setenv("LAB_RUNNER", static_runner, 1);
	setenv("LAB_BUSYBOX", static_busybox, 1);

	p = initrd_cached(&err);
	if (!p)
		fail_msg("initrd_cached: %s", err.buf);
	snprintf(first, sizeof(first), "%s", p);
	snprintf(dir, sizeof(dir), "%s/cache/initrd/", root);
	assert_memory_equal(first, dir, strlen(dir));
	assert_int_equal(strlen(first), strlen(dir) + 16 + strlen(".cpio"));
	assert_int_equal(stat(first, &st1), 0);

	/* same inputs: the same file, not rebuilt */
	p = initrd_cached(&err);
	assert_non_null(p);
	assert_string_equal(p, first);
	assert_int_equal(stat(first, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(count_files(dir), 1);

	/* a new runner is a new initrd */
	write_fake("runner", 1, "runner v2", static_runner);
	p = initrd_cached(&err);
	assert_non_null(p);
	assert_string_not_equal(p, first);
	assert_int_equal(count_files(dir), 2); /* and no temporary left over */

	/* an error leaves err with one line and returns NULL */
	setenv("LAB_RUNNER", dynamic_elf[0] ? dynamic_elf : "/nonexistent", 1);
	strbuf_reset(&err);
	assert_null(initrd_cached(&err));
	assert_true(err.len > 0);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_and_read_back),
		cmocka_unit_test(test_real_busybox),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
