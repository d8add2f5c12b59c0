/* test-hostfault.c - host-side fault timing against a fake backend: what
 * is sent to the monitor, in which order, when, and what is undone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "fault/hostfault.h"

static char sent[16][32];
static unsigned nr_sent;
static long fake_tid; /* query-cpus-fast's vCPU thread, 0: an empty reply */

static int fake_qmp(struct backend *b, const char *cmd, struct json_object *args,
		    struct json_object **reply, struct strbuf *err)
{
	if (nr_sent < 16)
		snprintf(sent[nr_sent++], sizeof(sent[0]), "%s", cmd);
	if (reply)
		*reply = NULL;
	if (reply && fake_tid && !strcmp(cmd, "query-cpus-fast")) {
		struct json_object *cpu = json_object_new_object();

		json_object_object_add(cpu, "cpu-index", json_object_new_int(0));
		json_object_object_add(cpu, "thread-id", json_object_new_int64(fake_tid));
		*reply = json_object_new_array();
		json_object_array_add(*reply, cpu);
	}
	return 0;
}

static int fake_nmi(struct backend *b, struct strbuf *err)
{
	return fake_qmp(b, "inject-nmi", NULL, NULL, err);
}

static const struct backend_ops fake_ops = { .name = "fake", .qmp = fake_qmp, .nmi = fake_nmi };

static struct plan one_case(const char *kind, unsigned start, unsigned period, unsigned count,
			    unsigned hold)
{
	struct plan p = { .cases = calloc(1, sizeof(struct plan_case)), .nr_cases = 1 };
	struct plan_fault *f = &p.cases[0].faults[0];

	snprintf(p.cases[0].id, sizeof(p.cases[0].id), "hackbench/groups=2");
	p.cases[0].nr_faults = 1;
	snprintf(f->name, sizeof(f->name), "freeze");
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	f->side = PLAN_SIDE_HOST;
	f->start_ms = start;
	f->period_ms = period;
	f->count = count;
	f->hold_ms = hold;
	return p;
}

static const char run_start[] = "{\"event\": \"run_start\", \"case\": \"hackbench/groups=2\", \"run\": 1}";

static void test_pause_timeline(void **state)
{
	struct plan p = one_case("pause", 100, 200, 2, 50);
	struct backend b = { .ops = &fake_ops };
	struct hostfault h;
	char dir[] = "/tmp/test-hostfault.XXXXXX", *path, *log;
	uint64_t t0;

	/* QMP stop/cont: the mode that stops the guest's clocks too */
	p.cases[0].faults[0].nr_opts = 1;
	strcpy(p.cases[0].faults[0].opts[0].key, "mode");
	strcpy(p.cases[0].faults[0].opts[0].value, "stop");
	assert_non_null(mkdtemp(dir));
	nr_sent = 0;
	hostfault_init(&h, &p, dir, now_ns());
	assert_int_equal(hostfault_next_ns(&h), 0);
	/* other events and other cases schedule nothing */
	hostfault_on_event(&h, "{\"event\": \"case_start\", \"case\": \"hackbench/groups=2\"}", 54);
	assert_int_equal(hostfault_next_ns(&h), 0);
	t0 = now_ns();
	hostfault_on_event(&h, run_start, strlen(run_start));
	/* stop at +100 ms, cont at +150, stop at +300, cont at +350 */
	assert_true(hostfault_next_ns(&h) >= t0 + 100000000ull);
	assert_true(hostfault_next_ns(&h) < t0 + 100000000ull + 50000000ull);
	hostfault_tick(&h, &b, t0 + 99000000ull);
	assert_int_equal(nr_sent, 0);
	hostfault_tick(&h, &b, t0 + 160000000ull);
	assert_int_equal(nr_sent, 2);
	assert_string_equal(sent[0], "stop");
	assert_string_equal(sent[1], "cont");
	hostfault_tick(&h, &b, t0 + 310000000ull);
	assert_int_equal(nr_sent, 3);
	assert_string_equal(sent[2], "stop");
	assert_true(h.paused);
	/* the run ends early: finish resumes the guest and drops the rest */
	hostfault_finish(&h, &b);
	assert_int_equal(nr_sent, 4);
	assert_string_equal(sent[3], "cont");
	assert_false(h.paused);
	assert_int_equal(hostfault_next_ns(&h), 0);
	path = xasprintf("%s/host-faults.jsonl", dir);
	log = read_file(path, NULL);
	assert_non_null(log);
	assert_non_null(strstr(log, "\"action\":\"stop\""));
	assert_non_null(strstr(log, "\"case\":\"hackbench/groups=2\""));
	unlink(path);
	rmdir(dir);
	free(path);
	free(log);
	plan_release(&p);
}

