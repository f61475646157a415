// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FTRACE chunk encoder (ftpage.h, rc_ftenc__*): ranges of ftrace
 * events taken as they lie in the ring into EVENTS fragments, with the
 * TASKS of their threads and any RECORDS, fed to one zstd frame per chunk
 * (compressed, or stored blocks for --no-compress).
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>
#include "format/ftpage.h"
#include "format/ftpage_int.h"
#include "util/util.h"
#include "util/idmap.h"
#include "util/mem.h"

/*
 * A stored frame (no_compress), built as the fragments come: as writer.c's
 * store_frame(), RFC 8878 raw blocks with the content size and checksum
 * filled in at the end.
 */
#define ZSTD_MAGIC	 0xFD2FB528u
#define ZSTD_BLOCK_MAX	 (128u << 10)
#define ZSTD_FHD_STORED	 0xE4 /* 8-byte content size, single segment, content checksum */
#define ZSTD_FHD_FCS8	 0xC0 /* Frame_Content_Size_Flag 3: an 8-byte content size */
#define ZSTD_FHD_SEGMENT 0x20 /* Single_Segment_Flag */
#define ZSTD_BLOCK_LAST	 1u
#define STORED_HDR	 13 /* magic, descriptor, content size */
#define FCS_ROOM	 8  /* compressed: room kept ahead of the frame for its content size */

struct rc_ftenc {
	ZSTD_CCtx *cctx;    /* NULL: stored */
	XXH64_state_t *xxh; /* stored: the content's checksum */
	rc_ft_task_fn task_fn;
	void *task_ctx;
	int err; /* the error that lost the chunk being built */

	struct rc_strbuf frame; /* the chunk's frame; compressed: from FCS_ROOM */
	size_t data_off;	/* where the ended frame starts in frame.buf */
	size_t blk;		/* stored: the open block's header in frame, 0: none */
	uint32_t blk_len;

	uint64_t content; /* bytes of fragments so far: the frame's content size */
	size_t raw;	  /* bytes of the records they decode to */
	uint32_t nrec;
	uint64_t first_ts, last_ts;

	struct rc_idmap seen; /* the tids of this chunk */
	uint32_t *fresh; /* the tids this take saw first */
	size_t nfresh, fresh_cap;
	struct rc_strbuf tasks; /* this take's TASKS entries */

	const struct rc_ft_idmap *ids; /* events of other ids are skipped; NULL: none is */
	uint64_t skipped;
};

struct rc_ftenc *rc_ftenc__new(int level, bool no_compress, rc_ft_task_fn fn, void *ctx)
{
	struct rc_ftenc *e = calloc(1, sizeof(*e));
	size_t r;

	if (!e)
		return rc_err_ptr(-ENOMEM);
	e->task_fn = fn;
	e->task_ctx = ctx;
	if (no_compress) {
		e->xxh = XXH64_createState();
		if (!e->xxh)
			goto err_nomem;
		return e;
	}
	e->cctx = ZSTD_createCCtx();
	if (!e->cctx)
		goto err_nomem;
	r = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, level ? level : 1);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_checksumFlag, 1);
	if (ZSTD_isError(r)) {
		pr_warn("zstd: %s\n", ZSTD_getErrorName(r));
		rc_ftenc__free(e);
		return rc_err_ptr(-EINVAL);
	}
	return e;

err_nomem:
	rc_ftenc__free(e);
	return rc_err_ptr(-ENOMEM);
}

void rc_ftenc__free(struct rc_ftenc *e)
{
	if (!e)
		return;
	ZSTD_freeCCtx(e->cctx);
	XXH64_freeState(e->xxh);
	rc_strbuf__free(&e->frame);
	rc_strbuf__free(&e->tasks);
	rc_idmap__free(&e->seen);
	free(e->fresh);
	free(e);
}

uint32_t rc_ftenc__nrec(const struct rc_ftenc *e)
{
	return e->nrec;
}

size_t rc_ftenc__raw_size(const struct rc_ftenc *e)
{
	return e->raw;
}

static int lose(struct rc_ftenc *e, int err)
{
	e->err = err;
	return err;
}

