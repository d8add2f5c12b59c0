/* test-lava-client.c - unit tests of host-tools/lava/client.c: the server
 * and token set-up, the readers of LAVA's replies, and each call's errors
 * against a one-shot HTTP responder on loopback (the real LAVA is in
 * tests/integration/lava.sh). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lava/client.h"

/* ---- a responder: accepts one connection, keeps the request, answers ---- */

#define RESPONDER_MAX 4

/* one connection a reply ("Connection: close"), in order; request is the
 * last one's, requests[i] the i-th's */
struct responder {
	int fd;
	int port;
	const char *replies[RESPONDER_MAX];	/* whole HTTP responses */
	int nr_replies;
	char requests[RESPONDER_MAX][8192];
	char *request;
	pthread_t thread;
};

/* Reads one request (the headers, and a body as long as Content-Length
 * says) from c into buf. */
static void read_request(int c, char *buf, size_t size)
{
	size_t n = 0;

	for (;;) {
		ssize_t k = read(c, buf + n, size - 1 - n);
		char *end, *cl;

		if (k <= 0)
			break;
		n += (size_t)k;
		buf[n] = '\0';
		if (!(end = strstr(buf, "\r\n\r\n")))
			continue;
		cl = strcasestr(buf, "Content-Length:");
		if (!cl || (size_t)(end + 4 - buf) + strtoul(cl + 15, NULL, 10) <= n)
			break;
	}
}

static void *respond(void *arg)
{
	struct responder *r = arg;

	for (int i = 0; i < r->nr_replies; i++) {
		int c = accept(r->fd, NULL, NULL);

		if (c < 0)
			return NULL;
		r->request = r->requests[i];
		read_request(c, r->request, sizeof(r->requests[i]));
		if (write(c, r->replies[i], strlen(r->replies[i])) < 0)
			r->request[0] = '\0';
		close(c);
	}
	return NULL;
}

static void responder_start_n(struct responder *r, const char *const *replies, int nr)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	assert_true(nr >= 1 && nr <= RESPONDER_MAX);
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < nr; i++)
		r->replies[i] = replies[i];
	r->nr_replies = nr;
	r->request = r->requests[0];
	r->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(r->fd >= 0);
	assert_int_equal(bind(r->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(r->fd, 1), 0);
	assert_int_equal(getsockname(r->fd, (struct sockaddr *)&a, &len), 0);
	r->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&r->thread, NULL, respond, r), 0);
}

static void responder_start(struct responder *r, const char *reply)
{
	responder_start_n(r, &reply, 1);
}

static void responder_join(struct responder *r)
{
	pthread_join(r->thread, NULL);
	close(r->fd);
}

static void server_at(struct lava_server *s, int port, const char *token)
{
	char url[64];
	struct strbuf err = STRBUF_INIT;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v0.2/", port);
	if (token)
		setenv("LAVA_TOKEN", token, 1);
	else
		unsetenv("LAVA_TOKEN");
	assert_int_equal(lava_server_init(s, url, NULL, &err), 0);
	s->timeout_s = 10;
	strbuf_release(&err);
}

#define HTTP(status, body) \
	"HTTP/1.1 " status "\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" body

/* ---- set-up ---- */

