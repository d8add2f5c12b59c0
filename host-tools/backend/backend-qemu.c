/* backend-qemu.c - the direct QEMU backend: argv vector, console, record
 * channel and QMP over socketpairs handed to QEMU as fds, never a shell. */
#define _GNU_SOURCE
#include "backend/backend.h"
#include "common/wire.h"
#include "lib/child.h"
#include "backend/qmp.h"
#include "common/io.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

struct qemu_priv {
	struct child_process cp;
	struct qmp qmp;
	int qmp_fd;
	int qmp_ok;
	int lab_paused;   /* the lab's own QMP stop, not cont'ed yet */
};

static char *qemu_chosen[TOPO_ARCH_NR];

void qemu_use_binary(enum topo_arch arch, const char *path)
{
	free(qemu_chosen[arch]);
	qemu_chosen[arch] = path ? xstrdup(path) : NULL;
}

/* LAB_QEMU, else the run's choice (qemu_use_binary()), else the arch's
 * qemu-system-* */
const char *qemu_binary_for(enum topo_arch arch)
{
	const char *env = getenv("LAB_QEMU");

	if (env && *env)
		return env;
	return qemu_chosen[arch] ? qemu_chosen[arch] : topo_arch_info(arch)->qemu;
}

unsigned qemu_version_number(const char *line)
{
	const char *p = line ? strstr(line, "version ") : NULL;
	unsigned a = 0, b = 0, c = 0;

	if (!p || sscanf(p + 8, "%u.%u.%u", &a, &b, &c) < 2 || a > 99 || b > 99 || c > 99)
		return 0;
	return a * 10000 + b * 100 + c;
}

static const char *qemu_binary(void)
{
	return qemu_binary_for(TOPO_ARCH_X86_64);
}

