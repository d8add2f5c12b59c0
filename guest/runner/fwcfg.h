/* fwcfg.h - QEMU's firmware configuration device (fw_cfg) from user
 * space: a restored guest's plan, read by port I/O.  A port read is done
 * when the instruction is, so under icount the plan arrives at the same
 * virtual time in every restore, where bytes on a serial port arrive when
 * the host's main loop gets round to them.  x86 only (elsewhere every
 * call fails). */
#ifndef RUNNER_FWCFG_H
#define RUNNER_FWCFG_H

#include <stddef.h>
#include <stdint.h>

/* The ports for this process, and QEMU's signature behind them: 0, or -1
 * with errno (not root, lockdown, not x86, no fw_cfg). */
int fwcfg_open(void);
/* The number of files in the device's directory. */
uint32_t fwcfg_count(void);
/* The key and size of the file called name (such as "opt/schedlab/plan"):
 * 0, or -1 when there is none. */
int fwcfg_find(const char *name, uint16_t *key, uint32_t *size);
/* The first len bytes of the file with this key. */
void fwcfg_read(uint16_t key, void *buf, size_t len);

#endif
