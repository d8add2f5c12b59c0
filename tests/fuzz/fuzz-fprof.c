/* fuzz-fprof.c - libFuzzer target for the function-profile record parser
 * (host-tools/results/fprof.c): bounded, one-line errors, finite JSON numbers. */
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/fprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fprof_result r;
	struct json_object *j, *runs, *c;
	char err[256];

	if (fprof_parse((const char *)data, size, &r, err, sizeof(err)) < 0) {
		if (strncmp(err, "line ", 5) || strchr(err, '\n'))
			abort();
		return 0;
	}
	if (r.nr_funcs > PLAN_MAX_PROFILE || r.nr_cpus > FPROF_MAX_CPUS || (r.absent && r.nr_funcs))
		abort();
	for (unsigned i = 0; i < r.nr_funcs; i++)
		if (!plan_symbol_ok(r.funcs[i].name) || !isfinite(r.funcs[i].time_us) ||
		    r.funcs[i].time_us < 0 || (!r.funcs[i].ok && r.funcs[i].hits))
			abort();
	j = fprof_run_json(&r);
	if (!json_object_to_json_string(j))
		abort();
	runs = json_object_new_array();
	json_object_array_add(runs, j);
	json_object_array_add(runs, json_object_get(j));
	c = fprof_case_json(runs);
	if (!c || !json_object_to_json_string(c))
		abort();
	json_object_put(c);
	json_object_put(runs);
	return 0;
}
