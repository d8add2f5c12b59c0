/* runstate.c - what a hypervisor's run state and its stderr say about a
 * guest it stopped by itself (backend.h: struct backend_state). */
#define _GNU_SOURCE
#include "backend/backend.h"
#include "lib/util.h"

#include <json-c/json.h>

#include <stdlib.h>
#include <string.h>

int backend_state_halted(const char *status, int paused_by_lab)
{
	static const char *const halted[] = {
		"internal-error", "guest-panicked", "io-error", "shutdown", "watchdog",
	};

	if (!status)
		return 0;
	for (size_t i = 0; i < sizeof(halted) / sizeof(halted[0]); i++)
		if (!strcmp(status, halted[i]))
			return 1;
	/* someone else's stop (another monitor, a debugger) holds it too */
	return !paused_by_lab && (!strcmp(status, "paused") || !strcmp(status, "debug"));
}

/* A line of QEMU's stderr that says what went wrong. */
static int error_line(const char *line, size_t len)
{
	static const char *const words[] = {
		"error", "failure", "failed", "fatal", "abort", "assertion",
	};
	char *l = strndup(line, len);
	int yes = 0;

	if (!strcasestr(l, "warning:") && !strstr(l, "terminating on signal"))
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && !yes; i++)
			yes = strcasestr(l, words[i]) != NULL;
	free(l);
	return yes;
}

void backend_error_lines(const char *log, size_t len, unsigned max, struct strbuf *out)
{
	const char *end = log + len;
	struct strbuf seen = STRBUF_INIT;
	unsigned n = 0;

	for (const char *p = log; p < end && n < max;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t l;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		l = (size_t)(e - p);
		while (l && (p[l - 1] == '\r' || p[l - 1] == ' '))
			l--;
		if (l > 160)
			l = 160;
		if (l && memchr(p, '\0', l) == NULL && error_line(p, l)) {
			char *key = xasprintf("\n%.*s\n", (int)l, p);

			/* one vCPU after another reports the same error */
			if (!seen.len || !strstr(seen.buf, key)) {
				strbuf_addf(out, "%s%.*s", n ? "; " : "", (int)l, p);
				strbuf_addstr(&seen, key);
				n++;
			}
			free(key);
		}
		p = nl ? nl + 1 : end;
	}
	strbuf_release(&seen);
}

void backend_log_error_lines(const char *run_dir, unsigned max, struct strbuf *out)
{
	char *path = xasprintf("%s/qemu.log", run_dir), *log;
	size_t len;

	if ((log = read_file(path, &len)))
		backend_error_lines(log, len, max, out);
	free(log);
	free(path);
}

int backend_vcpu_threads(struct backend *b, long *tids, unsigned n, struct strbuf *err)
{
	struct json_object *reply = NULL;
	size_t nr;

	memset(tids, 0, n * sizeof(*tids));
	if (!b->ops->qmp) {
		strbuf_addf(err, "the %s backend has no monitor to name its vCPU threads", b->ops->name);
		return -1;
	}
	if (b->ops->qmp(b, "query-cpus-fast", NULL, &reply, err) < 0)
		return -1;
	nr = json_object_is_type(reply, json_type_array) ? json_object_array_length(reply) : 0;
	for (size_t i = 0; i < nr; i++) {
		struct json_object *c = json_object_array_get_idx(reply, i), *idx, *tid;
		int k;

		if (!json_object_object_get_ex(c, "cpu-index", &idx) ||
		    !json_object_object_get_ex(c, "thread-id", &tid))
			continue;
		k = json_object_get_int(idx);
		if (k >= 0 && (unsigned)k < n)
			tids[k] = (long)json_object_get_int64(tid);
	}
	json_object_put(reply);
	return 0;
}
