/* lavaexport.c - a LAVA job's directory: the kernel, the lab's initrd with the
 * compiled plan appended (as lab run packs it), plan.txt for the import, and
 * the job definition (run/lavajob.c) with the command line lab run would give
 * the same boot. */
#define _GNU_SOURCE
#include "run/lavaexport.h"
#include "common/plan.h"
#include "kernel/initrd.h"
#include "kernel/kernel.h"
#include "lib/child.h"
#include "run/labrun.h"
#include "run/lavajob.h"
#include "scenario/scenario.h"
#include "topo/topo.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel command line of an exported job: what lab run gives a QEMU
 * guest that holds on any host, and the console transport.  A bare-metal
 * device's console is its dictionary's (console_device, baud_rate), which
 * its template puts on the kernel's line; the rest is the same. */
#define EXPORT_CMDLINE "loglevel=5 panic=-1 sched_verbose schedstats=enable " \
	"lab.mode=run lab.records=console"
#define EXPORT_CONSOLE "console=ttyS0,115200 "
/* Firmware, bootloader and TFTP before /init on a machine of its own. */
#define BARE_BOOT_S 300

static int copy_in(const char *from, const char *dir, const char *name, struct strbuf *err)
{
	size_t len;
	char *data = read_file(from, &len);
	int r;

	if (!data) {
		strbuf_addf(err, "cannot read '%s': %s", from, strerror(errno));
		return -1;
	}
	r = write_file_in(dir, name, data, len, err);
	free(data);
	return r;
}

/* A U-Boot board's files beyond the kernel's: its device tree, from the
 * kernel's package, and mkimage for the initrd's header. */
static int check_board(const struct lava_device_type *dt, const char *kernel, const struct kernel_paths *kp,
		       struct strbuf *err)
{
	char *dtb;
	int ok;

	if (!dt->dtb)
		return 0;
	if (!*kp->dtbs) {
		strbuf_addf(err, "device type %s boots with the board's device tree, and kernel '%s' has none "
			    "the lab knows of (Debian's arm64 packages carry them)", dt->name, kernel);
		return -1;
	}
	dtb = xasprintf("%s/%s", kp->dtbs, dt->dtb);
	ok = is_file(dtb);
	free(dtb);
	if (!ok) {
		strbuf_addf(err, "kernel %s has no device tree %s for device type %s", kp->release, dt->dtb,
			    dt->name);
		return -1;
	}
	if (!in_path("mkimage")) {
		strbuf_addf(err, "device type %s needs mkimage for the initrd's U-Boot header (Debian "
			    "package u-boot-tools)", dt->name);
		return -1;
	}
	return 0;
}

/* Everything a bad request can get wrong, before anything is written:
 * the device type, the topology, the plan, the kernel and what it is
 * asked to boot with (r->cmdline gets the scheduler's part). */
static int check(const struct lava_export_req *q, const struct lava_device_type **dt, struct topo *t,
		 struct lab_run *r, struct strbuf *plan, struct plan *parsed, struct strbuf *err)
{
	char perr[256];

