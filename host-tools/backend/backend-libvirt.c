/* backend-libvirt.c - the libvirt backend: a transient domain from the
 * topology's XML; console and records over unix sockets the lab listens on
 * (local hypervisor) or over console streams (remote, libvirt-remote.c). */
#define _GNU_SOURCE
#include "backend/backend.h"
#include "backend/daemon.h"
#include "backend/libvirt-remote.h"
#include "backend/libvirt-save.h"
#include "common/io.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * QEMU connects to both sockets while libvirt starts it, before the guest
 * runs a single instruction: nothing the guest prints is lost, and the
 * session reads the accepted fds exactly like the QEMU backend's
 * socketpairs.  The files QEMU opens live in one private directory that
 * only root and QEMU's group can enter.
 */
enum { ST_CONSOLE, ST_RECORDS, ST_KERNEL, ST_INITRD, NR_STAGED };
static const char *const staged[NR_STAGED] = { "console.sock", "records.sock", "kernel", "initrd" };

struct libvirt_priv {
	virConnectPtr conn;
	virDomainPtr dom;
	char *uri;
	char *name;
	char *dom_name;      /* the domain's: a restored one keeps its saver's */
	char *run_dir;
	char dir[PATH_MAX];  /* the private directory, "" when none */
	char *restored_xml;  /* warm start: the dxml of the last restore */
	int listen_fd[2];    /* console, records */
	int destroyed;
	int lab_paused;      /* suspended by the lab's own stop, not resumed yet */
	int streams;         /* remote mode: pool uploads and console streams */
	struct lv_pool pool;
	struct lv_pump pump[2];
};

const char *libvirt_uri(const char *want)
{
	const char *env = getenv("LIBVIRT_URI");

	if (want && *want)
		return want;
	return env && *env ? env : "qemu:///system";
}

/* No host in the URI and no network transport: the hypervisor is here,
 * and QEMU can open our sockets and files. */
static int uri_is_local(const char *uri)
{
	static const char *const remote[] = { "+ssh:", "+libssh", "+tcp:", "+tls:" };
	const char *p = strstr(uri, "://");

	for (size_t i = 0; i < ARRAY_SIZE(remote); i++)
		if (strstr(uri, remote[i]))
			return 0;
	return p && p[3] == '/';
}

/*
 * Remote mode (files through a storage pool, serial ports through console
 * streams) for every URI whose hypervisor may be elsewhere; LIBVIRT_REMOTE=1
 * forces it on a local URI, so that it can be tested on one machine.
 */
int libvirt_uri_remote(const char *uri)
{
	const char *force = getenv("LIBVIRT_REMOTE");

	if (force && !strcmp(force, "1"))
		return 1;
	return !uri_is_local(uri);
}

static void quiet_libvirt(void *opaque, virErrorPtr e)
{
	/* libvirt prints every error on stderr by default; we report ours once */
}

static void add_lv_error(struct strbuf *err, const char *what)
{
	const char *msg = virGetLastErrorMessage();

	strbuf_addf(err, "%s: %s", what, msg && *msg ? msg : "unknown libvirt error");
}

/* QEMU's group as libvirt's DAC driver runs it: "+64055:+64055" in the
 * capabilities' baselabel for type 'qemu' (qemu.conf's user and group). */
static gid_t qemu_gid(virConnectPtr conn)
{
	char *caps = virConnectGetCapabilities(conn);
	const char *dac, *label;
	unsigned uid, gid;
	struct passwd *pw;
	gid_t ret = (gid_t)-1;

	dac = caps ? strstr(caps, "<model>dac</model>") : NULL;
	label = dac ? strstr(dac, "<baselabel type='qemu'>") : NULL;
	if (label && sscanf(label + strlen("<baselabel type='qemu'>"), "+%u:+%u", &uid, &gid) == 2)
		ret = (gid_t)gid;
	free(caps);
	if (ret == (gid_t)-1 && (pw = getpwnam("libvirt-qemu")))
		ret = pw->pw_gid;
	return ret;
}

