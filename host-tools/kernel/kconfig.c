/* kconfig.c - Kconfig fragments merged as merge_config.sh does, values in a
 * .config, and why an option did not survive olddefconfig (its unmet
 * "depends on", evaluated against the .config). */
#define _GNU_SOURCE
#include "kernel/kconfig.h"

#include <ctype.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- fragments and .config ---- */

void kconfig_frags_release(struct kconfig_frags *cfg)
{
	for (size_t i = 0; i < cfg->nr; i++) {
		free(cfg->opt[i].name);
		free(cfg->opt[i].value);
		free(cfg->opt[i].origin);
	}
	free(cfg->opt);
	cfg->opt = NULL;
	cfg->nr = cfg->alloc = 0;
}

static int is_sym_char(int c)
{
	return isalnum(c) || c == '_';
}

/* Length of the symbol at s (letters, digits, '_'). */
static size_t sym_len(const char *s)
{
	size_t n = 0;

	while (is_sym_char((unsigned char)s[n]))
		n++;
	return n;
}

static const char *strip_config(const char *name)
{
	return strncmp(name, "CONFIG_", 7) ? name : name + 7;
}

const struct kconfig_option *kconfig_frags_find(const struct kconfig_frags *cfg,
						 const char *name)
{
	name = strip_config(name);
	for (size_t i = 0; i < cfg->nr; i++)
		if (!strcmp(cfg->opt[i].name, name))
			return &cfg->opt[i];
	return NULL;
}

static void config_set(struct kconfig_frags *cfg, const char *name, size_t nlen,
		       const char *value, size_t vlen, const char *origin, unsigned line)
{
	struct kconfig_option *o = NULL;

	for (size_t i = 0; i < cfg->nr; i++)
		if (strlen(cfg->opt[i].name) == nlen && !strncmp(cfg->opt[i].name, name, nlen))
			o = &cfg->opt[i];
	if (!o) {
		if (cfg->nr == cfg->alloc) {
			cfg->alloc = cfg->alloc ? 2 * cfg->alloc : 32;
			cfg->opt = xrealloc(cfg->opt, cfg->alloc * sizeof(*cfg->opt));
		}
		o = &cfg->opt[cfg->nr++];
		o->name = strndup(name, nlen);
		if (!o->name)
			die(LAB_EXIT_FAIL, "out of memory");
	} else {
		free(o->value);
		free(o->origin);
	}
	o->value = strndup(value, vlen);
	if (!o->value)
		die(LAB_EXIT_FAIL, "out of memory");
	o->origin = xstrdup(origin);
	o->line = line;
}

int kconfig_frags_add(struct kconfig_frags *cfg, const char *text, const char *name,
		      struct strbuf *err)
{
	static const char unset_tail[] = " is not set";
	unsigned lineno = 0;

	for (const char *line = text; line && *line; ) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *p = line;

		lineno++;
		while (len && isspace((unsigned char)line[len - 1]))
			len--;
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (!len) {
			/* blank */
		} else if (!strncmp(p, "# CONFIG_", 9)) {
			size_t n = sym_len(p + 9);
			size_t tail = sizeof(unset_tail) - 1;

			if (n && 9 + n + tail == len && !strncmp(p + 9 + n, unset_tail, tail))
				config_set(cfg, p + 9, n, "n", 1, name, lineno);
			else if (n && p[9 + n] == '=')
				goto bad; /* a commented-out assignment is a mistake, not a comment */
		} else if (*p == '#') {
			/* a comment: the reason for the option below it */
		} else if (!strncmp(p, "CONFIG_", 7)) {
			size_t n = sym_len(p + 7);
			const char *v = p + 7 + n;
			size_t vlen = len - 7 - n;

			if (!n || *v != '=' || vlen < 2) {
				strbuf_addf(err, "fragment '%s' line %u: expected CONFIG_NAME=value, "
					    "got '%.*s'", name, lineno, (int)len, p);
				return -1;
			}
			/* A string is one quoted token; anything else has no spaces
			 * and no '#': comments go on their own line. */
			if (v[1] == '"' ? (vlen < 3 || v[vlen - 1] != '"')
					: (memchr(v, '#', vlen) || memchr(v, ' ', vlen) ||
					   memchr(v, '\t', vlen))) {
				strbuf_addf(err, "fragment '%s' line %u: text after the value in "
					    "'%.*s' (comments go on their own line)",
					    name, lineno, (int)len, p);
				return -1;
			}
			config_set(cfg, p + 7, n, v + 1, vlen - 1, name, lineno);
		} else {
			goto bad;
		}
		line = nl ? nl + 1 : NULL;
		continue;
bad:
		strbuf_addf(err, "fragment '%s' line %u: not an option or a comment: '%.*s'",
			    name, lineno, (int)len, p);
		return -1;
	}
	return 0;
}

