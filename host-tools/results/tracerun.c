/* tracerun.c - reads a kept run's trace files back, decodes them through
 * schedtrace's parser (with the task names), and derives slices and wakeups. */
#define _GNU_SOURCE
#include "results/tracerun.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "lib/json.h"

/* A format file or a CPU's pages bigger than this is not a run we wrote. */
#define TR_MAX_FILE (SCHEDTRACE_MAX_RUN_BYTES)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int trace_list_cases(const char *run_dir, struct strvec *cases, struct strbuf *err)
{
	char *path = xasprintf("%s/trace", run_dir);
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d) {
		strbuf_addf(err, "'%s': %s", path, errno == ENOENT ? "the run kept no sched trace" :
			    strerror(errno));
		free(path);
		return -1;
	}
	while ((de = readdir(d))) {
		char *sub;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "format"))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (is_dir(sub))
			strvec_push(cases, de->d_name);
		free(sub);
	}
	closedir(d);
	free(path);
	if (cases->nr)
		qsort(cases->v, cases->nr, sizeof(*cases->v), cmp_str);
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

int trace_list_runs(const char *run_dir, const char *case_dir, unsigned **runs, size_t *nr,
		    struct strbuf *err)
{
	char *path = xasprintf("%s/trace/%s", run_dir, case_dir);
	DIR *d = opendir(path);
	struct dirent *de;
	size_t alloc = 0;

	*runs = NULL;
	*nr = 0;
	if (!d) {
		strbuf_addf(err, "'%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while ((de = readdir(d))) {
		unsigned v;
		char *raw;

		if (strncmp(de->d_name, "run", 3) || parse_uint(de->d_name + 3, 0, 1000000, &v))
			continue;
		raw = xasprintf("%s/%s/cpu0.raw", path, de->d_name);
		if (is_file(raw)) {
			if (*nr == alloc) {
				alloc = alloc ? alloc * 2 : 16;
				*runs = xrealloc(*runs, alloc * sizeof(**runs));
			}
			(*runs)[(*nr)++] = v;
		}
		free(raw);
	}
	closedir(d);
	free(path);
	if (*nr)
		qsort(*runs, *nr, sizeof(**runs), cmp_uint);
	return 0;
}

/* The boot's format files, through schedtrace's checks on names and sizes. */
static int load_formats(struct trace_run *t, const char *run_dir, struct strbuf *err)
{
	static const char *const names[] = { "page_size", "header_page", "header_event",
					     "sched_switch", "sched_waking", "sched_wakeup",
					     "sched_wakeup_new", "sched_migrate_task",
					     "sched_process_exit" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *path = xasprintf("%s/trace/format/%s", run_dir, names[i]);
		struct strbuf e = STRBUF_INIT;
		struct schedtrace_rec r = { 0 };
		size_t len = 0;
		int missing = 0;
		char *text = json_read_bounded(path, SCHEDTRACE_MAX_FORMAT_LEN, &len, &missing, &e);

		free(path);
		if (!text && !missing) {
			strbuf_addf(err, "%s", e.buf);
			strbuf_release(&e);
			return -1;
		}
		strbuf_release(&e);
		if (!text)
			continue;
		r.name = names[i];
		r.name_len = strlen(names[i]);
		r.data = text;
		r.data_len = len;
		schedtrace_add_format(&t->formats, &r);
		free(text);
	}
	return 0;
}

/* ---- decoding, with the comm fields the metrics leave out ---- */

struct decode {
	struct trace_run *t;
	size_t alloc;
	struct tep_event *last_event; /* cache of the last type looked up */
	int last_type;
};

static void copy_comm(char *dst, const struct tep_record *rec, struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;
	const unsigned char *d = rec->data;
	int n;

	dst[0] = '\0';
	if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > rec->size)
		return;
	n = f->size < TR_COMM - 1 ? f->size : TR_COMM - 1;
	for (int i = 0; i < n && d[f->offset + i]; i++) {
		unsigned char c = d[f->offset + i];

		/* a guest's task name goes into SVG, JSON and terminals */
		dst[i] = (char)(c >= 0x20 && c < 0x7f && c != '<' && c != '>' && c != '&' &&
				c != '"' && c != '\'' && c != '\\' ? c : '?');
		dst[i + 1] = '\0';
	}
}

