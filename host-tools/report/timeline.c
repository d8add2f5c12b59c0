/* timeline.c - draws a kept run's slices, wakeups and fault actions as an
 * SVG per-CPU timeline, and writes them as Chrome trace event JSON. */
#define _GNU_SOURCE
#include "report/timeline.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "results/tracedat.h"

#define LABEL_W 150  /* px left of the time axis for the row names */
#define ROW_H 12
#define ROW_GAP 2
#define GROUP_GAP 10 /* between LLCs; twice that between nodes */
#define TOP 28       /* the time axis */
#define GAP_MIN_NS 20000000ull /* 20 ms without any event on any CPU */
#define MAX_GAPS 64

/* Kernel threads by name prefix: one grey role. */
static const char *const kthreads[] = { "kworker", "ksoftirqd", "migration", "rcu_", "kthreadd",
					"cpuhp", "idle_inject", "watchdog", "khugepaged", "kcompactd",
					"kswapd", "irq/", "swapper", "mm_percpu_wq", "oom_reaper",
					"kblockd", "khungtaskd", "kauditd", "writeback", "jbd2/",
					"kintegrityd", "kdevtmpfs", "netns", "inet_frag_wq" };

void timeline_role(const char *comm, char *buf, size_t len)
{
	size_t n = strlen(comm);

	for (size_t i = 0; i < ARRAY_SIZE(kthreads); i++)
		if (!strncmp(comm, kthreads[i], strlen(kthreads[i]))) {
			snprintf(buf, len, "kernel");
			return;
		}
	/* "name-12", "name:3", "name/1", "name12": the number is the instance */
	while (n && comm[n - 1] >= '0' && comm[n - 1] <= '9')
		n--;
	while (n && (comm[n - 1] == '-' || comm[n - 1] == ':' || comm[n - 1] == '/' ||
		     comm[n - 1] == '_' || comm[n - 1] == '.'))
		n--;
	if (!n)
		snprintf(buf, len, "%s", comm[0] ? comm : "?");
	else
		snprintf(buf, len, "%.*s", (int)n, comm);
}

/* Colour-blind safe qualitative palette (Okabe-Ito), then grey for kernel. */
static const char *const palette[] = { "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
				       "#D55E00", "#F0E442", "#000000" };
#define NR_ROLES (ARRAY_SIZE(palette) + 1) /* the last is "other" */
#define KERNEL_COLOR "#999999"
#define OTHER_COLOR "#bbbbbb"

struct roles {
	char name[NR_ROLES][TR_COMM + 8];
	uint64_t busy[NR_ROLES];
	unsigned nr;
	int kernel; /* index of "kernel", -1 */
};

struct role_busy {
	char name[TR_COMM + 8];
	uint64_t busy;
};

/* Roles ranked by CPU time: the busiest get a colour of their own, the
 * rest are "other". */
static void rank_roles(const struct trace_run *t, struct roles *r)
{
	struct role_busy *all = NULL;
	size_t n = 0, alloc = 0;

	memset(r, 0, sizeof(*r));
	r->kernel = -1;
	for (size_t i = 0; i < t->nr_slices; i++) {
		char role[TR_COMM + 8];
		size_t j;

		timeline_role(t->slices[i].comm, role, sizeof(role));
		for (j = 0; j < n && strcmp(all[j].name, role); j++)
			;
		if (j == n) {
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 16;
				all = xrealloc(all, alloc * sizeof(*all));
			}
			snprintf(all[n].name, sizeof(all[n].name), "%s", role);
			all[n++].busy = 0;
		}
		all[j].busy += t->slices[i].end - t->slices[i].start;
	}
	/* the busiest first; ties keep the order of first appearance */
	for (size_t k = 0; k < n; k++) {
		size_t best = k;

		for (size_t j = k + 1; j < n; j++)
			if (all[j].busy > all[best].busy)
				best = j;
		if (best != k) {
			struct role_busy tmp = all[best];

			memmove(&all[k + 1], &all[k], (best - k) * sizeof(*all));
			all[k] = tmp;
		}
	}
	for (size_t j = 0; j < n; j++) {
		unsigned slot = j < NR_ROLES - 1 ? (unsigned)j : NR_ROLES - 1;

		if (slot < NR_ROLES - 1) {
			snprintf(r->name[slot], sizeof(r->name[slot]), "%s", all[j].name);
			if (!strcmp(all[j].name, "kernel"))
				r->kernel = (int)slot;
		} else {
			snprintf(r->name[slot], sizeof(r->name[slot]), "other");
		}
		r->nr = slot + 1;
		r->busy[slot] += all[j].busy;
	}
	free(all);
}

