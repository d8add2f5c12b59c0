/* scxmsg.h - sched_ext's own words about a BPF scheduler leaving: the
 * kernel's "sched_ext: BPF scheduler \"NAME\" disabled (REASON)" line and
 * the detail line after it, read from /dev/kmsg records or console lines;
 * one definition for the runner and the host. */
#ifndef LAB_SCXMSG_H
#define LAB_SCXMSG_H

#include <stddef.h>

/*
 * What the kernel said (kernel/sched/ext.c, scx_log_sched_disable()):
 *   sched_ext: BPF scheduler "qmap" disabled (runnable task stall)
 *   sched_ext: qmap: kworker/u8:1[57] failed to run for 5.120s
 * The first is KERN_ERR for an error exit (a stall, scx_bpf_error(), a
 * verifier-visible fault), KERN_INFO for an orderly one (unregistered
 * from user space); the second only follows an error.
 */
struct scx_msg {
	char ops[48];       /* "qmap" */
	char reason[128];   /* "runnable task stall" */
	char detail[256];   /* "kworker/u8:1[57] failed to run for 5.120s", or "" */
	int have_disabled;  /* the first line was seen */
};

/*
 * Feeds one line of kernel text: a /dev/kmsg record ("6,123,456,-;text")
 * or a plain line (a console line may carry a "[   12.345678] " stamp).
 * Returns 1 when the line was one of the two above (m updated), else 0.
 * Lines need not be NUL-terminated; len bytes are read.
 */
int scx_msg_feed(struct scx_msg *m, const char *line, size_t len);

/* "BPF scheduler \"qmap\" disabled (runnable task stall): <detail>" into buf. */
void scx_msg_format(const struct scx_msg *m, char *buf, size_t size);

/* An orderly exit ("unregistered from user space" and the like) rather
 * than an ejection: 1 or 0. */
int scx_msg_orderly(const struct scx_msg *m);

#endif
