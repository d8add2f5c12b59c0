/* cmd-doctor.c - `lab doctor [--reprobe] [--json]`: what the lab found on
 * this host: the accelerator it will use and why, QEMU and kernel
 * versions, and what the cache holds. */
#define _GNU_SOURCE
#include "cmd/lab.h"
#include "cmd/options.h"
#include "backend/backend.h"
#include "results/runfiles.h"
#include "run/accel.h"
#include "run/cache.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static const char doctor_usage[] = "lab doctor [--reprobe] [--json]";

static const char *accel_line(const struct accel_probe *ap)
{
	return ap->works ? "kvm" : "tcg";
}

static struct json_object *doctor_json(const struct utsname *u, const struct accel_probe *ap,
				       char *const qver[], const struct cache_list *l)
{
	struct json_object *o = json_object_new_object(), *k = json_object_new_object(), *q, *a;

	results_add_str(o, "host_kernel", u->release);
	results_add_str(o, "host_machine", u->machine);
	results_add_str(o, "accel", accel_line(ap));
	json_object_object_add(k, "dev_kvm", json_object_new_boolean(ap->dev_kvm));
	json_object_object_add(k, "works", json_object_new_boolean(ap->works));
	results_add_str(k, "why", ap->why);
	if (ap->dev_kvm) {
		json_object_object_add(k, "cached", json_object_new_boolean(ap->cached));
		json_object_object_add(k, "probe_s", json_object_new_double(ap->probe_s));
		results_add_str(k, "probed", ap->date);
		results_add_str(k, "key", ap->key);
		results_add_str(k, "cache_file", ap->cache_file);
	}
	json_object_object_add(o, "kvm", k);
	q = json_object_new_object();
	for (int i = 0; i < TOPO_ARCH_NR; i++)
		results_add_str(q, topo_arch_info((enum topo_arch)i)->name, qver[i]);
	json_object_object_add(o, "qemu", q);
	results_add_str(o, "cache", lab_cache_dir());
	a = json_object_new_array();
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].kind, "kernel"))
			json_object_array_add(a, json_object_new_string(l->v[i].name));
	json_object_object_add(o, "kernels", a);
	return o;
}

int cmd_doctor(int argc, const char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct cache_list l = CACHE_LIST_INIT;
	struct accel_probe ap;
	struct utsname u;
	char *qver[TOPO_ARCH_NR];
	const char *pos[1];
	int reprobe = 0, json = 0, nr_pos = 0, ret, kernels = 0;
	const struct lab_option opts[] = {
		OPT_BOOL("reprobe", &reprobe, "probe KVM again, whatever the cache says"),
		OPT_BOOL("json", &json, "the findings as JSON on stdout"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, doctor_usage, pos, 0, &nr_pos);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	uname(&u);
	if (accel_probe(&ap, reprobe, &err) < 0)
		die(LAB_EXIT_FAIL, "kvm probe: %s", err.buf);
	for (int i = 0; i < TOPO_ARCH_NR; i++)
		qver[i] = qemu_version_string((enum topo_arch)i);
	if (cache_list(lab_cache_dir(), &l, &err) < 0)
		die(LAB_EXIT_FAIL, "%s", err.buf);
	if (json) {
		struct json_object *o = doctor_json(&u, &ap, qver, &l);

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		printf("host:    Linux %s %s\n", u.release, u.machine);
		for (int i = 0; i < TOPO_ARCH_NR; i++)
			printf("%-8s %s (%s guests)\n", i ? "" : "qemu:", qver[i],
			       topo_arch_info((enum topo_arch)i)->name);
		if (!ap.dev_kvm)
			printf("kvm:     no: %s\n", ap.why);
		else
			printf("kvm:     %s%s (probed %s%s in %.1f s; kept in %s)\n",
			       ap.works ? "works" : "fails: ", ap.works ? "" : ap.why,
			       ap.cached ? "on " : "now", ap.cached ? ap.date : "", ap.probe_s,
			       ap.cache_file);
		printf("accel:   auto means %s; other arches run under tcg\n", accel_line(&ap));
		printf("cache:   %s\n", lab_cache_dir());
		for (size_t i = 0; i < l.nr; i++)
			if (!strcmp(l.v[i].kind, "kernel"))
				printf("%-8s %s\n", kernels++ ? "" : "kernels:", l.v[i].name);
		if (!kernels)
			printf("kernels: none cached yet\n");
	}
	for (int i = 0; i < TOPO_ARCH_NR; i++)
		free(qver[i]);
	cache_list_release(&l);
	strbuf_release(&err);
	return LAB_EXIT_PASS;
}
