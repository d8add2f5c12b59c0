/* hostfault.c - host-side faults during a guest run: pause/resume the whole
 * guest, NMIs, vCPU-thread throttling through a cgroup's CPU quota, and
 * vCPU hot-plug (hostfault-vcpu.c), timed from the runner's run_start. */
#define _GNU_SOURCE
#include "fault/hostfault.h"
#include "backend/backend.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const hostfault_kinds[] = {
	"pause", "nmi", "vcpu_throttle", "vcpu_add", "vcpu_remove", NULL
};

/* How long an action lasts when the scenario gives no hold: a removal
 * waits for the guest's ACPI eject, which takes seconds under TCG. */
static unsigned default_hold_ms(const char *kind)
{
	return !strcmp(kind, "vcpu_remove") ? 5000 : 1000;
}

/* Kinds whose action has a second half `hold` later. */
static int has_undo(const char *kind)
{
	return strcmp(kind, "nmi") && strcmp(kind, "vcpu_add");
}

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
		   const char *detail, const char *failure)
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
	if (detail && *detail)
		json_object_object_add(o, "detail", json_object_new_string(detail));
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
	struct json_object *o, *ev, *id, *run;
	const struct plan_case *c = NULL;
	uint64_t now = now_ns();

	if (!h->plan)
		return;
	o = json_read_object(json, len, 0, "event", NULL);
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
			if (has_undo(f->kind)) {
				/* pause and throttle are undone, a removal checked, after hold */
				a.at_ns += (uint64_t)(f->hold_ms ? f->hold_ms : default_hold_ms(f->kind)) *
					   1000000ull;
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

int hostfault_parse_cpus(const char *list, uint64_t bits[HOSTFAULT_MAX_VCPUS / 64],
			 struct strbuf *err)
{
	const char *p = list;

	if (bits)
		memset(bits, 0, HOSTFAULT_MAX_VCPUS / 8);
	if (!*p)
		goto bad;
	while (*p) {
		char *end;
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			goto bad;
		lo = hi = strtoul(p, &end, 10);
		if (end == p || lo >= HOSTFAULT_MAX_VCPUS)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				goto bad;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo || hi >= HOSTFAULT_MAX_VCPUS)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		for (unsigned long c = lo; bits && c <= hi; c++)
			bits[c / 64] |= 1ull << (c % 64);
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
bad:
	if (err)
		strbuf_addf(err, "bad vCPU list '%s'", list);
	return -1;
}

/* Thread ids of the vCPUs the fault targets ("default"/"random": all). */
static int vcpu_threads(struct backend *b, const char *target, long *tids, unsigned max,
			unsigned *n, struct strbuf *err)
{
	struct json_object *reply = NULL;
	uint64_t want[HOSTFAULT_MAX_VCPUS / 64];
	int all = !strcmp(target, "default") || !strcmp(target, "random") || !*target;

	if (!all && hostfault_parse_cpus(target, want, err) < 0)
		return -1;
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
		if (all || (ci < HOSTFAULT_MAX_VCPUS && (want[ci / 64] >> (ci % 64) & 1)))
			tids[(*n)++] = (long)json_object_get_int64(tid);
	}
	json_object_put(reply);
	if (!*n) {
		strbuf_addf(err, "no vCPU matches '%s'", target);
		return -1;
	}
	return 0;
}

/* The process a thread belongs to: QEMU, for a vCPU thread. */
static long tgid_of(long tid)
{
	char path[64], *text, *p;
	size_t len;
	long tgid = -1;

	snprintf(path, sizeof(path), "/proc/%ld/status", tid);
	text = read_file(path, &len);
	if (!text)
		return -1;
	p = strstr(text, "\nTgid:");
	if (p)
		tgid = strtol(p + 6, NULL, 10);
	free(text);
	return tgid;
}