char *qemu_version_string(enum topo_arch arch)
{
	const char *argv[] = { qemu_binary_for(arch), "--version", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *nl;

	if (run_command_capture(argv, 10000, &out, &err) != 0) {
		strbuf_release(&out);
		strbuf_release(&err);
		return xstrdup("unknown");
	}
	strbuf_release(&err);
	nl = strchr(out.buf, '\n');
	if (nl)
		*nl = '\0';
	return strbuf_detach(&out);
}

/*
 * The firmware directory of a QEMU that is not the host's: a binary at
 * <root>/usr/bin/qemu-system-* unpacked from a .deb (the lab's QEMU cache,
 * or $LAB_QEMU) finds its ROMs in <root>/usr/share/qemu only when told
 * with -L, since it was built for /usr/share/qemu.  NULL for the host's.
 */
const char *qemu_data_dir_for(enum topo_arch arch)
{
	static char *dir;
	static char *for_bin;
	const char *bin = qemu_binary_for(arch);
	const char *slash = strrchr(bin, '/');
	char *d;

	if (!slash || !strncmp(bin, "/usr/bin/", 9))
		return NULL;
	if (for_bin && !strcmp(for_bin, bin))
		return dir;
	free(for_bin);
	free(dir);
	for_bin = xstrdup(bin);
	/* <prefix>/bin/qemu-system-* -> <prefix>/share/qemu */
	if (slash - bin >= 4 && !strncmp(slash - 4, "/bin", 4))
		d = xasprintf("%.*s/share/qemu", (int)(slash - 4 - bin), bin);
	else
		d = xasprintf("%.*s/../share/qemu", (int)(slash - bin), bin);
	dir = access(d, R_OK | X_OK) ? NULL : d;
	if (!dir)
		free(d);
	return dir;
}

/*
 * SeaBIOS, QEMU's default, spends most of a second under TCG before the
 * kernel's first instruction on a 128-vCPU machine (POST, and every AP
 * woken to be counted); the kernel then enumerates CPUs from ACPI anyway.
 * qboot only loads what fw_cfg hands it (QEMU's own ACPI, SMBIOS and
 * E820 tables, the kernel via PVH or the bzImage protocol).
 * LAB_FIRMWARE=seabios (or a firmware file) overrides it.
 */
const char *qemu_firmware(void)
{
	static const char host_qboot[] = "/usr/share/qemu/qboot.rom";
	static char *own;
	const char *env = getenv("LAB_FIRMWARE");
	const char *data = qemu_data_dir_for(TOPO_ARCH_X86_64);

	if (env && *env)
		return strcmp(env, "seabios") ? env : NULL;
	if (data) {
		/* the QEMU's own qboot, from the same release */
		free(own);
		own = xasprintf("%s/qboot.rom", data);
		if (!access(own, R_OK))
			return own;
	}
	return access(host_qboot, R_OK) ? NULL : host_qboot;
}

void qemu_build_argv(const struct backend_conf *conf, int con_fd, int rec_fd,
		     int qmp_fd, struct strvec *argv)
{
	const struct topo_arch_info *ai = topo_arch_info(conf->topo->arch);
	/* qboot is an x86 firmware; virt and pseries load -kernel themselves */
	const char *bios = conf->topo->arch == TOPO_ARCH_X86_64 ? qemu_firmware() : NULL;

	strvec_push(argv, qemu_binary_for(conf->topo->arch));
	if (qemu_data_dir_for(conf->topo->arch))
		strvec_pushl(argv, "-L", qemu_data_dir_for(conf->topo->arch), NULL);
	/* -nodefaults: no VGA, NIC, floppy or CD probing, each of which costs
	 * boot time under TCG and none of which the scheduler cares about. */
	strvec_pushl(argv, "-nodefaults", "-no-user-config", "-display", "none", NULL);
	/* debug-threads: the vCPU threads are named "CPU <n>/TCG" (or /KVM),
	 * so top -H, perf and --pin's test can tell them apart */
	if (conf->name) {
		strvec_push(argv, "-name");
		strvec_pushf(argv, "%s,debug-threads=on", conf->name);
	}
	strvec_pushl(argv, "-machine", ai->machine, NULL);
	if (bios)
		strvec_pushl(argv, "-bios", bios, NULL);
	topo_qemu_argv(conf->topo, conf->accel,
		       (conf->host_is_amd ? TOPO_QEMU_HOST_AMD : 0) |
		       (conf->tcg_single ? TOPO_QEMU_TCG_SINGLE : 0), argv);
	/* guest time from instructions executed, never from the host's clock;
	 * sleep=off: an idle guest jumps to its next timer at once */
	if (conf->icount) {
		strvec_push(argv, "-icount");
		strvec_pushf(argv, "shift=%u,sleep=off", conf->icount_shift);
		/* the same guest inputs every boot: RDRAND/RNDR and virtio-rng
		 * from one seed, and an RTC that starts at one date and runs
		 * on the virtual clock (the host's date seeds the kernel's RNG) */
		strvec_push(argv, "-seed");
		if (conf->seed)
			strvec_pushf(argv, "%u", conf->seed);
		else
			strvec_push(argv, LAB_ICOUNT_SEED);
		strvec_pushl(argv, "-rtc", "base=" LAB_ICOUNT_RTC_BASE ",clock=vm", NULL);
	}
	if (conf->kernel)
		strvec_pushl(argv, "-kernel", conf->kernel, NULL);
	if (conf->initrd)
		strvec_pushl(argv, "-initrd", conf->initrd, NULL);
	if (conf->cmdline)
		strvec_pushl(argv, "-append", conf->cmdline, NULL);
	if (conf->disk) {
		struct strbuf opt = STRBUF_INIT;

		/* QEMU option values escape a comma by doubling it */
		strbuf_addstr(&opt, "file=");
		for (const char *p = conf->disk; *p; p++) {
			if (*p == ',')
				strbuf_addch(&opt, ',');
			strbuf_addch(&opt, *p);
		}
		strbuf_addstr(&opt, ",format=qcow2,if=none,id=root,cache=writeback");
		strvec_pushl(argv, "-drive", opt.buf, "-device", "virtio-blk-pci,drive=root", NULL);
		strbuf_release(&opt);
	}
	strvec_push(argv, "-chardev");
	strvec_pushf(argv, "socket,id=con,fd=%d", con_fd);
	strvec_pushl(argv, "-serial", "chardev:con", NULL);
	strvec_push(argv, "-chardev");
	strvec_pushf(argv, "socket,id=rec,fd=%d", rec_fd);
	if (ai->rec_device) {
		strvec_push(argv, "-device");
		strvec_pushf(argv, "%s,chardev=rec", ai->rec_device);
	} else {
		strvec_pushl(argv, "-serial", "chardev:rec", NULL);
	}
	strvec_push(argv, "-chardev");
	strvec_pushf(argv, "socket,id=qmp,fd=%d", qmp_fd);
	strvec_pushl(argv, "-mon", "chardev=qmp,mode=control", NULL);
	/* A guest reboot (including panic=-1) ends QEMU: a verdict, not a loop. */
	strvec_push(argv, "-no-reboot");
}

/*
 * QEMU's UART hands the chardev one byte per write, and a unix socket
 * charges each such byte a whole buffer (about 770 bytes of the 208 KiB
 * default): 278 bytes wait unread before QEMU gets EAGAIN and retries
 * from its main loop, on host time.  Under icount that is the host's
 * clock leaking into the guest: the UART's next interrupt comes when the
 * host reader woke up, and the guest idles (its clock jumping) until
 * then.  A large send buffer on QEMU's ends lets a late reader catch up
 * without the guest noticing: 16 MiB (the kernel doubles it) holds about
 * 43000 bytes; without CAP_NET_ADMIN, what net.core.wmem_max allows.
 */
#define ICOUNT_SNDBUF (16 << 20)

static void icount_widen_sndbuf(int fd)
{
	int size = ICOUNT_SNDBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

static int qemu_start(struct backend *b, const struct backend_conf *conf, struct strbuf *err)
{
	struct qemu_priv *p = xcalloc(1, sizeof(*p));
	int con[2], rec[2], qmp[2];
	int keep[4];
	char *logpath = NULL;
	int logfd = -1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, con) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rec) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, qmp) < 0) {
		strbuf_addf(err, "socketpair: %s", strerror(errno));
		free(p);
		return -1;
	}
	if (conf->icount) {
		icount_widen_sndbuf(con[1]);
		icount_widen_sndbuf(rec[1]);
	}
	child_process_init(&p->cp);
	qemu_build_argv(conf, con[1], rec[1], qmp[1], &p->cp.args);
	keep[0] = con[1];
	keep[1] = rec[1];
	keep[2] = qmp[1];
	p->cp.keep_fds = keep;
	p->cp.nr_keep_fds = 3;
	if (conf->restore) {
		strvec_push(&p->cp.args, "-incoming");
		strvec_pushf(&p->cp.args, "fd:%d", conf->incoming_fd);
		keep[p->cp.nr_keep_fds++] = conf->incoming_fd;
		/*
		 * No self-announce after a restore on the virtual clock.  An
		 * incoming migration arms a QEMU_CLOCK_REALTIME timer that
		 * announces the NICs five times over about 1.25 s of host
		 * time, and under icount every vCPU's instruction budget ends
		 * at the soonest timer of either clock: while it is armed,
		 * where one vCPU's turn ends and the next begins follows the
		 * host, and an SMP guest's run with it.  Six restores of a
		 * 2s2c guest with one seed gave six decide-hackbench times
		 * (0.6066-0.6415 s) with it, one without (docs/warm-start.md).
		 * The guests have no NIC (-nodefaults) a RARP could announce.
		 * The wall clock keeps it, as it was: host time enters those
		 * guests anyway.
		 */
		if (conf->icount) {
			strvec_push(&p->cp.args, "-global");
			strvec_push(&p->cp.args, "migration.announce-rounds=0");
		}
		/*
		 * 4 KiB pages for the restored RAM: with transparent huge
		 * pages each 2 MiB region the stream writes a page into is
		 * allocated and cleared whole on first touch; a parked 2s64c
		 * guest's 72,000 pages lie in 245 such regions of its 8 GiB,
		 * and clearing them was most of the restore
		 * (docs/warm-start.md).
		 */
		p->cp.no_thp = 1;
		/* the plan, where the parked runner reads it by port I/O: at
		 * one virtual time in every restore (guest/runner/fwcfg.h) */
		if (conf->fwcfg_plan) {
			strvec_push(&p->cp.args, "-fw_cfg");
			strvec_pushf(&p->cp.args, "name=%s,file=%s", WIRE_FWCFG_PLAN, conf->fwcfg_plan);
		}
	}
	p->cp.in = -2;
	p->cp.out = -2;
	p->cp.new_pgrp = 1;
	/* its own process group keeps ^C away from QEMU, so tie its life to ours */
	p->cp.die_with_parent = 1;
	p->cp.errbuf = err;
	if (conf->run_dir) {
		logpath = xasprintf("%s/qemu.log", conf->run_dir);
		logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		free(logpath);
	}
	p->cp.err = logfd >= 0 ? logfd : -2;
	if (start_command(&p->cp) < 0) {
		close(con[0]); close(con[1]); close(rec[0]); close(rec[1]);
		close(qmp[0]); close(qmp[1]);
		if (logfd >= 0)
			close(logfd);
		child_process_clear(&p->cp);
		free(p);
		return -1;
	}
	close(con[1]);
	close(rec[1]);
	close(qmp[1]);
	if (logfd >= 0)
		close(logfd);
	b->console_fd = con[0];
	b->record_fd = rec[0];
	p->qmp_fd = qmp[0];
	b->priv = p;
	qmp_init(&p->qmp, p->qmp_fd);
	/* QEMU greets as soon as the monitor exists; a failure here means
	 * QEMU refused its command line (qemu.log says why). */
	if (qmp_handshake(&p->qmp, 30000, err) < 0) {
		b->ops->stop(b, 2000);
		return -1;
	}
	p->qmp_ok = 1;
	/* a stream QEMU cannot load ends it: the caller falls back to a boot */
	if (conf->restore && qmp_wait_incoming(&p->qmp, 120000, err) < 0) {
		b->ops->stop(b, 2000);
		return -1;
	}
	snprintf(b->version, sizeof(b->version), "QEMU %.50s", p->qmp.version);
	return 0;
}

