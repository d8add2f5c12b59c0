/* qmp.h - a small QMP client over an already-connected socket: greeting,
 * capabilities negotiation, commands with deadlines, events kept aside. */
#ifndef LAB_QMP_H
#define LAB_QMP_H

#include <stddef.h>

#include "lib/util.h"

struct json_object;

#define QMP_MAX_MESSAGE (1u << 20)

/* The fd is borrowed: qmp_release() does not close it. */
struct qmp {
	int fd;
	struct strbuf in;       /* bytes received, not yet a whole message */
	unsigned long next_id;
	unsigned long events;   /* asynchronous events seen */
	char version[64];       /* "7.2.22" from the greeting */
	/* The run-state events (STOP, RESUME, SHUTDOWN, GUEST_PANICKED,
	 * BLOCK_IO_ERROR, WATCHDOG), whichever way they arrived: */
	int state_changed;      /* one arrived since the caller cleared it */
	int stopped;            /* the last of them left the guest not running */
	char cause[160];        /* what stopped it, when an event said so:
				 * "GUEST_PANICKED (action pause)"; "" after RESUME */
};

void qmp_init(struct qmp *q, int fd);
void qmp_release(struct qmp *q);

/* Reads the greeting and negotiates capabilities.  -1 with err on failure. */
int qmp_handshake(struct qmp *q, int timeout_ms, struct strbuf *err);

/*
 * Runs one command (args may be NULL; it is not consumed).  On success
 * returns 0 and, when reply is not NULL, the "return" member (caller puts
 * it).  A QMP error reply returns -1 with its class and desc in err.
 */
int qmp_command(struct qmp *q, const char *cmd, struct json_object *args,
		struct json_object **reply, int timeout_ms, struct strbuf *err);

/* qmp_command() whose request carries fd (SCM_RIGHTS), for getfd; the
 * caller still owns and closes its copy of fd. */
int qmp_command_fd(struct qmp *q, const char *cmd, struct json_object *args, int fd,
		   struct json_object **reply, int timeout_ms, struct strbuf *err);

/*
 * Reads whatever QEMU has sent without waiting: events update the
 * run-state members above.  0, or -1 with err once QEMU has gone.
 */
int qmp_pump_events(struct qmp *q, struct strbuf *err);

/* Notes one message that is an event; 0 when msg is not one. */
int qmp_note_event(struct qmp *q, struct json_object *msg);

/*
 * Warm start (run/warm.h).  qmp_save_state() stops the guest, writes its
 * whole state (a migration stream) to fd and waits for the stream to
 * complete, then lets the guest run on.  qmp_wait_incoming() waits until
 * a QEMU started with -incoming has loaded its stream and runs.
 */
int qmp_save_state(struct qmp *q, int fd, int timeout_ms, struct strbuf *err);
int qmp_wait_incoming(struct qmp *q, int timeout_ms, struct strbuf *err);

/*
 * Splits one message off the front of buf (QMP messages are JSON objects
 * ended by CRLF).  Returns the parsed object (caller puts it), NULL when
 * no whole message is there yet; *bad is set when a whole line was not a
 * JSON object (the line is dropped).  Exposed for the fuzz target.
 */
struct json_object *qmp_take_message(struct strbuf *buf, int *bad);

#endif
