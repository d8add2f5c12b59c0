/* client.h - the lab's side of a LAVA server's REST API (v0.2, as LAVA
 * 2023.01 serves it): submit a job, read its state, fetch its log, cancel
 * it, check a device type.  One HTTP client (libcurl); the token goes only
 * into the Authorization header, never into a message or a file. */
#ifndef LAB_LAVA_CLIENT_H
#define LAB_LAVA_CLIENT_H

#include "lib/util.h"

#define LAVA_TOKEN_MAX 256

struct lava_server {
	char url[512];			/* "http://host[:port]", no trailing '/' */
	char token[LAVA_TOKEN_MAX];	/* "" when none: read-only calls only */
	long timeout_s;			/* of one request */
};

/* A job as GET /api/v0.2/jobs/ID/ tells it. */
struct lava_job {
	long id;
	char state[24];		/* Submitted Scheduling Scheduled Running Canceling Finished */
	char health[24];	/* Unknown Complete Incomplete Canceled */
	char device[128];	/* actual_device, "" until scheduled */
	char device_type[128];	/* requested_device_type */
	char failure_comment[512];
	char submit_time[40], start_time[40], end_time[40];
};

/* A device as GET /api/v0.2/devices/ lists it (LAVA lists no retired one). */
struct lava_device {
	char hostname[128];
	char health[16];	/* Good Unknown Looping Bad Maintenance Retired */
	char state[16];		/* Idle Reserved Running */
	long health_job;	/* last_health_report_job, 0 when none */
	char note[256];		/* the caller's: what that health check said */
};

struct lava_devices {
	struct lava_device *v;
	size_t nr, alloc;
};

/*
 * The server at url (http:// or https://; a trailing '/' or "/api/..."
 * path is cut), its token from $LAVA_TOKEN, else from token_file (the
 * file's first line; the file must not be readable by others), else none.
 * -1 with one line in err.
 */
int lava_server_init(struct lava_server *s, const char *url, const char *token_file, struct strbuf *err);

/*
 * The calls: 0, or -1 with one line in err naming the server (never the
 * token): "cannot reach LAVA at URL: <why>", "LAVA at URL refused the
 * token (HTTP 401)", "LAVA at URL has no job N", "LAVA at URL rejected the
 * job definition: <LAVA's message>", "LAVA at URL has no device type T".
 */
int lava_submit(const struct lava_server *s, const char *definition, long *job_id, struct strbuf *err);
int lava_job_get(const struct lava_server *s, long id, struct lava_job *job, struct strbuf *err);
/* The job's YAML log as far as it goes (a running job's grows). */
int lava_job_log(const struct lava_server *s, long id, struct strbuf *out, struct strbuf *err);
int lava_job_cancel(const struct lava_server *s, long id, struct strbuf *err);
/* 1 when the device type exists and has a device that is not retired, 0
 * when it does not exist, -1 on error. */
int lava_device_type_ok(const struct lava_server *s, const char *device_type, struct strbuf *err);
/* The devices of a device type, every page of the listing, appended to
 * out; 0 (none is no error: all retired), or -1 with one line in err. */
int lava_devices_of_type(const struct lava_server *s, const char *device_type, struct lava_devices *out,
			 struct strbuf *err);
void lava_devices_release(struct lava_devices *d);

/* ---- the pure parts, unit-tested ---- */

/* A reply to POST /api/v0.2/jobs/: its first job id, or -1 with the
 * server's message in err. */
int lava_parse_submit(const char *body, size_t len, long *job_id, struct strbuf *err);
/* A job's JSON into *job; -1 with one line in err. */
int lava_parse_job(const char *body, size_t len, struct lava_job *job, struct strbuf *err);
/* The message LAVA put into an error reply (its "message", "detail" or
 * "error" field, or the first line of a non-JSON body), at most 300 bytes. */
void lava_error_message(const char *body, size_t len, struct strbuf *out);
/* One page of GET /api/v0.2/devices/ appended to out; *more is set when
 * it names a next page.  -1 with one line in err (out keeps what it had). */
int lava_parse_devices(const char *body, size_t len, struct lava_devices *out, int *more, struct strbuf *err);
/* Whether LAVA may schedule a job on the device now or soon: health Good,
 * Unknown (a health check runs first) or Looping; Bad, Maintenance and
 * Retired wait for an admin. */
int lava_device_usable(const struct lava_device *d);
/*
 * "no usable device of type T: qemu-01 Bad (NOTE), qemu-02 Maintenance"
 * in out, at most max bytes: every device's name and health first, then
 * the notes in what room is left, each cut with "..."; devices past the
 * room are counted ("and 3 more").
 */
void lava_devices_describe(const struct lava_devices *d, const char *device_type, size_t max,
			   struct strbuf *out);
/* Whether a job is over (state Finished). */
int lava_job_finished(const struct lava_job *job);

#endif