/* QEMU (uid != 0, group gid) must be able to walk down to dir. */
static int check_reachable(const char *dir, gid_t gid, struct strbuf *err)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof(path))
		return -1;
	memcpy(path, dir, len + 1);
	for (char *slash = strrchr(path, '/'); slash && slash > path; slash = strrchr(path, '/')) {
		struct stat st;

		*slash = '\0';
		if (stat(path, &st) < 0)
			continue;
		if (st.st_mode & S_IXOTH || (st.st_gid == gid && st.st_mode & S_IXGRP))
			continue;
		strbuf_addf(err, "libvirt's QEMU cannot enter '%s' (mode %o): set LAB_CACHE "
			    "to a directory it can reach", path, st.st_mode & 07777);
		return -1;
	}
	return 0;
}

static int copy_file(const char *from, const char *to, struct strbuf *err)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = 0;

	if (in < 0) {
		strbuf_addf(err, "cannot open '%s': %s", from, strerror(errno));
		return -1;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (out < 0) {
		strbuf_addf(err, "cannot create '%s': %s", to, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = xread(in, buf, sizeof(buf))) > 0)
		if (write_in_full(out, buf, (size_t)n) < 0) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) < 0 || n < 0) {
		strbuf_addf(err, "cannot copy '%s' to '%s': %s", from, to, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A world-readable file is hard-linked (the cached kernel: no copy); one
 * only root can read (a run's mkstemp initrd) is copied for QEMU's group.
 */
static int stage_file(const char *from, const char *to, gid_t gid, struct strbuf *err)
{
	struct stat st;

	if (stat(from, &st) < 0) {
		strbuf_addf(err, "cannot stat '%s': %s", from, strerror(errno));
		return -1;
	}
	if (st.st_mode & S_IROTH && link(from, to) == 0)
		return 0;
	if (copy_file(from, to, err) < 0)
		return -1;
	if (geteuid() == 0 && chown(to, (uid_t)-1, gid) < 0) {
		strbuf_addf(err, "cannot chown '%s': %s", to, strerror(errno));
		return -1;
	}
	return 0;
}

static int listen_unix(const char *path, gid_t gid, struct strbuf *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		strbuf_addf(err, "socket path '%s' is too long: set LAB_CACHE to a shorter path", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    chmod(path, 0660) < 0 || (geteuid() == 0 && chown(path, (uid_t)-1, gid) < 0) ||
	    listen(fd, 1) < 0) {
		strbuf_addf(err, "cannot listen on '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static char *staged_path(const struct libvirt_priv *p, unsigned i)
{
	return xasprintf("%s/%s", p->dir, staged[i]);
}

static int make_private_dir(struct libvirt_priv *p, gid_t gid, struct strbuf *err)
{
	char *tmp = xasprintf("%s/tmp", lab_cache_dir());
	int n = snprintf(p->dir, sizeof(p->dir), "%s/lv-%s-XXXXXX", tmp, p->name);

	if (mkdir_p(tmp, 0755) < 0 || n < 0 || (size_t)n >= sizeof(p->dir) || !mkdtemp(p->dir)) {
		strbuf_addf(err, "cannot create a directory in '%s': %s", tmp, strerror(errno));
		p->dir[0] = '\0';
		free(tmp);
		return -1;
	}
	free(tmp);
	if ((geteuid() == 0 && chown(p->dir, (uid_t)-1, gid) < 0) || chmod(p->dir, 0750) < 0) {
		strbuf_addf(err, "cannot give '%s' to QEMU's group: %s", p->dir, strerror(errno));
		return -1;
	}
	return check_reachable(p->dir, gid, err);
}

static void remove_staged(const char *dir)
{
	for (unsigned i = 0; i < NR_STAGED; i++) {
		char *path = xasprintf("%s/%s", dir, staged[i]);

		unlink(path);
		free(path);
	}
	if (rmdir(dir) < 0 && errno != ENOENT)
		warning("cannot remove '%s': %s", dir, strerror(errno));
}

static void remove_private_dir(struct libvirt_priv *p)
{
	if (!p->dir[0])
		return;
	remove_staged(p->dir);
	p->dir[0] = '\0';
}

/* A lab killed by a signal had no chance to clean up; its domain is gone
 * (AUTODESTROY), and its directory goes once its pid is not running. */
static void sweep_stale_dirs(void)
{
	char *tmp = xasprintf("%s/tmp", lab_cache_dir());

	sweep_dead_owner_dirs(tmp, "lv-schedlab-", remove_staged);
	free(tmp);
}

/*
 * The chardevs and security label the backend adds to the topology's
 * domain.  <seclabel type='none' model='dac'/> keeps libvirt from chowning
 * what QEMU opens: the kernel is a hard link to the shared cache, which
 * concurrent runs use, and relabelling it back and forth would race.  QEMU
 * still runs as qemu.conf's unprivileged user; the private directory gives
 * it exactly the access it needs, and no host config file changes.
 */
char *libvirt_domain_xml(const struct backend_conf *conf, const char *kernel,
			 const char *initrd, const char *con_sock, const char *rec_sock)
{
	struct strbuf dev = STRBUF_INIT;
	const char *sock[2] = { con_sock, rec_sock };
	char *xml;

	/* libvirt adds a USB controller to q35 unless told not to */
	strbuf_addstr(&dev, "    <controller type='usb' model='none'/>\n");
	for (unsigned i = 0; i < 2; i++) {
		if (!sock[i]) {
			/* remote: a pty on the hypervisor, read via virDomainOpenConsole */
			strbuf_addf(&dev, "    <serial type='pty'>\n      <target port='%u'/>\n"
				    "    </serial>\n", i);
			continue;
		}
		strbuf_addstr(&dev, "    <serial type='unix'>\n      <source mode='connect' path='");
		topo_xml_escape(&dev, sock[i]);
		strbuf_addf(&dev, "'/>\n      <target port='%u'/>\n    </serial>\n", i);
	}
	xml = topo_libvirt_xml_devices(conf->topo, conf->accel, conf->name, kernel, initrd,
				       conf->cmdline, dev.buf, "  <seclabel type='none' model='dac'/>\n");
	strbuf_release(&dev);
	return xml;
}

static int accept_one(int listen_fd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = listen_fd, .events = POLLIN };
	int r;

	do {
		uint64_t now = now_ns();

		if (now >= deadline)
			return -1;
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000ull) + 1);
	} while (r < 0 && errno == EINTR);
	return r > 0 ? accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC) : -1;
}

static int accept_both(struct libvirt_priv *p, struct backend *b, int timeout_ms,
		       struct strbuf *err)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	b->console_fd = accept_one(p->listen_fd[0], deadline);
	if (b->console_fd >= 0)
		b->record_fd = accept_one(p->listen_fd[1], deadline);
	if (b->console_fd < 0 || b->record_fd < 0) {
		strbuf_addf(err, "QEMU did not connect to '%s/%s' within %d s", p->dir,
			    staged[b->console_fd < 0 ? ST_CONSOLE : ST_RECORDS], timeout_ms / 1000);
		return -1;
	}
	return 0;
}

static void set_version(struct libvirt_priv *p, struct backend *b)
{
	unsigned long lib = 0, hv = 0;

	virConnectGetLibVersion(p->conn, &lib);
	virConnectGetVersion(p->conn, &hv);
	snprintf(b->version, sizeof(b->version), "QEMU %lu.%lu.%lu (libvirt %lu.%lu.%lu)",
		 hv / 1000000, hv / 1000 % 1000, hv % 1000,
		 lib / 1000000, lib / 1000 % 1000, lib % 1000);
}

static void save_domain_xml(const struct backend_conf *conf, const char *xml)
{
	char *dst;

	if (!conf->run_dir)
		return;
	dst = xasprintf("%s/domain.xml", conf->run_dir);
	write_file_atomic(dst, xml, strlen(xml));
	free(dst);
}

/*
 * libvirt's restore has no AUTODESTROY: a restored domain names its lab in
 * <metadata> (libvirt-save.h), and a lab that finds one whose lab is gone
 * destroys it, as the kernel would have on the connection's close.
 */
static void sweep_orphans(virConnectPtr conn)
{
	virDomainPtr *doms = NULL;
	int n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);

	for (int i = 0; i < n; i++) {
		char *meta = virDomainGetMetadata(doms[i], VIR_DOMAIN_METADATA_ELEMENT,
						  LV_META_NS, VIR_DOMAIN_AFFECT_LIVE);
		long pid = lv_meta_owner(meta);

		if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			virDomainDestroy(doms[i]);
		free(meta);
		virDomainFree(doms[i]);
	}
	free(doms);
}

