/* backend.h - one interface for everything that can run the lab's guest
 * side: direct QEMU, libvirt (and bare metal) implement the same ops. */
#ifndef LAB_BACKEND_H
#define LAB_BACKEND_H

#include "topo/topo.h"
#include "lib/util.h"

struct json_object;

/* With icount every boot gets the same random seed and RTC date, so two
 * boots of one kernel and plan see the same inputs (docs/tcg.md). */
#define LAB_ICOUNT_SEED "20261201"
#define LAB_ICOUNT_RTC_BASE "2026-01-01T00:00:00"

struct backend_conf {
	const struct topo *topo;
	enum lab_accel accel;
	int host_is_amd;
	int tcg_single;        /* TCG: one host thread runs every vCPU */
	int icount;            /* virtual clock: -icount shift=icount_shift,sleep=off */
	unsigned icount_shift; /* guest ns per instruction = 2^shift */
	unsigned seed;         /* with icount: -seed; 0: LAB_ICOUNT_SEED */
	const char *kernel;    /* image QEMU loads (vmlinux for PVH, or bzImage) */
	const char *initrd;
	const char *cmdline;
	const char *disk;      /* a qcow2 root disk (virtio-blk), or NULL */
	const char *run_dir;   /* results/<run>/; the backend may write qemu.log there */
	const char *name;      /* unique per run: QEMU -name, libvirt domain name */
	const char *uri;       /* libvirt connection URI; NULL: libvirt_uri(NULL) */
	int restore;           /* warm start: load the guest from incoming_fd (a
	                        * stream save() wrote) instead of booting it */
	int incoming_fd;
	const char *restore_path; /* libvirt: the save image to restore (a file
	                           * or a FIFO libvirtd reads), with restore */
	const char *restore_xml;  /* libvirt: the domain XML saved with it */
	const char *fwcfg_plan;   /* qemu restore: a file with the plan frame, the
	                           * guest's fw_cfg WIRE_FWCFG_PLAN; NULL: the
	                           * session sends the frame on the record port */
};

/*
 * A started backend hands the session two byte streams: the guest's
 * console and the framed record channel.  Either becomes -1 once it is
 * closed.  stop() must end and reap everything the backend started,
 * within timeout_ms, whatever state the guest is in.
 */
struct backend {
	const struct backend_ops *ops;
	int console_fd;
	int record_fd;
	char version[64];      /* hypervisor version, e.g. "QEMU 7.2.22" */
	int remote;            /* the hypervisor runs on another host: its
	                        * processes and cgroups are not ours */
	void *priv;
};

/*
 * What the hypervisor says about the guest's run state.  QEMU stops a
 * guest by itself for a KVM internal error, a guest panic reported
 * through pvpanic, a disk error with werror=stop, a watchdog; the lab's
 * own stops (host faults, kicks, saves) are not such a halt.
 */
struct backend_state {
	char state[32];     /* QEMU's run state ("internal-error"); "" unknown */
	char cause[160];    /* the event that said why ("GUEST_PANICKED (action pause)"), or "" */
	int halted;         /* the hypervisor stopped the guest: it will not go on */
};

/* 1 for a run state (query-status's "status") that means the guest will
 * not go on by itself: internal-error, guest-panicked, io-error,
 * shutdown, watchdog, and paused or debug unless the lab paused it. */
int backend_state_halted(const char *status, int paused_by_lab);

/*
 * The first lines of QEMU's stderr (its qemu.log) that say what went
 * wrong, "; "-joined into out: errors and failures such as "KVM internal
 * error. Suberror: 1" and "emulation failure", never warnings or the
 * register dump that follows them.  At most max lines.
 */
void backend_error_lines(const char *log, size_t len, unsigned max, struct strbuf *out);
/*
 * The host thread of each vCPU, from QMP query-cpus-fast: tids[i] gets the
 * thread of cpu-index i for i < n (0 when QEMU names none).  -1 with one
 * line in err when the backend has no monitor or it does not answer.
 */
int backend_vcpu_threads(struct backend *b, long *tids, unsigned n, struct strbuf *err);

/* The same, read from <run_dir>/qemu.log; out stays empty without one. */
void backend_log_error_lines(const char *run_dir, unsigned max, struct strbuf *out);

struct backend_ops {
	const char *name;
	int (*start)(struct backend *b, const struct backend_conf *conf, struct strbuf *err);
	/* Ask the guest kernel for backtraces (NMI to every vCPU). */
	int (*nmi)(struct backend *b, struct strbuf *err);
	/* Hypervisor-side state of every vCPU (registers), for a HANG's
	 * post-mortem when the guest cannot answer; appended to out. */
	int (*dump_vcpus)(struct backend *b, struct strbuf *out, struct strbuf *err);
	/* A QMP command for host-side faults (stop, cont, query-cpus-fast);
	 * NULL where the backend has no monitor (bare metal).  *reply, when
	 * asked for, gets the "return" member (caller puts it). */
	int (*qmp)(struct backend *b, const char *cmd, struct json_object *args,
		   struct json_object **reply, struct strbuf *err);
	/* An fd to poll that turns readable when the hypervisor may have
	 * news about the run state (QMP events), or -1; NULL: none. */
	int (*watch_fd)(struct backend *b);
	/* Reads the run state without waiting long: cheap when nothing
	 * happened.  0 with *st filled (halted set only for a halt the lab
	 * did not cause), or -1 when the hypervisor cannot be asked (gone);
	 * st->cause may still say what its last words were.  NULL: unknown. */
	int (*run_state)(struct backend *b, struct backend_state *st, struct strbuf *err);
	/* Plugs (online) or asks the guest to unplug vCPU number vcpu (its
	 * rank among all slots) through the hypervisor's own API, so that its
	 * idea of the domain stays right.  NULL: QMP device_add/device_del.
	 * An unplug may return before the guest has ejected the vCPU. */
	int (*vcpu_set)(struct backend *b, unsigned vcpu, int online, struct strbuf *err);
	/* Warm start: writes the whole guest (stopped for the while) to fd,
	 * then lets it run on; NULL where the backend cannot save. */
	int (*save)(struct backend *b, int fd, struct strbuf *err);
	/* Warm start where the hypervisor writes the file itself (libvirt's
	 * save image at path, on this host): the guest is saved, which ends
	 * it, and restored from path at once, so that this run goes on with
	 * the same console and record fds.  *xml gets the domain XML the
	 * image holds (caller frees).  NULL where the backend has no such. */
	int (*save_file)(struct backend *b, const char *path, char **xml, struct strbuf *err);
	/* Graceful end when possible (QMP quit), then kill; always reaps.
	 * Returns the hypervisor's exit status, or -1. */
	int (*stop)(struct backend *b, int timeout_ms);
	void (*release)(struct backend *b);
};

