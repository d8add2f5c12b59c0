/* revs.h - what lab bisect asks git about the user's tree, checked before
 * any build: the revisions, their order, the commits between them. */
#ifndef LAB_BISECT_REVS_H
#define LAB_BISECT_REVS_H

#include "bisect/bisect.h"

/* 0 when dir is the top of a git work tree (or a bare repository), else
 * -1 and "'DIR' is not a git tree" in err. */
int revs_check_tree(const char *dir, struct strbuf *err);
/* The commit rev names, 40 hex digits into sha; -1 and "unknown revision
 * 'REV' in 'DIR'" in err. */
int revs_resolve(const char *dir, const char *rev, char sha[41], struct strbuf *err);
/* 1 when a is an ancestor of b, 0 when not, -1 with err when git failed. */
int revs_is_ancestor(const char *dir, const char *a, const char *b, struct strbuf *err);
/* The contents of a file in a commit ("SHA:path"), or -1 when it has none. */
int revs_show(const char *dir, const char *sha, const char *path, struct strbuf *out);
/*
 * b->commits: good, then the commits on the ancestry path good..bad in
 * topological order (bad last), with their subjects.  -1 with one line in
 * err when git fails or the range is larger than BISECT_MAX_COMMITS.
 */
int revs_fill(struct bisect *b, const char *good_sha, const char *bad_sha, struct strbuf *err);

#endif