/*
 * Restores the save image at image (a file, or a FIFO a decompressor feeds)
 * with its XML pointed at this run's private directory.  Name and uuid are
 * the saving run's (libvirt's ABI check insists), so one snapshot restores
 * once at a time per libvirtd: a second lab finds the domain running.
 */
static int restore_domain(struct libvirt_priv *p, const char *image, const char *saved,
			  char *const *path, struct strbuf *err)
{
	struct lv_restore_paths rp = {
		.kernel = path[ST_KERNEL], .initrd = path[ST_INITRD],
		.console = path[ST_CONSOLE], .records = path[ST_RECORDS],
		.owner_pid = (long)getpid(),
	};
	virDomainPtr other;
	char *name;

	free(p->restored_xml);
	p->restored_xml = saved ? lv_restore_xml(saved, strlen(saved), &rp, err) : NULL;
	if (!p->restored_xml) {
		if (!saved)
			strbuf_addstr(err, "no saved domain XML to restore with");
		return -1;
	}
	name = lv_domain_name(p->restored_xml, strlen(p->restored_xml));
	if (!name) {
		strbuf_addstr(err, "saved domain XML has no <name>");
		return -1;
	}
	sweep_orphans(p->conn);
	other = virDomainLookupByName(p->conn, name);
	if (other && virDomainIsActive(other) == 1) {
		strbuf_addf(err, "domain '%s' of this snapshot is running (another lab restored it)", name);
		virDomainFree(other);
		free(name);
		return -1;
	}
	if (other)
		virDomainFree(other);
	if (virDomainRestoreFlags(p->conn, image, p->restored_xml, VIR_DOMAIN_SAVE_RUNNING) < 0) {
		add_lv_error(err, "virDomainRestoreFlags");
		free(name);
		return -1;
	}
	if (p->dom)
		virDomainFree(p->dom);
	p->dom = virDomainLookupByName(p->conn, name);
	free(p->dom_name);
	p->dom_name = name;
	if (!p->dom) {
		add_lv_error(err, "the restored domain");
		return -1;
	}
	p->destroyed = 0;
	return 0;
}

