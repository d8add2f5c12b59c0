/* labrun.h - what `lab boot` and `lab run` share: validate every input,
 * create the run directory, boot through a backend, verify the topology. */
#ifndef LAB_LABRUN_H
#define LAB_LABRUN_H

#include "common/schedfeat.h"
#include "common/schedknob.h"
#include "kernel/image.h"
#include "kernel/kernel.h"
#include "run/session.h"
#include "run/warm.h"
#include "topo/topo.h"
#include "lib/util.h"

struct json_object;

/* --clock virtual: guest time is 2^shift ns per instruction executed
 * (QEMU -icount); 2 makes a 250 MHz guest, near what TCG runs here. */
#define LAB_ICOUNT_SHIFT 2
/* Host ms between the kicks an SMP guest needs under icount (session.h);
 * $LAB_ICOUNT_KICK_MS (1-1000) overrides it. */
#define LAB_ICOUNT_KICK_MS 20
/* A restored guest whose plan is in fw_cfg and that sends nothing for
 * this many host ms gets the plan on the record port too (session.h);
 * $LAB_PLAN_NUDGE_MS (0-600000, 0: never) overrides it. */
#define LAB_PLAN_NUDGE_MS 10000
/* A restore that was silent this long before its nudge stalls every time
 * (the stall comes with the saved guest): its snapshot is deleted after
 * the run.  Healthy restores report within about 0.3 s. */
#define LAB_PLAN_STALL_MS 1000
/* The kicks are timed by the host, so they stop once the runner's first
 * record arrives (the APs are up by then): the rest of the run depends on
 * instructions alone.  A plan with faults keeps them (a CPU it brings back
 * online starves like an AP at boot).  $LAB_ICOUNT_KICK=always keeps them
 * for every plan, =boot is the default. */
#define LAB_ICOUNT_KICK "boot"
/* The QEMU of --clock virtual on x86-64 (Debian's bookworm-backports),
 * fetched into <cache>/qemu/: from 8.1 on, QEMU's round robin gives each
 * vCPU its share of the instructions to the next timer, so SMP guests
 * boot without kicks (LAB_ICOUNT_KICK then defaults to never and a run
 * depends on instructions alone) and busy vCPUs take their ticks evenly.
 * $LAB_VIRTUAL_QEMU=VERSION picks another, =host the host's 7.2;
 * $LAB_QEMU overrides both. */
#define LAB_VIRTUAL_QEMU_VERSION "1:10.0.2+ds-2+deb13u1~bpo12+1"
/* Virtual time passes slower than the host's when several vCPUs are busy
 * (they share one instruction count): deadlines in host time stretch. */
#define LAB_VIRTUAL_TIMEOUT_FACTOR 3

/* 1 for "virtual", 0 for NULL, "" or "wall", -1 for anything else. */
int lab_clock_parse(const char *clock);

/* Boots a run gets under multi-threaded TCG when one hangs before
 * userspace, or dies there of an int3 (lab_run_start(): QEMU 7.2 runs
 * stale live-patched code). */
#define LAB_TCG_BOOT_ATTEMPTS 3

/* Seconds more a boot may take with the image's own initramfs. */
#define LAB_IMAGE_KERNEL_EXTRA_S 60

struct lab_run {
	/* options, set by the command before lab_run_resolve() */
	const char *command;      /* "boot", "run": recorded in run.json */
	const char *spec;
	const char *arch;         /* --arch: x86_64 (NULL), arm64, ppc64le */
	const char *kernel_spec;  /* kernel_resolve()'s spec, or "image": the image's own */
	const char *accel;
	const char *tcg_threads;  /* "auto" (NULL), "single" or "multi" */
	const char *clock;        /* "wall" (NULL) or "virtual": QEMU icount */
	const char *backend;      /* "qemu" (default) or "libvirt" */
	const char *uri;          /* libvirt URI, NULL: $LIBVIRT_URI or qemu:///system */
	const char *expect;       /* verify against this spec instead */
	const char *append;       /* extra kernel command line */
	const char *results_root;
	const char *mode;         /* lab.mode= for the guest's /init */
	const char *initrd_extra; /* a cpio appended to the base initrd, or NULL */
	unsigned timeout_s;       /* 0: from the topology */
	const struct plan *plan;  /* for host-side faults, or NULL */
	int nmi_is_a_fault;       /* an NMI is a scenario's fault: it must not panic */
	int smt_off;              /* boot with `nosmt`: sibling threads offline */
	const char *sched_feat;   /* --sched-feat "NO_A,B": run/schedfeat.h, or NULL */
	const char *sched_knob;   /* --sched-knob "base_slice_ns=N": run/schedknob.h, or NULL */
	const char *preempt;      /* --preempt MODE: run/schedknob.h, or NULL */
	const char *label;        /* run.json "label" (lab ab, lab matrix), or NULL */
	const char *scx_path;     /* --scx PATH: the user's own static scheduler, or NULL */
	const char *image_path;   /* --image: boot this disk image (through an overlay) */
	const char *plan_text;    /* the compiled plan, for the image's /schedlab/plan */
	size_t plan_len;
	const char *resume_dir;   /* continue this run directory (lab run --resume) ... */
	const char *resume_part;  /* ... in this new part of it, already created */
	const struct session_watch *watch; /* progress, or NULL */
	const volatile sig_atomic_t *stop; /* set by a signal handler: the run ends STOPPED */
	int quiet;                /* nothing on stderr but errors */
	int records_console;      /* LAB_RECORDS=console (a lab self-test of the
				   * LAVA transport): records as SLRT lines on
				   * the console, records.bin rebuilt from them */
	int warm;                 /* --warm: restore a saved guest, or boot,
				   * park and save one (run/warm.h) */
	const char *pin_opt;      /* --pin: "" (yes), "strict" or "no"; NULL:
				   * the plan's pin key decides */

