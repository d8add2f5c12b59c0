/* client.c - LAVA's REST API through libcurl (client.h). */
#define _GNU_SOURCE
#include "lava/client.h"
#include "lib/json.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAVA_MAX_REPLY (64u << 20)	/* a job's log can be long */

int lava_server_init(struct lava_server *s, const char *url, const char *token_file, struct strbuf *err)
{
	const char *env = getenv("LAVA_TOKEN");
	size_t n;
	char *api;

	memset(s, 0, sizeof(*s));
	s->timeout_s = 60;
	if (!url || (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))) {
		strbuf_addf(err, "the LAVA server must be an http:// or https:// URL, not '%.200s'",
			    url ? url : "");
		return -1;
	}
	if (strlen(url) >= sizeof(s->url)) {
		strbuf_addstr(err, "the LAVA server's URL is longer than 511 bytes");
		return -1;
	}
	snprintf(s->url, sizeof(s->url), "%s", url);
	/* http://lava.example/api/v0.2/ and http://lava.example/ are one server */
	if ((api = strstr(s->url + 8, "/api/")))
		*api = '\0';
	n = strlen(s->url);
	while (n > 8 && s->url[n - 1] == '/')
		s->url[--n] = '\0';
	if (env && *env) {
		if (strlen(env) >= sizeof(s->token)) {
			strbuf_addstr(err, "$LAVA_TOKEN is longer than 255 bytes");
			return -1;
		}
		snprintf(s->token, sizeof(s->token), "%s", env);
	} else if (token_file) {
		struct stat st;
		FILE *f = fopen(token_file, "re");

		if (!f || fstat(fileno(f), &st) < 0) {
			strbuf_addf(err, "cannot read the token file '%s': %s", token_file, strerror(errno));
			if (f)
				fclose(f);
			return -1;
		}
		if (st.st_mode & 077) {
			fclose(f);
			strbuf_addf(err, "the token file '%s' is readable by others (chmod 600 it)", token_file);
			return -1;
		}
		if (!fgets(s->token, sizeof(s->token), f))
			s->token[0] = '\0';
		fclose(f);
		s->token[strcspn(s->token, "\r\n")] = '\0';
		if (!s->token[0]) {
			strbuf_addf(err, "the token file '%s' is empty", token_file);
			return -1;
		}
	}
	for (const char *p = s->token; *p; p++)
		if (!isgraph((unsigned char)*p)) {
			memset(s->token, 0, sizeof(s->token));
			strbuf_addstr(err, "the LAVA token holds a blank or a control character");
			return -1;
		}
	return 0;
}

void lava_error_message(const char *body, size_t len, struct strbuf *out)
{
	static const char *const keys[] = { "message", "detail", "error" };
	struct json_object *o = body && len ? json_read(body, len, 0, "reply", NULL) : NULL;
	size_t start = out->len;

	if (o && json_object_is_type(o, json_type_object)) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			struct json_object *v;

			if (!json_object_object_get_ex(o, keys[i], &v) || !v)
				continue;
			strbuf_addstr(out, json_object_is_type(v, json_type_string) ? json_object_get_string(v) :
				      json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
			break;
		}
	}
	if (o)
		json_object_put(o);
	if (out->len == start && body && len) {
		size_t n = 0;

		while (n < len && body[n] != '\n' && body[n] != '\r')
			n++;
		strbuf_add(out, body, n);
	}
	/* one line, printable, short */
	for (size_t i = start; i < out->len; i++)
		if ((unsigned char)out->buf[i] < 0x20 || out->buf[i] == 0x7f)
			out->buf[i] = ' ';
	if (out->len - start > 300) {
		out->len = start + 297;
		out->buf[out->len] = '\0';
		strbuf_addstr(out, "...");
	}
	if (out->len == start)
		strbuf_addstr(out, "(no message)");
}

int lava_parse_submit(const char *body, size_t len, long *job_id, struct strbuf *err)
{
	struct json_object *o = json_read_object(body, len, 1u << 20, "LAVA's reply", err), *ids, *id;

	if (!o)
		return -1;
	if (!json_object_object_get_ex(o, "job_ids", &ids) || !json_object_is_type(ids, json_type_array) ||
	    !json_object_array_length(ids) || !(id = json_object_array_get_idx(ids, 0)) ||
	    !json_object_is_type(id, json_type_int) || json_object_get_int64(id) <= 0) {
		strbuf_addstr(err, "LAVA's reply names no job: ");
		lava_error_message(body, len, err);
		json_object_put(o);
		return -1;
	}
	*job_id = (long)json_object_get_int64(id);
	json_object_put(o);
	return 0;
}