static int create_local(struct libvirt_priv *p, struct backend *b,
			const struct backend_conf *conf, struct strbuf *err)
{
	gid_t gid = qemu_gid(p->conn);
	char *path[NR_STAGED] = { NULL };
	char *xml = NULL;
	int ret = -1;

	sweep_stale_dirs();
	sweep_orphans(p->conn);
	if (make_private_dir(p, gid, err) < 0)
		return -1;
	for (unsigned i = 0; i < NR_STAGED; i++)
		path[i] = staged_path(p, i);
	for (unsigned i = 0; i < 2; i++) {
		p->listen_fd[i] = listen_unix(path[ST_CONSOLE + i], gid, err);
		if (p->listen_fd[i] < 0)
			goto out;
	}
	if ((conf->kernel && stage_file(conf->kernel, path[ST_KERNEL], gid, err) < 0) ||
	    (conf->initrd && stage_file(conf->initrd, path[ST_INITRD], gid, err) < 0))
		goto out;
	if (conf->restore && conf->restore_path) {
		if (restore_domain(p, conf->restore_path, conf->restore_xml, path, err) < 0)
			goto out;
		save_domain_xml(conf, p->restored_xml);
		ret = accept_both(p, b, 30000, err);
		goto out;
	}
	xml = libvirt_domain_xml(conf, conf->kernel ? path[ST_KERNEL] : NULL,
				 conf->initrd ? path[ST_INITRD] : NULL,
				 path[ST_CONSOLE], path[ST_RECORDS]);
	save_domain_xml(conf, xml);
	/* AUTODESTROY: libvirtd destroys the domain when this connection
	 * closes, so a lab killed by any signal leaves no guest behind. */
	p->dom = virDomainCreateXML(p->conn, xml, VIR_DOMAIN_START_AUTODESTROY);
	if (!p->dom) {
		add_lv_error(err, "cannot create the libvirt domain");
		goto out;
	}
	ret = accept_both(p, b, 30000, err);
out:
	for (unsigned i = 0; i < NR_STAGED; i++)
		free(path[i]);
	free(xml);
	return ret;
}

