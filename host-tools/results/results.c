/* results.c - run directories under results/ and the JSON files written
 * into them (run.json, verdict.json, derived views). */
#define _GNU_SOURCE
#include "results/results.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

const char *results_root(void)
{
	static char *root;
	const char *env = getenv("LAB_RESULTS");

	if (!root)
		root = env && *env ? xstrdup(env) : xasprintf("%s/results", lab_root());
	return root;
}

int results_create_run(const char *root, const char *label, struct strbuf *dir)
{
	char stamp[32], slug[64];
	time_t t = time(NULL);
	struct tm tm;
	size_t n = 0;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (const char *p = label; *p && n < sizeof(slug) - 1; p++) {
		char c = *p;

		slug[n++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_') ? c : '_';
	}
	slug[n] = '\0';
	if (mkdir_p(root, 0755) < 0)
		return -1;
	for (int i = 0; i < 100; i++) {
		strbuf_reset(dir);
		strbuf_addf(dir, "%s/%s-%s-%ld", root, stamp, slug, (long)getpid());
		if (i)
			strbuf_addf(dir, "-%d", i);
		if (mkdir(dir->buf, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return error("cannot create '%s': %s", dir->buf, strerror(errno));
	}
	return error("cannot find a free run directory under '%s'", root);
}

int results_write_json(const char *dir, const char *name, struct json_object *obj)
{
	char *path = xasprintf("%s/%s", dir, name);
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_SPACED |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addstr(&sb, text);
	strbuf_addch(&sb, '\n');
	ret = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	free(path);
	return ret;
}

struct json_object *results_host_info(void)
{
	struct json_object *h = json_object_new_object();
	struct utsname u;
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	json_object_object_add(h, "hostname", json_object_new_string(host));
	if (uname(&u) == 0) {
		json_object_object_add(h, "kernel", json_object_new_string(u.release));
		json_object_object_add(h, "machine", json_object_new_string(u.machine));
	}
	json_object_object_add(h, "cpus", json_object_new_int64(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(h, "mem_mib", json_object_new_int64(
		(int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) / (1024 * 1024)));
	return h;
}
