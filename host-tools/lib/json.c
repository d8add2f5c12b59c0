/* json.c - the one bounded, strict JSON reader behind every results file,
 * guest record and monitor reply the host tools parse. */
#define _GNU_SOURCE
#include "lib/json.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void too_large(struct strbuf *err, const char *what, size_t max)
{
	if (!err)
		return;
	if (max >= (1u << 20) && !(max & ((1u << 20) - 1)))
		strbuf_addf(err, "%s is larger than %zu MiB", what, max >> 20);
	else
		strbuf_addf(err, "%s is larger than %zu bytes", what, max);
}

/* One value from the start of text; *end is where the tokener stopped. */
static struct json_object *tokenize(const char *text, size_t len, int strict,
				    enum json_tokener_error *e, size_t *end)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	struct json_object *o;

	if (!tok)
		die(LAB_EXIT_FAIL, "out of memory");
	if (strict)
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, (int)len);
	*e = json_tokener_get_error(tok);
	*end = json_tokener_get_parse_end(tok);
	if (!o && *e == json_tokener_continue && len) {
		/* a number at the very end waits for more digits: the text is
		 * whole, so end it the way a NUL-terminated string would */
		o = json_tokener_parse_ex(tok, "", 1);
		*e = o ? json_tokener_get_error(tok) : json_tokener_continue;
		*end = len;
	}
	json_tokener_free(tok);
	return o;
}

/* Past the blanks that may end a file or a line (a NUL is damage). */
static size_t skip_blanks(const char *text, size_t len, size_t at)
{
	while (at < len && text[at] && isspace((unsigned char)text[at]))
		at++;
	return at;
}

struct json_object *json_read(const char *text, size_t len, size_t max, const char *what,
			      struct strbuf *err)
{
	struct json_object *o, *lax;
	enum json_tokener_error e, lax_e;
	size_t end, lax_end;

	if (!max)
		max = JSON_MAX_BYTES;
	if (len > max || len > INT32_MAX) {
		too_large(err, what, max);
		return NULL;
	}
	/*
	 * Strict: no leading zeros, dangling exponents, trailing commas or
	 * TRUE.  Left lenient, json-c reads "01e-" as 1 and writes it back
	 * as "01".  A strict tokener also stops at bytes after the value;
	 * the lenient one tells that case apart for the message.
	 */
	o = tokenize(text, len, 1, &e, &end);
	if (!o && e == json_tokener_success) {
		/* json-c gives NULL for null: no caller has a use for it */
		if (err)
			strbuf_addf(err, "%s is null where a value is expected", what);
		return NULL;
	}
	if (o && e == json_tokener_success)
		end = skip_blanks(text, len, end);
	else if (e != json_tokener_continue &&
		 (lax = tokenize(text, len, 0, &lax_e, &lax_end)) != NULL) {
		if (lax_e == json_tokener_success &&
		    (lax_end = skip_blanks(text, len, lax_end)) < len) {
			e = json_tokener_success;
			end = lax_end;
		}
		json_object_put(lax);
	}
	if (e != json_tokener_success) {
		if (err)
			strbuf_addf(err, "%s is not valid JSON: %s", what,
				    e == json_tokener_continue ? "truncated" : json_tokener_error_desc(e));
		json_object_put(o);
		return NULL;
	}
	if (end < len) {
		if (err)
			strbuf_addf(err, "%s is not valid JSON: bytes after its value (offset %zu)",
				    what, end);
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *json_read_object(const char *text, size_t len, size_t max, const char *what,
				     struct strbuf *err)
{
	struct json_object *o = json_read(text, len, max, what, err);

	if (o && !json_object_is_type(o, json_type_object)) {
		if (err)
			strbuf_addf(err, "%s is not a JSON object", what);
		json_object_put(o);
		return NULL;
	}
	return o;
}

char *json_read_bounded(const char *path, size_t max, size_t *len, int *missing, struct strbuf *err)
{
	struct stat st;
	char *text;
	int dummy;

	if (!missing)
		missing = &dummy;
	if (!max)
		max = JSON_MAX_BYTES;
	*missing = 0;
	if (stat(path, &st) < 0) {
		*missing = errno == ENOENT;
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || (uintmax_t)st.st_size > max) {
		if (max >= (1u << 20))
			strbuf_addf(err, "'%s' is not a regular file of at most %zu MiB", path, max >> 20);
		else
			strbuf_addf(err, "'%s' is not a regular file of at most %zu bytes", path, max);
		return NULL;
	}
	text = read_file(path, len);
	if (!text)
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(errno));
	else if (*len > max) {
		/* it grew between stat() and read() */
		free(text);
		strbuf_addf(err, "'%s' is not a regular file of at most %zu bytes", path, max);
		return NULL;
	}
	return text;
}

struct json_object *json_read_file(const char *path, const char *what, size_t max, int *missing,
				   struct strbuf *err)
{
	size_t len;
	char *text = json_read_bounded(path, max, &len, missing, err);
	struct json_object *o;

	if (!text)
		return NULL;
	o = json_read_object(text, len, max, what ? what : path, err);
	free(text);
	return o;
}

const char *json_get_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int json_get_num(struct json_object *o, const char *key, double *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 1;
	if (!(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
	    !isfinite(json_object_get_double(v)))
		return -1;
	*out = json_object_get_double(v);
	return 0;
}

int json_has(struct json_object *o, const char *key, json_type t)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, t);
}