	if (!q->artifacts || !q->out || !q->suite == !q->scenario) {
		strbuf_addstr(err, "one of --suite and --scenario, --artifacts and --out are needed");
		return -1;
	}
	if (strncmp(q->artifacts, "http://", 7) && strncmp(q->artifacts, "https://", 8) &&
	    strncmp(q->artifacts, "file://", 7)) {
		strbuf_addf(err, "--artifacts '%s': an http://, https:// or file:// URL", q->artifacts);
		return -1;
	}
	if (q->accel && strcmp(q->accel, "tcg") && strcmp(q->accel, "kvm")) {
		strbuf_addf(err, "--accel '%s': tcg or kvm", q->accel);
		return -1;
	}
	if (q->smt && strcmp(q->smt, "on") && strcmp(q->smt, "off")) {
		strbuf_addf(err, "--smt must be 'on' or 'off', not '%s'", q->smt);
		return -1;
	}
	if (!(*dt = lava_device_type_lookup(q->device_type ? q->device_type : LAVA_DEFAULT_DEVICE_TYPE))) {
		strbuf_addf(err, "--device-type '%s': the lab writes jobs for %s only", q->device_type,
			    lava_device_type_names());
		return -1;
	}
	if (lava_device_type_check_topo(*dt, q->spec, err) < 0)
		return -1;
	if (q->spec && topo_parse(q->spec, t, err) < 0)
		return -1;
	if (q->spec && t->arch != (*dt)->arch) {
		strbuf_addf(err, "'%s': device type %s boots %s guests only", q->spec, (*dt)->name,
			    topo_arch_info((*dt)->arch)->name);
		return -1;
	}
	r->smt_off = q->smt && !strcmp(q->smt, "off");
	if (r->smt_off && q->spec && t->threads < 2) {
		strbuf_addf(err, "SMT off needs a topology with SMT: '%s' has one thread per core", q->spec);
		return -1;
	}
	r->sched_feat = q->sched_feat;
	r->sched_knob = q->sched_knob;
	r->preempt = q->preempt;
	r->append = q->append;
	if (lab_run_sched_request(r, err) < 0)
		return -1;
	if (access(q->out, F_OK) == 0) {
		strbuf_addf(err, "'%s' exists: --out names a new directory", q->out);
		return -1;
	}
	if ((q->suite ? plan_compile_suite(q->suite, plan, err) : plan_compile_file(q->scenario, plan, err)) < 0)
		return -1;
	if (kernel_resolve_arch(q->kernel ? q->kernel : "debian", (*dt)->arch, &r->kp, err) < 0 ||
	    check_board(*dt, q->kernel ? q->kernel : "debian", &r->kp, err) < 0)
		return -1;
	/* the same checks as lab run's for this kernel: options it would
	 * ignore, scheduler settings it lacks (as far as the host can tell) */
	if (plan_check_on_runner(NULL, plan->buf, plan->len, r->kp.release, err) < 0 ||
	    lab_run_sched_cmdline(r, err) < 0)
		return -1;
	if (plan_parse(plan->buf, plan->len, parsed, perr, sizeof(perr)) < 0) {
		strbuf_addf(err, "compiled plan: %s", perr);
		return -1;
	}
	return 0;
}

static int unlink_in(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int r = unlink(path);

	free(path);
	return r;
}

/*
 * A U-Boot board's files: the tree beside the kernel, and the initrd
 * wrapped in the legacy image header booti reads its size from (mkimage
 * -T ramdisk, uncompressed: the cpio is handed to the kernel as it is).
 * *dtb and *initrd name them in dir.
 */
static int write_board_files(const struct lava_device_type *dt, const struct kernel_paths *kp,
			     const char *dir, const char **dtb, const char **initrd, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	char *src = xasprintf("%s/%s", kp->dtbs, dt->dtb);
	int code;

	*dtb = strrchr(dt->dtb, '/') ? strrchr(dt->dtb, '/') + 1 : dt->dtb;
	*initrd = "initrd.uimg";
	if (copy_in(src, dir, *dtb, err) < 0) {
		free(src);
		return -1;
	}
	free(src);
	strvec_pushl(&cp.args, "mkimage", "-A", "arm64", "-O", "linux", "-T", "ramdisk", "-C", "none",
		     "-n", "schedlab initrd", "-d", "initrd.cpio", *initrd, NULL);
	cp.dir = dir;
	cp.in = CHILD_DEVNULL;
	code = child_capture(&cp, 60000, &out, &errout);
	/* the job downloads the wrapped one only */
	if (!code && unlink_in(dir, "initrd.cpio") < 0)
		code = -1;
	if (code)
		strbuf_addf(err, "mkimage could not wrap the initrd (exit %d): %.200s", code,
			    errout.len ? errout.buf : out.buf);
	child_process_clear(&cp);
	strbuf_release(&out);
	strbuf_release(&errout);
	return code ? -1 : 0;
}

