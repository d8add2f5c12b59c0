/* schedtrace.c - records the scheduler's tracepoints of one measured run in
 * tracefs and ships the raw per-CPU pages; the host parses them. */
#define _GNU_SOURCE
#include "schedtrace.h"
#include "common/journal.h"
#include "common/plan.h"
#include "common/wire.h"
#include "wlutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* Raw pages per record: big records, few headers, well under the limit. */
#define PAGES_CHUNK (256u * 1024)

static int formats_sent; /* once per boot: the format files do not change */
static int clock_sent;   /* the trace clock: set by the first case, kept */

static int path_of(const struct schedtrace *t, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", t->dir, name);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* journal: note the original first (bare metal); a value to note instead
 * of what the file reads, or "" for what it reads. */
static int write_str(const struct schedtrace *t, const char *name, const char *s,
		     const char *journal)
{
	char p[160];

	if (path_of(t, name, p, sizeof(p)) ||
	    (journal && (journal[0] ? journal_note_set_value(p, journal) : journal_note_set(p)) < 0))
		return -1;
	return wl_write_text(p, s, O_TRUNC);
}

/* The first word of a small tracefs file, "" when unreadable. */
static void read_word(const struct schedtrace *t, const char *name, char *out, size_t len)
{
	char p[160], *text;

	out[0] = '\0';
	if (path_of(t, name, p, sizeof(p)) || !(text = wl_slurp(p, NULL, 4096)))
		return;
	snprintf(out, len, "%.*s", (int)strcspn(text, " \n"), text);
	free(text);
}

/* "7 (expanded: 1408)" before first use: what to put back is 1408. */
static void read_buffer_kb(struct schedtrace *t)
{
	char p[160], *text, *x;

	t->saved_kb[0] = '\0';
	if (path_of(t, "buffer_size_kb", p, sizeof(p)) || !(text = wl_slurp(p, NULL, 4096)))
		return;
	x = strstr(text, "expanded: ");
	x = x ? x + 10 : text;
	snprintf(t->saved_kb, sizeof(t->saved_kb), "%.*s", (int)strspn(x, "0123456789"), x);
	free(text);
}

/* "[local] global counter ...": the name in brackets is the clock in use. */
static void read_clock(struct schedtrace *t)
{
	char p[160], *text, *b;

	t->saved_clock[0] = '\0';
	if (path_of(t, "trace_clock", p, sizeof(p)) || !(text = wl_slurp(p, NULL, 4096)))
		return;
	if ((b = strchr(text, '[')))
		snprintf(t->saved_clock, sizeof(t->saved_clock), "%.*s", (int)strcspn(b + 1, "]"), b + 1);
	free(text);
}

/* lab.schedtrace=boot on the kernel command line: the host enabled the
 * events with trace_event= (no static key flips while cases run). */
static int events_on_from_boot(void)
{
	char *text = wl_slurp("/proc/cmdline", NULL, 1u << 16);
	int on = 0;

	for (char *p = text; p && (p = strstr(p, "lab.schedtrace=boot")); p++)
		if (p == text || p[-1] == ' ') {
			on = 1;
			break;
		}
	free(text);
	return on;
}

/* Clocks in nanoseconds that agree across CPUs where the TSC is one clock
 * for all (TCG, and any machine with a stable TSC): the host needs no
 * conversion, and "local" costs no global cmpxchg per event. */
static int clock_agrees(const char *clock)
{
	return !strcmp(clock, "global") || !strcmp(clock, "local") || !strcmp(clock, "mono");
}

static int send(struct out *o, const char *case_id, const char *run, const char *kind,
		const char *name, const void *data, size_t len)
{
	size_t hlen = strlen(case_id) + strlen(run) + strlen(kind) + strlen(name) + 4;
	char *buf = malloc(hlen + 1 + len);
	int ret;

	if (!buf) {
		runner_error("out of memory");
		return -1;
	}
	snprintf(buf, hlen + 1, "%s\t%s\t%s\t%s\n", case_id, run, kind, name);
	if (len)
		memcpy(buf + hlen, data, len);
	ret = out_record(o, WIRE_TRACE, buf, hlen + len);
	free(buf);
	return ret;
}

static int find_tracefs(struct schedtrace *t)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[160];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(t->dir, sizeof(t->dir), "%s", dirs[i]);
		if (!path_of(t, "events/sched/sched_switch/format", p, sizeof(p)) && !access(p, R_OK))
			return 0;
		if (!i && !access(dirs[i], F_OK) && !mount("nodev", dirs[i], "tracefs", 0, NULL) &&
		    !access(p, R_OK))
			return 0;
	}
	t->dir[0] = '\0';
	return -1;
}

