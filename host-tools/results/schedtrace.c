/* schedtrace.c - WIRE_TRACE records into raw files under trace/, and the
 * raw ring-buffer pages into sched events through libtraceevent. */
#define _GNU_SOURCE
#include "results/schedtrace.h"
#include "results/prevstate.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

void schedtrace_formats_release(struct schedtrace_formats *f)
{
	for (unsigned i = 0; i < f->nr; i++) {
		free(f->name[i]);
		strbuf_release(&f->text[i]);
	}
	memset(f, 0, sizeof(*f));
}

void schedtrace_case_init(struct schedtrace_case *c)
{
	memset(c, 0, sizeof(*c));
	c->run = -1;
}

static void drop_run(struct schedtrace_case *c)
{
	for (unsigned i = 0; c->pages && i < c->nr_cpus; i++) {
		strbuf_release(&c->pages[i]);
		strbuf_release(&c->stats[i]);
	}
	c->run = -1;
	c->done = 0;
	c->nr_cpus = 0;
	c->bytes = 0;
	c->overflow = 0;
	free(c->tids);
	c->tids = NULL;
	c->nr_tids = 0;
	c->tasks = 0;
}

void schedtrace_case_release(struct schedtrace_case *c)
{
	drop_run(c);
	free(c->pages);
	free(c->stats);
	schedtrace_case_init(c);
}

static const char *field(const char *p, const char *end, size_t *len)
{
	const char *tab = memchr(p, '\t', (size_t)(end - p));

	if (!tab)
		return NULL;
	*len = (size_t)(tab - p);
	return tab + 1;
}

int schedtrace_split(const char *payload, size_t len, struct schedtrace_rec *r)
{
	const char *nl = memchr(payload, '\n', len), *p = payload;

	if (!nl)
		return -1;
	r->case_id = p;
	if (!(p = field(p, nl, &r->case_len)))
		return -1;
	r->run = p;
	if (!(p = field(p, nl, &r->run_len)))
		return -1;
	r->kind = p;
	if (!(p = field(p, nl, &r->kind_len)))
		return -1;
	r->name = p;
	r->name_len = (size_t)(nl - p);
	if (memchr(r->name, '\t', r->name_len))
		return -1;
	r->data = nl + 1;
	r->data_len = len - (size_t)(nl + 1 - payload);
	return 0;
}

static int is(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(s, word, len);
}

/* A format name is an event or header name: [a-z0-9_], so it is a file name. */
static int name_ok(const char *s, size_t len)
{
	if (!len || len > 64)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

void schedtrace_add_format(struct schedtrace_formats *f, const struct schedtrace_rec *r)
{
	char num[16];

	if (!name_ok(r->name, r->name_len) || r->data_len > SCHEDTRACE_MAX_FORMAT_LEN)
		return;
	if (is(r->name, r->name_len, "page_size")) {
		unsigned v;

		snprintf(num, sizeof(num), "%.*s", (int)(r->data_len < 15 ? r->data_len : 15), r->data);
		/* pages between 4 KiB and 64 KiB (arm64, ppc64) */
		if (!parse_uint(num, 4096, 65536, &v) && !(v & (v - 1)))
			f->page_size = v;
	}
	for (unsigned i = 0; i < f->nr; i++)
		if (is(r->name, r->name_len, f->name[i]))
			return; /* once per boot; a second copy changes nothing */
	if (f->nr == SCHEDTRACE_MAX_FORMATS)
		return;
	f->name[f->nr] = xasprintf("%.*s", (int)r->name_len, r->name);
	f->text[f->nr] = (struct strbuf)STRBUF_INIT;
	strbuf_add(&f->text[f->nr], r->data, r->data_len);
	f->nr++;
}

/* "<prefix>N" with N at most max ("cpu3", "run0"), or -1. */
static int numbered(const char *s, size_t len, const char *prefix, unsigned max)
{
	size_t pl = strlen(prefix);
	char num[12];
	unsigned v;

	if (len <= pl || len - pl >= sizeof(num) || memcmp(s, prefix, pl))
		return -1;
	memcpy(num, s + pl, len - pl);
	num[len - pl] = '\0';
	return parse_uint(num, 0, max, &v) ? -1 : (int)v;
}

/* The next decimal number of [*p, end) after blanks, moved past; -1 when none or too big. */
static long long next_num(const char **p, const char *end)
{
	long long v = 0;
	int digits = 0;

	while (*p < end && (**p == ' ' || **p == '\n'))
		(*p)++;
	for (; *p < end && **p >= '0' && **p <= '9' && digits < 10; (*p)++, digits++)
		v = v * 10 + (**p - '0');
	if (!digits || (*p < end && **p != ' ' && **p != '\n'))
		return -1;
	return v;
}

int schedtrace_parse_tasks(const char *text, size_t len, int **tids, size_t *nr, const char **why)
{
	const char *p = text, *end = text + len;
	long long ended = next_num(&p, end), v;
	size_t n = 0;
	int *t;

	*tids = NULL;
	*nr = 0;
	if (ended < 0) {
		*why = "the run's task list is unreadable";
		return -1;
	}
	if (ended > (long long)SCHEDTRACE_MAX_TIDS) {
		*why = "more tasks than the runner lists";
		return -1;
	}
	t = xmalloc((ended ? (size_t)ended : 1) * sizeof(*t));
	while (p < end && n <= (size_t)ended) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		if (p == end)
			break;
		if ((v = next_num(&p, end)) <= 0 || v > INT32_MAX || n == (size_t)ended) {
			free(t);
			*why = "the run's task list is unreadable";
			return -1;
		}
		t[n++] = (int)v;
	}
	if (n != (size_t)ended) {
		free(t);
		/* the runner lists so many, and counts the rest */
		*why = "more tasks than the runner lists";
		return -1;
	}
	*tids = t;
	*nr = n;
	return 0;
}

