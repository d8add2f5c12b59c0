/* tracedat.c - writes trace.dat version 6: the initial format, headers, the
 * sched event formats, empty kallsyms and printk, cmdlines, options, flyrecord. */
#define _GNU_SOURCE
#include "results/tracedat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "results/tracerun.h"

/* trace-cmd's option ids (trace-cmd.dat.v7(5) lists them; v6 readers know these) */
enum { OPT_DONE = 0, OPT_CPUSTAT = 2, OPT_TRACECLOCK = 4 };

static void le16(struct strbuf *o, uint16_t v)
{
	unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	strbuf_add(o, b, 2);
}

static void le32(struct strbuf *o, uint32_t v)
{
	unsigned char b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	strbuf_add(o, b, 4);
}

static void le64(struct strbuf *o, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	strbuf_add(o, b, 8);
}

static void put_le64(struct strbuf *o, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		o->buf[at + (size_t)i] = (char)(v >> (8 * i));
}

static const struct strbuf *fmt(const struct schedtrace_formats *f, const char *name)
{
	for (unsigned i = 0; i < f->nr; i++)
		if (!strcmp(f->name[i], name))
			return &f->text[i];
	return NULL;
}

static int is_event(const char *name)
{
	return !strncmp(name, "sched_", 6);
}

/* The trace_clock option as tracefs prints it, the runner's clock in
 * brackets; traces from runners before its record were on "global". */
static void clock_line(const char *clock, size_t len, struct strbuf *out)
{
	static const char *const ns_clocks[] = { "local", "global", "mono" };
	const char *used = "global";

	for (size_t i = 0; i < ARRAY_SIZE(ns_clocks); i++)
		if (len == strlen(ns_clocks[i]) && !memcmp(clock, ns_clocks[i], len))
			used = ns_clocks[i];
	/* mono only when used: trace-cmd reads the bracketed one */
	for (size_t i = 0; i < ARRAY_SIZE(ns_clocks); i++)
		if (i < 2 || ns_clocks[i] == used)
			strbuf_addf(out, i == 0 ? "%s%s%s" : " %s%s%s",
				    ns_clocks[i] == used ? "[" : "", ns_clocks[i],
				    ns_clocks[i] == used ? "]" : "");
	strbuf_addch(out, '\n');
}

static int head_with_clock(const struct schedtrace_formats *f, const struct strbuf *clock,
			   unsigned nr_cpus, const uint64_t *sizes, const char *cmdlines,
			   const struct strbuf *stats, struct strbuf *out, struct strbuf *err);

int tracedat_head(const struct schedtrace_formats *f, unsigned nr_cpus, const uint64_t *sizes,
		  const char *cmdlines, const struct strbuf *stats, struct strbuf *out,
		  struct strbuf *err)
{
	return head_with_clock(f, fmt(f, "trace_clock"), nr_cpus, sizes, cmdlines, stats, out,
			       err);
}

static int head_with_clock(const struct schedtrace_formats *f, const struct strbuf *clock,
			   unsigned nr_cpus, const uint64_t *sizes, const char *cmdlines,
			   const struct strbuf *stats, struct strbuf *out, struct strbuf *err)
{
	const struct strbuf *hp = fmt(f, "header_page"), *he = fmt(f, "header_event");
	unsigned ps = f->page_size ? f->page_size : 4096, events = 0;
	size_t fly, cl = strlen(cmdlines);
	struct strbuf opt = STRBUF_INIT;
	uint64_t off;

	if (!hp || !he) {
		strbuf_addf(err, "the run's format files lack %s", hp ? "header_event" : "header_page");
		return -1;
	}
	strbuf_add(out, "\x17\x08\x44tracing6", 11);
	strbuf_addch(out, '\0');
	strbuf_addch(out, 0); /* little endian: every lab target */
	strbuf_addch(out, 8); /* userspace long size */
	le32(out, ps);
	strbuf_add(out, "header_page", 12);
	le64(out, hp->len);
	strbuf_add(out, hp->buf, hp->len);
	strbuf_add(out, "header_event", 13);
	le64(out, he->len);
	strbuf_add(out, he->buf, he->len);
	le32(out, 0); /* ftrace (function tracer) formats: none */
	for (unsigned i = 0; i < f->nr; i++)
		events += is_event(f->name[i]);
	le32(out, events ? 1 : 0);
	if (events) {
		strbuf_add(out, "sched", 6);
		le32(out, events);
		for (unsigned i = 0; i < f->nr; i++)
			if (is_event(f->name[i])) {
				le64(out, f->text[i].len);
				strbuf_add(out, f->text[i].buf, f->text[i].len);
			}
	}
	le32(out, 0); /* kallsyms: the sched events print no addresses */
	le32(out, 0); /* printk formats */
	le64(out, cl);
	strbuf_add(out, cmdlines, cl);
	le32(out, nr_cpus);
	strbuf_add(out, "options  ", 10);
	/* the runner traces on "global", or "local"/"mono" where those agree
	 * across CPUs (its trace_clock record): nanoseconds all three */
	clock_line(clock ? clock->buf : "", clock ? clock->len : 0, &opt);
	le16(out, OPT_TRACECLOCK);
	le32(out, (uint32_t)opt.len + 1);
	strbuf_add(out, opt.buf, opt.len + 1);
	strbuf_release(&opt);
	for (unsigned c = 0; stats && c < nr_cpus; c++) {
		struct strbuf s = STRBUF_INIT;

		if (!stats[c].len)
			continue;
		strbuf_addf(&s, "CPU: %u\n", c);
		strbuf_add(&s, stats[c].buf, stats[c].len);
		strbuf_addch(&s, '\0');
		le16(out, OPT_CPUSTAT);
		le32(out, (uint32_t)s.len);
		strbuf_add(out, s.buf, s.len);
		strbuf_release(&s);
	}
	le16(out, OPT_DONE);
	strbuf_add(out, "flyrecord", 10);
	fly = out->len;
	for (unsigned c = 0; c < nr_cpus; c++) {
		le64(out, 0);
		le64(out, sizes[c]);
	}
	/* the pages start page aligned: trace-cmd maps them */
	while (out->len % ps)
		strbuf_addch(out, '\0');
	off = out->len;
	for (unsigned c = 0; c < nr_cpus; c++) {
		put_le64(out, fly + 16 * c, off);
		off += sizes[c];
	}
	return 0;
}

