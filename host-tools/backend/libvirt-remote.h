/* libvirt-remote.h - what the libvirt backend needs when the hypervisor
 * is not this host: files uploaded into a storage pool there, and serial
 * ports read through console streams.  Everything goes through the libvirt
 * connection; nothing assumes a shared filesystem. */
#ifndef LAB_LIBVIRT_REMOTE_H
#define LAB_LIBVIRT_REMOTE_H

#include "lib/util.h"

#include <libvirt/libvirt.h>
#include <pthread.h>

/* Where the pools' directories go on the hypervisor host (Debian's
 * libvirt-daemon-system makes it, mode 0711). */
#define LV_POOL_BASE "/var/lib/libvirt/images"

/* Our pool names: "<domain>-files-<this host's name>" (see lv_pool_name). */
#define LV_POOL_TAG "-files-"

/*
 * A pool of our own on the hypervisor: persistent while it lives (a
 * transient pool cannot delete its directory), defined, built, started;
 * lv_pool_remove() deletes the volumes, the directory and the definition.
 */
struct lv_pool {
	virStoragePoolPtr pool;
	char *name;
};

/* "<domain>-files-<hostname>", the hostname reduced to [A-Za-z0-9.-]. */
char *lv_pool_name(const char *domain);
/* The pid in a pool name of ours made on this host, else 0. */
long lv_pool_name_pid(const char *pool_name);
/* The pool's XML: a dir pool under LV_POOL_BASE that QEMU can enter. */
char *lv_pool_xml(const char *name);
/* A raw volume of size bytes, readable by QEMU's unprivileged user. */
char *lv_vol_xml(const char *name, unsigned long long size);

int lv_pool_create(virConnectPtr conn, const char *domain, struct lv_pool *p,
		   struct strbuf *err);
/* Uploads the local file from as volume vol; its path on the hypervisor
 * (caller frees) in *path. */
int lv_pool_upload(virConnectPtr conn, struct lv_pool *p, const char *vol, const char *from,
		   char **path, struct strbuf *err);
/* Volumes, directory, definition: gone.  Safe on a half-made pool. */
void lv_pool_remove(struct lv_pool *p);
/* Pools left by labs on this host that were killed: their pid is gone. */
void lv_pool_sweep(virConnectPtr conn);

/* libvirt's default event loop, run by a thread of ours (started once;
 * before the connection the streams use is opened). */
int lv_event_loop(struct strbuf *err);

/*
 * A console stream bridged to one end of a socketpair: non-blocking, its
 * callback (in the event loop's thread) writes what arrives; EOF or an
 * error of the stream closes its end, so the session sees EOF on *fd.
 */
struct lv_pump {
	virStreamPtr st;
	int fd;			/* our end; -1 once closed */
	pthread_mutex_t lock;	/* the callback against stop */
	int inited;		/* lock is initialised */
	int running;		/* the callback is registered and not stopped */
	int quit;		/* stop writing to a full socket */
	int done;		/* the stream is over and fd closed */
};

/* Opens the domain's serial port dev ("serial0") as a stream and watches
 * it; *session_fd gets the session's end. */
int lv_pump_start(virConnectPtr conn, virDomainPtr dom, const char *dev, struct lv_pump *pp,
		  int *session_fd, struct strbuf *err);
/* Waits for the pumps to end on their own (the domain is gone) until
 * grace_ms, then aborts their streams.  Returns 0. */
int lv_pumps_stop(struct lv_pump *pp, unsigned n, int grace_ms, int timeout_ms);
void lv_pump_release(struct lv_pump *pp);

#endif
