/* cmd-run.c - `lab run --topo SPEC --suite NAME`: compile the scenarios,
 * check them with the runner itself, boot, run them, and report per case. */
#define _GNU_SOURCE
#include "kernel/initrd.h"
#include "cmd/lab.h"
#include "run/labrun.h"
#include "run/schedfeat.h"
#include "run/schedknob.h"
#include "cmd/options.h"
#include "fault/hostfault.h"
#include "common/plan.h"
#include "results/results.h"
#include "results/runreport.h"
#include "run/progress-run.h"
#include "run/resume.h"
#include "run/scx-run.h"
#include "run/tracekeep-run.h"
#include "scenario/scenario.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char run_usage[] =
	"lab run --topo SPEC (--suite NAME | --scenario FILE) [--kernel K] [--accel A] [--arch A] "
	"[--backend qemu|libvirt] [--uri URI] [--timeout S] [--smt on|off] [--sched-feat NO_X,Y] [--sched-knob base_slice_ns=N] [--preempt MODE] [--clock wall|virtual] [--label L] [--image FILE] [--trace] [--pin[=strict]] "
	"[--scx NAME|PATH] [--warm|--cold] [--quiet]\n   or: lab run --resume DIR [--topo SPEC] [--kernel K] [...]";

/*
 * A resumed run boots as the stopped one did: its parts are one run, one
 * setup.  An option not given takes the stopped run's value; one given
 * must be that value.
 */
static void resume_boot_option(const char **opt, const char *was, const char *name, const char *dir)
{
	if (!*opt) {
		*opt = was;
		return;
	}
	if (was && !strcmp(*opt, was))
		return;
	if (was)
		die(LAB_EXIT_USAGE, "'%s' ran with %s %s: resume it without %s or with that", dir, name,
		    was, name);
	die(LAB_EXIT_USAGE, "'%s' ran without %s: resume it without %s", dir, name, name);
}

/* A run that ended early says where: the last case it finished, and the
 * one it was in (verdict.json carries both too). */
static void name_cases(struct lab_run *r, const struct run_progress *rp, struct json_object *vx)
{
	const char *last = run_progress_last_case(rp), *during = run_progress_running_case(rp);
	size_t n = strlen(r->reason);

	if (r->verdict != VERDICT_STOPPED && r->verdict != VERDICT_HANG)
		return;
	snprintf(r->reason + n, sizeof(r->reason) - n, "; last case finished: %s%s%s",
		 last ? last : "none", during ? ", stopped during " : "", during ? during : "");
	json_object_object_add(vx, "last_case", last ? json_object_new_string(last) : NULL);
	json_object_object_add(vx, "stopped_during", during ? json_object_new_string(during) : NULL);
}

