// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture reader's block parsers (reader.c reads the blocks): a chunk
 * checked, decompressed (an FTRACE chunk: decoded, ftpage.h) and its
 * records checked against the schema; STACKS, LINES, AUX, STATS and BASE
 * blocks; the trailer, and its index for rc_reader__set_range() and
 * rc_reader__span(). A block whose content does not check is passed over
 * and counted as lost (resync.h).
 */
#include <stdlib.h>
#include <string.h>
#include "format/auxblk.h"
#include "format/reader_int.h"
#include "format/shuffle.h"
#include "util/mem.h"
#include "util/util.h"

/* A chunk's data or records do not check: -EBADMSG, and why in d->why. */
static int bad_chunk(struct rc_inflater *d, const char *why)
{
	d->why = why;
	return -EBADMSG;
}

/* Check every record of the chunk now in d->raw against the schema. */
static int check_records(struct rc_inflater *d, const struct rc_parsed_header *hdr,
			 const struct rc_disk_chunk *dc)
{
	struct rc_rec_hdr h;
	size_t pos = 0, n = 0;
	int got;

	while ((got = rc_rec__next(d->raw.buf, d->raw.len, &pos, &h)) > 0) {
		const struct rc_event_desc *ev;
		uint16_t idx;

		idx = h.type <= RC_MAX_EVENT_ID ? hdr->by_id[h.type] : 0;
		if (!idx)
			return bad_chunk(d, "record of an event type the header does not describe");
		ev = &hdr->schema.events[idx - 1];
		if (h.size < ev->size)
			return bad_chunk(d, "record shorter than its event");
		if (h.ts < dc->first_ts || h.ts > dc->last_ts)
			return bad_chunk(d, "record time outside its chunk's range");
		if (h.cpu >= hdr->meta.ncpus)
			return bad_chunk(d, "record of a CPU beyond the capture's count");
		n++;
	}
	if (got == -EBADMSG)
		return bad_chunk(d, "chunk ends inside a record header");
	if (got)
		return bad_chunk(d, "record size out of range");
	if (n != dc->nrec)
		return bad_chunk(d, "chunk record count mismatch");
	return 0;
}

/*
 * The frame content size a chunk of @dc's codec may have: exactly its raw
 * size unshuffled; shuffled, 8 bytes a run more, one run at least; by
 * class, 4 bytes, a byte a record and 8 a class more, one class at least.
 */
static bool frame_size_fits(const struct rc_disk_chunk *dc, unsigned long long fcs)
{
	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR)
		return false;
	switch (dc->codec) {
	case RC_CODEC_ZSTD_SHUFFLE:
		return fcs >= dc->raw_size + RC_SHUFFLE_RUN_HDR &&
		       fcs <= rc_shuffle__bound(dc->raw_size, dc->nrec);
	case RC_CODEC_ZSTD_CLASSES:
		return fcs >= 12ull + dc->nrec + dc->raw_size &&
		       fcs <= rc_classes__bound(dc->raw_size, dc->nrec);
	default:
		return fcs == dc->raw_size;
	}
}

/*
 * Decompress the chunk's frame at @data into d->raw: directly, or for a
 * shuffled chunk through d->enc (and by class, d->gather), whose size is
 * checked first (frame_size_fits()).
 */
