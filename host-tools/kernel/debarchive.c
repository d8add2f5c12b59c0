/* debarchive.c - Debian's archive through the lab's own apt configuration.
 *
 * <cache>/apt/ holds an apt.conf (APT_CONFIG) that points every directory
 * apt reads or writes at the lab's own: its sources list naming the suites
 * below (each signed by debian-archive-keyring, which apt checks as for
 * the host), its lists, archives and an empty dpkg status.  The host's
 * /etc/apt/sources.list* and /var/lib/apt are never read or written; the
 * host's apt.conf.d still applies (a proxy set there is the network's).
 * Nothing is installed: packages are only downloaded and unpacked. */
#define _GNU_SOURCE
#include "kernel/debarchive.h"
#include "kernel/kernel.h"
#include "kernel/kgen.h"
#include "lib/child.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define APT_UPDATE_TIMEOUT_MS (10 * 60 * 1000)
#define APT_QUERY_TIMEOUT_MS (2 * 60 * 1000)
#define APT_DOWNLOAD_TIMEOUT_MS (20 * 60 * 1000)
/* sid moves daily and removes what it replaced: lists older than this are
 * refreshed before they are used to pick a kernel */
#define LISTS_MAX_AGE_S (24 * 3600)

const char *const debarchive_suites[] = {
	"bookworm", "bookworm-security", "bookworm-backports",
	"trixie", "trixie-security", "sid", NULL,
};

static const char keyring[] = "/usr/share/keyrings/debian-archive-keyring.gpg";

int debarchive_parse_spec(const char *spec, char series[16], char flavour[16], struct strbuf *err)
{
	const char *p, *dash;
	size_t n;

	if (strncmp(spec, "debian:", 7))
		return 0;
	for (p = spec; *p; p++)
		if (!isgraph((unsigned char)*p))
			return kernel_error(err, "kernel name 'debian:...' has a blank or control character");
	p = spec + 7;
	dash = strchr(p, '-');
	n = dash ? (size_t)(dash - p) : strlen(p);
	series[0] = flavour[0] = '\0';
	if (n == 6 && !strncmp(p, "latest", 6)) {
		strcpy(series, "latest");
	} else {
		size_t dig1 = strspn(p, "0123456789"), dig2;

		if (!dig1 || dig1 > 3 || p[dig1] != '.')
			goto bad;
		dig2 = strspn(p + dig1 + 1, "0123456789");
		if (!dig2 || dig2 > 3 || dig1 + 1 + dig2 != n)
			goto bad;
		memcpy(series, p, n);
		series[n] = '\0';
	}
	if (dash) {
		if (strcmp(dash + 1, "rt") && strcmp(dash + 1, "cloud"))
			return kernel_error(err, "kernel '%s': unknown flavour '%s' (known: rt, cloud; "
					    "none for the generic kernel)", spec, dash + 1);
		strcpy(flavour, dash + 1);
	}
	return 1;
bad:
	return kernel_error(err, "kernel '%s' names no Debian kernel version: give debian:MAJOR.MINOR "
			    "(debian:6.12), with -rt or -cloud for a flavour, or debian:latest", spec);
}

/* "6.12.118+deb12" or "6.1.0-57" into num[]; 0 when it is no version
 * with at least major.minor.patch (a meta package has major.minor only). */
static int parse_release_numbers(const char *s, size_t len, unsigned num[4])
{
	size_t i = 0;
	int field = 0;

	memset(num, 0, 4 * sizeof(*num));
	while (i < len && field < 3) {
		size_t d = 0;
		unsigned long v = 0;

		while (i + d < len && isdigit((unsigned char)s[i + d]) && d < 6)
			v = v * 10 + (unsigned long)(s[i + d++] - '0');
		if (!d)
			return 0;
		num[field++] = (unsigned)v;
		i += d;
		if (i < len && s[i] == '.' && field < 3)
			i++;
		else
			break;
	}
	if (field < 3)
		return 0;
	/* 6.1.0-57: the ABI number orders 6.1's packages */
	if (i < len && s[i] == '-') {
		unsigned long v = 0;
		size_t d = 0;

		i++;
		while (i + d < len && isdigit((unsigned char)s[i + d]) && d < 6)
			v = v * 10 + (unsigned long)(s[i + d++] - '0');
		if (!d)
			return 0;
		num[3] = (unsigned)v;
		i += d;
	} else if (i < len && s[i] == '+') {
		/* 6.12.118+deb12: a Debian rebuild tag, letters and digits */
		i++;
		if (i >= len)
			return 0;
		while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '~' || s[i] == '.'))
			i++;
	}
	return i == len;
}