/*
 * The hypervisor's host shares nothing with ours but the connection: the
 * kernel and initrd are uploaded into a pool of ours there, removed as soon
 * as QEMU has loaded them (and at release, and by the next lab's sweep when
 * we were killed before that).  The domain starts paused, so that both
 * console streams are open before the guest prints its first byte.
 */
static int create_remote(struct libvirt_priv *p, struct backend *b,
			 const struct backend_conf *conf, struct strbuf *err)
{
	static const char *const dev[2] = { "serial0", "serial1" };
	int *fd[2] = { &b->console_fd, &b->record_fd };
	char *kernel = NULL, *initrd = NULL, *xml = NULL;
	int ret = -1;

	lv_pool_sweep(p->conn);
	if (lv_pool_create(p->conn, p->name, &p->pool, err) < 0)
		goto out;
	if (conf->kernel && lv_pool_upload(p->conn, &p->pool, "kernel", conf->kernel,
					   &kernel, err) < 0)
		goto out;
	if (conf->initrd && lv_pool_upload(p->conn, &p->pool, "initrd", conf->initrd,
					   &initrd, err) < 0)
		goto out;
	xml = libvirt_domain_xml(conf, kernel, initrd, NULL, NULL);
	save_domain_xml(conf, xml);
	p->dom = virDomainCreateXML(p->conn, xml, VIR_DOMAIN_START_AUTODESTROY |
				    VIR_DOMAIN_START_PAUSED);
	if (!p->dom) {
		add_lv_error(err, "cannot create the libvirt domain");
		goto out;
	}
	/* QEMU has read both files into guest memory: they can go */
	lv_pool_remove(&p->pool);
	for (unsigned i = 0; i < 2; i++)
		if (lv_pump_start(p->conn, p->dom, dev[i], &p->pump[i], fd[i], err) < 0)
			goto out;
	if (virDomainResume(p->dom) < 0) {
		add_lv_error(err, "cannot resume the domain");
		goto out;
	}
	ret = 0;
out:
	free(kernel);
	free(initrd);
	free(xml);
	return ret;
}

static int create_domain(struct libvirt_priv *p, struct backend *b,
			 const struct backend_conf *conf, struct strbuf *err)
{
	return p->streams ? create_remote(p, b, conf, err) : create_local(p, b, conf, err);
}

static int ensure_daemons(const char *uri, struct strbuf *err)
{
	int ret = libvirt_daemons_ensure(uri, 30000, err);

	if (ret > 0)
		fprintf(stderr, "lab: started virtlogd and libvirtd for %s\n", uri);
	return ret < 0 ? -1 : 0;
}

/* A fresh libvirtd probes QEMU's capabilities on its first connection
 * (~20 s under load here): paid now, not from a guest's deadline. */
int libvirt_check(const char *want, struct strbuf *err)
{
	const char *uri = libvirt_uri(want);
	virConnectPtr conn;

	if (ensure_daemons(uri, err) < 0)
		return -1;
	virSetErrorFunc(NULL, quiet_libvirt);
	conn = virConnectOpen(uri);
	if (!conn) {
		add_lv_error(err, uri);
		return -1;
	}
	virConnectClose(conn);
	return 0;
}

int libvirt_domain_busy(const char *want, const char *saved_xml, struct strbuf *err)
{
	char *name = lv_domain_name(saved_xml, strlen(saved_xml));
	virConnectPtr conn;
	virDomainPtr dom;
	int busy = 0;

	if (!name)
		return 0;
	virSetErrorFunc(NULL, quiet_libvirt);
	conn = virConnectOpen(libvirt_uri(want));
	if (conn) {
		sweep_orphans(conn);
		dom = virDomainLookupByName(conn, name);
		if (dom && virDomainIsActive(dom) == 1) {
			strbuf_addf(err, "its domain '%s' runs in another lab's restore", name);
			busy = 1;
		}
		if (dom)
			virDomainFree(dom);
		virConnectClose(conn);
	}
	free(name);
	return busy;
}

