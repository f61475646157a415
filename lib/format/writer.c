// SPDX-License-Identifier: GPL-2.0-only
/*
 * Capture file writer: holds records for a short window, sorts them by
 * timestamp, cuts them into chunks, compresses each chunk as one zstd
 * frame, and ends the file with a trailer indexing every chunk.
 *
 * This file holds the writer's life and its records: held, sorted and
 * flushed into chunks. The chunks are framed and written by writer_chunk.c,
 * the other blocks by writer_blocks.c, and every write goes through
 * writer_room.c, which keeps room for the file's end (writer_priv.h).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "format/header.h"
#include "format/writer_priv.h"
#include "util/mem.h"
#include "util/util.h"

#define DEFAULT_CHUNK	(1u << 20)
#define DEFAULT_REORDER 20000000ull /* 20 ms */
#define DEFAULT_LEVEL	1	    /* as small as 3 on shuffled records, and faster */

struct rc_writer *rc_writer__new(int fd, const struct rc_meta *meta,
				 const struct rc_writer_opts *opts)
{
	int level = opts && opts->compress_level ? opts->compress_level : DEFAULT_LEVEL;
	struct rc_strbuf hdr = {};
	struct rc_writer *w;
	struct rlimit rl;
	struct stat sb;
	size_t r;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return rc_err_ptr(-ENOMEM);
	w->fd = fd;
	w->chunk_size = opts && opts->chunk_size ? opts->chunk_size : DEFAULT_CHUNK;
	w->reorder_ns = opts && opts->reorder_ns ? opts->reorder_ns : DEFAULT_REORDER;
	w->store = opts && opts->no_compress;
	w->shuffle = !w->store && !(opts && opts->no_shuffle);
	w->stats_room = STATS_ROOM;
	w->own = -1;
	/*
	 * Cut back, preallocated and released by offsets from the file's
	 * start: only a regular file written from its start, and not
	 * O_APPEND (-o - >> FILE), whose writes go to its end wherever the
	 * offset is. Any other is written on and not cut.
	 */
	w->can_cut = !fstat(fd, &sb) && S_ISREG(sb.st_mode) && lseek(fd, 0, SEEK_CUR) == 0 &&
		     !(fcntl(fd, F_GETFL) & O_APPEND);
	w->fsize_max = UINT64_MAX;
	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		w->fsize_max = rl.rlim_cur;
	if (w->chunk_size > RC_MAX_CHUNK_RAW / 2) {
		err = -EINVAL;
		goto err_out;
	}
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		err = -ENOMEM;
		goto err_out;
	}
	r = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	if (ZSTD_isError(r)) {
		pr_warn("zstd: %s\n", ZSTD_getErrorName(r));
		err = -EINVAL;
		goto err_out;
	}
	err = rc_format__header(&hdr, meta);
	err = err ?: rc_writer__write_block(w, RC_BLOCK_HEADER, hdr.buf, hdr.len);
	rc_strbuf__free(&hdr);
	if (err)
		goto err_out;
	w->header_end = w->offset;
	return w;

err_out:
	rc_writer__free(w);
	return rc_err_ptr(err);
}

#define OWN_SIZE (1u << 20) /* an own segment's buffer, at least */

/* A free slot in w->segs: its index, or -ENOMEM. */
static int seg_slot(struct rc_writer *w)
{
	size_t i, n = w->nsegs;
	int err;

	for (i = 0; i < n; i++)
		if (!w->segs[i].buf)
			return i;
	err = rc_ensure_arr(&w->segs, &w->nsegs, n + 1, 8);
	if (err)
		return err;
	for (i = n; i < w->nsegs; i++)
		w->segs[i] = (struct wseg){};
	return n;
}

/* Segment @i holds nothing more: give it back. */
static void seg_release(struct rc_writer *w, size_t i)
{
	struct wseg *g = &w->segs[i];

	if (g->cap) {
		if ((int)i == w->own)
			w->own = -1;
		if (!w->spare_own && g->cap == OWN_SIZE)
			w->spare_own = (unsigned char *)g->buf;
		else
			free((void *)g->buf);
	} else {
		g->release(g->ctx);
	}
	*g = (struct wseg){};
}

void rc_writer__drop_held(struct rc_writer *w)
{
	size_t i;

	for (i = 0; i < w->nsegs; i++)
		if (w->segs[i].buf)
			seg_release(w, i);
	w->nrefs = w->sorted = 0;
	w->held = w->kept = 0;
}

/*
 * Index the @len bytes of records at @p, in segment @seg: their refs
 * appended, in one pass; none taken (-EINVAL) on a bad one.
 */
