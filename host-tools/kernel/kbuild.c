/* kbuild.c - builds guest kernels from a tree (git, plain or tarball), patches
 * and Kconfig fragments, out of tree, cached under a key hashed from all four. */
#define _GNU_SOURCE
#include "kernel/kbuild.h"
#include "kernel/kgen.h"
#include "kernel/kconfig.h"
#include "kernel/kimage.h"
#include "lib/child.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * A recipe is bumped whenever it changes (base config, make targets, ARCH),
 * so kernels built by an older recipe are not mistaken for new ones.  The
 * x86_64 line is the one from before other arches, so x86 keys stayed.
 */
static const struct kbuild_arch arches[TOPO_ARCH_NR] = {
	[TOPO_ARCH_X86_64] = {
		.arch = TOPO_ARCH_X86_64,
		.recipe = "schedlab-kbuild 1 x86_64 tinyconfig+merge_config+olddefconfig bzImage",
		.make_arch = "x86_64", .cross_compile = "", .srcarch = "x86",
		.target = "bzImage", .image_path = "arch/x86/boot/bzImage", .image = "bzImage",
		.cc = "gcc", .fragment = "arch/x86_64",
	},
	[TOPO_ARCH_ARM64] = {
		.arch = TOPO_ARCH_ARM64,
		.recipe = "schedlab-kbuild 1 arm64 tinyconfig+merge_config+olddefconfig Image",
		.make_arch = "arm64", .cross_compile = "aarch64-linux-gnu-", .srcarch = "arm64",
		.target = "Image", .image_path = "arch/arm64/boot/Image", .image = "Image",
		.cc = "aarch64-linux-gnu-gcc", .fragment = "arch/arm64",
	},
	[TOPO_ARCH_PPC64LE] = {
		.arch = TOPO_ARCH_PPC64LE,
		.recipe = "schedlab-kbuild 1 ppc64le tinyconfig+merge_config+olddefconfig vmlinux",
		.make_arch = "powerpc", .cross_compile = "powerpc64le-linux-gnu-", .srcarch = "powerpc",
		.target = "vmlinux", .image_path = "vmlinux", .image = "vmlinux",
		.cc = "powerpc64le-linux-gnu-gcc", .fragment = "arch/ppc64le",
	},
};

const struct kbuild_arch *kbuild_arch(enum topo_arch arch)
{
	return &arches[arch < TOPO_ARCH_NR ? arch : TOPO_ARCH_X86_64];
}

void kbuild_arch_make_args(const struct kbuild_arch *a, int ccache, struct strvec *argv)
{
	strvec_pushf(argv, "ARCH=%s", a->make_arch);
	if (*a->cross_compile)
		strvec_pushf(argv, "CROSS_COMPILE=%s", a->cross_compile);
	if (ccache)
		strvec_pushf(argv, "CC=ccache %s", a->cc);
}

/* Deadlines: configuring takes seconds; a KASAN build on 2 cores takes hours. */
#define STEP_TIMEOUT_MS (20 * 60 * 1000)
#define BUILD_TIMEOUT_MS (6 * 3600 * 1000)
#define GIT_TIMEOUT_MS (60 * 1000)

/* How many error lines of a failed build are shown on stderr. */
#define ERROR_LINES 12

/* ---- SHA-256, from nettle ---- */

void kbuild_sha256_init(struct kbuild_sha256 *c)
{
	sha256_init(&c->ctx);
}

void kbuild_sha256_update(struct kbuild_sha256 *c, const void *data, size_t len)
{
	sha256_update(&c->ctx, len, data);
}

void kbuild_sha256_final(struct kbuild_sha256 *c, char hex[65])
{
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_digest(&c->ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

void kbuild_sha256_hex(const void *data, size_t len, char hex[65])
{
	struct kbuild_sha256 c;

	kbuild_sha256_init(&c);
	kbuild_sha256_update(&c, data, len);
	kbuild_sha256_final(&c, hex);
}

int kbuild_sha256_file(const char *path, char hex[65], struct strbuf *err)
{
	struct kbuild_sha256 c;
	static uint8_t buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	kbuild_sha256_init(&c);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		kbuild_sha256_update(&c, buf, (size_t)n);
	}
	close(fd);
	kbuild_sha256_final(&c, hex);
	return 0;
}


/* ---- sources ---- */

const char *kbuild_source_kind_name(enum kbuild_source_kind kind)
{
	switch (kind) {
	case KBUILD_SOURCE_GIT: return "git";
	case KBUILD_SOURCE_TREE: return "tree";
	case KBUILD_SOURCE_TARBALL: return "tarball";
	default: return "none";
	}
}

static int exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int has_make_var(const char *makefile, const char *var)
{
	size_t n = strlen(var);

	for (const char *l = makefile; l && *l; ) {
		if (!strncmp(l, var, n) && (l[n] == ' ' || l[n] == '='))
			return 1;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return 0;
}

int kbuild_check_tree(const char *dir, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	const char *missing = NULL;
	char *mk;

	strbuf_addf(&p, "%s/Makefile", dir);
	mk = read_file(p.buf, NULL);
	if (!is_dir(dir))
		missing = "not a directory";
	else if (!mk || !has_make_var(mk, "VERSION") || !has_make_var(mk, "PATCHLEVEL"))
		missing = "no top-level Makefile with VERSION and PATCHLEVEL";
	if (!missing) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/scripts/kconfig/merge_config.sh", dir);
		if (!is_file(p.buf))
			missing = "no scripts/kconfig/merge_config.sh";
	}
	if (!missing) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/arch/x86/Kconfig", dir);
		if (!is_file(p.buf))
			missing = "no arch/x86/Kconfig";
	}
	free(mk);
	strbuf_release(&p);
	if (missing) {
		strbuf_addf(err, "'%s' is not a kernel tree (%s)", dir, missing);
		return -1;
	}
	return 0;
}

struct listing {
	char **v;
	size_t nr, alloc;
	size_t root_len;
};

static struct listing *listing_ctx;

static int list_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	struct listing *l = listing_ctx;
	const char *rel = path + l->root_len;
	char target[PATH_MAX];
	char *entry;

	if (ftw->level == 0)
		return FTW_CONTINUE;
	if (*rel == '/')
		rel++;
	if (ftw->level == 1 && !strcmp(path + ftw->base, ".git"))
		return flag == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	if (flag == FTW_SL) {
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		target[n < 0 ? 0 : n] = '\0';
		entry = xasprintf("%s\tl\t%s", rel, target);
	} else if (flag == FTW_D || flag == FTW_DP) {
		entry = xasprintf("%s\td", rel);
	} else if (flag == FTW_F) {
		entry = xasprintf("%s\tf\t%llu\t%lld.%09ld\t%o", rel,
				  (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec,
				  st->st_mtim.tv_nsec, (unsigned)(st->st_mode & 0111));
	} else {
		entry = xasprintf("%s\t?", rel);
	}
	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 4096;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->nr++] = entry;
	return FTW_CONTINUE;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kbuild_tree_hash(const char *dir, char hex[65], struct strbuf *err)
{
	struct listing l = { NULL, 0, 0, strlen(dir) };
	struct kbuild_sha256 c;
	int r;

	listing_ctx = &l;
	r = nftw(dir, list_one, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	listing_ctx = NULL;
	if (r < 0)
		strbuf_addf(err, "cannot list '%s': %s", dir, strerror(errno));
	qsort(l.v, l.nr, sizeof(*l.v), cmp_str);
	kbuild_sha256_init(&c);
	for (size_t i = 0; i < l.nr; i++) {
		kbuild_sha256_update(&c, l.v[i], strlen(l.v[i]) + 1);
		free(l.v[i]);
	}
	free(l.v);
	kbuild_sha256_final(&c, hex);
	return r < 0 ? -1 : 0;
}

static int is_tarball_name(const char *path)
{
	static const char *const suffixes[] = {
		".tar", ".tar.xz", ".txz", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.zst",
	};
	size_t n = strlen(path);

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t m = strlen(suffixes[i]);

		if (n > m && !strcmp(path + n - m, suffixes[i]))
			return 1;
	}
	return 0;
}

/* ---- keys ---- */

void kbuild_inputs_release(struct kbuild_inputs *in)
{
	strbuf_release(&in->source);
	strvec_clear(&in->patches);
	strbuf_release(&in->config);
	strbuf_release(&in->compiler);
}

void kbuild_key_text(const struct kbuild_inputs *in, struct strbuf *out)
{
	strbuf_addf(out, "recipe %s\n", kbuild_arch(in->arch)->recipe);
	strbuf_addf(out, "source %s\n", in->source.buf);
	for (size_t i = 0; i < in->patches.nr; i++)
		strbuf_addf(out, "patch %s\n", in->patches.v[i]);
	strbuf_addf(out, "compiler %s\n", in->compiler.buf);
	strbuf_addstr(out, "config\n");
	strbuf_addstr(out, in->config.buf);
}

void kbuild_key(const struct kbuild_inputs *in, char key[KBUILD_KEY_LEN + 1])
{
	struct strbuf text = STRBUF_INIT;
	char hex[65];

	kbuild_key_text(in, &text);
	kbuild_sha256_hex(text.buf, text.len, hex);
	memcpy(key, hex, KBUILD_KEY_LEN);
	key[KBUILD_KEY_LEN] = '\0';
	strbuf_release(&text);
}

