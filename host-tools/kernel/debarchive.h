/* debarchive.h - Debian's archive through the lab's own apt configuration:
 * every suite's kernels by version (debian:6.12, debian:7.2-rt), never
 * touching the host's apt sources. */
#ifndef LAB_DEBARCHIVE_H
#define LAB_DEBARCHIVE_H

#include <stddef.h>

#include "lib/util.h"
#include "topo/topo.h"

/*
 * The suites the lab's apt configuration names, oldest first.  Each is
 * signed by a key in debian-archive-keyring and checked by apt as usual.
 */
extern const char *const debarchive_suites[];

/* One kernel image package of the archive. */
struct deb_kernel {
	char pkg[128];		/* linux-image-6.12.118+deb12-amd64 */
	char release[96];	/* 6.12.118+deb12-amd64: uname -r */
	char series[16];	/* 6.12 */
	char flavour[16];	/* "", "rt" or "cloud" */
	char version[64];	/* the Debian version, 6.12.118-1 */
	char suites[160];	/* the suites that have it: "bookworm-security trixie" */
	unsigned num[4];	/* major, minor, patch, ABI: the order within a series */
};

/*
 * A kernel spec naming Debian's archive: "debian:6.12", "debian:7.2-rt",
 * "debian:latest", "debian:latest-cloud".  1 with series ("6.12" or
 * "latest") and flavour ("", "rt", "cloud") filled, 0 when spec is not of
 * this form (a path, a key, plain "debian"), -1 with one line in err when
 * it starts with "debian:" but says nothing the archive could have.
 */
int debarchive_parse_spec(const char *spec, char series[16], char flavour[16], struct strbuf *err);

/*
 * Whether name is a versioned kernel image package of the Debian arch
 * whose plain flavour is base ("amd64", "arm64", "powerpc64le"): fills k's
 * pkg, release, series, flavour and num and returns 1; 0 for anything
 * else (meta packages such as linux-image-6.12-amd64, -dbg, -unsigned,
 * another arch's or another flavour's packages).
 */
int debarchive_parse_image(const char *name, const char *base, struct deb_kernel *k);

/*
 * `apt-cache madison` output ("pkg | version | URL suite/main arch
 * Packages" lines) into the kernels of list[] it names, for dpkg_arch:
 * their version and the suites that carry them.  Lines of other arches or
 * packages are skipped.  Returns how many lines were used.
 */
int debarchive_parse_madison(const char *text, const char *dpkg_arch, struct deb_kernel *list,
			     size_t n);

/* Adds the space-separated suites to k's, each once. */
void debarchive_add_suites(struct deb_kernel *k, const char *suites);

/* -1, 0, 1 as a is older, the same, newer than b (series, then patch, ABI). */
int debarchive_cmp(const struct deb_kernel *a, const struct deb_kernel *b);

/*
 * The newest kernel of list with series ("latest": any) and flavour, or
 * NULL.  Kernels no suite carries (not in madison's answer) are skipped.
 */
const struct deb_kernel *debarchive_pick(const struct deb_kernel *list, size_t n,
					 const char *series, const char *flavour);

/*
 * The package a split image package (7.x: linux-image-R depends on
 * linux-binary-R, linux-modules-R, linux-base-R) needs besides itself,
 * from its Depends field: each "linux-<part>-<release>" dependency pushed
 * to parts.  Returns how many.
 */
int debarchive_split_parts(const char *depends, const char *release, struct strvec *parts);

/*
 * Reads apt-get update's stderr e: 1 when its only errors are indexes that
 * failed to download (a mirror serves one inconsistently while it syncs:
 * "File has unexpected size ... Mirror sync in progress?"; apt keeps the
 * others), with each "Failed to fetch URL  REASON" appended to failed as
 * "URL (REASON)", separated by "; ".  0 when anything else went wrong.
 */
int debarchive_partial_update(const char *e, struct strbuf *failed);

/* The lab's apt directory: <cache>/apt. */
const char *debarchive_dir(void);

/*
 * Writes the lab's apt configuration and refreshes its package lists when
 * they are missing, older than a day, or force is set.  0, or -1 with one
 * line in err.  Indexes the mirror could not serve (while it syncs) are a
 * warning naming them; such lists are fresh for an hour.
 */
int debarchive_update(int force, struct strbuf *err);

/* The environment and argv start of an apt tool ("apt-get", "apt-cache")
 * run on the lab's configuration: APT_CONFIG=... into env. */
void debarchive_command(struct strvec *args, struct strvec *env, const char *tool);

/*
 * Every versioned kernel image of arch that a suite carries (after
 * debarchive_update()), sorted oldest first, into *list (malloc'ed).
 * Returns how many, or -1 with err.
 */
int debarchive_kernels(enum topo_arch arch, struct deb_kernel **list, struct strbuf *err);

/*
 * `apt-get download` of pkgs into dir through the lab's configuration,
 * once more after a refresh of the lists when the first try fails (a
 * suite that moved on has removed the file).  0 or -1 with err.
 */
int debarchive_download(const char *dir, const struct strvec *pkgs, struct strbuf *err);

/*
 * The linux-source-SERIES package of the archive ("debian:6.12",
 * "debian:latest"; no flavour: PREEMPT_RT is a config option of the
 * source), its newest version any suite carries, downloaded once into
 * <cache>/sources/linux-source-SERIES_VERSION/ and its tarball's path put
 * in tarball.  0, or -1 with one line in err (a series no suite has names
 * the ones that exist).
 */
int debarchive_fetch_source(const char *spec, struct strbuf *tarball, struct strbuf *err);

/*
 * QEMU VERSION (a Debian version, "1:10.0.2+ds-2+deb13u1~bpo12+1") for
 * x86-64 guests: qemu-system-x86, -common and -data unpacked once (dpkg-deb
 * -x, never installed) into <cache>/qemu/VERSION-without-epoch/root, whose
 * path goes into root; the binary is root/usr/bin/qemu-system-x86_64 and
 * its firmware root/usr/share/qemu.  0, or -1 with one line in err.
 */
int debarchive_fetch_qemu(const char *version, struct strbuf *root, struct strbuf *err);

#endif