static unsigned role_of(const struct roles *r, const char *comm)
{
	char role[TR_COMM + 8];

	timeline_role(comm, role, sizeof(role));
	for (unsigned i = 0; i < r->nr && i < NR_ROLES - 1; i++)
		if (!strcmp(r->name[i], role))
			return i;
	return NR_ROLES - 1;
}

static const char *color_of(const struct roles *r, unsigned role)
{
	if ((int)role == r->kernel)
		return KERNEL_COLOR;
	if (role >= NR_ROLES - 1)
		return OTHER_COLOR;
	/* kernel takes no palette slot of its own: count the roles before it */
	return palette[role - (r->kernel >= 0 && (int)role > r->kernel)];
}

/* ---- rows: CPUs by node, then LLC, then core, then number ---- */

struct row {
	int cpu, node, llc, core;
	int y;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->llc != y->llc)
		return x->llc < y->llc ? -1 : 1;
	/* SMT siblings next to each other */
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return x->cpu - y->cpu;
}

/* Rows in drawing order and, per CPU, its row; returns the height used. */
static int layout(const struct trace_run *t, struct row *rows, int *row_of_cpu)
{
	int y = TOP;

	for (unsigned c = 0; c < t->nr_cpus; c++) {
		int known = c < t->topo.nr_cpus;

		rows[c] = (struct row){ (int)c, known ? t->topo.node[c] : -1,
					known ? t->topo.llc[c] : -1, known ? t->topo.core[c] : -1, 0 };
	}
	qsort(rows, t->nr_cpus, sizeof(*rows), cmp_row);
	for (unsigned i = 0; i < t->nr_cpus; i++) {
		if (i && rows[i].node != rows[i - 1].node)
			y += 2 * GROUP_GAP;
		else if (i && rows[i].llc != rows[i - 1].llc)
			y += GROUP_GAP;
		rows[i].y = y;
		row_of_cpu[rows[i].cpu] = (int)i;
		y += ROW_H + ROW_GAP;
	}
	return y;
}

/* ---- drawing ---- */

struct scale {
	uint64_t first, span;
};

static double xpos(const struct scale *s, uint64_t ts)
{
	if (ts <= s->first || !s->span)
		return LABEL_W;
	return LABEL_W + (double)(ts - s->first) * TIMELINE_WIDTH / (double)s->span;
}

static void axis(const struct scale *s, int height, struct strbuf *out)
{
	double secs = (double)s->span / 1e9, step = 1e-3;

	while (secs / step > 10)
		step *= (secs / step > 50) ? 10 : 2;
	for (double v = 0; v <= secs + 1e-12; v += step) {
		double x = LABEL_W + v / (secs > 0 ? secs : 1) * TIMELINE_WIDTH;

		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>",
			    x, TOP - 4, x, height);
		strbuf_addf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">"
			    "%.*f s</text>\n", x, TOP - 8, step < 0.01 ? 3 : step < 0.1 ? 2 : 1, v);
	}
}

static int cmp_gap(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	uint64_t lx = x[1] - x[0], ly = y[1] - y[0];

	return (lx < ly) - (lx > ly);
}

/*
 * Stretches where no CPU recorded an event (a paused or stalled guest):
 * at least 20 ms and half a percent of the run, the longest max of them.
 */
static size_t find_gaps(const struct trace_run *t, uint64_t span, uint64_t (*gaps)[2], size_t max)
{
	uint64_t min = span / 200 > GAP_MIN_NS ? span / 200 : GAP_MIN_NS;
	uint64_t (*all)[2] = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 1; i < t->nr; i++)
		if (t->ev[i].e.ts - t->ev[i - 1].e.ts >= min) {
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 64;
				all = xrealloc(all, alloc * sizeof(*all));
			}
			all[n][0] = t->ev[i - 1].e.ts;
			all[n][1] = t->ev[i].e.ts;
			n++;
		}
	if (n > max) {
		qsort(all, n, sizeof(*all), cmp_gap);
		n = max;
	}
	if (n)
		memcpy(gaps, all, n * sizeof(*all));
	free(all);
	return n;
}

