/* daemon.c - starts virtlogd and libvirtd for qemu:///system when they
 * are not running: CI machines and containers have no systemd to do it. */
#define _GNU_SOURCE
#include "backend/daemon.h"
#include "lib/child.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int unix_socket_alive(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ok;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 0;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

static int is_local_system_uri(const char *uri)
{
	return !strcmp(uri, "qemu:///system");
}

/* `NAME -d` forks the daemon and returns; its exit status says whether
 * the daemon could initialise (a stale pid file, a bad config). */
static int start_daemon(const char *name, const char *sock, uint64_t deadline_ns,
			struct strbuf *err)
{
	const char *argv[] = { name, "-d", NULL };
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	int rc = run_command_capture(argv, 30000, &out, &errout);

	strbuf_release(&out);
	if (rc != 0) {
		char *nl = strchr(errout.buf, '\n');

		if (nl)
			*nl = '\0';
		strbuf_addf(err, "cannot start %s (exit %d)%s%s", name, rc,
			    errout.len ? ": " : "", errout.buf);
		strbuf_release(&errout);
		return -1;
	}
	strbuf_release(&errout);
	while (!unix_socket_alive(sock)) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (now_ns() > deadline_ns) {
			strbuf_addf(err, "%s started but '%s' accepts no connection", name, sock);
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

int libvirt_daemons_ensure(const char *uri, int timeout_ms, struct strbuf *err)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	if (!is_local_system_uri(uri) || unix_socket_alive(LIBVIRTD_SOCK))
		return 0;
	if (geteuid() != 0) {
		strbuf_addf(err, "libvirtd is not running for %s; as root start it with "
			    "'virtlogd -d' and 'libvirtd -d' (or set LIBVIRT_URI)", uri);
		return -1;
	}
	/* libvirtd hands QEMU's stderr to virtlogd: it must come first */
	if (!unix_socket_alive(VIRTLOGD_SOCK) &&
	    start_daemon("virtlogd", VIRTLOGD_SOCK, deadline, err) < 0)
		return -1;
	if (start_daemon("libvirtd", LIBVIRTD_SOCK, deadline, err) < 0)
		return -1;
	return 1;
}