static int qemu_nmi(struct backend *b, struct strbuf *err)
{
	struct qemu_priv *p = b->priv;

	if (!p || !p->qmp_ok) {
		strbuf_addstr(err, "qmp is not connected");
		return -1;
	}
	return qmp_command(&p->qmp, "inject-nmi", NULL, NULL, 5000, err);
}

static int qemu_dump_vcpus(struct backend *b, struct strbuf *out, struct strbuf *err)
{
	struct qemu_priv *p = b->priv;
	struct json_object *args, *reply = NULL;
	int ret;

	if (!p || !p->qmp_ok) {
		strbuf_addstr(err, "qmp is not connected");
		return -1;
	}
	args = json_object_new_object();
	json_object_object_add(args, "command-line", json_object_new_string("info registers -a"));
	ret = qmp_command(&p->qmp, "human-monitor-command", args, &reply, 10000, err);
	json_object_put(args);
	if (!ret && reply && json_object_is_type(reply, json_type_string))
		strbuf_addstr(out, json_object_get_string(reply));
	json_object_put(reply);
	return ret;
}

static int qemu_qmp(struct backend *b, const char *cmd, struct json_object *args,
		    struct json_object **reply, struct strbuf *err)
{
	struct qemu_priv *p = b->priv;

	if (!p || !p->qmp_ok) {
		strbuf_addstr(err, "qmp is not connected");
		return -1;
	}
	if (qmp_command(&p->qmp, cmd, args, reply, 10000, err) < 0)
		return -1;
	if (!strcmp(cmd, "stop"))
		p->lab_paused = 1;
	else if (!strcmp(cmd, "cont"))
		p->lab_paused = 0;
	return 0;
}

