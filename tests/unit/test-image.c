/* test-image.c - unit tests of the disk-image helpers in host-tools/kernel/image.c:
 * format sniffing, record-stream agreement and module load order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/image.h"
#include "common/wire.h"

static void test_sniff(void **state)
{
	static unsigned char head[4096];

	(void)state;
	memset(head, 0, sizeof(head));
	memcpy(head, "QFI\xfb\0\0\0\3", 8);
	assert_string_equal(image_sniff(head, sizeof(head), 12345), "qcow2");
	head[7] = 1; /* qcow version 1: not supported */
	assert_null(image_sniff(head, sizeof(head), 12345));

	memset(head, 0, sizeof(head));
	head[510] = 0x55;
	head[511] = 0xaa;
	assert_string_equal(image_sniff(head, sizeof(head), 1 << 20), "raw");
	/* not a whole number of sectors: a file that happens to end in 55 AA */
	assert_null(image_sniff(head, sizeof(head), (1 << 20) + 3));
	/* too short to hold the signature */
	assert_null(image_sniff(head, 100, 512));

	memset(head, 0, sizeof(head));
	head[1024 + 56] = 0x53;
	head[1024 + 57] = 0xef;
	assert_string_equal(image_sniff(head, sizeof(head), 64 << 20), "raw");

	memset(head, 'x', sizeof(head));
	assert_null(image_sniff(head, sizeof(head), 4096));
	assert_null(image_sniff(head, 0, 0));
}

static size_t put(unsigned char *buf, uint32_t seq, uint16_t type, const char *payload)
{
	return wire_encode(seq, type, payload, (uint32_t)strlen(payload), buf,
			   WIRE_HDR_LEN + strlen(payload));
}

static size_t stream(unsigned char *buf, const char *const *payloads, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += put(buf + len, (uint32_t)i, WIRE_RESULT, payloads[i]);
	return len;
}

