/* accel.c - ACCEL=auto|tcg|kvm, with KVM proven by a boot (accel.h).
 *
 * An openable /dev/kvm and a QEMU that answers query-kvm do not make a
 * KVM that runs a guest: under nested virtualization a guest may stop
 * with "KVM internal error" in its first second, or never get past the
 * firmware's hand-off, while QEMU itself looks well.  Only a guest that
 * reached its first record under KVM proves it.  That costs a boot, so
 * the answer is kept per (host kernel, QEMU, host CPU, /dev/kvm device)
 * in <cache>/accel/: a new QEMU or host kernel asks again.
 */
#define _GNU_SOURCE
#include "run/accel.h"
#include "backend/backend.h"
#include "kernel/initrd.h"
#include "kernel/kernel.h"
#include "lib/child.h"
#include "lib/json.h"
#include "results/results.h"
#include "results/runfiles.h"
#include "run/session.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* The first "model name" of /proc/cpuinfo, or "unknown". */
static void cpu_model(struct strbuf *out)
{
	char *s = read_file("/proc/cpuinfo", NULL), *p, *nl;

	p = s ? strstr(s, "model name") : NULL;
	if (p && (p = strchr(p, ':'))) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		nl = strchrnul(p, '\n');
		strbuf_add(out, p, (size_t)(nl - p));
	} else {
		strbuf_addstr(out, "unknown");
	}
	free(s);
}

static void probe_key(struct accel_probe *ap, const struct stat *kvm)
{
	struct strbuf key = STRBUF_INIT;
	struct utsname u;
	char *qver = qemu_version_string(TOPO_ARCH_X86_64);
	uint64_t h;

	uname(&u);
	strbuf_addf(&key, "host %s; %s (%s); cpu ", u.release, qver,
		    qemu_binary_for(TOPO_ARCH_X86_64));
	cpu_model(&key);
	strbuf_addf(&key, "; /dev/kvm %u:%u", major(kvm->st_rdev), minor(kvm->st_rdev));
	snprintf(ap->key, sizeof(ap->key), "%s", key.buf);
	h = fnv1a64(FNV1A64_INIT, ap->key, strlen(ap->key));
	snprintf(ap->cache_file, sizeof(ap->cache_file), "%s/accel/kvm-%016llx.json",
		 lab_cache_dir(), (unsigned long long)h);
	strbuf_release(&key);
	free(qver);
}

/* 1 when the cache holds an answer for this very key. */
static int probe_cached(struct accel_probe *ap)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *o = json_read_file(ap->cache_file, "kvm probe", 1u << 16, NULL, &err);
	struct json_object *v;
	const char *key, *why, *date;
	double cost = 0;
	int ok = 0;

	strbuf_release(&err);
	if (!o)
		return 0;
	key = json_get_str(o, "key");
	why = json_get_str(o, "why");
	date = json_get_str(o, "date");
	if (key && !strcmp(key, ap->key) && json_object_object_get_ex(o, "works", &v) &&
	    json_object_is_type(v, json_type_boolean)) {
		ap->works = json_object_get_boolean(v);
		snprintf(ap->why, sizeof(ap->why), "%s", why ? why : "");
		snprintf(ap->date, sizeof(ap->date), "%s", date ? date : "");
		json_get_num(o, "probe_s", &cost);
		ap->probe_s = cost;
		ap->cached = ok = 1;
	}
	json_object_put(o);
	return ok;
}

static void probe_store(const struct accel_probe *ap)
{
	struct json_object *o = json_object_new_object();
	char *dir = xasprintf("%s/accel", lab_cache_dir());
	const char *base = strrchr(ap->cache_file, '/') + 1;

	results_add_str(o, "key", ap->key);
	json_object_object_add(o, "works", json_object_new_boolean(ap->works));
	results_add_str(o, "why", ap->why);
	json_object_object_add(o, "probe_s", json_object_new_double(ap->probe_s));
	results_add_str(o, "date", ap->date);
	/* a cache that cannot be written costs a probe per run, no more */
	if (mkdir_p(dir, 0755) < 0 || results_write_json(dir, base, o) < 0)
		warning("cannot keep the kvm probe's answer in '%s'", dir);
	json_object_put(o);
	free(dir);
}

static volatile sig_atomic_t probe_got_record;

static void probe_record(void *ctx, const struct wire_record *rec)
{
	(void)ctx;
	(void)rec;
	probe_got_record = 1;
}

