/* hostfault.c - host-side faults during a guest run: the registry of kinds
 * (hostfault-guest.c, -cgroup.c, -vcpu.c), their options, and the timeline
 * of actions from the runner's run_start, logged to host-faults.jsonl. */
#define _GNU_SOURCE
#include "fault/hostfault.h"
#include "backend/backend.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define X(n, guest_helps) &hostfault_kind_##n,
const struct hostfault_ops *const hostfault_kinds[] = { HOSTFAULT_LIST(X) NULL };
#undef X

const struct hostfault_ops *hostfault_find(const char *kind)
{
	for (const struct hostfault_ops *const *k = hostfault_kinds; *k; k++)
		if (!strcmp((*k)->name, kind))
			return *k;
	return NULL;
}

void hostfault_init(struct hostfault *h, const struct plan *plan, const char *run_dir,
		    uint64_t t0_ns)
{
	memset(h, 0, sizeof(*h));
	h->plan = plan;
	h->run_dir = run_dir;
	h->t0_ns = t0_ns;
}

int hostfault_opt_parse(const struct hostfault_opt *o, const char *s, unsigned *out)
{
	char buf[16];
	size_t n = strlen(s), sl = o->suffix ? strlen(o->suffix) : 0;

	if (o->words) {
		for (unsigned i = 0; o->words[i]; i++)
			if (!strcmp(o->words[i], s)) {
				*out = i;
				return 0;
			}
		return -1;
	}
	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (sl && n > sl && !strcmp(buf + n - sl, o->suffix))
		buf[n - sl] = '\0';
	return parse_uint(buf, o->min, o->max, out);
}

