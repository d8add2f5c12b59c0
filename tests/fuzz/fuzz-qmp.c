/* fuzz-qmp.c - libFuzzer target: arbitrary bytes from a (hostile) QEMU
 * monitor through the QMP message splitter. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/qmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf b = STRBUF_INIT;
	struct json_object *o;
	int bad;

	/* feed in two halves so partial messages are exercised */
	strbuf_add(&b, data, size / 2);
	while ((o = qmp_take_message(&b, &bad)))
		json_object_put(o);
	strbuf_add(&b, data + size / 2, size - size / 2);
	while ((o = qmp_take_message(&b, &bad)))
		json_object_put(o);
	strbuf_release(&b);
	return 0;
}
