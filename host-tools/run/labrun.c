/* labrun.c - one guest run from validated inputs to a verdict: shared by
 * `lab boot` (topology only) and `lab run` (topology plus a plan). */
#define _GNU_SOURCE
#include "run/labrun.h"
#include "run/scx-run.h"
#include "run/accel.h"
#include "common/io.h"
#include "common/wire.h"
#include "backend/backend.h"
#include "lib/child.h"
#include "topo/guestview.h"
#include "kernel/initrd.h"
#include "kernel/kgen.h"
#include "kernel/debarchive.h"
#include "results/results.h"
#include "results/runfiles.h"
#include "run/schedfeat.h"
#include "run/schedknob.h"
#include "scenario/scenario.h"
#include "topo/verify.h"
#include "topo/pin.h"
#include "backend/bare.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Console at KERN_WARNING and above: enough for every failure pattern
 * (WARNING splats are pr_warn) without paying TCG for info chatter.
 * unknown_nmi_panic + panic_print=0x40 turn the NMI sent on a HANG into
 * backtraces of every CPU on the console.
 *
 * schedstats=enable turns the sched_schedstats static key on while one CPU
 * runs.  /init used to do it through the sysctl, after SMP bring-up: that
 * live-patches every schedstat site (__schedule, load_balance, ...) while
 * all idle vCPUs run through them, and QEMU 7.2's multi-threaded TCG then
 * leaves vCPUs spinning on a stale int3 (seen in boot-2s64c's kept
 * registers; the sched_clock keys are the other place, lab_run_start()).
 * A kernel without
 * CONFIG_SCHEDSTATS hands the unknown option to /init, which ignores it;
 * the sysctl stays in /init, a no-op once the key is on.
 *
 * cryptomgr.notests: in Debian's 6.12 and 7.2 the crypto self-tests run
 * in cryptomgr_test kernel threads after boot and compete with the first
 * cases: in a 7.2 guest under the virtual
 * clock they took 21 % of 4 CPUs during the first measured 3 s run of 8
 * hogs and 2 % in the third (docs/tcg.md). */
static const char base_cmdline[] =
	"console=%s loglevel=5 panic=-1 sched_verbose schedstats=enable cryptomgr.notests";
static const char nmi_panic_cmdline[] = " unknown_nmi_panic panic_print=0x40";

void lab_run_init(struct lab_run *r)
{
	memset(r, 0, sizeof(*r));
	r->desc.buf = r->dir.buf = r->cmdline.buf = r->diff.buf = r->warm_set.buf = strbuf_empty;
	r->ndiff = -1;
	r->preempt_mode = -1;
	session_init(&r->s);
	image_init(&r->image);
	warm_init(&r->warm_state, "");
	r->t_init_ns = now_ns();
	r->start = "cold";
}

void lab_run_release(struct lab_run *r)
{
	if (r->initrd_is_temp && r->initrd)
		unlink(r->initrd);
	free(r->initrd);
	strbuf_release(&r->desc);
	strbuf_release(&r->dir);
	strbuf_release(&r->cmdline);
	strbuf_release(&r->warm_set);
	strbuf_release(&r->diff);
	if (r->expected)
		json_object_put(r->expected);
	if (r->guest)
		json_object_put(r->guest);
	session_release(&r->s);
	image_release(&r->image);
	warm_release(&r->warm_state);
	vcpu_pin_release(&r->pin);
}