static int qemu_watch_fd(struct backend *b)
{
	struct qemu_priv *p = b->priv;

	return p && p->qmp_ok ? p->qmp_fd : -1;
}

static int qemu_run_state(struct backend *b, struct backend_state *st, struct strbuf *err)
{
	struct qemu_priv *p = b->priv;
	struct json_object *reply = NULL, *v;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!p || !p->qmp_ok)
		return 0;
	ret = qmp_pump_events(&p->qmp, err);
	if (ret < 0) {
		/* QEMU closed the monitor: it is on its way out, poll it no more */
		p->qmp_ok = 0;
	} else if (p->qmp.state_changed && p->qmp.stopped) {
		/* running, as far as the events go, needs no question */
		p->qmp.state_changed = 0;
		ret = qmp_command(&p->qmp, "query-status", NULL, &reply, 2000, err);
		if (ret == 0 && json_object_object_get_ex(reply, "status", &v))
			snprintf(st->state, sizeof(st->state), "%s", json_object_get_string(v));
		json_object_put(reply);
		st->halted = backend_state_halted(st->state, p->lab_paused);
	}
	/* events that came with the reply count too */
	snprintf(st->cause, sizeof(st->cause), "%s", p->qmp.cause);
	return ret < 0 ? -1 : 0;
}