static int send_file(struct schedtrace *t, struct out *o, const char *rel, const char *name)
{
	char p[160], *text;
	size_t len = 0;
	int ret;

	if (path_of(t, rel, p, sizeof(p)) || !(text = wl_slurp(p, &len, 1u << 16)))
		return 0; /* the host says which format is missing */
	ret = send(o, "", "-", "format", name, text, len);
	free(text);
	return ret;
}

static int send_formats(struct schedtrace *t, struct out *o)
{
	char rel[96], num[24];

	if (formats_sent)
		return 0;
	formats_sent = 1;
	if (send_file(t, o, "events/header_page", "header_page") < 0 ||
	    send_file(t, o, "events/header_event", "header_event") < 0)
		return -1;
	for (size_t i = 0; i < PLAN_NR_SCHEDTRACE_EVENTS; i++) {
		snprintf(rel, sizeof(rel), "events/sched/%s/format", plan_schedtrace_events[i]);
		if (send_file(t, o, rel, plan_schedtrace_events[i]) < 0)
			return -1;
	}
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_PAGESIZE));
	return send(o, "", "-", "format", "page_size", num, strlen(num));
}

int schedtrace_setup(struct schedtrace *t, struct out *o, const char *case_id, unsigned kb)
{
	char kbs[24], rel[96];

	memset(t, 0, sizeof(*t));
	t->buffer_kb = kb ? kb : SCHEDTRACE_DEFAULT_KB;
	if (find_tracefs(t) < 0) {
		snprintf(t->absent, sizeof(t->absent),
			 "no tracefs with sched events (kernel without CONFIG_FTRACE or tracefs)");
		return send(o, case_id, "-", "absent", "-", t->absent, strlen(t->absent));
	}
	if (send_formats(t, o) < 0)
		return -1;
	read_word(t, "tracing_on", t->saved_on, sizeof(t->saved_on));
	read_buffer_kb(t);
	snprintf(kbs, sizeof(kbs), "%u", t->buffer_kb);
	if (write_str(t, "tracing_on", "0", "") < 0 ||
	    write_str(t, "buffer_size_kb", kbs, t->saved_kb) < 0) {
		snprintf(t->absent, sizeof(t->absent), "cannot set up tracefs in '%s': %s", t->dir,
			 strerror(errno));
		schedtrace_release(t);
		return send(o, case_id, "-", "absent", "-", t->absent, strlen(t->absent));
	}
	/* the host orders the CPUs' events by time: "local" clocks need not
	 * agree across CPUs, "global" does; a kernel without it keeps its own.
	 * A lab guest's command line may pick a cheaper clock it knows to agree
	 * (lab.schedtrace=boot: under TCG every vCPU's TSC is one host clock). */
	read_clock(t);
	snprintf(t->clock, sizeof(t->clock), "%s", t->saved_clock);
	if (t->saved_clock[0] && strcmp(t->saved_clock, "global") &&
	    !(events_on_from_boot() && clock_agrees(t->saved_clock)) &&
	    !write_str(t, "trace_clock", "global", t->saved_clock))
		snprintf(t->clock, sizeof(t->clock), "global");
	/* once per boot, as the formats: the host writes it into trace.dat */
	if (t->clock[0] && !clock_sent) {
		clock_sent = 1;
		if (send(o, "", "-", "format", "trace_clock", t->clock, strlen(t->clock)) < 0)
			return -1;
	}
	/* comms come with sched_switch and sched_waking: the saved-cmdlines
	 * cache is a global trylock and a copy on every switch, for nothing.
	 * A lab guest's command line already said (trace_options=). */
	if (!events_on_from_boot()) {
		read_word(t, "options/record-cmd", t->saved_record_cmd,
			  sizeof(t->saved_record_cmd));
		if (t->saved_record_cmd[0] && strcmp(t->saved_record_cmd, "0"))
			write_str(t, "options/record-cmd", "0", "");
	}
	for (size_t i = 0; i < PLAN_NR_SCHEDTRACE_EVENTS; i++) {
		snprintf(rel, sizeof(rel), "events/sched/%s/enable", plan_schedtrace_events[i]);
		read_word(t, rel, t->saved_enable[i], sizeof(t->saved_enable[i]));
		/* a boot-traced guest's events are the command line's: turning
		 * one on patches code while other vCPUs run (and a bench can
		 * leave one out).  An event this kernel lacks is a missing
		 * metric, not a failure. */
		if (!events_on_from_boot())
			write_str(t, rel, "1", "");
	}
	return 0;
}

void schedtrace_start(struct schedtrace *t)
{
	if (!t->dir[0])
		return;
	write_str(t, "trace", "", NULL); /* clears every CPU's buffer */
	t->started = !write_str(t, "tracing_on", "1", NULL);
}