static int index_recs(struct rc_writer *w, const unsigned char *p, size_t len, uint32_t seg)
{
	uint64_t max_ts = w->max_ts, top, ts;
	size_t pos = 0, nrefs = w->nrefs, sorted = w->sorted;
	struct rec_ref *refs;
	uint16_t size;
	int err;

	/* room for as many records as headers fit in @len */
	err = rc_ensure_arr(&w->refs, &w->refs_cap, nrefs + len / sizeof(struct rc_rec_hdr) + 1,
			    4096);
	if (err)
		return err;
	refs = w->refs; /* in locals: a ref's store may alias w's fields */
	top = sorted ? refs[sorted - 1].ts : 0;
	/*
	 * rc_rec__next()'s checks, with only the time and the size loaded, not
	 * the whole header: a fifth of this loop's instructions (callgrind).
	 */
	while (pos < len) {
		if (len - pos < sizeof(struct rc_rec_hdr))
			return -EINVAL; /* a run of whole records or nothing of it */
		memcpy(&ts, p + pos + offsetof(struct rc_rec_hdr, ts), sizeof(ts));
		memcpy(&size, p + pos + offsetof(struct rc_rec_hdr, size), sizeof(size));
		if (size < sizeof(struct rc_rec_hdr) || size % RC_REC_ALIGN || size > len - pos)
			return -EINVAL;
		/* in order after those in order: flush()'s sort need not look at it */
		if (sorted == nrefs && ts >= top) {
			sorted++;
			top = ts;
		}
		refs[nrefs++] = (struct rec_ref){ ts, p + pos, size, seg };
		if (ts > max_ts)
			max_ts = ts;
		pos += size;
	}
	w->segs[seg].pending += nrefs - w->nrefs;
	w->segs[seg].len += len;
	w->held += len;
	w->nrefs = nrefs;
	w->sorted = sorted;
	w->max_ts = max_ts;
	return 0;
}

/*
 * Bound what is held: write what is ready once two chunks have come since
 * the last flush, and at least as much as it carried over. Not once two
 * are held: the reorder window can itself hold more (20 ms of a syscall
 * storm is 4 MiB).
 */
static int maybe_flush(struct rc_writer *w)
{
	if (w->held - w->kept >= 2 * w->chunk_size && w->held - w->kept >= w->kept)
		return rc_writer__flush(w, false);
	return 0;
}

int rc_writer__add(struct rc_writer *w, const void *recs, size_t len)
{
	struct wseg *g = w->own >= 0 ? &w->segs[w->own] : NULL;
	unsigned char *dst;
	int err, i;

	if (w->err)
		return w->err;
	if (w->cut)
		return 0; /* not written: the reader counts them missing (cut short) */
	if (w->held + len > UINT32_MAX)
		return -E2BIG;
	if (!len)
		return 0;
	if (g && !g->pending)
		g->len = 0; /* all of it written: filled again from its start */
	/* copied after what the own segment holds; a new one when it is full */
	if (!g || g->cap - g->len < len) {
		size_t cap = len > OWN_SIZE ? len : OWN_SIZE;

		i = seg_slot(w);
		if (i < 0)
			return i;
		if (w->own >= 0 && !w->segs[w->own].pending)
			seg_release(w, w->own); /* full, and all of it written */
		w->own = -1;
		if (cap == OWN_SIZE && w->spare_own) {
			dst = w->spare_own;
			w->spare_own = NULL;
		} else {
			dst = malloc(cap);
			if (!dst)
				return -ENOMEM;
		}
		w->segs[i] = (struct wseg){ .buf = dst, .cap = cap };
		w->own = i;
		g = &w->segs[i];
	}
	/*
	 * The run copied in one go (memcpy() of a whole batch, where a copy
	 * a record at a time was a third of this function), then its
	 * headers walked where they now are, still in cache.
	 */
	dst = (unsigned char *)g->buf + g->len;
	memcpy(dst, recs, len);
	err = index_recs(w, dst, len, w->own);
	return err ?: maybe_flush(w);
}

int rc_writer__add_held(struct rc_writer *w, const void *recs, size_t len,
			rc_writer_release_fn release, void *ctx, bool *held)
{
	int err, i;

	*held = false;
	if (w->err)
		return w->err;
	if (w->cut || !len)
		return 0;
	if (w->held + len > UINT32_MAX)
		return -E2BIG;
	i = seg_slot(w);
	if (i < 0)
		return i;
	w->segs[i] = (struct wseg){ .buf = recs, .release = release, .ctx = ctx };
	err = index_recs(w, recs, len, i);
	if (err) {
		w->segs[i] = (struct wseg){};
		return err;
	}
	*held = true;
	return maybe_flush(w);
}

/*
 * Stable insertion sort by timestamp, of @n refs whose first @sorted are:
 * linear on nearly sorted input.
 */