/*
 * One CPU's slices: a slice at least 2 px wide is its own rectangle with a
 * title; narrower ones add their time to per-pixel bins, drawn as runs of
 * pixels of one role, shaded by how much of the pixel was busy.
 */
struct bin {
	uint32_t busy[NR_ROLES]; /* ns, capped: a pixel of a long trace can be many ms */
};

static void draw_bins(const struct roles *r, const struct bin *bins, const struct scale *s,
		      int y, struct strbuf *out)
{
	double ns_per_px = (double)s->span / TIMELINE_WIDTH;
	int run_start = -1, run_role = -1, run_level = -1;

	for (int px = 0; px <= TIMELINE_WIDTH; px++) {
		int role = -1, level = -1;

		if (px < TIMELINE_WIDTH) {
			uint64_t total = 0, best = 0;

			for (unsigned k = 0; k < NR_ROLES; k++) {
				total += bins[px].busy[k];
				if (bins[px].busy[k] > best)
					best = bins[px].busy[k], role = (int)k;
			}
			if (total && ns_per_px > 0) {
				double f = (double)total / ns_per_px;

				level = f >= 0.75 ? 3 : f >= 0.4 ? 2 : f >= 0.1 ? 1 : 0;
			}
		}
		if (role == run_role && level == run_level)
			continue;
		if (run_role >= 0)
			strbuf_addf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				    "fill=\"%s\" fill-opacity=\"%.2f\"/>",
				    LABEL_W + run_start, y, px - run_start, ROW_H,
				    color_of(r, (unsigned)run_role), 0.25 + 0.25 * run_level);
		run_start = px;
		run_role = role;
		run_level = level;
	}
}

static void draw_cpu(const struct trace_run *t, const struct roles *r, const struct scale *s,
		     size_t *si, int cpu, int y, struct bin *bins, struct strbuf *out)
{
	double ns_per_px = (double)s->span / TIMELINE_WIDTH;

	memset(bins, 0, TIMELINE_WIDTH * sizeof(*bins));
	for (; *si < t->nr_slices && t->slices[*si].cpu == cpu; (*si)++) {
		const struct tr_slice *sl = &t->slices[*si];
		double x0 = xpos(s, sl->start), x1 = xpos(s, sl->end);
		unsigned role = role_of(r, sl->comm);

		if (x1 - x0 >= 2.0) {
			strbuf_addf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				    "fill=\"%s\"><title>%s-%d %.3f ms</title></rect>",
				    x0, y, x1 - x0, ROW_H, color_of(r, role), sl->comm[0] ? sl->comm : "?",
				    sl->pid, (double)(sl->end - sl->start) / 1e6);
			continue;
		}
		if (ns_per_px <= 0)
			continue;
		/* spread the slice's time over the pixels it touches */
		for (uint64_t a = sl->start; a < sl->end;) {
			int px = (int)((double)(a - s->first) / ns_per_px);
			uint64_t edge;

			if (px < 0)
				px = 0;
			if (px >= TIMELINE_WIDTH)
				px = TIMELINE_WIDTH - 1;
			edge = s->first + (uint64_t)((double)(px + 1) * ns_per_px);
			if (edge <= a || px == TIMELINE_WIDTH - 1)
				edge = sl->end;
			if (edge > sl->end)
				edge = sl->end;
			if (bins[px].busy[role] < UINT32_MAX - (edge - a))
				bins[px].busy[role] += (uint32_t)(edge - a);
			a = edge;
		}
	}
	draw_bins(r, bins, s, y, out);
}

static void draw_arrows(const struct trace_run *t, const struct scale *s, const struct row *rows,
			const int *row_of_cpu, struct strbuf *out)
{
	const struct tr_wake *w[TIMELINE_ARROWS];
	size_t n = trace_longest_waits(t, w, TIMELINE_ARROWS);

	for (size_t i = 0; i < n; i++) {
		int from = w[i]->waker_cpu >= 0 ? w[i]->waker_cpu : w[i]->target_cpu;
		int to = w[i]->run_cpu;

		if (from < 0 || to < 0 || (unsigned)from >= t->nr_cpus || (unsigned)to >= t->nr_cpus)
			continue;
		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\" "
			    "stroke-width=\"1.5\" marker-end=\"url(#arrow)\"><title>%s-%d waited "
			    "%.3f ms: woken by cpu%d, ran on cpu%d</title></line>\n",
			    xpos(s, w[i]->waking), rows[row_of_cpu[from]].y + ROW_H / 2,
			    xpos(s, w[i]->run), rows[row_of_cpu[to]].y + ROW_H / 2,
			    w[i]->comm[0] ? w[i]->comm : "?", w[i]->pid,
			    (double)(w[i]->run - w[i]->wakeup) / 1e6, w[i]->waker_cpu, to);
	}
}