int kbuild_looks_like_key(const char *s)
{
	size_t n = strlen(s);

	if (n < KBUILD_KEY_MIN_PREFIX || n > KBUILD_KEY_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return 0;
	return 1;
}

/* lab_cache_dir() made absolute: make -C would read a relative O= from
 * inside the source tree. */
static const char *cache_dir(void)
{
	static char *abs;
	const char *c = lab_cache_dir();
	char here[PATH_MAX];

	if (!abs)
		abs = c[0] != '/' && getcwd(here, sizeof(here)) ? xasprintf("%s/%s", here, c)
								 : xstrdup(c);
	return abs;
}

const char *kbuild_cache_root(void)
{
	static char root[PATH_MAX];

	if (!root[0])
		snprintf(root, sizeof(root), "%s/kernels/built", cache_dir());
	return root;
}

enum topo_arch kbuild_entry_arch(const char *dir)
{
	char *path = xasprintf("%s/info.json", dir);
	struct json_object *o = json_object_from_file(path), *v;
	enum topo_arch arch = TOPO_ARCH_X86_64;

	if (o && json_object_object_get_ex(o, "arch", &v) && json_object_is_type(v, json_type_string)) {
		for (int a = 0; a < TOPO_ARCH_NR; a++)
			if (!strcmp(json_object_get_string(v), topo_arch_info((enum topo_arch)a)->name))
				arch = (enum topo_arch)a;
	}
	json_object_put(o);
	free(path);
	return arch;
}

/* A finished build: its directory holds info.json (written last) and the
 * image of its arch. */
/* 1 when the .config text at path has CONFIG_MODULES=y. */
static int config_has_modules(const char *path)
{
	char *text = read_file(path, NULL);
	struct strbuf v = STRBUF_INIT;
	int has = text && kconfig_value(text, "MODULES", &v) > 0 && !strcmp(v.buf, "y");

	free(text);
	strbuf_release(&v);
	return has;
}

/* An entry boots with its info and its image. */
static int is_bootable(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	int ok;

	strbuf_addf(&p, "%s/info.json", dir);
	ok = is_file(p.buf);
	if (ok) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir, kbuild_arch(kbuild_entry_arch(dir))->image);
		ok = is_file(p.buf);
	}
	strbuf_release(&p);
	return ok;
}

/* An entry is whole when it boots and, for a kernel with CONFIG_MODULES,
 * has its installed modules: one built before the lab kept them still
 * boots by its key, and the next build of the same inputs replaces it. */
static int is_complete(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	int ok = is_bootable(dir);

	if (ok) {
		strbuf_addf(&p, "%s/config", dir);
		if (config_has_modules(p.buf)) {
			strbuf_reset(&p);
			strbuf_addf(&p, "%s/lib/modules", dir);
			ok = is_dir(p.buf);
		}
	}
	strbuf_release(&p);
	return ok;
}

int kbuild_lookup(const char *prefix, struct strbuf *dir, struct strbuf *err)
{
	DIR *d = opendir(kbuild_cache_root());
	struct dirent *de;
	struct strbuf match = STRBUF_INIT, p = STRBUF_INIT;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strlen(de->d_name) != KBUILD_KEY_LEN ||
		    strncmp(de->d_name, prefix, strlen(prefix)) || !kbuild_looks_like_key(de->d_name))
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", kbuild_cache_root(), de->d_name);
		if (!is_bootable(p.buf))
			continue;
		if (n++)
			strbuf_addstr(&match, ", ");
		strbuf_addstr(&match, de->d_name);
		if (n == 1) {
			strbuf_reset(dir);
			strbuf_addstr(dir, p.buf);
		}
	}
	closedir(d);
	if (n > 1) {
		strbuf_addf(err, "kernel key '%s' is ambiguous: %s", prefix, match.buf);
		strbuf_reset(dir);
	}
	strbuf_release(&match);
	strbuf_release(&p);
	return n > 1 ? -1 : n;
}

void kbuild_opts_release(struct kbuild_opts *o)
{
	strvec_clear(&o->patches);
	strvec_clear(&o->configs);
}

/* ---- the build ---- */

/* Everything one kbuild_build() call works with. */
struct build {
	const struct kbuild_opts *opts;
	const struct kbuild_arch *arch;
	struct kbuild_result *res;
	enum kbuild_source_kind kind;
	char *ksrc;                 /* absolute */
	struct kbuild_inputs in;
	struct kconfig_frags cfg;
	struct strvec frag_paths;   /* fragment files as given or found */
	struct strvec frag_names;
	struct strvec left_out;     /* other arches' options, one line each */
	size_t nr_gen_rewrites;     /* the first of left_out: a generation's dropped or renamed options */
	struct strbuf git_diff;     /* uncommitted changes of a git tree */
	char key[KBUILD_KEY_LEN + 1];
	struct strbuf tmp;          /* <root>/<key>.tmp */
	struct strbuf final;        /* <root>/<key> */
	struct strbuf src;          /* the tree make -C runs in */
	struct strbuf obj;          /* O= */
	struct strbuf log;
	struct strbuf work;         /* incremental: <cache>/kernels/work/<id> */
	char rev[41];               /* the commit built, for opts.rev */
	int ccache;                 /* make runs CC="ccache gcc" */
	int logfd;
	int lockfd;
	int worklockfd;
	uint64_t start_ns;
};

#define BUILD_INIT(o, r) { \
	.opts = (o), .res = (r), .in = KBUILD_INPUTS_INIT, .cfg = KCONFIG_FRAGS_INIT, \
	.frag_paths = STRVEC_INIT, .frag_names = STRVEC_INIT, .left_out = STRVEC_INIT, \
	.git_diff = STRBUF_INIT, \
	.tmp = STRBUF_INIT, .final = STRBUF_INIT, .src = STRBUF_INIT, .obj = STRBUF_INIT, \
	.log = STRBUF_INIT, .work = STRBUF_INIT, .logfd = -1, .lockfd = -1, .worklockfd = -1, \
	.start_ns = now_ns(), \
}

static void build_release(struct build *b)
{
	free(b->ksrc);
	kbuild_inputs_release(&b->in);
	kconfig_frags_release(&b->cfg);
	strvec_clear(&b->frag_paths);
	strvec_clear(&b->frag_names);
	strvec_clear(&b->left_out);
	strbuf_release(&b->git_diff);
	strbuf_release(&b->tmp);
	strbuf_release(&b->final);
	strbuf_release(&b->src);
	strbuf_release(&b->obj);
	strbuf_release(&b->log);
	strbuf_release(&b->work);
	if (b->logfd >= 0)
		close(b->logfd);
	if (b->lockfd >= 0)
		close(b->lockfd);
	if (b->worklockfd >= 0)
		close(b->worklockfd);
}

