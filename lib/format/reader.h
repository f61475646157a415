/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capture file's reader (lib/format/reader.c).
 */
#ifndef RINGCAP_FORMAT_READER_H
#define RINGCAP_FORMAT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/aux.h"
#include "format/meta.h"
#include "util/strbuf.h"

struct rc_reader;

/**
 * rc_reader__open() - open a capture and read its header
 * @path: the file; "-": standard input (a pipe will do)
 *
 * Failures but ENOMEM and open(2)'s are logged (RC_WARN) with their reason;
 * open(2)'s only errno says (rc_set__open() names the file with it). A
 * file opened by @path is closed by rc_reader__free(); standard input is
 * not.
 *
 * Return: the reader, to free with rc_reader__free(); NULL with errno set:
 * open(2)'s error, ENODATA for an empty file or one cut inside its header,
 * EBADMSG for one that is not a capture or whose header is corrupt,
 * EPROTONOSUPPORT for another major version of the format, EIO when
 * reading fails, or ENOMEM.
 */
struct rc_reader *rc_reader__open(const char *path);

/**
 * rc_reader__open_error() - why the last rc_reader__open() of this thread
 * failed on the file's contents, with the byte offset where it was found
 *
 * Return: "" after a success, or a failure to open or read the file.
 */
const char *rc_reader__open_error(void);

/**
 * rc_reader__open_mem() - read a capture from memory
 * @buf: the capture; not copied, so it must outlive the reader. NULL only
 *	with @len 0
 * @len: bytes at @buf
 *
 * For tests and fuzzing. As rc_reader__open() otherwise.
 *
 * Return: the reader, to free with rc_reader__free(); NULL with errno set,
 * as rc_reader__open() but for open(2)'s errors and EIO.
 */
struct rc_reader *rc_reader__open_mem(const void *buf, size_t len);

/**
 * rc_reader__meta() - the capture's header
 * @r: the reader
 *
 * Return: the header, its schema and strings, owned by @r; never NULL.
 */
const struct rc_meta *rc_reader__meta(const struct rc_reader *r);

/**
 * rc_reader__next() - the next record, validated against the schema
 * @r: the reader
 * @rec: set to the record, valid until the next rc_reader__next() on @r
 *
 * Records come in file order: by time, but for those the writer counted as
 * late (rc_trailer.late). Each chunk is checked whole before its first
 * record is handed out: every record's size, a type the header describes,
 * a size at least its event's, its cpu below rc_meta.ncpus and its time
 * within the chunk's. Counter and trailer blocks met on the way are kept for
 * rc_reader__stats(), rc_reader__history() and rc_reader__trailer().
 *
 * A damaged block or chunk is passed over (rc_reader__corrupt()): reading
 * goes on at the next good block.
 *
 * Return: 1 with *@rec set; 0 at the end of the file, complete, cut short
 * or damaged (rc_reader__truncated() and rc_reader__corrupt() tell which);
 * -EBADMSG for a file whose blocks are good but do not fit together (a
 * second header, a chunk after the trailer, a trailer whose totals differ
 * from the chunks) or -EIO when reading fails, with the reason in
 * rc_reader__error(), after which every call returns -EBADMSG; or -ENOMEM.
 */
int rc_reader__next(struct rc_reader *r, const struct rc_rec_hdr **rec);

/**
 * rc_reader__on_aux() - have the AUX blocks read handed to a callback
 * @r: the reader
 * @fn: called with each AUX block rc_reader__next() reads, decompressed
 *	and checked, in file order; NULL: AUX blocks are passed over
 * @ctx: @fn's
 */
void rc_reader__on_aux(struct rc_reader *r, rc_aux_fn fn, void *ctx);

/* rc_reader__on_chunk()'s callback: a chunk of @records records was read */
typedef void (*rc_chunk_fn)(void *ctx, const struct rc_reader *r, uint64_t records);

