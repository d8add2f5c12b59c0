/* fprof.c - the ftrace function profiler (function_profile_enabled,
 * trace_stat/function<cpu>) over the functions a scenario names. */
#define _GNU_SOURCE
#include "fprof.h"
#include "fault-json.h"
#include "common/wire.h"
#include "wlutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* kernel/trace/ftrace.c prints a name as "%-30.30s" */
#define FPROF_NAME_COLS 30

static int path_of(const struct fprof *f, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", f->dir, name);

	return n > 0 && (size_t)n < len ? 0 : -1;
}

static int exists(const struct fprof *f, const char *name)
{
	char p[128];

	return !path_of(f, name, p, sizeof(p)) && !access(p, F_OK);
}

static int write_str(const struct fprof *f, const char *name, const char *s)
{
	char p[128];

	return path_of(f, name, p, sizeof(p)) ? -1 : wl_write_text(p, s, 0);
}

/* tracefs where the init script left it, mounted by us, or under debugfs */
static int find_tracefs(struct fprof *f)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(f->dir, sizeof(f->dir), "%s", dirs[i]);
		if (exists(f, "trace_stat") || exists(f, "set_ftrace_filter"))
			return 0;
		if (!i && !access(dirs[i], F_OK) &&
		    !mount("nodev", dirs[i], "tracefs", 0, NULL) &&
		    (exists(f, "trace_stat") || exists(f, "set_ftrace_filter")))
			return 0;
	}
	f->dir[0] = '\0';
	return -1;
}

static int vmstat_value(const char *key, unsigned long long *v)
{
	size_t len = 0, klen = strlen(key);
	char *text = wl_slurp("/proc/vmstat", &len, 1u << 20);
	int found = 0;

	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');

		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			*v = strtoull(p + klen + 1, NULL, 10);
			found = 1;
			break;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(text);
	return found ? 0 : -1;
}

/* One function into the open filter; the write is refused (EINVAL)
 * when no traceable function has that name. */
static void filter_one(struct fprof *f, int fd, unsigned i)
{
	char line[PLAN_MAX_SYMBOL + 2];
	int n = snprintf(line, sizeof(line), "%s\n", f->pr->funcs[i]);

	if (write(fd, line, (size_t)n) == n) {
		f->ok |= 1u << i;
		return;
	}
	snprintf(f->missing[i], sizeof(f->missing[i]), "%s",
		 errno == EINVAL ? "not in available_filter_functions (not traceable in this "
		 "kernel)" : strerror(errno));
}

static int set_filter(struct fprof *f)
{
	char p[128];
	int fd;

	f->saved_filter = path_of(f, "set_ftrace_filter", p, sizeof(p)) ? NULL :
			  wl_slurp(p, NULL, 1u << 16);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		snprintf(f->absent, sizeof(f->absent), "cannot open '%s': %s", p, strerror(errno));
		return -1;
	}
	for (unsigned i = 0; i < f->pr->nr_funcs; i++)
		filter_one(f, fd, i);
	/* the filter takes effect as the file is closed */
	if (close(fd) < 0 && f->ok) {
		snprintf(f->absent, sizeof(f->absent), "set_ftrace_filter: %s", strerror(errno));
		return -1;
	}
	if (!f->ok) {
		/* an empty filter would profile every function in the kernel */
		snprintf(f->absent, sizeof(f->absent), "none of the functions is traceable here");
		return -1;
	}
	return 0;
}

/* Puts back what set_ftrace_filter held; commands and all-enabled
 * banners ("#### ...") are not filters and are left out. */
static void restore_filter(struct fprof *f)
{
	char p[128];
	int fd;

	if (path_of(f, "set_ftrace_filter", p, sizeof(p)))
		return;
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return;
	for (char *s = f->saved_filter; s && *s;) {
		size_t n = strcspn(s, "\n");

		if (*s != '#' && !memchr(s, ':', n) && n &&
		    write(fd, s, n + (s[n] == '\n')) < 0) {
			/* the profile is measured; the old filter is best effort */
		}
		s += n + (s[n] == '\n');
	}
	close(fd);
	free(f->saved_filter);
	f->saved_filter = NULL;
}

