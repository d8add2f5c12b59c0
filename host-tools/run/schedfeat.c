/* schedfeat.c - lab run --sched-feat on the host: syntax before boot, names
 * against the list the same kernel reported at an earlier boot, the guest's
 * report after the boot (cached, recorded, and checked before any result counts). */
#define _GNU_SOURCE
#include "run/schedfeat.h"
#include "run/labrun.h"
#include "results/results.h"

#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sched_feat_request(const char *opt, const char *arg, struct sched_feat_list *want,
		       struct strbuf *err)
{
	char why[256];

	if (sched_feat_list_parse(arg, strlen(arg), ',', SCHED_FEAT_WANT_MAX, want, why, sizeof(why)) < 0) {
		strbuf_addf(err, "%s: %s", opt, why);
		return -1;
	}
	return 0;
}

/* <cache>/sched-features/<release>-<hash of image path, size, mtime>;
 * NULL when the image cannot be looked at (nothing to key the list by). */
static char *cache_path(const struct kernel_paths *kp)
{
	const char *image = kp->vmlinux[0] ? kp->vmlinux : kp->bzimage;
	uint64_t h = FNV1A64_INIT, parts[3];
	char release[80];
	size_t n = 0;
	struct stat st;

	/* an image's own kernel is copied out afresh for every run */
	if (!*image || !strcmp(kp->source, "image") || stat(image, &st) < 0)
		return NULL;
	parts[0] = (uint64_t)st.st_size;
	parts[1] = (uint64_t)st.st_mtim.tv_sec;
	parts[2] = (uint64_t)st.st_mtim.tv_nsec;
	h = fnv1a64(fnv1a64(h, image, strlen(image)), parts, sizeof(parts));
	for (const char *p = kp->release; *p && n < sizeof(release) - 1; p++)
		release[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			       (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ? *p : '_';
	release[n] = '\0';
	return xasprintf("%s/sched-features/%s-%016llx", lab_cache_dir(), n ? release : "unknown",
			 (unsigned long long)h);
}

int sched_feat_cache_load(const struct kernel_paths *kp, struct sched_feat_list *known)
{
	char *path = cache_path(kp), *text;
	size_t len = 0;
	int ret = 0;

	if (!path)
		return 0;
	text = read_file(path, &len);
	/* a damaged cache entry is no list: the boot will tell */
	if (text && sched_feat_list_parse(text, len, ' ', SCHED_FEAT_MAX, known, NULL, 0) == 0 && known->nr)
		ret = 1;
	free(text);
	free(path);
	return ret;
}

void sched_feat_cache_store(const struct kernel_paths *kp, const struct sched_feat_list *state)
{
	char *path = cache_path(kp), *dir;
	struct strbuf text = STRBUF_INIT;

	if (!path || !state->nr) {
		free(path);
		return;
	}
	for (unsigned i = 0; i < state->nr; i++)
		strbuf_addf(&text, "%s%s", i ? " " : "", sched_feat_base(state->name[i]));
	strbuf_addch(&text, '\n');
	dir = xasprintf("%s/sched-features", lab_cache_dir());
	if (mkdir_p(dir, 0755) == 0)
		write_file_atomic(path, text.buf, text.len);
	free(dir);
	free(path);
	strbuf_release(&text);
}

static void add_names(struct strbuf *sb, const struct sched_feat_list *l)
{
	for (unsigned i = 0; i < l->nr; i++)
		strbuf_addf(sb, "%s%s", i ? " " : "", sched_feat_base(l->name[i]));
}

int sched_feat_check_known(const struct sched_feat_list *want, const struct sched_feat_list *known,
			   const char *release, struct strbuf *err)
{
	for (unsigned i = 0; i < want->nr; i++) {
		if (sched_feat_find(known, want->name[i]) >= 0)
			continue;
		strbuf_addf(err, "unknown scheduler feature '%s' in kernel %s (it has: ",
			    sched_feat_base(want->name[i]), release);
		add_names(err, known);
		strbuf_addch(err, ')');
		return -1;
	}
	return 0;
}

int sched_feat_check_state(const struct sched_feat_list *want, const struct sched_feat_list *state,
			   struct strbuf *err)
{
	for (unsigned i = 0; i < want->nr; i++) {
		int k = sched_feat_find(state, want->name[i]);

		if (k < 0) {
			strbuf_addf(err, "scheduler feature %s is missing from the guest's features file",
				    sched_feat_base(want->name[i]));
			return -1;
		}
		if (strcmp(state->name[k], want->name[i])) {
			strbuf_addf(err, "scheduler feature %s not in effect: the guest reads %s after the write",
				    want->name[i], state->name[k]);
			return -1;
		}
	}
	return 0;
}

int sched_feat_from_snapshot(const char *text, size_t len, struct sched_feat_list *state,
			     struct strbuf *err)
{
	static const char key[] = SCHED_FEAT_PATH "=";
	const size_t klen = sizeof(key) - 1;
	size_t pos = 0;
	const char *last = NULL;
	size_t last_n = 0;
	char why[256];

	/* the last report wins: a warm guest reports again after it set
	 * what the plan's header asked (guest/runner/park.c) */
	state->nr = 0;
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;

		pos += n + 1;
		if (n >= klen && !memcmp(line, key, klen))
			last = line + klen, last_n = n - klen;
	}
	if (!last)
		return 0;
	if (sched_feat_list_parse(last, last_n, ' ', SCHED_FEAT_MAX, state, why, sizeof(why)) < 0) {
		strbuf_addf(err, "the guest's %s: %s", SCHED_FEAT_PATH, why);
		return -1;
	}
	return 1;
}

struct json_object *sched_feat_json(const struct sched_feat_list *l)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < l->nr; i++)
		json_object_array_add(a, json_object_new_string(l->name[i]));
	return a;
}