static int cmp_option(const void *a, const void *b)
{
	const struct kconfig_option *x = *(const struct kconfig_option *const *)a;
	const struct kconfig_option *y = *(const struct kconfig_option *const *)b;

	return strcmp(x->name, y->name);
}

void kconfig_frags_canonical(const struct kconfig_frags *cfg, struct strbuf *out)
{
	const struct kconfig_option **v = xcalloc(cfg->nr ? cfg->nr : 1, sizeof(*v));

	for (size_t i = 0; i < cfg->nr; i++)
		v[i] = &cfg->opt[i];
	qsort(v, cfg->nr, sizeof(*v), cmp_option);
	for (size_t i = 0; i < cfg->nr; i++)
		strbuf_addf(out, "CONFIG_%s=%s\n", v[i]->name, v[i]->value);
	free(v);
}

int kconfig_value(const char *dotconfig, const char *name, struct strbuf *value)
{
	size_t n;

	name = strip_config(name);
	n = strlen(name);
	for (const char *line = dotconfig; line && *line; ) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len && line[len - 1] == '\r')
			len--;
		if (len > 7 + n && !strncmp(line, "CONFIG_", 7) && !strncmp(line + 7, name, n) &&
		    line[7 + n] == '=') {
			strbuf_add(value, line + 8 + n, len - 8 - n);
			return 1;
		}
		if (len > 9 + n && !strncmp(line, "# CONFIG_", 9) && !strncmp(line + 9, name, n) &&
		    !strncmp(line + 9 + n, " is not set", len - 9 - n))
			return 0;
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

void kconfig_dotconfig_value(const char *dotconfig, const char *name, struct strbuf *value)
{
	if (!kconfig_value(dotconfig, name, value))
		strbuf_addstr(value, "n");
}

/* ---- Kconfig "depends on", and which part of it is unmet ---- */

/*
 * The Kconfig files of one tree, read once per process (an explanation may
 * look up several symbols) with continuation lines already joined.  Each
 * text has the arch/ directory it came from ("" for the generic ones):
 * other architectures define the same symbols differently, and a symbol
 * only they define is one this arch does not have.
 */
static struct {
	char *root;
	struct strvec texts;
	struct strvec arches;
} kdb = { NULL, STRVEC_INIT, STRVEC_INIT };

static int kdb_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base, *rel = path + strlen(kdb.root);
	char *text;

	if (flag == FTW_D) {
		if (ftw->level == 1 && (!strcmp(base, "Documentation") || !strcmp(base, "tools") ||
					!strcmp(base, ".git")))
			return FTW_SKIP_SUBTREE;
		return FTW_CONTINUE;
	}
	if (flag != FTW_F || strncmp(base, "Kconfig", 7))
		return FTW_CONTINUE;
	text = read_file(path, NULL);
	if (text) {
		for (char *q = text; (q = strstr(q, "\\\n")); )
			q[0] = q[1] = ' ';
		strvec_push(&kdb.texts, text);
		free(text);
		if (*rel == '/')
			rel++;
		if (!strncmp(rel, "arch/", 5) && strchr(rel + 5, '/'))
			strvec_pushf(&kdb.arches, "%.*s", (int)strcspn(rel + 5, "/"), rel + 5);
		else
			strvec_push(&kdb.arches, "");
	}
	return FTW_CONTINUE;
}

static int kdb_load(const char *srctree)
{
	if (kdb.root && !strcmp(kdb.root, srctree))
		return 0;
	free(kdb.root);
	strvec_clear(&kdb.texts);
	strvec_clear(&kdb.arches);
	kdb.root = xstrdup(srctree);
	if (nftw(srctree, kdb_add, 32, FTW_PHYS | FTW_ACTIONRETVAL) < 0) {
		free(kdb.root);
		kdb.root = NULL;
		strvec_clear(&kdb.texts);
		strvec_clear(&kdb.arches);
		return -1;
	}
	return 0;
}