static int qemu_save(struct backend *b, int fd, struct strbuf *err)
{
	struct qemu_priv *p = b->priv;

	if (!p || !p->qmp_ok) {
		strbuf_addstr(err, "qmp is not connected");
		return -1;
	}
	return qmp_save_state(&p->qmp, fd, 300000, err);
}

static int qemu_stop(struct backend *b, int timeout_ms)
{
	struct qemu_priv *p = b->priv;
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (!p)
		return -1;
	if (p->cp.pid > 0 && p->qmp_ok) {
		/* quit is immediate; poweroff of 128 TCG vCPUs takes ~15 s */
		if (qmp_command(&p->qmp, "quit", NULL, NULL, 2000, &err) < 0)
			kill(-p->cp.pid, SIGKILL);
	} else if (p->cp.pid > 0) {
		kill(-p->cp.pid, SIGKILL);
	}
	strbuf_release(&err);
	p->qmp_ok = 0;
	ret = p->cp.pid > 0 ? finish_command_timeout(&p->cp, timeout_ms) : -1;
	p->cp.pid = 0;
	return ret;
}

static void qemu_release(struct backend *b)
{
	struct qemu_priv *p = b->priv;

	if (!p)
		return;
	if (p->cp.pid > 0)
		qemu_stop(b, 2000);
	qmp_release(&p->qmp);
	if (p->qmp_fd >= 0)
		close(p->qmp_fd);
	child_process_clear(&p->cp);
	free(p);
	b->priv = NULL;
	backend_close_streams(b);
}

void backend_close_streams(struct backend *b)
{
	if (b->console_fd >= 0)
		close(b->console_fd);
	if (b->record_fd >= 0)
		close(b->record_fd);
	b->console_fd = b->record_fd = -1;
}

const struct backend_ops backend_qemu = {
	.name = "qemu",
	.start = qemu_start,
	.nmi = qemu_nmi,
	.dump_vcpus = qemu_dump_vcpus,
	.qmp = qemu_qmp,
	.watch_fd = qemu_watch_fd,
	.run_state = qemu_run_state,
	.save = qemu_save,
	.stop = qemu_stop,
	.release = qemu_release,
};

int host_cpu_is_amd(void)
{
	char *s = read_file("/proc/cpuinfo", NULL);
	int amd = s && strstr(s, "AuthenticAMD") != NULL;

	free(s);
	return amd;
}

#if defined(__x86_64__)
/* One (TSC, CLOCK_MONOTONIC_RAW) pair read within 20 us of each other. */
static int tsc_sample(uint64_t *tsc, uint64_t *ns)
{
	for (int tries = 0; tries < 100; tries++) {
		struct timespec a, b;
		uint64_t c;

		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		c = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		*ns = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
		if ((uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec - *ns < 20000) {
			*tsc = c;
			return 0;
		}
	}
	return -1;
}

uint64_t host_tsc_hz(void)
{
	const struct timespec gap = { 0, 20 * 1000 * 1000 };
	char *s = read_file("/proc/cpuinfo", NULL);
	int constant = s && strstr(s, " constant_tsc") && strstr(s, " nonstop_tsc");
	uint64_t c0, t0, c1, t1;

	free(s);
	if (!constant || tsc_sample(&c0, &t0) < 0)
		return 0;
	nanosleep(&gap, NULL);
	if (tsc_sample(&c1, &t1) < 0 || t1 <= t0 || c1 <= c0)
		return 0;
	/* at most 40 us of uncertainty over at least 20 ms: 0.2 % */
	return (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0));
}
#else
uint64_t host_tsc_hz(void)
{
	return 0;
}
#endif

