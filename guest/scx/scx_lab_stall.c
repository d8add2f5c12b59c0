/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx_lab_stall.c - loads scx_lab_stall.bpf.c (see there), says so, and
 * waits until it is stopped or the kernel ejects it; then prints the
 * kernel's exit record ("EXIT: runnable task stall").
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <scx/common.h>
#include "scx_lab_stall.bpf.skel.h"

static volatile sig_atomic_t stop_req;

static void on_stop(int sig)
{
	(void)sig;
	stop_req = 1;
}

int main(void)
{
	struct scx_lab_stall *skel;
	struct bpf_link *link;

	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	skel = SCX_OPS_OPEN(lab_stall_ops, scx_lab_stall);
	SCX_OPS_LOAD(skel, lab_stall_ops, scx_lab_stall, uei);
	link = SCX_OPS_ATTACH(skel, lab_stall_ops, scx_lab_stall);
	printf("lab_stall: enabled; a user task allowed on one CPU only never runs\n");
	fflush(stdout);
	while (!stop_req && !UEI_EXITED(skel, uei))
		sleep(1);
	bpf_link__destroy(link);
	UEI_REPORT(skel, uei);
	scx_lab_stall__destroy(skel);
	return 0;
}
