/* qmp-state.c - a guest's whole state out to a file descriptor and back in
 * (QEMU migration over an fd), the mechanism of the lab's warm start. */
#define _GNU_SOURCE
#include "backend/qmp.h"

#include <json-c/json.h>
#include <string.h>
#include <time.h>

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A member of a QMP return, as a string; "" when absent. */
static const char *member(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static int left_ms(uint64_t deadline)
{
	uint64_t now = now_ns();

	return now >= deadline ? 0 : (int)((deadline - now) / 1000000ull);
}

int qmp_save_state(struct qmp *q, int fd, int timeout_ms, struct strbuf *err)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct json_object *args;
	int ret;

	/* stopped first: the stream is one consistent image, sent once */
	if (qmp_command(q, "stop", NULL, NULL, 5000, err) < 0)
		return -1;
	/* QEMU's default limit (128 MiB/s) is for links between hosts */
	args = json_object_new_object();
	json_object_object_add(args, "max-bandwidth", json_object_new_int64(INT64_C(1) << 40));
	ret = qmp_command(q, "migrate-set-parameters", args, NULL, 5000, err);
	json_object_put(args);
	if (ret < 0)
		return -1;
	args = json_object_new_object();
	json_object_object_add(args, "fdname", json_object_new_string("lab-warm"));
	ret = qmp_command_fd(q, "getfd", args, fd, NULL, 5000, err);
	json_object_put(args);
	if (ret < 0)
		return -1;
	args = json_object_new_object();
	json_object_object_add(args, "uri", json_object_new_string("fd:lab-warm"));
	ret = qmp_command(q, "migrate", args, NULL, 5000, err);
	json_object_put(args);
	if (ret < 0)
		return -1;
	for (;;) {
		struct json_object *reply = NULL;
		const char *st;

		if (qmp_command(q, "query-migrate", NULL, &reply, left_ms(deadline) + 1000, err) < 0)
			return -1;
		st = member(reply, "status");
		if (!strcmp(st, "completed")) {
			json_object_put(reply);
			break;
		}
		if (!strcmp(st, "failed") || !strcmp(st, "cancelled")) {
			strbuf_addf(err, "saving the guest %s: %s", st, member(reply, "error-desc"));
			json_object_put(reply);
			return -1;
		}
		json_object_put(reply);
		if (!left_ms(deadline)) {
			strbuf_addstr(err, "saving the guest did not finish in time");
			qmp_command(q, "migrate_cancel", NULL, NULL, 5000, err);
			return -1;
		}
		nap_ms(20);
	}
	/* the saved guest goes on with this run */
	return qmp_command(q, "cont", NULL, NULL, 5000, err);
}

int qmp_wait_incoming(struct qmp *q, int timeout_ms, struct strbuf *err)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		struct json_object *reply = NULL;
		const char *st;

		/* a stream QEMU cannot load makes it exit: the QMP read fails */
		if (qmp_command(q, "query-status", NULL, &reply, left_ms(deadline) + 1000, err) < 0)
			return -1;
		st = member(reply, "status");
		if (!strcmp(st, "running")) {
			json_object_put(reply);
			return 0;
		}
		/* saved while stopped, the stream says "paused": run it now */
		if (!strcmp(st, "paused")) {
			json_object_put(reply);
			return qmp_command(q, "cont", NULL, NULL, 5000, err);
		}
		if (strcmp(st, "inmigrate")) {
			strbuf_addf(err, "restored guest is '%s', not running", st);
			json_object_put(reply);
			return -1;
		}
		json_object_put(reply);
		if (!left_ms(deadline)) {
			strbuf_addstr(err, "restoring the guest did not finish in time");
			return -1;
		}
		nap_ms(10);
	}
}