static void log_printf(struct build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void log_printf(struct build *b, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (b->logfd < 0)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (write(b->logfd, sb.buf, sb.len) < 0) {
		/* a short log is not worth failing the build for */
	}
	strbuf_release(&sb);
}

/* Environment that would change what make builds without changing the key
 * (or point it elsewhere) is removed; so is the calling make's jobserver. */
void kbuild_clean_env(struct child_process *cp)
{
	static const char *const drop[] = {
		"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS",
		"KBUILD_OUTPUT", "ARCH", "CROSS_COMPILE", "LLVM", "LLVM_IAS", "CC",
		"KCFLAGS", "KCPPFLAGS", "KAFLAGS", "KRUSTFLAGS", "LOCALVERSION",
		"KCONFIG_CONFIG", "KCONFIG_ALLCONFIG", "INSTALL_MOD_PATH", "O", "V", "W", "C",
		/* the tools/ Makefiles (lab scx build) read these too */
		"OUTPUT", "CFLAGS", "LDFLAGS",
	};

	for (size_t i = 0; i < ARRAY_SIZE(drop); i++)
		strvec_push(&cp->env, drop[i]);
	strvec_push(&cp->env, "LC_ALL=C");
}

/* Progress of a running make: counts kbuild's "  CC      file" lines. */
struct progress {
	int on;
	unsigned steps;
	char last[160];
	uint64_t shown_ns;
	struct strbuf partial;
};

static void progress_show(struct build *b, struct progress *pr, int force)
{
	uint64_t now = now_ns();
	unsigned secs = (unsigned)((now - b->start_ns) / 1000000000ull);

	if (!pr->on || (!force && now - pr->shown_ns < 500000000ull))
		return;
	pr->shown_ns = now;
	fprintf(stderr, "\r\033[K  %s %u:%02u  %u steps  %.60s", b->key, secs / 60, secs % 60,
		pr->steps, pr->last);
	fflush(stderr);
}

static void progress_feed(struct progress *pr, const char *data, size_t len)
{
	strbuf_add(&pr->partial, data, len);
	for (;;) {
		char *nl = memchr(pr->partial.buf, '\n', pr->partial.len);
		size_t n;

		if (!nl)
			break;
		n = (size_t)(nl - pr->partial.buf);
		/* kbuild's quiet lines: two spaces, an upper-case tag, the target */
		if (n > 3 && pr->partial.buf[0] == ' ' && pr->partial.buf[1] == ' ' &&
		    isupper((unsigned char)pr->partial.buf[2])) {
			const char *p = pr->partial.buf + 2;
			size_t tag = strcspn(p, " ");
			const char *t = p + tag + strspn(p + tag, " ");
			size_t tlen = (size_t)(nl - t);

			pr->steps++;
			snprintf(pr->last, sizeof(pr->last), "%.*s %.*s", (int)tag, p,
				 (int)(tlen < 120 ? tlen : 120), t);
		}
		memmove(pr->partial.buf, nl + 1, pr->partial.len - n - 1);
		pr->partial.len -= n + 1;
		pr->partial.buf[pr->partial.len] = '\0';
	}
	/* An endless line must not grow the buffer without bound. */
	if (pr->partial.len > 4096)
		strbuf_reset(&pr->partial);
}

/*
 * Runs cp (args filled) with stdout and stderr into the log, showing progress
 * when asked.  Returns the exit code, CHILD_TIMED_OUT, or -1 when it could not
 * start (err filled).
 */
static int run_logged(struct build *b, struct child_process *cp, int timeout_ms,
		      int show_progress, struct strbuf *output, struct strbuf *err)
{
	struct progress pr = { .on = show_progress && b->opts->progress, .partial = STRBUF_INIT };
	int pfd[2], ret;
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	char buf[8192];

	log_printf(b, "\n$");
	for (size_t i = 0; i < cp->args.nr; i++)
		log_printf(b, " %s", cp->args.v[i]);
	log_printf(b, "%s%s\n", cp->dir ? "   # in " : "", cp->dir ? cp->dir : "");
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		strbuf_addf(err, "pipe: %s", strerror(errno));
		return -1;
	}
	kbuild_clean_env(cp);
	if (cp->in == CHILD_INHERIT)
		cp->in = CHILD_DEVNULL;
	cp->out = cp->err = pfd[1];
	cp->die_with_parent = 1;
	cp->errbuf = err;
	if (start_command(cp) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { pfd[0], POLLIN, 0 };
		uint64_t now = now_ns();
		int r;

		if (now >= deadline) {
			child_process_kill(cp, SIGTERM);
			close(pfd[0]);
			finish_command_timeout(cp, CHILD_KILL_GRACE_MS);
			log_printf(b, "\n(killed after %d s)\n", timeout_ms / 1000);
			strbuf_release(&pr.partial);
			return CHILD_TIMED_OUT;
		}
		r = poll(&p, 1, pr.on ? 500 : 2000);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0) {
			ssize_t n = read(pfd[0], buf, sizeof(buf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (b->logfd >= 0 && write(b->logfd, buf, (size_t)n) < 0) {
				/* keep building; the log is a convenience */
			}
			if (output)
				strbuf_add(output, buf, (size_t)n);
			if (pr.on)
				progress_feed(&pr, buf, (size_t)n);
		}
		progress_show(b, &pr, 0);
	}
	close(pfd[0]);
	ret = finish_command(cp);
	if (pr.on) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	strbuf_release(&pr.partial);
	return ret;
}

static int is_error_line(const char *l, size_t len)
{
	static const char *const marks[] = {
		"error:", "Error ", "undefined reference", "*** ", "No rule to make target",
	};

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (memmem(l, len, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

/* The last error lines of a failed step (else its last lines), on stderr. */
static void show_errors(const char *logpath)
{
	char *text = read_file(logpath, NULL);
	const char *lines[ERROR_LINES];
	size_t lens[ERROR_LINES], n = 0;

	if (!text)
		return;
	for (int pass = 0; pass < 2 && !n; pass++) {
		for (const char *l = text; l && *l; ) {
			const char *nl = strchr(l, '\n');
			size_t len = nl ? (size_t)(nl - l) : strlen(l);

			if (len && (pass == 1 || is_error_line(l, len))) {
				lines[n % ERROR_LINES] = l;
				lens[n % ERROR_LINES] = len;
				n++;
			}
			l = nl ? nl + 1 : NULL;
		}
	}
	for (size_t i = n > ERROR_LINES ? n - ERROR_LINES : 0; i < n; i++)
		fprintf(stderr, "    %.*s\n", (int)lens[i % ERROR_LINES], lines[i % ERROR_LINES]);
	free(text);
}

static void push_make(struct build *b, struct child_process *cp, const char *target)
{
	strvec_pushl(&cp->args, "make", "-C", b->src.buf, NULL);
	strvec_pushf(&cp->args, "O=%s", b->obj.buf);
	/* The same CC for every step: Kconfig records the compiler's version
	 * text, and a changed one would reconfigure the kept tree. */
	kbuild_arch_make_args(b->arch, b->ccache, &cp->args);
	strvec_push(&cp->args, target);
	if (b->ccache) {
		strvec_pushf(&cp->env, "CCACHE_DIR=%s", kbuild_ccache_dir());
		/* one object tree path per work directory: hash it as it is */
		strvec_push(&cp->env, "CCACHE_NOHASHDIR=1");
	}
}

/* make TARGET in the object tree; on failure err names the step. */
static int make_step(struct build *b, const char *target, int timeout_ms, int progress,
		     struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int r;

	push_make(b, &cp, target);
	if (!strcmp(target, b->arch->target) || !strcmp(target, "modules")) {
		strvec_pushf(&cp.args, "-j%u", b->opts->jobs ? b->opts->jobs
				: (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	}
	r = run_logged(b, &cp, timeout_ms, progress, NULL, err);
	child_process_clear(&cp);
	if (r == 0)
		return 0;
	if (r == -1)
		return -1;
	show_errors(b->log.buf);
	strbuf_addf(err, "'make %s' of kernel %s %s; full log: %s", target, b->key,
		    r == CHILD_TIMED_OUT ? "took too long and was killed" : "failed", b->log.buf);
	return KBUILD_BAD_INPUT;
}

/*
 * A kernel with CONFIG_MODULES: its modules, built and installed (stripped,
 * with modules.dep from depmod) into the entry as lib/modules/<release>,
 * the tree an image guest's stage1 loads drivers from.  0 when the config
 * has no modules.
 */
static int build_modules(struct build *b, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf p = STRBUF_INIT, root = STRBUF_INIT;
	char *release = NULL, *dst = NULL;
	int r;

	strbuf_addf(&p, "%s/.config", b->obj.buf);
	if (!config_has_modules(p.buf)) {
		strbuf_release(&p);
		return 0;
	}
	r = make_step(b, "modules", BUILD_TIMEOUT_MS, 1, err);
	if (r)
		goto out;
	strbuf_addf(&root, "%s/modroot", b->tmp.buf);
	push_make(b, &cp, "modules_install");
	strvec_pushf(&cp.args, "INSTALL_MOD_PATH=%s", root.buf);
	strvec_push(&cp.args, "INSTALL_MOD_STRIP=1");
	r = run_logged(b, &cp, STEP_TIMEOUT_MS, 0, NULL, err);
	child_process_clear(&cp);
	if (r > 0) {
		show_errors(b->log.buf);
		strbuf_addf(err, "'make modules_install' of kernel %s failed; full log: %s", b->key,
			    b->log.buf);
		r = KBUILD_BAD_INPUT;
	}
	if (r)
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/include/config/kernel.release", b->obj.buf);
	release = read_file(p.buf, NULL);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/lib/modules/%s/modules.dep", root.buf,
		    release ? strtok(release, "\n") : "");
	if (!release || !is_file(p.buf)) {
		strbuf_addf(err, "modules_install left no '%s' (depmod is kmod's)", p.buf);
		r = -1;
		goto out;
	}
	/* the entry holds lib/modules/<release>, as a Debian entry does */
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/lib", root.buf);
	dst = xasprintf("%s/lib", b->tmp.buf);
	if (rename(p.buf, dst) < 0) {
		strbuf_addf(err, "cannot move '%s' to '%s': %s", p.buf, dst, strerror(errno));
		r = -1;
	}
out:
	if (root.len)
		remove_tree(root.buf);
	free(release);
	free(dst);
	strbuf_release(&p);
	strbuf_release(&root);
	return r;
}

/*
 * Resolves fragment names (kernel-configs/NAME) or paths: lab-base first,
 * the arch's fragment right after it (both added when not named).
 */
static int find_fragments(struct build *b, struct strbuf *err)
{
	struct strvec want = STRVEC_INIT;
	int has_base = 0, has_arch = 0, ret = 0;

	for (size_t i = 0; i < b->opts->configs.nr; i++) {
		if (!strcmp(b->opts->configs.v[i], "lab-base"))
			has_base = 1;
		if (!strcmp(b->opts->configs.v[i], b->arch->fragment))
			has_arch = 1;
	}
	if (!has_base) {
		strvec_push(&want, "lab-base");
		if (!has_arch)
			strvec_push(&want, b->arch->fragment);
	}
	for (size_t i = 0; i < b->opts->configs.nr; i++) {
		strvec_push(&want, b->opts->configs.v[i]);
		if (has_base && !has_arch && !strcmp(b->opts->configs.v[i], "lab-base"))
			strvec_push(&want, b->arch->fragment);
	}

	for (size_t i = 0; i < want.nr && !ret; i++) {
		const char *c = want.v[i];
		struct strbuf path = STRBUF_INIT;
		char *text;

		if (strncmp(c, "arch/", 5) && (strchr(c, '/') || is_file(c)))
			strbuf_addstr(&path, c);
		else
			strbuf_addf(&path, "%s/kernel-configs/%s", lab_root(), c);
		text = read_file(path.buf, NULL);
		if (!text) {
			if (strchr(c, '/'))
				strbuf_addf(err, "cannot read config fragment '%s': %s", c,
					    strerror(errno));
			else
				strbuf_addf(err, "no config fragment '%s' in %s/kernel-configs/",
					    c, lab_root());
			ret = KBUILD_BAD_INPUT;
		} else if (kconfig_frags_add(&b->cfg, text, c, err) < 0) {
			ret = KBUILD_BAD_INPUT;
		} else {
			strvec_push(&b->frag_paths, path.buf);
			strvec_push(&b->frag_names, c);
		}
		free(text);
		strbuf_release(&path);
	}
	strvec_clear(&want);
	if (!ret)
		kconfig_frags_canonical(&b->cfg, &b->in.config);
	return ret;
}

static int hash_patches(struct build *b, struct strbuf *err)
{
	for (size_t i = 0; i < b->opts->patches.nr; i++) {
		char hex[65];

		if (!is_file(b->opts->patches.v[i])) {
			strbuf_addf(err, "patch '%s' does not exist", b->opts->patches.v[i]);
			return KBUILD_BAD_INPUT;
		}
		if (kbuild_sha256_file(b->opts->patches.v[i], hex, err) < 0)
			return KBUILD_BAD_INPUT;
		strvec_push(&b->in.patches, hex);
	}
	return 0;
}

int kbuild_git(const char *dir, const char *const *args, struct strbuf *out, struct strbuf *errout)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int r;

	strvec_pushl(&cp.args, "git", "--no-optional-locks", "-C", dir, NULL);
	for (; *args; args++)
		strvec_push(&cp.args, *args);
	/* the caller's repository, whatever the environment points git at */
	strvec_pushl(&cp.env, "GIT_DIR", "GIT_WORK_TREE", NULL);
	cp.in = CHILD_DEVNULL;
	r = child_capture(&cp, GIT_TIMEOUT_MS, out, errout);
	child_process_clear(&cp);
	return r;
}

static int capture_git(const char *dir, struct strbuf *out, struct strbuf *err,
		       const char *const *args)
{
	struct strbuf errout = STRBUF_INIT;
	int r = kbuild_git(dir, args, out, &errout);

	if (r != 0) {
		char *nl;

		while (errout.len && errout.buf[errout.len - 1] == '\n')
			errout.buf[--errout.len] = '\0';
		nl = strrchr(errout.buf, '\n');
		strbuf_addf(err, "git %s in '%s' %s: %s", args[0], dir,
			    r == -1 ? "cannot run" : "failed", nl ? nl + 1 : errout.buf);
	}
	strbuf_release(&errout);
	return r == 0 ? 0 : -1;
}

/*
 * A commit of a git tree (opts.rev, else HEAD) as the source: its work tree
 * is not looked at, so it need not be a kernel tree at HEAD; the commit's
 * own tree is checked once it is checked out.
 */
static int identify_rev(struct build *b, struct strbuf *err)
{
	struct strbuf commit = STRBUF_INIT, spec = STRBUF_INIT;
	const char *args[] = { "rev-parse", "--verify", "-q", NULL, NULL };
	int ret = KBUILD_BAD_INPUT;

	b->kind = KBUILD_SOURCE_GIT;
	strbuf_addf(&spec, "%s^{commit}", b->opts->rev ? b->opts->rev : "HEAD");
	args[3] = spec.buf;
	if (capture_git(b->ksrc, &commit, err, args) < 0) {
		strbuf_reset(err);
		strbuf_addf(err, "unknown revision '%s' in '%s'", b->opts->rev ? b->opts->rev : "HEAD",
			    b->opts->ksrc);
		goto out;
	}
	while (commit.len && isspace((unsigned char)commit.buf[commit.len - 1]))
		commit.buf[--commit.len] = '\0';
	if (commit.len != 40) {
		strbuf_addf(err, "git rev-parse gave '%s' for '%s'", commit.buf, spec.buf);
		goto out;
	}
	memcpy(b->rev, commit.buf, 41);
	strbuf_addf(&b->in.source, "git %s", commit.buf);
	ret = 0;
out:
	strbuf_release(&commit);
	strbuf_release(&spec);
	return ret;
}

/* The source's identity for the key; also checks it is a kernel tree. */
static int identify_source(struct build *b, struct strbuf *err)
{
	const char *ksrc = b->opts->ksrc;
	struct strbuf p = STRBUF_INIT;
	char hex[65];
	int ret = KBUILD_BAD_INPUT;

	if (!ksrc || !*ksrc) {
		strbuf_addstr(err, "no kernel source given (--ksrc DIR or TARBALL)");
		return KBUILD_BAD_INPUT;
	}
	b->ksrc = realpath(ksrc, NULL);
	if (!b->ksrc) {
		strbuf_addf(err, "kernel source '%s' does not exist", ksrc);
		return KBUILD_BAD_INPUT;
	}
	if ((b->opts->rev || b->opts->incremental) && !is_dir(b->ksrc)) {
		strbuf_addf(err, "'%s' is not a git tree (--rev and incremental builds need one)", ksrc);
		goto out;
	}
	if (is_file(b->ksrc)) {
		if (!is_tarball_name(b->ksrc)) {
			strbuf_addf(err, "'%s' is not a kernel tree (a file, and not a .tar[.xz|.gz|"
				    ".bz2|.zst] tarball)", ksrc);
			goto out;
		}
		b->kind = KBUILD_SOURCE_TARBALL;
		if (kbuild_sha256_file(b->ksrc, hex, err) < 0)
			goto out;
		strbuf_addf(&b->in.source, "tarball %s", hex);
		ret = 0;
		goto out;
	}
	strbuf_addf(&p, "%s/.git", b->ksrc);
	if (b->opts->rev || b->opts->incremental) {
		if (!exists(p.buf)) {
			strbuf_addf(err, "'%s' is not a git tree (--rev and incremental builds need one)",
				    ksrc);
			goto out;
		}
		ret = identify_rev(b, err);
		goto out;
	}
	if (kbuild_check_tree(b->ksrc, err) < 0)
		goto out;
	if (exists(p.buf)) {
		static const char *const head[] = { "rev-parse", "--verify", "-q", "HEAD^{commit}", NULL };
		static const char *const diff[] = { "diff", "HEAD", "--binary", "--no-color",
			"--no-ext-diff", "--no-renames", NULL };
		struct strbuf commit = STRBUF_INIT;

		b->kind = KBUILD_SOURCE_GIT;
		if (capture_git(b->ksrc, &commit, err, head) < 0 ||
		    capture_git(b->ksrc, &b->git_diff, err, diff) < 0) {
			strbuf_release(&commit);
			goto out;
		}
		while (commit.len && isspace((unsigned char)commit.buf[commit.len - 1]))
			commit.buf[--commit.len] = '\0';
		strbuf_addf(&b->in.source, "git %s", commit.buf);
		if (b->git_diff.len) {
			kbuild_sha256_hex(b->git_diff.buf, b->git_diff.len, hex);
			strbuf_addf(&b->in.source, " dirty %s", hex);
		}
		strbuf_release(&commit);
		ret = 0;
		goto out;
	}
	b->kind = KBUILD_SOURCE_TREE;
	/* kbuild refuses O= builds from a tree configured in place; say so now. */
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/.config", b->ksrc);
	if (exists(p.buf)) {
		strbuf_addf(err, "kernel tree '%s' was configured in place (it has a .config): "
			    "run 'make mrproper' there, or give a clean tree", ksrc);
		goto out;
	}
	if (kbuild_tree_hash(b->ksrc, hex, err) < 0)
		goto out;
	strbuf_addf(&b->in.source, "tree %s", hex);
	ret = 0;
out:
	strbuf_release(&p);
	return ret;
}

/* What kbuild needs besides a compiler, checked before the first step so a
 * missing package is named rather than found in a failed make. */
static int check_tools(const struct kbuild_arch *a, struct strbuf *err)
{
	static const char *const tools[] = {
		"make", "gcc", "ld", "flex", "bison", "bc", "perl", "patch", "tar", "xz", "cp",
	};
	struct strbuf missing = STRBUF_INIT, p = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(tools); i++)
		if (!in_path(tools[i]))
			strbuf_addf(&missing, " %s", tools[i]);
	/* a cross build: the cross compiler and binutils (gcc-<triplet> pulls both) */
	strbuf_addf(&p, "%sld", a->cross_compile);
	if (*a->cross_compile && (!in_path(a->cc) || !in_path(p.buf))) {
		strbuf_addf(err, "no cross compiler for %s: '%s' is not installed (on Debian: "
			    "apt-get install gcc-%.*s)", topo_arch_info(a->arch)->name, a->cc,
			    (int)strlen(a->cross_compile) - 1, a->cross_compile);
		strbuf_release(&missing);
		strbuf_release(&p);
		return KBUILD_BAD_INPUT;
	}
	strbuf_release(&p);
	/* objtool (x86-64 builds run it) needs libelf's headers. */
	if (!is_file("/usr/include/gelf.h") && !is_file("/usr/local/include/gelf.h"))
		strbuf_addstr(&missing, " libelf-dev");
	if (missing.len) {
		strbuf_addf(err, "missing kernel build tools:%s (on Debian: apt-get install "
			    "make gcc binutils flex bison bc perl patch tar xz-utils libelf-dev)",
			    missing.buf);
		strbuf_release(&missing);
		return -1;
	}
	strbuf_release(&missing);
	return 0;
}

static int compiler_version(struct build *b, struct strbuf *err)
{
	const char *argv[] = { b->arch->cc, "--version", NULL };
	struct strbuf out = STRBUF_INIT;
	int r = run_command_capture(argv, GIT_TIMEOUT_MS, &out, NULL);

	if (r != 0 && *b->arch->cross_compile) {
		strbuf_release(&out);
		strbuf_addf(err, "cannot run '%s --version': no cross compiler for %s (on Debian: "
			    "apt-get install gcc-%.*s)", b->arch->cc, topo_arch_info(b->arch->arch)->name,
			    (int)strlen(b->arch->cross_compile) - 1, b->arch->cross_compile);
		return KBUILD_BAD_INPUT;
	}
	if (r != 0) {
		strbuf_release(&out);
		strbuf_addstr(err, "cannot run 'gcc --version': is gcc installed?");
		return -1;
	}
	strbuf_add(&b->in.compiler, out.buf, strcspn(out.buf, "\n"));
	strbuf_release(&out);
	return 0;
}

static int fill_result(struct build *b, const char *dir)
{
	struct kbuild_result *r = b->res;
	struct strbuf p = STRBUF_INIT;

	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	r->arch = b->arch->arch;
	snprintf(r->image, sizeof(r->image), "%s/%s", dir, b->arch->image);
	if (b->arch->arch == TOPO_ARCH_X86_64)
		snprintf(r->bzimage, sizeof(r->bzimage), "%s/bzImage", dir);
	snprintf(r->config, sizeof(r->config), "%s/config", dir);
	snprintf(r->log, sizeof(r->log), "%s/build.log", dir);
	strbuf_addf(&p, "%s/vmlinux", dir);
	snprintf(r->vmlinux, sizeof(r->vmlinux), "%s", is_file(p.buf) ? p.buf : "");
	strbuf_release(&p);
	return 0;
}

/* A hard-linked copy of from at to (cp -al), or a real copy across filesystems. */
static int link_copy(struct build *b, const char *from, const char *to, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	int r;

	strvec_pushl(&cp.args, "cp", "-al", from, to, NULL);
	r = run_logged(b, &cp, STEP_TIMEOUT_MS, 0, NULL, err);
	child_process_clear(&cp);
	if (r == 0)
		return 0;
	remove_tree(to);
	child_process_init(&cp);
	strvec_pushl(&cp.args, "cp", "-a", from, to, NULL);
	r = run_logged(b, &cp, STEP_TIMEOUT_MS, 0, NULL, err);
	child_process_clear(&cp);
	if (r != 0 && r != -1)
		strbuf_addf(err, "cannot copy '%s' to '%s' (see %s)", from, to, b->log.buf);
	return r == 0 ? 0 : -1;
}

/* The single top-level directory a tarball unpacked into, or NULL. */
static char *single_top_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *top = NULL;
	int n = 0;

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n++ == 0)
			top = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n != 1 || !is_dir(top)) {
		free(top);
		return NULL;
	}
	return top;
}

