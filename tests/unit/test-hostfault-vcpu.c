/* test-hostfault-vcpu.c - vCPU hot-plug slot choice from recorded QEMU 7.2
 * replies, the QMP it sends, and vCPU throttling cgroups on a fake tree. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "fault/hostfault.h"

/* QEMU 7.2 -smp cpus=2,maxcpus=8,sockets=2,cores=2,threads=2, as it
 * answered query-hotpluggable-cpus (slots listed highest first). */
static const char slots_2of8[] =
	"[{\"props\": {\"core-id\": 1, \"thread-id\": 1, \"socket-id\": 1}, \"vcpus-count\": 1, \"type\": \"max-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 1, \"thread-id\": 0, \"socket-id\": 1}, \"vcpus-count\": 1, \"type\": \"max-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 0, \"thread-id\": 1, \"socket-id\": 1}, \"vcpus-count\": 1, \"qom-path\": \"/machine/peripheral/x\", \"type\": \"max-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 0, \"thread-id\": 0, \"socket-id\": 1}, \"vcpus-count\": 1, \"type\": \"max-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 1, \"thread-id\": 1, \"socket-id\": 0}, \"vcpus-count\": 1, \"type\": \"max-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 1, \"thread-id\": 0, \"socket-id\": 0}, \"vcpus-count\": 1, \"type\": \"max-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 0, \"thread-id\": 1, \"socket-id\": 0}, \"vcpus-count\": 1, \"qom-path\": \"/machine/unattached/device[2]\", \"type\": \"max-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 0, \"thread-id\": 0, \"socket-id\": 0}, \"vcpus-count\": 1, \"qom-path\": \"/machine/unattached/device[0]\", \"type\": \"max-x86_64-cpu\"}]";

/* A 2-die machine: QEMU reports die-id too. */
static const char slots_dies[] =
	"[{\"props\": {\"core-id\": 0, \"socket-id\": 0, \"die-id\": 1, \"thread-id\": 0}, \"vcpus-count\": 1, \"type\": \"Skylake-Server-x86_64-cpu\"},"
	" {\"props\": {\"core-id\": 0, \"socket-id\": 0, \"die-id\": 0, \"thread-id\": 0}, \"vcpus-count\": 1, \"qom-path\": \"/machine/unattached/device[0]\", \"type\": \"Skylake-Server-x86_64-cpu\"}]";

static struct json_object *parse(const char *s)
{
	struct json_object *o = json_tokener_parse(s);

	assert_non_null(o);
	return o;
}

static void test_pick_free(void **state)
{
	struct json_object *r = parse(slots_2of8), *args;
	struct strbuf err = STRBUF_INIT;
	struct hostfault_slot s;

	/* the lowest free slot: socket 0, core 1, thread 0 is vCPU 2 */
	assert_int_equal(hostfault_pick_slot(r, "default", 0, 0, &s, &err), 0);
	assert_int_equal(s.index, 2);
	assert_string_equal(s.driver, "max-x86_64-cpu");
	assert_false(s.present);
	/* a named one; vCPU 5 is taken (hot-added as "x"), 6 is free */
	assert_int_equal(hostfault_pick_slot(r, "5-6", 0, 0, &s, &err), 0);
	assert_int_equal(s.index, 6);
	assert_int_equal(s.id[0], 1);
	assert_int_equal(s.id[1], -1); /* no die-id without dies */
	assert_int_equal(s.id[2], 1);
	assert_int_equal(s.id[3], 0);
	snprintf(s.dev_id, sizeof(s.dev_id), "schedlab-vcpu6");
	args = hostfault_slot_device_args(&s);
	assert_string_equal(json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN),
			    "{\"driver\":\"max-x86_64-cpu\",\"id\":\"schedlab-vcpu6\","
			    "\"socket-id\":1,\"core-id\":1,\"thread-id\":0}");
	json_object_put(args);
	/* taken or beyond the machine: one clear line */
	assert_int_equal(hostfault_pick_slot(r, "0-1", 0, 0, &s, &err), -1);
	assert_string_equal(err.buf, "no free vCPU slot matches '0-1' (all hot-plug slots are in "
			    "use, or the topology has no hotplug=N)");
	strbuf_reset(&err);
	assert_int_equal(hostfault_pick_slot(r, "3-x", 0, 0, &s, &err), -1);
	assert_string_equal(err.buf, "bad vCPU list '3-x'");
	strbuf_release(&err);
	json_object_put(r);
}