void schedtrace_add(struct schedtrace_case *c, const struct schedtrace_rec *r)
{
	int run, cpu;

	if (is(r->kind, r->kind_len, "absent")) {
		snprintf(c->absent, sizeof(c->absent), "%.*s",
			 (int)(r->data_len < 255 ? r->data_len : 255), r->data);
		return;
	}
	if ((run = numbered(r->run, r->run_len, "run", 1000000)) < 0)
		return;
	if (run != c->run) {
		drop_run(c); /* a run whose result never came */
		c->run = run;
	}
	if (is(r->kind, r->kind_len, "done")) {
		c->done = 1;
		return;
	}
	if (is(r->kind, r->kind_len, "tasks")) {
		free(c->tids);
		c->tids = NULL;
		c->nr_tids = 0;
		c->tasks_why = "the run's task list is too long";
		c->tasks = r->data_len <= SCHEDTRACE_MAX_TIDS * 12 &&
			   !schedtrace_parse_tasks(r->data, r->data_len, &c->tids, &c->nr_tids,
						   &c->tasks_why) ? 1 : -1;
		return;
	}
	if ((cpu = numbered(r->name, r->name_len, "cpu", SCHEDTRACE_MAX_CPUS - 1)) < 0)
		return;
	if (!c->pages) {
		c->pages = xcalloc(SCHEDTRACE_MAX_CPUS, sizeof(*c->pages));
		c->stats = xcalloc(SCHEDTRACE_MAX_CPUS, sizeof(*c->stats));
	}
	if ((unsigned)cpu >= c->nr_cpus) {
		for (unsigned i = c->nr_cpus; i <= (unsigned)cpu; i++)
			c->pages[i] = c->stats[i] = (struct strbuf)STRBUF_INIT;
		c->nr_cpus = (unsigned)cpu + 1;
	}
	if (c->bytes + r->data_len > SCHEDTRACE_MAX_RUN_BYTES) {
		c->overflow = 1;
		return;
	}
	c->bytes += r->data_len;
	if (is(r->kind, r->kind_len, "cpu"))
		strbuf_add(&c->pages[cpu], r->data, r->data_len);
	else if (is(r->kind, r->kind_len, "stats") && !c->stats[cpu].len)
		strbuf_add(&c->stats[cpu], r->data, r->data_len);
}

uint64_t schedtrace_stats_lost(const char *text, size_t len)
{
	static const char *const keys[] = { "overrun: ", "dropped events: " };
	uint64_t lost = 0;

	for (size_t k = 0; k < 2; k++) {
		size_t kl = strlen(keys[k]);

		for (size_t i = 0; i + kl < len; i++) {
			uint64_t v = 0;
			size_t j;

			if ((i && text[i - 1] != '\n') || memcmp(text + i, keys[k], kl))
				continue;
			for (j = i + kl; j < len && j < i + kl + 19 && text[j] >= '0' && text[j] <= '9'; j++)
				v = v * 10 + (uint64_t)(text[j] - '0');
			lost += v;
			break;
		}
	}
	return lost;
}