/*
 * Unpacks a tarball once into <cache>/kernels/src/<sha>/ (via a temporary
 * directory and rename) and sets pristine to the kernel tree inside.  The
 * unpacked tree is ours and never written after that: builds read it with
 * O=, patches go to hard-linked copies of it.
 */
static int unpack_tarball(struct build *b, struct strbuf *pristine, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, tmp = STRBUF_INIT, out = STRBUF_INIT;
	struct child_process cp = CHILD_PROCESS_INIT;
	const char *sha = b->in.source.buf + strlen("tarball ");
	char *top = NULL;
	int r, ret = -1;

	strbuf_addf(&dir, "%s/kernels/src/%.*s", cache_dir(), KBUILD_KEY_LEN, sha);
	top = single_top_dir(dir.buf);
	if (top && kbuild_check_tree(top, err) == 0)
		goto done;
	free(top);
	top = NULL;
	strbuf_reset(err);
	remove_tree(dir.buf);
	strbuf_addf(&tmp, "%s.tmp.%d", dir.buf, (int)getpid());
	remove_tree(tmp.buf);
	if (mkdir_p(tmp.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", tmp.buf, strerror(errno));
		goto out;
	}
	if (b->opts->progress)
		fprintf(stderr, "unpacking %s\n", b->ksrc);
	strvec_pushl(&cp.args, "tar", "-xf", b->ksrc, "-C", tmp.buf, NULL);
	r = run_logged(b, &cp, STEP_TIMEOUT_MS, 0, &out, err);
	if (r != 0) {
		if (r != -1) {
			/* tar's first complaint says what is wrong with the file */
			const char *why = out.len ? out.buf : "tar failed";

			strbuf_addf(err, "'%s' is not a kernel tree (tar cannot unpack it: %.*s)",
				    b->opts->ksrc, (int)strcspn(why, "\n"), why);
		}
		ret = r == -1 ? -1 : KBUILD_BAD_INPUT;
		goto out;
	}
	top = single_top_dir(tmp.buf);
	if (!top) {
		strbuf_addf(err, "'%s' is not a kernel tree (no single top-level directory in it)",
			    b->opts->ksrc);
		ret = KBUILD_BAD_INPUT;
		goto out;
	}
	if (kbuild_check_tree(top, err) < 0) {
		strbuf_reset(err);
		strbuf_addf(err, "'%s' is not a kernel tree (unpacked, it has no top-level "
			    "Makefile with VERSION, merge_config.sh and arch/x86)", b->opts->ksrc);
		ret = KBUILD_BAD_INPUT;
		goto out;
	}
	if (rename(tmp.buf, dir.buf) < 0 && !is_dir(dir.buf)) {
		strbuf_addf(err, "cannot rename '%s': %s", tmp.buf, strerror(errno));
		goto out;
	}
	free(top);
	top = single_top_dir(dir.buf);
	if (!top) {
		strbuf_addf(err, "'%s' changed while unpacking", dir.buf);
		goto out;
	}
done:
	strbuf_addstr(pristine, top);
	ret = 0;
out:
	remove_tree(tmp.buf);
	child_process_clear(&cp);
	free(top);
	strbuf_release(&dir);
	strbuf_release(&tmp);
	strbuf_release(&out);
	return ret;
}

/* Copies one file's bytes (hard links cannot cross filesystems). */
static int copy_bytes(const char *from, const char *to, mode_t mode)
{
	size_t len;
	char *data = read_file(from, &len);
	int fd, ok;

	if (!data)
		return -1;
	fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777);
	ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
	if (fd >= 0 && close(fd) < 0)
		ok = 0;
	free(data);
	return ok ? 0 : -1;
}

