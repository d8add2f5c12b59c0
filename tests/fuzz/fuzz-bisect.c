/* fuzz-bisect.c - libFuzzer target for lab bisect's state file parser: any
 * bytes give a state or one error line, and a parsed state round-trips and
 * renders. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bisect b, back;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct json_object *o;
	const char *text;
	size_t next, lo, hi;

	bisect_init(&b);
	bisect_init(&back);
	if (bisect_parse((const char *)data, size, &b, &err) < 0) {
		if (!err.len || strchr(err.buf, '\n'))
			abort();
		goto out;
	}
	if (b.nr_commits < 2 || (b.phase == BISECT_DONE && b.first_bad >= b.nr_commits))
		abort();
	if (bisect_next(&b, &next, &lo, &hi) && (next <= lo || next >= hi || hi >= b.nr_commits))
		abort();
	bisect_text(&b, &out);
	bisect_git_log(&b, &out);
	bisect_html(&b, "x", &out);
	/* what we write, we read back the same */
	o = bisect_json(&b);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (bisect_parse(text, strlen(text), &back, &err) < 0 || back.nr_commits != b.nr_commits ||
	    back.nr_boots != b.nr_boots || back.nr_steps != b.nr_steps || back.phase != b.phase)
		abort();
	for (size_t i = 0; i < b.nr_commits; i++)
		if (strcmp(back.commits[i].sha, b.commits[i].sha) || back.commits[i].skipped != b.commits[i].skipped)
			abort();
	json_object_put(o);
out:
	bisect_release(&b);
	bisect_release(&back);
	strbuf_release(&err);
	strbuf_release(&out);
	return 0;
}