/* ---- decoding ---- */

enum { F_PREV_PID, F_NEXT_PID, F_PREV_STATE, F_PID, F_TARGET, F_ORIG, F_DEST, F_MAX };

/* No lack: an event the runner does not record (sched_wakeup of old results). */
#define LACK_NONE (-1)

struct ev_kind {
	const char *name;
	int type;
	const char *fields[3];
	int slots[3];
	int lack[3];     /* enum st_lack of each field; the event's is lack[0]'s */
};

static const struct ev_kind kinds[] = {
	{ "sched_switch", ST_SWITCH, { "prev_pid", "next_pid", "prev_state" },
	  { F_PREV_PID, F_NEXT_PID, F_PREV_STATE },
	  { ST_LACK_SWITCH, ST_LACK_SWITCH, ST_LACK_STATE } },
	{ "sched_waking", ST_WAKING, { "pid", "target_cpu" }, { F_PID, F_TARGET },
	  { ST_LACK_WAKING, ST_LACK_WAKING } },
	{ "sched_wakeup", ST_WAKEUP, { "pid", "target_cpu" }, { F_PID, F_TARGET },
	  { LACK_NONE, LACK_NONE } },
	{ "sched_wakeup_new", ST_WAKEUP_NEW, { "pid", "target_cpu" }, { F_PID, F_TARGET },
	  { ST_LACK_WAKEUP_NEW, ST_LACK_WAKEUP_NEW } },
	{ "sched_migrate_task", ST_MIGRATE, { "pid", "orig_cpu", "dest_cpu" },
	  { F_PID, F_ORIG, F_DEST }, { ST_LACK_MIGRATE, ST_LACK_MIGRATE, ST_LACK_MIGRATE } },
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct schedtrace_parser {
	struct tep_handle *tep;
	struct kbuffer *kb;  /* set up from the header page by tep_kbuffer() */
	unsigned page_size;
	int id[NR_KINDS];
	struct tep_format_field *fld[NR_KINDS][3];
	unsigned char *page; /* a copy of one page, with room behind it */
	struct prevstate ps; /* sched_switch's prev_state encoding ... */
	int ps_known;        /* ... when its print fmt said */
	unsigned lacks;      /* 1 << enum st_lack */
	char why[ST_LACK_MAX][200]; /* the first reason of each lack */
};

/* Notes what the trace lacks, and why (the first reason stays). */
static void lack(struct schedtrace_parser *p, int l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lack(struct schedtrace_parser *p, int l, const char *fmt, ...)
{
	va_list ap;

	if (l < 0 || l >= ST_LACK_MAX || (p->lacks & 1u << l))
		return;
	p->lacks |= 1u << l;
	va_start(ap, fmt);
	vsnprintf(p->why[l], sizeof(p->why[l]), fmt, ap);
	va_end(ap);
}

unsigned schedtrace_parser_lacks(const struct schedtrace_parser *p)
{
	return p->lacks;
}

const char *schedtrace_parser_lack_why(const struct schedtrace_parser *p, unsigned l)
{
	return l < ST_LACK_MAX && (p->lacks & 1u << l) ? p->why[l] : NULL;
}

static const struct strbuf *format_of(const struct schedtrace_formats *f, const char *name)
{
	for (unsigned i = 0; i < f->nr; i++)
		if (!strcmp(f->name[i], name))
			return &f->text[i];
	return NULL;
}

/* A run of 1 to max bytes of set at *p, moved past; 0 when none. */
static size_t span(const char **p, const char *end, const char *set, size_t max)
{
	size_t n = 0;

	while (*p + n < end && n < max && strchr(set, (*p)[n]) && (*p)[n])
		n++;
	*p += n;
	return n;
}

static int lit(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return 0;
	*p += n;
	return 1;
}

#define DIGITS "0123456789"
#define IDENT "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* "\tfield:<decl>;\toffset:N;\tsize:N;\tsigned:0|1;" as the kernel prints it */
static int field_line(const char *p, const char *end)
{
	return lit(&p, end, "\tfield:") && span(&p, end, IDENT " *[]", 127) && lit(&p, end, ";\toffset:") &&
	       span(&p, end, DIGITS, 5) && lit(&p, end, ";\tsize:") && span(&p, end, DIGITS, 5) &&
	       lit(&p, end, ";\tsigned:") && span(&p, end, "01", 1) && lit(&p, end, ";") && p == end;
}

/* header_page: field lines only, "field: " with a space (ring_buffer.c). */
static int header_page_ok(const struct strbuf *in)
{
	const char *p = in->buf, *end = in->buf + in->len;
	int fields = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *eol = nl ? nl : end;

		if (p != eol) {
			if (!lit(&q, eol, "\tfield: ") || !span(&q, eol, IDENT " *[]", 127) ||
			    !lit(&q, eol, ";\toffset:") || !span(&q, eol, DIGITS, 5) ||
			    !lit(&q, eol, ";\tsize:") || !span(&q, eol, DIGITS, 5) ||
			    !lit(&q, eol, ";\tsigned:") || !span(&q, eol, "01", 1) ||
			    !lit(&q, eol, ";") || q != eol)
				return 0;
			fields++;
		}
		p = eol + 1;
	}
	return fields > 0;
}

/*
 * A guest's format file, checked line by line against the shape the
 * kernel prints (name, ID, format:, field lines) and copied without its
 * "print fmt", which the metrics do not need.  libtraceevent's parser is
 * not written for hostile text (the fuzzer crashed it inside its field and
 * print fmt parsers); it only ever sees lines of this grammar.  -1 when a
 * line does not fit.
 */
static int format_checked(const struct strbuf *in, const char *name, struct strbuf *out)
{
	const char *p = in->buf, *end = in->buf + in->len;
	int fields = 0, header = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *eol = nl ? nl : end;

		if (eol - p >= 10 && !memcmp(p, "print fmt:", 10))
			break;
		if (p == eol || (lit(&q, eol, "\tfield:") && field_line(p, eol))) {
			fields += p != eol;
		} else if (q = p, lit(&q, eol, "name: ")) {
			if ((size_t)(eol - q) != strlen(name) || memcmp(q, name, strlen(name)))
				return -1;
			header |= 1;
		} else if (q = p, lit(&q, eol, "ID: ")) {
			if (!span(&q, eol, DIGITS, 5) || q != eol)
				return -1;
			header |= 2;
		} else if (q = p, !(lit(&q, eol, "format:") && q == eol)) {
			return -1;
		}
		strbuf_add(out, p, (size_t)(eol - p));
		strbuf_addch(out, '\n');
		p = eol + 1;
	}
	if (header != 3 || !fields)
		return -1;
	strbuf_addstr(out, "print fmt: \"\"\n");
	return 0;
}

