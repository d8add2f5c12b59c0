/* park.c - the runner parked for a warm start: snapshot sent, it waits for
 * the plan: in QEMU's fw_cfg (a restore with -fw_cfg), or on the record
 * channel (read side), where the host sends it after a save. */
#define _GNU_SOURCE
#include "park.h"
#include "bootopt.h"
#include "common/wire.h"
#include "cpu-online.h"
#include "fwcfg.h"
#include "plan-run.h"
#include "probe.h"
#include "schedfeat.h"
#include "schedknob.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Whether [p, end) begins with prefix. */
static int starts_with_n(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

/* One "key=value\n" line at *p (below end); value bounded by 64 bytes. */
static int take_line(const char **p, const char *end, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key), n = 0;
	const char *q = *p;

	if ((size_t)(end - q) < klen + 1 || memcmp(q, key, klen) || q[klen] != '=')
		return -1;
	q += klen + 1;
	while (q < end && *q != '\n') {
		if (n + 1 >= size)
			return -1;
		val[n++] = *q++;
	}
	if (q >= end)
		return -1;
	val[n] = '\0';
	*p = q + 1;
	return 0;
}

int park_header_parse(const char *payload, size_t len, struct park_header *h,
		      char *err, size_t errlen)
{
	const char *p = payload, *end = payload + len;
	char val[80], *dot, *tail;
	long long s;
	long ns;

	memset(h, 0, sizeof(*h));
	if (take_line(&p, end, "seed", val, sizeof(val)) < 0 || strlen(val) != 2 * PARK_SEED_LEN) {
		snprintf(err, errlen, "plan header: no seed of %d hex digits", 2 * PARK_SEED_LEN);
		return -1;
	}
	for (int i = 0; i < PARK_SEED_LEN; i++) {
		int hi = hex_nibble(val[2 * i]), lo = hex_nibble(val[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			snprintf(err, errlen, "plan header: seed is not lowercase hex");
			return -1;
		}
		h->seed[i] = (uint8_t)(hi << 4 | lo);
	}
	if (take_line(&p, end, "realtime", val, sizeof(val)) < 0 || !(dot = strchr(val, '.')) ||
	    dot == val || strlen(dot + 1) != 9 || strspn(val, "0123456789") != (size_t)(dot - val) ||
	    strspn(dot + 1, "0123456789") != 9 || dot - val > 12) {
		snprintf(err, errlen, "plan header: realtime is not <seconds>.<9 digits>");
		return -1;
	}
	*dot = '\0';
	s = strtoll(val, &tail, 10);
	ns = strtol(dot + 1, &tail, 10);
	/* then what a warm run sets after the restore, each at most once */
	while (p < end && *p != '\n') {
		const char **v;
		size_t *vlen;
		const char *key, *nl;

		if (starts_with_n(p, end, WIRE_PLAN_SCHED_FEAT "="))
			key = WIRE_PLAN_SCHED_FEAT, v = &h->sched_feat, vlen = &h->sched_feat_len;
		else if (starts_with_n(p, end, WIRE_PLAN_SCHED_KNOB "="))
			key = WIRE_PLAN_SCHED_KNOB, v = &h->sched_knob, vlen = &h->sched_knob_len;
		else {
			snprintf(err, errlen, "plan header: a line that is not sched_feat= or sched_knob=");
			return -1;
		}
		p += strlen(key) + 1;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (*v || !nl || nl == p) {
			snprintf(err, errlen, "plan header: %s= twice, empty or unended", key);
			return -1;
		}
		*v = p;
		*vlen = (size_t)(nl - p);
		p = nl + 1;
	}
	if (p >= end) {
		snprintf(err, errlen, "plan header: no blank line before the plan");
		return -1;
	}
	p++;
	h->realtime_s = s;
	h->realtime_ns = ns;
	h->plan = p;
	h->plan_len = (size_t)(end - p);
	return 0;
}

/* The restored guest would replay the saved RNG state and wall clock of
 * every earlier restore: take the host's fresh ones before any case. */
static void apply_header(const struct park_header *h)
{
	struct rand_pool_info *rp = malloc(sizeof(*rp) + PARK_SEED_LEN);
	struct timespec ts = { .tv_sec = (time_t)h->realtime_s, .tv_nsec = h->realtime_ns };
	int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);

	/* crediting needs CAP_SYS_ADMIN (we are root); mixing in needs nothing */
	if (rp) {
		rp->entropy_count = PARK_SEED_LEN * 8;
		rp->buf_size = PARK_SEED_LEN;
		memcpy(rp->buf, h->seed, PARK_SEED_LEN);
	}
	if (fd >= 0 && (!rp || ioctl(fd, RNDADDENTROPY, rp) < 0) &&
	    write(fd, h->seed, PARK_SEED_LEN) != PARK_SEED_LEN)
		runner_error("cannot reseed the RNG: %s", strerror(errno));
	/*
	 * The pool holds the seed now, but the CRNG takes from the pool only
	 * at its next scheduled reseed (60 s after the last one; early in a
	 * guest's life half its uptime), which may come inside the cases or
	 * after them: the same CRNG for every seed, or not, depending on
	 * when the guest was saved.  Reseed now, at one point of every
	 * restore (RNDRESEEDCRNG, Linux 4.17 on; older kernels refuse it).
	 */
	if (fd >= 0 && ioctl(fd, RNDRESEEDCRNG) < 0 && errno != EINVAL && errno != ENOTTY)
		runner_error("cannot reseed the CRNG: %s", strerror(errno));
	free(rp);
	if (fd >= 0)
		close(fd);
	/* 0: the clock the guest has (a restore on the virtual clock, where
	 * the host's time would be an input that differs from run to run) */
	if ((h->realtime_s || h->realtime_ns) && clock_settime(CLOCK_REALTIME, &ts) < 0)
		runner_error("cannot set the clock: %s", strerror(errno));
}

