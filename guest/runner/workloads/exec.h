/* exec.h - the parts of the exec workload its unit tests reach: the command
 * split, the output patterns and the captured output buffer. */
#ifndef LAB_EXEC_H
#define LAB_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "../workload.h"

/* output kept for the patterns: the tail, where benchmarks print results */
#define EXEC_OUT_MAX (1u << 20)
#define EXEC_LINE_SHOW 160

struct exec_pattern {
	char name[WL_NAME_LEN];
	char prefix[256];
	char unit[16];
	int higher_is_better;
};

/* Output kept in one fixed buffer; when it fills, the older half goes. */
struct exec_out {
	char *data;
	size_t len;
	int truncated;
};

int exec_split(char *cmd, char **argv, int max);
int exec_parse_pattern(const char *spec, struct exec_pattern *p, char *why, size_t len);
int exec_find(const char *out, size_t len, const char *prefix, double *value);
void exec_last_line(const char *out, size_t len, char *line, size_t size);
void exec_out_make_room(struct exec_out *o);

/*
 * Runs argv (execvp) in a process group of its own, stdout and stderr
 * into o (o->data EXEC_OUT_MAX bytes), until it exits or ctx's deadline;
 * the group is killed after either, and the command reaped (*status).
 * slice_ns: its fair slice (0: none).  *seconds: from fork to exit.
 * 0, 1 when the deadline came first, -1 with ctx->error.
 */
int exec_command(struct wl_ctx *ctx, char **argv, uint64_t slice_ns, struct exec_out *o,
		 int *status, double *seconds);

#endif
