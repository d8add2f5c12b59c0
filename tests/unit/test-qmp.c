/* test-qmp.c - the QMP client against a scripted peer on a socketpair:
 * greeting, capabilities, events in between, errors, framing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/qmp.h"

static void put(int fd, const char *s)
{
	size_t len = strlen(s);

	if (write(fd, s, len) != (ssize_t)len)
		_exit(3);
}

/* Reads one request line and checks it names cmd. */
static void expect_request(int fd, const char *cmd)
{
	char line[4096];
	size_t n = 0;

	while (n < sizeof(line) - 1 && read(fd, line + n, 1) == 1 && line[n] != '\n')
		n++;
	line[n] = '\0';
	if (!strstr(line, cmd))
		_exit(4);
}

static pid_t fake_qemu(int fd)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	put(fd, "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 22, \"minor\": 2, \"major\": 7}, "
		"\"package\": \"Debian\"}, \"capabilities\": [\"oob\"]}}\r\n");
	expect_request(fd, "\"qmp_capabilities\"");
	put(fd, "{\"return\": {}, \"id\": 1}\r\n");
	expect_request(fd, "\"query-status\"");
	/* an event and a stale reply arrive before the answer */
	put(fd, "{\"timestamp\": {\"seconds\": 1, \"microseconds\": 2}, \"event\": \"STOP\"}\r\n");
	put(fd, "{\"return\": {}, \"id\": 99}\r\n");
	put(fd, "{\"return\": {\"status\": \"running\", \"running\": true}, \"id\": 2}\r\n");
	expect_request(fd, "\"device_del\"");
	put(fd, "{\"error\": {\"class\": \"GenericError\", \"desc\": \"Device 'x' not found\"}, \"id\": 3}\r\n");
	_exit(0);
}

static void test_session(void **state)
{
	int sv[2], status;
	struct qmp q;
	struct strbuf err = STRBUF_INIT;
	struct json_object *reply = NULL, *v, *args;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fake_qemu(sv[1]);
	close(sv[1]);
	qmp_init(&q, sv[0]);
	assert_int_equal(qmp_handshake(&q, 5000, &err), 0);
	assert_string_equal(q.version, "7.2.22");
	assert_int_equal(qmp_command(&q, "query-status", NULL, &reply, 5000, &err), 0);
	assert_non_null(reply);
	assert_true(json_object_object_get_ex(reply, "status", &v));
	assert_string_equal(json_object_get_string(v), "running");
	assert_int_equal(q.events, 1);
	json_object_put(reply);
	args = json_object_new_object();
	json_object_object_add(args, "id", json_object_new_string("x"));
	assert_int_equal(qmp_command(&q, "device_del", args, NULL, 5000, &err), -1);
	json_object_put(args);
	assert_non_null(strstr(err.buf, "GenericError"));
	assert_non_null(strstr(err.buf, "not found"));
	/* the peer is gone: a closed connection is an error, not a hang */
	strbuf_reset(&err);
	assert_int_equal(qmp_command(&q, "quit", NULL, NULL, 2000, &err), -1);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	qmp_release(&q);
	close(sv[0]);
	strbuf_release(&err);
}

static void test_timeout(void **state)
{
	int sv[2];
	struct qmp q;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	qmp_init(&q, sv[0]);
	/* nobody greets */
	assert_int_equal(qmp_handshake(&q, 200, &err), -1);
	assert_non_null(strstr(err.buf, "deadline"));
	qmp_release(&q);
	close(sv[0]);
	close(sv[1]);
	strbuf_release(&err);
}

/* expect_request() for getfd: the fd rides on the request's first byte;
 * "saved" is written into it, as QEMU's migration stream would be. */
static void expect_getfd(int fd)
{
	char first, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &first, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	int passed;

	if (recvmsg(fd, &mh, 0) != 1 || first != '{')
		_exit(5);
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		_exit(6);
	memcpy(&passed, CMSG_DATA(c), sizeof(int));
	expect_request(fd, "\"getfd\"");
	put(passed, "saved");
	close(passed);
}