static void copy_str(struct json_object *o, const char *key, char *dst, size_t size)
{
	const char *v = json_get_str(o, key);

	snprintf(dst, size, "%s", v ? v : "");
}

int lava_parse_job(const char *body, size_t len, struct lava_job *job, struct strbuf *err)
{
	struct json_object *o = json_read_object(body, len, 16u << 20, "LAVA's job", err), *id;

	if (!o)
		return -1;
	memset(job, 0, sizeof(*job));
	if (!json_object_object_get_ex(o, "id", &id) || !json_object_is_type(id, json_type_int) ||
	    !json_get_str(o, "state") || !json_get_str(o, "health")) {
		strbuf_addstr(err, "LAVA's job has no id, state or health");
		json_object_put(o);
		return -1;
	}
	job->id = (long)json_object_get_int64(id);
	copy_str(o, "state", job->state, sizeof(job->state));
	copy_str(o, "health", job->health, sizeof(job->health));
	copy_str(o, "actual_device", job->device, sizeof(job->device));
	copy_str(o, "requested_device_type", job->device_type, sizeof(job->device_type));
	copy_str(o, "failure_comment", job->failure_comment, sizeof(job->failure_comment));
	copy_str(o, "submit_time", job->submit_time, sizeof(job->submit_time));
	copy_str(o, "start_time", job->start_time, sizeof(job->start_time));
	copy_str(o, "end_time", job->end_time, sizeof(job->end_time));
	json_object_put(o);
	return 0;
}

int lava_parse_devices(const char *body, size_t len, struct lava_devices *out, int *more, struct strbuf *err)
{
	struct json_object *o = json_read_object(body, len, 16u << 20, "LAVA's device list", err), *res, *next;
	size_t n, had = out->nr;

	*more = 0;
	if (!o)
		return -1;
	if (!json_object_object_get_ex(o, "results", &res) || !json_object_is_type(res, json_type_array)) {
		strbuf_addstr(err, "LAVA's device list has no results: ");
		lava_error_message(body, len, err);
		json_object_put(o);
		return -1;
	}
	n = json_object_array_length(res);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(res, i), *job;
		struct lava_device *d;

		if (!e || !json_object_is_type(e, json_type_object) || !json_get_str(e, "hostname") ||
		    !json_get_str(e, "health")) {
			strbuf_addf(err, "LAVA's device list: device %zu has no hostname or health", i + 1);
			out->nr = had;
			json_object_put(o);
			return -1;
		}
		if (out->nr == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 8;
			out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
		}
		d = &out->v[out->nr++];
		memset(d, 0, sizeof(*d));
		copy_str(e, "hostname", d->hostname, sizeof(d->hostname));
		copy_str(e, "health", d->health, sizeof(d->health));
		copy_str(e, "state", d->state, sizeof(d->state));
		/* an id, or null before the device's first health check */
		if (json_object_object_get_ex(e, "last_health_report_job", &job) &&
		    json_object_is_type(job, json_type_int) && json_object_get_int64(job) > 0)
			d->health_job = (long)json_object_get_int64(job);
	}
	*more = json_object_object_get_ex(o, "next", &next) && json_object_is_type(next, json_type_string);
	json_object_put(o);
	return 0;
}

int lava_device_usable(const struct lava_device *d)
{
	return !strcmp(d->health, "Good") || !strcmp(d->health, "Unknown") || !strcmp(d->health, "Looping");
}

/* s in out, control characters as blanks: LAVA's words stay one line */
static void add_line(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++)
		strbuf_addch(out, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i]);
}

