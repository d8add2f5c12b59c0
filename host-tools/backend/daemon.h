/* daemon.h - the libvirt daemons a qemu:///system connection needs:
 * started by the lab when they are not running and it is root. */
#ifndef LAB_DAEMON_H
#define LAB_DAEMON_H

#include "lib/util.h"

/* Where Debian's libvirt 9.0 listens (no systemd socket activation here). */
#define LIBVIRTD_SOCK "/run/libvirt/libvirt-sock"
#define VIRTLOGD_SOCK "/run/libvirt/virtlogd-sock"

/* 1 when something accepts connections on the unix socket at path. */
int unix_socket_alive(const char *path);

/*
 * For a local qemu:///system URI, makes sure virtlogd and libvirtd are
 * running: starts them (`virtlogd -d`, `libvirtd -d`) when we are root
 * and waits up to timeout_ms for their sockets.  Other URIs are left to
 * libvirt.  Returns 1 when it started a daemon, 0 when nothing was
 * needed, -1 with one line in err (what to start, when not root).
 */
int libvirt_daemons_ensure(const char *uri, int timeout_ms, struct strbuf *err);

#endif