static int ship_cpu(struct schedtrace *t, struct out *o, const char *case_id,
		    const char *run, long cpu)
{
	char rel[96], name[24], p[160], *buf, *text;
	size_t have = 0, len = 0;
	int fd, ret = 0;
	ssize_t n;

	snprintf(name, sizeof(name), "cpu%ld", cpu);
	snprintf(rel, sizeof(rel), "per_cpu/cpu%ld/trace_pipe_raw", cpu);
	if (path_of(t, rel, p, sizeof(p)))
		return 0;
	fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0; /* an offline CPU has no buffer */
	buf = malloc(PAGES_CHUNK);
	if (!buf) {
		close(fd);
		return -1;
	}
	/* reads return one page each; a stopped buffer ends with EAGAIN or 0 */
	for (;;) {
		n = read(fd, buf + have, PAGES_CHUNK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			have += (size_t)n;
		if (have && (n <= 0 || PAGES_CHUNK - have < 65536)) {
			if (send(o, case_id, run, "cpu", name, buf, have) < 0) {
				ret = -1;
				break;
			}
			have = 0;
		}
		if (n <= 0)
			break;
	}
	close(fd);
	free(buf);
	if (ret < 0)
		return -1;
	snprintf(rel, sizeof(rel), "per_cpu/cpu%ld/stats", cpu);
	if (path_of(t, rel, p, sizeof(p)) || !(text = wl_slurp(p, &len, 1u << 16)))
		return 0;
	ret = send(o, case_id, run, "stats", name, text, len);
	free(text);
	return ret;
}

/* "<ended> <tid> ...": how many tasks ended, and the tids the list holds
 * (all of them unless more than WL_MAX_TIDS ended: the host then knows
 * the list is cut). */
static int send_tids(struct out *o, const char *case_id, const char *run,
		     const struct wl_task_tids *tids)
{
	uint32_t ended = tids->ended, nr = ended < WL_MAX_TIDS ? ended : WL_MAX_TIDS;
	size_t cap = 16 + (size_t)nr * 12, len;
	char *buf = malloc(cap);
	int ret;

	if (!buf) {
		runner_error("out of memory");
		return -1;
	}
	len = (size_t)snprintf(buf, cap, "%u", ended);
	for (uint32_t i = 0; i < nr; i++)
		len += (size_t)snprintf(buf + len, cap - len, " %d", (int)tids->tid[i]);
	buf[len++] = '\n';
	ret = send(o, case_id, run, "tasks", "-", buf, len);
	free(buf);
	return ret;
}

int schedtrace_stop(struct schedtrace *t, struct out *o, const char *case_id, unsigned run,
		    const struct wl_task_tids *tids)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	char runs[16];

	if (!t->dir[0] || !t->started)
		return 0;
	write_str(t, "tracing_on", "0", NULL);
	t->started = 0;
	snprintf(runs, sizeof(runs), "run%u", run);
	for (long cpu = 0; cpu < ncpu && cpu < 16384; cpu++)
		if (ship_cpu(t, o, case_id, runs, cpu) < 0)
			return -1;
	if (tids && send_tids(o, case_id, runs, tids) < 0)
		return -1;
	return send(o, case_id, runs, "done", "-", NULL, 0);
}

int schedtrace_release(struct schedtrace *t)
{
	char rel[96];
	int ret = 0;

	if (!t->dir[0])
		return 0;
	write_str(t, "tracing_on", "0", NULL);
	for (size_t i = 0; i < PLAN_NR_SCHEDTRACE_EVENTS; i++) {
		snprintf(rel, sizeof(rel), "events/sched/%s/enable", plan_schedtrace_events[i]);
		if (t->saved_enable[i][0] && write_str(t, rel, t->saved_enable[i], NULL) < 0)
			ret = -1;
	}
	if (t->saved_kb[0] && write_str(t, "buffer_size_kb", t->saved_kb, NULL) < 0)
		ret = -1;
	if (t->saved_clock[0] && strcmp(t->saved_clock, t->clock) &&
	    write_str(t, "trace_clock", t->saved_clock, NULL) < 0)
		ret = -1;
	if (t->saved_record_cmd[0] && strcmp(t->saved_record_cmd, "0") &&
	    write_str(t, "options/record-cmd", t->saved_record_cmd, NULL) < 0)
		ret = -1;
	write_str(t, "trace", "", NULL); /* our pages are shipped: leave no 4 MB per CPU behind */
	if (t->saved_on[0] && write_str(t, "tracing_on", t->saved_on, NULL) < 0)
		ret = -1;
	t->dir[0] = '\0';
	return ret;
}

void schedtrace_boot_quiet(void)
{
	struct schedtrace t;

	if (!events_on_from_boot())
		return;
	memset(&t, 0, sizeof(t));
	if (find_tracefs(&t) < 0)
		return;
	/* the boot recorded since trace_event=: keep the buffers for the
	 * traced runs, and untraced cases free of ring-buffer writes */
	write_str(&t, "tracing_on", "0", NULL);
	write_str(&t, "trace", "", NULL);
}
