/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The writer's side doors, for the capture engine: chunks built elsewhere
 * (the ftrace backend's, ftpage.h) and the totals it publishes. The rest of
 * the writer is format/writer.h.
 */
#ifndef RINGCAP_FORMAT_WRITER_INT_H
#define RINGCAP_FORMAT_WRITER_INT_H

#include <stdint.h>
#include "format/format.h"
#include "format/writer.h"

/* Gives a buffer of rc_writer__add_held() back: the writer reads it no more. */
typedef void (*rc_writer_release_fn)(void *ctx);

/**
 * rc_writer__add_held() - add records in place: held where they are, not copied
 * @w: the writer
 * @recs: whole records, as rc_writer__add() takes them; left unchanged
 *	until @release, and freed by the caller only after it, or after
 *	rc_writer__free()
 * @len: bytes at @recs
 * @release: called with @ctx, once, when every record at @recs is written
 *	(or dropped by a cut, rc_writer__cut()), from within a call on @w
 *	that writes or adds (this one's flush included). Not called by
 *	rc_writer__free(), nor after an error of writing
 * @ctx: for @release
 * @held: set true when the writer holds @recs: @release is to come, or
 *	has come already (a cut while this call flushed), unless an error of
 *	writing stops the writer first
 *
 * As rc_writer__add(), without its copy: the writer's reorder window and
 * chunks read the records where they are, and a record kept back by a
 * flush is not copied over either.
 *
 * Return: as rc_writer__add(); an error with *@held true is one of
 * writing, after @recs were taken.
 */
int rc_writer__add_held(struct rc_writer *w, const void *recs, size_t len,
			rc_writer_release_fn release, void *ctx, bool *held);

/**
 * rc_writer__add_chunk() - write a chunk built elsewhere
 * @w: the writer
 * @dc: the chunk's header, of codec RC_CODEC_FTRACE (rc_ftenc__end())
 * @data: the chunk's zstd frame, @dc->data_size bytes
 *
 * Writes the chunk block and its frame as they are, then indexes and counts
 * the chunk in the trailer like the writer's own. Records held by
 * rc_writer__add() are not flushed first, and the order of the chunk's
 * records against them is not checked: count those out of order with
 * rc_writer__add_late(). A failure while writing is sticky: every later
 * call returns the same error.
 *
 * Return: 0; -EINVAL for a header that is not one of an FTRACE chunk (no
 * record, first_ts after last_ts, sizes out of ringcap-file(5)'s bounds),
 * with nothing written; the writer's earlier error; or -errno from write().
 */
int rc_writer__add_chunk(struct rc_writer *w, const struct rc_disk_chunk *dc, const void *data);

/**
 * rc_writer__flush_until() - write the records held that are old enough by now
 * @w: the writer
 * @now: the time now, on the records' clock
 *
 * As rc_writer__flush(@w, false), but a record is old enough when it is
 * older than the reorder window before @now, when that is later than the
 * newest record: a record that no other follows is written within the
 * window and a flush, not when the next comes (a live pipe's last event).
 *
 * Return: 0, or the writer's error.
 */
int rc_writer__flush_until(struct rc_writer *w, uint64_t now);

/**
 * rc_writer__add_stacks() - write a STACKS block
 * @w: the writer
 * @payload: struct rc_disk_stacks and its entries (format.h)
 * @len: its length, at most RC_MAX_BLOCK
 *
 * Written at once, ahead of the records held for the reorder window:
 * call it before adding the records that use what it defines.
 *
 * Return: 0, -E2BIG, or the write's error.
 */
int rc_writer__add_stacks(struct rc_writer *w, const void *payload, size_t len);

/**
 * rc_writer__add_lines() - write a LINES block
 * @w: the writer
 * @payload: struct rc_disk_lines and its entries (format.h)
 * @len: its length, at most RC_MAX_BLOCK
 *
 * As rc_writer__add_stacks(), after the STACKS block of the stacks it
 * gives lines to.
 *
 * Return: 0, -E2BIG, or the write's error.
 */
int rc_writer__add_lines(struct rc_writer *w, const void *payload, size_t len);

/**
 * rc_writer__add_buildids() - write a BUILDIDS block
 * @w: the writer
 * @payload: struct rc_disk_buildids and its entries (format.h)
 * @len: its length, at most RC_MAX_BLOCK
 *
 * As rc_writer__add_stacks(), for files named in STACKS blocks.
 *
 * Return: 0, -E2BIG, or the write's error.
 */
int rc_writer__add_buildids(struct rc_writer *w, const void *payload, size_t len);

/**
 * rc_writer__add_late() - count records of chunks built elsewhere as out of order
 * @w: the writer
 * @n: records written after a record of a later time
 *
 * Adds @n to the trailer's late count, which rc_writer__finish() writes.
 */
void rc_writer__add_late(struct rc_writer *w, uint64_t n);

/**
 * rc_writer__totals() - what the writer has written so far
 * @w: the writer
 *
 * Counts complete chunks only: records still held are not in it. The
 * pointer is valid until rc_writer__free(); its index is reallocated as
 * chunks are written. Not safe against a concurrent call on @w.
 *
 * Return: the trailer as it stands, owned by @w; never NULL.
 */
const struct rc_trailer *rc_writer__totals(const struct rc_writer *w);

/**
 * rc_writer__bytes() - bytes written to the file so far
 * @w: the writer
 *
 * Return: the file offset the writer has reached, the header included.
 */
uint64_t rc_writer__bytes(const struct rc_writer *w);

/**
 * rc_writer__cut() - whether the file met a full disk or its size limit
 * @w: the writer
 *
 * A write that would fail with ENOSPC, EDQUOT or EFBIG (RLIMIT_FSIZE, with
 * SIGXFSZ ignored) cuts the writer: it writes nothing more, drops what it
 * holds and what is added, but keeps the newest counters
 * (rc_writer__add_stats()). rc_writer__finish() then ends the file at its
 * last complete block with those counters, the trailer and the end
 * block, in room the writer reserved before each write (preallocated, and
 * below the size limit): a complete file whose counters say what is not
 * in it. Only a regular file is cut; a pipe's write error is sticky.
 *
 * Return: the error that cut it (-ENOSPC, -EDQUOT, -EFBIG), or 0.
 */
int rc_writer__cut(const struct rc_writer *w);

#endif /* RINGCAP_FORMAT_WRITER_INT_H */
