/* initrd.c - writes the guest initrd as a newc cpio archive (busybox, /init,
 * the runner, device nodes) and keeps content-addressed copies in the cache. */
#define _GNU_SOURCE
#include "kernel/initrd.h"
#include "kernel/kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bumped whenever the archive layout changes, so cached initrds built by
 * an older lab are not reused. */
#define INITRD_LAYOUT "schedlab-initrd-1"

#define S_DIR 0040000u
#define S_CHR 0020000u
#define S_REG 0100000u

static void cpio_pad(struct cpio *c)
{
	while (c->buf.len % 4)
		strbuf_addch(&c->buf, 0);
}

static void cpio_header(struct cpio *c, const char *name, unsigned mode,
			unsigned nlink, size_t size, unsigned rmajor, unsigned rminor)
{
	size_t namesize;

	while (*name == '/')
		name++;
	namesize = strlen(name) + 1;
	/* magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	 * devminor, rdevmajor, rdevminor, namesize, check */
	strbuf_addf(&c->buf, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		    c->next_ino++, mode, 0u, 0u, nlink, 0u, (unsigned)size,
		    0u, 0u, rmajor, rminor, (unsigned)namesize, 0u);
	strbuf_add(&c->buf, name, namesize);
	cpio_pad(c);
}

void cpio_add_dir(struct cpio *c, const char *name, unsigned perm)
{
	cpio_header(c, name, S_DIR | (perm & 07777), 2, 0, 0, 0);
}

void cpio_add_chardev(struct cpio *c, const char *name, unsigned perm,
		      unsigned major, unsigned minor)
{
	cpio_header(c, name, S_CHR | (perm & 07777), 1, 0, major, minor);
}

int cpio_add_file(struct cpio *c, const char *name, unsigned perm,
		  const void *data, size_t len)
{
	if (len > UINT32_MAX)
		return -1;
	cpio_header(c, name, S_REG | (perm & 07777), 1, len, 0, 0);
	strbuf_add(&c->buf, data, len);
	cpio_pad(c);
	return 0;
}

void cpio_finish(struct cpio *c)
{
	cpio_header(c, "TRAILER!!!", 0, 1, 0, 0, 0);
}

void cpio_release(struct cpio *c)
{
	strbuf_release(&c->buf);
	c->next_ino = 1;
}

static uint64_t read_word(const unsigned char *p, unsigned size, int big_endian)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * A binary in the initrd must be static: there is no dynamic loader in
 * it, and exec() of a binary naming one fails with a baffling ENOENT.
 * A PT_INTERP program header is what names the loader.
 */
int initrd_check_static(const char *what, const char *path, const unsigned char *d,
			size_t len, struct strbuf *err)
{
	int is64, be;
	uint64_t phoff, phentsize, phnum;

	if (len < 52 || memcmp(d, "\177ELF", 4) || (d[4] != 1 && d[4] != 2) ||
	    (d[5] != 1 && d[5] != 2)) {
		strbuf_addf(err, "%s '%s' is not an ELF executable", what, path);
		return -1;
	}
	is64 = d[4] == 2;
	be = d[5] == 2;
	if (is64 && len < 64) {
		strbuf_addf(err, "%s '%s' is a truncated ELF file", what, path);
		return -1;
	}
	phoff = is64 ? read_word(d + 0x20, 8, be) : read_word(d + 0x1c, 4, be);
	phentsize = read_word(d + (is64 ? 0x36 : 0x2a), 2, be);
	phnum = read_word(d + (is64 ? 0x38 : 0x2c), 2, be);
	if (phnum && (phentsize < 4 || phoff > len || phnum * phentsize > len - phoff)) {
		strbuf_addf(err, "%s '%s' has a corrupt ELF program header table", what, path);
		return -1;
	}
	for (uint64_t i = 0; i < phnum; i++) {
		if (read_word(d + phoff + i * phentsize, 4, be) == 3 /* PT_INTERP */) {
			if (!strcmp(what, "busybox"))
				strbuf_addf(err, "busybox '%s' is dynamically linked; the initrd needs a "
					    "static one: install busybox-static (or set LAB_BUSYBOX)", path);
			else if (!strcmp(what, "runner"))
				strbuf_addf(err, "%s '%s' is dynamically linked; it must be static "
					    "(rebuild it with make)", what, path);
			else
				strbuf_addf(err, "%s '%s' is dynamically linked; the guest's initrd has "
					    "no loader: link it with -static", what, path);
			return -1;
		}
	}
	return 0;
}