extern const struct backend_ops backend_qemu;
extern const struct backend_ops backend_libvirt;

/* Closes the console and record streams (for release()); both become -1. */
void backend_close_streams(struct backend *b);

/* "qemu" or "libvirt"; NULL for an unknown name. */
const struct backend_ops *backend_find(const char *name);

/* want, else $LIBVIRT_URI, else qemu:///system. */
const char *libvirt_uri(const char *want);

/* 1 when the backend uploads kernel and initrd into a storage pool and
 * reads the serial ports through console streams: a URI whose hypervisor
 * may be on another host, or any URI with LIBVIRT_REMOTE=1. */
int libvirt_uri_remote(const char *uri);

/* A reply of virDomainQemuMonitorCommand(): 0 with its "return" member in
 * *reply (when not NULL; caller puts it), or -1 with "cmd: why" in err. */
int libvirt_qmp_reply(const char *cmd, const char *text, struct json_object **reply,
		      struct strbuf *err);

/* Before a libvirt run: the URI is usable from here, the daemons run
 * (started when local, absent and we are root), a connection opens.
 * -1 with one line in err. */
int libvirt_check(const char *want, struct strbuf *err);

/* Warm start under libvirt: 1 when the domain a saved XML names runs on
 * uri in another living lab (a restored domain keeps its saver's name and
 * uuid, so one snapshot restores once at a time), with why in err; its
 * orphans (their lab is gone) are destroyed first.  0 otherwise. */
int libvirt_domain_busy(const char *uri, const char *saved_xml, struct strbuf *err);

/* The domain XML the libvirt backend creates (caller frees): the topology's
 * domain with kernel, initrd and cmdline at the given paths and the two
 * serial ports connecting to con_sock (ttyS0) and rec_sock (ttyS1). */
char *libvirt_domain_xml(const struct backend_conf *conf, const char *kernel,
			 const char *initrd, const char *con_sock, const char *rec_sock);

/* The firmware file the QEMU backend boots (qboot), or NULL for QEMU's
 * default (SeaBIOS); $LAB_FIRMWARE overrides ("seabios" or a file). */
const char *qemu_firmware(void);

/* Builds the complete QEMU argv (binary first) for conf, with the given
 * fds for console, records and QMP; exposed for `lab topo --qemu` and tests. */
void qemu_build_argv(const struct backend_conf *conf, int con_fd, int rec_fd,
		     int qmp_fd, struct strvec *argv);

/* 1 when QEMU builds a paused 1-vCPU KVM machine and answers query-kvm
 * with "enabled": an openable /dev/kvm does not mean that much; 0 with
 * why otherwise.  The cheap half of run/accel.h's proof. */
int qemu_kvm_query(struct strbuf *why);

/* The first line of `qemu-system-<arch> --version` ($LAB_QEMU's when
 * set), or "unknown"; caller frees. */
char *qemu_version_string(enum topo_arch arch);

/* The QEMU binary for arch: $LAB_QEMU, else the one qemu_use_binary()
 * chose, else the arch's qemu-system-* from PATH. */
const char *qemu_binary_for(enum topo_arch arch);
/* The binary this process's runs of arch use unless $LAB_QEMU names one
 * (NULL: the host's); the virtual clock's QEMU (run/labrun.c). */
void qemu_use_binary(enum topo_arch arch, const char *path);
/* "QEMU emulator version 10.0.2 (Debian ...)" -> 100002; 0 when the line
 * has no version. */
unsigned qemu_version_number(const char *version_line);
/* QEMU 8.1 splits a round robin's icount budget among the vCPUs
 * (icount_percpu_budget()); before it the first vCPU of a pass could take
 * the whole budget to the next timer, and x86 APs starved at boot. */
#define QEMU_ICOUNT_SPLIT_BUDGET 80100
/* <root>/usr/share/qemu for a QEMU unpacked at <root>/usr/bin (passed as
 * -L), NULL for the host's own under /usr/bin. */
const char *qemu_data_dir_for(enum topo_arch arch);
int host_cpu_is_amd(void);

/* The host's TSC rate in Hz, measured against CLOCK_MONOTONIC_RAW over
 * 20 ms (to 0.2 %); 0 when the host has no constant, non-stop TSC or is
 * not x86-64.  Under TCG the guest's TSC is the host's. */
uint64_t host_tsc_hz(void);

#endif
