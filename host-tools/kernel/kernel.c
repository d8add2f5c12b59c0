/* kernel.c - guest kernels: the cached Debian kernel, what --kernel names
 * resolved to bootable files, and lookups in a kernel's config. */
#define _GNU_SOURCE
#include "kernel/kernel.h"
#include "kernel/debarchive.h"
#include "kernel/kbuild.h"
#include "kernel/kconfig.h"
#include "lib/child.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deadlines for the tools the Debian fetch runs. */
#define APT_CACHE_TIMEOUT_MS (60 * 1000)
#define APT_DOWNLOAD_TIMEOUT_MS (20 * 60 * 1000)
#define DPKG_DEB_TIMEOUT_MS (5 * 60 * 1000)

const char *kernel_paths_boot_image(const struct kernel_paths *kp)
{
	return kp->vmlinux[0] ? kp->vmlinux : kp->bzimage;
}

/* Fills every field of kp; "" for the NULL ones. */
static int set_paths(struct kernel_paths *kp, const char *bzimage, const char *vmlinux,
		     const char *config, const char *release, const char *source,
		     struct strbuf *err)
{
	struct {
		char *dst;
		size_t size;
		const char *src;
	} f[] = {
		{ kp->bzimage, sizeof(kp->bzimage), bzimage },
		{ kp->vmlinux, sizeof(kp->vmlinux), vmlinux },
		{ kp->config, sizeof(kp->config), config },
		{ kp->release, sizeof(kp->release), release },
		{ kp->source, sizeof(kp->source), source },
	};

	memset(kp, 0, sizeof(*kp));
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		const char *src = f[i].src ? f[i].src : "";

		if (strlen(src) >= f[i].size) {
			memset(kp, 0, sizeof(*kp));
			return kernel_error(err, "path too long: '%s'", src);
		}
		strcpy(f[i].dst, src);
	}
	return 0;
}

/* kp->modules from dir/lib/modules/<release> when the cache entry has it. */
static void set_modules(struct kernel_paths *kp, const char *dir)
{
	char *m = xasprintf("%s/lib/modules/%s", dir, kp->release);

	if (is_dir(m) && strlen(m) < sizeof(kp->modules))
		strcpy(kp->modules, m);
	free(m);
}

int kernel_parse_apt_depends(const char *text, struct strbuf *pkg)
{
	static const char tag[] = "Depends: ";
	const char *line = text;

	strbuf_reset(pkg);
	while (line && *line) {
		const char *p = line, *nl = strchr(line, '\n');
		size_t n;

		line = nl ? nl + 1 : NULL;
		while (*p == ' ' || *p == '\t' || *p == '|')
			p++;
		if (strncmp(p, tag, sizeof(tag) - 1))
			continue;
		p += sizeof(tag) - 1;
		/* Package names are [a-z0-9+.-]; anything else (<virtual>, a
		 * path separator) is not a package we could cache by name. */
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789+.-");
		/* another architecture's package: "linux-image-...-arm64:arm64" */
		if (p[n] == ':' && strspn(p + n + 1, "abcdefghijklmnopqrstuvwxyz0123456789"))
			n += 1 + strspn(p + n + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (n <= 12 || strncmp(p, "linux-image-", 12) ||
		    (p[n] && p[n] != '\n' && p[n] != ' ' && p[n] != '\r'))
			continue;
		strbuf_add(pkg, p, n);
		return 0;
	}
	return -1;
}

/* The release a Debian package carries: "linux-image-6.1.0-57-arm64:arm64"
 * gives "6.1.0-57-arm64". */
static void release_of_pkg(const char *pkg, char *out, size_t size)
{
	const char *p = pkg + (strncmp(pkg, "linux-image-", 12) ? 0 : 12);

	snprintf(out, size, "%.*s", (int)strcspn(p, ":"), p);
}

/*
 * Another arch's Debian kernel: no bzImage to check; arm64's vmlinuz is
 * an Image that virt boots as it is, ppc64el ships an ELF vmlinux.
 */
static int fill_foreign_dir(const char *dir, const char *pkg, struct kernel_paths *kp,
			    struct strbuf *err)
{
	char *image = xasprintf("%s/vmlinuz", dir), *vm = xasprintf("%s/vmlinux", dir);
	char *config = xasprintf("%s/config", dir);
	char release[KERNEL_VERSION_MAX];
	int ret;

	release_of_pkg(pkg, release, sizeof(release));
	ret = set_paths(kp, is_file(image) ? image : NULL, is_file(vm) ? vm : NULL,
			is_file(config) ? config : NULL, release, "debian", err);
	if (!ret && !kp->bzimage[0] && !kp->vmlinux[0])
		ret = kernel_error(err, "'%s' holds no kernel image", dir);
	if (!ret) {
		char *dtbs = xasprintf("%s/dtbs", dir);

		set_modules(kp, dir);
		if (is_dir(dtbs))
			snprintf(kp->dtbs, sizeof(kp->dtbs), "%s", dtbs);
		free(dtbs);
	}
	free(image);
	free(vm);
	free(config);
	return ret;
}

/* Fills kp from a finished cache directory <cache>/<pkg>. */
static int fill_from_debian_dir(const char *dir, struct kernel_paths *kp, struct strbuf *err)
{
	char *bz = xasprintf("%s/vmlinuz", dir), *vm = xasprintf("%s/vmlinux", dir);
	char *config = xasprintf("%s/config", dir);
	struct kernel_info ki;
	int ret = -1;

	memset(kp, 0, sizeof(*kp));
	/* an entry from before the lab extracted zstd payloads gets its
	 * vmlinux now, once (a boot ~2 s faster under TCG) */
	if (!is_file(vm) && is_file(bz)) {
		struct strbuf xerr = STRBUF_INIT;

		if (kernel_extract_vmlinux(bz, vm, &xerr) == 0 && !kernel_is_pvh_vmlinux(vm))
			unlink(vm);
		strbuf_release(&xerr);
	}
	if (kernel_check_bzimage(bz, &ki, err) == 0)
		ret = set_paths(kp, bz, kernel_is_pvh_vmlinux(vm) ? vm : NULL,
				is_file(config) ? config : NULL, ki.release, "debian", err);
	if (!ret)
		set_modules(kp, dir);
	free(bz);
	free(vm);
	free(config);
	return ret;
}

/* Work directories of fetches whose process is gone: a killed fetch leaves
 * only these, never a half-filled <pkg>. */
static void remove_stale_work_dirs(const char *cache)
{
	DIR *d = opendir(cache);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *t = strstr(de->d_name, ".tmp.");
		unsigned pid;

		if (!t || parse_uint(t + 5, 1, INT_MAX, &pid) < 0)
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			char *path = xasprintf("%s/%s", cache, de->d_name);

			remove_tree(path);
			free(path);
		}
	}
	closedir(d);
}