static void draw_marks(const struct scale *s, const struct fault_mark *const *marks, size_t nr,
		       int height, struct strbuf *out)
{
	for (size_t i = 0; i < nr; i++) {
		uint64_t at = s->first + (uint64_t)(marks[i]->rel > 0 ? marks[i]->rel * 1e9 : 0);
		double x = xpos(s, at);

		if (at > s->first + s->span)
			x = LABEL_W + TIMELINE_WIDTH;
		strbuf_addf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
			    "stroke-dasharray=\"4 3\"><title>", x, TOP - 4, x, height,
			    marks[i]->ok ? "#7a0177" : "#d00");
		html_escape(out, marks[i]->what ? marks[i]->what : "fault");
		strbuf_addf(out, "%s at %.3f s</title></line>", marks[i]->host ? " (host)" : "",
			    marks[i]->rel);
		/* close actions (stop, cont) would print over each other */
		strbuf_addf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"9\" fill=\"#7a0177\">", x + 2,
			    height + 10 + 10 * (int)(i % 3));
		html_escape(out, marks[i]->what ? marks[i]->what : "fault");
		strbuf_addstr(out, "</text>\n");
	}
}

void timeline_svg(const struct trace_run *t, const struct fault_mark *const *marks, size_t nr_marks,
		  struct strbuf *out)
{
	struct row *rows = xcalloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*rows));
	int *row_of_cpu = xcalloc(t->nr_cpus ? t->nr_cpus : 1, sizeof(*row_of_cpu));
	struct bin *bins = xcalloc(TIMELINE_WIDTH, sizeof(*bins));
	uint64_t gaps[MAX_GAPS][2], last;
	struct scale s;
	struct roles r;
	size_t si = 0, ng;
	int height, width = LABEL_W + TIMELINE_WIDTH + 10;

	trace_run_span(t, &s.first, &last);
	s.span = last - s.first;
	rank_roles(t, &r);
	height = layout(t, rows, row_of_cpu);
	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "font-family=\"sans-serif\">\n", width, height + 36);
	strbuf_addstr(out, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
		      "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" "
		      "fill=\"#c00\"/></marker><pattern id=\"gap\" width=\"6\" height=\"6\" "
		      "patternUnits=\"userSpaceOnUse\"><path d=\"M0 6L6 0\" stroke=\"#888\"/></pattern>"
		      "</defs>\n");
	axis(&s, height, out);
	ng = find_gaps(t, s.span, gaps, MAX_GAPS);
	for (size_t i = 0; i < ng; i++)
		strbuf_addf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			    "fill=\"url(#gap)\"><title>no events for %.1f ms</title></rect>\n",
			    xpos(&s, gaps[i][0]), TOP, xpos(&s, gaps[i][1]) - xpos(&s, gaps[i][0]),
			    height - TOP, (double)(gaps[i][1] - gaps[i][0]) / 1e6);
	for (unsigned i = 0; i < t->nr_cpus; i++) {
		const struct row *rw = &rows[i];

		if (!i || rw->node != rows[i - 1].node || rw->llc != rows[i - 1].llc)
			strbuf_addf(out, "<text x=\"2\" y=\"%d\" font-size=\"9\" fill=\"#555\">"
				    "node %d llc %d</text>", rw->y - 2, rw->node, rw->llc);
		strbuf_addf(out, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">cpu%d"
			    "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>",
			    LABEL_W - 4, rw->y + ROW_H - 2, rw->cpu, LABEL_W, rw->y, TIMELINE_WIDTH, ROW_H);
	}
	/* slices are by CPU: draw in CPU order, each at its row */
	for (unsigned c = 0; c < t->nr_cpus; c++) {
		while (si < t->nr_slices && t->slices[si].cpu < (int)c)
			si++;
		draw_cpu(t, &r, &s, &si, (int)c, rows[row_of_cpu[c]].y, bins, out);
		strbuf_addch(out, '\n');
	}
	draw_arrows(t, &s, rows, row_of_cpu, out);
	draw_marks(&s, marks, nr_marks, height, out);
	strbuf_addstr(out, "</svg>\n");
	free(bins);
	free(rows);
	free(row_of_cpu);
}

