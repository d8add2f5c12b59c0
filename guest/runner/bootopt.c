/* bootopt.c - reads the lab.* keys of the kernel command line and reports a
 * refusal of what they ask, shared by the scheduler features and knobs. */
#define _GNU_SOURCE
#include "bootopt.h"
#include "common/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

void bootopt_refuse(struct out *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	runner_error("%s", msg);
	/* a lost LOG record is counted by the host; the verdict does not need it */
	out_record(o, WIRE_LOG, msg, (size_t)n);
}

int bootopt_value(const char *key, char *buf, size_t size, const char **val, size_t *len)
{
	const size_t klen = strlen(key);
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *p;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	for (p = buf; (p = strstr(p, key)); p += klen) {
		if (p != buf && p[-1] != ' ')
			continue;
		*val = p + klen;
		*len = strcspn(*val, " \n");
		return 1;
	}
	return 0;
}

int bootopt_apply(struct out *o, const char *key,
		  int (*apply)(struct out *o, const char *val, size_t len, const char *from))
{
	char buf[BOOTOPT_CMDLINE_MAX], from[64];
	const char *val = NULL;
	size_t len = 0;
	int found = bootopt_value(key, buf, sizeof(buf), &val, &len);

	if (found <= 0) {
		if (found < 0)
			runner_error("cannot read /proc/cmdline: %s", strerror(errno));
		return 0;
	}
	snprintf(from, sizeof(from), "%s on the command line", key);
	return apply(o, val, len, from);
}

int bootopt_records_console(void)
{
	char buf[BOOTOPT_CMDLINE_MAX];
	const char *val;
	size_t len;

	return bootopt_value("lab.records=", buf, sizeof(buf), &val, &len) == 1 &&
	       len == 7 && !memcmp(val, "console", 7);
}

void bootopt_debugfs(void)
{
	struct stat st;

	if (stat("/sys/kernel/debug/sched", &st) == 0)
		return;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) < 0 && errno != EBUSY) {
		/* the open of the file reports what is missing */
	}
}
