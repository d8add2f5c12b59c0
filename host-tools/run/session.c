/* session.c - the host side of one guest run: poll the console and record
 * streams, store them raw and append-only, classify, enforce deadlines. */
#define _GNU_SOURCE
#include "run/session.h"
#include "common/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS: return "PASS";
	case VERDICT_FAIL: return "FAIL";
	case VERDICT_CRASH: return "CRASH";
	case VERDICT_HANG: return "HANG";
	case VERDICT_SKIP: return "SKIP";
	case VERDICT_STOPPED: return "STOPPED";
	}
	return "?";
}

int verdict_exit_code(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS: return LAB_EXIT_PASS;
	case VERDICT_SKIP: return LAB_EXIT_SKIP;
	default: return LAB_EXIT_FAIL;
	}
}

void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->crash_grace_ms = 3000;
	s->hello.buf = s->sysfs.buf = s->results.buf = strbuf_empty;
	console_watch_init(&s->console);
	wire_decoder_init(&s->wire);
	wiretext_decoder_init(&s->text);
}

void session_release(struct session *s)
{
	strbuf_release(&s->hello);
	strbuf_release(&s->sysfs);
	strbuf_release(&s->results);
	wire_decoder_release(&s->wire);
	wiretext_decoder_release(&s->text);
}

static int on_record(const struct wire_record *rec, void *ctx)
{
	struct session *s = ctx;

	s->t_last_record_ns = now_ns();
	if (!s->t_first_record_ns)
		s->t_first_record_ns = s->t_last_record_ns;
	if (s->watch && s->watch->record)
		s->watch->record(s->watch->ctx, rec);
	switch (rec->type) {
	case WIRE_HELLO:
		strbuf_add(&s->hello, rec->payload, rec->len);
		break;
	case WIRE_SYSFS:
		strbuf_add(&s->sysfs, rec->payload, rec->len);
		if (s->sysfs.len && s->sysfs.buf[s->sysfs.len - 1] != '\n')
			strbuf_addch(&s->sysfs, '\n');
		break;
	case WIRE_RESULT:
		strbuf_add(&s->results, rec->payload, rec->len);
		strbuf_addch(&s->results, '\n');
		break;
	case WIRE_END:
		s->t_end_record_ns = now_ns();
		break;
	case WIRE_EVENT:
		if (!s->t_first_case_ns && memmem(rec->payload, rec->len, "\"case_start\"", 12))
			s->t_first_case_ns = now_ns();
		hostfault_on_event(&s->faults, rec->payload, rec->len);
		break;
	case WIRE_LOG:
		if (!s->parked && rec->len == strlen(WIRE_LOG_PARKED) &&
		    !memcmp(rec->payload, WIRE_LOG_PARKED, rec->len))
			s->parked = 1;
		break;
	default:
		break;
	}
	return 0;
}

static int open_raw(const char *dir, const char *name)
{
	char *path;
	int fd;

	if (!dir)
		return -1;
	path = xasprintf("%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		error("cannot open '%s': %s", path, strerror(errno));
	free(path);
	return fd;
}

static void append_raw(int fd, const char *buf, size_t len)
{
	if (fd >= 0 && write_in_full(fd, buf, len) < 0)
		error("cannot append raw run data: %s", strerror(errno));
}

/* A frame rebuilt from the console's SLRT lines goes where the record
 * port's bytes would: records.bin and the wire decoder. */
struct text_sink {
	struct session *s;
	int rec_raw;
};

static void on_text_frame(const void *frame, size_t len, void *ctx)
{
	struct text_sink *t = ctx;

	append_raw(t->rec_raw, frame, len);
	wire_decoder_feed(&t->s->wire, frame, len, on_record, t->s);
}

/* Console bytes: watched for failures, and with records_console decoded. */
static enum console_class feed_console(struct session *s, struct text_sink *t,
				       const char *buf, size_t len)
{
	if (s->records_console)
		wiretext_decoder_feed(&s->text, buf, len, on_text_frame, t);
	return console_watch_feed(&s->console, buf, len);
}

/* Reads what is there; returns 0 at EOF, 1 otherwise. */
static int pump(int fd, int raw_fd, char *buf, size_t size, size_t *got)
{
	ssize_t n = read(fd, buf, size);

	*got = 0;
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	append_raw(raw_fd, buf, (size_t)n);
	*got = (size_t)n;
	return 1;
}

/* Progress goes to stderr, and only to a terminal: logs stay clean. */
static void progress(const struct session *s, const char *what, const char *detail)
{
	if (s->quiet || !isatty(STDERR_FILENO))
		return;
	if (s->watch && s->watch->interrupt)
		s->watch->interrupt(s->watch->ctx);
	fprintf(stderr, "lab: [%6.1fs] %s%s%s\n", (double)(now_ns() - s->t_start_ns) / 1e9,
		what, detail ? ": " : "", detail ? detail : "");
}

/* Registers of every vCPU as the hypervisor sees them, taken before the
 * NMI: evidence even when the guest is too wedged to print anything. */
static void dump_vcpus(struct session *s, struct backend *b)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *path;

	if (!b->ops->dump_vcpus || !s->conf->run_dir)
		return;
	if (b->ops->dump_vcpus(b, &out, &err) < 0)
		strbuf_addf(&out, "cannot read vCPU state: %s\n", err.buf);
	path = xasprintf("%s/hang-vcpus.txt", s->conf->run_dir);
	write_file_atomic(path, out.buf, out.len);
	free(path);
	strbuf_release(&out);
	strbuf_release(&err);
}