static int throttle(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		    int undo, struct strbuf *detail, struct strbuf *err)
{
	long tids[1024], qemu = -1;
	unsigned n = 0, pct = 50;
	const char *q = opt(f, "quota");
	char orig[HOSTFAULT_CG_PATH] = "/";

	if (b->remote) {
		strbuf_addstr(err, "vcpu_throttle needs the hypervisor on this host (a remote "
			      "host's vCPU threads are in its own cgroups)");
		return -1;
	}
	if (q && hostfault_parse_quota(q, &pct) < 0) {
		strbuf_addf(err, "quota must be 1..100 (percent of one CPU), not '%s'", q);
		return -1;
	}
	if (!h->cg.version && hostfault_cg_find("/sys/fs/cgroup", &h->cg, err) < 0)
		return -1;
	if (vcpu_threads(b, f->target, tids, 1024, &n, err) < 0)
		return -1;
	if (h->cg.version == 2 && !h->cg.dir[0] && !undo) {
		qemu = tgid_of(tids[0]);
		if (qemu <= 0) {
			strbuf_addf(err, "cannot tell which process vCPU thread %ld belongs to", tids[0]);
			return -1;
		}
		if (hostfault_cg_current(qemu, orig, sizeof(orig), err) < 0)
			return -1;
	}
	if (hostfault_cg_throttle(&h->cg, qemu, orig, tids, n, pct, undo, err) < 0)
		return -1;
	strbuf_addf(detail, "%u vCPU thread%s, cgroup v%d '%s'", n, n == 1 ? "" : "s",
		    h->cg.version, h->cg.leaf);
	if (!undo)
		strbuf_addf(detail, ", %u %% of a CPU", pct);
	return 0;
}

static int perform(struct hostfault *h, struct backend *b, const struct hostfault_action *a,
		   struct strbuf *detail, struct strbuf *err)
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
		return throttle(h, b, a->f, a->undo, detail, err);
	if (!strcmp(kind, "vcpu_add"))
		return hostfault_vcpu_add(h, b, a->f, detail, err) < 0 ? -1 : 0;
	if (!strcmp(kind, "vcpu_remove") && !a->undo)
		return hostfault_vcpu_remove(h, b, a->f, detail, err) < 0 ? -1 : 0;
	if (!strcmp(kind, "vcpu_remove"))
		return hostfault_vcpu_removed(h, b, h->finishing, detail, err);
	strbuf_addf(err, "unknown host fault kind '%s'", kind);
	return -1;
}

static const char *action_name(const struct hostfault_action *a)
{
	if (!strcmp(a->f->kind, "pause"))
		return a->undo ? "cont" : "stop";
	if (!strcmp(a->f->kind, "vcpu_throttle"))
		return a->undo ? "unthrottle" : "throttle";
	if (!strcmp(a->f->kind, "vcpu_add"))
		return "device_add";
	if (!strcmp(a->f->kind, "vcpu_remove"))
		return a->undo ? "removed" : "device_del";
	return a->f->kind;
}

void hostfault_tick(struct hostfault *h, struct backend *b, uint64_t now)
{
	for (unsigned i = 0; i < h->nr_pending;) {
		struct hostfault_action a = h->pending[i];
		struct strbuf err = STRBUF_INIT, detail = STRBUF_INIT;
		int ret;

		if (a.at_ns > now) {
			i++;
			continue;
		}
		h->pending[i] = h->pending[--h->nr_pending];
		ret = perform(h, b, &a, &detail, &err);
		if (ret > 0) {
			/* not done yet (a vCPU still on its way out): look again */
			a.at_ns = now + 1000000000ull;
			schedule(h, &a);
		} else {
			record(h, &a, action_name(&a), detail.buf, ret < 0 ? err.buf : NULL);
		}
		strbuf_release(&err);
		strbuf_release(&detail);
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
	h->finishing = 1;
	hostfault_tick(h, b, 1);
	h->finishing = 0;
	h->nr_pending = 0;
	if (h->paused && b->ops->qmp) {
		struct strbuf err = STRBUF_INIT;

		b->ops->qmp(b, "cont", NULL, NULL, &err);
		strbuf_release(&err);
		h->paused = 0;
	}
	if (h->cg.dir[0]) {
		struct strbuf err = STRBUF_INIT;

		if (hostfault_cg_release(&h->cg, &err) < 0)
			warning("%s", err.buf);
		strbuf_release(&err);
	}
}