static void sort_refs(struct rec_ref *r, size_t n, size_t sorted)
{
	size_t i, j;

	for (i = sorted ? sorted : 1; i < n; i++) {
		struct rec_ref x = r[i];

		for (j = i; j > 0 && r[j - 1].ts > x.ts; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

static int flush(struct rc_writer *w, bool all, uint64_t now);

/* Any failure while writing leaves the file's tail unknown: stop for good. */
static int flush_sticky(struct rc_writer *w, bool all, uint64_t now)
{
	int err;

	if (w->err)
		return w->err;
	if (w->cut)
		return 0;
	err = flush(w, all, now);
	if (err && !w->cut)
		w->err = err;
	return err;
}

int rc_writer__flush(struct rc_writer *w, bool all)
{
	return flush_sticky(w, all, 0);
}

int rc_writer__flush_until(struct rc_writer *w, uint64_t now)
{
	return flush_sticky(w, false, now);
}

/*
 * Write the records held older than the reorder window before the newest
 * one, or before @now when that is later (no record came since: those
 * held are not to wait for one), or all of them.
 */
static int flush(struct rc_writer *w, bool all, uint64_t now)
{
	uint64_t cutoff = UINT64_MAX, first = 0, last = 0;
	size_t i, k, nrec = 0, run_len = 0, runs = 0, written = 0;
	size_t clen = 0, chunk_size = w->chunk_size; /* the chunk's bytes: its spans' and the run's */
	const unsigned char *run_p = NULL;
	uint32_t size = 0; /* of the chunk's last record: runs of one size counted as they come */
	/* in locals: stores through @refs may alias w's fields, which would be loaded again */
	struct rec_ref *refs = w->refs;
	struct wseg *segs = w->segs;
	uint64_t last_ts = w->last_ts, late = w->tr.late;
	size_t nrefs = w->nrefs;
	bool wrote_any = w->wrote_any;
	int err = 0;

	sort_refs(refs, nrefs, w->sorted);
	if (!all) {
		uint64_t top = now > w->max_ts ? now : w->max_ts;

		cutoff = top > w->reorder_ns ? top - w->reorder_ns : 0;
	}
	/*
	 * Records that sorting left where they were follow each other where
	 * they are held: take such a run in one go (rc_writer__write_chunk()).
	 */
	for (k = 0; k < nrefs && refs[k].ts <= cutoff; k++) {
		const struct rec_ref *r = &refs[k];

		if (wrote_any && r->ts < last_ts)
			late++;
		else
			last_ts = r->ts;
		wrote_any = true;
		/* sorted: the chunk's first is its oldest, each ref its newest yet */
		if (!nrec)
			first = r->ts;
		last = r->ts;
		if (run_len && r->p != run_p + run_len) {
			err = rc_writer__add_span(w, run_p, run_len);
			if (err)
				goto out;
			run_len = 0;
		}
		if (!run_len)
			run_p = r->p;
		run_len += r->size;
		runs += r->size != size;
		size = r->size;
		nrec++;
		segs[r->seg].pending--;
		written += r->size;
		clen += r->size;
		if (clen >= chunk_size) {
			err = rc_writer__add_span(w, run_p, run_len);
			err = err ?: rc_writer__write_chunk(w, nrec, runs, first, last);
			if (err)
				goto out;
			run_len = 0;
			clen = 0;
			nrec = 0;
			runs = 0;
			size = 0;
		}
	}
	if (nrec) {
		err = rc_writer__add_span(w, run_p, run_len);
		err = err ?: rc_writer__write_chunk(w, nrec, runs, first, last);
	}
out:
	w->tr.late = late;
	w->last_ts = last_ts;
	w->wrote_any = wrote_any;
	if (err)
		return err; /* the writer stops (sticky), or was cut and holds nothing */
	/* keep the records not yet written where they are, their refs in sorted order */
	if (k && nrefs > k)
		memmove(refs, refs + k, (nrefs - k) * sizeof(*refs));
	w->nrefs = nrefs - k;
	w->sorted = w->nrefs;
	w->held -= written;
	w->kept = w->held;
	/* and give back what is all written: the own segment stays, to be filled on */
	for (i = 0; i < w->nsegs; i++)
		if (segs[i].buf && !segs[i].pending && (int)i != w->own)
			seg_release(w, i);
	return 0;
}

int rc_writer__finish(struct rc_writer *w)
{
	int err, cut_err = w->cut;

	if (w->err)
		return w->err;
	if (cut_err) {
		err = rc_writer__end_cut(w);
		w->cut = cut_err;    /* rc_writer__cut() still tells */
		w->err = -ECANCELED; /* ended: nothing more */
	} else {
		uint64_t good;

		err = rc_writer__flush(w, true);
		if (w->cut) /* cut while flushing */
			return rc_writer__finish(w);
		good = w->good;
		err = err ?: rc_writer__write_trailer(w);
		if (w->cut) { /* the end, from the last chunk again, in the room kept */
			w->good = good;
			return rc_writer__finish(w);
		}
	}
	rc_writer__release_room(w);
	return err;
}

int rc_writer__cut(const struct rc_writer *w)
{
	return w->cut;
}

const struct rc_trailer *rc_writer__totals(const struct rc_writer *w)
{
	return &w->tr;
}

uint64_t rc_writer__bytes(const struct rc_writer *w)
{
	return w->offset;
}

void rc_writer__free(struct rc_writer *w)
{
	size_t i;

	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	for (i = 0; i < w->nsegs; i++) /* the caller's are the caller's to free */
		if (w->segs[i].cap)
			free((void *)w->segs[i].buf);
	free(w->segs);
	free(w->spare_own);
	rc_strbuf__free(&w->raw);
	rc_strbuf__free(&w->gather);
	rc_strbuf__free(&w->enc);
	rc_strbuf__free(&w->zbuf);
	rc_strbuf__free(&w->cut_stats);
	free(w->refs);
	free(w->spans);
	free(w->tr.index);
	free(w);
}
