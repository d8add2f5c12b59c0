/* fidelity.h - does a guest model the host?  Two kernels run in a guest and
 * on bare metal: which metrics moved the same way, and what a guest cannot model. */
#ifndef LAB_FIDELITY_H
#define LAB_FIDELITY_H

#include "lib/util.h"

struct json_object;

enum fidelity_agree {
	FID_SAME,        /* both moved, the same way */
	FID_OPPOSITE,    /* both moved, opposite ways */
	FID_GUEST_NOISE, /* only bare metal saw a change beyond its noise */
	FID_BARE_NOISE,  /* only the guest did */
	FID_BOTH_NOISE,  /* neither did: they agree there is nothing */
	FID_NO_DATA,
};
const char *fidelity_agree_name(enum fidelity_agree a);

/* Improvement in percent (positive is better, whatever the metric's
 * direction) from base to test; noise_pct is the bigger CV of the two. */
struct fidelity_change {
	int ok;
	double pct, noise_pct;
};

/* The change of one metric of one case between two cases.json objects. */
struct fidelity_change fidelity_change(struct json_object *base_case, struct json_object *test_case,
				       const char *metric);

/* A change counts when it is beyond its noise and at least min_pct. */
enum fidelity_agree fidelity_classify(const struct fidelity_change *guest,
				      const struct fidelity_change *bare, double min_pct);

struct fidelity_counts {
	unsigned same, opposite, one_sided, both_noise, no_data;
};

/*
 * Lines up the cases (by case id) and metrics of four runs' cases.json
 * objects: guest base/test and bare base/test.  Appends one table row per
 * metric to out and returns the counts.
 */
struct fidelity_counts fidelity_table(struct json_object *gb, struct json_object *gt,
				      struct json_object *bb, struct json_object *bt,
				      struct strbuf *out);

/* What the guest run (its run.json) cannot model of the bare one, one
 * "  - ..." line each. */
void fidelity_limits(struct json_object *guest_run, struct json_object *bare_run,
		     struct strbuf *out);

#endif
