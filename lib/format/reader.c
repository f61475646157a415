// SPDX-License-Identifier: GPL-2.0-only
/*
 * Capture file reader. Reads blocks in file order from a descriptor (a
 * pipe is fine) or from memory, and hands out records one at a time.
 *
 * Nothing read from the file is trusted: every block is bounded and
 * CRC-checked, every chunk must decompress (an FTRACE chunk: decode,
 * ftpage.h) to exactly the size it claims (no larger than
 * RC_MAX_CHUNK_RAW), and every record of a chunk is checked against the
 * schema before the first one is handed out. A file that ends early is
 * truncated, not corrupt: its complete chunks are read. A block or chunk
 * that does not check is passed over: the reader goes on at the next good
 * block (resync.h), and counts what it lost.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "format/auxblk.h"
#include "format/header.h"
#include "format/input.h"
#include "format/resync.h"
#include "format/stacktab.h"
#include "format/shuffle.h"
#include "util/mem.h"
#include "format/stats.h"
#include "util/util.h"

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

static size_t read_some(struct rc_reader *r, void *buf, size_t n)
{
	return rc_input__read(&r->in, buf, n);
}

static int corrupt(struct rc_reader *r, uint64_t off, const char *what)
{
	snprintf(r->err, sizeof(r->err), "corrupt capture at byte %llu: %s",
		 (unsigned long long)off, what);
	return -EBADMSG;
}

/* The file ends before its END block: it was cut short. */
static int end_of_file(struct rc_reader *r)
{
	if (r->in.err) {
		snprintf(r->err, sizeof(r->err), "read failed: %s", strerror(-r->in.err));
		return -EIO;
	}
	r->at_end = true;
	r->truncated = true;
	return 0;
}

static int bad_block(struct rc_reader *r, const char *why)
{
	r->bad.why = why;
	return -EBADMSG;
}

/*
 * Read one block into r->payload. Returns 1 with *type set; 0 at the end
 * of the file, there or inside the block's 16-byte header; -EBADMSG for a
 * block that is not good, with r->bad saying what was read of it and why;
 * or -errno. A length its type cannot have is refused before its payload
 * is read, and a trailer's after its first 56 bytes (rc_trailer__fits()):
 * a bad header costs what a good block of its kind could.
 */
static int read_block(struct rc_reader *r, uint32_t *type)
{
	uint64_t off = r->in.offset;
	struct bad_block *b = &r->bad;
	struct rc_disk_trailer dt;
	uint32_t crc;
	size_t len, got;
	int err;

	*b = (struct bad_block){};
	r->payload.len = 0;
	b->hlen = read_some(r, b->h, RC_BLOCK_HDR_SIZE);
	if (b->hlen >= sizeof(b->h[0]) && b->h[0] != RC_FRAME_MAGIC)
		return bad_block(r, "bad block magic");
	if (b->hlen < RC_BLOCK_HDR_SIZE)
		return end_of_file(r);
	if (b->h[1] < 8 || !rc_block__len_fits(b->h[2], b->h[1] - 8, false))
		return bad_block(r, "block length out of range");
	len = b->h[1] - 8;
	if (b->h[2] == RC_BLOCK_TRAILER) {
		got = read_some(r, &dt, sizeof(dt));
		err = rc_strbuf__append(&r->payload, &dt, got);
		if (err)
			return err;
		if (got < sizeof(dt)) {
			b->cut = true;
			return bad_block(r, "block length past the end of the file");
		}
		if (!rc_trailer__fits(&dt, len, off))
			return bad_block(r, "trailer length differs from its index");
	}
	err = rc_strbuf__reserve(&r->payload, len - r->payload.len);
	if (err)
		return err;
	got = read_some(r, r->payload.buf + r->payload.len, len - r->payload.len);
	r->payload.len += got;
	if (r->payload.len < len) {
		b->cut = true;
		return bad_block(r, "block length past the end of the file");
	}
	crc = rc_block_crc(b->h[2], r->payload.buf, len);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	if (!rc_fuzz_check_crc)
		crc = b->h[3]; /* let mutations reach the parsers */
#endif
	if (crc != b->h[3])
		return bad_block(r, "block checksum mismatch");
	*type = b->h[2];
	return 1;
}

