/* fuzz-topo.c - libFuzzer target over the topology model: topo_parse() and
 * everything built from a parsed topology must neither crash nor leak. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Properties of a parsed topology that must hold for every input. */
static void check_topo(const struct topo *t)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	struct strvec av = STRVEC_INIT;
	struct json_object *view;
	struct topo again;
	char *xml;

	if (!topo_nr_cpus(t) || topo_nr_cpus(t) > TOPO_MAX_CPUS ||
	    t->nr_nodes > TOPO_MAX_NODES || !t->llc || t->cores % t->llc ||
	    topo_llcs_per_socket(t) % t->nps || !topo_total_mem_mib(t))
		abort();
	/* the canonical spec parses back to the same machine */
	if (topo_parse(t->spec, &again, &err))
		abort();
	if (t->name[0]) {
		memcpy(again.name, t->name, sizeof(again.name));
		memcpy(again.description, t->description, sizeof(again.description));
	}
	/* how the spec was spelled, not the machine: the canonical spec
	 * names no arch=x86_64 (the default), so "arch=amd64" was given in
	 * the input and is not in its canonical form */
	if (t->arch == TOPO_ARCH_X86_64 && t->arch_given && !again.arch_given)
		again.arch_given = 1;
	if (memcmp(t, &again, sizeof(again)))
		abort();

	topo_describe(t, &sb);
	if (!sb.len || strchr(sb.buf, '\n'))
		abort();
	for (int accel = ACCEL_TCG; accel <= ACCEL_KVM; accel++) {
		strbuf_reset(&err);
		if (topo_check_limits(t, accel, 24576, &err) && (!err.len || strchr(err.buf, '\n')))
			abort();
		topo_qemu_argv(t, accel, accel == ACCEL_KVM ? TOPO_QEMU_HOST_AMD : TOPO_QEMU_TCG_SINGLE, &av);
		strvec_clear(&av);
		xml = topo_libvirt_xml(t, accel, "fuzz", "/k", "/i", "console=ttyS0");
		free(xml);
	}
	view = topo_expected_view(t);
	if (!view)
		abort();
	json_object_put(view);
	strbuf_release(&sb);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct topo t;
	char spec[320];

	/* past 200 characters every spec is refused; keep a margin */
	if (size >= sizeof(spec))
		size = sizeof(spec) - 1;
	memcpy(spec, data, size);
	spec[size] = '\0';

	if (topo_parse(spec, &t, &err)) {
		/* one line, always */
		if (!err.len || strchr(err.buf, '\n'))
			abort();
	} else {
		check_topo(&t);
	}
	strbuf_release(&err);
	return 0;
}
