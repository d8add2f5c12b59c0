/* warm.c - warm start: the snapshot key, saving a parked guest into the
 * cache (zstd-compressed migration stream) and handing it back to QEMU. */
#define _GNU_SOURCE
#include "run/warm.h"
#include "backend/migstream.h"
#include "common/io.h"
#include "common/wire.h"
#include "kernel/kbuild.h"
#include "lib/json.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The kernel command line without its lpj= (see warm.h). */
static void cmdline_without_lpj(const char *cmdline, struct strbuf *out)
{
	const char *p = cmdline;

	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : strlen(p);

		if (n && strncmp(p, "lpj=", 4)) {
			if (out->len)
				strbuf_addch(out, ' ');
			strbuf_add(out, p, n);
		}
		p += n;
		while (*p == ' ')
			p++;
	}
}

void warm_key_text(const struct backend_conf *conf, const char *backend,
		   const char *qemu_version, struct strbuf *out)
{
	struct backend_conf c = *conf;
	struct strbuf cmd = STRBUF_INIT;
	struct strvec argv = STRVEC_INIT;

	/* what differs from run to run without changing the guest */
	c.name = NULL;
	c.run_dir = NULL;
	c.restore = 0;
	/* QEMU's -seed feeds only what the guest draws after the restore:
	 * every seed restores the one saved guest */
	c.seed = 0;
	if (conf->cmdline)
		cmdline_without_lpj(conf->cmdline, &cmd);
	c.cmdline = cmd.buf;
	qemu_build_argv(&c, 0, 0, 0, &argv);
	strbuf_addf(out, "schedlab warm 1\nbackend %s\nqemu %s\n", backend, qemu_version);
	if (!strcmp(backend, "libvirt"))
		strbuf_addf(out, "uri %s\n", libvirt_uri(conf->uri));
	for (size_t i = 0; i < argv.nr; i++)
		strbuf_addf(out, "arg %s\n", argv.v[i]);
	strvec_clear(&argv);
	strbuf_release(&cmd);
}

/*
 * A file's part of the key: its SHA-256, or for a file over 16 MiB (a
 * 64 MiB vmlinux costs half a second to hash on a loaded host, a third
 * of a warm start) its identity: path, device, inode, size and mtime,
 * which a rebuilt or replaced kernel changes.
 */