/* The single entry of dir whose name starts with prefix (and ends with
 * suffix), as a path; -1 when there is none or more than one. */
int kernel_find_one(const char *dir, const char *prefix, const char *suffix,
		    struct strbuf *path)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name), sl = strlen(suffix);

		if (strncmp(de->d_name, prefix, strlen(prefix)) || n < sl ||
		    strcmp(de->d_name + n - sl, suffix))
			continue;
		if (found++)
			break;
		strbuf_reset(path);
		strbuf_addf(path, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

static const char *last_line(struct strbuf *sb)
{
	char *end;

	while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->buf[--sb->len] = '\0';
	end = strrchr(sb->buf, '\n');
	return end ? end + 1 : sb->buf;
}

/* Runs argv (in dir) to completion; on failure one line in err naming what. */
static int run_step(const char *dir, int timeout_ms, struct strbuf *err, ...)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	const char *arg;
	va_list ap;
	int code;

	va_start(ap, err);
	while ((arg = va_arg(ap, const char *)))
		strvec_push(&cp.args, arg);
	va_end(ap);
	cp.dir = dir;
	cp.in = CHILD_DEVNULL;
	cp.new_pgrp = 1;
	cp.die_with_parent = 1;
	cp.errbuf = err;
	code = child_capture(&cp, timeout_ms, &out, &errout);
	if (code == CHILD_TIMED_OUT)
		kernel_error(err, "'%s %s' did not finish in %d s", cp.args.v[0],
			    cp.args.v[1], timeout_ms / 1000);
	else if (code > 0)
		kernel_error(err, "'%s %s' failed (exit %d): %s", cp.args.v[0],
			    cp.args.v[1], code, errout.len ? last_line(&errout) : last_line(&out));
	child_process_clear(&cp);
	strbuf_release(&out);
	strbuf_release(&errout);
	return code ? -1 : 0;
}

/*
 * Keeps the unpacked package's lib/modules/<release> (usr/lib/modules
 * where /usr is merged) as work/lib/modules/<release>, with the
 * modules.dep that Debian's postinst would make (depmod -b): an image
 * guest loads its disk and filesystem drivers from there, and libguestfs'
 * appliance boots this kernel with them, so the host's /lib/modules is
 * never needed.  A package without modules is not an error here (a marker
 * says the entry was unpacked this way); what needs them says so.
 */
static int keep_modules(const char *x, const char *work, struct strbuf *err)
{
	static const char *const where[] = { "lib/modules", "usr/lib/modules" };
	char *lib = xasprintf("%s/lib/modules", work), *none;
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(where) && !ret; i++) {
		char *dir = xasprintf("%s/%s", x, where[i]), *src = NULL, *dst = NULL;
		const char *release = NULL;
		DIR *d = opendir(dir);
		struct dirent *de;
		int n = 0;

		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (!n++)
				src = xasprintf("%s/%s", dir, de->d_name);
		}
		if (d)
			closedir(d);
		if (n > 1)
			ret = kernel_error(err, "the package has %d releases under %s/", n, where[i]);
		if (n == 1) {
			release = strrchr(src, '/') + 1;
			dst = xasprintf("%s/%s", lib, release);
			if (mkdir_p(lib, 0755) < 0 || rename(src, dst) < 0)
				ret = kernel_error(err, "cannot move '%s' to '%s': %s", src, dst,
						  strerror(errno));
			else if (run_step(NULL, DPKG_DEB_TIMEOUT_MS, err, "depmod", "-b", work,
					  release, (const char *)NULL) < 0)
				ret = -1;
			ret = ret ? ret : 1;
		}
		free(src);
		free(dst);
		free(dir);
	}
	free(lib);
	if (ret)
		return ret < 0 ? -1 : 0;
	none = xasprintf("%s/modules.none", work);
	if (write_file_atomic(none, "", 0) < 0)
		ret = kernel_error(err, "cannot write '%s'", none);
	free(none);
	return ret;
}

/*
 * Keeps another arch's device trees (usr/lib/linux-image-<release>/, the
 * vendor directories of .dtb files Debian's arm64 packages carry) as
 * work/dtbs: what a board's bootloader loads beside the kernel (lab lava
 * export for U-Boot boards).  A package without them gets a marker.
 */
static int keep_dtbs(const char *x, const char *release, const char *work, struct strbuf *err)
{
	char *src = xasprintf("%s/usr/lib/linux-image-%s", x, release);
	char *dst = xasprintf("%s/dtbs", work), *none = xasprintf("%s/dtbs.none", work);
	int ret = 0;

	if (is_dir(src) ? rename(src, dst) < 0 : write_file_atomic(none, "", 0) < 0)
		ret = kernel_error(err, "cannot keep the device trees of '%s': %s", src, strerror(errno));
	free(src);
	free(dst);
	free(none);
	return ret;
}

/* Whether a finished entry is whole: its image, its modules kept and,
 * for another arch, its device trees (an entry from before the lab kept
 * them is fetched again). */
