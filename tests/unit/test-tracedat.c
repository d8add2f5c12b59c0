/* test-tracedat.c - a kept run's trace read back from its files: decoding with
 * task names, slices and wakeups, trace.dat's layout, the timeline and JSON. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/timeline.h"
#include "results/tracedat.h"
#include "results/schedtrace.h"
#include "results/tracerun.h"
#include "tests/unit/trace-formats.h"

static char dir[] = "/tmp/test-tracedat-XXXXXX";

static void put_in(const char *base, const char *name, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", base, name), *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(mkdir_p(path, 0755), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(path, data, len), 0);
	free(path);
}

static void put(const char *name, const void *data, size_t len)
{
	put_in(dir, name, data, len);
}

/* One ring-buffer page: a time stamp, the commit, then events of
 * whole words, each behind a header of type_len (words) and delta. */
struct page {
	unsigned char b[4096];
	size_t len;
	uint64_t last;
};

static void page_init(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
	p->len = 16;
	p->last = ts;
}

static void page_event(struct page *p, uint64_t ts, const void *data, size_t len)
{
	uint32_t hdr = (uint32_t)(len / 4) | (uint32_t)(ts - p->last) << 5;
	uint64_t commit;

	assert_true(len % 4 == 0 && len <= 112);
	memcpy(p->b + p->len, &hdr, 4);
	memcpy(p->b + p->len + 4, data, len);
	p->len += 4 + len;
	p->last = ts;
	commit = p->len - 16;
	memcpy(p->b + 8, &commit, 8);
}

static void ev_switch(struct page *p, uint64_t ts, const char *prev, int prev_pid, const char *next,
		      int next_pid)
{
	unsigned char d[64] = { 0 };
	uint16_t type = TF_ID_SWITCH;

	memcpy(d, &type, 2);
	strncpy((char *)d + 8, prev, 16);
	memcpy(d + 24, &prev_pid, 4);
	strncpy((char *)d + 40, next, 16);
	memcpy(d + 56, &next_pid, 4);
	page_event(p, ts, d, sizeof(d));
}

static void ev_wake(struct page *p, uint64_t ts, uint16_t type, const char *comm, int pid, int target)
{
	unsigned char d[36] = { 0 };

	memcpy(d, &type, 2);
	strncpy((char *)d + 8, comm, 16);
	memcpy(d + 24, &pid, 4);
	memcpy(d + 32, &target, 4);
	page_event(p, ts, d, sizeof(d));
}

static void ev_migrate(struct page *p, uint64_t ts, const char *comm, int pid, int from, int to)
{
	unsigned char d[40] = { 0 };
	uint16_t type = TF_ID_MIGRATE;

	memcpy(d, &type, 2);
	strncpy((char *)d + 8, comm, 16);
	memcpy(d + 24, &pid, 4);
	memcpy(d + 32, &from, 4);
	memcpy(d + 36, &to, 4);
	page_event(p, ts, d, sizeof(d));
}

#define MS 1000000ull
#define T0 1000000000ull

/* cpu0 runs hackbench-1 and wakes hackbench-2, which runs on cpu1 after a kworker. */
static int setup(void **state)
{
	static const char view[] =
		"{\"cpu\": [{\"cpu\": 0, \"siblings\": \"0\", \"llc\": \"0\", \"node\": 0},"
		" {\"cpu\": 1, \"siblings\": \"1\", \"llc\": \"1\", \"node\": 1}]}";
	struct page p0, p1;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	put("trace/format/header_page", tf_header_page, strlen(tf_header_page));
	put("trace/format/header_event", tf_header_event, strlen(tf_header_event));
	put("trace/format/sched_switch", tf_sched_switch, strlen(tf_sched_switch));
	put("trace/format/sched_wakeup", tf_sched_wakeup, strlen(tf_sched_wakeup));
	put("trace/format/sched_waking", tf_sched_waking, strlen(tf_sched_waking));
	put("trace/format/sched_migrate_task", tf_sched_migrate, strlen(tf_sched_migrate));
	put("trace/format/page_size", "4096", 4);
	page_init(&p0, T0);
	ev_switch(&p0, T0, "swapper/0", 0, "hackbench-1", 101);
	ev_wake(&p0, T0 + 1 * MS, TF_ID_WAKING, "hackbench-2", 102, 1);
	ev_migrate(&p0, T0 + 1 * MS + 50000, "hackbench-2", 102, 0, 1);
	ev_wake(&p0, T0 + 1 * MS + 100000, TF_ID_WAKEUP, "hackbench-2", 102, 1);
	ev_switch(&p0, T0 + 5 * MS, "hackbench-1", 101, "swapper/0", 0);
	page_init(&p1, T0);
	ev_switch(&p1, T0 + MS / 2, "swapper/1", 0, "kworker/1:0", 50);
	ev_switch(&p1, T0 + 2 * MS, "kworker/1:0", 50, "hackbench-2", 102);
	ev_switch(&p1, T0 + 6 * MS, "hackbench-2", 102, "swapper/1", 0);
	put("trace/hb_mode=process/run3/cpu0.raw", p0.b, sizeof(p0.b));
	put("trace/hb_mode=process/run3/cpu1.raw", p1.b, sizeof(p1.b));
	put("trace/hb_mode=process/run3/stats1.txt", "entries: 0\noverrun: 2\n", 22);
	put("trace/hb_mode=process/run5/cpu0.raw", p0.b, 100); /* not whole pages */
	put("guest-topology.json", view, strlen(view));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(dir);
}

