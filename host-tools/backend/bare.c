/* bare.c - bare-metal mode's host side besides the command: state and lock,
 * journal replay, the topology probe of this host, measurement hygiene. */
#define _GNU_SOURCE
#include "backend/bare.h"
#include "lib/child.h"
#include "topo/guestview.h"
#include "common/journal.h"
#include "common/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

const char *bare_state_dir(void)
{
	static char *dir;
	const char *env = getenv("LAB_STATE");

	if (!dir)
		dir = env && *env ? xstrdup(env) :
		      geteuid() == 0 ? xstrdup("/var/lib/schedlab") :
		      xasprintf("%s/state", lab_cache_dir());
	return dir;
}

const char *bare_journal_path(void)
{
	static char *path;

	if (!path)
		path = xasprintf("%s/journal", bare_state_dir());
	return path;
}

int bare_lock(struct strbuf *err)
{
	char *path = xasprintf("%s/lock", bare_state_dir());
	int fd = -1;

	if (mkdir_p(bare_state_dir(), 0700) < 0 ||
	    (fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		strbuf_addf(err, "another 'lab bare' is running on this host (lock '%s')", path);
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

struct restore_ctx {
	const char *label;
	unsigned restored;
};

static void print_restored(void *ctx, const struct journal_entry *e, int ok, const char *detail)
{
	struct restore_ctx *rc = ctx;

	rc->restored += ok;
	printf("%s%s %s: %s\n", rc->label, ok ? "restored" : "NOT restored",
	       e->op == JOURNAL_MKDIR ? "cgroup" : e->path, e->op == JOURNAL_MKDIR ? e->path : detail);
	if (e->op == JOURNAL_MKDIR && !ok)
		printf("%s  (%s)\n", rc->label, detail);
}

int bare_restore(const char *label, unsigned *restored, struct strbuf *err)
{
	const char *path = bare_journal_path();
	struct journal j = JOURNAL_INIT;
	struct restore_ctx rc = { label, 0 };
	char perr[256];
	size_t len;
	char *text = read_file(path, &len);
	unsigned failed;

	*restored = 0;
	if (!text) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(err, "cannot read the journal '%s': %s", path, strerror(errno));
		return -1;
	}
	if (journal_parse(text, len, &j, perr, sizeof(perr)) < 0) {
		strbuf_addf(err, "journal '%s' %s: fix or remove it by hand", path, perr);
		free(text);
		return -1;
	}
	free(text);
	failed = journal_restore(&j, print_restored, &rc);
	fflush(stdout);
	*restored = rc.restored;
	journal_release(&j);
	if (!failed && unlink(path) < 0 && errno != ENOENT) {
		strbuf_addf(err, "cannot remove the journal '%s': %s", path, strerror(errno));
		return -1;
	}
	return (int)failed;
}

/* ---- the host's topology, through the runner's own probe ---- */

static int collect_sysfs(const struct wire_record *rec, void *ctx)
{
	if (rec->type == WIRE_SYSFS)
		strbuf_add(ctx, rec->payload, rec->len);
	return 0;
}

struct json_object *bare_probe(const char *runner, struct strbuf *err)
{
	char *out = xasprintf("%s/probe-%ld.bin", bare_state_dir(), (long)getpid());
	const char *argv[] = { runner, "--probe-topology", "--out", out, NULL };
	struct strbuf so = STRBUF_INIT, se = STRBUF_INIT, sysfs = STRBUF_INIT;
	struct wire_decoder d;
	struct json_object *view = NULL;
	char *data = NULL;
	size_t len;
	int rc;

	if (mkdir_p(bare_state_dir(), 0700) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", bare_state_dir(), strerror(errno));
		goto out;
	}
	rc = run_command_capture(argv, 30000, &so, &se);
	data = rc == 0 ? read_file(out, &len) : NULL;
	if (!data) {
		strbuf_addf(err, "the runner's topology probe failed (exit %d): %.200s", rc, se.buf);
		goto out;
	}
	wire_decoder_init(&d);
	wire_decoder_feed(&d, data, len, collect_sysfs, &sysfs);
	if (wire_decoder_finish(&d) < 0 || !sysfs.len)
		strbuf_addstr(err, "the runner's topology probe sent an incomplete snapshot");
	else
		view = guest_view_from_sysfs(sysfs.buf, sysfs.len, err);
	wire_decoder_release(&d);
out:
	unlink(out);
	free(out);
	free(data);
	strbuf_release(&so);
	strbuf_release(&se);
	strbuf_release(&sysfs);
	return view;
}

/* ---- measurement hygiene ---- */

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* total and idle (idle + iowait) jiffies of a /proc/stat "cpu" line */
static int cpu_times(const char *line, unsigned long long *total, unsigned long long *idle)
{
	unsigned long long v[10] = { 0 };
	int n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);

	if (n < 4)
		return -1;
	*total = 0;
	/* guest and guest_nice are already in user and nice */
	for (int i = 0; i < n && i < 8; i++)
		*total += v[i];
	*idle = v[3] + (n > 4 ? v[4] : 0);
	return 0;
}

double bare_busy_fraction(const char *before, const char *after)
{
	unsigned long long t0, i0, t1, i1;

	if (cpu_times(before, &t0, &i0) < 0 || cpu_times(after, &t1, &i1) < 0 || t1 <= t0 ||
	    i1 < i0 || i1 - i0 > t1 - t0)
		return -1;
	return 1.0 - (double)(i1 - i0) / (double)(t1 - t0);
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void hygiene_governor(struct json_object *h)
{
	char gov[64];

	if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", gov, sizeof(gov)) < 0) {
		add_str(h, "cpufreq_governor", "absent");
		warning("no cpufreq governor on this host (no cpufreq driver, e.g. a VM): CPU frequency "
			"is whatever the platform chooses");
		return;
	}
	add_str(h, "cpufreq_governor", gov);
	if (strcmp(gov, "performance"))
		warning("cpufreq governor is '%s', not 'performance': frequency changes add noise", gov);
}

static void hygiene_smt(struct json_object *h)
{
	char smt[64];

	if (read_line("/sys/devices/system/cpu/smt/control", smt, sizeof(smt)) < 0)
		snprintf(smt, sizeof(smt), "absent");
	add_str(h, "smt_control", smt);
	if (!strcmp(smt, "on"))
		warning("SMT is on: siblings share a core; compare with an SMT-off baseline "
			"(echo off > /sys/devices/system/cpu/smt/control)");
	else
		warning("SMT control is '%s': no SMT siblings to share cores with", smt);
}

static void hygiene_busy(struct json_object *h, unsigned sample_ms)
{
	char before[256] = "", after[256] = "", load[128] = "";
	struct timespec ts = { sample_ms / 1000, (long)(sample_ms % 1000) * 1000000L };
	double busy, l1 = -1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	read_line("/proc/stat", before, sizeof(before));
	nanosleep(&ts, NULL);
	read_line("/proc/stat", after, sizeof(after));
	busy = bare_busy_fraction(before, after);
	json_object_object_add(h, "busy_pct", json_object_new_double(busy < 0 ? -1 : busy * 100));
	json_object_object_add(h, "busy_sample_ms", json_object_new_int((int)sample_ms));
	if (read_line("/proc/loadavg", load, sizeof(load)) == 0) {
		add_str(h, "loadavg", load);
		l1 = strtod(load, NULL);
	}
	if (busy < 0)
		warning("cannot tell how busy this host is (/proc/stat unreadable)");
	else if (busy > 0.10 || (ncpu > 0 && l1 > 0.5 * (double)ncpu))
		warning("this host is busy before the run: %.0f%% of its CPUs over %u ms, load "
			"average %.2f on %ld CPUs: other work disturbs the numbers", busy * 100,
			sample_ms, l1, ncpu);
}

struct json_object *bare_hygiene(unsigned sample_ms)
{
	struct json_object *h = json_object_new_object();
	char v[16];

	hygiene_governor(h);
	hygiene_smt(h);
	hygiene_busy(h, sample_ms);
	if (read_line("/proc/sys/kernel/sched_schedstats", v, sizeof(v)) < 0) {
		add_str(h, "sched_schedstats", "absent");
		warning("kernel.sched_schedstats is absent (no CONFIG_SCHEDSTATS): schedstat counters "
			"will not move");
	} else {
		add_str(h, "sched_schedstats", v);
		if (strcmp(v, "1"))
			warning("kernel.sched_schedstats is %s: schedstat counters will not move "
				"(sysctl -w kernel.sched_schedstats=1)", v);
	}
	return h;
}