	/* resolved */
	const struct backend_ops *ops;
	struct topo topo, expect_topo;
	enum lab_accel accel_kind;
	char accel_note[512];     /* auto fell back to TCG: why, one line; "" else */
	int tcg_single;           /* resolved: TCG runs every vCPU on one thread */
	const char *tcg_why;      /* why (static text), for the setup line */
	int clock_virtual;        /* resolved --clock virtual */
	int kick_ms;              /* with clock_virtual and SMP, else 0 */
	int kick_always;          /* with kick_ms: through the run, not until ready */
	int plan_nudge_ms;        /* --warm: session.h's plan_nudge_ms */
	unsigned icount_shift;    /* with clock_virtual */
	unsigned seed;            /* --seed: QEMU's -seed under icount; 0: LAB_ICOUNT_SEED */
	struct kernel_paths kp;
	char *initrd;             /* base initrd (+ extra), owned */
	int initrd_is_temp;       /* initrd is ours to delete */
	struct strbuf desc, dir, cmdline, diff;
	struct session s;
	struct json_object *expected, *guest;
	/* the kernel generation the expected view is for (NULL: the oldest) */
	const struct kernel_gen *gen;
	int ndiff;                /* -1: not verified */
	enum verdict verdict;
	char reason[512];
	int attempts;             /* boots it took (a stuck TCG boot is retried) */
	struct image image;       /* with image_path */
	char image_kernel_version[KERNEL_VERSION_MAX]; /* --kernel image: its banner */
	int image_agree;          /* -1 unreadable, 0 agree, 1 disagree */
	struct sched_feat_list feat; /* sched_feat parsed; nr 0 without */
	char scx_key[24];         /* the sched_ext build the initrd carries, "" none */
	struct sched_knob_set knobs; /* sched_knob parsed; nr 0 without */
	int preempt_mode;         /* preempt parsed (enum sched_preempt); -1 without */
	uint64_t t_init_ns;       /* lab_run_init(): the command's start */
	struct warm warm_state;   /* with warm */
	struct strbuf warm_set;   /* with warm: the plan header's sched_feat= and
				   * sched_knob= lines, set after the restore */
	const char *start;        /* "warm" (restored) or "cold" (booted) */
	int pin_want;             /* --pin or the plan's: 0, PLAN_PIN_YES, PLAN_PIN_STRICT */
	struct vcpu_pin pin;      /* with pin_want and a map that fits */
	char pin_note[320];       /* pin_want, but the guest does not fit: why */
};

void lab_run_init(struct lab_run *r);
/* run.json's "pin" object, for a run with pin_want. */
struct json_object *lab_run_pin_json(const struct lab_run *r);
void lab_run_release(struct lab_run *r);

/* Checks spec, accelerator, limits, kernel and builds the initrd, all
 * before anything is written; -1 with one line in err (exit 2 material). */
int lab_run_resolve(struct lab_run *r, struct strbuf *err);

/*
 * The scheduler's settings of a boot, for lab_run_resolve() and for a
 * LAVA job (lab lava export), which boots with the same command line:
 * lab_run_sched_request() checks the syntax of sched_feat, sched_knob,
 * preempt and append; lab_run_sched_cmdline(), once kp is resolved,
 * checks them against that kernel and appends nosmt (smt_off),
 * lab.sched_feat=, lab.sched_knob= and preempt= to r->cmdline.  -1 with
 * one line in err.
 */
int lab_run_sched_request(struct lab_run *r, struct strbuf *err);
int lab_run_sched_cmdline(struct lab_run *r, struct strbuf *err);

/* Prints the resolved setup, creates results/<run>/, writes run.json
 * (plus `extra` members, consumed) and runs the guest to a verdict.
 * -1 only when the run directory cannot be created. */
int lab_run_start(struct lab_run *r, struct json_object *extra);

/* Builds guest-topology.json from the snapshot, compares it with the
 * expected view, prints the "topology:" line (and the diff), and folds
 * the outcome into r->verdict. */
void lab_run_verify(struct lab_run *r);

/* After a boot under TCG, before userspace: why it looks like QEMU 7.2's
 * stale live-patched code (a HANG, or a CRASH whose first die() was an
 * int3, under multi-threaded TCG) and is worth booting again, as a phrase
 * for "guest ..."; NULL when it does not. */
const char *lab_tcg_boot_stuck(const struct lab_run *r);

/* Writes verdict.json (with `extra` members, consumed). */
void lab_run_report(struct lab_run *r, struct json_object *extra);

#endif
