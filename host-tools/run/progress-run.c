/* progress-run.c - the progress line of a run: which case, which run, how
 * long so far and how long still, from the runner's case events. */
#define _GNU_SOURCE
#include "run/progress-run.h"
#include "lib/json.h"
#include "lib/util.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEARTBEAT_NS (60ull * 1000000000ull)
#define REDRAW_NS (1000000000ull)

static void watch_record(void *ctx, const struct wire_record *rec)
{
	run_progress_record(ctx, rec);
}

static void watch_tick(void *ctx)
{
	run_progress_tick(ctx);
}

static void watch_interrupt(void *ctx)
{
	run_progress_break(ctx);
}

void run_progress_init(struct run_progress *rp, const char *what, const struct plan *plan,
		       const char *results_root, const struct estimate_key *key, const char *own,
		       int quiet)
{
	struct estimate_history h = ESTIMATE_HISTORY_INIT;
	unsigned n = plan->nr_cases ? plan->nr_cases : 1;

	memset(rp, 0, sizeof(*rp));
	progress_init(&rp->p, what, plan->nr_cases, 1);
	rp->plan = plan;
	rp->est = xcalloc(n, sizeof(*rp->est));
	rp->took = xcalloc(n, sizeof(*rp->took));
	for (unsigned i = 0; i < plan->nr_cases; i++)
		rp->took[i] = -1;
	if (results_root && !quiet)
		estimate_history_load(&h, results_root, key);
	rp->recorded = estimate_cases(&h, plan, rp->est);
	if (!quiet)
		rp->recorded += estimate_from_own(own, plan, rp->est);
	estimate_history_release(&h);
	rp->cur = rp->last = -1;
	rp->quiet = quiet;
	rp->last_line_ns = rp->last_draw_ns = now_ns();
	wire_decoder_init(&rp->tail);
	rp->watch.record = watch_record;
	rp->watch.tick = watch_tick;
	rp->watch.interrupt = watch_interrupt;
	rp->watch.ctx = rp;
}

void run_progress_release(struct run_progress *rp)
{
	run_progress_break(rp);
	free(rp->est);
	free(rp->took);
	wire_decoder_release(&rp->tail);
	rp->est = NULL;
	rp->took = NULL;
}

static int find_case(const struct run_progress *rp, const char *id)
{
	for (unsigned i = 0; i < rp->plan->nr_cases; i++)
		if (!strcmp(rp->plan->cases[i].id, id))
			return (int)i;
	return -1;
}

static void show(struct run_progress *rp)
{
	char detail[PLAN_MAX_FIELD + 160], took[32];
	uint64_t now = now_ns();
	double cur_s = rp->cur >= 0 ? (double)(now - rp->case_t0_ns) / 1e9 : 0;
	double eta = estimate_left_s(rp->est, rp->took, rp->plan->nr_cases, rp->cur, cur_s);
	int nothing_known = !rp->p.done && !rp->recorded;

	if (rp->quiet)
		return;
	if (rp->cur < 0 && rp->last >= 0) {
		progress_format_duration(took, sizeof(took), rp->took[rp->last]);
		snprintf(detail, sizeof(detail), "case %d/%u %s done in %s", rp->last + 1,
			 rp->plan->nr_cases, rp->plan->cases[rp->last].id, took);
	} else if (rp->cur >= 0) {
		const struct plan_case *c = &rp->plan->cases[rp->cur];
		unsigned total = c->warmup + c->runs;

		snprintf(detail, sizeof(detail), "case %d/%u %s, run %u/%u%s", rp->cur + 1,
			 rp->plan->nr_cases, c->id, rp->results < total ? rp->results + 1 : total,
			 total, nothing_known ? " (ETA from the deadlines)" : "");
	} else {
		snprintf(detail, sizeof(detail), "booting, %u case%s to run%s", rp->plan->nr_cases,
			 rp->plan->nr_cases == 1 ? "" : "s",
			 nothing_known ? " (ETA from the deadlines)" : "");
	}
	progress_show_eta(&rp->p, detail, eta);
	rp->last_line_ns = rp->last_draw_ns = now;
}

void run_progress_record(struct run_progress *rp, const struct wire_record *rec)
{
	struct json_object *o, *v;
	const char *ev;
	int i;

	if (rp->quiet || (rec->type != WIRE_EVENT && rec->type != WIRE_RESULT))
		return;
	if (rec->type == WIRE_RESULT) {
		if (rp->cur >= 0) {
			rp->results++;
			if (rp->p.tty)
				show(rp);
		}
		return;
	}
	/* the record reader counts bad records; progress only skips them */
	o = json_read_object(rec->payload, rec->len, WIRE_MAX_PAYLOAD, "event", NULL);
	if (!o ||
	    !json_object_object_get_ex(o, "event", &v) || !(ev = json_object_get_string(v)) ||
	    (strcmp(ev, "case_start") && strcmp(ev, "case_end")) ||
	    !json_object_object_get_ex(o, "case", &v) ||
	    (i = find_case(rp, json_object_get_string(v))) < 0) {
		json_object_put(o);
		return;
	}
	if (!strcmp(ev, "case_start")) {
		rp->cur = i;
		rp->results = 0;
		rp->case_t0_ns = now_ns();
		if (rp->p.tty)
			show(rp);
	} else if (rp->took[i] < 0) {
		rp->took[i] = (double)(now_ns() - (rp->cur == i ? rp->case_t0_ns : rp->p.t0_ns)) / 1e9;
		progress_item_done(&rp->p, rp->took[i]);
		rp->last = i;
		rp->cur = -1;
		show(rp);
	}
	json_object_put(o);
}

void run_progress_tick(struct run_progress *rp)
{
	uint64_t now = now_ns();

	if (rp->quiet)
		return;
	if (rp->p.tty ? now - rp->last_draw_ns >= REDRAW_NS : now - rp->last_line_ns >= HEARTBEAT_NS)
		show(rp);
}

static int tail_record(const struct wire_record *rec, void *ctx)
{
	run_progress_record(ctx, rec);
	return 0;
}

void run_progress_tail(struct run_progress *rp, const char *records_path)
{
	char buf[65536];
	int fd = open(records_path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd >= 0) {
		while ((n = pread(fd, buf, sizeof(buf), rp->tail_off)) > 0) {
			rp->tail_off += n;
			wire_decoder_feed(&rp->tail, buf, (size_t)n, tail_record, rp);
		}
		close(fd);
	}
	run_progress_tick(rp);
}

void run_progress_break(struct run_progress *rp)
{
	progress_break(&rp->p);
}

const char *run_progress_last_case(const struct run_progress *rp)
{
	return rp->last >= 0 ? rp->plan->cases[rp->last].id : NULL;
}

const char *run_progress_running_case(const struct run_progress *rp)
{
	return rp->cur >= 0 ? rp->plan->cases[rp->cur].id : NULL;
}
