/* sysctl_flip.c - sysctl and scheduler debugfs flips: cycles a sysctl or a
 * /sys/kernel/debug/sched tunable through values, or flips a sched feature. */
#include "../fault.h"
#include "sysctl_flip.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FEATURES "/sys/kernel/debug/sched/features"

struct flip {
	char path[160];
	char saved[512];               /* the value before the run */
	char values[FLIP_MAX_VALUES][64];
	unsigned nr_values;
	char feature[64];              /* a sched feature: no values */
	int feature_was_on;
};

static int name_ok(const char *s, const char *extra)
{
	if (!*s || strstr(s, ".."))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      strchr(extra, *s)))
			return 0;
	return 1;
}

/*
 * The file a fault writes: a sysctl name (kernel.numa_balancing) under
 * /proc/sys, a debugfs path under /sys/kernel/debug/sched (only scheduler
 * knobs: this fault is not a general-purpose writer), or the feature file.
 */
static int flip_path(const struct fault_ctx *fc, char *buf, size_t len, char *err, size_t errlen)
{
	const char *sysctl = wl_str(&fc->args, "sysctl");
	const char *dbg = wl_str(&fc->args, "debugfs");
	const char *feat = wl_str(&fc->args, "feature");
	int given = !!sysctl[0] + !!dbg[0] + !!feat[0];

	if (given != 1) {
		snprintf(err, errlen, "give exactly one of 'sysctl', 'debugfs' and 'feature'");
		return -1;
	}
	if (sysctl[0]) {
		if (!name_ok(sysctl, "."))
			goto bad;
		snprintf(buf, len, "/proc/sys/%s", sysctl);
		for (char *p = buf + strlen("/proc/sys/"); *p; p++)
			if (*p == '.')
				*p = '/';
		return 0;
	}
	if (dbg[0]) {
		if (strncmp(dbg, "sched/", 6) || !name_ok(dbg + 6, "/"))
			goto bad;
		snprintf(buf, len, "/sys/kernel/debug/%s", dbg);
		return 0;
	}
	for (const char *p = feat; *p; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) {
			snprintf(err, errlen, "bad feature name '%s' (upper case, as in %s)", feat,
				 FEATURES);
			return -1;
		}
	}
	if (!strncmp(feat, "NO_", 3)) {
		snprintf(err, errlen, "name the feature without 'NO_': '%s'", feat + 3);
		return -1;
	}
	snprintf(buf, len, "%s", FEATURES);
	return 0;
bad:
	snprintf(err, errlen, "bad %s '%s' (a sysctl like kernel.numa_balancing, or a path "
		 "under /sys/kernel/debug/ starting with sched/)", sysctl[0] ? "sysctl" : "debugfs",
		 sysctl[0] ? sysctl : dbg);
	return -1;
}

unsigned flip_split_values(const char *s, char out[][64], unsigned max)
{
	unsigned n = 0;

	while (*s && n < max) {
		size_t len = strcspn(s, " ,");

		if (len) {
			snprintf(out[n++], sizeof(out[0]), "%.*s", (int)(len < 63 ? len : 63), s);
			s += len;
		} else {
			s++;
		}
	}
	return n;
}

static int flip_check(const struct fault_ctx *fc, char *err, size_t len)
{
	char path[160], values[FLIP_MAX_VALUES + 1][64];
	const char *v = wl_str(&fc->args, "values");
	unsigned n;

	if (flip_path(fc, path, sizeof(path), err, len) < 0)
		return -1;
	n = flip_split_values(v, values, FLIP_MAX_VALUES + 1);
	if (wl_str(&fc->args, "feature")[0]) {
		if (v[0]) {
			snprintf(err, len, "a feature flips on and off: leave 'values' out");
			return -1;
		}
		return 0;
	}
	if (!n) {
		snprintf(err, len, "needs 'values': what to write, in turn (e.g. values = 0 1)");
		return -1;
	}
	if (n > FLIP_MAX_VALUES) {
		snprintf(err, len, "more than %d values", FLIP_MAX_VALUES);
		return -1;
	}
	return 0;
}

/* Whether FEATURES lists name as on (NAME) or off (NO_NAME): 1, 0, -1. */
int flip_feature_state(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; *p;) {
		size_t w = strcspn(p, " \n");

		if (w == n && !strncmp(p, name, n))
			return 1;
		if (w == n + 3 && !strncmp(p, "NO_", 3) && !strncmp(p + 3, name, n))
			return 0;
		p += w;
		while (*p == ' ' || *p == '\n')
			p++;
	}
	return -1;
}