static int is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Fills path (PATH_MAX) with the runner to pack; see initrd.h for the order. */
int initrd_find_runner(char *path, struct strbuf *err)
{
	const char *env = getenv("LAB_RUNNER");
	char exe[PATH_MAX], tried[2][PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		if (!is_regular(env)) {
			strbuf_addf(err, "LAB_RUNNER names '%s', which is not a file", env);
			return -1;
		}
		snprintf(path, PATH_MAX, "%s", env);
		return 0;
	}
	tried[0][0] = '\0';
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		if (snprintf(tried[0], sizeof(tried[0]), "%s/guest/runner", exe) >=
		    (int)sizeof(tried[0])) {
			tried[0][0] = '\0';
		} else if (is_regular(tried[0])) {
			snprintf(path, PATH_MAX, "%s", tried[0]);
			return 0;
		}
	}
	snprintf(tried[1], sizeof(tried[1]), "%s/build/guest/runner", lab_root());
	if (is_regular(tried[1])) {
		snprintf(path, PATH_MAX, "%s", tried[1]);
		return 0;
	}
	if (tried[0][0])
		strbuf_addf(err, "no guest runner at '%s' or '%s': run make", tried[0], tried[1]);
	else
		strbuf_addf(err, "no guest runner at '%s': run make", tried[1]);
	return -1;
}

struct initrd_inputs {
	char *init, *busybox, *runner;
	size_t init_len, busybox_len, runner_len;
};

static void inputs_release(struct initrd_inputs *in)
{
	free(in->init);
	free(in->busybox);
	free(in->runner);
	memset(in, 0, sizeof(*in));
}

static char *slurp(const char *what, const char *path, size_t *len, struct strbuf *err)
{
	char *data = read_file(path, len);

	if (!data)
		strbuf_addf(err, "cannot read %s '%s': %s", what, path, strerror(errno));
	return data;
}

/* Another arch's runner: build/guest-<uname -m>/runner, cross-built by make. */
static int find_arch_runner(enum topo_arch arch, char *path, struct strbuf *err)
{
	const char *uname = topo_arch_info(arch)->uname;

	if (snprintf(path, PATH_MAX, "%s/build/guest-%s/runner", lab_root(), uname) >= PATH_MAX) {
		strbuf_addstr(err, "lab root path too long");
		return -1;
	}
	if (!is_regular(path)) {
		strbuf_addf(err, "no %s guest runner at '%s': run make guest-%s",
			    topo_arch_info(arch)->name, path, uname);
		return -1;
	}
	return 0;
}

static int inputs_load(struct initrd_inputs *in, enum topo_arch arch, struct strbuf *err)
{
	const char *bb_env = getenv("LAB_BUSYBOX");
	const char *busybox = bb_env && *bb_env ? bb_env : "/bin/busybox";
	char init[PATH_MAX], runner[PATH_MAX];
	struct strbuf bb = STRBUF_INIT;

	memset(in, 0, sizeof(*in));
	snprintf(init, sizeof(init), "%s/guest/init", lab_root());
	if (!(in->init = slurp("guest init", init, &in->init_len, err)))
		goto fail;
	if (arch != TOPO_ARCH_X86_64) {
		if (kernel_fetch_busybox(arch, &bb, err) < 0)
			goto fail;
		busybox = bb.buf;
	}
	in->busybox = read_file(busybox, &in->busybox_len);
	if (!in->busybox) {
		strbuf_addf(err, "cannot read busybox '%s': %s (install busybox-static)",
			    busybox, strerror(errno));
		goto fail;
	}
	if (initrd_check_static("busybox", busybox, (unsigned char *)in->busybox,
			     in->busybox_len, err) < 0)
		goto fail;
	if ((arch == TOPO_ARCH_X86_64 ? initrd_find_runner(runner, err) :
	     find_arch_runner(arch, runner, err)) < 0 ||
	    !(in->runner = slurp("runner", runner, &in->runner_len, err)) ||
	    initrd_check_static("runner", runner, (unsigned char *)in->runner,
			     in->runner_len, err) < 0)
		goto fail;
	strbuf_release(&bb);
	return 0;
fail:
	strbuf_release(&bb);
	inputs_release(in);
	return -1;
}

