/* hostfault.c - host-side faults during a guest run: pause/resume the whole
 * guest, NMIs, and vCPU-thread throttling through a cgroup's CPU quota. */
#define _GNU_SOURCE
#include "hostfault.h"
#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const hostfault_kinds[] = { "pause", "nmi", "vcpu_throttle", NULL };

void hostfault_init(struct hostfault *h, const struct plan *plan, const char *run_dir,
		    uint64_t t0_ns)
{
	memset(h, 0, sizeof(*h));
	h->plan = plan;
	h->run_dir = run_dir;
	h->t0_ns = t0_ns;
}

int hostfault_parse_quota(const char *s, unsigned *pct)
{
	char buf[8];
	size_t n = strlen(s);

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%')
		buf[n - 1] = '\0';
	return parse_uint(buf, 1, 100, pct);
}

static const char *opt(const struct plan_fault *f, const char *key)
{
	for (unsigned i = 0; i < f->nr_opts; i++)
		if (!strcmp(f->opts[i].key, key))
			return f->opts[i].value;
	return NULL;
}

static void record(struct hostfault *h, const struct hostfault_action *a, const char *action,
		   const char *failure)
{
	struct json_object *o = json_object_new_object();
	char *path;
	int fd;

	json_object_object_add(o, "t_s", json_object_new_double((double)(now_ns() - h->t0_ns) / 1e9));
	json_object_object_add(o, "case", json_object_new_string(a->c->id));
	json_object_object_add(o, "run", json_object_new_int((int)a->run));
	json_object_object_add(o, "fault", json_object_new_string(a->f->name));
	json_object_object_add(o, "kind", json_object_new_string(a->f->kind));
	json_object_object_add(o, "action", json_object_new_string(action));
	json_object_object_add(o, "ok", json_object_new_boolean(!failure));
	if (failure)
		json_object_object_add(o, "error", json_object_new_string(failure));
	h->actions++;
	if (failure)
		h->failures++;
	if (h->run_dir) {
		path = xasprintf("%s/host-faults.jsonl", h->run_dir);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		free(path);
		if (fd >= 0) {
			const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
									       JSON_C_TO_STRING_NOSLASHESCAPE);

			if (write(fd, s, strlen(s)) < 0 || write(fd, "\n", 1) < 0)
				error("cannot append to host-faults.jsonl: %s", strerror(errno));
			close(fd);
		}
	}
	json_object_put(o);
}

static void schedule(struct hostfault *h, const struct hostfault_action *a)
{
	if (h->nr_pending < HOSTFAULT_MAX_PENDING)
		h->pending[h->nr_pending++] = *a;
}

void hostfault_on_event(struct hostfault *h, const char *json, size_t len)
{
	struct json_tokener *tok;
	struct json_object *o, *ev, *id, *run;
	const struct plan_case *c = NULL;
	uint64_t now = now_ns();

	if (!h->plan)
		return;
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, json, (int)len);
	json_tokener_free(tok);
	if (!o || !json_object_object_get_ex(o, "event", &ev) ||
	    strcmp(json_object_get_string(ev), "run_start") ||
	    !json_object_object_get_ex(o, "case", &id)) {
		json_object_put(o);
		return;
	}
	for (unsigned i = 0; i < h->plan->nr_cases; i++)
		if (!strcmp(h->plan->cases[i].id, json_object_get_string(id)))
			c = &h->plan->cases[i];
	for (unsigned i = 0; c && i < c->nr_faults; i++) {
		const struct plan_fault *f = &c->faults[i];
		struct hostfault_action a = { .c = c, .f = f };
		/* count 0 means "for the whole run": bounded here by the
		 * pending table, one action per period */
		unsigned n = f->count ? f->count : HOSTFAULT_MAX_PENDING / 2;

		if (f->side != PLAN_SIDE_HOST)
			continue;
		a.run = json_object_object_get_ex(o, "run", &run) ? (unsigned)json_object_get_int(run) : 0;
		for (unsigned k = 0; k < n; k++) {
			a.seq = k;
			a.at_ns = now + ((uint64_t)f->start_ms + (uint64_t)k * f->period_ms) * 1000000ull;
			a.undo = 0;
			schedule(h, &a);
			if (strcmp(f->kind, "nmi")) {
				/* pause and throttle are undone after hold (default: 1 s) */
				a.at_ns += (uint64_t)(f->hold_ms ? f->hold_ms : 1000) * 1000000ull;
				a.undo = 1;
				schedule(h, &a);
			}
			if (!f->period_ms)
				break;
		}
	}
	json_object_put(o);
}

