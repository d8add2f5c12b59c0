/* lab.h - the subcommands of ./lab; each lives in host-tools/cmd/cmd-<name>.c
 * and is dispatched from the table in lab.c. */
#ifndef LAB_LAB_H
#define LAB_LAB_H

int cmd_topo(int argc, const char **argv);
int cmd_boot(int argc, const char **argv);
int cmd_kernel(int argc, const char **argv);
int cmd_scx(int argc, const char **argv);
int cmd_initrd(int argc, const char **argv);
int cmd_run(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_lava(int argc, const char **argv);
int cmd_trace(int argc, const char **argv);
int cmd_compare(int argc, const char **argv);
int cmd_ab(int argc, const char **argv);
int cmd_bisect(int argc, const char **argv);
int cmd_matrix(int argc, const char **argv);
int cmd_scenarios(int argc, const char **argv);
int cmd_bare(int argc, const char **argv);
int cmd_cache(int argc, const char **argv);
int cmd_doctor(int argc, const char **argv);
/* lab lava submit, follow and run (cmd-lava-farm.c), dispatched by cmd_lava */
int cmd_lava_submit(int argc, const char **argv);
int cmd_lava_follow(int argc, const char **argv);
int cmd_lava_run(int argc, const char **argv);
/* The boot's scheduler settings of lab lava export and run, as lab run
 * takes them, into q (a struct lava_export_req). */
#define LAVA_BOOT_OPTIONS(q) \
	OPT_STRING("smt", &(q).smt, "off: boot with nosmt, sibling threads offline (default on)"), \
	OPT_STRING("sched-feat", &(q).sched_feat, "scheduler features to set before the first case: " \
		   "NO_WA_IDLE,NO_SIS_UTIL (as lab run)"), \
	OPT_STRING("sched-knob", &(q).sched_knob, "scheduler knobs to set before the first case: " \
		   "base_slice_ns=3000000 (as lab run)"), \
	OPT_STRING("preempt", &(q).preempt, "the preemption mode: none, voluntary, full or lazy (as lab run)"), \
	OPT_STRING("append", &(q).append, "more kernel command line")

#endif
