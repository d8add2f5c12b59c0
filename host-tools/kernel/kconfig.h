/* kconfig.h - Kconfig fragments merged as merge_config.sh does, values in a
 * .config, and why a requested option did not survive olddefconfig. */
#ifndef LAB_KCONFIG_H
#define LAB_KCONFIG_H

#include <stddef.h>

#include "lib/util.h"

/*
 * One requested option of the merged fragments.  value is what follows '='
 * ("y", "m", "256", "\"str\"") or "n" for "# CONFIG_X is not set"; origin
 * is the fragment's name and line the line in it.
 */
struct kconfig_option {
	char *name;     /* without CONFIG_ */
	char *value;
	char *origin;
	unsigned line;
};

/* The options requested by fragments merged in order: a later fragment
 * overrides an earlier one, as merge_config.sh does.  Owns everything. */
struct kconfig_frags {
	struct kconfig_option *opt;
	size_t nr, alloc;
};
#define KCONFIG_FRAGS_INIT { NULL, 0, 0 }
void kconfig_frags_release(struct kconfig_frags *cfg);

/*
 * Adds the option lines of one fragment (its text, its name for messages).
 * Accepted lines: blank, "# comment", "CONFIG_X=value", "# CONFIG_X is not
 * set".  Anything else is refused: "fragment 'NAME' line N: ...".  Returns 0
 * or -1 with one line in err (cfg then holds the lines before the error).
 */
int kconfig_frags_add(struct kconfig_frags *cfg, const char *text, const char *name,
		      struct strbuf *err);

/* The requested value of option name ("X" or "CONFIG_X"), NULL if none. */
const struct kconfig_option *kconfig_frags_find(const struct kconfig_frags *cfg,
						 const char *name);

/* "CONFIG_X=value\n" for every option, sorted by name: what the cache key
 * hashes, so comments and the order of unrelated lines do not matter. */
void kconfig_frags_canonical(const struct kconfig_frags *cfg, struct strbuf *out);

/*
 * The value of option name ("X" or "CONFIG_X") in a .config text, as
 * written (a string keeps its quotes): 1 with it appended to value, 0 when
 * the text says "is not set" or does not mention it.
 */
int kconfig_value(const char *dotconfig, const char *name, struct strbuf *value);

/* The same, with "n" for "is not set" and for an option the text does not
 * mention (Kconfig writes nothing for an invisible option). */
void kconfig_dotconfig_value(const char *dotconfig, const char *name, struct strbuf *value);

/*
 * Compares every requested option with the .config olddefconfig wrote.
 * For each one that did not survive, appends one line to problems:
 * "CONFIG_X=y (lab-base:12) is n after olddefconfig: depends on A && B;
 * unmet: B=n" when srctree's Kconfig files define X, "... no such option in
 * this tree" when they do not.  srctree may be NULL (no dependency hints).
 * Returns the number of problems.
 */
size_t kconfig_check(const struct kconfig_frags *want, const char *dotconfig,
		     const char *srctree, struct strvec *problems);

/*
 * kconfig_check() for a tree configured for srcarch (its arch/ directory:
 * "x86", "arm64", "powerpc").  With absent non-NULL, an option that did not
 * survive because only other architectures define it is not a problem: one
 * line "CONFIG_X=y (frag line N) is not an option on arch/powerpc (only on
 * arm64,x86): left out" goes to absent instead.  Returns the problems.
 */
size_t kconfig_check_arch(const struct kconfig_frags *want, const char *dotconfig,
			  const char *srctree, const char *srcarch, struct strvec *problems,
			  struct strvec *absent);

/*
 * The "depends on" expressions of `config NAME` in srctree's Kconfig files
 * (arch/x86 and the generic directories; other architectures are skipped),
 * joined with " && ".  Returns 1 when the symbol is defined, 0 when not
 * found, -1 when srctree cannot be read.
 */
int kconfig_depends(const char *srctree, const char *name, struct strbuf *deps);
/* The same with arch/<srcarch> instead of arch/x86. */
int kconfig_depends_arch(const char *srctree, const char *srcarch, const char *name,
			 struct strbuf *deps);

/*
 * The arch/ directories other than srcarch whose Kconfig files define NAME,
 * sorted and comma-separated, appended to arches.  Returns how many, or -1
 * when srctree cannot be read.
 */
int kconfig_other_arches(const char *srctree, const char *srcarch, const char *name,
			 struct strbuf *arches);

#endif
