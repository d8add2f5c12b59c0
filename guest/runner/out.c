/* out.c - writes framed records to the runner's output (the second serial
 * port in a guest, a file or stdout on bare metal) with checked writes. */
#define _GNU_SOURCE
#include "out.h"
#include "common/io.h"
#include "common/wire.h"
#include "common/wiretext.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>

void runner_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dprintf(2, "runner: error: %s\n", msg);
}


static int open_flags(struct out *o, const char *path, int flags)
{
	memset(o, 0, sizeof(*o));
	o->name = path;
	if (!strcmp(path, "-")) {
		o->fd = 1;
	} else {
		o->fd = open(path, flags | O_NOCTTY | O_CLOEXEC, 0644);
		if (o->fd < 0) {
			runner_error("cannot open '%s': %s", path, strerror(errno));
			return -1;
		}
		o->owned = 1;
	}
	if (isatty(o->fd)) {
		struct termios t;

		/* A cooked tty would turn every \n of a frame into \r\n. */
		if (tcgetattr(o->fd, &t) < 0) {
			runner_error("cannot get tty attributes of '%s': %s", path, strerror(errno));
			return -1;
		}
		cfmakeraw(&t);
		if (tcsetattr(o->fd, TCSANOW, &t) < 0) {
			runner_error("cannot set raw mode on '%s': %s", path, strerror(errno));
			return -1;
		}
		o->is_tty = 1;
	}
	return 0;
}

int out_open(struct out *o, const char *path)
{
	return open_flags(o, path, O_WRONLY | O_CREAT | O_TRUNC);
}

int out_open_duplex(struct out *o, const char *path)
{
	if (open_flags(o, path, O_RDWR) < 0)
		return -1;
	if (!o->is_tty) {
		runner_error("'%s' is not a tty: nothing can send a plan there", path);
		out_close(o);
		return -1;
	}
	return 0;
}

int out_open_console(struct out *o)
{
	struct timespec ts;

	memset(o, 0, sizeof(*o));
	o->name = "/dev/console";
	o->fd = open(o->name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0) {
		runner_error("cannot open '%s': %s", o->name, strerror(errno));
		return -1;
	}
	o->owned = 1;
	o->is_tty = isatty(o->fd);
	o->text = 1;
	/* early in boot the pool may not be ready: the clock is enough to
	 * tell two runner starts in one console apart */
	if (getrandom(&o->stream, sizeof(o->stream), GRND_NONBLOCK) != sizeof(o->stream)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		o->stream = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec ^ (uint32_t)getpid() << 16;
	}
	return 0;
}

/* Lines are batched so one write() carries many: a tty write is not
 * interleaved with another process's, only the kernel's printk can cut in. */
struct text_batch {
	struct out *o;
	size_t len;
	char buf[2048];
};

static int text_flush(struct text_batch *b)
{
	if (b->len && write_in_full(b->o->fd, b->buf, b->len) < 0)
		return -1;
	b->len = 0;
	return 0;
}

static int text_line(const char *line, size_t len, void *ctx)
{
	struct text_batch *b = ctx;

	if (b->len + len > sizeof(b->buf) && text_flush(b) < 0)
		return -1;
	memcpy(b->buf + b->len, line, len);
	b->len += len;
	return 0;
}

static int write_frame(struct out *o, const uint8_t *frame, size_t flen)
{
	struct text_batch b = { .o = o };

	if (!o->text)
		return write_in_full(o->fd, frame, flen) < 0 ? -1 : 0;
	if (wiretext_encode(o->stream, o->seq, frame, flen, text_line, &b) < 0)
		return -1;
	return text_flush(&b);
}

int out_record(struct out *o, uint16_t type, const void *payload, size_t len)
{
	size_t flen;
	uint8_t *frame;
	int ret = 0;

	if (len > WIRE_MAX_PAYLOAD) {
		runner_error("record of %zu bytes is over the wire limit", len);
		return -1;
	}
	frame = malloc(WIRE_HDR_LEN + len);
	if (!frame) {
		runner_error("out of memory");
		return -1;
	}
	flen = wire_encode(o->seq, type, payload, (uint32_t)len, frame, WIRE_HDR_LEN + len);
	if (!flen || write_frame(o, frame, flen) < 0) {
		runner_error("cannot write to '%s': %s", o->name, strerror(errno));
		ret = -1;
	} else {
		o->seq++;
	}
	free(frame);
	return ret;
}

int out_end(struct out *o)
{
	char count[16];
	int n = snprintf(count, sizeof(count), "%u", (unsigned)o->seq);

	return out_record(o, WIRE_END, count, (size_t)n);
}

int out_close(struct out *o)
{
	int ret = 0;

	/* The host stops the guest as soon as END arrives; make sure it has
	 * left the UART before init powers off. */
	if (o->is_tty)
		while (tcdrain(o->fd) < 0 && errno == EINTR)
			;
	if (o->owned && close(o->fd) < 0) {
		runner_error("cannot close '%s': %s", o->name, strerror(errno));
		ret = -1;
	}
	o->fd = -1;
	return ret;
}

void sysfs_batch_init(struct sysfs_batch *b, struct out *o)
{
	b->out = o;
	b->len = 0;
}

int sysfs_batch_flush(struct sysfs_batch *b)
{
	int ret;

	if (!b->len)
		return 0;
	ret = out_record(b->out, WIRE_SYSFS, b->buf, b->len);
	b->len = 0;
	return ret;
}

int sysfs_batch_add(struct sysfs_batch *b, const char *line, size_t len)
{
	if (len > sizeof(b->buf)) {
		runner_error("sysfs line of %zu bytes does not fit a record", len);
		return -1;
	}
	if (b->len + len > sizeof(b->buf) && sysfs_batch_flush(b) < 0)
		return -1;
	memcpy(b->buf + b->len, line, len);
	b->len += len;
	return 0;
}