int debarchive_parse_image(const char *name, const char *base, struct deb_kernel *k)
{
	static const char prefix[] = "linux-image-";
	size_t len = strlen(name), blen = strlen(base), vlen;
	const char *v = name + sizeof(prefix) - 1, *end;
	const char *flav = "";

	memset(k, 0, sizeof(*k));
	if (len >= sizeof(k->pkg) || strncmp(name, prefix, sizeof(prefix) - 1) ||
	    !isdigit((unsigned char)*v) || len < sizeof(prefix) + blen + 1)
		return 0;
	end = name + len - blen;
	if (strcmp(end, base) || end[-1] != '-')
		return 0;
	end--;	/* at the '-' before base */
	if (end - v > 3 && !strncmp(end - 3, "-rt", 3)) {
		flav = "rt";
		end -= 3;
	} else if (end - v > 6 && !strncmp(end - 6, "-cloud", 6)) {
		flav = "cloud";
		end -= 6;
	}
	vlen = (size_t)(end - v);
	if (!parse_release_numbers(v, vlen, k->num))
		return 0;
	snprintf(k->pkg, sizeof(k->pkg), "%s", name);
	snprintf(k->release, sizeof(k->release), "%s", v);
	snprintf(k->series, sizeof(k->series), "%u.%u", k->num[0], k->num[1]);
	snprintf(k->flavour, sizeof(k->flavour), "%s", flav);
	return 1;
}

static int has_word(const char *list, const char *w, size_t n)
{
	for (const char *p = list; *p; ) {
		size_t l = strcspn(p, " ");

		if (l == n && !strncmp(p, w, n))
			return 1;
		p += l + (p[l] == ' ');
	}
	return 0;
}

static int known_suite(const char *w, size_t n)
{
	for (size_t i = 0; debarchive_suites[i]; i++)
		if (strlen(debarchive_suites[i]) == n && !strncmp(debarchive_suites[i], w, n))
			return 1;
	return 0;
}

static void append_word(char *out, size_t size, size_t *len, const char *w, size_t n)
{
	if (!n || *len + n + 2 > size)
		return;
	if (*len)
		out[(*len)++] = ' ';
	memcpy(out + *len, w, n);
	*len += n;
	out[*len] = '\0';
}

/* Adds suite to k's, which stay in debarchive_suites' order (oldest
 * first), suites the lab does not name after them. */
static void add_suite(struct deb_kernel *k, const char *suite, size_t n)
{
	char out[sizeof(k->suites)] = "";
	size_t len = 0;

	if (has_word(k->suites, suite, n))
		return;
	for (size_t i = 0; debarchive_suites[i]; i++) {
		const char *s = debarchive_suites[i];
		size_t sl = strlen(s);

		if (has_word(k->suites, s, sl) || (sl == n && !strncmp(s, suite, n)))
			append_word(out, sizeof(out), &len, s, sl);
	}
	for (const char *p = k->suites; *p; ) {
		size_t l = strcspn(p, " ");

		if (!known_suite(p, l))
			append_word(out, sizeof(out), &len, p, l);
		p += l + (p[l] == ' ');
	}
	if (!known_suite(suite, n))
		append_word(out, sizeof(out), &len, suite, n);
	memcpy(k->suites, out, len + 1);
}

/* Trims blanks around [s, s + n). */
static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

void debarchive_add_suites(struct deb_kernel *k, const char *suites)
{
	for (const char *p = suites; *p; ) {
		size_t w = strcspn(p, " ");

		if (w)
			add_suite(k, p, w);
		p += w + (p[w] == ' ');
	}
}

