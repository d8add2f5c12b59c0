/* runner.c - entry point of the static guest runner: parses the mode and
 * its options and sends its records to the host (or a file, or stdout). */
#include "out.h"
#include "probe.h"

#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: runner --probe-topology --out <path|->\n"
	"\n"
	"  --probe-topology  send the kernel's view of CPUs, caches, nodes and\n"
	"                    scheduling domains as framed records\n"
	"  --out <path>      where records go: a serial port (made raw), a file,\n"
	"                    or - for stdout\n";

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	int probe = 0, ret;
	struct out o;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--probe-topology")) {
			probe = 1;
		} else if (!strcmp(argv[i], "--out")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "runner: error: '--out' needs a path\n%s", usage_text);
				return 2;
			}
			out_path = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return 0;
		} else {
			fprintf(stderr, "runner: error: unknown option '%s'\n%s", argv[i], usage_text);
			return 2;
		}
	}
	if (!probe || !out_path) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (out_open(&o, out_path) < 0)
		return 1;
	ret = probe_topology(&o);
	if (out_close(&o) < 0)
		ret = -1;
	return ret < 0 ? 1 : 0;
}
