/* fuzz-libvirt-reply.c - libFuzzer target: arbitrary text as the reply of
 * libvirt's QEMU monitor passthrough (virDomainQemuMonitorCommand). */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *reply = NULL;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	/* libvirt hands over a C string: it ends at the first NUL */
	memcpy(text, data, size);
	text[size] = '\0';
	if (libvirt_qmp_reply("fuzz", text, &reply, &err) == 0)
		json_object_put(reply);
	strbuf_release(&err);
	free(text);
	return 0;
}
