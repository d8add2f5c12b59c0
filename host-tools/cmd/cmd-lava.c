/* cmd-lava.c - `lab lava import`: a LAVA job's log and metadata into a normal
 * results directory; `lab lava export`: a LAVA qemu job and its artifacts. */
#define _GNU_SOURCE
#include "cmd/lab.h"
#include "cmd/options.h"
#include "common/wire.h"
#include "common/wiretext.h"
#include "results/lavalog.h"
#include "results/console.h"
#include "results/results.h"
#include "results/runfiles.h"
#include "results/runreport.h"
#include "run/session.h"
#include "common/plan.h"
#include "kernel/initrd.h"
#include "kernel/kernel.h"
#include "run/lavajob.h"
#include "scenario/scenario.h"
#include "topo/guestview.h"
#include "topo/hosttopo.h"
#include "topo/topo.h"
#include "topo/verify.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char lava_usage[] =
	"lab lava import --job JOB.json --plan PLAN [--results DIR] LOG.yaml\n"
	"   or: lab lava export [--topo SPEC] (--suite S | --scenario FILE) [--kernel K]\n"
	"                       [--accel tcg|kvm] [--device-type T] --artifacts URL --out DIR\n"
	"   or: lab lava submit --server URL [--token-file F] JOB\n"
	"   or: lab lava follow --server URL [--token-file F] [--timeout S] --out DIR JOB_ID\n"
	"   or: lab lava run --server URL [--token-file F] --artifacts URL --dir DIR --topo SPEC\n"
	"                    (--suite S | --scenario FILE) [--kernel K] [--results ROOT]\n"
	"   (the token: $LAVA_TOKEN or --token-file, never printed or written)";
static const char export_usage[] =
	"lab lava export [--topo SPEC] (--suite S | --scenario FILE) [--kernel K] "
	"[--accel tcg|kvm] [--device-type T] --artifacts URL --out DIR";

/* What the job's metadata file says (strings owned by its JSON object). */
struct lava_job {
	const char *server, *job_id, *device, *device_type, *health;
	const char *error_type, *error_msg;  /* may be NULL: the log's are used */
	const char *spec, *suite, *scenario, *kernel;  /* may be NULL */
};

static const char *meta_str(struct json_object *o, const char *key, int need, const char *file)
{
	struct json_object *v = json_object_object_get(o, key);

	if (!v || json_object_is_type(v, json_type_null)) {
		if (need)
			die(LAB_EXIT_USAGE, "'%s': no \"%s\" (it needs server, job_id, device, "
			    "device_type, health)", file, key);
		return NULL;
	}
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int))
		die(LAB_EXIT_USAGE, "'%s': \"%s\" is not a string", file, key);
	return json_object_get_string(v);
}

/* The import as it goes: console text, rebuilt records, what LAVA said. */
struct lava_import {
	struct strbuf console, records, sysfs;
	struct wiretext_decoder text;
	char *log_error_type, *log_error_msg, *last_error;
	unsigned long target_lines, lava_lines;
};

static void on_frame(const void *frame, size_t len, void *ctx)
{
	strbuf_add(&((struct lava_import *)ctx)->records, frame, len);
}

static void keep(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s);
}

static void on_entry(const struct lava_entry *e, void *ctx)
{
	struct lava_import *im = ctx;

	if (!strcmp(e->lvl, "target") && e->msg) {
		/* LAVA keeps a console line without its end */
		strbuf_add(&im->console, e->msg, e->msg_len);
		strbuf_addch(&im->console, '\n');
		wiretext_decoder_feed(&im->text, e->msg, e->msg_len, on_frame, im);
		wiretext_decoder_feed(&im->text, "\n", 1, on_frame, im);
		im->target_lines++;
		return;
	}
	im->lava_lines++;
	if (e->error_type)
		keep(&im->log_error_type, e->error_type);
	if (e->error_msg)
		keep(&im->log_error_msg, e->error_msg);
	if ((!strcmp(e->lvl, "error") || !strcmp(e->lvl, "exception")) && e->msg)
		keep(&im->last_error, e->msg);
}

