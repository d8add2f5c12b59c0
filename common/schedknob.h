/* schedknob.h - the scheduler tunables a run sets for its boot besides the
 * features: debugfs knobs (base_slice_ns) and the preemption mode (preempt=),
 * with what each kernel generation has; host and runner share it. */
#ifndef LAB_SCHEDKNOB_H
#define LAB_SCHEDKNOB_H

#include <stddef.h>
#include <stdint.h>

/* The kernel-command-line key that carries a run's knobs to the runner. */
#define SCHED_KNOB_CMDLINE_KEY "lab.sched_knob="
#define SCHED_KNOB_DIR "/sys/kernel/debug/sched"
/* What one run may set. */
#define SCHED_KNOB_WANT_MAX 4
#define SCHED_KNOB_NAME_MAX 31

/*
 * A file under /sys/kernel/debug/sched/ holding one decimal number, the
 * facts of it by kernel generation in the one table (schedknob.c): adding
 * a knob is one entry there.
 */
struct sched_knob {
	const char *name;	/* "base_slice_ns": also its file's name */
	uint64_t min, max;	/* what the lab lets a run ask for */
	const char *since;	/* the first release that has it: "6.6" */
	const char *before;	/* what the releases before it have instead, for the refusal */
	const char *help;
};

extern const struct sched_knob sched_knobs[];
extern const size_t nr_sched_knobs;

/* The knob named s[0..len), or NULL. */
const struct sched_knob *sched_knob_find(const char *s, size_t len);

/* Knobs with the values a run asks for, in the order given. */
struct sched_knob_set {
	unsigned nr;
	struct {
		const struct sched_knob *knob;
		uint64_t value;
	} v[SCHED_KNOB_WANT_MAX];
};

/*
 * "base_slice_ns=3000000[,NAME=VALUE...]" (text[0..len)): every name a
 * knob of the table, every value a decimal within its range, none twice,
 * at most SCHED_KNOB_WANT_MAX.  0, or -1 with one line in err (errlen
 * bytes, may be NULL).
 */
int sched_knob_parse(const char *text, size_t len, struct sched_knob_set *s, char *err,
		     size_t errlen);

/* "NAME=VALUE" joined by sep into buf (size bytes, NUL-terminated, cut
 * when too small).  Returns the length it needed. */
size_t sched_knob_join(const struct sched_knob_set *s, char sep, char *buf, size_t size);

/* A decimal u64 in s[0..len) (surrounding blanks allowed, as a debugfs
 * file reads): 0, or -1. */
int sched_knob_number(const char *s, size_t len, uint64_t *v);

/* ---- the preemption mode of a PREEMPT_DYNAMIC kernel ---- */

#define SCHED_PREEMPT_PATH "/sys/kernel/debug/sched/preempt"

enum sched_preempt {
	SCHED_PREEMPT_NONE,
	SCHED_PREEMPT_VOLUNTARY,
	SCHED_PREEMPT_FULL,
	SCHED_PREEMPT_LAZY,
	SCHED_PREEMPT_NR,
};

/* "none", "voluntary", "full", "lazy"; "?" out of range. */
const char *sched_preempt_name(int mode);
/* The mode named s[0..len), or -1. */
int sched_preempt_find(const char *s, size_t len);
/* "none|voluntary|full|lazy", for help and errors. */
#define SCHED_PREEMPT_CHOICES "none|voluntary|full|lazy"

/*
 * /sys/kernel/debug/sched/preempt as the kernel prints it: the modes it
 * offers, the active one in parentheses ("none (voluntary) full").  0
 * with *offered (a bit per mode) and *active; -1 with one line in err
 * when the text is not that (an unknown word, no mode or two active).
 */
int sched_preempt_parse(const char *text, size_t len, unsigned *offered, int *active, char *err,
			size_t errlen);

#endif