static int libvirt_start(struct backend *b, const struct backend_conf *conf, struct strbuf *err)
{
	struct libvirt_priv *p = xcalloc(1, sizeof(*p));

	p->listen_fd[0] = p->listen_fd[1] = -1;
	p->pump[0].fd = p->pump[1].fd = -1;
	p->uri = xstrdup(libvirt_uri(conf->uri));
	p->name = xstrdup(conf->name ? conf->name : "schedlab");
	p->run_dir = conf->run_dir ? xstrdup(conf->run_dir) : NULL;
	b->priv = p;
	p->streams = libvirt_uri_remote(p->uri);
	b->remote = !uri_is_local(p->uri);
	if (ensure_daemons(p->uri, err) < 0)
		return -1;
	virSetErrorFunc(NULL, quiet_libvirt);
	/* the streams' event loop must exist before their connection does */
	if (p->streams && lv_event_loop(err) < 0)
		return -1;
	p->conn = virConnectOpen(p->uri);
	if (!p->conn) {
		add_lv_error(err, p->uri);
		return -1;
	}
	set_version(p, b);
	if (create_domain(p, b, conf, err) < 0) {
		b->ops->stop(b, 10000);
		return -1;
	}
	return 0;
}

static int libvirt_nmi(struct backend *b, struct strbuf *err)
{
	struct libvirt_priv *p = b->priv;

	if (!p || !p->dom || p->destroyed) {
		strbuf_addstr(err, "the domain is not running");
		return -1;
	}
	if (virDomainInjectNMI(p->dom, 0) < 0) {
		add_lv_error(err, "inject NMI");
		return -1;
	}
	return 0;
}

static int libvirt_dump_vcpus(struct backend *b, struct strbuf *out, struct strbuf *err)
{
	struct libvirt_priv *p = b->priv;
	char *res = NULL;

	if (!p || !p->dom || p->destroyed) {
		strbuf_addstr(err, "the domain is not running");
		return -1;
	}
	if (virDomainQemuMonitorCommand(p->dom, "info registers -a", &res,
					VIR_DOMAIN_QEMU_MONITOR_COMMAND_HMP) < 0) {
		add_lv_error(err, "info registers");
		return -1;
	}
	strbuf_addstr(out, res);
	free(res);
	return 0;
}

/* A QMP reply from the passthrough: "return" to *reply, "error" to err. */
int libvirt_qmp_reply(const char *cmd, const char *text, struct json_object **reply,
		      struct strbuf *err)
{
	struct json_object *o = text ? json_read_object(text, strlen(text), 0, cmd, NULL) : NULL;
	struct json_object *v, *desc;
	int ret = -1;

	if (!o) {
		strbuf_addf(err, "%s: unreadable monitor reply", cmd);
	} else if (json_object_object_get_ex(o, "error", &v)) {
		strbuf_addf(err, "%s: %s", cmd, json_object_object_get_ex(v, "desc", &desc) ?
			    json_object_get_string(desc) : "error");
	} else if (!json_object_object_get_ex(o, "return", &v)) {
		strbuf_addf(err, "%s: reply without a return value", cmd);
	} else {
		if (reply)
			*reply = json_object_get(v);
		ret = 0;
	}
	json_object_put(o);
	return ret;
}

/*
 * stop and cont go through libvirt's own suspend and resume, which keep
 * its idea of the domain's state right; anything else is passed through
 * to QEMU's monitor (libvirt then marks the domain "tainted").
 */
static int libvirt_qmp(struct backend *b, const char *cmd, struct json_object *args,
		       struct json_object **reply, struct strbuf *err)
{
	struct libvirt_priv *p = b->priv;
	struct json_object *req;
	char *res = NULL;
	int ret;

	if (!p || !p->dom || p->destroyed) {
		strbuf_addstr(err, "the domain is not running");
		return -1;
	}
	if (!strcmp(cmd, "stop") || !strcmp(cmd, "cont")) {
		ret = !strcmp(cmd, "stop") ? virDomainSuspend(p->dom) : virDomainResume(p->dom);
		if (ret < 0)
			add_lv_error(err, cmd);
		else
			p->lab_paused = !strcmp(cmd, "stop");
		return ret < 0 ? -1 : 0;
	}
	req = json_object_new_object();
	json_object_object_add(req, "execute", json_object_new_string(cmd));
	if (args)
		json_object_object_add(req, "arguments", json_object_get(args));
	ret = virDomainQemuMonitorCommand(p->dom, json_object_to_json_string(req), &res, 0);
	json_object_put(req);
	if (ret < 0) {
		add_lv_error(err, cmd);
		return -1;
	}
	ret = libvirt_qmp_reply(cmd, res, reply, err);
	free(res);
	return ret;
}

