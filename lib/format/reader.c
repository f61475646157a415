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
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "format/reader_int.h"
#include "util/mem.h"
#include "util/util.h"

size_t rc_rd__read_some(struct rc_reader *r, void *buf, size_t n)
{
	return rc_input__read(&r->in, buf, n);
}

int rc_rd__corrupt(struct rc_reader *r, uint64_t off, const char *what)
{
	r->corrupt_off = off;
	r->corrupt = true;
	snprintf(r->err, sizeof(r->err), "corrupt capture at byte %llu: %s",
		 (unsigned long long)off, what);
	return -EBADMSG;
}

int rc_rd__damage(struct rc_reader *r, uint64_t start, uint64_t end, const char *why,
		  enum rc_stretch_end how, uint64_t chunks, uint64_t records)
{
	int err;

	if (!r->unsettled)
		return rc_damage_log__add(&r->dmg, start, end, why, how, chunks, records);
	err = rc_ensure_arr(&r->deferred, &r->deferred_cap, r->ndeferred + 1, 8);
	if (err)
		return err;
	r->deferred[r->ndeferred++] = (struct rc_rd_deferred){
		.after = r->handed, .start = start, .end = end, .chunks = chunks,
		.records = records, .why = why, .how = how };
	return 0;
}

int rc_rd__flush_deferred(struct rc_reader *r)
{
	int err = 0;

	while (!err && r->deferred_done < r->ndeferred &&
	       r->deferred[r->deferred_done].after <= r->settled) {
		const struct rc_rd_deferred *d = &r->deferred[r->deferred_done++];

		err = rc_damage_log__add(&r->dmg, d->start, d->end, d->why, d->how, d->chunks,
					 d->records);
	}
	if (r->deferred_done == r->ndeferred)
		r->ndeferred = r->deferred_done = 0;
	return err;
}

/* The file ends before its END block: it was cut short. */
int rc_rd__end_of_file(struct rc_reader *r)
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
	b->hlen = rc_rd__read_some(r, b->h, RC_BLOCK_HDR_SIZE);
	if (b->hlen >= sizeof(b->h[0]) && b->h[0] != RC_FRAME_MAGIC)
		return bad_block(r, "bad block magic");
	if (b->hlen < RC_BLOCK_HDR_SIZE)
		return rc_rd__end_of_file(r);
	if (b->h[1] < 8 || !rc_block__len_fits(b->h[2], b->h[1] - 8, false))
		return bad_block(r, "block length out of range");
	len = b->h[1] - 8;
	if (b->h[2] == RC_BLOCK_TRAILER) {
		got = rc_rd__read_some(r, &dt, sizeof(dt));
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
	got = rc_rd__read_some(r, r->payload.buf + r->payload.len, len - r->payload.len);
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
	err = rc_rd__damage(r, start, r->in.offset, why, RC_GAVE_UP, chunks, records);
	return err ?: (r->in.err ? rc_rd__end_of_file(r) : 0);
}

/*
 * Scan for the next good block, and note the stretch passed over from
 * @start, for @why: it lost @chunks chunks of @records records.
 */
int rc_rd__resync(struct rc_reader *r, uint64_t start, const char *why, uint64_t chunks,
		  uint64_t records)
{
	int found = rc_resync__scan(&r->in, &r->dmg.d.spent);

	if (found < 0)
		return found;
	if (found == RC_SCAN_GAVE_UP)
		return give_up(r, start, r->in.offset, why, chunks, records);
	if (r->in.err)
		return rc_rd__end_of_file(r);
	if (found == RC_SCAN_EOF)
		r->at_end = r->truncated = true;
	return rc_rd__damage(r, start, r->in.offset, why,
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
			return rc_rd__end_of_file(r);
		return rc_rd__damage(r, start, r->in.offset, b->why,
					  r->have_trailer ? RC_AFTER_END : RC_TRAILER, 0, 0);
	}
	if (r->dmg.d.spent > rc_resync__budget(start))
		return give_up(r, start, start, b->why, chunk, 0);
	err = rc_input__give_back(&r->in, (const unsigned char *)b->h + 1, b->hlen - 1,
				  r->payload.buf, r->payload.len);
	if (err)
		return err;
	if (!b->cut)
		return rc_rd__resync(r, start, b->why, chunk, 0);
	/* a length past the end: damaged if a good block follows, else cut short */
	err = rc_resync__scan(&r->in, &r->dmg.d.spent);
	if (err == RC_SCAN_GAVE_UP)
		return give_up(r, start, r->in.offset, b->why, chunk, 0);
	if (err <= 0 || r->in.err)
		return err < 0 ? err : rc_rd__end_of_file(r);
	return rc_rd__damage(r, start, r->in.offset, b->why, RC_RESYNCED, chunk, 0);
}

static struct rc_reader *reader_new(void)
{
	struct rc_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->in.fd = -1;
	r->until = UINT64_MAX;
	if (rc_rd__inflater_init(&r->dec)) {
		free(r);
		return NULL;
	}
	return r;
}

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
		err = rc_rd__load_base(r, off);
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
		rc_rd__corrupt(r, 0, r->bad.why);
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

