/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoint formats as tracefs writes them (Linux 6.18), for the tests
 * of the format parser and the ftrace codec, and the fuzzer's seeds.
 * String literals, so that each user may add to them.
 */
#ifndef RC_TESTS_FT_FORMATS_H
#define RC_TESTS_FT_FORMATS_H

/* The common fields every event starts with, and the blank line after them. */
#define FT_COMMON                                                                                  \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                                 \
	"\n"

/* sched:sched_switch's fields; FT_SWITCH_FMT ends it with a short print fmt */
#define FT_SWITCH_HEAD                                                                             \
	"name: sched_switch\n"                                                                     \
	"ID: 372\n"                                                                                \
	"format:\n" FT_COMMON "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"      \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"                                \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"                                 \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"                               \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"                           \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"                                \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"                                 \
	"\n"

#define FT_SWITCH_FMT                                                                              \
	FT_SWITCH_HEAD "print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n"

/* irq:irq_handler_entry: a __data_loc string */
#define FT_IRQ_FMT                                                                                 \
	"name: irq_handler_entry\n"                                                                \
	"ID: 225\n"                                                                                \
	"format:\n" FT_COMMON "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"                  \
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"                        \
	"\n"                                                                                       \
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n"

#endif /* RC_TESTS_FT_FORMATS_H */
