/* fuzz-hotplug.c - libFuzzer target for vCPU hot-plug input: a kernel
 * uevent datagram (first byte even) or a query-hotpluggable-cpus reply. */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fault/hostfault.h"
#include "../../guest/runner/cpu-online.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct hostfault_slot s;
	struct json_object *o;
	unsigned cpu;
	char *copy;

	if (!size)
		return 0;
	if (!(data[0] & 1)) {
		/* a datagram is not NUL-terminated: the parser gets exact bytes */
		copy = malloc(size - 1 ? size - 1 : 1);
		memcpy(copy, data + 1, size - 1);
		cpu_uevent_parse(copy, size - 1, &cpu);
		free(copy);
		return 0;
	}
	copy = strndup((const char *)data + 1, size - 1);
	o = json_tokener_parse(copy);
	hostfault_pick_slot(o, "default", 0, 0, &s, &err);
	hostfault_pick_slot(o, "1-3,7", 1, 1, &s, &err);
	json_object_put(o);
	free(copy);
	strbuf_release(&err);
	return 0;
}
