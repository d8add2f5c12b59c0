/* trace-formats.h - the kernel's (6.1) format files of the sched events and
 * the ring-buffer page header, print fmt cut short but for sched_switch's
 * prev_state (the metrics read its encoding there): fixtures of the trace readers. */
#ifndef TEST_TRACE_FORMATS_H
#define TEST_TRACE_FORMATS_H

static const char tf_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static const char tf_header_event[] = "# compressed entry header\n\ttype_len    :    5 bits\n"
				      "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n";
#define TF_COMMON                                                                       \
	"format:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"        \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define TF_TASK                                                     \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"     \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
/* the IDs of a Debian 6.1 guest */
enum {
	TF_ID_MIGRATE = 318, TF_ID_SWITCH = 319, TF_ID_WAKEUP_NEW = 320, TF_ID_WAKEUP = 321,
	TF_ID_WAKING = 322,
};
#define TF_SWITCH_FIELDS                                                   \
	"name: sched_switch\nID: 319\n" TF_COMMON                            \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"      \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"          \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"           \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"         \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"     \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"          \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
/* the letters' mask and the "+" bit as 6.1 prints them (TASK_REPORT_MAX 0x100) */
#define TF_STATE_MASK "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | " \
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"
#define TF_STATE_PLUS "(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | " \
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1)"
static const char tf_sched_switch[] = TF_SWITCH_FIELDS
	"print fmt: \"prev_pid=%d prev_state=%s%s next_pid=%d\", REC->prev_pid, "
	"(REC->prev_state & " TF_STATE_MASK ") ? __print_flags(REC->prev_state & " TF_STATE_MASK
	", \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }) : \"R\", "
	"REC->prev_state & " TF_STATE_PLUS " ? \"+\" : \"\", REC->next_pid\n";
static const char tf_sched_wakeup_new[] = "name: sched_wakeup_new\nID: 320\n" TF_COMMON TF_TASK
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\nprint fmt: \"pid=%d\", REC->pid\n";
static const char tf_sched_wakeup[] = "name: sched_wakeup\nID: 321\n" TF_COMMON TF_TASK
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\nprint fmt: \"pid=%d\", REC->pid\n";
static const char tf_sched_waking[] = "name: sched_waking\nID: 322\n" TF_COMMON TF_TASK
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\nprint fmt: \"pid=%d\", REC->pid\n";
static const char tf_sched_migrate[] = "name: sched_migrate_task\nID: 318\n" TF_COMMON TF_TASK
	"\tfield:int orig_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:int dest_cpu;\toffset:36;\tsize:4;\tsigned:1;\n\nprint fmt: \"pid=%d\", REC->pid\n";

#endif