static void test_compare_same(void **state)
{
	static const char *const p[] = { "{\"a\":1}", "{\"b\":2}", "{\"c\":3}" };
	unsigned char a[512], b[512];
	size_t al = stream(a, p, 3), bl = stream(b, p, 3);
	struct strbuf why = STRBUF_INIT;
	uint64_t nr = 0;

	(void)state;
	assert_int_equal(image_records_compare(a, al, b, bl, &nr, &why), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(why.len, 0);
	strbuf_release(&why);
}

static void test_compare_differs(void **state)
{
	static const char *const p[] = { "{\"a\":1}", "{\"b\":2}", "{\"c\":3}" };
	static const char *const q[] = { "{\"a\":1}", "{\"b\":9}", "{\"c\":3}" };
	unsigned char a[512], b[512];
	size_t al = stream(a, p, 3), bl = stream(b, q, 3);
	struct strbuf why = STRBUF_INIT;
	uint64_t nr;

	(void)state;
	assert_int_equal(image_records_compare(a, al, b, bl, &nr, &why), 1);
	assert_non_null(strstr(why.buf, "record 1 differs"));
	strbuf_reset(&why);

	/* one record short (a truncated file in the image) */
	assert_int_equal(image_records_compare(a, al, a, stream(b, p, 2), &nr, &why), 1);
	assert_non_null(strstr(why.buf, "3 records"));
	strbuf_reset(&why);

	/* same records, one side carries garbage between them */
	memcpy(b, a, al);
	memcpy(b + al, "noise", 5);
	assert_int_equal(image_records_compare(a, al, b, al + 5, &nr, &why), 1);
	assert_non_null(strstr(why.buf, "damaged"));
	strbuf_reset(&why);

	/* nothing at all on one side */
	assert_int_equal(image_records_compare("", 0, a, al, &nr, &why), 1);
	assert_int_equal(nr, 0);
	strbuf_release(&why);
}

static const char dep[] =
	"kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko\n"
	"kernel/fs/jbd2/jbd2.ko:\n"
	"kernel/fs/mbcache.ko:\n"
	"kernel/lib/crc16.ko:\n"
	"kernel/drivers/virtio/virtio.ko:\n"
	"kernel/drivers/virtio/virtio_ring.ko:\n"
	"kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_legacy_dev.ko "
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/drivers/virtio/virtio_pci_legacy_dev.ko:\n"
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko:\n"
	"kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio.ko "
	"kernel/drivers/virtio/virtio_ring.ko\n"
	"kernel/crypto/crc32c_generic.ko:\n";

static long index_of(const struct strvec *v, const char *s)
{
	for (size_t i = 0; i < v->nr; i++)
		if (!strcmp(v->v[i], s))
			return (long)i;
	return -1;
}

static void test_modules_order(void **state)
{
	static const char *const want[] = { "virtio_pci", "virtio_blk", "ext4", "crc32c-generic", NULL };
	struct strvec out = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(image_modules_order(dep, strlen(dep), want, &out, &err), 0);
	/* each once: virtio_pci and its 4, virtio_blk, ext4 and its 3, crc32c */
	assert_int_equal(out.nr, 11);
	assert_true(index_of(&out, "kernel/drivers/virtio/virtio.ko") <
		    index_of(&out, "kernel/drivers/virtio/virtio_pci.ko"));
	assert_true(index_of(&out, "kernel/drivers/virtio/virtio_ring.ko") <
		    index_of(&out, "kernel/drivers/block/virtio_blk.ko"));
	assert_true(index_of(&out, "kernel/fs/jbd2/jbd2.ko") < index_of(&out, "kernel/fs/ext4/ext4.ko"));
	assert_true(index_of(&out, "kernel/crypto/crc32c_generic.ko") >= 0);
	strvec_clear(&out);
	strbuf_release(&err);
}

static void test_modules_missing(void **state)
{
	static const char *const want[] = { "virtio_blk", "xfs", NULL };
	static const char *const prefix[] = { "ext", NULL };
	static const char cyclic[] = "a/x.ko: a/y.ko\na/y.ko: a/x.ko\n";
	static const char *const x[] = { "x", NULL };
	struct strvec out = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(image_modules_order(dep, strlen(dep), want, &out, &err), -1);
	assert_non_null(strstr(err.buf, "'xfs'"));
	strbuf_reset(&err);
	strvec_clear(&out);
	/* a name is a whole module name, not a prefix of one */
	assert_int_equal(image_modules_order(dep, strlen(dep), prefix, &out, &err), -1);
	strvec_clear(&out);
	/* depmod never writes a cycle; if it did, each module is still listed once */
	assert_int_equal(image_modules_order(cyclic, strlen(cyclic), x, &out, &err), 0);
	assert_int_equal(out.nr, 2);
	strvec_clear(&out);
	strbuf_release(&err);
}

/* The links win, with their own initramfs link. */
static void test_boot_links(void **state)
{
	static const char *const names[] = { "vmlinuz-6.1.0-57-amd64", "initrd.img-6.1.0-57-amd64",
					     "config-6.1.0-57-amd64", "System.map-6.1.0-57-amd64",
					     "vmlinuz-6.1.0-9-amd64", "initrd.img-6.1.0-9-amd64", NULL };
	struct strbuf err = STRBUF_INIT;
	struct image_boot b;

	(void)state;
	/* a link to the older kernel is the default entry, not the newest file */
	assert_int_equal(image_boot_choose("/boot/vmlinuz-6.1.0-9-amd64",
					   "/boot/initrd.img-6.1.0-9-amd64", names, &b, &err), 0);
	assert_string_equal(b.kernel, "/boot/vmlinuz-6.1.0-9-amd64");
	assert_string_equal(b.initrd, "/boot/initrd.img-6.1.0-9-amd64");
	assert_null(b.config);
	assert_string_equal(b.how, "/vmlinuz");
	image_boot_release(&b);

	/* a kernel link without an initramfs link: the initramfs of its version */
	assert_int_equal(image_boot_choose("/boot/vmlinuz-6.1.0-57-amd64", NULL, names, &b, &err), 0);
	assert_string_equal(b.initrd, "/boot/initrd.img-6.1.0-57-amd64");
	assert_string_equal(b.config, "/boot/config-6.1.0-57-amd64");
	image_boot_release(&b);

	/* a link to a file that is not named vmlinuz-<v> needs an initrd link */
	assert_int_equal(image_boot_choose("/opt/kernel", "/opt/initrd", names, &b, &err), 0);
	assert_string_equal(b.kernel, "/opt/kernel");
	assert_null(b.config);
	image_boot_release(&b);
	assert_int_equal(image_boot_choose("/opt/kernel", NULL, names, &b, &err), -1);
	assert_non_null(strstr(err.buf, "no initramfs found for kernel /opt/kernel"));
	assert_null(b.kernel);
	strbuf_release(&err);
}

/* Without links: the newest kernel by version order, not by name. */
static void test_boot_newest(void **state)
{
	static const char *const names[] = { "vmlinuz-6.1.0-9-amd64", "initrd.img-6.1.0-9-amd64",
					     "vmlinuz-6.1.0-10-amd64", "initrd.img-6.1.0-10-amd64",
					     "vmlinuz-", "initrd.img-6.1.0-11-amd64", NULL };
	struct strbuf err = STRBUF_INIT;
	struct image_boot b;

	(void)state;
	assert_int_equal(image_boot_choose(NULL, NULL, names, &b, &err), 0);
	assert_string_equal(b.kernel, "/boot/vmlinuz-6.1.0-10-amd64");
	assert_string_equal(b.initrd, "/boot/initrd.img-6.1.0-10-amd64");
	assert_string_equal(b.how, "newest /boot/vmlinuz-*");
	image_boot_release(&b);
	strbuf_release(&err);
}

static void test_boot_missing(void **state)
{
	static const char *const nokernel[] = { "initrd.img-6.1.0-9-amd64", "grub", NULL };
	static const char *const noinitrd[] = { "vmlinuz-6.1.0-9-amd64", "vmlinuz-6.1.0-10-amd64",
						"initrd.img-6.1.0-9-amd64", NULL };
	struct strbuf err = STRBUF_INIT;
	struct image_boot b;

	(void)state;
	assert_int_equal(image_boot_choose(NULL, NULL, NULL, &b, &err), -1);
	assert_string_equal(err.buf, "no kernel found (looked for /vmlinuz, /boot/vmlinuz and "
			    "/boot/vmlinuz-*)");
	strbuf_reset(&err);
	assert_int_equal(image_boot_choose(NULL, NULL, nokernel, &b, &err), -1);
	assert_non_null(strstr(err.buf, "no kernel found"));
	strbuf_reset(&err);
	/* the newest kernel is the default; an older one's initramfs is not its */
	assert_int_equal(image_boot_choose(NULL, NULL, noinitrd, &b, &err), -1);
	assert_string_equal(err.buf, "no initramfs found for kernel /boot/vmlinuz-6.1.0-10-amd64 "
			    "(looked for /initrd.img, /boot/initrd.img and "
			    "/boot/initrd.img-6.1.0-10-amd64)");
	assert_null(b.kernel);
	assert_null(b.initrd);
	strbuf_release(&err);
}

static void test_config_missing(void **state)
{
	static const char debian[] = "# comment\nCONFIG_BLOCK=y\nCONFIG_MSDOS_PARTITION=y\n"
		"CONFIG_VIRTIO_PCI=m\nCONFIG_VIRTIO_BLK=m\nCONFIG_EXT4_FS=m\n";
	static const char base[] = "# comment\nCONFIG_PCI=y\n# CONFIG_BLOCK is not set\n"
		"CONFIG_EXT4_FS_SECURITY=y\n";
	static const char one[] = "#\nCONFIG_BLOCK=y\nCONFIG_MSDOS_PARTITION=y\n"
		"CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_BLK=y\nCONFIG_EXT4_FS=n\n";
	struct strbuf m = STRBUF_INIT;

	(void)state;
	assert_int_equal(image_config_missing(debian, &m), 0);
	assert_string_equal(m.buf, "");
	/* an option whose name starts like a missing one does not count */
	assert_int_equal(image_config_missing(base, &m), 5);
	assert_string_equal(m.buf, "CONFIG_VIRTIO_PCI, CONFIG_VIRTIO_BLK, CONFIG_EXT4_FS, "
			    "CONFIG_BLOCK, CONFIG_MSDOS_PARTITION are");
	strbuf_reset(&m);
	assert_int_equal(image_config_missing(one, &m), 1);
	assert_string_equal(m.buf, "CONFIG_EXT4_FS is");
	strbuf_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_compare_same),
		cmocka_unit_test(test_compare_differs),
		cmocka_unit_test(test_modules_order),
		cmocka_unit_test(test_modules_missing),
		cmocka_unit_test(test_boot_links),
		cmocka_unit_test(test_boot_newest),
		cmocka_unit_test(test_boot_missing),
		cmocka_unit_test(test_config_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