static void test_pick_present(void **state)
{
	struct json_object *r = parse(slots_2of8);
	struct strbuf err = STRBUF_INIT;
	struct hostfault_slot s;

	/* removal: the highest occupied slot, never vCPU 0 */
	assert_int_equal(hostfault_pick_slot(r, "default", 1, 1, &s, &err), 0);
	assert_int_equal(s.index, 5);
	assert_string_equal(s.qom_path, "/machine/peripheral/x");
	assert_int_equal(hostfault_pick_slot(r, "0-1", 1, 1, &s, &err), 0);
	assert_int_equal(s.index, 1);
	assert_int_equal(hostfault_pick_slot(r, "0", 1, 1, &s, &err), -1);
	assert_string_equal(err.buf, "no removable vCPU matches '0'");
	strbuf_release(&err);
	json_object_put(r);
}

static void test_pick_dies_and_junk(void **state)
{
	struct json_object *r = parse(slots_dies);
	struct strbuf err = STRBUF_INIT;
	struct hostfault_slot s;

	assert_int_equal(hostfault_pick_slot(r, "default", 0, 0, &s, &err), 0);
	assert_int_equal(s.index, 1);
	assert_int_equal(s.id[1], 1);
	assert_string_equal(s.driver, "Skylake-Server-x86_64-cpu");
	json_object_put(r);
	/* replies that are not what QEMU sends pick nothing */
	r = parse("{\"props\": {}}");
	assert_int_equal(hostfault_pick_slot(r, "default", 0, 0, &s, &err), -1);
	assert_string_equal(err.buf, "query-hotpluggable-cpus gave no list of slots");
	json_object_put(r);
	strbuf_reset(&err);
	r = parse("[{\"props\": {\"core-id\": 0}, \"type\": \"x\"}, 7, {\"type\": 3},"
		  " {\"props\": [], \"type\": \"y\"}]");
	assert_int_equal(hostfault_pick_slot(r, "default", 0, 0, &s, &err), -1);
	json_object_put(r);
	assert_int_equal(hostfault_pick_slot(NULL, "default", 0, 0, &s, &err), -1);
	strbuf_release(&err);
}

/* A monitor that answers from recorded text and logs what it was sent. */
static char sent[8][256];
static unsigned nr_sent;
static const char *cpus_reply;

static int fake_qmp(struct backend *b, const char *cmd, struct json_object *args,
		    struct json_object **reply, struct strbuf *err)
{
	if (nr_sent < 8)
		snprintf(sent[nr_sent++], sizeof(sent[0]), "%s %s", cmd,
			 args ? json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN) : "");
	if (reply)
		*reply = NULL;
	if (!strcmp(cmd, "query-hotpluggable-cpus") && reply)
		*reply = json_tokener_parse(slots_2of8);
	if (!strcmp(cmd, "query-cpus-fast") && reply)
		*reply = json_tokener_parse(cpus_reply);
	return 0;
}

static const struct backend_ops fake_ops = { .name = "fake", .qmp = fake_qmp };

static void test_add_remove(void **state)
{
	struct plan p = { .cases = calloc(1, sizeof(struct plan_case)), .nr_cases = 1 };
	struct plan_fault *f = &p.cases[0].faults[0];
	struct backend b = { .ops = &fake_ops };
	struct strbuf err = STRBUF_INIT, detail = STRBUF_INIT;
	struct hostfault h;

	snprintf(f->target, sizeof(f->target), "default");
	hostfault_init(&h, &p, NULL, now_ns());
	nr_sent = 0;
	assert_int_equal(hostfault_vcpu_add(&h, &b, f, &detail, &err), 2);
	assert_string_equal(sent[0], "query-hotpluggable-cpus ");
	assert_string_equal(sent[1], "device_add {\"driver\":\"max-x86_64-cpu\",\"id\":"
			    "\"schedlab-vcpu2\",\"socket-id\":0,\"core-id\":1,\"thread-id\":0}");
	assert_string_equal(detail.buf, "vCPU 2 (max-x86_64-cpu socket-id=0 core-id=1 thread-id=0)");
	assert_int_equal(h.nr_added, 1);
	/* the recorded reply does not show our add: the removal falls back
	 * to the highest removable vCPU */
	strbuf_reset(&detail);
	assert_int_equal(hostfault_vcpu_remove(&h, &b, f, &detail, &err), 5);
	assert_string_equal(sent[3], "device_del {\"id\":\"\\/machine\\/peripheral\\/x\"}");
	/* still listed: not final yet, then final and a failure */
	cpus_reply = "[{\"cpu-index\": 0, \"qom-path\": \"/machine/unattached/device[0]\"},"
		     " {\"cpu-index\": 5, \"qom-path\": \"/machine/peripheral/x\"}]";
	strbuf_reset(&detail);
	assert_int_equal(hostfault_vcpu_removed(&h, &b, 0, &detail, &err), 1);
	assert_int_equal(hostfault_vcpu_removed(&h, &b, 1, &detail, &err), -1);
	assert_non_null(strstr(err.buf, "vCPU 5 is still present"));
	/* gone */
	strbuf_reset(&detail);
	assert_int_equal(hostfault_vcpu_remove(&h, &b, f, &detail, &err), 5);
	cpus_reply = "[{\"cpu-index\": 0, \"qom-path\": \"/machine/unattached/device[0]\"}]";
	assert_int_equal(hostfault_vcpu_removed(&h, &b, 0, &detail, &err), 0);
	assert_non_null(strstr(detail.buf, "vCPU 5 gone"));
	assert_int_equal(hostfault_vcpu_removed(&h, &b, 0, &detail, &err), -1);
	strbuf_release(&err);
	strbuf_release(&detail);
	plan_release(&p);
}