static int inflate_chunk(struct rc_inflater *d, const void *data, const struct rc_disk_chunk *dc)
{
	bool plain = dc->codec == RC_CODEC_ZSTD;
	unsigned long long fcs = ZSTD_getFrameContentSize(data, dc->data_size);
	struct rc_strbuf *dst = plain ? &d->raw : &d->enc;
	const char *why = NULL;
	size_t n;
	int err;

	if (!frame_size_fits(dc, fcs))
		return bad_chunk(d, "chunk frame size differs from its header");
	if (ZSTD_findFrameCompressedSize(data, dc->data_size) != dc->data_size)
		return bad_chunk(d, "chunk data is not one zstd frame");
	dst->len = 0;
	err = rc_strbuf__reserve(dst, fcs);
	if (err)
		return err;
	n = ZSTD_decompressDCtx(d->dctx, dst->buf, fcs, data, dc->data_size);
	if (ZSTD_isError(n) || n != fcs)
		return bad_chunk(d, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short chunk");
	if (plain) {
		d->raw.len = n;
		return 0;
	}
	d->raw.len = 0;
	err = rc_strbuf__reserve(&d->raw, dc->raw_size);
	if (!err && dc->codec == RC_CODEC_ZSTD_CLASSES)
		err = rc_strbuf__reserve(&d->gather, dc->raw_size);
	if (err)
		return err;
	if (dc->codec == RC_CODEC_ZSTD_SHUFFLE ?
		    rc_shuffle__decode(d->enc.buf, n, d->raw.buf, dc->raw_size, dc->nrec, &why) :
		    rc_classes__decode(d->enc.buf, n, d->raw.buf, dc->raw_size, dc->nrec,
				       d->gather.buf, &why))
		return bad_chunk(d, why);
	d->raw.len = dc->raw_size;
	return 0;
}

/*
 * Decompress an FTRACE chunk's fragments into d->enc and decode them into
 * d->raw: the records its header counts, of the size it says.
 */
static int inflate_ftrace(struct rc_inflater *d, const struct rc_parsed_header *hdr,
			  const void *data, const struct rc_disk_chunk *dc)
{
	unsigned long long fcs = ZSTD_getFrameContentSize(data, dc->data_size);
	const char *why = "malformed ftrace chunk";
	uint32_t nrec = 0;
	size_t n;
	int err;

	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR ||
	    fcs > RC_MAX_CHUNK_RAW)
		return bad_chunk(d, "chunk frame size out of range");
	if (ZSTD_findFrameCompressedSize(data, dc->data_size) != dc->data_size)
		return bad_chunk(d, "chunk data is not one zstd frame");
	d->enc.len = 0;
	err = rc_strbuf__reserve(&d->enc, fcs);
	if (err)
		return err;
	n = ZSTD_decompressDCtx(d->dctx, d->enc.buf, fcs, data, dc->data_size);
	if (ZSTD_isError(n) || n != fcs)
		return bad_chunk(d, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short chunk");
	err = rc_ftdec__chunk(d->enc.buf, n, &hdr->ft_ids, hdr->meta.ncpus, &d->raw, &nrec, &why);
	if (err)
		return err == -EBADMSG ? bad_chunk(d, why) : err;
	if (d->raw.len != dc->raw_size || nrec != dc->nrec) {
		d->raw.len = 0;
		return bad_chunk(d, "ftrace chunk decodes to other records than it says");
	}
	return 0;
}

/*
 * A chunk's data at @data into d->raw, every record checked: 0; -EBADMSG
 * with why in d->why, d->raw emptied; or -ENOMEM. Reads only @hdr.
 */
static int inflate_check(struct rc_inflater *d, const struct rc_parsed_header *hdr,
			 const void *data, const struct rc_disk_chunk *dc)
{
	int err;

	d->raw.len = 0;
	if (dc->codec == RC_CODEC_FTRACE)
		err = inflate_ftrace(d, hdr, data, dc);
	else
		err = inflate_chunk(d, data, dc);
	err = err ?: check_records(d, hdr, dc);
	if (err)
		d->raw.len = 0;
	return err;
}

int rc_rd__inflater_init(struct rc_inflater *d)
{
	*d = (struct rc_inflater){};
	d->dctx = ZSTD_createDCtx();
	if (!d->dctx)
		return -ENOMEM;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* ZSTD_d_forceIgnoreChecksum: let mutated records reach the record checks */
	ZSTD_DCtx_setParameter(d->dctx, ZSTD_d_experimentalParam3, 1);
#endif
	return 0;
}

void rc_rd__inflater_fini(struct rc_inflater *d)
{
	ZSTD_freeDCtx(d->dctx);
	rc_strbuf__free(&d->enc);
	rc_strbuf__free(&d->gather);
	rc_strbuf__free(&d->raw);
}

/* A chunk lost, its data passed over: the stretch from its block @off to @end. */
static int chunk_lost(struct rc_reader *r, uint64_t off, uint64_t end, const char *why,
		      uint64_t nrec)
{
	r->dec.raw.len = 0;
	return rc_damage_log__add(&r->dmg, off, end, why, RC_RESYNCED, 1, nrec);
}

/* A chunk whose header does not check, but for the size of its data: pass over that. */
static int skip_bad_chunk(struct rc_reader *r, uint64_t off, const struct rc_disk_chunk *dc,
			  const char *why, uint64_t nrec)
{
	int err;

	if (rc_input__skip(&r->in, dc->data_size)) {
		r->dec.raw.len = 0;
		return rc_rd__damage(r, off, r->in.offset, why, RC_RESYNCED, 1, nrec);
	}
	err = rc_rd__damage(r, off, r->in.offset, why, RC_NO_RESYNC, 1, nrec);
	return err ?: rc_rd__end_of_file(r);
}

int rc_rd__chunk_header(struct rc_reader *r, uint64_t off, struct rc_disk_chunk *dc)
{
	if (r->payload.len < sizeof(*dc))
		return rc_rd__resync(r, off, "chunk header too short", 1, 0);
	memcpy(dc, r->payload.buf, sizeof(*dc));
	if (dc->raw_size > RC_MAX_CHUNK_RAW || dc->data_size > RC_MAX_CHUNK_DATA || !dc->data_size)
		return rc_rd__resync(r, off, "chunk size out of range", 1, 0);
	if (dc->first_ts > dc->last_ts || !dc->nrec ||
	    dc->nrec > dc->raw_size / sizeof(struct rc_rec_hdr))
		return skip_bad_chunk(r, off, dc, "chunk header inconsistent", 0);
	if (dc->codec != RC_CODEC_ZSTD && dc->codec != RC_CODEC_ZSTD_SHUFFLE &&
	    dc->codec != RC_CODEC_FTRACE && dc->codec != RC_CODEC_ZSTD_CLASSES)
		return skip_bad_chunk(r, off, dc, "chunk compressed with an unknown codec",
				      dc->nrec);
	/*
	 * Outside the range: passed over without decompressing. Not a stop at
	 * the first chunk past @until: a record written late (counted in the
	 * trailer) can sit in a later chunk and still be in range.
	 */
	if (dc->first_ts > r->until || dc->last_ts < r->since) {
		r->skipped = true;
		return rc_input__skip(&r->in, dc->data_size) ? 0 : rc_rd__end_of_file(r);
	}
	return 1;
}

/*
 * The chunk whose block starts at @off: check its header, read its data,
 * decompress, check every record. A chunk that does not check is passed
 * over, and counted as lost: its data when its size can be trusted, else
 * up to the next good block.
 */
int rc_rd__load_chunk(struct rc_reader *r, uint64_t off)
{
	struct rc_disk_chunk dc;
	int err;

	err = rc_rd__chunk_header(r, off, &dc);
	if (err <= 0)
		return err;
	r->data.len = 0;
	err = rc_strbuf__reserve(&r->data, dc.data_size);
	if (err)
		return err;
	if (rc_rd__read_some(r, r->data.buf, dc.data_size) < dc.data_size)
		return rc_rd__end_of_file(r);
	r->raw_pos = 0;
	err = inflate_check(&r->dec, &r->hdr, r->data.buf, &dc);
	if (err == -EBADMSG)
		return chunk_lost(r, off, r->in.offset, r->dec.why, dc.nrec);
	if (err)
		return err;
	r->nchunks++;
	r->raw_bytes += r->dec.raw.len;
	if (r->chunk_fn)
		r->chunk_fn(r->chunk_ctx, r, dc.nrec);
	return 0;
}

/* ---- chunks decompressed elsewhere (rc_reader__next_chunk()) ----------- */

struct rc_inflater *rc_inflater__new(void)
{
	struct rc_inflater *d = malloc(sizeof(*d));

	if (!d || rc_rd__inflater_init(d)) {
		free(d);
		return rc_err_ptr(-ENOMEM);
	}
	return d;
}

void rc_inflater__free(struct rc_inflater *d)
{
	if (!d)
		return;
	rc_rd__inflater_fini(d);
	free(d);
}

int rc_inflater__run(struct rc_inflater *d, const struct rc_reader *r,
		     const struct rc_packed_chunk *c, const void **raw, size_t *len,
		     const char **why)
{
	struct rc_disk_chunk dc = { .codec = c->codec,
				    .nrec = c->nrec,
				    .first_ts = c->first_ts,
				    .last_ts = c->last_ts,
				    .raw_size = c->raw_size,
				    .data_size = c->data_size };
	int err = inflate_check(d, &r->hdr, c->data.buf, &dc);

	*why = err == -EBADMSG ? d->why : NULL;
	*raw = d->raw.buf;
	*len = d->raw.len;
	return err;
}

int rc_reader__settle(struct rc_reader *r, const struct rc_packed_chunk *c, bool good,
		      const char *why, uint64_t last_ts)
{
	int err = 0;

	r->unsettled--;
	r->settled++;
	if (!good) {
		err = chunk_lost(r, c->off, c->end, why, c->nrec);
	} else {
		r->nchunks++;
		r->nrec += c->nrec;
		r->raw_bytes += c->raw_size;
		r->last_ts = last_ts > r->last_ts ? last_ts : r->last_ts;
		if (r->chunk_fn)
			r->chunk_fn(r->chunk_ctx, r, c->nrec);
	}
	return err ?: rc_rd__flush_deferred(r);
}

static int add_point(struct rc_reader *r, const struct rc_stats *st)
{
	int err = rc_ensure_arr(&r->hist, &r->hist_cap, r->nhist + 1, 64);

	if (err)
		return err;
	rc_stats__totals(st, &r->hist[r->nhist++]);
	return 0;
}

/* A good block whose content does not check: passed over, and nothing else lost. */
static int block_lost(struct rc_reader *r, uint64_t off, const char *why)
{
	return rc_rd__damage(r, off, r->in.offset, why, RC_RESYNCED, 0, 0);
}

int rc_rd__load_stacks(struct rc_reader *r, uint64_t off)
{
	const char *why = NULL;
	int err = rc_stacktab__add_block(&r->stacks, r->payload.buf, r->payload.len, &why);

	return err == -EBADMSG ? block_lost(r, off, why) : err;
}

/* An AUX block: checked, decompressed into r->dec.raw's spare buffer, to the callback. */
int rc_rd__load_aux(struct rc_reader *r, uint64_t off)
{
	struct rc_aux_chunk ac;
	const char *why;
	int err;

	if (!r->aux_fn)
		return 0;
	err = rc_aux_block__decode(r->payload.buf, r->payload.len, r->dec.dctx, &r->dec.enc, &ac, &why);
	if (err == -EBADMSG)
		return block_lost(r, off, why); /* as a bad STACKS block: the reading goes on */
	if (err)
		return err;
	return r->aux_fn(r->aux_ctx, &ac);
}

void rc_reader__on_aux(struct rc_reader *r, rc_aux_fn fn, void *ctx)
{
	r->aux_fn = fn;
	r->aux_ctx = ctx;
}

void rc_reader__on_chunk(struct rc_reader *r, rc_chunk_fn fn, void *ctx)
{
	r->chunk_fn = fn;
	r->chunk_ctx = ctx;
}

int rc_rd__load_lines(struct rc_reader *r, uint64_t off)
{
	const char *why = NULL;
	int err = rc_stacktab__add_lines(&r->stacks, r->payload.buf, r->payload.len, &why);

	return err == -EBADMSG ? block_lost(r, off, why) : err;
}

int rc_rd__load_buildids(struct rc_reader *r, uint64_t off)
{
	const char *why = NULL;
	int err = rc_stacktab__add_buildids(&r->stacks, r->payload.buf, r->payload.len, &why);

	return err == -EBADMSG ? block_lost(r, off, why) : err;
}

/*
 * A STATS or BASE payload into *@st (its entries allocated): NULL, or why
 * it does not check (-EBADMSG).
 */
static int parse_stats(const unsigned char *p, size_t len, struct rc_stats *st, const char **why)
{
	struct rc_stat_entry *entries;
	struct rc_disk_stats ds;
	uint32_t i;

	if (len < sizeof(ds)) {
		*why = "stats block too short";
		return -EBADMSG;
	}
	memcpy(&ds, p, sizeof(ds));
	if (ds.entry_size < RC_DISK_STAT_V1_0) {
		*why = "stats entry size too small";
		return -EBADMSG;
	}
	if (ds.nentries > (len - sizeof(ds)) / ds.entry_size) {
		*why = "stats count larger than its block";
		return -EBADMSG;
	}
	entries = calloc(ds.nentries ? ds.nentries : 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	for (i = 0; i < ds.nentries; i++) {
		struct rc_disk_stat de = {};

		/* an older file's entries are shorter: what they lack stays 0 */
		memcpy(&de, p + sizeof(ds) + (size_t)i * ds.entry_size,
		       ds.entry_size < sizeof(de) ? ds.entry_size : sizeof(de));
		entries[i] = (struct rc_stat_entry){ .cpu = de.cpu, .type = de.type };
#define COPY(name) entries[i].name = de.name;
		RC_COUNTERS(COPY)
#undef COPY
	}
	*st = (struct rc_stats){ .ts = ds.ts,
				 .ring_size = ds.ring_size,
				 .ring_hwm = ds.ring_hwm,
				 .ring_pending = ds.ring_pending,
				 .user_dropped = ds.user_dropped,
				 .writer_wait_ns = ds.writer_wait_ns,
				 .nentries = ds.nentries,
				 .entries = entries };
	return 0;
}

int rc_rd__load_stats(struct rc_reader *r, uint64_t off)
{
	const char *why = NULL;
	struct rc_stats st;
	int err;

	err = parse_stats((const unsigned char *)r->payload.buf, r->payload.len, &st, &why);
	if (err)
		return err == -EBADMSG ? block_lost(r, off, why) : err;
	free(r->stats.entries);
	r->stats = st;
	r->have_stats = true;
	return add_point(r, &r->stats);
}

/* A BASE block: the first one kept; one met again, or after a chunk, is passed over. */
int rc_rd__load_base(struct rc_reader *r, uint64_t off)
{
	const char *why = NULL;
	struct rc_stats st;
	int err;

	if (r->have_base || r->nchunks || r->have_stats)
		return 0;
	err = parse_stats((const unsigned char *)r->payload.buf, r->payload.len, &st, &why);
	if (err)
		return err == -EBADMSG ? block_lost(r, off, why) : err;
	r->base = st;
	r->have_base = true;
	return 0;
}

/*
 * The trailer: its index, and its totals checked against the chunks read
 * and those its index places in damaged stretches (counted exactly then).
 */
int rc_rd__load_trailer(struct rc_reader *r, uint64_t off)
{
	const unsigned char *p = (const unsigned char *)r->payload.buf;
	struct rc_chunk_index *index;
	struct rc_disk_trailer dt;
	const struct rc_damage *lost = &r->dmg.d;
	uint32_t i;

	if (r->have_trailer)
		return rc_rd__corrupt(r, off, "second trailer");
	if (r->payload.len < sizeof(dt))
		return rc_rd__corrupt(r, off, "trailer too short");
	memcpy(&dt, p, sizeof(dt));
	if (dt.nindex > (r->payload.len - sizeof(dt)) / sizeof(struct rc_disk_index))
		return rc_rd__corrupt(r, off, "trailer index larger than its block");
	index = calloc(dt.nindex ? dt.nindex : 1, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (i = 0; i < dt.nindex; i++) {
		struct rc_disk_index di;

		memcpy(&di, p + sizeof(dt) + (size_t)i * sizeof(di), sizeof(di));
		index[i] = (struct rc_chunk_index){ di.offset, di.first_ts, di.last_ts, di.nrec };
	}
	rc_damage_log__count_index(&r->dmg, index, dt.nindex);
	if ((!r->skipped &&
	     (dt.nrec != r->nrec + lost->records || dt.nchunks != r->nchunks + lost->chunks)) ||
	    dt.nindex != dt.nchunks) {
		free(index);
		return rc_rd__corrupt(r, off, "trailer totals differ from the chunks read");
	}
	r->trailer.index = index;
	r->trailer.nrec = dt.nrec;
	r->trailer.nchunks = dt.nchunks;
	r->trailer.first_ts = dt.first_ts;
	r->trailer.last_ts = dt.last_ts;
	r->trailer.raw_bytes = dt.raw_bytes;
	r->trailer.late = dt.late;
	r->trailer.nindex = dt.nindex;
	r->have_trailer = true;
	return 0;
}

/*
 * The trailer, read from the end of a seekable file or memory without
 * moving the reader: its payload checked (END block, lengths, CRC, index
 * count), in a buffer to free; NULL when there is none to trust.
 */
static unsigned char *tail_trailer(struct rc_reader *r, struct rc_disk_trailer *dt, uint64_t *at)
{
	uint32_t h[4];
	uint64_t size, toff;
	unsigned char *p;

	if (!rc_input__size(&r->in, &size))
		return NULL;
	/* END block: 16-byte block header, then the trailer's offset */
	if (size < 24 || !rc_input__read_at(&r->in, h, 16, size - 24) || h[0] != RC_FRAME_MAGIC ||
	    h[1] != 16 || h[2] != RC_BLOCK_END || !rc_input__read_at(&r->in, &toff, 8, size - 8) ||
	    rc_block_crc(RC_BLOCK_END, &toff, 8) != h[3] || toff < r->in.offset ||
	    toff > size - 24 - RC_BLOCK_HDR_SIZE)
		return NULL;
	if (!rc_input__read_at(&r->in, h, 16, toff) || h[0] != RC_FRAME_MAGIC ||
	    h[2] != RC_BLOCK_TRAILER || h[1] < 8 + sizeof(*dt) || h[1] - 8 > RC_MAX_TRAILER ||
	    toff + 8 + h[1] > size - 24)
		return NULL;
	p = malloc(h[1] - 8);
	if (!p)
		return NULL;
	if (rc_input__read_at(&r->in, p, h[1] - 8, toff + 16) &&
	    rc_block_crc(RC_BLOCK_TRAILER, p, h[1] - 8) == h[3]) {
		memcpy(dt, p, sizeof(*dt));
		if (dt->nindex <= (h[1] - 8 - sizeof(*dt)) / sizeof(struct rc_disk_index)) {
			*at = toff;
			return p;
		}
	}
	free(p);
	return NULL;
}

/* The file offset of the first chunk that ends at or after @ts, from the trailer. */
static uint64_t index_lookup(struct rc_reader *r, uint64_t ts)
{
	struct rc_disk_trailer dt;
	uint64_t toff, found = 0;
	unsigned char *p;
	uint32_t i;

	p = tail_trailer(r, &dt, &toff);
	if (!p)
		return 0;
	for (i = 0; i < dt.nindex; i++) {
		struct rc_disk_index di;

		memcpy(&di, p + sizeof(dt) + (size_t)i * sizeof(di), sizeof(di));
		if (di.last_ts >= ts) {
			found = di.offset;
			break;
		}
	}
	free(p);
	return found >= r->in.offset && found < toff ? found : 0;
}

bool rc_reader__span(struct rc_reader *r, uint64_t *first, uint64_t *last, uint64_t *nrec)
{
	struct rc_disk_trailer dt;
	unsigned char *p;
	uint64_t toff;

	if (r->have_trailer) {
		*first = r->trailer.first_ts;
		*last = r->trailer.last_ts;
		*nrec = r->trailer.nrec;
		return true;
	}
	if (r->nchunks || r->dec.raw.len || r->dmg.ns || r->skipped)
		return false; /* read from the tail only before reading on */
	p = tail_trailer(r, &dt, &toff);
	if (!p)
		return false;
	free(p);
	if (dt.nrec && dt.first_ts > dt.last_ts)
		return false; /* not a span: read the file, which checks its trailer */
	*first = dt.first_ts;
	*last = dt.last_ts;
	*nrec = dt.nrec;
	return true;
}

/* A STACKS, LINES or BUILDIDS payload of @len bytes, in r->payload, taken. */
static int take_defs(struct rc_reader *r, uint32_t type, size_t len, const char **why)
{
	if (type == RC_BLOCK_STACKS)
		return rc_stacktab__add_block(&r->stacks, r->payload.buf, len, why);
	if (type == RC_BLOCK_LINES)
		return rc_stacktab__add_lines(&r->stacks, r->payload.buf, len, why);
	return rc_stacktab__add_buildids(&r->stacks, r->payload.buf, len, why);
}

/*
 * Before skipping to @to: the definitions of the STACKS blocks in between,
 * which the records after @to may use. Block headers are read, and only
 * STACKS payloads; false when the blocks in between do not walk cleanly to
 * @to (then the reader reads them all, as without an index).
 */
static bool stacks_before(struct rc_reader *r, uint64_t to)
{
	uint64_t pos = r->in.offset;
	const char *why;
	uint32_t h[4];

	while (pos < to) {
		uint64_t next;

		if (to - pos < RC_BLOCK_HDR_SIZE || !rc_input__read_at(&r->in, h, sizeof(h), pos) ||
		    h[0] != RC_FRAME_MAGIC || h[1] < 8)
			return false;
		next = pos + 8 + h[1];
		if (h[2] == RC_BLOCK_CHUNK) {
			struct rc_disk_chunk dc;

			if (h[1] - 8 < sizeof(dc) ||
			    !rc_input__read_at(&r->in, &dc, sizeof(dc), pos + RC_BLOCK_HDR_SIZE))
				return false;
			next += dc.data_size;
		} else if (h[2] == RC_BLOCK_STACKS || h[2] == RC_BLOCK_LINES ||
			   h[2] == RC_BLOCK_BUILDIDS) {
			r->payload.len = 0;
			if (!rc_block__len_fits(h[2], h[1] - 8, false) ||
			    rc_strbuf__reserve(&r->payload, h[1] - 8) ||
			    !rc_input__read_at(&r->in, r->payload.buf, h[1] - 8, pos + RC_BLOCK_HDR_SIZE))
				return false;
			if (rc_block_crc(h[2], r->payload.buf, h[1] - 8) == h[3] &&
			    take_defs(r, h[2], h[1] - 8, &why) == -ENOMEM)
				return false;
		}
		if (next > to)
			return false;
		pos = next;
	}
	return true;
}

void rc_reader__set_range(struct rc_reader *r, uint64_t since, uint64_t until)
{
	uint64_t off;

	r->since = since;
	r->until = until;
	if (!since || r->nchunks || r->dec.raw.len || r->dmg.ns)
		return;
	off = index_lookup(r, since);
	if (off > r->in.offset && stacks_before(r, off) && rc_input__seek(&r->in, off))
		r->skipped = true;
}
