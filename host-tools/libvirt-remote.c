/* libvirt-remote.c - a hypervisor on another host: kernel and initrd go
 * into a storage pool of ours there, the serial ports come back as console
 * streams bridged to socketpairs by one thread each. */
#define _GNU_SOURCE
#include "libvirt-remote.h"
#include "topo.h"

#include <errno.h>
#include <libvirt/virterror.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void add_lv_error(struct strbuf *err, const char *what)
{
	const char *msg = virGetLastErrorMessage();

	strbuf_addf(err, "%s: %s", what, msg && *msg ? msg : "unknown libvirt error");
}

static void host_slug(struct strbuf *sb)
{
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "localhost");
	for (size_t i = 0; host[i] && i < 64; i++) {
		char c = host[i];

		strbuf_addch(sb, (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '.' || c == '-' ? c : '_');
	}
}

char *lv_pool_name(const char *domain)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s%s", domain, LV_POOL_TAG);
	host_slug(&sb);
	return strbuf_detach(&sb);
}

long lv_pool_name_pid(const char *pool_name)
{
	struct strbuf tail = STRBUF_INIT;
	char *end;
	long pid;
	int ours;

	if (strncmp(pool_name, "schedlab-", 9))
		return 0;
	errno = 0;
	pid = strtol(pool_name + 9, &end, 10);
	if (errno || end == pool_name + 9 || pid <= 0)
		return 0;
	strbuf_addstr(&tail, LV_POOL_TAG);
	host_slug(&tail);
	ours = !strcmp(end, tail.buf);
	strbuf_release(&tail);
	return ours ? pid : 0;
}

char *lv_pool_xml(const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "<pool type='dir'>\n  <name>");
	topo_xml_escape(&sb, name);
	strbuf_addstr(&sb, "</name>\n  <target>\n    <path>" LV_POOL_BASE "/");
	topo_xml_escape(&sb, name);
	strbuf_addstr(&sb, "</path>\n    <permissions>\n      <mode>0755</mode>\n"
		      "    </permissions>\n  </target>\n</pool>\n");
	return strbuf_detach(&sb);
}

char *lv_vol_xml(const char *name, unsigned long long size)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "<volume>\n  <name>");
	topo_xml_escape(&sb, name);
	strbuf_addf(&sb, "</name>\n  <allocation unit='bytes'>0</allocation>\n"
		    "  <capacity unit='bytes'>%llu</capacity>\n  <target>\n"
		    "    <format type='raw'/>\n    <permissions>\n      <mode>0644</mode>\n"
		    "    </permissions>\n  </target>\n</volume>\n", size);
	return strbuf_detach(&sb);
}

int lv_pool_create(virConnectPtr conn, const char *domain, struct lv_pool *p,
		   struct strbuf *err)
{
	char *xml;

	p->name = lv_pool_name(domain);
	xml = lv_pool_xml(p->name);
	p->pool = virStoragePoolDefineXML(conn, xml, 0);
	free(xml);
	if (!p->pool) {
		add_lv_error(err, "cannot define the storage pool for kernel and initrd");
		return -1;
	}
	if (virStoragePoolBuild(p->pool, 0) < 0) {
		add_lv_error(err, "cannot build the storage pool's directory");
		return -1;
	}
	if (virStoragePoolCreate(p->pool, 0) < 0) {
		add_lv_error(err, "cannot start the storage pool");
		return -1;
	}
	return 0;
}

static int read_source(virStreamPtr st, char *data, size_t nbytes, void *opaque)
{
	ssize_t n;

	do
		n = read(*(int *)opaque, data, nbytes);
	while (n < 0 && errno == EINTR);
	return (int)n;
}

int lv_pool_upload(virConnectPtr conn, struct lv_pool *p, const char *vol, const char *from,
		   char **path, struct strbuf *err)
{
	int fd = open(from, O_RDONLY | O_CLOEXEC), ret = -1;
	virStorageVolPtr v = NULL;
	virStreamPtr st = NULL;
	struct stat sb;
	char *xml;

	if (fd < 0 || fstat(fd, &sb) < 0) {
		strbuf_addf(err, "cannot open '%s': %s", from, strerror(errno));
		goto out;
	}
	xml = lv_vol_xml(vol, (unsigned long long)sb.st_size);
	v = virStorageVolCreateXML(p->pool, xml, 0);
	free(xml);
	if (!v) {
		add_lv_error(err, "cannot create a volume for the upload");
		goto out;
	}
	st = virStreamNew(conn, 0);
	if (!st || virStorageVolUpload(v, st, 0, (unsigned long long)sb.st_size, 0) < 0) {
		add_lv_error(err, "cannot start the upload");
		goto out;
	}
	if (virStreamSendAll(st, read_source, &fd) < 0) {
		add_lv_error(err, "upload of the kernel or initrd failed");
		virStreamAbort(st);
		goto out;
	}
	if (virStreamFinish(st) < 0) {
		add_lv_error(err, "upload of the kernel or initrd did not finish");
		goto out;
	}
	*path = virStorageVolGetPath(v);
	if (!*path) {
		add_lv_error(err, "no path for the uploaded volume");
		goto out;
	}
	ret = 0;
out:
	if (st)
		virStreamFree(st);
	if (v)
		virStorageVolFree(v);
	if (fd >= 0)
		close(fd);
	return ret;
}

