/* probe.c - --probe-topology: reads the sysfs, procfs and debugfs files
 * that describe the guest's topology and sends them as SYSFS records. */
#define _GNU_SOURCE
#include "probe.h"
#include "common/wire.h"
#include "common/io.h"
#include "common/schedfeat.h"
#include "common/schedknob.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define RUNNER_VERSION "0.1"
#define VALUE_MAX 4096
#define PATH_LEN 512

static const char *const cpu_topology_files[] = {
	"physical_package_id", "die_id", "core_id",
	"thread_siblings_list", "core_siblings_list", "cluster_cpus_list",
};
static const char *const cache_files[] = { "level", "type", "shared_cpu_list" };
static const char *const node_files[] = { "cpulist", "distance", "meminfo" };

/*
 * Reads at most VALUE_MAX bytes and folds the file onto one line: every
 * newline (and NUL, to keep payloads text) becomes a space and trailing
 * spaces go.  Returns the length, or -1 when the file cannot be read,
 * which only means this kernel does not have it.
 */
static ssize_t read_value(const char *path, char *buf)
{
	ssize_t got;
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	got = read_in_full(fd, buf, VALUE_MAX);
	close(fd);
	if (got < 0)
		return -1;
	len = (size_t)got;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n' || buf[i] == '\0' || buf[i] == '\r')
			buf[i] = ' ';
	while (len && buf[len - 1] == ' ')
		len--;
	return (ssize_t)len;
}

static int emit_file(struct sysfs_batch *b, const char *path)
{
	char line[PATH_LEN + VALUE_MAX + 2];
	size_t plen = strlen(path);
	ssize_t vlen;

	if (plen >= PATH_LEN)
		return 0;
	memcpy(line, path, plen);
	line[plen] = '=';
	vlen = read_value(path, line + plen + 1);
	if (vlen < 0)
		return 0;
	line[plen + 1 + (size_t)vlen] = '\n';
	return sysfs_batch_add(b, line, plen + (size_t)vlen + 2);
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/*
 * The numbers N of the entries "<prefix>N" in dir, sorted numerically
 * (readdir order is arbitrary and "cpu10" sorts before "cpu2" as text).
 * Returns the count, 0 when dir does not exist; *out is malloc'ed.
 */
static int list_numbered(const char *dir, const char *prefix, unsigned **out)
{
	size_t plen = strlen(prefix), nr = 0, alloc = 0;
	unsigned *v = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	*out = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *s = de->d_name;
		unsigned long n = 0;
		size_t i;

		if (strncmp(s, prefix, plen) || !s[plen])
			continue;
		for (i = plen; s[i] >= '0' && s[i] <= '9' && i - plen < 9; i++)
			n = n * 10 + (unsigned long)(s[i] - '0');
		if (s[i])
			continue;
		if (nr == alloc) {
			unsigned *nv;

			alloc = alloc ? alloc * 2 : 64;
			nv = realloc(v, alloc * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				runner_error("out of memory");
				return -1;
			}
			v = nv;
		}
		v[nr++] = (unsigned)n;
	}
	closedir(d);
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_unsigned);
	*out = v;
	return (int)nr;
}

static int emit_cpu(struct sysfs_batch *b, unsigned cpu)
{
	char path[PATH_LEN];
	unsigned *idx;
	int nr;

	for (size_t i = 0; i < sizeof(cpu_topology_files) / sizeof(*cpu_topology_files); i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/%s",
			 cpu, cpu_topology_files[i]);
		if (emit_file(b, path) < 0)
			return -1;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cache", cpu);
	nr = list_numbered(path, "index", &idx);
	if (nr < 0)
		return -1;
	for (int i = 0; i < nr; i++) {
		for (size_t f = 0; f < sizeof(cache_files) / sizeof(*cache_files); f++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cache/index%u/%s",
				 cpu, idx[i], cache_files[f]);
			if (emit_file(b, path) < 0) {
				free(idx);
				return -1;
			}
		}
	}
	free(idx);
	return 0;
}

