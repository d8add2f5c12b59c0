/* schedknob.c - sets the scheduler knobs that lab.sched_knob= on the kernel
 * command line names (lab run --sched-knob), before the first case runs. */
#define _GNU_SOURCE
#include "schedknob.h"
#include "bootopt.h"
#include "common/io.h"
#include "common/schedknob.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Writes v to path and reads it back into *now: 0, or -errno. */
static int write_knob(const char *path, uint64_t v, uint64_t *now)
{
	char text[32], back[64];
	int fd = open(path, O_WRONLY | O_CLOEXEC), saved;
	int n = snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = write(fd, text, (size_t)n);
	saved = errno;
	close(fd);
	if (got < 0)
		return -saved;
	if (got != n)
		return -EIO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = read_in_full(fd, back, sizeof(back) - 1);
	close(fd);
	if (got < 0 || sched_knob_number(back, (size_t)got, now) < 0)
		return -EIO;
	return 0;
}

int sched_knob_apply_list(struct out *o, const char *val, size_t len, const char *from)
{
	struct sched_knob_set want;
	char why[256], path[128];
	int ret = 0;

	if (sched_knob_parse(val, len, &want, why, sizeof(why)) < 0) {
		bootopt_refuse(o, "sched_knob: %s: %s", from, why);
		return -1;
	}
	bootopt_debugfs();
	for (unsigned i = 0; i < want.nr; i++) {
		const struct sched_knob *k = want.v[i].knob;
		uint64_t now = 0;
		int e;

		snprintf(path, sizeof(path), "%s/%s", SCHED_KNOB_DIR, k->name);
		e = write_knob(path, want.v[i].value, &now);
		if (e == -ENOENT)
			bootopt_refuse(o, "sched_knob: this kernel has no %s (Linux %s or later, "
				       "with debugfs and, on older ones, CONFIG_SCHED_DEBUG)", path, k->since);
		else if (e)
			bootopt_refuse(o, "sched_knob: cannot write %llu to %s: %s",
				       (unsigned long long)want.v[i].value, path, strerror(-e));
		else if (now != want.v[i].value)
			bootopt_refuse(o, "sched_knob: %s reads %llu after writing %llu", path,
				       (unsigned long long)now, (unsigned long long)want.v[i].value);
		if (e || now != want.v[i].value)
			ret = -1;
	}
	return ret;
}

int sched_knob_apply(struct out *o)
{
	return bootopt_apply(o, SCHED_KNOB_CMDLINE_KEY, sched_knob_apply_list);
}