/*
 * The tracked files of a git tree, hard-linked into to: exactly HEAD plus the
 * uncommitted changes the key already hashes, without .git, untracked files
 * or in-tree build outputs, and without copying a byte (patch(1) and kbuild's
 * O= builds never write through the links).  A file git lists but the work
 * tree lacks is a deletion, already part of `git diff HEAD`.
 */
static int link_git_tree(struct build *b, const char *to, struct strbuf *err)
{
	static const char *const ls[] = { "ls-files", "-z", "--cached", NULL };
	struct strbuf list = STRBUF_INIT, from = STRBUF_INIT, dst = STRBUF_INIT;
	struct strbuf lastdir = STRBUF_INIT;
	size_t n = 0, copied = 0;
	int ret = -1;

	log_printf(b, "\n$ git -C %s ls-files -z | hard links into %s\n", b->ksrc, to);
	if (capture_git(b->ksrc, &list, err, ls) < 0)
		goto out;
	for (const char *f = list.buf; f < list.buf + list.len; f += strlen(f) + 1) {
		const char *slash = strrchr(f, '/');
		struct stat st;

		strbuf_reset(&from);
		strbuf_addf(&from, "%s/%s", b->ksrc, f);
		if (lstat(from.buf, &st) < 0 || S_ISDIR(st.st_mode))
			continue; /* deleted in the work tree, or a submodule */
		strbuf_reset(&dst);
		strbuf_addf(&dst, "%s/%.*s", to, slash ? (int)(slash - f) : 0, f);
		if (strcmp(dst.buf, lastdir.buf)) {
			if (mkdir_p(dst.buf, 0755) < 0) {
				strbuf_addf(err, "cannot create '%s': %s", dst.buf, strerror(errno));
				goto out;
			}
			strbuf_reset(&lastdir);
			strbuf_addstr(&lastdir, dst.buf);
		}
		strbuf_reset(&dst);
		strbuf_addf(&dst, "%s/%s", to, f);
		if (link(from.buf, dst.buf) == 0) {
			n++;
			continue;
		}
		if (errno != EXDEV && errno != EPERM) {
			strbuf_addf(err, "cannot link '%s' to '%s': %s", from.buf, dst.buf,
				    strerror(errno));
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t tl = readlink(from.buf, target, sizeof(target) - 1);

			if (tl < 0 || (target[tl] = '\0', symlink(target, dst.buf) < 0)) {
				strbuf_addf(err, "cannot copy symlink '%s': %s", from.buf, strerror(errno));
				goto out;
			}
		} else if (copy_bytes(from.buf, dst.buf, st.st_mode) < 0) {
			strbuf_addf(err, "cannot copy '%s' to '%s': %s", from.buf, dst.buf,
				    strerror(errno));
			goto out;
		}
		copied++;
	}
	log_printf(b, "%zu files linked, %zu copied\n", n, copied);
	ret = 0;
out:
	strbuf_release(&list);
	strbuf_release(&from);
	strbuf_release(&dst);
	strbuf_release(&lastdir);
	return ret;
}

/*
 * Explains why patch(1) failed, from its output: the hunks that failed and
 * their files, a missing file, a reversed patch, or garbage.
 */
