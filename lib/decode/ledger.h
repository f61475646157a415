/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loss ledger: where every event made went (lib/decode/loss.c).
 */
#ifndef RINGCAP_DECODE_LEDGER_H
#define RINGCAP_DECODE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/meta.h"

#define RC_LEDGER_EVENTS (RC_MAX_EVENT_ID + 1) /* a row for every event id */
#define RC_LEDGER_CPUS	 4096 /* CPUs past this are counted in the totals only */

/**
 * struct rc_ledger_row - one event's, one CPU's or every event's counts
 * @made: made by the programs, or by the kernel's tracer
 * @dropped: made, and not in the ring: it was full
 * @filtered: out of scope (-p, a command, --comm), not made
 * @captured: read from the ring
 * @in_file: records in the file (0 for a live count)
 * @missed: runs of a program the kernel skipped (an upper bound)
 * @not_run: samples asked for (-F, -c) that the program never ran for:
 *	skipped while another BPF program ran on the CPU, throttled, or a
 *	timer late; estimated (rc_sampler__estimate())
 * @throttled: of @not_run, those of the time the kernel throttled the
 *	sampling events: estimated
 * @throttled_ns: time the sampling events were throttled
 * @throttles: times they were throttled
 */
struct rc_ledger_row {
	uint64_t made, dropped, filtered, captured, in_file, missed;
	uint64_t not_run, throttled, throttled_ns, throttles;
	uint64_t paused; /* flight recorder: refused while a snapshot paused the rings */
};

/**
 * struct rc_ledger - a capture's loss ledger: made = in the file + lost
 * @live: counts of a running capture, not of a file: nothing is missing
 * @overwrite: a flight recorder's: the rings kept only the newest
 * @ncpus: rows in @by_cpu
 * @st: the counters counted (NULL: a file cut before its first counters)
 * @by_event: [RC_LEDGER_EVENTS], by event id
 * @by_cpu: [@ncpus]
 * @total: every event's
 * @snapshots: ringcap:snapshot records in the file
 * @lost_in_stream: ringcap:lost records' counts: where the kernel said
 * @lost_at_end: ... and those it never reported, counted at stop
 * @corrupt_chunks: chunks of the file lost to damage (rc_reader__corrupt())
 * @corrupt_records: their records: missing from the file, not dropped
 * @corrupt_bytes: the bytes of the file passed over
 * @worst_at: the start of the second with the most drops, s from the start
 * @worst_dropped: its drops
 * @worst_made: its events made
 *
 * Zero it, rc_ledger__alloc(), then add the file's records and count its
 * counters; rc_ledger__lost() and the rows say what was lost where.
 */
struct rc_ledger {
	bool live, overwrite;
	uint32_t ncpus;
	const struct rc_stats *st;
	struct rc_ledger_row *by_event, *by_cpu, total;
	struct rc_ledger_row aux; /* AUX bytes (RC_TYPE_AUX), apart from the events */
	uint64_t snapshots, lost_in_stream, lost_at_end;
	uint64_t corrupt_chunks, corrupt_records, corrupt_bytes;
	double worst_at;
	uint64_t worst_dropped, worst_made;
};

/**
 * rc_ledger__alloc() - the rows of a ledger
 * @l: zeroed, or with @live and @overwrite set
 * @ncpus: the capture's CPUs (rc_meta.ncpus; at most RC_LEDGER_CPUS are rows)
 *
 * Return: 0, or -ENOMEM (rc_ledger__free() still frees what was made).
 */
int rc_ledger__alloc(struct rc_ledger *l, uint32_t ncpus);

/**
 * rc_ledger__free() - free a ledger's rows; @l itself is the caller's
 * @l: allocated, or zeroed
 */
void rc_ledger__free(struct rc_ledger *l);

/**
 * rc_ledger__add_record() - a record found in the file
 * @l: allocated
 * @m: the capture's header, for its schema: a record whose event does not
 *	know its CPU (RC_EVENT_NO_CPU) is in no CPU's row
 * @rec: an event's record (not the ledger's own: see rc_ledger__add_lost())
 */