static int on_record(const struct wire_record *rec, void *ctx)
{
	struct strbuf *sysfs = ctx;

	if (rec->type == WIRE_SYSFS) {
		strbuf_add(sysfs, rec->payload, rec->len);
		if (sysfs->len && sysfs->buf[sysfs->len - 1] != '\n')
			strbuf_addch(sysfs, '\n');
	}
	return 0;
}

static void write_or_die(const char *dir, const char *name, const void *data, size_t len,
			 const char *tmp)
{
	char *path = xasprintf("%s/%s", dir, name);

	if (write_file_atomic(path, data, len) < 0) {
		remove_tree(tmp);
		die(LAB_EXIT_FAIL, "cannot write '%s'", path);
	}
	free(path);
}

static enum verdict verdict_by_name(const char *name)
{
	for (int v = VERDICT_PASS; v <= VERDICT_STOPPED; v++)
		if (!strcmp(verdict_name((enum verdict)v), name))
			return (enum verdict)v;
	die(LAB_EXIT_FAIL, "lava: no verdict '%s'", name);
}

static int lava_import(int argc, const char **argv)
{
	const char *job_file = NULL, *plan_file = NULL, *root = NULL, *pos[1];
	const struct lab_option opts[] = {
		OPT_STRING("job", &job_file, "the job's metadata (JSON): server, job_id, device, "
			   "device_type, health; optional error_type, error_msg, spec, suite, "
			   "scenario, kernel"),
		OPT_STRING("plan", &plan_file, "the compiled plan the job's initrd ran "
			   "(lab scenarios --plan, or lab lava export's plan.txt)"),
		OPT_STRING("results", &root, "where the run directory goes (default: results/)"),
		OPT_END(),
	};
	struct lava_import im;
	struct strbuf err = STRBUF_INIT, dir = STRBUF_INIT, diff = STRBUF_INIT, desc = STRBUF_INIT;
	struct strbuf hspec = STRBUF_INIT, notes = STRBUF_INIT;
	struct topo topo;
	int ndiff = -1;
	struct json_object *meta, *run, *lava, *v, *cases = NULL, *guest = NULL;
	const struct lava_health_map *map;
	struct console_watch cw;
	struct wire_decoder wd;
	struct lava_job job;
	enum verdict verdict;
	char reason[512], *log, *plan, *tmp, *label;
	const char *etype, *emsg;
	size_t log_len, plan_len;
	int nr_pos, r, bad, complete;

	r = parse_options(argc, argv, opts, lava_usage, pos, 1, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (nr_pos != 1 || !job_file || !plan_file)
		die(LAB_EXIT_USAGE, "a log, --job and --plan are needed (usage: %s)", lava_usage);

	meta = json_object_from_file(job_file);
	if (!meta || !json_object_is_type(meta, json_type_object))
		die(LAB_EXIT_USAGE, "'%s': not a JSON object", job_file);
	job.server = meta_str(meta, "server", 1, job_file);
	job.job_id = meta_str(meta, "job_id", 1, job_file);
	job.device = meta_str(meta, "device", 1, job_file);
	job.device_type = meta_str(meta, "device_type", 1, job_file);
	job.health = meta_str(meta, "health", 1, job_file);
	job.error_type = meta_str(meta, "error_type", 0, job_file);
	job.error_msg = meta_str(meta, "error_msg", 0, job_file);
	job.spec = meta_str(meta, "spec", 0, job_file);
	job.suite = meta_str(meta, "suite", 0, job_file);
	job.scenario = meta_str(meta, "scenario", 0, job_file);
	job.kernel = meta_str(meta, "kernel", 0, job_file);

	if (job.spec) {
		if (topo_parse(job.spec, &topo, &err) < 0)
			die(LAB_EXIT_USAGE, "'%s': spec: %s", job_file, err.buf);
		topo_describe(&topo, &desc);
	}
	log = read_file(pos[0], &log_len);
	if (!log)
		die(LAB_EXIT_USAGE, "cannot read '%s': %s", pos[0], strerror(errno));
	plan = read_file(plan_file, &plan_len);
	if (!plan)
		die(LAB_EXIT_USAGE, "cannot read '%s': %s", plan_file, strerror(errno));
	memset(&im, 0, sizeof(im));
	im.console = im.records = im.sysfs = (struct strbuf)STRBUF_INIT;
	wiretext_decoder_init(&im.text);
	if (lava_log_parse(log, log_len, on_entry, &im, &err) < 0)
		die(LAB_EXIT_USAGE, "'%s': %s", pos[0], err.buf);
	wiretext_decoder_finish(&im.text, on_frame, &im);
	etype = job.error_type ? job.error_type : im.log_error_type;
	emsg = job.error_msg ? job.error_msg : im.log_error_msg ? im.log_error_msg : im.last_error;
	map = lava_health_lookup(job.health, etype);
	if (!map)
		die(LAB_EXIT_USAGE, "'%s': health '%s' is not a finished LAVA job's "
		    "(Complete, Incomplete, Canceled)", job_file, job.health);

	/* Built aside and renamed at the end: never a half-imported run. */
	if (!root)
		root = results_root();
	if (mkdir_p(root, 0755) < 0)
		die(LAB_EXIT_FAIL, "cannot create '%s': %s", root, strerror(errno));
	tmp = xasprintf("%s/.lava-import-XXXXXX", root);
	if (!mkdtemp(tmp))
		die(LAB_EXIT_FAIL, "cannot create a directory in '%s': %s", root, strerror(errno));

	write_or_die(tmp, "console.log", im.console.buf, im.console.len, tmp);
	write_or_die(tmp, "records.bin", im.records.buf, im.records.len, tmp);
	write_or_die(tmp, "plan.txt", plan, plan_len, tmp);

	wire_decoder_init(&wd);
	wire_decoder_feed(&wd, im.records.buf, im.records.len, on_record, &im.sysfs);
	complete = wire_decoder_finish(&wd) == 0;
	console_watch_init(&cw);
	console_watch_feed(&cw, im.console.buf, im.console.len);
	console_watch_finish(&cw);

	if (im.sysfs.len) {
		guest = guest_view_from_sysfs(im.sysfs.buf, im.sysfs.len, &err);
		strbuf_reset(&err);
	}
	/* a machine of its own (no spec: the job set no topology) is
	 * recorded as lab bare records its host: the spec of what the
	 * runner saw, the view itself, and no topology verdict */
	if (!job.spec && guest && hosttopo_from_view(guest, &topo, &hspec, &notes, &err) == 0)
		topo_describe(&topo, &desc);
	strbuf_reset(&err);
	run = run_json_new("lava-import", job.spec ? job.spec : hspec.buf,
			   job.spec || hspec.len ? topo.spec : "", desc.buf, "lava");
	if (!job.spec && hspec.len) {
		results_add_str(run, "topology_notes", notes.buf);
		json_object_object_add(run, "host_topology", json_object_get(guest));
	}
	/* a LAVA device runs on the wall clock, as a KVM or bare-metal run */
	results_add_str(run, "clock", "wall");
	lava = json_object_new_object();
	results_add_str(lava, "server", job.server);
	results_add_str(lava, "job_id", job.job_id);
	results_add_str(lava, "device", job.device);
	results_add_str(lava, "device_type", job.device_type);
	results_add_str(lava, "health", job.health);
	if (etype)
		results_add_str(lava, "error_type", etype);
	if (emsg)
		results_add_str(lava, "error_msg", emsg);
	json_object_object_add(run, "lava", lava);
	json_object_object_add(run, "records", json_object_new_string("console"));
	if (job.kernel)
		results_add_str(run, "kernel", job.kernel);
	if (job.suite)
		results_add_str(run, "suite", job.suite);
	if (job.scenario)
		results_add_str(run, "scenario", job.scenario);
	if (run_json_write(tmp, run) < 0) {
		remove_tree(tmp);
		die(LAB_EXIT_FAIL, "cannot write run.json in '%s'", tmp);
	}
	json_object_put(run);
	if (guest)
		results_write_json(tmp, "guest-topology.json", guest);
	if (guest && job.spec) {
		struct json_object *expected = topo_expected_view(&topo);

		results_write_json(tmp, "expected-topology.json", expected);
		ndiff = view_compare(expected, guest, &diff, 40);
		json_object_put(expected);
	}

	bad = run_report_build(tmp, &cases, &err);
	if (bad < 0) {
		remove_tree(tmp);
		die(LAB_EXIT_USAGE, "%s", err.buf);
	}

	/* the same order of evidence as a local run's session */
	if (!map->own) {
		verdict = verdict_by_name(map->verdict);
		if (verdict == VERDICT_HANG && cw.worst == CON_CRASH)
			verdict = VERDICT_CRASH;
		snprintf(reason, sizeof(reason), "%s%s%.250s%s%.150s", map->prefix,
			 emsg ? ": " : "", emsg ? emsg : "",
			 verdict == VERDICT_CRASH ? "; kernel crashed at console line " : "",
			 verdict == VERDICT_CRASH ? cw.first : "");
	} else if (cw.worst == CON_CRASH || cw.worst == CON_REBOOT) {
		verdict = VERDICT_CRASH;
		snprintf(reason, sizeof(reason), "kernel crashed at console line %lu: %.300s",
			 cw.first_line_no, cw.first);
	} else if (!complete) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason),
			 "record stream incomplete: %llu received, %llu missing, %llu corrupt, end %s",
			 (unsigned long long)wd.records, (unsigned long long)wd.missing,
			 (unsigned long long)(wd.bad_crc + wd.bad_header + im.text.bad_lines),
			 wd.ended ? "seen" : "never seen");
	} else if (cw.worst == CON_SPLAT) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "kernel splat at console line %lu: %.300s",
			 cw.first_line_no, cw.first);
	} else if (ndiff > 0) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "guest topology differs");
	} else if (bad) {
		verdict = VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "%d case%s did not pass", bad, bad == 1 ? "" : "s");
	} else {
		verdict = VERDICT_PASS;
		snprintf(reason, sizeof(reason), "%llu records, console clean",
			 (unsigned long long)wd.records);
	}
	v = verdict_json_new(verdict_name(verdict), reason,
			     ndiff < 0 ? "not verified" : ndiff ? "FAIL" : "PASS");
	results_add_str(v, "backend", "lava");
	json_object_object_add(v, "records", json_object_new_int64((int64_t)wd.records));
	json_object_object_add(v, "records_missing", json_object_new_int64((int64_t)wd.missing));
	json_object_object_add(v, "records_corrupt",
			       json_object_new_int64((int64_t)(wd.bad_crc + wd.bad_header)));
	json_object_object_add(v, "console_lines_bad", json_object_new_int64((int64_t)im.text.bad_lines));
	json_object_object_add(v, "cases", json_object_new_int(
		cases ? (int)json_object_array_length(cases) : 0));
	json_object_object_add(v, "cases_failed", json_object_new_int(bad));
	if (verdict_write(tmp, v) < 0) {
		remove_tree(tmp);
		die(LAB_EXIT_FAIL, "cannot write verdict.json in '%s'", tmp);
	}
	json_object_put(v);

	label = xasprintf("lava-%s", job.job_id);
	if (results_create_run(root, label, &dir) < 0 || rename(tmp, dir.buf) < 0) {
		int e = errno;

		remove_tree(tmp);
		if (dir.len)
			rmdir(dir.buf);
		die(LAB_EXIT_FAIL, "cannot move the import into place: %s", strerror(e));
	}
	run_report_print(cases);
	if (ndiff > 0)
		printf("topology: FAIL\n%s", diff.buf);
	else
		printf("topology: %s\n", ndiff < 0 ? "not verified (no spec in the job's metadata)" : "PASS");
	printf("verdict: %s: %s\n", verdict_name(verdict), reason);
	printf("results: %s\n", dir.buf);

	json_object_put(cases);
	json_object_put(guest);
	json_object_put(meta);
	wire_decoder_release(&wd);
	wiretext_decoder_release(&im.text);
	strbuf_release(&im.console);
	strbuf_release(&im.records);
	strbuf_release(&im.sysfs);
	strbuf_release(&err);
	strbuf_release(&dir);
	strbuf_release(&diff);
	strbuf_release(&desc);
	strbuf_release(&hspec);
	strbuf_release(&notes);
	free(im.log_error_type);
	free(im.log_error_msg);
	free(im.last_error);
	free(label);
	free(tmp);
	free(log);
	free(plan);
	return verdict_exit_code(verdict);
}

