/* test-backend-libvirt.c - unit tests of the libvirt backend's domain XML
 * (validated against libvirt's schema), URI choice, replies and daemons. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/daemon.h"
#include "backend/libvirt-remote.h"
#include "topo/topo.h"

static char *domain_for(const char *spec, enum lab_accel accel, const char *cmdline)
{
	struct strbuf err = STRBUF_INIT;
	struct topo t;
	struct backend_conf conf = { 0 };

	if (topo_parse(spec, &t, &err))
		fail_msg("topo_parse('%s'): %s", spec, err.buf);
	conf.topo = &t;
	conf.accel = accel;
	conf.name = "schedlab-42";
	conf.cmdline = cmdline;
	/* conf.kernel/initrd are the originals; the XML names the staged copies */
	conf.kernel = "/cache/vmlinux";
	conf.initrd = "/cache/initrd";
	return libvirt_domain_xml(&conf, "/run/lv/kernel", "/run/lv/initrd",
				  "/run/lv/console.sock", "/run/lv/records.sock");
}

static void test_xml_os_and_chardevs(void **state)
{
	char *x = domain_for("2s2c2t,llc=1,dist=30", ACCEL_TCG, "console=ttyS0 lab.mode=probe");
	const char *s0, *s1;

	assert_non_null(strstr(x, "<domain type='qemu'"));
	assert_non_null(strstr(x, "<name>schedlab-42</name>"));
	assert_non_null(strstr(x, "    <kernel>/run/lv/kernel</kernel>\n"));
	assert_non_null(strstr(x, "    <initrd>/run/lv/initrd</initrd>\n"));
	assert_non_null(strstr(x, "    <cmdline>console=ttyS0 lab.mode=probe</cmdline>\n"));
	assert_null(strstr(x, "/cache/"));
	/* the topology part is topo_libvirt_xml()'s, unchanged */
	assert_non_null(strstr(x, "<topology sockets='2' dies='2' cores='1' threads='2'/>"));
	assert_non_null(strstr(x, "<sibling id='1' value='30'/>"));
	assert_non_null(strstr(x, "max-x86_64-cpu.vendor=GenuineIntel"));
	/* ttyS0 is the console, ttyS1 the record channel; no pty console */
	s0 = strstr(x, "<serial type='unix'>\n      <source mode='connect' path='/run/lv/console.sock'/>\n"
		    "      <target port='0'/>\n    </serial>");
	s1 = strstr(x, "<serial type='unix'>\n      <source mode='connect' path='/run/lv/records.sock'/>\n"
		    "      <target port='1'/>\n    </serial>");
	assert_non_null(s0);
	assert_non_null(s1);
	assert_true(s0 < s1);
	assert_null(strstr(x, "type='pty'"));
	assert_null(strstr(x, "<console"));
	assert_non_null(strstr(x, "<controller type='usb' model='none'/>"));
	/* seclabel comes after <devices>, as the schema orders it */
	assert_true(strstr(x, "</devices>\n  <seclabel type='none' model='dac'/>\n") != NULL);
	assert_true(strstr(x, "<seclabel") > strstr(x, "</devices>"));
	free(x);

	x = domain_for("1s2c", ACCEL_KVM, NULL);
	assert_non_null(strstr(x, "<domain type='kvm'"));
	assert_null(strstr(x, "<cmdline>"));
	assert_null(strstr(x, "vendor=GenuineIntel"));
	free(x);
}

