// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture writer's chunks (writer_priv.h): records shuffled (format/
 * shuffle.h) unless that does not pay, compressed as one zstd frame (or
 * stored in one, --no-compress), written as a chunk block and indexed for
 * the trailer; chunks built elsewhere (the ftrace backend's) written and
 * indexed the same; and AUX blocks, compressed when that makes them smaller.
 */
#include <errno.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>
#include "format/shuffle.h"
#include "format/writer_priv.h"
#include "util/mem.h"
#include "util/util.h"

static int add_index(struct rc_writer *w, const struct rc_chunk_index *ci)
{
	int err = rc_ensure_arr(&w->tr.index, &w->index_cap, w->tr.nindex + 1, 64);

	if (err)
		return err;
	w->tr.index[w->tr.nindex++] = *ci;
	return 0;
}

/*
 * --no-compress: a zstd frame by hand, of raw blocks (RFC 8878): still
 * one frame that any zstd decoder takes, and checks, at the cost of a
 * copy and a hash.
 */
#define ZSTD_MAGIC	0xFD2FB528u
#define ZSTD_BLOCK_MAX	(128u << 10)
#define ZSTD_FHD	0xE4 /* 8-byte content size, single segment, content checksum */
#define ZSTD_BLOCK_LAST 1u

static size_t store_bound(size_t len)
{
	return 4 + 1 + 8 + (len / ZSTD_BLOCK_MAX + 1) * 3 + len + 4;
}

static size_t store_frame(unsigned char *out, const unsigned char *in, size_t len)
{
	uint64_t fcs = len, sum = XXH64(in, len, 0);
	size_t n = 0, pos = 0;
	int i;

	for (i = 0; i < 4; i++)
		out[n++] = ZSTD_MAGIC >> 8 * i;
	out[n++] = ZSTD_FHD;
	for (i = 0; i < 8; i++)
		out[n++] = fcs >> 8 * i;
	do {
		size_t blk = len - pos < ZSTD_BLOCK_MAX ? len - pos : ZSTD_BLOCK_MAX;
		uint32_t bh = (uint32_t)blk << 3 | (pos + blk == len ? ZSTD_BLOCK_LAST : 0);

		out[n++] = bh;
		out[n++] = bh >> 8;
		out[n++] = bh >> 16;
		memcpy(out + n, in + pos, blk);
		n += blk;
		pos += blk;
	} while (pos < len);
	for (i = 0; i < 4; i++) /* the low 32 bits of XXH64, seed 0 */
		out[n++] = sum >> 8 * i;
	return n;
}

int rc_writer__add_span(struct rc_writer *w, const void *p, size_t len)
{
	int err;

	if (!len)
		return 0;
	err = rc_ensure_arr(&w->spans, &w->spans_cap, w->nspans + 1, 16);
	if (err)
		return err;
	w->spans[w->nspans++] = (struct rc_span){ p, len };
	w->span_len += len;
	return 0;
}

/* The chunk's records in one stretch: its one span, or its spans put together in w->raw. */
static int whole(struct rc_writer *w, const void **src)
{
	size_t i;
	int err;

	if (w->nspans == 1) {
		*src = w->spans[0].p;
		return 0;
	}
	w->raw.len = 0;
	err = rc_strbuf__reserve(&w->raw, w->span_len);
	if (err)
		return err;
	for (i = 0; i < w->nspans; i++) {
		memcpy(w->raw.buf + w->raw.len, w->spans[i].p, w->spans[i].len);
		w->raw.len += w->spans[i].len;
	}
	*src = w->raw.buf;
	return 0;
}

/*
 * Shuffle a chunk of one run, or whose runs of one record size are 8
 * records long or more on average (RC_CODEC_ZSTD_SHUFFLE); a shorter run goes a byte at a time
 * and costs a run header. A chunk of records of a few sizes in turn (a
 * syscall's entry and exit) is shuffled by size (RC_CODEC_ZSTD_CLASSES),
 * one of many sizes compressed as it is. Shuffled from where its records
 * are held when they lie in a few stretches (a batch's end and the next
 * one's start): from long stretches, the same bytes without the copy
 * that puts them together.
 */
static int encode_chunk(struct rc_writer *w, const void **src, size_t *len, uint32_t nrec,
			size_t runs, uint32_t *codec)
{
	size_t n;
	int err;

	if (runs == 1 || runs * 8 <= nrec) {
		err = rc_strbuf__reserve(&w->enc, rc_shuffle__bound(*len, nrec));
		if (err)
			return err;
		if (runs == 1 && w->nspans * 256 <= nrec) {
			/* one size: the runs need not be looked for */
			*len = rc_shuffle__encode_one_run(w->spans, w->nspans, *len / nrec,
							  w->enc.buf);
		} else if (w->nspans > 1 && w->nspans * 256 <= nrec) {
			*len = rc_shuffle__encode_spans(w->spans, w->nspans, w->enc.buf);
		} else {
			err = whole(w, src);
			if (err)
				return err;
			*len = rc_shuffle__encode(*src, *len, w->enc.buf);
		}
		*src = w->enc.buf;
		*codec = RC_CODEC_ZSTD_SHUFFLE;
		return 0;
	}
	err = whole(w, src);
	err = err ?: rc_strbuf__reserve(&w->enc, rc_classes__bound(*len, nrec));
	err = err ?: rc_strbuf__reserve(&w->gather, *len);
	if (err)
		return err;
	n = rc_classes__encode(*src, *len, w->enc.buf, w->gather.buf);
	if (n) {
		*len = n;
		*src = w->enc.buf;
		*codec = RC_CODEC_ZSTD_CLASSES;
	}
	return 0;
}

/*
 * The chunk being built, @len bytes of records, shuffled unless stored or
 * not worth it (*@codec says how), as one zstd frame in w->zbuf of *@csize
 * bytes.
 */
static int frame_chunk(struct rc_writer *w, size_t len, uint32_t nrec, size_t runs, size_t *csize,
		       uint32_t *codec)
{
	const void *src = NULL;
	size_t bound;
	int err;

	*codec = RC_CODEC_ZSTD;
	w->zbuf.len = 0;
	if (w->store) {
		err = whole(w, &src);
		err = err ?: rc_strbuf__reserve(&w->zbuf, store_bound(len));
		if (!err)
			*csize = store_frame((unsigned char *)w->zbuf.buf, src, len);
		return err;
	}
	if (w->shuffle)
		err = encode_chunk(w, &src, &len, nrec, runs, codec);
	else
		err = whole(w, &src);
	if (err)
		return err;
	bound = ZSTD_compressBound(len);
	err = rc_strbuf__reserve(&w->zbuf, bound);
	if (err)
		return err;
	*csize = ZSTD_compress2(w->cctx, w->zbuf.buf, bound, src, len);
	if (ZSTD_isError(*csize)) {
		pr_warn("zstd: %s\n", ZSTD_getErrorName(*csize));
		return -EIO;
	}
	return 0;
}

/* Write a chunk block and its frame; index and count it. */
static int put_chunk(struct rc_writer *w, const struct rc_disk_chunk *dc, const void *data)
{
	struct rc_chunk_index ci = { w->offset, dc->first_ts, dc->last_ts, dc->nrec };
	int err;

	err = rc_writer__write_block(w, RC_BLOCK_CHUNK, dc, sizeof(*dc));
	err = err ?: rc_writer__write_all(w, data, dc->data_size);
	err = err ?: add_index(w, &ci);
	if (err)
		return err;
	w->good = w->offset;
	if (!w->tr.nchunks || dc->first_ts < w->tr.first_ts)
		w->tr.first_ts = dc->first_ts;
	if (dc->last_ts > w->tr.last_ts)
		w->tr.last_ts = dc->last_ts;
	w->tr.nchunks++;
	w->tr.nrec += dc->nrec;
	w->tr.raw_bytes += dc->raw_size;
	return 0;
}

/* Compress the chunk being built, of @nrec records from @first to @last, and write it. */
int rc_writer__write_chunk(struct rc_writer *w, uint32_t nrec, size_t runs, uint64_t first,
			   uint64_t last)
{
	size_t len = w->span_len, csize;
	struct rc_disk_chunk dc;
	uint32_t codec;
	int err;

	err = frame_chunk(w, len, nrec, runs, &csize, &codec);
	if (err)
		return err;
	dc = (struct rc_disk_chunk){ .codec = codec,
				     .nrec = nrec,
				     .first_ts = first,
				     .last_ts = last,
				     .raw_size = len,
				     .data_size = csize };
	err = put_chunk(w, &dc, w->zbuf.buf);
	if (err)
		return err;
	w->nspans = w->span_len = 0;
	return 0;
}

int rc_writer__add_chunk(struct rc_writer *w, const struct rc_disk_chunk *dc, const void *data)
{
	int err;

	if (w->err)
		return w->err;
	if (w->cut)
		return 0;
	if (dc->codec != RC_CODEC_FTRACE || !dc->nrec || dc->first_ts > dc->last_ts ||
	    dc->raw_size > RC_MAX_CHUNK_RAW ||
	    dc->nrec > dc->raw_size / sizeof(struct rc_rec_hdr) || !dc->data_size ||
	    dc->data_size > RC_MAX_CHUNK_DATA)
		return -EINVAL;
	/* a failure part way leaves the file's tail unknown: stop for good */
	err = put_chunk(w, dc, data);
	if (err && !w->cut)
		w->err = err;
	return err;
}

/* The disk form of an AUX stretch's description. */
static void aux_to_disk(const struct rc_aux_chunk *ac, struct rc_disk_aux *da)
{
	memset(da, 0, sizeof(*da));
	da->cpu = ac->cpu;
	da->pos = ac->pos;
	da->size = ac->size;
	da->lost = ac->lost;
	da->ts = ac->ts;
	da->pmu_type = ac->pmu_type;
	da->flags = ac->flags;
	da->time_zero = ac->time_zero;
	da->time_mult = ac->time_mult;
	da->time_shift = ac->time_shift;
	da->clock_valid = ac->clock_valid;
	da->perf_to_boot = ac->perf_to_boot;
	memcpy(da->pmu, ac->pmu, sizeof(da->pmu));
}

int rc_writer__add_aux(struct rc_writer *w, const struct rc_aux_chunk *ac)
{
	struct rc_disk_aux da;
	size_t bound, n = 0;
	int err;

	if (ac->size > RC_AUX_MAX)
		return -E2BIG;
	if (w->cut)
		return 0;
	aux_to_disk(ac, &da);
	bound = ZSTD_compressBound(ac->size);
	w->zbuf.len = 0;
	err = rc_strbuf__reserve(&w->zbuf, sizeof(da) + bound);
	if (err)
		return err;
	if (!w->store && ac->size) {
		n = ZSTD_compress2(w->cctx, (char *)w->zbuf.buf + sizeof(da), bound, ac->data,
				   ac->size);
		if (ZSTD_isError(n)) {
			pr_warn("zstd: %s\n", ZSTD_getErrorName(n));
			return -EIO;
		}
	}
	if (n && n < ac->size) {
		da.codec = RC_CODEC_ZSTD;
	} else { /* stored, or zstd made it no smaller: the bytes as they are */
		da.codec = RC_CODEC_NONE;
		n = ac->size;
		if (n)
			memcpy((char *)w->zbuf.buf + sizeof(da), ac->data, n);
	}
	da.data_size = n;
	memcpy(w->zbuf.buf, &da, sizeof(da));
	return rc_writer__write_block(w, RC_BLOCK_AUX, w->zbuf.buf, sizeof(da) + n);
}