static int entry_complete(const char *final, const char *image, int foreign)
{
	char *m = xasprintf("%s/lib/modules", final), *none = xasprintf("%s/modules.none", final);
	char *d = xasprintf("%s/dtbs", final), *dnone = xasprintf("%s/dtbs.none", final);
	int ok = is_file(image) && (is_dir(m) || is_file(none)) &&
		 (!foreign || is_dir(d) || is_file(dnone));

	free(m);
	free(none);
	free(d);
	free(dnone);
	return ok;
}

/* Downloads and unpacks pkg into work/, which holds the finished files. */
static int foreign_unpack(const char *boot, const char *work, struct strbuf *err);
static int move_one(const char *boot, const char *prefix, const char *work, const char *name,
		    struct strbuf *err);

/*
 * 7.x packages keep the image, config and System.map beside the modules
 * (usr/lib/modules/<release>/vmlinuz): moved to boot/<name>-<release>,
 * where the older packages have them, so one layout follows.
 */
static int boot_layout(const char *x, struct strbuf *err)
{
	static const char *const names[] = { "vmlinuz", "vmlinux", "config", "System.map" };
	static const char *const where[] = { "lib/modules", "usr/lib/modules" };
	char *boot = xasprintf("%s/boot", x);
	int ret = 0;

	for (size_t w = 0; w < ARRAY_SIZE(where) && !ret; w++) {
		char *dir = xasprintf("%s/%s", x, where[w]);
		DIR *d = opendir(dir);
		struct dirent *de;

		while (d && !ret && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			for (size_t i = 0; i < ARRAY_SIZE(names) && !ret; i++) {
				char *src = xasprintf("%s/%s/%s", dir, de->d_name, names[i]);
				char *dst = xasprintf("%s/%s-%s", boot, names[i], de->d_name);

				if (is_file(src) && (mkdir_p(boot, 0755) < 0 || rename(src, dst) < 0))
					ret = kernel_error(err, "cannot move '%s' to '%s': %s", src, dst,
							   strerror(errno));
				free(src);
				free(dst);
			}
		}
		if (d)
			closedir(d);
		free(dir);
	}
	free(boot);
	return ret;
}

/* Unpacks the one .deb of dl named pkg (without :arch) into x. */
static int unpack_deb(const char *dl, const char *pkg, const char *x, struct strbuf *deb,
		      struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT;
	int ret;

	strbuf_addf(&name, "%.*s_", (int)strcspn(pkg, ":"), pkg);
	ret = kernel_find_one(dl, name.buf, ".deb", deb);
	if (ret < 0)
		kernel_error(err, "'apt-get download %s' left no single .deb in '%s'", pkg, dl);
	else
		ret = run_step(NULL, DPKG_DEB_TIMEOUT_MS, err, "dpkg-deb", "-x", deb->buf, x,
			       (const char *)NULL);
	strbuf_release(&name);
	return ret;
}

/*
 * The packages a split image (7.x: linux-image-R is only dependencies on
 * linux-binary-R, linux-modules-R and linux-base-R) needs, downloaded and
 * unpacked into x beside it.  Nothing to do for a classic image package.
 */
static int unpack_split_parts(const char *dl, const char *deb, const char *release,
			      const char *x, struct strbuf *err)
{
	const char *argv[] = { "dpkg-deb", "-f", deb, "Depends", NULL };
	struct strbuf dep = STRBUF_INIT, part = STRBUF_INIT;
	struct strvec parts = STRVEC_INIT;
	int ret = 0;

	if (run_command_capture(argv, DPKG_DEB_TIMEOUT_MS, &dep, NULL) != 0) {
		ret = kernel_error(err, "'dpkg-deb -f %s Depends' failed", deb);
		goto out;
	}
	if (debarchive_split_parts(dep.buf, release, &parts) == 0)
		goto out;
	if (debarchive_download(dl, &parts, err) < 0) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < parts.nr && !ret; i++)
		ret = unpack_deb(dl, parts.v[i], x, &part, err);
out:
	strbuf_release(&dep);
	strbuf_release(&part);
	strvec_clear(&parts);
	return ret;
}

/*
 * archive: pkg comes through the lab's own apt configuration
 * (debarchive.c), any suite; else through the host's apt (Debian 12's
 * default kernel).
 */
static int debian_unpack(const char *pkg, enum topo_arch arch, const char *work, int archive,
			 struct strbuf *err)
{
	struct strbuf dl = STRBUF_INIT, x = STRBUF_INIT, boot = STRBUF_INIT;
	struct strbuf deb = STRBUF_INIT, src = STRBUF_INIT, dst = STRBUF_INIT;
	struct strbuf infotext = STRBUF_INIT, xerr = STRBUF_INIT;
	struct kernel_info ki;
	char release[KERNEL_VERSION_MAX];
	int ret = -1, r;

	strbuf_addf(&dl, "%s/dl", work);
	strbuf_addf(&x, "%s/x", dl.buf);
	strbuf_addf(&boot, "%s/boot", x.buf);
	if (mkdir_p(dl.buf, 0755) < 0) {
		kernel_error(err, "cannot create directory '%s': %s", dl.buf, strerror(errno));
		goto out;
	}
	if (archive) {
		struct strvec one = STRVEC_INIT;

		strvec_push(&one, pkg);
		r = debarchive_download(dl.buf, &one, err);
		strvec_clear(&one);
		if (r < 0)
			goto out;
	} else if (run_step(dl.buf, APT_DOWNLOAD_TIMEOUT_MS, err, "apt-get", "download", "-q",
			    pkg, (const char *)NULL) < 0) {
		/* apt warns that _apt cannot write here when we are root and then
		 * downloads unsandboxed: harmless, so its stderr is only shown on failure. */
		goto out;
	}
	release_of_pkg(pkg, release, sizeof(release));
	if (unpack_deb(dl.buf, pkg, x.buf, &deb, err) < 0 ||
	    (archive && unpack_split_parts(dl.buf, deb.buf, release, x.buf, err) < 0) ||
	    boot_layout(x.buf, err) < 0 || keep_modules(x.buf, work, err) < 0)
		goto out;
	/* the symbols, for reading an Oops; nothing needs them to boot */
	if (move_one(boot.buf, "System.map-", work, "System.map", err) < 0)
		goto out;
	if (arch != TOPO_ARCH_X86_64) {
		if (foreign_unpack(boot.buf, work, err) < 0 || keep_dtbs(x.buf, release, work, err) < 0 ||
		    remove_tree(dl.buf) < 0)
			goto out;
		ret = 0;
		goto out;
	}