void timeline_html(const struct trace_run *t, const char *title,
		   const struct fault_mark *const *marks, size_t nr_marks, struct strbuf *out)
{
	uint64_t first, last;
	struct roles r;

	trace_run_span(t, &first, &last);
	rank_roles(t, &r);
	strbuf_addstr(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	html_escape(out, title);
	strbuf_addstr(out, "</title><style>body{font-family:sans-serif;margin:1em}"
		      ".k{display:inline-block;width:1em;height:1em;margin:0 .3em 0 1em;"
		      "vertical-align:middle}</style></head><body>\n<h1>");
	html_escape(out, title);
	strbuf_addf(out, "</h1>\n<p>%zu events on %u CPUs over %.3f s, %llu lost; %zu slices, "
		    "%zu wakeups. Rows are grouped by node and LLC%s. Red arrows: the %d slowest "
		    "wakeups (waker to where the task ran); hatched: no CPU recorded anything "
		    "for 20 ms and 0.5 %% of the run or more; dashed lines: fault actions.</p>\n",
		    t->nr, t->nr_cpus, (double)(last - first) / 1e9, (unsigned long long)t->lost,
		    t->nr_slices, t->nr_wakes, t->topo.nr_cpus ? "" : " (no topology: CPU order)",
		    TIMELINE_ARROWS);
	strbuf_addstr(out, "<p>");
	for (unsigned i = 0; i < r.nr; i++) {
		strbuf_addf(out, "<span class=\"k\" style=\"background:%s\"></span>", color_of(&r, i));
		html_escape(out, r.name[i]);
		strbuf_addf(out, " %.1f%%", last > first ? 100.0 * (double)r.busy[i] /
			    (double)(last - first) / (t->nr_cpus ? t->nr_cpus : 1) : 0.0);
	}
	strbuf_addstr(out, " (share of all CPU time)</p>\n");
	timeline_svg(t, marks, nr_marks, out);
	strbuf_addstr(out, "<p>The same run: <a href=\"trace.dat\">trace.dat</a> (trace-cmd report, "
		      "KernelShark), <a href=\"trace.json\">trace.json</a> (ui.perfetto.dev).</p>\n"
		      "</body></html>\n");
}

/* ---- Chrome trace event JSON ---- */

static struct json_object *meta(const char *what, int pid, int tid, const char *key,
				struct json_object *value)
{
	struct json_object *o = json_object_new_object(), *args = json_object_new_object();

	json_object_object_add(o, "ph", json_object_new_string("M"));
	json_object_object_add(o, "name", json_object_new_string(what));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	if (tid >= 0)
		json_object_object_add(o, "tid", json_object_new_int(tid));
	json_object_object_add(args, key, value);
	json_object_object_add(o, "args", args);
	return o;
}

static int node_of(const struct trace_run *t, int cpu)
{
	return (unsigned)cpu < t->topo.nr_cpus && t->topo.node[cpu] >= 0 ? t->topo.node[cpu] : 0;
}

/* microseconds since the first event, as the format wants */
static struct json_object *us(uint64_t first, uint64_t ts)
{
	return json_object_new_double((double)(ts - first) / 1e3);
}

struct json_object *timeline_trace_json(const struct trace_run *t)
{
	struct json_object *doc = json_object_new_object(), *ev = json_object_new_array();
	uint64_t first, last;
	int seen_node[64] = { 0 };

	trace_run_span(t, &first, &last);
	json_object_object_add(doc, "displayTimeUnit", json_object_new_string("ns"));
	json_object_object_add(doc, "traceEvents", ev);
	for (unsigned c = 0; c < t->nr_cpus; c++) {
		int node = node_of(t, (int)c), llc = (unsigned)c < t->topo.nr_cpus ? t->topo.llc[c] : -1;
		char *name;

		if (node >= 0 && node < 64 && !seen_node[node]) {
			name = xasprintf("node %d", node);
			json_object_array_add(ev, meta("process_name", node, -1, "name",
							json_object_new_string(name)));
			json_object_array_add(ev, meta("process_sort_index", node, -1, "sort_index",
							json_object_new_int(node)));
			free(name);
			seen_node[node] = 1;
		}
		name = llc >= 0 ? xasprintf("cpu%u (llc %d)", c, llc) : xasprintf("cpu%u", c);
		json_object_array_add(ev, meta("thread_name", node, (int)c, "name",
						json_object_new_string(name)));
		json_object_array_add(ev, meta("thread_sort_index", node, (int)c, "sort_index",
						json_object_new_int((int)c)));
		free(name);
	}
	for (size_t i = 0; i < t->nr_slices; i++) {
		const struct tr_slice *s = &t->slices[i];
		struct json_object *o = json_object_new_object(), *args = json_object_new_object();
		char role[TR_COMM + 8];

		timeline_role(s->comm, role, sizeof(role));
		json_object_object_add(o, "ph", json_object_new_string("X"));
		json_object_object_add(o, "name", json_object_new_string(s->comm[0] ? s->comm : "?"));
		json_object_object_add(o, "cat", json_object_new_string(role));
		json_object_object_add(o, "pid", json_object_new_int(node_of(t, s->cpu)));
		json_object_object_add(o, "tid", json_object_new_int(s->cpu));
		json_object_object_add(o, "ts", us(first, s->start));
		json_object_object_add(o, "dur", json_object_new_double((double)(s->end - s->start) / 1e3));
		json_object_object_add(args, "pid", json_object_new_int(s->pid));
		json_object_object_add(o, "args", args);
		json_object_array_add(ev, o);
	}
	for (size_t i = 0; i < t->nr_wakes; i++) {
		const struct tr_wake *w = &t->wakes[i];
		struct json_object *o, *args;
		char *name;
		int cpu = w->target_cpu;

		if (cpu < 0 || (unsigned)cpu >= t->nr_cpus)
			continue;
		o = json_object_new_object();
		args = json_object_new_object();
		name = xasprintf("wakeup %s-%d", w->comm[0] ? w->comm : "?", w->pid);
		json_object_object_add(o, "ph", json_object_new_string("i"));
		json_object_object_add(o, "s", json_object_new_string("t"));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "pid", json_object_new_int(node_of(t, cpu)));
		json_object_object_add(o, "tid", json_object_new_int(cpu));
		json_object_object_add(o, "ts", us(first, w->wakeup));
		json_object_object_add(args, "pid", json_object_new_int(w->pid));
		json_object_object_add(args, "waker_cpu", json_object_new_int(w->waker_cpu));
		if (w->run)
			json_object_object_add(args, "wait_us",
					       json_object_new_double((double)(w->run - w->wakeup) / 1e3));
		json_object_object_add(o, "args", args);
		json_object_array_add(ev, o);
		free(name);
	}
	return doc;
}