static int flip_supported(const struct fault_ctx *fc, char *why, size_t len)
{
	char path[160], buf[2048];
	const char *feat = wl_str(&fc->args, "feature");

	if (flip_path(fc, path, sizeof(path), why, len) < 0)
		return 0;
	if (access(path, W_OK) < 0 || fault_read(path, buf, sizeof(buf)) < 0) {
		snprintf(why, len, "this kernel has no writable '%s'", path);
		return 0;
	}
	if (feat[0] && flip_feature_state(buf, feat) < 0) {
		snprintf(why, len, "this kernel has no scheduler feature '%s'", feat);
		return 0;
	}
	return 1;
}

static void flip_knobs(const struct fault_ctx *fc, void (*add)(void *ctx, const char *path),
		       void *ctx)
{
	char path[160], err[256];

	if (flip_path(fc, path, sizeof(path), err, sizeof(err)) == 0)
		add(ctx, path);
}

static int flip_start(struct fault_ctx *fc)
{
	struct flip *f = calloc(1, sizeof(*f));
	char err[256];

	if (!f)
		return -1;
	if (flip_path(fc, f->path, sizeof(f->path), err, sizeof(err)) < 0 ||
	    fault_read(f->path, f->saved, sizeof(f->saved)) < 0) {
		free(f);
		return -1;
	}
	snprintf(f->feature, sizeof(f->feature), "%s", wl_str(&fc->args, "feature"));
	if (f->feature[0])
		f->feature_was_on = flip_feature_state(f->saved, f->feature) == 1;
	else
		f->nr_values = flip_split_values(wl_str(&fc->args, "values"), f->values, FLIP_MAX_VALUES);
	fc->priv = f;
	return 0;
}

static const char *short_name(const struct flip *f)
{
	if (f->feature[0])
		return f->feature;
	if (!strncmp(f->path, "/proc/sys/", 10))
		return f->path + 10;
	return f->path + strlen("/sys/kernel/debug/");
}

static int put(struct fault_ctx *fc, struct flip *f, const char *action, const char *value)
{
	if (fault_write(f->path, value) < 0) {
		fault_event(fc, action, short_name(f), 0, "'%s': %s", value, strerror(errno));
		return -1;
	}
	fault_event(fc, action, short_name(f), 1, "%s", value);
	return 0;
}

static int flip_step(struct fault_ctx *fc, unsigned i)
{
	struct flip *f = fc->priv;
	char value[96];

	if (f->feature[0]) {
		/* each action sets the feature the other way from the start */
		snprintf(value, sizeof(value), "%s%s", f->feature_was_on ? "NO_" : "", f->feature);
		return put(fc, f, "write", value);
	}
	return put(fc, f, "write", f->values[i % f->nr_values]);
}

static int flip_restore(struct fault_ctx *fc, struct flip *f)
{
	char value[96];

	if (f->feature[0]) {
		snprintf(value, sizeof(value), "%s%s", f->feature_was_on ? "" : "NO_", f->feature);
		return put(fc, f, "restore", value);
	}
	return put(fc, f, "restore", f->saved);
}

static int flip_undo(struct fault_ctx *fc)
{
	return flip_restore(fc, fc->priv);
}

static int flip_stop(struct fault_ctx *fc)
{
	struct flip *f = fc->priv;
	char now[sizeof(f->saved)];
	int ret = 0;

	if (!f)
		return 0;
	if (fc->active || fault_read(f->path, now, sizeof(now)) < 0 || strcmp(now, f->saved))
		ret = flip_restore(fc, f);
	free(f);
	fc->priv = NULL;
	return ret;
}

static const struct wl_option flip_options[] = {
	{ "sysctl", WL_STR, 0, 0, "", NULL, "a sysctl, e.g. kernel.numa_balancing" },
	{ "debugfs", WL_STR, 0, 0, "", NULL,
	  "a file under /sys/kernel/debug/, e.g. sched/migration_cost_ns" },
	{ "feature", WL_STR, 0, 0, "", NULL,
	  "a scheduler feature of sched/features, e.g. TTWU_QUEUE: flipped from its state" },
	{ "values", WL_STR, 0, 0, "", NULL,
	  "what each action writes, in turn (space- or comma-separated)" },
	{ .name = NULL },
};

const struct fault_ops fault_sysctl_flip = {
	.name = "sysctl_flip",
	.description = "flip a sysctl, a /sys/kernel/debug/sched tunable or a sched feature",
	.options = flip_options,
	.targets = 0,
	.default_target = FAULT_TARGET_NONE,
	.check = flip_check,
	.supported = flip_supported,
	.knobs = flip_knobs,
	.start = flip_start,
	.step = flip_step,
	.undo = flip_undo,
	.stop = flip_stop,
};
