/* cmd-matrix.c - `lab matrix`: kernels x topologies x suites as `lab run`
 * jobs with bounded parallelism and a deadline each, resumable from DIR. */
#define _GNU_SOURCE
#include "backend/backend.h"
#include "run/jobs.h"
#include "kernel/kernel.h"
#include "cmd/lab.h"
#include "run/labrun.h"
#include "run/lavajob.h"
#include "run/matrix.h"
#include "run/variant.h"
#include "cmd/options.h"
#include "lib/json.h"
#include "lib/progress.h"
#include "results/results.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char matrix_usage[] =
	"lab matrix --kernels K1,K2 --topos T1,T2 --suites S1 [--variant KEY=VALUE...] [--arch A] [--jobs N] [--dir DIR] "
	"[--backend libvirt --uri URI1 --uri URI2...] [--clock wall|virtual] [--warm|--cold] [--trace] "
	"[--lava URL [--device-type T] [--lava-artifacts URL --lava-publish DIR]] (or only --dir DIR: resume a stopped matrix)";

#define MX_MAX_PARALLEL JOBS_MAX
#define POLL_MS 250

/* A hypervisor the jobs go to: one per --uri, or one for lab run's default. */
struct mx_host {
	const char *uri;	/* NULL: lab run's own default */
	unsigned running;
	unsigned started;	/* jobs started on it: ties go to the least used */
	int dead;		/* could not be reached: its jobs go elsewhere */
};

struct mx_run {
	struct matrix m;
	const char *dir;
	const char *backend;		/* passed to every lab run */
	int warm;			/* lab run --warm */
	unsigned parallel;		/* per host */
	struct jobs_plan jobs;		/* one local host: how parallel was chosen */
	const char *lava_token_file;	/* --lava-token-file */
	unsigned max_total;		/* over all hosts; 0: no bound */
	unsigned running;
	unsigned *deadline_s;		/* per job */
	struct lab_child_run *child;	/* per job, while it runs */
	struct mx_host *host;
	size_t nr_hosts;
	size_t *job_host;		/* per job, while it runs */
	struct kernel_paths *kp;	/* per kernel, as resolved for its first arch */
	int variants_unsure;		/* a variant only a boot can check (features
					 * without a cached list): checked again as jobs end */
};

static int lists_equal(const struct strvec *a, const struct strvec *b)
{
	if (a->nr != b->nr)
		return 0;
	for (size_t i = 0; i < a->nr; i++)
		if (strcmp(a->v[i], b->v[i]))
			return 0;
	return 1;
}

static int mx_uses_arch(const struct mx_run *r, enum topo_arch arch)
{
	struct strbuf err = STRBUF_INIT;
	int used = 0;

	for (size_t i = 0; i < r->m.topos.nr && !used; i++) {
		struct topo t;

		/* a bad spec fails its job's own check; count it as x86_64 */
		if (topo_parse(r->m.topos.v[i], &t, &err) < 0)
			t.arch = TOPO_ARCH_X86_64;
		used = t.arch == arch;
	}
	strbuf_release(&err);
	return used || (arch == TOPO_ARCH_X86_64 && !r->m.topos.nr);
}

/* Each variant against each topology; they parse (mx_variants()). */
static void mx_validate_variants_topo(const struct mx_run *r)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_variant v;

	for (size_t i = 0; i < r->m.variants.nr; i++) {
		if (variant_parse(r->m.variants.v[i], &v, &err) < 0 ||
		    (r->m.lava[0] && variant_check_lava(&v, &err) < 0))
			die(LAB_EXIT_USAGE, "%s", err.buf);
		for (size_t t = 0; t < r->m.topos.nr; t++) {
			struct topo topo;

			/* a bad spec fails lab_run_deadline_s() with its own message */
			if (topo_parse(r->m.topos.v[t], &topo, &err) < 0) {
				strbuf_reset(&err);
				continue;
			}
			if (variant_check_topo(&v, &topo, r->m.topos.v[t], &err) < 0)
				die(LAB_EXIT_USAGE, "%s", err.buf);
		}
	}
	strbuf_release(&err);
}

/* Each variant against a kernel it will boot: 1 when every answer was
 * certain, 0 when a boot must tell; dies on a variant the kernel lacks. */