void schedtrace_parser_free(struct schedtrace_parser *p)
{
	if (!p)
		return;
	if (p->kb)
		kbuffer_free(p->kb);
	if (p->tep)
		tep_free(p->tep);
	free(p->page);
	free(p);
}

struct schedtrace_parser *schedtrace_parser_new(const struct schedtrace_formats *f,
						 struct strbuf *err)
{
	struct schedtrace_parser *p = xcalloc(1, sizeof(*p));
	const struct strbuf *hp = format_of(f, "header_page");
	int found = 0;

	p->page_size = f->page_size ? f->page_size : 4096;
	p->page = xcalloc(2, p->page_size);
	p->tep = tep_alloc();
	if (!p->tep || !hp) {
		strbuf_addf(err, "%s", hp ? "out of memory" : "no header_page format from the runner");
		goto fail;
	}
	/* the guest's byte order and long size; every lab target is LE 64-bit */
	tep_set_file_bigendian(p->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(p->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(p->tep, 8);
	tep_set_page_size(p->tep, (int)p->page_size);
	if (!header_page_ok(hp) || tep_parse_header_page(p->tep, hp->buf, hp->len, 8)) {
		strbuf_addf(err, "unreadable header_page format");
		goto fail;
	}
	for (size_t k = 0; k < NR_KINDS; k++) {
		const struct strbuf *t = format_of(f, kinds[k].name);
		struct strbuf fields = STRBUF_INIT;
		struct tep_event *e;
		int bad;

		p->id[k] = -1;
		if (!t) {
			lack(p, kinds[k].lack[0], "%s: no format from the guest", kinds[k].name);
			continue;
		}
		bad = format_checked(t, kinds[k].name, &fields) < 0 ||
		      tep_parse_event(p->tep, fields.buf, fields.len, "sched") != 0;
		strbuf_release(&fields);
		e = bad ? NULL : tep_find_event_by_name(p->tep, "sched", kinds[k].name);
		if (!e) {
			lack(p, kinds[k].lack[0], "%s: its format is unreadable", kinds[k].name);
			continue;
		}
		for (int i = 0; i < 3 && kinds[k].fields[i]; i++) {
			p->fld[k][i] = tep_find_field(e, kinds[k].fields[i]);
			/* a field the metrics read must be a plain integer */
			if (p->fld[k][i] && (p->fld[k][i]->offset < 0 || p->fld[k][i]->size <= 0 ||
					     p->fld[k][i]->size > 8 ||
					     p->fld[k][i]->offset > (int)p->page_size ||
					     (p->fld[k][i]->flags & (TEP_FIELD_IS_ARRAY |
								     TEP_FIELD_IS_STRING |
								     TEP_FIELD_IS_DYNAMIC))))
				p->fld[k][i] = NULL;
			if (!p->fld[k][i])
				lack(p, kinds[k].lack[i], "%s has no integer field %s", kinds[k].name,
				     kinds[k].fields[i]);
		}
		/* the state letters and the preempted bit, as this kernel prints them */
		if (kinds[k].type == ST_SWITCH && p->fld[k][2]) {
			char why[160];

			p->ps_known = !prevstate_from_format(t->buf, t->len, &p->ps, why, sizeof(why));
			if (!p->ps_known)
				lack(p, ST_LACK_STATE, "sched_switch prev_state's encoding unknown: %s", why);
		}
		p->id[k] = e->id;
		found++;
	}
	if (!found) {
		strbuf_addf(err, "no sched event format could be read");
		goto fail;
	}
	if (!(p->kb = tep_kbuffer(p->tep))) {
		strbuf_addf(err, "out of memory");
		goto fail;
	}
	return p;
fail:
	schedtrace_parser_free(p);
	return NULL;
}

static int read_field(struct tep_format_field *fl, const void *data, int size, int64_t *out)
{
	unsigned long long v;

	if (!fl || fl->offset + fl->size > size || tep_read_number_field(fl, data, &v))
		return -1;
	/* a signed field narrower than 64 bits comes back zero-extended */
	if ((fl->flags & TEP_FIELD_IS_SIGNED) && fl->size < 8 && (v >> (8 * fl->size - 1) & 1))
		v |= ~0ull << (8 * fl->size);
	*out = (int64_t)v;
	return 0;
}

/* A pid or CPU number: -1 when it does not fit an int. */
static int small(int64_t v)
{
	return v >= -1 && v <= INT32_MAX ? (int)v : -1;
}

/* Page header: u64 time stamp, then a long of commit size with the missed
 * events flags in its top bits (kernel/trace/ring_buffer.c). */
#define PAGE_HDR 16u
#define COMMIT_MASK ((1ull << 30) - 1)

int schedtrace_parse_cpu(struct schedtrace_parser *p, int cpu, const char *pages, size_t len,
			 struct st_event **ev, size_t *nr, size_t *alloc, uint64_t *lost,
			 struct strbuf *err)
{
	return schedtrace_parse_cpu_hook(p, cpu, pages, len, ev, nr, alloc, lost, err, NULL, NULL);
}

int schedtrace_parse_cpu_hook(struct schedtrace_parser *p, int cpu, const char *pages, size_t len,
			      struct st_event **ev, size_t *nr, size_t *alloc, uint64_t *lost,
			      struct strbuf *err, schedtrace_hook_fn *hook, void *arg)
{
	struct kbuffer *kb = p->kb;
	unsigned ps = p->page_size;

	if (len % ps) {
		strbuf_addf(err, "cpu%d: %zu bytes is not a whole number of %u-byte pages", cpu, len, ps);
		return -1;
	}
	for (size_t off = 0; off < len; off += ps) {
		uint64_t commit = 0;
		unsigned long long ts;
		void *data;

		memcpy(p->page, pages + off, ps);
		memset(p->page + ps, 0, ps);
		for (int i = 7; i >= 0; i--)
			commit = commit << 8 | p->page[8 + i];
		if ((commit & COMMIT_MASK) > ps - PAGE_HDR) {
			strbuf_addf(err, "cpu%d: page %zu claims %llu bytes of events", cpu, off / ps,
				    (unsigned long long)(commit & COMMIT_MASK));
			return -1;
		}
		if (kbuffer_load_subbuffer(kb, p->page) < 0) {
			strbuf_addf(err, "cpu%d: page %zu unreadable", cpu, off / ps);
			return -1;
		}
		if (kbuffer_missed_events(kb) > 0)
			*lost += (uint64_t)kbuffer_missed_events(kb);
		/* an event takes 8 bytes at least: more is a page that loops */
		unsigned budget = ps / 8;

		for (data = kbuffer_read_event(kb, &ts); data && budget;
		     data = kbuffer_next_event(kb, &ts), budget--) {
			struct tep_record rec = { 0 };
			unsigned char *d = data;
			long room = (long)(p->page + ps - d);
			struct st_event e = { .ts = ts, .cpu = cpu, .type = ST_OTHER,
					      .pid = -1, .prev_pid = -1, .prev_state = -1,
					      .target_cpu = -1,
					      .orig_cpu = -1, .dest_cpu = -1 };
			int64_t vals[F_MAX];
			int type;

			if (d < p->page || room <= 0)
				break;
			rec.ts = ts;
			rec.cpu = cpu;
			rec.data = data;
			rec.size = kbuffer_event_size(kb);
			if (rec.size < 8 || rec.size > room)
				continue;
			type = tep_data_type(p->tep, &rec);
			for (size_t k = 0; k < NR_KINDS; k++) {
				if (p->id[k] != type)
					continue;
				for (int i = 0; i < F_MAX; i++)
					vals[i] = -1;
				for (int i = 0; i < 3 && kinds[k].fields[i]; i++)
					if (read_field(p->fld[k][i], data, rec.size, &vals[kinds[k].slots[i]]))
						vals[kinds[k].slots[i]] = -1;
				e.type = kinds[k].type;
				e.pid = small(kinds[k].type == ST_SWITCH ? vals[F_NEXT_PID] : vals[F_PID]);
				e.prev_pid = small(vals[F_PREV_PID]);
				/* the kernel's encoding into the metrics' (6.1's) bits */
				e.prev_state = p->ps_known && p->fld[k][2] && kinds[k].type == ST_SWITCH &&
					       vals[F_PREV_STATE] >= 0 ?
					       prevstate_canonical(&p->ps, vals[F_PREV_STATE]) : -1;
				e.target_cpu = small(vals[F_TARGET]);
				e.orig_cpu = small(vals[F_ORIG]);
				e.dest_cpu = small(vals[F_DEST]);
				break;
			}
			if (e.type == ST_OTHER)
				continue;
			if (*nr == *alloc) {
				*alloc = *alloc ? *alloc * 2 : 4096;
				*ev = xrealloc(*ev, *alloc * sizeof(**ev));
			}
			(*ev)[(*nr)++] = e;
			if (hook)
				hook(arg, p->tep, &rec, &e);
		}
	}
	return 0;
}

/* ---- files and metrics of a run ---- */

/* A case id ("hackbench/mode=process") as one directory name. */
static char *case_dir_name(const char *id)
{
	char *s = xstrdup(id[0] ? id : "_");

	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '=' || *p == ',' ||
		      (*p == '.' && p != s)))
			*p = '_';
	return s;
}

