/* jobs.c - guests at a time (jobs.h). */
#define _GNU_SOURCE
#include "run/jobs.h"
#include "topo/topo.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Guest RAM plus QEMU's own: the TCG translation cache and the device
 * model (a traced 2s8c2t TCG guest keeps about 400 MiB besides its RAM). */
#define JOBS_QEMU_OVERHEAD_MIB 512

int jobs_plan_for(const char *topo, int virtual_clock, unsigned given, const struct jobs_host *h,
		  struct jobs_plan *p, struct strbuf *err)
{
	struct topo t;
	unsigned cpus = h->cpus ? h->cpus : 1, vcpus;
	uint64_t per_guest;

	memset(p, 0, sizeof(*p));
	if (topo_parse(topo, &t, err) < 0)
		return -1;
	vcpus = topo_boot_cpus(&t);
	p->vcpus = vcpus;
	p->given = given > 0;
	p->virtual_clock = virtual_clock;
	p->host_cpus = cpus;
	p->threads = virtual_clock ? 1 : vcpus < cpus ? vcpus : cpus;
	if (!p->threads)
		p->threads = 1;
	per_guest = topo_total_mem_mib(&t) + JOBS_QEMU_OVERHEAD_MIB;
	p->by_mem = h->mem_avail_mib ? (unsigned)(h->mem_avail_mib * 3 / 4 / per_guest) : JOBS_MAX;
	if (given) {
		p->n = given;
		return 0;
	}
	p->n = cpus / p->threads;
	if (p->n > p->by_mem)
		p->n = p->by_mem;
	if (p->n > JOBS_MAX)
		p->n = JOBS_MAX;
	if (!p->n)
		p->n = 1;
	return 0;
}

static uint64_t mem_available_mib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib >> 10;
}

int jobs_plan(const char *topo, int virtual_clock, unsigned given, struct jobs_plan *p,
	      struct strbuf *err)
{
	struct jobs_host h = { 0, mem_available_mib() };
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		h.cpus = (unsigned)CPU_COUNT(&set);
	else
		h.cpus = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	return jobs_plan_for(topo, virtual_clock, given, &h, p, err);
}

void jobs_note(const struct jobs_plan *p, struct strbuf *out, int *warn)
{
	*warn = 0;
	strbuf_addf(out, "%u guest%s at a time", p->n, p->n == 1 ? "" : "s");
	if (p->given)
		strbuf_addstr(out, " (--jobs)");
	else if (p->virtual_clock)
		strbuf_addf(out, " (the default: %u host CPU%s, one TCG thread a guest under icount%s)",
			    p->host_cpus, p->host_cpus == 1 ? "" : "s",
			    p->by_mem < p->host_cpus ? ", fewer for the host's memory" : "");
	else
		strbuf_addf(out, " (the default: %u host CPU%s, %u thread%s a guest%s)", p->host_cpus,
			    p->host_cpus == 1 ? "" : "s", p->threads, p->threads == 1 ? "" : "s",
			    p->by_mem < p->host_cpus / p->threads ? ", fewer for the host's memory" : "");
	if (p->virtual_clock) {
		/* measured (bench/ab-jobs.sh): boots and warm restores alike
		 * are identical to the digit at --jobs 1 and 2 */
		if (p->n > 1)
			strbuf_addstr(out, ": virtual-time results are those of one at a time, "
				      "only the wall time differs");
		if (p->n > p->host_cpus)
			strbuf_addf(out, "; more than the host's %u CPUs: slower, not different",
				    p->host_cpus);
	} else if (p->n > 1) {
		*warn = 1;
		strbuf_addf(out, " on the wall clock: they share %u host CPU%s, caches and memory "
			    "bandwidth and disturb each other's timings (--jobs 1, or --clock virtual)",
			    p->host_cpus, p->host_cpus == 1 ? "" : "s");
	}
}