int debarchive_parse_madison(const char *text, const char *dpkg_arch, struct deb_kernel *list,
			     size_t n)
{
	const char *line = text;
	int used = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n'), *f[3], *suite, *slash;
		size_t fl[3], llen = nl ? (size_t)(nl - line) : strlen(line), archlen;
		const char *p = line;
		int nf = 0;

		for (; nf < 3; nf++) {
			const char *bar = memchr(p, '|', (size_t)(line + llen - p));

			f[nf] = p;
			fl[nf] = bar ? (size_t)(bar - p) : (size_t)(line + llen - p);
			trim(&f[nf], &fl[nf]);
			if (!bar)
				break;
			p = bar + 1;
		}
		line = nl ? nl + 1 : NULL;
		if (nf != 2 || !fl[0] || !fl[1] || fl[1] >= sizeof(list->version))
			continue;
		/* "http://deb.debian.org/debian sid/main amd64 Packages" */
		suite = memchr(f[2], ' ', fl[2]);
		if (!suite)
			continue;
		suite++;
		slash = memchr(suite, '/', (size_t)(f[2] + fl[2] - suite));
		if (!slash || slash == suite)
			continue;
		archlen = strlen(dpkg_arch);
		if ((size_t)(f[2] + fl[2] - slash) < archlen + 2)
			continue;
		{
			const char *a = memchr(slash, ' ', (size_t)(f[2] + fl[2] - slash));

			if (!a || strncmp(a + 1, dpkg_arch, archlen) || a[1 + archlen] != ' ')
				continue;
		}
		/* a foreign arch's package is named "pkg:arm64" */
		{
			const char *colon = memchr(f[0], ':', fl[0]);

			if (colon)
				fl[0] = (size_t)(colon - f[0]);
		}
		for (size_t i = 0; i < n; i++) {
			if (strlen(list[i].pkg) != fl[0] || strncmp(list[i].pkg, f[0], fl[0]))
				continue;
			/* the newest version wins; madison lists newest first */
			if (!list[i].version[0])
				snprintf(list[i].version, sizeof(list[i].version), "%.*s",
					 (int)fl[1], f[1]);
			add_suite(&list[i], suite, (size_t)(slash - suite));
			used++;
		}
	}
	return used;
}

int debarchive_cmp(const struct deb_kernel *a, const struct deb_kernel *b)
{
	for (int i = 0; i < 4; i++)
		if (a->num[i] != b->num[i])
			return a->num[i] < b->num[i] ? -1 : 1;
	return 0;
}

const struct deb_kernel *debarchive_pick(const struct deb_kernel *list, size_t n,
					 const char *series, const char *flavour)
{
	const struct deb_kernel *best = NULL;
	int any = !strcmp(series, "latest");

	for (size_t i = 0; i < n; i++) {
		const struct deb_kernel *k = &list[i];

		if (!k->suites[0] || strcmp(k->flavour, flavour) || (!any && strcmp(k->series, series)))
			continue;
		if (!best || debarchive_cmp(k, best) > 0)
			best = k;
	}
	return best;
}

int debarchive_split_parts(const char *depends, const char *release, struct strvec *parts)
{
	static const char *const kinds[] = { "linux-binary-", "linux-modules-", "linux-base-" };
	const char *p = depends;
	int n = 0;

	while (p && *p) {
		size_t w;

		p += strspn(p, " ,|\t\n");
		w = strcspn(p, " ,|(\t\n");
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
			size_t kl = strlen(kinds[i]);

			if (w == kl + strlen(release) && !strncmp(p, kinds[i], kl) &&
			    !strncmp(p + kl, release, strlen(release))) {
				strvec_pushf(parts, "%.*s", (int)w, p);
				n++;
			}
		}
		p += w;
		/* skip a version constraint "(= 7.2.13-1)" */
		p += strspn(p, " \t");
		if (*p == '(') {
			const char *close = strchr(p, ')');

			p = close ? close + 1 : p + strlen(p);
		}
	}
	return n;
}

const char *debarchive_dir(void)
{
	static char *dir;

	if (!dir)
		dir = xasprintf("%s/apt", lab_cache_dir());
	return dir;
}

static char *conf_path(void)
{
	return xasprintf("%s/apt.conf", debarchive_dir());
}

void debarchive_command(struct strvec *args, struct strvec *env, const char *tool)
{
	char *conf = conf_path();

	strvec_pushf(env, "APT_CONFIG=%s", conf);
	strvec_push(args, tool);
	/* The host may turn the binary cache off in apt.conf.d (Docker
	 * images do), which is read after APT_CONFIG; without it each query
	 * parses every suite's lists again (14 s here).  -o wins over both. */
	strvec_push(args, "-o");
	strvec_push(args, "Dir::Cache::pkgcache=pkgcache.bin");
	strvec_push(args, "-o");
	strvec_push(args, "Dir::Cache::srcpkgcache=srcpkgcache.bin");
	free(conf);
}