char *schedtrace_case_dir(const char *case_id)
{
	return case_dir_name(case_id);
}

static void write_formats(const struct schedtrace_formats *f, const char *dir)
{
	char *fdir = xasprintf("%s/trace/format", dir);

	if (!mkdir_p(fdir, 0755))
		for (unsigned i = 0; i < f->nr; i++) {
			char *path = xasprintf("%s/%s", fdir, f->name[i]);

			write_file_atomic(path, f->text[i].buf, f->text[i].len);
			free(path);
		}
	free(fdir);
}

static void note(struct json_object *st, const char *why)
{
	json_object_object_add(st, "absent", json_object_new_string(why));
}

void schedtrace_finish_run(struct schedtrace_case *c, const struct schedtrace_formats *f,
			   const struct st_topo *topo, const char *topo_err, const char *dir,
			   const char *case_id, unsigned run, uint64_t wc_grace_ns,
			   struct json_object *result)
{
	struct json_object *st = json_object_new_object(), *metrics;
	struct strbuf err = STRBUF_INIT;
	struct schedtrace_parser *p = NULL;
	struct st_metrics m = { 0 };
	struct st_event *ev = NULL;
	size_t nr = 0, alloc = 0;
	uint64_t stats_lost = 0, page_lost = 0;
	char *cdir = case_dir_name(case_id), *rdir;
	int decoded = 1;