void fprof_start(struct fprof *f, const struct plan_profile *pr)
{
	memset(f, 0, sizeof(*f));
	f->pr = pr;
	if (find_tracefs(f) < 0) {
		snprintf(f->absent, sizeof(f->absent),
			 "no tracefs (kernel without CONFIG_FTRACE?)");
		return;
	}
	if (!exists(f, "function_profile_enabled")) {
		snprintf(f->absent, sizeof(f->absent), "kernel without CONFIG_FUNCTION_PROFILER "
			 "(no %s/function_profile_enabled)", f->dir);
		return;
	}
	if (!exists(f, "set_ftrace_filter")) {
		snprintf(f->absent, sizeof(f->absent), "kernel without CONFIG_DYNAMIC_FTRACE "
			 "(no set_ftrace_filter)");
		return;
	}
	if (set_filter(f) < 0) {
		restore_filter(f);
		return;
	}
	if (pr->per[0])
		f->per_found = !vmstat_value(pr->per + strlen("vmstat:"), &f->per_before);
	/* 0 first: enabling is what resets the per-CPU counts */
	write_str(f, "function_profile_enabled", "0");
	if (write_str(f, "function_profile_enabled", "1") < 0) {
		snprintf(f->absent, sizeof(f->absent), "cannot enable the function profiler: %s",
			 strerror(errno));
		restore_filter(f);
		return;
	}
	f->enabled = 1;
}

/* A trace_stat line is kept when it is a header or names a profiled
 * function (cut to the 30 columns the kernel prints). */
static int keep_line(const struct fprof *f, const char *line, size_t n)
{
	const char *w = line, *end = line + n;
	size_t wl;

	while (w < end && *w == ' ')
		w++;
	wl = strcspn(w, " \n");
	if ((wl == 8 && !strncmp(w, "Function", 8)) || (wl && *w == '-'))
		return 1;
	for (unsigned i = 0; i < f->pr->nr_funcs; i++) {
		size_t fl = strlen(f->pr->funcs[i]);

		if (fl > FPROF_NAME_COLS)
			fl = FPROF_NAME_COLS;
		if ((f->ok & (1u << i)) && wl == fl && !strncmp(w, f->pr->funcs[i], fl))
			return 1;
	}
	return 0;
}

static void add_cpus(const struct fprof *f, struct fj *t)
{
	for (unsigned cpu = 0;; cpu++) {
		char name[48], p[128], *text;

		snprintf(name, sizeof(name), "trace_stat/function%u", cpu);
		if (path_of(f, name, p, sizeof(p)) || !(text = wl_slurp(p, NULL, 1u << 22)))
			break; /* possible CPUs are numbered from 0 without holes */
		fj_printf(t, "cpu\t%u\n", cpu);
		for (char *s = text; *s;) {
			size_t n = strcspn(s, "\n");

			if (keep_line(f, s, n)) {
				fj_add(t, s, n);
				fj_add(t, "\n", 1);
			}
			s += n + (s[n] == '\n');
		}
		free(text);
	}
}

int fprof_stop(struct fprof *f, struct out *o, const char *case_id, unsigned run)
{
	/* too many CPUs: the host sees a record without the later ones */
	struct fj t = { .limit = WIRE_MAX_PAYLOAD / 2 };
	unsigned long long after = 0;
	int ret;

	if (f->enabled) {
		write_str(f, "function_profile_enabled", "0");
		if (f->per_found)
			f->per_found = !vmstat_value(f->pr->per + strlen("vmstat:"), &after);
	}
	fj_printf(&t, "%s\trun%u\tfprof\nfprof\t%d\n", case_id, run, FPROF_FORMAT);
	if (!f->enabled) {
		fj_printf(&t, "absent\t%s\n", f->absent[0] ? f->absent : "not started");
	} else {
		for (unsigned i = 0; i < f->pr->nr_funcs; i++) {
			if (f->ok & (1u << i))
				fj_printf(&t, "func\t%s\tok\n", f->pr->funcs[i]);
			else
				fj_printf(&t, "func\t%s\tmissing\t%s\n", f->pr->funcs[i],
					  f->missing[i]);
		}
		if (f->pr->per[0] && f->per_found)
			fj_printf(&t, "per\t%s\t%llu\t%llu\n", f->pr->per, f->per_before, after);
		else if (f->pr->per[0])
			fj_printf(&t, "per\t%s\tmissing\n", f->pr->per);
		add_cpus(f, &t);
		restore_filter(f);
	}
	ret = out_record(o, WIRE_COUNTERS, fj_text(&t), t.len);
	fj_release(&t);
	free(f->saved_filter);
	f->saved_filter = NULL;
	f->enabled = 0;
	return ret;
}
