/* io.c - reads and writes that retry on EINTR and short counts; only
 * async-signal-safe calls, so a child between fork() and exec may use them. */
#include "common/io.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

ssize_t xread(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

ssize_t xwrite(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

ssize_t read_in_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = xread(fd, p + got, len - got);

		if (n < 0)
			return -1;
		if (!n)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static ssize_t out_in_full(int fd, const void *buf, size_t len, int sock)
{
	const char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = sock ? send(fd, p + done, len - done, MSG_NOSIGNAL)
				 : write(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n) {
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t write_in_full(int fd, const void *buf, size_t len)
{
	return out_in_full(fd, buf, len, 0);
}

ssize_t send_in_full(int fd, const void *buf, size_t len)
{
	return out_in_full(fd, buf, len, 1);
}