/* A trailer, by its type and a length of a trailer's shape, which no other block has. */
static bool bad_is_trailer(const struct bad_block *b)
{
	return b->hlen == RC_BLOCK_HDR_SIZE && b->h[0] == RC_FRAME_MAGIC &&
	       b->h[2] == RC_BLOCK_TRAILER && b->h[1] >= 8 &&
	       rc_block__len_fits(RC_BLOCK_TRAILER, b->h[1] - 8, false);
}

/*
 * Too much damage (rc_resync__budget()): the rest of the file, from @start
 * on, is passed over in one stretch; @at is where the reader stopped
 * looking. A pipe is read to its end, to count it.
 */
static int give_up(struct rc_reader *r, uint64_t start, uint64_t at, const char *why,
		   uint64_t chunks, uint64_t records)
{
	int err;

	r->dmg.d.gave_up = at;
	r->at_end = true;
	rc_input__skip_rest(&r->in);
	err = rc_damage_log__add(&r->dmg, start, r->in.offset, why, RC_GAVE_UP, chunks, records);
	return err ?: (r->in.err ? end_of_file(r) : 0);
}

/*
 * Scan for the next good block, and note the stretch passed over from
 * @start, for @why: it lost @chunks chunks of @records records.
 */
static int resync(struct rc_reader *r, uint64_t start, const char *why, uint64_t chunks,
		  uint64_t records)
{
	int found = rc_resync__scan(&r->in, &r->dmg.d.spent);

	if (found < 0)
		return found;
	if (found == RC_SCAN_GAVE_UP)
		return give_up(r, start, r->in.offset, why, chunks, records);
	if (r->in.err)
		return end_of_file(r);
	if (found == RC_SCAN_EOF)
		r->at_end = r->truncated = true;
	return rc_damage_log__add(&r->dmg, start, r->in.offset, why,
				  found ? RC_RESYNCED : RC_NO_RESYNC, chunks, records);
}

/*
 * Pass over the bad block that starts at @start (r->bad): scan for the
 * next good one from the byte after its start, in what was read of it and
 * on. A trailer is not scanned: it is read as none, and ends the read, as
 * anything bad after the trailer does, where only the END block is left.
 * What was read of the block counts against the budget: past it, the
 * reader gives up there.
 */
static int pass_bad_block(struct rc_reader *r, uint64_t start)
{
	const struct bad_block *b = &r->bad;
	bool chunk = b->hlen >= 12 && b->h[2] == RC_BLOCK_CHUNK;
	int err;

	r->dmg.d.spent += b->hlen + r->payload.len;
	if (r->have_trailer || bad_is_trailer(b)) {
		r->at_end = true;
		if (b->cut) /* cut short there: truncated, not damaged */
			return end_of_file(r);
		return rc_damage_log__add(&r->dmg, start, r->in.offset, b->why,
					  r->have_trailer ? RC_AFTER_END : RC_TRAILER, 0, 0);
	}
	if (r->dmg.d.spent > rc_resync__budget(start))
		return give_up(r, start, start, b->why, chunk, 0);
	err = rc_input__give_back(&r->in, (const unsigned char *)b->h + 1, b->hlen - 1,
				  r->payload.buf, r->payload.len);
	if (err)
		return err;
	if (!b->cut)
		return resync(r, start, b->why, chunk, 0);
	/* a length past the end: damaged if a good block follows, else cut short */
	err = rc_resync__scan(&r->in, &r->dmg.d.spent);
	if (err == RC_SCAN_GAVE_UP)
		return give_up(r, start, r->in.offset, b->why, chunk, 0);
	if (err <= 0 || r->in.err)
		return err < 0 ? err : end_of_file(r);
	return rc_damage_log__add(&r->dmg, start, r->in.offset, b->why, RC_RESYNCED, chunk, 0);
}

static struct rc_reader *reader_new(void)
{
	struct rc_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->in.fd = -1;
	r->until = UINT64_MAX;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx) {
		free(r);
		return NULL;
	}
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* ZSTD_d_forceIgnoreChecksum: let mutated records reach the record checks */
	ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_experimentalParam3, 1);
