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

struct rc_reader {
	struct rc_input in;
	bool own_fd;

	struct rc_parsed_header hdr;
	char err[256]; /* the failure that stopped reading */
	bool at_end, truncated;
	struct bad_block bad;
	const char *why; /* why a chunk's data or records are bad */
	struct rc_damage_log dmg;

	ZSTD_DCtx *dctx;
	struct rc_strbuf payload, data, enc, raw; /* enc: a shuffled or ftrace chunk */
	struct rc_strbuf gather;		  /* a chunk shuffled by class, by class */
	size_t raw_pos;

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
};

/* reader.c: reading the input */
size_t rc_rd__read_some(struct rc_reader *r, void *buf, size_t n);
int rc_rd__corrupt(struct rc_reader *r, uint64_t off, const char *what);
int rc_rd__end_of_file(struct rc_reader *r);
int rc_rd__resync(struct rc_reader *r, uint64_t start, const char *why, uint64_t chunks,
		  uint64_t records);

/* reader_blocks.c: a good block's payload, in r->payload, read from @off */
int rc_rd__load_chunk(struct rc_reader *r, uint64_t off);
int rc_rd__load_stats(struct rc_reader *r, uint64_t off);
int rc_rd__load_base(struct rc_reader *r, uint64_t off);
int rc_rd__load_stacks(struct rc_reader *r, uint64_t off);
int rc_rd__load_lines(struct rc_reader *r, uint64_t off);
int rc_rd__load_aux(struct rc_reader *r, uint64_t off);
int rc_rd__load_trailer(struct rc_reader *r, uint64_t off);

#endif /* RINGCAP_FORMAT_READER_INT_H */