static void test_xml_escapes(void **state)
{
	struct topo t;
	struct strbuf err = STRBUF_INIT;
	struct backend_conf conf = { 0 };
	char *x;

	assert_int_equal(topo_parse("1s2c", &t, &err), 0);
	conf.topo = &t;
	conf.name = "a<b";
	conf.cmdline = "lab.x=\"a&b\" <y>";
	x = libvirt_domain_xml(&conf, "/k'", NULL, "/s/c&.sock", "/s/r'.sock");
	assert_non_null(strstr(x, "<name>a&lt;b</name>"));
	assert_non_null(strstr(x, "<cmdline>lab.x=&quot;a&amp;b&quot; &lt;y&gt;</cmdline>"));
	assert_non_null(strstr(x, "<kernel>/k&apos;</kernel>"));
	assert_null(strstr(x, "<initrd>"));
	assert_non_null(strstr(x, "path='/s/c&amp;.sock'"));
	assert_non_null(strstr(x, "path='/s/r&apos;.sock'"));
	free(x);
}

static int have(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path && *path ? path : "/usr/bin:/bin"), *save = NULL;
	int found = 0;

	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", d, prog);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

static int validate(const char *path)
{
	const char *argv[] = { "virt-xml-validate", path, "domain", NULL };
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void test_xml_validates(void **state)
{
	static const char *const specs[] = {
		"2s2c2t,llc=1,dist=30", "small-numa", "epyc-2s-nps2", "1s4c,memnodes=1",
	};
	char dir[] = "/tmp/test-backend-libvirt-XXXXXX";
	char *path;

	if (!have("virt-xml-validate"))
		skip();
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/domain.xml", dir);
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		char *x = domain_for(specs[i], i % 2 ? ACCEL_KVM : ACCEL_TCG, "console=ttyS0 a=\"&\"");

		assert_int_equal(write_file_atomic(path, x, strlen(x)), 0);
		if (validate(path))
			fail_msg("virt-xml-validate rejects the domain of '%s':\n%s", specs[i], x);
		/* the validator can say no: a socket source without a path */
		memcpy(strstr(x, " path='"), " Path='", 7);
		assert_int_equal(write_file_atomic(path, x, strlen(x)), 0);
		assert_int_not_equal(validate(path), 0);
		free(x);
	}
	unlink(path);
	free(path);
	rmdir(dir);
}

static void test_uri_and_backend(void **state)
{
	unsetenv("LIBVIRT_URI");
	assert_string_equal(libvirt_uri(NULL), "qemu:///system");
	assert_string_equal(libvirt_uri(""), "qemu:///system");
	setenv("LIBVIRT_URI", "qemu:///session", 1);
	assert_string_equal(libvirt_uri(NULL), "qemu:///session");
	assert_string_equal(libvirt_uri("test:///default"), "test:///default");
	unsetenv("LIBVIRT_URI");

	assert_ptr_equal(backend_find(NULL), &backend_qemu);
	assert_ptr_equal(backend_find("qemu"), &backend_qemu);
	assert_ptr_equal(backend_find("libvirt"), &backend_libvirt);
	assert_null(backend_find("xen"));
	assert_string_equal(backend_libvirt.name, "libvirt");
}

static void test_check(void **state)
{
	struct strbuf err = STRBUF_INIT;

	/* libvirt's own in-process test driver: a real connection, no daemon */
	if (libvirt_check("test:///default", &err))
		fail_msg("test:///default: %s", err.buf);
	strbuf_reset(&err);
	assert_int_equal(libvirt_check("test:///nonexistent/file.xml", &err), -1);
	assert_non_null(strstr(err.buf, "test:///nonexistent/file.xml: "));
	strbuf_release(&err);
}

/* Which URIs take the pool-and-streams path. */
static void test_uri_remote(void **state)
{
	unsetenv("LIBVIRT_REMOTE");
	assert_false(libvirt_uri_remote("qemu:///system"));
	assert_false(libvirt_uri_remote("qemu:///session"));
	assert_false(libvirt_uri_remote("test:///default"));
	assert_true(libvirt_uri_remote("qemu+ssh://root@127.0.0.1:2222/system?keyfile=/k"));
	assert_true(libvirt_uri_remote("qemu+ssh:///system"));
	assert_true(libvirt_uri_remote("qemu+libssh2://h/system"));
	assert_true(libvirt_uri_remote("qemu+tcp:///system"));
	assert_true(libvirt_uri_remote("qemu+tls://h/system"));
	assert_true(libvirt_uri_remote("qemu://host.example/system"));
	setenv("LIBVIRT_REMOTE", "1", 1);
	assert_true(libvirt_uri_remote("qemu:///system"));
	setenv("LIBVIRT_REMOTE", "0", 1);
	assert_false(libvirt_uri_remote("qemu:///system"));
	unsetenv("LIBVIRT_REMOTE");
}