static void test_lists(void **state)
{
	struct strvec cases = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	unsigned *runs;
	size_t nr;

	(void)state;
	assert_int_equal(trace_list_cases(dir, &cases, &err), 0);
	assert_int_equal(cases.nr, 1);
	assert_string_equal(cases.v[0], "hb_mode=process");
	assert_int_equal(trace_list_runs(dir, cases.v[0], &runs, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(runs[0], 3);
	assert_int_equal(runs[1], 5);
	free(runs);
	assert_int_equal(trace_list_cases("/nonexistent", &cases, &err), -1);
	assert_non_null(strstr(err.buf, "kept no sched trace"));
	strvec_clear(&cases);
	strbuf_release(&err);
}

static void test_decode(void **state)
{
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT;
	uint64_t first, last;

	(void)state;
	assert_int_equal(trace_run_load(&t, dir, "hb_mode=process", 3, &err), 0);
	assert_int_equal(t.nr_cpus, 2);
	assert_int_equal(t.nr, 8);
	assert_int_equal(t.lost, 2);
	assert_int_equal(t.topo.nr_cpus, 2);
	trace_run_span(&t, &first, &last);
	assert_true(first == T0 && last == T0 + 6 * MS);
	/* names come from the switch and wakeup records */
	assert_string_equal(trace_run_comm(&t, 101), "hackbench-1");
	assert_string_equal(trace_run_comm(&t, 50), "kworker/1:0");
	/* slices: hackbench-1 on cpu0, then kworker and hackbench-2 on cpu1 */
	assert_int_equal(t.nr_slices, 3);
	assert_int_equal(t.slices[0].cpu, 0);
	assert_int_equal(t.slices[0].pid, 101);
	assert_true(t.slices[0].start == T0 && t.slices[0].end == T0 + 5 * MS);
	assert_int_equal(t.slices[1].pid, 50);
	assert_int_equal(t.slices[2].pid, 102);
	assert_string_equal(t.slices[2].comm, "hackbench-2");
	/* the wakeup: waker cpu0, placed on cpu1, ran 0.9 ms later there */
	assert_int_equal(t.nr_wakes, 1);
	assert_int_equal(t.wakes[0].waker_cpu, 0);
	assert_int_equal(t.wakes[0].target_cpu, 1);
	assert_int_equal(t.wakes[0].run_cpu, 1);
	assert_true(t.wakes[0].run - t.wakes[0].wakeup == 900000);
	trace_run_release(&t);

	assert_int_equal(trace_run_load(&t, dir, "hb_mode=process", 5, &err), -1);
	assert_non_null(strstr(err.buf, "not a whole number"));
	trace_run_release(&t);
	strbuf_reset(&err);
	assert_int_equal(trace_run_load(&t, dir, "hb_mode=process", 4, &err), -1);
	assert_non_null(strstr(err.buf, "no cpu0.raw"));
	trace_run_release(&t);
	strbuf_release(&err);
}

static void test_digest(void **state)
{
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT;
	struct tr_cpu_busy *b;
	char *text = NULL;
	size_t n, len;
	FILE *f;

	(void)state;
	assert_int_equal(trace_run_load(&t, dir, "hb_mode=process", 3, &err), 0);
	trace_busy_cpus(&t, &b, &n);
	assert_int_equal(n, 2);
	assert_int_equal(b[0].cpu, 1); /* 1.5 + 4 ms against 5 ms */
	assert_true(b[0].busy_ns == 5500000 && b[0].tasks == 2);
	free(b);
	f = open_memstream(&text, &len);
	trace_digest_print(&t, f, 5);
	fclose(f);
	assert_non_null(strstr(text, "8 events on 2 CPUs over 0.006 s, 2 lost"));
	assert_non_null(strstr(text, "busiest CPUs: cpu1 91.7% (2 tasks), cpu0 83.3% (1 tasks)"));
	assert_non_null(strstr(text, "0.900 ms  hackbench-2-102"));
	/* cpu0 and cpu1 are on two nodes */
	assert_non_null(strstr(text, "top migrations:\n         1  hackbench-2-102 (numa 1)\n"));
	free(text);
	trace_run_release(&t);
	strbuf_release(&err);
}

static uint64_t le(const char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | (unsigned char)p[i];
	return v;
}

static void test_tracedat(void **state)
{
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT, cmd = STRBUF_INIT;
	char *path = xasprintf("%s/trace.dat", dir), *data, *fly;
	size_t len;

	(void)state;
	assert_int_equal(trace_run_load(&t, dir, "hb_mode=process", 3, &err), 0);
	tracedat_cmdlines(&t, &cmd);
	assert_string_equal(cmd.buf, "50 kworker/1:0\n101 hackbench-1\n102 hackbench-2\n");
	assert_int_equal(tracedat_write(&t, path, &err), 0);
	data = read_file(path, &len);
	assert_non_null(data);
	assert_memory_equal(data, "\x17\x08\x44tracing6\0\0\x08", 14);
	assert_int_equal(le(data + 14, 4), 4096);
	assert_memory_equal(data + 18, "header_page\0", 12);
	assert_int_equal(le(data + 30, 8), strlen(tf_header_page));
	assert_non_null(memmem(data, len, "sched\0\x04\0\0\0", 10)); /* one system, four events */
	assert_non_null(memmem(data, len, cmd.buf, cmd.len));
	assert_non_null(memmem(data, len, "local [global]\n", 15));
	assert_non_null(memmem(data, len, "CPU: 1\nentries: 0\noverrun: 2\n", 29));
	fly = memmem(data, len, "flyrecord\0", 10);
	assert_non_null(fly);
	/* two CPUs: page-aligned offsets, one after the other, the pages as they were */
	assert_int_equal(le(fly + 10, 8) % 4096, 0);
	assert_int_equal(le(fly + 18, 8), 4096);
	assert_int_equal(le(fly + 26, 8), le(fly + 10, 8) + 4096);
	assert_int_equal(len, le(fly + 26, 8) + 4096);
	assert_memory_equal(data + le(fly + 26, 8), t.pages[1].buf, 4096);
	free(data);
	/* the runner's trace_clock record beside the formats: a TCG guest's
	 * local clock, and a clock we do not know read as global */
	put("trace/format/trace_clock", "local", 5);
	assert_int_equal(tracedat_write(&t, path, &err), 0);
	data = read_file(path, &len);
	assert_non_null(memmem(data, len, "[local] global\n", 15));
	free(data);
	put("trace/format/trace_clock", "x86-tsc", 7);
	assert_int_equal(tracedat_write(&t, path, &err), 0);
	data = read_file(path, &len);
	assert_non_null(memmem(data, len, "local [global]\n", 15));
	free(data);
	free(path);
	path = xasprintf("%s/trace/format/trace_clock", dir);
	assert_int_equal(unlink(path), 0);
	free(path);
	strbuf_reset(&err);
	/* no header format, no file */
	schedtrace_formats_release(&t.formats);
	path = xasprintf("%s/none.dat", dir);
	assert_int_equal(tracedat_write(&t, path, &err), -1);
	assert_non_null(strstr(err.buf, "header_page"));
	assert_int_equal(access(path, F_OK), -1);
	free(path);
	trace_run_release(&t);
	strbuf_release(&cmd);
	strbuf_release(&err);
}

static void test_roles(void **state)
{
	static const char *const cases[][2] = {
		{ "hackbench-12", "hackbench" }, { "runner", "runner" }, { "kworker/1:0", "kernel" },
		{ "ksoftirqd/3", "kernel" }, { "schbench:3", "schbench" }, { "42", "42" },
		{ "", "?" }, { "rcu_preempt", "kernel" }, { "stress_ng.7", "stress_ng" },
	};
	char buf[TR_COMM + 8];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		timeline_role(cases[i][0], buf, sizeof(buf));
		assert_string_equal(buf, cases[i][1]);
	}
}

static void test_timeline(void **state)
{
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT, page = STRBUF_INIT;
	struct fault_mark m = { .what = "pause <stop>", .rel = 0.003, .ok = 1, .host = 1 };
	const struct fault_mark *marks[] = { &m };

	(void)state;
	assert_int_equal(trace_run_load(&t, dir, "hb_mode=process", 3, &err), 0);
	timeline_html(&t, "hb <run3>", marks, 1, &page);
	assert_non_null(strstr(page.buf, "<title>hb &lt;run3&gt;</title>"));
	assert_non_null(strstr(page.buf, "<svg xmlns"));
	assert_null(strstr(page.buf, "<script"));
	/* nodes as groups, in row order */
	assert_true(strstr(page.buf, "node 0 llc 0") < strstr(page.buf, "node 1 llc 1"));
	assert_non_null(strstr(page.buf, "<title>hackbench-1-101 5.000 ms</title>"));
	assert_non_null(strstr(page.buf, "hackbench-2-102 waited 0.900 ms: woken by cpu0, ran on cpu1"));
	assert_non_null(strstr(page.buf, "pause &lt;stop&gt; (host) at 0.003 s"));
	/* kernel threads are grey, the workload takes the first colour */
	assert_non_null(strstr(page.buf, "background:#999999\"></span>kernel"));
	assert_non_null(strstr(page.buf, "background:#0072B2\"></span>hackbench"));
	trace_run_release(&t);
	strbuf_release(&page);
	strbuf_release(&err);
}

/* A long trace of tiny slices stays a few rectangles per pixel column. */
static void test_timeline_aggregates(void **state)
{
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf out = STRBUF_INIT;
	const size_t n = 200000;

	(void)state;
	t.nr_cpus = 2;
	t.nr = 2;
	t.ev = xcalloc(2, sizeof(*t.ev));
	t.ev[0].e.ts = 0;
	t.ev[1].e.ts = n * 10000;
	t.slices = xcalloc(n, sizeof(*t.slices));
	for (size_t i = 0; i < n; i++)
		t.slices[i] = (struct tr_slice){ i * 10000, i * 10000 + 3000 + (i % 7) * 1000,
						 (int)(i * 2 / n), (int)(100 + i % 50),
						 i % 3 ? "sender-1" : "receiver-2" };
	t.nr_slices = n;
	timeline_svg(&t, NULL, 0, &out);
	assert_true(out.len < 2 * TIMELINE_WIDTH * 120 + 20000);
	assert_non_null(strstr(out.buf, "fill-opacity"));
	strbuf_release(&out);
	trace_run_release(&t);
}

static void test_trace_json(void **state)
{
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT;
	struct json_object *doc, *ev, *v;
	size_t x = 0, inst = 0, thread_names = 0;

	(void)state;
	assert_int_equal(trace_run_load(&t, dir, "hb_mode=process", 3, &err), 0);
	doc = timeline_trace_json(&t);
	assert_true(json_object_object_get_ex(doc, "traceEvents", &ev));
	for (size_t i = 0; i < json_object_array_length(ev); i++) {
		struct json_object *e = json_object_array_get_idx(ev, i), *ph, *name;

		assert_true(json_object_object_get_ex(e, "ph", &ph));
		json_object_object_get_ex(e, "name", &name);
		if (!strcmp(json_object_get_string(ph), "X")) {
			x++;
			if (!strcmp(json_object_get_string(name), "hackbench-2")) {
				/* ts and dur in microseconds from the first event; node 1 is pid 1 */
				json_object_object_get_ex(e, "ts", &v);
				assert_true(json_object_get_double(v) == 2000.0);
				json_object_object_get_ex(e, "dur", &v);
				assert_true(json_object_get_double(v) == 4000.0);
				json_object_object_get_ex(e, "pid", &v);
				assert_int_equal(json_object_get_int(v), 1);
			}
		} else if (!strcmp(json_object_get_string(ph), "i")) {
			inst++;
		} else if (!strcmp(json_object_get_string(name), "thread_name")) {
			thread_names++;
		}
	}
	assert_int_equal(x, 3);
	assert_int_equal(inst, 1);
	assert_int_equal(thread_names, 2);
	json_object_put(doc);
	trace_run_release(&t);
	strbuf_release(&err);
}

/*
 * Events of one nanosecond keep the order they were recorded in, on one
 * CPU and across CPUs (cpu0's before cpu1's): the read-back and the
 * metrics' stable sort see the same sequence.
 */
static void test_same_ns_order(void **state)
{
	char sdir[] = "/tmp/test-tracedat-ns-XXXXXX";
	static const char view[] = "{\"cpu\": [{\"cpu\": 0, \"siblings\": \"0\", \"llc\": \"0\", "
				   "\"node\": 0}, {\"cpu\": 1, \"siblings\": \"1\", \"llc\": \"0\", "
				   "\"node\": 0}]}";
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT;
	struct schedtrace_parser *p;
	struct st_metrics m = { 0 };
	struct st_event *ev = NULL;
	size_t nr = 0, alloc = 0;
	uint64_t lost = 0;
	struct page p0, p1;

	(void)state;
	assert_non_null(mkdtemp(sdir));
	put_in(sdir, "trace/format/header_page", tf_header_page, strlen(tf_header_page));
	put_in(sdir, "trace/format/header_event", tf_header_event, strlen(tf_header_event));
	put_in(sdir, "trace/format/sched_switch", tf_sched_switch, strlen(tf_sched_switch));
	put_in(sdir, "trace/format/sched_wakeup", tf_sched_wakeup, strlen(tf_sched_wakeup));
	put_in(sdir, "trace/format/sched_waking", tf_sched_waking, strlen(tf_sched_waking));
	put_in(sdir, "trace/format/sched_migrate_task", tf_sched_migrate, strlen(tf_sched_migrate));
	put_in(sdir, "guest-topology.json", view, strlen(view));
	/* cpu0: a wakeup's two halves and the switch to the woken task, all at T0 + 1 ms */
	page_init(&p0, T0);
	ev_switch(&p0, T0, "swapper/0", 0, "hb-send-1", 101);
	ev_wake(&p0, T0 + MS, TF_ID_WAKING, "hb-recv-2", 102, 0);
	ev_wake(&p0, T0 + MS, TF_ID_WAKEUP, "hb-recv-2", 102, 0);
	ev_switch(&p0, T0 + MS, "hb-send-1", 101, "hb-recv-2", 102);
	ev_switch(&p0, T0 + 3 * MS, "hb-recv-2", 102, "swapper/0", 0);
	/* cpu1: at the same nanosecond, a switch and a migration */
	page_init(&p1, T0);
	ev_switch(&p1, T0 + MS, "swapper/1", 0, "hb-send-3", 103);
	ev_migrate(&p1, T0 + MS, "hb-send-4", 104, 1, 0);
	ev_switch(&p1, T0 + 2 * MS, "hb-send-3", 103, "swapper/1", 0);
	put_in(sdir, "trace/same/run0/cpu0.raw", p0.b, sizeof(p0.b));
	put_in(sdir, "trace/same/run0/cpu1.raw", p1.b, sizeof(p1.b));

	assert_int_equal(trace_run_load(&t, sdir, "same", 0, &err), 0);
	assert_int_equal(t.nr, 8);
	/* at T0 + 1 ms: cpu0's waking, wakeup, switch, then cpu1's switch, migrate */
	assert_int_equal(t.ev[1].e.type, ST_WAKING);
	assert_int_equal(t.ev[2].e.type, ST_WAKEUP);
	assert_int_equal(t.ev[3].e.type, ST_SWITCH);
	assert_int_equal(t.ev[3].e.cpu, 0);
	assert_int_equal(t.ev[4].e.type, ST_SWITCH);
	assert_int_equal(t.ev[4].e.cpu, 1);
	assert_int_equal(t.ev[5].e.type, ST_MIGRATE);
	for (size_t i = 1; i < t.nr; i++)
		assert_true(t.ev[i - 1].e.ts < t.ev[i].e.ts ||
			    (t.ev[i - 1].e.ts == t.ev[i].e.ts && t.ev[i - 1].seq < t.ev[i].seq));
	/* the woken task ran at once: a zero wait, not a wakeup left open */
	assert_int_equal(t.nr_wakes, 1);
	assert_int_equal(t.wakes[0].run_cpu, 0);
	assert_true(t.wakes[0].run == t.wakes[0].wakeup);

	/* the metrics' path: the same pages, parsed and sorted by st_derive */
	p = schedtrace_parser_new(&t.formats, &err);
	assert_non_null(p);
	for (unsigned c = 0; c < t.nr_cpus; c++)
		assert_int_equal(schedtrace_parse_cpu(p, (int)c, t.pages[c].buf, t.pages[c].len, &ev,
						      &nr, &alloc, &lost, &err), 0);
	schedtrace_parser_free(p);
	assert_int_equal(nr, t.nr);
	assert_int_equal(st_derive(ev, nr, &t.topo, ST_WC_GRACE_DEFAULT_NS, &m), 0);
	for (size_t i = 0; i < nr; i++) {
		assert_true(ev[i].ts == t.ev[i].e.ts);
		assert_int_equal(ev[i].cpu, t.ev[i].e.cpu);
		assert_int_equal(ev[i].type, t.ev[i].e.type);
		assert_int_equal(ev[i].pid, t.ev[i].e.pid);
	}
	free(ev);
	trace_run_release(&t);
	strbuf_release(&err);
	assert_int_equal(remove_tree(sdir), 0);
}

static void test_links(void **state)
{
	static const char kept[] = "{\"kept\": [{\"run\": 3, \"why\": \"slowest\"}]}";
	struct strbuf out = STRBUF_INIT;
	char *html;

	(void)state;
	assert_int_equal(timeline_links_html("/nonexistent", "x", &out), 0);
	assert_int_equal(out.len, 0);
	put("trace/hb_mode=process/kept.json", kept, strlen(kept));
	put("trace/hb_mode=process/run3/timeline.html", "<html></html>", 13);
	/* run3 and run5 (whose pages are broken but there) */
	assert_int_equal(timeline_links_html(dir, "base <k>", &out), 2);
	assert_non_null(strstr(out.buf, "base &lt;k&gt;: <code>"));
	/* links only to the files there are */
	html = xasprintf("hb_mode=process: run3 (slowest) <a href=\"file://%s/trace/hb_mode=process/"
			 "run3/timeline.html\">timeline</a>; run5</li>", dir);
	assert_non_null(strstr(out.buf, html));
	free(html);
	strbuf_release(&out);
}

static void test_rel_path(void **state)
{
	static const char *const cases[][3] = {
		{ "/a/b", "/a/b/c/x.html", "c/x.html" },
		{ "/a/bc", "/a/b/x", "../b/x" },
		{ "/", "/x/y", "x/y" },
		{ "/r/p", "/r/q/t", "../q/t" },
		{ "/a/b/c", "/a/x", "../../x" },
		{ "/a/b", "/c/d", "../../c/d" },
		{ "/a/b", "/a/bc/x", "../bc/x" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *r = timeline_rel_path(cases[i][0], cases[i][1]);

		assert_string_equal(r, cases[i][2]);
		free(r);
	}
}

/* lab compare --html: the kept runs' timelines drawn where missing, and a
 * row's links relative to the page */
static void test_row_links(void **state)
{
	char *html = xasprintf("%s/trace/hb_mode=process/run3/timeline.html", dir), *page;
	char *parent = xstrdup(dir), *rel;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	size_t drawn = 0;

	(void)state;
	unlink(html);
	/* run3 is drawn; run5's pages do not decode: said, not skipped silently */
	assert_int_equal(timeline_draw_missing(dir, NULL, &drawn, &err), -1);
	assert_int_equal(drawn, 1);
	assert_non_null(strstr(err.buf, "hb_mode=process run5: "));
	page = read_file(html, NULL);
	assert_non_null(page);
	assert_non_null(strstr(page, "<svg"));
	free(page);
	/* nothing left to draw but the broken run */
	strbuf_reset(&err);
	drawn = 0;
	assert_int_equal(timeline_draw_missing(dir, NULL, &drawn, &err), -1);
	assert_int_equal(drawn, 0);
	assert_int_equal(timeline_draw_missing("/nonexistent", NULL, &drawn, &err), 0);

	/* the page in the run directory's parent: run dir name, then trace/... */
	*strrchr(parent, '/') = '\0';
	assert_int_equal(timeline_row_links(dir, "hb/mode=process", parent, "base", "#0072b2", &out), 1);
	rel = xasprintf("<a class=tl style=\"color:#0072b2\" href=\"%s/trace/hb_mode=process/run3/"
			"timeline.html\" title=\"base run3 (slowest): timeline\">run3</a>",
			strrchr(dir, '/') + 1);
	assert_non_null(strstr(out.buf, rel));
	free(rel);
	/* a case without kept runs: no link */
	strbuf_reset(&out);
	assert_int_equal(timeline_row_links(dir, "other", parent, "base", "#0072b2", &out), 0);
	assert_int_equal(out.len, 0);
	/* the list of kept traces, relative too */
	assert_int_equal(timeline_links_html_rel(dir, "base", dir, &out), 2);
	assert_non_null(strstr(out.buf, "run3 (slowest) <a href=\"trace/hb_mode=process/run3/"
				"timeline.html\">timeline</a> <a href=\"trace/hb_mode=process/run3/"
				"trace.dat\">trace.dat</a>"));
	strbuf_release(&out);
	strbuf_release(&err);
	free(parent);
	free(html);
}

/* <to>/<rel> is a symbolic link to <from>/<rel>. */
static void link_in(const char *from, const char *to, const char *rel)
{
	char *a = xasprintf("%s/%s", from, rel), *b = xasprintf("%s/%s", to, rel);

	assert_int_equal(symlink(a, b), 0);
	free(a);
	free(b);
}

static int cmp_wake_key(const void *a, const void *b)
{
	const struct tr_wake *x = a, *y = b;

	if (x->waking != y->waking)
		return x->waking < y->waking ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * A recorded hackbench (tests/golden/schedtrace/, five events) read with
 * and without sched_wakeup (a copy of its directory without that format
 * file, so its records decode as nothing): the same wakeups, from the
 * same waker CPU onto the same CPU, running at the same time on the same
 * CPU; without sched_wakeup a wakeup's time is its sched_waking's.
 */
static void test_wakes_without_wakeup(void **state)
{
	static const char *const formats[] = { "page_size", "header_page", "header_event",
						"sched_switch", "sched_waking", "sched_wakeup_new",
						"sched_migrate_task", "trace_clock" };
	char *src = xasprintf("%s/tests/golden/schedtrace/hackbench-2s2c2t", lab_root());
	char cdir[] = "/tmp/test-tracedat-nowakeup-XXXXXX";
	struct trace_run a = TRACE_RUN_INIT, b = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT;
	size_t wakeups = 0;
	char *fmt;

	(void)state;
	assert_non_null(mkdtemp(cdir));
	fmt = xasprintf("%s/trace/format", cdir);
	assert_int_equal(mkdir_p(fmt, 0755), 0);
	free(fmt);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		fmt = xasprintf("trace/format/%s", formats[i]);
		link_in(src, cdir, fmt);
		free(fmt);
	}
	link_in(src, cdir, "trace/fx-hackbench");
	link_in(src, cdir, "guest-topology.json");

	if (trace_run_load(&a, src, "fx-hackbench", 1, &err) < 0 ||
	    trace_run_load(&b, cdir, "fx-hackbench", 1, &err) < 0)
		fail_msg("%s", err.buf);
	for (size_t i = 0; i < a.nr; i++)
		wakeups += a.ev[i].e.type == ST_WAKEUP;
	for (size_t i = 0; i < b.nr; i++)
		assert_int_not_equal(b.ev[i].e.type, ST_WAKEUP);
	assert_int_equal(b.nr, a.nr - wakeups);
	assert_true(wakeups > 100);
	assert_int_equal(a.nr_wakes, b.nr_wakes);
	qsort(a.wakes, a.nr_wakes, sizeof(*a.wakes), cmp_wake_key);
	qsort(b.wakes, b.nr_wakes, sizeof(*b.wakes), cmp_wake_key);
	for (size_t i = 0; i < a.nr_wakes; i++) {
		const struct tr_wake *x = &a.wakes[i], *y = &b.wakes[i];

		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->waking, y->waking);
		assert_int_equal(x->waker_cpu, y->waker_cpu);
		assert_int_equal(x->target_cpu, y->target_cpu);
		assert_int_equal(x->run, y->run);
		assert_int_equal(x->run_cpu, y->run_cpu);
		assert_true(y->wakeup == y->waking && x->wakeup >= x->waking);
	}
	trace_run_release(&a);
	trace_run_release(&b);
	strbuf_release(&err);
	remove_tree(cdir);
	free(src);
}

/* ---- what a guest's formats say, and lack ---- */

static void ev_switch_state(struct page *p, uint64_t ts, int prev_pid, int64_t state, int next_pid)
{
	unsigned char d[64] = { 0 };
	uint16_t type = TF_ID_SWITCH;

	memcpy(d, &type, 2);
	memcpy(d + 24, &prev_pid, 4);
	memcpy(d + 32, &state, 8);
	memcpy(d + 56, &next_pid, 4);
	page_event(p, ts, d, sizeof(d));
}

/* One WIRE_TRACE record into the formats or the case. */
static void rec_in(struct schedtrace_formats *f, struct schedtrace_case *c, const char *head,
		   const void *data, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	struct schedtrace_rec r;

	strbuf_addstr(&sb, head);
	strbuf_add(&sb, data, len);
	assert_int_equal(schedtrace_split(sb.buf, sb.len, &r), 0);
	if (r.kind_len == 6 && !memcmp(r.kind, "format", 6))
		schedtrace_add_format(f, &r);
	else
		schedtrace_add(c, &r);
	strbuf_release(&sb);
}

/*
 * One run on 2 CPUs through schedtrace_finish_run(): sched_switch's
 * format (and so its prev_state encoding) as given, sched_migrate_task's
 * format only when migrate; the states written are raw[] (R+, S, R, in
 * the encoding of that format).  Returns the result; the caller puts it.
 */
static struct json_object *finish_with(const char *switch_fmt, int migrate, const int64_t raw[3])
{
	static int core[2] = { 0, 1 }, llc[2] = { 0, 0 }, node[2] = { 0, 0 };
	struct st_topo topo = { 2, core, llc, node };
	struct schedtrace_formats f = { 0 };
	struct schedtrace_case c;
	struct json_object *result = json_object_new_object();
	struct page p0;

	schedtrace_case_init(&c);
	rec_in(&f, &c, "\t-\tformat\theader_page\n", tf_header_page, strlen(tf_header_page));
	rec_in(&f, &c, "\t-\tformat\theader_event\n", tf_header_event, strlen(tf_header_event));
	rec_in(&f, &c, "\t-\tformat\tsched_switch\n", switch_fmt, strlen(switch_fmt));
	rec_in(&f, &c, "\t-\tformat\tsched_waking\n", tf_sched_waking, strlen(tf_sched_waking));
	rec_in(&f, &c, "\t-\tformat\tsched_wakeup_new\n", tf_sched_wakeup_new,
	       strlen(tf_sched_wakeup_new));
	if (migrate)
		rec_in(&f, &c, "\t-\tformat\tsched_migrate_task\n", tf_sched_migrate,
		       strlen(tf_sched_migrate));
	page_init(&p0, T0);
	ev_wake(&p0, T0, TF_ID_WAKING, "b", 11, 0);
	ev_switch_state(&p0, T0 + 1 * MS, 10, raw[0], 11); /* 10 preempted by 11 */
	ev_switch_state(&p0, T0 + 2 * MS, 11, raw[1], 10); /* 11 sleeps */
	ev_switch_state(&p0, T0 + 3 * MS, 10, raw[2], 12); /* 10 runnable (R), 12 not listed */
	ev_switch_state(&p0, T0 + 4 * MS, 12, raw[0], 10); /* 12 preempted */
	rec_in(&f, &c, "c\trun0\tcpu\tcpu0\n", p0.b, sizeof(p0.b));
	rec_in(&f, &c, "c\trun0\ttasks\t-\n", "2 10 11\n", 8);
	rec_in(&f, &c, "c\trun0\tdone\t-\n", "", 0);
	schedtrace_finish_run(&c, &f, &topo, "", NULL, "c", 0, ST_WC_GRACE_DEFAULT_NS, result);
	schedtrace_case_release(&c);
	schedtrace_formats_release(&f);
	return result;
}

static double row(struct json_object *result, const char *name)
{
	struct json_object *ms, *m, *v;

	if (!json_object_object_get_ex(result, "metrics", &ms) ||
	    !json_object_object_get_ex(ms, name, &m) || !json_object_object_get_ex(m, "value", &v))
		return -1;
	return json_object_get_double(v);
}

/* The schedtrace object's "degraded" lines, joined ("" without). */
static char *degraded(struct json_object *result)
{
	struct json_object *st, *d;
	struct strbuf sb = STRBUF_INIT;

	if (json_object_object_get_ex(result, "schedtrace", &st) &&
	    json_object_object_get_ex(st, "degraded", &d))
		for (size_t i = 0; i < json_object_array_length(d); i++)
			strbuf_addf(&sb, "%s\n", json_object_get_string(json_object_array_get_idx(d, i)));
	return strbuf_detach(&sb);
}

static void test_prev_state_from_format(void **state)
{
	/* 4.9's encoding: the raw state, 2048 for "+" */
	static const char fmt_49[] = TF_SWITCH_FIELDS
		"print fmt: \"%s%s\", REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & "
		"(2048-1), \"|\", { 1, \"S\"} ) : \"R\", REC->prev_state & 2048 ? \"+\" : \"\"\n";
	static const char fmt_cut[] = TF_SWITCH_FIELDS "print fmt: \"prev_pid=%d\", REC->prev_pid\n";
	/* 4.9: the third state is TASK_PARKED (512), off the runqueue */
	static const int64_t raw61[3] = { 0x100, 1, 0 }, raw49[3] = { 2048, 1, 512 };
	struct json_object *st, *x, *r;
	char *why;

	(void)state;
	/* 6.1: R+ and R are preemptions, S is not; own: tids 10 and 11 */
	r = finish_with(tf_sched_switch, 1, raw61);
	assert_true(row(r, "preemptions") == 3);
	assert_true(row(r, "own_preemptions") == 2);
	assert_true(row(r, "own_preempt_per_wakeup") == 2);
	assert_true(row(r, "wake_prev_pct") == 100);
	assert_true(json_object_object_get_ex(r, "schedtrace", &st));
	assert_true(json_object_object_get_ex(st, "own_tasks", &x));
	assert_int_equal(json_object_get_int(x), 2);
	why = degraded(r);
	assert_string_equal(why, "");
	free(why);
	json_object_put(r);

	/* another kernel's encoding, read from its own print fmt: R+ twice */
	r = finish_with(fmt_49, 1, raw49);
	assert_true(row(r, "preemptions") == 2);
	assert_true(row(r, "own_preemptions") == 1);
	json_object_put(r);
	/* its numbers read with 6.1's masks would call a parked task runnable */
	r = finish_with(tf_sched_switch, 1, raw49);
	assert_true(row(r, "preemptions") == 3);
	json_object_put(r);

	/* no print fmt to read: no preemption or runqueue row, and it says so */
	r = finish_with(fmt_cut, 1, raw61);
	assert_true(row(r, "preemptions") < 0);
	assert_true(row(r, "own_preemptions") < 0);
	assert_true(row(r, "wc_llc_pct") < 0);
	assert_true(row(r, "wake_prev_pct") == 100);
	why = degraded(r);
	assert_non_null(strstr(why, "sched_switch prev_state's encoding unknown: its print fmt has no"));
	assert_non_null(strstr(why, "preempt_* and own_preempt_* rows left out"));
	free(why);
	json_object_put(r);

	/* no sched_migrate_task: placement and migrations go, preemptions stay */
	r = finish_with(tf_sched_switch, 0, raw61);
	assert_true(row(r, "wake_prev_pct") < 0);
	assert_true(row(r, "migr_smt") < 0);
	assert_true(row(r, "preemptions") == 3);
	why = degraded(r);
	assert_non_null(strstr(why, "sched_migrate_task: no format from the guest: "));
	free(why);
	json_object_put(r);
}

/* A sched_switch without prev_state (or with it as a string) is a lack, not a zero. */
static void test_prev_state_field_missing(void **state)
{
	static const char no_state[] = "name: sched_switch\nID: 319\n" TF_COMMON
		"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:char prev_state[8];\toffset:32;\tsize:8;\tsigned:1;\n"
		"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n";
	static const int64_t raw61[3] = { 0x100, 1, 0 };
	struct json_object *r = finish_with(no_state, 1, raw61);
	char *why = degraded(r);

	(void)state;
	assert_non_null(strstr(why, "sched_switch has no integer field prev_state"));
	assert_true(row(r, "preemptions") < 0);
	assert_true(row(r, "migr_smt") >= 0);
	free(why);
	json_object_put(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_tracedat),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_aggregates),
		cmocka_unit_test(test_trace_json),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_same_ns_order),
		cmocka_unit_test(test_rel_path),
		cmocka_unit_test(test_row_links),
		cmocka_unit_test(test_wakes_without_wakeup),
		cmocka_unit_test(test_prev_state_from_format),
		cmocka_unit_test(test_prev_state_field_missing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