/* root is the debugfs tree (kernels >= 5.13) or the old procfs one. */
static int emit_domains(struct sysfs_batch *b, const char *root)
{
	char path[PATH_LEN];
	unsigned *cpus, *doms;
	int nr_cpus, nr_doms, ret = 0;

	nr_cpus = list_numbered(root, "cpu", &cpus);
	if (nr_cpus < 0)
		return -1;
	for (int c = 0; c < nr_cpus && !ret; c++) {
		snprintf(path, sizeof(path), "%s/cpu%u", root, cpus[c]);
		nr_doms = list_numbered(path, "domain", &doms);
		if (nr_doms < 0) {
			ret = -1;
			break;
		}
		for (int m = 0; m < nr_doms && !ret; m++) {
			snprintf(path, sizeof(path), "%s/cpu%u/domain%u/name", root, cpus[c], doms[m]);
			ret = emit_file(b, path);
		}
		free(doms);
	}
	free(cpus);
	return ret;
}

static int send_hello(struct out *o)
{
	char cmdline[VALUE_MAX + 1], hello[VALUE_MAX + 1024];
	struct utsname u;
	ssize_t n;
	int len;

	if (uname(&u) < 0) {
		runner_error("uname: %s", strerror(errno));
		return -1;
	}
	n = read_value("/proc/cmdline", cmdline);
	if (n < 0)
		n = 0;
	cmdline[n] = '\0';
	len = snprintf(hello, sizeof(hello), "version=%s\nuname=%s\nmachine=%s\ncmdline=%s\n",
		       RUNNER_VERSION, u.release, u.machine, cmdline);
	if (len < 0 || (size_t)len >= sizeof(hello)) {
		runner_error("hello record does not fit");
		return -1;
	}
	return out_record(o, WIRE_HELLO, hello, (size_t)len);
}

/* What lab run --sched-feat, --sched-knob and --preempt set, as in
 * effect now: every feature the kernel has, the preemption modes offered
 * (the active one in parentheses), every knob of the table it has. */
static int emit_sched_state(struct sysfs_batch *b)
{
	char path[PATH_LEN];

	if (emit_file(b, SCHED_FEAT_PATH) < 0 || emit_file(b, SCHED_PREEMPT_PATH) < 0)
		return -1;
	for (size_t i = 0; i < nr_sched_knobs; i++) {
		snprintf(path, sizeof(path), "%s/%s", SCHED_KNOB_DIR, sched_knobs[i].name);
		if (emit_file(b, path) < 0)
			return -1;
	}
	return 0;
}

static struct sysfs_batch batch; /* 64 KiB: not on the stack */

int probe_sched_state(struct out *o)
{
	sysfs_batch_init(&batch, o);
	if (emit_sched_state(&batch) < 0)
		return -1;
	return sysfs_batch_flush(&batch);
}

int probe_snapshot(struct out *o)
{
	static const char *const global_files[] = {
		"/proc/sys/kernel/osrelease",
		"/sys/devices/system/cpu/online",
		"/sys/devices/system/cpu/possible",
		"/sys/devices/system/cpu/present",
	};
	char path[PATH_LEN];
	unsigned *ids;
	int nr;

	if (send_hello(o) < 0)
		return -1;
	sysfs_batch_init(&batch, o);
	for (size_t i = 0; i < sizeof(global_files) / sizeof(*global_files); i++)
		if (emit_file(&batch, global_files[i]) < 0)
			return -1;
	if (emit_sched_state(&batch) < 0)
		return -1;

	nr = list_numbered("/sys/devices/system/cpu", "cpu", &ids);
	if (nr < 0)
		return -1;
	for (int i = 0; i < nr; i++) {
		if (emit_cpu(&batch, ids[i]) < 0) {
			free(ids);
			return -1;
		}
	}
	free(ids);

	nr = list_numbered("/sys/devices/system/node", "node", &ids);
	if (nr < 0)
		return -1;
	for (int i = 0; i < nr; i++) {
		for (size_t f = 0; f < sizeof(node_files) / sizeof(*node_files); f++) {
			snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/%s",
				 ids[i], node_files[f]);
			if (emit_file(&batch, path) < 0) {
				free(ids);
				return -1;
			}
		}
	}
	free(ids);

	if (emit_domains(&batch, "/sys/kernel/debug/sched/domains") < 0 ||
	    emit_domains(&batch, "/proc/sys/kernel/sched_domain") < 0)
		return -1;
	return sysfs_batch_flush(&batch);
}

int probe_topology(struct out *o)
{
	if (probe_snapshot(o) < 0)
		return -1;
	return out_end(o);
}