struct wait_ctx {
	char *payload;
	size_t len;
};

static int on_plan(const struct wire_record *rec, void *ctx)
{
	struct wait_ctx *w = ctx;

	if (rec->type != WIRE_PLAN || w->payload)
		return 0;
	w->payload = malloc(rec->len + 1);
	if (!w->payload)
		return 1;
	memcpy(w->payload, rec->payload, rec->len);
	w->payload[rec->len] = '\0';
	w->len = rec->len;
	return 1;
}

/*
 * The plan in fw_cfg, once the directory holds it: a guest restored with
 * -fw_cfg name=WIRE_FWCFG_PLAN finds it at its first look after the
 * restore, at the same virtual time every time.  The directory's size is
 * read at every look, the names only when it changed (the guest was
 * saved without the file).  1 when a frame was fed to d.
 */
static int fwcfg_plan(struct wire_decoder *d, struct wait_ctx *w, uint32_t *count)
{
	uint32_t n = fwcfg_count(), size;
	uint16_t key;
	char *buf;

	if (n == *count)
		return 0;
	*count = n;
	if (fwcfg_find(WIRE_FWCFG_PLAN, &key, &size) < 0 || !size || size > WIRE_HDR_LEN + WIRE_MAX_PAYLOAD)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	fwcfg_read(key, buf, size);
	wire_decoder_feed(d, buf, size, on_plan, w);
	free(buf);
	return w->payload != NULL;
}

/* Blocks until one intact WIRE_PLAN frame arrived, from fw_cfg (with
 * fwcfg, whose directory held count files when the guest parked) or the
 * record channel; noise is skipped. */
