/* matrix.c - batches of `lab run` children (lab ab, lab matrix): the ABBA
 * order, kernels x topologies x suites, the resumable state file. */
#define _GNU_SOURCE
#include "run/matrix.h"
#include "run/labrun.h"
#include "run/lavajob.h"
#include "run/variant.h"
#include "common/plan.h"
#include "scenario/scenario.h"
#include "topo/topo.h"
#include "lib/json.h"
#include "results/runfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

size_t ab_order(unsigned nr_sides, unsigned rounds, unsigned *out, size_t max)
{
	size_t n = 0;

	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned s = 0; s < nr_sides && n < max; s++)
			out[n++] = s;
		for (unsigned s = nr_sides; s-- > 0 && n < max;)
			out[n++] = s;
	}
	return n;
}

const char *mx_state_name(enum mx_state s)
{
	static const char *const names[] = { "pending", "running", "done" };

	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : "?";
}

static void job_release(struct mx_job *j)
{
	free(j->id);
	free(j->kernel);
	free(j->variant);
	free(j->label);
	free(j->topo);
	free(j->suite);
	free(j->verdict);
	free(j->run);
	free(j->uri);
}

void matrix_release(struct matrix *m)
{
	for (size_t i = 0; i < m->nr_jobs; i++)
		job_release(&m->jobs[i]);
	free(m->jobs);
	strvec_clear(&m->kernels);
	strvec_clear(&m->topos);
	strvec_clear(&m->suites);
	strvec_clear(&m->variants);
	strvec_clear(&m->uris);
	m->jobs = NULL;
	m->nr_jobs = 0;
}

/* "llc=4": a topology option, part of the spec before it */
static int is_topo_option(const char *s)
{
	const char *p = s;

	while (*p >= 'a' && *p <= 'z')
		p++;
	return p > s && *p == '=';
}

int mx_split_list(const char *what, const char *list, int is_topo, struct strvec *out,
		  struct strbuf *err)
{
	struct strbuf cur = STRBUF_INIT;
	const char *p = list;

	if (!list || !*list) {
		strbuf_addf(err, "the list of %s is empty", what);
		return -1;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!n) {
			strbuf_addf(err, "the list of %s has an empty item: '%s'", what, list);
			goto fail;
		}
		if (is_topo && cur.len && is_topo_option(p)) {
			strbuf_addch(&cur, ',');
		} else if (cur.len) {
			strvec_push(out, cur.buf);
			strbuf_reset(&cur);
		}
		strbuf_add(&cur, p, n);
		if (!comma)
			break;
		p = comma + 1;
	}
	strvec_push(out, cur.buf);
	strbuf_release(&cur);
	if (out->nr > MX_MAX_ITEMS) {
		strbuf_addf(err, "more than %d %s", MX_MAX_ITEMS, what);
		return -1;
	}
	for (size_t i = 0; i < out->nr; i++) {
		if (strlen(out->v[i]) > 256) {
			strbuf_addf(err, "%s item '%.40s...' is longer than 256 characters", what, out->v[i]);
			return -1;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(out->v[i], out->v[k])) {
				strbuf_addf(err, "the list of %s names '%s' twice", what, out->v[i]);
				return -1;
			}
	}
	return 0;
fail:
	strbuf_release(&cur);
	return -1;
}

void mx_kernel_item(const char *item, struct strbuf *label, struct strbuf *spec)
{
	const char *eq = strchr(item, '=');
	const char *slash = strchr(item, '/');

	strbuf_reset(label);
	strbuf_reset(spec);
	/* a '=' after a '/' is part of a path */
	if (eq && eq > item && (!slash || eq < slash)) {
		strbuf_add(label, item, (size_t)(eq - item));
		strbuf_addstr(spec, eq + 1);
	} else {
		strbuf_addstr(spec, item);
	}
}