int lab_run_sched_feat_resolve(struct lab_run *r, struct strbuf *err)
{
	struct sched_feat_list *known;
	char list[SCHED_FEAT_WANT_MAX * (SCHED_FEAT_NAME_MAX + 1) + 1];
	int ret = 0;

	if (r->append && strstr(r->append, SCHED_FEAT_CMDLINE_KEY)) {
		strbuf_addstr(err, "--append: ask for scheduler features with --sched-feat, "
			      "which checks and records them");
		return -1;
	}
	if (!r->feat.nr)
		return 0;
	known = xmalloc(sizeof(*known));
	if (sched_feat_cache_load(&r->kp, known) == 1)
		ret = sched_feat_check_known(&r->feat, known, r->kp.release, err);
	free(known);
	if (ret < 0)
		return -1;
	sched_feat_join(&r->feat, ',', list, sizeof(list));
	/* a warm guest sets them after the restore: the saved guest is the
	 * one without, shared by every variant (docs/warm-start.md) */
	if (r->warm)
		strbuf_addf(&r->warm_set, WIRE_PLAN_SCHED_FEAT "=%s\n", list);
	else
		strbuf_addf(&r->cmdline, " %s%s", SCHED_FEAT_CMDLINE_KEY, list);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path) < 0 && errno != ENOENT)
		warning("cannot remove '%s': %s", path, strerror(errno));
	return 0;
}

void lab_run_discard(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_report(const char *dir, const struct sched_feat_list *want,
			 const struct sched_feat_list *state)
{
	struct json_object *o = json_object_new_object(), *f = json_object_new_object();

	json_object_object_add(o, "requested", sched_feat_json(want));
	for (unsigned i = 0; i < state->nr; i++)
		json_object_object_add(f, sched_feat_base(state->name[i]),
				       json_object_new_boolean(sched_feat_is_on(state->name[i])));
	json_object_object_add(o, "features", f);
	results_write_json(dir, "sched-features.json", o);
	json_object_put(o);
}

int sched_feat_report(const char *dir, const struct sched_feat_list *want, const char *sysfs,
		      size_t len, const char *release, struct sched_feat_list *state,
		      struct strbuf *why, struct strbuf *err)
{
	int found = sched_feat_from_snapshot(sysfs, len, state, why);

	if (found > 0)
		write_report(dir, want, state);
	if (!want->nr)
		return found > 0;
	if (found == 0) {
		strbuf_addf(err, "kernel %s has no %s (it needs CONFIG_SCHED_DEBUG): --sched-feat "
			    "cannot apply", release, SCHED_FEAT_PATH);
		return -1;
	}
	if (found > 0 && sched_feat_check_known(want, state, release, err) < 0)
		return -1;
	if (found > 0)
		sched_feat_check_state(want, state, why);
	return found > 0;
}

int lab_run_sched_feat_check(struct lab_run *r, struct strbuf *err)
{
	struct sched_feat_list *state;
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	/* no snapshot: the guest never got that far, and the verdict says why */
	if (!r->s.sysfs.len)
		return 0;
	state = xcalloc(1, sizeof(*state));
	ret = sched_feat_report(r->dir.buf, &r->feat, r->s.sysfs.buf, r->s.sysfs.len, r->kp.release,
				state, &why, err);
	/* the kernel's list is cached even when it lacks a feature asked for:
	 * the next run with that name is refused before it boots */
	if (state->nr)
		sched_feat_cache_store(&r->kp, state);
	if (ret < 0)
		/* bad input found by the boot: no run to keep, nothing half-written */
		lab_run_discard(r->dir.buf);
	else if (r->feat.nr && why.len && r->verdict == VERDICT_PASS) {
		r->verdict = VERDICT_FAIL;
		snprintf(r->reason, sizeof(r->reason), "%.500s", why.buf);
	}
	free(state);
	strbuf_release(&why);
	return ret < 0 ? -1 : 0;
}
