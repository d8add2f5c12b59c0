/* plot.h - SVG plots drawn by gnuplot run as a child with a deadline: the
 * script goes in on stdin (data inline as datablocks), the SVG comes back. */
#ifndef LAB_PLOT_H
#define LAB_PLOT_H

#include "lib/util.h"

/* What one gnuplot run may take before it is killed. */
#define PLOT_TIMEOUT_MS 20000
/* The most SVG one plot may return; a bigger one is refused. */
#define PLOT_MAX_SVG (8u << 20)

/*
 * Runs `prog` (NULL: $LAB_GNUPLOT, else "gnuplot") on script, which must
 * select the svg terminal and write to stdout.  On success appends the <svg>
 * element to svg, its ids prefixed with id_prefix so several plots can live
 * in one HTML document, and returns 0.  Otherwise appends one line to err
 * and returns -1, or -2 when gnuplot could not be started at all.
 */
int plot_svg(const char *prog, const char *script, const char *id_prefix, int timeout_ms,
	     struct strbuf *svg, struct strbuf *err);

/* Appends s as a single-quoted gnuplot string: nothing in s can end it
 * early, control characters become '?'. */
void plot_quote(struct strbuf *sb, const char *s);

#endif
