/* fuzz-guestview.c - libFuzzer target for the guest view parser: arbitrary
 * snapshot text must give a view or one error line, never a crash or leak. */
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/guestview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	/* the low bit of the length picks arm64's cluster view too */
	struct json_object *v = guest_view_from_sysfs_flags((const char *)data, size,
							    size & 1 ? GUEST_VIEW_CLUSTERS : 0, &err);
	unsigned long bits[4];
	char *s, why[128] = "";
	int n;

	if (v) {
		/* serialising walks every value the parser built */
		json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
		json_object_put(v);
		if (err.len)
			abort();
	} else if (!err.len || strchr(err.buf, '\n')) {
		abort();
	}
	strbuf_release(&err);

	/* cpulists: whatever parses must format to a list that parses back
	 * to the same set, and formatting must be a fixed point */
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	/* (and what does not parse gets one line saying why) */
	n = cpulist_parse(s, bits, 200, why, sizeof(why));
	if (n < 0 && (!why[0] || strchr(why, '\n')))
		abort();
	if (n >= 0) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		unsigned long again[4];

		cpulist_format(bits, 200, &a);
		if (cpulist_parse(a.buf, again, 200, NULL, 0) != n || memcmp(bits, again, sizeof(bits)))
			abort();
		cpulist_format(again, 200, &b);
		if (strcmp(a.buf, b.buf))
			abort();
		strbuf_release(&a);
		strbuf_release(&b);
	}
	free(s);
	return 0;
}
