/* lavajob.c - LAVA job definitions (LAVA 2023.01, qemu device type): deploy to
 * tmpfs, boot method qemu, a monitors test that needs no shell in the initrd. */
#include "run/lavajob.h"
#include "lib/util.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct lava_device_type device_types[] = {
	{ "qemu", LAVA_BOOT_QEMU, TOPO_ARCH_X86_64, NULL, NULL },
	/* x86.jinja2: iPXE, kernel and initrd over TFTP, console ttyS0 */
	{ "x86", LAVA_BOOT_IPXE, TOPO_ARCH_X86_64, NULL, NULL },
	/* arm64 UEFI servers, base-grub.jinja2 without a device tree */
	{ "lenovo-hr330a-7x33cto1ww-emag", LAVA_BOOT_GRUB, TOPO_ARCH_ARM64, "image", NULL },
	{ "qcom-qdf2400", LAVA_BOOT_GRUB, TOPO_ARCH_ARM64, "image", NULL },
	/* arm64 boards, base-uboot.jinja2: booti with the board's tree */
	{ "bcm2711-rpi-4-b", LAVA_BOOT_UBOOT, TOPO_ARCH_ARM64, "image", "broadcom/bcm2711-rpi-4-b.dtb" },
	{ "rk3399-rock-pi-4b", LAVA_BOOT_UBOOT, TOPO_ARCH_ARM64, "image", "rockchip/rk3399-rock-pi-4b.dtb" },
	{ "meson-g12b-a311d-khadas-vim3", LAVA_BOOT_UBOOT, TOPO_ARCH_ARM64, "image",
	  "amlogic/meson-g12b-a311d-khadas-vim3.dtb" },
};

const struct lava_device_type *lava_device_type_lookup(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(device_types); i++)
		if (!strcmp(device_types[i].name, name))
			return &device_types[i];
	return NULL;
}

const char *lava_device_type_names(void)
{
	static char names[512];

	if (!names[0])
		for (size_t i = 0, n = 0; i < ARRAY_SIZE(device_types); i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
					      !i ? "" : i + 1 == ARRAY_SIZE(device_types) ? " or " : ", ",
					      device_types[i].name);
	return names;
}

int lava_device_type_check_topo(const struct lava_device_type *dt, const char *spec, struct strbuf *err)
{
	if (lava_device_type_bare(dt) && spec) {
		strbuf_addf(err, "--topo '%s': device type %s is a machine of its own, whose topology the "
			    "job does not set (the import records what the runner saw)", spec, dt->name);
		return -1;
	}
	if (!lava_device_type_bare(dt) && !spec) {
		strbuf_addf(err, "--topo is needed for device type %s", dt->name);
		return -1;
	}
	return 0;
}

int lava_fleet_publish_check(const char *lava, const char *artifacts, const char *publish, char *abs,
			     struct strbuf *err)
{
	if (!artifacts && !publish)
		return 0;
	if (!lava) {
		strbuf_addstr(err, "--lava-artifacts and --lava-publish go with --lava");
		return -1;
	}
	if (!artifacts || !publish) {
		strbuf_addstr(err, "--lava-artifacts URL and --lava-publish DIR go together: every job's files "
			      "are copied into DIR, which a web server serves at URL");
		return -1;
	}
	if (strncmp(artifacts, "http://", 7) && strncmp(artifacts, "https://", 8)) {
		strbuf_addf(err, "--lava-artifacts '%s': an http:// or https:// URL (a farm on this host "
			    "reads file:// URLs without it)", artifacts);
		return -1;
	}
	if (!is_dir(publish) || !realpath(publish, abs)) {
		strbuf_addf(err, "--lava-publish '%s' is not a directory", publish);
		return -1;
	}
	return 0;
}

static struct json_object *minutes(unsigned s)
{
	struct json_object *t = json_object_new_object();

	json_object_object_add(t, "minutes", json_object_new_int((int)((s + 59) / 60)));
	return t;
}

static struct json_object *str(const char *s)
{
	return json_object_new_string(s);
}

/* image_arg: how LAVA's qemu boot puts the file on QEMU's command line,
 * {kernel} and {ramdisk} standing for the downloaded paths */
