/* cmd-boot.c - `lab boot SPEC`: boot a guest whose machine matches SPEC,
 * read back what its kernel built, and verify it against the model. */
#include "cmd/lab.h"
#include "run/labrun.h"
#include "run/schedfeat.h"
#include "cmd/options.h"

#include <stdio.h>
#include <stdlib.h>

static const char boot_usage[] =
	"lab boot SPEC [--kernel K] [--accel auto|tcg|kvm] [--arch x86_64|arm64|ppc64le] [--backend qemu|libvirt] [--uri URI] "
	"[--expect SPEC] [--timeout S] [--append ARGS] [--image FILE] [--pin[=strict]]";

int cmd_boot(int argc, const char **argv)
{
	struct lab_run r;
	const char *pos[1];
	struct strbuf err = STRBUF_INIT;
	int nr_pos, ret;

	lab_run_init(&r);
	r.command = "boot";
	r.accel = getenv("ACCEL");
	r.tcg_threads = getenv("TCG_THREADS");
	r.backend = getenv("BACKEND");
	{
		const struct lab_option opts[] = {
			OPT_STRING("kernel", &r.kernel_spec, "kernel: 'debian' (default, Debian 12's 6.1), 'debian:6.12' and the like (lab kernel --list), a bzImage/vmlinux path, a built kernel's key, or 'image' (with --image: the image's own kernel and initramfs)"),
			OPT_STRING("accel", &r.accel, "auto (default), tcg or kvm"),
			OPT_STRING("arch", &r.arch, "guest architecture: x86_64 (default), arm64 or ppc64le"),
			OPT_STRING("tcg-threads", &r.tcg_threads, "auto (default: single when the plan has faults), single or multi"),
			OPT_OPTARG("pin", &r.pin_opt, "bind each vCPU thread to a host CPU (SMT siblings on one host core, each LLC in one host LLC); =strict refuses a guest that does not fit, =no overrides a scenario"),
			OPT_STRING("backend", &r.backend, "qemu (default) or libvirt ($BACKEND)"),
			OPT_STRING("uri", &r.uri, "libvirt URI ($LIBVIRT_URI, default qemu:///system)"),
			OPT_STRING("expect", &r.expect, "verify against this spec instead of SPEC"),
			OPT_UINT("timeout", &r.timeout_s, 1, 86400, "seconds before the run is a HANG"),
			OPT_STRING("append", &r.append, "extra kernel command line"),
			OPT_STRING("image", &r.image_path, "boot this qcow2/raw distro image (an overlay; never written)"),
			OPT_STRING("results", &r.results_root, "results root (default results/ or $LAB_RESULTS)"),
			OPT_END(),
		};

		ret = parse_options(argc, argv, opts, boot_usage, pos, 1, &nr_pos);
	}
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1)
		die(LAB_EXIT_USAGE, "a topology spec is needed (usage: %s)", boot_usage);
	r.spec = pos[0];

	/* Every input is checked before anything boots or is written. */
	if (lab_run_resolve(&r, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (lab_run_start(&r, NULL) < 0)
		return LAB_EXIT_FAIL;
	if (r.s.t_end_record_ns)
		printf("boot: %.2f s to the runner, %.2f s to its report\n",
		       (double)(r.s.t_init_ns - r.s.t_start_ns) / 1e9,
		       (double)(r.s.t_end_record_ns - r.s.t_start_ns) / 1e9);
	/* caches the kernel's scheduler features for lab run --sched-feat */
	lab_run_sched_feat_check(&r, &err);
	lab_run_verify(&r);
	lab_run_report(&r, NULL);
	printf("verdict: %s: %s\n", verdict_name(r.verdict), r.reason);
	printf("results: %s\n", r.dir.buf);
	ret = verdict_exit_code(r.verdict);
	lab_run_release(&r);
	strbuf_release(&err);
	return ret;
}