static int mx_validate_variants_kernel(const struct mx_run *r, const struct kernel_paths *kp)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_variant v;
	int known, all = 1;

	for (size_t i = 0; i < r->m.variants.nr; i++) {
		if (variant_parse(r->m.variants.v[i], &v, &err) < 0 ||
		    variant_check_kernel(&v, kp, &known, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		all &= known;
	}
	strbuf_release(&err);
	return all;
}

/*
 * What a finished job's boot taught the lab (its kernel's features are
 * cached now): a variant its kernel lacks stops the matrix before that
 * variant's jobs boot, as bad input.
 */
static void mx_recheck_variants(struct mx_run *r, struct progress *pr)
{
	int sure = 1;

	if (!r->variants_unsure)
		return;
	for (size_t k = 0; k < r->m.kernels.nr; k++) {
		struct strbuf err = STRBUF_INIT;
		struct lab_variant v;
		int known;

		for (size_t i = 0; i < r->m.variants.nr; i++) {
			if (variant_parse(r->m.variants.v[i], &v, &err) == 0 &&
			    variant_check_kernel(&v, &r->kp[k], &known, &err) == 0) {
				sure &= known;
				continue;
			}
			progress_break(pr);
			die(LAB_EXIT_USAGE, "%s", err.buf);
		}
		strbuf_release(&err);
	}
	r->variants_unsure = !sure;
}

/* Kernels, topologies, suites and variants are checked before any job starts. */
static void mx_validate(struct mx_run *r)
{
	struct strbuf err = STRBUF_INIT, label = STRBUF_INIT, spec = STRBUF_INIT;
	struct kernel_paths kp;

	mx_validate_variants_topo(r);
	r->kp = xcalloc(r->m.kernels.nr ? r->m.kernels.nr : 1, sizeof(*r->kp));
	for (size_t k = 0; k < r->m.kernels.nr; k++) {
		int first = 1;

		mx_kernel_item(r->m.kernels.v[k], &label, &spec);
		if (!spec.len)
			die(LAB_EXIT_USAGE, "kernel item '%s' names no kernel", r->m.kernels.v[k]);
		if (label.len && (label.len > 64 || strpbrk(label.buf, " \t+")))
			die(LAB_EXIT_USAGE, "bad kernel label '%s' (1-64 characters, no blanks or '+')",
			    label.buf);
		/* once per guest arch the topologies name */
		for (int a = 0; a < TOPO_ARCH_NR; a++) {
			if (!mx_uses_arch(r, (enum topo_arch)a))
				continue;
			if (kernel_resolve_arch(spec.buf, (enum topo_arch)a, &kp, &err) < 0)
				die(LAB_EXIT_USAGE, "%s", err.buf);
			if (!mx_validate_variants_kernel(r, &kp))
				r->variants_unsure = 1;
			if (first)
				r->kp[k] = kp;
			first = 0;
		}
	}
	r->deadline_s = xcalloc(r->m.nr_jobs ? r->m.nr_jobs : 1, sizeof(*r->deadline_s));
	for (size_t i = 0; i < r->m.nr_jobs; i++)
		if (lab_run_deadline_s(r->m.jobs[i].topo, r->m.jobs[i].suite, &r->deadline_s[i], &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
	strbuf_release(&err);
	strbuf_release(&label);
	strbuf_release(&spec);
}

static int load_state(struct mx_run *r, const char *path, struct strbuf *err)
{
	size_t len;
	char *text = json_read_bounded(path, 0, &len, NULL, err);
	int ret;

	if (!text)
		return -1;
	ret = matrix_state_parse(text, len, &r->m, err);
	free(text);
	return ret;
}

static void lock_dir(const char *dir)
{
	char *path = xasprintf("%s/.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		die(LAB_EXIT_FAIL, "cannot create '%s': %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		die(LAB_EXIT_USAGE, "another lab matrix is running in '%s'", dir);
	free(path);
	/* fd stays open (and locked) until we exit */
}

static char *job_root(const struct mx_run *r, const struct mx_job *j)
{
	return xasprintf("%s/jobs/%s", r->dir, j->id);
}

/*
 * A job that was running when the matrix was killed is run again; what it
 * left is moved to aside/, never reused: a half-written run directory is
 * evidence, not a result.
 */
static void set_aside_job(struct mx_run *r, struct mx_job *j, const char *why)
{
	char *root = job_root(r, j), *aside, *asides;
	struct stat st;

	if (stat(root, &st) < 0) {
		j->state = MX_PENDING;
		free(root);
		return;
	}
	asides = xasprintf("%s/aside", r->dir);
	aside = xasprintf("%s/%s-attempt-%u", asides, j->id, j->attempts);
	if (mkdir_p(asides, 0755) < 0 || rename(root, aside) < 0)
		die(LAB_EXIT_FAIL, "cannot move '%s' aside to '%s': %s", root, aside,
		    strerror(errno));
	free(asides);
	fprintf(stderr, "matrix: job %s %s; its remains are in %s, running it again\n",
		j->id, why, aside);
	j->state = MX_PENDING;
	free(j->verdict);
	j->verdict = xstrdup("");
	free(j->run);
	j->run = xstrdup("");
	free(root);
	free(aside);
}

static void set_aside(struct mx_run *r)
{
	for (size_t i = 0; i < r->m.nr_jobs; i++)
		if (r->m.jobs[i].state != MX_DONE)
			set_aside_job(r, &r->m.jobs[i], "was cut short");
}

/*
 * A job that produced no verdict on a host that no longer answers did not
 * fail: the host did.  The host is dropped (said once) and the job goes
 * back to the queue for the others.  1 when that happened.
 */
static int host_lost(struct mx_run *r, size_t i, const char *verdict)
{
	struct mx_host *h = &r->host[r->job_host[i]];
	struct strbuf err = STRBUF_INIT;
	size_t ulen = h->uri ? strlen(h->uri) : 0;
	const char *why;

	if (strcmp(verdict, "ERROR") || !h->uri || r->nr_hosts < 2 || h->dead)
		return 0;
	if (libvirt_check(h->uri, &err) == 0) {
		strbuf_release(&err);
		return 0;
	}
	h->dead = 1;
	/* err is "URI: why" */
	why = strncmp(err.buf, h->uri, ulen) || !err.buf[ulen] ? err.buf : err.buf + ulen + 2;
	fprintf(stderr, "matrix: %s stopped answering (%s); its jobs go to the other URIs\n",
		h->uri, why);
	strbuf_release(&err);
	set_aside_job(r, &r->m.jobs[i], "lost its hypervisor");
	return 1;
}

static void save(const struct mx_run *r)
{
	if (matrix_state_save(&r->m, r->dir) < 0)
		die(LAB_EXIT_FAIL, "cannot save the matrix state in '%s'", r->dir);
}

/* The live host with the fewest jobs running (then started) and a free
 * slot, or -1. */
static long pick_host(const struct mx_run *r)
{
	long best = -1;

	if (r->max_total && r->running >= r->max_total)
		return -1;
	for (size_t h = 0; h < r->nr_hosts; h++) {
		const struct mx_host *x = &r->host[h], *b = best >= 0 ? &r->host[best] : NULL;

		if (x->dead || x->running >= r->parallel)
			continue;
		if (!b || x->running < b->running ||
		    (x->running == b->running && x->started < b->started))
			best = (long)h;
	}
	return best;
}

static size_t hosts_alive(const struct mx_run *r)
{
	size_t n = 0;

	for (size_t h = 0; h < r->nr_hosts; h++)
		n += !r->host[h].dead;
	return n;
}

static int start_job(struct mx_run *r, size_t i, size_t h, struct strbuf *err)
{
	struct mx_job *j = &r->m.jobs[i];
	struct lab_child_run *c = &r->child[i];

	r->host[h].started++;
	memset(c, 0, sizeof(*c));
	c->kernel = j->kernel;
	c->variant = *j->variant ? j->variant : NULL;
	c->label = j->label;
	c->topo = j->topo;
	c->suite = j->suite;
	c->backend = r->backend;
	c->warm = r->warm;
	c->trace = r->m.trace;
	c->uri = r->host[h].uri;
	c->lava_server = r->m.lava[0] ? r->m.lava : NULL;
	c->lava_token_file = r->lava_token_file;
	c->lava_device_type = r->m.lava_device_type[0] ? r->m.lava_device_type : NULL;
	c->lava_artifacts = r->m.lava_artifacts[0] ? r->m.lava_artifacts : NULL;
	c->lava_publish = r->m.lava_publish[0] ? r->m.lava_publish : NULL;
	r->job_host[i] = h;
	free(j->uri);
	j->uri = xstrdup(c->uri ? c->uri : "");
	c->results_root = job_root(r, j);
	c->log_path = xasprintf("%s/jobs/%s.log", r->dir, j->id);
	c->deadline_s = r->deadline_s[i];
	/* recorded before the child exists: a kill from here on reruns it */
	j->state = MX_RUNNING;
	j->attempts++;
	save(r);
	if (lab_child_start(c, err) < 0) {
		j->state = MX_DONE;
		free(j->verdict);
		j->verdict = xstrdup("ERROR");
		save(r);
		return -1;
	}
	return 0;
}

static int finish_job(struct mx_run *r, size_t i, int status)
{
	struct mx_job *j = &r->m.jobs[i];
	struct lab_child_run *c = &r->child[i];
	struct strbuf run = STRBUF_INIT;
	char verdict[16];

	j->seconds = (double)(now_ns() - c->t_start_ns) / 1e9;
	if (lab_child_find_run(c->results_root, &run, verdict, sizeof(verdict)) == 0) {
		free(j->run);
		j->run = strbuf_detach(&run);
	}
	/* our deadline is past lab run's own: it hung on the host side */
	if (status == CHILD_TIMED_OUT)
		snprintf(verdict, sizeof(verdict), "HANG");
	else if (!verdict[0])
		snprintf(verdict, sizeof(verdict), "ERROR");
	free((char *)c->results_root);
	free((char *)c->log_path);
	memset(c, 0, sizeof(*c));
	strbuf_release(&run);
	r->host[r->job_host[i]].running--;
	if (host_lost(r, i, verdict)) {
		save(r);
		return 0;
	}
	free(j->verdict);
	j->verdict = xstrdup(verdict);
	j->state = MX_DONE;
	save(r);
	return 1;
}

static void show(struct mx_run *r, struct progress *pr, const char *detail)
{
	double el[MX_MAX_PARALLEL];
	unsigned n = 0;

	for (size_t i = 0; i < r->m.nr_jobs && n < MX_MAX_PARALLEL; i++)
		if (r->m.jobs[i].state == MX_RUNNING && r->child[i].t_start_ns)
			el[n++] = (double)(now_ns() - r->child[i].t_start_ns) / 1e9;
	progress_show(pr, detail, el, n);
}

static void run_jobs(struct mx_run *r)
{
	struct progress pr;
	struct strbuf err = STRBUF_INIT, d = STRBUF_INIT;
	unsigned done = 0, slots;
	uint64_t last_show = 0;

	r->child = xcalloc(r->m.nr_jobs ? r->m.nr_jobs : 1, sizeof(*r->child));
	r->job_host = xcalloc(r->m.nr_jobs ? r->m.nr_jobs : 1, sizeof(*r->job_host));
	slots = r->parallel * (unsigned)hosts_alive(r);
	if (r->max_total && r->max_total < slots)
		slots = r->max_total;
	progress_init(&pr, "matrix", (unsigned)r->m.nr_jobs, slots);
	for (size_t i = 0; i < r->m.nr_jobs; i++)
		if (r->m.jobs[i].state == MX_DONE) {
			/* the durations of the earlier session still tell the ETA */
			if (r->m.jobs[i].seconds > 0)
				progress_item_done(&pr, r->m.jobs[i].seconds);
			else
				progress_item_skipped(&pr);
			done++;
		}
	if (done)
		fprintf(stderr, "matrix: resuming: %u of %zu jobs were done before\n", done, r->m.nr_jobs);
	for (;;) {
		size_t next = r->m.nr_jobs;
		long h = pick_host(r);

		for (size_t i = 0; i < r->m.nr_jobs; i++)
			if (r->m.jobs[i].state == MX_PENDING) {
				next = i;
				break;
			}
		if (next < r->m.nr_jobs && h >= 0) {
			strbuf_reset(&err);
			if (start_job(r, next, (size_t)h, &err) < 0) {
				progress_break(&pr);
				error("job %s: %s", r->m.jobs[next].id, err.buf);
				progress_item_skipped(&pr);
				continue;
			}
			r->running++;
			r->host[h].running++;
			strbuf_reset(&d);
			strbuf_addf(&d, "job %s started", r->m.jobs[next].id);
			if (r->nr_hosts > 1)
				strbuf_addf(&d, " on %s", r->host[h].uri);
			strbuf_addf(&d, " (%u running, %u/%zu done)", r->running, pr.done,
				    r->m.nr_jobs);
			show(r, &pr, d.buf);
			last_show = now_ns();
			continue;
		}
		if (!r->running)
			break;
		for (size_t i = 0; i < r->m.nr_jobs; i++) {
			struct strbuf why = STRBUF_INIT;
			int status;

			if (r->m.jobs[i].state != MX_RUNNING || !r->child[i].t_start_ns ||
			    !lab_child_poll(&r->child[i], &status))
				continue;
			r->running--;
			/* lab run found bad input: the jobs like it would too */
			if (status == LAB_EXIT_USAGE)
				lab_child_error(r->child[i].log_path, &why);
			if (!finish_job(r, i, status)) {
				strbuf_release(&why);
				continue;
			}
			if (status == LAB_EXIT_USAGE) {
				progress_break(&pr);
				die(LAB_EXIT_USAGE, "job %s: %s", r->m.jobs[i].id,
				    why.len ? why.buf : "lab run refused its input");
			}
			strbuf_release(&why);
			mx_recheck_variants(r, &pr);
			progress_item_done(&pr, r->m.jobs[i].seconds);
			strbuf_reset(&d);
			strbuf_addf(&d, "job %s: %s in %.0f s (%u/%zu done)", r->m.jobs[i].id,
				    r->m.jobs[i].verdict, r->m.jobs[i].seconds, pr.done, r->m.nr_jobs);
			progress_break(&pr);
			show(r, &pr, d.buf);
			progress_break(&pr);
			last_show = now_ns();
		}
		/* on a terminal the line ticks; a log gets lines only on events */
		if (pr.tty && now_ns() - last_show > 1000000000ull) {
			strbuf_reset(&d);
			strbuf_addf(&d, "%u running, %u/%zu done", r->running, pr.done,
				    r->m.nr_jobs);
			show(r, &pr, d.buf);
			last_show = now_ns();
		}
		usleep(POLL_MS * 1000);
	}
	progress_break(&pr);
	free(r->child);
	free(r->job_host);
	r->child = NULL;
	r->job_host = NULL;
	strbuf_release(&err);
	strbuf_release(&d);
}

/* Where the results are, and the compare lines one would type next. */
static int summary(const struct mx_run *r)
{
	int bad = 0;

	printf("matrix: %zu jobs in %s (state: matrix.json)\n", r->m.nr_jobs, r->dir);
	for (size_t i = 0; i < r->m.nr_jobs; i++) {
		const struct mx_job *j = &r->m.jobs[i];
		const char *v = j->state == MX_DONE ? j->verdict : "NOTRUN";

		printf("  %-6s %-44s %s", v, j->id, *j->run ? j->run : "(no run directory)");
		if (r->nr_hosts > 1 && *j->uri)
			printf(" on %s", j->uri);
		printf("\n");
		bad |= strcmp(v, "PASS") != 0;
	}
	if (!hosts_alive(r))
		printf("matrix: no hypervisor is left; resume with lab matrix --dir %s\n", r->dir);
	if (matrix_columns(&r->m) < 2)
		return bad;
	for (size_t g = 0; g < r->m.nr_jobs; g += matrix_columns(&r->m)) {
		const struct mx_job *b = &r->m.jobs[g];

		if (!*b->run)
			continue;
		printf("compare (%s, %s): ./lab compare %s", b->topo, b->suite, b->run);
		for (size_t k = 1; k < matrix_columns(&r->m) && g + k < r->m.nr_jobs; k++)
			if (*r->m.jobs[g + k].run)
				printf(" %s", r->m.jobs[g + k].run);
		printf("\n");
	}
	return bad;
}

/*
 * The hypervisors: the --uri list, else the one a resumed matrix was
 * given, else lab run's default.  Several URIs mean libvirt.  Each is
 * connected to once now: one that cannot be reached is said once and gets
 * no job; when none can, the matrix stops before it writes anything.
 */
static void choose_hosts(struct mx_run *r, struct strvec *uris)
{
	const char *env = getenv("BACKEND");
	const char *backend = r->backend ? r->backend : env && *env ? env : "qemu";
	struct strbuf err = STRBUF_INIT, said = STRBUF_INIT;
	size_t alive = 0;

	if (uris->nr) {
		strvec_clear(&r->m.uris);
		for (size_t i = 0; i < uris->nr; i++)
			strvec_push(&r->m.uris, uris->v[i]);
	}
	for (size_t i = 0; i < r->m.uris.nr; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(r->m.uris.v[i], r->m.uris.v[k]))
				die(LAB_EXIT_USAGE, "--uri '%s' is given twice", r->m.uris.v[i]);
	if (r->m.uris.nr > 1 && !r->backend && strcmp(backend, "libvirt"))
		r->backend = backend = "libvirt";
	if (r->m.uris.nr > 1 && strcmp(backend, "libvirt"))
		die(LAB_EXIT_USAGE, "several --uri need the libvirt backend, not '%s'", backend);
	r->nr_hosts = r->m.uris.nr ? r->m.uris.nr : 1;
	r->host = xcalloc(r->nr_hosts, sizeof(*r->host));
	for (size_t i = 0; i < r->m.uris.nr; i++)
		r->host[i].uri = r->m.uris.v[i];
	if (strcmp(backend, "libvirt") || r->m.uris.nr < 2)
		return;
	for (size_t i = 0; i < r->nr_hosts; i++) {
		strbuf_reset(&err);
		if (libvirt_check(r->host[i].uri, &err) < 0) {
			r->host[i].dead = 1;
			/* err is "URI: why" */
			strbuf_addf(&said, "matrix: cannot use %s; its jobs go to the other URIs\n",
				    err.buf);
			continue;
		}
		alive++;
	}
	if (!alive)
		die(LAB_EXIT_FAIL, "matrix: none of the %zu libvirt URIs can be reached (%s)",
		    r->nr_hosts, err.buf);
	fputs(said.buf, stderr);
	strbuf_release(&err);
	strbuf_release(&said);
}

/*
 * Guests at a time on one host: --jobs, or the default for the topology
 * that keeps the most host threads busy (jobs.h); several URIs take
 * --jobs each, 1 by default, since their CPUs are not known here.
 */
static void choose_jobs(struct mx_run *r)
{
	int virt = !strcmp(r->m.clock, "virtual");
	struct strbuf err = STRBUF_INIT;

	if (r->nr_hosts > 1 || r->m.lava[0]) {
		/* the farm's CPUs are not known here: it queues what it gets */
		if (!r->parallel)
			r->parallel = r->m.lava[0] ? 4 : 1;
		return;
	}
	for (size_t i = 0; i < r->m.topos.nr; i++) {
		struct jobs_plan p;

		if (jobs_plan(r->m.topos.v[i], virt, r->parallel, &p, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		if (!i || p.n < r->jobs.n)
			r->jobs = p;
	}
	r->parallel = r->jobs.n ? r->jobs.n : 1;
	strbuf_release(&err);
}

/*
 * The clock and the warm start every job boots with are the matrix's own:
 * kept in its state, so a resumed matrix boots as it began.  A resume that
 * asks for another one is refused in one line; a state from before they
 * were kept takes what this command line says and keeps that.
 */
static void keep_boot_mode(struct mx_run *r, const char *dir, const char *clock, int cold)
{
	int virt = lab_clock_parse(getenv("CLOCK")) > 0;
	const char *now = virt ? "virtual" : "wall";

	if (r->m.clock[0]) {
		if (clock && strcmp(r->m.clock, now))
			die(LAB_EXIT_USAGE, "'%s' runs on --clock %s; resume it without --clock or with --clock %s",
			    dir, r->m.clock, r->m.clock);
		setenv("CLOCK", r->m.clock, 1);
	} else {
		snprintf(r->m.clock, sizeof(r->m.clock), "%s", now);
	}
	if (r->m.warm >= 0) {
		if ((r->warm && !r->m.warm) || (cold && r->m.warm))
			die(LAB_EXIT_USAGE, "'%s' runs %s; resume it without --%s",
			    dir, r->m.warm ? "--warm" : "cold", r->warm ? "warm" : "cold");
		r->warm = r->m.warm;
	} else {
		r->m.warm = r->warm;
	}
}

int cmd_matrix(int argc, const char **argv)
{
	const char *kernels = NULL, *topos = NULL, *suites = NULL, *dir = NULL, *arch = NULL, *clock = NULL;
	const char *lava = NULL, *device_type = NULL, *lava_artifacts = NULL, *lava_publish = NULL;
	char publish_abs[PATH_MAX];
	struct mx_run r = { .m = MATRIX_INIT, .parallel = 0 };
	struct matrix given = MATRIX_INIT;
	struct strvec uris = STRVEC_INIT, variants = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, newdir = STRBUF_INIT;
	char *state;
	struct stat st;
	int nr_pos, ret, resume, cold = 0, trace = 0;
	const struct lab_option opts[] = {
		OPT_STRING("kernels", &kernels, "comma list: debian, debian:6.12 and the like, a path, a build key, or LABEL=KERNEL"),
		OPT_STRING("topos", &topos, "comma list of topology specs (2s8c,llc=4,1s2c is two)"),
		OPT_STRING("suites", &suites, "comma list of suites under scenarios/suites/"),
		OPT_STRVEC("variant", &variants, "each kernel also booted with: smt=off, sched_feat=NO_X,Y, "
			   "preempt=MODE, a scheduler knob such as base_slice_ns=N or scx=NAME (lab ab --help); repeat it "
			   "for more columns"),
		OPT_STRING("arch", &arch, "guest architecture of every topology: x86_64 (default), arm64 or ppc64le"),
		OPT_UINT("jobs", &r.parallel, 1, MX_MAX_PARALLEL,
			 "guests at a time on each URI (default on this host: its CPUs over the threads a guest "
			 "keeps busy, one under the virtual clock; 1 on each of several URIs)"),
		OPT_UINT("max-jobs", &r.max_total, 1, MX_MAX_PARALLEL * MX_MAX_ITEMS,
			 "guests at a time over all URIs (default: no bound but --jobs)"),
		OPT_STRING("dir", &dir, "the matrix directory; an existing one is resumed"),
		OPT_STRING("backend", &r.backend, "qemu (default) or libvirt ($BACKEND)"),
		OPT_STRING("clock", &clock, "wall (default) or virtual, for every boot: see lab run --help ($CLOCK)"),
		OPT_BOOL("warm", &r.warm, "every lab run restores a saved guest of its kernel and topology"),
		OPT_BOOL("trace", &trace, "every lab run with the flight recorder (lab run --trace): decision and preemption rows"),
		OPT_BOOL("cold", &cold, "every lab run boots its guest (the default)"),
		OPT_STRING("lava", &lava, "a LAVA server (http://host:port): every job is a LAVA job there "
			   "(lab lava run), --jobs submitted at a time (default 4); the token in $LAVA_TOKEN or "
			   "--lava-token-file"),
		OPT_STRING("lava-token-file", &r.lava_token_file, "with --lava: a file (mode 600) holding the API token"),
		OPT_STRING("device-type", &device_type, "with --lava: the LAVA device type of every job "
			   "(default qemu; lab lava run --device-type)"),
		OPT_STRING("lava-artifacts", &lava_artifacts, "with --lava and --lava-publish: the http(s) URL a "
			   "web server serves --lava-publish at (lab lava run --artifacts)"),
		OPT_STRING("lava-publish", &lava_publish, "with --lava: every job's files are copied into a "
			   "directory of their own here before it is submitted (lab lava run --publish)"),
		OPT_STRVEC("uri", &uris, "libvirt URI ($LIBVIRT_URI, default qemu:///system); "
			   "repeat it to spread the jobs over several hypervisors, --jobs on each"),
		OPT_END(),
	};

	ret = parse_options(argc, argv, opts, matrix_usage, NULL, 0, &nr_pos);
	if (ret)
		return ret > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
	lab_clock_export(clock);
	if (r.warm && cold)
		die(LAB_EXIT_USAGE, "--warm and --cold exclude each other");
	if ((kernels || topos || suites) &&
	    (mx_split_list("kernels", kernels, 0, &given.kernels, &err) < 0 ||
	     mx_split_list("topologies", topos, 1, &given.topos, &err) < 0 ||
	     mx_split_list("suites", suites, 0, &given.suites, &err) < 0))
		die(LAB_EXIT_USAGE, "%s", err.buf);
	for (size_t i = 0; i < variants.nr; i++) {
		for (size_t k = 0; k < i; k++)
			if (!strcmp(variants.v[i], variants.v[k]))
				die(LAB_EXIT_USAGE, "--variant '%s' is given twice", variants.v[i]);
		strvec_push(&given.variants, variants.v[i]);
	}
	if (given.variants.nr > MX_MAX_ITEMS)
		die(LAB_EXIT_USAGE, "more than %d --variant", MX_MAX_ITEMS);
	/* every topology gets it as its arch= (a clash fails that spec's check) */
	for (size_t i = 0; arch && i < given.topos.nr; i++) {
		char *t = xasprintf("%s,arch=%s", given.topos.v[i], arch);

		free((char *)given.topos.v[i]);
		given.topos.v[i] = t;
	}

	state = dir ? xasprintf("%s/matrix.json", dir) : NULL;
	resume = state && stat(state, &st) == 0;
	if (device_type && lava && lava_device_type_bare(lava_device_type_lookup(device_type)))
		die(LAB_EXIT_USAGE, "--device-type '%s': a fleet's jobs are on topologies, and a machine of "
		    "its own has its own: lab lava run --device-type %s runs one", device_type, device_type);
	if (device_type && (!lava || !lava_device_type_lookup(device_type)))
		die(LAB_EXIT_USAGE, "--device-type '%s': %s%s%s", device_type,
		    !lava ? "it goes with --lava" : "the lab writes jobs for ",
		    !lava ? "" : lava_device_type_names(), !lava ? "" : " only");
	if (resume) {
		if (given.variants.nr && !given.kernels.nr)
			die(LAB_EXIT_USAGE, "'%s' keeps its variants; resume it with --dir alone", dir);
		if (load_state(&r, state, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		if (trace && !r.m.trace)
			die(LAB_EXIT_USAGE, "'%s' runs without --trace; resume it without --trace", dir);
		if (given.kernels.nr && (!lists_equal(&given.kernels, &r.m.kernels) ||
					 !lists_equal(&given.topos, &r.m.topos) ||
					 !lists_equal(&given.suites, &r.m.suites) ||
					 !lists_equal(&given.variants, &r.m.variants)))
			die(LAB_EXIT_USAGE, "'%s' holds another matrix; resume it with --dir alone or pick a new --dir",
			    dir);
	} else {
		if (!given.kernels.nr)
			die(LAB_EXIT_USAGE, "--kernels, --topos and --suites are required for a new matrix "
			    "(see lab matrix --help)");
		r.m.kernels = given.kernels;
		r.m.topos = given.topos;
		r.m.suites = given.suites;
		r.m.variants = given.variants;
		r.m.trace = trace;
		if (lava) {
			if (r.warm || trace || r.backend || uris.nr || (clock && lab_clock_parse(clock) > 0))
				die(LAB_EXIT_USAGE, "--lava runs every job as a LAVA job: "
				    "not with --warm, --trace, --backend, --uri or --clock virtual");
			if ((strncmp(lava, "http://", 7) && strncmp(lava, "https://", 8)) ||
			    strlen(lava) >= sizeof(r.m.lava))
				die(LAB_EXIT_USAGE, "--lava '%s': an http:// or https:// URL", lava);
			snprintf(r.m.lava, sizeof(r.m.lava), "%s", lava);
			if (device_type)
				snprintf(r.m.lava_device_type, sizeof(r.m.lava_device_type), "%s", device_type);
		}
		if (lava_fleet_publish_check(lava, lava_artifacts, lava_publish, publish_abs, &err) < 0)
			die(LAB_EXIT_USAGE, "%s", err.buf);
		if (lava_artifacts) {
			if (strlen(lava_artifacts) >= sizeof(r.m.lava_artifacts) ||
			    strlen(publish_abs) >= sizeof(r.m.lava_publish))
				die(LAB_EXIT_USAGE, "--lava-artifacts or --lava-publish is too long");
			snprintf(r.m.lava_artifacts, sizeof(r.m.lava_artifacts), "%s", lava_artifacts);
			snprintf(r.m.lava_publish, sizeof(r.m.lava_publish), "%s", publish_abs);
		}
		given.kernels = given.topos = given.suites = given.variants = (struct strvec)STRVEC_INIT;
		/* the variants parse before they name jobs */
		mx_validate_variants_topo(&r);
		if (matrix_columns(&r.m) * r.m.topos.nr * r.m.suites.nr > MX_MAX_JOBS)
			die(LAB_EXIT_USAGE, "more than %d jobs", MX_MAX_JOBS);
		matrix_expand(&r.m);
	}
	keep_boot_mode(&r, dir, resume ? clock : NULL, cold);
	mx_validate(&r);
	choose_hosts(&r, &uris);
	choose_jobs(&r);

	if (!dir) {
		if (results_create_run(results_root(), "matrix", &newdir) < 0)
			return LAB_EXIT_FAIL;
		dir = newdir.buf;
	} else if (mkdir_p(dir, 0755) < 0) {
		return LAB_EXIT_FAIL;
	}
	r.dir = dir;
	lock_dir(dir);
	if (resume)
		set_aside(&r);
	save(&r);
	printf("matrix: %zu kernel%s", r.m.kernels.nr, r.m.kernels.nr == 1 ? "" : "s");
	if (r.m.variants.nr)
		printf(" x (plain + %zu variant%s)", r.m.variants.nr, r.m.variants.nr == 1 ? "" : "s");
	printf(" x %zu topolog%s x %zu suite%s = %zu jobs, %u at a time", r.m.topos.nr,
	       r.m.topos.nr == 1 ? "y" : "ies", r.m.suites.nr, r.m.suites.nr == 1 ? "" : "s",
	       r.m.nr_jobs, r.parallel);
	if (r.nr_hosts > 1)
		printf(" on each of %zu URIs", r.nr_hosts);
	if (r.nr_hosts > 1 && r.max_total)
		printf(" (at most %u in all)", r.max_total);
	printf(", in %s\n", dir);
	if (r.m.lava[0]) {
		printf("matrix: on LAVA at %s: %u jobs submitted at a time; the farm schedules them\n",
		       r.m.lava, r.parallel);
	} else if (r.nr_hosts == 1) {
		struct strbuf j = STRBUF_INIT;
		int warn;

		jobs_note(&r.jobs, &j, &warn);
		printf("matrix: %s%s\n", warn ? "warning: " : "", j.buf);
		strbuf_release(&j);
	}
	fflush(stdout);

	run_jobs(&r);
	ret = summary(&r) ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
	free(state);
	free(r.deadline_s);
	free(r.kp);
	free(r.host);
	strvec_clear(&uris);
	strvec_clear(&variants);
	matrix_release(&r.m);
	matrix_release(&given);
	strbuf_release(&err);
	strbuf_release(&newdir);
	return ret;
}
