/* mem_pressure.c - memory pressure on a node: a helper process binds a
 * bounded allocation to the node, touches it, and holds it until undone. */
#include "../fault.h"
#include "../wlutil.h"
#include "../workload.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MPOL_BIND_MODE 2   /* MPOL_BIND of <linux/mempolicy.h> */
/* never more than this share of the node's free memory, whatever was asked */
#define PRESSURE_MAX_PCT 90

struct pressure {
	pid_t pid;
	int ready[2];
};

static int node_free_kb(int node, uint64_t *kb)
{
	char path[96], buf[4096];
	const char *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	if (wl_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "MemFree:");
	if (!p)
		return -1;
	*kb = strtoull(p + strlen("MemFree:"), NULL, 10);
	return 0;
}

static int pressure_supported(const struct fault_ctx *fc, char *why, size_t len)
{
	int node = (int)wl_int(&fc->args, "node");
	uint64_t kb;

	if (node_free_kb(node, &kb) < 0) {
		snprintf(why, len, "no NUMA node %d with memory here", node);
		return 0;
	}
	if (!kb) {
		snprintf(why, len, "node %d has no free memory", node);
		return 0;
	}
	return 1;
}

static int pressure_check(const struct fault_ctx *fc, char *err, size_t len)
{
	if (wl_isset(&fc->args, "size") && wl_isset(&fc->args, "fraction")) {
		snprintf(err, len, "give 'size' or 'fraction', not both");
		return -1;
	}
	return 0;
}

static int pressure_start(struct fault_ctx *fc)
{
	struct pressure *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	p->pid = -1;
	fc->priv = p;
	return 0;
}

/* The helper: bound to the node, first in line for the OOM killer. */
static void hog(int node, size_t bytes, int ready, uint64_t until)
{
	unsigned long mask[16] = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	char *m;
	int fd;

	/* a killed fault driver takes its hogs along (bare metal: the host) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	mask[node / (8 * sizeof(long))] |= 1ul << (node % (8 * sizeof(long)));
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1000", 4) < 0) {
			/* the hog may then not be the OOM killer's first pick */
		}
		close(fd);
	}
	if (syscall(SYS_set_mempolicy, MPOL_BIND_MODE, mask, 8 * sizeof(mask)) < 0)
		_exit(3);
	m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		_exit(4);
	for (size_t off = 0; off < bytes; off += (size_t)page)
		m[off] = 1;
	if (write(ready, "r", 1) < 0)
		_exit(5);
	/* held until killed; never past the case's deadline */
	while (wl_now_ns() < until) {
		uint64_t left = (until - wl_now_ns()) / 1000000000ull + 1;

		sleep(left > 3600 ? 3600 : (unsigned)left);
	}
	_exit(0);
}

static int pressure_undo(struct fault_ctx *fc)
{
	struct pressure *p = fc->priv;
	char target[16];
	int status;

	if (p->pid <= 0)
		return 0;
	kill(p->pid, SIGKILL);
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	p->pid = -1;
	snprintf(target, sizeof(target), "node%lld", (long long)wl_int(&fc->args, "node"));
	fault_event(fc, "free", target, 1, NULL);
	return 0;
}

static int pressure_step(struct fault_ctx *fc, unsigned i)
{
	struct pressure *p = fc->priv;
	int node = (int)wl_int(&fc->args, "node");
	uint64_t free_kb = 0, bytes, cap;
	char target[16], c;
	int fds[2];
	ssize_t n;

	(void)i;
	if (fc->active)
		pressure_undo(fc);
	snprintf(target, sizeof(target), "node%d", node);
	if (node_free_kb(node, &free_kb) < 0) {
		fault_event(fc, "allocate", target, 0, "cannot read the node's meminfo");
		return -1;
	}
	cap = free_kb * 1024 / 100 * PRESSURE_MAX_PCT;
	if (wl_isset(&fc->args, "size"))
		bytes = (uint64_t)wl_int(&fc->args, "size");
	else if (wl_isset(&fc->args, "fraction"))
		bytes = free_kb * 1024 / 100 * (uint64_t)wl_int(&fc->args, "fraction");
	else
		bytes = free_kb * 1024 / 100 * 50;
	if (bytes > cap)
		bytes = cap;
	if (bytes < 4096) {
		fault_event(fc, "allocate", target, 0, "the node has only %llu KiB free",
			    (unsigned long long)free_kb);
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		fault_event(fc, "allocate", target, 0, "pipe: %s", strerror(errno));
		return -1;
	}
	p->pid = fork();
	if (p->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		fault_event(fc, "allocate", target, 0, "fork: %s", strerror(errno));
		return -1;
	}
	if (p->pid == 0) {
		close(fds[0]);
		hog(node, (size_t)bytes, fds[1], fc->env->deadline_ns);
	}
	close(fds[1]);
	/* the action is in effect once the memory is touched; the driver's own
	 * schedule waits (at most 30 s), which the event's time shows */
	{
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };

		n = 0;
		while (poll(&pfd, 1, 30000) < 0 && errno == EINTR)
			;
		if (pfd.revents & (POLLIN | POLLHUP))
			n = read(fds[0], &c, 1);
		else
			n = -2;
	}
	close(fds[0]);
	if (n == -2) {
		fault_event(fc, "allocate", target, 1, "%llu MiB, still being touched after 30 s",
			    (unsigned long long)(bytes >> 20));
		return 0;
	}
	if (n != 1) {
		int status = 0;

		waitpid(p->pid, &status, 0);
		p->pid = -1;
		fault_event(fc, "allocate", target, 0, "the helper died (%s %d) before holding "
			    "%llu MiB", WIFSIGNALED(status) ? "signal" : "exit",
			    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
			    (unsigned long long)(bytes >> 20));
		return -1;
	}
	fault_event(fc, "allocate", target, 1, "%llu MiB of %llu MiB free",
		    (unsigned long long)(bytes >> 20), (unsigned long long)(free_kb >> 10));
	return 0;
}

static int pressure_stop(struct fault_ctx *fc)
{
	struct pressure *p = fc->priv;

	if (!p)
		return 0;
	pressure_undo(fc);
	free(p);
	fc->priv = NULL;
	return 0;
}

static const struct wl_option pressure_options[] = {
	{ "node", WL_INT, 0, 1023, "0", NULL, "the NUMA node to fill" },
	{ "size", WL_SIZE, 1 << 20, 1ll << 40, "", NULL,
	  "bytes to hold (capped at 90% of the node's free memory)" },
	{ "fraction", WL_INT, 1, PRESSURE_MAX_PCT, "", NULL,
	  "percent of the node's free memory to hold, when no size is given (default 50)" },
	{ .name = NULL },
};

const struct fault_ops fault_mem_pressure = {
	.name = "mem_pressure",
	.description = "hold a bounded, node-bound allocation in a helper process",
	.options = pressure_options,
	.targets = 0,
	.default_target = FAULT_TARGET_NONE,
	.check = pressure_check,
	.supported = pressure_supported,
	.start = pressure_start,
	.step = pressure_step,
	.undo = pressure_undo,
	.stop = pressure_stop,
};
