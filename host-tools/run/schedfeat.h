/* schedfeat.h - lab run --sched-feat on the host: the request checked before
 * boot, the list each kernel reported cached, the guest's report checked after. */
#ifndef LAB_RUN_SCHEDFEAT_H
#define LAB_RUN_SCHEDFEAT_H

#include "common/schedfeat.h"
#include "kernel/kernel.h"
#include "lib/util.h"

struct json_object;
struct lab_run;

/*
 * A user's list, "NO_WA_IDLE,NO_SIS_UTIL" (NAME turns a feature on,
 * NO_NAME off), checked for syntax only.  0, or -1 with one line in err
 * that starts with opt (the option it came from).
 */
int sched_feat_request(const char *opt, const char *arg, struct sched_feat_list *want,
		       struct strbuf *err);

/*
 * The features a kernel reported at an earlier boot, cached per kernel
 * image (its path, size and mtime) under <cache>/sched-features/.
 * sched_feat_cache_load(): 1 with the names in *known, 0 when none is
 * cached.  sched_feat_cache_store() keeps the base names of state;
 * failing to cache is not an error of the run.
 */
int sched_feat_cache_load(const struct kernel_paths *kp, struct sched_feat_list *known);
void sched_feat_cache_store(const struct kernel_paths *kp, const struct sched_feat_list *state);

/* Every feature of want is one of known's (by base name); else -1 and
 * "unknown scheduler feature 'X' in kernel R (it has: ...)" in err. */
int sched_feat_check_known(const struct sched_feat_list *want, const struct sched_feat_list *known,
			   const char *release, struct strbuf *err);

/* Every token of want is in effect in state (the features file as the
 * guest read it after the writes); else -1 with one line in err. */
int sched_feat_check_state(const struct sched_feat_list *want, const struct sched_feat_list *state,
			   struct strbuf *err);

/*
 * The features line of a topology snapshot ("path=value" lines, as the
 * runner sends them; of several, the last): 1 with it parsed into *state, 0 when the snapshot
 * has none (no SCHED_DEBUG, no debugfs), -1 with err when malformed.
 */
int sched_feat_from_snapshot(const char *text, size_t len, struct sched_feat_list *state,
			     struct strbuf *err);

/* ["NO_WA_IDLE", ...], for run.json and ab.json; a new reference. */
struct json_object *sched_feat_json(const struct sched_feat_list *l);

/*
 * For lab_run_resolve(), once the kernel is resolved: the names checked
 * against the cached list of that kernel, and lab.sched_feat= on the
 * command line.  -1 with one line in err (exit 2, nothing written).
 */
int lab_run_sched_feat_resolve(struct lab_run *r, struct strbuf *err);

/*
 * The guest's features from its snapshot (sysfs, untrusted) into *state
 * and dir/sched-features.json (with want as "requested"), and want held
 * against them.  -1 with one line in err when the kernel (release) lacks
 * the features file or a feature of want; else 1 when the snapshot had
 * the features, 0 when not.  why gets a feature not in effect, or a
 * malformed snapshot line.  lab run and lab lava import.
 */
int sched_feat_report(const char *dir, const struct sched_feat_list *want, const char *sysfs,
		      size_t len, const char *release, struct sched_feat_list *state,
		      struct strbuf *why, struct strbuf *err);

/*
 * After the session: caches the kernel's list from the snapshot and
 * writes sched-features.json.  A requested feature the kernel does not
 * have (or a kernel without the features file) gives -1 with one line in
 * err, and the run directory is removed: bad input, exit 2.  A feature
 * not in effect after the write makes the verdict FAIL.
 */
int lab_run_sched_feat_check(struct lab_run *r, struct strbuf *err);

/* Removes a run (or lab ab) directory that bad input made worthless. */
void lab_run_discard(const char *dir);

#endif
