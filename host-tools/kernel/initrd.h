/* initrd.h - builds the guest initrd (busybox, /init, the static runner) as
 * an uncompressed newc cpio archive, and caches it by content. */
#ifndef LAB_INITRD_H
#define LAB_INITRD_H

#include <stddef.h>

#include "lib/util.h"
#include "topo/topo.h"

/*
 * A newc ("070701") cpio archive assembled in memory.  Names are stored
 * without a leading '/'; uid, gid and mtime are 0 so the same inputs
 * always give the same bytes.  Linux unpacks concatenated archives, so a
 * caller may append a second one (a scenario plan) to a cached initrd.
 * cpio_release() frees the buffer; cpio_finish() adds the trailer.
 */
struct cpio {
	struct strbuf buf;
	unsigned next_ino;
};
#define CPIO_INIT { STRBUF_INIT, 1 }
void cpio_add_dir(struct cpio *c, const char *name, unsigned perm);
void cpio_add_chardev(struct cpio *c, const char *name, unsigned perm,
		      unsigned major, unsigned minor);
/* len must fit the format's 32-bit size field: -1 otherwise. */
int cpio_add_file(struct cpio *c, const char *name, unsigned perm,
		  const void *data, size_t len);
void cpio_finish(struct cpio *c);
void cpio_release(struct cpio *c);

/*
 * Where the inputs come from:
 *   /init        <lab_root()>/guest/init
 *   /bin/busybox $LAB_BUSYBOX, else /bin/busybox; must be statically linked
 *   /bin/runner  $LAB_RUNNER, else <dir of this binary>/guest/runner,
 *                else <lab_root()>/build/guest/runner; must be static too
 */

/* 0 when d (len bytes of path) is an ELF executable without a PT_INTERP
 * header: one the initrd can run; else -1 with one line in err naming
 * what (busybox, runner, or a scheduler) and what to do. */
int initrd_check_static(const char *what, const char *path, const unsigned char *d,
			size_t len, struct strbuf *err);

/* Fills path (PATH_MAX bytes) with the runner binary, in the order above;
 * the host runs the same static binary to check plans before a boot. */
int initrd_find_runner(char *path, struct strbuf *err);

/* Writes the initrd to out_path atomically (a temporary file renamed into
 * place).  On error returns -1 with one line in err and leaves no file. */
int initrd_build(const char *out_path, struct strbuf *err);

/*
 * Builds into <lab_cache_dir()>/initrd/<hash of the inputs>.cpio unless
 * that file exists, and returns its path: a static buffer, valid until
 * the next call, not to be freed.  NULL with one line in err on error.
 */
const char *initrd_cached(struct strbuf *err);
/* The same for a guest of arch: Debian's busybox-static of that arch
 * (kernel_fetch_busybox()) and build/guest-<uname -m>/runner. */
const char *initrd_cached_arch(enum topo_arch arch, struct strbuf *err);

#endif
