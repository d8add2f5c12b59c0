/* vcpupin.c - binds vCPU threads to host CPUs (vcpupin.h). */
#define _GNU_SOURCE
#include "run/vcpupin.h"
#include "backend/backend.h"

#include <errno.h>
#include <json-c/json.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vcpu_pin_release(struct vcpu_pin *p)
{
	free(p->cpu);
	free(p->tid);
	memset(p, 0, sizeof(*p));
}

/* The vCPU threads by cpu-index; -1 with why set when one is missing. */
static int find_threads(struct vcpu_pin *p, struct backend *b)
{
	struct strbuf err = STRBUF_INIT;

	if (backend_vcpu_threads(b, p->tid, p->n, &err) < 0) {
		snprintf(p->why, sizeof(p->why), "the vCPU threads are not known: %s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	for (unsigned i = 0; i < p->n; i++)
		if (p->tid[i] <= 0) {
			snprintf(p->why, sizeof(p->why), "QEMU named no thread for vCPU %u", i);
			return -1;
		}
	return 0;
}

static unsigned max_cpu(const struct vcpu_pin *p)
{
	unsigned max = 0;

	for (unsigned i = 0; i < p->n; i++)
		if (p->cpu[i] > max)
			max = p->cpu[i];
	return max;
}

int vcpu_pin_apply(struct vcpu_pin *p, struct backend *b)
{
	unsigned max = max_cpu(p);
	cpu_set_t *set;
	size_t size;
	int ret = 0;

	p->applied = 0;
	p->held = -1;
	free(p->tid);
	p->tid = xcalloc(p->n ? p->n : 1, sizeof(*p->tid));
	if (find_threads(p, b) < 0)
		return -1;
	set = CPU_ALLOC(max + 1);
	size = CPU_ALLOC_SIZE(max + 1);
	for (unsigned i = 0; i < p->n && !ret; i++) {
		CPU_ZERO_S(size, set);
		CPU_SET_S(p->cpu[i], size, set);
		if (sched_setaffinity((pid_t)p->tid[i], size, set) < 0) {
			snprintf(p->why, sizeof(p->why), "vCPU %u (thread %ld) -> host CPU %u: %s",
				 i, p->tid[i], p->cpu[i], strerror(errno));
			ret = -1;
		}
	}
	CPU_FREE(set);
	p->applied = !ret;
	return ret;
}

void vcpu_pin_check(struct vcpu_pin *p)
{
	/* room for every CPU the host may have, not only ours */
	unsigned max = max_cpu(p) < 4095 ? 4095 : max_cpu(p);
	cpu_set_t *set;
	size_t size;

	if (!p->applied)
		return;
	set = CPU_ALLOC(max + 1);
	size = CPU_ALLOC_SIZE(max + 1);
	p->held = 1;
	for (unsigned i = 0; i < p->n && p->held; i++) {
		CPU_ZERO_S(size, set);
		if (sched_getaffinity((pid_t)p->tid[i], size, set) < 0) {
			snprintf(p->why, sizeof(p->why), "vCPU %u's thread %ld: %s", i, p->tid[i],
				 strerror(errno));
			p->held = 0;
		} else if (CPU_COUNT_S(size, set) != 1 || !CPU_ISSET_S(p->cpu[i], size, set)) {
			snprintf(p->why, sizeof(p->why), "vCPU %u's thread %ld may run on %d host CPUs "
				 "at the end, not only on %u", i, p->tid[i], CPU_COUNT_S(size, set),
				 p->cpu[i]);
			p->held = 0;
		}
	}
	CPU_FREE(set);
}

struct json_object *vcpu_pin_json(const struct vcpu_pin *p)
{
	struct json_object *o = json_object_new_object(), *map = json_object_new_array();

	json_object_object_add(o, "mode", json_object_new_string(p->strict ? "strict" : "yes"));
	json_object_object_add(o, "applied", json_object_new_boolean(p->applied));
	if (p->held >= 0)
		json_object_object_add(o, "held", json_object_new_boolean(p->held));
	for (unsigned i = 0; p->cpu && i < p->n; i++)
		json_object_array_add(map, json_object_new_int((int)p->cpu[i]));
	json_object_object_add(o, "vcpu_to_host", map);
	if (p->tid && p->applied) {
		struct json_object *tids = json_object_new_array();

		for (unsigned i = 0; i < p->n; i++)
			json_object_array_add(tids, json_object_new_int64(p->tid[i]));
		json_object_object_add(o, "threads", tids);
	}
	if (*p->why)
		json_object_object_add(o, "why", json_object_new_string(p->why));
	return o;
}
