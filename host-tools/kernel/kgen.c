/* kgen.c - the kernel generation registry and its lookups. */
#include "kernel/kgen.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define X(id) &kgen_##id,
const struct kernel_gen *const kernel_gens[] = { KERNEL_GEN_LIST NULL };
#undef X

unsigned kgen_version(const char *release)
{
	unsigned long major, minor;
	char *end;

	if (!release || !isdigit((unsigned char)*release))
		return 0;
	major = strtoul(release, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]) || major > 999)
		return 0;
	minor = strtoul(end + 1, &end, 10);
	if (minor > 999)
		return 0;
	return KGEN_V((unsigned)major, (unsigned)minor);
}

const struct kernel_gen *kgen_for_release(const char *release)
{
	unsigned v = kgen_version(release);
	const struct kernel_gen *g = NULL;

	if (!v)
		return NULL;
	for (size_t i = 0; kernel_gens[i]; i++)
		if (kernel_gens[i]->since <= v)
			g = kernel_gens[i];
	return g ? g : kernel_gens[0];
}

const struct kernel_gen *kgen_for_release_or_oldest(const char *release)
{
	const struct kernel_gen *g = kgen_for_release(release);

	return g ? g : kernel_gens[0];
}

const struct topo_kernel_facts *kgen_topo_facts(const struct kernel_gen *g,
						struct topo_kernel_facts *out)
{
	if (!g)
		return NULL;
	out->generation = g->name;
	out->pkg_level = g->pkg_level;
	out->die_id_global = g->die_id_global;
	out->arm64_llc_all = g->arm64_llc_all;
	return out;
}

const struct kgen_config_change *kgen_config_change(const char *release, const char *option,
						    const struct kernel_gen **gen_out)
{
	unsigned v = kgen_version(release);
	const struct kgen_config_change *found = NULL;

	for (size_t i = 0; v && kernel_gens[i] && kernel_gens[i]->since <= v; i++) {
		const struct kgen_config_change *c = kernel_gens[i]->config_changes;

		for (; c && c->option; c++) {
			if (strcmp(c->option, option))
				continue;
			found = c;
			if (gen_out)
				*gen_out = kernel_gens[i];
		}
	}
	return found;
}