/*
 * Under icount QEMU 7.2 runs the vCPUs of its one TCG thread in turn, each
 * up to the next timer deadline, and the first one takes all of it unless
 * it halts or pauses: the others only run when the main loop kicks the
 * thread.  A stop and cont from the monitor is such a kick.
 */
static void kick_vcpus(struct session *s, struct backend *b)
{
	struct strbuf err = STRBUF_INIT;

	if (b->ops->qmp(b, "stop", NULL, NULL, &err) == 0)
		b->ops->qmp(b, "cont", NULL, NULL, &err);
	s->kicks++;
	strbuf_release(&err);
}

/* The WIRE_PLAN frame on the record port; a failed send is the run's
 * FAIL, through the END record that never comes. */
static void send_plan(const struct session_warm *w, struct backend *b)
{
	if (send_in_full(b->record_fd, w->plan_frame, w->plan_frame_len) < 0)
		error("cannot send the plan to the guest: %s", strerror(errno));
}

/* The runner parked: save the booted guest (not a restored one), then
 * hand it the plan.  A failed send is the run's FAIL, through the END
 * record that never comes. */
static void unpark(struct session *s, struct backend *b)
{
	const struct session_warm *w = s->warm;

	s->parked = 2;
	if (!w || b->record_fd < 0)
		return;
	if (!w->restore && w->save)
		w->save(w->ctx, b);
	s->t_plan_ns = now_ns();
	if (w->restore && w->plan_in_fwcfg) {
		s->plan_fwcfg = 1;
		progress(s, "plan in the restored guest's fw_cfg", NULL);
		return;
	}
	progress(s, "plan sent to the parked runner", NULL);
	send_plan(w, b);
}

/*
 * A restored runner finds its plan in fw_cfg within a millisecond of
 * guest time and reports within a second of host time.  One that stays
 * silent (a guest saved before its runner read fw_cfg's directory size
 * did so every time, docs/warm-start.md; fixed in the runner) gets the
 * plan on the record port as well, which it reads while parked,
 * whatever kept it from seeing the plan in fw_cfg.  The first copy read wins; the
 * other stays unread, which is why a frame over 64 KiB is not sent: the
 * socket and the guest's tty buffers hold that much without a reader,
 * and a blocked send would stall the session.  Returns the next time to
 * look, 0 for never.
 */
static uint64_t nudge_plan(struct session *s, struct backend *b, uint64_t now)
{
	const struct session_warm *w = s->warm;
	uint64_t at;

	if (!s->plan_fwcfg || s->t_nudge_ns || s->plan_nudge_ms <= 0 || b->record_fd < 0 ||
	    s->t_last_record_ns > s->t_plan_ns || w->plan_frame_len > 65536)
		return 0;
	at = s->t_plan_ns + (uint64_t)s->plan_nudge_ms * 1000000ull;
	if (now < at)
		return at;
	s->t_nudge_ns = now;
	warning("the restored guest said nothing for %.1f s after its plan went into fw_cfg: "
		"sending it on the record port too", (double)(now - s->t_plan_ns) / 1e9);
	send_plan(w, b);
	return 0;
}

/*
 * A halt worth ending the run for.  Without -no-shutdown QEMU exits after
 * a shutdown anyway; only one the guest did not mean (a panic, or a reset
 * before its END record) is news.
 */
