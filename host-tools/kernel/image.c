/* image.c - distro disk images as guests through libguestfs: probe, overlay,
 * payload in, results out, and the initrd stage that mounts the image's root. */
#define _GNU_SOURCE
#include "kernel/image.h"
#include "kernel/initrd.h"
#include "kernel/kconfig.h"
#include "kernel/kernel.h"
#include "common/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <guestfs.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECTOR 512u

void image_init(struct image *im)
{
	memset(im, 0, sizeof(*im));
}

void image_drop_overlay(struct image *im)
{
	if (im->overlay_is_temp) {
		char *files[] = { im->overlay, im->kernel_file, im->initrd_file, im->config_file };

		for (size_t i = 0; i < ARRAY_SIZE(files); i++)
			if (files[i])
				unlink(files[i]);
	}
	im->overlay_is_temp = 0;
}

void image_boot_release(struct image_boot *b)
{
	free(b->kernel);
	free(b->initrd);
	free(b->config);
	free(b->how);
	memset(b, 0, sizeof(*b));
}

void image_release(struct image *im)
{
	image_drop_overlay(im);
	free(im->abspath);
	free(im->root);
	free(im->root_guest);
	free(im->fstype);
	free(im->os);
	free(im->overlay);
	free(im->uuid);
	free(im->kernel_file);
	free(im->initrd_file);
	free(im->config_file);
	image_boot_release(&im->boot);
	memset(im, 0, sizeof(*im));
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

const char *image_sniff(const unsigned char *head, size_t len, uint64_t file_size)
{
	if (len >= 8 && !memcmp(head, "QFI\xfb", 4)) {
		/* qcow2 is version 2 or 3; version 1 (qcow) is long gone */
		unsigned v = (unsigned)head[4] << 24 | head[5] << 16 | head[6] << 8 | head[7];

		return v == 2 || v == 3 ? "qcow2" : NULL;
	}
	if (!file_size || file_size % SECTOR)
		return NULL;
	/* an MBR (or GPT's protective MBR) ends its first sector with 55 AA */
	if (len >= SECTOR && head[510] == 0x55 && head[511] == 0xaa)
		return "raw";
	/* a bare filesystem: the ext superblock at 1024 has magic EF53 at +56 */
	if (len >= 1024 + 58 && le16(head + 1024 + 56) == 0xef53)
		return "raw";
	return NULL;
}

int image_probe(struct image *im, struct strbuf *err)
{
	unsigned char head[4096];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(im->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "cannot read image '%s': %s", im->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		strbuf_addf(err, "image '%s' is not a regular file", im->path);
		close(fd);
		return -1;
	}
	n = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (n < 0) {
		strbuf_addf(err, "cannot read image '%s': %s", im->path, strerror(errno));
		return -1;
	}
	im->format = image_sniff(head, (size_t)n, (uint64_t)st.st_size);
	if (!im->format) {
		strbuf_addf(err, "'%s' is not a disk image (neither qcow2 nor a raw disk "
			    "with a partition table or filesystem)", im->path);
		return -1;
	}
	im->abspath = realpath(im->path, NULL);
	if (!im->abspath) {
		strbuf_addf(err, "cannot resolve image '%s': %s", im->path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * libguestfs' appliance boots a kernel too, by default the host's newest
 * /boot/vmlinuz-* with its /lib/modules: on a host without a linux-image
 * package it cannot start.  supermin takes the kernel and modules from
 * the environment instead; the lab gives it the Debian kernel it already
 * keeps in its cache (fetched once, with its modules).  A user's own
 * SUPERMIN_KERNEL stands.
 */
static int appliance_kernel(struct strbuf *err)
{
	struct kernel_paths kp;

	/* supermin walks the host's /lib/modules whatever kernel it is given */
	if (!is_dir("/lib/modules")) {
		strbuf_addstr(err, "libguestfs needs the directory /lib/modules on this host (a machine "
			      "without a kernel package has none): as root run mkdir /lib/modules "
			      "(host-tools/install-deps does)");
		return -1;
	}
	if (getenv("SUPERMIN_KERNEL"))
		return 0;
	if (kernel_fetch_debian(&kp, err) < 0)
		return -1;
	if (!kp.modules[0] || !kp.bzimage[0]) {
		strbuf_addf(err, "the lab's Debian kernel %s has no modules for libguestfs' "
			    "appliance", kp.release);
		return -1;
	}
	if (setenv("SUPERMIN_KERNEL", kp.bzimage, 1) < 0 ||
	    setenv("SUPERMIN_MODULES", kp.modules, 1) < 0 ||
	    setenv("SUPERMIN_KERNEL_VERSION", kp.release, 1) < 0) {
		strbuf_addf(err, "cannot set SUPERMIN_KERNEL: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* libguestfs' own error handler prints to stderr; ours keep one line. */
static guestfs_h *appliance_new(const struct image *im, struct strbuf *err)
{
	guestfs_h *g;

	if (appliance_kernel(err) < 0)
		return NULL;
	g = guestfs_create();
	if (!g) {
		strbuf_addstr(err, "cannot create a libguestfs handle");
		return NULL;
	}
	guestfs_set_error_handler(g, NULL, NULL);
	if (im->force_tcg) {
		char *settings[] = { (char *)"force_tcg", NULL };

		guestfs_set_backend_settings(g, settings);
	}
	return g;
}

static void gerr(guestfs_h *g, struct strbuf *err, const char *what, const char *subject)
{
	const char *msg = guestfs_last_error(g);

	/* libguestfs' first line says what failed; the rest is its advice on
	 * debugging (LIBGUESTFS_DEBUG=1), which the one-line error leaves out */
	strbuf_addf(err, "%s '%s': %.*s", what, subject, msg ? (int)strcspn(msg, "\n") : 17,
		    msg ? msg : "libguestfs failed");
}

/* The appliance names disks /dev/sdX (virtio-scsi); our guest has one
 * virtio-blk disk, /dev/vda. */
static char *guest_device(const char *dev)
{
	const char *p;

	if (strncmp(dev, "/dev/sda", 8))
		return NULL;
	for (p = dev + 8; *p; p++)
		if (*p < '0' || *p > '9')
			return NULL;
	return xasprintf("/dev/vda%s", dev + 8);
}

static void free_strings(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int find_root(guestfs_h *g, struct image *im, struct strbuf *err)
{
	char **roots = guestfs_inspect_os(g);
	char *distro = NULL;

	if (!roots || !roots[0]) {
		strbuf_addf(err, "no usable root filesystem in '%s' (libguestfs found no "
			    "operating system on it)", im->path);
		free_strings(roots);
		return -1;
	}
	im->root = xstrdup(roots[0]);
	free_strings(roots);
	im->fstype = guestfs_vfs_type(g, im->root);
	if (!im->fstype || strncmp(im->fstype, "ext", 3) || !strchr("234", im->fstype[3])) {
		strbuf_addf(err, "root filesystem %s of '%s' is %s; the lab boots ext2/3/4 roots",
			    im->root, im->path, im->fstype ? im->fstype : "unknown");
		return -1;
	}
	im->root_guest = guest_device(im->root);
	if (!im->root_guest) {
		strbuf_addf(err, "root filesystem %s of '%s' is not a partition of the image's "
			    "disk (LVM or RAID roots are not supported)", im->root, im->path);
		return -1;
	}
	distro = guestfs_inspect_get_distro(g, im->root);
	im->os = xasprintf("%s %d", distro ? distro : "unknown",
			   guestfs_inspect_get_major_version(g, im->root));
	free(distro);
	return 0;
}

static int put_file(guestfs_h *g, const char *local, const char *remote, int mode,
		    struct strbuf *err)
{
	if (guestfs_upload(g, local, remote) < 0 || guestfs_chmod(g, mode, remote) < 0) {
		gerr(g, err, "cannot copy into the overlay", remote);
		return -1;
	}
	return 0;
}

static int put_payload(guestfs_h *g, const struct image_payload *pl, struct strbuf *err)
{
	if (put_file(g, pl->runner, "/schedlab/runner", 0755, err) < 0 ||
	    put_file(g, pl->busybox, "/schedlab/busybox", 0755, err) < 0 ||
	    put_file(g, pl->hook, "/schedlab/init", 0755, err) < 0)
		return -1;
	if (pl->plan && guestfs_write(g, "/schedlab/plan", pl->plan, pl->plan_len) < 0) {
		gerr(g, err, "cannot copy into the overlay", "/schedlab/plan");
		return -1;
	}
	if (guestfs_mkdir_p(g, "/schedlab/results") < 0) {
		gerr(g, err, "cannot create in the overlay", "/schedlab/results");
		return -1;
	}
	return 0;
}

static char *temp_file(const char *what, const char *suffix, struct strbuf *err)
{
	char *dir = xasprintf("%s/tmp", lab_cache_dir());
	char *path = xasprintf("%s/%s-XXXXXX%s", dir, what, suffix);
	int fd;

	if (mkdir_p(dir, 0755) < 0 || (fd = mkstemps(path, (int)strlen(suffix))) < 0) {
		strbuf_addf(err, "cannot create a temporary %s in '%s': %s", what, dir,
			    strerror(errno));
		free(dir);
		free(path);
		return NULL;
	}
	close(fd);
	free(dir);
	return path;
}

/* A separate /boot (from inspection) is mounted too, read-only. */
static int mount_boot(guestfs_h *g, struct image *im, struct strbuf *err)
{
	char **mp = guestfs_inspect_get_mountpoints(g, im->root);
	int ret = 0;

	for (size_t i = 0; mp && mp[i] && mp[i + 1]; i += 2) {
		if (strcmp(mp[i], "/boot"))
			continue;
		if (guestfs_mount_ro(g, mp[i + 1], "/boot") < 0) {
			gerr(g, err, "cannot mount /boot of", im->path);
			ret = -1;
		}
		break;
	}
	free_strings(mp);
	return ret;
}

/* Where the link at path leads inside the image, when that is a file. */
static char *link_target(guestfs_h *g, const char *path)
{
	char *real;

	if (guestfs_is_symlink(g, path) <= 0)
		return NULL;
	real = guestfs_realpath(g, path);
	if (real && guestfs_is_file(g, real) > 0)
		return real;
	free(real);
	return NULL;
}

static char **boot_files(guestfs_h *g)
{
	char **names = guestfs_is_dir(g, "/boot") > 0 ? guestfs_ls(g, "/boot") : NULL;
	size_t n = 0;

	for (size_t i = 0; names && names[i]; i++) {
		char *path = xasprintf("/boot/%s", names[i]);

		if (guestfs_is_file(g, path) > 0)
			names[n++] = names[i];
		else
			free(names[i]);
		free(path);
	}
	if (names)
		names[n] = NULL;
	return names;
}

static int fetch_file(guestfs_h *g, const char *remote, const char *what, char **local,
		      struct strbuf *err)
{
	*local = temp_file(what, "", err);
	if (!*local)
		return -1;
	if (guestfs_download(g, remote, *local) < 0) {
		gerr(g, err, "cannot copy out of the image", remote);
		return -1;
	}
	return 0;
}

/* The image's default kernel and initramfs, copied out of the overlay. */
static int fetch_boot(guestfs_h *g, struct image *im, struct strbuf *err)
{
	char *kernel = NULL, *initrd = NULL, **names;
	struct strbuf why = STRBUF_INIT;
	int ret = -1;

	if (mount_boot(g, im, err) < 0)
		return -1;
	kernel = link_target(g, "/vmlinuz");
	if (!kernel)
		kernel = link_target(g, "/boot/vmlinuz");
	initrd = link_target(g, "/initrd.img");
	if (!initrd)
		initrd = link_target(g, "/boot/initrd.img");
	names = boot_files(g);
	if (image_boot_choose(kernel, initrd, (const char *const *)names, &im->boot, &why) < 0) {
		strbuf_addf(err, "image '%s' cannot boot its own kernel: %s", im->path, why.buf);
		goto out;
	}
	if (fetch_file(g, im->boot.kernel, "image-kernel", &im->kernel_file, err) < 0 ||
	    fetch_file(g, im->boot.initrd, "image-initrd", &im->initrd_file, err) < 0 ||
	    (im->boot.config &&
	     fetch_file(g, im->boot.config, "image-config", &im->config_file, err) < 0))
		goto out;
	ret = 0;
out:
	free(kernel);
	free(initrd);
	free_strings(names);
	strbuf_release(&why);
	return ret;
}

int image_prepare(struct image *im, const struct image_payload *pl, struct strbuf *err)
{
	uint64_t t0 = now_ns();
	guestfs_h *g;
	int ret = -1;

	im->overlay = temp_file("overlay", ".qcow2", err);
	if (!im->overlay)
		return -1;
	im->overlay_is_temp = 1;
	g = appliance_new(im, err);
	if (!g)
		return -1;
	/* The user's image is only a backing file: every write lands in the overlay. */
	if (guestfs_disk_create(g, im->overlay, "qcow2", -1,
				GUESTFS_DISK_CREATE_BACKINGFILE, im->abspath,
				GUESTFS_DISK_CREATE_BACKINGFORMAT, im->format, -1) < 0) {
		gerr(g, err, "cannot create an overlay of", im->path);
		goto out;
	}
	if (guestfs_add_drive_opts(g, im->overlay, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2", -1) < 0 ||
	    guestfs_launch(g) < 0) {
		gerr(g, err, "cannot open image", im->path);
		goto out;
	}
	if (find_root(g, im, err) < 0)
		goto out;
	if (guestfs_mount(g, im->root, "/") < 0 || guestfs_mkdir_p(g, "/schedlab") < 0) {
		gerr(g, err, "root filesystem cannot be written (read-only?) in", im->path);
		goto out;
	}
	im->uuid = guestfs_vfs_uuid(g, im->root);
	if (!im->uuid)
		im->uuid = xstrdup("");
	if (im->own_kernel && fetch_boot(g, im, err) < 0)
		goto out;
	if (put_payload(g, pl, err) < 0)
		goto out;
	if (guestfs_shutdown(g) < 0) {
		gerr(g, err, "cannot write the overlay of", im->path);
		goto out;
	}
	ret = 0;
out:
	guestfs_close(g);
	im->prepare_s = (double)(now_ns() - t0) / 1e9;
	if (ret < 0)
		image_drop_overlay(im);
	return ret;
}

static int adopt(char **file, const char *dir, const char *name, struct strbuf *err)
{
	char *to;

	if (!*file)
		return 0;
	to = xasprintf("%s/%s", dir, name);
	if (rename(*file, to) < 0) {
		strbuf_addf(err, "cannot move '%s' to '%s': %s", *file, to, strerror(errno));
		free(to);
		return -1;
	}
	free(*file);
	*file = to;
	return 0;
}

int image_adopt_overlay(struct image *im, const char *dir, struct strbuf *err)
{
	if (adopt(&im->kernel_file, dir, "kernel-image", err) < 0 ||
	    adopt(&im->initrd_file, dir, "initrd-image", err) < 0 ||
	    adopt(&im->config_file, dir, "config-image", err) < 0 ||
	    adopt(&im->overlay, dir, "image.qcow2", err) < 0)
		return -1;
	im->overlay_is_temp = 0;
	return 0;
}

struct rec_list {
	struct wire_record *v;
	struct strbuf data;        /* payloads, back to back */
	size_t nr, alloc;
};

static int collect_record(const struct wire_record *rec, void *ctx)
{
	struct rec_list *l = ctx;

	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 64;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->nr] = *rec;
	/* payload pointers die with the callback: keep offsets, fix up later */
	l->v[l->nr].payload = (const char *)(uintptr_t)l->data.len;
	strbuf_add(&l->data, rec->payload, rec->len);
	l->nr++;
	return 0;
}

static void decode_all(const void *buf, size_t len, struct rec_list *l, struct wire_decoder *d)
{
	wire_decoder_init(d);
	l->data.buf = strbuf_empty;
	wire_decoder_feed(d, buf, len, collect_record, l);
	wire_decoder_finish(d);
}

static int records_differ(const struct rec_list *a, const struct rec_list *b, struct strbuf *why)
{
	size_t n = a->nr < b->nr ? a->nr : b->nr;

	for (size_t i = 0; i < n; i++) {
		const struct wire_record *x = &a->v[i], *y = &b->v[i];
		size_t ox = (size_t)(uintptr_t)x->payload, oy = (size_t)(uintptr_t)y->payload;

		if (x->seq != y->seq || x->type != y->type || x->len != y->len ||
		    memcmp(a->data.buf + ox, b->data.buf + oy, x->len)) {
			strbuf_addf(why, "record %zu differs: seq %u %s (%u bytes) in the image, "
				    "seq %u %s (%u bytes) over the channel", i, x->seq,
				    wire_type_name(x->type), x->len, y->seq, wire_type_name(y->type), y->len);
			return 1;
		}
	}
	if (a->nr != b->nr) {
		strbuf_addf(why, "the image holds %zu records, the channel delivered %zu",
			    a->nr, b->nr);
		return 1;
	}
	return 0;
}

int image_records_compare(const void *a, size_t alen, const void *b, size_t blen,
			  uint64_t *nr_a, struct strbuf *why)
{
	struct rec_list la = { 0 }, lb = { 0 };
	struct wire_decoder da, db;
	int ret;

	decode_all(a, alen, &la, &da);
	decode_all(b, blen, &lb, &db);
	*nr_a = la.nr;
	ret = records_differ(&la, &lb, why);
	if (!ret && (da.bad_crc + da.bad_header + da.skipped_bytes) !=
		    (db.bad_crc + db.bad_header + db.skipped_bytes)) {
		strbuf_addf(why, "same records, but %llu damaged bytes in the image and %llu "
			    "over the channel",
			    (unsigned long long)(da.bad_crc + da.bad_header + da.skipped_bytes),
			    (unsigned long long)(db.bad_crc + db.bad_header + db.skipped_bytes));
		ret = 1;
	}
	wire_decoder_release(&da);
	wire_decoder_release(&db);
	free(la.v);
	free(lb.v);
	strbuf_release(&la.data);
	strbuf_release(&lb.data);
	return ret;
}

/* guestfs_download() streams: no message-size limit on a long run's records. */
static int fetch_guest_results(struct image *im, const char *to, struct strbuf *why)
{
	static const char results[] = "/schedlab/results/records.bin";
	guestfs_h *g = appliance_new(im, why);
	int ret = -1;

	if (!g)
		return -1;
	if (guestfs_add_drive_opts(g, im->overlay, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2",
				   GUESTFS_ADD_DRIVE_OPTS_READONLY, 1, -1) < 0 ||
	    guestfs_launch(g) < 0 || guestfs_mount_ro(g, im->root, "/") < 0)
		gerr(g, why, "cannot open the overlay", im->overlay);
	else if (guestfs_is_file(g, results) <= 0)
		strbuf_addf(why, "the image holds no %s", results);
	else if (guestfs_download(g, results, to) < 0)
		gerr(g, why, "cannot read from the overlay", results);
	else
		ret = 0;
	guestfs_close(g);
	return ret;
}

int image_collect(struct image *im, const char *dir, struct strbuf *why)
{
	uint64_t t0 = now_ns();
	char *tmp = xasprintf("%s/image-records.bin.tmp", dir);
	char *path = xasprintf("%s/image-records.bin", dir);
	char *mine = NULL, *theirs = NULL;
	size_t mine_len = 0, theirs_len = 0;
	int ret = -1;

	if (fetch_guest_results(im, tmp, why) < 0) {
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		strbuf_addf(why, "cannot rename '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	mine = read_file(path, &mine_len);
	free(path);
	path = xasprintf("%s/records.bin", dir);
	theirs = read_file(path, &theirs_len);
	if (!mine) {
		strbuf_addf(why, "cannot read '%s/image-records.bin'", dir);
		goto out;
	}
	ret = image_records_compare(mine, mine_len, theirs ? theirs : "", theirs ? theirs_len : 0,
				    &im->guest_records, why);
out:
	im->collect_s = (double)(now_ns() - t0) / 1e9;
	free(mine);
	free(theirs);
	free(path);
	free(tmp);
	return ret;
}

static const char *const rootfs_modules[] = {
	"virtio_pci", "virtio_blk", "ext4",
	/* ext4 checksums need a crc32c implementation: a soft dependency
	 * that modules.dep does not list */
	"crc32c_generic", NULL,
};

struct moddep {
	char **path;      /* relative module paths */
	char ***deps;     /* per module, NULL-terminated */
	size_t nr;
	unsigned char *state; /* 0 new, 1 visiting, 2 emitted */
};

static void moddep_release(struct moddep *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->path[i]);
		free_strings(m->deps[i]);
	}
	free(m->path);
	free(m->deps);
	free(m->state);
}

/* "kernel/fs/ext4/ext4.ko" and "ext4" name the same module; so do - and _. */
static int module_is(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; name[i]; i++) {
		char c = base[i] == '-' ? '_' : base[i];

		if (c != (name[i] == '-' ? '_' : name[i]))
			return 0;
	}
	return base[i] == '.';
}

static char **split_words(const char *s, const char *end)
{
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0;

	while (s < end) {
		const char *w;

		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		w = s;
		while (s < end && *s != ' ' && *s != '\t')
			s++;
		if (s > w) {
			v = xrealloc(v, (n + 2) * sizeof(*v));
			v[n] = xmalloc((size_t)(s - w) + 1);
			memcpy(v[n], w, (size_t)(s - w));
			v[n][s - w] = '\0';
			v[++n] = NULL;
		}
	}
	return v;
}

static void moddep_parse(const char *dep, size_t len, struct moddep *m)
{
	const char *p = dep, *end = dep + len;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(eol - p));

		if (colon && colon > p) {
			m->path = xrealloc(m->path, (m->nr + 1) * sizeof(*m->path));
			m->deps = xrealloc(m->deps, (m->nr + 1) * sizeof(*m->deps));
			m->path[m->nr] = xmalloc((size_t)(colon - p) + 1);
			memcpy(m->path[m->nr], p, (size_t)(colon - p));
			m->path[m->nr][colon - p] = '\0';
			m->deps[m->nr] = split_words(colon + 1, eol);
			m->nr++;
		}
		p = eol + 1;
	}
	m->state = xcalloc(m->nr ? m->nr : 1, 1);
}

static long moddep_find(const struct moddep *m, const char *name, int by_path)
{
	for (size_t i = 0; i < m->nr; i++)
		if (by_path ? !strcmp(m->path[i], name) : module_is(m->path[i], name))
			return (long)i;
	return -1;
}

/* Dependencies first; a cycle (which depmod never writes) is cut, not looped. */
static void moddep_visit(struct moddep *m, size_t i, struct strvec *out)
{
	if (m->state[i])
		return;
	m->state[i] = 1;
	for (size_t k = 0; m->deps[i][k]; k++) {
		long d = moddep_find(m, m->deps[i][k], 1);

		if (d >= 0)
			moddep_visit(m, (size_t)d, out);
		else
			strvec_push(out, m->deps[i][k]);
	}
	m->state[i] = 2;
	strvec_push(out, m->path[i]);
}

int image_modules_order(const char *dep, size_t len, const char *const *want,
			struct strvec *out, struct strbuf *err)
{
	struct moddep m;
	int ret = 0;

	moddep_parse(dep, len, &m);
	for (size_t w = 0; want[w]; w++) {
		long i = moddep_find(&m, want[w], 0);

		if (i < 0) {
			strbuf_addf(err, "module '%s' is not in modules.dep", want[w]);
			ret = -1;
			break;
		}
		moddep_visit(&m, (size_t)i, out);
	}
	moddep_release(&m);
	return ret;
}

/* 'y', 'm' or 0 for CONFIG_<opt> in a .config text. */
static int config_value(const char *config, const char *opt)
{
	struct strbuf v = STRBUF_INIT;
	int c = 0;

	if (kconfig_value(config, opt, &v) > 0 && (!strcmp(v.buf, "y") || !strcmp(v.buf, "m")))
		c = v.buf[0];
	strbuf_release(&v);
	return c;
}

static int add_modules(const char *release, const char *dir, const char *const *want,
		       struct cpio *c, struct strbuf *err)
{
	char *path = xasprintf("%s/modules.dep", dir);
	struct strvec order = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;
	size_t len;
	char *dep = read_file(path, &len);
	int ret = -1;

	if (!dep) {
		strbuf_addf(err, "kernel %s has its disk drivers as modules, but '%s' is missing",
			    release, path);
		goto out;
	}
	if (image_modules_order(dep, len, want, &order, err) < 0)
		goto out;
	cpio_add_dir(c, "lib", 0755);
	cpio_add_dir(c, "lib/modules", 0755);
	cpio_add_dir(c, "lib/modules/schedlab", 0755);
	for (size_t i = 0; i < order.nr; i++) {
		const char *base = strrchr(order.v[i], '/');
		char *ko, *name, *data;
		size_t ko_len;

		base = base ? base + 1 : order.v[i];
		if (strlen(base) < 4 || strcmp(base + strlen(base) - 3, ".ko")) {
			strbuf_addf(err, "module '%s' is compressed; busybox insmod needs plain .ko files",
				    order.v[i]);
			goto out;
		}
		ko = xasprintf("%s/%s", dir, order.v[i]);
		data = read_file(ko, &ko_len);
		if (!data) {
			strbuf_addf(err, "cannot read module '%s': %s", ko, strerror(errno));
			free(ko);
			goto out;
		}
		name = xasprintf("lib/modules/schedlab/%s", base);
		cpio_add_file(c, name, 0644, data, ko_len);
		strbuf_addf(&list, "%s\n", base);
		free(name);
		free(data);
		free(ko);
	}
	cpio_add_file(c, "lib/modules/schedlab/order", 0644, list.buf, list.len);
	ret = 0;
out:
	free(dep);
	free(path);
	strvec_clear(&order);
	strbuf_release(&list);
	return ret;
}

/* What the kernel needs (y or m) to mount an ext root from a virtio disk;
 * rootfs_modules[] names the modules of the first three. */
static const char *const rootfs_opts[] = {
	"VIRTIO_PCI", "VIRTIO_BLK", "EXT4_FS", "BLOCK", "MSDOS_PARTITION",
};

int image_config_missing(const char *config, struct strbuf *missing)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(rootfs_opts); i++) {
		if (config_value(config, rootfs_opts[i]))
			continue;
		strbuf_addf(missing, "%sCONFIG_%s", n ? ", " : "", rootfs_opts[i]);
		n++;
	}
	if (n)
		strbuf_addstr(missing, n == 1 ? " is" : " are");
	return n;
}

int image_initrd_add(const char *release, const char *config, const char *modules,
		     struct cpio *c, struct strbuf *err)
{
	static const char *const opts[] = { "VIRTIO_PCI", "VIRTIO_BLK", "EXT4_FS" };
	const char *want[ARRAY_SIZE(rootfs_modules)];
	size_t nr_want = 0;
	char *text = config && *config ? read_file(config, NULL) : NULL;
	char *stage1_path = xasprintf("%s/guest/image/stage1", lab_root());
	size_t stage1_len;
	char *stage1 = read_file(stage1_path, &stage1_len);
	struct strbuf missing = STRBUF_INIT;
	int ret = -1;

	if (!stage1) {
		strbuf_addf(err, "cannot read '%s': %s", stage1_path, strerror(errno));
		goto out;
	}
	/* Without a config, assume the drivers are built in: a kernel that
	 * lacks them fails in stage1, which is a verdict, not a lab error. */
	if (text && image_config_missing(text, &missing) > 0) {
		strbuf_addf(err, "kernel %s cannot boot a disk image: %s not set (build it with "
			    "the 'image' config fragment: lab kernel build --config image)",
			    release, missing.buf);
		goto out;
	}
	for (size_t i = 0; text && i < ARRAY_SIZE(opts); i++)
		if (config_value(text, opts[i]) == 'm')
			want[nr_want++] = rootfs_modules[i];
	if (nr_want && config_value(text, "EXT4_FS") == 'm' &&
	    config_value(text, "CRYPTO_CRC32C") == 'm')
		want[nr_want++] = rootfs_modules[3];
	want[nr_want] = NULL;
	if (cpio_add_file(c, "init", 0755, stage1, stage1_len) < 0) {
		strbuf_addstr(err, "stage1 init too large");
		goto out;
	}
	if (nr_want && (!modules || !*modules)) {
		strbuf_addf(err, "kernel %s has its disk drivers as modules, but the lab has no "
			    "modules for it (a kernel built before the lab kept modules: run the "
			    "same lab kernel build again, which replaces it)",
			    release);
		goto out;
	}
	if (nr_want && add_modules(release, modules, want, c, err) < 0)
		goto out;
	ret = 0;
out:
	free(text);
	free(stage1);
	free(stage1_path);
	strbuf_release(&missing);
	return ret;
}

static int has_name(const char *const *names, const char *name)
{
	for (size_t i = 0; names && names[i]; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* "6.1.0-57-amd64" from "/boot/vmlinuz-6.1.0-57-amd64", NULL otherwise. */
static const char *kernel_version_of(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strncmp(base, "vmlinuz-", 8) || !base[8])
		return NULL;
	return base + 8;
}

/* The newest vmlinuz-<v> in /boot, by version (strverscmp: 6.1.0-10 > 6.1.0-9). */
static const char *newest_kernel(const char *const *names)
{
	const char *best = NULL;

	for (size_t i = 0; names && names[i]; i++) {
		const char *v = kernel_version_of(names[i]);

		if (v && !strchr(names[i], '/') && (!best || strverscmp(v, best) > 0))
			best = v;
	}
	return best;
}

int image_boot_choose(const char *vmlinuz_link, const char *initrd_link,
		      const char *const *boot_names, struct image_boot *out,
		      struct strbuf *err)
{
	const char *v;
	char *name;

	memset(out, 0, sizeof(*out));
	if (vmlinuz_link) {
		out->kernel = xstrdup(vmlinuz_link);
		out->how = xstrdup("/vmlinuz");
		v = kernel_version_of(vmlinuz_link);
	} else {
		v = newest_kernel(boot_names);
		if (!v) {
			strbuf_addstr(err, "no kernel found (looked for /vmlinuz, /boot/vmlinuz and "
				      "/boot/vmlinuz-*)");
			return -1;
		}
		out->kernel = xasprintf("/boot/vmlinuz-%s", v);
		out->how = xstrdup("newest /boot/vmlinuz-*");
	}
	if (initrd_link) {
		out->initrd = xstrdup(initrd_link);
	} else if (v) {
		name = xasprintf("initrd.img-%s", v);
		if (has_name(boot_names, name))
			out->initrd = xasprintf("/boot/%s", name);
		free(name);
	}
	if (!out->initrd) {
		if (v)
			strbuf_addf(err, "no initramfs found for kernel %s (looked for /initrd.img, "
				    "/boot/initrd.img and /boot/initrd.img-%s)", out->kernel, v);
		else
			strbuf_addf(err, "no initramfs found for kernel %s (looked for /initrd.img "
				    "and /boot/initrd.img)", out->kernel);
		image_boot_release(out);
		return -1;
	}
	if (v) {
		name = xasprintf("config-%s", v);
		if (has_name(boot_names, name))
			out->config = xasprintf("/boot/%s", name);
		free(name);
	}
	return 0;
}
