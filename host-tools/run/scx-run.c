/* scx-run.c - sched_ext schedulers and selftests into a run's initrd. */
#define _GNU_SOURCE
#include "run/scx-run.h"
#include "run/labrun.h"
#include "common/plan.h"
#include "kernel/initrd.h"
#include "kernel/kernel.h"
#include "scenario/scenario.h"
#include "scx/scx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Reads path and adds it to c as scx/<name>, checked to be static. */
static int add_binary(struct cpio *c, const char *name, const char *path, struct strbuf *err)
{
	size_t len = 0;
	char *data = read_file(path, &len), *inname;
	int ret;

	if (!data) {
		strbuf_addf(err, "cannot read sched_ext program '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = initrd_check_static("sched_ext program", path, (unsigned char *)data, len, err);
	if (!ret) {
		inname = xasprintf("scx/%s", name);
		ret = cpio_add_file(c, inname, 0755, data, len);
		free(inname);
		if (ret < 0)
			strbuf_addf(err, "sched_ext program '%s' is too large for a cpio archive", path);
	}
	free(data);
	return ret;
}

static int append_file(const char *path, const void *data, size_t len, struct strbuf *err)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, data, len);

	if (fd < 0 || n != (ssize_t)len) {
		strbuf_addf(err, "cannot append to '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

int lab_run_scx_resolve(struct lab_run *r, struct strbuf *err)
{
	const struct plan *p = r->plan;
	struct scx_build b = SCX_BUILD_INIT;
	struct strvec done = STRVEC_INIT;
	struct cpio c = CPIO_INIT;
	int need = 0, selftests = 0, built = 0, ret = -1;

	for (unsigned i = 0; i < p->nr_cases; i++) {
		need |= p->cases[i].scheduler[0] != '\0';
		selftests |= !strcmp(p->cases[i].workload, "scx_selftest");
	}
	if (!need && !selftests)
		return 0;
	if (r->warm || r->image_path) {
		strbuf_addf(err, "sched_ext schedulers travel in the lab's initrd: not with %s",
			    r->warm ? "--warm (a parked guest's initrd has none)" : "--image");
		return -1;
	}
	if (kernel_config_has(r->kp.config, "SCHED_CLASS_EXT") <= 0) {
		strbuf_addf(err, "kernel %s has no sched_ext (CONFIG_SCHED_CLASS_EXT is not set): "
			    "Debian's 7.x kernels have it (--kernel debian:7.2); 6.12 needs a "
			    "lab-built kernel (--config sched-ext)", r->kp.release);
		return -1;
	}
	cpio_add_dir(&c, "scx", 0755);
	for (unsigned i = 0; i < p->nr_cases; i++) {
		const char *name = p->cases[i].scheduler;
		char *path;
		int have = 0;

		for (size_t k = 0; k < done.nr; k++)
			have |= !strcmp(done.v[k], name);
		if (!*name || have)
			continue;
		strvec_push(&done, name);
		if (r->scx_path && !strcmp(base_name(r->scx_path), name)) {
			if (add_binary(&c, name, r->scx_path, err) < 0)
				goto out;
			continue;
		}
		if (!built && scx_for_kernel(&r->kp, r->topo.arch, !r->quiet, &b, err) != 0)
			goto out;
		built = 1;
		path = xasprintf("%s/bin/%s", b.dir, name);
		if (!is_file(path)) {
			strbuf_addf(err, "the sched_ext build %s (%s) has no %s", b.key, b.dir, name);
			free(path);
			goto out;
		}
		ret = add_binary(&c, name, path, err);
		free(path);
		if (ret < 0)
			goto out;
		ret = -1;
	}
	if (selftests) {
		char *path;

		if (!built && scx_for_kernel(&r->kp, r->topo.arch, !r->quiet, &b, err) != 0)
			goto out;
		built = 1;
		if (!b.selftests) {
			strbuf_addf(err, "the sched_ext build %s has no selftests (its tree has no "
				    "tools/testing/selftests/sched_ext)", b.key);
			goto out;
		}
		path = xasprintf("%s/selftests", b.dir);
		ret = add_binary(&c, "selftests", path, err);
		free(path);
		if (ret < 0)
			goto out;
		ret = -1;
	}
	if (built)
		snprintf(r->scx_key, sizeof(r->scx_key), "%s", b.key);
	cpio_finish(&c);
	if (!r->initrd_extra) {
		strbuf_addstr(err, "internal: a sched_ext run without a plan cpio");
		goto out;
	}
	ret = append_file(r->initrd_extra, c.buf.buf, c.buf.len, err);
out:
	cpio_release(&c);
	strvec_clear(&done);
	scx_build_release(&b);
	return ret;
}

struct sched_choice {
	const char *name, *ops, *args;
};

static void set_scheduler(struct plan_case *c, const void *ctx)
{
	const struct sched_choice *ch = ctx;

	snprintf(c->scheduler, sizeof(c->scheduler), "%s", ch->name);
	snprintf(c->scheduler_ops, sizeof(c->scheduler_ops), "%s", ch->ops);
	snprintf(c->scheduler_args, sizeof(c->scheduler_args), "%s", ch->args);
}

int plan_text_set_scheduler(struct strbuf *plan_text, const char *spec, const char **path,
			    struct strbuf *err)
{
	char name[PLAN_MAX_SCHED] = "", ops[PLAN_MAX_SCHED] = "", names[256];
	size_t n = strcspn(spec, " \t");
	const char *args = spec + n + strspn(spec + n, " \t");

	*path = NULL;
	if (strchr(spec, '/')) {
		if (*args) {
			strbuf_addf(err, "--scx PATH takes no arguments (a wrapper script cannot run "
				    "either: give a static program)");
			return -1;
		}
		if (!is_file(spec)) {
			strbuf_addf(err, "--scx '%s' is not a file", spec);
			return -1;
		}
		if (!plan_scheduler_name_ok(base_name(spec))) {
			strbuf_addf(err, "--scx '%s': its file name must be [A-Za-z0-9_.-]+, shorter than "
				    "%d characters", spec, PLAN_MAX_SCHED);
			return -1;
		}
		snprintf(name, sizeof(name), "%s", base_name(spec));
		*path = spec;
	} else if (strcmp(spec, "none")) {
		char word[PLAN_MAX_SCHED];
		const struct scx_sched *s = NULL;

		if (n && n < sizeof(word)) {
			memcpy(word, spec, n);
			word[n] = '\0';
			s = scx_sched_find(word);
		}
		if (!s) {
			strbuf_addf(err, "unknown sched_ext scheduler '%.*s' (%s; none; or a path to a "
				    "static one of your own)", (int)(n > 48 ? 48 : n), spec,
				    scx_sched_names(names, sizeof(names)));
			return -1;
		}
		snprintf(name, sizeof(name), "%s", s->binary);
		snprintf(ops, sizeof(ops), "%s", s->ops);
	}
	if (strlen(args) >= PLAN_MAX_FIELD || strpbrk(args, "\t\n")) {
		strbuf_addstr(err, "--scx: the arguments must be one line, shorter than 256 characters");
		return -1;
	}
	{
		struct sched_choice ch = { name, ops, *name ? args : "" };

		return plan_text_map(plan_text, set_scheduler, &ch, err);
	}
}

void plan_schedulers(const struct plan *p, struct strbuf *out)
{
	for (unsigned i = 0; i < p->nr_cases; i++) {
		const char *s = p->cases[i].scheduler;
		size_t n = strlen(s);
		const char *at = out->buf;
		int seen = 0;

		if (!n)
			continue;
		while (out->len && (at = strstr(at, s))) {
			if ((at == out->buf || at[-1] == ',') && (at[n] == ',' || !at[n]))
				seen = 1;
			at += n;
		}
		if (!seen)
			strbuf_addf(out, "%s%s", out->len ? "," : "", s);
	}
}
