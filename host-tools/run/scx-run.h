/* scx-run.h - what a run needs for sched_ext: the kernel checked for it,
 * the schedulers (and selftests) its plan names put in the initrd. */
#ifndef LAB_SCX_RUN_H
#define LAB_SCX_RUN_H

#include "lib/util.h"

struct lab_run;
struct plan;

/*
 * Nothing when no case of r->plan names a scheduler or runs the
 * scx_selftest workload.  Otherwise: the kernel must have
 * CONFIG_SCHED_CLASS_EXT; the registry's schedulers and the selftests
 * come from the build for the kernel's BTF (scx_for_kernel(): built once
 * for a Debian kernel), a --scx PATH from that file (checked to be a
 * static ELF); all go into a cpio appended to r->initrd_extra as
 * /scx/<name>.  Refused with --warm and --image (their initrd is not
 * this one).  -1 with one line in err.
 */
int lab_run_scx_resolve(struct lab_run *r, struct strbuf *err);

/*
 * --scx SPEC (lab run): every case of the plan text runs under SPEC: a
 * registry name ("simple", "scx_qmap -t 2": arguments after a space), a
 * path to a static scheduler of one's own (its basename is its name;
 * any ops), or "none" (every case on the kernel's own scheduler).  *path
 * gets the path, or NULL.  -1 with one line in err.
 */
int plan_text_set_scheduler(struct strbuf *plan_text, const char *spec, const char **path,
			    struct strbuf *err);

/* The schedulers a plan's cases name, "a,b" ("" none), for labels. */
void plan_schedulers(const struct plan *p, struct strbuf *out);

#endif