/* Appends expr to deps joined by " && ", without doubling one already there. */
static void add_dep(struct strbuf *deps, const char *expr, size_t len)
{
	struct strbuf one = STRBUF_INIT;

	while (len && isspace((unsigned char)expr[len - 1]))
		len--;
	while (len && isspace((unsigned char)*expr)) {
		expr++;
		len--;
	}
	if (!len)
		return;
	/* one space for every run of blanks (continuation lines leave several) */
	for (size_t i = 0; i < len; i++) {
		if (isspace((unsigned char)expr[i])) {
			if (one.len && one.buf[one.len - 1] != ' ')
				strbuf_addch(&one, ' ');
		} else {
			strbuf_addch(&one, expr[i]);
		}
	}
	if (!strstr(deps->buf, one.buf)) {
		int paren = 0, depth = 0;

		for (const char *q = one.buf; *q; q++) {
			depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
			if (!depth && !strncmp(q, "||", 2))
				paren = 1;
		}

		if (deps->len)
			strbuf_addstr(deps, " && ");
		/* keep "A || B" one term when the result is split at "&&" */
		strbuf_addf(deps, paren ? "(%s)" : "%s", one.buf);
	}
	strbuf_release(&one);
}

static int first_word_is(const char *p, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(p, word, n) && (p[n] == '\0' || isspace((unsigned char)p[n]));
}

/* Keywords that start an entry and so end the attributes of the one before. */
static int starts_entry(const char *p)
{
	static const char *const words[] = {
		"config", "menuconfig", "choice", "endchoice", "comment", "menu",
		"endmenu", "if", "endif", "source", "mainmenu",
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (first_word_is(p, words[i]))
			return 1;
	return 0;
}

/*
 * Adds to deps the "depends on" of `config name` in one Kconfig text and the
 * conditions of the "if" blocks around it.  Help texts are skipped by
 * indentation, as Kconfig does, so prose starting with "if" is not a block.
 */
static int scan_kconfig_text(const char *text, const char *name, struct strbuf *deps)
{
	struct strvec ifs = STRVEC_INIT;
	struct strbuf line = STRBUF_INIT;
	int in_entry = 0, in_help = 0, found = 0;
	size_t help_indent = 0, nlen = strlen(name);

	for (const char *l = text; l && *l; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l), indent = 0;
		const char *p;

		strbuf_reset(&line);
		strbuf_add(&line, l, len);
		l = nl ? nl + 1 : NULL;
		p = line.buf;
		while (*p == ' ' || *p == '\t') {
			indent += *p == '\t' ? 8 - indent % 8 : 1;
			p++;
		}
		if (in_help) {
			if (!*p)
				continue;
			if (!help_indent)
				help_indent = indent;  /* the first line sets the help's indent */
			if (indent >= help_indent)
				continue;
			in_help = 0;
		}
		if (!*p || *p == '#')
			continue;
		if (starts_entry(p)) {
			in_entry = 0;
			if (first_word_is(p, "if")) {
				strvec_push(&ifs, p + 2);
			} else if (first_word_is(p, "endif")) {
				if (ifs.nr) {
					free((char *)ifs.v[ifs.nr - 1]);
					ifs.v[--ifs.nr] = NULL;
				}
			} else if (first_word_is(p, "config") || first_word_is(p, "menuconfig")) {
				const char *sym = p + strcspn(p, " \t");

				sym += strspn(sym, " \t");
				if (sym_len(sym) == nlen && !strncmp(sym, name, nlen)) {
					in_entry = 1;
					found = 1;
					for (size_t i = 0; i < ifs.nr; i++)
						add_dep(deps, ifs.v[i], strlen(ifs.v[i]));
				}
			}
		} else if (first_word_is(p, "help") || first_word_is(p, "---help---")) {
			in_help = 1;
			help_indent = 0;
		} else if (in_entry && first_word_is(p, "depends")) {
			const char *e = p + 7;

			e += strspn(e, " \t");
			if (first_word_is(e, "on"))
				add_dep(deps, e + 2, strlen(e + 2));
		}
	}
	strvec_clear(&ifs);
	strbuf_release(&line);
	return found;
}

int kconfig_depends_arch(const char *srctree, const char *srcarch, const char *name,
			 struct strbuf *deps)
{
	int found = 0;

	if (kdb_load(srctree) < 0)
		return -1;
	name = strip_config(name);
	for (size_t i = 0; i < kdb.texts.nr; i++)
		if (!*kdb.arches.v[i] || !strcmp(kdb.arches.v[i], srcarch))
			found |= scan_kconfig_text(kdb.texts.v[i], name, deps);
	return found;
}