static void pool_delete(virStoragePoolPtr pool)
{
	virStorageVolPtr *vols = NULL;
	int n;

	/* an inactive pool lists no volumes: start it to empty it */
	if (virStoragePoolIsActive(pool) != 1)
		virStoragePoolCreate(pool, 0);
	n = virStoragePoolListAllVolumes(pool, &vols, 0);
	for (int i = 0; i < n; i++) {
		virStorageVolDelete(vols[i], 0);
		virStorageVolFree(vols[i]);
	}
	free(vols);
	if (virStoragePoolIsActive(pool) == 1)
		virStoragePoolDestroy(pool);
	virStoragePoolDelete(pool, 0);
	virStoragePoolUndefine(pool);
}

void lv_pool_remove(struct lv_pool *p)
{
	if (p->pool) {
		pool_delete(p->pool);
		virStoragePoolFree(p->pool);
	}
	p->pool = NULL;
	free(p->name);
	p->name = NULL;
}

void lv_pool_sweep(virConnectPtr conn)
{
	virStoragePoolPtr *pools = NULL;
	int n = virConnectListAllStoragePools(conn, &pools, 0);

	for (int i = 0; i < n; i++) {
		const char *name = virStoragePoolGetName(pools[i]);
		long pid = name ? lv_pool_name_pid(name) : 0;

		if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			fprintf(stderr, "lab: removing storage pool '%s' of a killed lab\n", name);
			pool_delete(pools[i]);
		}
		virStoragePoolFree(pools[i]);
	}
	free(pools);
}

/* ---- console streams ---- */

/* Everything, unless we are told to quit while the session does not read. */
static int pump_write(struct lv_pump *pp, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(pp->fd, buf, len);
		struct pollfd pfd = { .fd = pp->fd, .events = POLLOUT };

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -1;
		if (pp->quit)
			return -1;
		poll(&pfd, 1, 100);
	}
	return 0;
}

static void *pump_main(void *arg)
{
	struct lv_pump *pp = arg;
	char buf[16384];
	int n;

	for (;;) {
		n = virStreamRecv(pp->st, buf, sizeof(buf));
		if (n <= 0 || pump_write(pp, buf, (size_t)n) < 0)
			break;
	}
	if (n == 0)
		virStreamFinish(pp->st);
	close(pp->fd);
	pp->fd = -1;
	__atomic_store_n(&pp->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int lv_pump_start(virConnectPtr conn, virDomainPtr dom, const char *dev, struct lv_pump *pp,
		  int *session_fd, struct strbuf *err)
{
	int sv[2], big = 1 << 20;

	memset(pp, 0, sizeof(*pp));
	pp->fd = -1;
	pp->st = virStreamNew(conn, 0);
	if (!pp->st) {
		add_lv_error(err, "cannot make a stream");
		return -1;
	}
	if (virDomainOpenConsole(dom, dev, pp->st, VIR_DOMAIN_CONSOLE_FORCE) < 0) {
		strbuf_addf(err, "%s ", dev);
		add_lv_error(err, "console");
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		strbuf_addf(err, "socketpair: %s", strerror(errno));
		return -1;
	}
	/* the session reads between host faults: room for a burst */
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	pp->fd = sv[1];
	*session_fd = sv[0];
	if (pthread_create(&pp->thread, NULL, pump_main, pp)) {
		strbuf_addf(err, "cannot start the %s pump thread", dev);
		return -1;
	}
	pp->running = 1;
	return 0;
}

static int join_until(struct lv_pump *pp, uint64_t deadline)
{
	struct timespec ts;
	uint64_t now = now_ns(), left = deadline > now ? deadline - now : 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(left / 1000000000ull);
	ts.tv_nsec += (long)(left % 1000000000ull);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(pp->thread, NULL, &ts))
		return -1;
	pp->running = 0;
	return 0;
}

int lv_pumps_stop(struct lv_pump *pp, unsigned n, int grace_ms, int timeout_ms)
{
	uint64_t start = now_ns();
	uint64_t grace = start + (uint64_t)grace_ms * 1000000ull;
	uint64_t end = start + (uint64_t)timeout_ms * 1000000ull;
	int stuck = 0;

	for (unsigned i = 0; i < n; i++)
		if (pp[i].running)
			join_until(&pp[i], grace < end ? grace : end);
	for (unsigned i = 0; i < n; i++) {
		if (!pp[i].running)
			continue;
		/* still blocked in virStreamRecv, or writing to a full socket */
		pp[i].quit = 1;
		virStreamAbort(pp[i].st);
		if (join_until(&pp[i], end) < 0) {
			pthread_detach(pp[i].thread);
			pp[i].running = 0;
			pp[i].detached = 1;
			pp[i].st = NULL;	/* the thread may still use it: leaked */
			stuck++;
		}
	}
	return stuck;
}

void lv_pump_release(struct lv_pump *pp)
{
	if (pp->running)
		lv_pumps_stop(pp, 1, 0, 2000);
	if (pp->st)
		virStreamFree(pp->st);
	pp->st = NULL;
	/* a thread that never started leaves its end to us */
	if (pp->fd >= 0 && !pp->detached && !__atomic_load_n(&pp->done, __ATOMIC_ACQUIRE))
		close(pp->fd);
	pp->fd = -1;
}
