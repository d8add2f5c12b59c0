/* qmp.c - QMP client used by the QEMU backend: quit, inject-nmi, vCPU
 * hotplug and pause/resume all go through qmp_command(). */
#include "backend/qmp.h"
#include "common/io.h"
#include "lib/json.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void qmp_init(struct qmp *q, int fd)
{
	memset(q, 0, sizeof(*q));
	q->fd = fd;
	q->in.buf = strbuf_empty;
	q->next_id = 1;
}

void qmp_release(struct qmp *q)
{
	strbuf_release(&q->in);
}

struct json_object *qmp_take_message(struct strbuf *buf, int *bad)
{
	char *nl;
	struct json_object *obj;
	size_t linelen;

	*bad = 0;
	while ((nl = memchr(buf->buf, '\n', buf->len))) {
		linelen = (size_t)(nl - buf->buf);
		obj = NULL;
		if (linelen)
			obj = json_read_object(buf->buf, linelen, 0, "qmp message", NULL);
		memmove(buf->buf, nl + 1, buf->len - linelen - 1);
		buf->len -= linelen + 1;
		buf->buf[buf->len] = '\0';
		if (obj)
			return obj;
		/* blank lines (the trailing \r alone) are not errors */
		if (linelen > 1 || (linelen == 1 && buf->buf[0] != '\r'))
			*bad = 1;
	}
	return NULL;
}

/* Waits for the next message, at most timeout_ms in total. */
static struct json_object *read_message(struct qmp *q, int timeout_ms, struct strbuf *err)
{
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		int bad;
		struct json_object *obj = qmp_take_message(&q->in, &bad);
		struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
		char chunk[4096];
		uint64_t now;
		ssize_t n;
		int r;

		if (obj)
			return obj;
		if (q->in.len > QMP_MAX_MESSAGE) {
			strbuf_addstr(err, "qmp: message larger than 1 MiB");
			return NULL;
		}
		now = now_ns();
		if (now >= deadline) {
			strbuf_addstr(err, "qmp: no reply before the deadline");
			return NULL;
		}
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000ull) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			strbuf_addf(err, "qmp: poll: %s", strerror(errno));
			return NULL;
		}
		if (r == 0)
			continue;
		n = read(q->fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			strbuf_addstr(err, "qmp: connection closed by QEMU");
			return NULL;
		}
		strbuf_add(&q->in, chunk, (size_t)n);
	}
}

static const char *data_member(struct json_object *msg, const char *key)
{
	struct json_object *d, *v;

	if (!json_object_object_get_ex(msg, "data", &d) || !json_object_object_get_ex(d, key, &v))
		return NULL;
	return json_object_get_string(v);
}

int qmp_note_event(struct qmp *q, struct json_object *msg)
{
	struct json_object *v;
	const char *name, *why = NULL, *what = NULL;

	if (!json_object_object_get_ex(msg, "event", &v))
		return 0;
	q->events++;
	name = json_object_get_string(v);
	if (!strcmp(name, "RESUME")) {
		q->stopped = 0;
		q->cause[0] = '\0';
	} else if (!strcmp(name, "STOP")) {
		q->stopped = 1;
	} else if (!strcmp(name, "SHUTDOWN")) {
		q->stopped = 1;
		why = data_member(msg, "reason");
	} else if (!strcmp(name, "GUEST_PANICKED") || !strcmp(name, "WATCHDOG")) {
		why = data_member(msg, "action");
		what = "action ";
	} else if (!strcmp(name, "BLOCK_IO_ERROR")) {
		why = data_member(msg, "reason");
	} else {
		return 1;
	}
	q->state_changed = 1;
	if (strcmp(name, "STOP") && strcmp(name, "RESUME"))
		snprintf(q->cause, sizeof(q->cause), "%s%s%s%s%s", name, why ? " (" : "",
			 why && what ? what : "", why ? why : "", why ? ")" : "");
	return 1;
}

