/* topo-libvirt.c - a libvirt 9.0 domain XML for a topology: the same
 * machine as topo_qemu_argv(), as libvirt describes it. */
#include "topo/topo.h"

#include <string.h>

/* Escapes for both text and attribute values; XML 1.0 has no way to
 * carry most control characters, so they become '?'. */
void topo_xml_escape(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '\'': strbuf_addstr(sb, "&apos;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		default:
			strbuf_addch(sb, *p < 0x20 && *p != '\t' ? '?' : *p);
		}
	}
}

static void add_elem(struct strbuf *sb, const char *indent, const char *tag, const char *text)
{
	strbuf_addf(sb, "%s<%s>", indent, tag);
	topo_xml_escape(sb, text);
	strbuf_addf(sb, "</%s>\n", tag);
}

static void add_numa(struct strbuf *sb, const struct topo *t)
{
	unsigned cpu_nodes = t->sockets * t->nps;
	unsigned cpn = topo_nr_cpus(t) / cpu_nodes;

	strbuf_addstr(sb, "    <numa>\n");
	for (unsigned n = 0; n < t->nr_nodes; n++) {
		strbuf_addf(sb, "      <cell id='%u'", n);
		/* a memory-only node is a cell without cpus (libvirt >= 6.6) */
		if (n < cpu_nodes) {
			if (cpn == 1)
				strbuf_addf(sb, " cpus='%u'", n);
			else
				strbuf_addf(sb, " cpus='%u-%u'", n * cpn, (n + 1) * cpn - 1);
		}
		strbuf_addf(sb, " memory='%llu' unit='MiB'>\n", (unsigned long long)
			    (n < cpu_nodes ? t->node_mem_mib : t->memnode_mem_mib));
		strbuf_addstr(sb, "        <distances>\n");
		for (unsigned m = 0; m < t->nr_nodes; m++)
			strbuf_addf(sb, "          <sibling id='%u' value='%u'/>\n", m, t->dist[n][m]);
		strbuf_addstr(sb, "        </distances>\n      </cell>\n");
	}
	strbuf_addstr(sb, "    </numa>\n");
}

/* With spare slots, libvirt wants the boot count as current= and each
 * vCPU's state: the boot ones are part of -smp, the spares are
 * hot-pluggable slots (libvirt's setvcpus --hotpluggable fills them). */
static void add_vcpus(struct strbuf *sb, const struct topo *t)
{
	unsigned boot = topo_boot_cpus(t);

	if (!t->hotplug) {
		strbuf_addf(sb, "  <vcpu placement='static'>%u</vcpu>\n", topo_nr_cpus(t));
		return;
	}
	strbuf_addf(sb, "  <vcpu placement='static' current='%u'>%u</vcpu>\n", boot, topo_nr_cpus(t));
	strbuf_addstr(sb, "  <vcpus>\n");
	for (unsigned i = 0; i < topo_nr_cpus(t); i++) {
		strbuf_addf(sb, "    <vcpu id='%u' enabled='%s' hotpluggable='%s'/>\n", i,
			    i < boot ? "yes" : "no", i < boot ? "no" : "yes");
	}
	strbuf_addstr(sb, "  </vcpus>\n");
}

char *topo_libvirt_xml(const struct topo *t, enum lab_accel accel,
		       const char *domain_name, const char *kernel,
		       const char *initrd, const char *cmdline)
{
	return topo_libvirt_xml_devices(t, accel, domain_name, kernel, initrd, cmdline, NULL, NULL);
}

char *topo_libvirt_xml_devices(const struct topo *t, enum lab_accel accel,
			       const char *domain_name, const char *kernel,
			       const char *initrd, const char *cmdline,
			       const char *chardevs, const char *tail)
{
	struct strbuf sb = STRBUF_INIT;
	struct strbuf summary = STRBUF_INIT;
	int kvm = accel == ACCEL_KVM;

	strbuf_addf(&sb, "<domain type='%s' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n",
		    kvm ? "kvm" : "qemu");
	add_elem(&sb, "  ", "name", domain_name && *domain_name ? domain_name : "schedlab");
	topo_describe(t, &summary);
	strbuf_addf(&summary, " [%s]", t->spec);
	add_elem(&sb, "  ", "description", summary.buf);
	strbuf_release(&summary);
	strbuf_addf(&sb, "  <memory unit='KiB'>%llu</memory>\n",
		    (unsigned long long)topo_total_mem_mib(t) * 1024);
	add_vcpus(&sb, t);

	strbuf_addstr(&sb, "  <os>\n    <type arch='x86_64' machine='q35'>hvm</type>\n");
	if (kernel)
		add_elem(&sb, "    ", "kernel", kernel);
	if (initrd)
		add_elem(&sb, "    ", "initrd", initrd);
	if (cmdline)
		add_elem(&sb, "    ", "cmdline", cmdline);
	strbuf_addstr(&sb, "  </os>\n");
	/* without ACPI there is no SRAT/SLIT, so no NUMA in the guest */
	strbuf_addstr(&sb, "  <features>\n    <acpi/>\n    <apic/>\n  </features>\n");

	if (kvm) {
		/* passes the host's topoext through on AMD hosts */
		strbuf_addstr(&sb, "  <cpu mode='host-passthrough' check='none' migratable='off'>\n");
	} else {
		/* libvirt's "maximum" is QEMU's -cpu max; the vendor is set below */
		strbuf_addstr(&sb, "  <cpu mode='maximum' check='none' migratable='off'>\n");
	}
	strbuf_addf(&sb, "    <topology sockets='%u' dies='%u' cores='%u' threads='%u'/>\n",
		    t->sockets, topo_llcs_per_socket(t), t->llc, t->threads);
	if (t->nr_nodes > 1)
		add_numa(&sb, t);
	strbuf_addstr(&sb, "  </cpu>\n");

	strbuf_addstr(&sb,
		"  <clock offset='utc'/>\n"
		"  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>destroy</on_crash>\n"
		"  <devices>\n");
	strbuf_addstr(&sb, chardevs ? chardevs :
		"    <serial type='pty'>\n"
		"      <target port='0'/>\n"
		"    </serial>\n"
		"    <console type='pty'>\n"
		"      <target type='serial' port='0'/>\n"
		"    </console>\n");
	strbuf_addstr(&sb,
		"    <memballoon model='none'/>\n"
		"  </devices>\n");
	if (tail)
		strbuf_addstr(&sb, tail);
	/*
	 * TCG's AMD models lose topoext, and with it SMT siblings and per-die
	 * L3 sharing; an Intel vendor keeps both.  libvirt ignores vendor_id
	 * in mode='maximum' and knows no custom model "max", so the vendor
	 * goes to the CPU object as a QEMU global property.
	 */
	if (!kvm)
		strbuf_addstr(&sb,
			"  <qemu:commandline>\n"
			"    <qemu:arg value='-global'/>\n"
			"    <qemu:arg value='max-x86_64-cpu.vendor=GenuineIntel'/>\n"
			"  </qemu:commandline>\n");
	strbuf_addstr(&sb, "</domain>\n");
	return strbuf_detach(&sb);
}
