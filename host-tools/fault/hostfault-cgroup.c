/* hostfault-cgroup.c - the vcpu_throttle kind, and where vCPU threads get
 * their CPU quota: a threaded cgroup v2 subtree when the unified hierarchy
 * has the cpu controller, else cgroup v1's cpu hierarchy (tasks takes threads). */
#define _GNU_SOURCE
#include "fault/hostfault.h"
#include "backend/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_str(const char *path, const char *s, struct strbuf *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, s, strlen(s));
	close(fd);
	if (n != (ssize_t)strlen(s)) {
		strbuf_addf(err, "cannot write '%s' to '%s': %s", s, path, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_at(const char *dir, const char *file, const char *s, struct strbuf *err)
{
	char path[HOSTFAULT_CG_PATH + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_str(path, s, err);
}

/* Whether the space-separated list in dir/file names word. */
static int file_has_word(const char *dir, const char *file, const char *word)
{
	char path[HOSTFAULT_CG_PATH + 32], *text, *tok, *save = NULL;
	size_t len;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	text = read_file(path, &len);
	if (!text)
		return 0;
	for (tok = strtok_r(text, " \n", &save); tok && !found; tok = strtok_r(NULL, " \n", &save))
		found = !strcmp(tok, word);
	free(text);
	return found;
}

static int exists(const char *dir, const char *file)
{
	char path[HOSTFAULT_CG_PATH + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return stat(path, &st) == 0;
}

int hostfault_cg_find(const char *root, struct hostfault_cg *cg, struct strbuf *err)
{
	/* a v2-only host mounts the unified hierarchy at the root; a hybrid
	 * one under unified/; v1 names the cpu hierarchy either way */
	const char *v2[] = { "", "/unified" };
	const char *v1[] = { "/cpu", "/cpu,cpuacct" };
	char dir[HOSTFAULT_CG_PATH];
	int v2_seen = 0;

	memset(cg, 0, sizeof(*cg));
	for (size_t i = 0; i < ARRAY_SIZE(v2); i++) {
		snprintf(dir, sizeof(dir), "%s%s", root, v2[i]);
		if (!exists(dir, "cgroup.controllers"))
			continue;
		v2_seen = 1;
		if (!file_has_word(dir, "cgroup.controllers", "cpu"))
			continue;
		cg->version = 2;
		snprintf(cg->base, sizeof(cg->base), "%s", dir);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(v1); i++) {
		snprintf(dir, sizeof(dir), "%s%s", root, v1[i]);
		if (!exists(dir, "cpu.cfs_quota_us"))
			continue;
		cg->version = 1;
		snprintf(cg->base, sizeof(cg->base), "%s", dir);
		return 0;
	}
	strbuf_addf(err, "cannot throttle vCPU threads: no cpu controller under '%s' (%s)", root,
		    v2_seen ? "the unified hierarchy does not offer it and there is no v1 cpu hierarchy"
			    : "neither a cgroup v2 hierarchy nor a v1 cpu hierarchy is mounted");
	return -1;
}

/* The cgroup QEMU (qemu_pid) is in now, from /proc/<pid>/cgroup's "0::" line. */
int hostfault_cg_current(long pid, char *rel, size_t len, struct strbuf *err)
{
	char path[64], *text, *line, *save = NULL;
	size_t n;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
	text = read_file(path, &n);
	if (!text) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "0::", 3) && strlen(line + 3) < len) {
			snprintf(rel, len, "%s", line + 3);
			found = 1;
		}
	}
	free(text);
	if (!found)
		strbuf_addf(err, "'%s' names no cgroup v2 membership", path);
	return found ? 0 : -1;
}

/*
 * v2: one cgroup for this lab (a "threaded domain") that takes all of
 * QEMU, and a threaded child "vcpus" whose cpu.max limits the threads
 * written to its cgroup.threads.  A thread can only move inside its
 * process's threaded subtree, hence QEMU's move into the parent.
 */
static int v2_setup(struct hostfault_cg *cg, long qemu_pid, const char *orig_rel,
		    struct strbuf *err)
{
	char pid[32];

	snprintf(cg->dir, sizeof(cg->dir), "%s/schedlab-%ld", cg->base, (long)getpid());
	snprintf(cg->leaf, sizeof(cg->leaf), "%s/vcpus", cg->dir);
	snprintf(cg->orig, sizeof(cg->orig), "%s%s", cg->base, strcmp(orig_rel, "/") ? orig_rel : "");
	cg->qemu_pid = qemu_pid;
	if ((mkdir(cg->dir, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(cg->leaf, 0755) < 0 && errno != EEXIST)) {
		strbuf_addf(err, "cannot create '%s': %s", cg->leaf, strerror(errno));
		return -1;
	}
	/* the lab's cgroup needs cpu from its parent to hand it down */
	if (!file_has_word(cg->base, "cgroup.subtree_control", "cpu") &&
	    write_at(cg->base, "cgroup.subtree_control", "+cpu", err) < 0)
		return -1;
	snprintf(pid, sizeof(pid), "%ld", qemu_pid);
	if (write_at(cg->leaf, "cgroup.type", "threaded", err) < 0 ||
	    write_at(cg->dir, "cgroup.procs", pid, err) < 0)
		return -1;
	cg->moved = 1;
	return write_at(cg->dir, "cgroup.subtree_control", "+cpu", err);
}

static int v1_setup(struct hostfault_cg *cg, struct strbuf *err)
{
	snprintf(cg->dir, sizeof(cg->dir), "%s/schedlab-%ld", cg->base, (long)getpid());
	snprintf(cg->leaf, sizeof(cg->leaf), "%s", cg->dir);
	if (mkdir(cg->dir, 0755) < 0 && errno != EEXIST) {
		strbuf_addf(err, "cannot create '%s': %s", cg->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int hostfault_cg_throttle(struct hostfault_cg *cg, long qemu_pid, const char *orig_rel,
			  const long *tids, unsigned n, unsigned pct, int undo, struct strbuf *err)
{
	const char *threads = cg->version == 2 ? "cgroup.threads" : "tasks";
	char val[48];
	const char *to;

	if (!cg->dir[0]) {
		if (undo)
			return 0; /* nothing was throttled */
		if ((cg->version == 2 ? v2_setup(cg, qemu_pid, orig_rel, err) : v1_setup(cg, err)) < 0)
			return -1;
	}
	if (!undo) {
		if (cg->version == 2) {
			snprintf(val, sizeof(val), "%u 100000", pct * 1000);
			if (write_at(cg->leaf, "cpu.max", val, err) < 0)
				return -1;
		} else {
			snprintf(val, sizeof(val), "%u", pct * 1000);
			if (write_at(cg->leaf, "cpu.cfs_period_us", "100000", err) < 0 ||
			    write_at(cg->leaf, "cpu.cfs_quota_us", val, err) < 0)
				return -1;
		}
	}
	/* undo: v2 threads go back to the lab's cgroup, v1 ones to the root */
	to = !undo ? cg->leaf : cg->version == 2 ? cg->dir : cg->base;
	for (unsigned i = 0; i < n; i++) {
		snprintf(val, sizeof(val), "%ld", tids[i]);
		if (write_at(to, threads, val, err) < 0)
			return -1;
	}
	return 0;
}

int hostfault_cg_release(struct hostfault_cg *cg, struct strbuf *err)
{
	int ret = 0;

	if (!cg->dir[0])
		return 0;
	if (cg->version == 2 && cg->moved) {
		char pid[32];

		/* QEMU back where it was: the lab's cgroup can then go */
		snprintf(pid, sizeof(pid), "%ld", cg->qemu_pid);
		if (write_at(cg->orig, "cgroup.procs", pid, err) < 0 && errno != ESRCH)
			ret = -1;
		cg->moved = 0;
	}
	if (cg->version == 2 && rmdir(cg->leaf) < 0 && errno != ENOENT) {
		strbuf_addf(err, "%scannot remove '%s': %s", ret ? "; " : "", cg->leaf, strerror(errno));
		ret = -1;
	}
	if (rmdir(cg->dir) < 0 && errno != ENOENT) {
		strbuf_addf(err, "%scannot remove '%s': %s", ret ? "; " : "", cg->dir, strerror(errno));
		ret = -1;
	}
	cg->dir[0] = '\0';
	return ret;
}

/* ---- the vcpu_throttle kind ---- */

/* Thread ids of the vCPUs the fault targets ("default"/"random": all). */
static int vcpu_threads(struct backend *b, const char *target, long *tids, unsigned max,
			unsigned *n, struct strbuf *err)
{
	unsigned long want[CPULIST_LONGS(HOSTFAULT_MAX_VCPUS)];
	int all = !strcmp(target, "default") || !strcmp(target, "random") || !*target;
	long *by_index;

	if (!all && hostfault_parse_cpus(target, want, err) < 0)
		return -1;
	by_index = xcalloc(HOSTFAULT_MAX_VCPUS, sizeof(*by_index));
	if (backend_vcpu_threads(b, by_index, HOSTFAULT_MAX_VCPUS, err) < 0) {
		free(by_index);
		return -1;
	}
	*n = 0;
	for (unsigned ci = 0; ci < HOSTFAULT_MAX_VCPUS && *n < max; ci++)
		if (by_index[ci] > 0 && (all || cpulist_test(want, ci)))
			tids[(*n)++] = by_index[ci];
	free(by_index);
	if (!*n) {
		strbuf_addf(err, "no vCPU matches '%s'", target);
		return -1;
	}
	return 0;
}

static int throttle(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		    int undo, struct strbuf *detail, struct strbuf *err)
{
	long tids[1024], qemu = -1;
	unsigned n = 0, pct;
	char orig[HOSTFAULT_CG_PATH] = "/";

	if (hostfault_opt(&hostfault_kind_vcpu_throttle, f, "quota", &pct, err) < 0)
		return -1;
	if (!h->cg.version && hostfault_cg_find("/sys/fs/cgroup", &h->cg, err) < 0)
		return -1;
	if (vcpu_threads(b, f->target, tids, 1024, &n, err) < 0)
		return -1;
	if (h->cg.version == 2 && !h->cg.dir[0] && !undo) {
		qemu = hostfault_tgid_of(tids[0]);
		if (qemu <= 0) {
			strbuf_addf(err, "cannot tell which process vCPU thread %ld belongs to", tids[0]);
			return -1;
		}
		if (hostfault_cg_current(qemu, orig, sizeof(orig), err) < 0)
			return -1;
	}
	if (hostfault_cg_throttle(&h->cg, qemu, orig, tids, n, pct, undo, err) < 0)
		return -1;
	strbuf_addf(detail, "%u vCPU thread%s, cgroup v%d '%s'", n, n == 1 ? "" : "s",
		    h->cg.version, h->cg.leaf);
	if (!undo)
		strbuf_addf(detail, ", %u %% of a CPU", pct);
	return 0;
}

static int throttle_act(struct hostfault *h, struct backend *b, const struct plan_fault *f,
			struct strbuf *detail, struct strbuf *err)
{
	return throttle(h, b, f, 0, detail, err);
}

static int throttle_undo(struct hostfault *h, struct backend *b, const struct plan_fault *f,
			 struct strbuf *detail, struct strbuf *err)
{
	return throttle(h, b, f, 1, detail, err);
}

static int throttle_supported(const struct backend *b, char *why, size_t len)
{
	if (!b->remote)
		return 1;
	snprintf(why, len, "vcpu_throttle needs the hypervisor on this host (a remote host's "
		 "vCPU threads are in its own cgroups)");
	return 0;
}

static const struct hostfault_opt throttle_opts[] = {
	{ .name = "quota", .min = 1, .max = 100, .dflt = "50", .suffix = "%",
	  .help = "percent of one CPU each throttled vCPU thread may use" },
	{ .name = NULL },
};

const struct hostfault_ops hostfault_kind_vcpu_throttle = {
	.name = "vcpu_throttle",
	.description = "caps the target vCPU threads' CPU time through a cgroup quota",
	.options = throttle_opts,
	.action = "throttle",
	.undo_action = "unthrottle",
	.default_hold_ms = 1000,
	.supported = throttle_supported,
	.act = throttle_act,
	.undo = throttle_undo,
};

int hostfault_parse_quota(const char *s, unsigned *pct)
{
	return hostfault_opt_parse(&throttle_opts[0], s, pct);
}
