/* plot.c - SVG plots drawn by gnuplot run as a child with a deadline: the
 * script goes in on stdin (data inline as datablocks), the SVG comes back. */
#define _GNU_SOURCE
#include "report/plot.h"
#include "lib/child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void plot_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\'')
			strbuf_addstr(sb, "''");
		else if (ch < 0x20 || ch == 0x7f)
			strbuf_addch(sb, '?');
		else
			strbuf_addch(sb, ch);
	}
	strbuf_addch(sb, '\'');
}

/* The script as an unlinked temporary file: stdin for gnuplot without a
 * pipe that could fill up before the child reads it. */
static int script_fd(const char *script, struct strbuf *err)
{
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/lab-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	size_t len = strlen(script), done = 0;
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0) {
		strbuf_addf(err, "cannot create '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	unlink(path);
	free(path);
	while (done < len) {
		ssize_t n = write(fd, script + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			strbuf_addf(err, "cannot write the plot script: %s", strerror(errno));
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		strbuf_addf(err, "cannot rewind the plot script: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void first_line(struct strbuf *err, const char *s)
{
	while (*s == '\n' || *s == ' ')
		s++;
	strbuf_addf(err, "%.*s", (int)(strcspn(s, "\n") < 200 ? strcspn(s, "\n") : 200), s);
}

/* gnuplot's ids (gpPt0, gnuplot_canvas...) would collide between plots. */
static void add_prefixed(struct strbuf *svg, const char *s, size_t len, const char *prefix)
{
	static const char *const keys[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };

	for (size_t i = 0; i < len;) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if (!strncmp(s + i, keys[k], strlen(keys[k])))
				break;
		if (k < ARRAY_SIZE(keys)) {
			strbuf_addstr(svg, keys[k]);
			strbuf_addstr(svg, prefix);
			i += strlen(keys[k]);
		} else {
			strbuf_addch(svg, s[i++]);
		}
	}
}

int plot_svg(const char *prog, const char *script, const char *id_prefix, int timeout_ms,
	     struct strbuf *svg, struct strbuf *err)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT, why = STRBUF_INIT;
	const char *start, *end;
	int fd, r, ret = -1;

	if (!prog)
		prog = getenv("LAB_GNUPLOT");
	if (!prog || !*prog)
		prog = "gnuplot";
	fd = script_fd(script, err);
	if (fd < 0)
		return -1;
	strvec_push(&cp.args, prog);
	cp.in = fd;
	cp.new_pgrp = 1;
	cp.die_with_parent = 1;
	cp.errbuf = &why;
	r = child_capture(&cp, timeout_ms, &out, &errout);
	close(fd);
	child_process_clear(&cp);
	if (r == -1) {
		strbuf_addstr(err, why.len ? why.buf : "cannot run gnuplot");
		ret = -2;
		goto out;
	}
	if (r == CHILD_TIMED_OUT) {
		strbuf_addf(err, "'%s' did not finish within %d ms", prog, timeout_ms);
		goto out;
	}
	if (r) {
		strbuf_addf(err, "'%s' exited with %d: ", prog, r);
		first_line(err, errout.len ? errout.buf : "no message");
		goto out;
	}
	start = strstr(out.buf, "<svg");
	end = start ? strstr(start, "</svg>") : NULL;
	if (!end) {
		strbuf_addf(err, "'%s' wrote no SVG", prog);
		goto out;
	}
	end += strlen("</svg>");
	if ((size_t)(end - start) > PLOT_MAX_SVG) {
		strbuf_addf(err, "'%s' wrote more than %u bytes of SVG", prog, PLOT_MAX_SVG);
		goto out;
	}
	add_prefixed(svg, start, (size_t)(end - start), id_prefix);
	strbuf_addch(svg, '\n');
	ret = 0;
out:
	strbuf_release(&out);
	strbuf_release(&errout);
	strbuf_release(&why);
	return ret;
}