static int archive(const struct initrd_inputs *in, struct cpio *c, struct strbuf *err)
{
	static const char *const dirs[] = { "bin", "dev", "proc", "sys", "tmp", "sbin" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		cpio_add_dir(c, dirs[i], 0755);
	/* The kernel opens /dev/console for init before devtmpfs exists. */
	cpio_add_chardev(c, "dev/console", 0600, 5, 1);
	cpio_add_chardev(c, "dev/null", 0666, 1, 3);
	cpio_add_chardev(c, "dev/ttyS0", 0660, 4, 64);
	cpio_add_chardev(c, "dev/ttyS1", 0660, 4, 65);
	if (cpio_add_file(c, "init", 0755, in->init, in->init_len) < 0 ||
	    cpio_add_file(c, "bin/busybox", 0755, in->busybox, in->busybox_len) < 0 ||
	    cpio_add_file(c, "bin/runner", 0755, in->runner, in->runner_len) < 0) {
		strbuf_addstr(err, "an initrd input is too large for a cpio archive");
		return -1;
	}
	cpio_finish(c);
	return 0;
}

static int build_from(const struct initrd_inputs *in, const char *out_path, struct strbuf *err)
{
	struct cpio c = CPIO_INIT;
	int ret;

	ret = archive(in, &c, err);
	if (!ret)
		ret = write_file_atomic_err(out_path, c.buf.buf, c.buf.len, err);
	cpio_release(&c);
	return ret;
}

int initrd_build(const char *out_path, struct strbuf *err)
{
	struct initrd_inputs in;
	int ret;

	if (inputs_load(&in, TOPO_ARCH_X86_64, err) < 0)
		return -1;
	ret = build_from(&in, out_path, err);
	inputs_release(&in);
	return ret;
}

/* FNV-1a 64 with a length prefix, which keeps input boundaries unambiguous. */
static uint64_t fnv1a_chunk(uint64_t h, const void *data, size_t len)
{
	uint64_t n = len;

	h = fnv1a64(h, &n, sizeof(n));
	return fnv1a64(h, data, len);
}

/* mkdir -p that reports into err instead of printing. */
static int make_dirs(const char *dir, struct strbuf *err)
{
	char *p = xstrdup(dir);

	for (char *s = p + 1;; s++) {
		int last = !*s;

		if (*s && *s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			strbuf_addf(err, "cannot create directory '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		if (last)
			break;
		*s = '/';
	}
	free(p);
	return 0;
}

const char *initrd_cached(struct strbuf *err)
{
	return initrd_cached_arch(TOPO_ARCH_X86_64, err);
}

const char *initrd_cached_arch(enum topo_arch arch, struct strbuf *err)
{
	static char path[PATH_MAX];
	struct initrd_inputs in;
	char dir[PATH_MAX];
	uint64_t h = 0xcbf29ce484222325ull;

	if (inputs_load(&in, arch, err) < 0)
		return NULL;
	h = fnv1a_chunk(h, INITRD_LAYOUT, strlen(INITRD_LAYOUT));
	h = fnv1a_chunk(h, in.init, in.init_len);
	h = fnv1a_chunk(h, in.busybox, in.busybox_len);
	h = fnv1a_chunk(h, in.runner, in.runner_len);
	if (snprintf(dir, sizeof(dir), "%s/initrd", lab_cache_dir()) >= (int)sizeof(dir) ||
	    snprintf(path, sizeof(path), "%s/%016llx.cpio", dir,
		     (unsigned long long)h) >= (int)sizeof(path)) {
		strbuf_addf(err, "cache directory path '%s' is too long", lab_cache_dir());
		inputs_release(&in);
		return NULL;
	}
	if (!is_regular(path) &&
	    (make_dirs(dir, err) < 0 || build_from(&in, path, err) < 0)) {
		inputs_release(&in);
		return NULL;
	}
	inputs_release(&in);
	return path;
}