/* The state letter of pid once it is want ('T' stopped, 'S' asleep again in
 * pause()), or the last one seen within a second. */
static char state_of(pid_t pid, char want)
{
	char path[64], *text, *p, st = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 1000 && st != want; i++) {
		if (i)
			usleep(1000);
		text = read_file(path, NULL);
		p = text ? strrchr(text, ')') : NULL;
		st = p ? p[2] : 0;
		free(text);
	}
	return st;
}

/* A child standing in for QEMU; killed by the teardown, whatever failed. */
static pid_t child;

static int fork_child(void **state)
{
	child = fork();
	if (!child) {
		for (;;)
			pause();
	}
	return child > 0 ? 0 : -1;
}

static int kill_child(void **state)
{
	int status;

	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	fake_tid = 0;
	return 0;
}

/* freeze, the default: SIGSTOP and SIGCONT of the process behind the vCPU
 * threads, timed from the run's start */
static void test_pause_freeze(void **state)
{
	struct plan p = one_case("pause", 0, 0, 1, 50);
	struct backend b = { .ops = &fake_ops };
	struct hostfault h;
	char dir[] = "/tmp/test-hostfault.XXXXXX", *path, *log;
	uint64_t t0;

	assert_non_null(mkdtemp(dir));
	nr_sent = 0;
	fake_tid = child;
	hostfault_init(&h, &p, dir, now_ns());
	t0 = now_ns();
	hostfault_on_event(&h, run_start, strlen(run_start));
	hostfault_tick(&h, &b, t0 + 1000000ull);
	assert_int_equal(h.frozen_pid, child);
	assert_false(h.paused);
	assert_int_equal(state_of(child, 'T'), 'T');
	/* the monitor only told which process QEMU is; nothing stopped the guest's clock */
	assert_int_equal(nr_sent, 1);
	assert_string_equal(sent[0], "query-cpus-fast");
	hostfault_tick(&h, &b, t0 + 60000000ull);
	assert_int_equal(h.frozen_pid, 0);
	assert_int_equal(state_of(child, 'S'), 'S');
	path = xasprintf("%s/host-faults.jsonl", dir);
	log = read_file(path, NULL);
	assert_non_null(log);
	assert_non_null(strstr(log, "\"action\":\"stop\",\"ok\":true,\"detail\":\"SIGSTOP to QEMU pid"));
	assert_non_null(strstr(log, "\"action\":\"cont\",\"ok\":true,\"detail\":\"SIGCONT to QEMU pid"));
	assert_non_null(strstr(log, "\"t_run_s\":"));
	free(log);
	unlink(path);

	/* frozen when the run ends: finish lets QEMU go */
	hostfault_on_event(&h, run_start, strlen(run_start));
	hostfault_tick(&h, &b, now_ns() + 1000000ull);
	assert_int_equal(state_of(child, 'T'), 'T');
	hostfault_finish(&h, &b);
	assert_int_equal(h.frozen_pid, 0);
	assert_int_equal(state_of(child, 'S'), 'S');

	/* an NMI due inside the freeze waits for the cont: a frozen QEMU has no monitor */
	p.cases[0].nr_faults = 2;
	p.cases[0].faults[1] = p.cases[0].faults[0];
	snprintf(p.cases[0].faults[1].kind, sizeof(p.cases[0].faults[1].kind), "nmi");
	p.cases[0].faults[1].start_ms = 10;
	nr_sent = 0;
	t0 = now_ns();
	hostfault_on_event(&h, run_start, strlen(run_start));
	hostfault_tick(&h, &b, t0 + 1000000ull);
	assert_int_equal(state_of(child, 'T'), 'T');
	hostfault_tick(&h, &b, t0 + 20000000ull);
	assert_int_equal(nr_sent, 1); /* query-cpus-fast only */
	assert_true(hostfault_next_ns(&h) >= t0 + 50000000ull);
	hostfault_tick(&h, &b, t0 + 60000000ull);
	hostfault_tick(&h, &b, t0 + 70000000ull);
	assert_int_equal(h.frozen_pid, 0);
	assert_int_equal(nr_sent, 2);
	assert_string_equal(sent[1], "inject-nmi");
	assert_int_equal(hostfault_next_ns(&h), 0);
	p.cases[0].nr_faults = 1;
	unlink(path);

	/* a remote hypervisor's QEMU is not ours to signal */
	b.remote = 1;
	hostfault_on_event(&h, run_start, strlen(run_start));
	hostfault_tick(&h, &b, now_ns() + 1000000ull);
	log = read_file(path, NULL);
	assert_non_null(log);
	assert_non_null(strstr(log, "pause mode 'freeze' needs QEMU on this host"));
	hostfault_finish(&h, &b);
	free(log);
	unlink(path);
	rmdir(dir);
	free(path);
	plan_release(&p);
}

