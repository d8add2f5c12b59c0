/* fuzz-bzimage.c - libFuzzer target for kernel_parse_image() and
 * kernel_image_arch_of(): any bytes, as a bzImage header, an ELF or an arm64
 * Image, must give a verdict without reading past them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kimage.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct kernel_info ki;
	/* An exact-size copy, so ASan flags a read one byte past the image. */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	{
		const char *arch = kernel_image_arch_of(copy, size);

		if (arch && strcmp(arch, "x86_64") && strcmp(arch, "arm64") &&
		    strcmp(arch, "ppc64le") && strcmp(arch, "ppc64 (big-endian)"))
			abort();
	}
	if (kernel_parse_image(copy, size, "fuzz", &ki, &err) == 0) {
		/* What a caller relies on when the image was accepted. */
		if (ki.kind == KERNEL_KIND_NONE)
			abort();
		if (strncmp(ki.version, ki.release, strlen(ki.release)))
			abort();
		if (ki.kind == KERNEL_KIND_BZIMAGE && ki.boot_protocol >= 0x0208 &&
		    ki.payload_file_offset + ki.payload_length > size)
			abort();
	} else if (!err.len || strchr(err.buf, '\n')) {
		abort(); /* every refusal is one line */
	}
	free(copy);
	strbuf_release(&err);
	return 0;
}