/* Boots the probe guest under KVM; fills ap->works and ap->why. */
static int probe_boot(struct accel_probe *ap, struct strbuf *err)
{
	static const struct session_watch watch = { .record = probe_record };
	struct backend_conf conf = { 0 };
	struct kernel_paths kp;
	struct session s;
	struct topo t;
	struct strbuf serr = STRBUF_INIT;
	const char *initrd;
	char *dir;
	int ret;

	if (kernel_resolve_arch("debian", TOPO_ARCH_X86_64, &kp, err) < 0 ||
	    !(initrd = initrd_cached_arch(TOPO_ARCH_X86_64, err)) ||
	    topo_parse("1s1c", &t, err) < 0)
		return -1;
	dir = xasprintf("%s/accel/probe", lab_cache_dir());
	remove_tree(dir);
	if (mkdir_p(dir, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	conf.topo = &t;
	conf.accel = ACCEL_KVM;
	conf.host_is_amd = host_cpu_is_amd();
	conf.kernel = kernel_paths_boot_image(&kp);
	conf.initrd = initrd;
	conf.cmdline = "console=ttyS0 loglevel=5 panic=-1 lab.mode=probe";
	conf.run_dir = dir;
	session_init(&s);
	s.ops = &backend_qemu;
	s.conf = &conf;
	s.quiet = 1;
	s.watch = &watch;
	probe_got_record = 0;
	s.stop = &probe_got_record;
	s.crash_grace_ms = 500;
	s.timeout_ms = ACCEL_PROBE_S * 1000;
	ret = session_run(&s, &serr);
	if (ret < 0) {
		struct strbuf lines = STRBUF_INIT;

		/* QEMU's own words beat "connection closed" */
		backend_log_error_lines(dir, 2, &lines);
		snprintf(ap->why, sizeof(ap->why), "QEMU cannot start a KVM guest: %s",
			 lines.len ? lines.buf : serr.buf);
		strbuf_release(&lines);
	} else if (s.t_first_record_ns)
		ap->works = 1;
	else if (s.t_halt_ns)
		snprintf(ap->why, sizeof(ap->why), "guest stopped with '%s' in the probe",
			 *s.halt_lines ? s.halt_lines : s.halt.state);
	else if (s.verdict == VERDICT_CRASH)
		snprintf(ap->why, sizeof(ap->why), "guest crashed in the probe: %.300s", s.console.first);
	else if (s.t_deadline_ns)
		snprintf(ap->why, sizeof(ap->why), "guest sent no record within %d s in the probe "
			 "(its console: %lu lines)", ACCEL_PROBE_S, s.console.lines);
	else
		snprintf(ap->why, sizeof(ap->why), "QEMU ended the guest before its first record: %.300s",
			 s.reason);
	session_release(&s);
	strbuf_release(&serr);
	free(dir);
	return 0;
}

int accel_probe(struct accel_probe *ap, int reprobe, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct stat st;
	uint64_t t0 = now_ns();
	time_t now;
	int ret = 0;

	memset(ap, 0, sizeof(*ap));
	if (stat("/dev/kvm", &st) < 0) {
		snprintf(ap->why, sizeof(ap->why), "/dev/kvm: %s", strerror(errno));
		return 0;
	}
	ap->dev_kvm = 1;
	probe_key(ap, &st);
	if (!reprobe && probe_cached(ap))
		return 0;
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		/* a permission, not a property of the host: never cached */
		snprintf(ap->why, sizeof(ap->why), "/dev/kvm: %s", strerror(errno));
		return 0;
	}
	if (qemu_kvm_query(&why))
		ret = probe_boot(ap, err);
	else
		snprintf(ap->why, sizeof(ap->why), "%s", why.buf);
	strbuf_release(&why);
	if (ret < 0)
		return -1;
	ap->probe_s = (double)(now_ns() - t0) / 1e9;
	now = time(NULL);
	strftime(ap->date, sizeof(ap->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	probe_store(ap);
	return 0;
}

int accel_resolve(const char *want, enum lab_accel *out, struct strbuf *note, struct strbuf *err)
{
	struct accel_probe ap;
	int any = !want || !*want || !strcmp(want, "auto");

	if (want && !strcmp(want, "tcg")) {
		*out = ACCEL_TCG;
		return 0;
	}
	if (!any && strcmp(want, "kvm")) {
		strbuf_addf(err, "unknown accelerator '%s' (auto, tcg or kvm)", want);
		return -1;
	}
	if (accel_probe(&ap, 0, err) < 0)
		return -1;
	if (ap.works) {
		*out = ACCEL_KVM;
		return 0;
	}
	if (!any) {
		strbuf_addf(err, "ACCEL=kvm but KVM is not usable here: %s", ap.why);
		return -1;
	}
	*out = ACCEL_TCG;
	if (ap.dev_kvm)
		strbuf_addf(note, "kvm: %s; using tcg", ap.why);
	return 0;
}
