/* fuzz-tracerun.c - libFuzzer target for a kept run read back: raw pages of
 * up to four CPUs decoded with task names, slices, wakeups, digest, outputs. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/timeline.h"
#include "results/tracedat.h"
#include "results/tracerun.h"
#include "tests/unit/trace-formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/* as in fuzz-schedtrace.c: libtraceevent's own error-path leaks */
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static const char *const formats[][2] = {
	{ "header_page", tf_header_page },     { "header_event", tf_header_event },
	{ "sched_switch", tf_sched_switch },   { "sched_waking", tf_sched_waking },
	{ "sched_wakeup", tf_sched_wakeup },   { "sched_migrate_task", tf_sched_migrate },
};

/*
 * Input: one byte of CPU count (1-4, from its low bits), then the pages:
 * the rest is cut into that many equal parts, each padded with zeros to
 * whole 4 KiB pages (the reader refuses anything else before decoding).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int core[4] = { 0, 0, 2, 2 }, llc[4] = { 0, 0, 2, 2 }, node[4] = { 0, 0, 1, 1 };
	struct trace_run t = TRACE_RUN_INIT;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, cmd = STRBUF_INIT;
	size_t part;

	if (!size || size > 64 * 4096)
		return 0;
	t.nr_cpus = (data[0] & 3u) + 1;
	part = (size - 1) / t.nr_cpus;
	t.pages = xcalloc(t.nr_cpus, sizeof(*t.pages));
	for (unsigned c = 0; c < t.nr_cpus; c++) {
		t.pages[c] = (struct strbuf)STRBUF_INIT;
		strbuf_add(&t.pages[c], data + 1 + c * part, part);
		while (t.pages[c].len % 4096 || !t.pages[c].len)
			strbuf_addch(&t.pages[c], 0);
	}
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct schedtrace_rec r = { .name = formats[i][0], .name_len = strlen(formats[i][0]),
					    .data = formats[i][1], .data_len = strlen(formats[i][1]) };

		schedtrace_add_format(&t.formats, &r);
	}
	t.topo = (struct st_topo){ 4, xcalloc(4, sizeof(int)), xcalloc(4, sizeof(int)),
				   xcalloc(4, sizeof(int)) };
	memcpy(t.topo.core, core, sizeof(core));
	memcpy(t.topo.llc, llc, sizeof(llc));
	memcpy(t.topo.node, node, sizeof(node));
	if (trace_run_decode(&t, &err) == 0) {
		FILE *f = fopen("/dev/null", "w");
		uint64_t sizes[4];
		struct json_object *doc;

		if (f) {
			trace_digest_print(&t, f, 5);
			fclose(f);
		}
		timeline_svg(&t, NULL, 0, &out);
		doc = timeline_trace_json(&t);
		json_object_put(doc);
		tracedat_cmdlines(&t, &cmd);
		for (unsigned c = 0; c < t.nr_cpus; c++)
			sizes[c] = t.pages[c].len;
		strbuf_reset(&out);
		tracedat_head(&t.formats, t.nr_cpus, sizes, cmd.len ? cmd.buf : "", NULL, &out, &err);
	}
	trace_run_release(&t);
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&cmd);
	return 0;
}