static void test_init(void **state)
{
	struct lava_server s;
	struct strbuf err = STRBUF_INIT;
	char path[] = "/tmp/lava-token-XXXXXX";
	int fd;

	(void)state;
	unsetenv("LAVA_TOKEN");
	assert_int_equal(lava_server_init(&s, "http://lava.example:8080/api/v0.2/", NULL, &err), 0);
	assert_string_equal(s.url, "http://lava.example:8080");
	assert_string_equal(s.token, "");
	assert_int_equal(lava_server_init(&s, "https://lava.example///", NULL, &err), 0);
	assert_string_equal(s.url, "https://lava.example");
	assert_int_equal(lava_server_init(&s, "ftp://lava.example", NULL, &err), -1);
	assert_string_equal(err.buf, "the LAVA server must be an http:// or https:// URL, not 'ftp://lava.example'");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "s3cr3t\n", 7), 7);
	close(fd);
	chmod(path, 0644);
	strbuf_reset(&err);
	assert_int_equal(lava_server_init(&s, "http://h", path, &err), -1);
	assert_non_null(strstr(err.buf, "is readable by others (chmod 600 it)"));
	assert_null(strstr(err.buf, "s3cr3t"));
	chmod(path, 0600);
	assert_int_equal(lava_server_init(&s, "http://h", path, &err), 0);
	assert_string_equal(s.token, "s3cr3t");
	/* the environment wins */
	setenv("LAVA_TOKEN", "fromenv", 1);
	assert_int_equal(lava_server_init(&s, "http://h", path, &err), 0);
	assert_string_equal(s.token, "fromenv");
	setenv("LAVA_TOKEN", "two words", 1);
	strbuf_reset(&err);
	assert_int_equal(lava_server_init(&s, "http://h", path, &err), -1);
	assert_string_equal(err.buf, "the LAVA token holds a blank or a control character");
	unsetenv("LAVA_TOKEN");
	unlink(path);
	strbuf_reset(&err);
	assert_int_equal(lava_server_init(&s, "http://h", path, &err), -1);
	assert_non_null(strstr(err.buf, "cannot read the token file"));
	strbuf_release(&err);
}

/* ---- readers ---- */

static void test_parse(void **state)
{
	static const char job[] = "{\"id\": 9, \"state\": \"Finished\", \"health\": \"Complete\", "
				  "\"actual_device\": \"qemu-01\", \"requested_device_type\": \"qemu\", "
				  "\"failure_comment\": null, \"end_time\": \"2026-12-04T16:16:32Z\"}";
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	struct lava_job j;
	long id = 0;

	(void)state;
	assert_int_equal(lava_parse_job(job, strlen(job), &j, &err), 0);
	assert_int_equal(j.id, 9);
	assert_string_equal(j.state, "Finished");
	assert_string_equal(j.health, "Complete");
	assert_string_equal(j.device, "qemu-01");
	assert_string_equal(j.device_type, "qemu");
	assert_string_equal(j.failure_comment, "");
	assert_true(lava_job_finished(&j));
	assert_int_equal(lava_parse_job("{\"id\": 1}", 9, &j, &err), -1);
	assert_string_equal(err.buf, "LAVA's job has no id, state or health");

	assert_int_equal(lava_parse_submit("{\"job_ids\": [12, 13]}", 21, &id, &err), 0);
	assert_int_equal(id, 12);
	strbuf_reset(&err);
	assert_int_equal(lava_parse_submit("{\"message\": \"no\"}", 17, &id, &err), -1);
	assert_string_equal(err.buf, "LAVA's reply names no job: no");

	lava_error_message("{\"detail\": \"Invalid token.\"}", 28, &msg);
	assert_string_equal(msg.buf, "Invalid token.");
	strbuf_reset(&msg);
	lava_error_message("<html>\n<body>Server Error (500)</body>", 37, &msg);
	assert_string_equal(msg.buf, "<html>");
	strbuf_reset(&msg);
	lava_error_message("", 0, &msg);
	assert_string_equal(msg.buf, "(no message)");
	strbuf_release(&err);
	strbuf_release(&msg);
}

/* Replies of LAVA 2023.01 (lava-local) to GET /api/v0.2/devices/?device_type=qemu:
 * the device after a failed health check, in maintenance, retired (not listed). */
#define DEVICES_BAD "{\"count\":1,\"next\":null,\"previous\":null,\"results\":[{\"hostname\":\"qemu-01\"," \
	"\"device_type\":\"qemu\",\"device_version\":null,\"physical_owner\":null,\"physical_group\":null," \
	"\"description\":null,\"tags\":[],\"state\":\"Idle\",\"health\":\"Bad\",\"last_health_report_job\":35," \
	"\"worker_host\":\"schedlab-worker\",\"is_synced\":false}]}"