static int file_identity(const char *path, struct strbuf *out, struct strbuf *err)
{
	struct stat st;
	char hex[65];

	if (stat(path, &st) < 0) {
		strbuf_addf(err, "cannot stat '%s': %s", path, strerror(errno));
		return -1;
	}
	if (st.st_size > (16 << 20)) {
		strbuf_addf(out, "file %s dev %llu ino %llu size %lld mtime %lld.%09ld\n", path,
			    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
			    (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		return 0;
	}
	if (kbuild_sha256_file(path, hex, err) < 0)
		return -1;
	strbuf_addf(out, "sha256 %s\n", hex);
	return 0;
}

int warm_key(const struct backend_conf *conf, const char *backend, const char *qemu_version,
	     char key[WARM_KEY_HEX], struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;

	warm_key_text(conf, backend, qemu_version, &text);
	strbuf_addstr(&text, "kernel ");
	if (file_identity(conf->kernel, &text, err) < 0) {
		strbuf_release(&text);
		return -1;
	}
	strbuf_addstr(&text, "initrd ");
	if (conf->initrd && file_identity(conf->initrd, &text, err) < 0) {
		strbuf_release(&text);
		return -1;
	}
	kbuild_sha256_hex(text.buf, text.len, key);
	strbuf_release(&text);
	return 0;
}

void warm_init(struct warm *w, const char *key)
{
	memset(w, 0, sizeof(*w));
	w->dir.buf = w->prefix.buf = w->plan_frame.buf = w->saved_xml.buf = strbuf_empty;
	child_process_init(&w->unzip);
	snprintf(w->key, sizeof(w->key), "%s", key);
	strbuf_addf(&w->dir, "%s/snapshots/%s", lab_cache_dir(), key);
	{
		char *state = xasprintf("%s/state.zst", w->dir.buf);

		w->restoring = is_file(state);
		free(state);
	}
}

void warm_release(struct warm *w)
{
	warm_restore_end(w);
	child_process_clear(&w->unzip);
	strbuf_release(&w->dir);
	strbuf_release(&w->prefix);
	strbuf_release(&w->plan_frame);
	strbuf_release(&w->saved_xml);
}

/* splitmix64 (Steele, Lea, Flood 2014): a seed's bytes, the same on
 * every host */
static void seed_bytes(unsigned seed, uint8_t *out, size_t len)
{
	uint64_t x = seed;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		for (size_t k = 0; k < 8 && i + k < len; k++)
			out[i + k] = (uint8_t)(z >> (8 * k));
	}
}

int warm_plan_frame(struct warm *w, const char *plan, size_t len, unsigned vseed, const char *set,
		    struct strbuf *err)
{
	uint8_t seed[32];
	struct strbuf payload = STRBUF_INIT;
	struct timespec ts = { 0 };
	size_t flen;

	/* the guest would otherwise start every restore from one saved state */
	if (vseed) {
		seed_bytes(vseed, seed, sizeof(seed));
	} else if (getrandom(seed, sizeof(seed), 0) != (ssize_t)sizeof(seed)) {
		strbuf_addf(err, "getrandom: %s", strerror(errno));
		return -1;
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
	}
	strbuf_addstr(&payload, "seed=");
	for (size_t i = 0; i < sizeof(seed); i++)
		strbuf_addf(&payload, "%02x", seed[i]);
	strbuf_addf(&payload, "\nrealtime=%lld.%09ld\n%s\n", (long long)ts.tv_sec, ts.tv_nsec,
		    set ? set : "");
	strbuf_add(&payload, plan, len);
	if (payload.len > WIRE_MAX_PAYLOAD) {
		strbuf_addf(err, "a plan of %zu bytes is too big for a warm start (1 MiB at most)", len);
		strbuf_release(&payload);
		return -1;
	}
	strbuf_reset(&w->plan_frame);
	strbuf_grow(&w->plan_frame, WIRE_HDR_LEN + payload.len);
	flen = wire_encode(0, WIRE_PLAN, payload.buf, (uint32_t)payload.len,
			   w->plan_frame.buf, WIRE_HDR_LEN + payload.len);
	w->plan_frame.len = flen;
	strbuf_release(&payload);
	return flen ? 0 : -1;
}

char *warm_plan_file(const struct warm *w, struct strbuf *err)
{
	return temp_file_write("plan-frame", w->plan_frame.buf, w->plan_frame.len, err);
}

/* The pre-park records end with the WIRE_LOG_PARKED one: its seq + 1 is
 * the runner's next.  Returns -1 when the prefix has no such record. */
struct prefix_scan {
	uint32_t next_seq;
	int parked;
	int no_fwcfg;
};

static int on_prefix(const struct wire_record *rec, void *ctx)
{
	struct prefix_scan *ps = ctx;

	if (rec->type == WIRE_LOG && rec->len == strlen(WIRE_LOG_NO_FWCFG) &&
	    !memcmp(rec->payload, WIRE_LOG_NO_FWCFG, rec->len))
		ps->no_fwcfg = 1;

	if (rec->type == WIRE_LOG && rec->len == strlen(WIRE_LOG_PARKED) &&
	    !memcmp(rec->payload, WIRE_LOG_PARKED, rec->len)) {
		ps->parked = 1;
		ps->next_seq = rec->seq + 1;
	}
	return 0;
}

static int scan(const char *buf, size_t len, struct prefix_scan *ps)
{
	struct wire_decoder d;

	memset(ps, 0, sizeof(*ps));
	wire_decoder_init(&d);
	wire_decoder_feed(&d, buf, len, on_prefix, ps);
	wire_decoder_release(&d);
	return ps->parked ? 0 : -1;
}

int warm_prefix_next_seq(const char *buf, size_t len, uint32_t *seq)
{
	struct prefix_scan ps;
	int r = scan(buf, len, &ps);

	*seq = ps.next_seq;
	return r;
}

int warm_prefix_reads_fwcfg(const char *buf, size_t len)
{
	struct prefix_scan ps;

	return scan(buf, len, &ps) == 0 && !ps.no_fwcfg;
}

/*
 * QEMU 7.2 waits for a readable incoming fd: a stream that ends before
 * its first byte (a truncated file zstd cannot start on) would leave it
 * waiting, so the size meta.json recorded is checked first.
 */
static int state_intact(const struct warm *w, struct strbuf *err)
{
	char *path = xasprintf("%s/meta.json", w->dir.buf);
	struct json_object *meta = json_read_file(path, NULL, 0, NULL, err), *v;
	struct stat st;
	int ret = -1;

	free(path);
	if (!meta)
		return -1;
	path = xasprintf("%s/state.zst", w->dir.buf);
	if (stat(path, &st) < 0)
		strbuf_addf(err, "cannot stat '%s': %s", path, strerror(errno));
	else if (!json_object_object_get_ex(meta, "state_bytes", &v) ||
		 json_object_get_int64(v) != (int64_t)st.st_size)
		strbuf_addf(err, "state.zst is %lld bytes, meta.json says %lld",
			    (long long)st.st_size, v ? (long long)json_object_get_int64(v) : -1LL);
	else
		ret = 0;
	free(path);
	json_object_put(meta);
	return ret;
}

static void touch_last_use(const struct warm *w)
{
	char *path = xasprintf("%s/last-use", w->dir.buf);

	write_file_atomic(path, "", 0);
	free(path);
}

/*
 * When QEMU cannot load the stream (a damaged snapshot), libvirtd 9.0
 * opens the image's path once more, after zstd has ended: on a FIFO that
 * open waits for a writer forever, and the restore with it.  Once zstd is
 * gone this thread opens the FIFO for writing now and then and closes it
 * again: a reader blocked in open() gets EOF, a reader already reading is
 * not affected (the data in the pipe stays, and EOF comes only when no
 * writer is left).  It ends with warm_restore_end().
 */
static void *kick_fifo(void *arg)
{
	struct warm *w = arg;

	while (!w->fifo_kick_stop) {
		siginfo_t si = { 0 };
		struct timespec ts = { 0, 100 * 1000000L };

		/* WNOWAIT: finish_command_timeout() reaps it later */
		if (waitid(P_PID, (id_t)w->unzip.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid) {
			int fd = open(w->fifo_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

			if (fd >= 0)
				close(fd);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* A lab killed during a libvirt restore leaves its FIFO's directory;
 * the next restore removes those whose lab is gone. */
static void remove_fifo_dir(const char *path)
{
	remove_tree(path);
}

static void sweep_fifo_dirs(const char *tmp)
{
	sweep_dead_owner_dirs(tmp, "warm-", remove_fifo_dir);
}

/*
 * libvirtd opens the image by path and reads it from start to end (its
 * header, the domain XML, QEMU's stream): a FIFO, fed by zstd -d, is such
 * a path, and nothing is decompressed to disk.  zstd writes into it
 * through a read-write descriptor, so that it never sees EPIPE before
 * libvirtd has opened its end.
 */
static int libvirt_restore_begin(struct warm *w, struct backend_conf *conf, const char *xml_path,
				 const char *state, struct strbuf *err)
{
	char *tmpl = xasprintf("%s/tmp/warm-%ld-XXXXXX", lab_cache_dir(), (long)getpid());
	char *fifo, *xml;
	size_t len;

	int fd;

	xml = read_file(xml_path, &len);
	if (!xml) {
		strbuf_addf(err, "cannot read '%s': %s", xml_path, strerror(errno));
		free(tmpl);
		return -1;
	}
	strbuf_reset(&w->saved_xml);
	strbuf_add(&w->saved_xml, xml, len);
	free(xml);
	if (libvirt_domain_busy(conf->uri, w->saved_xml.buf, err)) {
		w->busy = 1;
		free(tmpl);
		return -1;
	}
	{
		char *tmp = xasprintf("%s/tmp", lab_cache_dir());

		mkdir_p(tmp, 0755);
		sweep_fifo_dirs(tmp);
		free(tmp);
	}
	if (!mkdtemp(tmpl)) {
		strbuf_addf(err, "cannot create '%s': %s", tmpl, strerror(errno));
		free(tmpl);
		return -1;
	}
	w->fifo_dir = tmpl;
	fifo = w->fifo_path = xasprintf("%s/state.fifo", tmpl);
	if (mkfifo(fifo, 0600) < 0 || (fd = open(fifo, O_RDWR | O_CLOEXEC)) < 0) {
		strbuf_addf(err, "cannot make the FIFO '%s': %s", fifo, strerror(errno));
		return -1;
	}
	child_process_clear(&w->unzip);
	strvec_pushl(&w->unzip.args, "zstd", "-q", "-d", "-c", state, NULL);
	w->unzip.in = CHILD_DEVNULL;
	w->unzip.out = fd;
	w->unzip.err = CHILD_DEVNULL;
	w->unzip.new_pgrp = 1;
	w->unzip.die_with_parent = 1;
	w->unzip.errbuf = err;
	if (start_command(&w->unzip) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	w->fifo_kick_stop = 0;
	w->fifo_kick_started = !pthread_create(&w->fifo_kick, NULL, kick_fifo, w);
	conf->restore = 1;
	conf->incoming_fd = -1;
	conf->restore_path = fifo;
	conf->restore_xml = w->saved_xml.buf;
	touch_last_use(w);
	return 0;
}

int warm_restore_begin(struct warm *w, struct backend_conf *conf, struct strbuf *err)
{
	char *path = xasprintf("%s/prefix.bin", w->dir.buf), *state;
	size_t len;
	char *buf;
	int pfd[2];

	if (state_intact(w, err) < 0) {
		free(path);
		return -1;
	}
	buf = read_file(path, &len);
	free(path);
	if (!buf) {
		strbuf_addf(err, "snapshot has no prefix.bin: %s", strerror(errno));
		return -1;
	}
	strbuf_reset(&w->prefix);
	strbuf_add(&w->prefix, buf, len);
	free(buf);
	state = xasprintf("%s/state.zst", w->dir.buf);
	path = xasprintf("%s/saved.xml", w->dir.buf);
	if (is_file(path)) {
		int ret = libvirt_restore_begin(w, conf, path, state, err);

		free(path);
		free(state);
		return ret;
	}
	free(path);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		strbuf_addf(err, "pipe: %s", strerror(errno));
		free(state);
		return -1;
	}
	child_process_clear(&w->unzip);
	strvec_pushl(&w->unzip.args, "zstd", "-q", "-d", "-c", state, NULL);
	w->unzip.in = CHILD_DEVNULL;
	w->unzip.out = pfd[1];
	w->unzip.err = CHILD_DEVNULL;
	w->unzip.new_pgrp = 1;
	w->unzip.die_with_parent = 1;
	w->unzip.errbuf = err;
	free(state);
	if (start_command(&w->unzip) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	close(pfd[1]);
	conf->restore = 1;
	conf->incoming_fd = pfd[0];
	/* last use, for lab cache prune */
	touch_last_use(w);
	return 0;
}

void warm_restore_end(struct warm *w)
{
	if (w->fifo_kick_started) {
		w->fifo_kick_stop = 1;
		pthread_join(w->fifo_kick, NULL);
		w->fifo_kick_started = 0;
	}
	if (w->unzip.pid > 0) {
		/* a truncated or foreign stream makes QEMU stop reading */
		if (finish_command_timeout(&w->unzip, 2000) == -2)
			child_process_kill(&w->unzip, SIGKILL);
		w->unzip.pid = 0;
	}
	if (w->fifo_dir) {
		unlink(w->fifo_path);
		rmdir(w->fifo_dir);
		free(w->fifo_dir);
		free(w->fifo_path);
		w->fifo_dir = w->fifo_path = NULL;
	}
}

void warm_drop(struct warm *w)
{
	remove_tree(w->dir.buf);
	w->restoring = 0;
}

/* QEMU's stream on its way to zstd, without guest RAM's zero pages */
struct filter {
	int in, out, ret;
	struct migstream_stats st;
	struct strbuf err;
};

static void *filter_main(void *arg)
{
	struct filter *f = arg;

	f->ret = migstream_drop_zero_pages(f->in, f->out, &f->st, &f->err);
	return NULL;
}

static int save_stream(struct backend *b, const char *tmpdir, struct migstream_stats *st,
		       struct strbuf *err)
{
	struct child_process zip = CHILD_PROCESS_INIT;
	struct filter f = { .err = STRBUF_INIT };
	char *path = xasprintf("%s/state.zst", tmpdir);
	int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), pfd[2], qfd[2];
	pthread_t t;
	int ret, zret;

	free(path);
	if (out < 0) {
		strbuf_addf(err, "cannot create the snapshot: %s", strerror(errno));
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		strbuf_addf(err, "pipe: %s", strerror(errno));
		close(out);
		return -1;
	}
	if (pipe2(qfd, O_CLOEXEC) < 0) {
		strbuf_addf(err, "pipe: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		close(out);
		return -1;
	}
	/* zero pages of guest RAM are left out (backend/migstream.h); zstd
	 * takes the rest (kernel text, page tables, the initrd's files) */
	strvec_pushl(&zip.args, "zstd", "-q", "-3", "-T2", "-c", NULL);
	zip.in = pfd[0];
	zip.out = out;
	zip.err = CHILD_DEVNULL;
	zip.new_pgrp = 1;
	zip.die_with_parent = 1;
	zip.errbuf = err;
	if (start_command(&zip) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		close(qfd[0]);
		close(qfd[1]);
		close(out);
		child_process_clear(&zip);
		return -1;
	}
	close(pfd[0]);
	close(out);
	f.in = qfd[0];
	f.out = pfd[1];
	if (pthread_create(&t, NULL, filter_main, &f)) {
		strbuf_addstr(err, "cannot start the stream filter");
		close(qfd[0]);
		close(qfd[1]);
		close(pfd[1]);
		finish_command_timeout(&zip, 120000);
		child_process_clear(&zip);
		return -1;
	}
	ret = b->ops->save(b, qfd[1], err);
	/* QEMU holds its own copy until the stream completes; ours ends the filter's input */
	close(qfd[1]);
	pthread_join(t, NULL);
	close(qfd[0]);
	close(pfd[1]);
	zret = finish_command_timeout(&zip, 120000);
	child_process_clear(&zip);
	if (!ret && f.ret < 0) {
		strbuf_addstr(err, f.err.buf);
		ret = -1;
	}
	if (!ret && zret) {
		strbuf_addf(err, "zstd exited with %d", zret);
		ret = -1;
	}
	*st = f.st;
	strbuf_release(&f.err);
	return ret;
}

/*
 * libvirt writes its save image itself, to a path (libvirt 9.0 takes no
 * fd, so no filter sits between QEMU and the file); zstd compresses it
 * afterwards, and the raw image goes.  saved.xml keeps its domain XML,
 * which each restore rewrites for its own run.
 */
static int save_image(struct backend *b, const char *tmpdir, int64_t *image_bytes,
		      struct strbuf *err)
{
	char *raw = xasprintf("%s/libvirt.save", tmpdir);
	char *state = xasprintf("%s/state.zst", tmpdir);
	char *xml_path = xasprintf("%s/saved.xml", tmpdir);
	const char *argv[] = { "zstd", "-q", "-3", "-T2", "-f", "-o", state, raw, NULL };
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	char *xml = NULL;
	struct stat st;
	int ret = -1, rc;

	if (b->ops->save_file(b, raw, &xml, err) < 0)
		goto out;
	*image_bytes = stat(raw, &st) ? -1 : (int64_t)st.st_size;
	if (write_file_atomic_err(xml_path, xml, strlen(xml), err) < 0)
		goto out;
	rc = run_command_capture(argv, 120000, &out, &errout);
	if (rc) {
		strbuf_addf(err, "zstd exited with %d: %s", rc, errout.buf);
		goto out;
	}
	ret = 0;
out:
	unlink(raw);
	free(raw);
	free(state);
	free(xml_path);
	free(xml);
	strbuf_release(&out);
	strbuf_release(&errout);
	return ret;
}

static void write_meta(const struct warm *w, const char *tmpdir, const char *backend,
		       uint64_t ram_mib, size_t prefix_len, const struct migstream_stats *ms,
		       int64_t image_bytes)
{
	struct json_object *o = json_object_new_object();
	char *path = xasprintf("%s/state.zst", tmpdir);
	const char *text;
	struct stat st;
	off_t state_bytes = stat(path, &st) ? -1 : st.st_size;

	free(path);
	path = xasprintf("%s/meta.json", tmpdir);
	json_object_object_add(o, "key", json_object_new_string(w->key));
	json_object_object_add(o, "created", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(o, "guest_ram_mib", json_object_new_int64((int64_t)ram_mib));
	json_object_object_add(o, "prefix_bytes", json_object_new_int64((int64_t)prefix_len));
	json_object_object_add(o, "save_s", json_object_new_double(w->save_s));
	json_object_object_add(o, "state_bytes", json_object_new_int64((int64_t)state_bytes));
	json_object_object_add(o, "backend", json_object_new_string(backend));
	if (image_bytes >= 0) {
		/* libvirt's image as libvirtd wrote it, before zstd */
		json_object_object_add(o, "libvirt_image_bytes", json_object_new_int64(image_bytes));
	} else {
		json_object_object_add(o, "ram_pages", json_object_new_int64((int64_t)ms->pages));
		json_object_object_add(o, "zero_pages_left_out",
				       json_object_new_int64((int64_t)ms->zero_dropped));
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	write_file_atomic(path, text, strlen(text));
	json_object_put(o);
	free(path);
}

int warm_save(struct warm *w, struct backend *b, const char *run_dir, uint64_t guest_ram_mib)
{
	struct strbuf err = STRBUF_INIT;
	struct migstream_stats st = { 0 };
	char *tmpdir, *path, *prefix;
	size_t plen = 0;
	uint64_t t0 = now_ns();
	int64_t image_bytes = -1;
	uint32_t seq;
	int ret = -1;

	if (!b->ops->save && !b->ops->save_file) {
		snprintf(w->why, sizeof(w->why), "the %s backend cannot save a guest", b->ops->name);
		return -1;
	}
	path = xasprintf("%s/records.bin", run_dir);
	prefix = read_file(path, &plen);
	free(path);
	if (!prefix || warm_prefix_next_seq(prefix, plen, &seq) < 0) {
		snprintf(w->why, sizeof(w->why), "records.bin holds no parked runner");
		free(prefix);
		return -1;
	}
	tmpdir = xasprintf("%s/snapshots/.tmp-%s-%ld", lab_cache_dir(), w->key, (long)getpid());
	remove_tree(tmpdir);
	if (mkdir_p(tmpdir, 0755) < 0) {
		snprintf(w->why, sizeof(w->why), "cannot create '%s': %s", tmpdir, strerror(errno));
		goto out;
	}
	if ((b->ops->save_file ? save_image(b, tmpdir, &image_bytes, &err) :
	     save_stream(b, tmpdir, &st, &err)) < 0) {
		snprintf(w->why, sizeof(w->why), "%s", err.buf);
		goto out;
	}
	path = xasprintf("%s/prefix.bin", tmpdir);
	ret = write_file_atomic_err(path, prefix, plen, &err);
	free(path);
	if (ret < 0) {
		snprintf(w->why, sizeof(w->why), "%s", err.buf);
		goto out;
	}
	w->save_s = (double)(now_ns() - t0) / 1e9;
	write_meta(w, tmpdir, b->ops->name, guest_ram_mib, plen, &st, image_bytes);
	path = xasprintf("%s/last-use", tmpdir);
	write_file_atomic(path, "", 0);
	free(path);
	/* a directory renames only onto nothing (or an empty one): the first
	 * lab to finish wins, the other's copy goes */
	if (rename(tmpdir, w->dir.buf) < 0) {
		if (errno != EEXIST && errno != ENOTEMPTY) {
			snprintf(w->why, sizeof(w->why), "cannot rename the snapshot into place: %s",
				 strerror(errno));
			ret = -1;
		}
	} else {
		w->saved = 1;
	}
out:
	if (!w->saved)
		remove_tree(tmpdir);
	free(tmpdir);
	free(prefix);
	strbuf_release(&err);
	return ret;
}
