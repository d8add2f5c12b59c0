/* fuzz-libvirt-save.c - libFuzzer target: arbitrary bytes as the domain XML
 * of a libvirt save image, rewritten for a restore, and as lab metadata. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/libvirt-save.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct lv_restore_paths paths = {
		.kernel = "/c/k", .initrd = "/c/i&<'\"", .console = "/c/con.sock",
		.records = "/c/rec.sock", .owner_pid = 42,
	};
	struct strbuf err = STRBUF_INIT;
	char *text = malloc(size + 1), *out;

	if (!text)
		return 0;
	/* libvirt hands over C strings: they end at the first NUL */
	memcpy(text, data, size);
	text[size] = '\0';
	out = lv_restore_xml(text, strlen(text), &paths, &err);
	if (out) {
		/* what we wrote must read back: name and owner */
		free(lv_domain_name(out, strlen(out)));
		free(out);
	}
	free(lv_domain_name(text, strlen(text)));
	lv_meta_owner(text);
	strbuf_release(&err);
	free(text);
	return 0;
}
