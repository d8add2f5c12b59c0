/* fail_inject.c - kernel fault injection (failslab, fail_page_alloc,
 * fail_function) through debugfs, scoped to the workload's tasks by make-it-fail. */
#include "../fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBUGFS "/sys/kernel/debug"
#define INJECT_MAX_TASKS 8192

/* The attributes every fault_attr directory has that we set; saved and
 * put back in this order (probability last: nothing fires in between). */
static const char *const attrs[] = { "task-filter", "interval", "times", "verbose",
				     "probability" };
#define NR_ATTRS (sizeof(attrs) / sizeof(attrs[0]))

struct inject {
	char dir[96];                  /* /sys/kernel/debug/<type> */
	char saved[NR_ATTRS][64];
	int have_saved[NR_ATTRS];
	int functions_added;
	pid_t tids[INJECT_MAX_TASKS];
};

static void attr_path(const char *dir, const char *attr, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, attr);
}

static int inject_check(const struct fault_ctx *fc, char *err, size_t len)
{
	const char *type = wl_str(&fc->args, "type");
	const char *fns = wl_str(&fc->args, "functions");

	if (!strcmp(type, "fail_function") && !fns[0]) {
		snprintf(err, len, "fail_function needs 'functions': the kernel functions to fail");
		return -1;
	}
	if (strcmp(type, "fail_function") && fns[0]) {
		snprintf(err, len, "'functions' is for type fail_function only");
		return -1;
	}
	for (const char *p = fns; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == ' ' || *p == ',' || *p == '.')) {
			snprintf(err, len, "bad character '%c' in 'functions'", *p);
			return -1;
		}
	}
	return 0;
}

static int inject_supported(const struct fault_ctx *fc, char *why, size_t len)
{
	const char *type = wl_str(&fc->args, "type");
	char dir[96];

	snprintf(dir, sizeof(dir), DEBUGFS "/%s", type);
	if (access(dir, F_OK) < 0) {
		snprintf(why, len, "this kernel has no %s (it needs CONFIG_FAULT_INJECTION, "
			 "CONFIG_FAULT_INJECTION_DEBUG_FS and CONFIG_%s): no %s", type,
			 !strcmp(type, "failslab") ? "FAILSLAB" :
			 !strcmp(type, "fail_page_alloc") ? "FAIL_PAGE_ALLOC" : "FAIL_FUNCTION",
			 dir);
		return 0;
	}
	if (access("/proc/self/make-it-fail", W_OK) < 0) {
		snprintf(why, len, "no /proc/<pid>/make-it-fail: cannot scope the injection to "
			 "the workload");
		return 0;
	}
	return 1;
}

static void inject_knobs(const struct fault_ctx *fc, void (*add)(void *ctx, const char *path),
			 void *ctx)
{
	char dir[96], path[160];

	snprintf(dir, sizeof(dir), DEBUGFS "/%s", wl_str(&fc->args, "type"));
	for (size_t i = 0; i < NR_ATTRS; i++) {
		attr_path(dir, attrs[i], path, sizeof(path));
		add(ctx, path);
	}
}

/* make-it-fail of every workload task: only they see injected failures. */
static unsigned mark_tasks(struct fault_ctx *fc, struct inject *in, const char *v)
{
	int n = fault_tids(fc, in->tids, INJECT_MAX_TASKS);
	unsigned done = 0;
	char path[64];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/make-it-fail", (int)in->tids[i]);
		done += fault_write(path, v) == 0;
	}
	return done;
}

static int set_attr(struct fault_ctx *fc, struct inject *in, const char *attr, const char *v)
{
	char path[160];

	attr_path(in->dir, attr, path, sizeof(path));
	if (fault_write(path, v) < 0) {
		fault_event(fc, "configure", attr, 0, "'%s': %s", v, strerror(errno));
		return -1;
	}
	return 0;
}