	if (kernel_find_one(boot.buf, "vmlinuz-", "", &src) < 0) {
		kernel_error(err, "package '%s' has no single boot/vmlinuz-*", pkg);
		goto out;
	}
	strbuf_addf(&dst, "%s/vmlinuz", work);
	if (rename(src.buf, dst.buf) < 0) {
		kernel_error(err, "cannot move '%s' to '%s': %s", src.buf, dst.buf, strerror(errno));
		goto out;
	}
	if (kernel_check_bzimage(dst.buf, &ki, err) < 0)
		goto out;
	if (kernel_find_one(boot.buf, "config-", "", &src) == 0) {
		strbuf_reset(&dst);
		strbuf_addf(&dst, "%s/config", work);
		if (rename(src.buf, dst.buf) < 0) {
			kernel_error(err, "cannot move '%s' to '%s': %s", src.buf, dst.buf,
				    strerror(errno));
			goto out;
		}
	}

	/* Not fatal: without a vmlinux the bzImage still boots, only slower. */
	strbuf_reset(&src);
	strbuf_reset(&dst);
	strbuf_addf(&src, "%s/vmlinuz", work);
	strbuf_addf(&dst, "%s/vmlinux", work);
	r = kernel_extract_vmlinux(src.buf, dst.buf, &xerr);
	if (r < 0)
		warning("%s", xerr.buf);
	if (r == 0 && !kernel_is_pvh_vmlinux(dst.buf))
		unlink(dst.buf);

	strbuf_addf(&infotext, "package=%s\nrelease=%s\nversion=%s\ncompression=%s\n",
		    pkg, ki.release, ki.version, kernel_comp_name(ki.compression));
	strbuf_reset(&dst);
	strbuf_addf(&dst, "%s/info", work);
	if (write_file_atomic(dst.buf, infotext.buf, infotext.len) < 0) {
		kernel_error(err, "cannot write '%s'", dst.buf);
		goto out;
	}
	if (remove_tree(dl.buf) < 0) {
		kernel_error(err, "cannot remove '%s': %s", dl.buf, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&dl);
	strbuf_release(&x);
	strbuf_release(&boot);
	strbuf_release(&deb);
	strbuf_release(&src);
	strbuf_release(&dst);
	strbuf_release(&infotext);
	strbuf_release(&xerr);
	return ret;
}

/* Moves boot/<prefix>-* of an unpacked package to work/<name>. */
static int move_one(const char *boot, const char *prefix, const char *work, const char *name,
		    struct strbuf *err)
{
	struct strbuf src = STRBUF_INIT;
	char *dst = xasprintf("%s/%s", work, name);
	int ret = 1;