static void slug_add(struct strbuf *sb, const char *s, size_t max)
{
	for (size_t n = 0; *s && n < max; s++, n++) {
		char c = *s;

		strbuf_addch(sb, (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ? c : '_');
	}
}

size_t matrix_columns(const struct matrix *m)
{
	return m->kernels.nr * (1 + m->variants.nr);
}

void matrix_expand(struct matrix *m)
{
	struct strbuf label = STRBUF_INIT, spec = STRBUF_INIT, id = STRBUF_INIT, err = STRBUF_INIT;
	size_t nr = m->topos.nr * m->suites.nr * matrix_columns(m);

	m->jobs = xcalloc(nr ? nr : 1, sizeof(*m->jobs));
	for (size_t t = 0; t < m->topos.nr; t++)
		for (size_t s = 0; s < m->suites.nr; s++)
			for (size_t k = 0; k < m->kernels.nr; k++)
				for (size_t v = 0; v <= m->variants.nr; v++) {
					struct mx_job *j = &m->jobs[m->nr_jobs];
					const char *base, *variant = v ? m->variants.v[v - 1] : "";
					struct lab_variant lv;

					mx_kernel_item(m->kernels.v[k], &label, &spec);
					base = strrchr(spec.buf, '/');
					base = label.len ? label.buf : base ? base + 1 : spec.buf;
					strbuf_reset(&id);
					strbuf_addf(&id, "%03zu-", m->nr_jobs + 1);
					slug_add(&id, base, 40);
					if (*variant) {
						strbuf_addch(&id, '-');
						slug_add(&id, variant, 40);
					}
					strbuf_addch(&id, '-');
					slug_add(&id, m->topos.v[t], 60);
					strbuf_addch(&id, '-');
					slug_add(&id, m->suites.v[s], 40);
					j->id = strbuf_detach(&id);
					j->kernel = xstrdup(spec.buf);
					j->variant = xstrdup(variant);
					/* a named kernel names its variants' columns; an
					 * unnamed one's are named by lab compare from run.json */
					if (*variant && label.len && variant_parse(variant, &lv, &err) == 0)
						j->label = variant_label(&lv, label.buf);
					else
						j->label = xstrdup(label.buf);
					strbuf_reset(&err);
					j->topo = xstrdup(m->topos.v[t]);
					j->suite = xstrdup(m->suites.v[s]);
					j->state = MX_PENDING;
					j->verdict = xstrdup("");
					j->run = xstrdup("");
					j->uri = xstrdup("");
					m->nr_jobs++;
				}
	strbuf_release(&label);
	strbuf_release(&spec);
	strbuf_release(&id);
	strbuf_release(&err);
}

static struct json_object *strvec_json(const struct strvec *sv)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < sv->nr; i++)
		json_object_array_add(a, json_object_new_string(sv->v[i]));
	return a;
}

struct json_object *matrix_state_json(const struct matrix *m)
{
	struct json_object *o = json_object_new_object(), *jobs = json_object_new_array();

	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "kernels", strvec_json(&m->kernels));
	json_object_object_add(o, "topos", strvec_json(&m->topos));
	json_object_object_add(o, "suites", strvec_json(&m->suites));
	if (m->variants.nr)
		json_object_object_add(o, "variants", strvec_json(&m->variants));
	json_object_object_add(o, "uris", strvec_json(&m->uris));
	if (m->clock[0])
		json_object_object_add(o, "clock", json_object_new_string(m->clock));
	if (m->warm >= 0)
		json_object_object_add(o, "warm", json_object_new_boolean(m->warm));
	if (m->trace)
		json_object_object_add(o, "trace", json_object_new_boolean(1));
	if (m->lava[0])
		json_object_object_add(o, "lava", json_object_new_string(m->lava));
	if (m->lava_device_type[0])
		json_object_object_add(o, "lava_device_type", json_object_new_string(m->lava_device_type));
	if (m->lava_artifacts[0]) {
		json_object_object_add(o, "lava_artifacts", json_object_new_string(m->lava_artifacts));
		json_object_object_add(o, "lava_publish", json_object_new_string(m->lava_publish));
	}
	for (size_t i = 0; i < m->nr_jobs; i++) {
		const struct mx_job *j = &m->jobs[i];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "id", json_object_new_string(j->id));
		json_object_object_add(x, "kernel", json_object_new_string(j->kernel));
		if (*j->variant)
			json_object_object_add(x, "variant", json_object_new_string(j->variant));
		json_object_object_add(x, "label", json_object_new_string(j->label));
		json_object_object_add(x, "topo", json_object_new_string(j->topo));
		json_object_object_add(x, "suite", json_object_new_string(j->suite));
		json_object_object_add(x, "state", json_object_new_string(mx_state_name(j->state)));
		json_object_object_add(x, "verdict", json_object_new_string(j->verdict));
		json_object_object_add(x, "run", json_object_new_string(j->run));
		json_object_object_add(x, "seconds", json_object_new_double(j->seconds));
		json_object_object_add(x, "attempts", json_object_new_int((int)j->attempts));
		json_object_object_add(x, "uri", json_object_new_string(j->uri));
		json_object_array_add(jobs, x);
	}
	json_object_object_add(o, "jobs", jobs);
	return o;
}