struct pid_comm {
	int pid;
	size_t seq;
	const char *comm;
};

static int cmp_pid(const void *a, const void *b)
{
	const struct pid_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

void tracedat_cmdlines(const struct trace_run *t, struct strbuf *out)
{
	struct pid_comm *pc = xcalloc(2 * t->nr + 1, sizeof(*pc));
	size_t n = 0;

	for (size_t i = 0; i < t->nr; i++) {
		const struct tr_event *te = &t->ev[i];

		if (te->e.pid > 0 && te->comm[0])
			pc[n++] = (struct pid_comm){ te->e.pid, i, te->comm };
		if (te->e.type == ST_SWITCH && te->e.prev_pid > 0 && te->prev_comm[0])
			pc[n++] = (struct pid_comm){ te->e.prev_pid, i, te->prev_comm };
	}
	qsort(pc, n, sizeof(*pc), cmp_pid);
	/* the last name a pid had (after exec) is the one shown */
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || pc[i + 1].pid != pc[i].pid)
			strbuf_addf(out, "%d %s\n", pc[i].pid, pc[i].comm);
	free(pc);
}

static int stats_text(const struct trace_run *t, struct strbuf *stats)
{
	int any = 0;

	for (unsigned c = 0; c < t->nr_cpus; c++) {
		char *path = xasprintf("%s/stats%u.txt", t->dir, c);
		struct strbuf e = STRBUF_INIT;
		size_t len = 0;
		/* a stats file is a few hundred bytes; a big one is not ours */
		char *s = json_read_bounded(path, 4096, &len, NULL, &e);

		strbuf_release(&e);
		stats[c] = (struct strbuf)STRBUF_INIT;
		if (s) {
			strbuf_add(&stats[c], s, len);
			any = 1;
		}
		free(s);
		free(path);
	}
	return any;
}

/* The boot's trace_clock record: the host keeps it in trace/format/ beside
 * the event formats, two levels above the run's pages. */
static void run_clock(const struct trace_run *t, struct strbuf *out)
{
	const struct strbuf *f = fmt(&t->formats, "trace_clock");
	char *path, *text;
	size_t len = 0;
	int missing = 0;
	struct strbuf e = STRBUF_INIT;

	if (f) {
		strbuf_add(out, f->buf, f->len);
		return;
	}
	if (!t->dir)
		return;
	path = xasprintf("%s/../../format/trace_clock", t->dir);
	text = json_read_bounded(path, 64, &len, &missing, &e);
	if (text)
		strbuf_add(out, text, len);
	free(text);
	free(path);
	strbuf_release(&e);
}

int tracedat_write(const struct trace_run *t, const char *path, struct strbuf *err)
{
	struct strbuf head = STRBUF_INIT, cmd = STRBUF_INIT, clock = STRBUF_INIT;
	struct strbuf *stats = xcalloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*stats));
	uint64_t *sizes = xcalloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*sizes));
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = NULL;
	int ret = -1, any_stats;

	for (unsigned c = 0; c < t->nr_cpus; c++)
		sizes[c] = t->pages[c].len;
	tracedat_cmdlines(t, &cmd);
	any_stats = stats_text(t, stats);
	run_clock(t, &clock);
	if (head_with_clock(&t->formats, &clock, t->nr_cpus, sizes, cmd.buf ? cmd.buf : "",
			    any_stats ? stats : NULL, &head, err) < 0)
		goto out;
	if (!(f = fopen(tmp, "w"))) {
		strbuf_addf(err, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fwrite(head.buf, 1, head.len, f);
	for (unsigned c = 0; c < t->nr_cpus; c++)
		fwrite(t->pages[c].buf, 1, t->pages[c].len, f);
	if (ferror(f) | fclose(f)) {
		f = NULL;
		strbuf_addf(err, "cannot write '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	f = NULL;
	if (rename(tmp, path) < 0) {
		strbuf_addf(err, "cannot rename '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	for (unsigned c = 0; c < t->nr_cpus; c++)
		strbuf_release(&stats[c]);
	free(stats);
	free(sizes);
	free(tmp);
	strbuf_release(&head);
	strbuf_release(&cmd);
	strbuf_release(&clock);
	return ret;
}
