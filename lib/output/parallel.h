/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report -j: one capture's records filtered, then formatted or counted, on
 * several threads, the output written in file order (lib/output/parallel.c,
 * on lib/output/pipeline.c's threads). And which records a report keeps
 * (struct rc_keep), the same on one thread and on several.
 */
#ifndef RINGCAP_OUTPUT_PARALLEL_H
#define RINGCAP_OUTPUT_PARALLEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "decode/filter.h"
#include "decode/profile.h"
#include "decode/summary.h"
#include "format/meta.h"
#include "format/reader.h"
#include "format/records.h"
#include "format/schema.h"
#include "output/output.h"

/**
 * struct rc_keep - which records of a file a report keeps
 * @filter: the file's filter, only read
 * @view: the file's header as shown
 * @stack_ev: the file's "stack" event; NULL: none
 * @prev: the last record seen
 * @kept: whether it was kept, and was not a stack record
 *
 * Starts with @prev and @kept zeroed.
 */
struct rc_keep {
	const struct rc_filter *filter;
	const struct rc_meta *view;
	const struct rc_event_desc *stack_ev;
	struct rc_rec_hdr prev;
	bool kept;
};

/**
 * rc_keep__record() - whether a record is kept
 * @k: the file's state, the records given in file order
 * @rec: the record
 *
 * An event's stack record goes with its event, the record before it of the
 * same time, thread and CPU in its file: kept when that was (or when the
 * filter passes the stack record itself). Other records: when the filter
 * passes them.
 *
 * Return: whether to show or count @rec.
 */
bool rc_keep__record(struct rc_keep *k, const struct rc_rec_hdr *rec);

/**
 * struct rc_parallel - what rc_parallel__run() does with one file's records
 * @r: the file's reader, before its first record
 * @threads: worker threads, at least 1
 * @keep: the file's, used on the calling thread; the workers take copies
 *	  (the filter shared, only read). Left as after the last record.
 * @out: the calling thread's output, its head already flushed: the records
 *	 formatted into it; NULL: counted instead, into @sum and @prof
 * @format: with @out, the format, given the workers' outputs too
 * @views: with @out, the file's header as shown, one
 * @fmt_flags: with @out, RC_FMT_*
 * @hosts: with @out, each event's host shown
 * @to: with @out, where the formatted chunks are written, each flushed
 *	before the next is read
 * @sum: without @out, the summary the records are counted into; NULL:
 *	 none (@prof only)
 * @prof: without @out, the profile the records are counted into
 * @raw: on the calling thread, for each kept record record --bpf kept as
 *	 bytes (type RC_FIRST_DYN_ID or more): at least once for each type
 *	 met; may be NULL
 * @ctx: @raw's context
 */
struct rc_parallel {
	struct rc_reader *r;
	unsigned int threads;
	struct rc_keep *keep;
	struct rc_output *out;
	const struct rc_output_ops *format;
	const struct rc_meta **views;
	unsigned int fmt_flags;
	bool hosts;
	FILE *to;
	struct rc_summary *sum;
	struct rc_profile *prof;
	void (*raw)(void *ctx, const struct rc_meta *m, uint16_t type);
	void *ctx;
};

/**
 * rc_parallel__run() - a file's records filtered, formatted or counted on
 * several threads
 * @p: what to do
 *
 * The output is that of the records given one by one, in file order, to
 * rc_output__event() (and rc_output__flush() at the end of each chunk),
 * or to rc_summary__add() and rc_profile__add(): byte for byte, count for
 * count. A chunk's first record, when it is a stack record, goes with the
 * chunk before's last (rc_keep__record()): it is taken on the calling
 * thread, in order. Memory: rc_pipeline__run()'s.
 *
 * Return: 0 at the end of the file, or -errno: the reader's, a format's,
 * -EIO when writing @to failed, -ENOMEM.
 */
int rc_parallel__run(struct rc_parallel *p);

#endif /* RINGCAP_OUTPUT_PARALLEL_H */