/* The kernel command line of an exported job: what lab run gives a QEMU
 * guest that holds on any host, and the console transport.  A bare-metal
 * device's console is its dictionary's (console_device, baud_rate), which
 * its template puts on the kernel's line; the rest is the same. */
#define EXPORT_CMDLINE "loglevel=5 panic=-1 sched_verbose schedstats=enable " \
	"lab.mode=run lab.records=console"
#define EXPORT_CONSOLE "console=ttyS0,115200 "
/* Firmware, bootloader and TFTP before /init on a machine of its own. */
#define BARE_BOOT_S 300

static void copy_or_die(const char *from, const char *dir, const char *name, const char *tmp)
{
	size_t len;
	char *data = read_file(from, &len);

	if (!data) {
		remove_tree(tmp);
		die(LAB_EXIT_FAIL, "cannot read '%s': %s", from, strerror(errno));
	}
	write_or_die(dir, name, data, len, tmp);
	free(data);
}

static int lava_export(int argc, const char **argv)
{
	const char *spec = NULL, *suite = NULL, *scenario = NULL, *kernel = "debian";
	const char *accel = "tcg", *artifacts = NULL, *out = NULL, *pos[1];
	const char *device_type = LAVA_DEFAULT_DEVICE_TYPE;
	const struct lab_option opts[] = {
		OPT_STRING("topo", &spec, "topology spec or preset (the qemu device type's; none on bare metal)"),
		OPT_STRING("suite", &suite, "a suite under scenarios/suites/"),
		OPT_STRING("scenario", &scenario, "a scenario file"),
		OPT_STRING("kernel", &kernel, "kernel, as lab run --kernel (default: debian)"),
		OPT_STRING("accel", &accel, "tcg (default: LAVA's no_kvm) or kvm (LAVA's -enable-kvm)"),
		OPT_STRING("device-type", &device_type, "the LAVA device type the job is for (default qemu; "
			   "docs/lava.md lists those the lab writes jobs for)"),
		OPT_STRING("artifacts", &artifacts, "the URL the device downloads DIR's files from "
			   "(http://, https:// or file:// for a local LAVA)"),
		OPT_STRING("out", &out, "a new directory: job.json, the kernel, initrd.cpio, plan.txt"),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT, plan = STRBUF_INIT, initrd = STRBUF_INIT;
	struct cpio cpio = CPIO_INIT;
	struct kernel_paths kp;
	struct plan parsed;
	struct topo t;
	struct lava_job_in in = { 0 };
	const struct lava_device_type *dt;
	enum topo_arch arch;
	struct json_object *job;
	const char *base, *kimage, *kname;
	char perr[256], *tmp, *name, *data;
	size_t len;
	int nr_pos, r;

	r = parse_options(argc, argv, opts, export_usage, pos, 0, &nr_pos);
	if (r)
		return r > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	if (!artifacts || !out || !suite == !scenario)
		die(LAB_EXIT_USAGE, "one of --suite and --scenario, --artifacts and --out "
		    "are needed (usage: %s)", export_usage);
	if (strncmp(artifacts, "http://", 7) && strncmp(artifacts, "https://", 8) &&
	    strncmp(artifacts, "file://", 7))
		die(LAB_EXIT_USAGE, "--artifacts '%s': an http://, https:// or file:// URL", artifacts);
	if (strcmp(accel, "tcg") && strcmp(accel, "kvm"))
		die(LAB_EXIT_USAGE, "--accel '%s': tcg or kvm", accel);
	if (!(dt = lava_device_type_lookup(device_type)))
		die(LAB_EXIT_USAGE, "--device-type '%s': the lab writes jobs for %s only", device_type,
		    lava_device_type_names());
	if (lava_device_type_check_topo(dt, spec, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (spec && topo_parse(spec, &t, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (spec && t.arch != dt->arch)
		die(LAB_EXIT_USAGE, "'%s': device type %s boots %s guests only", spec, dt->name,
		    topo_arch_info(dt->arch)->name);
	arch = dt->arch;
	if (access(out, F_OK) == 0)
		die(LAB_EXIT_USAGE, "'%s' exists: --out names a new directory", out);
	if ((suite ? plan_compile_suite(suite, &plan, &err) : plan_compile_file(scenario, &plan, &err)) < 0 ||
	    plan_check_on_runner(NULL, plan.buf, plan.len, NULL, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (plan_parse(plan.buf, plan.len, &parsed, perr, sizeof(perr)) < 0)
		die(LAB_EXIT_USAGE, "compiled plan: %s", perr);
	if (kernel_resolve_arch(kernel, arch, &kp, &err) < 0)
		die(LAB_EXIT_USAGE, "%s", err.buf);
	if (!(base = initrd_cached_arch(arch, &err)))
		die(LAB_EXIT_FAIL, "%s", err.buf);
	kimage = *kp.bzimage ? kp.bzimage : kp.vmlinux;
	/* arm64's kp.bzimage is the Image a bootloader loads */
	kname = !*kp.bzimage ? "vmlinux" : arch == TOPO_ARCH_ARM64 ? "Image" : "bzImage";

	/* built aside, renamed at the end: never a half-written export */
	tmp = xasprintf("%s.tmp-XXXXXX", out);
	if (!mkdtemp(tmp))
		die(LAB_EXIT_FAIL, "cannot create '%s': %s", tmp, strerror(errno));
	copy_or_die(kimage, tmp, kname, tmp);
	data = read_file(base, &len);
	if (!data) {
		remove_tree(tmp);
		die(LAB_EXIT_FAIL, "cannot read '%s': %s", base, strerror(errno));
	}
	strbuf_add(&initrd, data, len);
	free(data);
	/* the plan as lab run packs it: a cpio appended to the base initrd */
	cpio_add_file(&cpio, "plan", 0644, plan.buf, plan.len);
	cpio_finish(&cpio);
	strbuf_add(&initrd, cpio.buf.buf, cpio.buf.len);
	cpio_release(&cpio);
	write_or_die(tmp, "initrd.cpio", initrd.buf, initrd.len, tmp);
	write_or_die(tmp, "plan.txt", plan.buf, plan.len, tmp);

	name = xasprintf("schedlab %s %s %s", spec ? t.spec : dt->name, suite ? suite : scenario,
			 kp.release);
	in.dt = dt;
	in.topo = spec ? &t : NULL;
	in.accel = strcmp(accel, "kvm") ? ACCEL_TCG : ACCEL_KVM;
	in.name = name;
	in.artifacts = artifacts;
	in.kernel = kname;
	in.initrd = "initrd.cpio";
	in.cmdline = lava_device_type_bare(dt) ? EXPORT_CMDLINE : EXPORT_CONSOLE EXPORT_CMDLINE;
	in.boot_s = spec ? 60 + topo_nr_cpus(&t) / 2 : BARE_BOOT_S;
	in.run_s = plan_deadline_s(&parsed);
	job = lava_job_definition(&in);
	data = xasprintf("%s\n", json_object_to_json_string_ext(job, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
	write_or_die(tmp, "job.json", data, strlen(data), tmp);
	free(data);
	json_object_put(job);
	if (rename(tmp, out) < 0) {
		int e = errno;

		remove_tree(tmp);
		die(LAB_EXIT_FAIL, "cannot rename '%s' to '%s': %s", tmp, out, strerror(e));
	}
	printf("%s/job.json\n", out);
	free(name);
	free(tmp);
	plan_release(&parsed);
	strbuf_release(&plan);
	strbuf_release(&initrd);
	strbuf_release(&err);
	return LAB_EXIT_PASS;
}

int cmd_lava(int argc, const char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return lava_import(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "export"))
		return lava_export(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "submit"))
		return cmd_lava_submit(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "follow"))
		return cmd_lava_follow(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_lava_run(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s\n", lava_usage);
		return LAB_EXIT_PASS;
	}
	die(LAB_EXIT_USAGE, "lava needs a subcommand: export, submit, follow, import or run (see lab lava --help)");
}