	if (kernel_find_one(boot, prefix, "", &src) == 0) {
		ret = rename(src.buf, dst) < 0 ?
			kernel_error(err, "cannot move '%s' to '%s': %s", src.buf, dst, strerror(errno)) : 0;
	}
	strbuf_release(&src);
	free(dst);
	return ret;
}

static int foreign_unpack(const char *boot, const char *work, struct strbuf *err)
{
	int a = move_one(boot, "vmlinuz-", work, "vmlinuz", err);
	int b = a < 0 ? -1 : move_one(boot, "vmlinux-", work, "vmlinux", err);

	if (a < 0 || b < 0)
		return -1;
	if (a && b)
		return kernel_error(err, "the package has no boot/vmlinuz-* or boot/vmlinux-*");
	return move_one(boot, "config-", work, "config", err) < 0 ? -1 : 0;
}

/*
 * apt-cache takes ~0.4 s here (its package cache is off), a tenth of a
 * whole 8-vCPU boot; its answer only changes when apt's lists do, so it
 * is remembered with the lists' mtime: the host's lists for Debian 12's
 * default kernel, the lab's own (debarchive.c) for a kernel named by
 * version (name: "6.12-rt", NULL for the default).
 */
static char *resolved_path(enum topo_arch arch, const char *name)
{
	return xasprintf("%s/kernels/debian/resolved%s%s%s%s", lab_cache_dir(),
			 arch == TOPO_ARCH_X86_64 ? "" : "-", arch == TOPO_ARCH_X86_64 ? "" :
			 topo_arch_info(arch)->name, name ? "@" : "", name ? name : "");
}

static long long lists_stamp(const char *name)
{
	char *path = name ? xasprintf("%s/lists/stamp", debarchive_dir()) :
		xstrdup("/var/lib/apt/lists");
	struct stat st;
	int r = stat(path, &st);

	free(path);
	if (r < 0)
		return -1;
	return (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
}

static int resolved_cached(enum topo_arch arch, const char *name, struct strbuf *pkg)
{
	char *path = resolved_path(arch, name), *text = read_file(path, NULL), *tab;
	long long stamp = lists_stamp(name);
	int ret = -1;

	free(path);
	if (text && stamp >= 0 && (tab = strchr(text, '\t')) &&
	    strtoll(text, NULL, 10) == stamp) {
		char *nl = strchr(tab + 1, '\n');

		if (nl)
			*nl = '\0';
		/* a package name, never a path: [a-z0-9.+-] and :arch only */
		if (tab[1] && strspn(tab + 1, "abcdefghijklmnopqrstuvwxyz0123456789.+-:") == strlen(tab + 1)) {
			strbuf_addstr(pkg, tab + 1);
			ret = 0;
		}
	}
	free(text);
	return ret;
}

static void resolved_store(enum topo_arch arch, const char *name, const char *pkg)
{
	char *dir = xasprintf("%s/kernels/debian", lab_cache_dir());
	char *path = resolved_path(arch, name);
	char *text = xasprintf("%lld\t%s\n", lists_stamp(name), pkg);

	if (mkdir_p(dir, 0755) == 0)
		write_file_atomic(path, text, strlen(text));
	free(dir);
	free(path);
	free(text);
}

int kernel_fetch_debian(struct kernel_paths *kp, struct strbuf *err)
{
	return kernel_fetch_debian_arch(TOPO_ARCH_X86_64, kp, err);
}

/* The cache entry <cache>/kernels/debian/<pkg>, fetched when missing or
 * incomplete, into kp. */
static int fetch_pkg(const char *pkg, enum topo_arch arch, int archive, struct kernel_paths *kp,
		     struct strbuf *err)
{
	struct strbuf cache = STRBUF_INIT, final = STRBUF_INIT, work = STRBUF_INIT;
	struct strbuf vmlinuz = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&cache, "%s/kernels/debian", lab_cache_dir());
	strbuf_addf(&final, "%s/%.*s", cache.buf, (int)strcspn(pkg, ":"), pkg);
	strbuf_addf(&vmlinuz, "%s/%s", final.buf, arch == TOPO_ARCH_PPC64LE ? "vmlinux" : "vmlinuz");
	if (!entry_complete(final.buf, vmlinuz.buf, arch != TOPO_ARCH_X86_64)) {
		if (mkdir_p(cache.buf, 0755) < 0) {
			kernel_error(err, "cannot create directory '%s': %s", cache.buf,
				    strerror(errno));
			goto out;
		}
		remove_stale_work_dirs(cache.buf);
		strbuf_addf(&work, "%s.tmp.%ld", final.buf, (long)getpid());
		remove_tree(work.buf);
		if (mkdir(work.buf, 0755) < 0) {
			kernel_error(err, "cannot create directory '%s': %s", work.buf,
				    strerror(errno));
			goto out;
		}
		/* An entry from before modules were kept: out of the way first
		 * (renamed, so a reader never sees half of it), then fetched. */
		if (is_dir(final.buf)) {
			struct strbuf old = STRBUF_INIT;

			strbuf_addf(&old, "%s.tmp.%ld.old", final.buf, (long)getpid());
			if (rename(final.buf, old.buf) == 0)
				remove_tree(old.buf);
			strbuf_release(&old);
		}
		if (isatty(STDERR_FILENO))
			info("fetching %s from the Debian archive", pkg);
		if (debian_unpack(pkg, arch, work.buf, archive, err) < 0) {
			remove_tree(work.buf);
			goto out;
		}
		/* A concurrent fetch may have won the race: use its copy. */
		if (rename(work.buf, final.buf) < 0) {
			int e = errno;

			remove_tree(work.buf);
			if (e != EEXIST && e != ENOTEMPTY) {
				kernel_error(err, "cannot rename '%s' to '%s': %s", work.buf,
					    final.buf, strerror(e));
				goto out;
			}
		}
	}
	ret = arch == TOPO_ARCH_X86_64 ? fill_from_debian_dir(final.buf, kp, err) :
		fill_foreign_dir(final.buf, pkg, kp, err);
out:
	strbuf_release(&cache);
	strbuf_release(&final);
	strbuf_release(&work);
	strbuf_release(&vmlinuz);
	return ret;
}

int kernel_fetch_debian_arch(enum topo_arch arch, struct kernel_paths *kp, struct strbuf *err)
{
	const char *meta = topo_arch_info(arch)->kernel_meta;
	const char *argv[] = { "apt-cache", "depends", meta, NULL };
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, pkg = STRBUF_INIT;
	int ret = -1, code;

	memset(kp, 0, sizeof(*kp));
	if (resolved_cached(arch, NULL, &pkg) == 0)
		goto have_pkg;
	for (size_t i = 0; argv[i]; i++)
		strvec_push(&cp.args, argv[i]);
	cp.in = CHILD_DEVNULL;
	cp.die_with_parent = 1;
	cp.errbuf = err;
	code = child_capture(&cp, APT_CACHE_TIMEOUT_MS, &out, NULL);
	child_process_clear(&cp);
	if (code == -1)
		goto out;
	if (code == CHILD_TIMED_OUT) {
		kernel_error(err, "'apt-cache depends %s' did not finish in %d s", meta,
			    APT_CACHE_TIMEOUT_MS / 1000);
		goto out;
	}
	if (code != 0 || kernel_parse_apt_depends(out.buf, &pkg) < 0) {
		if (arch == TOPO_ARCH_X86_64)
			kernel_error(err, "apt has no candidate for '%s' (run apt-get update)", meta);
		else
			kernel_error(err, "apt has no candidate for '%s' (as root: dpkg --add-architecture %s && apt-get update)",
				     meta, topo_arch_info(arch)->dpkg_arch);
		goto out;
	}
	resolved_store(arch, NULL, pkg.buf);
have_pkg:
	ret = fetch_pkg(pkg.buf, arch, 0, kp, err);
out:
	strbuf_release(&out);
	strbuf_release(&pkg);
	return ret;
}

/* The lab's lists, refreshed when stale; lists that exist but could not be
 * refreshed (no network) still name what is cached, with a warning. */
static int archive_ready(struct strbuf *err)
{
	if (debarchive_update(0, err) == 0)
		return 0;
	if (lists_stamp("") < 0)
		return -1;
	warning("%s; using the lab's package lists as they are", err->buf);
	strbuf_reset(err);
	return 0;
}

/* "6.12 (bookworm-security trixie), 7.2 (sid)": the series of list and
 * every suite that has a kernel of it. */
static void series_text(const struct deb_kernel *list, size_t n, struct strbuf *sb)
{
	for (size_t i = 0; i < n; i++) {
		struct deb_kernel all = list[i];
		int seen = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(list[j].series, list[i].series);
		if (seen)
			continue;
		for (size_t j = i + 1; j < n; j++)
			if (!strcmp(list[j].series, list[i].series))
				debarchive_add_suites(&all, list[j].suites);
		strbuf_addf(sb, "%s%s (%s)", sb->len ? ", " : "", all.series, all.suites);
	}
}

int kernel_fetch_named(const char *spec, enum topo_arch arch, struct kernel_paths *kp,
		       struct strbuf *err)
{
	char series[16], flavour[16], name[40];
	struct strbuf pkg = STRBUF_INIT, avail = STRBUF_INIT;
	struct deb_kernel *list = NULL;
	const struct deb_kernel *k;
	int r = debarchive_parse_spec(spec, series, flavour, err), n;