/* The lab's initrd with the plan appended, as lab run packs it. */
static int write_initrd(const char *base, const struct strbuf *plan, const char *dir, struct strbuf *err)
{
	struct cpio cpio = CPIO_INIT;
	struct strbuf initrd = STRBUF_INIT;
	size_t len;
	char *data = read_file(base, &len);
	int r;

	if (!data) {
		strbuf_addf(err, "cannot read '%s': %s", base, strerror(errno));
		return -1;
	}
	strbuf_add(&initrd, data, len);
	free(data);
	cpio_add_file(&cpio, "plan", 0644, plan->buf, plan->len);
	cpio_finish(&cpio);
	strbuf_add(&initrd, cpio.buf.buf, cpio.buf.len);
	cpio_release(&cpio);
	r = write_file_in(dir, "initrd.cpio", initrd.buf, initrd.len, err);
	strbuf_release(&initrd);
	return r;
}

int lava_export_job(const struct lava_export_req *q, struct strbuf *err)
{
	struct strbuf plan = STRBUF_INIT, cmdline = STRBUF_INIT;
	const struct lava_device_type *dt = NULL;
	struct lava_job_in in = { 0 };
	struct plan parsed = { 0 };
	struct json_object *job;
	struct lab_run r;
	struct topo t;
	const char *base, *kimage, *kname;
	char *tmp = NULL, *name = NULL, *data;
	int ret = LAB_EXIT_USAGE;

	lab_run_init(&r);
	if (check(q, &dt, &t, &r, &plan, &parsed, err) < 0)
		goto out;
	ret = LAB_EXIT_FAIL;
	if (!(base = initrd_cached_arch(dt->arch, err)))
		goto out;
	kimage = *r.kp.bzimage ? r.kp.bzimage : r.kp.vmlinux;
	/* arm64's kp.bzimage is the Image a bootloader loads */
	kname = !*r.kp.bzimage ? "vmlinux" : dt->arch == TOPO_ARCH_ARM64 ? "Image" : "bzImage";

	/* built aside, renamed at the end: never a half-written export */
	tmp = xasprintf("%s.tmp-XXXXXX", q->out);
	if (!mkdtemp(tmp)) {
		strbuf_addf(err, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	in.initrd = "initrd.cpio";
	if (copy_in(kimage, tmp, kname, err) < 0 || write_initrd(base, &plan, tmp, err) < 0 ||
	    write_file_in(tmp, "plan.txt", plan.buf, plan.len, err) < 0 ||
	    (dt->dtb && write_board_files(dt, &r.kp, tmp, &in.dtb, &in.initrd, err) < 0))
		goto out;

	name = xasprintf("schedlab %s %s %s", q->spec ? t.spec : dt->name, q->suite ? q->suite : q->scenario,
			 r.kp.release);
	strbuf_addf(&cmdline, "%s%s%s", lava_device_type_bare(dt) ? "" : EXPORT_CONSOLE, EXPORT_CMDLINE,
		    r.cmdline.buf);
	if (q->append)
		strbuf_addf(&cmdline, " %s", q->append);
	in.dt = dt;
	in.topo = q->spec ? &t : NULL;
	in.accel = q->accel && !strcmp(q->accel, "kvm") ? ACCEL_KVM : ACCEL_TCG;
	in.name = name;
	in.artifacts = q->artifacts;
	in.kernel = kname;
	in.cmdline = cmdline.buf;
	in.boot_s = q->spec ? 60 + topo_nr_cpus(&t) / 2 : BARE_BOOT_S;
	in.run_s = plan_deadline_s(&parsed);
	job = lava_job_definition(&in);
	data = xasprintf("%s\n", json_object_to_json_string_ext(job, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(job);
	if (write_file_in(tmp, "job.json", data, strlen(data), err) < 0) {
		free(data);
		goto out;
	}
	free(data);
	if (rename(tmp, q->out) < 0) {
		strbuf_addf(err, "cannot rename '%s' to '%s': %s", tmp, q->out, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	ret = LAB_EXIT_PASS;
out:
	if (tmp)
		remove_tree(tmp);
	free(tmp);
	free(name);
	plan_release(&parsed);
	lab_run_release(&r);
	strbuf_release(&plan);
	strbuf_release(&cmdline);
	return ret;
}
