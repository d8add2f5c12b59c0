/* cache.h - what the lab keeps in its cache directory (kernels, initrds,
 * images, warm-start snapshots): sizes, last use, least-recently-used pruning. */
#ifndef LAB_CACHE_H
#define LAB_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/util.h"

struct cache_entry {
	const char *kind;   /* "kernel", "initrd", "image", "snapshot" (static) */
	char *name;         /* the path below the cache directory */
	char *path;
	uint64_t bytes;     /* on disk (allocated blocks) */
	time_t last_use;    /* the newest access or change of anything in it */
};

/* Owns its entries; cache_list_release() frees them. */
struct cache_list {
	struct cache_entry *v;
	size_t nr, alloc;
	uint64_t total;
};
#define CACHE_LIST_INIT { NULL, 0, 0, 0 }

/* The entries under root, oldest use first.  A missing root is an empty
 * cache; -1 with err when a directory cannot be read. */
int cache_list(const char *root, struct cache_list *l, struct strbuf *err);
void cache_list_release(struct cache_list *l);

/*
 * Removes the least recently used entries until what is left takes at
 * most max_bytes; each removed one is moved into removed (may be NULL).
 * Scratch (tmp/) and half-written snapshots are not entries and stay.
 * -1 with err when an entry cannot be removed.
 */
int cache_prune(const char *root, uint64_t max_bytes, struct cache_list *removed,
		struct strbuf *err);

#endif
