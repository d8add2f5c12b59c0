/* scxmsg.c - parses sched_ext's disable lines out of kernel text. */
#include "scxmsg.h"

#include <stdio.h>
#include <string.h>

#define PREFIX "sched_ext: "

/* Copies [p, p + n) into dst (size > 0), cut to fit, NUL-terminated. */
static void copy_cut(char *dst, size_t size, const char *p, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* The message of a line: after a kmsg record's ';' or a console stamp. */
static const char *message(const char *line, size_t len, size_t *mlen)
{
	const char *end = line + len, *p = line;
	const char *semi = memchr(line, ';', len);

	/* a kmsg record: digits and commas, then ';' */
	if (semi) {
		const char *q = line;

		while (q < semi && ((*q >= '0' && *q <= '9') || *q == ',' || *q == '-' ||
				    (*q >= 'a' && *q <= 'z')))
			q++;
		if (q == semi && semi > line && line[0] >= '0' && line[0] <= '9')
			p = semi + 1;
	}
	/* a console stamp "[   12.345678] " */
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close && close + 1 < end && close[1] == ' ')
			p = close + 2;
	}
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	*mlen = (size_t)(end - p);
	return p;
}

int scx_msg_feed(struct scx_msg *m, const char *line, size_t len)
{
	static const char kind[][16] = { "scheduler \"", "sub-scheduler \"" };
	const char *p, *end, *q;
	size_t n;

	p = message(line, len, &n);
	end = p + n;
	if (n < strlen(PREFIX) || memcmp(p, PREFIX, strlen(PREFIX)))
		return 0;
	p += strlen(PREFIX);
	if ((size_t)(end - p) > 4 && !memcmp(p, "BPF ", 4)) {
		const char *name = NULL, *close;

		for (size_t k = 0; k < sizeof(kind) / sizeof(kind[0]); k++) {
			size_t kl = strlen(kind[k]);

			if ((size_t)(end - p - 4) > kl && !memcmp(p + 4, kind[k], kl))
				name = p + 4 + kl;
		}
		if (!name)
			return 0;
		close = memchr(name, '"', (size_t)(end - name));
		if (!close || (size_t)(end - close) < strlen("\" disabled (") + 1 ||
		    memcmp(close, "\" disabled (", strlen("\" disabled (")))
			return 0;
		q = close + strlen("\" disabled (");
		if (end[-1] != ')')
			return 0;
		copy_cut(m->ops, sizeof(m->ops), name, (size_t)(close - name));
		copy_cut(m->reason, sizeof(m->reason), q, (size_t)(end - 1 - q));
		m->detail[0] = '\0';
		m->have_disabled = 1;
		return 1;
	}
	/* "NAME: detail" right after the disable line of NAME */
	if (m->have_disabled && !m->detail[0]) {
		size_t on = strlen(m->ops);

		if (on && (size_t)(end - p) > on + 2 && !memcmp(p, m->ops, on) && p[on] == ':' &&
		    p[on + 1] == ' ') {
			copy_cut(m->detail, sizeof(m->detail), p + on + 2, (size_t)(end - p - on - 2));
			return 1;
		}
	}
	return 0;
}

void scx_msg_format(const struct scx_msg *m, char *buf, size_t size)
{
	if (!size)
		return;
	if (!m->have_disabled) {
		snprintf(buf, size, "the kernel said nothing about it");
		return;
	}
	snprintf(buf, size, "BPF scheduler \"%s\" disabled (%s)%s%s", m->ops, m->reason,
		 m->detail[0] ? ": " : "", m->detail);
}

int scx_msg_orderly(const struct scx_msg *m)
{
	/* scx_exit_reason() of SCX_EXIT_UNREG, _UNREG_BPF, _UNREG_KERN,
	 * _SYSRQ and _PARENT; the errors say "runtime error",
	 * "scx_bpf_error" and "runnable task stall" */
	return m->have_disabled && (!strncmp(m->reason, "unregistered from ", 18) ||
				    !strcmp(m->reason, "disabled by sysrq-S") ||
				    !strcmp(m->reason, "parent exiting"));
}
