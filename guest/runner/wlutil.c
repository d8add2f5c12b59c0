/* wlutil.c - small helpers the workloads share: sysfs and procfs, CPU
 * lists and pinning, cache and memory sizes, deadline sleeps, a start gate. */
#include "wlutil.h"
#include "common/cpulist.h"
#include "common/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

ssize_t wl_read_text(const char *path, char *buf, size_t len)
{
	ssize_t got;
	int fd, e;

	if (!len) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read_in_full(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (got < 0) {
		errno = e;
		return -1;
	}
	while (got && buf[got - 1] == '\n')
		got--;
	buf[got] = '\0';
	return (ssize_t)got;
}

int wl_parse_cpulist(const char *s, cpu_set_t *set)
{
	unsigned long bits[CPULIST_LONGS(CPU_SETSIZE)];
	int n = cpulist_parse(s, bits, CPU_SETSIZE, NULL, 0);

	CPU_ZERO(set);
	for (unsigned i = 0; n > 0 && i < CPU_SETSIZE; i++)
		if (cpulist_test(bits, i))
			CPU_SET(i, set);
	return n;
}

int wl_parse_cache_size(const char *s, uint64_t *bytes)
{
	char buf[32];
	size_t n = strlen(s);
	int64_t v;

	/* sysfs ends the value with a newline; the option grammar does not */
	if (n && s[n - 1] == '\n')
		n--;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (wl_parse_size(buf, &v) < 0)
		return -1;
	*bytes = (uint64_t)v;
	return 0;
}

/* The lowest CPU of a cache's shared_cpu_list names that cache instance. */
static int cache_first_cpu(int cpu, const char *index)
{
	char path[128], buf[4096];
	cpu_set_t set;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/%s/shared_cpu_list",
		 cpu, index);
	if (wl_read_text(path, buf, sizeof(buf)) < 0 || wl_parse_cpulist(buf, &set) <= 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

uint64_t wl_llc_bytes(unsigned *instances)
{
	char path[128], buf[4096], best_index[16] = "";
	uint64_t best_size = 0;
	long best_level = 0;
	cpu_set_t online;

	*instances = 0;
	for (int i = 0; i < 16; i++) {
		char type[32];
		uint64_t size;
		long level;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (wl_read_text(path, buf, sizeof(buf)) < 0)
			continue;
		level = strtol(buf, NULL, 10);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (wl_read_text(path, type, sizeof(type)) < 0 || !strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (wl_read_text(path, buf, sizeof(buf)) < 0 || wl_parse_cache_size(buf, &size) < 0)
			continue;
		if (level > best_level) {
			best_level = level;
			best_size = size;
			snprintf(best_index, sizeof(best_index), "index%d", i);
		}
	}
	if (!best_size)
		return 0;
	if (wl_read_text("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    wl_parse_cpulist(buf, &online) <= 0) {
		*instances = 1;
		return best_size;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &online) && cache_first_cpu(c, best_index) == c)
			(*instances)++;
	if (!*instances)
		*instances = 1;
	return best_size;
}

int64_t wl_mem_available(void)
{
	char buf[8192];
	const char *p;

	if (wl_read_text("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "MemAvailable:");
	if (!p)
		return -1;
	return (int64_t)strtoll(p + strlen("MemAvailable:"), NULL, 10) * 1024;
}

int wl_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (!n) {
		errno = ESRCH;
		return -1;
	}
	return n;
}

void wl_name_self(const char *role)
{
	char comm[16];

	snprintf(comm, sizeof(comm), "%s", role);
	prctl(PR_SET_NAME, (unsigned long)comm, 0, 0, 0);
}

int wl_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return wl_bind_self(&set);
}

int wl_bind_self(const cpu_set_t *set)
{
	return sched_setaffinity(0, sizeof(*set), set);
}

int wl_vmstat_read(const char *const *names, size_t n, uint64_t *values)
{
	static char buf[32768];  /* /proc/vmstat is ~6 KB; not on a stack */
	const char *line;

	if (wl_read_text("/proc/vmstat", buf, sizeof(buf)) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		values[i] = 0;
		for (line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
			if (!strncmp(line, names[i], len) && line[len] == ' ') {
				values[i] = strtoull(line + len + 1, NULL, 10);
				break;
			}
		}
	}
	return 0;
}

int wl_sleep_until(uint64_t until, uint64_t deadline_ns)
{
	int late = deadline_ns && until > deadline_ns;
	struct timespec ts;

	if (late)
		until = deadline_ns;
	ts.tv_sec = (time_t)(until / 1000000000ull);
	ts.tv_nsec = (long)(until % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return late ? -1 : 0;
}

int wl_gate_init(struct wl_gate *g)
{
	g->ready[0] = g->ready[1] = g->go[0] = g->go[1] = -1;
	if (pipe2(g->ready, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(g->go, O_CLOEXEC) < 0) {
		int e = errno;

		wl_gate_release(g);
		errno = e;
		return -1;
	}
	return 0;
}

int wl_gate_wait_ready(struct wl_gate *g, unsigned n, uint64_t deadline_ns)
{
	int failed = 0;

	while (n) {
		struct pollfd pfd = { .fd = g->ready[0], .events = POLLIN };
		char buf[256];
		int timeout = -1;
		ssize_t got;

		if (deadline_ns) {
			struct timespec ts;
			uint64_t now;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
			if (now >= deadline_ns)
				return -1;
			timeout = (int)((deadline_ns - now) / 1000000 + 1);
		}
		if (poll(&pfd, 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		got = xread(g->ready[0], buf, n < sizeof(buf) ? n : sizeof(buf));
		if (got <= 0)
			return -1;
		for (ssize_t i = 0; i < got; i++)
			if (buf[i] != 'r')
				failed = 1;
		n -= (unsigned)got;
	}
	return failed;
}

void wl_gate_open(struct wl_gate *g)
{
	if (g->go[1] >= 0)
		close(g->go[1]);
	g->go[1] = -1;
}

void wl_gate_forked(struct wl_gate *g)
{
	if (g->ready[1] >= 0)
		close(g->ready[1]);
	g->ready[1] = -1;
}

void wl_gate_child(struct wl_gate *g)
{
	/* the gate opens when the last write end of `go` closes: ours too */
	wl_gate_open(g);
	if (g->ready[0] >= 0)
		close(g->ready[0]);
	g->ready[0] = -1;
}

static void gate_signal(struct wl_gate *g, char c)
{
	write_in_full(g->ready[1], &c, 1);
}

/* `go` never carries data: read() returns 0 once the gate is open */
static void gate_wait(struct wl_gate *g)
{
	char c;

	xread(g->go[0], &c, 1);
}

void wl_gate_pass(struct wl_gate *g)
{
	gate_signal(g, 'r');
	gate_wait(g);
}

void wl_gate_pass_failed(struct wl_gate *g)
{
	gate_signal(g, 'f');
}

void wl_gate_release(struct wl_gate *g)
{
	for (int i = 0; i < 2; i++) {
		if (g->ready[i] >= 0)
			close(g->ready[i]);
		if (g->go[i] >= 0)
			close(g->go[i]);
		g->ready[i] = g->go[i] = -1;
	}
}

char *wl_slurp(const char *path, size_t *len, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= max)
				break;
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		r = xread(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

int wl_write_text(const char *path, const char *s, int flags)
{
	size_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	e = errno;
	if (close(fd) < 0 && n == (ssize_t)len)
		return -1;
	errno = n < 0 ? e : EIO;
	return n == (ssize_t)len ? 0 : -1;
}

/* Option values of workloads, faults and invariants, one grammar for all. */

int wl_parse_int(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

int wl_parse_size(const char *s, int64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: return -1;
	}
	if (*end || v > (1ull << 46) >> shift)
		return -1;
	*out = (int64_t)(v << shift);
	return 0;
}

int wl_parse_bool(const char *s, int64_t *out)
{
	if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "on") || !strcmp(s, "true"))
		*out = 1;
	else if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "off") || !strcmp(s, "false"))
		*out = 0;
	else
		return -1;
	return 0;
}

int wl_cgroup_path(const char *text, size_t len, char *out, size_t outlen)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 3 && !memcmp(p, "0::/", 4) && n - 3 < outlen &&
		    !memchr(p + 3, '\0', n - 3)) {
			memcpy(out, p + 3, n - 3);
			out[n - 3] = '\0';
			return 0;
		}
		p += n + 1;
	}
	return -1;
}
