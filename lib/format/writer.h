/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture file's writer (lib/format/writer.c); format/writer_int.h has
 * what the capture engine alone calls.
 */
#ifndef RINGCAP_FORMAT_WRITER_H
#define RINGCAP_FORMAT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/aux.h"
#include "format/meta.h"

struct rc_writer_opts {
	size_t sz;	     /* sizeof(struct rc_writer_opts) */
	int compress_level;  /* zstd level; 0: default (1) */
	size_t chunk_size;   /* raw bytes per chunk; 0: 1 MiB */
	uint64_t reorder_ns; /* hold records this long to sort them; 0: 20 ms */
	bool no_compress;    /* chunks stored in zstd frames, not compressed */
	bool no_shuffle;     /* compressed as they are, not shuffled (RC_CODEC_ZSTD) */
};

struct rc_writer;

/**
 * rc_writer__new() - start a capture file
 * @fd: where to write; not closed by the writer. The file's offsets (the
 *	trailer's index) count from where the writer starts: the start of a
 *	file, or a pipe
 * @meta: the header: its schema (not NULL) describes every record to be
 *	added; strings may be NULL. Copied into the header at once
 * @opts: NULL for the defaults
 *
 * Writes the file header at once; records, counters and the trailer follow.
 *
 * Return: the writer, to free with rc_writer__free(); NULL with errno
 * EINVAL for a chunk_size over 32 MiB or a compression level zstd refuses,
 * E2BIG for a header over 16 MiB, ENOMEM, or write(2)'s error.
 */
struct rc_writer *rc_writer__new(int fd, const struct rc_meta *meta,
				 const struct rc_writer_opts *opts);

/**
 * rc_writer__add() - add records, in any order
 * @w: the writer
 * @recs: whole records, each starting with struct rc_rec_hdr; copied
 * @len: bytes at @recs
 *
 * The records are held up to the writer's reorder window, sorted by time
 * and written in chunks; a record older than one already written is
 * written all the same, and counted in the trailer's late. Their types are
 * not checked: a reader refuses a chunk with a record of an event the
 * header's schema does not describe. Once two chunks' worth, and at least
 * as much as the last flush kept back, came in since the last flush,
 * writes what is ready (rc_writer__flush()): call that as well, as ringcap
 * record does every second, to bound how long a record waits.
 *
 * Return: 0; -EINVAL, with nothing taken, when @recs is not a run of whole
 * records (a size under the header's, not a multiple of RC_REC_ALIGN, or
 * past @len); -E2BIG when over 4 GiB would be held; -ENOMEM; or an error of
 * writing, which is sticky: every later call returns it.
 */
int rc_writer__add(struct rc_writer *w, const void *recs, size_t len);

/**
 * rc_writer__flush() - write the records held that are old enough
 * @w: the writer
 * @all: every record held, not just those older than the newest by the
 *	reorder window
 *
 * Writes the records as chunks of up to the chunk size; a partial chunk is
 * written too, so each flush can add a small chunk.
 *
 * Return: 0, or an error of writing (-ENOMEM, -EIO from zstd, or
 * write(2)'s), sticky: every later call returns it.
 */
int rc_writer__flush(struct rc_writer *w, bool all);

/**
 * rc_writer__add_stats() - write a block of counters
 * @w: the writer
 * @st: the counters, copied
 *
 * Writes what the reorder window lets go first (rc_writer__flush(@w,
 * false)), so a reader meets the counters after the records they count.
 *
 * Return: 0; -E2BIG for a block over 16 MiB; -ENOMEM; or an error of
 * writing (sticky).
 */
int rc_writer__add_stats(struct rc_writer *w, const struct rc_stats *st);

/**
 * rc_writer__add_base() - write a BASE block: the run's counters when the file began
 * @w: the writer, nothing added to it yet
 * @st: the counters, copied: the last ones written to the run's file before
 *	this one
 *
 * For the second and later files of a run (rc_meta.run.seq > 1): a reader
 * counts the file's span as its last counters less these
 * (ringcap-file(5), ROTATION).
 *
 * Return: 0; -EINVAL once anything but the header was written; -E2BIG;
 * -ENOMEM; or an error of writing (sticky).
 */
int rc_writer__add_base(struct rc_writer *w, const struct rc_stats *st);

/**
 * rc_writer__add_aux() - write a stretch of a CPU's AUX stream: an AUX block
 * @w: the writer
 * @ac: the stretch; @ac->size at most RC_AUX_MAX bytes
 *
 * Compressed with zstd unless the writer stores (--no-compress), or zstd
 * does not make it smaller. AUX blocks are not records: they are not in
 * the chunk index, and rc_reader__next() hands them to rc_reader__on_aux().
 *
 * Return: 0, -E2BIG, or -errno.
 */
int rc_writer__add_aux(struct rc_writer *w, const struct rc_aux_chunk *ac);
#define RC_AUX_MAX (4u << 20)

/**
 * rc_writer__finish() - flush every record, and end the file
 * @w: the writer
 *
 * Writes every record held, then the trailer (totals and chunk index) and
 * the end block. The fd stays open and is not synced. Call once, and add
 * nothing after.
 *
 * Return: 0, or an error of writing; a file without its end block reads as
 * truncated.
 */
int rc_writer__finish(struct rc_writer *w);

/**
 * rc_writer__free() - free a writer
 * @w: the writer, or NULL
 *
 * Records still held are dropped: call rc_writer__finish() first for a
 * complete file. The fd is not closed.
 */
void rc_writer__free(struct rc_writer *w);

#endif /* RINGCAP_FORMAT_WRITER_H */