/**
 * rc_reader__on_chunk() - have each good chunk read told to a callback
 * @r: the reader
 * @fn: called, on the reading thread, after each chunk rc_reader__next()
 *	decompressed and checked, or rc_reader__settle() settled as good,
 *	with its count of records; NULL: none. For a progress line: it is
 *	not called for chunks passed over.
 * @ctx: @fn's
 */
void rc_reader__on_chunk(struct rc_reader *r, rc_chunk_fn fn, void *ctx);

/**
 * rc_reader__set_range() - read only the chunks that can hold a time range
 * @r: the reader
 * @since: the earliest time wanted (capture clock); 0: from the start
 * @until: the latest time wanted; UINT64_MAX: to the end
 *
 * Chunks wholly outside the range are skipped without being decompressed.
 * The chunks that overlap it are read whole: records outside the range
 * still come, so filter them too (rc_filter). On a seekable file or in
 * memory, with @since set, the trailer's index finds the first chunk to
 * read, and the blocks before it, counters included, are not read. Call
 * before the first rc_reader__next(); later, nothing is skipped by seeking.
 */
void rc_reader__set_range(struct rc_reader *r, uint64_t since, uint64_t until);

/**
 * rc_reader__span() - the file's record times, from its trailer, without reading the file
 * @r: the reader, before its first rc_reader__next() (or after its trailer)
 * @first: set to the earliest record's time
 * @last: set to the latest record's time
 * @nrec: set to the records in the file
 *
 * Reads the trailer from the end of a seekable file or memory (its END
 * block, lengths and CRC checked), not moving the reader.
 *
 * Return: true when set; false without a trailer to trust (a pipe, a file
 * cut short or being written, a damaged end) or once reading has begun.
 */
bool rc_reader__span(struct rc_reader *r, uint64_t *first, uint64_t *last, uint64_t *nrec);

/**
 * rc_reader__truncated() - whether the file was cut short
 * @r: the reader, after rc_reader__next() returned 0
 *
 * Return: true when the file stops before its end block: every complete
 * chunk before the cut was read.
 */
bool rc_reader__truncated(const struct rc_reader *r);

/**
 * rc_reader__error() - why reading failed, or where the file was damaged
 * @r: the reader
 *
 * Return: the message, without newline, of the failure that stopped the
 * reader, e.g. "corrupt capture at byte N: ..."; else, when it passed over
 * damaged blocks (rc_reader__corrupt()), of the first of them: "corrupt
 * block at byte N: block checksum mismatch; resynced at byte M, K bytes
 * skipped"; else "". Never NULL.
 */
const char *rc_reader__error(const struct rc_reader *r);

/**
 * struct rc_damage - what a reader passed over to get past corrupt blocks
 * @offset: where the first corrupt block starts, in bytes from the start
 * @resync: where reading went on after it: the next good block, or where
 *	the reader stopped when none followed
 * @stretches: damaged stretches of the file, each from a corrupt block to
 *	the next good one
 * @bytes: the bytes of every stretch: passed over
 * @chunks: chunks lost in them
 * @records: records of those chunks
 * @exact: @chunks and @records are counted from the trailer's index, which
 *	lists every chunk: exact. Without the trailer (a pipe before its end, a
 *	file cut short or whose trailer is damaged) they are what the damaged
 *	blocks themselves tell, a lower bound: a chunk whose block header still
 *	says so, and its records when that header is intact
 * @spent: bytes of blocks that did not check, read and CRC'd to find so (a
 *	scan's false candidates among them). Past 64 MiB and 8 for each byte
 *	before, the reader gives up: at most that and one block, linear in
 *	the file's size
 * @gave_up: where the reader gave up resyncing, for too much damage; the
 *	rest of the file is passed over, in the last stretch. 0 when it did not
 */
struct rc_damage {
	uint64_t offset;
	uint64_t resync;
	uint64_t stretches;
	uint64_t bytes;
	uint64_t chunks;
	uint64_t records;
	bool exact;
	uint64_t spent;
	uint64_t gave_up;
};

