/* hostfault-vcpu.c - vCPU hot-add and hot-remove: a free slot from
 * query-hotpluggable-cpus gets a device_add, a hot-added one a device_del
 * (QMP), or the backend's own vcpu_set (libvirt's virDomainSetVcpu). */
#define _GNU_SOURCE
#include "fault/hostfault.h"
#include "backend/backend.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* QEMU's slot properties, outermost first: the guest numbers CPUs in
 * this order, so a slot's rank among all slots is its vCPU number. */
static const char *const slot_props[] = { "socket-id", "die-id", "core-id", "thread-id" };

static long long prop(struct json_object *props, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(props, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

static int slot_cmp(struct json_object *a, struct json_object *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(slot_props); i++) {
		long long x = prop(a, slot_props[i]), y = prop(b, slot_props[i]);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static void slot_describe(const struct hostfault_slot *s, struct strbuf *sb)
{
	strbuf_addf(sb, "vCPU %u (%s", s->index, s->driver);
	for (size_t i = 0; i < ARRAY_SIZE(slot_props); i++)
		if (s->id[i] >= 0)
			strbuf_addf(sb, " %s=%lld", slot_props[i], s->id[i]);
	strbuf_addch(sb, ')');
}

/* Fills s from entry i of the reply; -1 when the entry is malformed. */
static int slot_fill(struct json_object *reply, size_t i, struct hostfault_slot *s)
{
	struct json_object *e = json_object_array_get_idx(reply, i), *props, *type, *path;
	size_t n = json_object_array_length(reply);

	memset(s, 0, sizeof(*s));
	if (!json_object_is_type(e, json_type_object) ||
	    !json_object_object_get_ex(e, "props", &props) ||
	    !json_object_is_type(props, json_type_object) ||
	    !json_object_object_get_ex(e, "type", &type) ||
	    !json_object_is_type(type, json_type_string) ||
	    strlen(json_object_get_string(type)) >= sizeof(s->driver))
		return -1;
	snprintf(s->driver, sizeof(s->driver), "%s", json_object_get_string(type));
	for (size_t k = 0; k < ARRAY_SIZE(slot_props); k++)
		s->id[k] = prop(props, slot_props[k]);
	if (s->id[0] < 0)
		return -1; /* no socket-id: not an x86 CPU slot we know */
	if (json_object_object_get_ex(e, "qom-path", &path) &&
	    json_object_is_type(path, json_type_string)) {
		snprintf(s->qom_path, sizeof(s->qom_path), "%s", json_object_get_string(path));
		s->present = 1;
	}
	/* the rank among all slots, whatever order QEMU lists them in */
	for (size_t j = 0; j < n; j++) {
		struct json_object *o = json_object_array_get_idx(reply, j), *p;

		if (j != i && json_object_object_get_ex(o, "props", &p) &&
		    json_object_is_type(p, json_type_object) && slot_cmp(p, props) < 0)
			s->index++;
	}
	return 0;
}

static int in_list(const char *list, unsigned cpu)
{
	unsigned long want[CPULIST_LONGS(HOSTFAULT_MAX_VCPUS)];

	if (hostfault_parse_cpus(list, want, NULL) < 0)
		return 0;
	return cpu < HOSTFAULT_MAX_VCPUS && cpulist_test(want, cpu);
}

int hostfault_pick_slot(struct json_object *reply, const char *target, int want_present,
			int prefer_last, struct hostfault_slot *out, struct strbuf *err)
{
	int any = !target || !*target || !strcmp(target, "default") || !strcmp(target, "random");
	int found = 0;

	if (!any && hostfault_parse_cpus(target, NULL, err) < 0)
		return -1;
	if (!reply || !json_object_is_type(reply, json_type_array)) {
		strbuf_addstr(err, "query-hotpluggable-cpus gave no list of slots");
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(reply); i++) {
		struct hostfault_slot s;

		if (slot_fill(reply, i, &s) < 0 || s.present != want_present)
			continue;
		/* vCPU 0 is the boot CPU: the guest cannot give it back */
		if (want_present && !s.index)
			continue;
		if (!any && !in_list(target, s.index))
			continue;
		if (!found || (prefer_last ? s.index > out->index : s.index < out->index))
			*out = s;
		found = 1;
	}
	if (!found) {
		if (want_present)
			strbuf_addf(err, "no removable vCPU matches '%s'", any ? "default" : target);
		else
			strbuf_addf(err, "no free vCPU slot matches '%s' (all hot-plug slots are "
				    "in use, or the topology has no hotplug=N)", any ? "default" : target);
		return -1;
	}
	return 0;
}

/* device_add arguments for a slot: the driver and the ids QEMU asked for. */
struct json_object *hostfault_slot_device_args(const struct hostfault_slot *s)
{
	struct json_object *args = json_object_new_object();

	json_object_object_add(args, "driver", json_object_new_string(s->driver));
	json_object_object_add(args, "id", json_object_new_string(s->dev_id));
	for (size_t k = 0; k < ARRAY_SIZE(slot_props); k++)
		if (s->id[k] >= 0)
			json_object_object_add(args, slot_props[k], json_object_new_int64(s->id[k]));
	return args;
}

/* The slot an add (a free one) or a removal takes, from QEMU's list now. */
static int pick_removal(struct hostfault *h, struct json_object *reply, const char *target,
			struct hostfault_slot *s, struct strbuf *err);

static int pick(struct hostfault *h, struct backend *b, const char *target, int removal,
		struct hostfault_slot *s, struct strbuf *err)
{
	struct json_object *reply = NULL;
	int ret;

	if (b->ops->qmp(b, "query-hotpluggable-cpus", NULL, &reply, err) < 0)
		return -1;
	ret = removal ? pick_removal(h, reply, target, s, err)
		      : hostfault_pick_slot(reply, target, 0, 0, s, err);
	json_object_put(reply);
	return ret;
}

int hostfault_vcpu_add(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		       struct strbuf *detail, struct strbuf *err)
{
	struct json_object *args;
	struct hostfault_slot s;
	uint64_t t0 = 0;
	int ret;

	if (pick(h, b, f->target, 0, &s, err) < 0)
		return -1;
	snprintf(s.dev_id, sizeof(s.dev_id), "schedlab-vcpu%u", s.index);
	if (b->ops->vcpu_set) {
		t0 = now_ns();
		ret = b->ops->vcpu_set(b, s.index, 1, err);
	} else {
		args = hostfault_slot_device_args(&s);
		ret = b->ops->qmp(b, "device_add", args, NULL, err);
		json_object_put(args);
	}
	slot_describe(&s, detail);
	if (b->ops->vcpu_set)
		strbuf_addf(detail, " through %s in %.1f s", b->ops->name,
			    (double)(now_ns() - t0) / 1e9);
	if (ret < 0)
		return -1;
	if (h->nr_added < ARRAY_SIZE(h->added))
		h->added[h->nr_added++] = s.index;
	return (int)s.index;
}

/* The slot a removal targets: the scenario's list, else our last hot-add,
 * else the highest removable vCPU. */
static int pick_removal(struct hostfault *h, struct json_object *reply, const char *target,
			struct hostfault_slot *s, struct strbuf *err)
{
	int named = target && *target && strcmp(target, "default") && strcmp(target, "random");

	if (!named && h->nr_added) {
		char mine[16];

		snprintf(mine, sizeof(mine), "%u", h->added[h->nr_added - 1]);
		if (!hostfault_pick_slot(reply, mine, 1, 1, s, err))
			return 0;
		strbuf_reset(err);
	}
	return hostfault_pick_slot(reply, target, 1, 1, s, err);
}

int hostfault_vcpu_remove(struct hostfault *h, struct backend *b, const struct plan_fault *f,
			  struct strbuf *detail, struct strbuf *err)
{
	struct json_object *args;
	struct hostfault_slot s;
	uint64_t t0 = 0;
	int ret;

	if (pick(h, b, f->target, 1, &s, err) < 0)
		return -1;
	slot_describe(&s, detail);
	/* device_del only asks: the guest's ACPI eject makes it happen */
	if (b->ops->vcpu_set) {
		/* libvirt waits a few seconds for the eject itself */
		t0 = now_ns();
		ret = b->ops->vcpu_set(b, s.index, 0, err);
		strbuf_addf(detail, " through %s in %.1f s", b->ops->name,
			    (double)(now_ns() - t0) / 1e9);
	} else {
		args = json_object_new_object();
		json_object_object_add(args, "id", json_object_new_string(s.qom_path));
		ret = b->ops->qmp(b, "device_del", args, NULL, err);
		json_object_put(args);
	}
	if (ret < 0)
		return -1;
	snprintf(h->removing, sizeof(h->removing), "%s", s.qom_path);
	h->removing_index = s.index;
	h->removing_since_ns = now_ns();
	for (unsigned i = 0; i < h->nr_added; i++)
		if (h->added[i] == s.index)
			h->added[i] = h->added[--h->nr_added];
	return (int)s.index;
}

/* The second half of a removal: is the vCPU gone from query-cpus-fast? */
int hostfault_vcpu_removed(struct hostfault *h, struct backend *b, int final,
			   struct strbuf *detail, struct strbuf *err)
{
	uint64_t waited;
	struct json_object *reply = NULL;
	int still = 0;
	size_t n;

	if (!h->removing[0]) {
		strbuf_addstr(err, "no removal in progress");
		return -1;
	}
	if (b->ops->qmp(b, "query-cpus-fast", NULL, &reply, err) < 0)
		return -1;
	n = reply && json_object_is_type(reply, json_type_array) ? json_object_array_length(reply) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *cpu = json_object_array_get_idx(reply, i), *path;

		if (json_object_object_get_ex(cpu, "qom-path", &path) &&
		    !strcmp(json_object_get_string(path), h->removing))
			still = 1;
	}
	json_object_put(reply);
	waited = (now_ns() - h->removing_since_ns) / 1000000ull;
	if (still && !final && waited < HOSTFAULT_EJECT_WAIT_MS)
		return 1;
	strbuf_addf(detail, "vCPU %u %s %.1f s after device_del; %zu vCPUs present",
		    h->removing_index, still ? "still present" : "gone", (double)waited / 1e3, n);
	if (still) {
		strbuf_addf(err, "vCPU %u is still present: the guest did not eject it (no ACPI "
			    "cooperation, or it could not offline the CPU)", h->removing_index);
		h->removing[0] = '\0';
		return -1;
	}
	h->removing[0] = '\0';
	return 0;
}

/* ---- the kinds ---- */

static int add_act(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		   struct strbuf *detail, struct strbuf *err)
{
	return hostfault_vcpu_add(h, b, f, detail, err) < 0 ? -1 : 0;
}

const struct hostfault_ops hostfault_kind_vcpu_add = {
	.name = "vcpu_add",
	.description = "hot-adds a vCPU into a free slot (the guest's fault driver onlines it)",
	.action = "device_add",
	.default_hold_ms = 1000,
	.act = add_act,
};

static int remove_act(struct hostfault *h, struct backend *b, const struct plan_fault *f,
		      struct strbuf *detail, struct strbuf *err)
{
	return hostfault_vcpu_remove(h, b, f, detail, err) < 0 ? -1 : 0;
}

static int remove_check(struct hostfault *h, struct backend *b, const struct plan_fault *f,
			struct strbuf *detail, struct strbuf *err)
{
	return hostfault_vcpu_removed(h, b, h->finishing, detail, err);
}

const struct hostfault_ops hostfault_kind_vcpu_remove = {
	.name = "vcpu_remove",
	.description = "hot-removes a vCPU (ours first), then checks after hold that it went",
	.action = "device_del",
	.undo_action = "removed",
	/* the guest's ACPI eject takes seconds under TCG */
	.default_hold_ms = 5000,
	.removes_vcpus = 1,
	.act = remove_act,
	.undo = remove_check,
};