/* The configuration files; rewritten when their text changes. */
static int write_config(struct strbuf *err)
{
	const char *d = debarchive_dir();
	const char *sub[] = { "lists/partial", "archives/partial", "cache", "sources.list.d",
			      "preferences.d" };
	struct strbuf src = STRBUF_INIT, conf = STRBUF_INIT;
	char *path;
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sub) && !ret; i++) {
		path = xasprintf("%s/%s", d, sub[i]);
		if (mkdir_p(path, 0755) < 0)
			ret = kernel_error(err, "cannot create directory '%s': %s", path, strerror(errno));
		free(path);
	}
	if (ret)
		goto out;
	strbuf_addstr(&src, "# written by the lab: the suites its kernels come from\n");
	for (size_t i = 0; debarchive_suites[i]; i++) {
		const char *s = debarchive_suites[i];
		const char *uri = strstr(s, "-security") ? "http://deb.debian.org/debian-security" :
			"http://deb.debian.org/debian";

		strbuf_addf(&src, "deb [arch=amd64,arm64,ppc64el signed-by=%s] %s %s main\n", keyring,
			    uri, s);
	}
	strbuf_addf(&conf,
		    "// written by the lab: apt on the lab's own sources and state only\n"
		    "Dir::Etc::SourceList \"%s/sources.list\";\n"
		    "Dir::Etc::SourceParts \"%s/sources.list.d\";\n"
		    "Dir::Etc::Preferences \"%s/preferences\";\n"
		    "Dir::Etc::PreferencesParts \"%s/preferences.d\";\n"
		    "Dir::State::Lists \"%s/lists\";\n"
		    "Dir::State::Status \"%s/status\";\n"
		    "Dir::Cache \"%s/cache\";\n"
		    "Dir::Cache::Archives \"%s/archives\";\n"

		    "APT::Architectures { \"amd64\"; \"arm64\"; \"ppc64el\"; };\n"
		    "Acquire::Languages \"none\";\n"
		    "APT::Sandbox::User \"root\";\n",
		    d, d, d, d, d, d, d, d);
	{
		struct {
			const char *name;
			const struct strbuf *text;
		} files[] = { { "sources.list", &src }, { "apt.conf", &conf } };

		for (size_t i = 0; i < ARRAY_SIZE(files) && !ret; i++) {
			char *old;

			path = xasprintf("%s/%s", d, files[i].name);
			old = read_file(path, NULL);
			if ((!old || strcmp(old, files[i].text->buf)) &&
			    write_file_atomic_err(path, files[i].text->buf, files[i].text->len, err) < 0)
				ret = -1;
			free(old);
			free(path);
		}
		path = xasprintf("%s/status", d);
		if (!ret && !is_file(path) && write_file_atomic_err(path, "", 0, err) < 0)
			ret = -1;
		free(path);
	}
out:
	strbuf_release(&src);
	strbuf_release(&conf);
	return ret;
}

/*
 * One apt at a time on the lab's configuration: labs run side by side
 * (lab ab --jobs), and apt refuses a second one with "Unable to lock
 * directory".  Held for the whole call, nested calls of one process
 * share it.
 */
static int apt_lock_fd = -1, apt_lock_depth;

static void apt_lock(void)
{
	char *p;

	if (apt_lock_depth++)
		return;
	p = xasprintf("%s/lab.lock", debarchive_dir());
	apt_lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(p);
	if (apt_lock_fd >= 0)
		while (flock(apt_lock_fd, LOCK_EX) < 0 && errno == EINTR)
			;
}

static void apt_unlock(void)
{
	if (--apt_lock_depth)
		return;
	if (apt_lock_fd >= 0)
		close(apt_lock_fd);
	apt_lock_fd = -1;
}