static const struct hostfault_opt *find_opt(const struct hostfault_ops *k, const char *name)
{
	for (const struct hostfault_opt *o = k->options; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int opt_error(const struct hostfault_opt *o, const char *value, struct strbuf *err)
{
	if (o->words) {
		strbuf_addf(err, "'%s' must be ", o->name);
		for (unsigned i = 0; o->words[i]; i++)
			strbuf_addf(err, "%s%s", i ? (o->words[i + 1] ? ", " : " or ") : "", o->words[i]);
		strbuf_addf(err, " (%s), not '%s'", o->help, value);
		return -1;
	}
	strbuf_addf(err, "'%s' must be %u..%u%s (%s), not '%s'", o->name, o->min, o->max,
		    o->suffix ? o->suffix : "", o->help, value);
	return -1;
}

int hostfault_check_opts(const struct hostfault_ops *k, const struct plan_fault *f,
			 struct strbuf *err, unsigned *line)
{
	unsigned v;

	*line = 0;
	for (unsigned i = 0; i < f->nr_opts; i++) {
		const struct hostfault_opt *o = find_opt(k, f->opts[i].key);

		*line = f->opts[i].line;
		if (!o) {
			strbuf_addf(err, "host fault kind '%s' has no option '%s'", k->name,
				    f->opts[i].key);
			return -1;
		}
		if (hostfault_opt_parse(o, f->opts[i].value, &v) < 0)
			return opt_error(o, f->opts[i].value, err);
	}
	*line = 0;
	for (const struct hostfault_opt *o = k->options; o && o->name; o++) {
		if (o->dflt)
			continue;
		for (v = 0; v < f->nr_opts && strcmp(f->opts[v].key, o->name); v++)
			;
		if (v == f->nr_opts) {
			strbuf_addf(err, "host fault kind '%s' needs option '%s'", k->name, o->name);
			return -1;
		}
	}
	return 0;
}

int hostfault_opt(const struct hostfault_ops *k, const struct plan_fault *f, const char *name,
		  unsigned *out, struct strbuf *err)
{
	const struct hostfault_opt *o = find_opt(k, name);
	const char *value = NULL;

	if (!o) {
		strbuf_addf(err, "bug: host fault kind '%s' has no option '%s'", k->name, name);
		return -1;
	}
	for (unsigned i = 0; i < f->nr_opts; i++)
		if (!strcmp(f->opts[i].key, name))
			value = f->opts[i].value;
	if (!value)
		value = o->dflt;
	if (!value) {
		strbuf_addf(err, "host fault kind '%s' needs option '%s'", k->name, name);
		return -1;
	}
	if (hostfault_opt_parse(o, value, out) < 0)
		return opt_error(o, value, err);
	return 0;
}

static void record(struct hostfault *h, const struct hostfault_action *a, const char *action,
		   const char *detail, const char *failure)
{
	struct json_object *o = json_object_new_object();
	char *path;
	int fd;

	uint64_t now = now_ns();

	json_object_object_add(o, "t_s", json_object_new_double((double)(now - h->t0_ns) / 1e9));
	/* where a timeline of the run puts the action (the guest's clock runs
	 * with the host's unless a QMP stop held it) */
	if (a->run_t0_ns && now >= a->run_t0_ns)
		json_object_object_add(o, "t_run_s",
				       json_object_new_double((double)(now - a->run_t0_ns) / 1e9));
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
		const struct hostfault_ops *ops = hostfault_find(f->kind);
		struct hostfault_action a = { .c = c, .f = f, .run_t0_ns = now };
		/* count 0 means "for the whole run": bounded here by the
		 * pending table, one action per period */
		unsigned n = f->count ? f->count : HOSTFAULT_MAX_PENDING / 2;

		if (f->side != PLAN_SIDE_HOST || !ops)
			continue;
		a.run = json_object_object_get_ex(o, "run", &run) ? (unsigned)json_object_get_int(run) : 0;
		for (unsigned k = 0; k < n; k++) {
			a.seq = k;
			a.at_ns = now + ((uint64_t)f->start_ms + (uint64_t)k * f->period_ms) * 1000000ull;
			a.undo = 0;
			schedule(h, &a);
			if (ops->undo) {
				/* pause and throttle are undone, a removal checked, after hold */
				a.at_ns += (uint64_t)(f->hold_ms ? f->hold_ms : ops->default_hold_ms) *
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

int hostfault_parse_cpus(const char *list, unsigned long bits[CPULIST_LONGS(HOSTFAULT_MAX_VCPUS)],
			 struct strbuf *err)
{
	unsigned long scratch[CPULIST_LONGS(HOSTFAULT_MAX_VCPUS)];

	if (cpulist_parse(list, bits ? bits : scratch, HOSTFAULT_MAX_VCPUS, NULL, 0) > 0)
		return 0;
	if (err)
		strbuf_addf(err, "bad vCPU list '%s'", list);
	return -1;
}

long hostfault_tgid_of(long tid)
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

long hostfault_qemu_pid(struct backend *b, struct strbuf *err)
{
	struct json_object *reply = NULL, *tid = NULL;
	long pid = -1;

	if (!b->ops->qmp || b->ops->qmp(b, "query-cpus-fast", NULL, &reply, err) < 0)
		return -1;
	if (reply && json_object_is_type(reply, json_type_array) && json_object_array_length(reply) &&
	    json_object_object_get_ex(json_object_array_get_idx(reply, 0), "thread-id", &tid))
		pid = hostfault_tgid_of((long)json_object_get_int64(tid));
	json_object_put(reply);
	if (pid <= 0)
		strbuf_addstr(err, "cannot tell QEMU's process from its vCPU threads");
	return pid;
}

static int perform(struct hostfault *h, struct backend *b, const struct hostfault_action *a,
		   struct strbuf *detail, struct strbuf *err)
{
	const struct hostfault_ops *k = hostfault_find(a->f->kind);
	char why[256] = "";

	if (!k) {
		strbuf_addf(err, "unknown host fault kind '%s'", a->f->kind);
		return -1;
	}
	if (!b->ops->qmp) {
		strbuf_addf(err, "the %s backend has no monitor for host faults", b->ops->name);
		return -1;
	}
	if (k->supported && !k->supported(b, why, sizeof(why))) {
		strbuf_addstr(err, why[0] ? why : "not supported by this backend");
		return -1;
	}
	if (a->undo)
		return k->undo ? k->undo(h, b, a->f, detail, err) : 0;
	return k->act(h, b, a->f, detail, err);
}

static const char *action_name(const struct hostfault_action *a)
{
	const struct hostfault_ops *k = hostfault_find(a->f->kind);

	if (!k)
		return a->f->kind;
	return a->undo && k->undo_action ? k->undo_action : k->action;
}

static int is_thaw(const struct hostfault_action *a)
{
	return a->undo && !strcmp(a->f->kind, "pause");
}

/* When the pending cont of a pause is due, 0 when none is pending. */
static uint64_t thaw_ns(const struct hostfault *h)
{
	for (unsigned i = 0; i < h->nr_pending; i++)
		if (is_thaw(&h->pending[i]))
			return h->pending[i].at_ns;
	return 0;
}

/* The pending action due by now that is due first, or -1. */
static int earliest_due(const struct hostfault *h, uint64_t now)
{
	int best = -1;

	for (unsigned i = 0; i < h->nr_pending; i++)
		if (h->pending[i].at_ns <= now &&
		    (best < 0 || h->pending[i].at_ns < h->pending[best].at_ns))
			best = (int)i;
	return best;
}

void hostfault_tick(struct hostfault *h, struct backend *b, uint64_t now)
{
	/* in time order: a tick that comes late (a loaded host) must still
	 * stop before it resumes */
	for (unsigned n = 0; n < 4 * HOSTFAULT_MAX_PENDING; n++) {
		int i = earliest_due(h, now);
		struct hostfault_action a;
		struct strbuf err = STRBUF_INIT, detail = STRBUF_INIT;
		int ret;

		if (i < 0)
			break;
		a = h->pending[i];
		/* a frozen QEMU answers no monitor command: what falls inside a
		 * freeze is done right after it (the cont, not 10 s of timeout);
		 * the cont is due before it, so it comes first */
		if (h->frozen_pid > 0 && !h->finishing && !is_thaw(&a) && thaw_ns(h)) {
			h->pending[i].at_ns = thaw_ns(h) + 1000000ull;
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
	/* undo halves still pending are what is in effect: run them now,
	 * a pause's first (the others may need QEMU's monitor) */
	for (unsigned i = 0; i < h->nr_pending; i++)
		if (h->pending[i].undo)
			h->pending[i].at_ns = is_thaw(&h->pending[i]) ? 1 : 2;
		else
			h->pending[i].at_ns = UINT64_MAX;
	h->finishing = 1;
	hostfault_tick(h, b, 1);
	hostfault_tick(h, b, 2);
	h->finishing = 0;
	h->nr_pending = 0;
	if (h->frozen_pid > 0) {
		if (kill((pid_t)h->frozen_pid, SIGCONT) < 0 && errno != ESRCH)
			warning("cannot resume QEMU (pid %ld): %s", h->frozen_pid, strerror(errno));
		h->frozen_pid = 0;
	}
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