	json_object_object_add(result, "schedtrace", st);
	if (c->absent[0] && c->run < 0) {
		note(st, c->absent);
		goto out;
	}
	if (c->run != (int)run || !c->done) {
		note(st, c->run != (int)run ? "no trace records for this run" :
			 "the run's trace records are incomplete");
		goto out;
	}
	rdir = dir ? xasprintf("%s/trace/%s/run%u", dir, cdir, run) : NULL;
	if (rdir && !mkdir_p(rdir, 0755)) {
		write_formats(f, dir);
		for (unsigned i = 0; i < c->nr_cpus; i++) {
			char *path = xasprintf("%s/cpu%u.raw", rdir, i);

			write_file_atomic(path, c->pages[i].buf, c->pages[i].len);
			free(path);
			if (c->stats[i].len) {
				path = xasprintf("%s/stats%u.txt", rdir, i);
				write_file_atomic(path, c->stats[i].buf, c->stats[i].len);
				free(path);
			}
		}
	}
	free(rdir);
	for (unsigned i = 0; i < c->nr_cpus; i++)
		stats_lost += schedtrace_stats_lost(c->stats[i].buf, c->stats[i].len);
	if (!(p = schedtrace_parser_new(f, &err))) {
		note(st, err.buf);
		goto out;
	}
	for (unsigned i = 0; i < c->nr_cpus && decoded; i++)
		if (schedtrace_parse_cpu(p, (int)i, c->pages[i].buf, c->pages[i].len, &ev, &nr,
					 &alloc, &page_lost, &err) < 0)
			decoded = 0;
	json_object_object_add(st, "bytes", json_object_new_int64((int64_t)c->bytes));
	if (!decoded) {
		note(st, err.buf);
		goto out;
	}
	if (c->overflow) {
		note(st, "the run's trace is over the host's limit; no metrics");
		goto out;
	}
	if (!topo || !topo->nr_cpus) {
		note(st, topo_err && topo_err[0] ? topo_err : "no verified topology");
		goto out;
	}
	if (st_derive(ev, nr, topo, wc_grace_ns, &m) < 0 ||
	    (c->tasks > 0 && st_derive_own(ev, nr, c->tids, c->nr_tids, &m) < 0)) {
		note(st, "out of memory");
		goto out;
	}
	m.lacks = schedtrace_parser_lacks(p);
	if (m.lacks) {
		struct json_object *deg = json_object_new_array();

		/* what the guest's formats lack, and the rows that costs */
		for (unsigned l = 0; l < ST_LACK_MAX; l++)
			if (schedtrace_parser_lack_why(p, l)) {
				char *line = xasprintf("%s: %s", schedtrace_parser_lack_why(p, l),
						       st_lack_rows((enum st_lack)l));

				json_object_array_add(deg, json_object_new_string(line));
				free(line);
			}
		json_object_object_add(st, "degraded", deg);
	}
	if (c->tasks > 0) {
		json_object_object_add(st, "own_tasks", json_object_new_int64((int64_t)c->nr_tids));
	} else {
		json_object_object_add(st, "own_absent", json_object_new_string(
					       c->tasks < 0 ? c->tasks_why :
					       "no task list from the runner (recorded before it sent one)"));
	}
	/* the stats count what overwrote or refused; missed-events flags on
	 * pages say the same losses again, so the larger one is the count */
	m.lost = stats_lost > page_lost ? stats_lost : page_lost;
	json_object_object_add(st, "events", json_object_new_int64((int64_t)m.events));
	/* the wake latency, wc_* and rq_imbalance_* rows mean other things
	 * with and without sched_wakeup: lab compare says when sides differ */
	json_object_object_add(st, "wakeups_from", json_object_new_string(
				       m.from_wakeup ? "sched_wakeup" : "sched_waking"));
	json_object_object_add(st, "lost_events", json_object_new_int64((int64_t)m.lost));
	json_object_object_add(st, "wc_grace_ms", json_object_new_double((double)wc_grace_ns / 1e6));
	if (!json_object_object_get_ex(result, "metrics", &metrics) ||
	    !json_object_is_type(metrics, json_type_object)) {
		metrics = json_object_new_object();
		json_object_object_add(result, "metrics", metrics);
	}
	st_metrics_to_json(&m, metrics);
out:
	schedtrace_parser_free(p);
	free(ev);
	free(cdir);
	strbuf_release(&err);
	drop_run(c);
}