#endif
	return r;
}

static int load_base(struct rc_reader *r, uint64_t off);

/*
 * The BASE block, when the block after the header is one: read with the
 * header, so that rc_reader__base() has it before the first record. One
 * that does not check is passed over as any damaged block is.
 */
static int read_base(struct rc_reader *r)
{
	const unsigned char *p;
	uint64_t off = r->in.offset;
	uint32_t h[4], type;
	size_t avail;
	int err;

	if (!r->hdr.meta.has_run || r->hdr.meta.run.seq < 2)
		return 0;
	/* a file is looked at in place, so that it can still seek (rc_reader__set_range()) */
	if (!rc_input__read_at(&r->in, h, sizeof(h), off)) {
		err = rc_input__peek(&r->in, RC_BLOCK_HDR_SIZE, &p, &avail);
		if (err || avail < RC_BLOCK_HDR_SIZE)
			return err;
		memcpy(h, p, sizeof(h));
	}
	if (h[0] != RC_FRAME_MAGIC || h[2] != RC_BLOCK_BASE)
		return 0;
	err = read_block(r, &type);
	if (err == -EBADMSG)
		err = pass_bad_block(r, off);
	else if (err > 0)
		err = load_base(r, off);
	/* but for memory, a failure stops the reader at its first rc_reader__next() */
	return err == -ENOMEM ? err : 0;
}

/* Why the last open on this thread failed, for its caller's one line. */
static __thread char open_err[256];

const char *rc_reader__open_error(void)
{
	return open_err;
}

static struct rc_reader *reader_start(struct rc_reader *r)
{
	uint32_t type = 0;
	int err;

	err = read_block(r, &type);
	if (err == -EBADMSG && r->bad.cut)
		err = 0;
	open_err[0] = '\0';
	if (err == -EBADMSG && r->bad.h[0] != RC_FRAME_MAGIC) {
		snprintf(r->err, sizeof(r->err),
			 "not a ringcap capture: no ringcap magic at byte 0");
	} else if (err == -EBADMSG) {
		corrupt(r, 0, r->bad.why);
	} else if (err == 0) {
		snprintf(r->err, sizeof(r->err), "%s",
			 r->in.offset ? "truncated before the end of its header" : "empty file");
		err = -ENODATA;
	} else if (err > 0 && type != RC_BLOCK_HEADER) {
		snprintf(r->err, sizeof(r->err), "not a ringcap capture (no header block)");
		err = -EBADMSG;
	} else if (err > 0) {
		err = rc_parse_header(&r->hdr, r->payload.buf, r->payload.len, r->err,
				      sizeof(r->err));
		err = err ?: read_base(r);
	}
	if (err < 0) {
		/* the caller names the file with it, in one line */
		snprintf(open_err, sizeof(open_err), "%s", r->err);
		pr_debug("%s\n", r->err);
		rc_reader__free(r);
		return rc_err_ptr(err);
	}
	return r;
}

static struct rc_reader *rc_reader__open_fd(int fd)
{
	struct rc_reader *r = reader_new();

	if (!r)
		return rc_err_ptr(-ENOMEM);
	r->in.fd = fd;
	return reader_start(r);
}

struct rc_reader *rc_reader__open(const char *path)
{
	struct rc_reader *r;
	int fd, err;

	open_err[0] = '\0'; /* an open(2) failure must not carry the last file's cause */
	if (!strcmp(path, "-"))
		return rc_reader__open_fd(STDIN_FILENO);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) /* not logged: the caller names the file with the cause */
		return rc_err_ptr(-errno);
	r = rc_reader__open_fd(fd);
	if (!r) {
		err = -errno;
		close(fd);
		return rc_err_ptr(err);
	}
	r->own_fd = true;
	return r;
}

struct rc_reader *rc_reader__open_mem(const void *buf, size_t len)
{
	struct rc_reader *r;

	open_err[0] = '\0';
	r = reader_new();

	if (!r)
		return rc_err_ptr(-ENOMEM);
	r->in.mem = buf ? buf : (const void *)"";
	r->in.mem_len = len;
	return reader_start(r);
}

