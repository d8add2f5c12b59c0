/* migstream.h - QEMU's migration stream rewritten on its way into a warm
 * start snapshot: the guest RAM pages that are all zeros are left out. */
#ifndef LAB_MIGSTREAM_H
#define LAB_MIGSTREAM_H

#include <stdint.h>

#include "lib/util.h"

struct migstream_stats {
	uint64_t pages;		/* RAM pages with data, kept */
	uint64_t zero_dropped;	/* zero pages of guest RAM left out */
	uint64_t zero_kept;	/* zero pages of other blocks (ROMs, firmware) */
	int passthrough;	/* a part the filter does not know went through as it was */
};

/*
 * Copies the stream from in to out until in ends.  A QEMU loading a stream
 * starts from guest RAM that is all zeros (fresh anonymous memory), so a
 * zero page of guest RAM ("pc.ram", "mem<N>") needs no record: leaving it
 * out spares the restoring QEMU a read of each of its 4 KiB pages (on a
 * 2s64c guest two million of them, most of the restore's time).  ROM and
 * firmware blocks keep every record: QEMU fills those before loading.
 * What the filter does not know (another stream version, a RAM record it
 * cannot size, another iterative device) goes through unchanged from that
 * point on, unless a record was already left out in a way the rest would
 * depend on: then -1 with one line in err.  The fds are borrowed.
 */
int migstream_drop_zero_pages(int in, int out, struct migstream_stats *st, struct strbuf *err);

#endif
