/* fwcfg.c - QEMU's fw_cfg read from user space through its x86 I/O ports
 * (docs/specs/fw_cfg.rst of QEMU: selector 0x510, data 0x511). */
#define _GNU_SOURCE
#include "fwcfg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <sys/io.h>

#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR 0x0019
#define FW_CFG_NAME_LEN 56

static void select_key(uint16_t key)
{
	outw(key, FW_CFG_PORT_SEL);
}

static void read_data(void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = inb(FW_CFG_PORT_DATA);
}

int fwcfg_open(void)
{
	char sig[4];

	/* the ports, for this process: root (CAP_SYS_RAWIO), no lockdown */
	if (ioperm(FW_CFG_PORT_SEL, 2, 1) < 0)
		return -1;
	select_key(FW_CFG_SIGNATURE);
	read_data(sig, sizeof(sig));
	if (memcmp(sig, "QEMU", 4)) {
		errno = ENODEV;
		return -1;
	}
	return 0;
}

uint32_t fwcfg_count(void)
{
	uint32_t n;

	select_key(FW_CFG_FILE_DIR);
	read_data(&n, sizeof(n));
	return ntohl(n);
}

int fwcfg_find(const char *name, uint16_t *key, uint32_t *size)
{
	uint32_t n;

	select_key(FW_CFG_FILE_DIR);
	read_data(&n, sizeof(n));
	n = ntohl(n);
	for (uint32_t i = 0; i < n; i++) {
		struct {
			uint32_t size;
			uint16_t select, reserved;
			char name[FW_CFG_NAME_LEN];
		} f;

		read_data(&f, sizeof(f));
		f.name[FW_CFG_NAME_LEN - 1] = '\0';
		if (!strcmp(f.name, name)) {
			*key = ntohs(f.select);
			*size = ntohl(f.size);
			return 0;
		}
	}
	return -1;
}

void fwcfg_read(uint16_t key, void *buf, size_t len)
{
	select_key(key);
	read_data(buf, len);
}

#else

int fwcfg_open(void)
{
	errno = ENOSYS;
	return -1;
}

uint32_t fwcfg_count(void)
{
	return 0;
}

int fwcfg_find(const char *name, uint16_t *key, uint32_t *size)
{
	(void)name, (void)key, (void)size;
	return -1;
}

void fwcfg_read(uint16_t key, void *buf, size_t len)
{
	(void)key, (void)buf, (void)len;
}

#endif