int cmd_run(int argc, const char **argv)
{
	const char *suite = NULL, *scenario = NULL, *smt = NULL;
	struct strbuf err = STRBUF_INIT, plan = STRBUF_INIT;
	struct cpio cpio = CPIO_INIT;
	struct json_object *extra, *cases = NULL, *vx;
	char *cpio_path = NULL, *p;
	struct lab_run r;
	struct plan parsed = { 0 };
	char perr[256];
	int nr_pos, ret, bad, quiet = 0, warm = 0, cold = 0, trace = 0;
	const char *resume = NULL, *scx = NULL;
	struct strbuf scheds = STRBUF_INIT;
	struct strvec params = STRVEC_INIT;
	char *label = NULL;
	struct run_resume rr = RUN_RESUME_INIT;
	struct run_progress rp;

	lab_run_init(&r);
	r.command = "run";
	r.mode = "run";
	r.accel = getenv("ACCEL");
	r.tcg_threads = getenv("TCG_THREADS");
	r.clock = getenv("CLOCK");
	r.backend = getenv("BACKEND");
	{
		const struct lab_option opts[] = {
			OPT_STRING("topo", &r.spec, "topology spec or preset (required)"),
			OPT_STRING("suite", &suite, "a suite under scenarios/suites/"),
			OPT_STRING("scenario", &scenario, "one scenario file"),
			OPT_STRING("kernel", &r.kernel_spec, "kernel: 'debian' (default, Debian 12's 6.1), 'debian:6.12' and the like (lab kernel --list), a bzImage/vmlinux path, a built kernel's key, or 'image' (with --image: the image's own kernel and initramfs)"),
			OPT_STRING("accel", &r.accel, "auto (default), tcg or kvm"),
			OPT_STRING("arch", &r.arch, "guest architecture: x86_64 (default), arm64 or ppc64le"),
			OPT_STRING("tcg-threads", &r.tcg_threads, "auto (default: single when the plan has faults or a profile, multi when it hot-removes vCPUs), single or multi"),
			OPT_OPTARG("pin", &r.pin_opt, "bind each vCPU thread to a host CPU (SMT siblings on one host core, each LLC in one host LLC); =strict refuses a guest that does not fit, =no overrides a scenario"),
			OPT_STRING("clock", &r.clock, "wall (default) or virtual: guest time counts instructions (QEMU icount), not the host's clock ($CLOCK)"),
			OPT_UINT("seed", &r.seed, 1, 2147483647, "with --clock virtual: the seed of the guest's random numbers (RDRAND, virtio-rng; KASLR and hash seeds follow), default one for every boot: the same kernel and plan give the same numbers"),
			OPT_STRING("backend", &r.backend, "qemu (default) or libvirt ($BACKEND)"),
			OPT_STRING("uri", &r.uri, "libvirt URI ($LIBVIRT_URI, default qemu:///system)"),
			OPT_UINT("timeout", &r.timeout_s, 1, 604800, "seconds for the whole run (default: boot + case deadlines)"),
			OPT_STRING("append", &r.append, "extra kernel command line"),
			OPT_STRING("image", &r.image_path, "run inside this qcow2/raw distro image (an overlay; never written)"),
			OPT_STRING("results", &r.results_root, "results root (default results/ or $LAB_RESULTS)"),
			OPT_STRING("smt", &smt, "off: boot with nosmt, sibling threads offline (default on)"),
			OPT_STRING("sched-feat", &r.sched_feat, "scheduler features to set before the first case, as in /sys/kernel/debug/sched/features: NO_WA_IDLE,NO_SIS_UTIL"),
			OPT_STRING("sched-knob", &r.sched_knob, "scheduler knobs to set before the first case, in /sys/kernel/debug/sched/: base_slice_ns=3000000 (Linux 6.6+)"),
			OPT_STRING("preempt", &r.preempt, "boot with preempt=MODE: none, voluntary, full or lazy (a CONFIG_PREEMPT_DYNAMIC kernel; lazy needs CONFIG_PREEMPT_LAZY)"),
			OPT_STRING("scx", &scx, "a sched_ext scheduler for every case: simple, qmap, central, ... (lab scx --list; arguments after a space: 'qmap -t 2'), a static program of your own (PATH), or none; the kernel needs CONFIG_SCHED_CLASS_EXT"),
			OPT_STRVEC("param", &params, "[SCENARIO:]KEY=VALUE: the workload parameter KEY of every case (or of SCENARIO's) set to VALUE, the case ids unchanged (lab ab --test-param: a known effect); repeatable"),
			OPT_STRING("label", &r.label, "run label for lab compare (default: kernel release)"),
			OPT_STRING("resume", &resume, "continue this stopped run with the cases it did not finish (same topology, kernel and plan)"),
			OPT_BOOL("quiet", &quiet, "no progress lines on stderr"),
			OPT_BOOL("trace", &trace, "the flight recorder in every case: schedtrace added to each case's counters (decision rows, the runs that explain a case kept)"),
			OPT_BOOL("warm", &warm, "restore a saved, verified guest of the same kernel, topology and variant (the first run boots and saves it)"),
			OPT_BOOL("cold", &cold, "boot the guest (the default)"),
			OPT_END(),
		};

		ret = parse_options(argc, argv, opts, run_usage, NULL, 0, &nr_pos);
	}
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (warm && cold)
		die(LAB_EXIT_USAGE, "give at most one of --warm and --cold");
	r.warm = warm;
	if (trace && resume)
		die(LAB_EXIT_USAGE, "--trace with --resume: a resumed run keeps the plan it was started with");
	if (scx && resume)
		die(LAB_EXIT_USAGE, "--scx with --resume: a resumed run keeps the plan it was started with");
	if (params.nr && resume)
		die(LAB_EXIT_USAGE, "--param with --resume: a resumed run keeps the plan it was started with");
	if (smt && strcmp(smt, "on") && strcmp(smt, "off"))
		die(LAB_EXIT_USAGE, "--smt must be 'on' or 'off', not '%s'", smt);
	if (resume) {
		if (run_resume_load(&rr, resume, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		/* what the stopped run used, unless given (then it must agree) */
		if (!r.spec)
			r.spec = rr.spec;
		/* the canonical spec ends in the arch --arch gave (topo.c) */
		if (!r.arch && strstr(rr.spec_resolved, ",arch="))
			r.arch = strstr(rr.spec_resolved, ",arch=") + 6;
		if (!r.kernel_spec)
			r.kernel_spec = rr.kernel_image;
		if (!r.label)
			r.label = rr.label;
		/* a run's parts share one clock, or its cases could not be one table */
		if (!r.clock)
			r.clock = rr.clock;
		else if (lab_clock_parse(r.clock) != lab_clock_parse(rr.clock))
			die(LAB_EXIT_USAGE, "'%s' ran on the %s clock: resume it with --clock %s",
			    resume, lab_clock_parse(rr.clock) > 0 ? "virtual" : "wall",
			    lab_clock_parse(rr.clock) > 0 ? "virtual" : "wall");
		/* and one seed: the resumed part samples the kernel's
		 * randomness as the first did */
		if (!r.seed && lab_clock_parse(r.clock) > 0)
			r.seed = rr.seed;
		else if (r.seed && rr.seed && r.seed != rr.seed)
			die(LAB_EXIT_USAGE, "'%s' ran with --seed %u: resume it with that seed, or without --seed",
			    resume, rr.seed);
		if (!suite && !scenario)
			strbuf_add(&plan, rr.plan.buf, rr.plan.len);
		resume_boot_option(&r.sched_feat, rr.sched_feat, "--sched-feat", resume);
		resume_boot_option(&r.sched_knob, rr.sched_knob, "--sched-knob", resume);
		resume_boot_option(&r.preempt, rr.preempt, "--preempt", resume);
		resume_boot_option(&smt, rr.smt_off ? "off" : "on", "--smt", resume);
	}
	r.smt_off = smt && !strcmp(smt, "off");
	if (!r.spec)
		die(LAB_EXIT_USAGE, "--topo is required (usage: %s)", run_usage);
	if ((!suite == !scenario && !resume) || (suite && scenario))
		die(LAB_EXIT_USAGE, "give exactly one of --suite and --scenario (usage: %s)", run_usage);

	/* Scenarios first: a typo must not cost a boot. */
	if ((suite || scenario) &&
	    ((suite ? plan_compile_suite(suite, &plan, &err) : plan_compile_file(scenario, &plan, &err)) < 0 ||
	     (trace && plan_text_add_counters(&plan, PLAN_CNT_SCHEDTRACE, &err) < 0)))
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (resume) {
		if (run_resume_check(&rr, NULL, NULL, plan.buf, plan.len, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		strbuf_reset(&plan);
		strbuf_add(&plan, rr.plan_left.buf, rr.plan_left.len);
		if (!suite && !scenario) {
			suite = rr.suite;
			scenario = rr.suite ? NULL : rr.scenario;
		}
	}
	if (scx && plan_text_set_scheduler(&plan, scx, &r.scx_path, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	for (size_t i = 0; i < params.nr; i++)
		if (plan_text_set_param(&plan, params.v[i], &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
	/* the runner checks workloads and options with the code that runs them */
	if (plan_check_on_runner(NULL, plan.buf, plan.len, NULL, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	/* compiled plans parse back (plan_compile_*() checked): the host's faults */
	if (plan_parse(plan.buf, plan.len, &parsed, perr, sizeof(perr)) < 0)
		die(LAB_EXIT_USAGE, "compiled plan: %s", perr);

	cpio_add_file(&cpio, "plan", 0644, plan.buf, plan.len);
	cpio_finish(&cpio);
	cpio_path = temp_file_write("plan-cpio", cpio.buf.buf, cpio.buf.len, &err);
	cpio_release(&cpio);
	if (!cpio_path)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	r.initrd_extra = cpio_path;
	if (!r.timeout_s) {
		struct topo t;
		struct strbuf e2 = STRBUF_INIT;
		unsigned boot = 120;

		if (topo_parse(r.spec, &t, &e2) == 0)
			boot = 60 + topo_nr_cpus(&t) / 2;
		strbuf_release(&e2);
		/* an image also loads modules and mounts its root; its own
		 * initramfs takes longer still */
		if (r.image_path)
			boot += 30;
		if (r.kernel_spec && !strcmp(r.kernel_spec, "image"))
			boot += LAB_IMAGE_KERNEL_EXTRA_S;
		r.timeout_s = boot + plan_deadline_s(&parsed);
		if (lab_clock_parse(r.clock) > 0)
			r.timeout_s *= LAB_VIRTUAL_TIMEOUT_FACTOR;
	}
	r.plan_text = plan.buf;
	r.plan_len = plan.len;
	/* the host's own faults (QMP) run from the same plan */
	r.plan = &parsed;
	for (unsigned i = 0; i < parsed.nr_cases; i++) {
		for (unsigned k = 0; k < parsed.cases[i].nr_faults; k++) {
			const struct plan_fault *f = &parsed.cases[i].faults[k];
			const struct hostfault_ops *ops = hostfault_find(f->kind);

			if (f->side == PLAN_SIDE_HOST && ops && ops->raises_nmi)
				r.nmi_is_a_fault = 1;
		}
	}
	if (lab_run_resolve(&r, &err) < 0 ||
	    (resume && (run_resume_check(&rr, r.topo.spec, r.kp.release, NULL, 0, &err) < 0 ||
			run_resume_start(&rr, &err) < 0))) {
		unlink(cpio_path);
		die(LAB_EXIT_USAGE, "%s", err.buf);
	}
	unlink(cpio_path);
	free(cpio_path);
	/* the tables' columns say which scheduler ran */
	plan_schedulers(&parsed, &scheds);
	if (!r.label && scheds.len) {
		label = xasprintf("%s+%.40s", r.kp.release, scheds.buf);
		r.label = label;
	}
	if (resume) {
		r.resume_dir = rr.dir;
		r.resume_part = rr.part;
		printf("resuming %s: %u case%s done, %u to run (in %s)\n", rr.dir, rr.done,
		       rr.done == 1 ? "" : "s", rr.left, rr.part);
	}
	{
		/* history only from runs booted alike: the same accel, clock,
		 * kernel and timing arguments (pti=, mitigations=, ...) */
		struct estimate_key key = {
			.spec = r.topo.spec,
			.accel = r.accel_kind == ACCEL_KVM ? "kvm" : "tcg",
			.clock = r.clock_virtual ? "virtual" : "wall",
			.kernel = *r.kp.release ? r.kp.release : NULL,
			.cmdline = r.cmdline.buf,
		};

		run_progress_init(&rp, "run", &parsed, r.results_root ? r.results_root : results_root(),
				  &key, resume ? rr.dir : NULL, quiet);
	}
	r.watch = &rp.watch;
	r.quiet = quiet;
	r.stop = &run_stop_signal;
	run_stop_catch();

	extra = json_object_new_object();
	if (suite || scenario)
		json_object_object_add(extra, suite ? "suite" : "scenario",
				       json_object_new_string(suite ? suite : scenario));
	if (resume)
		json_object_object_add(extra, "resumes", json_object_new_string(rr.dir));
	json_object_object_add(extra, "scheduler",
			       json_object_new_string(scheds.len ? scheds.buf : "kernel"));
	if (r.scx_key[0])
		json_object_object_add(extra, "scx_build", json_object_new_string(r.scx_key));
	if (params.nr) {
		struct json_object *pa = json_object_new_array();

		for (size_t i = 0; i < params.nr; i++)
			json_object_array_add(pa, json_object_new_string(params.v[i]));
		json_object_object_add(extra, "params", pa);
	}
	if (lab_run_start(&r, extra) < 0)
		return LAB_EXIT_FAIL;
	run_progress_break(&rp);
	if (lab_run_sched_feat_check(&r, &err) < 0 || lab_run_sched_knob_check(&r, &err) < 0) {
		lab_run_release(&r);
		die(LAB_EXIT_USAGE, "%s", err.buf);
	}
	if (!resume) {
		p = xasprintf("%s/plan.txt", r.dir.buf);
		write_file_atomic(p, plan.buf, plan.len);
		free(p);
	}
	if (r.verdict == VERDICT_STOPPED)
		run_stop_record(resume ? rr.part : r.dir.buf, r.s.stopped, run_progress_last_case(&rp),
				run_progress_running_case(&rp));
	lab_run_verify(&r);

	bad = run_report_build(r.dir.buf, &cases, &err);
	if (bad < 0) {
		error("%s", err.buf);
	} else {
		run_report_print(cases);
		if (bad && r.verdict == VERDICT_PASS) {
			r.verdict = VERDICT_FAIL;
			snprintf(r.reason, sizeof(r.reason), "%d case%s did not pass", bad, bad == 1 ? "" : "s");
		}
	}
	/* trace_keep_mb: the decision metrics are in, the pages of the runs
	 * that explain nothing go; without the report the runs have no
	 * metrics to choose by: keep all */
	if (bad >= 0)
		run_keep_traces_print(r.dir.buf, &parsed);
	vx = json_object_new_object();
	name_cases(&r, &rp, vx);
	json_object_object_add(vx, "cases", json_object_new_int(cases ? (int)json_object_array_length(cases) : 0));
	json_object_object_add(vx, "cases_failed", json_object_new_int(bad));
	lab_run_report(&r, vx);
	printf("verdict: %s: %s\n", verdict_name(r.verdict), r.reason);
	printf("results: %s\n", r.dir.buf);
	ret = verdict_exit_code(r.verdict);
	if (cases)
		json_object_put(cases);
	lab_run_release(&r);
	run_progress_release(&rp);
	run_resume_release(&rr);
	plan_release(&parsed);
	strbuf_release(&plan);
	strbuf_release(&scheds);
	free(label);
	strbuf_release(&err);
	return ret;
}