int debarchive_partial_update(const char *e, struct strbuf *failed)
{
	int partial = 0, other = 0;

	for (const char *l = e; l && *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		if (len > 3 && !strncmp(l, "E: ", 3)) {
			if (!strncmp(l, "E: Failed to fetch ", 19)) {
				const char *url = l + 19;
				size_t ul = strcspn(url, " \n");
				const char *why = url + ul;

				while (*why == ' ')
					why++;
				strbuf_addf(failed, "%s%.*s (%.*s)", failed->len ? "; " : "", (int)ul, url,
					    (int)(l + len - why), why);
			} else if (!strncmp(l, "E: Some index files failed to download", 38)) {
				partial = 1;
			} else {
				other = 1;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return partial && !other && failed->len;
}

/*
 * Runs an apt tool on the lab's configuration; stdout into out.  With
 * failed, a partial update (debarchive_partial_update()) is success, the indexes it
 * lacks in failed.
 */
static int run_apt_partial(const char *dir, int timeout_ms, struct strbuf *out, struct strbuf *err,
			   const char *tool, const struct strvec *more, struct strbuf *failed)
{
	struct child_process cp = CHILD_PROCESS_INIT;
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	int code;

	debarchive_command(&cp.args, &cp.env, tool);
	for (size_t i = 0; i < more->nr; i++)
		strvec_push(&cp.args, more->v[i]);
	cp.dir = dir;
	cp.in = CHILD_DEVNULL;
	cp.new_pgrp = 1;
	cp.die_with_parent = 1;
	cp.errbuf = err;
	apt_lock();
	code = child_capture(&cp, timeout_ms, out ? out : &o, &e);
	apt_unlock();
	if (code == CHILD_TIMED_OUT) {
		kernel_error(err, "'%s %s' did not finish in %d s", tool, more->v[0], timeout_ms / 1000);
	} else if (code > 0 && failed && debarchive_partial_update(e.buf, failed)) {
		code = 0;
	} else if (code > 0) {
		/* apt's last E: line says why; W: lines about the sandbox are noise */
		const char *why = NULL;

		for (char *l = e.buf; l && *l; ) {
			char *nl = strchr(l, '\n');

			if (nl)
				*nl = '\0';
			if (!strncmp(l, "E: ", 3))
				why = l + 3;
			l = nl ? nl + 1 : NULL;
		}
		kernel_error(err, "'%s %s' on the lab's apt configuration (%s) failed (exit %d): %s",
			     tool, more->v[0], debarchive_dir(), code, why ? why : "no message");
	}
	child_process_clear(&cp);
	strbuf_release(&o);
	strbuf_release(&e);
	return code ? -1 : 0;
}

/* Runs an apt tool on the lab's configuration; stdout into out. */
static int run_apt(const char *dir, int timeout_ms, struct strbuf *out, struct strbuf *err,
		   const char *tool, const struct strvec *more)
{
	return run_apt_partial(dir, timeout_ms, out, err, tool, more, NULL);
}

static int lists_fresh(void)
{
	char *p = xasprintf("%s/lists/stamp", debarchive_dir());
	struct stat st;
	int fresh = stat(p, &st) == 0 && time(NULL) - st.st_mtime < LISTS_MAX_AGE_S;

	free(p);
	return fresh;
}

int debarchive_update(int force, struct strbuf *err)
{
	struct strbuf failed = STRBUF_INIT;
	struct strvec a = STRVEC_INIT;
	char *stamp;
	int ret;

	if (write_config(err) < 0)
		return -1;
	if (!force && lists_fresh())
		return 0;
	apt_lock();
	/* another lab may have refreshed them while we waited */
	if (!force && lists_fresh()) {
		apt_unlock();
		return 0;
	}
	if (isatty(STDERR_FILENO))
		info("refreshing the lab's Debian package lists (%s)", debarchive_dir());
	strvec_pushl(&a, "update", "-q", (const char *)NULL);
	ret = run_apt_partial(NULL, APT_UPDATE_TIMEOUT_MS, NULL, err, "apt-get", &a, &failed);
	strvec_clear(&a);
	if (ret == 0) {
		stamp = xasprintf("%s/lists/stamp", debarchive_dir());
		ret = write_file_atomic_err(stamp, "", 0, err);
		/* lists with holes are fresh for an hour, not a day */
		if (!ret && failed.len) {
			struct timespec t[2] = { { .tv_sec = time(NULL) - LISTS_MAX_AGE_S + 3600 } };

			t[1] = t[0];
			utimensat(AT_FDCWD, stamp, t, 0);
			warning("the lab's apt lists lack what the mirror could not serve: %s; "
				"going on with the other indexes (retried in an hour)", failed.buf);
		}
		free(stamp);
	}
	strbuf_release(&failed);
	apt_unlock();
	return ret;
}

/* The plain flavour's name in package names: amd64, arm64, powerpc64le. */
static void arch_base(enum topo_arch arch, char *out, size_t size)
{
	const char *meta = topo_arch_info(arch)->kernel_meta + strlen("linux-image-");

	snprintf(out, size, "%.*s", (int)strcspn(meta, ":"), meta);
}

static int cmp_kernels(const void *a, const void *b)
{
	const struct deb_kernel *x = a, *y = b;
	int c = debarchive_cmp(x, y);

	return c ? c : strcmp(x->flavour, y->flavour);
}

int debarchive_kernels(enum topo_arch arch, struct deb_kernel **list, struct strbuf *err)
{
	struct strvec a = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	struct deb_kernel *l = NULL;
	size_t n = 0, cap = 0, kept = 0;
	char base[32];
	int ret = -1;

	*list = NULL;
	arch_base(arch, base, sizeof(base));
	strvec_pushl(&a, "pkgnames", "linux-image-", (const char *)NULL);
	if (run_apt(NULL, APT_QUERY_TIMEOUT_MS, &out, err, "apt-cache", &a) < 0)
		goto out;
	for (char *line = out.buf; line && *line; ) {
		char *nl = strchr(line, '\n'), *sp;
		struct deb_kernel k;

		if (nl)
			*nl = '\0';
		sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		if (debarchive_parse_image(line, base, &k)) {
			int dup = 0;

			for (size_t i = 0; i < n && !dup; i++)
				dup = !strcmp(l[i].pkg, k.pkg);
			if (!dup) {
				if (n == cap) {
					cap = cap ? 2 * cap : 64;
					l = xrealloc(l, cap * sizeof(*l));
				}
				l[n++] = k;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!n) {
		*list = NULL;
		ret = 0;
		goto out;
	}
	strvec_clear(&a);
	strvec_push(&a, "madison");
	for (size_t i = 0; i < n; i++)
		strvec_pushf(&a, "%s%s%s", l[i].pkg, arch == TOPO_ARCH_X86_64 ? "" : ":",
			     arch == TOPO_ARCH_X86_64 ? "" : topo_arch_info(arch)->dpkg_arch);
	strbuf_reset(&out);
	if (run_apt(NULL, APT_QUERY_TIMEOUT_MS, &out, err, "apt-cache", &a) < 0)
		goto out;
	debarchive_parse_madison(out.buf, topo_arch_info(arch)->dpkg_arch, l, n);
	for (size_t i = 0; i < n; i++)
		if (l[i].suites[0])
			l[kept++] = l[i];
	qsort(l, kept, sizeof(*l), cmp_kernels);
	*list = l;
	l = NULL;
	ret = (int)kept;
out:
	free(l);
	strvec_clear(&a);
	strbuf_release(&out);
	return ret;
}

int debarchive_download(const char *dir, const struct strvec *pkgs, struct strbuf *err)
{
	struct strvec a = STRVEC_INIT;
	int ret;

	strvec_pushl(&a, "download", "-q", (const char *)NULL);
	for (size_t i = 0; i < pkgs->nr; i++)
		strvec_push(&a, pkgs->v[i]);
	ret = run_apt(dir, APT_DOWNLOAD_TIMEOUT_MS, NULL, err, "apt-get", &a);
	if (ret < 0 && lists_fresh()) {
		/* the lists are fresh: a failure is not an outdated file name */
		strvec_clear(&a);
		return -1;
	}
	if (ret < 0) {
		strbuf_reset(err);
		ret = debarchive_update(1, err);
		if (!ret)
			ret = run_apt(dir, APT_DOWNLOAD_TIMEOUT_MS, NULL, err, "apt-get", &a);
	}
	strvec_clear(&a);
	return ret;
}

/* The newest version and the series of linux-source-* that madison lists
 * for series ("latest": the newest series); available gets every series. */
static int pick_source(const char *series, char *pkg, size_t pkgsize, char *version,
		       size_t versize, struct strbuf *available, struct strbuf *err)
{
	struct strvec a = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	struct deb_kernel best;
	int ret = -1, found = 0;

	memset(&best, 0, sizeof(best));
	strvec_pushl(&a, "pkgnames", "linux-source-", (const char *)NULL);
	if (run_apt(NULL, APT_QUERY_TIMEOUT_MS, &out, err, "apt-cache", &a) < 0)
		goto out;
	strvec_clear(&a);
	strvec_push(&a, "madison");
	for (char *l = out.buf; l && *l; ) {
		char *nl = strchr(l, '\n');
		unsigned v;

		if (nl)
			*nl = '\0';
		/* linux-source-6.12: a series; linux-source (the meta) is not */
		v = kgen_version(l + strlen("linux-source-"));
		if (!strncmp(l, "linux-source-", 13) && v &&
		    strspn(l + 13, "0123456789.") == strlen(l + 13))
			strvec_push(&a, l);
		l = nl ? nl + 1 : NULL;
	}
	if (a.nr == 1) {
		kernel_error(err, "no suite of the Debian archive has a linux-source package");
		goto out;
	}
	strbuf_reset(&out);
	if (run_apt(NULL, APT_QUERY_TIMEOUT_MS, &out, err, "apt-cache", &a) < 0)
		goto out;
	for (char *l = out.buf; l && *l; ) {
		char *nl = strchr(l, '\n'), name[64], ver[64];
		unsigned v;

		if (nl)
			*nl = '\0';
		if (sscanf(l, "%63s | %63s |", name, ver) == 2 && !strncmp(name, "linux-source-", 13) &&
		    (v = kgen_version(name + 13))) {
			char ser[16];

			snprintf(ser, sizeof(ser), "%u.%u", v / 1000, v % 1000);
			if (!strstr(available->buf, ser) || strstr(available->buf, ser)[strlen(ser)] == '.')
				strbuf_addf(available, "%s%s", available->len ? ", " : "", ser);
			/* madison lists each package's versions newest first */
			if ((!strcmp(series, "latest") && (!found || v > kgen_version(best.series))) ||
			    (!found && !strcmp(series, ser))) {
				snprintf(best.series, sizeof(best.series), "%s", ser);
				snprintf(pkg, pkgsize, "%s", name);
				snprintf(version, versize, "%s", ver);
				found = 1;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	if (!found)
		kernel_error(err, "no suite of the Debian archive has linux-source-%s; it has %s", series,
			     available->len ? available->buf : "none");
	else
		ret = 0;
out:
	strvec_clear(&a);
	strbuf_release(&out);
	return ret;
}

int debarchive_fetch_source(const char *spec, struct strbuf *tarball, struct strbuf *err)
{
	char series[16], flavour[16], pkg[64], version[64];
	struct strbuf avail = STRBUF_INIT, dir = STRBUF_INIT, work = STRBUF_INIT, deb = STRBUF_INIT;
	struct strvec one = STRVEC_INIT;
	char *src = NULL;
	int r = debarchive_parse_spec(spec, series, flavour, err), ret = -1;

	if (r <= 0)
		return r < 0 ? -1 : kernel_error(err, "'%s' is not debian:VERSION", spec);
	if (flavour[0])
		return kernel_error(err, "'%s': a source has no flavour (PREEMPT_RT and the cloud "
				    "options are config: give --config with them)", spec);
	if (debarchive_update(0, err) < 0)
		return -1;
	if (pick_source(series, pkg, sizeof(pkg), version, sizeof(version), &avail, err) < 0)
		goto out;
	strbuf_addf(&dir, "%s/sources/%s_%s", lab_cache_dir(), pkg, version);
	strbuf_addf(tarball, "%s/%s.tar.xz", dir.buf, pkg);
	if (is_file(tarball->buf)) {
		ret = 0;
		goto out;
	}
	strbuf_addf(&work, "%s.tmp.%ld", dir.buf, (long)getpid());
	remove_tree(work.buf);
	if (mkdir_p(work.buf, 0755) < 0) {
		kernel_error(err, "cannot create directory '%s': %s", work.buf, strerror(errno));
		goto out;
	}
	if (isatty(STDERR_FILENO))
		info("fetching %s %s from the Debian archive", pkg, version);
	strvec_pushf(&one, "%s=%s", pkg, version);
	if (debarchive_download(work.buf, &one, err) < 0)
		goto fail;
	{
		const char *argv[] = { "dpkg-deb", "-x", NULL, NULL, NULL };
		char *name = xasprintf("%s_", pkg);
		struct strbuf x = STRBUF_INIT;

		strbuf_addf(&x, "%s/x", work.buf);
		if (kernel_find_one(work.buf, name, ".deb", &deb) < 0) {
			kernel_error(err, "'apt-get download %s' left no single .deb in '%s'", pkg, work.buf);
			free(name);
			strbuf_release(&x);
			goto fail;
		}
		free(name);
		argv[2] = deb.buf;
		argv[3] = x.buf;
		if (run_command_capture(argv, 10 * 60 * 1000, NULL, NULL) != 0) {
			kernel_error(err, "'dpkg-deb -x %s' failed", deb.buf);
			strbuf_release(&x);
			goto fail;
		}
		src = xasprintf("%s/usr/src/%s.tar.xz", x.buf, pkg);
		strbuf_release(&x);
	}
	{
		char *dst = xasprintf("%s/%s.tar.xz", work.buf, pkg), *xdir = xasprintf("%s/x", work.buf);
		int bad = rename(src, dst) < 0;

		if (bad)
			kernel_error(err, "package %s has no usr/src/%s.tar.xz", pkg, pkg);
		remove_tree(xdir);
		unlink(deb.buf);
		free(dst);
		free(xdir);
		if (bad)
			goto fail;
	}
	if (rename(work.buf, dir.buf) < 0 && !is_file(tarball->buf)) {
		kernel_error(err, "cannot rename '%s' to '%s': %s", work.buf, dir.buf, strerror(errno));
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	remove_tree(work.buf);
out:
	free(src);
	remove_tree(work.buf);
	strbuf_release(&avail);
	strbuf_release(&dir);
	strbuf_release(&work);
	strbuf_release(&deb);
	strvec_clear(&one);
	return ret;
}

/* The directory name of a Debian version: its epoch ("1:") dropped. */
static const char *version_dir(const char *version)
{
	const char *colon = strchr(version, ':');

	return colon ? colon + 1 : version;
}

int debarchive_fetch_qemu(const char *version, struct strbuf *root, struct strbuf *err)
{
	static const char *const pkgs[] = { "qemu-system-x86", "qemu-system-common",
					    "qemu-system-data" };
	struct strbuf dir = STRBUF_INIT, work = STRBUF_INIT, bin = STRBUF_INIT;
	struct strvec want = STRVEC_INIT;
	int ret = -1;

	strbuf_addf(&dir, "%s/qemu/%s", lab_cache_dir(), version_dir(version));
	strbuf_addf(&bin, "%s/root/usr/bin/qemu-system-x86_64", dir.buf);
	if (!access(bin.buf, X_OK)) {
		strbuf_addf(root, "%s/root", dir.buf);
		ret = 0;
		goto out;
	}
	if (debarchive_update(0, err) < 0)
		goto out;
	/* a dot: lab cache neither lists nor prunes it while it is written */
	strbuf_addf(&work, "%s/qemu/.tmp-%s.%ld", lab_cache_dir(), version_dir(version),
		    (long)getpid());
	remove_tree(work.buf);
	if (mkdir_p(work.buf, 0755) < 0) {
		kernel_error(err, "cannot create directory '%s': %s", work.buf, strerror(errno));
		goto out;
	}
	if (isatty(STDERR_FILENO))
		info("fetching QEMU %s from the Debian archive", version);
	for (size_t i = 0; i < ARRAY_SIZE(pkgs); i++)
		strvec_pushf(&want, "%s=%s", pkgs[i], version);
	if (debarchive_download(work.buf, &want, err) < 0)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(pkgs); i++) {
		const char *argv[] = { "dpkg-deb", "-x", NULL, NULL, NULL };
		struct strbuf deb = STRBUF_INIT, x = STRBUF_INIT;
		char *name = xasprintf("%s_", pkgs[i]);
		int bad;

		strbuf_addf(&x, "%s/root", work.buf);
		bad = kernel_find_one(work.buf, name, ".deb", &deb) < 0;
		if (bad)
			kernel_error(err, "'apt-get download %s' left no single .deb in '%s'",
				     pkgs[i], work.buf);
		if (!bad) {
			argv[2] = deb.buf;
			argv[3] = x.buf;
			bad = run_command_capture(argv, 10 * 60 * 1000, NULL, NULL) != 0;
			if (bad)
				kernel_error(err, "'dpkg-deb -x %s' failed", deb.buf);
			else
				unlink(deb.buf);
		}
		free(name);
		strbuf_release(&deb);
		strbuf_release(&x);
		if (bad)
			goto out;
	}
	strbuf_reset(&bin);
	strbuf_addf(&bin, "%s/root/usr/bin/qemu-system-x86_64", work.buf);
	if (access(bin.buf, X_OK)) {
		kernel_error(err, "qemu-system-x86 %s has no usr/bin/qemu-system-x86_64", version);
		goto out;
	}
	{
		/* a library the host lacks (libaio1: install-deps) fails here,
		 * once, rather than at every boot */
		const char *argv[] = { bin.buf, "--version", NULL };
		struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
		char *nl;
		int bad = run_command_capture(argv, 10000, &o, &e) != 0;

		nl = strchr(e.buf, '\n');
		if (nl)
			*nl = '\0';
		if (bad)
			kernel_error(err, "QEMU %s does not run on this host: %s", version,
				     e.len ? e.buf : "no output");
		strbuf_release(&o);
		strbuf_release(&e);
		if (bad)
			goto out;
	}
	/* another lab may have won the race: its copy is as good */
	if (mkdir_p(dir.buf, 0755) < 0 && errno != EEXIST) {
		kernel_error(err, "cannot create directory '%s': %s", dir.buf, strerror(errno));
		goto out;
	}
	{
		char *from = xasprintf("%s/root", work.buf), *to = xasprintf("%s/root", dir.buf);

		if (rename(from, to) < 0 && access(to, F_OK)) {
			kernel_error(err, "cannot rename '%s' to '%s': %s", from, to, strerror(errno));
			free(from);
			free(to);
			goto out;
		}
		free(from);
		free(to);
	}
	strbuf_addf(root, "%s/root", dir.buf);
	ret = 0;
out:
	if (work.len)
		remove_tree(work.buf);
	strbuf_release(&dir);
	strbuf_release(&work);
	strbuf_release(&bin);
	strvec_clear(&want);
	return ret;
}
