/* fuzz-image.c - libFuzzer target for the image helpers that read untrusted
 * bytes: the results file read back from a guest's disk, compared with the
 * channel's records, a modules.dep text resolved into a load order, a
 * kernel .config checked for the disk drivers, and an image's /boot
 * (links and names, one a line) turned into its default boot entry. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* text: "<vmlinuz link>\n<initrd link>\n<name>\n<name>...", empty link = none */
static void fuzz_boot(char *text)
{
	char *lines[64], *p = text, *nl;
	struct strbuf err = STRBUF_INIT;
	struct image_boot b;
	size_t n = 0;

	while (n < 63 && p) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		lines[n++] = p;
		p = nl ? nl + 1 : NULL;
	}
	lines[n] = NULL;
	if (n < 2)
		return;
	if (image_boot_choose(*lines[0] ? lines[0] : NULL, *lines[1] ? lines[1] : NULL,
			      (const char *const *)lines + 2, &b, &err) == 0) {
		if (!b.kernel || !b.initrd || !b.how || err.len)
			abort();
		image_boot_release(&b);
	} else if (!err.len || b.kernel || strchr(err.buf, '\n')) {
		abort();
	}
	strbuf_release(&err);
}

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
	if ((image_config_missing(text, &why) == 0) != (why.len == 0))
		abort();
	strbuf_release(&why);
	fuzz_boot(text);
	free(text);
	image_sniff(data, size, size);
	return 0;
}
