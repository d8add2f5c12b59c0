/* libvirt-remote.c - a hypervisor on another host: kernel and initrd go
 * into a storage pool of ours there, the serial ports come back as console
 * streams bridged to socketpairs by one thread each. */
#define _GNU_SOURCE
#include "backend/libvirt-remote.h"
#include "topo/topo.h"
#include "common/io.h"

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
	return (int)xread(*(int *)opaque, data, nbytes);
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

/*
 * Streams are non-blocking and driven by libvirt's default event loop in
 * one thread of ours: a thread blocked in virStreamRecv() holds the
 * connection's I/O, and another thread's RPC (an NMI on a HANG) can then
 * wait for its reply indefinitely.  With the event loop the connection's
 * socket is watched by that thread, RPCs from the session go and return
 * as usual, and each stream's callback drains what arrived into its
 * socketpair.  The loop thread lives as long as the process.
 */
static pthread_once_t loop_once = PTHREAD_ONCE_INIT;
static int loop_ok;

static void *loop_main(void *arg)
{
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			usleep(10000);
	return NULL;
}

static void tick(int timer, void *opaque)
{
	/* keeps the loop iterating: poll() never sleeps unbounded */
}

static void loop_start(void)
{
	pthread_t t;

	if (virEventRegisterDefaultImpl() < 0 || virEventAddTimeout(1000, tick, NULL, NULL) < 0)
		return;
	if (pthread_create(&t, NULL, loop_main, NULL))
		return;
	pthread_detach(t);
	loop_ok = 1;
}

int lv_event_loop(struct strbuf *err)
{
	pthread_once(&loop_once, loop_start);
	if (!loop_ok) {
		add_lv_error(err, "cannot start libvirt's event loop");
		return -1;
	}
	return 0;
}

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
		if (__atomic_load_n(&pp->quit, __ATOMIC_ACQUIRE))
			return -1;
		poll(&pfd, 1, 100);
	}
	return 0;
}

/* Under pp->lock: the stream is over (eof) or broken; its end closes. */
static void pump_end(struct lv_pump *pp, int eof)
{
	if (pp->done)
		return;
	virStreamEventRemoveCallback(pp->st);
	if (eof)
		virStreamFinish(pp->st);
	else
		virStreamAbort(pp->st);
	close(pp->fd);
	pp->fd = -1;
	__atomic_store_n(&pp->done, 1, __ATOMIC_RELEASE);
}

static void pump_event(virStreamPtr st, int events, void *opaque)
{
	struct lv_pump *pp = opaque;
	char buf[16384];
	int n;

	pthread_mutex_lock(&pp->lock);
	while (!pp->done) {
		n = virStreamRecv(st, buf, sizeof(buf));
		if (n == -2)
			break;		/* nothing more for now */
		if (n <= 0 || pump_write(pp, buf, (size_t)n) < 0) {
			pump_end(pp, n == 0);
			break;
		}
	}
	pthread_mutex_unlock(&pp->lock);
}

int lv_pump_start(virConnectPtr conn, virDomainPtr dom, const char *dev, struct lv_pump *pp,
		  int *session_fd, struct strbuf *err)
{
	int sv[2], big = 1 << 20;

	memset(pp, 0, sizeof(*pp));
	pp->fd = -1;
	pthread_mutex_init(&pp->lock, NULL);
	pp->inited = 1;
	pp->st = virStreamNew(conn, VIR_STREAM_NONBLOCK);
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
	if (virStreamEventAddCallback(pp->st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
				      VIR_STREAM_EVENT_HANGUP, pump_event, pp, NULL) < 0) {
		add_lv_error(err, "cannot watch the console stream");
		return -1;
	}
	pp->running = 1;
	return 0;
}

int lv_pumps_stop(struct lv_pump *pp, unsigned n, int grace_ms, int timeout_ms)
{
	uint64_t grace = now_ns() + (uint64_t)grace_ms * 1000000ull;

	/* the domain is gone: its streams end by themselves, normally */
	for (unsigned i = 0; i < n; i++)
		while (pp[i].running && !__atomic_load_n(&pp[i].done, __ATOMIC_ACQUIRE) &&
		       now_ns() < grace)
			usleep(10000);
	for (unsigned i = 0; i < n; i++) {
		if (!pp[i].running)
			continue;
		/* a callback stuck writing to a full socket gives up */
		__atomic_store_n(&pp[i].quit, 1, __ATOMIC_RELEASE);
		pthread_mutex_lock(&pp[i].lock);
		pump_end(&pp[i], 0);
		pthread_mutex_unlock(&pp[i].lock);
		pp[i].running = 0;
	}
	return 0;
}

void lv_pump_release(struct lv_pump *pp)
{
	if (pp->running)
		lv_pumps_stop(pp, 1, 0, 2000);
	if (pp->st)
		virStreamFree(pp->st);
	pp->st = NULL;
	/* a pump that never started leaves its end to us */
	if (pp->fd >= 0)
		close(pp->fd);
	pp->fd = -1;
	if (pp->inited)
		pthread_mutex_destroy(&pp->lock);
	pp->inited = 0;
}
