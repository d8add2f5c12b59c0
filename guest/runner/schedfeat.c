/* schedfeat.c - sets the scheduler features that lab.sched_feat= on the kernel
 * command line names (lab run --sched-feat), before the first case runs. */
#define _GNU_SOURCE
#include "schedfeat.h"
#include "bootopt.h"
#include "common/schedfeat.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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

int sched_feat_apply_list(struct out *o, const char *val, size_t len, const char *from)
{
	static struct sched_feat_list want; /* 8 KiB: not on the stack */
	char why[256];
	int ret = 0;

	if (sched_feat_list_parse(val, len, ',', SCHED_FEAT_WANT_MAX, &want, why, sizeof(why)) < 0) {
		bootopt_refuse(o, "sched_feat: %s: %s", from, why);
		return -1;
	}
	bootopt_debugfs();
	for (unsigned i = 0; i < want.nr; i++) {
		int e = write_token(want.name[i]);

		if (e == -EINVAL)
			bootopt_refuse(o, "sched_feat: the kernel refused '%s': it has no such feature", want.name[i]);
		else if (e == -ENOENT)
			bootopt_refuse(o, "sched_feat: no %s (a kernel without CONFIG_SCHED_DEBUG, or no debugfs)",
			       SCHED_FEAT_PATH);
		else if (e)
			bootopt_refuse(o, "sched_feat: cannot write '%s' to %s: %s", want.name[i], SCHED_FEAT_PATH,
			       strerror(-e));
		if (e)
			ret = -1;
		if (e == -ENOENT)
			break;
	}
	return ret;
}

int sched_feat_apply(struct out *o)
{
	return bootopt_apply(o, SCHED_FEAT_CMDLINE_KEY, sched_feat_apply_list);
}