static struct json_object *image(const char *root, const char *file, const char *arg)
{
	struct json_object *o = json_object_new_object();
	char *url = xasprintf("%s%s%s", root, root[0] && root[strlen(root) - 1] == '/' ? "" : "/",
			      file);

	if (arg)
		json_object_object_add(o, "image_arg", json_object_new_string(arg));
	json_object_object_add(o, "url", str(url));
	free(url);
	return o;
}

/*
 * LAVA's qemu.jinja2 (lava-server 2023.01) builds the command line from
 * the context: qemu-system-x86_64 for arch amd64, "-cpu host -enable-kvm"
 * unless no_kvm, -m <memory>, then extra_options as they are.  QEMU keeps
 * the last -cpu, so the topology's CPU model wins over "host"; -m is the
 * template's, from the topology's memory.
 */
static struct json_object *context(const struct lava_job_in *in)
{
	struct json_object *ctx = json_object_new_object(), *extra = json_object_new_array();
	struct strvec argv = STRVEC_INIT;

	/* the machine lab run boots (q35); the template sets none for amd64 */
	strvec_pushl(&argv, "-machine", topo_arch_info(in->topo->arch)->machine, NULL);
	topo_qemu_argv(in->topo, in->accel, 0, &argv);
	for (size_t i = 0; i < argv.nr; i++) {
		const char *a = argv.v[i];
		const char *val = i + 1 < argv.nr && argv.v[i + 1][0] != '-' ? argv.v[i + 1] : NULL;

		/* -m is the template's (memory), and so is KVM (-enable-kvm) */
		if (!strcmp(a, "-m") || (!strcmp(a, "-accel") && in->accel == ACCEL_KVM)) {
			i += !!val;
			continue;
		}
		if (val) {
			char *pair = xasprintf("%s %s", a, val);

			json_object_array_add(extra, str(pair));
			free(pair);
			i++;
		} else {
			json_object_array_add(extra, str(a));
		}
	}
	strvec_clear(&argv);
	json_object_object_add(ctx, "arch", str("amd64"));
	json_object_object_add(ctx, "memory", json_object_new_int64((int64_t)topo_total_mem_mib(in->topo)));
	json_object_object_add(ctx, "no_kvm", json_object_new_boolean(in->accel != ACCEL_KVM));
	json_object_object_add(ctx, "extra_options", extra);
	return ctx;
}

static struct json_object *deploy_tmpfs(const struct lava_job_in *in)
{
	struct json_object *d = json_object_new_object(), *imgs = json_object_new_object();
	char *karg = xasprintf("-kernel {kernel} -append \"%s\"", in->cmdline);

	json_object_object_add(imgs, "kernel", image(in->artifacts, in->kernel, karg));
	free(karg);
	json_object_object_add(imgs, "ramdisk", image(in->artifacts, in->initrd, "-initrd {ramdisk}"));
	json_object_object_add(d, "to", str("tmpfs"));
	json_object_object_add(d, "timeout", minutes(300));
	json_object_object_add(d, "images", imgs);
	return d;
}

/* The device's TFTP server gets the files; the initrd as it is: no LAVA
 * overlay (nothing in the guest runs LAVA's test shell), no modules.
 * Without those LAVA leaves a ramdisk alone, so base-uboot's add_header
 * (the header booti reads the initrd's size from) is never applied: a
 * U-Boot board's initrd comes with its header, and says so. */
static struct json_object *deploy_tftp(const struct lava_job_in *in, const struct lava_device_type *dt)
{
	struct json_object *d = json_object_new_object(), *k = image(in->artifacts, in->kernel, NULL);
	struct json_object *r = image(in->artifacts, in->initrd, NULL);

	if (dt->kernel_type)
		json_object_object_add(k, "type", str(dt->kernel_type));
	json_object_object_add(r, "install_modules", json_object_new_boolean(0));
	json_object_object_add(r, "install_overlay", json_object_new_boolean(0));
	if (dt->boot == LAVA_BOOT_UBOOT)
		json_object_object_add(r, "header", str("u-boot"));
	json_object_object_add(d, "to", str("tftp"));
	json_object_object_add(d, "timeout", minutes(300));
	json_object_object_add(d, "kernel", k);
	json_object_object_add(d, "ramdisk", r);
	if (in->dtb)
		json_object_object_add(d, "dtb", image(in->artifacts, in->dtb, NULL));
	return d;
}