/* at most n bytes of s, not ending inside a UTF-8 character */
static size_t utf8_cut(const char *s, size_t n)
{
	size_t len = strlen(s);

	if (len <= n)
		return len;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

#define MORE_ROOM 16	/* " and N more" */

void lava_devices_describe(const struct lava_devices *d, const char *device_type, size_t max,
			   struct strbuf *out)
{
	static const char head[] = "no usable device of type ";
	size_t named, len, room, notes = 0;

	/* the names first: as many as fit, with room to count the others */
	len = strlen(head) + strnlen(device_type, 100) + 2;
	for (named = 0; named < d->nr; named++) {
		const struct lava_device *v = &d->v[named];
		size_t add = (named ? 2 : 0) + strlen(v->hostname) + 1 + strlen(v->health);

		if (len + add + (named + 1 < d->nr ? MORE_ROOM : 0) > max)
			break;
		len += add;
		notes += v->note[0] != '\0';
	}
	room = named < d->nr ? MORE_ROOM : 0;
	room = max > len + room ? max - len - room : 0;

	strbuf_addstr(out, head);
	add_line(out, device_type, 100);
	strbuf_addstr(out, ": ");
	if (!d->nr)
		strbuf_addstr(out, "LAVA lists none (it lists no retired device)");
	for (size_t i = 0; i < named; i++) {
		const struct lava_device *v = &d->v[i];
		size_t share, n, full = strlen(v->note);

		if (i)
			strbuf_addstr(out, ", ");
		add_line(out, v->hostname, sizeof(v->hostname));
		strbuf_addch(out, ' ');
		add_line(out, v->health, sizeof(v->health));
		if (!full)
			continue;
		/* then each note its share of the room left, cut with "..." */
		share = room / notes--;
		if (full + 3 <= share) {
			n = full;
			room -= n + 3;
		} else if (share >= 16) {
			n = utf8_cut(v->note, share - 6);
			room -= n + 6;
		} else {
			continue;
		}
		strbuf_addstr(out, " (");
		add_line(out, v->note, n);
		strbuf_addstr(out, n < full ? "...)" : ")");
	}
	if (named < d->nr)
		strbuf_addf(out, " and %zu more", d->nr - named);
}

int lava_job_finished(const struct lava_job *job)
{
	return !strcmp(job->state, "Finished");
}

/* ---- HTTP ---- */

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct strbuf *sb = arg;

	if (sb->len + size * n > LAVA_MAX_REPLY)
		return 0;	/* curl stops with CURLE_WRITE_ERROR */
	strbuf_add(sb, p, size * n);
	return size * n;
}

/*
 * One request: method GET or POST (body JSON) to url + path.  The HTTP
 * status in *status, the body in out.  -1 with one line in err when no
 * reply came.
 */
static int request(const struct lava_server *s, const char *method, const char *path, const char *json_body,
		   long *status, struct strbuf *out, struct strbuf *err)
{
	static int global_done;
	struct curl_slist *hdr = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url = xasprintf("%s%s", s->url, path), *auth = NULL;
	CURL *c;
	CURLcode rc;

	if (!global_done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		global_done = 1;
	}
	c = curl_easy_init();
	if (!c) {
		strbuf_addstr(err, "cannot start an HTTP client (curl_easy_init)");
		free(url);
		return -1;
	}
	hdr = curl_slist_append(hdr, "Accept: application/json, text/plain, */*");
	if (s->token[0]) {
		auth = xasprintf("Authorization: Token %s", s->token);
		hdr = curl_slist_append(hdr, auth);
	}
	if (json_body)
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, s->timeout_s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "schedlab");
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (!strcmp(method, "POST")) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, json_body ? json_body : "");
	}
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	else
		strbuf_addf(err, "cannot reach LAVA at %s: %s", s->url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	free(url);
	return rc == CURLE_OK ? 0 : -1;
}

/* The errors every call shares, by HTTP status; 0 for 2xx. */
static int status_error(const struct lava_server *s, long status, const struct strbuf *body,
			const char *what, struct strbuf *err)
{
	if (status >= 200 && status < 300)
		return 0;
	if (status == 401 || status == 403) {
		strbuf_addf(err, "LAVA at %s refused %s (HTTP %ld): ", s->url,
			    s->token[0] ? "the token" : "a request without a token ($LAVA_TOKEN or --token-file)",
			    status);
		lava_error_message(body->buf, body->len, err);
		return -1;
	}
	strbuf_addf(err, "LAVA at %s: %s: HTTP %ld: ", s->url, what, status);
	lava_error_message(body->buf, body->len, err);
	return -1;
}

