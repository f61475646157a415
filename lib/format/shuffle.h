/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The chunk codec RC_CODEC_ZSTD_SHUFFLE: records rearranged before zstd so
 * that it finds more to share (ringcap-file(5)).
 *
 * A chunk's records are cut into runs of consecutive records of one size.
 * Each run is written as
 *
 *   u32 nrec, u32 size       little-endian
 *   u8  bytes[nrec * size]   byte b of record i at b * nrec + i
 *
 * and each record's timestamp (its first 8 bytes) is replaced by its
 * difference from the record before it in the chunk (the first: from 0).
 * Neighbouring records differ in few bytes, and after the shuffle the
 * bytes that stay the same are long runs.
 */
#ifndef RINGCAP_SHUFFLE_H
#define RINGCAP_SHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_SHUFFLE_RUN_HDR 8

/* The encoded size of @len bytes of @nrec records is at most this. */
static inline size_t rc_shuffle__bound(size_t len, size_t nrec)
{
	return len + nrec * RC_SHUFFLE_RUN_HDR;
}

/*
 * Encode @len bytes of whole records (sizes checked by the caller: each a
 * multiple of 8, at least a header) into @out, which has room for
 * rc_shuffle__bound(); returns the bytes written.
 */
size_t rc_shuffle__encode(const void *recs, size_t len, void *out);

/* A stretch of whole records in memory. */
struct rc_span {
	const void *p;
	size_t len;
};

/*
 * As rc_shuffle__encode() of the records of @n spans one after another,
 * without putting them together first: the same bytes, a run of one
 * size going on from a span into the next.
 */
size_t rc_shuffle__encode_spans(const struct rc_span *sp, size_t n, void *out);

/*
 * As rc_shuffle__encode_spans() of records all of @size bytes, one run,
 * as the caller knows (the writer, from its refs): their sizes not read.
 */
size_t rc_shuffle__encode_one_run(const struct rc_span *sp, size_t n, size_t size, void *out);

/*
 * Decode @in_len bytes into exactly @out_len bytes of exactly @nrec
 * records. Returns 0, or -EINVAL with *@why saying what is wrong: every
 * length is checked before it is used.
 */
int rc_shuffle__decode(const void *in, size_t in_len, void *out, size_t out_len, uint32_t nrec,
		       const char **why);

/*
 * The chunk codec RC_CODEC_ZSTD_CLASSES: for records of a few sizes in
 * turn (a syscall's entry and exit), whose runs of one size are too short
 * to shuffle. The records are grouped by size, each group shuffled whole:
 *
 *   u32 nclass                         1 to RC_CLASSES_MAX
 *   nclass times: u32 nrec, u32 size   a class: its records and their size
 *   u8  class[nrec]                    each record's class, in chunk order
 *   nclass times: u8 bytes[nrec*size]  the class's records, shuffled as a
 *                                      run above; each ts the difference
 *                                      from the class's record before
 */
#define RC_CLASSES_MAX 16

/* The encoded size of @len bytes of @nrec records is at most this. */
static inline size_t rc_classes__bound(size_t len, size_t nrec)
{
	return 4 + 8 * RC_CLASSES_MAX + nrec + len;
}

/*
 * Encode @len bytes of whole records (sizes checked by the caller) into
 * @out, with room for rc_classes__bound(), through @scratch, with room for
 * @len; returns the bytes written, or 0 when there are none or they have
 * more than RC_CLASSES_MAX sizes.
 */
size_t rc_classes__encode(const void *recs, size_t len, void *out, void *scratch);

/*
 * Decode @in_len bytes into exactly @out_len bytes of exactly @nrec
 * records, through @scratch, with room for @out_len. Returns 0, or
 * -EINVAL with *@why saying what is wrong: every length and class is
 * checked before it is used.
 */
int rc_classes__decode(const void *in, size_t in_len, void *out, size_t out_len, uint32_t nrec,
		       void *scratch, const char **why);

/* Tests: use the portable transpose even where a vector one exists. */
void rc_shuffle__scalar_only(bool on);

#endif /* RINGCAP_SHUFFLE_H */
