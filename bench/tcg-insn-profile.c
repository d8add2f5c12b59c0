/* tcg-insn-profile.c - a QEMU TCG plugin (QEMU 7.2, plugin API 1) that counts
 * the guest instructions executed per translation block, for trace-profile.sh.
 *
 * Environment: TBPROF_OUT, the file written when QEMU exits (one line per
 * block: start address, instructions, executions, block length; a first line
 * "# windows N"); TBPROF_TOGGLE, a guest address in hex whose execution turns
 * counting on and off again (a function the guest calls right before and
 * right after what is measured); without it every block counts from boot.
 * Blocks are keyed by virtual address: user processes share addresses, so
 * only kernel (and one binary's) addresses mean anything.  Counting is
 * racy across vCPU threads: use one TCG thread (--clock virtual). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The few declarations of QEMU's qemu-plugin.h (API version 1) used here:
 * Debian ships QEMU with plugin support but not the header. */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*exit_cb)(qemu_plugin_id_t id, void *userdata);
typedef void (*exec_cb)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, exec_cb cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, exit_cb cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

struct block {
	uint64_t addr, insns, execs;
	unsigned n; /* instructions in the block */
};

#define SLOTS (1u << 21) /* a Debian kernel's boot and a workload use ~10^5 */

static struct block *tab;
static unsigned used;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t toggle_addr;
static int counting = 1;
static unsigned long long windows;

/* The block at addr with n instructions (one address can start blocks of
 * different lengths); NULL when the table is full. */
static struct block *block_of(uint64_t addr, unsigned n)
{
	uint64_t h = (addr * 0x9E3779B97F4A7C15ull) >> 40;

	for (;; h++) {
		struct block *b = &tab[h & (SLOTS - 1)];

		if (b->addr == addr && b->n == n)
			return b;
		if (!b->addr) {
			if (2 * ++used > SLOTS)
				return NULL;
			b->addr = addr;
			b->n = n;
			return b;
		}
	}
}

static void on_exec(unsigned int vcpu, void *userdata)
{
	struct block *b = userdata;

	(void)vcpu;
	if (counting) {
		b->insns += b->n;
		b->execs++;
	}
}

static void on_toggle(unsigned int vcpu, void *userdata)
{
	(void)vcpu;
	(void)userdata;
	counting = !counting;
	windows += counting;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	pthread_mutex_lock(&tab_lock);
	b = block_of(addr, (unsigned)qemu_plugin_tb_n_insns(tb));
	pthread_mutex_unlock(&tab_lock);
	/* the toggle first: the block that opens a window counts in it */
	if (toggle_addr && addr == toggle_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_toggle, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void on_exit_qemu(qemu_plugin_id_t id, void *userdata)
{
	const char *path = getenv("TBPROF_OUT");
	FILE *f = fopen(path ? path : "tbprof.out", "w");

	(void)id;
	(void)userdata;
	if (!f) {
		perror("tcg-insn-profile: TBPROF_OUT");
		return;
	}
	fprintf(f, "# windows %llu%s\n", windows, 2 * used > SLOTS ? " (table full)" : "");
	for (unsigned i = 0; i < SLOTS; i++)
		if (tab[i].insns)
			fprintf(f, "%016llx %llu %llu %u\n", (unsigned long long)tab[i].addr,
				(unsigned long long)tab[i].insns,
				(unsigned long long)tab[i].execs, tab[i].n);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *toggle = getenv("TBPROF_TOGGLE");

	(void)info;
	(void)argc;
	(void)argv;
	if (toggle && *toggle) {
		toggle_addr = strtoull(toggle, NULL, 16);
		counting = 0;
	}
	if (!(tab = calloc(SLOTS, sizeof(*tab))))
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_qemu, NULL);
	return 0;
}