static int halt_counts(const struct session *s, const struct backend_state *st)
{
	if (strncmp(st->cause, "SHUTDOWN", 8) && !st->halted)
		return 0;
	if (!strncmp(st->cause, "SHUTDOWN", 8) || !strcmp(st->state, "shutdown"))
		return strstr(st->cause, "guest-panic") ||
		       (strstr(st->cause, "guest-reset") && !s->wire.ended);
	return 1;
}

/* Asks the backend for the guest's run state: 1 when it halted for good. */
static int check_run_state(struct session *s, struct backend *b)
{
	struct strbuf err = STRBUF_INIT;
	struct backend_state st;
	int ret;

	/* a frozen QEMU answers nothing: the fault's end comes first */
	if (!b->ops->run_state || s->faults.frozen_pid)
		return 0;
	ret = b->ops->run_state(b, &st, &err);
	strbuf_release(&err);
	if (ret < 0 && !*st.cause)
		return 0;
	if (!halt_counts(s, &st))
		return 0;
	s->halt = st;
	s->t_halt_ns = now_ns();
	return ret == 0;
}

static void read_halt_lines(struct session *s)
{
	struct strbuf out = STRBUF_INIT;

	if (!s->conf->run_dir)
		return;
	backend_log_error_lines(s->conf->run_dir, 3, &out);
	snprintf(s->halt_lines, sizeof(s->halt_lines), "%s", out.buf);
	strbuf_release(&out);
}

