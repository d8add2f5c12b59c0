/* json.h - the lab's one JSON reader: json-c's tokener bounded in size and
 * depth, nothing but blanks after the value, one-line errors naming the file. */
#ifndef LAB_JSON_H
#define LAB_JSON_H

#include "lib/util.h"

#include <json-c/json.h>
#include <stddef.h>

/* Limits of every JSON text the lab reads: results files, records from a
 * guest, monitor replies.  max == 0 in the calls below means JSON_MAX_BYTES. */
#define JSON_MAX_DEPTH 32
#define JSON_MAX_BYTES (64u << 20)

/*
 * Parses exactly one JSON value from text[0..len); blanks may follow it,
 * nothing else.  Returns a new reference (the caller puts it), or NULL
 * with one line in err naming `what` (a file name, "qmp reply", ...):
 *   "<what> is larger than N MiB" / "... than N bytes"
 *   "<what> is not valid JSON: truncated" (or json-c's reason)
 *   "<what> is not valid JSON: bytes after its value (offset N)"
 *   "<what> is null where a value is expected" (json-c's null is NULL)
 * err may be NULL when the caller only counts failures.
 */
struct json_object *json_read(const char *text, size_t len, size_t max, const char *what,
			      struct strbuf *err);
/* The same, and the value must be an object: "<what> is not a JSON object". */
struct json_object *json_read_object(const char *text, size_t len, size_t max, const char *what,
				     struct strbuf *err);

/*
 * Reads the regular file path (at most max bytes, checked before reading)
 * and parses one JSON object from it.  Errors name the path for reading
 * ("cannot read '<path>': ...", "'<path>' is not a regular file of at most
 * N MiB") and `what` (NULL: the path) for parsing.  *missing (when not
 * NULL) is set when the file does not exist.
 */
struct json_object *json_read_file(const char *path, const char *what, size_t max, int *missing,
				   struct strbuf *err);

/*
 * Reads a whole regular file of at most max bytes (JSON_MAX_BYTES when 0)
 * the way json_read_file() does, for callers that parse it themselves
 * (JSON lines).  Returns a malloc'ed NUL-terminated buffer, or NULL with
 * err filled and *missing set as above.
 */
char *json_read_bounded(const char *path, size_t max, size_t *len, int *missing, struct strbuf *err);

/* The string member key of o, NULL when absent or not a string. */
const char *json_get_str(struct json_object *o, const char *key);
/* A finite number member key of o: 0 with it in *out, 1 when absent or
 * null, -1 when it is not a finite number. */
int json_get_num(struct json_object *o, const char *key, double *out);
/* Whether o has a member key of type t. */
int json_has(struct json_object *o, const char *key, json_type t);

#endif