int lava_submit(const struct lava_server *s, const char *definition, long *job_id, struct strbuf *err)
{
	struct json_object *o = json_object_new_object();
	struct strbuf body = STRBUF_INIT;
	long status = 0;
	int ret = -1;

	json_object_object_add(o, "definition", json_object_new_string(definition));
	if (request(s, "POST", "/api/v0.2/jobs/", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		    &status, &body, err) < 0)
		goto out;
	if (status == 400) {
		strbuf_addf(err, "LAVA at %s rejected the job definition: ", s->url);
		lava_error_message(body.buf, body.len, err);
		goto out;
	}
	if (status_error(s, status, &body, "submitting a job", err) < 0)
		goto out;
	ret = lava_parse_submit(body.buf, body.len, job_id, err);
out:
	json_object_put(o);
	strbuf_release(&body);
	return ret;
}

int lava_job_get(const struct lava_server *s, long id, struct lava_job *job, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT;
	char path[64];
	long status = 0;
	int ret = -1;

	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/", id);
	if (request(s, "GET", path, NULL, &status, &body, err) < 0)
		goto out;
	if (status == 404) {
		strbuf_addf(err, "LAVA at %s has no job %ld", s->url, id);
		goto out;
	}
	if (status_error(s, status, &body, "reading a job", err) < 0)
		goto out;
	ret = lava_parse_job(body.buf, body.len, job, err);
out:
	strbuf_release(&body);
	return ret;
}

int lava_job_log(const struct lava_server *s, long id, struct strbuf *out, struct strbuf *err)
{
	char path[64];
	long status = 0;

	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/logs/", id);
	strbuf_reset(out);
	if (request(s, "GET", path, NULL, &status, out, err) < 0)
		return -1;
	if (status == 404) {
		/* a job not started has no log yet */
		strbuf_reset(out);
		return 0;
	}
	if (status_error(s, status, out, "reading a job's log", err) < 0)
		return -1;
	return 0;
}

int lava_job_cancel(const struct lava_server *s, long id, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT;
	char path[64];
	long status = 0;
	int ret = -1;

	snprintf(path, sizeof(path), "/api/v0.2/jobs/%ld/cancel/", id);
	if (request(s, "GET", path, NULL, &status, &body, err) == 0)
		ret = status_error(s, status, &body, "canceling a job", err);
	strbuf_release(&body);
	return ret;
}

void lava_devices_release(struct lava_devices *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

int lava_devices_of_type(const struct lava_server *s, const char *device_type, struct lava_devices *out,
			 struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT, path = STRBUF_INIT;
	int more = 1, ret = 0;

	for (const char *p = device_type; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p)) {
			strbuf_addf(err, "'%.100s' is not a LAVA device type name", device_type);
			return -1;
		}
	/* pages by offset, not by the reply's "next": that URL is the one the
	 * server believes it has, which a proxy in front of it may not be */
	for (size_t offset = 0; more && ret == 0; offset = out->nr) {
		long status = 0;
		size_t had = out->nr;

		strbuf_reset(&body);
		strbuf_reset(&path);
		strbuf_addf(&path, "/api/v0.2/devices/?device_type=%s&limit=100&offset=%zu", device_type, offset);
		if (request(s, "GET", path.buf, NULL, &status, &body, err) < 0 ||
		    status_error(s, status, &body, "listing the devices of a device type", err) < 0 ||
		    lava_parse_devices(body.buf, body.len, out, &more, err) < 0)
			ret = -1;
		else if (out->nr == had)
			more = 0;	/* a next page that lists nothing */
	}
	strbuf_release(&body);
	strbuf_release(&path);
	return ret;
}

int lava_device_type_ok(const struct lava_server *s, const char *device_type, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT, path = STRBUF_INIT;
	long status = 0;
	int ret = -1;

	for (const char *p = device_type; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p)) {
			strbuf_addf(err, "'%.100s' is not a LAVA device type name", device_type);
			return -1;
		}
	strbuf_addf(&path, "/api/v0.2/devicetypes/%s/", device_type);
	if (request(s, "GET", path.buf, NULL, &status, &body, err) < 0)
		goto out;
	if (status == 404)
		ret = 0;
	else if (status_error(s, status, &body, "reading a device type", err) == 0)
		ret = 1;
out:
	strbuf_release(&body);
	strbuf_release(&path);
	return ret;
}