static pid_t fake_qemu_save(int fd)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	expect_request(fd, "\"stop\"");
	put(fd, "{\"return\": {}, \"id\": 1}\r\n");
	expect_request(fd, "\"max-bandwidth\"");
	put(fd, "{\"return\": {}, \"id\": 2}\r\n");
	expect_getfd(fd);
	put(fd, "{\"return\": {}, \"id\": 3}\r\n");
	expect_request(fd, "\"fd:lab-warm\"");
	put(fd, "{\"return\": {}, \"id\": 4}\r\n");
	expect_request(fd, "\"query-migrate\"");
	put(fd, "{\"return\": {\"status\": \"active\"}, \"id\": 5}\r\n");
	expect_request(fd, "\"query-migrate\"");
	put(fd, "{\"return\": {\"status\": \"completed\"}, \"id\": 6}\r\n");
	expect_request(fd, "\"cont\"");
	put(fd, "{\"return\": {}, \"id\": 7}\r\n");
	/* a restore: still loading, then paused as saved, then cont */
	expect_request(fd, "\"query-status\"");
	put(fd, "{\"return\": {\"status\": \"inmigrate\"}, \"id\": 8}\r\n");
	expect_request(fd, "\"query-status\"");
	put(fd, "{\"return\": {\"status\": \"paused\"}, \"id\": 9}\r\n");
	expect_request(fd, "\"cont\"");
	put(fd, "{\"return\": {}, \"id\": 10}\r\n");
	/* a stream QEMU cannot load: it exits */
	expect_request(fd, "\"query-status\"");
	_exit(0);
}

static void test_save_and_restore(void **state)
{
	int sv[2], pfd[2], status;
	struct qmp q;
	struct strbuf err = STRBUF_INIT;
	char buf[16] = "";
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(pipe(pfd), 0);
	pid = fake_qemu_save(sv[1]);
	close(sv[1]);
	qmp_init(&q, sv[0]);
	assert_int_equal(qmp_save_state(&q, pfd[1], 5000, &err), 0);
	close(pfd[1]);
	assert_int_equal(read(pfd[0], buf, sizeof(buf) - 1), 5);
	assert_string_equal(buf, "saved");
	assert_int_equal(qmp_wait_incoming(&q, 5000, &err), 0);
	assert_int_equal(qmp_wait_incoming(&q, 2000, &err), -1);
	assert_non_null(strstr(err.buf, "closed"));
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	qmp_release(&q);
	close(sv[0]);
	close(pfd[0]);
	strbuf_release(&err);
}

static void test_take_message(void **state)
{
	struct strbuf b = STRBUF_INIT;
	struct json_object *o;
	int bad;

	strbuf_addstr(&b, "{\"a\": 1}\r\n{\"b\"");
	o = qmp_take_message(&b, &bad);
	assert_non_null(o);
	assert_false(bad);
	json_object_put(o);
	/* half a message stays buffered */
	assert_null(qmp_take_message(&b, &bad));
	assert_string_equal(b.buf, "{\"b\"");
	strbuf_addstr(&b, ": 2}\r\nnot json\r\n[1,2]\r\n");
	o = qmp_take_message(&b, &bad);
	assert_non_null(o);
	json_object_put(o);
	/* garbage and non-objects are dropped and flagged */
	assert_null(qmp_take_message(&b, &bad));
	assert_true(bad);
	assert_int_equal(b.len, 0);
	strbuf_release(&b);
}

/* Events change the run-state members whichever way they arrive: inside a
 * command's wait or pumped on their own; a RESUME forgets the cause. */
