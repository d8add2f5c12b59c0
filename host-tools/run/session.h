/* session.h - one guest session: start a backend, stream its console and
 * records into results/<run>/, enforce the deadline, reach a verdict. */
#ifndef LAB_SESSION_H
#define LAB_SESSION_H

#include <signal.h>
#include <stdint.h>

#include "backend/backend.h"
#include "results/console.h"
#include "fault/hostfault.h"
#include "common/wire.h"
#include "common/wiretext.h"
#include "run/vcpupin.h"

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_CRASH,
	VERDICT_HANG,
	VERDICT_SKIP,
	VERDICT_STOPPED,	/* SIGINT/SIGTERM ended it; the finished cases stand */
};
const char *verdict_name(enum verdict v);
int verdict_exit_code(enum verdict v);

/* Told about the run as it goes (lab run's progress line); every member
 * may be NULL. */
struct session_watch {
	void (*record)(void *ctx, const struct wire_record *rec); /* each intact record */
	void (*tick)(void *ctx);        /* at least once a second */
	void (*interrupt)(void *ctx);   /* before the session prints a line */
	void *ctx;
};

/* Warm start (run/warm.h): the session's part of it. */
struct session_warm {
	int restore;              /* the guest was restored, not booted */
	const char *prefix;       /* restore: what the guest sent before it was
				   * saved, replayed into records.bin first */
	size_t prefix_len;
	const char *plan_frame;   /* WIRE_PLAN, sent once the runner is parked */
	size_t plan_frame_len;
	int plan_in_fwcfg;        /* restore: the frame is in the guest's fw_cfg
				   * (backend_conf.fwcfg_plan), not sent */
	/* a booted guest parked: save it (before the plan goes); a failed
	 * save is the callback's to report, the run goes on */
	void (*save)(void *ctx, struct backend *b);
	void *ctx;
};

struct session {
	/* in */
	const struct backend_ops *ops;
	const struct backend_conf *conf;
	int timeout_ms;          /* from start until the END record */
	int crash_grace_ms;      /* console kept after the first crash line */
	int end_grace_ms;        /* 0: stop at END; else wait this long for the
				  * guest to power off by itself (a disk image
				  * syncs its results after END) */
	int quiet;               /* no progress on stderr */
	const struct plan *plan; /* its host-side faults run from run_start events; may be NULL */
	const struct session_watch *watch; /* may be NULL */
	const volatile sig_atomic_t *stop; /* a signal handler sets it: the run ends STOPPED; may be NULL */
	int kick_ms;             /* >0: QMP stop+cont this often (virtual clock, SMP:
				  * QEMU 7.2's icount round robin starves every vCPU
				  * but the first without it; docs/tcg.md) */
	int kick_until_ready;    /* stop kicking at the runner's first record */
	const struct session_warm *warm;   /* may be NULL */
	int plan_nudge_ms;       /* a restore whose plan is in fw_cfg and whose
				  * guest says nothing for this long after it
				  * gets the plan on the record port too; 0 never */
	struct vcpu_pin *pin;    /* --pin: bound after the start, checked at the
				  * end (run/vcpupin.h); may be NULL */
	int records_console;     /* lab.records=console: the records arrive as
				  * SLRT lines on the console (common/wiretext.h);
				  * records.bin is rebuilt from them as they come */

	/* out; session_release() frees */
	enum verdict verdict;
	char reason[512];        /* one line: why the verdict is what it is */
	struct console_watch console;
	struct wire_decoder wire;
	struct wiretext_decoder text; /* records_console: the console's SLRT lines */
	int wire_complete;       /* END seen and nothing missing */
	int plan_fwcfg;          /* a restore's plan was in fw_cfg, not sent */
	struct strbuf hello;     /* WIRE_HELLO payload */
	struct strbuf sysfs;     /* WIRE_SYSFS payloads, concatenated */
	struct strbuf results;   /* WIRE_RESULT payloads, one per line */
	struct hostfault faults;
	uint64_t t_start_ns, t_init_ns, t_first_record_ns, t_end_record_ns, t_stop_ns;
	uint64_t t_crash_ns;     /* the first crash line arrived; 0 if none */
	uint64_t t_deadline_ns;  /* when a HANG was declared (the deadline); 0 if not */
	int stopped;             /* the signal that stopped the run, 0 if none */
	unsigned long kicks;     /* kick_vcpus() calls made */
	int parked;              /* 1: the runner waits for its plan, 2: sent */
	uint64_t t_started_ns;   /* the backend started (restored: loaded and running) */
	uint64_t t_plan_ns;      /* the plan went to a parked runner; 0 if not */
	uint64_t t_first_case_ns; /* the first case_start event arrived */
	uint64_t t_last_record_ns; /* the latest intact record arrived */
	uint64_t t_nudge_ns;     /* the plan went on the record port as well,
				  * the restored guest silent (plan_nudge_ms); 0 if not */
	int hypervisor_status;
	char hypervisor_version[64];
	/* the hypervisor stopped the guest by itself (backend.h): its run
	 * state and event, when, and its own words from its stderr */
	struct backend_state halt;
	uint64_t t_halt_ns;      /* 0: it did not */
	char halt_lines[256];
};

void session_init(struct session *s);
void session_release(struct session *s);

/* Runs the session to its end.  Returns 0 when a verdict was reached
 * (whatever it is) and -1 when the backend could not start (err says
 * why; nothing is left running). */
int session_run(struct session *s, struct strbuf *err);

#endif