int session_run(struct session *s, struct strbuf *err)
{
	struct backend b = { .ops = s->ops, .console_fd = -1, .record_fd = -1 };
	int con_raw, rec_raw;
	uint64_t deadline, crash_at = 0, hang_at = 0, end_at = 0, next_kick = 0, next_state = 0;
	uint64_t next_nudge = 0;
	char buf[65536];
	int saw_userspace = 0, pin_failed = 0;
	struct text_sink sink = { .s = s };

	s->t_start_ns = now_ns();
	con_raw = open_raw(s->conf->run_dir, "console.log");
	rec_raw = open_raw(s->conf->run_dir, "records.bin");
	sink.rec_raw = rec_raw;
	if (s->ops->start(&b, s->conf, err) < 0) {
		if (con_raw >= 0)
			close(con_raw);
		if (rec_raw >= 0)
			close(rec_raw);
		s->ops->release(&b);
		return -1;
	}
	s->t_started_ns = now_ns();
	memcpy(s->hypervisor_version, b.version, sizeof(b.version));
	progress(s, s->ops->name, s->warm && s->warm->restore ? "restored" : "started");
	if (s->pin && vcpu_pin_apply(s->pin, &b) < 0) {
		if (s->pin->strict)
			pin_failed = 1;
		else
			warning("pin: %s; running unpinned", s->pin->why);
	}
	if (s->warm && s->warm->restore) {
		/* one records.bin, as if this guest had booted in this run */
		append_raw(rec_raw, s->warm->prefix, s->warm->prefix_len);
		wire_decoder_feed(&s->wire, s->warm->prefix, s->warm->prefix_len, on_record, s);
	}
	deadline = s->t_start_ns + (uint64_t)s->timeout_ms * 1000000ull;
	hostfault_init(&s->faults, s->plan, s->conf->run_dir, s->t_start_ns);
	if (s->kick_ms > 0 && b.ops->qmp)
		next_kick = s->t_start_ns + (uint64_t)s->kick_ms * 1000000ull;

	while ((b.console_fd >= 0 || b.record_fd >= 0) && !pin_failed) {
		struct pollfd pfd[3] = {
			{ .fd = b.console_fd, .events = POLLIN },
			{ .fd = b.record_fd, .events = POLLIN },
			{ .fd = b.ops->watch_fd ? b.ops->watch_fd(&b) : -1, .events = POLLIN },
		};
		uint64_t now = now_ns(), until = deadline;
		size_t got;
		int r;

		if (crash_at && crash_at + (uint64_t)s->crash_grace_ms * 1000000ull < until)
			until = crash_at + (uint64_t)s->crash_grace_ms * 1000000ull;
		if (hang_at)
			until = hang_at + 5000000000ull;
		if (end_at && end_at + (uint64_t)s->end_grace_ms * 1000000ull < until)
			until = end_at + (uint64_t)s->end_grace_ms * 1000000ull;
		if (!hang_at && !crash_at && hostfault_next_ns(&s->faults) &&
		    hostfault_next_ns(&s->faults) <= now) {
			hostfault_tick(&s->faults, &b, now);
			continue;
		}
		if (next_kick && s->kick_until_ready && s->t_first_record_ns) {
			/* the APs are up: the rest runs on the virtual clock alone */
			next_kick = 0;
			continue;
		}
		if (next_kick && next_kick <= now && !hang_at && !crash_at) {
			kick_vcpus(s, &b);
			next_kick = now_ns() + (uint64_t)s->kick_ms * 1000000ull;
			continue;
		}
		if (!hang_at && !s->t_halt_ns && b.ops->run_state && pfd[2].fd < 0 &&
		    next_state <= now) {
			/* no events to wait for: ask once a second */
			next_state = now + 1000000000ull;
			if (check_run_state(s, &b)) {
				progress(s, "the hypervisor stopped the guest", s->halt.state);
				break;
			}
		}
		if (s->parked == 1)
			unpark(s, &b);
		next_nudge = hang_at || crash_at ? 0 : nudge_plan(s, &b, now);
		if (s->watch && s->watch->tick)
			s->watch->tick(s->watch->ctx);
		if (s->stop && *s->stop && !s->stopped) {
			/* the records so far are on disk: stop the guest, keep them */
			s->stopped = *s->stop;
			progress(s, "stopped by a signal", strsignal(s->stopped));
			break;
		}
		if (now >= until) {
			if (crash_at || hang_at || end_at)
				break;
			/* Deadline: ask for backtraces before killing, so the
			 * console holds evidence of where the guest was stuck. */
			hang_at = now;
			progress(s, "deadline passed", "injecting NMI for backtraces");
			/* a frozen QEMU answers no monitor and a stopped guest
			 * runs no NMI handler: the faults end first */
			hostfault_finish(&s->faults, &b);
			dump_vcpus(s, &b);
			if (b.ops->nmi(&b, err) < 0)
				strbuf_reset(err);
			continue;
		}
		{
			/* wake up for the next host fault, not only for I/O */
			uint64_t wake = until, next = hostfault_next_ns(&s->faults);

			if (!hang_at && !crash_at && next && next < wake)
				wake = next;
			if (!hang_at && !crash_at && next_kick && next_kick < wake)
				wake = next_kick;
			if (next_nudge && next_nudge < wake)
				wake = next_nudge;
			if (s->watch && wake > now + 1000000000ull)
				wake = now + 1000000000ull;
			if (b.ops->run_state && pfd[2].fd < 0 && wake > now + 1000000000ull)
				wake = now + 1000000000ull;
			r = poll(pfd, 3, (int)((wake - now) / 1000000ull) + 1);
		}
		if (r < 0 && errno != EINTR) {
			strbuf_addf(err, "poll: %s", strerror(errno));
			break;
		}
		if (r <= 0)
			continue;
		if (pfd[2].revents && !hang_at && check_run_state(s, &b)) {
			progress(s, "the hypervisor stopped the guest", s->halt.state);
			break;
		}
		if (pfd[0].revents) {
			if (!pump(b.console_fd, con_raw, buf, sizeof(buf), &got)) {
				close(b.console_fd);
				b.console_fd = -1;
			} else if (got) {
				enum console_class c = feed_console(s, &sink, buf, got);

				if (!saw_userspace && s->console.init_line) {
					saw_userspace = 1;
					s->t_init_ns = now_ns();
					progress(s, "guest reached userspace", NULL);
				}
				if ((c == CON_CRASH || c == CON_REBOOT) && !crash_at) {
					crash_at = now_ns();
					progress(s, "kernel failure", s->console.first);
				}
				if (s->records_console && s->wire.ended && !s->end_grace_ms)
					break;
				if (s->records_console && s->wire.ended && !end_at)
					end_at = now_ns();
			}
		}
		if (pfd[1].revents) {
			if (!pump(b.record_fd, rec_raw, buf, sizeof(buf), &got)) {
				close(b.record_fd);
				b.record_fd = -1;
			} else if (got) {
				wire_decoder_feed(&s->wire, buf, got, on_record, s);
				if (s->wire.ended && !s->end_grace_ms)
					break; /* everything the runner had to say arrived */
				if (s->wire.ended && !end_at)
					end_at = now_ns();
			}
		}
	}
	/* QEMU's last words before it exits, when it went away by itself */
	if (!s->t_halt_ns && !hang_at && !s->stopped)
		check_run_state(s, &b);
	if (s->t_halt_ns)
		read_halt_lines(s);
	else if (s->pin)
		vcpu_pin_check(s->pin);
	/* a guest left paused or throttled would only slow its own end */
	hostfault_finish(&s->faults, &b);
	s->hypervisor_status = b.ops->stop(&b, 10000);
	s->t_stop_ns = now_ns();
	/* QEMU has exited: drain what is still buffered in the sockets. */
	for (int i = 0; i < 2; i++) {
		int *fd = i ? &b.record_fd : &b.console_fd;
		size_t got;

		while (*fd >= 0 && pump(*fd, i ? rec_raw : con_raw, buf, sizeof(buf), &got) && got) {
			if (i)
				wire_decoder_feed(&s->wire, buf, got, on_record, s);
			else
				feed_console(s, &sink, buf, got);
		}
	}
	if (s->records_console)
		wiretext_decoder_finish(&s->text, on_text_frame, &sink);
	console_watch_finish(&s->console);
	s->t_crash_ns = crash_at;
	s->t_deadline_ns = hang_at;
	s->wire_complete = wire_decoder_finish(&s->wire) == 0;
	b.ops->release(&b);
	if (con_raw >= 0)
		close(con_raw);
	if (rec_raw >= 0)
		close(rec_raw);

	/* A panic after the deadline is the one our NMI asked for: still a HANG. */
	if (pin_failed) {
		s->verdict = VERDICT_FAIL;
		snprintf(s->reason, sizeof(s->reason), "--pin=strict: %.400s", s->pin->why);
	} else if ((s->console.worst == CON_CRASH || s->console.worst == CON_REBOOT) &&
	    (!hang_at || (crash_at && crash_at < hang_at))) {
		s->verdict = VERDICT_CRASH;
		snprintf(s->reason, sizeof(s->reason), "%s at console line %lu: %.300s",
			 s->console.worst == CON_REBOOT ? "guest rebooted" : "kernel crashed",
			 s->console.first_line_no, s->console.first);
	} else if (s->t_halt_ns && !hang_at) {
		s->verdict = VERDICT_CRASH;
		snprintf(s->reason, sizeof(s->reason), "the hypervisor stopped the guest: %s%s%s%s%s%s%s",
			 *s->halt.state ? "run state " : "", s->halt.state,
			 *s->halt.state && *s->halt.cause ? " after " : "", s->halt.cause,
			 *s->halt_lines ? " (" : "", s->halt_lines, *s->halt_lines ? ")" : "");
	} else if (s->stopped && !hang_at) {
		s->verdict = VERDICT_STOPPED;
		snprintf(s->reason, sizeof(s->reason), "stopped by %s after %.0f s",
			 s->stopped == SIGINT ? "SIGINT" : s->stopped == SIGTERM ? "SIGTERM" : "a signal",
			 (double)(s->t_stop_ns - s->t_start_ns) / 1e9);
	} else if (hang_at) {
		s->verdict = VERDICT_HANG;
		snprintf(s->reason, sizeof(s->reason),
			 "no END record within %d s (%s); NMI injected%s, console kept",
			 s->timeout_ms / 1000,
			 saw_userspace ? "guest reached userspace" : "guest never reached userspace",
			 s->console.worst == CON_CRASH ? " and the guest dumped its CPUs" : "");
	} else if (!s->wire_complete) {
		s->verdict = VERDICT_FAIL;
		snprintf(s->reason, sizeof(s->reason),
			 "record stream incomplete: %llu received, %llu missing, %llu corrupt, end %s",
			 (unsigned long long)s->wire.records, (unsigned long long)s->wire.missing,
			 (unsigned long long)(s->wire.bad_crc + s->wire.bad_header +
					      s->text.bad_lines),
			 s->wire.ended ? "seen" : "never seen");
	} else if (s->console.worst == CON_SPLAT) {
		s->verdict = VERDICT_FAIL;
		snprintf(s->reason, sizeof(s->reason), "kernel splat at console line %lu: %.300s",
			 s->console.first_line_no, s->console.first);
	} else {
		s->verdict = VERDICT_PASS;
		snprintf(s->reason, sizeof(s->reason), "%llu records, console clean",
			 (unsigned long long)s->wire.records);
	}
	return 0;
}
