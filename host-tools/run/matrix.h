/* matrix.h - batches of `lab run` children for lab ab and lab matrix: job
 * expansion, the resumable state file, and one child run with a deadline. */
#ifndef LAB_MATRIX_H
#define LAB_MATRIX_H

#include "lib/child.h"
#include "lib/util.h"

#include <stdint.h>

struct json_object;

/* ---- lab ab: the boot order ---- */

/*
 * The order of boots for `rounds` rounds over nr_sides sides (0 = base,
 * 1 = test, 2 = a variant): each round goes forward and back, A B B A
 * (A B C C B A with a variant), so a slow drift of the host weighs on
 * every side alike.  Writes rounds * 2 * nr_sides side numbers into out
 * (at most max) and returns how many it wrote.
 */
size_t ab_order(unsigned nr_sides, unsigned rounds, unsigned *out, size_t max);

/* ---- lab matrix: jobs and their state ---- */

#define MX_MAX_JOBS 4096
#define MX_MAX_ITEMS 64		/* per list */
#define MX_MAX_STR 512

enum mx_state {
	MX_PENDING,
	MX_RUNNING,	/* in the state file: the matrix was killed while it ran */
	MX_DONE,
};
const char *mx_state_name(enum mx_state s);

/* One kernel (plain or with one variant) x topology x suite; every string
 * is owned. */
struct mx_job {
	char *id;		/* "002-lab-base-1s2c-ab-tiny": also its directory under jobs/ */
	char *kernel;		/* kernel spec for lab run */
	char *variant;		/* --variant "KEY=VALUE" (run/variant.h), "" for none */
	char *label;		/* run label, "" for the kernel release */
	char *topo;
	char *suite;
	enum mx_state state;
	char *verdict;		/* PASS FAIL CRASH HANG ERROR once done, else "" */
	char *run;		/* its run directory once known, else "" */
	double seconds;		/* wall time of the finished attempt */
	unsigned attempts;	/* started attempts, the killed ones included */
	char *uri;		/* libvirt URI of its last attempt, "" when none was named */
};

struct matrix {
	struct strvec kernels, topos, suites;	/* as given: "debian", "tip=KEY" */
	/* --variant: each kernel also booted so ("base_slice_ns=3000000");
	 * may be empty, and is in a state file from before variants */
	struct strvec variants;
	struct mx_job *jobs;
	size_t nr_jobs;
	struct strvec uris;	/* libvirt URIs the jobs are spread over (may be empty) */
	/* how every job boots, kept so a resumed matrix boots the same way;
	 * a state file from before they were kept has clock "" and warm -1 */
	char clock[8];		/* "wall" or "virtual" */
	int warm;		/* lab run --warm: 1, --cold: 0 */
	int trace;		/* lab run --trace: 1; 0 without (absent in older states) */
	char lava[MX_MAX_STR];	/* --lava: every job a LAVA job on this server; "" none */
	char lava_device_type[64];	/* --device-type with --lava; "" is qemu */
	/* --lava-artifacts and --lava-publish: the jobs' files over http; "" file:// */
	char lava_artifacts[MX_MAX_STR], lava_publish[MX_MAX_STR];
};
#define MATRIX_INIT { STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, NULL, 0, STRVEC_INIT, "", -1, 0, "", "", "", "" }
void matrix_release(struct matrix *m);

/*
 * Splits a comma list into out.  For topologies (is_topo) an item that is
 * an option ("llc=4") belongs to the spec before it: "2s8c,llc=4,1s2c" is
 * two specs.  Empty lists, empty items, duplicates and more than
 * MX_MAX_ITEMS items are errors: -1 with one line in err.
 */
int mx_split_list(const char *what, const char *list, int is_topo, struct strvec *out,
		  struct strbuf *err);

/* A kernel item "label=spec" or "spec": its two parts (label may be ""). */
void mx_kernel_item(const char *item, struct strbuf *label, struct strbuf *spec);

/* kernels x topologies x suites, kernels innermost (the runs one would
 * compare finish together), each kernel plain and then with each variant;
 * every job pending.  The variants must parse (variant_parse()). */
void matrix_expand(struct matrix *m);

/* Jobs per topology and suite: kernels x (1 + variants). */
size_t matrix_columns(const struct matrix *m);

/* The state file (matrix.json); the caller owns the object. */
struct json_object *matrix_state_json(const struct matrix *m);
/* Bounded parser for an untrusted state file (fuzzed): fills an empty m,
 * or -1 with one line in err (m must still be released). */
int matrix_state_parse(const char *text, size_t len, struct matrix *m, struct strbuf *err);
/* Writes DIR/matrix.json atomically. */
int matrix_state_save(const struct matrix *m, const char *dir);

/* ---- one `lab run` child ---- */

struct lab_child_run {
	/* set by the caller */
	const char *kernel, *label, *topo, *suite;
	const char *scenario;		/* --scenario FILE instead of the suite, or NULL */
	const char *backend, *uri;	/* NULL: lab run's default ($BACKEND, $LIBVIRT_URI) */
	int warm;			/* lab run --warm */
	int trace;			/* lab run --trace */
	unsigned seed;			/* lab run --seed (virtual clock), 0: none */
	const struct strvec *params;	/* lab run --param, each; NULL: none */
	/* a LAVA server: the boot is `lab lava run` there (docs/lava.md), its
	 * job exported under results_root/lava/ with file:// artifacts */
	const char *lava_server, *lava_token_file;
	const char *lava_device_type;	/* lab lava run --device-type; NULL: its default */
	/* lab lava run --artifacts URL --publish DIR; NULL: file:// URLs of
	 * the export under results_root */
	const char *lava_artifacts, *lava_publish;
	const char *variant;		/* "KEY=VALUE" (run/variant.h) to boot with, or NULL */
	const char *results_root;	/* created; lab run makes its run directory in it */
	const char *log_path;		/* the child's stdout and stderr */
	unsigned deadline_s;		/* from lab_run_deadline_s() */
	/* set by lab_child_start() */
	struct child_process cp;
	uint64_t t_start_ns;
};

/*
 * Seconds a `lab run` of suite (a name, or a scenario file ending in .ini)
 * on topo may take before we kill it: its own
 * timeout (boot plus the cases' deadlines, after which it reports a HANG
 * itself) plus a margin for the initrd and QEMU's exit.  Validates the
 * topology and the suite on the way: -1 with one line in err.
 */
int lab_run_deadline_s(const char *topo, const char *suite, unsigned *deadline_s,
		       struct strbuf *err);

/* Starts `<this lab binary> run ...` in its own process group, dying with
 * us.  -1 with one line in err when it cannot start. */
int lab_child_start(struct lab_child_run *j, struct strbuf *err);
/* Non-blocking: 1 and *status (exit code, 128+signal, or CHILD_TIMED_OUT
 * after killing it at its deadline) when the child is over, else 0. */
int lab_child_poll(struct lab_child_run *j, int *status);
/* Blocking, with the deadline. */
int lab_child_wait(struct lab_child_run *j);

/* The last "lab: error: " line of a child's log, without the prefix, into
 * line (left as it is when there is none): why a lab run that exited 2
 * refused its input. */
void lab_child_error(const char *log_path, struct strbuf *line);

/*
 * The run directory lab run made under root (the one subdirectory with a
 * run.json) into dir, and its verdict from verdict.json into verdict
 * ("" when it has none: the run was cut short).  -1 when there is none.
 */
int lab_child_find_run(const char *root, struct strbuf *dir, char *verdict, size_t size);

#endif
