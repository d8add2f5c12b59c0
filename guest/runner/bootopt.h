/* bootopt.h - what the kernel command line asks of the runner before the first
 * case (lab.sched_feat=, lab.sched_knob=), and how it refuses. */
#ifndef RUNNER_BOOTOPT_H
#define RUNNER_BOOTOPT_H

#include <stddef.h>

#include "out.h"

#define BOOTOPT_CMDLINE_MAX 4096

/*
 * The value of key ("lab.sched_feat=") in /proc/cmdline, read into buf
 * (size bytes): 1 and [*val, *val + *len) when present, 0 when absent,
 * -1 when /proc/cmdline cannot be read.
 */
int bootopt_value(const char *key, char *buf, size_t size, const char **val, size_t *len);

/* apply(o, value, length, "KEY on the command line") with the value of
 * key in /proc/cmdline: its result, or 0 when key is absent (or, said on
 * stderr, /proc/cmdline unreadable). */
int bootopt_apply(struct out *o, const char *key,
		  int (*apply)(struct out *o, const char *val, size_t len, const char *from));
/* 1 when the kernel command line says lab.records=console: records go
 * as text lines on the console (common/wiretext.h), not to --out. */
int bootopt_records_console(void);

/* One line on the console (the runner's stderr) and as a LOG record in
 * the results: why the variant asked for cannot be set. */
void bootopt_refuse(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Mounts debugfs when the sched directory is missing (an image's own
 * init may not have); what is still missing shows at the open. */
void bootopt_debugfs(void);

#endif