static int copy_into(int out, const char *path, struct strbuf *err)
{
	char buf[65536];
	int in = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (in < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((n = xread(in, buf, sizeof(buf))) > 0) {
		if (write_in_full(out, buf, (size_t)n) < 0) {
			strbuf_addf(err, "cannot write initrd: %s", strerror(errno));
			close(in);
			return -1;
		}
	}
	close(in);
	return n < 0 ? -1 : 0;
}

/* Linux unpacks concatenated cpio archives in order, so the per-run plan
 * rides on top of the cached base initrd without rebuilding it. */
static char *join_initrd(const char *base, const char *extra, struct strbuf *err)
{
	char *path;
	int fd = temp_file_create("initrd-run", &path, err);

	if (fd < 0)
		return NULL;
	if (copy_into(fd, base, err) < 0 || copy_into(fd, extra, err) < 0) {
		close(fd);
		unlink(path);
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

static int plan_has_faults(const struct plan *p)
{
	for (unsigned i = 0; p && i < p->nr_cases; i++)
		if (p->cases[i].nr_faults)
			return 1;
	return 0;
}

/* The function profiler patches ftrace call sites in and out (int3 first). */
static int plan_has_profile(const struct plan *p)
{
	for (unsigned i = 0; p && i < p->nr_cases; i++)
		if (p->cases[i].profile.nr_funcs)
			return 1;
	return 0;
}

/* Turning sched tracepoints on and off flips their static keys: the
 * kernel patches every call site (int3 first), as the profiler does.  So a
 * traced plan's guest gets them on from boot (schedtrace_cmdline), before
 * the other CPUs run, and the runner never flips them. */
static int plan_has_schedtrace(const struct plan *p)
{
	for (unsigned i = 0; p && i < p->nr_cases; i++)
		if (p->cases[i].counters & PLAN_CNT_SCHEDTRACE)
			return 1;
	return 0;
}

/*
 * QEMU 7.2's single-threaded TCG cannot unplug a vCPU: the guest's ACPI
 * eject is handled on the one TCG thread, which then joins the removed
 * vCPU's thread, i.e. itself ("qemu_thread_join: Resource deadlock
 * avoided") and QEMU aborts.
 */
static int plan_removes_vcpus(const struct plan *p)
{
	for (unsigned i = 0; p && i < p->nr_cases; i++) {
		for (unsigned k = 0; k < p->cases[i].nr_faults; k++) {
			const struct plan_fault *f = &p->cases[i].faults[k];
			const struct hostfault_ops *ops = hostfault_find(f->kind);

			if (f->side == PLAN_SIDE_HOST && ops && ops->removes_vcpus)
				return 1;
		}
	}
	return 0;
}

/* The coresched workload with core_sched=on: the first cookie enables
 * core scheduling (a static key, under stop_machine), the last one gone
 * disables it, every run. */
static int plan_has_core_sched(const struct plan *p)
{
	for (unsigned i = 0; p && i < p->nr_cases; i++)
		for (unsigned k = 0; k < p->cases[i].nr_params; k++)
			if (!strcmp(p->cases[i].workload, "coresched") &&
			    !strcmp(p->cases[i].params[k].key, "core_sched") &&
			    !strcmp(p->cases[i].params[k].value, "on"))
				return 1;
	return 0;
}

/*
 * QEMU 7.2's multi-threaded TCG can leave a vCPU running a stale
 * translation of kernel text the guest just live-patched (see
 * lab_run_start()).  Faults flip static keys all the time (cfs bandwidth
 * through cpu.max, sched_smt_present through sibling hotplug,
 * numa_balancing, sched features), and seen here a cgroup-churn case hung
 * that way about once in three runs; with one TCG thread no vCPU runs
 * while another patches.  So a plan with faults gets one thread, and so
 * does one that turns core scheduling on (each run enables and disables
 * it); everything else gets the speed of one thread per host core.
 * Returns why the plan wants one thread, or NULL when it does not.
 */
/* Enabling and disabling sched_ext flips its static keys (scx_ops_enabled
 * and the like) and attaches BPF trampolines: text patched at every load
 * and unload.  Seen here: an int3 oops in the case after scx_simple's
 * first load on 2s4c under multi-threaded TCG (Debian 7.2). */
static int plan_has_scx(const struct plan *p)
{
	for (unsigned i = 0; p && i < p->nr_cases; i++)
		if (p->cases[i].scheduler[0] || !strcmp(p->cases[i].workload, "scx_selftest"))
			return 1;
	return 0;
}

static const char *plan_wants_single_tcg(const struct plan *p)
{
	if (plan_has_scx(p))
		return "the plan loads and unloads sched_ext schedulers";
	if (plan_has_faults(p))
		return "the plan injects faults";
	if (plan_has_profile(p))
		return "the plan profiles kernel functions";
	if (plan_has_core_sched(p))
		return "the plan turns core scheduling on and off";
	return NULL;
}

static int tcg_threads_resolve(struct lab_run *r, struct strbuf *err)
{
	const char *want = r->tcg_threads && *r->tcg_threads ? r->tcg_threads : "auto";
	/* libvirt 9.0's domain XML has no way to ask for thread=single */
	int can_single = r->ops != &backend_libvirt;
	const char *why;

	r->tcg_single = 0;
	if (!strcmp(want, "single") || !strcmp(want, "multi")) {
		r->tcg_single = !strcmp(want, "single");
		r->tcg_why = "asked for";
	} else if (strcmp(want, "auto")) {
		strbuf_addf(err, "unknown TCG threading '%s' (auto, single or multi)", want);
		return -1;
	} else if (plan_removes_vcpus(r->plan)) {
		r->tcg_why = "the plan hot-removes vCPUs, which single-threaded TCG cannot";
	} else if (!(why = plan_wants_single_tcg(r->plan))) {
		r->tcg_why = "default";
	} else if (!can_single) {
		r->tcg_why = "the plan wants one TCG thread, but libvirt cannot select it";
	} else {
		r->tcg_single = 1;
		r->tcg_why = why;
	}
	if (r->accel_kind != ACCEL_TCG)
		r->tcg_single = 0;
	if (r->tcg_single && !can_single) {
		strbuf_addstr(err, "single-threaded TCG is not possible with the libvirt backend "
			      "(libvirt 9.0 cannot set it)");
		return -1;
	}
	if (r->tcg_single && plan_removes_vcpus(r->plan)) {
		strbuf_addstr(err, "vcpu_remove needs multi-threaded TCG: QEMU 7.2 aborts when it "
			      "unplugs a vCPU with one TCG thread (use --tcg-threads multi or auto)");
		return -1;
	}
	return 0;
}

static enum plan_pin plan_pin(const struct plan *p)
{
	enum plan_pin pin = PLAN_PIN_NONE;

	for (unsigned i = 0; p && i < p->nr_cases; i++)
		if (p->cases[i].pin > pin)
			pin = p->cases[i].pin;
	return pin;
}

/* Only the CPUs this process may run on (a cpuset, taskset): QEMU's
 * threads inherit them, and binding one elsewhere would fail. */
static void restrict_to_own_cpus(struct pin_host *h)
{
	unsigned long allowed[CPULIST_LONGS(GUEST_VIEW_MAX_CPUS)] = { 0 };
	cpu_set_t *set = CPU_ALLOC(GUEST_VIEW_MAX_CPUS);
	size_t size = CPU_ALLOC_SIZE(GUEST_VIEW_MAX_CPUS);

	CPU_ZERO_S(size, set);
	if (sched_getaffinity(0, size, set) == 0) {
		for (unsigned i = 0; i < GUEST_VIEW_MAX_CPUS; i++)
			if (CPU_ISSET_S(i, size, set))
				cpulist_set(allowed, i);
		pin_host_restrict(h, allowed, GUEST_VIEW_MAX_CPUS);
	}
	CPU_FREE(set);
}

/*
 * --pin, or a scenario's pin key: the vCPU -> host CPU map (topo/pin.h)
 * from this host's topology, read as `lab bare --topology` reads it.  A
 * guest that does not fit runs unpinned with one line saying why, or is
 * refused with --pin=strict.
 */
static int pin_resolve(struct lab_run *r, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct json_object *view = NULL;
	struct pin_host host;
	char runner[PATH_MAX];
	int ok = 0;

	if (r->pin_opt && (!*r->pin_opt || !strcmp(r->pin_opt, "yes")))
		r->pin_want = PLAN_PIN_YES;
	else if (r->pin_opt && !strcmp(r->pin_opt, "strict"))
		r->pin_want = PLAN_PIN_STRICT;
	else if (r->pin_opt && strcmp(r->pin_opt, "no")) {
		strbuf_addf(err, "unknown --pin mode '%s' (--pin, --pin=strict or --pin=no)", r->pin_opt);
		return -1;
	} else {
		r->pin_want = r->pin_opt ? PLAN_PIN_NONE : (int)plan_pin(r->plan);
	}
	if (!r->pin_want)
		return 0;
	memset(&host, 0, sizeof(host));
	r->pin.n = topo_boot_cpus(&r->topo);
	r->pin.cpu = xcalloc(r->pin.n, sizeof(*r->pin.cpu));
	r->pin.strict = r->pin_want == PLAN_PIN_STRICT;
	r->pin.held = -1;
	if (r->ops == &backend_libvirt && libvirt_uri_remote(libvirt_uri(r->uri)))
		strbuf_addf(&why, "the guest runs on another host (%s)", libvirt_uri(r->uri));
	else if (initrd_find_runner(runner, &why) == 0 && (view = bare_probe(runner, &why)) &&
		 pin_host_from_view(view, &host, &why) == 0 &&
		 (restrict_to_own_cpus(&host), pin_map(&r->topo, &host, r->pin.cpu, &why) == 0))
		ok = 1;
	if (view)
		json_object_put(view);
	pin_host_release(&host);
	if (!ok && r->pin.strict)
		strbuf_addf(err, "--pin=strict: %s does not fit this host: %s", r->spec, why.buf);
	else if (!ok)
		snprintf(r->pin_note, sizeof(r->pin_note), "%s", why.buf);
	strbuf_release(&why);
	if (!ok) {
		free(r->pin.cpu);
		r->pin.cpu = NULL;
	}
	return ok || !r->pin.strict ? 0 : -1;
}

int lab_clock_parse(const char *clock)
{
	if (!clock || !*clock || !strcmp(clock, "wall"))
		return 0;
	return strcmp(clock, "virtual") ? -1 : 1;
}

static int plan_has_host_faults(const struct plan *p)
{
	for (unsigned i = 0; p && i < p->nr_cases; i++)
		for (unsigned k = 0; k < p->cases[i].nr_faults; k++)
			if (p->cases[i].faults[k].side == PLAN_SIDE_HOST)
				return 1;
	return 0;
}

/* $name, a count of host ms in lo..hi (note: what the range's words
 * add), into *ms; def when unset.  -1 with one line in err. */
static int env_host_ms(const char *name, long def, long lo, long hi, const char *note, long *ms,
		       struct strbuf *err)
{
	const char *env = getenv(name);
	char *end;

	*ms = env && *env ? strtol(env, &end, 10) : def;
	if (env && *env && (*end || *ms < lo || *ms > hi)) {
		strbuf_addf(err, "%s must be %ld-%ld (host ms%s), not '%s'", name, lo, hi, note, env);
		return -1;
	}
	return 0;
}

/*
 * The kicks an SMP guest needs under icount (labrun.h): how often, in
 * host ms, and until when; $LAB_ICOUNT_KICK=never sends none.
 */
static int kick_resolve(struct lab_run *r, struct strbuf *err)
{
	const char *when = getenv("LAB_ICOUNT_KICK");
	long ms;

	if (env_host_ms("LAB_ICOUNT_KICK_MS", LAB_ICOUNT_KICK_MS, 1, 1000, "", &ms, err) < 0)
		return -1;
	if (!when || !*when) {
		char *ver = qemu_version_string(r->topo.arch);

		/* a QEMU that splits the budget brings APs up on its own */
		when = qemu_version_number(ver) >= QEMU_ICOUNT_SPLIT_BUDGET &&
		       !plan_has_faults(r->plan) ? "never" : LAB_ICOUNT_KICK;
		free(ver);
	}
	if (strcmp(when, "boot") && strcmp(when, "always") && strcmp(when, "never")) {
		strbuf_addf(err, "LAB_ICOUNT_KICK must be boot, always or never, not '%s'", when);
		return -1;
	}
	if (!strcmp(when, "never"))
		return 0;
	r->kick_ms = (int)ms;
	r->kick_always = !strcmp(when, "always") || plan_has_faults(r->plan);
	return 0;
}

/*
 * The QEMU a virtual-clock run of arch uses: $LAB_QEMU when set; for
 * x86-64 the lab's own (LAB_VIRTUAL_QEMU_VERSION, fetched once into the
 * cache: it splits the round robin's budget among the vCPUs, labrun.h),
 * unless $LAB_VIRTUAL_QEMU=host asks for the host's; the host's for the
 * other arches.  A wall-clock run uses the host's (clock_resolve()).
 */
static int virtual_qemu_resolve(struct lab_run *r, struct strbuf *err)
{
	const char *want = getenv("LAB_VIRTUAL_QEMU");
	const char *env = getenv("LAB_QEMU");
	struct strbuf root = STRBUF_INIT;
	char *bin;

	qemu_use_binary(r->topo.arch, NULL);
	if ((env && *env) || r->topo.arch != TOPO_ARCH_X86_64 ||
	    (want && !strcmp(want, "host")))
		return 0;
	if (!want || !*want)
		want = LAB_VIRTUAL_QEMU_VERSION;
	if (debarchive_fetch_qemu(want, &root, err) < 0) {
		strbuf_addstr(err, " (LAB_VIRTUAL_QEMU=host runs the host's QEMU, with host-time "
			      "kicks at boot)");
		strbuf_release(&root);
		return -1;
	}
	bin = xasprintf("%s/usr/bin/qemu-system-x86_64", root.buf);
	qemu_use_binary(r->topo.arch, bin);
	free(bin);
	strbuf_release(&root);
	return 0;
}

/*
 * --clock virtual: QEMU's icount, which counts TCG instructions on its one
 * TCG thread; every combination that cannot have that is refused here,
 * after the accelerator and the TCG threading are known.
 */
static int clock_resolve(struct lab_run *r, struct strbuf *err)
{
	int v = lab_clock_parse(r->clock);

	r->clock_virtual = 0;
	r->kick_ms = 0;
	r->kick_always = 0;
	qemu_use_binary(r->topo.arch, NULL);
	if (v < 0) {
		strbuf_addf(err, "unknown clock '%s' (wall or virtual)", r->clock);
		return -1;
	}
	if (!v) {
		if (r->seed) {
			strbuf_addstr(err, "--seed goes with --clock virtual: it seeds the guest's random "
				      "numbers under icount, where every boot is otherwise the same");
			return -1;
		}
		return 0;
	}
	if (r->accel_kind != ACCEL_TCG) {
		strbuf_addstr(err, "--clock virtual needs TCG (icount counts TCG's instructions): "
			      "use --accel tcg, or --clock wall under KVM");
		return -1;
	}
	if (r->ops != &backend_qemu) {
		strbuf_addstr(err, "--clock virtual needs the qemu backend (libvirt 9.0 cannot ask "
			      "QEMU for icount)");
		return -1;
	}
	if (r->tcg_threads && !strcmp(r->tcg_threads, "multi")) {
		strbuf_addstr(err, "--clock virtual runs every vCPU on one TCG thread, icount's only "
			      "mode: drop --tcg-threads multi");
		return -1;
	}
	if (plan_has_host_faults(r->plan)) {
		strbuf_addstr(err, "--clock virtual cannot run host-side faults: they act in host "
			      "time, which the guest's clock no longer follows (use --clock wall)");
		return -1;
	}
	if (virtual_qemu_resolve(r, err) < 0)
		return -1;
	r->clock_virtual = 1;
	r->icount_shift = LAB_ICOUNT_SHIFT;
	if (topo_boot_cpus(&r->topo) > 1 && kick_resolve(r, err) < 0)
		return -1;
	r->tcg_single = 1;
	r->tcg_why = "virtual clock: icount has one TCG thread";
	return 0;
}

/* libvirt 9.0 has no setting for TCG's threads, and QEMU takes the first
 * -accel it is given, which is libvirt's: the guest gets one per vCPU. */
/* What a guest under TCG needs on its command line to boot like one on
 * real hardware, and not much slower than under KVM. */
static void tcg_cmdline(struct lab_run *r)
{
	struct strbuf hz = STRBUF_INIT;
	unsigned long long tsc_hz, jiffy_hz = 0;

	/* TCG's TSC follows the host clock: trusting it keeps the clocksource
	 * watchdog from calling it unstable on a loaded host, which would
	 * switch clocksources (and live-patch the kernel) mid-run.
	 * TCG's CPU reports Intel family 15, which 6.1's smpboot treats as
	 * pre-modern: 10 ms of busy udelay() per AP after INIT, 1.3 s of a
	 * 128-CPU boot.  QEMU delivers INIT/SIPI at once, as it does under
	 * KVM for family 6, where the kernel already waits for nothing. */
	strbuf_addstr(&r->cmdline, " tsc=reliable cpu_init_udelay=0");
	/*
	 * The same model makes the kernel think the CPU leaks kernel memory
	 * (Meltdown) and isolate its page tables: every system call and
	 * interrupt writes CR3 twice, and each CR3 write flushes all of
	 * QEMU's software TLB.  The machines the lab stands in for (EPYC,
	 * Xeon since Cascade Lake) are not affected and run without it;
	 * with it, hackbench on 2s4c2t took 2.8x as long (docs/tcg.md).
	 */
	strbuf_addstr(&r->cmdline, " pti=off");
	/*
	 * The first CPU of each further socket has no sibling to copy its
	 * loops_per_jiffy from (calibrate_delay_is_known()), so it measures
	 * it; TCG's late timer ticks fail that measurement and the kernel
	 * falls back to its slow converging loop: 5 s of a 2s64c boot.
	 * lpj= gives it what the boot CPU derived from the TSC (tsc_khz *
	 * 1000 / HZ), with the host's TSC rate, which TCG's guest TSC runs at.
	 */
	if (*r->kp.config && kernel_config_value(r->kp.config, "HZ", &hz) > 0)
		jiffy_hz = strtoull(hz.buf, NULL, 10);
	/* under icount the guest's TSC counts virtual nanoseconds */
	tsc_hz = r->clock_virtual ? 1000000000ull : host_tsc_hz();
	if (jiffy_hz >= 24 && jiffy_hz <= 10000 && tsc_hz)
		strbuf_addf(&r->cmdline, " lpj=%llu", tsc_hz / jiffy_hz);
	strbuf_release(&hz);
}

/* trace_event= enables the events while the kernel boots on one CPU;
 * lab.schedtrace=boot tells the runner so, and that the trace_clock= given
 * here agrees across CPUs (the host orders the CPUs' events by time).
 * Under TCG every vCPU's TSC is one host clock (the instruction count under
 * --clock virtual), so "local" (sched_clock) agrees and costs no global
 * cmpxchg per event; elsewhere "global".  norecord-cmd: enabling
 * sched_switch would otherwise add a second probe that copies comms into
 * the saved-cmdlines cache on every switch, tracing_on or not; the comms
 * come with the events. */
static void schedtrace_cmdline(struct lab_run *r)
{
	const char *clock = r->accel_kind == ACCEL_TCG ? "local" : "global";

	if (!plan_has_schedtrace(r->plan))
		return;
	strbuf_addstr(&r->cmdline, " trace_event=");
	for (unsigned i = 0; i < PLAN_NR_SCHEDTRACE_EVENTS; i++)
		strbuf_addf(&r->cmdline, "%ssched:%s", i ? "," : "", plan_schedtrace_events[i]);
	strbuf_addf(&r->cmdline, " trace_clock=%s trace_options=norecord-cmd lab.schedtrace=boot",
		    clock);
}

/* --kernel image: the image's own kernel and initramfs (labrun.h). */
static int kernel_is_image(const char *spec)
{
	return spec && !strcmp(spec, "image");
}

static void image_payload_fill(struct image_payload *pl, char *runner, char **hook,
			       const struct lab_run *r)
{
	const char *bb = getenv("LAB_BUSYBOX");

	pl->plan = r->plan_text;
	pl->plan_len = r->plan_len;
	*hook = xasprintf("%s/guest/image/init", lab_root());
	pl->runner = runner;
	pl->busybox = bb && *bb ? bb : "/bin/busybox";
	pl->hook = *hook;
}

/* The initrd for an image: the base one plus stage1 (and the disk and
 * filesystem modules); the image gets the runner, the plan and our hook. */
static int image_setup(struct lab_run *r, const char *base, struct strbuf *err)
{
	struct image_payload pl;
	struct cpio cpio = CPIO_INIT;
	char runner[PATH_MAX], *hook, *stage1;
	int ret = -1;

	if (image_initrd_add(r->kp.release, r->kp.config, r->kp.modules, &cpio, err) < 0) {
		cpio_release(&cpio);
		return -1;
	}
	cpio_finish(&cpio);
	stage1 = temp_file_write("image-stage1", cpio.buf.buf, cpio.buf.len, err);
	cpio_release(&cpio);
	if (!stage1)
		return -1;
	if (initrd_find_runner(runner, err) < 0)
		goto out;
	image_payload_fill(&pl, runner, &hook, r);
	r->image.force_tcg = r->accel_kind == ACCEL_TCG;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "lab: preparing an overlay of '%s' (libguestfs)\n", r->image.path);
	ret = image_prepare(&r->image, &pl, err);
	free(hook);
	if (ret < 0)
		goto out;
	r->initrd = join_initrd(base, stage1, err);
	r->initrd_is_temp = 1;
	if (!r->initrd) {
		image_drop_overlay(&r->image);
		ret = -1;
	}
out:
	unlink(stage1);
	free(stage1);
	return ret;
}

static int set_field(char *dst, size_t size, const char *src, struct strbuf *err)
{
	if (strlen(src) >= size) {
		strbuf_addf(err, "path too long: '%s'", src);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

/* After the image's kernel and initramfs moved (temporary file, run dir). */
static int image_kernel_paths(struct lab_run *r, struct strbuf *err)
{
	const struct image *im = &r->image;

	free(r->initrd);
	r->initrd = xstrdup(im->initrd_file);
	r->initrd_is_temp = 0;
	if (set_field(r->kp.bzimage, sizeof(r->kp.bzimage), im->kernel_file, err) < 0 ||
	    set_field(r->kp.config, sizeof(r->kp.config), im->config_file ? im->config_file : "",
		      err) < 0)
		return -1;
	return 0;
}

/*
 * The image boots itself: its kernel and initramfs, copied out of the
 * overlay, mount its root and run our hook as init.  No lab initrd; the
 * plan travels in the image, as with the lab's kernel.
 */
static int image_setup_own(struct lab_run *r, struct strbuf *err)
{
	struct image_payload pl;
	struct kernel_info ki;
	char runner[PATH_MAX], *hook = NULL;
	int ret = -1;

	if (initrd_find_runner(runner, err) < 0)
		return -1;
	image_payload_fill(&pl, runner, &hook, r);
	r->image.force_tcg = r->accel_kind == ACCEL_TCG;
	r->image.own_kernel = 1;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "lab: preparing an overlay of '%s' and copying its kernel out "
			"(libguestfs)\n", r->image.path);
	if (image_prepare(&r->image, &pl, err) < 0)
		goto out;
	if (kernel_check_bzimage(r->image.kernel_file, &ki, err) < 0) {
		char *why = strbuf_detach(err);

		strbuf_addf(err, "the image's kernel %s: %s", r->image.boot.kernel, why);
		free(why);
		goto drop;
	}
	memset(&r->kp, 0, sizeof(r->kp));
	snprintf(r->kp.release, sizeof(r->kp.release), "%s", ki.release[0] ? ki.release : "unknown");
	snprintf(r->kp.source, sizeof(r->kp.source), "image");
	snprintf(r->image_kernel_version, sizeof(r->image_kernel_version), "%s", ki.version);
	if (image_kernel_paths(r, err) < 0)
		goto drop;
	ret = 0;
	goto out;
drop:
	image_drop_overlay(&r->image);
out:
	free(hook);
	return ret;
}

/* --arch on top of what the spec says (topo_set_arch() refuses a clash). */
static int arch_apply(struct lab_run *r, struct topo *t, const char *spec, struct strbuf *err)
{
	enum topo_arch arch;

	if (topo_arch_parse(r->arch, &arch, err) < 0)
		return -1;
	if (topo_set_arch(t, arch, err) < 0) {
		char *why = strbuf_detach(err);

		strbuf_addf(err, "bad topology '%s': %s", spec, why);
		free(why);
		return -1;
	}
	return 0;
}

int lab_run_sched_request(struct lab_run *r, struct strbuf *err)
{
	if (r->sched_feat && sched_feat_request("--sched-feat", r->sched_feat, &r->feat, err) < 0)
		return -1;
	if (r->sched_knob && sched_knob_request("--sched-knob", r->sched_knob, &r->knobs, err) < 0)
		return -1;
	if (r->preempt && sched_preempt_request("--preempt", r->preempt, &r->preempt_mode, err) < 0)
		return -1;
	if (r->append && strpbrk(r->append, "\n\r")) {
		strbuf_addstr(err, "--append must be one line");
		return -1;
	}
	return 0;
}

int lab_run_sched_cmdline(struct lab_run *r, struct strbuf *err)
{
	/* like SMT disabled in firmware: the guest sees the same cores with
	 * every sibling thread offline (topo_expected_view_smt) */
	if (r->smt_off)
		strbuf_addstr(&r->cmdline, " nosmt");
	return lab_run_sched_feat_resolve(r, err) < 0 || lab_run_sched_knob_resolve(r, err) < 0 ? -1 : 0;
}

int lab_run_resolve(struct lab_run *r, struct strbuf *err)
{
	const char *base = NULL;

	if (topo_parse(r->spec, &r->topo, err) < 0) {
		char *why = strbuf_detach(err);

		strbuf_addf(err, "bad topology '%s': %s", r->spec, why);
		free(why);
		return -1;
	}
	if (r->arch && arch_apply(r, &r->topo, r->spec, err) < 0)
		return -1;
	if (r->expect && topo_parse(r->expect, &r->expect_topo, err) < 0) {
		char *why = strbuf_detach(err);

		strbuf_addf(err, "bad topology '%s': %s", r->expect, why);
		free(why);
		return -1;
	}
	if (r->expect && r->arch && arch_apply(r, &r->expect_topo, r->expect, err) < 0)
		return -1;
	if (r->topo.arch != TOPO_ARCH_X86_64 && (r->image_path || kernel_is_image(r->kernel_spec) ||
						 (r->backend && strcmp(r->backend, "qemu")))) {
		strbuf_addf(err, "arch %s boots with the qemu backend and the lab's initrd only (no --image, no libvirt)",
			    topo_arch_info(r->topo.arch)->name);
		return -1;
	}
	r->ops = backend_find(r->backend);
	if (!r->ops) {
		strbuf_addf(err, "unknown backend '%s' (qemu or libvirt)", r->backend);
		return -1;
	}
	if (r->image_path && r->ops != &backend_qemu) {
		strbuf_addstr(err, "--image needs the qemu backend (the libvirt one has no disk yet)");
		return -1;
	}
	if (kernel_is_image(r->kernel_spec) && !r->image_path) {
		strbuf_addstr(err, "--kernel image boots a disk image's own kernel: give the "
			      "image with --image FILE");
		return -1;
	}
	if (r->image_path) {
		r->image.path = r->image_path;
		if (image_probe(&r->image, err) < 0)
			return -1;
	}
	if (getenv("LAB_RECORDS") && *getenv("LAB_RECORDS")) {
		/* undocumented for users: how the lab tests what a LAVA
		 * device does with one console (docs/lava.md) */
		if (strcmp(getenv("LAB_RECORDS"), "console")) {
			strbuf_addf(err, "LAB_RECORDS='%s': the only other transport is 'console'",
				    getenv("LAB_RECORDS"));
			return -1;
		}
		if (r->warm || r->image_path || r->ops != &backend_qemu) {
			strbuf_addstr(err, "LAB_RECORDS=console: a cold QEMU boot of the lab's "
				      "initrd only (no --warm, --image or libvirt)");
			return -1;
		}
		r->records_console = 1;
	}
	if (r->warm && (r->image_path || !r->plan_text)) {
		strbuf_addstr(err, r->image_path ? "--warm cannot restore a guest with a disk image (--image)" :
			      "--warm needs a plan to send: lab run");
		return -1;
	}
	/* libvirtd writes and reads its save image on the hypervisor's host */
	if (r->warm && r->ops == &backend_libvirt && libvirt_uri_remote(libvirt_uri(r->uri))) {
		const char *uri = libvirt_uri(r->uri);

		if (strstr(uri, ":///"))
			strbuf_addstr(err, "--warm under libvirt reads the serial ports through local "
				      "sockets: unset LIBVIRT_REMOTE, or run --cold");
		else
			strbuf_addf(err, "--warm under libvirt needs a local URI such as qemu:///system "
				    "(libvirtd at '%s' writes its save image on its own host): run it --cold", uri);
		return -1;
	}
	if (r->warm && r->plan_len + 256 > WIRE_MAX_PAYLOAD) {
		strbuf_addf(err, "a plan of %zu bytes is too big for --warm (1 MiB with its header)",
			    r->plan_len);
		return -1;
	}
	/* not tried yet: refused rather than trusted (docs/warm-start.md) */
	if (r->warm && r->topo.arch != TOPO_ARCH_X86_64) {
		strbuf_addf(err, "--warm restores x86_64 guests only for now; an %s guest boots cold (--cold)",
			    topo_arch_info(r->topo.arch)->name);
		return -1;
	}
	if (r->warm) {
		long ms;

		if (env_host_ms("LAB_PLAN_NUDGE_MS", LAB_PLAN_NUDGE_MS, 0, 600000, ", 0: never", &ms, err) < 0)
			return -1;
		r->mode = "warm";
		r->plan_nudge_ms = (int)ms;
	}
	if (r->topo.arch != TOPO_ARCH_X86_64) {
		/* KVM runs only guests of the host's own architecture */
		if (r->accel && !strcmp(r->accel, "kvm")) {
			strbuf_addf(err, "ACCEL=kvm: an %s guest runs under TCG on this x86_64 host",
				    topo_arch_info(r->topo.arch)->name);
			return -1;
		}
		r->accel_kind = ACCEL_TCG;
	} else {
		struct strbuf note = STRBUF_INIT;

		if (accel_resolve(r->accel, &r->accel_kind, &note, err) < 0) {
			strbuf_release(&note);
			return -1;
		}
		/* said once the run is sure to start: a bad option stays one line */
		snprintf(r->accel_note, sizeof(r->accel_note), "%s", note.buf);
		strbuf_release(&note);
	}
	if (r->accel_kind == ACCEL_KVM && lab_clock_parse(r->clock) > 0 &&
	    (!r->accel || !*r->accel || !strcmp(r->accel, "auto")))
		r->accel_kind = ACCEL_TCG; /* auto: the virtual clock picks TCG */
	if (tcg_threads_resolve(r, err) < 0 || clock_resolve(r, err) < 0)
		return -1;
	if (r->ops == &backend_libvirt && libvirt_check(r->uri, err) < 0)
		return -1;
	if (pin_resolve(r, err) < 0)
		return -1;
	if (topo_check_limits(&r->topo, r->accel_kind, (uint64_t)sysconf(_SC_PHYS_PAGES) *
			      (uint64_t)sysconf(_SC_PAGESIZE) >> 20, err) < 0)
		return -1;
	if (r->smt_off && r->topo.threads < 2) {
		strbuf_addf(err, "SMT off needs a topology with SMT: '%s' has one thread per core", r->spec);
		return -1;
	}
	if (lab_run_sched_request(r, err) < 0)
		return -1;
	if (r->label && (!*r->label || strlen(r->label) > 64 || strpbrk(r->label, "\n\r\t"))) {
		strbuf_addstr(err, "a label must be one word-like line of 1-64 characters");
		return -1;
	}
	if (kernel_is_image(r->kernel_spec)) {
		if (image_setup_own(r, err) < 0)
			return -1;
	} else if (kernel_resolve_arch(r->kernel_spec, r->topo.arch, &r->kp, err) < 0) {
		return -1;
	} else if (!(base = initrd_cached_arch(r->topo.arch, err))) {
		return -1;
	} else if (r->image_path && image_setup(r, base, err) < 0) {
		return -1;
	}
	if (r->plan && lab_run_scx_resolve(r, err) < 0)
		return -1;
	if (r->image_path) {
		/* r->initrd is set: the plan travels in the image */
	} else if (r->initrd_extra && !r->warm) {
		/* a warm guest gets its plan over the record channel */
		r->initrd = join_initrd(base, r->initrd_extra, err);
		if (!r->initrd)
			return -1;
		r->initrd_is_temp = 1;
	} else {
		r->initrd = xstrdup(base);
	}
	topo_describe(&r->topo, &r->desc);
	strbuf_addf(&r->cmdline, base_cmdline, topo_arch_info(r->topo.arch)->console);
	if (!r->nmi_is_a_fault)
		strbuf_addstr(&r->cmdline, nmi_panic_cmdline);
	if (r->accel_kind == ACCEL_TCG && r->topo.arch == TOPO_ARCH_X86_64)
		tcg_cmdline(r);
	/* /init writes records to the second serial, which is named per arch */
	if (r->topo.arch != TOPO_ARCH_X86_64)
		strbuf_addf(&r->cmdline, " lab.out=%s", topo_arch_info(r->topo.arch)->rec_tty);
	if (lab_run_sched_cmdline(r, err) < 0)
		return -1;
	/* options the kernel about to boot would ignore (slice_us before
	 * 6.12) are bad input too: checked once its release is known */
	if (r->plan_text && *r->kp.release &&
	    plan_check_on_runner(NULL, r->plan_text, r->plan_len, r->kp.release, err) < 0)
		return -1;
	schedtrace_cmdline(r);
	strbuf_addf(&r->cmdline, " lab.mode=%s", r->mode ? r->mode : "probe");
	if (r->records_console)
		strbuf_addstr(&r->cmdline, " lab.records=console");
	if (kernel_is_image(r->kernel_spec) && *r->image.uuid)
		/* the image's initramfs finds its root as the distro's boot would */
		strbuf_addf(&r->cmdline, " root=UUID=%s rw init=/schedlab/init", r->image.uuid);
	else if (kernel_is_image(r->kernel_spec))
		strbuf_addf(&r->cmdline, " root=%s rw init=/schedlab/init", r->image.root_guest);
	else if (r->image_path)
		strbuf_addf(&r->cmdline, " lab.root=%s lab.rootfstype=%s",
			    r->image.root_guest, r->image.fstype);
	if (r->append)
		strbuf_addf(&r->cmdline, " %s", r->append);
	if (*r->accel_note)
		info("%s", r->accel_note);
	return 0;
}

static unsigned default_timeout_s(const struct lab_run *r)
{
	/* TCG brings vCPUs up one by one on 2 host cores: ~0.2 s each, with
	 * a wide margin; a timeout is a HANG verdict, so be generous.  An
	 * image's own initramfs (udev, module loading, fsck) takes longer. */
	unsigned own = kernel_is_image(r->kernel_spec) ? LAB_IMAGE_KERNEL_EXTRA_S : 0;

	return own + (r->accel_kind == ACCEL_KVM ? 60 : 60 + topo_nr_cpus(&r->topo) / 2);
}

const char *lab_tcg_boot_stuck(const struct lab_run *r)
{
	if (r->accel_kind != ACCEL_TCG || r->s.console.init_line)
		return NULL;
	if (r->verdict == VERDICT_HANG)
		return "hung before userspace";
	/* 7.x kernels die of the int3 once the patch is done (docs/tcg.md);
	 * one TCG thread cannot run a stale translation, so an int3 there is
	 * the kernel's own */
	if (r->verdict == VERDICT_CRASH && !r->tcg_single && r->s.console.int3_line)
		return "died of a stale int3 before userspace";
	return NULL;
}

static int keep_attempt(const char *dir, int attempt)
{
	static const char *const files[] = { "console.log", "records.bin", "qemu.log", "hang-vcpus.txt" };
	char *sub = xasprintf("%s/attempt-%d", dir, attempt);
	int ret = mkdir_p(sub, 0755);

	for (size_t i = 0; !ret && i < ARRAY_SIZE(files); i++) {
		char *from = xasprintf("%s/%s", dir, files[i]);
		char *to = xasprintf("%s/%s", sub, files[i]);

		if (rename(from, to) < 0 && errno != ENOENT)
			ret = error("cannot move '%s' to '%s': %s", from, to, strerror(errno));
		free(from);
		free(to);
	}
	free(sub);
	return ret;
}

/* The records the image kept must be the records the channel delivered. */
static void image_check_results(struct lab_run *r)
{
	struct strbuf why = STRBUF_INIT;
	int ret = image_collect(&r->image, r->dir.buf, &why);

	r->image_agree = ret;
	if (ret == 0) {
		printf("image: results agree with the record channel (%llu records, "
		       "overlay %.1f s, read-back %.1f s)\n",
		       (unsigned long long)r->image.guest_records,
		       r->image.prepare_s, r->image.collect_s);
	} else {
		printf("image: %s: %s\n", ret < 0 ? "results unreadable" : "results DISAGREE", why.buf);
		if (r->verdict == VERDICT_PASS) {
			r->verdict = VERDICT_FAIL;
			snprintf(r->reason, sizeof(r->reason), "image results %s the record channel: %.400s",
				 ret < 0 ? "unreadable, cannot check against" : "disagree with", why.buf);
		}
	}
	fflush(stdout);
	strbuf_release(&why);
}

/* Where the image's kernel came from, for run.json. */
static struct json_object *image_kernel_json(const struct lab_run *r)
{
	const struct image_boot *b = &r->image.boot;
	struct json_object *o = json_object_new_object();

	results_add_str(o, "source", "image");
	results_add_str(o, "path", b->kernel);
	results_add_str(o, "initrd", b->initrd);
	json_object_object_add(o, "config", b->config ? json_object_new_string(b->config) : NULL);
	results_add_str(o, "found_by", b->how);
	results_add_str(o, "version", r->image_kernel_version);
	results_add_str(o, "release", r->kp.release);
	return o;
}

static void warm_save_cb(void *ctx, struct backend *b)
{
	struct lab_run *r = ctx;
	struct warm *w = &r->warm_state;

	if (warm_save(w, b, r->s.conf->run_dir, topo_total_mem_mib(&r->topo)) < 0)
		warning("guest not saved for warm starts: %s", w->why);
	else if (w->saved && !r->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "lab: guest saved as snapshot %.12s in %.1f s\n", w->key, w->save_s);
}

/* The virtual clock's seed the guest gets: --seed, or the lab's default. */
static unsigned run_seed(const struct lab_run *r)
{
	return r->seed ? r->seed : (unsigned)strtoul(LAB_ICOUNT_SEED, NULL, 10);
}

/* One line, and the snapshot goes: a later run must not trip on it again. */
static void warm_fallback(struct lab_run *r, struct strbuf *err)
{
	if (r->warm_state.busy) {
		/* sound, only in use (libvirt): it stays, and this boot is not saved */
		printf("start: snapshot %.12s is in use (%s); booting cold\n", r->warm_state.key, err->buf);
		r->warm_state.restoring = 0;
	} else {
		printf("start: snapshot %.12s did not restore (%s); deleted, booting cold\n",
		       r->warm_state.key, err->buf);
		warm_drop(&r->warm_state);
	}
	fflush(stdout);
	r->start = "cold";
}

/* The saved guest's key (and snapshot, if any) and the plan to send. */
static void warm_prepare(struct lab_run *r, struct backend_conf *conf, const char *qver,
			 struct session_warm *sw)
{
	struct strbuf err = STRBUF_INIT;
	char key[WARM_KEY_HEX];

	if (warm_key(conf, r->ops->name, qver, key, &err) < 0) {
		/* the guest still parks: it gets its plan, nothing is saved */
		warning("no warm start: %s", err.buf);
		strbuf_reset(&err);
	} else {
		warm_release(&r->warm_state);
		warm_init(&r->warm_state, key);
		sw->save = warm_save_cb;
		sw->ctx = r;
	}
	/* lab_run_resolve() checked the size; without a frame the parked
	 * guest waits for nothing and the run ends a HANG, said here */
	if (warm_plan_frame(&r->warm_state, r->plan_text, r->plan_len,
			    r->clock_virtual ? run_seed(r) : 0, r->warm_set.buf, &err) < 0)
		error("%s", err.buf);
	sw->plan_frame = r->warm_state.plan_frame.buf;
	sw->plan_frame_len = r->warm_state.plan_frame.len;
	if (r->warm_state.restoring)
		printf("start: warm (snapshot %.12s)\n", r->warm_state.key);
	else if (sw->save)
		printf("start: cold, then saved for warm starts (snapshot %.12s)\n", r->warm_state.key);
	fflush(stdout);
	strbuf_release(&err);
}

int lab_run_start(struct lab_run *r, struct json_object *extra)
{
	struct session_warm sw = { 0 };
	struct topo_kernel_facts facts;
	int ret;
	struct backend_conf conf = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct json_object *run;
	char *qver, *name;
	const char *part, *stuck;
	char *plan_file = NULL;

	printf("%s\n", r->desc.buf);
	printf("kernel: %s (%s)\n", r->kp.release, r->kp.source);
	if (kernel_is_image(r->kernel_spec))
		printf("image kernel: %s, initramfs %s (found by %s)\n", r->image.boot.kernel,
		       r->image.boot.initrd, r->image.boot.how);
	if (r->accel_kind == ACCEL_KVM)
		printf("accel: kvm\n");
	else
		printf("accel: tcg, %s-threaded (%s)\n", r->tcg_single ? "single" : "multi", r->tcg_why);
	if (r->clock_virtual)
		printf("clock: virtual (icount shift=%u: %u ns per instruction)\n", r->icount_shift,
		       1u << r->icount_shift);
	if (r->smt_off)
		printf("smt: off (nosmt: sibling threads offline)\n");
	if (r->feat.nr) {
		char list[SCHED_FEAT_WANT_MAX * (SCHED_FEAT_NAME_MAX + 1) + 1];

		sched_feat_join(&r->feat, ' ', list, sizeof(list));
		printf("sched_feat: %s\n", list);
	}
	if (r->knobs.nr) {
		char list[SCHED_KNOB_WANT_MAX * (SCHED_KNOB_NAME_MAX + 24) + 1];

		sched_knob_join(&r->knobs, ' ', list, sizeof(list));
		printf("sched_knob: %s\n", list);
	}
	if (r->preempt_mode >= 0)
		printf("preempt: %s\n", sched_preempt_name(r->preempt_mode));
	if (r->label)
		printf("label: %s\n", r->label);
	if (r->pin.cpu) {
		struct strbuf map = STRBUF_INIT;

		for (unsigned i = 0; i < r->pin.n; i++)
			strbuf_addf(&map, "%s%u", i ? "," : "", r->pin.cpu[i]);
		printf("pin: %u vCPU%s on host CPU%s %s%s\n", r->pin.n, r->pin.n == 1 ? "" : "s",
		       r->pin.n == 1 ? "" : "s", map.buf, r->pin.strict ? " (strict)" : "");
		strbuf_release(&map);
	}
	fflush(stdout);
	if (*r->pin_note)
		warning("pin: %s; running unpinned", r->pin_note);

	if (r->resume_dir) {
		strbuf_addstr(&r->dir, r->resume_dir);
	} else if (results_create_run(r->results_root ? r->results_root : results_root(),
				      r->topo.name[0] ? r->topo.name : r->spec, &r->dir) < 0) {
		if (extra)
			json_object_put(extra);
		return -1;
	}
	/* the run keeps its disk (and the image's kernel): run.json names them */
	if (r->image_path && (image_adopt_overlay(&r->image, r->dir.buf, &err) < 0 ||
			      (kernel_is_image(r->kernel_spec) && image_kernel_paths(r, &err) < 0))) {
		error("%s", err.buf);
		strbuf_release(&err);
		if (extra)
			json_object_put(extra);
		return -1;
	}
	/* a resumed run's guest writes into its new part; verdict and cases
	 * stay in the run directory */
	part = r->resume_part ? r->resume_part : r->dir.buf;
	qver = qemu_version_string(r->topo.arch);
	run = run_json_new(r->command, r->spec, r->topo.spec, r->desc.buf, r->ops->name);
	if (r->ops == &backend_libvirt) {
		results_add_str(run, "libvirt_uri", libvirt_uri(r->uri));
		/* how kernel, initrd and the serial ports reached the hypervisor */
		results_add_str(run, "libvirt_transport",
				libvirt_uri_remote(libvirt_uri(r->uri)) ? "pool+streams" : "local sockets");
	}
	results_add_str(run, "arch", topo_arch_info(r->topo.arch)->name);
	results_add_str(run, "accel", r->accel_kind == ACCEL_KVM ? "kvm" : "tcg");
	if (*r->accel_note)
		results_add_str(run, "accel_why", r->accel_note);
	if (r->accel_kind == ACCEL_TCG)
		results_add_str(run, "tcg_threads", r->tcg_single ? "single" : "multi");
	results_add_str(run, "clock", r->clock_virtual ? "virtual" : "wall");
	if (r->clock_virtual) {
		json_object_object_add(run, "icount_shift", json_object_new_int((int)r->icount_shift));
		json_object_object_add(run, "seed", json_object_new_int64(run_seed(r)));
		if (r->kick_ms) {
			json_object_object_add(run, "icount_kick_ms", json_object_new_int(r->kick_ms));
			results_add_str(run, "icount_kick", r->kick_always ? "always" : "boot");
		} else if (topo_boot_cpus(&r->topo) > 1) {
			results_add_str(run, "icount_kick", "never");
		}
	}
	results_add_str(run, "qemu", qver);
	if (r->ops == &backend_qemu) {
		const char *fw = qemu_firmware();

		results_add_str(run, "firmware", fw ? fw : "seabios");
	}
	results_add_str(run, "kernel", r->kp.release);
	results_add_str(run, "kernel_source", r->kp.source);
	results_add_str(run, "kernel_image", r->kp.vmlinux[0] ? r->kp.vmlinux : r->kp.bzimage);
	if (kernel_is_image(r->kernel_spec))
		json_object_object_add(run, "image_kernel", image_kernel_json(r));
	results_add_str(run, "cmdline", r->cmdline.buf);
	if (kernel_is_image(r->kernel_spec))
		results_add_str(run, "initrd_image", r->initrd);
	results_add_str(run, "smt", r->topo.threads < 2 ? "none" : r->smt_off ? "off" : "on");
	if (r->feat.nr)
		json_object_object_add(run, "sched_feat", sched_feat_json(&r->feat));
	if (r->knobs.nr)
		json_object_object_add(run, "sched_knob", sched_knob_json(&r->knobs));
	if (r->preempt_mode >= 0)
		results_add_str(run, "preempt", sched_preempt_name(r->preempt_mode));
	if (r->label)
		results_add_str(run, "label", r->label);
	if (r->image_path) {
		results_add_str(run, "image", r->image.abspath);
		results_add_str(run, "image_format", r->image.format);
		results_add_str(run, "image_os", r->image.os);
		results_add_str(run, "image_root", r->image.root_guest);
	}
	json_object_object_add(run, "host", results_host_info());
	if (extra) {
		json_object_object_foreach(extra, k, v)
			json_object_object_add(run, k, json_object_get(v));
		json_object_put(extra);
	}

	/* the generation of the kernel as far as its file says; the guest's
	 * own uname corrects it at verification (an image's kernel, an arm64
	 * Image without a version string) */
	r->gen = kgen_for_release(r->kp.release);
	r->expected = topo_expected_view_gen(r->expect ? &r->expect_topo : &r->topo, r->smt_off,
					     kgen_topo_facts(r->gen, &facts));
	results_write_json(part, "expected-topology.json", r->expected);

	name = xasprintf("schedlab-%ld", (long)getpid());
	conf.topo = &r->topo;
	conf.accel = r->accel_kind;
	conf.host_is_amd = host_cpu_is_amd();
	conf.tcg_single = r->tcg_single;
	conf.icount = r->clock_virtual;
	conf.icount_shift = r->icount_shift;
	conf.seed = r->seed;
	/* The ELF vmlinux boots through PVH: no decompression, no real mode. */
	conf.kernel = r->kp.vmlinux[0] ? r->kp.vmlinux : r->kp.bzimage;
	conf.initrd = r->initrd;
	conf.cmdline = r->cmdline.buf;
	conf.disk = r->image_path ? r->image.overlay : NULL;
	conf.run_dir = part;
	conf.name = name;
	conf.uri = r->uri;
	if (r->warm)
		warm_prepare(r, &conf, qver, &sw);
	json_object_object_add(run, "start", json_object_new_string(r->warm_state.restoring ? "warm" : "cold"));
	if (r->warm)
		results_add_str(run, "snapshot", r->warm_state.key);
	if (r->records_console)
		results_add_str(run, "records", "console");
	run_json_write(part, run);
	free(qver);

	for (;;) {
		int restoring = r->warm && r->warm_state.restoring;

		if (restoring && warm_restore_begin(&r->warm_state, &conf, &err) < 0) {
			warm_fallback(r, &err);
			if (r->warm_state.busy)
				sw.save = NULL;
			strbuf_reset(&err);
			restoring = 0;
		}
		/* QEMU restores read the plan from fw_cfg (guest/runner/fwcfg.h)
		 * when the saved runner could; libvirt's keep the record port */
		if (restoring && r->ops == &backend_qemu && r->topo.arch == TOPO_ARCH_X86_64 &&
		    !warm_prefix_reads_fwcfg(r->warm_state.prefix.buf, r->warm_state.prefix.len))
			info("the plan goes on the record port: the saved guest cannot read fw_cfg "
			     "(no ioperm: kernel lockdown?)");
		else if (restoring && r->ops == &backend_qemu && r->topo.arch == TOPO_ARCH_X86_64 &&
			 !(plan_file = warm_plan_file(&r->warm_state, &err))) {
			warning("the plan goes on the record port: %s", err.buf);
			strbuf_reset(&err);
		}
		conf.fwcfg_plan = restoring ? plan_file : NULL;
		sw.plan_in_fwcfg = conf.fwcfg_plan != NULL;
		sw.restore = restoring;
		sw.prefix = r->warm_state.prefix.buf;
		sw.prefix_len = r->warm_state.prefix.len;
		r->s.warm = r->warm ? &sw : NULL;
		if (!restoring)
			r->attempts++;
		r->s.ops = r->ops;
		r->s.pin = r->pin.cpu ? &r->pin : NULL;
		r->s.records_console = r->records_console;
		r->s.conf = &conf;
		r->s.plan = r->plan;
		r->s.watch = r->watch;
		r->s.stop = r->stop;
		r->s.quiet = r->quiet;
		r->s.kick_ms = r->kick_ms;
		r->s.kick_until_ready = !r->kick_always;
		r->s.plan_nudge_ms = r->plan_nudge_ms;
		r->s.timeout_ms = (int)(r->timeout_s ? r->timeout_s
					: default_timeout_s(r)) * 1000;
		/* an image's hook syncs its copy of the results after END */
		r->s.end_grace_ms = r->image_path ? 60000 : 0;
		ret = session_run(&r->s, &err);
		if (plan_file) {
			unlink(plan_file);
			free(plan_file);
			plan_file = NULL;
			conf.fwcfg_plan = NULL;
		}
		if (restoring) {
			close(conf.incoming_fd);
			conf.restore = 0;
			warm_restore_end(&r->warm_state);
		}
		if (ret < 0 && restoring) {
			/* no guest ran: boot one, and save it again */
			warm_fallback(r, &err);
			session_release(&r->s);
			session_init(&r->s);
			strbuf_reset(&err);
			continue;
		}
		if (restoring)
			r->start = "warm";
		if (ret < 0) {
			error("%s (see %s/qemu.log)", err.buf, r->dir.buf);
			r->verdict = VERDICT_FAIL;
			snprintf(r->reason, sizeof(r->reason), "backend did not start: %.400s", err.buf);
		} else {
			r->verdict = r->s.verdict;
			snprintf(r->reason, sizeof(r->reason), "%s", r->s.reason);
		}
		r->s.conf = NULL;
		stuck = lab_tcg_boot_stuck(r);
		if (!stuck || r->attempts >= LAB_TCG_BOOT_ATTEMPTS || !strcmp(r->start, "warm"))
			break;
		/* MTTCG in QEMU 7.2 can leave a vCPU running a stale translation of
		 * code the kernel live-patched (an int3 it already removed), always
		 * before userspace: the late initcall that turns on the
		 * sched_clock_stable and sched_clock_running keys patches the
		 * clock paths every idle vCPU runs through (7.x kernels flip
		 * more keys there).  6.1 hangs with the others waiting for that
		 * vCPU, 7.2 dies of the int3.  The more vCPUs, the likelier: a
		 * few boots in a hundred at 1s2c, one attempt in seven at 2s64c
		 * on an idle 2-core host, one in ten of 7.2 at 2s4c (docs/tcg.md).
		 * Keep that attempt's evidence and boot again; a kernel that
		 * really hangs or dies in early boot does so every time and
		 * stays a HANG or CRASH. */
		if (keep_attempt(part, r->attempts) < 0)
			break;
		warning("guest %s under TCG; evidence kept in %s/attempt-%d, booting again",
			stuck, part, r->attempts);
		session_release(&r->s);
		session_init(&r->s);
		strbuf_reset(&err);
	}
	free(name);
	strbuf_release(&err);
	/*
	 * A restore that stayed silent until the nudge woke it: every restore
	 * of that saved guest would (so it was when the runner read fw_cfg's
	 * directory after the save, docs/warm-start.md), and a new save is a
	 * new chance.  The run itself stands.
	 */
	if (!strcmp(r->start, "warm") && r->s.t_nudge_ns &&
	    r->s.t_nudge_ns - r->s.t_plan_ns >= LAB_PLAN_STALL_MS * 1000000ull) {
		printf("start: snapshot %.12s stalled after its restore until the nudge; deleted, the next "
		       "--warm run saves a new one\n", r->warm_state.key);
		warm_drop(&r->warm_state);
	}
	if (strcmp(r->start, json_object_get_string(json_object_object_get(run, "start"))) ||
	    r->pin_want) {
		/* the snapshot did not restore: the run booted after all */
		json_object_object_add(run, "start", json_object_new_string(r->start));
		if (r->pin_want)
			json_object_object_add(run, "pin", lab_run_pin_json(r));
		run_json_write(part, run);
	}
	if (r->pin.cpu && r->pin.applied && r->pin.held >= 0)
		printf("pin: %s\n", r->pin.held ? "held for the whole run" : r->pin.why);
	else if (r->pin.cpu && r->pin.applied)
		printf("pin: applied; not checked at the end (the guest was gone)\n");
	json_object_put(run);
	if (r->image_path)
		image_check_results(r);
	return 0;
}

/* run.json "pin": the map and whether it held, or why there was none */
struct json_object *lab_run_pin_json(const struct lab_run *r)
{
	struct json_object *o;

	if (r->pin.cpu)
		return vcpu_pin_json(&r->pin);
	o = json_object_new_object();
	json_object_object_add(o, "mode", json_object_new_string(r->pin.strict ? "strict" : "yes"));
	json_object_object_add(o, "applied", json_object_new_boolean(0));
	json_object_object_add(o, "why", json_object_new_string(r->pin_note));
	return o;
}

static void print_topology(const struct lab_run *r);
static void verify_views(struct lab_run *r, struct strbuf *err);

void lab_run_verify(struct lab_run *r)
{
	struct strbuf err = STRBUF_INIT;

	verify_views(r, &err);
	print_topology(r);
	strbuf_release(&err);
}


/*
 * The expected view for the generation of the kernel the guest says it
 * runs (uname in its snapshot), when that is not the one it was made for;
 * expected-topology.json follows.
 */
static void expect_guest_generation(struct lab_run *r)
{
	struct json_object *k = NULL;
	struct topo_kernel_facts facts;
	const struct kernel_gen *g;

	if (!json_object_object_get_ex(r->guest, "kernel", &k) || !json_object_is_type(k, json_type_string))
		return;
	g = kgen_for_release(json_object_get_string(k));
	if (!g || g == (r->gen ? r->gen : kernel_gens[0]))
		return;
	r->gen = g;
	json_object_put(r->expected);
	r->expected = topo_expected_view_gen(r->expect ? &r->expect_topo : &r->topo, r->smt_off,
					     kgen_topo_facts(g, &facts));
	results_write_json(r->dir.buf, "expected-topology.json", r->expected);
}
static void verify_views(struct lab_run *r, struct strbuf *err)
{

	if (r->s.sysfs.len) {
		r->guest = guest_view_from_sysfs_flags(r->s.sysfs.buf, r->s.sysfs.len,
			r->topo.arch == TOPO_ARCH_ARM64 ? GUEST_VIEW_CLUSTERS : 0, err);
		if (r->guest)
			results_write_json(r->dir.buf, "guest-topology.json", r->guest);
		else
			error("guest topology unreadable: %s", err->buf);
	}
	if (!r->guest) {
		if (r->verdict == VERDICT_PASS) {
			r->verdict = VERDICT_FAIL;
			snprintf(r->reason, sizeof(r->reason), "the guest sent no topology snapshot");
		}
		return;
	}
	expect_guest_generation(r);
	/* a snapshot that arrived is verified whatever happened later */
	r->ndiff = view_compare(r->expected, r->guest, &r->diff, 40);
	if (r->ndiff && r->verdict == VERDICT_PASS) {
		r->verdict = VERDICT_FAIL;
		snprintf(r->reason, sizeof(r->reason), "guest topology differs");
	}
}

static void print_topology(const struct lab_run *r)
{
	if (r->ndiff == 0) {
		printf("topology: PASS\n");
	} else if (r->ndiff > 0) {
		printf("topology: FAIL (%d difference%s)\n", r->ndiff, r->ndiff == 1 ? "" : "s");
		fputs(r->diff.buf, stdout);
	} else {
		printf("topology: not verified (%s)\n", verdict_name(r->verdict));
	}
	fflush(stdout);
}

/* The guest's own clock on a console line: "[   12.345678] ...". */
static double guest_stamp(const char *line)
{
	char *end;
	double t;

	while (*line == ' ')
		line++;
	if (*line++ != '[')
		return -1;
	t = strtod(line, &end);
	if (end == line || *end != ']' || t < 0)
		return -1;
	return t;
}

static void add_secs(struct json_object *v, const char *key, uint64_t ns, uint64_t base)
{
	json_object_object_add(v, key, json_object_new_double((double)(ns - base) / 1e9));
}

/*
 * When the failure was seen and when the verdict was made, host side (s
 * since the session started), plus the guest's own time stamp of the
 * first failure line: how quickly a CRASH or HANG is turned into a verdict.
 */
static void add_timing(struct json_object *v, const struct session *s, uint64_t verdict_ns)
{
	add_secs(v, "t_verdict_s", verdict_ns, s->t_start_ns);
	if (s->t_crash_ns) {
		add_secs(v, "t_first_failure_s", s->t_crash_ns, s->t_start_ns);
		add_secs(v, "verdict_after_failure_s", verdict_ns, s->t_crash_ns);
	}
	if (s->t_halt_ns) {
		struct json_object *h = json_object_new_object();

		results_add_str(h, "run_state", s->halt.state);
		results_add_str(h, "event", s->halt.cause);
		results_add_str(h, "stderr", s->halt_lines);
		add_secs(h, "t_s", s->t_halt_ns, s->t_start_ns);
		add_secs(h, "verdict_after_s", verdict_ns, s->t_halt_ns);
		json_object_object_add(v, "hypervisor_halt", h);
	}
	if (s->t_deadline_ns) {
		add_secs(v, "t_deadline_s", s->t_deadline_ns, s->t_start_ns);
		add_secs(v, "verdict_after_deadline_s", verdict_ns, s->t_deadline_ns);
	}
	if (s->console.first_pattern && guest_stamp(s->console.first) >= 0)
		json_object_object_add(v, "guest_first_failure_s",
				       json_object_new_double(guest_stamp(s->console.first)));
}

void lab_run_report(struct lab_run *r, struct json_object *extra)
{
	struct session *s = &r->s;
	struct json_object *v = verdict_json_new(verdict_name(r->verdict), r->reason,
						 r->ndiff == 0 ? "PASS" : r->ndiff > 0 ? "FAIL" : "not verified");
	double boot_s = s->t_end_record_ns ? (double)(s->t_end_record_ns - s->t_start_ns) / 1e9 : -1;

	if (r->ndiff > 0)
		results_add_str(v, "topology_diff", r->diff.buf);
	json_object_object_add(v, "wall_to_end_s", json_object_new_double(boot_s));
	json_object_object_add(v, "wall_to_runner_s", json_object_new_double(
		s->t_init_ns ? (double)(s->t_init_ns - s->t_start_ns) / 1e9 : -1));
	json_object_object_add(v, "records", json_object_new_int64((int64_t)s->wire.records));
	json_object_object_add(v, "records_missing", json_object_new_int64((int64_t)s->wire.missing));
	json_object_object_add(v, "records_corrupt",
			       json_object_new_int64((int64_t)(s->wire.bad_crc + s->wire.bad_header)));
	json_object_object_add(v, "console_splats", json_object_new_int64(s->console.splats));
	if (s->console.first_pattern) {
		results_add_str(v, "console_first_failure", s->console.first);
		json_object_object_add(v, "console_first_failure_line",
				       json_object_new_int64((int64_t)s->console.first_line_no));
	}
	results_add_str(v, "hypervisor", s->hypervisor_version);
	json_object_object_add(v, "boot_attempts", json_object_new_int(r->attempts));
	if (r->clock_virtual)
		json_object_object_add(v, "icount_kicks", json_object_new_int64((int64_t)s->kicks));
	results_add_str(v, "start", r->start);
	/* from the command's start: what a warm start saves */
	json_object_object_add(v, "wall_to_first_case_s", json_object_new_double(
		s->t_first_case_ns ? (double)(s->t_first_case_ns - r->t_init_ns) / 1e9 : -1));
	if (r->warm_state.saved)
		json_object_object_add(v, "snapshot_save_s", json_object_new_double(r->warm_state.save_s));
	if (s->t_plan_ns && s->t_first_case_ns) {
		/* where the time to the first case goes (docs/warm-start.md) */
		struct json_object *ph = json_object_new_object();

		add_secs(ph, "prepare_s", s->t_start_ns, r->t_init_ns);
		add_secs(ph, "start_s", s->t_started_ns, s->t_start_ns);
		add_secs(ph, "to_plan_s", s->t_plan_ns, s->t_started_ns);
		add_secs(ph, "plan_to_first_case_s", s->t_first_case_ns, s->t_plan_ns);
		json_object_object_add(v, "warm_phases", ph);
		/* how the parked runner got its plan: fw_cfg (a QEMU restore,
		 * at one virtual time every time) or the record port */
		results_add_str(v, "plan_via", s->plan_fwcfg ? "fw_cfg" : "record port");
		/* and, from a silent restored guest, the record port as well */
		if (s->t_nudge_ns)
			add_secs(v, "plan_nudged_after_s", s->t_nudge_ns, s->t_plan_ns);
	}
	add_timing(v, s, now_ns());
	if (r->image_path) {
		results_add_str(v, "image_results", r->image_agree == 0 ? "agree" :
			r->image_agree > 0 ? "disagree" : "unreadable");
		json_object_object_add(v, "image_records",
				       json_object_new_int64((int64_t)r->image.guest_records));
		json_object_object_add(v, "image_prepare_s", json_object_new_double(r->image.prepare_s));
		json_object_object_add(v, "image_collect_s", json_object_new_double(r->image.collect_s));
		/* the guest powers off by itself after syncing its results */
		json_object_object_add(v, "wall_to_poweroff_s", json_object_new_double(
			s->t_stop_ns ? (double)(s->t_stop_ns - s->t_start_ns) / 1e9 : -1));
	}
	if (extra) {
		json_object_object_foreach(extra, k, val)
			json_object_object_add(v, k, json_object_get(val));
		json_object_put(extra);
	}
	verdict_write(r->dir.buf, v);
	json_object_put(v);
}