/* ---- the state file parser: every byte is untrusted ---- */

static int get_str(struct json_object *o, const char *key, const char **out)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return -1;
	s = json_object_get_string(v);
	if (strlen(s) > MX_MAX_STR || strpbrk(s, "\n\r"))
		return -1;
	*out = s;
	return 0;
}

static int parse_list_n(struct json_object *o, const char *key, size_t min, struct strvec *out)
{
	struct json_object *a;
	size_t n;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return -1;
	n = json_object_array_length(a);
	if (n < min || n > MX_MAX_ITEMS)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);

		if (!json_object_is_type(v, json_type_string) || !*json_object_get_string(v) ||
		    strlen(json_object_get_string(v)) > MX_MAX_STR)
			return -1;
		strvec_push(out, json_object_get_string(v));
	}
	return 0;
}

static int parse_list(struct json_object *o, const char *key, struct strvec *out)
{
	return parse_list_n(o, key, 1, out);
}

static int parse_job(struct mx_job *j, struct json_object *x, const struct strvec *variants)
{
	const char *id, *kernel, *label, *topo, *suite, *state, *verdict, *run, *uri = "", *variant = "";
	struct json_object *v;
	double secs;
	int64_t att;

	if (!json_object_is_type(x, json_type_object) || get_str(x, "id", &id) ||
	    get_str(x, "kernel", &kernel) || get_str(x, "label", &label) || get_str(x, "topo", &topo) ||
	    get_str(x, "suite", &suite) || get_str(x, "state", &state) ||
	    get_str(x, "verdict", &verdict) || get_str(x, "run", &run))
		return -1;
	/* "uri" came later: a state file without it is an older matrix's */
	if (json_object_object_get_ex(x, "uri", &v) && get_str(x, "uri", &uri))
		return -1;
	/* so did "variant": one of the matrix's, or none */
	if (json_object_object_get_ex(x, "variant", &v)) {
		size_t i = 0;

		if (get_str(x, "variant", &variant))
			return -1;
		while (*variant && i < variants->nr && strcmp(variants->v[i], variant))
			i++;
		if (*variant && i == variants->nr)
			return -1;
	}
	if (!*id || strchr(id, '/') || !strcmp(id, ".") || !strcmp(id, "..") || !*kernel ||
	    !*topo || !*suite)
		return -1;
	if (!strcmp(state, "pending"))
		j->state = MX_PENDING;
	else if (!strcmp(state, "running"))
		j->state = MX_RUNNING;
	else if (!strcmp(state, "done"))
		j->state = MX_DONE;
	else
		return -1;
	if (!json_object_object_get_ex(x, "seconds", &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return -1;
	secs = json_object_get_double(v);
	if (!(secs >= 0 && secs < 1e9))
		return -1;
	if (!json_object_object_get_ex(x, "attempts", &v) || !json_object_is_type(v, json_type_int))
		return -1;
	att = json_object_get_int64(v);
	if (att < 0 || att > 1000000)
		return -1;
	j->id = xstrdup(id);
	j->kernel = xstrdup(kernel);
	j->variant = xstrdup(variant);
	j->label = xstrdup(label);
	j->topo = xstrdup(topo);
	j->suite = xstrdup(suite);
	j->verdict = xstrdup(verdict);
	j->run = xstrdup(run);
	j->uri = xstrdup(uri);
	j->seconds = secs;
	j->attempts = (unsigned)att;
	return 0;
}

int matrix_state_parse(const char *text, size_t len, struct matrix *m, struct strbuf *err)
{
	struct json_object *o, *v, *jobs;
	size_t n;
	int ret = -1;

	o = json_read(text, len, 16u << 20, "matrix.json", err);
	if (!o)
		goto out;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "version", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != 1) {
		strbuf_addstr(err, "matrix.json is not a version 1 matrix state");
		goto out;
	}
	if (parse_list(o, "kernels", &m->kernels) || parse_list(o, "topos", &m->topos) ||
	    parse_list(o, "suites", &m->suites)) {
		strbuf_addstr(err, "matrix.json: bad kernels, topos or suites list");
		goto out;
	}
	if (json_object_object_get_ex(o, "variants", &v) && parse_list_n(o, "variants", 0, &m->variants)) {
		strbuf_addstr(err, "matrix.json: bad list of variants");
		goto out;
	}
	if (json_object_object_get_ex(o, "uris", &v) && parse_list_n(o, "uris", 0, &m->uris)) {
		strbuf_addstr(err, "matrix.json: bad list of URIs");
		goto out;
	}
	/* "clock" and "warm" came later: absent in an older matrix's state */
	if (json_object_object_get_ex(o, "clock", &v)) {
		const char *c = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

		if (strcmp(c, "wall") && strcmp(c, "virtual")) {
			strbuf_addstr(err, "matrix.json: clock is neither wall nor virtual");
			goto out;
		}
		snprintf(m->clock, sizeof(m->clock), "%s", c);
	}
	if (json_object_object_get_ex(o, "warm", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			strbuf_addstr(err, "matrix.json: warm is not true or false");
			goto out;
		}
		m->warm = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "lava", &v)) {
		const char *l = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

		if ((strncmp(l, "http://", 7) && strncmp(l, "https://", 8)) || strlen(l) >= sizeof(m->lava)) {
			strbuf_addstr(err, "matrix.json: lava is not an http(s) URL");
			goto out;
		}
		snprintf(m->lava, sizeof(m->lava), "%s", l);
	}
	if (json_object_object_get_ex(o, "lava_device_type", &v)) {
		const char *t = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

		if (!m->lava[0] || !lava_device_type_lookup(t)) {
			strbuf_addf(err, "matrix.json: lava_device_type is not one the lab writes jobs for (%s)",
				    lava_device_type_names());
			goto out;
		}
		snprintf(m->lava_device_type, sizeof(m->lava_device_type), "%s", t);
	}
	if (json_object_object_get_ex(o, "lava_artifacts", &v) || json_object_object_get_ex(o, "lava_publish", &v)) {
		const char *a = json_get_str(o, "lava_artifacts"), *pub = json_get_str(o, "lava_publish");
		char abs[PATH_MAX];

		if (!a || !pub || strlen(a) >= sizeof(m->lava_artifacts) || strlen(pub) >= sizeof(m->lava_publish) ||
		    lava_fleet_publish_check(m->lava[0] ? m->lava : NULL, a, pub, abs, err) < 0) {
			if (!err->len)
				strbuf_addstr(err, "matrix.json: lava_artifacts and lava_publish are not a URL "
					      "and a directory");
			goto out;
		}
		snprintf(m->lava_artifacts, sizeof(m->lava_artifacts), "%s", a);
		snprintf(m->lava_publish, sizeof(m->lava_publish), "%s", pub);
	}
	if (json_object_object_get_ex(o, "trace", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			strbuf_addstr(err, "matrix.json: trace is not true or false");
			goto out;
		}
		m->trace = json_object_get_boolean(v);
	}
	if (!json_object_object_get_ex(o, "jobs", &jobs) || !json_object_is_type(jobs, json_type_array) ||
	    (n = json_object_array_length(jobs)) > MX_MAX_JOBS ||
	    n != matrix_columns(m) * m->topos.nr * m->suites.nr) {
		strbuf_addstr(err, "matrix.json: the jobs do not match the lists");
		goto out;
	}
	m->jobs = xcalloc(n ? n : 1, sizeof(*m->jobs));
	for (size_t i = 0; i < n; i++) {
		if (parse_job(&m->jobs[i], json_object_array_get_idx(jobs, i), &m->variants) < 0) {
			job_release(&m->jobs[i]);
			memset(&m->jobs[i], 0, sizeof(m->jobs[i]));
			strbuf_addf(err, "matrix.json: job %zu is damaged", i + 1);
			goto out;
		}
		m->nr_jobs = i + 1;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(m->jobs[k].id, m->jobs[i].id)) {
				strbuf_addf(err, "matrix.json: job id '%s' appears twice", m->jobs[i].id);
				goto out;
			}
	}
	ret = 0;
