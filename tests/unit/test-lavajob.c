/* test-lavajob.c - the LAVA job definition of lab lava export (run/lavajob.c):
 * its shape as LAVA 2023.01's qemu device type and job schema want it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/lavajob.h"

static struct json_object *get(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else
			o = json_object_object_get(o, k);
		assert_non_null(o);
	}
	return o;
}

static const char *gets(struct json_object *o, const char *path)
{
	return json_object_get_string(get(o, path));
}

static struct json_object *make(const char *spec, enum lab_accel accel, struct topo *t)
{
	struct strbuf err = STRBUF_INIT;
	struct lava_job_in in = {
		.topo = t, .accel = accel, .name = "schedlab test",
		.artifacts = "file:///srv/art", .kernel = "bzImage", .initrd = "initrd.cpio",
		.cmdline = "console=ttyS0,115200 lab.mode=run lab.records=console",
		.boot_s = 62, .run_s = 600,
	};

	assert_int_equal(topo_parse(spec, t, &err), 0);
	strbuf_release(&err);
	return lava_job_definition(&in);
}

static int has_option(struct json_object *extra, const char *prefix)
{
	for (size_t i = 0; i < json_object_array_length(extra); i++)
		if (!strncmp(json_object_get_string(json_object_array_get_idx(extra, i)),
			     prefix, strlen(prefix)))
			return 1;
	return 0;
}

static void test_shape(void **state)
{
	struct topo t;
	struct json_object *job = make("2s4c2t,llc=2,nps=2", ACCEL_TCG, &t), *extra;

	assert_string_equal(gets(job, "device_type"), "qemu");
	assert_string_equal(gets(job, "job_name"), "schedlab test");
	/* the plan's deadline and the boot's, in whole minutes, and a margin */
	assert_int_equal(json_object_get_int(get(job, "timeouts.action.minutes")), 12);
	assert_int_equal(json_object_get_int(get(job, "timeouts.job.minutes")), 17);
	assert_string_equal(gets(job, "context.arch"), "amd64");
	assert_int_equal(json_object_get_int(get(job, "context.memory")), 2048);
	assert_true(json_object_get_boolean(get(job, "context.no_kvm")));
	extra = get(job, "context.extra_options");
	assert_true(has_option(extra, "-machine q35"));
	assert_true(has_option(extra, "-smp 16,sockets=2,dies=2,cores=2,threads=2"));
	assert_true(has_option(extra, "-numa node,nodeid=3,memdev=mem3"));
	assert_true(has_option(extra, "-accel tcg"));
	assert_false(has_option(extra, "-m "));
	assert_false(has_option(extra, "qemu-system"));

	assert_int_equal(json_object_array_length(get(job, "actions")), 3);
	assert_string_equal(gets(job, "actions.0.deploy.to"), "tmpfs");
	assert_string_equal(gets(job, "actions.0.deploy.images.kernel.url"), "file:///srv/art/bzImage");
	assert_string_equal(gets(job, "actions.0.deploy.images.ramdisk.url"),
			    "file:///srv/art/initrd.cpio");
	assert_non_null(strstr(gets(job, "actions.0.deploy.images.kernel.image_arg"),
			       "-kernel {kernel} -append \"console=ttyS0,115200 lab.mode=run lab.records=console\""));
	assert_string_equal(gets(job, "actions.0.deploy.images.ramdisk.image_arg"), "-initrd {ramdisk}");
	assert_string_equal(gets(job, "actions.1.boot.method"), "qemu");
	assert_string_equal(gets(job, "actions.1.boot.media"), "tmpfs");
	assert_null(json_object_object_get(get(job, "actions.1.boot"), "prompts"));
	assert_string_equal(gets(job, "actions.2.test.monitors.0.start"), "SLRT ");
	assert_string_equal(gets(job, "actions.2.test.monitors.0.end"), "schedlab: runner exit");
	assert_non_null(strstr(gets(job, "actions.2.test.monitors.0.pattern"), "(?P<test_case_id>"));
	assert_non_null(strstr(gets(job, "actions.2.test.monitors.0.pattern"), "(?P<result>"));
	json_object_put(job);
}

/* KVM is the template's own (-enable-kvm -cpu host): no -accel of ours */
static void test_kvm(void **state)
{
	struct topo t;
	struct json_object *job = make("1s2c2t", ACCEL_KVM, &t);

	assert_false(json_object_get_boolean(get(job, "context.no_kvm")));
	assert_false(has_option(get(job, "context.extra_options"), "-accel"));
	assert_int_equal(json_object_get_int(get(job, "context.memory")), 512);
	json_object_put(job);
}

/* --device-type: the lab's table, and the job's device_type is the type's */
static void test_device_types(void **state)
{
	const struct lava_device_type *dt = lava_device_type_lookup(LAVA_DEFAULT_DEVICE_TYPE);
	struct strbuf err = STRBUF_INIT;
	struct topo t;
	struct lava_job_in in = {
		.topo = &t, .name = "n", .artifacts = "file:///a", .kernel = "bzImage",
		.initrd = "initrd.cpio", .cmdline = "lab.mode=run", .boot_s = 60, .run_s = 60,
	};
	struct json_object *job;

	assert_non_null(dt);
	assert_string_equal(dt->name, "qemu");
	assert_int_equal(dt->boot, LAVA_BOOT_QEMU);
	assert_null(lava_device_type_lookup("nosuchtype"));
	assert_null(lava_device_type_lookup(""));
	assert_null(lava_device_type_lookup(NULL));
	assert_non_null(strstr(lava_device_type_names(), "qemu"));
	assert_int_equal(topo_parse("1s2c", &t, &err), 0);
	in.dt = dt;
	job = lava_job_definition(&in);
	assert_string_equal(gets(job, "device_type"), "qemu");
	json_object_put(job);
	strbuf_release(&err);
}

