/* schedknob.h - lab run --sched-knob and --preempt on the host: the request
 * checked against the kernel before boot, the guest's report checked after. */
#ifndef LAB_RUN_SCHEDKNOB_H
#define LAB_RUN_SCHEDKNOB_H

#include "common/schedknob.h"
#include "kernel/kernel.h"
#include "lib/util.h"

struct json_object;
struct lab_run;

/* "base_slice_ns=3000000[,...]" checked (common/schedknob.h): 0, or -1
 * with one line in err that starts with opt. */
int sched_knob_request(const char *opt, const char *arg, struct sched_knob_set *want,
		       struct strbuf *err);

/* Every knob of want is in a kernel of release (its table entry's
 * `since`); -1 with one line in err when not.  A release that does not
 * parse passes: the boot tells. */
int sched_knob_check_release(const struct sched_knob_set *want, const char *release,
			     struct strbuf *err);

/* "none", "voluntary", "full" or "lazy" into *mode: 0, or -1 with one
 * line in err that starts with opt. */
int sched_preempt_request(const char *opt, const char *arg, int *mode, struct strbuf *err);

/*
 * Whether a kernel with this .config text offers preempt=mode: it needs
 * CONFIG_PREEMPT_DYNAMIC, lazy needs CONFIG_PREEMPT_LAZY, and none and
 * voluntary need their Kconfig choice to exist (kernels that have lazy
 * preemption may offer only full and lazy: their .config does not mention
 * CONFIG_PREEMPT_NONE).  0, or -1 with one line in err naming release.
 */
int sched_preempt_check_config(int mode, const char *dotconfig, const char *release,
			       struct strbuf *err);
/* The same with kp's config file; a kernel without one passes (the boot
 * tells).  For lab ab and lab matrix too. */
int sched_preempt_check_kernel(int mode, const struct kernel_paths *kp, struct strbuf *err);

/* What the guest's snapshot says about the knobs and the preemption mode. */
#define SCHED_KNOB_TABLE_MAX 16
struct sched_knob_state {
	unsigned have;				/* bit i: sched_knobs[i]'s file is there */
	uint64_t value[SCHED_KNOB_TABLE_MAX];	/* its value */
	int preempt_found;			/* the preempt file is there */
	unsigned preempt_offered;		/* bit per enum sched_preempt */
	int preempt_active;			/* -1 without the file */
};

/* From the "path=value" lines of a topology snapshot (untrusted; of
 * several lines of a path, the last): 0, or -1 with one line in err when
 * a line of ours is malformed. */
int sched_knob_from_snapshot(const char *text, size_t len, struct sched_knob_state *st,
			     struct strbuf *err);

/* {"base_slice_ns": 3000000}, for run.json and ab.json; a new reference. */
struct json_object *sched_knob_json(const struct sched_knob_set *s);

/*
 * For lab_run_resolve(), once the kernel is resolved: the knobs against
 * its release and the mode against its config, then lab.sched_knob= and
 * preempt= on the command line.  -1 with one line in err (exit 2,
 * nothing written).
 */
int lab_run_sched_knob_resolve(struct lab_run *r, struct strbuf *err);

/*
 * The guest's knobs and preemption mode from its snapshot (sysfs,
 * untrusted) into dir/sched-knobs.json (when it has any), and knobs and
 * preempt_mode (-1: none asked) held against them.  -1 with one line in
 * err when the kernel (release) lacks one; else 0, with why saying what
 * is not in effect (or a malformed snapshot line).  lab run and lab lava
 * import.
 */
int sched_knob_report(const char *dir, const struct sched_knob_set *knobs, int preempt_mode,
		      const char *sysfs, size_t len, const char *release, struct strbuf *why,
		      struct strbuf *err);

/*
 * After the session: writes sched-knobs.json from the snapshot.  A knob
 * or a mode the kernel does not have gives -1 with one line in err and
 * the run directory is removed: bad input, exit 2.  One not in effect
 * makes the verdict FAIL.
 */
int lab_run_sched_knob_check(struct lab_run *r, struct strbuf *err);

#endif