/* Empty again, for the next chunk (the ended frame stays until then). */
static void reset(struct rc_ftenc *e)
{
	if (e->cctx && (e->err || e->content))
		ZSTD_CCtx_reset(e->cctx, ZSTD_reset_session_only);
	e->err = 0;
	e->content = 0;
	e->raw = 0;
	e->nrec = 0;
	e->first_ts = e->last_ts = 0;
	e->blk = 0;
	e->blk_len = 0;
	rc_idmap__clear(&e->seen);
}

static void set_block_header(struct rc_ftenc *e, bool last)
{
	uint32_t bh = e->blk_len << 3 | (last ? ZSTD_BLOCK_LAST : 0);
	unsigned char *p = (unsigned char *)e->frame.buf + e->blk;

	p[0] = bh;
	p[1] = bh >> 8;
	p[2] = bh >> 16;
}

static int store_feed(struct rc_ftenc *e, const unsigned char *p, size_t n)
{
	int err;

	if (XXH64_update(e->xxh, p, n) == XXH_ERROR)
		return -EIO;
	while (n) {
		size_t k;

		if (!e->blk || e->blk_len == ZSTD_BLOCK_MAX) {
			err = rc_strbuf__append(&e->frame, "\0\0\0", 3);
			if (err)
				return err;
			e->blk = e->frame.len - 3;
			e->blk_len = 0;
		}
		k = ZSTD_BLOCK_MAX - e->blk_len < n ? ZSTD_BLOCK_MAX - e->blk_len : n;
		err = rc_strbuf__append(&e->frame, p, k);
		if (err)
			return err;
		e->blk_len += k;
		set_block_header(e, false);
		p += k;
		n -= k;
	}
	return 0;
}