/* Bare metal: kernel and initrd over TFTP, the template's ramdisk
 * commands, the command line in extra_kernel_args, no QEMU context; a
 * U-Boot board its device tree too, and an initrd with U-Boot's header. */
static void test_bare(void **state)
{
	static const struct { const char *type, *method, *kernel_type, *dtb; } types[] = {
		{ "x86", "ipxe", NULL, NULL },
		{ "lenovo-hr330a-7x33cto1ww-emag", "grub", "image", NULL },
		{ "qcom-qdf2400", "grub", "image", NULL },
		{ "bcm2711-rpi-4-b", "u-boot", "image", "broadcom/bcm2711-rpi-4-b.dtb" },
		{ "rk3399-rock-pi-4b", "u-boot", "image", "rockchip/rk3399-rock-pi-4b.dtb" },
		{ "meson-g12b-a311d-khadas-vim3", "u-boot", "image", "amlogic/meson-g12b-a311d-khadas-vim3.dtb" },
	};
	struct strbuf err = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const struct lava_device_type *dt = lava_device_type_lookup(types[i].type);
		struct lava_job_in in = {
			.dt = dt, .name = "n", .artifacts = "http://srv/art/", .kernel = "Image",
			.initrd = types[i].dtb ? "initrd.uimg" : "initrd.cpio",
			.dtb = types[i].dtb ? strrchr(types[i].dtb, '/') + 1 : NULL,
			.cmdline = "loglevel=5 lab.mode=run lab.records=console", .boot_s = 300, .run_s = 600,
		};
		struct json_object *job, *k, *r;
		char *url;

		assert_non_null(dt);
		if (types[i].dtb)
			assert_string_equal(dt->dtb, types[i].dtb);
		else
			assert_null(dt->dtb);
		assert_true(lava_device_type_bare(dt));
		assert_int_equal(lava_device_type_check_topo(dt, NULL, &err), 0);
		assert_int_equal(lava_device_type_check_topo(dt, "1s2c", &err), -1);
		assert_non_null(strstr(err.buf, "machine of its own"));
		strbuf_reset(&err);
		job = lava_job_definition(&in);
		assert_string_equal(gets(job, "device_type"), types[i].type);
		assert_string_equal(gets(job, "context.extra_kernel_args"),
				    "loglevel=5 lab.mode=run lab.records=console");
		assert_null(json_object_object_get(get(job, "context"), "extra_options"));
		assert_null(json_object_object_get(get(job, "context"), "memory"));
		assert_int_equal(json_object_array_length(get(job, "actions")), 3);
		assert_string_equal(gets(job, "actions.0.deploy.to"), "tftp");
		assert_string_equal(gets(job, "actions.0.deploy.kernel.url"), "http://srv/art/Image");
		k = get(job, "actions.0.deploy.kernel");
		if (types[i].kernel_type)
			assert_string_equal(gets(job, "actions.0.deploy.kernel.type"), types[i].kernel_type);
		else
			assert_null(json_object_object_get(k, "type"));
		assert_null(json_object_object_get(k, "image_arg"));
		url = xasprintf("http://srv/art/%s", in.initrd);
		assert_string_equal(gets(job, "actions.0.deploy.ramdisk.url"), url);
		free(url);
		r = get(job, "actions.0.deploy.ramdisk");
		if (types[i].dtb) {
			/* booti reads the size from the header LAVA does not add */
			assert_string_equal(gets(job, "actions.0.deploy.ramdisk.header"), "u-boot");
			url = xasprintf("http://srv/art/%s", in.dtb);
			assert_string_equal(gets(job, "actions.0.deploy.dtb.url"), url);
			free(url);
		} else {
			assert_null(json_object_object_get(r, "header"));
			assert_null(json_object_object_get(get(job, "actions.0.deploy"), "dtb"));
		}
		assert_false(json_object_get_boolean(get(job, "actions.0.deploy.ramdisk.install_overlay")));
		assert_false(json_object_get_boolean(get(job, "actions.0.deploy.ramdisk.install_modules")));
		assert_string_equal(gets(job, "actions.1.boot.method"), types[i].method);
		assert_string_equal(gets(job, "actions.1.boot.commands"), "ramdisk");
		assert_null(json_object_object_get(get(job, "actions.1.boot"), "media"));
		assert_null(json_object_object_get(get(job, "actions.1.boot"), "prompts"));
		assert_int_equal(json_object_get_int(get(job, "actions.1.boot.timeout.minutes")), 5);
		assert_string_equal(gets(job, "actions.2.test.monitors.0.start"), "SLRT ");
		json_object_put(job);
	}
	/* the qemu type wants a topology */
	assert_int_equal(lava_device_type_check_topo(lava_device_type_lookup("qemu"), NULL, &err), -1);
	assert_false(lava_device_type_bare(lava_device_type_lookup("qemu")));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_kvm),
		cmocka_unit_test(test_device_types),
		cmocka_unit_test(test_bare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
