/* fuzz-hostfaults.c - libFuzzer target for the host-fault log reader
 * (results/runfiles.c, lenient and strict) and the run report's use of it
 * (results/runreport.c): every kept action has the members the verdict
 * reads, a failure reason is one bounded line, a strict error one line. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/runfiles.h"
#include "results/runreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int has(struct json_object *o, const char *key, json_type t)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned bad;
	struct json_object *a = host_fault_actions((const char *)data, size, &bad);
	size_t n = json_object_array_length(a);
	char why[128];

	if (n + bad > size)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct json_object *id;

		if (!has(o, "case", json_type_string) || !has(o, "fault", json_type_string) ||
		    !has(o, "action", json_type_string) || !has(o, "run", json_type_int) ||
		    !has(o, "ok", json_type_boolean))
			abort();
		json_object_object_get_ex(o, "case", &id);
		why[0] = '\0';
		if (host_faults_failure(a, json_object_get_string(id), why, sizeof(why)) &&
		    (!why[0] || strlen(why) >= sizeof(why)))
			abort();
	}
	json_object_put(a);

	/* strict: all of the lenient reading, or one line naming the file */
	{
		struct strbuf err = STRBUF_INIT;
		unsigned lbad, sbad;
		struct json_object *l = host_faults_parse((const char *)data, size, 0, &lbad, NULL);
		struct json_object *s = host_faults_parse((const char *)data, size, 1, &sbad, &err);

		if (s ? (lbad || sbad || err.len ||
			 json_object_array_length(s) != json_object_array_length(l)) :
			(!lbad || !err.len || strchr(err.buf, '\n') ||
			 strncmp(err.buf, "host-faults.jsonl", 17)))
			abort();
		json_object_put(l);
		if (s)
			json_object_put(s);
		strbuf_release(&err);
	}
	return 0;
}