/* Remote mode: pty serial ports, the volumes' paths, nothing local. */
static void test_xml_streams(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct backend_conf conf = { 0 };
	struct topo t;
	char *x;

	assert_int_equal(topo_parse("2s2c,llc=1", &t, &err), 0);
	conf.topo = &t;
	conf.accel = ACCEL_TCG;
	conf.name = "schedlab-42";
	conf.kernel = "/cache/vmlinux";
	conf.initrd = "/cache/initrd";
	x = libvirt_domain_xml(&conf, "/var/lib/libvirt/images/p/kernel",
			       "/var/lib/libvirt/images/p/initrd", NULL, NULL);
	assert_non_null(strstr(x, "<kernel>/var/lib/libvirt/images/p/kernel</kernel>"));
	assert_non_null(strstr(x, "<serial type='pty'>\n      <target port='0'/>\n"
			       "    </serial>\n    <serial type='pty'>\n"
			       "      <target port='1'/>\n    </serial>\n"));
	assert_null(strstr(x, "type='unix'"));
	assert_null(strstr(x, "/cache/"));
	if (have("virt-xml-validate")) {
		char dir[] = "/tmp/test-backend-libvirt-XXXXXX";
		char *path;

		assert_non_null(mkdtemp(dir));
		path = xasprintf("%s/domain.xml", dir);
		assert_int_equal(write_file_atomic(path, x, strlen(x)), 0);
		if (validate(path))
			fail_msg("virt-xml-validate rejects the stream-mode domain:\n%s", x);
		unlink(path);
		free(path);
		rmdir(dir);
	}
	free(x);
	strbuf_release(&err);
}

static void test_pool_names(void **state)
{
	char *name = lv_pool_name("schedlab-1234"), *x;
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	assert_int_equal(strncmp(name, "schedlab-1234-files-", 20), 0);
	assert_int_equal(lv_pool_name_pid(name), 1234);
	/* another host's pool, another program's pool, no pid: never ours */
	assert_int_equal(lv_pool_name_pid("schedlab-1234-files-some.other.host"), host[0] &&
			 !strcmp(host, "some.other.host") ? 1234 : 0);
	assert_int_equal(lv_pool_name_pid("default"), 0);
	assert_int_equal(lv_pool_name_pid("schedlab--files-x"), 0);
	assert_int_equal(lv_pool_name_pid("schedlab-0-files-x"), 0);
	x = lv_pool_xml(name);
	assert_non_null(strstr(x, "<pool type='dir'>"));
	assert_non_null(strstr(x, "<path>" LV_POOL_BASE "/schedlab-1234-files-"));
	assert_non_null(strstr(x, "<mode>0755</mode>"));
	free(x);
	x = lv_vol_xml("kernel", 12345);
	assert_non_null(strstr(x, "<capacity unit='bytes'>12345</capacity>"));
	assert_non_null(strstr(x, "<mode>0644</mode>"));
	free(x);
	free(name);
}

/* The sweep against libvirt's in-process test driver: a pool of a dead
 * lab on this host goes, a live one's and foreign ones stay. */