/*
 * Whether QEMU can run a KVM guest here, asked of QEMU itself: a paused
 * 1-vCPU q35 guest answers QMP's query-kvm only once the machine is built
 * and its vCPU created and reset; a host whose /dev/kvm opens but whose
 * KVM cannot hold a vCPU (nested, firecracker) makes QEMU abort before
 * that.  Waiting for the answer, not for a lapse of time, keeps a loaded
 * host from taking a QEMU that has not failed yet for one that works.
 */
#define KVM_PROBE_MS 30000

static int kvm_probe_answer(int rfd, struct strbuf *got)
{
	uint64_t t0 = now_ns();
	char buf[512];

	for (;;) {
		struct pollfd pfd = { .fd = rfd, .events = POLLIN };
		long left = KVM_PROBE_MS - (long)((now_ns() - t0) / 1000000);
		ssize_t n;

		if (strstr(got->buf, "\"enabled\": true"))
			return 1;
		if (strstr(got->buf, "\"enabled\": false"))
			return 0;
		if (left <= 0)
			return -1;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return 0;
		n = xread(rfd, buf, sizeof(buf));
		if (n <= 0 && pfd.revents)
			return 0; /* QEMU went away */
		if (n > 0)
			strbuf_add(got, buf, (size_t)n);
	}
}

int qemu_kvm_query(struct strbuf *why)
{
	static const char ask[] = "{\"execute\":\"qmp_capabilities\"}\n"
				  "{\"execute\":\"query-kvm\"}\n";
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf got = STRBUF_INIT;
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int in[2], out[2], errp[2], ok, ret;
	char buf[4096];
	ssize_t n;

	if (fd < 0) {
		strbuf_addf(why, "/dev/kvm: %s", strerror(errno));
		return 0;
	}
	close(fd);
	if (pipe2(in, O_CLOEXEC) < 0)
		goto nopipe;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		goto nopipe;
	}
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		goto nopipe;
	}
	strvec_pushl(&cp.args, qemu_binary(), "-nodefaults", "-no-user-config",
		     "-display", "none", "-machine", "q35", "-accel", "kvm",
		     "-cpu", "host", "-m", "64", "-smp", "1", "-S",
		     "-qmp", "stdio", NULL);
	cp.in = in[0];
	cp.out = out[1];
	cp.err = errp[1];
	cp.new_pgrp = 1;
	cp.die_with_parent = 1;
	ret = start_command(&cp);
	close(in[0]);
	close(out[1]);
	close(errp[1]);
	if (ret < 0) {
		close(in[1]);
		close(out[0]);
		close(errp[0]);
		strbuf_addstr(why, "cannot start qemu");
		child_process_clear(&cp);
		return 0;
	}
	/* a pipe holds this much: QMP reads it once the machine is up (a
	 * QEMU already gone is EPIPE: the lab ignores SIGPIPE) */
	write_in_full(in[1], ask, sizeof(ask) - 1);
	ok = kvm_probe_answer(out[0], &got);
	close(in[1]);
	close(out[0]);
	child_process_kill(&cp, SIGKILL);
	ret = finish_command(&cp);
	child_process_clear(&cp);
	/* QEMU is gone: its stderr is all in the pipe, and says why */
	strbuf_reset(&got);
	while (got.len < 65536 && (n = xread(errp[0], buf, sizeof(buf))) > 0)
		strbuf_add(&got, buf, (size_t)n);
	close(errp[0]);
	if (ok > 0) {
		strbuf_release(&got);
		return 1;
	}
	if (ok < 0) {
		strbuf_addf(why, "QEMU did not answer query-kvm within %d s", KVM_PROBE_MS / 1000);
	} else {
		struct strbuf lines = STRBUF_INIT;

		backend_error_lines(got.buf, got.len, 2, &lines);
		strbuf_addf(why, "QEMU cannot create a KVM vCPU (exit %d%s%s)", ret,
			    lines.len ? ": " : "", lines.buf);
		strbuf_release(&lines);
	}
	strbuf_release(&got);
	return 0;
nopipe:
	strbuf_addf(why, "pipe: %s", strerror(errno));
	return 0;
}