static int zstd_feed(struct rc_ftenc *e, const void *p, size_t n, ZSTD_EndDirective op)
{
	ZSTD_inBuffer in = { p, n, 0 };
	size_t left;

	do {
		size_t room = ZSTD_CStreamOutSize();
		ZSTD_outBuffer out;
		int err = rc_strbuf__reserve(&e->frame, room);

		if (err)
			return err;
		out = (ZSTD_outBuffer){ e->frame.buf + e->frame.len, room, 0 };
		left = ZSTD_compressStream2(e->cctx, &out, &in, op);
		if (ZSTD_isError(left)) {
			pr_warn("zstd: %s\n", ZSTD_getErrorName(left));
			return -EIO;
		}
		e->frame.len += out.pos;
	} while (op == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

/* Start the chunk's frame, before its first fragment. */
static int begin_frame(struct rc_ftenc *e)
{
	static const unsigned char room[STORED_HDR];
	unsigned char *p;
	int i;

	e->frame.len = 0;
	if (e->cctx)
		return rc_strbuf__append(&e->frame, room, FCS_ROOM);
	if (XXH64_reset(e->xxh, 0) == XXH_ERROR || rc_strbuf__append(&e->frame, room, STORED_HDR))
		return -ENOMEM;
	p = (unsigned char *)e->frame.buf;
	for (i = 0; i < 4; i++)
		p[i] = ZSTD_MAGIC >> 8 * i;
	p[4] = ZSTD_FHD_STORED;
	return 0;
}

/* @n bytes of content; any failure loses the chunk. */
static int feed(struct rc_ftenc *e, const void *p, size_t n)
{
	int err = 0;

	if (!e->content && n)
		err = begin_frame(e);
	if (!err && n)
		err = e->cctx ? zstd_feed(e, p, n, ZSTD_e_continue) : store_feed(e, p, n);
	if (err)
		return lose(e, err);
	e->content += n;
	return 0;
}

static int put_frag(struct rc_ftenc *e, uint16_t kind, uint16_t cpu, const void *data, uint32_t len,
		    uint64_t ts)
{
	static const unsigned char zeros[8];
	struct rc_disk_frag f = { .kind = kind, .cpu = cpu, .len = len, .ts = ts };

	return feed(e, &f, sizeof(f)) ?: feed(e, data, len) ?: feed(e, zeros, round8(len) - len);
}

/* Note @tid as seen in this chunk and first seen in this take. */
static int seen_add(struct rc_ftenc *e, uint32_t tid)
{
	int err;

	err = rc_ensure_arr(&e->fresh, &e->fresh_cap, e->nfresh + 1, 64);
	if (err)
		return err;
	if (!rc_idmap__get(&e->seen, tid, NULL))
		return -ENOMEM;
	e->fresh[e->nfresh++] = tid;
	return 0;
}

/* The TASKS fragment of the tids this take saw first, those the task function knows. */
static int put_tasks(struct rc_ftenc *e)
{
	size_t i;
	int err;

	e->tasks.len = 0;
	for (i = 0; i < e->nfresh; i++) {
		struct rc_disk_task t = { .tid = e->fresh[i], .tgid = e->fresh[i] };

		if (!e->task_fn || e->task_fn(e->task_ctx, e->fresh[i], &t) < 0)
			continue;
		t.tid = e->fresh[i];
		err = rc_strbuf__append(&e->tasks, &t, sizeof(t));
		if (err)
			return lose(e, err);
	}
	if (!e->tasks.len)
		return 0;
	return put_frag(e, RC_FRAG_TASKS, 0, e->tasks.buf, e->tasks.len, 0);
}

/* The time range of @n more records, the earliest @first and the latest @last. */
static void count_records(struct rc_ftenc *e, uint32_t n, uint64_t first, uint64_t last)
{
	if (!e->nrec || first < e->first_ts)
		e->first_ts = first;
	if (!e->nrec || last > e->last_ts)
		e->last_ts = last;
	e->nrec += n;
}

/*
 * Would the chunk still fit with one more data event (of @rec decoded
 * bytes, @fresh a tid not seen yet) in an EVENTS fragment of @span bytes?
 */
static bool event_fits(const struct rc_ftenc *e, size_t raw, uint64_t rec, uint64_t span,
		       bool fresh)
{
	uint64_t ntasks = e->nfresh + fresh;
	uint64_t content = e->content + FRAG_HDR + round8(span);

	if (ntasks)
		content += FRAG_HDR + ntasks * sizeof(struct rc_disk_task);
	return raw + rec <= RC_MAX_CHUNK_RAW && content <= RC_MAX_CHUNK_RAW;
}

void rc_ftenc__set_ids(struct rc_ftenc *e, const struct rc_ft_idmap *ids)
{
	e->ids = ids;
}

uint64_t rc_ftenc__skipped(const struct rc_ftenc *e)
{
	return e->skipped;
}

/* An event of an id the capture does not describe (a trace_marker write). */
static bool foreign(const struct rc_ftenc *e, const struct rc_ft_event *ev)
{
	return e->ids && !rc_ft_idmap__lookup(e->ids, ev->data[0] | ev->data[1] << 8);
}

long rc_ftenc__take(struct rc_ftenc *e, uint16_t cpu, struct rc_ft_cursor *c, uint64_t until)
{
	struct rc_ft_cursor w = *c, took = *c;
	uint64_t first = 0, last = 0;
	size_t raw = e->raw;
	struct rc_ft_event ev;
	bool stop = false;
	uint32_t n = 0;
	int ret, err;

	if (e->err)
		return e->err;
	e->nfresh = 0;
	while ((ret = rc_ft_next(&w, &ev)) > 0) {
		uint64_t rec = REC_HDR + round8(ev.len);
		uint32_t tid = get_u32(ev.data + 4);
		bool fresh = !rc_idmap__find(&e->seen, tid);

		if (rec > RC_REC_MAX) {
			ret = -EBADMSG; /* no record can hold it */
			break;
		}
		if (foreign(e, &ev) && ev.ts <= until) {
			if (n) { /* the fragment ends before it; the next take skips it */
				stop = true;
				break;
			}
			*c = took = w;
			e->skipped++;
			continue;
		}
		if (ev.ts > until || !event_fits(e, raw, rec, w.pos - c->pos, fresh))
			break;
		if (fresh) {
			ret = seen_add(e, tid);
			if (ret)
				break;
		}
		if (!n || ev.ts < first)
			first = ev.ts;
		if (!n || ev.ts > last)
			last = ev.ts;
		raw += rec;
		took = w;
		n++;
	}
	if (n) {
		err = put_frag(e, RC_FRAG_EVENTS, cpu, c->buf + c->pos, took.pos - c->pos, c->ts);
		err = err ?: put_tasks(e);
		if (err)
			return err;
		count_records(e, n, first, last);
		e->raw = raw;
	}
	*c = ret || stop ? took : w; /* every data event taken: on to the end */
	return ret < 0 ? ret : (long)n;
}

/* A run of whole records: their count and time range; -EINVAL if not whole. */
static int scan_records(const unsigned char *p, size_t len, uint32_t *n, uint64_t *first,
			uint64_t *last)
{
	struct rc_rec_hdr h;
	size_t pos = 0;
	int r;

	*n = 0;
	while ((r = rc_rec__next(p, len, &pos, &h)) > 0) {
		if (!*n || h.ts < *first)
			*first = h.ts;
		if (!*n || h.ts > *last)
			*last = h.ts;
		(*n)++;
	}
	return r ? -EINVAL : 0;
}

int rc_ftenc__records(struct rc_ftenc *e, const void *recs, uint32_t len)
{
	uint64_t first = 0, last = 0;
	uint32_t n;
	int err;

	if (e->err)
		return e->err;
	err = scan_records(recs, len, &n, &first, &last);
	if (err || !n)
		return err;
	if (e->raw + len > RC_MAX_CHUNK_RAW || e->content + FRAG_HDR + len > RC_MAX_CHUNK_RAW)
		return -E2BIG;
	err = put_frag(e, RC_FRAG_RECORDS, 0, recs, len, 0);
	if (err)
		return err;
	count_records(e, n, first, last);
	e->raw += len;
	return 0;
}

/*
 * Give the compressed frame its content size. zstd streams a frame of
 * unknown size: a header of magic, descriptor, window descriptor and
 * dictionary id, no content size. The descriptor is set to say an 8-byte
 * content size follows, and the header is moved back into the room kept
 * ahead of it to make that room (RFC 8878 3.1.1.1).
 */
static int set_content_size(struct rc_ftenc *e)
{
	static const unsigned char did_len[4] = { 0, 1, 2, 4 };
	unsigned char *f = (unsigned char *)e->frame.buf + FCS_ROOM, *p;
	size_t n = e->frame.len - FCS_ROOM, hlen;
	int i;

	if (n < 6 || get_u32(f) != ZSTD_MAGIC)
		return -EIO;
	if (f[4] & (ZSTD_FHD_FCS8 | ZSTD_FHD_SEGMENT)) {
		/* a size already: the one it must be */
		if (ZSTD_getFrameContentSize(f, n) != e->content)
			return -EIO;
		e->data_off = FCS_ROOM;
		return 0;
	}
	hlen = 4 + 1 + 1 + did_len[f[4] & 3];
	if (n < hlen)
		return -EIO;
	p = (unsigned char *)e->frame.buf;
	memmove(p, f, hlen);
	p[4] |= ZSTD_FHD_FCS8;
	for (i = 0; i < 8; i++)
		p[hlen + i] = e->content >> 8 * i;
	e->data_off = 0;
	return 0;
}

static int end_frame(struct rc_ftenc *e)
{
	unsigned char *p, sum[4];
	uint64_t h;
	int i, err;

	if (e->cctx) {
		err = zstd_feed(e, NULL, 0, ZSTD_e_end);
		return err ?: set_content_size(e);
	}
	if (!e->blk) {
		err = rc_strbuf__append(&e->frame, "\0\0\0", 3);
		if (err)
			return err;
		e->blk = e->frame.len - 3;
	}
	set_block_header(e, true);
	h = XXH64_digest(e->xxh);
	for (i = 0; i < 4; i++) /* the low 32 bits of XXH64, seed 0 */
		sum[i] = h >> 8 * i;
	err = rc_strbuf__append(&e->frame, sum, sizeof(sum));
	if (err)
		return err;
	p = (unsigned char *)e->frame.buf;
	for (i = 0; i < 8; i++)
		p[5 + i] = e->content >> 8 * i;
	e->data_off = 0;
	return 0;
}

int rc_ftenc__end(struct rc_ftenc *e, struct rc_disk_chunk *dc, const void **data)
{
	int err = e->err;

	if (!err && !e->nrec)
		err = -ENODATA;
	err = err ?: end_frame(e);
	if (!err && e->frame.len - e->data_off > RC_MAX_CHUNK_DATA)
		err = -EIO; /* never: zstd's bound is well below */
	if (!err) {
		*dc = (struct rc_disk_chunk){ .codec = RC_CODEC_FTRACE,
					      .nrec = e->nrec,
					      .first_ts = e->first_ts,
					      .last_ts = e->last_ts,
					      .raw_size = e->raw,
					      .data_size = e->frame.len - e->data_off };
		*data = e->frame.buf + e->data_off;
	}
	reset(e);
	return err;
}