static void test_events(void **state)
{
	int sv[2];
	struct qmp q;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	qmp_init(&q, sv[0]);
	assert_int_equal(qmp_pump_events(&q, &err), 0);
	assert_int_equal(q.state_changed, 0);
	put(sv[1], "{\"event\": \"POWERDOWN\"}\r\n");
	assert_int_equal(qmp_pump_events(&q, &err), 0);
	assert_int_equal(q.events, 1);
	assert_int_equal(q.state_changed, 0);
	put(sv[1], "{\"event\": \"GUEST_PANICKED\", \"data\": {\"action\": \"pause\"}}\r\n"
		   "{\"event\": \"STOP\"}\r\n{\"event\": \"BLOCK_JOB_READY\"}\r\n{\"event\"");
	assert_int_equal(qmp_pump_events(&q, &err), 0);
	assert_int_equal(q.events, 4);
	assert_int_equal(q.state_changed, 1);
	assert_int_equal(q.stopped, 1);
	assert_string_equal(q.cause, "GUEST_PANICKED (action pause)");
	/* the rest of the half message, a RESUME */
	q.state_changed = 0;
	put(sv[1], ": \"RESUME\"}\r\n");
	assert_int_equal(qmp_pump_events(&q, &err), 0);
	assert_int_equal(q.stopped, 0);
	assert_int_equal(q.state_changed, 1);
	assert_string_equal(q.cause, "");
	put(sv[1], "{\"event\": \"SHUTDOWN\", \"data\": {\"guest\": true, \"reason\": \"guest-reset\"}}\r\n"
		   "{\"event\": \"BLOCK_IO_ERROR\", \"data\": {\"reason\": \"Input/output error\"}}\r\n");
	assert_int_equal(qmp_pump_events(&q, &err), 0);
	assert_int_equal(q.stopped, 1);
	assert_string_equal(q.cause, "BLOCK_IO_ERROR (Input/output error)");
	close(sv[1]);
	assert_int_equal(qmp_pump_events(&q, &err), -1);
	assert_non_null(strstr(err.buf, "closed"));
	qmp_release(&q);
	close(sv[0]);
	strbuf_release(&err);
}

static void test_halted_states(void **state)
{
	(void)state;
	assert_true(backend_state_halted("internal-error", 0));
	assert_true(backend_state_halted("internal-error", 1));
	assert_true(backend_state_halted("guest-panicked", 0));
	assert_true(backend_state_halted("io-error", 1));
	assert_true(backend_state_halted("watchdog", 0));
	assert_true(backend_state_halted("shutdown", 0));
	assert_true(backend_state_halted("paused", 0));
	assert_false(backend_state_halted("paused", 1));
	assert_false(backend_state_halted("running", 0));
	assert_false(backend_state_halted("inmigrate", 0));
	assert_false(backend_state_halted("postmigrate", 0));
	assert_false(backend_state_halted("", 0));
	assert_false(backend_state_halted(NULL, 0));
}

/* QEMU 7.2's stderr after a KVM emulation failure on two vCPUs: the
 * error lines, once each, without the warnings or the register dump. */
static void test_error_lines(void **state)
{
	static const char log[] =
		"qemu-system-x86_64: warning: host doesn't support requested feature: CPUID.01H:ECX.pni [bit 0]\n"
		"KVM internal error. Suberror: 1\n"
		"extra data[0]: 0x0000000000000000\n"
		"emulation failure\n"
		"RAX=0000000000000000 RBX=ffffffff82a03e80 RCX=0000000000000000 RDX=0000000000000000\n"
		"Code=48 0f c7 0e <f0> 48 0f c7 0e\r\n"
		"KVM internal error. Suberror: 1\n"
		"emulation failure\n"
		"qemu-system-x86_64: terminating on signal 15 from pid 4242 (lab)\n";
	struct strbuf out = STRBUF_INIT;

	(void)state;
	backend_error_lines(log, sizeof(log) - 1, 3, &out);
	assert_string_equal(out.buf, "KVM internal error. Suberror: 1; emulation failure");
	strbuf_reset(&out);
	backend_error_lines(log, sizeof(log) - 1, 1, &out);
	assert_string_equal(out.buf, "KVM internal error. Suberror: 1");
	strbuf_reset(&out);
	backend_error_lines("qemu-system-x86_64: /build/qemu/accel/kvm/kvm-all.c:2790: "
			    "kvm_buf_set_msrs: Assertion `ret == cpu->kvm_msr_buf->nmsrs' failed.", 120, 3, &out);
	assert_non_null(strstr(out.buf, "Assertion"));
	strbuf_reset(&out);
	backend_error_lines("", 0, 3, &out);
	assert_string_equal(out.buf, "");
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_halted_states),
		cmocka_unit_test(test_error_lines),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_take_message),
		cmocka_unit_test(test_save_and_restore),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
