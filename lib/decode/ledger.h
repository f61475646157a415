/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loss ledger: where every event made went (lib/decode/loss.c), and
 * the ledgers of capture files, the spans missing between a run's files
 * and their sum (lib/decode/ledger.c).
 */
#ifndef RINGCAP_DECODE_LEDGER_H
#define RINGCAP_DECODE_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/meta.h"
#include "format/reader.h"
#include "format/set.h"

#define RC_LEDGER_EVENTS (RC_MAX_EVENT_ID + 1) /* a row for every event id */
#define RC_LEDGER_CPUS	 4096 /* CPUs past this are counted in the totals only */

/**
 * struct rc_ledger_row - one event's, one CPU's or every event's counts
 * @in_file: records in the file (0 for a live count)
 *
 * And the counters stat shows (RC_COUNTERS_SHOWN(), format/counters.h),
 * summed: @made, @captured, @dropped, @paused, @filtered, @missed,
 * @not_run (skipped while another BPF program ran on the CPU, throttled,
 * or a timer late: rc_sampler__estimate()), @throttled, @throttled_ns and
 * @throttles.
 */
struct rc_ledger_row {
	RC_COUNTERS_SHOWN(RC_COUNTER_MEMBER)
	uint64_t in_file;
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
 * rc_ledger__count_record() - rc_ledger__add_record(), the event's kind known
 * @l: allocated
 * @rec: an event's record
 * @no_cpu: its event does not know its CPU (RC_EVENT_NO_CPU): in no CPU's row
 *
 * For a caller that looked the event up once for a run of its records
 * (rc_ledger_file__add()); inline, as it is called once a record.
 */
static inline void rc_ledger__count_record(struct rc_ledger *l, const struct rc_rec_hdr *rec,
					   bool no_cpu)
{
	l->by_event[rec->type % RC_LEDGER_EVENTS].in_file++;
	if (rec->cpu < l->ncpus && !no_cpu)
		l->by_cpu[rec->cpu].in_file++;
}

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

/**
 * struct rc_ledger_file - one capture file's ledger, or several files' summed
 * @source: its path (rc_ledger_file__read()), or the caller's name for a sum
 * @truncated: the file ended before its trailer (a sum: any did)
 * @damaged: the reader passed over damage (a sum: any file)
 * @dmg: what damage cost (a sum: added)
 * @damage: where the first damage was (rc_reader__error())
 * @schema: the capture's events
 * @duration: in s, from the capture's start to its last record or counters
 *	(a sum: the set's span)
 * @nrec: records read
 * @nev: of @nrec, the events: not ringcap's lost and snapshot records
 * @chunks: chunks read
 * @file_bytes: bytes of the file read
 * @raw_bytes: bytes of records, decompressed
 * @late: records out of order (the trailer's)
 * @sampling: the event -F/-c sampled (the header's note), or ""; in a sum,
 *	the one its files sampled, or RC_LEDGER_MIXED when they sampled
 *	different events (files without samples are not counted)
 * @led: the ledger, over the file's own span
 * @m: the capture's header (NULL for a sum)
 * @base: the run's counters when the file began (rc_reader__base())
 * @end: the file's last counters (rc_reader__stats())
 * @span: @end less @base (rc_stats__span()): @led's counters
 * @first: the earliest record's time
 * @last: the latest record's, or the last counters' when later
 * @lost_ev: ringcap's own records the ledger counts apart (rc_ledger_file__begin())
 * @snap_ev: likewise
 * @aux_ev: likewise
 * @memo_type: the type of the last record added (memo_ok: known), and
 * @memo: what it is to the ledger (rc_ledger_file__add())
 *
 * A live count uses @led, @schema and @duration only, @led.live set.
 */
#define RC_LEDGER_MIXED "mixed" /* @sampling of a sum of files that sampled different events */

struct rc_ledger_file {
	const char *source;
	bool truncated, damaged;
	struct rc_damage dmg;
	const char *damage;
	const struct rc_schema *schema;
	double duration;
	uint64_t nrec, nev, chunks, file_bytes, raw_bytes, late;
	char sampling[32];
	struct rc_ledger led;
	const struct rc_meta *m;
	const struct rc_stats *base, *end;
	struct rc_stats span;
	uint64_t first, last;
	const struct rc_event_desc *lost_ev, *snap_ev, *aux_ev;
	uint16_t memo_type;
	uint8_t memo;
	bool memo_ok;
};

/**
 * rc_ledger_file__read() - read a capture file whole into its ledger
 * @f: zeroed; filled. rc_ledger_file__free() it, even on an error
 * @r: the file's reader, at its start (rc_set__reader())
 * @path: its name, kept as @f->source
 *
 * The ledger counts the file's own span: its last counters less those it
 * began with, so that the files of a rotated run sum to the run.
 *
 * Return: 0 (damage is not an error: @f->damaged), or -errno: the
 * reader's error when @f->led has its rows and @f->end is NULL
 * (rc_reader__error() says it), else -ENOMEM.
 */
int rc_ledger_file__read(struct rc_ledger_file *f, struct rc_reader *r, const char *path);

/**
 * rc_ledger_file__begin() - rc_ledger_file__read() in steps, for a reader of the records
 * @f: zeroed; filled. rc_ledger_file__free() it, even on an error
 * @r: the file's reader, at its start
 * @path: its name, kept as @f->source
 *
 * For one pass over a file that both reads its records and counts its
 * ledger (ringcap export): rc_ledger_file__add() each record
 * rc_reader__next() gives, then rc_ledger_file__end() once it gave 0.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_ledger_file__begin(struct rc_ledger_file *f, struct rc_reader *r, const char *path);

/**
 * rc_ledger_file__add() - count a record of @f's file
 * @f: begun (rc_ledger_file__begin())
 * @rec: the reader's next record
 */
void rc_ledger_file__add(struct rc_ledger_file *f, const struct rc_rec_hdr *rec);

/**
 * rc_ledger_file__end() - the ledger of a file whose records were all counted
 * @f: begun, every record added
 * @r: its reader, at its end (rc_reader__next() gave 0)
 *
 * Return: 0, or -ENOMEM.
 */
int rc_ledger_file__end(struct rc_ledger_file *f, struct rc_reader *r);

/**
 * rc_ledger_file__free() - free what rc_ledger_file__read() or rc_ledger_file__sum() made
 * @f: read, summed or zeroed; @f itself is the caller's
 */
void rc_ledger_file__free(struct rc_ledger_file *f);

/**
 * struct rc_ledger_gap - files missing from a rotated run (ringcap-file(5), RUN)
 * @before: the run's file just before them; NULL when the run's first are missing
 * @after: the file just after them
 * @seq_from: the first missing seq
 * @seq_to: the last
 * @from_ts: their span's start, in @after's clock
 * @to_ts: its end (@after's start)
 * @known: the counters on either side were read: @made and @dropped hold
 * @made: events made in the span, from the counters on either side
 * @dropped: events dropped in it
 */
struct rc_ledger_gap {
	const struct rc_ledger_file *before, *after;
	uint32_t seq_from, seq_to;
	uint64_t from_ts, to_ts;
	bool known;
	uint64_t made, dropped;
};

/**
 * rc_ledger__gaps() - the spans of rotated runs whose files are missing
 * @f: the files read, in the set's order (by start, then seq)
 * @n: files in @f
 * @out: set to the spans found (free() it), NULL when none
 * @nout: set to their count
 *
 * Return: 0, or -ENOMEM.
 */
int rc_ledger__gaps(const struct rc_ledger_file *f, size_t n, struct rc_ledger_gap **out,
		    size_t *nout);

/**
 * rc_ledger_file__sum() - several files' ledgers summed, as one
 * @f: the files read; each one's worst second is moved to the set's time
 * @n: files in @f, at least one
 * @set: their set, for its times
 * @sum: zeroed; filled (its @source is the caller's). rc_ledger_file__free() it
 * @st: filled: the counters the sum shows, the files' ring sizes at most and
 *	user drops and waits added; @sum->led.st points here when any file had
 *	counters
 *
 * Return: 0, or -ENOMEM.
 */
int rc_ledger_file__sum(struct rc_ledger_file *f, size_t n, const struct rc_set *set,
			struct rc_ledger_file *sum, struct rc_stats *st);

#endif /* RINGCAP_DECODE_LEDGER_H */