static void test_pool_sweep(void **state)
{
	virConnectPtr conn = virConnectOpen("test:///default");
	char *dead, *live, *x;
	pid_t child;
	virStoragePoolPtr p;

	assert_non_null(conn);
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	waitpid(child, NULL, 0);
	dead = xasprintf("schedlab-%ld", (long)child);
	live = xasprintf("schedlab-%ld", (long)getppid());
	for (int i = 0; i < 3; i++) {
		char *name = i == 0 ? lv_pool_name(dead) : i == 1 ? lv_pool_name(live) :
			     xstrdup("schedlab-1-files-elsewhere.example");

		x = lv_pool_xml(name);
		p = virStoragePoolDefineXML(conn, x, 0);
		assert_non_null(p);
		virStoragePoolFree(p);
		free(x);
		free(name);
	}
	lv_pool_sweep(conn);
	x = lv_pool_name(dead);
	assert_null(virStoragePoolLookupByName(conn, x));
	free(x);
	x = lv_pool_name(live);
	p = virStoragePoolLookupByName(conn, x);
	assert_non_null(p);
	virStoragePoolUndefine(p);
	virStoragePoolFree(p);
	free(x);
	p = virStoragePoolLookupByName(conn, "schedlab-1-files-elsewhere.example");
	assert_non_null(p);
	virStoragePoolUndefine(p);
	virStoragePoolFree(p);
	free(dead);
	free(live);
	virConnectClose(conn);
}

static void test_qmp_reply(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct json_object *r = NULL;

	assert_int_equal(libvirt_qmp_reply("query-cpus-fast",
		"{\"return\":[{\"cpu-index\":0,\"thread-id\":7}],\"id\":\"libvirt-9\"}", &r, &err), 0);
	assert_true(json_object_is_type(r, json_type_array));
	assert_int_equal(json_object_array_length(r), 1);
	json_object_put(r);
	assert_int_equal(libvirt_qmp_reply("x", "{\"return\":{}}", NULL, &err), 0);

	assert_int_equal(libvirt_qmp_reply("frob",
		"{\"id\":\"libvirt-10\",\"error\":{\"class\":\"CommandNotFound\","
		"\"desc\":\"The command frob has not been found\"}}", NULL, &err), -1);
	assert_string_equal(err.buf, "frob: The command frob has not been found");
	strbuf_reset(&err);
	assert_int_equal(libvirt_qmp_reply("x", "{\"id\":1}", NULL, &err), -1);
	assert_string_equal(err.buf, "x: reply without a return value");
	strbuf_reset(&err);
	assert_int_equal(libvirt_qmp_reply("x", "[1]", NULL, &err), -1);
	assert_string_equal(err.buf, "x: unreadable monitor reply");
	strbuf_reset(&err);
	assert_int_equal(libvirt_qmp_reply("x", "{\"ret", NULL, &err), -1);
	strbuf_reset(&err);
	assert_int_equal(libvirt_qmp_reply("x", NULL, NULL, &err), -1);
	strbuf_release(&err);
}

static void test_daemons(void **state)
{
	char dir[] = "/tmp/test-daemon-XXXXXX";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct strbuf err = STRBUF_INIT;
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", dir);
	assert_int_equal(unix_socket_alive(sa.sun_path), 0);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	/* bound but not listening: nothing would answer libvirt's clients */
	assert_int_equal(unix_socket_alive(sa.sun_path), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(unix_socket_alive(sa.sun_path), 1);
	close(fd);
	assert_int_equal(unix_socket_alive(sa.sun_path), 0);
	unlink(sa.sun_path);
	rmdir(dir);

	/* only a local qemu:///system is the lab's to start */
	assert_int_equal(libvirt_daemons_ensure("test:///default", 1000, &err), 0);
	assert_int_equal(libvirt_daemons_ensure("qemu+ssh://h/system", 1000, &err), 0);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_os_and_chardevs),
		cmocka_unit_test(test_xml_escapes),
		cmocka_unit_test(test_xml_validates),
		cmocka_unit_test(test_uri_and_backend),
		cmocka_unit_test(test_uri_remote),
		cmocka_unit_test(test_xml_streams),
		cmocka_unit_test(test_pool_names),
		cmocka_unit_test(test_pool_sweep),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_qmp_reply),
		cmocka_unit_test(test_daemons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