/**
 * rc_reader__corrupt() - whether damaged parts of the file were passed over
 * @r: the reader
 * @d: filled with what was lost when not NULL (zeroed when nothing was)
 *
 * A block whose magic, length or CRC is wrong, and a chunk whose data does
 * not decompress or whose records do not check, does not end the read: the
 * reader looks for the next good block (ringcap-file(5), DAMAGE) and goes
 * on from there, unless it has spent too much on blocks that do not check
 * (@d->gave_up). A corrupt header block still fails rc_reader__open(); a
 * corrupt trailer is read as none. A damaged read is not complete: say so as
 * for a truncated file, with rc_reader__error().
 *
 * Return: true when any block was passed over as damaged.
 */
bool rc_reader__corrupt(const struct rc_reader *r, struct rc_damage *d);

/**
 * rc_reader__stats() - the most recent counters read so far
 * @r: the reader
 *
 * Return: the last counters block read (cumulative), valid until the next
 * rc_reader__next(); NULL before the first one.
 */
const struct rc_stats *rc_reader__stats(const struct rc_reader *r);

/**
 * rc_reader__end() - where a file ends, as read so far
 * @r: the reader
 *
 * Return: the latest of its start (rc_meta.start_ts), the times of the
 * records rc_reader__next() handed out and the time of its last counters
 * read: once read to its end, the end of the file's span.
 */
uint64_t rc_reader__end(const struct rc_reader *r);

/**
 * rc_reader__base() - the run's counters when the file began (v1.9)
 * @r: the reader
 *
 * Read with the header, from the BASE block that follows it in the second
 * and later files of a rotated run: the same counters as the last block of
 * the file before. A file's own span is its last counters less these.
 *
 * Return: the counters, valid until rc_reader__free(); NULL when the file
 * has none (a run's first file, a file before v1.9, or a damaged block):
 * read them as all zeros.
 */
const struct rc_stats *rc_reader__base(const struct rc_reader *r);

/**
 * struct rc_frame - a frame of a stack, named as the capture names it
 * @addr: the address: the instruction, or a return address
 * @sym: the function, NULL when none is known
 * @dso: the file it is in ("[kernel.kallsyms]", a module's "[name]",
 *	"[vdso]", a path), NULL when not even that is known
 * @off: into @sym; when @sym is NULL, into @dso's file; 0 for an inlined frame
 * @file: the source file of @line (record --srclines, from DWARF), NULL if unknown
 * @line: for the innermost frame at @addr, its source line; for a frame
 *	  that code was inlined into, the line of that call; 0 if unknown
 * @flags: RC_FRAME_F_INLINE: a function inlined into the frame after it
 *	   (same @addr); @sym is its name, NULL if DWARF names none
 */
struct rc_frame {
	uint64_t addr;
	const char *sym;
	const char *dso;
	uint64_t off;
	const char *file;
	uint32_t line;
	uint32_t flags;
};

#define RC_FRAME_F_INLINE 0x1 /* inlined into the frame after it: no call, no frame of its own */

/**
 * struct rc_stack - a call stack of the capture, stored once, named by its id
 * @id: what samples carry (rc_ev_sample.stack_id in records.h), from 1
 * @pid: the process of its user frames; 0 when it has none
 * @nkernel: kernel frames, first in @frames, innermost first
 * @nuser: user frames after them, innermost first; inlined frames
 *	   (RC_FRAME_F_INLINE) are counted, before the frame they are in
 * @flags: RC_STACK_F_KERNEL_CUT, RC_STACK_F_USER_CUT: deeper than what was taken
 * @frames: @nkernel + @nuser of them
 */
struct rc_stack {
	uint32_t id;
	uint32_t pid;
	uint16_t nkernel;
	uint16_t nuser;
	uint32_t flags;
	const struct rc_frame *frames;
};

#define RC_STACK_F_KERNEL_CUT 0x1 /* the kernel stack was deeper than its frames */
#define RC_STACK_F_USER_CUT   0x2 /* the user stack was deeper than its frames */