#define DEVICES_MAINTENANCE "{\"count\":1,\"next\":null,\"previous\":null,\"results\":[{\"hostname\":" \
	"\"qemu-01\",\"device_type\":\"qemu\",\"device_version\":null,\"physical_owner\":null,\"physical_group\":" \
	"null,\"description\":null,\"tags\":[],\"state\":\"Idle\",\"health\":\"Maintenance\"," \
	"\"last_health_report_job\":35,\"worker_host\":\"schedlab-worker\",\"is_synced\":false}]}"
#define DEVICES_NEVER_CHECKED "{\"count\":1,\"next\":null,\"previous\":null,\"results\":[{\"hostname\":" \
	"\"qemu-01\",\"device_type\":\"qemu\",\"device_version\":null,\"physical_owner\":null,\"physical_group\":" \
	"null,\"description\":null,\"tags\":[],\"state\":\"Idle\",\"health\":\"Good\"," \
	"\"last_health_report_job\":null,\"worker_host\":\"schedlab-worker\",\"is_synced\":false}]}"
#define DEVICES_RETIRED "{\"count\":0,\"next\":null,\"previous\":null,\"results\":[]}"

static void test_parse_devices(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"count\": 1}",
		"{\"results\": {}}",
		"{\"results\": [\"qemu-01\"]}",
		"{\"results\": [{\"hostname\": \"qemu-01\"}]}",
		"{\"results\": [{\"hostname\": 7, \"health\": \"Good\"}]}",
		"{\"device_type\":[\"Select a valid choice. That choice is not one of the available choices.\"]}",
		"{\"results\": [{\"hostname\": \"a\", \"health\": \"Good\"}",
	};
	struct strbuf err = STRBUF_INIT;
	struct lava_devices d = { NULL, 0, 0 };
	int more = 1;

	(void)state;
	assert_int_equal(lava_parse_devices(DEVICES_BAD, strlen(DEVICES_BAD), &d, &more, &err), 0);
	assert_int_equal(d.nr, 1);
	assert_false(more);
	assert_string_equal(d.v[0].hostname, "qemu-01");
	assert_string_equal(d.v[0].health, "Bad");
	assert_string_equal(d.v[0].state, "Idle");
	assert_int_equal(d.v[0].health_job, 35);
	assert_false(lava_device_usable(&d.v[0]));
	assert_int_equal(lava_parse_devices(DEVICES_MAINTENANCE, strlen(DEVICES_MAINTENANCE), &d, &more, &err), 0);
	assert_int_equal(d.nr, 2);
	assert_false(lava_device_usable(&d.v[1]));
	assert_int_equal(lava_parse_devices(DEVICES_NEVER_CHECKED, strlen(DEVICES_NEVER_CHECKED), &d, &more, &err), 0);
	assert_int_equal(d.nr, 3);
	assert_int_equal(d.v[2].health_job, 0);
	assert_true(lava_device_usable(&d.v[2]));
	lava_devices_release(&d);
	assert_int_equal(lava_parse_devices(DEVICES_RETIRED, strlen(DEVICES_RETIRED), &d, &more, &err), 0);
	assert_int_equal(d.nr, 0);
	/* a page with a next one */
	{
		static const char page[] = "{\"next\": \"http://x/api/v0.2/devices/?offset=100\", \"results\": []}";

		assert_int_equal(lava_parse_devices(page, strlen(page), &d, &more, &err), 0);
	}
	assert_true(more);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(lava_parse_devices(bad[i], strlen(bad[i]), &d, &more, &err), -1);
		assert_true(err.len > 0 && !strchr(err.buf, '\n'));
		assert_int_equal(d.nr, 0);
	}
	lava_devices_release(&d);
	strbuf_release(&err);
}

static void test_usable(void **state)
{
	static const struct { const char *health; int usable; } rows[] = {
		{ "Good", 1 }, { "Unknown", 1 }, { "Looping", 1 },
		{ "Bad", 0 }, { "Maintenance", 0 }, { "Retired", 0 }, { "", 0 }, { "good", 0 },
	};
	struct lava_device d;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&d, 0, sizeof(d));
		snprintf(d.health, sizeof(d.health), "%s", rows[i].health);
		assert_int_equal(lava_device_usable(&d), rows[i].usable);
	}
}

