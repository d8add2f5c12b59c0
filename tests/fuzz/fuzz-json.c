/* fuzz-json.c - libFuzzer target for the one JSON reader: any bytes give a
 * value or one error line, and a value read back from its own text prints the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *o = json_read((const char *)data, size, 1u << 20, "f.json", &err), *back;
	const char *text;

	if (!o) {
		if (!err.len || strchr(err.buf, '\n') || strncmp(err.buf, "f.json ", 7))
			abort();
		strbuf_release(&err);
		return 0;
	}
	if (err.len)
		abort();
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	back = json_read(text, strlen(text), 0, "again", &err);
	/* text, not values: NaN is never equal to itself */
	if (!back || strcmp(text, json_object_to_json_string_ext(back, JSON_C_TO_STRING_PLAIN)))
		abort();
	json_object_put(back);
	json_object_put(o);
	strbuf_release(&err);
	return 0;
}
