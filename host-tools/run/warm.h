/* warm.h - warm start: a booted, verified guest parked before its plan is
 * saved once per key in <cache>/snapshots/<key>/ and restored by later runs. */
#ifndef LAB_WARM_H
#define LAB_WARM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "lib/child.h"
#include "lib/util.h"

#define WARM_KEY_HEX 65

/*
 * The snapshot key: SHA-256 over the backend name (and libvirt's URI: an
 * image libvirtd saved restores only there), the QEMU version, the
 * complete QEMU command line conf gives (topology, accelerator, TCG
 * threads, firmware, kernel command line with SMT and sched_feat
 * variants) and the kernel and initrd files (contents, or the identity
 * of a file over 16 MiB: path, inode, size, mtime).  lpj=, the
 * host's TSC rate measured again at each run, is left out: it only
 * steers a boot that a restored guest does not repeat.  -1 with err when
 * a file cannot be read.
 */
int warm_key(const struct backend_conf *conf, const char *backend, const char *qemu_version,
	     char key[WARM_KEY_HEX], struct strbuf *err);

/* The text warm_key() hashes before the file contents (for tests). */
void warm_key_text(const struct backend_conf *conf, const char *backend,
		   const char *qemu_version, struct strbuf *out);

/*
 * One warm start.  warm_init() finds the snapshot of key under
 * lab_cache_dir()/snapshots; restoring is set when there is one.
 * Owns every string and the decompressor child; warm_release() frees
 * them (and removes a half-written snapshot).
 */
struct warm {
	char key[WARM_KEY_HEX];
	struct strbuf dir;          /* <cache>/snapshots/<key> */
	int restoring;
	struct strbuf prefix;       /* restore: records.bin up to the park */
	struct strbuf plan_frame;   /* WIRE_PLAN frame with seed and clock */
	struct child_process unzip; /* restore: zstd -d feeding QEMU */
	int saved;                  /* this run wrote the snapshot */
	double save_s;              /* how long the save took */
	struct strbuf saved_xml;    /* libvirt restore: the domain XML saved */
	char *fifo_dir;             /* libvirt restore: the FIFO libvirtd reads, */
	char *fifo_path;            /* in a directory of its own */
	pthread_t fifo_kick;        /* see warm.c's kick_fifo() */
	int fifo_kick_started;
	volatile int fifo_kick_stop;
	int busy;                   /* libvirt restore: another lab runs the
	                             * snapshot's domain; it stays, unused */
	char why[256];              /* why a save or restore failed, one line */
};

void warm_init(struct warm *w, const char *key);
void warm_release(struct warm *w);

/*
 * The WIRE_PLAN frame into w->plan_frame: a seed for the guest's RNG, its
 * wall clock, what the guest sets before the plan (set: "sched_feat=..\n"
 * and "sched_knob=..\n" lines, or NULL), the plan.  seed 0 (the wall
 * clock): a fresh host seed and the host's time.  Else (the virtual
 * clock) 32 bytes that follow from seed alone and no clock (the guest
 * keeps the saved one), so a restore has no input that differs from run
 * to run.  -1 with err for a plan over the wire's limit.
 */
int warm_plan_frame(struct warm *w, const char *plan, size_t len, unsigned seed, const char *set,
		    struct strbuf *err);
/* The frame in a file of its own (QEMU -fw_cfg name=WIRE_FWCFG_PLAN,file=):
 * a temporary path the caller unlinks and frees, or NULL with err. */
char *warm_plan_file(const struct warm *w, struct strbuf *err);

/* The seq after the WIRE_LOG_PARKED record in buf (records of a parked
 * runner); -1 when there is none. */
int warm_prefix_next_seq(const char *buf, size_t len, uint32_t *seq);
/* 1 when the parked runner of buf can read fw_cfg (it did not send
 * WIRE_LOG_NO_FWCFG before parking), 0 when not or not parked. */
int warm_prefix_reads_fwcfg(const char *buf, size_t len);

/* Restore: loads prefix.bin and starts the decompressor; conf->restore and
 * conf->incoming_fd (qemu) or conf->restore_path and restore_xml (libvirt:
 * a FIFO the decompressor feeds libvirtd through) are set.  -1 with err:
 * the snapshot is unusable, or with w->busy: in use by another lab. */
int warm_restore_begin(struct warm *w, struct backend_conf *conf, struct strbuf *err);
/* After the backend started (or failed): reaps the decompressor. */
void warm_restore_end(struct warm *w);

/* Deletes the snapshot (it failed to restore). */
void warm_drop(struct warm *w);

/*
 * The parked guest on a boot: saves it through b->ops->save() (or, under
 * libvirt, save_file(): libvirt's save image, compressed afterwards, and
 * its domain XML as saved.xml) into a temporary directory (state.zst,
 * prefix.bin from run_dir/records.bin, meta.json) renamed into place, so
 * that two labs saving the same key never leave a half snapshot.  -1 with
 * w->why set; the run goes on.
 */
int warm_save(struct warm *w, struct backend *b, const char *run_dir, uint64_t guest_ram_mib);

#endif
