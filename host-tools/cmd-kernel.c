/* cmd-kernel.c - `lab kernel [debian|PATH] [--json]`: fetch or locate the
 * guest kernel and print where its bzImage, vmlinux and config are. */
#include "kernel.h"
#include "lab.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static const char kernel_usage[] =
	"usage: lab kernel [debian|PATH] [--json]\n"
	"\n"
	"   debian   Debian's default amd64 kernel, downloaded once into the cache (default)\n"
	"   PATH     a bzImage, a vmlinux with a PVH note, or a built kernel tree\n"
	"   --json   print the paths as one JSON object\n";

static struct json_object *json_path_or_null(const char *path)
{
	return *path ? json_object_new_string(path) : NULL;
}

static void print_json(const struct kernel_paths *kp)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "release", json_object_new_string(kp->release));
	json_object_object_add(o, "source", json_object_new_string(kp->source));
	json_object_object_add(o, "bzimage", json_path_or_null(kp->bzimage));
	json_object_object_add(o, "vmlinux", json_path_or_null(kp->vmlinux));
	json_object_object_add(o, "config", json_path_or_null(kp->config));
	json_object_object_add(o, "boot_image",
			       json_object_new_string(kernel_paths_boot_image(kp)));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static const char *or_none(const char *path)
{
	return *path ? path : "none";
}

int cmd_kernel(int argc, const char **argv)
{
	struct kernel_paths kp;
	struct strbuf err = STRBUF_INIT;
	const char *spec = NULL;
	int json = 0, ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(kernel_usage, stdout);
			return LAB_EXIT_PASS;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			error("unknown option '%s'", argv[i]);
			fputs(kernel_usage, stderr);
			return LAB_EXIT_USAGE;
		} else if (spec) {
			error("more than one kernel given ('%s' and '%s')", spec, argv[i]);
			return LAB_EXIT_USAGE;
		} else {
			spec = argv[i];
		}
	}

	if (kernel_resolve(spec, &kp, &err) < 0) {
		error("%s", err.buf);
		/* A path is the user's input; a failed download is not. */
		ret = spec && *spec && strcmp(spec, "debian") ? LAB_EXIT_USAGE : LAB_EXIT_FAIL;
		goto out;
	}
	if (json) {
		print_json(&kp);
	} else {
		printf("kernel: %s (%s)\n", *kp.release ? kp.release : "unknown",
		       kp.source);
		printf("bzImage: %s\n", or_none(kp.bzimage));
		printf("vmlinux: %s\n", or_none(kp.vmlinux));
		printf("config: %s\n", or_none(kp.config));
	}
	ret = LAB_EXIT_PASS;
out:
	strbuf_release(&err);
	return ret;
}
