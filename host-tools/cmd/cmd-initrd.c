/* cmd-initrd.c - `lab initrd [--out PATH]`: builds the guest initrd (or
 * reuses the cached one) and prints its path on stdout. */
#include "kernel/initrd.h"
#include "cmd/lab.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char initrd_usage[] =
	"usage: lab initrd [--out <path>]\n"
	"\n"
	"Builds the guest initrd (busybox-static, guest/init, the static runner)\n"
	"as an uncompressed cpio and prints its path.  Without --out it lives in\n"
	"the cache and is reused while its inputs are unchanged.\n"
	"\n"
	"  --out <path>   write the initrd to <path> instead of the cache\n";

int cmd_initrd(int argc, const char **argv)
{
	struct strbuf err = STRBUF_INIT;
	const char *out = NULL, *path;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(initrd_usage, stdout);
			return LAB_EXIT_PASS;
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strncmp(argv[i], "--out=", 6)) {
			out = argv[i] + 6;
		} else if (!strcmp(argv[i], "--out")) {
			out = "";
		} else {
			error("unknown argument '%s' to 'lab initrd' (see 'lab initrd --help')", argv[i]);
			return LAB_EXIT_USAGE;
		}
	}
	if (out && !*out) {
		error("'--out' needs a path");
		return LAB_EXIT_USAGE;
	}

	if (out) {
		path = initrd_build(out, &err) < 0 ? NULL : out;
	} else {
		path = initrd_cached(&err);
	}
	if (!path) {
		error("%s", err.buf);
		strbuf_release(&err);
		return LAB_EXIT_FAIL;
	}
	strbuf_release(&err);
	printf("%s\n", path);
	if (stat(path, &st) == 0)
		info("initrd: %.1f MiB", (double)st.st_size / (1024 * 1024));
	return LAB_EXIT_PASS;
}