/**
 * rc_reader__stack() - a stack the capture defined, by its id
 * @r: the reader
 * @id: a sample's stack id
 *
 * Stacks are defined before the records that use them; a reader that
 * skips chunks (rc_reader__set_range()) still reads every definition.
 *
 * Return: the stack, valid until rc_reader__free(); NULL when @id is 0,
 * or was not defined (its definition was in a damaged block).
 */
const struct rc_stack *rc_reader__stack(const struct rc_reader *r, uint32_t id);

/**
 * rc_reader__build_id() - the build-id of a file stack frames are in
 * @r: the reader
 * @file: the file as a frame names it (struct rc_frame's dso)
 *
 * Captures of format minor 11 on give the build-ids of the files their
 * frames are in (BUILDIDS blocks); older ones give none.
 *
 * Return: the build-id in lower-case hex, valid until rc_reader__free();
 * NULL when the capture gave none for @file.
 */
const char *rc_reader__build_id(const struct rc_reader *r, const char *file);

/**
 * rc_reader__history() - the totals of every counters block read so far
 * @r: the reader
 * @n: set to their number
 *
 * Return: the totals, in file order, valid until the next rc_reader__next();
 * NULL when *@n is 0.
 */
const struct rc_stats_point *rc_reader__history(const struct rc_reader *r, size_t *n);

/**
 * rc_reader__trailer() - the file's trailer
 * @r: the reader
 *
 * The reader checks the trailer's record and chunk counts against the
 * chunks it read, unless it skipped some (rc_reader__set_range()).
 *
 * Return: the trailer once read (just before the end), else NULL.
 */
const struct rc_trailer *rc_reader__trailer(const struct rc_reader *r);

/**
 * rc_reader__offset() - bytes of the file consumed so far
 * @r: the reader
 *
 * Return: the offset reached, skipped chunks included.
 */
uint64_t rc_reader__offset(const struct rc_reader *r);

/**
 * rc_reader__fd() - the descriptor the reader reads
 * @r: the reader
 *
 * For pread(2) and fstat(2) of the very file being read (a path may name
 * another file by then); not to read from, seek or close.
 *
 * Return: the descriptor, or -1 for a capture in memory.
 */
int rc_reader__fd(const struct rc_reader *r);

/**
 * rc_reader__stopped_at() - where a reader that gave up stopped
 * @r: the reader, after rc_reader__next() failed
 *
 * Return: the offset of the block it could not read, the N of its
 * "corrupt capture at byte N" message; when it failed otherwise (a read
 * error), the offset reached, as rc_reader__offset().
 */
uint64_t rc_reader__stopped_at(const struct rc_reader *r);

/**
 * rc_reader__buffered() - whether records decoded are still to be returned
 * @r: the reader
 *
 * False when the next rc_reader__next() reads the input: a program that
 * shows records as they come (a live pipe) flushes its output then, before
 * the read waits for the next chunk.
 *
 * Return: true while the current chunk has records left.
 */
bool rc_reader__buffered(const struct rc_reader *r);

/**
 * rc_reader__ready() - whether reading on would not wait for the input
 * @r: the reader
 *
 * For a pipe being written (record -o - | report -i -): false when nothing
 * is there to read yet, so that what is decoded is shown before waiting.
 *
 * Return: true for memory, a file, and a pipe with bytes to read or closed.
 */
bool rc_reader__ready(const struct rc_reader *r);

/**
 * rc_reader__chunks() - chunks read so far
 * @r: the reader
 *
 * Return: the complete chunks decompressed and checked; skipped ones do not
 * count.
 */
uint64_t rc_reader__chunks(const struct rc_reader *r);

/**
 * rc_reader__raw_bytes() - bytes of records read so far, decompressed
 * @r: the reader
 *
 * Return: the size of the records of the chunks rc_reader__chunks() counts.
 */
uint64_t rc_reader__raw_bytes(const struct rc_reader *r);

