/* fuzz-schedtrace.c - libFuzzer target for the host side of WIRE_TRACE: the
 * payload split, the run collector, libtraceevent decoding of raw pages, metrics. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "results/schedtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/*
 * libtraceevent 1.7 leaks a few bytes on some error paths of its format
 * parser (the print fmt of a malformed format file); a leak there is the
 * library's, and one per bad format file costs nothing in a report.
 * Crashes and overreads inside it are still found.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

/*
 * Input: WIRE_TRACE payloads, each behind a 4-byte little-endian length
 * (the seeds are the records of a real capture, pages cut to a few).  A
 * fixed 4-CPU topology: 2 nodes of one LLC, no SMT, as 2s2c.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int core[4] = { 0, 1, 2, 3 }, llc[4] = { 0, 0, 2, 2 }, node[4] = { 0, 0, 1, 1 };
	struct st_topo topo = { 4, core, llc, node };
	struct schedtrace_formats f = { 0 };
	struct schedtrace_case c;
	size_t pos = 0;

	schedtrace_case_init(&c);
	while (size - pos >= 4) {
		uint32_t len = (uint32_t)data[pos] | (uint32_t)data[pos + 1] << 8 |
			       (uint32_t)data[pos + 2] << 16 | (uint32_t)data[pos + 3] << 24;
		struct schedtrace_rec r;

		pos += 4;
		if (len > size - pos)
			len = (uint32_t)(size - pos);
		if (!schedtrace_split((const char *)data + pos, len, &r)) {
			if (r.kind_len == 6 && !memcmp(r.kind, "format", 6))
				schedtrace_add_format(&f, &r);
			else
				schedtrace_add(&c, &r);
		}
		pos += len;
	}
	if (c.run >= 0) {
		struct json_object *result = json_object_new_object();

		/* no directory: nothing is written, everything else runs */
		schedtrace_finish_run(&c, &f, &topo, "", NULL, "c", (unsigned)c.run,
				      ST_WC_GRACE_DEFAULT_NS, result);
		json_object_put(result);
	}
	schedtrace_case_release(&c);
	schedtrace_formats_release(&f);
	return 0;
}