static void test_nmi_and_guest_faults(void **state)
{
	struct plan p = one_case("nmi", 0, 0, 1, 0);
	struct backend b = { .ops = &fake_ops };
	struct hostfault h;

	nr_sent = 0;
	hostfault_init(&h, &p, NULL, now_ns());
	hostfault_on_event(&h, run_start, strlen(run_start));
	hostfault_tick(&h, &b, now_ns() + 1000);
	/* an NMI has no undo half */
	assert_int_equal(nr_sent, 1);
	assert_string_equal(sent[0], "inject-nmi");
	assert_int_equal(hostfault_next_ns(&h), 0);
	/* a guest-side fault is the runner's business */
	p.cases[0].faults[0].side = PLAN_SIDE_GUEST;
	hostfault_on_event(&h, run_start, strlen(run_start));
	assert_int_equal(hostfault_next_ns(&h), 0);
	plan_release(&p);
}

static void test_quota(void **state)
{
	unsigned pct;

	assert_int_equal(hostfault_parse_quota("40", &pct), 0);
	assert_int_equal(pct, 40);
	assert_int_equal(hostfault_parse_quota("25%", &pct), 0);
	assert_int_equal(pct, 25);
	assert_int_equal(hostfault_parse_quota("0", &pct), -1);
	assert_int_equal(hostfault_parse_quota("101", &pct), -1);
	assert_int_equal(hostfault_parse_quota("", &pct), -1);
	assert_int_equal(hostfault_parse_quota("5x", &pct), -1);
}