static void on_event(void *arg, struct tep_handle *tep, const struct tep_record *rec,
		     const struct st_event *e)
{
	struct decode *d = arg;
	struct trace_run *t = d->t;
	struct tr_event *te;
	int type = tep_data_type(tep, (struct tep_record *)rec);

	if (t->nr == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 4096;
		t->ev = xrealloc(t->ev, d->alloc * sizeof(*t->ev));
	}
	te = &t->ev[t->nr];
	memset(te, 0, sizeof(*te));
	te->e = *e;
	te->seq = t->nr++;
	if (!d->last_event || d->last_type != type) {
		d->last_event = tep_find_event(tep, type);
		d->last_type = type;
	}
	if (e->type == ST_SWITCH) {
		copy_comm(te->comm, rec, d->last_event, "next_comm");
		copy_comm(te->prev_comm, rec, d->last_event, "prev_comm");
	} else {
		copy_comm(te->comm, rec, d->last_event, "comm");
	}
}

/*
 * By time, then by decoding order (CPU by CPU, each CPU's events as its
 * buffer held them): with seq as the last key qsort is a stable sort, and
 * events of one nanosecond come out as schedmetrics' merge sort orders
 * them (a waking before its wakeup, cpu0's before cpu1's).
 */
static int cmp_event(const void *a, const void *b)
{
	const struct tr_event *x = a, *y = b;

	if (x->e.ts != y->e.ts)
		return x->e.ts < y->e.ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int load_pages(struct trace_run *t, struct strbuf *err)
{
	uint64_t total = 0;

	for (unsigned cpu = 0; cpu < SCHEDTRACE_MAX_CPUS; cpu++) {
		char *path = xasprintf("%s/cpu%u.raw", t->dir, cpu);
		struct strbuf e = STRBUF_INIT;
		size_t len = 0;
		int missing = 0;
		char *data = json_read_bounded(path, TR_MAX_FILE, &len, &missing, &e);

		free(path);
		if (!data) {
			if (!missing)
				strbuf_addf(err, "%s", e.buf);
			strbuf_release(&e);
			if (!missing)
				return -1;
			break;
		}
		strbuf_release(&e);
		total += len;
		if (total > SCHEDTRACE_MAX_RUN_BYTES) {
			free(data);
			strbuf_addf(err, "'%s': the run's pages are over %llu bytes", t->dir,
				    (unsigned long long)SCHEDTRACE_MAX_RUN_BYTES);
			return -1;
		}
		t->pages = xrealloc(t->pages, (cpu + 1) * sizeof(*t->pages));
		t->pages[cpu] = (struct strbuf)STRBUF_INIT;
		strbuf_add(&t->pages[cpu], data, len);
		free(data);
		t->nr_cpus = cpu + 1;

		path = xasprintf("%s/stats%u.txt", t->dir, cpu);
		data = json_read_bounded(path, 65536, &len, &missing, &e);
		strbuf_release(&e);
		free(path);
		if (data)
			t->lost += schedtrace_stats_lost(data, len);
		free(data);
	}
	if (!t->nr_cpus) {
		strbuf_addf(err, "'%s' has no cpu0.raw", t->dir);
		return -1;
	}
	return 0;
}

static void load_topo(struct trace_run *t, const char *run_dir)
{
	struct strbuf e = STRBUF_INIT;
	char *path = xasprintf("%s/guest-topology.json", run_dir);
	struct json_object *view = json_read_file(path, "guest-topology.json", 16u << 20, NULL, &e);
	struct json_object *run = NULL;

	free(path);
	if (!view) {
		/* lab bare keeps the host's view in run.json */
		struct json_object *h;

		strbuf_reset(&e);
		path = xasprintf("%s/run.json", run_dir);
		run = json_read_file(path, "run.json", 16u << 20, NULL, &e);
		free(path);
		if (run && json_object_object_get_ex(run, "host_topology", &h))
			view = json_object_get(h);
	}
	if (!view)
		snprintf(t->topo_err, sizeof(t->topo_err), "no guest view: %s", e.buf);
	else
		st_topo_from_guest_view(view, &t->topo, t->topo_err, sizeof(t->topo_err));
	json_object_put(view);
	json_object_put(run);
	strbuf_release(&e);
}

/* Slices from the switches: what ran on each CPU from one switch to the next. */
static void build_slices(struct trace_run *t)
{
	struct { uint64_t since; int pid; const char *comm; int known; } *cur;
	uint64_t first = 0, last = 0;
	size_t alloc = 0;

	trace_run_span(t, &first, &last);
	cur = xcalloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*cur));
	for (size_t i = 0; i < t->nr; i++) {
		const struct tr_event *te = &t->ev[i];
		int c = te->e.cpu;

		if (te->e.type != ST_SWITCH || c < 0 || (unsigned)c >= t->nr_cpus)
			continue;
		/* before its first switch a CPU ran prev since the trace began */
		uint64_t since = cur[c].known ? cur[c].since : first;
		int pid = cur[c].known ? cur[c].pid : te->e.prev_pid;
		const char *comm = cur[c].known ? cur[c].comm : te->prev_comm;

		if (pid > 0 && te->e.ts > since) {
			if (t->nr_slices == alloc) {
				alloc = alloc ? alloc * 2 : 1024;
				t->slices = xrealloc(t->slices, alloc * sizeof(*t->slices));
			}
			t->slices[t->nr_slices++] = (struct tr_slice){ since, te->e.ts, c, pid, comm };
		}
		cur[c].since = te->e.ts;
		cur[c].pid = te->e.pid;
		cur[c].comm = te->comm;
		cur[c].known = 1;
	}
	for (unsigned c = 0; c < t->nr_cpus; c++) {
		if (!cur[c].known || cur[c].pid <= 0 || last <= cur[c].since)
			continue;
		if (t->nr_slices == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			t->slices = xrealloc(t->slices, alloc * sizeof(*t->slices));
		}
		t->slices[t->nr_slices++] = (struct tr_slice){ cur[c].since, last, (int)c,
							       cur[c].pid, cur[c].comm };
	}
	free(cur);
}

