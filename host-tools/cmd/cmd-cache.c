/* cmd-cache.c - `lab cache [--json]` lists what the cache holds (kernels,
 * initrds, images, snapshots, the virtual clock's QEMU); `lab cache prune [--max-size S]` trims it. */
#define _GNU_SOURCE
#include "cmd/lab.h"
#include "cmd/options.h"
#include "run/cache.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char cache_usage[] =
	"lab cache [--json]\n   or: lab cache prune [--max-size S] (S like 20G, 512M; default 20G)";

static void human(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1ull << 30))
		snprintf(buf, size, "%.1fG", (double)bytes / (1ull << 30));
	else
		snprintf(buf, size, "%.1fM", (double)bytes / (1ull << 20));
}

static void print_entry(const struct cache_entry *e, const char *verb)
{
	char size[32], when[32];
	struct tm tm;

	human(e->bytes, size, sizeof(size));
	localtime_r(&e->last_use, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	printf("%s%-9s %8s  %s  %s\n", verb, e->kind, size, when, e->name);
}

static void print_json(const struct cache_list *l)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < l->nr; i++) {
		const struct cache_entry *e = &l->v[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", json_object_new_string(e->kind));
		json_object_object_add(o, "name", json_object_new_string(e->name));
		json_object_object_add(o, "bytes", json_object_new_int64((int64_t)e->bytes));
		json_object_object_add(o, "last_use", json_object_new_int64((int64_t)e->last_use));
		json_object_array_add(a, o);
	}
	printf("%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(a);
}

int cmd_cache(int argc, const char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct cache_list l = CACHE_LIST_INIT;
	const char *pos[2], *max_size = NULL;
	char total[32];
	int json = 0, nr_pos = 0, ret, prune;
	uint64_t mib = 20 * 1024;
	const struct lab_option opts[] = {
		OPT_BOOL("json", &json, "the list as JSON on stdout"),
		OPT_STRING("max-size", &max_size, "prune: what the cache may keep (default 20G)"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, cache_usage, pos, 2, &nr_pos);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	prune = nr_pos == 1 && !strcmp(pos[0], "prune");
	if (nr_pos > 1)
		die(LAB_EXIT_USAGE, "one cache action at most, not '%s %s'", pos[0], pos[1]);
	if (nr_pos && !prune)
		die(LAB_EXIT_USAGE, "unknown cache action '%s' (list, or prune)", pos[0]);
	if (max_size && !prune)
		die(LAB_EXIT_USAGE, "--max-size goes with 'lab cache prune'");
	if (max_size && parse_size_mib(max_size, &mib) < 0)
		die(LAB_EXIT_USAGE, "--max-size: '%s' is not a size (like 20G or 512M)", max_size);
	if (prune) {
		if (cache_prune(lab_cache_dir(), mib << 20, &l, &err) < 0)
			die(LAB_EXIT_FAIL, "%s", err.buf);
		for (size_t i = 0; i < l.nr; i++)
			print_entry(&l.v[i], "removed ");
		human(l.total, total, sizeof(total));
		printf("pruned %zu entr%s, %s (cache now at most %lluM)\n", l.nr, l.nr == 1 ? "y" : "ies",
		       total, (unsigned long long)mib);
	} else {
		if (cache_list(lab_cache_dir(), &l, &err) < 0)
			die(LAB_EXIT_FAIL, "%s", err.buf);
		if (json) {
			print_json(&l);
		} else {
			for (size_t i = 0; i < l.nr; i++)
				print_entry(&l.v[i], "");
			human(l.total, total, sizeof(total));
			printf("%zu entr%s, %s in %s (least recently used first)\n", l.nr,
			       l.nr == 1 ? "y" : "ies", total, lab_cache_dir());
		}
	}
	cache_list_release(&l);
	strbuf_release(&err);
	return LAB_EXIT_PASS;
}