	memset(kp, 0, sizeof(*kp));
	if (r <= 0)
		return r < 0 ? -1 : kernel_error(err, "kernel '%s' is not debian:VERSION", spec);
	snprintf(name, sizeof(name), "%s%s%s", series, flavour[0] ? "-" : "", flavour);
	if (strcmp(series, "latest") && resolved_cached(arch, name, &pkg) == 0)
		goto have_pkg;
	if (archive_ready(err) < 0)
		goto fail;
	n = debarchive_kernels(arch, &list, err);
	if (n < 0)
		goto fail;
	k = debarchive_pick(list, (size_t)n, series, flavour);
	if (!k) {
		series_text(list, (size_t)n, &avail);
		kernel_error(err, "no suite of the Debian archive has a %s%s%s kernel for %s; "
			     "it has %s", series, flavour[0] ? "-" : "", flavour,
			     topo_arch_info(arch)->name, avail.len ? avail.buf : "none");
		goto fail;
	}
	strbuf_addstr(&pkg, k->pkg);
	if (arch != TOPO_ARCH_X86_64)
		strbuf_addf(&pkg, ":%s", topo_arch_info(arch)->dpkg_arch);
	if (strcmp(series, "latest"))
		resolved_store(arch, name, pkg.buf);
have_pkg:
	r = fetch_pkg(pkg.buf, arch, 1, kp, err);
	if (!r)
		snprintf(kp->source, sizeof(kp->source), "%s", "debian");
	free(list);
	strbuf_release(&pkg);
	strbuf_release(&avail);
	return r;
fail:
	free(list);
	strbuf_release(&pkg);
	strbuf_release(&avail);
	return -1;
}

/* A config for the kernel at abs, the first file of: config-<release> or
 * config beside it, the .config of the build tree it came from, .config
 * beside it. */
static void find_config(const char *abs, const char *release, struct strbuf *config)
{
	static const char tree_suffix[] = "/arch/x86/boot/bzImage";
	size_t dirlen = strrchr(abs, '/') ? (size_t)(strrchr(abs, '/') - abs) : 0;
	size_t n = strlen(abs), m = strlen(tree_suffix);
	char *cand[4] = {
		*release ? xasprintf("%.*s/config-%s", (int)dirlen, abs, release) : NULL,
		xasprintf("%.*s/config", (int)dirlen, abs),
		n >= m && !strcmp(abs + n - m, tree_suffix)
			? xasprintf("%.*s/.config", (int)(n - m), abs) : NULL,
		xasprintf("%.*s/.config", (int)dirlen, abs),
	};

	strbuf_reset(config);
	for (size_t i = 0; i < ARRAY_SIZE(cand); i++) {
		if (!config->len && cand[i] && is_file(cand[i]))
			strbuf_addstr(config, cand[i]);
		free(cand[i]);
	}
}

/* Key of an extracted vmlinux: the image's path, size and mtime, so a
 * rebuilt kernel at the same path gets a fresh extraction. */
static uint64_t image_key(const char *abs, const struct stat *st)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint64_t parts[3] = { (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec,
			      (uint64_t)st->st_mtim.tv_nsec };

	for (const char *p = abs; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		for (int b = 0; b < 64; b += 8)
			h = (h ^ ((parts[i] >> b) & 0xff)) * 0x100000001b3ull;
	return h;
}

static int extract_cached(const char *abs, struct strbuf *vmlinux, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT;
	struct stat st;
	int r, created;

	strbuf_reset(vmlinux);
	if (stat(abs, &st) < 0)
		return kernel_error(err, "cannot stat kernel '%s': %s", abs, strerror(errno));
	strbuf_addf(&dir, "%s/kernels/extracted/%016llx", lab_cache_dir(),
		    (unsigned long long)image_key(abs, &st));
	strbuf_addf(vmlinux, "%s/vmlinux", dir.buf);
	if (kernel_is_pvh_vmlinux(vmlinux->buf)) {
		strbuf_release(&dir);
		return 0;
	}
	created = !is_dir(dir.buf);
	if (mkdir_p(dir.buf, 0755) < 0) {
		kernel_error(err, "cannot create directory '%s': %s", dir.buf, strerror(errno));
		strbuf_release(&dir);
		strbuf_reset(vmlinux);
		return -1;
	}
	r = kernel_extract_vmlinux(abs, vmlinux->buf, err);
	if (r == 0 && !kernel_is_pvh_vmlinux(vmlinux->buf)) {
		unlink(vmlinux->buf);
		r = 1;
	}
	if (r != 0) {
		strbuf_reset(vmlinux);
		if (created)
			rmdir(dir.buf);
	}
	strbuf_release(&dir);
	return r < 0 ? -1 : 0;
}

/* The absolute path of the kernel image at path, its facts in *ki; NULL
 * with err when it is no bootable image or cannot be resolved. */
static char *checked_realpath(const char *path, struct kernel_info *ki, struct strbuf *err)
{
	char *abs;

	if (kernel_check_bzimage(path, ki, err) < 0)
		return NULL;
	abs = realpath(path, NULL);
	if (!abs)
		kernel_error(err, "cannot resolve '%s': %s", path, strerror(errno));
	return abs;
}

static int resolve_path(const char *spec, struct kernel_paths *kp, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, bzimage = STRBUF_INIT;
	struct strbuf vmlinux = STRBUF_INIT, config = STRBUF_INIT;
	struct kernel_info ki;
	char *abs = NULL;
	int ret = -1;

	strbuf_addstr(&path, spec);
	if (is_file(spec) && kernel_image_arch(spec) && strcmp(kernel_image_arch(spec), "x86_64")) {
		kernel_error(err, "kernel '%s' is built for %s, not for x86_64 (give --arch %s)",
			    spec, kernel_image_arch(spec), kernel_image_arch(spec));
		goto out;
	}
	if (is_dir(spec)) {
		strbuf_addstr(&path, "/arch/x86/boot/bzImage");
		if (!is_file(path.buf)) {
			kernel_error(err, "'%s' is a directory without arch/x86/boot/bzImage "
				    "(not a built kernel tree)", spec);
			goto out;
		}
	}
	abs = checked_realpath(path.buf, &ki, err);
	if (!abs)
		goto out;

	if (ki.kind == KERNEL_KIND_ELF && !ki.pvh) {
		/* A vmlinux at the top of a build tree: boot the tree's bzImage. */
		char *tree = xstrdup(abs), *slash = strrchr(tree, '/');

		if (slash)
			*slash = '\0';
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/arch/x86/boot/bzImage", tree);
		free(tree);
		if (!is_file(path.buf)) {
			kernel_error(err, "'%s' is an x86-64 ELF without a PVH entry note "
				    "(CONFIG_PVH is off): QEMU cannot boot it with -kernel, "
				    "give its bzImage", spec);
			goto out;
		}
		free(abs);
		abs = checked_realpath(path.buf, &ki, err);
		if (!abs)
			goto out;
	}

	if (ki.kind == KERNEL_KIND_ELF) {
		strbuf_addstr(&vmlinux, abs);
	} else {
		strbuf_addstr(&bzimage, abs);
		if (ki.compression == KERNEL_COMP_XZ && extract_cached(abs, &vmlinux, err) < 0)
			goto out;
	}
	find_config(abs, ki.release, &config);
	if (set_paths(kp, bzimage.buf, vmlinux.buf, config.buf, ki.release, "path", err) < 0)
		goto out;
	/* a kernel given by path is the user's: its modules, if any, are
	 * where its package or `make modules_install` put them */
	strbuf_reset(&path);
	strbuf_addf(&path, "/lib/modules/%s", ki.release);
	if (ki.release[0] && is_dir(path.buf) && path.len < sizeof(kp->modules))
		strcpy(kp->modules, path.buf);
	ret = 0;
out:
	free(abs);
	strbuf_release(&path);
	strbuf_release(&bzimage);
	strbuf_release(&vmlinux);
	strbuf_release(&config);
	return ret;
}

/* The release a cross-built kernel's info.json records ("" when none). */
static void entry_release(const char *dir, char *release, size_t size)
{
	char *path = xasprintf("%s/info.json", dir);
	struct json_object *o = json_object_from_file(path), *v;

	snprintf(release, size, "%s", o && json_object_object_get_ex(o, "release", &v) ?
		 json_object_get_string(v) : "");
	json_object_put(o);
	free(path);
}

/*
 * A kernel built by `lab kernel build`: its cache entry holds bzImage, a
 * PVH vmlinux (when CONFIG_PVH) and config side by side; one built for
 * another arch is refused unless arch is that arch.  arm64's Image goes
 * where the Debian arm64 kernel's does (kp->bzimage), ppc64le's vmlinux
 * in kp->vmlinux.
 */
static int resolve_key_arch(const char *spec, enum topo_arch arch, struct kernel_paths *kp,
			    struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, bz = STRBUF_INIT, vm = STRBUF_INIT, cfg = STRBUF_INIT;
	struct kernel_info ki;
	int r = kbuild_lookup(spec, &dir, err), ret = -1;
	enum topo_arch built;

	if (r < 0)
		goto out;
	if (r == 0) {
		kernel_error(err, "kernel '%s' is neither a file nor the key of a built kernel "
			    "in '%s' (see lab kernel build --help)", spec, kbuild_cache_root());
		goto out;
	}
	built = kbuild_entry_arch(dir.buf);
	if (built != arch) {
		kernel_error(err, "kernel %s was built for %s, not for %s (give --arch %s, "
			    "or build it with lab kernel build --arch %s)", spec,
			    topo_arch_info(built)->name, topo_arch_info(arch)->name,
			    topo_arch_info(built)->name, topo_arch_info(arch)->name);
		goto out;
	}
	strbuf_addf(&cfg, "%s/config", dir.buf);
	if (arch != TOPO_ARCH_X86_64) {
		char release[KERNEL_VERSION_MAX];

		entry_release(dir.buf, release, sizeof(release));
		strbuf_addf(&bz, "%s/%s", dir.buf, kbuild_arch(arch)->image);
		ret = set_paths(kp, arch == TOPO_ARCH_ARM64 ? bz.buf : NULL,
				arch == TOPO_ARCH_ARM64 ? NULL : bz.buf,
				is_file(cfg.buf) ? cfg.buf : NULL, release, "build", err);
		if (!ret)
			set_modules(kp, dir.buf);
		goto out;
	}
	strbuf_addf(&bz, "%s/bzImage", dir.buf);
	strbuf_addf(&vm, "%s/vmlinux", dir.buf);
	if (kernel_check_bzimage(bz.buf, &ki, err) < 0)
		goto out;
	ret = set_paths(kp, bz.buf, kernel_is_pvh_vmlinux(vm.buf) ? vm.buf : NULL,
			is_file(cfg.buf) ? cfg.buf : NULL, ki.release, "build", err);
	if (!ret)
		set_modules(kp, dir.buf);
out:
	strbuf_release(&dir);
	strbuf_release(&bz);
	strbuf_release(&vm);
	strbuf_release(&cfg);
	return ret;
}

int kernel_resolve(const char *spec, struct kernel_paths *kp, struct strbuf *err)
{
	memset(kp, 0, sizeof(*kp));
	if (!spec || !*spec || !strcmp(spec, "debian"))
		return kernel_fetch_debian(kp, err);
	if (!strncmp(spec, "debian:", 7) && access(spec, F_OK) < 0)
		return kernel_fetch_named(spec, TOPO_ARCH_X86_64, kp, err);
	/* A file of that name wins over a key that looks the same. */
	if (kbuild_looks_like_key(spec) && access(spec, F_OK) < 0)
		return resolve_key_arch(spec, TOPO_ARCH_X86_64, kp, err);
	return resolve_path(spec, kp, err);
}

int kernel_resolve_arch(const char *spec, enum topo_arch arch, struct kernel_paths *kp,
			struct strbuf *err)
{
	const char *name = topo_arch_info(arch)->name, *image_arch;
	struct strbuf config = STRBUF_INIT;
	char *abs;
	int ret;

	if (arch == TOPO_ARCH_X86_64)
		return kernel_resolve(spec, kp, err);
	memset(kp, 0, sizeof(*kp));
	if (!spec || !*spec || !strcmp(spec, "debian"))
		return kernel_fetch_debian_arch(arch, kp, err);
	if (!strncmp(spec, "debian:", 7) && access(spec, F_OK) < 0)
		return kernel_fetch_named(spec, arch, kp, err);
	if (kbuild_looks_like_key(spec) && access(spec, F_OK) < 0)
		return resolve_key_arch(spec, arch, kp, err);
	if (!is_file(spec))
		return kernel_error(err, "kernel '%s' is not a file: an %s guest boots 'debian', a kernel "
				    "image path or the key of a kernel built with --arch %s", spec, name, name);
	/* an image whose bytes name another arch cannot boot; unknown formats are QEMU's to judge */
	image_arch = kernel_image_arch(spec);
	if (image_arch && strcmp(image_arch, name))
		return kernel_error(err, "kernel '%s' is built for %s, not for %s (give --arch %s)", spec,
				    image_arch, name, image_arch);
	abs = realpath(spec, NULL);
	if (!abs)
		return kernel_error(err, "cannot resolve '%s': %s", spec, strerror(errno));
	find_config(abs, "", &config);
	ret = set_paths(kp, arch == TOPO_ARCH_ARM64 ? abs : NULL, arch == TOPO_ARCH_ARM64 ? NULL : abs,
			config.buf, "unknown", "path", err);
	free(abs);
	strbuf_release(&config);
	return ret;
}

int kernel_fetch_busybox(enum topo_arch arch, struct strbuf *path, struct strbuf *err)
{
	const char *darch = topo_arch_info(arch)->dpkg_arch;
	char *dir = xasprintf("%s/busybox/%s", lab_cache_dir(), darch);
	char *pkg = xasprintf("busybox-static:%s", darch);
	struct strbuf work = STRBUF_INIT, deb = STRBUF_INIT, x = STRBUF_INIT, bb = STRBUF_INIT;
	int ret = -1;

	strbuf_reset(path);
	strbuf_addf(path, "%s/busybox", dir);
	if (is_file(path->buf)) {
		ret = 0;
		goto out;
	}
	strbuf_addf(&work, "%s.tmp.%ld", dir, (long)getpid());
	strbuf_addf(&x, "%s/x", work.buf);
	remove_tree(work.buf);
	if (mkdir_p(work.buf, 0755) < 0) {
		kernel_error(err, "cannot create directory '%s': %s", work.buf, strerror(errno));
		goto out;
	}
	if (run_step(work.buf, APT_DOWNLOAD_TIMEOUT_MS, err, "apt-get", "download", "-q", pkg,
		     (const char *)NULL) < 0)
		goto fail;
	if (kernel_find_one(work.buf, "busybox-static_", ".deb", &deb) < 0) {
		kernel_error(err, "'apt-get download %s' left no single .deb in '%s'", pkg, work.buf);
		goto fail;
	}
	if (run_step(NULL, DPKG_DEB_TIMEOUT_MS, err, "dpkg-deb", "-x", deb.buf, x.buf,
		     (const char *)NULL) < 0)
		goto fail;
	strbuf_addf(&bb, "%s/bin/busybox", x.buf);
	/* rename() is atomic: a reader sees no busybox or a whole one */
	if (mkdir_p(dir, 0755) < 0 || rename(bb.buf, path->buf) < 0) {
		kernel_error(err, "cannot move '%s' to '%s': %s", bb.buf, path->buf,
			     strerror(errno));
		goto fail;
	}
	ret = 0;
fail:
	remove_tree(work.buf);
out:
	free(dir);
	free(pkg);
	strbuf_release(&work);
	strbuf_release(&deb);
	strbuf_release(&x);
	strbuf_release(&bb);
	return ret;
}

int kernel_config_value(const char *config_path, const char *option, struct strbuf *value)
{
	char *text = read_file(config_path, NULL);
	int ret;

	strbuf_reset(value);
	if (!text)
		return -1;
	ret = kconfig_value(text, option, value);
	free(text);
	return ret;
}

int kernel_config_has(const char *config_path, const char *option)
{
	struct strbuf v = STRBUF_INIT;
	int ret = kernel_config_value(config_path, option, &v);

	if (ret > 0)
		ret = !strcmp(v.buf, "y") || !strcmp(v.buf, "m");
	strbuf_release(&v);
	return ret;
}