void rc_ledger__add_record(struct rc_ledger *l, const struct rc_meta *m,
			   const struct rc_rec_hdr *rec);

/**
 * rc_ledger__add_lost() - a ringcap:lost record's count
 * @l: the ledger
 * @lost: its lost field
 * @at_end: its RC_LOST_F_AT_END flag: drops the kernel never reported
 */
void rc_ledger__add_lost(struct rc_ledger *l, uint64_t lost, bool at_end);

/**
 * rc_ledger__count() - sum a set of counters into the rows, once
 * @l: allocated, its records added
 * @st: the capture's last counters, kept as @l->st (NULL: none)
 */
void rc_ledger__count(struct rc_ledger *l, const struct rc_stats *st);

/**
 * rc_ledger__add_corrupt() - what the file lost to damage
 * @l: the ledger
 * @chunks: chunks lost (struct rc_damage)
 * @records: their records
 * @bytes: bytes passed over
 */
void rc_ledger__add_corrupt(struct rc_ledger *l, uint64_t chunks, uint64_t records, uint64_t bytes);

/**
 * rc_ledger__add() - add one file's ledger to a sum of several
 * @to: allocated: every row, count and loss of @from added; the second
 *	with the most drops kept when @from's dropped more. @to->st is left
 *	to the caller (the counters the sum shows)
 * @from: counted
 */
void rc_ledger__add(struct rc_ledger *to, const struct rc_ledger *from);

/**
 * rc_ledger__missing() - read from the ring but not in the file
 * @l: counted
 * @r: a row of @l
 *
 * The file was cut short, or records were in a damaged chunk: the total's
 * rc_ledger__cut_short() and @l->corrupt_records tell which.
 *
 * Return: the count; 0 for a live ledger.
 */
uint64_t rc_ledger__missing(const struct rc_ledger *l, const struct rc_ledger_row *r);

/**
 * rc_ledger__cut_short() - records missing from the file, but for those of damaged chunks
 * @l: counted
 *
 * Return: rc_ledger__missing() of the total, less @l->corrupt_records; 0
 * when these are as many or more (the last counters were in a damaged
 * block, or the file has none).
 */
uint64_t rc_ledger__cut_short(const struct rc_ledger *l);

/**
 * rc_ledger__lost() - events lost at any layer
 * @l: counted
 *
 * The ring was full, user space dropped, or the file was cut short or
 * damaged: missing from it, or in its damaged chunks, whichever is more.
 * Runs the kernel skipped (missed) are not counted: they are an upper
 * bound, since a skipped run may have been out of scope.
 *
 * Return: the count.
 */
uint64_t rc_ledger__lost(const struct rc_ledger *l);

/**
 * rc_ledger__overwritten() - a flight recorder's events made and in no snapshot
 * @l: counted
 *
 * Return: the count; 0 unless @l->overwrite.
 */
uint64_t rc_ledger__overwritten(const struct rc_ledger *l);

/**
 * rc_ledger__note_interval() - keep the interval from @a to @b if it dropped most
 * @l: the ledger
 * @a: the counters' totals at its start
 * @b: at its end
 * @at: its start, in s from the capture's start
 */
void rc_ledger__note_interval(struct rc_ledger *l, const struct rc_stats_point *a,
			      const struct rc_stats_point *b, double at);

/**
 * rc_ledger__worst_second() - the second with the most drops, from the counters' history
 * @l: the ledger
 * @h: the totals of each counter block, in order (rc_reader__history())
 * @n: blocks in @h
 * @t0: the capture's start (rc_meta.start_ts): the first interval starts there
 */
void rc_ledger__worst_second(struct rc_ledger *l, const struct rc_stats_point *h, size_t n,
			     uint64_t t0);

#endif /* RINGCAP_DECODE_LEDGER_H */
