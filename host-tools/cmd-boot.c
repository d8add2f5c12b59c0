/* cmd-boot.c - `lab boot SPEC`: boot a guest whose machine matches SPEC,
 * read back what its kernel built, and verify it against the model. */
#define _GNU_SOURCE
#include "backend.h"
#include "guestview.h"
#include "initrd.h"
#include "kernel.h"
#include "lab.h"
#include "options.h"
#include "results.h"
#include "session.h"
#include "topo.h"
#include "verify.h"
#include "child.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char boot_usage[] =
	"lab boot SPEC [--kernel K] [--accel auto|tcg|kvm] [--expect SPEC] [--timeout S] [--append ARGS]";

/* Console at KERN_WARNING and above: enough for every failure pattern
 * (WARNING splats are pr_warn) without paying TCG for info chatter.
 * unknown_nmi_panic + panic_print=0x40 turn the NMI sent on a HANG into
 * backtraces of every CPU on the console. */
static const char base_cmdline[] =
	"console=ttyS0 loglevel=5 panic=-1 sched_verbose unknown_nmi_panic panic_print=0x40";

static char *qemu_version_string(void)
{
	const char *argv[] = { "qemu-system-x86_64", "--version", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *nl;

	if (getenv("LAB_QEMU"))
		argv[0] = getenv("LAB_QEMU");
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

static unsigned default_timeout_s(const struct topo *t, enum lab_accel accel)
{
	/* TCG brings vCPUs up one by one on 2 host cores: ~0.2 s each, with
	 * a wide margin; a timeout is a HANG verdict, so be generous. */
	return accel == ACCEL_KVM ? 60 : 60 + topo_nr_cpus(t) / 2;
}

static void print_diff_header(const char *what, int ndiff)
{
	printf("topology: %s", what);
	if (ndiff)
		printf(" (%d difference%s)", ndiff, ndiff == 1 ? "" : "s");
	putchar('\n');
}

int cmd_boot(int argc, const char **argv)
{
	const char *kernel_spec = NULL, *accel_s = getenv("ACCEL"), *expect = NULL;
	const char *append = NULL, *results_dir = NULL, *pos[1];
	unsigned timeout = 0;
	const struct lab_option opts[] = {
		OPT_STRING("kernel", &kernel_spec, "kernel: 'debian' (default) or a bzImage/vmlinux path"),
		OPT_STRING("accel", &accel_s, "auto (default), tcg or kvm"),
		OPT_STRING("expect", &expect, "verify against this spec instead of SPEC"),
		OPT_UINT("timeout", &timeout, 1, 86400, "seconds before the run is a HANG"),
		OPT_STRING("append", &append, "extra kernel command line"),
		OPT_STRING("results", &results_dir, "results root (default results/ or $LAB_RESULTS)"),
		OPT_END(),
	};
	struct topo topo, expect_topo;
	struct strbuf err = STRBUF_INIT, desc = STRBUF_INIT, dir = STRBUF_INIT;
	struct strbuf cmdline = STRBUF_INIT, diff = STRBUF_INIT;
	struct kernel_paths kp;
	struct backend_conf conf = { 0 };
	struct session s;
	struct json_object *run, *expected, *guest = NULL, *verdict;
	enum lab_accel accel;
	enum verdict v;
	const char *initrd;
	char *qver, *name;
	int nr_pos, r, ndiff = -1;

	r = parse_options(argc, argv, opts, boot_usage, pos, 1, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1)
		die(LAB_EXIT_USAGE, "a topology spec is needed (usage: %s)", boot_usage);

	/* Every input is checked before anything boots or is written. */
	if (topo_parse(pos[0], &topo, &err) < 0)
		die(LAB_EXIT_USAGE, "bad topology '%s': %s", pos[0], err.buf);
	if (expect && topo_parse(expect, &expect_topo, &err) < 0)
		die(LAB_EXIT_USAGE, "bad topology '%s': %s", expect, err.buf);
	if (accel_resolve(accel_s, &accel, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (topo_check_limits(&topo, accel, (uint64_t)sysconf(_SC_PHYS_PAGES) *
			      (uint64_t)sysconf(_SC_PAGESIZE) >> 20, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (append && strpbrk(append, "\n\r"))
		die(LAB_EXIT_USAGE, "--append must be one line");
	if (kernel_resolve(kernel_spec, &kp, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	initrd = initrd_cached(&err);
	if (!initrd)
		die(LAB_EXIT_FAIL, "%s", err.buf);

	topo_describe(&topo, &desc);
	printf("%s\n", desc.buf);
	printf("kernel: %s (%s)\n", kp.release, kp.source);
	printf("accel: %s\n", accel == ACCEL_KVM ? "kvm" : "tcg");
	fflush(stdout);

	if (results_create_run(results_dir ? results_dir : results_root(),
			       topo.name[0] ? topo.name : pos[0], &dir) < 0)
		return LAB_EXIT_FAIL;

	strbuf_addstr(&cmdline, base_cmdline);
	strbuf_addstr(&cmdline, " lab.mode=probe");
	if (append)
		strbuf_addf(&cmdline, " %s", append);

	qver = qemu_version_string();
	run = json_object_new_object();
	json_object_object_add(run, "lab_version", json_object_new_string(LAB_VERSION));
	json_object_object_add(run, "command", json_object_new_string("boot"));
	json_object_object_add(run, "spec", json_object_new_string(pos[0]));
	json_object_object_add(run, "spec_resolved", json_object_new_string(topo.spec));
	json_object_object_add(run, "topology", json_object_new_string(desc.buf));
	json_object_object_add(run, "backend", json_object_new_string("qemu"));
	json_object_object_add(run, "accel", json_object_new_string(accel == ACCEL_KVM ? "kvm" : "tcg"));
	json_object_object_add(run, "qemu", json_object_new_string(qver));
	json_object_object_add(run, "kernel", json_object_new_string(kp.release));
	json_object_object_add(run, "kernel_source", json_object_new_string(kp.source));
	json_object_object_add(run, "kernel_image", json_object_new_string(
		kp.vmlinux[0] ? kp.vmlinux : kp.bzimage));
	json_object_object_add(run, "initrd", json_object_new_string(initrd));
	json_object_object_add(run, "cmdline", json_object_new_string(cmdline.buf));
	json_object_object_add(run, "host", results_host_info());
	results_write_json(dir.buf, "run.json", run);
	json_object_put(run);
	free(qver);

	expected = topo_expected_view(expect ? &expect_topo : &topo);
	results_write_json(dir.buf, "expected-topology.json", expected);

	name = xasprintf("schedlab-%ld", (long)getpid());
	conf.topo = &topo;
	conf.accel = accel;
	conf.host_is_amd = host_cpu_is_amd();
	/* The ELF vmlinux boots through PVH: no decompression, no real mode. */
	conf.kernel = kp.vmlinux[0] ? kp.vmlinux : kp.bzimage;
	conf.initrd = initrd;
	conf.cmdline = cmdline.buf;
	conf.run_dir = dir.buf;
	conf.name = name;

	session_init(&s);
	s.ops = &backend_qemu;
	s.conf = &conf;
	s.timeout_ms = (int)(timeout ? timeout : default_timeout_s(&topo, accel)) * 1000;
	if (session_run(&s, &err) < 0) {
		error("%s (see %s/qemu.log)", err.buf, dir.buf);
		v = VERDICT_FAIL;
		snprintf(s.reason, sizeof(s.reason), "backend did not start: %s", err.buf);
	} else {
		v = s.verdict;
	}

	if (s.sysfs.len) {
		strbuf_reset(&err);
		guest = guest_view_from_sysfs(s.sysfs.buf, s.sysfs.len, &err);
		if (guest)
			results_write_json(dir.buf, "guest-topology.json", guest);
		else
			error("guest topology unreadable: %s", err.buf);
	}
	if (v == VERDICT_PASS) {
		if (!guest) {
			v = VERDICT_FAIL;
			snprintf(s.reason, sizeof(s.reason), "the guest sent no topology snapshot");
		} else {
			ndiff = view_compare(expected, guest, &diff, 40);
			if (ndiff)
				v = VERDICT_FAIL;
		}
	}

	if (s.t_end_record_ns)
		printf("boot: %.1f s to the runner's report\n",
		       (double)(s.t_end_record_ns - s.t_start_ns) / 1e9);
	if (ndiff == 0) {
		print_diff_header("PASS", 0);
	} else if (ndiff > 0) {
		print_diff_header("FAIL", ndiff);
		fputs(diff.buf, stdout);
	} else {
		printf("topology: not verified (%s)\n", verdict_name(v));
	}
	printf("verdict: %s: %s\n", verdict_name(v), ndiff > 0 ? "guest topology differs" : s.reason);
	printf("results: %s\n", dir.buf);

	verdict = json_object_new_object();
	json_object_object_add(verdict, "verdict", json_object_new_string(verdict_name(v)));
	json_object_object_add(verdict, "reason", json_object_new_string(
		ndiff > 0 ? "guest topology differs" : s.reason));
	json_object_object_add(verdict, "topology", json_object_new_string(
		ndiff == 0 ? "PASS" : ndiff > 0 ? "FAIL" : "not verified"));
	if (ndiff > 0)
		json_object_object_add(verdict, "topology_diff", json_object_new_string(diff.buf));
	json_object_object_add(verdict, "boot_to_report_s", json_object_new_double(
		s.t_end_record_ns ? (double)(s.t_end_record_ns - s.t_start_ns) / 1e9 : -1));
	json_object_object_add(verdict, "records", json_object_new_int64((int64_t)s.wire.records));
	json_object_object_add(verdict, "records_missing", json_object_new_int64((int64_t)s.wire.missing));
	json_object_object_add(verdict, "records_corrupt",
			       json_object_new_int64((int64_t)(s.wire.bad_crc + s.wire.bad_header)));
	json_object_object_add(verdict, "console_splats", json_object_new_int64(s.console.splats));
	if (s.console.first_pattern) {
		json_object_object_add(verdict, "console_first_failure", json_object_new_string(s.console.first));
		json_object_object_add(verdict, "console_first_failure_line",
				       json_object_new_int64((int64_t)s.console.first_line_no));
	}
	json_object_object_add(verdict, "hypervisor", json_object_new_string(s.hypervisor_version));
	results_write_json(dir.buf, "verdict.json", verdict);
	json_object_put(verdict);

	json_object_put(expected);
	if (guest)
		json_object_put(guest);
	session_release(&s);
	free(name);
	strbuf_release(&err);
	strbuf_release(&desc);
	strbuf_release(&dir);
	strbuf_release(&cmdline);
	strbuf_release(&diff);
	return verdict_exit_code(v);
}