static int cmp_slice(const void *a, const void *b)
{
	const struct tr_slice *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static size_t wake_add(struct trace_run *t, size_t *alloc, struct tr_wake w)
{
	if (t->nr_wakes == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 1024;
		t->wakes = xrealloc(t->wakes, *alloc * sizeof(*t->wakes));
	}
	t->wakes[t->nr_wakes] = w;
	return t->nr_wakes++;
}

/*
 * Wakeups and when the woken task next ran: a pid's pending wakeup is
 * closed by the first switch to it.  Without sched_wakeup in the trace (the
 * runner no longer records it) a sched_waking is the wakeup, its time
 * the decision's and its target the CPU chosen (st_link_wakings(), as the
 * metrics); with it, the old way.  Pids are bounded by the kernel's
 * PID_MAX_LIMIT (4M); the table is indexed by pid.
 */
#define TR_PID_MAX (1 << 22)
static void build_wakes(struct trace_run *t)
{
	struct pend { uint64_t waking; int waker; size_t wake; } *p;
	size_t alloc = 0, *link = NULL;
	int maxpid = 0, from_wakeup = st_has_wakeup(t->ev, t->nr, sizeof(*t->ev));

	for (size_t i = 0; i < t->nr; i++)
		if (t->ev[i].e.pid > maxpid && t->ev[i].e.pid < TR_PID_MAX)
			maxpid = t->ev[i].e.pid;
	if (!from_wakeup && !(link = st_link_wakings(t->ev, t->nr, sizeof(*t->ev))))
		die(LAB_EXIT_FAIL, "out of memory linking %zu events", t->nr); /* as xcalloc */
	p = xcalloc((size_t)maxpid + 1, sizeof(*p));
	for (int i = 0; i <= maxpid; i++)
		p[i].waker = -1, p[i].wake = SIZE_MAX;
	for (size_t i = 0; i < t->nr; i++) {
		const struct tr_event *te = &t->ev[i];
		int pid = te->e.pid;

		if (pid <= 0 || pid > maxpid)
			continue;
		switch (te->e.type) {
		case ST_WAKING:
			if (!from_wakeup) {
				p[pid].wake = wake_add(t, &alloc, (struct tr_wake){
					.waking = te->e.ts, .wakeup = te->e.ts, .pid = pid,
					.waker_cpu = te->e.cpu, .run_cpu = -1, .comm = te->comm,
					.target_cpu = st_waking_cpu(t->ev, sizeof(*t->ev), link, i) });
				break;
			}
			p[pid].waking = te->e.ts;
			p[pid].waker = te->e.cpu;
			break;
		case ST_WAKEUP:
		case ST_WAKEUP_NEW:
			p[pid].wake = wake_add(t, &alloc, (struct tr_wake){
				.waking = p[pid].waker >= 0 ? p[pid].waking : te->e.ts,
				.wakeup = te->e.ts, .pid = pid, .waker_cpu = p[pid].waker,
				.target_cpu = te->e.target_cpu, .run_cpu = -1, .comm = te->comm });
			p[pid].waker = -1;
			break;
		case ST_SWITCH:
			if (p[pid].wake != SIZE_MAX) {
				t->wakes[p[pid].wake].run = te->e.ts;
				t->wakes[p[pid].wake].run_cpu = te->e.cpu;
				p[pid].wake = SIZE_MAX;
			}
			break;
		default:
			break;
		}
	}
	free(p);
	free(link);
}

int trace_run_decode(struct trace_run *t, struct strbuf *err)
{
	struct schedtrace_parser *p = NULL;
	struct decode d = { .t = t, .last_type = -1 };
	struct st_event *ev = NULL;
	size_t nr = 0, alloc = 0;
	uint64_t page_lost = 0;
	int ret = -1;

	if (!(p = schedtrace_parser_new(&t->formats, err)))
		goto out;
	for (unsigned c = 0; c < t->nr_cpus; c++)
		if (schedtrace_parse_cpu_hook(p, (int)c, t->pages[c].buf, t->pages[c].len, &ev, &nr,
					      &alloc, &page_lost, err, on_event, &d) < 0)
			goto out;
	if (page_lost > t->lost)
		t->lost = page_lost;
	if (t->nr)
		qsort(t->ev, t->nr, sizeof(*t->ev), cmp_event);
	build_slices(t);
	if (t->nr_slices)
		qsort(t->slices, t->nr_slices, sizeof(*t->slices), cmp_slice);
	build_wakes(t);
	ret = 0;
out:
	schedtrace_parser_free(p);
	free(ev);
	return ret;
}

int trace_run_load(struct trace_run *t, const char *run_dir, const char *case_dir, unsigned run,
		   struct strbuf *err)
{
	memset(t, 0, sizeof(*t));
	t->run = run;
	t->dir = xasprintf("%s/trace/%s/run%u", run_dir, case_dir, run);
	if (load_formats(t, run_dir, err) < 0 || load_pages(t, err) < 0)
		return -1;
	load_topo(t, run_dir);
	return trace_run_decode(t, err);
}

void trace_run_release(struct trace_run *t)
{
	for (unsigned c = 0; t->pages && c < t->nr_cpus; c++)
		strbuf_release(&t->pages[c]);
	free(t->pages);
	schedtrace_formats_release(&t->formats);
	st_topo_release(&t->topo);
	free(t->ev);
	free(t->slices);
	free(t->wakes);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

void trace_run_span(const struct trace_run *t, uint64_t *first, uint64_t *last)
{
	*first = t->nr ? t->ev[0].e.ts : 0;
	*last = t->nr ? t->ev[t->nr - 1].e.ts : 0;
}

const char *trace_run_comm(const struct trace_run *t, int pid)
{
	for (size_t i = t->nr; i-- > 0;) {
		const struct tr_event *te = &t->ev[i];

		if (te->e.pid == pid && te->comm[0])
			return te->comm;
		if (te->e.type == ST_SWITCH && te->e.prev_pid == pid && te->prev_comm[0])
			return te->prev_comm;
	}
	return "";
}

/* ---- digest ---- */

static int cmp_busy(const void *a, const void *b)
{
	const struct tr_cpu_busy *x = a, *y = b;

	if (x->busy_ns != y->busy_ns)
		return x->busy_ns > y->busy_ns ? -1 : 1;
	return x->cpu - y->cpu;
}

static int cmp_cpu_pid(const void *a, const void *b)
{
	const int *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

void trace_busy_cpus(const struct trace_run *t, struct tr_cpu_busy **out, size_t *nr)
{
	struct tr_cpu_busy *b = xcalloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*b));
	int (*pairs)[2] = xcalloc(t->nr_slices ? t->nr_slices : 1, sizeof(*pairs));

	for (unsigned c = 0; c < t->nr_cpus; c++)
		b[c].cpu = (int)c;
	for (size_t i = 0; i < t->nr_slices; i++) {
		const struct tr_slice *s = &t->slices[i];

		b[s->cpu].busy_ns += s->end - s->start;
		pairs[i][0] = s->cpu;
		pairs[i][1] = s->pid;
	}
	if (t->nr_slices)
		qsort(pairs, t->nr_slices, sizeof(*pairs), cmp_cpu_pid);
	for (size_t i = 0; i < t->nr_slices; i++)
		if (!i || pairs[i][0] != pairs[i - 1][0] || pairs[i][1] != pairs[i - 1][1])
			b[pairs[i][0]].tasks++;
	free(pairs);
	qsort(b, t->nr_cpus, sizeof(*b), cmp_busy);
	*out = b;
	*nr = t->nr_cpus;
}

static int cmp_wait(const void *a, const void *b)
{
	const struct tr_wake *x = *(const struct tr_wake *const *)a;
	const struct tr_wake *y = *(const struct tr_wake *const *)b;
	uint64_t wx = x->run - x->wakeup, wy = y->run - y->wakeup;

	if (wx != wy)
		return wx > wy ? -1 : 1;
	return (x->wakeup > y->wakeup) - (x->wakeup < y->wakeup);
}

size_t trace_longest_waits(const struct trace_run *t, const struct tr_wake **out, size_t max)
{
	const struct tr_wake **all = xcalloc(t->nr_wakes ? t->nr_wakes : 1, sizeof(*all));
	size_t n = 0;

	for (size_t i = 0; i < t->nr_wakes; i++)
		if (t->wakes[i].run >= t->wakes[i].wakeup && t->wakes[i].run)
			all[n++] = &t->wakes[i];
	qsort(all, n, sizeof(*all), cmp_wait);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*all));
	free(all);
	return n;
}