int kconfig_depends(const char *srctree, const char *name, struct strbuf *deps)
{
	return kconfig_depends_arch(srctree, "x86", name, deps);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int kconfig_other_arches(const char *srctree, const char *srcarch, const char *name,
			 struct strbuf *arches)
{
	struct strbuf ignored = STRBUF_INIT;
	struct strvec seen = STRVEC_INIT;
	size_t n;

	if (kdb_load(srctree) < 0)
		return -1;
	name = strip_config(name);
	for (size_t i = 0; i < kdb.texts.nr; i++) {
		const char *a = kdb.arches.v[i];
		size_t j;

		if (!*a || !strcmp(a, srcarch))
			continue;
		for (j = 0; j < seen.nr && strcmp(seen.v[j], a); j++)
			;
		if (j == seen.nr && scan_kconfig_text(kdb.texts.v[i], name, &ignored))
			strvec_push(&seen, a);
	}
	/* nftw's order is the directory's: sort for a stable message */
	qsort(seen.v, seen.nr, sizeof(*seen.v), cmp_strp);
	for (size_t j = 0; j < seen.nr; j++)
		strbuf_addf(arches, "%s%s", j ? "," : "", seen.v[j]);
	n = seen.nr;
	strbuf_release(&ignored);
	strvec_clear(&seen);
	return (int)n;
}

/*
 * A small evaluator for Kconfig expressions against a .config: n=0, m=1,
 * y=2; a symbol the .config does not set is n, as Kconfig treats it.
 */
struct expr_ctx {
	const char *p;
	const char *dotconfig;
	int error;
};

static void expr_space(struct expr_ctx *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

/* The value of the atom at x->p as a string (a symbol's value, a constant). */
static void expr_atom(struct expr_ctx *x, struct strbuf *val)
{
	expr_space(x);
	if (*x->p == '"' || *x->p == '\'') {
		char q = *x->p++;
		const char *end = strchr(x->p, q);

		if (!end) {
			x->error = 1;
			return;
		}
		strbuf_add(val, x->p, (size_t)(end - x->p));
		x->p = end + 1;
		return;
	}
	size_t n = sym_len(x->p);

	if (!n) {
		x->error = 1;
		return;
	}
	if ((n == 1 && strchr("ynm", *x->p)) || isdigit((unsigned char)*x->p)) {
		strbuf_add(val, x->p, n);
	} else {
		struct strbuf sym = STRBUF_INIT;

		strbuf_add(&sym, x->p, n);
		kconfig_dotconfig_value(x->dotconfig, sym.buf, val);
		strbuf_release(&sym);
		/* A string option's value is quoted in .config; compare it bare. */
		if (val->len >= 2 && val->buf[0] == '"' && val->buf[val->len - 1] == '"') {
			memmove(val->buf, val->buf + 1, val->len - 2);
			val->len -= 2;
			val->buf[val->len] = '\0';
		}
	}
	x->p += n;
}

static int tristate(const char *v)
{
	return !strcmp(v, "y") ? 2 : !strcmp(v, "m") ? 1 : 0;
}

static int expr_or(struct expr_ctx *x);

static int expr_unary(struct expr_ctx *x)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int r;

	expr_space(x);
	if (*x->p == '!' && x->p[1] != '=') {
		x->p++;
		return 2 - expr_unary(x);
	}
	if (*x->p == '(') {
		x->p++;
		r = expr_or(x);
		expr_space(x);
		if (*x->p == ')')
			x->p++;
		else
			x->error = 1;
		return r;
	}
	expr_atom(x, &a);
	expr_space(x);
	if (!strncmp(x->p, "!=", 2) || *x->p == '=') {
		int neg = *x->p == '!';

		x->p += neg ? 2 : 1;
		expr_atom(x, &b);
		r = (strcmp(a.buf, b.buf) == 0) != neg ? 2 : 0;
	} else if (*x->p == '<' || *x->p == '>') {
		/* Numeric comparisons: evaluated on integers. */
		int lt = *x->p == '<', eq = x->p[1] == '=';
		long long l, rr;

		x->p += eq ? 2 : 1;
		expr_atom(x, &b);
		l = strtoll(a.buf, NULL, 0);
		rr = strtoll(b.buf, NULL, 0);
		r = (lt ? (eq ? l <= rr : l < rr) : (eq ? l >= rr : l > rr)) ? 2 : 0;
	} else {
		r = tristate(a.buf);
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return r;
}

static int expr_and(struct expr_ctx *x)
{
	int r = expr_unary(x);

	for (;;) {
		expr_space(x);
		if (strncmp(x->p, "&&", 2))
			return r;
		x->p += 2;
		int s = expr_unary(x);

		r = s < r ? s : r;
	}
}

static int expr_or(struct expr_ctx *x)
{
	int r = expr_and(x);

	for (;;) {
		expr_space(x);
		if (strncmp(x->p, "||", 2))
			return r;
		x->p += 2;
		int s = expr_and(x);

		r = s > r ? s : r;
	}
}

/* Splits deps at its top-level "&&" and pushes each term that evaluates to
 * n (or cannot be evaluated) to unmet. */
static void unmet_terms(const char *deps, const char *dotconfig, struct strvec *unmet)
{
	const char *start = deps;
	int depth = 0;

	for (const char *p = deps; ; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if (*p && !(depth == 0 && !strncmp(p, "&&", 2)))
			continue;

		struct strbuf term = STRBUF_INIT;
		struct expr_ctx x;
		int v;

		strbuf_add(&term, start, (size_t)(p - start));
		x.p = term.buf;
		x.dotconfig = dotconfig;
		x.error = 0;
		v = expr_or(&x);
		expr_space(&x);
		if (x.error || *x.p || v == 0) {
			const char *t = term.buf;
			size_t len = term.len;

			while (len && isspace((unsigned char)t[len - 1]))
				len--;
			while (len && isspace((unsigned char)*t)) {
				t++;
				len--;
			}
			strvec_pushf(unmet, "%.*s", (int)len, t);
		}
		strbuf_release(&term);
		if (!*p)
			break;
		start = ++p + 1;
	}
}

/* How deep an explanation follows unmet dependencies (A needs B needs C). */
#define EXPLAIN_DEPTH 3

/*
 * Why option name is not set: "depends on EXPR; unmet: B (depends on ...;
 * unmet: C)".  Returns 1 when name is defined in srctree, 0 when not, -1
 * when srctree cannot be read.
 */
static int explain(const char *srctree, const char *srcarch, const char *dotconfig,
		   const char *name, int depth, struct strbuf *out)
{
	struct strbuf deps = STRBUF_INIT;
	struct strvec unmet = STRVEC_INIT;
	int found = kconfig_depends_arch(srctree, srcarch, name, &deps);

	if (found <= 0 || !deps.len)
		goto out;
	strbuf_addf(out, "depends on %s", deps.buf);
	unmet_terms(deps.buf, dotconfig, &unmet);
	for (size_t i = 0; i < unmet.nr; i++) {
		const char *t = unmet.v[i];

		strbuf_addstr(out, i ? ", " : "; unmet: ");
		strbuf_addstr(out, t);
		if (depth < EXPLAIN_DEPTH && sym_len(t) == strlen(t) && !isdigit((unsigned char)*t)) {
			struct strbuf sub = STRBUF_INIT;

			if (explain(srctree, srcarch, dotconfig, t, depth + 1, &sub) > 0 && sub.len)
				strbuf_addf(out, " (%s)", sub.buf);
			strbuf_release(&sub);
		}
	}
out:
	strbuf_release(&deps);
	strvec_clear(&unmet);
	return found;
}

size_t kconfig_check_arch(const struct kconfig_frags *want, const char *dotconfig,
			 const char *srctree, const char *srcarch, struct strvec *problems,
			 struct strvec *absent)
{
	size_t bad = 0;

	for (size_t i = 0; i < want->nr; i++) {
		const struct kconfig_option *o = &want->opt[i];
		struct strbuf got = STRBUF_INIT, line = STRBUF_INIT, why = STRBUF_INIT;
		struct strbuf others = STRBUF_INIT;
		int found;

		kconfig_dotconfig_value(dotconfig, o->name, &got);
		if (!strcmp(got.buf, o->value)) {
			strbuf_release(&got);
			continue;
		}
		strbuf_addf(&line, "CONFIG_%s=%s (%s line %u)", o->name, o->value, o->origin,
			    o->line);
		found = srctree ? explain(srctree, srcarch, dotconfig, o->name, 1, &why) : -1;
		if (found == 0 && absent &&
		    kconfig_other_arches(srctree, srcarch, o->name, &others) > 0) {
			/* another arch's option: left out, not a failure */
			strbuf_addf(&line, " is not an option on arch/%s (only on %s): left out",
				    srcarch, others.buf);
			strvec_push(absent, line.buf);
		} else {
			bad++;
			strbuf_addf(&line, " is %s after olddefconfig", got.buf);
			if (found == 0)
				strbuf_addstr(&line, ": no such option in this tree");
			else if (found > 0 && why.len)
				strbuf_addf(&line, ": %s", why.buf);
			else if (found > 0)
				strbuf_addstr(&line, ": it has no \"depends on\" (a choice, a range, a "
					      "def_bool or another option's select decides it)");
			strvec_push(problems, line.buf);
		}
		strbuf_release(&got);
		strbuf_release(&line);
		strbuf_release(&why);
		strbuf_release(&others);
	}
	return bad;
}

size_t kconfig_check(const struct kconfig_frags *want, const char *dotconfig,
		     const char *srctree, struct strvec *problems)
{
	return kconfig_check_arch(want, dotconfig, srctree, "x86", problems, NULL);
}
