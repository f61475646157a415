/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the capture reader's two halves share, for lib/format/reader*.c
 * only: the reader's state; reader.c reads blocks (their headers, bad
 * blocks, resyncing, opening), reader_blocks.c parses what they hold
 * (chunks, stacks, AUX, lines, counters, the trailer and its index).
 */
#ifndef RINGCAP_FORMAT_READER_INT_H
#define RINGCAP_FORMAT_READER_INT_H

#include <zstd.h>
#include "format/input.h"
#include "format/header.h"
#include "format/reader.h"
#include "format/resync.h"
#include "format/stacktab.h"
#include "format/stats.h"
#include "util/strbuf.h"

/* A block that is not good: what was read of it (its payload: r->payload), and why. */
struct bad_block {
	uint32_t h[4];
	size_t hlen; /* bytes of h read */
	bool cut;    /* the file ends inside its payload */
	const char *why;
};

/* Damage met while chunks are out: logged after the @after'th chunk is settled. */
struct rc_rd_deferred {
	uint64_t after, start, end, chunks, records;
	const char *why;
	enum rc_stretch_end how;
};

/* A chunk's decompression: its context and buffers (rc_inflater__new()). */
struct rc_inflater {
	ZSTD_DCtx *dctx;
	struct rc_strbuf enc, raw; /* enc: a shuffled or ftrace chunk */
	struct rc_strbuf gather;   /* a chunk shuffled by class, by class */
	const char *why;	   /* why a chunk's data or records are bad */
};

struct rc_reader {
	struct rc_input in;
	bool own_fd;

	struct rc_parsed_header hdr;
	char err[256]; /* the failure that stopped reading */
	uint64_t corrupt_off; /* where the block it stopped at starts: rc_rd__corrupt() */
	bool corrupt;
	bool at_end, truncated;
	struct bad_block bad;
	struct rc_damage_log dmg;

	struct rc_inflater dec;		/* the chunk being handed out, in dec.raw */
	struct rc_strbuf payload, data; /* a block's payload; a chunk's data */
	size_t raw_pos;
	/* rc_reader__next_chunk(): chunks handed out, not yet settled; a block held back */
	uint64_t unsettled;
	bool held;
	int held_err;
	uint32_t held_type;
	uint64_t held_off;
	uint64_t handed, settled; /* chunks handed out, settled */
	struct rc_rd_deferred *deferred;
	size_t ndeferred, deferred_cap, deferred_done;

	struct rc_stats stats;
	bool have_stats;
	struct rc_stats base; /* the BASE block (v1.9) */
	bool have_base;
	struct rc_stats_point *hist;
	size_t nhist, hist_cap;
	struct rc_trailer trailer;
	bool have_trailer;
	uint64_t nchunks, nrec, raw_bytes;
	uint64_t last_ts; /* the latest time of the records handed out */
	uint64_t since, until;
	bool skipped; /* chunks outside the range were passed over */
	struct rc_stacktab stacks;
	rc_aux_fn aux_fn; /* rc_reader__on_aux() */
	void *aux_ctx;
	rc_chunk_fn chunk_fn; /* rc_reader__on_chunk() */
	void *chunk_ctx;
};

/* reader.c: reading the input */
size_t rc_rd__read_some(struct rc_reader *r, void *buf, size_t n);
int rc_rd__corrupt(struct rc_reader *r, uint64_t off, const char *what);
int rc_rd__end_of_file(struct rc_reader *r);
int rc_rd__resync(struct rc_reader *r, uint64_t start, const char *why, uint64_t chunks,
		  uint64_t records);

/*
 * A damaged stretch into the log (rc_damage_log__add()), or, while chunks
 * handed out are not settled, once those before it are: in file order.
 */
int rc_rd__damage(struct rc_reader *r, uint64_t start, uint64_t end, const char *why,
		  enum rc_stretch_end how, uint64_t chunks, uint64_t records);
/* The stretches deferred until now: into the log. */
int rc_rd__flush_deferred(struct rc_reader *r);

/* reader_blocks.c: a good block's payload, in r->payload, read from @off */
int rc_rd__load_chunk(struct rc_reader *r, uint64_t off);
int rc_rd__load_stats(struct rc_reader *r, uint64_t off);
int rc_rd__load_base(struct rc_reader *r, uint64_t off);
int rc_rd__load_stacks(struct rc_reader *r, uint64_t off);
int rc_rd__load_lines(struct rc_reader *r, uint64_t off);
int rc_rd__load_buildids(struct rc_reader *r, uint64_t off);
int rc_rd__load_aux(struct rc_reader *r, uint64_t off);
int rc_rd__load_trailer(struct rc_reader *r, uint64_t off);
/* the block of rc_rd__load_chunk() read up to its data: 1 to read it, 0 passed over, or -errno */
int rc_rd__chunk_header(struct rc_reader *r, uint64_t off, struct rc_disk_chunk *dc);
int rc_rd__inflater_init(struct rc_inflater *d);
void rc_rd__inflater_fini(struct rc_inflater *d);

#endif /* RINGCAP_FORMAT_READER_INT_H */