/* ---- links from lab compare's page ---- */

/* kept.json's reason for a run ("" when the case was not pruned or it is absent). */
static void kept_why(struct json_object *kept, unsigned run, char *buf, size_t len)
{
	struct json_object *a;

	buf[0] = '\0';
	if (!kept || !json_object_object_get_ex(kept, "kept", &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(a) && i < 100000; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		const char *why = json_get_str(o, "why");
		double r;

		if (!json_get_num(o, "run", &r) && r == (double)run && why)
			snprintf(buf, len, "%s", why);
	}
}

char *timeline_rel_path(const char *from_dir, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	size_t common = 0, i;

	/* the common leading components */
	for (i = 0; from_dir[i] && from_dir[i] == to[i]; i++)
		if (from_dir[i] == '/')
			common = i + 1;
	/* to is under from_dir: nothing of from_dir is left to climb */
	if (!from_dir[i] && to[i] == '/')
		common = i + 1;
	for (const char *p = common <= strlen(from_dir) ? from_dir + common : ""; *p;) {
		strbuf_addstr(&sb, "../");
		p += strcspn(p, "/");
		p += *p == '/';
	}
	strbuf_addstr(&sb, to + common);
	return strbuf_detach(&sb);
}

/* An href to path: relative to page_dir (both resolved), else file://. */
static void add_href(struct strbuf *out, const char *path, const char *page_dir)
{
	char *rel = page_dir ? timeline_rel_path(page_dir, path) : NULL;

	if (rel) {
		html_escape(out, rel);
	} else {
		strbuf_addstr(out, "file://");
		html_escape(out, path);
	}
	free(rel);
}

static void file_link(struct strbuf *out, const char *dir, const char *name, const char *text,
		      const char *page_dir)
{
	char *path = xasprintf("%s/%s", dir, name);

	if (is_file(path)) {
		strbuf_addstr(out, " <a href=\"");
		add_href(out, path, page_dir);
		strbuf_addstr(out, "\">");
		strbuf_addstr(out, text);
		strbuf_addstr(out, "</a>");
	}
	free(path);
}

size_t timeline_links_html(const char *run_dir, const char *label, struct strbuf *out)
{
	return timeline_links_html_rel(run_dir, label, NULL, out);
}

size_t timeline_links_html_rel(const char *run_dir, const char *label, const char *page_dir,
			       struct strbuf *out)
{
	struct strvec cases = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	char *abs = run_dir ? realpath(run_dir, NULL) : NULL;
	size_t listed = 0;

	if (!abs || trace_list_cases(abs, &cases, &err) < 0 || !cases.nr)
		goto out;
	strbuf_addstr(out, "<p>");
	html_escape(out, label);
	strbuf_addstr(out, ": <code>");
	html_escape(out, abs);
	strbuf_addstr(out, "/trace/</code></p>\n<ul>\n");
	for (size_t i = 0; i < cases.nr; i++) {
		char *path = xasprintf("%s/trace/%s/kept.json", abs, cases.v[i]);
		/* a case that was never pruned has no kept.json: no reasons to show */
		struct json_object *kept = json_read_file(path, "kept.json", 1 << 20, NULL, &err);
		unsigned *runs = NULL;
		size_t nr = 0;

		free(path);
		strbuf_reset(&err);
		if (trace_list_runs(abs, cases.v[i], &runs, &nr, &err) < 0 || !nr) {
			json_object_put(kept);
			free(runs);
			continue;
		}
		strbuf_addstr(out, "<li>");
		html_escape(out, cases.v[i]);
		strbuf_addstr(out, ":");
		for (size_t k = 0; k < nr && k < 50; k++) {
			char *rdir = xasprintf("%s/trace/%s/run%u", abs, cases.v[i], runs[k]);
			char why[80];

			kept_why(kept, runs[k], why, sizeof(why));
			strbuf_addf(out, "%s run%u", k ? ";" : "", runs[k]);
			if (why[0]) {
				strbuf_addstr(out, " (");
				html_escape(out, why);
				strbuf_addstr(out, ")");
			}
			file_link(out, rdir, "timeline.html", "timeline", page_dir);
			file_link(out, rdir, "trace.dat", "trace.dat", page_dir);
			file_link(out, rdir, "trace.json", "trace.json", page_dir);
			free(rdir);
			listed++;
		}
		if (nr > 50)
			strbuf_addf(out, "; %zu more", nr - 50);
		strbuf_addstr(out, "</li>\n");
		json_object_put(kept);
		free(runs);
	}
	strbuf_addstr(out, "</ul>\n");
out:
	free(abs);
	strvec_clear(&cases);
	strbuf_release(&err);
	return listed;
}

/* ---- the files of a kept run, and the links of a table row ---- */

size_t timeline_marks_of(const struct fault_marks *fm, const char *case_dir, unsigned run,
			 const struct fault_mark **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; fm && i < fm->nr && n < max; i++) {
		char *d;

		if (fm->v[i].end || fm->v[i].run != run || !fm->v[i].case_id)
			continue;
		d = schedtrace_case_dir(fm->v[i].case_id);
		if (!strcmp(d, case_dir))
			out[n++] = &fm->v[i];
		free(d);
	}
	return n;
}

