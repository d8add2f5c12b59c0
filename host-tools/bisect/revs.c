/* revs.c - git rev-parse, merge-base --is-ancestor and rev-list for lab
 * bisect, as argv vectors with a deadline. */
#define _GNU_SOURCE
#include "bisect/revs.h"
#include "kernel/kbuild.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* git -C dir args...; its exit code (-1: could not start), stdout in out. */
static int git(const char *dir, struct strbuf *out, const char *const *args)
{
	return kbuild_git(dir, args, out, NULL);
}

static void chomp(struct strbuf *sb)
{
	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->buf[--sb->len] = '\0';
}

int revs_check_tree(const char *dir, struct strbuf *err)
{
	static const char *const args[] = { "rev-parse", "--show-prefix", NULL };
	struct strbuf out = STRBUF_INIT;
	int r = is_dir(dir) ? git(dir, &out, args) : -1;

	chomp(&out);
	/* a subdirectory of a work tree has a prefix: the tree is above it */
	if (r != 0 || out.len) {
		strbuf_addf(err, "'%s' is not a git tree", dir);
		r = -1;
	}
	strbuf_release(&out);
	return r ? -1 : 0;
}

int revs_resolve(const char *dir, const char *rev, char sha[41], struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT, spec = STRBUF_INIT;
	const char *args[] = { "rev-parse", "--verify", "-q", "--end-of-options", NULL, NULL };
	int r;

	strbuf_addf(&spec, "%s^{commit}", rev);
	args[4] = spec.buf;
	r = *rev && rev[0] != '-' ? git(dir, &out, args) : 1;
	chomp(&out);
	if (r != 0 || out.len != 40) {
		strbuf_addf(err, "unknown revision '%s' in '%s'", rev, dir);
		r = -1;
	} else {
		memcpy(sha, out.buf, 41);
	}
	strbuf_release(&out);
	strbuf_release(&spec);
	return r ? -1 : 0;
}

int revs_is_ancestor(const char *dir, const char *a, const char *b, struct strbuf *err)
{
	const char *args[] = { "merge-base", "--is-ancestor", a, b, NULL };
	int r = git(dir, NULL, args);

	if (r == 0 || r == 1)
		return !r;
	strbuf_addf(err, "git merge-base failed in '%s'", dir);
	return -1;
}

int revs_show(const char *dir, const char *sha, const char *path, struct strbuf *out)
{
	struct strbuf spec = STRBUF_INIT;
	const char *args[] = { "show", NULL, NULL };
	int r;

	strbuf_addf(&spec, "%s:%s", sha, path);
	args[1] = spec.buf;
	r = git(dir, out, args);
	strbuf_release(&spec);
	return r == 0 ? 0 : -1;
}

static char *subject_of(const char *dir, const char *sha)
{
	const char *args[] = { "log", "-1", "--format=%s", sha, NULL };
	struct strbuf out = STRBUF_INIT;

	git(dir, &out, args);
	chomp(&out);
	return strbuf_detach(&out);
}

int revs_fill(struct bisect *b, const char *good_sha, const char *bad_sha, struct strbuf *err)
{
	struct strbuf range = STRBUF_INIT, out = STRBUF_INIT;
	const char *args[] = { "rev-list", "--reverse", "--topo-order", "--ancestry-path",
			       "--format=%s", NULL, NULL };
	size_t alloc = 16;
	int ret = -1;

	strbuf_addf(&range, "%s..%s", good_sha, bad_sha);
	args[5] = range.buf;
	if (git(b->ksrc, &out, args) != 0) {
		strbuf_addf(err, "git rev-list %s failed in '%s'", range.buf, b->ksrc);
		goto out;
	}
	b->commits = xcalloc(alloc, sizeof(*b->commits));
	memcpy(b->commits[0].sha, good_sha, 41);
	b->commits[0].subject = subject_of(b->ksrc, good_sha);
	b->commits[0].decision = SEQ_GOOD;
	b->nr_commits = 1;
	/* "commit <sha>\n<subject>\n" per commit */
	for (char *l = out.buf; l && *l; ) {
		char *nl = strchr(l, '\n'), *subj, *end;

		if (strncmp(l, "commit ", 7) || !nl || nl - l != 47) {
			strbuf_addf(err, "git rev-list printed '%.60s'", l);
			goto out;
		}
		if (b->nr_commits == BISECT_MAX_COMMITS) {
			strbuf_addf(err, "more than %d commits between good and bad", BISECT_MAX_COMMITS);
			goto out;
		}
		if (b->nr_commits == alloc) {
			alloc *= 2;
			b->commits = xrealloc(b->commits, alloc * sizeof(*b->commits));
		}
		memset(&b->commits[b->nr_commits], 0, sizeof(*b->commits));
		memcpy(b->commits[b->nr_commits].sha, l + 7, 40);
		subj = nl + 1;
		end = strchr(subj, '\n');
		b->commits[b->nr_commits].subject = end ? xasprintf("%.*s", (int)(end - subj), subj) : xstrdup(subj);
		b->nr_commits++;
		l = end ? end + 1 : NULL;
	}
	if (b->nr_commits < 2 || strcmp(b->commits[b->nr_commits - 1].sha, bad_sha)) {
		strbuf_addf(err, "no commits lead from good %.12s to bad %.12s", good_sha, bad_sha);
		goto out;
	}
	b->commits[b->nr_commits - 1].decision = SEQ_BAD;
	ret = 0;
out:
	strbuf_release(&range);
	strbuf_release(&out);
	return ret;
}
