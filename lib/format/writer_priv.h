/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture file writer's own state, shared by its files: writer.c (the
 * records held, sorted and flushed; the writer's life), writer_chunk.c
 * (chunks framed, compressed and indexed; AUX blocks), writer_blocks.c (the
 * file's other blocks: counters, stacks, lines, the trailer) and
 * writer_room.c (every write, in room reserved for the file's end: the
 * full-disk and size-limit guarantee, rc_writer__cut()).
 */
#ifndef RINGCAP_FORMAT_WRITER_PRIV_H
#define RINGCAP_FORMAT_WRITER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>
#include "format/format.h"
#include "format/shuffle.h"
#include "format/writer_int.h"
#include "util/strbuf.h"

#define STATS_ROOM    (56u + 64u * sizeof(struct rc_disk_stat)) /* before the first STATS */
#define PREALLOC_STEP (256u << 10) /* the room beyond the tail taken at once */

struct rec_ref {
	uint64_t ts;
	const unsigned char *p; /* in its segment */
	uint32_t size;
	uint32_t seg; /* w->segs[seg] holds it */
};

/*
 * A stretch of records held: copied into the writer's own buffer
 * (rc_writer__add()), or the caller's, held in place until written
 * (rc_writer__add_held()), then given back through @release.
 */
struct wseg {
	const unsigned char *buf; /* NULL: a free slot */
	size_t len;		  /* bytes of records in it */
	size_t cap;		  /* an own buffer's size; 0: the caller's */
	size_t pending;		  /* its records not yet written */
	rc_writer_release_fn release;
	void *ctx;
};

struct rc_writer {
	int fd;
	int err; /* sticky: the first write error */
	uint64_t offset;
	uint64_t header_end; /* the offset after the header block */
	uint64_t good;	     /* the offset after the last complete block (a chunk: its data) */
	ZSTD_CCtx *cctx;
	size_t chunk_size;
	uint64_t reorder_ns;
	bool store;   /* --no-compress: zstd frames of raw blocks */
	bool shuffle; /* RC_CODEC_ZSTD_SHUFFLE or _CLASSES, as pays */

	/* records held back for sorting, where they were put (struct wseg) */
	struct wseg *segs;
	size_t nsegs;	  /* slots in segs */
	int own;	  /* the own segment rc_writer__add() copies into; -1: none */
	unsigned char *spare_own; /* an own buffer given back, kept for the next */
	size_t held;	  /* bytes held: records not yet written */
	size_t kept;	  /* bytes held carried over by the last flush */
	size_t sorted;	  /* refs at the start in time order: those it kept, and any added after in order */
	struct rec_ref *refs;
	size_t nrefs, refs_cap;
	uint64_t max_ts;
	uint64_t last_ts; /* newest timestamp written */
	bool wrote_any;

	struct rc_span *spans;	 /* the chunk being built: its stretches of held records */
	size_t nspans, spans_cap;
	size_t span_len;	 /* bytes in them */
	struct rc_strbuf raw;	 /* the chunk put together, where its codec wants it whole */
	struct rc_strbuf enc;	 /* shuffled */
	struct rc_strbuf gather; /* records by size, for RC_CODEC_ZSTD_CLASSES */
	struct rc_strbuf zbuf;	 /* its compressed frame */

	struct rc_trailer tr;
	size_t index_cap;

	/*
	 * The room for the last counters: a file ends with them whatever
	 * cuts it. After a full disk (ENOSPC, EDQUOT) or the file size limit
	 * (EFBIG), the writer is cut: it writes nothing more but keeps the
	 * newest counters, and rc_writer__finish() ends the file at @good
	 * with them, in room reserved beforehand (@alloc_end, @fsize_max).
	 */
	bool can_cut;		    /* a regular file: it can be cut back */
	bool no_falloc;		    /* its file system does not preallocate */
	int cut;		    /* the error that cut it; 0: none */
	uint64_t fsize_max;	    /* RLIMIT_FSIZE; UINT64_MAX: none */
	uint64_t alloc_end;	    /* preallocated up to here (FALLOC_FL_KEEP_SIZE) */
	size_t stats_room;	    /* the largest STATS payload yet */
	struct rc_strbuf cut_stats; /* the newest counters since the cut */
};

/* writer_room.c */

/*
 * Write @len bytes at the writer's offset, in room reserved for them and the
 * file's end: 0; the writer's error; or, on a regular file, -ENOSPC, -EDQUOT
 * or -EFBIG, which cut the writer (it drops what it holds and writes nothing
 * more); or write(2)'s error, sticky.
 */
int rc_writer__write_all(struct rc_writer *w, const void *buf, size_t len);

/* A block: its header, then @len bytes of @payload; as rc_writer__write_all(), or -E2BIG. */
int rc_writer__write_block(struct rc_writer *w, uint32_t type, const void *payload, size_t len);

/* Give back what was preallocated past the end of the file. */
void rc_writer__release_room(struct rc_writer *w);

/* A cut writer's end, from its last complete block: 0, or the error that left it cut short. */
int rc_writer__end_cut(struct rc_writer *w);

/* writer_chunk.c */

/* Add @len bytes of held records at @p to the chunk being built (w->spans): 0 or -ENOMEM. */
int rc_writer__add_span(struct rc_writer *w, const void *p, size_t len);

/*
 * Compress and write the chunk being built (writer.c's flush()), @nrec
 * records, which make @runs runs of records of one size
 * (rc_shuffle__encode()'s runs, counted from their refs: the chunk is not
 * walked for them): 0 or -errno.
 */
int rc_writer__write_chunk(struct rc_writer *w, uint32_t nrec, size_t runs, uint64_t first,
			   uint64_t last);

/* writer.c */

/* Drop every record held, and give their segments back (a cut writer). */
void rc_writer__drop_held(struct rc_writer *w);

/* writer_blocks.c */

/* The trailer, for the chunks written, and the end block: 0 or -errno. */
int rc_writer__write_trailer(struct rc_writer *w);

#endif /* RINGCAP_FORMAT_WRITER_PRIV_H */