/* no prompts: with them LAVA 2023.01 adds an auto-login action that first
 * waits for "Linux version", which loglevel=5 does not print (the job
 * ended Incomplete, "Connection closed", after every case had passed); the
 * monitors watch the console instead */
static struct json_object *boot(const struct lava_job_in *in, const struct lava_device_type *dt)
{
	struct json_object *d = json_object_new_object();

	switch (dt->boot) {
	case LAVA_BOOT_QEMU:
		json_object_object_add(d, "method", str("qemu"));
		json_object_object_add(d, "media", str("tmpfs"));
		break;
	case LAVA_BOOT_IPXE:
	case LAVA_BOOT_GRUB:
	case LAVA_BOOT_UBOOT:
		/* the template's "ramdisk" command list: kernel and initrd
		 * (and the tree) over TFTP, extra_kernel_args on the kernel's
		 * line */
		json_object_object_add(d, "method", str(dt->boot == LAVA_BOOT_IPXE ? "ipxe" :
							dt->boot == LAVA_BOOT_GRUB ? "grub" : "u-boot"));
		json_object_object_add(d, "commands", str("ramdisk"));
		break;
	}
	json_object_object_add(d, "timeout", minutes(in->boot_s));
	return d;
}

struct json_object *lava_job_definition(const struct lava_job_in *in)
{
	struct json_object *job = json_object_new_object(), *timeouts = json_object_new_object();
	struct json_object *actions = json_object_new_array(), *a, *d, *mon, *m, *fix;
	unsigned total = in->boot_s + in->run_s + 300;
	const struct lava_device_type *dt = in->dt ? in->dt : lava_device_type_lookup("qemu");

	json_object_object_add(job, "device_type", str(dt->name));
	json_object_object_add(job, "job_name", str(in->name));
	json_object_object_add(timeouts, "job", minutes(total));
	json_object_object_add(timeouts, "action", minutes(in->boot_s + in->run_s));
	json_object_object_add(timeouts, "connection", minutes(120));
	json_object_object_add(job, "timeouts", timeouts);
	json_object_object_add(job, "priority", str("medium"));
	json_object_object_add(job, "visibility", str("public"));
	if (lava_device_type_bare(dt)) {
		/* the templates' one job variable for the command line */
		struct json_object *ctx = json_object_new_object();

		json_object_object_add(ctx, "extra_kernel_args", str(in->cmdline));
		json_object_object_add(job, "context", ctx);
	} else {
		json_object_object_add(job, "context", context(in));
	}

	a = json_object_new_object();
	json_object_object_add(a, "deploy", lava_device_type_bare(dt) ? deploy_tftp(in, dt) : deploy_tmpfs(in));
	json_object_array_add(actions, a);
	a = json_object_new_object();
	json_object_object_add(a, "boot", boot(in, dt));
	json_object_array_add(actions, a);

	/* monitors: LAVA matches console lines, no shell in the guest; the
	 * results that count are the records, imported with lab lava import */
	m = json_object_new_object();
	fix = json_object_new_object();
	json_object_object_add(fix, "end", str("pass"));
	json_object_object_add(m, "name", str("schedlab"));
	json_object_object_add(m, "start", str("SLRT "));
	json_object_object_add(m, "end", str("schedlab: runner exit"));
	json_object_object_add(m, "pattern",
			       str("schedlab: case (?P<test_case_id>\\S+) (?P<result>end)"));
	json_object_object_add(m, "fixupdict", fix);
	mon = json_object_new_array();
	json_object_array_add(mon, m);
	d = json_object_new_object();
	json_object_object_add(d, "timeout", minutes(in->run_s + 60));
	json_object_object_add(d, "monitors", mon);
	a = json_object_new_object();
	json_object_object_add(a, "test", d);
	json_object_array_add(actions, a);
	json_object_object_add(job, "actions", actions);
	return job;
}
