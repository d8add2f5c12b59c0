/* schedfeat.c - sets the scheduler features that lab.sched_feat= on the kernel
 * command line names (lab run --sched-feat), before the first case runs. */
#define _GNU_SOURCE
#include "schedfeat.h"
#include "common/schedfeat.h"
#include "common/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMDLINE_MAX 4096

/* On the console (the runner's stderr) and as a LOG record in the results. */
static void refuse(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void refuse(struct out *o, const char *fmt, ...)
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

/* The value of lab.sched_feat= in /proc/cmdline: 1 and [*val, *len) when
 * present, 0 when absent, -1 when /proc/cmdline cannot be read. */
static int cmdline_value(char *buf, size_t size, const char **val, size_t *len)
{
	const size_t klen = strlen(SCHED_FEAT_CMDLINE_KEY);
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
	for (p = buf; (p = strstr(p, SCHED_FEAT_CMDLINE_KEY)); p += klen) {
		if (p != buf && p[-1] != ' ')
			continue;
		*val = p + klen;
		*len = strcspn(*val, " \n");
		return 1;
	}
	return 0;
}

/* /init mounts debugfs; an image's own init may not have. */
static void ensure_debugfs(void)
{
	struct stat st;

	if (stat(SCHED_FEAT_PATH, &st) == 0)
		return;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) < 0 && errno != EBUSY) {
		/* the open below reports what is missing */
	}
}

static int write_token(const char *token)
{
	int fd = open(SCHED_FEAT_PATH, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(token);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -errno;
	/* sched_feat_write() takes one token per write */
	n = write(fd, token, len);
	saved = errno;
	close(fd);
	if (n < 0)
		return -saved;
	return (size_t)n == len ? 0 : -EIO;
}

int sched_feat_apply(struct out *o)
{
	static struct sched_feat_list want; /* 8 KiB: not on the stack */
	char buf[CMDLINE_MAX], why[256];
	const char *val = NULL;
	size_t len = 0;
	int ret = 0, found = cmdline_value(buf, sizeof(buf), &val, &len);

	if (found <= 0) {
		if (found < 0)
			runner_error("cannot read /proc/cmdline: %s", strerror(errno));
		return 0;
	}
	if (sched_feat_list_parse(val, len, ',', SCHED_FEAT_WANT_MAX, &want, why, sizeof(why)) < 0) {
		refuse(o, "sched_feat: lab.sched_feat= on the command line: %s", why);
		return -1;
	}
	ensure_debugfs();
	for (unsigned i = 0; i < want.nr; i++) {
		int e = write_token(want.name[i]);

		if (e == -EINVAL)
			refuse(o, "sched_feat: the kernel refused '%s': it has no such feature", want.name[i]);
		else if (e == -ENOENT)
			refuse(o, "sched_feat: no %s (a kernel without CONFIG_SCHED_DEBUG, or no debugfs)",
			       SCHED_FEAT_PATH);
		else if (e)
			refuse(o, "sched_feat: cannot write '%s' to %s: %s", want.name[i], SCHED_FEAT_PATH,
			       strerror(-e));
		if (e)
			ret = -1;
		if (e == -ENOENT)
			break;
	}
	return ret;
}