static int cmp_migr(const void *a, const void *b)
{
	const struct tr_migr *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->pid - y->pid;
}

void trace_top_migrations(const struct trace_run *t, struct tr_migr **out, size_t *nr)
{
	struct tr_migr *m = NULL;
	size_t n = 0, alloc = 0, *slot;
	int maxpid = 0;

	for (size_t i = 0; i < t->nr; i++)
		if (t->ev[i].e.type == ST_MIGRATE && t->ev[i].e.pid > maxpid &&
		    t->ev[i].e.pid < TR_PID_MAX)
			maxpid = t->ev[i].e.pid;
	slot = xcalloc((size_t)maxpid + 1, sizeof(*slot)); /* index + 1; 0: none yet */
	for (size_t i = 0; i < t->nr; i++) {
		const struct tr_event *te = &t->ev[i];
		size_t j;

		if (te->e.type != ST_MIGRATE || te->e.pid < 0 || te->e.pid > maxpid)
			continue;
		if (!slot[te->e.pid]) {
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 64;
				m = xrealloc(m, alloc * sizeof(*m));
			}
			memset(&m[n], 0, sizeof(*m));
			m[n].pid = te->e.pid;
			m[n].comm = te->comm;
			slot[te->e.pid] = ++n;
		}
		j = slot[te->e.pid] - 1;
		m[j].count++;
		m[j].level[st_level_of(&t->topo, te->e.orig_cpu, te->e.dest_cpu)]++;
	}
	free(slot);
	if (n)
		qsort(m, n, sizeof(*m), cmp_migr);
	*out = m;
	*nr = n;
}