static void explain_patch(const char *name, const char *out, struct strbuf *err)
{
	struct strbuf file = STRBUF_INIT, what = STRBUF_INIT;
	unsigned failed = 0;

	for (const char *l = out; l && *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		unsigned hunk, at;

		if (!strncmp(l, "patching file ", 14)) {
			strbuf_reset(&file);
			strbuf_add(&file, l + 14, len - 14);
		} else if (sscanf(l, "Hunk #%u FAILED at %u", &hunk, &at) == 2) {
			if (!failed++)
				strbuf_addf(&what, "hunk #%u of %s FAILED at line %u", hunk,
					    file.buf, at);
		} else if (!strncmp(l, "can't find file to patch", 24) && !what.len) {
			strbuf_addf(&what, "%.*s", (int)len, l);
			failed++;
		} else if (strstr(l, "Reversed (or previously applied) patch detected") && !what.len) {
			strbuf_addf(&what, "%s: reversed or already applied", file.len ? file.buf : "?");
			failed++;
		} else if ((strstr(l, "malformed patch") || strstr(l, "Only garbage")) && !what.len) {
			strbuf_addf(&what, "%.*s", (int)len, l);
			failed++;
		}
		l = nl ? nl + 1 : NULL;
	}
	strbuf_addf(err, "patch '%s' does not apply: %s", name,
		    what.len ? what.buf : "patch(1) failed");
	if (failed > 1)
		strbuf_addf(err, " (and %u more)", failed - 1);
	strbuf_release(&file);
	strbuf_release(&what);
}

static int apply_patch(struct build *b, const char *path, const char *name, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	int r;

	/* patch(1) writes a new file and renames it over the old one, so a
	 * hard-linked original is never written through. */
	strvec_pushl(&cp.args, "patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
		     "--reject-file=-", "-d", b->src.buf, "-i", path, NULL);
	r = run_logged(b, &cp, STEP_TIMEOUT_MS, 0, &out, err);
	child_process_clear(&cp);
	if (r > 0 || r == CHILD_TIMED_OUT) {
		explain_patch(name, out.buf, err);
		r = KBUILD_BAD_INPUT;
	}
	strbuf_release(&out);
	return r;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Copies a file's bytes to dst (inputs are copied so what was hashed is what is used). */
static int copy_file(const char *src, const char *dst, struct strbuf *err)
{
	size_t len;
	char *data = read_file(src, &len);
	int r;

	if (!data) {
		strbuf_addf(err, "cannot read '%s': %s", src, strerror(errno));
		return -1;
	}
	r = write_file_atomic(dst, data, len);
	free(data);
	if (r < 0)
		strbuf_addf(err, "cannot write '%s': %s", dst, strerror(errno));
	return r;
}

/* Copies the patches into the build directory and applies them to b->src. */
static int apply_patches(struct build *b, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = 0;

	for (size_t i = 0; i < b->opts->patches.nr && !r; i++) {
		const char *name = base_name(b->opts->patches.v[i]);

		strbuf_reset(&p);
		strbuf_addf(&p, "%s/patches/%04zu-%s", b->tmp.buf, i + 1, name);
		if (copy_file(b->opts->patches.v[i], p.buf, err) < 0)
			r = -1;
		else
			r = apply_patch(b, p.buf, b->opts->patches.v[i], err);
	}
	strbuf_release(&p);
	return r;
}

/* Sets b->src: the user's tree, the unpacked tarball, or a private copy. */
static int prepare_source(struct build *b, struct strbuf *err)
{
	struct strbuf pristine = STRBUF_INIT;
	int need_copy = b->opts->patches.nr > 0, r;

	strbuf_addf(&b->src, "%s/src", b->tmp.buf);
	switch (b->kind) {
	case KBUILD_SOURCE_TARBALL:
		r = unpack_tarball(b, &pristine, err);
		if (r)
			goto out;
		break;
	case KBUILD_SOURCE_GIT:
		r = link_git_tree(b, b->src.buf, err);
		if (r)
			goto out;
		need_copy = 0;
		break;
	default:
		strbuf_addstr(&pristine, b->ksrc);
		break;
	}
	if (pristine.len && !need_copy) {
		/* Nothing will change the tree: make -C it directly, copy nothing. */
		strbuf_reset(&b->src);
		strbuf_addstr(&b->src, pristine.buf);
	} else if (pristine.len) {
		r = link_copy(b, pristine.buf, b->src.buf, err);
		if (r)
			goto out;
	}
	r = apply_patches(b, err);
out:
	strbuf_release(&pristine);
	return r;
}

/* git in dir, its output into the build log. */
static int run_git(struct build *b, const char *dir, struct strbuf *err, ...)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *a;
	va_list ap;
	int r;

	strvec_pushl(&cp.args, "git", "-C", dir, NULL);
	va_start(ap, err);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&cp.args, a);
	va_end(ap);
	r = run_logged(b, &cp, STEP_TIMEOUT_MS, 0, &out, err);
	if (r != 0 && r != -1)
		strbuf_addf(err, "git %s in '%s' failed: %.*s", cp.args.v[3], dir,
			    (int)strcspn(out.buf, "\n"), out.buf);
	child_process_clear(&cp);
	strbuf_release(&out);
	return r == 0 ? 0 : -1;
}