int timeline_run_faulted(void *ctx, const char *case_dir, unsigned run)
{
	const struct fault_mark *m[1];

	return timeline_marks_of(ctx, case_dir, run, m, 1) > 0;
}

int timeline_write_files(const struct trace_run *t, const char *title,
			 const struct fault_mark *const *marks, size_t nr_marks,
			 struct strvec *written, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT, page = STRBUF_INIT;
	char *dat = xasprintf("%s/trace.dat", t->dir), *json = xasprintf("%s/trace.json", t->dir);
	char *html = xasprintf("%s/timeline.html", t->dir);
	struct json_object *doc;
	int bad = 0;

	if (tracedat_write(t, dat, &e) < 0) {
		strbuf_addf(err, "%s%s", err->len ? "; " : "", e.buf);
		bad++;
	} else if (written) {
		strvec_push(written, dat);
	}
	doc = timeline_trace_json(t);
	if (json_object_to_file_ext(json, doc, JSON_C_TO_STRING_PLAIN) < 0) {
		strbuf_addf(err, "%scannot write '%s'", err->len ? "; " : "", json);
		bad++;
	} else if (written) {
		strvec_push(written, json);
	}
	json_object_put(doc);
	timeline_html(t, title, marks, nr_marks, &page);
	if (write_file_atomic(html, page.buf, page.len) < 0) {
		strbuf_addf(err, "%scannot write '%s'", err->len ? "; " : "", html);
		bad++;
	} else if (written) {
		strvec_push(written, html);
	}
	strbuf_release(&page);
	strbuf_release(&e);
	free(dat);
	free(json);
	free(html);
	return bad;
}