const struct rc_meta *rc_reader__meta(const struct rc_reader *r)
{
	return &r->hdr.meta;
}

/* A chunk's data or records do not check: -EBADMSG, and why in r->why. */
static int bad_chunk(struct rc_reader *r, const char *why)
{
	r->why = why;
	return -EBADMSG;
}

/* Check every record of the chunk now in r->raw against the schema. */
static int check_records(struct rc_reader *r, const struct rc_disk_chunk *dc)
{
	struct rc_rec_hdr h;
	size_t pos = 0, n = 0;
	int got;

	while ((got = rc_rec__next(r->raw.buf, r->raw.len, &pos, &h)) > 0) {
		const struct rc_event_desc *ev;
		uint16_t idx;

		idx = h.type <= RC_MAX_EVENT_ID ? r->hdr.by_id[h.type] : 0;
		if (!idx)
			return bad_chunk(r, "record of an event type the header does not describe");
		ev = &r->hdr.schema.events[idx - 1];
		if (h.size < ev->size)
			return bad_chunk(r, "record shorter than its event");
		if (h.ts < dc->first_ts || h.ts > dc->last_ts)
			return bad_chunk(r, "record time outside its chunk's range");
		if (h.cpu >= r->hdr.meta.ncpus)
			return bad_chunk(r, "record of a CPU beyond the capture's count");
		n++;
	}
	if (got == -EBADMSG)
		return bad_chunk(r, "chunk ends inside a record header");
	if (got)
		return bad_chunk(r, "record size out of range");
	if (n != dc->nrec)
		return bad_chunk(r, "chunk record count mismatch");
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
 * Decompress the chunk's frame in r->data into r->raw: directly, or for a
 * shuffled chunk through r->enc (and by class, r->gather), whose size is
 * checked first (frame_size_fits()).
 */
static int inflate_chunk(struct rc_reader *r, const struct rc_disk_chunk *dc)
{
	bool plain = dc->codec == RC_CODEC_ZSTD;
	unsigned long long fcs = ZSTD_getFrameContentSize(r->data.buf, dc->data_size);
	struct rc_strbuf *dst = plain ? &r->raw : &r->enc;
	const char *why = NULL;
	size_t n;
	int err;

	if (!frame_size_fits(dc, fcs))
		return bad_chunk(r, "chunk frame size differs from its header");
	if (ZSTD_findFrameCompressedSize(r->data.buf, dc->data_size) != dc->data_size)
		return bad_chunk(r, "chunk data is not one zstd frame");
	dst->len = 0;
	err = rc_strbuf__reserve(dst, fcs);
	if (err)
		return err;
	n = ZSTD_decompressDCtx(r->dctx, dst->buf, fcs, r->data.buf, dc->data_size);
	if (ZSTD_isError(n) || n != fcs)
		return bad_chunk(r, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short chunk");
	if (plain) {
		r->raw.len = n;
		return 0;
	}
	r->raw.len = 0;
	err = rc_strbuf__reserve(&r->raw, dc->raw_size);
	if (!err && dc->codec == RC_CODEC_ZSTD_CLASSES)
		err = rc_strbuf__reserve(&r->gather, dc->raw_size);
	if (err)
		return err;
	if (dc->codec == RC_CODEC_ZSTD_SHUFFLE ?
		    rc_shuffle__decode(r->enc.buf, n, r->raw.buf, dc->raw_size, dc->nrec, &why) :
		    rc_classes__decode(r->enc.buf, n, r->raw.buf, dc->raw_size, dc->nrec,
				       r->gather.buf, &why))
		return bad_chunk(r, why);
	r->raw.len = dc->raw_size;
	return 0;
}

/*
 * Decompress an FTRACE chunk's fragments into r->enc and decode them into
 * r->raw: the records its header counts, of the size it says.
 */
static int inflate_ftrace(struct rc_reader *r, const struct rc_disk_chunk *dc)
{
	unsigned long long fcs = ZSTD_getFrameContentSize(r->data.buf, dc->data_size);
	const char *why = "malformed ftrace chunk";
	uint32_t nrec = 0;
	size_t n;
	int err;

	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR ||
	    fcs > RC_MAX_CHUNK_RAW)
		return bad_chunk(r, "chunk frame size out of range");
	if (ZSTD_findFrameCompressedSize(r->data.buf, dc->data_size) != dc->data_size)
		return bad_chunk(r, "chunk data is not one zstd frame");
	r->enc.len = 0;
	err = rc_strbuf__reserve(&r->enc, fcs);
	if (err)
		return err;
	n = ZSTD_decompressDCtx(r->dctx, r->enc.buf, fcs, r->data.buf, dc->data_size);
	if (ZSTD_isError(n) || n != fcs)
		return bad_chunk(r, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short chunk");
	err =
	    rc_ftdec__chunk(r->enc.buf, n, &r->hdr.ft_ids, r->hdr.meta.ncpus, &r->raw, &nrec, &why);
	if (err)
		return err == -EBADMSG ? bad_chunk(r, why) : err;
	if (r->raw.len != dc->raw_size || nrec != dc->nrec) {
		r->raw.len = 0;
		return bad_chunk(r, "ftrace chunk decodes to other records than it says");
	}
	return 0;
}

/* A chunk lost, its data passed over: the stretch from its block @off to here. */
static int chunk_lost(struct rc_reader *r, uint64_t off, const char *why, uint64_t nrec)
{
	r->raw.len = 0;
	return rc_damage_log__add(&r->dmg, off, r->in.offset, why, RC_RESYNCED, 1, nrec);
}

/* A chunk whose header does not check, but for the size of its data: pass over that. */
static int skip_bad_chunk(struct rc_reader *r, uint64_t off, const struct rc_disk_chunk *dc,
			  const char *why, uint64_t nrec)
{
	int err;

	if (rc_input__skip(&r->in, dc->data_size))
		return chunk_lost(r, off, why, nrec);
	err = rc_damage_log__add(&r->dmg, off, r->in.offset, why, RC_NO_RESYNC, 1, nrec);
	return err ?: end_of_file(r);
}

/*
 * The chunk whose block starts at @off: check its header, read its data,
 * decompress, check every record. A chunk that does not check is passed
 * over, and counted as lost: its data when its size can be trusted, else
 * up to the next good block.
 */
static int load_chunk(struct rc_reader *r, uint64_t off)
{
	struct rc_disk_chunk dc;
	int err;

	if (r->payload.len < sizeof(dc))
		return resync(r, off, "chunk header too short", 1, 0);
	memcpy(&dc, r->payload.buf, sizeof(dc));
	if (dc.raw_size > RC_MAX_CHUNK_RAW || dc.data_size > RC_MAX_CHUNK_DATA || !dc.data_size)
		return resync(r, off, "chunk size out of range", 1, 0);
	if (dc.first_ts > dc.last_ts || !dc.nrec ||
	    dc.nrec > dc.raw_size / sizeof(struct rc_rec_hdr))
		return skip_bad_chunk(r, off, &dc, "chunk header inconsistent", 0);
	if (dc.codec != RC_CODEC_ZSTD && dc.codec != RC_CODEC_ZSTD_SHUFFLE &&
	    dc.codec != RC_CODEC_FTRACE && dc.codec != RC_CODEC_ZSTD_CLASSES)
		return skip_bad_chunk(r, off, &dc, "chunk compressed with an unknown codec",
				      dc.nrec);
	/*
	 * Outside the range: passed over without decompressing. Not a stop at
	 * the first chunk past @until: a record written late (counted in the
	 * trailer) can sit in a later chunk and still be in range.
	 */
	if (dc.first_ts > r->until || dc.last_ts < r->since) {
		r->skipped = true;
		return rc_input__skip(&r->in, dc.data_size) ? 0 : end_of_file(r);
	}
	r->data.len = 0;
	err = rc_strbuf__reserve(&r->data, dc.data_size);
	if (err)
		return err;
	if (read_some(r, r->data.buf, dc.data_size) < dc.data_size)
		return end_of_file(r);
	r->raw.len = 0;
	if (dc.codec == RC_CODEC_FTRACE)
		err = inflate_ftrace(r, &dc);
	else
		err = inflate_chunk(r, &dc);
	r->raw_pos = 0;
	err = err ?: check_records(r, &dc);
	if (err == -EBADMSG)
		return chunk_lost(r, off, r->why, dc.nrec);
	if (err) {
		r->raw.len = 0;
		return err;
	}
	r->nchunks++;
	r->raw_bytes += r->raw.len;
	return 0;
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
	return rc_damage_log__add(&r->dmg, off, r->in.offset, why, RC_RESYNCED, 0, 0);
}

static int load_stacks(struct rc_reader *r, uint64_t off)
{
	const char *why = NULL;
	int err = rc_stacktab__add_block(&r->stacks, r->payload.buf, r->payload.len, &why);

	return err == -EBADMSG ? block_lost(r, off, why) : err;
}

/* An AUX block: checked, decompressed into r->raw's spare buffer, to the callback. */
static int load_aux(struct rc_reader *r, uint64_t off)
{
	struct rc_aux_chunk ac;
	const char *why;
	int err;

	if (!r->aux_fn)
		return 0;
	err = rc_aux_block__decode(r->payload.buf, r->payload.len, r->dctx, &r->enc, &ac, &why);
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

static int load_lines(struct rc_reader *r, uint64_t off)
{
	const char *why = NULL;
	int err = rc_stacktab__add_lines(&r->stacks, r->payload.buf, r->payload.len, &why);

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

static int load_stats(struct rc_reader *r, uint64_t off)
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
static int load_base(struct rc_reader *r, uint64_t off)
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
static int load_trailer(struct rc_reader *r, uint64_t off)
{
	const unsigned char *p = (const unsigned char *)r->payload.buf;
	struct rc_chunk_index *index;
	struct rc_disk_trailer dt;
	const struct rc_damage *lost = &r->dmg.d;
	uint32_t i;

	if (r->have_trailer)
		return corrupt(r, off, "second trailer");
	if (r->payload.len < sizeof(dt))
		return corrupt(r, off, "trailer too short");
	memcpy(&dt, p, sizeof(dt));
	if (dt.nindex > (r->payload.len - sizeof(dt)) / sizeof(struct rc_disk_index))
		return corrupt(r, off, "trailer index larger than its block");
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
		return corrupt(r, off, "trailer totals differ from the chunks read");
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

int rc_reader__next(struct rc_reader *r, const struct rc_rec_hdr **rec)
{
	int err;

	for (;;) {
		uint64_t off = r->in.offset;
		uint32_t type;

		if (r->raw_pos < r->raw.len) {
			const struct rc_rec_hdr *h = (const void *)(r->raw.buf + r->raw_pos);

			r->raw_pos += h->size;
			r->nrec++;
			r->last_ts = h->ts > r->last_ts ? h->ts : r->last_ts;
			*rec = h;
			return 1;
		}
		if (r->at_end)
			return 0;
		if (r->err[0])
			return -EBADMSG;
		err = read_block(r, &type);
		if (err == -EBADMSG)
			err = pass_bad_block(r, off);
		if (err <= 0) {
			if (err < 0)
				return err;
			continue;
		}
		switch (type) {
		case RC_BLOCK_CHUNK:
			err = r->have_trailer ? corrupt(r, off, "chunk after the trailer")
					      : load_chunk(r, off);
			break;
		case RC_BLOCK_STATS:
			err = load_stats(r, off);
			break;
		case RC_BLOCK_BASE:
			err = load_base(r, off);
			break;
		case RC_BLOCK_STACKS:
			err = load_stacks(r, off);
			break;
		case RC_BLOCK_LINES:
			err = load_lines(r, off);
			break;
		case RC_BLOCK_AUX:
			err = load_aux(r, off);
			break;
		case RC_BLOCK_TRAILER:
			err = load_trailer(r, off);
			break;
		case RC_BLOCK_END:
			/* after damage, the trailer may have been in it: read as none */
			if (!r->have_trailer && !r->dmg.ns)
				err = corrupt(r, off, "end block without a trailer");
			else
				r->at_end = true;
			break;
		case RC_BLOCK_HEADER:
			err = corrupt(r, off, "second header");
			break;
		default:
			break; /* a block type of a later minor version: skip it */
		}
		if (err < 0)
			return err;
	}
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
	if (r->nchunks || r->raw.len || r->dmg.ns || r->skipped)
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
		} else if (h[2] == RC_BLOCK_STACKS || h[2] == RC_BLOCK_LINES) {
			r->payload.len = 0;
			if (!rc_block__len_fits(h[2], h[1] - 8, false) ||
			    rc_strbuf__reserve(&r->payload, h[1] - 8) ||
			    !rc_input__read_at(&r->in, r->payload.buf, h[1] - 8, pos + RC_BLOCK_HDR_SIZE))
				return false;
			if (rc_block_crc(h[2], r->payload.buf, h[1] - 8) == h[3] &&
			    (h[2] == RC_BLOCK_STACKS
				 ? rc_stacktab__add_block(&r->stacks, r->payload.buf, h[1] - 8, &why)
				 : rc_stacktab__add_lines(&r->stacks, r->payload.buf, h[1] - 8,
							  &why)) == -ENOMEM)
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
	if (!since || r->nchunks || r->raw.len || r->dmg.ns)
		return;
	off = index_lookup(r, since);
	if (off > r->in.offset && stacks_before(r, off) && rc_input__seek(&r->in, off))
		r->skipped = true;
}

bool rc_reader__truncated(const struct rc_reader *r)
{
	return r->truncated;
}

const char *rc_reader__error(const struct rc_reader *r)
{
	return r->err[0] ? r->err : r->dmg.msg;
}

bool rc_reader__corrupt(const struct rc_reader *r, struct rc_damage *d)
{
	if (d) /* a block cut short at the end is not damage, even if it was read */
		*d = r->dmg.ns ? r->dmg.d : (struct rc_damage){};
	return r->dmg.ns > 0;
}

const struct rc_stack *rc_reader__stack(const struct rc_reader *r, uint32_t id)
{
	return rc_stacktab__stack(&r->stacks, id);
}

const struct rc_stats *rc_reader__stats(const struct rc_reader *r)
{
	return r->have_stats ? &r->stats : NULL;
}

uint64_t rc_reader__end(const struct rc_reader *r)
{
	uint64_t end = r->hdr.meta.start_ts;

	end = r->last_ts > end ? r->last_ts : end;
	if (r->have_stats && r->stats.ts > end)
		end = r->stats.ts;
	return end;
}

const struct rc_stats *rc_reader__base(const struct rc_reader *r)
{
	return r->have_base ? &r->base : NULL;
}

const struct rc_stats_point *rc_reader__history(const struct rc_reader *r, size_t *n)
{
	*n = r->nhist;
	return r->hist;
}

const struct rc_trailer *rc_reader__trailer(const struct rc_reader *r)
{
	return r->have_trailer ? &r->trailer : NULL;
}

uint64_t rc_reader__offset(const struct rc_reader *r)
{
	return r->in.offset;
}

bool rc_reader__buffered(const struct rc_reader *r)
{
	return r->raw_pos < r->raw.len;
}

uint64_t rc_reader__chunks(const struct rc_reader *r)
{
	return r->nchunks;
}

uint64_t rc_reader__raw_bytes(const struct rc_reader *r)
{
	return r->raw_bytes;
}

void rc_reader__free(struct rc_reader *r)
{
	if (!r)
		return;
	if (r->own_fd)
		close(r->in.fd);
	rc_input__free(&r->in);
	rc_damage_log__free(&r->dmg);
	ZSTD_freeDCtx(r->dctx);
	rc_parsed_header__free(&r->hdr);
	rc_strbuf__free(&r->payload);
	rc_strbuf__free(&r->data);
	rc_strbuf__free(&r->enc);
	rc_strbuf__free(&r->gather);
	rc_strbuf__free(&r->raw);
	rc_stacktab__free(&r->stacks);
	free(r->stats.entries);
	free(r->base.entries);
	free(r->hist);
	free(r->trailer.index);
	free(r);
}
