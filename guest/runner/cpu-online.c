/* cpu-online.c - onlines hot-added CPUs: busybox has no udev, and the
 * kernel leaves a CPU added through ACPI offline until userspace asks. */
#include "cpu-online.h"
#include "wlutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define UEVENT_BUF 8192
#define CPU_DEVPATH "/devices/system/cpu/cpu"

int cpu_uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_KOBJECT_UEVENT);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* "cpu17" at the end of a devpath: the number, or -1. */
static long cpu_number(const char *devpath)
{
	const char *p;
	char *end;
	long n;

	if (strncmp(devpath, CPU_DEVPATH, strlen(CPU_DEVPATH)))
		return -1;
	p = devpath + strlen(CPU_DEVPATH);
	if (*p < '0' || *p > '9')
		return -1;
	n = strtol(p, &end, 10);
	if (*end || n < 0 || n >= CPU_SETSIZE)
		return -1;
	return n;
}

int cpu_uevent_parse(const char *msg, size_t len, unsigned *cpu)
{
	const char *action = NULL, *devpath = NULL, *subsystem = NULL;
	size_t off;
	long n;

	/* the header "action@devpath" comes first; libudev's own messages
	 * ("libudev" magic) never reach the kernel's multicast group */
	if (!len || !memchr(msg, '\0', len) || !strchr(msg, '@'))
		return -1;
	for (off = strlen(msg) + 1; off < len;) {
		const char *kv = msg + off;
		const char *nul = memchr(kv, '\0', len - off);
		size_t n_kv = nul ? (size_t)(nul - kv) : len - off;

		if (!nul)
			break; /* a truncated last field is ignored */
		if (!strncmp(kv, "ACTION=", 7))
			action = kv + 7;
		else if (!strncmp(kv, "DEVPATH=", 8))
			devpath = kv + 8;
		else if (!strncmp(kv, "SUBSYSTEM=", 10))
			subsystem = kv + 10;
		off += n_kv + 1;
	}
	if (!action || !devpath || !subsystem)
		return -1;
	if (strcmp(action, "add") || strcmp(subsystem, "cpu"))
		return 0;
	n = cpu_number(devpath);
	if (n < 0)
		return 0;
	*cpu = (unsigned)n;
	return 1;
}

int cpu_uevent_drain(int fd, cpu_set_t *added)
{
	char *buf = malloc(UEVENT_BUF);
	int count = 0;

	CPU_ZERO(added);
	if (!buf)
		return 0;
	for (;;) {
		ssize_t n = recv(fd, buf, UEVENT_BUF - 1, MSG_DONTWAIT);
		unsigned cpu;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* EAGAIN: all read; ENOBUFS: lost some, present_now() catches up */
		buf[n] = '\0';
		if (cpu_uevent_parse(buf, (size_t)n, &cpu) == 1 && !CPU_ISSET(cpu, added)) {
			CPU_SET(cpu, added);
			count++;
		}
	}
	free(buf);
	return count;
}

int cpu_present_now(cpu_set_t *set)
{
	char buf[4096];

	if (wl_read_text("/sys/devices/system/cpu/present", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, set) <= 0)
		return -1;
	return 0;
}

static cpu_set_t boot_offline;

void cpu_note_boot(void)
{
	cpu_set_t present, online;
	char buf[4096];

	CPU_ZERO(&boot_offline);
	if (cpu_present_now(&present) < 0 ||
	    wl_read_text("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, &online) <= 0)
		return;
	CPU_XOR(&boot_offline, &present, &online);
	CPU_AND(&boot_offline, &boot_offline, &present);
}

const cpu_set_t *cpu_boot_offline(void)
{
	return &boot_offline;
}

int cpu_sweep(cpu_set_t *out)
{
	cpu_set_t present, online, todo;
	char buf[4096];

	CPU_ZERO(out);
	if (cpu_present_now(&present) < 0 ||
	    wl_read_text("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, &online) <= 0)
		return 0;
	CPU_XOR(&todo, &present, &online);
	CPU_AND(&todo, &todo, &present);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &todo) && !CPU_ISSET(c, &boot_offline))
			CPU_SET(c, out);
	return CPU_COUNT(out);
}

int cpu_bring_online(unsigned cpu, char *err, size_t len)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	/* a hot-plug write can take seconds under TCG: the caller times it */
	if (write(fd, "1", 1) != 1) {
		snprintf(err, len, "cannot write 1 to '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void add_text(char *buf, size_t len, const char *key, const char *path)
{
	char val[256];
	size_t used = strlen(buf);

	if (wl_read_text(path, val, sizeof(val)) < 0)
		snprintf(val, sizeof(val), "?");
	val[strcspn(val, "\n")] = '\0';
	snprintf(buf + used, len - used, ", \"%s\": \"%s\"", key, val);
}

/* The node a CPU belongs to: its "nodeN" link in sysfs. */
static int cpu_node(unsigned cpu)
{
	char path[96];
	struct dirent *de;
	int node = -1;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "node", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9')
			node = atoi(de->d_name + 4);
	closedir(dir);
	return node;
}

void cpu_place_json(unsigned cpu, char *buf, size_t len)
{
	char path[128], name[32];
	size_t used;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/physical_package_id", cpu);
	add_text(buf, len, "package", path);
	used = strlen(buf);
	snprintf(buf + used, len - used, ", \"node\": %d", cpu_node(cpu));
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/thread_siblings_list", cpu);
	add_text(buf, len, "siblings", path);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cache/index3/shared_cpu_list", cpu);
	add_text(buf, len, "llc", path);
	/* debugfs names the levels; the tree is rebuilt after the online */
	used = strlen(buf);
	snprintf(buf + used, len - used, ", \"domains\": [");
	for (unsigned d = 0; d < 16; d++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/sched/domains/cpu%u/domain%u/name", cpu, d);
		if (wl_read_text(path, name, sizeof(name)) < 0)
			break;
		name[strcspn(name, "\n")] = '\0';
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s\"%s\"", d ? ", " : "", name);
	}
	used = strlen(buf);
	snprintf(buf + used, len - used, "]");
}