/* A chunk's block at @off, its data read to @c: 1; 0 when passed over; or -errno. */
static int pack_chunk(struct rc_reader *r, uint64_t off, struct rc_packed_chunk *c)
{
	struct rc_disk_chunk dc;
	int err;

	err = rc_rd__chunk_header(r, off, &dc);
	if (err <= 0)
		return err;
	c->data.len = 0;
	err = rc_strbuf__reserve(&c->data, dc.data_size);
	if (err)
		return err;
	if (rc_rd__read_some(r, c->data.buf, dc.data_size) < dc.data_size)
		return rc_rd__end_of_file(r);
	c->data.len = dc.data_size;
	c->off = off;
	c->end = r->in.offset;
	c->codec = dc.codec;
	c->nrec = dc.nrec;
	c->first_ts = dc.first_ts;
	c->last_ts = dc.last_ts;
	c->raw_size = dc.raw_size;
	c->data_size = dc.data_size;
	r->unsettled++;
	r->handed++;
	return 1;
}

/*
 * A block read (@got: read_block()'s return, @type its type) that starts
 * at @off. With @c, a chunk is read to it, not decompressed: 1. Else 0,
 * or -errno.
 */
static int take_block(struct rc_reader *r, int got, uint32_t type, uint64_t off,
		      struct rc_packed_chunk *c)
{
	int err = got;

	if (err == -EBADMSG)
		err = pass_bad_block(r, off);
	if (err <= 0)
		return err;
	err = 0;
	switch (type) {
	case RC_BLOCK_CHUNK:
		if (r->have_trailer)
			err = rc_rd__corrupt(r, off, "chunk after the trailer");
		else
			err = c ? pack_chunk(r, off, c) : rc_rd__load_chunk(r, off);
		break;
	case RC_BLOCK_STATS:
		err = rc_rd__load_stats(r, off);
		break;
	case RC_BLOCK_BASE:
		err = rc_rd__load_base(r, off);
		break;
	case RC_BLOCK_STACKS:
		err = rc_rd__load_stacks(r, off);
		break;
	case RC_BLOCK_LINES:
		err = rc_rd__load_lines(r, off);
		break;
	case RC_BLOCK_BUILDIDS:
		err = rc_rd__load_buildids(r, off);
		break;
	case RC_BLOCK_AUX:
		err = rc_rd__load_aux(r, off);
		break;
	case RC_BLOCK_TRAILER:
		err = rc_rd__load_trailer(r, off);
		break;
	case RC_BLOCK_END:
		/* after damage, the trailer may have been in it: read as none */
		if (!r->have_trailer && !r->dmg.ns)
			err = rc_rd__corrupt(r, off, "end block without a trailer");
		else
			r->at_end = true;
		break;
	case RC_BLOCK_HEADER:
		err = rc_rd__corrupt(r, off, "second header");
		break;
	default:
		break; /* a block type of a later minor version: skip it */
	}
	return err;
}

int rc_reader__next(struct rc_reader *r, const struct rc_rec_hdr **rec)
{
	int err;

	for (;;) {
		uint64_t off = r->in.offset;
		uint32_t type = 0;

		if (r->raw_pos < r->dec.raw.len) {
			const struct rc_rec_hdr *h = (const void *)(r->dec.raw.buf + r->raw_pos);

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
		err = take_block(r, err, type, off, NULL);
		if (err < 0)
			return err;
	}
}

int rc_reader__next_chunk(struct rc_reader *r, struct rc_packed_chunk *c)
{
	for (;;) {
		uint64_t off = r->in.offset;
		uint32_t type = 0;
		int got, err;

		if (r->held) {
			r->held = false;
			got = r->held_err;
			type = r->held_type;
			off = r->held_off;
		} else {
			if (r->at_end)
				return 0;
			if (r->err[0])
				return -EBADMSG;
			got = read_block(r, &type);
			/*
			 * What counts the chunks read, or logs damage, waits
			 * for the chunks handed out to be settled: in order.
			 */
			if (r->unsettled && (got == -EBADMSG || (got > 0 && (type == RC_BLOCK_TRAILER ||
									     type == RC_BLOCK_END)))) {
				r->held = true;
				r->held_err = got;
				r->held_type = type;
				r->held_off = off;
				return RC_READER_SETTLE;
			}
		}
		err = take_block(r, got, type, off, c);
		if (err)
			return err;
	}
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

const char *rc_reader__build_id(const struct rc_reader *r, const char *file)
{
	return rc_stacktab__build_id(&r->stacks, file);
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

uint64_t rc_reader__stopped_at(const struct rc_reader *r)
{
	if (r->corrupt && r->corrupt_off <= r->in.offset)
		return r->corrupt_off;
	return r->in.offset;
}

int rc_reader__fd(const struct rc_reader *r)
{
	return r->in.mem ? -1 : r->in.fd;
}

uint64_t rc_reader__offset(const struct rc_reader *r)
{
	return r->in.offset;
}

bool rc_reader__ready(const struct rc_reader *r)
{
	struct pollfd pfd = { .fd = r->in.fd, .events = POLLIN };

	if (r->in.mem || r->in.back_pos < r->in.back.len || r->at_end || r->held)
		return true;
	return poll(&pfd, 1, 0) != 0; /* an error: the read says so */
}

bool rc_reader__buffered(const struct rc_reader *r)
{
	return r->raw_pos < r->dec.raw.len;
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
	rc_rd__inflater_fini(&r->dec);
	rc_parsed_header__free(&r->hdr);
	rc_strbuf__free(&r->payload);
	rc_strbuf__free(&r->data);
	rc_stacktab__free(&r->stacks);
	free(r->stats.entries);
	free(r->base.entries);
	free(r->hist);
	free(r->trailer.index);
	free(r->deferred);
	free(r);
}
