/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RINGCAP_SYSCALL_NAMES_H
#define RINGCAP_SYSCALL_NAMES_H

struct rc_syscall_name {
	int nr;
	const char *name;
};

/* This architecture's syscalls, sorted by number (generated at build). */
extern const struct rc_syscall_name rc_syscall_names[];
extern const unsigned int rc_syscall_names_cnt;

#endif