static void add_device(struct lava_devices *d, const char *host, const char *health, const char *note)
{
	struct lava_device *v;

	d->v = realloc(d->v, (d->nr + 1) * sizeof(*d->v));
	v = &d->v[d->nr++];
	memset(v, 0, sizeof(*v));
	snprintf(v->hostname, sizeof(v->hostname), "%s", host);
	snprintf(v->health, sizeof(v->health), "%s", health);
	snprintf(v->note, sizeof(v->note), "%s", note);
}

static void test_describe(void **state)
{
	struct lava_devices d = { NULL, 0, 0 };
	struct strbuf out = STRBUF_INIT;
	char host[16], note[256];

	(void)state;
	lava_devices_describe(&d, "qemu", 250, &out);
	assert_string_equal(out.buf, "no usable device of type qemu: LAVA lists none (it lists no retired device)");
	add_device(&d, "qemu-01", "Bad", "health check job 12 Incomplete: qemu exited\nearly");
	add_device(&d, "qemu-02", "Maintenance", "");
	strbuf_reset(&out);
	lava_devices_describe(&d, "qemu", 250, &out);
	assert_string_equal(out.buf, "no usable device of type qemu: qemu-01 Bad (health check job 12 Incomplete: "
			    "qemu exited early), qemu-02 Maintenance");

	/* long notes are cut, every device still named */
	memset(note, 'x', sizeof(note) - 1);
	note[sizeof(note) - 1] = '\0';
	lava_devices_release(&d);
	for (int i = 0; i < 4; i++) {
		snprintf(host, sizeof(host), "qemu-%02d", i);
		add_device(&d, host, "Bad", note);
	}
	strbuf_reset(&out);
	lava_devices_describe(&d, "qemu", 250, &out);
	assert_true(out.len <= 250);
	assert_non_null(strstr(out.buf, "qemu-00 Bad (xxx"));
	assert_non_null(strstr(out.buf, "...), qemu-03 Bad (xxx"));
	assert_true(out.len > 200);

	/* more devices than the room: the rest are counted */
	lava_devices_release(&d);
	for (int i = 0; i < 40; i++) {
		snprintf(host, sizeof(host), "qemu-%02d", i);
		add_device(&d, host, "Maintenance", "");
	}
	strbuf_reset(&out);
	lava_devices_describe(&d, "qemu", 250, &out);
	assert_true(out.len <= 250);
	assert_non_null(strstr(out.buf, "qemu-00 Maintenance, qemu-01 Maintenance"));
	assert_non_null(strstr(out.buf, " more"));
	assert_null(strstr(out.buf, "qemu-39"));
	lava_devices_release(&d);
	strbuf_release(&out);
}

/* ---- calls against the responder ---- */

static void test_submit(void **state)
{
	struct responder r;
	struct lava_server s;
	struct strbuf err = STRBUF_INIT;
	long id = 0;

	(void)state;
	responder_start(&r, HTTP("201 Created", "{\"message\": \"job(s) successfully submitted\", \"job_ids\": [41]}"));
	server_at(&s, r.port, "tok123");
	assert_int_equal(lava_submit(&s, "device_type: qemu\njob_name: \"x\"\n", &id, &err), 0);
	responder_join(&r);
	assert_int_equal(id, 41);
	assert_non_null(strstr(r.request, "POST /api/v0.2/jobs/ HTTP/1.1"));
	assert_non_null(strstr(r.request, "Authorization: Token tok123"));
	/* the definition as a JSON string */
	assert_non_null(strstr(r.request, "{\"definition\":\"device_type: qemu\\njob_name: \\\"x\\\"\\n\"}"));

	responder_start(&r, HTTP("400 Bad Request", "{\"message\": \"Invalid job definition: expected a dictionary\"}"));
	server_at(&s, r.port, "tok123");
	assert_int_equal(lava_submit(&s, "[]", &id, &err), -1);
	responder_join(&r);
	assert_non_null(strstr(err.buf, "rejected the job definition: Invalid job definition: expected a dictionary"));

	strbuf_reset(&err);
	responder_start(&r, HTTP("401 Unauthorized", "{\"detail\": \"Invalid token.\"}"));
	server_at(&s, r.port, "wrong");
	assert_int_equal(lava_submit(&s, "x", &id, &err), -1);
	responder_join(&r);
	assert_non_null(strstr(err.buf, "refused the token (HTTP 401): Invalid token."));
	assert_null(strstr(err.buf, "wrong"));
	strbuf_release(&err);
}

