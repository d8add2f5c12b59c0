/* fuzz-image.c - libFuzzer target for the image helpers that read untrusted
 * bytes: the results file read back from a guest's disk, compared with the
 * channel's records, and a modules.dep text resolved into a load order. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const want[] = { "virtio_blk", "ext4", NULL };
	struct strbuf why = STRBUF_INIT;
	struct strvec out = STRVEC_INIT;
	size_t half = size / 2;
	uint64_t nr;
	char *text;

	/* a stream always agrees with itself */
	if (image_records_compare(data, size, data, size, &nr, &why) != 0)
		abort();
	image_records_compare(data, half, data + half, size - half, &nr, &why);
	strbuf_release(&why);

	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	image_modules_order(text, size, want, &out, &why);
	for (size_t i = 0; i < out.nr; i++)
		if (!out.v[i] || !*out.v[i])
			abort();
	strvec_clear(&out);
	strbuf_release(&why);
	free(text);
	image_sniff(data, size, size);
	return 0;
}
