/* test-wlutil.c - the workloads' shared helpers: kernel CPU lists, cache
 * sizes, /proc/vmstat lookups and the start gate for threads and processes. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../guest/runner/wlutil.h"

static void test_cpulist(void **state)
{
	cpu_set_t s;

	assert_int_equal(wl_parse_cpulist("0-3,8,10-11\n", &s), 7);
	assert_true(CPU_ISSET(0, &s) && CPU_ISSET(3, &s) && CPU_ISSET(8, &s) && CPU_ISSET(11, &s));
	assert_false(CPU_ISSET(4, &s) || CPU_ISSET(9, &s) || CPU_ISSET(12, &s));
	assert_int_equal(wl_parse_cpulist("5", &s), 1);
	assert_true(CPU_ISSET(5, &s));
	/* a memory-only node has an empty cpulist */
	assert_int_equal(wl_parse_cpulist("\n", &s), 0);
	assert_int_equal(wl_parse_cpulist("", &s), 0);
	assert_int_equal(wl_parse_cpulist("0-1023", &s), 1024);

	assert_int_equal(wl_parse_cpulist("3-1", &s), -1);
	assert_int_equal(wl_parse_cpulist("0-", &s), -1);
	assert_int_equal(wl_parse_cpulist("1,,2", &s), -1);
	assert_int_equal(wl_parse_cpulist("a", &s), -1);
	assert_int_equal(wl_parse_cpulist("1 2", &s), -1);
	assert_int_equal(wl_parse_cpulist("1024", &s), -1);
	assert_int_equal(wl_parse_cpulist("99999999999999999999", &s), -1);
}

static void test_cache_size(void **state)
{
	uint64_t b;

	assert_int_equal(wl_parse_cache_size("32768K", &b), 0);
	assert_int_equal(b, 32ull << 20);
	assert_int_equal(wl_parse_cache_size("1024K\n", &b), 0);
	assert_int_equal(b, 1ull << 20);
	assert_int_equal(wl_parse_cache_size("2M", &b), 0);
	assert_int_equal(b, 2ull << 20);
	assert_int_equal(wl_parse_cache_size("512", &b), 0);
	assert_int_equal(b, 512);
	assert_int_equal(wl_parse_cache_size("", &b), -1);
	assert_int_equal(wl_parse_cache_size("12Q", &b), -1);
	assert_int_equal(wl_parse_cache_size("K", &b), -1);
}

/* This host's own files: the values must agree with what sysfs says. */
static void test_host_files(void **state)
{
	const char *names[] = { "nr_free_pages", "no_such_counter_here" };
	uint64_t v[2] = { 0, 77 };
	unsigned inst = 0;
	uint64_t llc = wl_llc_bytes(&inst);
	int cpus[CPU_SETSIZE];
	char buf[64];

	assert_int_equal(wl_vmstat_read(names, 2, v), 0);
	assert_true(v[0] > 0);
	assert_int_equal(v[1], 0);
	assert_true(wl_mem_available() > 0);
	if (llc)
		assert_true(inst >= 1);
	assert_true(wl_allowed_cpus(cpus, CPU_SETSIZE) >= 1);
	assert_int_equal(wl_read_text("/nonexistent/file", buf, sizeof(buf)), -1);
	/* truncated to the buffer, always terminated */
	assert_int_equal(wl_read_text("/proc/self/status", buf, 8), 7);
	assert_int_equal(strlen(buf), 7);
}

struct gate_test {
	struct wl_gate gate;
	int passed;
	int fail;
};

static void *gate_thread(void *arg)
{
	struct gate_test *g = arg;

	if (g->fail) {
		wl_gate_pass_failed(&g->gate);
		return NULL;
	}
	wl_gate_pass(&g->gate);
	__atomic_add_fetch(&g->passed, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void test_gate_threads(void **state)
{
	struct gate_test g = { .gate = WL_GATE_INIT };
	pthread_t t[4];
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	assert_int_equal(wl_gate_init(&g.gate), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, gate_thread, &g), 0);
	assert_int_equal(wl_gate_wait_ready(&g.gate, 4, 0), 0);
	/* ready, but held until the gate opens */
	nanosleep(&ts, NULL);
	assert_int_equal(__atomic_load_n(&g.passed, __ATOMIC_RELAXED), 0);
	wl_gate_open(&g.gate);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(g.passed, 4);
	wl_gate_release(&g.gate);

	/* one task that cannot run is reported; the rest still get through */
	g = (struct gate_test){ .gate = WL_GATE_INIT };
	assert_int_equal(wl_gate_init(&g.gate), 0);
	assert_int_equal(pthread_create(&t[0], NULL, gate_thread, &g), 0);
	assert_int_equal(wl_gate_wait_ready(&g.gate, 1, 0), 0);
	g.fail = 1;
	assert_int_equal(pthread_create(&t[1], NULL, gate_thread, &g), 0);
	assert_int_equal(wl_gate_wait_ready(&g.gate, 1, 0), 1);
	wl_gate_open(&g.gate);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert_int_equal(g.passed, 1);
	wl_gate_release(&g.gate);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_gate_processes(void **state)
{
	struct wl_gate g = WL_GATE_INIT;
	int *passed = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid[2];
	int status;
	uint64_t t0;

	assert_true(passed != MAP_FAILED);
	*passed = 0;
	assert_int_equal(wl_gate_init(&g), 0);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (!pid[i]) {
			wl_gate_child(&g);
			wl_gate_pass(&g);
			__atomic_add_fetch(passed, 1, __ATOMIC_RELAXED);
			_exit(0);
		}
	}
	wl_gate_forked(&g);
	assert_int_equal(wl_gate_wait_ready(&g, 2, 0), 0);
	assert_int_equal(__atomic_load_n(passed, __ATOMIC_RELAXED), 0);
	wl_gate_open(&g);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(*passed, 2);
	wl_gate_release(&g);

	/* a child that dies unready: EOF, not a hang */
	assert_int_equal(wl_gate_init(&g), 0);
	pid[0] = fork();
	if (!pid[0]) {
		wl_gate_child(&g);
		_exit(3);
	}
	wl_gate_forked(&g);
	assert_int_equal(wl_gate_wait_ready(&g, 1, 0), -1);
	waitpid(pid[0], &status, 0);
	wl_gate_release(&g);

	/* nobody comes: the deadline ends the wait */
	assert_int_equal(wl_gate_init(&g), 0);
	t0 = mono_ns();
	assert_int_equal(wl_gate_wait_ready(&g, 1, t0 + 100 * 1000 * 1000), -1);
	assert_true(mono_ns() - t0 >= 100 * 1000 * 1000);
	wl_gate_release(&g);
	munmap(passed, sizeof(int));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_cache_size),
		cmocka_unit_test(test_host_files),
		cmocka_unit_test(test_gate_threads),
		cmocka_unit_test(test_gate_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
