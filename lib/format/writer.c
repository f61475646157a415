// SPDX-License-Identifier: GPL-2.0-only
/*
 * Capture file writer: holds records for a short window, sorts them by
 * timestamp, cuts them into chunks, compresses each chunk as one zstd
 * frame, and ends the file with a trailer indexing every chunk.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>
#include "format/format.h"
#include "format/writer_int.h"
#include "format/header.h"
#include "util/util.h"
#include "format/shuffle.h"
#include "util/mem.h"

#define DEFAULT_CHUNK	(1u << 20)
#define DEFAULT_REORDER 20000000ull /* 20 ms */
#define DEFAULT_LEVEL	1	    /* as small as 3 on shuffled records, and faster */
#define STATS_ROOM	(56u + 64u * sizeof(struct rc_disk_stat)) /* before the first STATS */
#define PREALLOC_STEP	(256u << 10) /* the room beyond the tail taken at once */

struct rec_ref {
	uint64_t ts;
	uint32_t off;
	uint32_t size;
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

	/* records held back for sorting */
	struct rc_strbuf held, spare;
	size_t kept;	  /* bytes of held carried over by the last flush */
	size_t kept_refs; /* and their refs, sorted, at the start of refs */
	struct rec_ref *refs;
	size_t nrefs, refs_cap;
	uint64_t max_ts;
	uint64_t last_ts; /* newest timestamp written */
	bool wrote_any;

	struct rc_strbuf raw;	 /* the chunk being built */
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

static bool space_error(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

/* The bytes the file's end takes: the last counters, the trailer, the end block. */
static uint64_t tail_room(const struct rc_writer *w)
{
	return 16 + w->stats_room + 16 + sizeof(struct rc_disk_trailer) +
	       (uint64_t)(w->tr.nindex + 1) * sizeof(struct rc_disk_index) + 16 + sizeof(uint64_t);
}

/*
 * Before writing @len bytes: room for them and the file's end after them,
 * allocated (a full disk fails here, not in the middle of the end), and
 * below the file size limit. -ENOSPC, -EDQUOT or -EFBIG when there is not.
 */
static int reserve(struct rc_writer *w, size_t len)
{
	uint64_t end = w->offset + len + tail_room(w);

	if (!w->can_cut || w->cut)
		return 0;
	if (end > w->fsize_max)
		return -EFBIG;
	if (w->no_falloc || end <= w->alloc_end)
		return 0;
	/* a step ahead, so that not every write asks; or just enough, near the end */
	if (!fallocate(w->fd, FALLOC_FL_KEEP_SIZE, w->offset, end + PREALLOC_STEP - w->offset)) {
		w->alloc_end = end + PREALLOC_STEP;
		return 0;
	}
	if (!fallocate(w->fd, FALLOC_FL_KEEP_SIZE, w->offset, end - w->offset)) {
		w->alloc_end = end;
		return 0;
	}
	if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
		return -errno;
	w->no_falloc = true; /* EOPNOTSUPP: a write finds a full disk, at worst in the end */
	return 0;
}

/* Give back what was preallocated past the end of the file. */
static void release_room(struct rc_writer *w)
{
	if (w->alloc_end > w->offset && !w->no_falloc)
		fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, w->offset,
			  w->alloc_end - w->offset);
	w->alloc_end = 0;
}

/* A write found no room: write nothing more, and drop what is held. */
static int cut(struct rc_writer *w, int err)
{
	w->cut = err;
	w->nrefs = w->kept_refs = 0;
	w->held.len = w->kept = w->raw.len = 0;
	return err;
}

static int write_all(struct rc_writer *w, const void *buf, size_t len)
{
	const char *p = buf;
	int err;

	if (w->err)
		return w->err;
	if (w->cut)
		return w->cut;
	err = reserve(w, len);
	if (err)
		return cut(w, err);
	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && w->can_cut && space_error(-errno))
			return cut(w, -errno);
		if (n < 0) {
			w->err = -errno;
			pr_warn("failed to write capture: %s\n", strerror(errno));
			return w->err;
		}
		p += n;
		len -= n;
		w->offset += n;
	}
	return 0;
}

static int write_block(struct rc_writer *w, uint32_t type, const void *payload, size_t len)
{
	uint32_t hdr[4];
	int err;

	if (len > (type == RC_BLOCK_TRAILER ? RC_MAX_TRAILER : RC_MAX_BLOCK))
		return -E2BIG;
	hdr[0] = RC_FRAME_MAGIC;
	hdr[1] = len + 8;
	hdr[2] = type;
	hdr[3] = rc_block_crc(type, payload, len);
	err = write_all(w, hdr, sizeof(hdr)) ?: write_all(w, payload, len);
	if (err)
		return err;
	if (type != RC_BLOCK_CHUNK) /* a chunk is complete with its data (put_chunk()) */
		w->good = w->offset;
	return 0;
}

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
	err = err ?: write_block(w, RC_BLOCK_HEADER, hdr.buf, hdr.len);
	rc_strbuf__free(&hdr);
	if (err)
		goto err_out;
	w->header_end = w->offset;
	return w;