static void test_registry(void **state)
{
	static const char *const names[] = {
#define X(n, guest_helps) #n,
		HOSTFAULT_LIST(X)
#undef X
	};
	struct plan p = one_case("vcpu_throttle", 0, 0, 1, 0);
	struct plan_fault *f = &p.cases[0].faults[0];
	struct strbuf err = STRBUF_INIT;
	unsigned i = 0, line, pct;

	for (const struct hostfault_ops *const *k = hostfault_kinds; *k; k++, i++) {
		assert_true(i < ARRAY_SIZE(names));
		assert_string_equal((*k)->name, names[i]);
		assert_ptr_equal(hostfault_find(names[i]), *k);
		assert_non_null((*k)->act);
		assert_non_null((*k)->action);
		assert_true((*k)->default_hold_ms > 0);
		/* a kind with a second half names it in host-faults.jsonl */
		assert_true(!(*k)->undo_action || (*k)->undo);
	}
	assert_int_equal(i, ARRAY_SIZE(names));
	/* the runner's kinds are not the host's */
	assert_null(hostfault_find("cpu_hotplug"));
	assert_null(hostfault_find(""));
	assert_true(hostfault_find("nmi")->raises_nmi);
	assert_true(hostfault_find("vcpu_remove")->removes_vcpus);
	assert_false(hostfault_find("vcpu_add")->removes_vcpus);
	/* the runner's fault driver onlines what the host hot-adds */
	assert_true(plan_host_fault_guest_helps("vcpu_add"));
	assert_false(plan_host_fault_guest_helps("pause"));
	assert_false(plan_host_fault_guest_helps("cpu_hotplug"));

	/* options: the default, a given value, and what the table refuses */
	assert_int_equal(hostfault_opt(&hostfault_kind_vcpu_throttle, f, "quota", &pct, &err), 0);
	assert_int_equal(pct, 50);
	f->nr_opts = 1;
	strcpy(f->opts[0].key, "quota");
	strcpy(f->opts[0].value, "30%");
	f->opts[0].line = 12;
	assert_int_equal(hostfault_check_opts(&hostfault_kind_vcpu_throttle, f, &err, &line), 0);
	assert_int_equal(hostfault_opt(&hostfault_kind_vcpu_throttle, f, "quota", &pct, &err), 0);
	assert_int_equal(pct, 30);
	strcpy(f->opts[0].value, "0");
	assert_int_equal(hostfault_check_opts(&hostfault_kind_vcpu_throttle, f, &err, &line), -1);
	assert_int_equal(line, 12);
	assert_non_null(strstr(err.buf, "'quota' must be 1..100%"));
	strbuf_reset(&err);
	strcpy(f->opts[0].key, "quot");
	assert_int_equal(hostfault_check_opts(&hostfault_kind_vcpu_throttle, f, &err, &line), -1);
	assert_string_equal(err.buf, "host fault kind 'vcpu_throttle' has no option 'quot'");
	strbuf_reset(&err);
	assert_int_equal(hostfault_check_opts(&hostfault_kind_nmi, f, &err, &line), -1);
	assert_string_equal(err.buf, "host fault kind 'nmi' has no option 'quot'");
	strbuf_reset(&err);
	/* a word option: pause's mode */
	strcpy(f->opts[0].key, "mode");
	assert_int_equal(hostfault_opt(&hostfault_kind_pause, f, "mode", &pct, &err), -1);
	strbuf_reset(&err);
	f->nr_opts = 0;
	assert_int_equal(hostfault_opt(&hostfault_kind_pause, f, "mode", &pct, &err), 0);
	assert_int_equal(pct, 0); /* freeze */
	f->nr_opts = 1;
	strcpy(f->opts[0].value, "stop");
	assert_int_equal(hostfault_check_opts(&hostfault_kind_pause, f, &err, &line), 0);
	assert_int_equal(hostfault_opt(&hostfault_kind_pause, f, "mode", &pct, &err), 0);
	assert_int_equal(pct, 1);
	strcpy(f->opts[0].value, "sleep");
	assert_int_equal(hostfault_check_opts(&hostfault_kind_pause, f, &err, &line), -1);
	assert_string_equal(err.buf, "'mode' must be freeze or stop (freeze: SIGSTOP of QEMU, guest "
				     "time runs on; stop: QMP stop, guest time stops too), not 'sleep'");
	strbuf_release(&err);
	plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause_timeline),
		cmocka_unit_test_setup_teardown(test_pause_freeze, fork_child, kill_child),
		cmocka_unit_test(test_nmi_and_guest_faults),
		cmocka_unit_test(test_quota),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
