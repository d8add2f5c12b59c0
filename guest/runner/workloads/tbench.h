/* tbench.h - the parts of the tbench workload its unit tests reach: the
 * operation mix, the wire header, one server and one client. */
#ifndef LAB_TBENCH_H
#define LAB_TBENCH_H

#include <stddef.h>
#include <stdint.h>

#include "../workload.h"
#include "../wlproc.h"

/*
 * dbench's tbench mode replays an SMB trace over TCP with the file system
 * left out: small requests, replies from a few dozen bytes to 64 KiB, one
 * request in flight per client, one forked server per connection.  We
 * keep that shape with a fixed cycle of operations instead of the trace,
 * so every run moves the same bytes in the same order.
 *
 * Like tbench, throughput counts only the file data moved (what a ReadX
 * returns; tbench also counts what a WriteX sends), in 10^6 bytes.  The
 * cycle's data is 5376 bytes an operation, client.txt's (the loadfile
 * Debian's dbench ships) 5428: 2.49 GB of ReadX and WriteX data over
 * 458344 operations.  We have no large requests, so client.txt's writes
 * are carried as reads (docs/workloads.md has the measured ratios).
 */
#define TB_MIX_LEN 16

struct tb_op {
	const char *name;
	uint32_t request, reply;   /* bytes on the wire, header included */
	uint32_t data;             /* of those, file data: what tbench counts */
};

#define TB_HDR 8
#define TB_REPLY_HDR 4             /* every reply in the mix is longer */
#define TB_MAX_REQUEST 4096
#define TB_MAX_REPLY 65536

struct tb_slot {
	uint64_t ops, bytes, data; /* written by one client only */
} __attribute__((aligned(64)));

struct tb_shared {
	int stop;
	struct tb_slot slot[];
};

struct tb {
	struct wl_ctx *ctx;
	unsigned clients;
	struct tb_shared *sh;      /* in procs' shared memory */
	struct wl_procs procs;
};

void tb_encode(unsigned char *buf, const struct tb_op *op);
int tb_decode(const unsigned char *buf, uint32_t *request, uint32_t *reply);
int tb_serve(int fd, unsigned char *buf, char *why, size_t len);
int tb_client(struct tb *tb, unsigned idx, int fd, unsigned char *buf);
extern const struct tb_op tb_mix[TB_MIX_LEN];

#endif