void trace_digest_print(const struct trace_run *t, FILE *f, unsigned top)
{
	uint64_t first, last;
	struct tr_cpu_busy *b;
	struct tr_migr *m;
	const struct tr_wake **w = xcalloc(top ? top : 1, sizeof(*w));
	size_t nb, nm, nw;
	double span;

	trace_run_span(t, &first, &last);
	span = (double)(last - first) / 1e9;
	fprintf(f, "  %zu events on %u CPUs over %.3f s, %llu lost\n", t->nr, t->nr_cpus, span,
		(unsigned long long)t->lost);
	trace_busy_cpus(t, &b, &nb);
	fprintf(f, "  busiest CPUs:");
	for (size_t i = 0; i < nb && i < top; i++)
		fprintf(f, " cpu%d %.1f%% (%u tasks)%s", b[i].cpu,
			span > 0 ? 100.0 * (double)b[i].busy_ns / 1e9 / span : 0.0, b[i].tasks,
			i + 1 < nb && i + 1 < top ? "," : "");
	fprintf(f, "\n");
	nw = trace_longest_waits(t, w, top);
	fprintf(f, "  longest runnable waits (wakeup to run):%s\n", nw ? "" : " none");
	for (size_t i = 0; i < nw; i++)
		fprintf(f, "    %8.3f ms  %s-%d woken at %.6f s on cpu%d (waker cpu%d), ran on cpu%d\n",
			(double)(w[i]->run - w[i]->wakeup) / 1e6, w[i]->comm[0] ? w[i]->comm : "?",
			w[i]->pid, (double)(w[i]->wakeup - first) / 1e9, w[i]->target_cpu,
			w[i]->waker_cpu, w[i]->run_cpu);
	trace_top_migrations(t, &m, &nm);
	fprintf(f, "  top migrations:%s\n", nm ? "" : " none");
	for (size_t i = 0; i < nm && i < top; i++) {
		fprintf(f, "    %6u  %s-%d (", m[i].count, m[i].comm[0] ? m[i].comm : "?", m[i].pid);
		for (int l = 0, sep = 0; l < ST_LVL_MAX; l++)
			if (m[i].level[l]) {
				fprintf(f, "%s%s %u", sep ? ", " : "", st_level_name((enum st_level)l),
					m[i].level[l]);
				sep = 1;
			}
		fprintf(f, ")\n");
	}
	free(b);
	free(m);
	free(w);
}
