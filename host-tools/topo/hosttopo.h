/* hosttopo.h - the topology of the machine the lab runs on, for bare-metal
 * mode: the runner's probe read back as a spec, the closest preset, a diff. */
#ifndef LAB_HOSTTOPO_H
#define LAB_HOSTTOPO_H

#include "topo/topo.h"
#include "lib/util.h"

struct json_object;

/*
 * Derives a topology from a guest view (guestview.h) of the host: sockets
 * from packages, threads from CPU 0's siblings, cores per socket, cores
 * per LLC, nodes per socket, memory-only nodes, node memory and the
 * distance matrix.  Fills *t (through topo_parse of the spec it builds)
 * and puts the short spec into short_spec ("1s2c", options only where
 * they differ from the grammar's defaults).  What the grammar cannot say
 * (CPUs with different sibling counts, uneven sockets, offline CPUs) is
 * appended to notes, one line each.  -1 with one line in err when the view
 * has no usable CPU information.
 */
int hosttopo_from_view(struct json_object *view, struct topo *t, struct strbuf *short_spec,
		       struct strbuf *notes, struct strbuf *err);

/*
 * Structural differences of two topologies (sockets, cores per socket,
 * threads, cores per LLC, nodes per socket, memory-only nodes, distances;
 * not memory sizes), one "what: A has X, B has Y" line each appended to
 * diff.  Returns their number.
 */
int hosttopo_diff(const struct topo *a, const char *a_name, const struct topo *b,
		  const char *b_name, struct strbuf *diff);

/* The preset closest to t (fewest structural differences, then nearest
 * CPU count); its index, or -1 when n is 0. */
int hosttopo_closest(const struct topo *t, const struct topo_preset *presets, int n);

#endif
