/* fidelity.c - the fidelity report of `lab bare --fidelity`: the same two
 * kernels in a guest and on the host, metric by metric, and the limits. */
#include "results/fidelity.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Below this a change is no change, whatever the noise says. */
#define FID_MIN_PCT 2.0

const char *fidelity_agree_name(enum fidelity_agree a)
{
	static const char *const names[] = {
		"same direction", "OPPOSITE", "only bare moved", "only guest moved",
		"neither moved", "no data",
	};

	return names[a];
}

static struct json_object *member(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* The value the metric's statistic names (amean, hmean, median). */
static int metric_value(struct json_object *m, double *v, double *cv)
{
	const char *stat = json_object_get_string(member(m, "statistic"));
	struct json_object *x;

	if (!stat || !strcmp(stat, "amean"))
		stat = "mean";
	x = member(m, stat);
	if (!x || (!json_object_is_type(x, json_type_double) &&
		   !json_object_is_type(x, json_type_int)))
		return -1;
	*v = json_object_get_double(x);
	*cv = json_object_get_double(member(m, "cv_pct"));
	return isfinite(*v) && *v != 0 ? 0 : -1;
}

struct fidelity_change fidelity_change(struct json_object *base_case, struct json_object *test_case,
				       const char *metric)
{
	struct fidelity_change c = { 0 };
	struct json_object *mb = member(member(base_case, "metrics"), metric);
	struct json_object *mt = member(member(test_case, "metrics"), metric);
	const char *better = json_object_get_string(member(mb, "better"));
	double vb, vt, cvb, cvt;

	if (!mb || !mt || metric_value(mb, &vb, &cvb) < 0 || metric_value(mt, &vt, &cvt) < 0)
		return c;
	c.ok = 1;
	c.pct = (vt - vb) / fabs(vb) * 100.0;
	if (better && !strcmp(better, "lower"))
		c.pct = -c.pct;
	c.noise_pct = cvb > cvt ? cvb : cvt;
	return c;
}

static int moved(const struct fidelity_change *c, double min_pct)
{
	return fabs(c->pct) >= min_pct && fabs(c->pct) > c->noise_pct;
}

enum fidelity_agree fidelity_classify(const struct fidelity_change *guest,
				      const struct fidelity_change *bare, double min_pct)
{
	int g, b;

	if (!guest->ok || !bare->ok)
		return FID_NO_DATA;
	g = moved(guest, min_pct);
	b = moved(bare, min_pct);
	if (g && b)
		return (guest->pct > 0) == (bare->pct > 0) ? FID_SAME : FID_OPPOSITE;
	if (b)
		return FID_GUEST_NOISE;
	if (g)
		return FID_BARE_NOISE;
	return FID_BOTH_NOISE;
}

static struct json_object *find_case(struct json_object *cases_json, const char *id)
{
	struct json_object *cases = member(cases_json, "cases");
	size_t n = cases ? json_object_array_length(cases) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cases, i);
		const char *cid = json_object_get_string(member(c, "case"));

		if (cid && !strcmp(cid, id))
			return c;
	}
	return NULL;
}

static void count(struct fidelity_counts *k, enum fidelity_agree a)
{
	switch (a) {
	case FID_SAME: k->same++; break;
	case FID_OPPOSITE: k->opposite++; break;
	case FID_GUEST_NOISE: case FID_BARE_NOISE: k->one_sided++; break;
	case FID_BOTH_NOISE: k->both_noise++; break;
	case FID_NO_DATA: k->no_data++; break;
	}
}

static void add_change(struct strbuf *out, const struct fidelity_change *c)
{
	if (c->ok)
		strbuf_addf(out, "  %+8.2f%% (cv %5.1f%%)", c->pct, c->noise_pct);
	else
		strbuf_addf(out, "  %22s", "-");
}

struct fidelity_counts fidelity_table(struct json_object *gb, struct json_object *gt,
				      struct json_object *bb, struct json_object *bt,
				      struct strbuf *out)
{
	struct fidelity_counts k = { 0 };
	struct json_object *cases = member(gb, "cases");
	size_t n = cases ? json_object_array_length(cases) : 0;

	strbuf_addf(out, "%-44s  %22s  %22s  %s\n", "case / metric (pct imp: + is better)",
		    "guest", "bare metal", "agreement");
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cases, i);
		const char *id = json_object_get_string(member(c, "case"));
		struct json_object *ct, *cbb, *cbt, *metrics = member(c, "metrics");

		if (!id || !metrics)
			continue;
		ct = find_case(gt, id);
		cbb = find_case(bb, id);
		cbt = find_case(bt, id);
		json_object_object_foreach(metrics, name, m) {
			struct fidelity_change g = fidelity_change(c, ct, name);
			struct fidelity_change b = fidelity_change(cbb, cbt, name);
			enum fidelity_agree a = fidelity_classify(&g, &b, FID_MIN_PCT);
			char label[128];

			(void)m;
			count(&k, a);
			snprintf(label, sizeof(label), "%s %s", id, name);
			strbuf_addf(out, "%-44.44s", label);
			add_change(out, &g);
			add_change(out, &b);
			strbuf_addf(out, "  %s\n", fidelity_agree_name(a));
		}
	}
	return k;
}

static int nr_nodes(struct json_object *run)
{
	struct json_object *nodes = member(member(run, "host_topology"), "nodes");

	if (nodes)
		return (int)json_object_array_length(nodes);
	/* a guest run's spec says it: count from the resolved topology line */
	{
		const char *t = json_object_get_string(member(run, "topology"));
		const char *p = t ? strstr(t, " node") : NULL;

		while (p && p > t && p[-1] >= '0' && p[-1] <= '9')
			p--;
		return p ? atoi(p) : 1;
	}
}

void fidelity_limits(struct json_object *guest_run, struct json_object *bare_run,
		     struct strbuf *out)
{
	const char *accel = json_object_get_string(member(guest_run, "accel"));
	const char *gs = json_object_get_string(member(guest_run, "spec_resolved"));
	const char *bs = json_object_get_string(member(bare_run, "spec_resolved"));

	if (!accel || strcmp(accel, "kvm"))
		strbuf_addstr(out, "  - TCG timing: every vCPU is a host thread emulating x86, so "
			      "absolute times, latencies and rates are not the host's; only "
			      "directions and ratios may carry over\n");
	if (nr_nodes(guest_run) > 1)
		strbuf_addstr(out, "  - NUMA latency and bandwidth are not emulated: the guest's node "
			      "distances are a table the scheduler reads, remote memory costs "
			      "the same as local\n");
	strbuf_addstr(out, "  - caches are not simulated and SMT siblings do not share execution "
		      "units in a guest: cache-hot and SMT-contention effects are the host's "
		      "alone\n");
	if (gs && bs && strcmp(gs, bs))
		strbuf_addf(out, "  - the topologies differ: guest %s, host %s\n", gs, bs);
	strbuf_addstr(out, "  - frequency, turbo and power states exist only on the host\n");
}