/*
 * libvirt follows QEMU's run state itself: its domain state and reason
 * say what QMP's query-status would, one RPC a second (the session asks
 * that often where there is no fd to wait on).
 */
static int libvirt_run_state(struct backend *b, struct backend_state *st, struct strbuf *err)
{
	struct libvirt_priv *p = b->priv;
	const char *state = "";
	int vs, reason;

	memset(st, 0, sizeof(*st));
	if (!p || !p->dom || p->destroyed)
		return 0;
	if (virDomainGetState(p->dom, &vs, &reason, 0) < 0) {
		add_lv_error(err, "virDomainGetState");
		return -1;
	}
	if (vs == VIR_DOMAIN_CRASHED) {
		state = "guest-panicked";
	} else if (vs == VIR_DOMAIN_PAUSED) {
		switch (reason) {
		case VIR_DOMAIN_PAUSED_IOERROR: state = "io-error"; break;
		case VIR_DOMAIN_PAUSED_WATCHDOG: state = "watchdog"; break;
		case VIR_DOMAIN_PAUSED_CRASHED: state = "guest-panicked"; break;
		/* QEMU's internal-error reaches libvirt as a stop it cannot name */
		case VIR_DOMAIN_PAUSED_UNKNOWN:
		case VIR_DOMAIN_PAUSED_USER: state = "paused"; break;
		default: break; /* saving, migrating, starting: the lab's, or passing */
		}
	}
	snprintf(st->state, sizeof(st->state), "%s", state);
	if (*state)
		snprintf(st->cause, sizeof(st->cause), "libvirt domain state %d reason %d", vs, reason);
	st->halted = backend_state_halted(state, p->lab_paused);
	return 0;
}

/*
 * libvirt's own vCPU hotplug: the vCPU must be hotpluggable='yes' in the
 * domain XML (topo-libvirt.c's <vcpus> for hotplug=N).  An unplug waits
 * for the guest's eject for a few seconds; when that times out the request
 * stands, and the caller watches query-cpus-fast as for the QEMU backend.
 */
static int libvirt_vcpu_set(struct backend *b, unsigned vcpu, int online, struct strbuf *err)
{
	struct libvirt_priv *p = b->priv;
	char map[16];
	virErrorPtr e;

	if (!p || !p->dom || p->destroyed) {
		strbuf_addstr(err, "the domain is not running");
		return -1;
	}
	snprintf(map, sizeof(map), "%u", vcpu);
	if (virDomainSetVcpu(p->dom, map, online, VIR_DOMAIN_AFFECT_LIVE) == 0)
		return 0;
	e = virGetLastError();
	if (!online && e && e->code == VIR_ERR_OPERATION_TIMEOUT)
		return 0;
	add_lv_error(err, online ? "virDomainSetVcpu (plug)" : "virDomainSetVcpu (unplug)");
	return -1;
}

/*
 * libvirt's save ends the domain; the run goes on with the guest restored
 * from the image just written (its sockets are this run's still: QEMU
 * connects again, and the new connections take the old fds' numbers, so
 * that the session reads on as before).  The records channel is quiet
 * meanwhile: the runner is parked, waiting for its plan.
 */
static int libvirt_save_file(struct backend *b, const char *image, char **xml,
			     struct strbuf *err)
{
	struct libvirt_priv *p = b->priv;
	int *fd[2] = { &b->console_fd, &b->record_fd };
	char *path[NR_STAGED] = { NULL };
	char *saved;
	int ret = -1;

