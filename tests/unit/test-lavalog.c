/* test-lavalog.c - unit tests of LAVA's job log reader (host-tools/lava/lavalog.c):
 * entries, target lines with records, results mappings, bad logs, the health table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wire.h"
#include "common/wiretext.h"
#include "results/lavalog.h"

struct seen {
	int n, target;
	struct strbuf text;
	char lvl[8][16];
	char error_type[32], error_msg[128];
};

static void on_entry(const struct lava_entry *e, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8)
		snprintf(s->lvl[s->n], sizeof(s->lvl[0]), "%s", e->lvl);
	s->n++;
	if (!strcmp(e->lvl, "target") && e->msg) {
		s->target++;
		strbuf_add(&s->text, e->msg, e->msg_len);
		strbuf_addch(&s->text, '\n');
	}
	if (e->error_type)
		snprintf(s->error_type, sizeof(s->error_type), "%s", e->error_type);
	if (e->error_msg)
		snprintf(s->error_msg, sizeof(s->error_msg), "%s", e->error_msg);
}

static void test_entries_and_results(void **state)
{
	static const char log[] =
		"- {\"dt\": \"2023-01-12T10:11:12.345678\", \"lvl\": \"info\", \"msg\": \"start: 0 validate\"}\n"
		"- {\"dt\": \"2023-01-12T10:11:12.345679\", \"lvl\": \"target\", \"msg\": \"[    0.000000] Linux version 6.1.0\"}\n"
		"- {\"dt\": \"2023-01-12T10:11:12.345680\", \"lvl\": \"target\", \"msg\": \"quote \\\" and colon: ok\"}\n"
		"- {\"dt\": \"2023-01-12T10:11:13\", \"lvl\": \"results\", \"msg\": {\"definition\": \"lava\", "
		"\"case\": \"job\", \"result\": \"fail\", \"error_type\": \"Infrastructure\", "
		"\"error_msg\": \"qemu exited\"}}\n"
		"- dt: '2023-01-12T10:11:14'\n  lvl: debug\n  msg: block style too\n";
	struct seen s = { .text = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(lava_log_parse(log, strlen(log), on_entry, &s, &err), 5);
	assert_int_equal(s.target, 2);
	assert_string_equal(s.text.buf, "[    0.000000] Linux version 6.1.0\nquote \" and colon: ok\n");
	assert_string_equal(s.lvl[3], "results");
	assert_string_equal(s.lvl[4], "debug");
	assert_string_equal(s.error_type, "Infrastructure");
	assert_string_equal(s.error_msg, "qemu exited");
	strbuf_release(&s.text);
	strbuf_release(&err);
}

static int add_target(const char *line, size_t len, void *ctx)
{
	struct strbuf *log = ctx;

	/* LAVA drops the newline; the JSON string form is valid YAML */
	strbuf_addstr(log, "- {\"dt\": \"2023-01-12T10:11:12\", \"lvl\": \"target\", \"msg\": \"");
	strbuf_add(log, line, len - 1);
	strbuf_addstr(log, "\"}\n");
	return 0;
}

static void on_frame(const void *frame, size_t len, void *ctx)
{
	strbuf_add(ctx, frame, len);
}

/* Records through LAVA's log: the target lines give back the frame. */
static void test_records_through_the_log(void **state)
{
	struct seen s = { .text = STRBUF_INIT };
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT, back = STRBUF_INIT;
	struct wiretext_decoder d;
	uint8_t frame[WIRE_HDR_LEN + 200];
	char payload[200];
	size_t flen;

	memset(payload, 'x', sizeof(payload));
	flen = wire_encode(0, WIRE_LOG, payload, sizeof(payload), frame, sizeof(frame));
	strbuf_addstr(&log, "- {\"dt\": \"2023-01-12T10:11:12\", \"lvl\": \"debug\", \"msg\": \"x\"}\n");
	assert_int_equal(wiretext_encode(7, 0, frame, flen, add_target, &log), 0);
	assert_true(lava_log_parse(log.buf, log.len, on_entry, &s, &err) > 1);
	wiretext_decoder_init(&d);
	wiretext_decoder_feed(&d, s.text.buf, s.text.len, on_frame, &back);
	wiretext_decoder_finish(&d, on_frame, &back);
	assert_int_equal(back.len, flen);
	assert_memory_equal(back.buf, frame, flen);
	wiretext_decoder_release(&d);
	strbuf_release(&s.text);
	strbuf_release(&log);
	strbuf_release(&back);
	strbuf_release(&err);
}

static void test_bad_logs(void **state)
{
	static const char *const bad[] = {
		"{\"not\": \"a list\"}\n",
		"- just a string\n",
		"- {\"dt\": \"x\", \"msg\": \"no lvl\"}\n",
		"- {\"dt\": \"x\", \"lvl\": [1, 2], \"msg\": \"lvl not a string\"}\n",
		"- {\"dt\": \"x\", \"lvl\": \"target\", \"msg\": \"unterminated\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct seen s = { .text = STRBUF_INIT };
		struct strbuf err = STRBUF_INIT;

		assert_int_equal(lava_log_parse(bad[i], strlen(bad[i]), on_entry, &s, &err), -1);
		assert_true(err.len > 0 && !strchr(err.buf, '\n'));
		strbuf_release(&s.text);
		strbuf_release(&err);
	}
}

static void test_health_table(void **state)
{
	const struct lava_health_map *m;

	m = lava_health_lookup("Complete", NULL);
	assert_non_null(m);
	assert_true(m->own);
	m = lava_health_lookup("Incomplete", "Infrastructure");
	assert_string_equal(m->verdict, "FAIL");
	assert_false(m->own);
	m = lava_health_lookup("incomplete", "Test");
	assert_string_equal(m->verdict, "HANG");
	m = lava_health_lookup("Incomplete", NULL);
	assert_string_equal(m->verdict, "HANG");
	m = lava_health_lookup("Canceled", "Job");
	assert_string_equal(m->verdict, "STOPPED");
	/* a user's cancel stays STOPPED; no usable device is the farm's failure */
	m = lava_health_lookup("Canceled", NULL);
	assert_string_equal(m->verdict, "STOPPED");
	assert_string_equal(m->prefix, "LAVA job canceled");
	m = lava_health_lookup("Canceled", "Infrastructure");
	assert_string_equal(m->verdict, "FAIL");
	assert_string_equal(m->prefix, "LAVA infrastructure error");
	assert_false(m->own);
	assert_null(lava_health_lookup("Running", NULL));
	assert_null(lava_health_lookup(NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_and_results),
		cmocka_unit_test(test_records_through_the_log),
		cmocka_unit_test(test_bad_logs),
		cmocka_unit_test(test_health_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