/**
 * rc_reader__free() - free a reader
 * @r: the reader, or NULL
 *
 * Closes the file rc_reader__open() opened (not standard input). Every
 * pointer @r handed out goes with it, the header and schema included.
 */
void rc_reader__free(struct rc_reader *r);

/*
 * ---- chunks decompressed on other threads -----------------------------
 *
 * rc_reader__next_chunk() reads the next chunk without decompressing it;
 * any thread decompresses and checks it with its own rc_inflater, reading
 * only the reader's header (never changed after rc_reader__open()); the
 * reader's thread settles each chunk, in file order (rc_reader__settle()).
 */

/**
 * struct rc_packed_chunk - a chunk read, not decompressed
 * @off: where its block starts in the file
 * @end: where its data ends
 * @codec: how it is compressed (RC_CODEC_*)
 * @nrec: its records
 * @first_ts: its earliest record's time
 * @last_ts: its latest
 * @raw_size: its records' bytes
 * @data_size: its data's bytes
 * @data: its data; the caller's, reused from chunk to chunk; free with
 *	  rc_strbuf__free()
 */
struct rc_packed_chunk {
	uint64_t off, end;
	uint32_t codec, nrec;
	uint64_t first_ts, last_ts;
	uint32_t raw_size, data_size;
	struct rc_strbuf data;
};

#define RC_READER_SETTLE 2

/**
 * rc_reader__next_chunk() - the next chunk, read but not decompressed
 * @r: the reader, rc_reader__next() never called on it
 * @c: filled with the chunk
 *
 * As rc_reader__next() reads blocks, but a chunk's data is handed out
 * compressed, its header checked: the caller decompresses it
 * (rc_inflater__run()) and settles it (rc_reader__settle()). Before a
 * block that needs the chunks settled (a damaged block, the trailer, the
 * end block), the reader stops: RC_READER_SETTLE, and the next call goes
 * on with that block once every chunk handed out is settled.
 *
 * Return: 1 with *@c filled; RC_READER_SETTLE; 0 at the end of the file;
 * or -errno, as rc_reader__next().
 */
int rc_reader__next_chunk(struct rc_reader *r, struct rc_packed_chunk *c);

/**
 * rc_reader__settle() - a chunk of rc_reader__next_chunk() decompressed
 * @r: the reader
 * @c: the chunk, in file order: every chunk handed out is settled, once
 * @good: rc_inflater__run() returned 0 on it; false: -EBADMSG, the chunk
 *	  is lost, as rc_reader__next() passes one over
 * @why: when not @good, why (rc_inflater__run()'s)
 * @last_ts: when @good, the latest time of its records (rc_reader__end())
 *
 * Return: 0, or -ENOMEM.
 */
int rc_reader__settle(struct rc_reader *r, const struct rc_packed_chunk *c, bool good,
		      const char *why, uint64_t last_ts);

struct rc_inflater;

/**
 * rc_inflater__new() - a chunk decompressor, for one thread at a time
 *
 * Return: the decompressor, to free with rc_inflater__free(); NULL with
 * errno ENOMEM.
 */
struct rc_inflater *rc_inflater__new(void);

/**
 * rc_inflater__run() - decompress a chunk and check its records
 * @d: the decompressor
 * @r: the reader the chunk is from: only its header is read
 * @c: the chunk (rc_reader__next_chunk())
 * @raw: set to its records, valid until the next call on @d
 * @len: set to their bytes
 * @why: set to why the chunk does not check (-EBADMSG), else NULL
 *
 * The checks of rc_reader__next(): every record's size, type, cpu and time.
 *
 * Return: 0; -EBADMSG when the chunk does not check; or -ENOMEM.
 */
int rc_inflater__run(struct rc_inflater *d, const struct rc_reader *r,
		     const struct rc_packed_chunk *c, const void **raw, size_t *len,
		     const char **why);

/**
 * rc_inflater__free() - free a decompressor
 * @d: the decompressor, or NULL
 */
void rc_inflater__free(struct rc_inflater *d);

#endif /* RINGCAP_FORMAT_READER_H */