static void test_job_and_errors(void **state)
{
	struct responder r;
	struct lava_server s;
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	struct lava_job j;
	int port;

	(void)state;
	responder_start(&r, HTTP("200 OK", "{\"id\": 7, \"state\": \"Running\", \"health\": \"Unknown\", "
				 "\"actual_device\": \"qemu-01\"}"));
	server_at(&s, r.port, NULL);
	assert_int_equal(lava_job_get(&s, 7, &j, &err), 0);
	responder_join(&r);
	assert_non_null(strstr(r.request, "GET /api/v0.2/jobs/7/ HTTP/1.1"));
	assert_null(strstr(r.request, "Authorization"));
	assert_false(lava_job_finished(&j));

	responder_start(&r, HTTP("404 Not Found", "{\"detail\": \"Not found.\"}"));
	server_at(&s, r.port, NULL);
	assert_int_equal(lava_job_get(&s, 99, &j, &err), -1);
	responder_join(&r);
	assert_non_null(strstr(err.buf, "has no job 99"));

	responder_start(&r, "HTTP/1.1 200 OK\r\nContent-Type: text/yaml\r\nConnection: close\r\n\r\n"
			"- {\"dt\": \"2026-12-04T16:16:11.170627\", \"lvl\": \"info\", \"msg\": \"x\"}\n");
	server_at(&s, r.port, NULL);
	assert_int_equal(lava_job_log(&s, 7, &log, &err), 0);
	responder_join(&r);
	assert_non_null(strstr(r.request, "GET /api/v0.2/jobs/7/logs/ HTTP/1.1"));
	assert_non_null(strstr(log.buf, "\"lvl\": \"info\""));

	responder_start(&r, HTTP("404 Not Found", "{\"detail\": \"Not found.\"}"));
	server_at(&s, r.port, NULL);
	assert_int_equal(lava_device_type_ok(&s, "nosuch", &err), 0);
	responder_join(&r);
	strbuf_reset(&err);
	assert_int_equal(lava_device_type_ok(&s, "../x", &err), -1);
	assert_string_equal(err.buf, "'../x' is not a LAVA device type name");

	{
		struct lava_devices d = { NULL, 0, 0 };

		responder_start(&r, HTTP("200 OK", DEVICES_BAD));
		server_at(&s, r.port, NULL);
		strbuf_reset(&err);
		assert_int_equal(lava_devices_of_type(&s, "qemu", &d, &err), 0);
		responder_join(&r);
		assert_non_null(strstr(r.request, "GET /api/v0.2/devices/?device_type=qemu&limit=100&offset=0 HTTP/1.1"));
		assert_int_equal(d.nr, 1);
		assert_string_equal(d.v[0].health, "Bad");
		lava_devices_release(&d);

		responder_start(&r, HTTP("400 Bad Request", "{\"device_type\":[\"Select a valid choice. "
					 "That choice is not one of the available choices.\"]}"));
		server_at(&s, r.port, NULL);
		assert_int_equal(lava_devices_of_type(&s, "nosuch", &d, &err), -1);
		responder_join(&r);
		assert_non_null(strstr(err.buf, "listing the devices of a device type: HTTP 400: "));
		assert_null(strchr(err.buf, '\n'));
		strbuf_reset(&err);
		assert_int_equal(lava_devices_of_type(&s, "a&b", &d, &err), -1);
		assert_string_equal(err.buf, "'a&b' is not a LAVA device type name");
	}

	responder_start(&r, HTTP("500 Internal Server Error", "{\"message\": \"boom\"}"));
	port = r.port;
	server_at(&s, port, NULL);
	strbuf_reset(&err);
	assert_int_equal(lava_job_get(&s, 7, &j, &err), -1);
	responder_join(&r);
	assert_non_null(strstr(err.buf, "reading a job: HTTP 500: boom"));

	/* nobody listens there now */
	strbuf_reset(&err);
	assert_int_equal(lava_job_get(&s, 7, &j, &err), -1);
	assert_non_null(strstr(err.buf, "cannot reach LAVA at http://127.0.0.1:"));
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
	strbuf_release(&log);
}