	if (!p || !p->dom || p->destroyed) {
		strbuf_addstr(err, "the domain is not running");
		return -1;
	}
	if (p->streams || !p->dir[0]) {
		strbuf_addstr(err, "libvirt's save image would be on the hypervisor's host: a local URI saves");
		return -1;
	}
	if (virDomainSaveFlags(p->dom, image, NULL, VIR_DOMAIN_SAVE_RUNNING) < 0) {
		add_lv_error(err, "virDomainSaveFlags");
		return -1;
	}
	p->destroyed = 1;
	saved = virDomainSaveImageGetXMLDesc(p->conn, image, VIR_DOMAIN_SAVE_IMAGE_XML_SECURE);
	if (!saved) {
		add_lv_error(err, "virDomainSaveImageGetXMLDesc");
		return -1;
	}
	for (unsigned i = 0; i < NR_STAGED; i++)
		path[i] = staged_path(p, i);
	if (restore_domain(p, image, saved, path, err) < 0)
		goto out;
	for (unsigned i = 0; i < 2; i++) {
		int nfd = accept_one(p->listen_fd[i], now_ns() + 30000000000ull);

		if (nfd < 0) {
			strbuf_addf(err, "the restored QEMU did not connect to '%s'", path[ST_CONSOLE + i]);
			goto out;
		}
		if (*fd[i] >= 0) {
			dup3(nfd, *fd[i], O_CLOEXEC);
			close(nfd);
		} else {
			*fd[i] = nfd;
		}
	}
	*xml = saved;
	saved = NULL;
	ret = 0;
out:
	for (unsigned i = 0; i < NR_STAGED; i++)
		free(path[i]);
	free(saved);
	return ret;
}

/* libvirt sends QEMU's stderr to virtlogd; the run keeps a copy, as the
 * QEMU backend's qemu.log, and libvirt's log of a transient domain goes. */
static void keep_qemu_log(struct libvirt_priv *p)
{
	char *from, *to, *text;
	size_t len;

	if (!p->run_dir || strcmp(p->uri, "qemu:///system"))
		return;
	from = xasprintf("/var/log/libvirt/qemu/%s.log", p->dom_name ? p->dom_name : p->name);
	text = read_file(from, &len);
	if (text) {
		to = xasprintf("%s/qemu.log", p->run_dir);
		write_file_atomic(to, text, len);
		free(to);
		unlink(from);
	}
	free(text);
	free(from);
}

static int libvirt_stop(struct backend *b, int timeout_ms)
{
	struct libvirt_priv *p = b->priv;
	int ret = 0;

	if (!p || !p->dom || p->destroyed)
		return p && p->dom ? 0 : -1;
	/* a guest that powered off is gone already (on_poweroff: destroy) */
	if (virDomainIsActive(p->dom) == 1 && virDomainDestroy(p->dom) < 0 &&
	    virDomainIsActive(p->dom) == 1) {
		error("cannot destroy libvirt domain '%s': %s", p->name, virGetLastErrorMessage());
		ret = -1;
	}
	p->destroyed = 1;
	/* the ptys are gone with QEMU: the streams end, else we end them */
	if (p->streams)
		lv_pumps_stop(p->pump, 2, timeout_ms < 3000 ? timeout_ms : 3000, timeout_ms);
	keep_qemu_log(p);
	return ret;
}

static void libvirt_release(struct backend *b)
{
	struct libvirt_priv *p = b->priv;

	if (!p)
		return;
	libvirt_stop(b, 10000);
	if (p->dom)
		virDomainFree(p->dom);
	if (p->conn)
		virConnectClose(p->conn);
	for (unsigned i = 0; i < 2; i++)
		if (p->listen_fd[i] >= 0)
			close(p->listen_fd[i]);
	remove_private_dir(p);
	for (unsigned i = 0; i < 2; i++)
		lv_pump_release(&p->pump[i]);
	lv_pool_remove(&p->pool);
	free(p->uri);
	free(p->name);
	free(p->dom_name);
	free(p->restored_xml);
	free(p->run_dir);
	free(p);
	b->priv = NULL;
	backend_close_streams(b);
}

const struct backend_ops *backend_find(const char *name)
{
	if (!name || !*name || !strcmp(name, "qemu"))
		return &backend_qemu;
	if (!strcmp(name, "libvirt"))
		return &backend_libvirt;
	return NULL;
}

const struct backend_ops backend_libvirt = {
	.name = "libvirt",
	.start = libvirt_start,
	.nmi = libvirt_nmi,
	.dump_vcpus = libvirt_dump_vcpus,
	.qmp = libvirt_qmp,
	.run_state = libvirt_run_state,
	.vcpu_set = libvirt_vcpu_set,
	.save_file = libvirt_save_file,
	.stop = libvirt_stop,
	.release = libvirt_release,
};