int qmp_pump_events(struct qmp *q, struct strbuf *err)
{
	for (;;) {
		struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
		struct json_object *msg;
		char chunk[4096];
		ssize_t n;
		int bad;

		while ((msg = qmp_take_message(&q->in, &bad))) {
			/* a reply nobody waits for any more is dropped */
			qmp_note_event(q, msg);
			json_object_put(msg);
		}
		if (poll(&pfd, 1, 0) <= 0)
			return 0;
		n = read(q->fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			strbuf_addstr(err, "qmp: connection closed by QEMU");
			return -1;
		}
		if (q->in.len + (size_t)n > QMP_MAX_MESSAGE) {
			strbuf_addstr(err, "qmp: message larger than 1 MiB");
			return -1;
		}
		strbuf_add(&q->in, chunk, (size_t)n);
	}
}

int qmp_handshake(struct qmp *q, int timeout_ms, struct strbuf *err)
{
	struct json_object *greet = read_message(q, timeout_ms, err), *qmp, *v;

	if (!greet)
		return -1;
	if (!json_object_object_get_ex(greet, "QMP", &qmp)) {
		json_object_put(greet);
		strbuf_addstr(err, "qmp: the first message is not a QMP greeting");
		return -1;
	}
	if (json_object_object_get_ex(qmp, "version", &v) &&
	    json_object_object_get_ex(v, "qemu", &v)) {
		struct json_object *a, *b, *c;

		if (json_object_object_get_ex(v, "major", &a) &&
		    json_object_object_get_ex(v, "minor", &b) &&
		    json_object_object_get_ex(v, "micro", &c))
			snprintf(q->version, sizeof(q->version), "%d.%d.%d",
				 json_object_get_int(a), json_object_get_int(b),
				 json_object_get_int(c));
	}
	json_object_put(greet);
	return qmp_command(q, "qmp_capabilities", NULL, NULL, timeout_ms, err);
}

/* The request's first byte carries fd (SCM_RIGHTS) for QEMU's getfd. */
static int send_with_fd(int sock, const char *text, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)text, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;

	memset(ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	while (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -1;
	return send_in_full(sock, text + 1, strlen(text) - 1) < 0 ? -1 : 0;
}

int qmp_command(struct qmp *q, const char *cmd, struct json_object *args,
		struct json_object **reply, int timeout_ms, struct strbuf *err)
{
	return qmp_command_fd(q, cmd, args, -1, reply, timeout_ms, err);
}

int qmp_command_fd(struct qmp *q, const char *cmd, struct json_object *args, int fd,
		   struct json_object **reply, int timeout_ms, struct strbuf *err)
{
	struct json_object *req = json_object_new_object();
	unsigned long id = q->next_id++;
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
	const char *text;
	int ret;

	json_object_object_add(req, "execute", json_object_new_string(cmd));
	if (args)
		json_object_object_add(req, "arguments", json_object_get(args));
	json_object_object_add(req, "id", json_object_new_int64((int64_t)id));
	text = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
	/* send(MSG_NOSIGNAL): a QEMU that died is an error here, not SIGPIPE */
	ret = (fd >= 0 ? send_with_fd(q->fd, text, fd) : send_in_full(q->fd, text, strlen(text))) < 0 ||
	      send_in_full(q->fd, "\r\n", 2) < 0 ? -1 : 0;
	json_object_put(req);
	if (ret) {
		strbuf_addf(err, "qmp: cannot send '%s': %s", cmd, strerror(errno));
		return -1;
	}
	for (;;) {
		uint64_t now = now_ns();
		struct json_object *msg, *v;
		int left = now >= deadline ? 0 : (int)((deadline - now) / 1000000ull);

		msg = read_message(q, left, err);
		if (!msg)
			return -1;
		if (qmp_note_event(q, msg)) {
			json_object_put(msg);
			continue;
		}
		if (!json_object_object_get_ex(msg, "id", &v) ||
		    (unsigned long)json_object_get_int64(v) != id) {
			json_object_put(msg);
			continue;
		}
		if (json_object_object_get_ex(msg, "error", &v)) {
			struct json_object *cls = NULL, *desc = NULL;

			json_object_object_get_ex(v, "class", &cls);
			json_object_object_get_ex(v, "desc", &desc);
			strbuf_addf(err, "qmp: '%s' failed: %s: %s", cmd,
				    cls ? json_object_get_string(cls) : "?",
				    desc ? json_object_get_string(desc) : "?");
			json_object_put(msg);
			return -1;
		}
		if (reply) {
			*reply = NULL;
			if (json_object_object_get_ex(msg, "return", &v))
				*reply = json_object_get(v);
		}
		json_object_put(msg);
		return 0;
	}
}