out:
	if (o)
		json_object_put(o);
	return ret;
}

int matrix_state_save(const struct matrix *m, const char *dir)
{
	struct json_object *o = matrix_state_json(m);
	char *path = xasprintf("%s/matrix.json", dir);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addstr(&sb, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_SPACED |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	strbuf_addch(&sb, '\n');
	ret = write_file_atomic(path, sb.buf, sb.len);
	strbuf_release(&sb);
	free(path);
	json_object_put(o);
	return ret;
}

/* ---- one lab run child ---- */

/* What lab run itself allows (cmd-run.c) before it calls a HANG, plus
 * room for the initrd, QEMU's start and the NMI evidence on a hang. */
#define CHILD_MARGIN_S 120

static int ends_with_ini(const char *s)
{
	size_t n = strlen(s);

	return n > 4 && !strcmp(s + n - 4, ".ini");
}

int lab_run_deadline_s(const char *topo, const char *suite, unsigned *deadline_s,
		       struct strbuf *err)
{
	struct strbuf plan = STRBUF_INIT, e = STRBUF_INIT;
	struct plan p = { 0 };
	struct topo t;
	char perr[256];
	unsigned total;

	if (topo_parse(topo, &t, &e) < 0) {
		strbuf_addf(err, "bad topology '%s': %s", topo, e.buf);
		strbuf_release(&e);
		return -1;
	}
	if ((ends_with_ini(suite) ? plan_compile_file(suite, &plan, err)
				  : plan_compile_suite(suite, &plan, err)) < 0) {
		strbuf_release(&e);
		return -1;
	}
	if (plan_parse(plan.buf, plan.len, &p, perr, sizeof(perr)) < 0) {
		strbuf_addf(err, "suite '%s': %s", suite, perr);
		strbuf_release(&plan);
		return -1;
	}
	total = 60 + topo_nr_cpus(&t) / 2;
	for (unsigned i = 0; i < p.nr_cases; i++)
		total += p.cases[i].deadline_s;
	/* the child's CLOCK is ours (lab ab/matrix --clock set it) */
	if (lab_clock_parse(getenv("CLOCK")) > 0)
		total *= LAB_VIRTUAL_TIMEOUT_FACTOR;
	total += CHILD_MARGIN_S;
	plan_release(&p);
	strbuf_release(&plan);
	strbuf_release(&e);
	*deadline_s = total;
	return 0;
}

int lab_child_start(struct lab_child_run *j, struct strbuf *err)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct lab_variant v;
	int fd;

	if (n <= 0) {
		strbuf_addf(err, "cannot find the lab binary: %s", strerror(errno));
		return -1;
	}
	self[n] = '\0';
	/* rebuilt while we run (make replaced the file): the child runs this
	 * very binary, which the kernel keeps for us, not the path's new one
	 * or the " (deleted)" name readlink gives */
	if (n > 10 && !strcmp(self + n - 10, " (deleted)"))
		snprintf(self, sizeof(self), "/proc/self/exe");
	if (j->variant && variant_parse(j->variant, &v, err) < 0)
		return -1;
	if (mkdir_p(j->results_root, 0755) < 0) {
		strbuf_addf(err, "cannot create '%s'", j->results_root);
		return -1;
	}
	fd = open(j->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		strbuf_addf(err, "cannot create '%s': %s", j->log_path, strerror(errno));
		return -1;
	}
	child_process_init(&j->cp);
	/* one command line: `lab run`, or `lab lava run` with the same
	 * topology, plan, kernel, label and boot variant */
	strvec_pushl(&j->cp.args, self, j->lava_server ? "lava" : "run", NULL);
	if (j->lava_server)
		strvec_push(&j->cp.args, "run");
	strvec_pushl(&j->cp.args, "--topo", j->topo, j->scenario ? "--scenario" : "--suite",
		     j->scenario ? j->scenario : j->suite, "--kernel", j->kernel, "--results", j->results_root,
		     NULL);
	if (j->label && *j->label)
		strvec_pushl(&j->cp.args, "--label", j->label, NULL);
	if (j->variant)
		variant_run_args(&v, &j->cp.args);
	if (j->lava_server) {
		char *dir = xasprintf("%s/lava", j->results_root);
		char cwd[PATH_MAX] = ".";

		strvec_pushl(&j->cp.args, "--server", j->lava_server, "--dir", dir, NULL);
		if (j->lava_artifacts) {
			strvec_pushl(&j->cp.args, "--artifacts", j->lava_artifacts, "--publish", j->lava_publish, NULL);
		} else if (*dir == '/') {
			strvec_pushf(&j->cp.args, "--artifacts=file://%s/job", dir);
		} else {
			/* the farm's worker reads the export by its absolute path */
			if (!getcwd(cwd, sizeof(cwd)))
				snprintf(cwd, sizeof(cwd), ".");
			strvec_pushf(&j->cp.args, "--artifacts=file://%s/%s/job", cwd, dir);
		}
		/* the farm's queue comes first: four times the boot's own
		 * deadline and ten minutes, and the job is canceled after it */
		strvec_pushf(&j->cp.args, "--timeout=%u", j->deadline_s * 4 + 600);
		if (j->lava_device_type)
			strvec_pushl(&j->cp.args, "--device-type", j->lava_device_type, NULL);
		j->deadline_s = j->deadline_s * 4 + 720;
		if (j->lava_token_file)
			strvec_pushl(&j->cp.args, "--token-file", j->lava_token_file, NULL);
		free(dir);
		goto start;
	}
	if (j->warm)
		strvec_push(&j->cp.args, "--warm");
	if (j->trace)
		strvec_push(&j->cp.args, "--trace");
	if (j->seed)
		strvec_pushf(&j->cp.args, "--seed=%u", j->seed);
	for (size_t i = 0; j->params && i < j->params->nr; i++)
		strvec_pushf(&j->cp.args, "--param=%s", j->params->v[i]);
	if (j->backend)
		strvec_pushl(&j->cp.args, "--backend", j->backend, NULL);
	if (j->uri)
		strvec_pushl(&j->cp.args, "--uri", j->uri, NULL);
start:
	j->cp.in = CHILD_DEVNULL;
	j->cp.out = fd;
	j->cp.err = fd;
	j->cp.new_pgrp = 1;
	j->cp.die_with_parent = 1;
	j->cp.errbuf = err;
	j->t_start_ns = now_ns();
	if (start_command(&j->cp) < 0) {
		close(fd);
		child_process_clear(&j->cp);
		return -1;
	}
	close(fd);
	return 0;
}

