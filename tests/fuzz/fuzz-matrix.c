/* fuzz-matrix.c - libFuzzer target for lab matrix's state file parser: any
 * bytes give a state or one error line, and a parsed state round-trips. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct matrix m = MATRIX_INIT, back = MATRIX_INIT;
	struct strbuf err = STRBUF_INIT;
	struct json_object *o;
	const char *text;

	if (matrix_state_parse((const char *)data, size, &m, &err) < 0) {
		if (!err.len || strchr(err.buf, '\n'))
			abort();
		goto out;
	}
	for (size_t i = 0; i < m.nr_jobs; i++)
		if (!m.jobs[i].id || strchr(m.jobs[i].id, '/') || m.jobs[i].state > MX_DONE)
			abort();
	/* what we write, we read back the same */
	o = matrix_state_json(&m);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (matrix_state_parse(text, strlen(text), &back, &err) < 0 || back.nr_jobs != m.nr_jobs ||
	    strcmp(back.clock, m.clock) || back.warm != m.warm)
		abort();
	for (size_t i = 0; i < m.nr_jobs; i++)
		if (strcmp(back.jobs[i].id, m.jobs[i].id) || back.jobs[i].state != m.jobs[i].state ||
		    strcmp(back.jobs[i].run, m.jobs[i].run))
			abort();
	json_object_put(o);
out:
	matrix_release(&m);
	matrix_release(&back);
	strbuf_release(&err);
	return 0;
}