/* A farm with more devices than one page holds: lava_devices_of_type()
 * asks for the next page by offset (not by the reply's "next", whose host
 * is the server's own idea of itself) until a page has no next. */
static void test_devices_paged(void **state)
{
	struct strbuf page1 = STRBUF_INIT, err = STRBUF_INIT;
	struct lava_devices d = { NULL, 0, 0 };
	const char *replies[3];
	struct responder r;
	struct lava_server s;

	(void)state;
	strbuf_addstr(&page1, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
		      "{\"count\":101,\"next\":\"http://lava.internal/api/v0.2/devices/?device_type=qemu"
		      "&limit=100&offset=100\",\"previous\":null,\"results\":[");
	for (int i = 0; i < 100; i++)
		strbuf_addf(&page1, "%s{\"hostname\":\"qemu-%03d\",\"state\":\"Idle\",\"health\":\"Bad\","
			    "\"last_health_report_job\":%d}", i ? "," : "", i, 1000 + i);
	strbuf_addstr(&page1, "]}");
	replies[0] = page1.buf;
	replies[1] = HTTP("200 OK", "{\"count\":101,\"next\":null,\"previous\":\"http://lava.internal/x\","
			  "\"results\":[{\"hostname\":\"qemu-100\",\"state\":\"Idle\",\"health\":\"Good\","
			  "\"last_health_report_job\":null}]}");
	responder_start_n(&r, replies, 2);
	server_at(&s, r.port, NULL);
	assert_int_equal(lava_devices_of_type(&s, "qemu", &d, &err), 0);
	responder_join(&r);
	assert_non_null(strstr(r.requests[0], "GET /api/v0.2/devices/?device_type=qemu&limit=100&offset=0 HTTP/1.1"));
	assert_non_null(strstr(r.requests[1], "GET /api/v0.2/devices/?device_type=qemu&limit=100&offset=100 HTTP/1.1"));
	assert_non_null(strstr(r.requests[1], "Host: 127.0.0.1:"));
	assert_int_equal(d.nr, 101);
	assert_string_equal(d.v[99].hostname, "qemu-099");
	assert_int_equal(d.v[99].health_job, 1099);
	/* the one usable device is on the second page */
	assert_false(lava_device_usable(&d.v[0]));
	assert_true(lava_device_usable(&d.v[100]));
	lava_devices_release(&d);

	/* a next page that lists nothing ends the listing, whatever its next says */
	replies[1] = HTTP("200 OK", "{\"count\":100,\"next\":\"http://lava.internal/again\",\"results\":[]}");
	replies[2] = HTTP("500 Internal Server Error", "{\"message\": \"asked once too often\"}");
	responder_start_n(&r, replies, 3);
	server_at(&s, r.port, NULL);
	assert_int_equal(lava_devices_of_type(&s, "qemu", &d, &err), 0);
	assert_int_equal(d.nr, 100);
	assert_int_equal(err.len, 0);
	/* the responder waits for a third request that never comes */
	pthread_cancel(r.thread);
	responder_join(&r);
	assert_int_equal(r.requests[2][0], '\0');

	/* an error on a later page fails the listing, in one line */
	replies[1] = HTTP("502 Bad Gateway", "{\"message\": \"upstream went away\"}");
	responder_start_n(&r, replies, 2);
	server_at(&s, r.port, NULL);
	lava_devices_release(&d);
	assert_int_equal(lava_devices_of_type(&s, "qemu", &d, &err), -1);
	responder_join(&r);
	assert_non_null(strstr(err.buf, "listing the devices of a device type: HTTP 502: upstream went away"));
	assert_null(strchr(err.buf, '\n'));
	lava_devices_release(&d);
	strbuf_release(&page1);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_devices),
		cmocka_unit_test(test_usable),
		cmocka_unit_test(test_devices_paged),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_submit),
		cmocka_unit_test(test_job_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
