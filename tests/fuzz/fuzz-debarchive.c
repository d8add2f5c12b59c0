/* fuzz-debarchive.c - libFuzzer target for what apt and the user hand the
 * archive code: kernel specs, package names, madison output, Depends
 * fields and apt-get update's errors.  Nothing may crash, every field stays terminated, an error is
 * one line, and what a spec parses to is a series the picker can match. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/debarchive.h"
#include "kernel/kgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_kernel(const struct deb_kernel *k)
{
	if (!memchr(k->pkg, 0, sizeof(k->pkg)) || !memchr(k->release, 0, sizeof(k->release)) ||
	    !memchr(k->series, 0, sizeof(k->series)) || !memchr(k->suites, 0, sizeof(k->suites)) ||
	    !memchr(k->version, 0, sizeof(k->version)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), series[16], flavour[16];
	struct strbuf err = STRBUF_INIT;
	struct strvec parts = STRVEC_INIT;
	struct deb_kernel l[4];
	int r;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	r = debarchive_parse_spec(s, series, flavour, &err);
	if (r < 0 && (!err.len || strchr(err.buf, '\n')))
		abort();
	if (r > 0 && (!memchr(series, 0, sizeof(series)) ||
		      (strcmp(series, "latest") && !strchr(series, '.'))))
		abort();
	memset(l, 0, sizeof(l));
	if (debarchive_parse_image(s, "amd64", &l[0]) &&
	    (strncmp(l[0].pkg, "linux-image-", 12) || !strchr(l[0].series, '.')))
		abort();
	check_kernel(&l[0]);
	debarchive_parse_image("linux-image-6.12.1+deb12-amd64", "amd64", &l[1]);
	debarchive_parse_image("linux-image-7.2.13+deb14-rt-amd64", "amd64", &l[2]);
	debarchive_parse_madison(s, "amd64", l, 3);
	for (int i = 0; i < 3; i++)
		check_kernel(&l[i]);
	debarchive_pick(l, 3, "6.12", "");
	debarchive_split_parts(s, "7.2.13+deb14-amd64", &parts);
	for (size_t i = 0; i < parts.nr; i++)
		if (strncmp(parts.v[i], "linux-", 6))
			abort();
	kgen_for_release(s);
	strbuf_reset(&err);
	if (debarchive_partial_update(s, &err) && (!err.len || strchr(err.buf, '\n')))
		abort();
	strvec_clear(&parts);
	strbuf_release(&err);
	free(s);
	return 0;
}
