/* out.h - the runner's side of the wire: one output stream of framed
 * records (serial port, file or stdout), each write checked. */
#ifndef RUNNER_OUT_H
#define RUNNER_OUT_H

#include <stddef.h>
#include <stdint.h>

struct out {
	int fd;
	int owned;         /* opened by out_open(), so out_close() closes it */
	int is_tty;
	uint32_t seq;      /* sequence number of the next record */
	int text;          /* frames go out as wiretext lines (lab.records=console) */
	uint32_t stream;   /* text: this runner start's stream id */
	const char *name;  /* for messages; not owned */
};

/* "-" is stdout; a tty is switched to raw mode so no byte is rewritten. */
int out_open(struct out *o, const char *path);
/* The same for a channel the host also writes to (a parked runner reads
 * its plan there): opened read-write, and it must be a tty. */
int out_open_duplex(struct out *o, const char *path);
/* The console transport (common/wiretext.h): every frame as SLRT text
 * lines on /dev/console, which stays cooked for the kernel's own lines. */
int out_open_console(struct out *o);
/* Frames and writes one record; -1 with a message on stderr on failure. */
int out_record(struct out *o, uint16_t type, const void *payload, size_t len);
/* Sends WIRE_END with the count of records so far. */
int out_end(struct out *o);
/* Waits until a tty has transmitted everything, then closes. */
int out_close(struct out *o);

/*
 * Collects "path=value\n" lines and sends them as WIRE_SYSFS records,
 * each payload below 64 KiB so a reader never needs a big buffer.
 */
#define SYSFS_PAYLOAD_MAX (64u * 1024 - 1)
struct sysfs_batch {
	struct out *out;
	size_t len;
	char buf[SYSFS_PAYLOAD_MAX];
};
void sysfs_batch_init(struct sysfs_batch *b, struct out *o);
int sysfs_batch_add(struct sysfs_batch *b, const char *line, size_t len);
int sysfs_batch_flush(struct sysfs_batch *b);

void runner_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