static int inject_start(struct fault_ctx *fc)
{
	struct inject *in = calloc(1, sizeof(*in));
	char num[32], path[160];
	const char *fns = wl_str(&fc->args, "functions");

	if (!in)
		return -1;
	snprintf(in->dir, sizeof(in->dir), DEBUGFS "/%s", wl_str(&fc->args, "type"));
	for (size_t i = 0; i < NR_ATTRS; i++) {
		attr_path(in->dir, attrs[i], path, sizeof(path));
		in->have_saved[i] = fault_read(path, in->saved[i], sizeof(in->saved[i])) == 0;
	}
	fc->priv = in;
	/* armed but silent until the first action sets the probability */
	if (set_attr(fc, in, "probability", "0") < 0 || set_attr(fc, in, "task-filter", "Y") < 0)
		return -1;
	snprintf(num, sizeof(num), "%lld", (long long)wl_int(&fc->args, "interval"));
	if (set_attr(fc, in, "interval", num) < 0)
		return -1;
	snprintf(num, sizeof(num), "%lld", (long long)wl_int(&fc->args, "times"));
	if (set_attr(fc, in, "times", num) < 0)
		return -1;
	snprintf(num, sizeof(num), "%lld", (long long)wl_int(&fc->args, "verbose"));
	if (set_attr(fc, in, "verbose", num) < 0)
		return -1;
	while (*fns) {
		size_t n = strcspn(fns, " ,");
		char fn[128];

		if (!n) {
			fns++;
			continue;
		}
		snprintf(fn, sizeof(fn), "%.*s", (int)(n < 127 ? n : 127), fns);
		fns += n;
		if (set_attr(fc, in, "inject", fn) < 0)
			return -1;
		in->functions_added = 1;
	}
	return 0;
}

static int inject_step(struct fault_ctx *fc, unsigned i)
{
	struct inject *in = fc->priv;
	char p[16], target[32];
	unsigned n;

	(void)i;
	n = mark_tasks(fc, in, "1");
	snprintf(target, sizeof(target), "%u tasks", n);
	snprintf(p, sizeof(p), "%lld", (long long)wl_int(&fc->args, "probability"));
	if (set_attr(fc, in, "probability", p) < 0)
		return -1;
	fault_event(fc, "enable", target, 1, "%s probability %s%%, interval %lld, times %lld",
		    wl_str(&fc->args, "type"), p, (long long)wl_int(&fc->args, "interval"),
		    (long long)wl_int(&fc->args, "times"));
	return 0;
}

static int inject_undo(struct fault_ctx *fc)
{
	struct inject *in = fc->priv;

	if (set_attr(fc, in, "probability", "0") < 0)
		return -1;
	fault_event(fc, "disable", wl_str(&fc->args, "type"), 1, NULL);
	return 0;
}

static int inject_stop(struct fault_ctx *fc)
{
	struct inject *in = fc->priv;
	char path[160];
	int ret = 0;

	if (!in)
		return 0;
	/* silence first, then untangle */
	attr_path(in->dir, "probability", path, sizeof(path));
	if (fault_write(path, "0") < 0)
		ret = -1;
	mark_tasks(fc, in, "0");
	if (in->functions_added) {
		/* an empty write clears fail_function's list */
		attr_path(in->dir, "inject", path, sizeof(path));
		if (fault_write(path, "\n") < 0)
			ret = -1;
	}
	for (size_t i = 0; i < NR_ATTRS; i++) {
		if (!in->have_saved[i])
			continue;
		attr_path(in->dir, attrs[i], path, sizeof(path));
		if (fault_write(path, in->saved[i]) < 0) {
			fault_event(fc, "restore", attrs[i], 0, "'%s': %s", in->saved[i], strerror(errno));
			ret = -1;
		}
	}
	free(in);
	fc->priv = NULL;
	return ret;
}

static const struct wl_option inject_options[] = {
	{ "type", WL_STR, 0, 0, "failslab", "failslab|fail_page_alloc|fail_function",
	  "which fault_attr: slab allocations, page allocations or listed functions" },
	{ "probability", WL_INT, 0, 100, "10", NULL, "percent of eligible calls that fail" },
	{ "interval", WL_INT, 1, 1000000, "1", NULL, "only every Nth eligible call may fail" },
	{ "times", WL_INT, -1, 1000000, "100", NULL, "failures at most; -1 = no limit" },
	{ "verbose", WL_INT, 0, 2, "0", NULL,
	  "0 quiet, 1 a line per failure, 2 with a backtrace (console noise)" },
	{ "functions", WL_STR, 0, 0, "", NULL,
	  "fail_function: kernel functions to fail (on its error-injection list)" },
	{ .name = NULL },
};

const struct fault_ops fault_fail_inject = {
	.name = "fail_inject",
	.description = "kernel fault injection (failslab, fail_page_alloc, fail_function) "
		       "for the workload's tasks only",
	.options = inject_options,
	.targets = FAULT_TARGET_BIT(FAULT_TARGET_WORKLOAD),
	.default_target = FAULT_TARGET_WORKLOAD,
	.check = inject_check,
	.supported = inject_supported,
	.knobs = inject_knobs,
	.start = inject_start,
	.step = inject_step,
	.undo = inject_undo,
	.stop = inject_stop,
};
