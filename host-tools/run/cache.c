/* cache.c - lists the lab's cache directory by kind of entry and prunes
 * it least recently used first (lab cache). */
#define _GNU_SOURCE
#include "run/cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where each kind lives; an entry is one child of the folder. */
static const struct {
	const char *kind, *dir;
} layout[] = {
	{ "kernel", "kernels/debian" },
	{ "kernel", "kernels/extracted" },
	{ "kernel", "kernels/built" },
	{ "initrd", "initrd" },
	{ "image", "images" },
	{ "snapshot", "snapshots" },
	{ "qemu", "qemu" },	/* the virtual clock's QEMU (kernel/debarchive.h) */
};

static time_t newest(const struct stat *st)
{
	return st->st_atime > st->st_mtime ? st->st_atime : st->st_mtime;
}

/* Bytes on disk and the newest use below path; depth-bounded. */
static void measure(const char *path, int depth, uint64_t *bytes, time_t *last)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st) < 0)
		return;
	*bytes += (uint64_t)st.st_blocks * 512u;
	if (!S_ISDIR(st.st_mode)) {
		if (newest(&st) > *last)
			*last = newest(&st);
		return;
	}
	/* a directory's own times say when files came and went, not use */
	if (depth > 8 || !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		measure(sub, depth + 1, bytes, last);
		free(sub);
	}
	closedir(d);
}

static void add(struct cache_list *l, const char *kind, const char *root, const char *rel)
{
	struct cache_entry *e;
	struct stat st;
	char *marker;

	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 16;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	e = &l->v[l->nr++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->name = xstrdup(rel);
	e->path = xasprintf("%s/%s", root, rel);
	measure(e->path, 0, &e->bytes, &e->last_use);
	/* a restore reads the snapshot through zstd: its own stamp says when */
	marker = xasprintf("%s/last-use", e->path);
	if (!strcmp(kind, "snapshot") && !stat(marker, &st))
		e->last_use = st.st_mtime;
	free(marker);
	l->total += e->bytes;
}

static int by_use(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;

	if (x->last_use != y->last_use)
		return x->last_use < y->last_use ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cache_list(const char *root, struct cache_list *l, struct strbuf *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(layout); i++) {
		char *dir = xasprintf("%s/%s", root, layout[i].dir);
		DIR *d = opendir(dir);
		struct dirent *de;

		if (!d) {
			int e = errno;

			free(dir);
			if (e == ENOENT || e == ENOTDIR)
				continue;
			strbuf_addf(err, "cannot read '%s/%s': %s", root, layout[i].dir, strerror(e));
			return -1;
		}
		while ((de = readdir(d))) {
			char *rel;

			/* ".tmp-*": a snapshot being written; "resolved": an index */
			if (de->d_name[0] == '.' || !strcmp(de->d_name, "resolved"))
				continue;
			rel = xasprintf("%s/%s", layout[i].dir, de->d_name);
			add(l, layout[i].kind, root, rel);
			free(rel);
		}
		closedir(d);
		free(dir);
	}
	if (l->nr)
		qsort(l->v, l->nr, sizeof(*l->v), by_use);
	return 0;
}

void cache_list_release(struct cache_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->v[i].name);
		free(l->v[i].path);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int cache_prune(const char *root, uint64_t max_bytes, struct cache_list *removed,
		struct strbuf *err)
{
	struct cache_list l = CACHE_LIST_INIT;
	int ret = 0;

	if (cache_list(root, &l, err) < 0)
		return -1;
	for (size_t i = 0; i < l.nr && l.total > max_bytes; i++) {
		struct cache_entry *e = &l.v[i];

		if (remove_tree(e->path) < 0) {
			strbuf_addf(err, "cannot remove '%s': %s", e->path, strerror(errno));
			ret = -1;
			break;
		}
		l.total -= e->bytes;
		if (removed) {
			struct cache_entry *r;

			if (removed->nr == removed->alloc) {
				removed->alloc = removed->alloc ? 2 * removed->alloc : 16;
				removed->v = xrealloc(removed->v, removed->alloc * sizeof(*removed->v));
			}
			r = &removed->v[removed->nr++];
			*r = *e;
			removed->total += e->bytes;
			e->name = e->path = NULL;
		}
	}
	cache_list_release(&l);
	return ret;
}
