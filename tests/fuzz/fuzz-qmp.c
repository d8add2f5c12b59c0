/* fuzz-qmp.c - libFuzzer target: arbitrary bytes from a (hostile) QEMU
 * monitor through the QMP message splitter and the run-state events. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backend/qmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf b = STRBUF_INIT;
	struct json_object *o;
	struct qmp q;
	int bad;

	qmp_init(&q, -1);

	/* feed in two halves so partial messages are exercised */
	strbuf_add(&b, data, size / 2);
	while ((o = qmp_take_message(&b, &bad))) {
		qmp_note_event(&q, o);
		json_object_put(o);
	}
	strbuf_add(&b, data + size / 2, size - size / 2);
	while ((o = qmp_take_message(&b, &bad))) {
		qmp_note_event(&q, o);
		json_object_put(o);
	}
	/* the cause is always one terminated line */
	if (memchr(q.cause, '\0', sizeof(q.cause)) == NULL)
		__builtin_trap();
	qmp_release(&q);
	strbuf_release(&b);
	return 0;
}