static char *read_plan_frame(struct out *o, int fwcfg, uint32_t count, size_t *len)
{
	struct wire_decoder d;
	struct wait_ctx w = { 0 };
	char buf[4096];

	wire_decoder_init(&d);
	while (!w.payload) {
		struct pollfd pfd = { .fd = o->fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (fwcfg && fwcfg_plan(&d, &w, &count))
			break;
		r = poll(&pfd, 1, fwcfg ? WIRE_FWCFG_POLL_MS : -1);
		if (r < 0 && errno != EINTR) {
			runner_error("record channel: poll: %s", strerror(errno));
			break;
		}
		if (r <= 0)
			continue;
		n = read(o->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			runner_error("record channel closed while parked");
			break;
		}
		wire_decoder_feed(&d, buf, (size_t)n, on_plan, &w);
	}
	wire_decoder_release(&d);
	*len = w.len;
	return w.payload;
}

/*
 * lab.park_delay_ms=N (tests only, tests/integration/warm-start.sh): the
 * parked runner waits N ms (at most 5000) before it looks for its plan,
 * so the host saves the guest in that wait, as a slow guest on a loaded
 * host would have it.
 */
static void park_delay(void)
{
	char buf[BOOTOPT_CMDLINE_MAX];
	const char *val;
	size_t len;
	unsigned long ms;

	if (bootopt_value("lab.park_delay_ms=", buf, sizeof(buf), &val, &len) != 1)
		return;
	ms = strtoul(val, NULL, 10);
	if (ms > 5000)
		ms = 5000;
	usleep((useconds_t)ms * 1000);
}

int run_parked(struct out *o)
{
	struct park_header h;
	char err[256], *payload;
	size_t len;
	uint32_t count;
	int ret, refused, fwcfg;

	cpu_note_boot();
	refused = sched_feat_apply(o) < 0;
	refused |= sched_knob_apply(o) < 0;
	if (refused) {
		/* never measure without the variant asked for: no park, no save */
		if (probe_snapshot(o) == 0)
			out_end(o);
		return -1;
	}
	if (probe_snapshot(o) < 0)
		return -1;
	/* saved with the guest's records: a restore of a guest that cannot
	 * read fw_cfg gets its plan on the record channel instead */
	fwcfg = fwcfg_open() == 0;
	if (!fwcfg && out_record(o, WIRE_LOG, WIRE_LOG_NO_FWCFG, strlen(WIRE_LOG_NO_FWCFG)) < 0)
		return -1;
	/*
	 * The directory as it is before the host hears of the park: the host
	 * saves the guest when the PARKED record arrives, and a count read
	 * after that may be read in a restore, where the plan is already in
	 * the directory, so no change would ever show it (every restore of
	 * such a snapshot waited for the plan nudge, docs/warm-start.md).
	 */
	count = fwcfg ? fwcfg_count() : 0;
	if (out_record(o, WIRE_LOG, WIRE_LOG_PARKED, strlen(WIRE_LOG_PARKED)) < 0)
		return -1;
	if (o->is_tty)
		while (tcdrain(o->fd) < 0 && errno == EINTR)
			;
	park_delay();
	payload = read_plan_frame(o, fwcfg, count, &len);
	if (!payload)
		return -1;
	if (park_header_parse(payload, len, &h, err, sizeof(err)) < 0) {
		runner_error("%s", err);
		free(payload);
		return -1;
	}
	apply_header(&h);
	/* a warm run's variant: the saved guest is the one without */
	refused = h.sched_feat &&
		  sched_feat_apply_list(o, h.sched_feat, h.sched_feat_len, "the plan's header") < 0;
	refused |= h.sched_knob &&
		   sched_knob_apply_list(o, h.sched_knob, h.sched_knob_len, "the plan's header") < 0;
	/*
	 * What is in effect now, checked by the host as after a boot; sent
	 * with a variant or without, so that both sides of an ab do the same
	 * between the restore and the plan but for the writes themselves.
	 * Never measure without the variant asked for.
	 */
	if (probe_sched_state(o) < 0 || refused) {
		if (refused)
			out_end(o);
		free(payload);
		return -1;
	}
	ret = run_plan_text(o, h.plan, h.plan_len);
	free(payload);
	return ret;
}