err_out:
	rc_writer__free(w);
	return rc_err_ptr(err);
}

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

/*
 * Shuffle a chunk of one run, or whose runs of one record size are 8
 * records long or more on average (RC_CODEC_ZSTD_SHUFFLE); a shorter run goes a byte at a time
 * and costs a run header. A chunk of records of a few sizes in turn (a
 * syscall's entry and exit) is shuffled by size (RC_CODEC_ZSTD_CLASSES),
 * one of many sizes compressed as it is.
 */
static int encode_chunk(struct rc_writer *w, const void **src, size_t *len, uint32_t nrec,
			uint32_t *codec)
{
	size_t n, runs = rc_shuffle__runs(*src, *len);
	int err;

	if (runs == 1 || runs * 8 <= nrec) {
		err = rc_strbuf__reserve(&w->enc, rc_shuffle__bound(*len, nrec));
		if (err)
			return err;
		*len = rc_shuffle__encode(*src, *len, w->enc.buf);
		*src = w->enc.buf;
		*codec = RC_CODEC_ZSTD_SHUFFLE;
		return 0;
	}
	err = rc_strbuf__reserve(&w->enc, rc_classes__bound(*len, nrec));
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
 * @len bytes of records, shuffled unless stored or not worth it (*@codec
 * says how), as one zstd frame in w->zbuf of *@csize bytes.
 */
static int frame_chunk(struct rc_writer *w, const void *src, size_t len, uint32_t nrec,
		       size_t *csize, uint32_t *codec)
{
	size_t bound;
	int err;

	*codec = RC_CODEC_ZSTD;
	w->zbuf.len = 0;
	if (w->store) {
		err = rc_strbuf__reserve(&w->zbuf, store_bound(len));
		if (!err)
			*csize = store_frame((unsigned char *)w->zbuf.buf, src, len);
		return err;
	}
	if (w->shuffle) {
		err = encode_chunk(w, &src, &len, nrec, codec);
		if (err)
			return err;
	}
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

	err = write_block(w, RC_BLOCK_CHUNK, dc, sizeof(*dc));
	err = err ?: write_all(w, data, dc->data_size);
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

/*
 * Compress a chunk of @nrec records from @first to @last and write it: what
 * w->raw holds, then @len bytes of held from @off. Straight from held when
 * that is all of it, as it is when records come in time order.
 */
static int write_chunk(struct rc_writer *w, size_t off, size_t len, uint32_t nrec, uint64_t first,
		       uint64_t last)
{
	const char *src = w->held.buf + off;
	struct rc_disk_chunk dc;
	uint32_t codec;
	size_t csize;
	int err;

	if (w->raw.len) {
		err = rc_strbuf__append(&w->raw, src, len);
		if (err)
			return err;
		src = w->raw.buf;
		len = w->raw.len;
	}
	err = frame_chunk(w, src, len, nrec, &csize, &codec);
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
	w->raw.len = 0;
	return 0;
}

int rc_writer__add(struct rc_writer *w, const void *recs, size_t len)
{
	uint64_t max_ts = w->max_ts;
	size_t pos = 0, nrefs = w->nrefs;
	struct rc_rec_hdr h;
	int err, r;

	if (w->err)
		return w->err;
	if (w->cut)
		return 0; /* not written: the reader counts them missing (cut short) */
	if (w->held.len + len > UINT32_MAX)
		return -E2BIG;
	/* room for as many records as headers fit in @len: one pass, taken back on a bad one */
	err = rc_ensure_arr(&w->refs, &w->refs_cap, nrefs + len / sizeof(h) + 1, 4096);
	err = err ?: rc_strbuf__reserve(&w->held, len);
	if (err)
		return err;
	while ((r = rc_rec__next(recs, len, &pos, &h)) > 0) {
		w->refs[nrefs++] = (struct rec_ref){ h.ts, w->held.len + pos - h.size, h.size };
		if (h.ts > max_ts)
			max_ts = h.ts;
	}
	if (r)
		return -EINVAL; /* a run of whole records or nothing of it */
	w->nrefs = nrefs;
	rc_strbuf__append(&w->held, recs, len); /* reserved above: cannot fail */
	w->max_ts = max_ts;
	/*
	 * Bound what is held: write what is ready once two chunks have come
	 * since the last flush, and at least as much as it carried over. Not
	 * once two are held: the reorder window can itself hold more (20 ms
	 * of a syscall storm is 4 MiB), and each flush copies the window
	 * over, so that a record is copied over once at most on average.
	 */
	if (w->held.len - w->kept >= 2 * w->chunk_size && w->held.len - w->kept >= w->kept)
		return rc_writer__flush(w, false);
	return 0;
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
	size_t i, k, nrec = 0, run_off = 0, run_len = 0;
	struct rc_strbuf tmp;
	int err;

	sort_refs(w->refs, w->nrefs, w->kept_refs);
	if (!all) {
		uint64_t top = now > w->max_ts ? now : w->max_ts;

		cutoff = top > w->reorder_ns ? top - w->reorder_ns : 0;
	}
	/*
	 * Records that sorting left where they were follow each other in
	 * held: take such a run in one go (write_chunk()).
	 */
	for (k = 0; k < w->nrefs && w->refs[k].ts <= cutoff; k++) {
		const struct rec_ref *r = &w->refs[k];

		if (w->wrote_any && r->ts < w->last_ts)
			w->tr.late++;
		else
			w->last_ts = r->ts;
		w->wrote_any = true;
		if (!nrec || r->ts < first)
			first = r->ts;
		if (r->ts > last)
			last = r->ts;
		if (run_len && r->off != run_off + run_len) {
			err = rc_strbuf__append(&w->raw, w->held.buf + run_off, run_len);
			if (err)
				return err;
			run_len = 0;
		}
		if (!run_len)
			run_off = r->off;
		run_len += r->size;
		nrec++;
		if (w->raw.len + run_len >= w->chunk_size) {
			err = write_chunk(w, run_off, run_len, nrec, first, last);
			if (err)
				return err;
			run_len = 0;
			nrec = 0;
			last = 0;
		}
	}
	err = nrec ? write_chunk(w, run_off, run_len, nrec, first, last) : 0;
	if (err)
		return err;
	/* keep the records not yet written, in their sorted order */
	w->spare.len = 0;
	for (i = k, run_len = 0; i < w->nrefs; i++) {
		struct rec_ref r = w->refs[i];

		if (run_len && r.off != run_off + run_len) {
			err = rc_strbuf__append(&w->spare, w->held.buf + run_off, run_len);
			if (err)
				return err;
			run_len = 0;
		}
		if (!run_len)
			run_off = r.off;
		r.off = w->spare.len + run_len;
		run_len += r.size;
		w->refs[i - k] = r;
	}
	err = run_len ? rc_strbuf__append(&w->spare, w->held.buf + run_off, run_len) : 0;
	if (err)
		return err;
	w->nrefs -= k;
	tmp = w->held;
	w->held = w->spare;
	w->spare = tmp;
	w->kept = w->held.len;
	w->kept_refs = w->nrefs;
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
	return write_block(w, RC_BLOCK_AUX, w->zbuf.buf, sizeof(da) + n);
}

int rc_writer__add_stacks(struct rc_writer *w, const void *payload, size_t len)
{
	if (w->cut)
		return 0;
	return write_block(w, RC_BLOCK_STACKS, payload, len);
}

int rc_writer__add_lines(struct rc_writer *w, const void *payload, size_t len)
{
	if (w->cut)
		return 0;
	return write_block(w, RC_BLOCK_LINES, payload, len);
}

void rc_writer__add_late(struct rc_writer *w, uint64_t n)
{
	w->tr.late += n;
}

/* A STATS or BASE payload: struct rc_disk_stats, then its entries. */
static int encode_stats(struct rc_strbuf *sb, const struct rc_stats *st)
{
	struct rc_disk_stats ds = {
		.ts = st->ts,
		.ring_size = st->ring_size,
		.ring_hwm = st->ring_hwm,
		.ring_pending = st->ring_pending,
		.user_dropped = st->user_dropped,
		.writer_wait_ns = st->writer_wait_ns,
		.nentries = st->nentries,
		.entry_size = sizeof(struct rc_disk_stat),
	};
	uint32_t i;
	int err;

	err = rc_strbuf__append(sb, &ds, sizeof(ds));
	for (i = 0; !err && i < st->nentries; i++) {
		const struct rc_stat_entry *e = &st->entries[i];
		struct rc_disk_stat de = { .cpu = e->cpu, .type = e->type };

#define COPY(name) de.name = e->name;
		RC_COUNTERS(COPY)
#undef COPY
		err = rc_strbuf__append(sb, &de, sizeof(de));
	}
	return err;
}

int rc_writer__add_stats(struct rc_writer *w, const struct rc_stats *st)
{
	struct rc_strbuf sb = {};
	int err, ferr;

	/* a cut while flushing, or while writing these: they are kept all the same */
	ferr = rc_writer__flush(w, false);
	if (ferr && !w->cut)
		return ferr;
	err = encode_stats(&sb, st);
	if (err) {
		rc_strbuf__free(&sb);
		return err;
	}
	if (sb.len > w->stats_room)
		w->stats_room = sb.len; /* reserve() takes it into account from here */
	if (!w->cut)
		err = write_block(w, RC_BLOCK_STATS, sb.buf, sb.len);
	if (w->cut) { /* kept for the file's end (rc_writer__finish()) */
		rc_strbuf__free(&w->cut_stats);
		w->cut_stats = sb;
		return ferr ?: err; /* the cut's error once, from the call it came in */
	}
	rc_strbuf__free(&sb);
	return err;
}

int rc_writer__add_base(struct rc_writer *w, const struct rc_stats *st)
{
	struct rc_strbuf sb = {};
	int err;

	if (w->err)
		return w->err;
	if (w->cut)
		return w->cut;
	if (w->offset != w->header_end || w->nrefs)
		return -EINVAL;
	err = encode_stats(&sb, st);
	err = err ?: write_block(w, RC_BLOCK_BASE, sb.buf, sb.len);
	rc_strbuf__free(&sb);
	return err;
}

/* The trailer, for the chunks written, and the end block. */
static int write_trailer(struct rc_writer *w)
{
	struct rc_disk_trailer dt;
	struct rc_strbuf sb = {};
	uint64_t trailer_off;
	uint32_t i;
	int err;

	dt = (struct rc_disk_trailer){ .nrec = w->tr.nrec,
				       .nchunks = w->tr.nchunks,
				       .first_ts = w->tr.first_ts,
				       .last_ts = w->tr.last_ts,
				       .raw_bytes = w->tr.raw_bytes,
				       .late = w->tr.late,
				       .nindex = w->tr.nindex };
	err = rc_strbuf__append(&sb, &dt, sizeof(dt));
	for (i = 0; !err && i < w->tr.nindex; i++) {
		const struct rc_chunk_index *ci = &w->tr.index[i];
		struct rc_disk_index di = { ci->offset, ci->first_ts, ci->last_ts, ci->nrec, 0 };

		err = rc_strbuf__append(&sb, &di, sizeof(di));
	}
	trailer_off = w->offset;
	err = err ?: write_block(w, RC_BLOCK_TRAILER, sb.buf, sb.len);
	err = err ?: write_block(w, RC_BLOCK_END, &trailer_off, sizeof(trailer_off));
	rc_strbuf__free(&sb);
	return err;
}

/*
 * A cut writer's end: back to the end of its last complete block, the
 * newest counters there, the trailer and the end block, in the room
 * reserve() kept; what came after is cut off. When even that does not fit
 * (a file system that does not preallocate), the file ends at @good, cut
 * short.
 */
static int end_cut(struct rc_writer *w)
{
	int err = 0;

	w->cut = 0;
	w->can_cut = false; /* no more cutting: the end is written or not */
	if (lseek(w->fd, w->good, SEEK_SET) < 0)
		err = -errno;
	w->offset = w->good;
	if (!err && w->cut_stats.len)
		err = write_block(w, RC_BLOCK_STATS, w->cut_stats.buf, w->cut_stats.len);
	err = err ?: write_trailer(w);
	if (!err && ftruncate(w->fd, w->offset))
		err = -errno;
	if (err) {
		pr_warn("the capture's counters and trailer do not fit after its last chunk: %s\n",
			strerror(-err));
		if (ftruncate(w->fd, w->good))
			pr_warn("failed to cut the capture back: %s\n", strerror(errno));
		w->offset = w->good;
	}
	return err;
}

int rc_writer__finish(struct rc_writer *w)
{
	int err, cut_err = w->cut;

	if (w->err)
		return w->err;
	if (cut_err) {
		err = end_cut(w);
		w->cut = cut_err;    /* rc_writer__cut() still tells */
		w->err = -ECANCELED; /* ended: nothing more */
	} else {
		uint64_t good;

		err = rc_writer__flush(w, true);
		if (w->cut) /* cut while flushing */
			return rc_writer__finish(w);
		good = w->good;
		err = err ?: write_trailer(w);
		if (w->cut) { /* the end, from the last chunk again, in the room kept */
			w->good = good;
			return rc_writer__finish(w);
		}
	}
	release_room(w);
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
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	rc_strbuf__free(&w->held);
	rc_strbuf__free(&w->spare);
	rc_strbuf__free(&w->raw);
	rc_strbuf__free(&w->gather);
	rc_strbuf__free(&w->enc);
	rc_strbuf__free(&w->zbuf);
	rc_strbuf__free(&w->cut_stats);
	free(w->refs);
	free(w->tr.index);
	free(w);
}
