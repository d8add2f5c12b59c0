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

struct responder {
	int fd;
	int port;
	const char *reply;	/* the whole HTTP response */
	char request[8192];
	pthread_t thread;
};

static void *respond(void *arg)
{
	struct responder *r = arg;
	size_t n = 0;
	int c = accept(r->fd, NULL, NULL);

	if (c < 0)
		return NULL;
	/* the headers, and a body as long as Content-Length says */
	for (;;) {
		ssize_t k = read(c, r->request + n, sizeof(r->request) - 1 - n);
		char *end, *cl;

		if (k <= 0)
			break;
		n += (size_t)k;
		r->request[n] = '\0';
		if (!(end = strstr(r->request, "\r\n\r\n")))
			continue;
		cl = strcasestr(r->request, "Content-Length:");
		if (!cl || (size_t)(end + 4 - r->request) + strtoul(cl + 15, NULL, 10) <= n)
			break;
	}
	if (write(c, r->reply, strlen(r->reply)) < 0)
		r->request[0] = '\0';
	close(c);
	return NULL;
}

static void responder_start(struct responder *r, const char *reply)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	memset(r, 0, sizeof(*r));
	r->reply = reply;
	r->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(r->fd >= 0);
	assert_int_equal(bind(r->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(r->fd, 1), 0);
	assert_int_equal(getsockname(r->fd, (struct sockaddr *)&a, &len), 0);
	r->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&r->thread, NULL, respond, r), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_submit),
		cmocka_unit_test(test_job_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
