/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Records counted by event, process and syscall (lib/decode/summary.c).
 */
#ifndef RINGCAP_DECODE_SUMMARY_H
#define RINGCAP_DECODE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include "format/meta.h"

/* rc_sum_count.key of the processes' row of records whose pid is unknown (RC_EVENT_NO_PID) */
#define RC_SUM_UNKNOWN UINT64_MAX

/**
 * struct rc_sum_count - one row of a summary table
 * @key: the event id, the pid (RC_SUM_UNKNOWN: unknown), or the syscall
 *	number
 * @comm: the process's name, from its latest record (procs only)
 * @count: records
 * @errors: syscalls that returned -1 to -4095 (syscalls only)
 * @total_ns: time in the syscall, summed (syscalls only)
 * @max_ns: the longest (syscalls only)
 */
struct rc_sum_count {
	uint64_t key;
	char comm[16];
	uint64_t count;
	uint64_t errors;
	uint64_t total_ns;
	uint64_t max_ns;
};

/**
 * struct rc_summary - counts of records by event, by process and by syscall
 * @nrec: records added
 * @first_ts: the earliest record's time
 * @last_ts: the latest record's time
 * @nevents: rows of @events
 * @nprocs: rows of @procs
 * @nsyscalls: rows of @syscalls
 * @events: by event id, in the order first met until rc_summary__sort()
 * @procs: by pid
 * @syscalls: by syscall number, from the "syscall" event; a 32-bit task's
 *	(RC_SYSCALL_F_COMPAT) by its number plus RC_SUM_COMPAT, apart
 * @cap_events: rows allocated in @events
 * @cap_procs: rows allocated in @procs
 * @cap_syscalls: rows allocated in @syscalls
 *
 * Starts zeroed; rc_summary__add() fills it.
 */
/* added to a 32-bit task's syscall number (rc_summary.syscalls' keys): another table's */
#define RC_SUM_COMPAT ((uint64_t)1 << 32)

struct rc_summary {
	uint64_t nrec;
	uint64_t first_ts;
	uint64_t last_ts;
	size_t nevents, nprocs, nsyscalls;
	struct rc_sum_count *events, *procs, *syscalls;
	size_t cap_events, cap_procs, cap_syscalls;
};

/**
 * rc_summary__add() - count a record
 * @s: the summary
 * @m: the capture's header, for its schema
 * @rec: the record (checked, as rc_reader__next() hands them out)
 *
 * Return: 0, or -ENOMEM (the record may be counted in some tables only).
 */
int rc_summary__add(struct rc_summary *s, const struct rc_meta *m, const struct rc_rec_hdr *rec);

/**
 * rc_summary__merge() - add the counts of records that came after
 * @s: the summary of the records before
 * @later: the summary of the records after them (unsorted)
 *
 * As if @later's records had been added to @s one by one: rows in the
 * order first met, a process named as its latest record names it.
 *
 * Return: 0, or -ENOMEM (some rows may be added).
 */
int rc_summary__merge(struct rc_summary *s, const struct rc_summary *later);

/**
 * rc_summary__sort() - sort each table by count, largest first
 * @s: the summary; ties are in key order
 */
void rc_summary__sort(struct rc_summary *s);

/**
 * rc_summary__free() - free a summary's tables
 * @s: the summary, left zeroed and fit to use again
 */
void rc_summary__free(struct rc_summary *s);

#endif /* RINGCAP_DECODE_SUMMARY_H */
