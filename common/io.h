/* io.h - reads and writes that retry on EINTR and short counts, so no
 * caller on either side (host tools, static runner) writes that loop again. */
#ifndef LAB_IO_H
#define LAB_IO_H

#include <stddef.h>
#include <sys/types.h>

/* One read()/write(), retried while it fails with EINTR. */
ssize_t xread(int fd, void *buf, size_t len);
ssize_t xwrite(int fd, const void *buf, size_t len);

/*
 * Reads until len bytes arrived or the end of the file: returns the count
 * (less than len only at the end), or -1 with errno set.
 */
ssize_t read_in_full(int fd, void *buf, size_t len);

/*
 * Writes all len bytes: returns len, or -1 with errno set (EIO when the
 * kernel accepted nothing without saying why).
 */
ssize_t write_in_full(int fd, const void *buf, size_t len);

/* write_in_full() for a socket whose peer may have gone: send() with
 * MSG_NOSIGNAL, so a closed peer is EPIPE here rather than a SIGPIPE. */
ssize_t send_in_full(int fd, const void *buf, size_t len);

#endif