int timeline_draw_missing(const char *run_dir, const struct fault_marks *fm, size_t *drawn,
			  struct strbuf *err)
{
	struct strvec cases = STRVEC_INIT;
	struct strbuf e = STRBUF_INIT;
	int failed = 0;

	if (trace_list_cases(run_dir, &cases, &e) < 0) {
		strbuf_release(&e);
		return 0; /* no trace kept: nothing to draw */
	}
	for (size_t i = 0; i < cases.nr; i++) {
		unsigned *runs = NULL;
		size_t nr = 0;

		strbuf_reset(&e);
		if (trace_list_runs(run_dir, cases.v[i], &runs, &nr, &e) < 0) {
			strbuf_addf(err, "%s%s", err->len ? "; " : "", e.buf);
			failed++;
			continue;
		}
		for (size_t k = 0; k < nr; k++) {
			char *html = xasprintf("%s/trace/%s/run%u/timeline.html", run_dir, cases.v[i],
					       runs[k]);
			struct trace_run t = TRACE_RUN_INIT;
			const struct fault_mark *marks[256];
			size_t nm = timeline_marks_of(fm, cases.v[i], runs[k], marks, ARRAY_SIZE(marks));
			char *title = xasprintf("%s run%u", cases.v[i], runs[k]);

			strbuf_reset(&e);
			if (!is_file(html)) {
				if (trace_run_load(&t, run_dir, cases.v[i], runs[k], &e) < 0 ||
				    timeline_write_files(&t, title, marks, nm, NULL, &e)) {
					strbuf_addf(err, "%s%s run%u: %s", err->len ? "; " : "",
						    cases.v[i], runs[k], e.buf);
					failed++;
				} else if (drawn) {
					(*drawn)++;
				}
				trace_run_release(&t);
			}
			free(title);
			free(html);
		}
		free(runs);
	}
	strvec_clear(&cases);
	strbuf_release(&e);
	return failed ? -1 : 0;
}

size_t timeline_row_links(const char *run_dir, const char *case_id, const char *page_dir,
			  const char *side, const char *colour, struct strbuf *out)
{
	char *cdir, *abs = run_dir ? realpath(run_dir, NULL) : NULL;
	struct strbuf err = STRBUF_INIT;
	struct json_object *kept;
	unsigned *runs = NULL;
	size_t nr = 0, links = 0;
	char *path;

	if (!abs)
		return 0;
	cdir = schedtrace_case_dir(case_id);
	path = xasprintf("%s/trace/%s/kept.json", abs, cdir);
	kept = json_read_file(path, "kept.json", 1 << 20, NULL, &err);
	free(path);
	if (trace_list_runs(abs, cdir, &runs, &nr, &err) == 0)
		for (size_t k = 0; k < nr; k++) {
			char *html = xasprintf("%s/trace/%s/run%u/timeline.html", abs, cdir, runs[k]);
			char why[80];

			if (is_file(html) && links < TIMELINE_ROW_LINKS) {
				kept_why(kept, runs[k], why, sizeof(why));
				strbuf_addf(out, " <a class=tl style=\"color:%s\" href=\"", colour);
				add_href(out, html, page_dir);
				strbuf_addstr(out, "\" title=\"");
				html_escape(out, side);
				strbuf_addf(out, " run%u%s", runs[k], why[0] ? " (" : "");
				html_escape(out, why);
				strbuf_addf(out, "%s: timeline\">run%u</a>", why[0] ? ")" : "", runs[k]);
				links++;
			} else if (is_file(html)) {
				links++;
			}
			free(html);
		}
	if (links > TIMELINE_ROW_LINKS)
		strbuf_addf(out, " +%zu", links - TIMELINE_ROW_LINKS);
	json_object_put(kept);
	strbuf_release(&err);
	free(runs);
	free(cdir);
	free(abs);
	return links;
}