static int deadline_ms_left(const struct lab_child_run *j)
{
	uint64_t end = j->t_start_ns + (uint64_t)j->deadline_s * 1000000000ull, now = now_ns();

	return now >= end ? 0 : (int)((end - now) / 1000000);
}

int lab_child_poll(struct lab_child_run *j, int *status)
{
	int st;
	pid_t r = waitpid(j->cp.pid, &st, WNOHANG);

	if (r == j->cp.pid) {
		j->cp.pid = -1;
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
		child_process_clear(&j->cp);
		return 1;
	}
	if (r < 0 && errno != EINTR) {
		j->cp.pid = -1;
		*status = 1;
		child_process_clear(&j->cp);
		return 1;
	}
	if (!deadline_ms_left(j)) {
		*status = finish_command_timeout(&j->cp, 0);
		child_process_clear(&j->cp);
		return 1;
	}
	return 0;
}

int lab_child_wait(struct lab_child_run *j)
{
	int st = finish_command_timeout(&j->cp, deadline_ms_left(j));

	child_process_clear(&j->cp);
	return st;
}

void lab_child_error(const char *log_path, struct strbuf *line)
{
	static const char prefix[] = "lab: error: ";
	char *text = read_file(log_path, NULL);

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > sizeof(prefix) - 1 && !strncmp(p, prefix, sizeof(prefix) - 1)) {
			strbuf_reset(line);
			strbuf_add(line, p + sizeof(prefix) - 1, n - (sizeof(prefix) - 1));
		}
		p = nl ? nl + 1 : NULL;
	}
	free(text);
}

int lab_child_find_run(const char *root, struct strbuf *dir, char *verdict, size_t size)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int found = 0;

	if (verdict && size)
		verdict[0] = '\0';
	if (!d)
		return -1;
	while (!found && (e = readdir(d))) {
		struct stat st;
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s/run.json", root, e->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			strbuf_reset(dir);
			strbuf_addf(dir, "%s/%s", root, e->d_name);
			found = 1;
		}
		free(p);
	}
	closedir(d);
	if (!found)
		return -1;
	if (verdict && size) {
		struct strbuf ignored = STRBUF_INIT;

		/* a run without a readable verdict keeps the one the caller set */
		verdict_load(dir->buf, verdict, size, &ignored);
		strbuf_release(&ignored);
	}
	return 0;
}