uint64_t hostfault_next_ns(const struct hostfault *h)
{
	uint64_t next = 0;

	for (unsigned i = 0; i < h->nr_pending; i++)
		if (!next || h->pending[i].at_ns < next)
			next = h->pending[i].at_ns;
	return next;
}

static int write_str(const char *path, const char *s, struct strbuf *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, s, strlen(s));
	close(fd);
	if (n != (ssize_t)strlen(s)) {
		strbuf_addf(err, "cannot write '%s' to '%s': %s", s, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The cgroup v1 "cpu" hierarchy: its tasks file takes single threads, so
 * vCPU threads can be throttled without moving the rest of QEMU. */
static int throttle_cgroup(struct hostfault *h, struct strbuf *err)
{
	static const char *const roots[] = { "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct" };
	struct stat st;

	if (h->cgroup[0])
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		char probe[300];

		snprintf(probe, sizeof(probe), "%s/cpu.cfs_quota_us", roots[i]);
		if (stat(probe, &st) < 0)
			continue;
		snprintf(h->cgroup, sizeof(h->cgroup), "%s/schedlab-%ld", roots[i], (long)getpid());
		if (mkdir(h->cgroup, 0755) < 0 && errno != EEXIST) {
			strbuf_addf(err, "cannot create '%s': %s", h->cgroup, strerror(errno));
			h->cgroup[0] = '\0';
			return -1;
		}
		return 0;
	}
	strbuf_addstr(err, "no cgroup v1 cpu controller on this host (a cgroup v2-only host "
		      "cannot throttle single vCPU threads without moving QEMU: not supported yet)");
	return -1;
}

/* Thread ids of the vCPUs the fault targets ("default"/"random": all). */
static int vcpu_threads(struct backend *b, const char *target, long *tids, unsigned max,
			unsigned *n, struct strbuf *err)
{
	struct json_object *reply = NULL;
	unsigned long want[TOPO_MAX_CPUS / (8 * sizeof(unsigned long))] = { 0 };
	int all = !strcmp(target, "default") || !strcmp(target, "random") || !*target;

	if (!all) {
		/* a cpu list: "0-3,8" */
		const char *p = target;

		while (*p) {
			char *end;
			unsigned long lo = strtoul(p, &end, 10), hi = lo;

			if (end == p || lo >= TOPO_MAX_CPUS) {
				strbuf_addf(err, "bad vCPU list '%s'", target);
				return -1;
			}
			if (*end == '-') {
				p = end + 1;
				hi = strtoul(p, &end, 10);
				if (end == p || hi < lo || hi >= TOPO_MAX_CPUS) {
					strbuf_addf(err, "bad vCPU list '%s'", target);
					return -1;
				}
			}
			for (unsigned long c = lo; c <= hi; c++)
				want[c / (8 * sizeof(long))] |= 1ul << (c % (8 * sizeof(long)));
			p = *end == ',' ? end + 1 : end;
			if (*end && *end != ',') {
				strbuf_addf(err, "bad vCPU list '%s'", target);
				return -1;
			}
		}
	}
	if (!b->ops->qmp || b->ops->qmp(b, "query-cpus-fast", NULL, &reply, err) < 0)
		return -1;
	*n = 0;
	for (size_t i = 0; reply && i < json_object_array_length(reply) && *n < max; i++) {
		struct json_object *cpu = json_object_array_get_idx(reply, i), *idx, *tid;
		unsigned long ci;

		if (!json_object_object_get_ex(cpu, "cpu-index", &idx) ||
		    !json_object_object_get_ex(cpu, "thread-id", &tid))
			continue;
		ci = (unsigned long)json_object_get_int(idx);
		if (all || (ci < TOPO_MAX_CPUS && (want[ci / (8 * sizeof(long))] >> (ci % (8 * sizeof(long))) & 1)))
			tids[(*n)++] = (long)json_object_get_int64(tid);
	}
	json_object_put(reply);
	if (!*n) {
		strbuf_addf(err, "no vCPU matches '%s'", target);
		return -1;
	}
	return 0;
}

static int throttle(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		    int undo, struct strbuf *err)
{
	long tids[1024];
	unsigned n = 0, pct = 50;
	const char *q = opt(f, "quota");
	char path[320], val[32];

	if (q && hostfault_parse_quota(q, &pct) < 0) {
		strbuf_addf(err, "quota must be 1..100 (percent of one CPU), not '%s'", q);
		return -1;
	}
	if (throttle_cgroup(h, err) < 0 || vcpu_threads(b, f->target, tids, 1024, &n, err) < 0)
		return -1;
	if (!undo) {
		snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", h->cgroup);
		if (write_str(path, "100000", err) < 0)
			return -1;
		snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", h->cgroup);
		snprintf(val, sizeof(val), "%u", pct * 1000);
		if (write_str(path, val, err) < 0)
			return -1;
	}
	/* undo moves the threads back to the hierarchy's root */
	if (undo) {
		char *slash = strrchr(h->cgroup, '/');

		snprintf(path, sizeof(path), "%.*s/tasks", (int)(slash - h->cgroup), h->cgroup);
	} else {
		snprintf(path, sizeof(path), "%s/tasks", h->cgroup);
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(val, sizeof(val), "%ld", tids[i]);
		if (write_str(path, val, err) < 0)
			return -1;
	}
	return 0;
}

static int perform(struct hostfault *h, struct backend *b, const struct hostfault_action *a,
		   struct strbuf *err)
{
	const char *kind = a->f->kind;

	if (!b->ops->qmp) {
		strbuf_addf(err, "the %s backend has no monitor for host faults", b->ops->name);
		return -1;
	}
	if (!strcmp(kind, "pause")) {
		int ret = b->ops->qmp(b, a->undo ? "cont" : "stop", NULL, NULL, err);

		if (!ret)
			h->paused = !a->undo;
		return ret;
	}
	if (!strcmp(kind, "nmi"))
		return b->ops->nmi(b, err);
	if (!strcmp(kind, "vcpu_throttle"))
		return throttle(h, b, a->f, a->undo, err);
	strbuf_addf(err, "unknown host fault kind '%s'", kind);
	return -1;
}

static const char *action_name(const struct hostfault_action *a)
{
	if (!strcmp(a->f->kind, "pause"))
		return a->undo ? "cont" : "stop";
	if (!strcmp(a->f->kind, "vcpu_throttle"))
		return a->undo ? "unthrottle" : "throttle";
	return a->f->kind;
}

void hostfault_tick(struct hostfault *h, struct backend *b, uint64_t now)
{
	for (unsigned i = 0; i < h->nr_pending;) {
		struct hostfault_action a = h->pending[i];
		struct strbuf err = STRBUF_INIT;

		if (a.at_ns > now) {
			i++;
			continue;
		}
		h->pending[i] = h->pending[--h->nr_pending];
		if (perform(h, b, &a, &err) < 0)
			record(h, &a, action_name(&a), err.buf);
		else
			record(h, &a, action_name(&a), NULL);
		strbuf_release(&err);
	}
}

void hostfault_finish(struct hostfault *h, struct backend *b)
{
	/* undo halves still pending are what is in effect: run them now */
	for (unsigned i = 0; i < h->nr_pending; i++)
		if (h->pending[i].undo)
			h->pending[i].at_ns = 0;
		else
			h->pending[i].at_ns = UINT64_MAX;
	hostfault_tick(h, b, 1);
	h->nr_pending = 0;
	if (h->paused && b->ops->qmp) {
		struct strbuf err = STRBUF_INIT;

		b->ops->qmp(b, "cont", NULL, NULL, &err);
		strbuf_release(&err);
		h->paused = 0;
	}
	if (h->cgroup[0]) {
		if (rmdir(h->cgroup) < 0 && errno != ENOENT)
			warning("cannot remove '%s': %s", h->cgroup, strerror(errno));
		h->cgroup[0] = '\0';
	}
}
