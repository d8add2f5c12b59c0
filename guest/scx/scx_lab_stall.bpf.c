/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_lab_stall.bpf.c - a sched_ext scheduler broken on purpose, for the
 * lab's ejection tests: a user task allowed on one CPU only is queued on a
 * dispatch queue no CPU ever consumes, so it never runs and the kernel's
 * watchdog must eject the scheduler once ops.timeout_ms has passed.
 * Every other task goes through one shared FIFO queue.
 */
#include <scx/common.bpf.h>

char _license[] SEC("license") = "GPL";

UEI_DEFINE(uei);

#define LAB_SHARED_DSQ 0
#define LAB_LOST_DSQ 1
/* include/linux/sched.h: PF_* are macros, so not in the BTF */
#define LAB_PF_KTHREAD 0x00200000

/* No direct dispatch from the default select_cpu: every wakeup reaches
 * enqueue, where the choice is made. */
s32 BPF_STRUCT_OPS(lab_stall_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	return prev_cpu;
}

void BPF_STRUCT_OPS(lab_stall_enqueue, struct task_struct *p, u64 enq_flags)
{
	if (p->nr_cpus_allowed == 1 && !(p->flags & LAB_PF_KTHREAD)) {
		scx_bpf_dsq_insert(p, LAB_LOST_DSQ, SCX_SLICE_DFL, enq_flags);
		return;
	}
	scx_bpf_dsq_insert(p, LAB_SHARED_DSQ, SCX_SLICE_DFL, enq_flags);
}

void BPF_STRUCT_OPS(lab_stall_dispatch, s32 cpu, struct task_struct *prev)
{
	scx_bpf_dsq_move_to_local(LAB_SHARED_DSQ, 0);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(lab_stall_init)
{
	s32 ret = scx_bpf_create_dsq(LAB_SHARED_DSQ, -1);

	return ret ? ret : scx_bpf_create_dsq(LAB_LOST_DSQ, -1);
}

void BPF_STRUCT_OPS(lab_stall_exit, struct scx_exit_info *ei)
{
	UEI_RECORD(uei, ei);
}

SCX_OPS_DEFINE(lab_stall_ops,
	       .select_cpu = (void *)lab_stall_select_cpu,
	       .enqueue = (void *)lab_stall_enqueue,
	       .dispatch = (void *)lab_stall_dispatch,
	       .init = (void *)lab_stall_init,
	       .exit = (void *)lab_stall_exit,
	       .timeout_ms = 3000U,
	       .name = "lab_stall");