/* ---- throttling cgroups on a fake /sys/fs/cgroup ---- */

static void mk(const char *root, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);

	if (text)
		assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	else
		assert_true(mkdir(path, 0755) == 0);
	free(path);
}

static char *slurp(const char *root, const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel), *s = read_file(path, NULL);

	free(path);
	assert_non_null(s);
	return s;
}

static void check_file(const char *root, const char *rel, const char *want)
{
	char *s = slurp(root, rel);

	assert_string_equal(s, want);
	free(s);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *root)
{
	assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void test_cgroup_find(void **state)
{
	char root[] = "/tmp/test-cg.XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct hostfault_cg cg;

	assert_non_null(mkdtemp(root));
	/* nothing mounted */
	assert_int_equal(hostfault_cg_find(root, &cg, &err), -1);
	assert_non_null(strstr(err.buf, "neither a cgroup v2 hierarchy nor a v1 cpu hierarchy"));
	/* this machine: hybrid, cpu bound to v1, unified without controllers */
	mk(root, "unified", NULL);
	mk(root, "unified/cgroup.controllers", "\n");
	mk(root, "cpu", NULL);
	mk(root, "cpu/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(hostfault_cg_find(root, &cg, &err), 0);
	assert_int_equal(cg.version, 1);
	assert_non_null(strstr(cg.base, "/cpu"));
	/* cpu moved to the unified hierarchy: v2 wins */
	mk(root, "unified/cgroup.controllers", "cpuset cpu io memory pids\n");
	assert_int_equal(hostfault_cg_find(root, &cg, &err), 0);
	assert_int_equal(cg.version, 2);
	assert_non_null(strstr(cg.base, "/unified"));
	/* a v2-only host: the root itself */
	mk(root, "cgroup.controllers", "cpu memory\n");
	assert_int_equal(hostfault_cg_find(root, &cg, &err), 0);
	assert_int_equal(cg.version, 2);
	assert_string_equal(cg.base, root);
	/* v2 without cpu and no v1: says so */
	mk(root, "cgroup.controllers", "memory\n");
	mk(root, "unified/cgroup.controllers", "memory\n");
	strbuf_reset(&err);
	strbuf_addf(&err, "%s/cpu", root);
	rm_tree(err.buf);
	strbuf_reset(&err);
	assert_int_equal(hostfault_cg_find(root, &cg, &err), -1);
	assert_non_null(strstr(err.buf, "the unified hierarchy does not offer it"));
	rm_tree(root);
	strbuf_release(&err);
}

/* The files a real cgroupfs would create on mkdir, made in advance. */
static void fake_v2(const char *root, const char *mine)
{
	char *dir = xasprintf("%s", mine), *leaf = xasprintf("%s/vcpus", mine);

	mk(root, "cgroup.controllers", "cpu memory\n");
	mk(root, "cgroup.subtree_control", "");
	mk(root, "machine", NULL);
	mk(root, "machine/cgroup.procs", "");
	mk(root, dir, NULL);
	mk(root, leaf, NULL);
	for (const char *const *f = (const char *const[]){ "cgroup.procs", "cgroup.threads",
							    "cgroup.subtree_control", NULL }; *f; f++) {
		char *rel = xasprintf("%s/%s", dir, *f);

		mk(root, rel, "");
		free(rel);
	}
	for (const char *const *f = (const char *const[]){ "cgroup.type", "cgroup.threads",
							    "cpu.max", NULL }; *f; f++) {
		char *rel = xasprintf("%s/%s", leaf, *f);

		mk(root, rel, "");
		free(rel);
	}
	free(dir);
	free(leaf);
}

static void test_cgroup_v2_throttle(void **state)
{
	char root[] = "/tmp/test-cg.XXXXXX", mine[64], rel[96];
	struct strbuf err = STRBUF_INIT;
	struct hostfault_cg cg;
	long tids[] = { 4242 };

	assert_non_null(mkdtemp(root));
	snprintf(mine, sizeof(mine), "schedlab-%ld", (long)getpid());
	fake_v2(root, mine);
	assert_int_equal(hostfault_cg_find(root, &cg, &err), 0);
	assert_int_equal(cg.version, 2);
	/* undo before anything was throttled: nothing to do, nothing made */
	assert_int_equal(hostfault_cg_throttle(&cg, 4200, "/machine", tids, 1, 30, 1, &err), 0);
	assert_string_equal(cg.dir, "");
	assert_int_equal(hostfault_cg_throttle(&cg, 4200, "/machine", tids, 1, 30, 0, &err), 0);
	/* the parent hands cpu down, QEMU moves into a threaded domain, the
	 * vCPU thread into its threaded child with a quota */
	check_file(root, "cgroup.subtree_control", "+cpu");
	snprintf(rel, sizeof(rel), "%s/vcpus/cgroup.type", mine);
	check_file(root, rel, "threaded");
	snprintf(rel, sizeof(rel), "%s/cgroup.procs", mine);
	check_file(root, rel, "4200");
	snprintf(rel, sizeof(rel), "%s/cgroup.subtree_control", mine);
	check_file(root, rel, "+cpu");
	snprintf(rel, sizeof(rel), "%s/vcpus/cpu.max", mine);
	check_file(root, rel, "30000 100000");
	snprintf(rel, sizeof(rel), "%s/vcpus/cgroup.threads", mine);
	check_file(root, rel, "4242");
	/* undo: the thread goes back to the lab's cgroup */
	assert_int_equal(hostfault_cg_throttle(&cg, 4200, "/machine", tids, 1, 30, 1, &err), 0);
	snprintf(rel, sizeof(rel), "%s/cgroup.threads", mine);
	check_file(root, rel, "4242");
	/* release: QEMU back home; the fake directories are not cgroupfs, so
	 * rmdir fails on their files and says so */
	assert_int_equal(hostfault_cg_release(&cg, &err), -1);
	check_file(root, "machine/cgroup.procs", "4200");
	assert_non_null(strstr(err.buf, "cannot remove"));
	assert_string_equal(cg.dir, "");
	rm_tree(root);
	strbuf_release(&err);
}

static void test_cgroup_v1_throttle(void **state)
{
	char root[] = "/tmp/test-cg.XXXXXX", rel[96];
	struct strbuf err = STRBUF_INIT;
	struct hostfault_cg cg;
	long tids[] = { 77 };

	assert_non_null(mkdtemp(root));
	mk(root, "cpu", NULL);
	mk(root, "cpu/cpu.cfs_quota_us", "-1\n");
	mk(root, "cpu/tasks", "");
	snprintf(rel, sizeof(rel), "cpu/schedlab-%ld", (long)getpid());
	mk(root, rel, NULL);
	for (const char *const *f = (const char *const[]){ "tasks", "cpu.cfs_period_us",
							    "cpu.cfs_quota_us", NULL }; *f; f++) {
		char *r = xasprintf("%s/%s", rel, *f);

		mk(root, r, "");
		free(r);
	}
	assert_int_equal(hostfault_cg_find(root, &cg, &err), 0);
	assert_int_equal(hostfault_cg_throttle(&cg, -1, "/", tids, 1, 45, 0, &err), 0);
	strbuf_reset(&err);
	strbuf_addf(&err, "%s/cpu.cfs_quota_us", rel);
	check_file(root, err.buf, "45000");
	strbuf_reset(&err);
	strbuf_addf(&err, "%s/tasks", rel);
	check_file(root, err.buf, "77");
	strbuf_reset(&err);
	assert_int_equal(hostfault_cg_throttle(&cg, -1, "/", tids, 1, 45, 1, &err), 0);
	check_file(root, "cpu/tasks", "77");
	rm_tree(root);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick_free),
		cmocka_unit_test(test_pick_present),
		cmocka_unit_test(test_pick_dies_and_junk),
		cmocka_unit_test(test_add_remove),
		cmocka_unit_test(test_cgroup_find),
		cmocka_unit_test(test_cgroup_v2_throttle),
		cmocka_unit_test(test_cgroup_v1_throttle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