/* Waits for (and takes) the lock of the work directory. */
static int lock_work(struct build *b, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;

	strbuf_addf(&p, "%s.lock", b->work.buf);
	b->worklockfd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (b->worklockfd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", p.buf, strerror(errno));
		strbuf_release(&p);
		return -1;
	}
	strbuf_release(&p);
	if (flock(b->worklockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	info("another lab builds in %s; waiting for it", b->work.buf);
	if (flock(b->worklockfd, LOCK_EX) < 0) {
		strbuf_addf(err, "cannot lock '%s': %s", b->work.buf, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Incremental: the work directory's clone checked out at the commit (a
 * checkout rewrites only the files that differ, so make rebuilds what the
 * commit changed), the patches applied, and the kept object tree.
 */
static int prepare_work(struct build *b, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, p = STRBUF_INIT;
	char hex[65];
	int r = -1;

	/* one directory per tree, patches, fragments and compiler */
	strbuf_addf(&text, "work %s\n", b->ksrc);
	for (size_t i = 0; i < b->in.patches.nr; i++)
		strbuf_addf(&text, "patch %s\n", b->in.patches.v[i]);
	strbuf_addf(&text, "compiler %s\nconfig\n%s", b->in.compiler.buf, b->in.config.buf);
	kbuild_sha256_hex(text.buf, text.len, hex);
	strbuf_addf(&b->work, "%s/kernels/work/%.*s", cache_dir(), KBUILD_KEY_LEN, hex);
	if (mkdir_p(b->work.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", b->work.buf, strerror(errno));
		goto out;
	}
	if (lock_work(b, err) < 0)
		goto out;
	strbuf_addf(&p, "%s/ksrc", b->work.buf);
	write_file_atomic(p.buf, text.buf, text.len);
	strbuf_reset(&b->src);
	strbuf_addf(&b->src, "%s/src", b->work.buf);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/.git", b->src.buf);
	if (!exists(p.buf)) {
		remove_tree(b->src.buf);
		if (b->opts->progress)
			fprintf(stderr, "cloning %s (shared) into %s\n", b->ksrc, b->src.buf);
		/* --shared: the objects stay the user's, read through alternates */
		if (run_git(b, b->work.buf, err, "clone", "-q", "--shared", "--no-checkout",
			    b->ksrc, b->src.buf, NULL) < 0)
			goto out;
	}
	if (run_git(b, b->src.buf, err, "checkout", "-q", "-f", "--detach", b->rev, NULL) < 0 ||
	    run_git(b, b->src.buf, err, "clean", "-q", "-f", "-d", "-x", NULL) < 0)
		goto out;
	if (kbuild_check_tree(b->src.buf, err) < 0) {
		r = KBUILD_BAD_INPUT;
		goto out;
	}
	strbuf_addf(&b->obj, "%s/obj", b->work.buf);
	if (mkdir_p(b->obj.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", b->obj.buf, strerror(errno));
		goto out;
	}
	r = apply_patches(b, err);
out:
	strbuf_release(&text);
	strbuf_release(&p);
	return r;
}

const char *kbuild_ccache_dir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0])
		snprintf(dir, sizeof(dir), "%s/ccache", cache_dir());
	return dir;
}

/* "6.12" from the tree's Makefile (VERSION, PATCHLEVEL); "" when absent. */
static void tree_series(const char *src, char *out, size_t size)
{
	char *path = xasprintf("%s/Makefile", src), *mk = read_file(path, NULL);
	long v[2] = { -1, -1 };
	const char *names[2] = { "VERSION", "PATCHLEVEL" };

	out[0] = '\0';
	for (const char *l = mk; l && *l; ) {
		for (int i = 0; i < 2; i++) {
			size_t n = strlen(names[i]);

			if (v[i] < 0 && !strncmp(l, names[i], n) && (l[n] == ' ' || l[n] == '=')) {
				const char *eq = strchr(l, '=');

				if (eq)
					v[i] = strtol(eq + 1, NULL, 10);
			}
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	if (v[0] >= 0 && v[1] >= 0 && v[0] < 1000 && v[1] < 1000)
		snprintf(out, size, "%d.%d", (int)v[0], (int)v[1]);
	free(mk);
	free(path);
}

/*
 * The lab's fragments ask for 6.1's options; a tree of a generation that
 * dropped or replaced one (kgen.h config_changes) gets the request
 * rewritten, one line each: a dropped option is left out, a replaced one
 * asked for by its new name in a last fragment the merge applies.
 */
static int generation_rewrite(struct build *b, struct strbuf *frag, struct strbuf *err)
{
	char series[16];
	size_t kept = 0;

	tree_series(b->src.buf, series, sizeof(series));
	for (size_t i = 0; i < b->cfg.nr; i++) {
		struct kconfig_option *o = &b->cfg.opt[i];
		const struct kernel_gen *g = NULL;
		const struct kgen_config_change *c = kgen_config_change(series, o->name, &g);
		char *line;

		if (!c) {
			b->cfg.opt[kept++] = *o;
			continue;
		}
		if (c->replacement) {
			line = xasprintf("CONFIG_%s=%s (%s line %u) is CONFIG_%s=%s from Linux %s on (%s): "
					 "asked for instead", o->name, o->value, o->origin, o->line,
					 c->replacement, o->value, g->name, c->why);
			strbuf_addf(frag, "# CONFIG_%s is not set\nCONFIG_%s=%s\n", o->name,
				    c->replacement, o->value);
			free(o->name);
			o->name = xstrdup(c->replacement);
			b->cfg.opt[kept++] = *o;
		} else {
			line = xasprintf("CONFIG_%s=%s (%s line %u) is not an option from Linux %s on (%s): "
					 "left out", o->name, o->value, o->origin, o->line, g->name, c->why);
			free(o->name);
			free(o->value);
			free(o->origin);
		}
		strvec_push(&b->left_out, line);
		free(line);
	}
	b->cfg.nr = kept;
	b->nr_gen_rewrites = b->left_out.nr;
	(void)err;
	return 0;
}

static int configure(struct build *b, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strvec problems = STRVEC_INIT;
	struct strbuf p = STRBUF_INIT, dotconfig_path = STRBUF_INIT, gen_frag = STRBUF_INIT;
	char *dotconfig = NULL;
	int r;

	strbuf_addf(&p, "%s/arch/%s/Kconfig", b->src.buf, b->arch->srcarch);
	if (!is_file(p.buf)) {
		strbuf_addf(err, "'%s' has no arch/%s/Kconfig: it cannot build a kernel for %s",
			    b->opts->ksrc, b->arch->srcarch, topo_arch_info(b->arch->arch)->name);
		r = KBUILD_BAD_INPUT;
		goto out;
	}
	strbuf_reset(&p);
	if (b->opts->progress)
		fprintf(stderr, "configuring for %s: tinyconfig + %zu fragment%s\n",
			topo_arch_info(b->arch->arch)->name, b->frag_paths.nr,
			b->frag_paths.nr == 1 ? "" : "s");
	r = make_step(b, "tinyconfig", STEP_TIMEOUT_MS, 0, err);
	if (r)
		goto out;
	strbuf_addf(&dotconfig_path, "%s/.config", b->obj.buf);
	/* The tree's own merge script, as the issue asks; -m: merge only. */
	strbuf_addf(&p, "%s/scripts/kconfig/merge_config.sh", b->src.buf);
	strvec_pushl(&cp.args, "sh", p.buf, "-m", "-O", b->obj.buf, dotconfig_path.buf, NULL);
	for (size_t i = 0; i < b->frag_paths.nr; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/configs/%02zu-%s", b->tmp.buf, i + 1,
			    base_name(b->frag_names.v[i]));
		if (copy_file(b->frag_paths.v[i], p.buf, err) < 0) {
			r = -1;
			goto out;
		}
		strvec_push(&cp.args, p.buf);
	}
	generation_rewrite(b, &gen_frag, err);
	if (gen_frag.len) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/configs/99-generation", b->tmp.buf);
		if (write_file_atomic_err(p.buf, gen_frag.buf, gen_frag.len, err) < 0) {
			r = -1;
			goto out;
		}
		strvec_push(&cp.args, p.buf);
	}
	/* merge_config.sh makes its temporary files in the current directory. */
	cp.dir = b->obj.buf;
	r = run_logged(b, &cp, STEP_TIMEOUT_MS, 0, NULL, err);
	if (r) {
		if (r != -1)
			strbuf_addf(err, "merge_config.sh failed (see %s)", b->log.buf);
		r = r == -1 ? -1 : KBUILD_BAD_INPUT;
		goto out;
	}
	r = make_step(b, "olddefconfig", STEP_TIMEOUT_MS, 0, err);
	if (r)
		goto out;
	dotconfig = read_file(dotconfig_path.buf, NULL);
	if (!dotconfig) {
		strbuf_addf(err, "no .config after olddefconfig in '%s'", b->obj.buf);
		r = -1;
		goto out;
	}
	kconfig_check_arch(&b->cfg, dotconfig, b->src.buf, b->arch->srcarch, &problems,
			   &b->left_out);
	/* "where the options exist on that arch": said, not failed */
	for (size_t i = 0; i < b->left_out.nr; i++) {
		log_printf(b, "lab: %s\n", b->left_out.v[i]);
		info("%s", b->left_out.v[i]);
	}
	if (problems.nr) {
		for (size_t i = 0; i < problems.nr; i++) {
			log_printf(b, "lab: %s\n", problems.v[i]);
			if (problems.nr > 1)
				error("%s", problems.v[i]);
		}
		if (problems.nr == 1)
			strbuf_addstr(err, problems.v[0]);
		else
			strbuf_addf(err, "%zu requested options did not survive olddefconfig "
				    "(listed above)", problems.nr);
		r = KBUILD_BAD_INPUT;
		goto out;
	}
	r = 0;
out:
	child_process_clear(&cp);
	strvec_clear(&problems);
	strbuf_release(&p);
	strbuf_release(&dotconfig_path);
	strbuf_release(&gen_frag);
	free(dotconfig);
	return r;
}

static void write_info(struct build *b, const char *release, double build_s)
{
	struct json_object *o = json_object_new_object(), *a;
	struct strbuf p = STRBUF_INIT, text = STRBUF_INIT;
	const char *s;

	json_object_object_add(o, "key", json_object_new_string(b->key));
	json_object_object_add(o, "arch", json_object_new_string(topo_arch_info(b->arch->arch)->name));
	json_object_object_add(o, "image", json_object_new_string(b->arch->image));
	json_object_object_add(o, "release", json_object_new_string(release));
	json_object_object_add(o, "source_kind", json_object_new_string(kbuild_source_kind_name(b->kind)));
	json_object_object_add(o, "ksrc", json_object_new_string(b->ksrc));
	json_object_object_add(o, "source", json_object_new_string(b->in.source.buf));
	a = json_object_new_array();
	for (size_t i = 0; i < b->opts->patches.nr; i++) {
		struct json_object *pt = json_object_new_object();

		json_object_object_add(pt, "file", json_object_new_string(b->opts->patches.v[i]));
		json_object_object_add(pt, "sha256", json_object_new_string(b->in.patches.v[i]));
		json_object_array_add(a, pt);
	}
	json_object_object_add(o, "patches", a);
	a = json_object_new_array();
	for (size_t i = 0; i < b->frag_names.nr; i++)
		json_object_array_add(a, json_object_new_string(b->frag_names.v[i]));
	json_object_object_add(o, "configs", a);
	a = json_object_new_array();
	for (size_t i = 0; i < b->left_out.nr; i++)
		json_object_array_add(a, json_object_new_string(b->left_out.v[i]));
	json_object_object_add(o, "left_out", a);
	json_object_object_add(o, "compiler", json_object_new_string(b->in.compiler.buf));
	json_object_object_add(o, "build_seconds", json_object_new_double(build_s));
	json_object_object_add(o, "built_at", json_object_new_int64((int64_t)time(NULL)));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	kbuild_key_text(&b->in, &text);
	strbuf_addf(&p, "%s/key-inputs.txt", b->tmp.buf);
	write_file_atomic(p.buf, text.buf, text.len);
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/info.json", b->tmp.buf);
	write_file_atomic(p.buf, s, strlen(s));
	json_object_put(o);
	strbuf_release(&p);
	strbuf_release(&text);
}

/* Moves (copies, for a kept object tree) one product into the cache entry. */
static int keep_product(struct build *b, const char *from_rel, const char *to_name,
			int required, struct strbuf *err)
{
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	int r;

	strbuf_addf(&from, "%s/%s", b->obj.buf, from_rel);
	strbuf_addf(&to, "%s/%s", b->tmp.buf, to_name);
	/* the kept object tree keeps its products: make would redo them */
	r = b->opts->incremental ? copy_bytes(from.buf, to.buf, 0644) : rename(from.buf, to.buf);
	if (r < 0 && required)
		strbuf_addf(err, "the build left no '%s': %s", from.buf, strerror(errno));
	strbuf_release(&from);
	strbuf_release(&to);
	return r < 0 && required ? -1 : 0;
}

/*
 * Another arch's products: its image (arm64 Image, ppc64le vmlinux), the
 * vmlinux, config and System.map; the image must be of that arch.
 */
static int collect_cross(struct build *b, struct strbuf *err)
{
	const char *want = topo_arch_info(b->arch->arch)->name, *got;
	struct strbuf p = STRBUF_INIT;
	char *release;
	int ret = -1;

	strbuf_addf(&p, "%s/include/config/kernel.release", b->obj.buf);
	release = read_file(p.buf, NULL);
	if (keep_product(b, b->arch->image_path, b->arch->image, 1, err) < 0 ||
	    (strcmp(b->arch->image, "vmlinux") && keep_product(b, "vmlinux", "vmlinux", 0, err) < 0) ||
	    keep_product(b, ".config", "config", 1, err) < 0 ||
	    keep_product(b, "System.map", "System.map", 0, err) < 0)
		goto out;
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/%s", b->tmp.buf, b->arch->image);
	got = kernel_image_arch(p.buf);
	if (!got || strcmp(got, want)) {
		strbuf_addf(err, "the build's '%s' is not a kernel image for %s (%s)", b->arch->image_path,
			    want, got ? got : "unknown format");
		goto out;
	}
	write_info(b, release ? strtok(release, "\n") : "", (double)(now_ns() - b->start_ns) / 1e9);
	ret = 0;
out:
	free(release);
	strbuf_release(&p);
	return ret;
}

/* Moves the products out of the object tree into the cache entry. */
static int collect(struct build *b, struct strbuf *err)
{
	static const struct { const char *from, *to; } items[] = {
		{ "arch/x86/boot/bzImage", "bzImage" },
		{ "vmlinux", "vmlinux" },
		{ ".config", "config" },
		{ "System.map", "System.map" },
	};
	struct strbuf to = STRBUF_INIT;
	struct kernel_info ki;
	int ret = -1;

	if (b->arch->arch != TOPO_ARCH_X86_64)
		return collect_cross(b, err);
	for (size_t i = 0; i < ARRAY_SIZE(items); i++)
		if (keep_product(b, items[i].from, items[i].to, i < 3, err) < 0)
			goto out;
	strbuf_addf(&to, "%s/bzImage", b->tmp.buf);
	if (kernel_check_bzimage(to.buf, &ki, err) < 0)
		goto out;
	strbuf_reset(&to);
	strbuf_addf(&to, "%s/vmlinux", b->tmp.buf);
	/* Without CONFIG_PVH the vmlinux cannot be booted directly: drop it,
	 * kernel_resolve() then boots the bzImage. */
	if (!kernel_is_pvh_vmlinux(to.buf))
		unlink(to.buf);
	write_info(b, ki.release, (double)(now_ns() - b->start_ns) / 1e9);
	ret = 0;
out:
	strbuf_release(&to);
	return ret;
}

static int take_lock(struct build *b, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;

	/* Beside, not inside, the cache root: lookups list only builds there. */
	strbuf_addf(&p, "%s/kernels/locks", cache_dir());
	if (mkdir_p(p.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", p.buf, strerror(errno));
		strbuf_release(&p);
		return -1;
	}
	strbuf_addf(&p, "/%s.lock", b->key);
	b->lockfd = open(p.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (b->lockfd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", p.buf, strerror(errno));
		strbuf_release(&p);
		return -1;
	}
	strbuf_release(&p);
	if (flock(b->lockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	info("another lab is building kernel %s; waiting for it", b->key);
	if (flock(b->lockfd, LOCK_EX) < 0) {
		strbuf_addf(err, "cannot lock the build of %s: %s", b->key, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_log(struct build *b, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT;

	strbuf_addf(&dir, "%s/kernels/logs", cache_dir());
	if (mkdir_p(dir.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", dir.buf, strerror(errno));
		strbuf_release(&dir);
		return -1;
	}
	strbuf_addf(&b->log, "%s/%s.log", dir.buf, b->key);
	strbuf_release(&dir);
	b->logfd = open(b->log.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->logfd < 0) {
		strbuf_addf(err, "cannot create '%s': %s", b->log.buf, strerror(errno));
		return -1;
	}
	snprintf(b->res->log, sizeof(b->res->log), "%s", b->log.buf);
	return 0;
}

static int do_build(struct build *b, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int r;

	if (open_log(b, err) < 0)
		return -1;
	{
		struct strbuf text = STRBUF_INIT;

		kbuild_key_text(&b->in, &text);
		log_printf(b, "lab kernel build %s\n%s", b->key, text.buf);
		strbuf_release(&text);
	}
	/* A killed build may have left its directory: start clean. */
	remove_tree(b->tmp.buf);
	if (!b->opts->incremental)
		strbuf_addf(&b->obj, "%s/obj", b->tmp.buf);
	strbuf_addf(&p, "%s/patches", b->tmp.buf);
	if ((b->obj.len && mkdir_p(b->obj.buf, 0755) < 0) || mkdir_p(p.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", b->tmp.buf, strerror(errno));
		r = -1;
		goto out;
	}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/configs", b->tmp.buf);
	if (mkdir_p(p.buf, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", p.buf, strerror(errno));
		r = -1;
		goto out;
	}
	if (b->opts->incremental) {
		b->ccache = in_path("ccache");
		r = prepare_work(b, err);
	} else {
		r = prepare_source(b, err);
	}
	if (r)
		goto out;
	r = configure(b, err);
	if (r || b->opts->config_only) {
		if (!r && b->left_out.nr) {
			size_t arch_out = b->left_out.nr - b->nr_gen_rewrites;
			struct strbuf what = STRBUF_INIT;

			if (arch_out)
				strbuf_addf(&what, ", %zu left out: not options on %s", arch_out,
					    topo_arch_info(b->arch->arch)->name);
			if (b->nr_gen_rewrites)
				strbuf_addf(&what, ", %zu dropped or renamed by the tree's generation",
					    b->nr_gen_rewrites);
			info("kernel %s: every requested option survived olddefconfig (%zu checked%s)",
			     b->key, b->cfg.nr - arch_out, what.buf);
			strbuf_release(&what);
		}
		else if (!r)
			info("kernel %s: every requested option survived olddefconfig (%zu checked)",
			     b->key, b->cfg.nr);
		r = r ? r : 1;
		goto out;
	}
	info("building kernel %s (log: %s)", b->key, b->log.buf);
	r = make_step(b, b->arch->target, BUILD_TIMEOUT_MS, 1, err);
	if (!r)
		r = build_modules(b, err);
	if (r)
		goto out;
	r = collect(b, err);
	if (r)
		goto out;
	/* The objects and the private source copy are not needed any more
	 * (an incremental build keeps both in its work directory). */
	if (!b->opts->incremental) {
		remove_tree(b->obj.buf);
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/src", b->tmp.buf);
		remove_tree(p.buf);
	}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/build.log", b->tmp.buf);
	close(b->logfd);
	b->logfd = -1;
	if (rename(b->log.buf, p.buf) < 0) {
		strbuf_addf(err, "cannot move the log: %s", strerror(errno));
		r = -1;
		goto out;
	}
	/* an entry built before modules were kept: replaced (we hold the lock) */
	if (is_dir(b->final.buf)) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s.old", b->tmp.buf);
		if (rename(b->final.buf, p.buf) == 0)
			remove_tree(p.buf);
	}
	if (rename(b->tmp.buf, b->final.buf) < 0) {
		strbuf_addf(err, "cannot rename '%s': %s", b->tmp.buf, strerror(errno));
		r = -1;
		goto out;
	}
	r = 0;
out:
	if (r)
		remove_tree(b->tmp.buf);
	strbuf_release(&p);
	return r;
}

int kbuild_source_tree(const char *ksrc, struct strbuf *tree, struct strbuf *identity,
		       struct strbuf *err)
{
	struct kbuild_opts opts = KBUILD_OPTS_INIT;
	struct build b = BUILD_INIT(&opts, NULL);
	int r;

	opts.ksrc = ksrc;
	r = identify_source(&b, err);
	if (!r && b.kind == KBUILD_SOURCE_TARBALL)
		r = unpack_tarball(&b, tree, err);
	else if (!r)
		strbuf_addstr(tree, b.ksrc);
	if (!r)
		strbuf_addstr(identity, b.in.source.buf);
	build_release(&b);
	return r;
}

int kbuild_build(const struct kbuild_opts *opts, struct kbuild_result *res,
		 struct strbuf *err)
{
	struct build b = BUILD_INIT(opts, res);
	int r;

	memset(res, 0, sizeof(*res));
	b.arch = kbuild_arch(opts->arch);
	b.in.arch = b.arch->arch;
	res->arch = b.arch->arch;
	r = identify_source(&b, err);
	if (!r)
		r = hash_patches(&b, err);
	if (!r)
		r = find_fragments(&b, err);
	if (!r)
		r = compiler_version(&b, err);
	if (r)
		goto out;
	kbuild_key(&b.in, b.key);
	memcpy(res->key, b.key, sizeof(res->key));
	strbuf_addf(&b.final, "%s/%s", kbuild_cache_root(), b.key);
	strbuf_addf(&b.tmp, "%s.tmp", b.final.buf);
	if (is_complete(b.final.buf) || opts->key_only) {
		if (is_complete(b.final.buf)) {
			fill_result(&b, b.final.buf);
			res->cached = 1;
		}
		r = 0;
		goto out;
	}
	if (mkdir_p(kbuild_cache_root(), 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", kbuild_cache_root(), strerror(errno));
		r = -1;
		goto out;
	}
	r = check_tools(b.arch, err);
	if (!r)
		r = take_lock(&b, err);
	if (r)
		goto out;
	if (is_complete(b.final.buf)) {
		/* Built by the lab we waited for. */
		fill_result(&b, b.final.buf);
		res->cached = 1;
		goto out;
	}
	r = do_build(&b, err);
	if (!r)
		fill_result(&b, b.final.buf);
	if (r == 1)
		r = 0; /* config_only: checked, nothing kept */
out:
	res->seconds = (double)(now_ns() - b.start_ns) / 1e9;
	build_release(&b);
	return r;
}
