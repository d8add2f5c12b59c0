/* guestview.h - turns the runner's sysfs snapshot (untrusted text from the
 * guest) into the guest view JSON that is compared with the expected one. */
#ifndef LAB_GUESTVIEW_H
#define LAB_GUESTVIEW_H

#include <stddef.h>

#include "common/cpulist.h"
#include "lib/util.h"

struct json_object;

#define GUEST_VIEW_MAX_CPUS 16384u
#define GUEST_VIEW_MAX_NODES 1024u
#define GUEST_VIEW_MAX_LINE 8192u

/*
 * Parses the concatenated payloads of WIRE_SYSFS records ("path=value"
 * lines) into the guest view (schema in docs/topologies.md, "The guest view"):
 *   { "cpus": N, "nodes": [{"node","cpus","mem_mib"}...], "distances": [[..]..],
 *     "cpu": [{"cpu","package","die","node","siblings","llc","domains"}...],
 *     "kernel": "<osrelease>" }
 * CPU lists are re-normalised to Linux's canonical form; a value the
 * snapshot lacks is JSON null, so a comparison reports it.  Unknown paths
 * are ignored; a malformed line or value of a known path is an error:
 * NULL with one line in err.  The caller owns (json_object_put) the result.
 */
struct json_object *guest_view_from_sysfs(const char *text, size_t len, struct strbuf *err);

/* With GUEST_VIEW_CLUSTERS each CPU also has "cluster" (cluster_cpus_list,
 * null when absent): the level QEMU's arm64 virt machine shows. */
#define GUEST_VIEW_CLUSTERS 1u
struct json_object *guest_view_from_sysfs_flags(const char *text, size_t len, unsigned flags,
						struct strbuf *err);

/*
 * Appends the canonical form of a cpulist bitmap (common/cpulist.h, whose
 * cpulist_parse() reads them) to out: ranges for runs of two or more.
 */
void cpulist_format(const unsigned long *bits, unsigned nbits, struct strbuf *out);

#endif
