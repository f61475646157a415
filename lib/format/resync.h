/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Getting past a corrupt block (ringcap-file(5), DAMAGE): the scan for the
 * next good block, and the log of what was passed over.
 */
#ifndef RINGCAP_FORMAT_RESYNC_H
#define RINGCAP_FORMAT_RESYNC_H

#include <stdbool.h>
#include <stdint.h>
#include "format/format.h"
#include "format/input.h"
#include "format/reader.h"

/**
 * rc_block__len_fits() - whether a block of a type can have a payload of a length
 * @type: its type, RC_BLOCK_*
 * @len: its payload's bytes
 * @found: the block was found by a scan, not read in order
 *
 * CHUNK 32 to 4096 bytes; STATS 56 to 16 MiB; TRAILER 56 and 32 a chunk,
 * up to 1 GiB; END 8. A HEADER or a type of a later minor: up to 16 MiB
 * in order, never when found. Checked before the payload is read.
 *
 * Return: true when it can.
 */
bool rc_block__len_fits(uint32_t type, size_t len, bool found);

/**
 * rc_trailer__fits() - whether a trailer's start agrees with its length and place
 * @dt: its first bytes
 * @len: its payload's bytes
 * @off: where its block starts in the file
 *
 * Its index, of @dt->nindex entries, is the rest of it; and each entry is
 * a chunk before it, of 48 bytes at least: the trailer is never longer
 * than about 2/3 of what comes before it. Checked before the rest of the
 * payload is read.
 *
 * Return: true when it does.
 */
bool rc_trailer__fits(const struct rc_disk_trailer *dt, size_t len, uint64_t off);

/*
 * What getting past damage may cost (ringcap-file(5), DAMAGE): the bytes
 * read and CRC'd of blocks that do not check, a scan's false candidates
 * among them, at most 64 MiB and 8 for each byte read before. Damage as
 * disks and cut copies make it costs less than the bytes it spans; only
 * headers that lie about their lengths, over and over, reach it.
 */
#define RC_RESYNC_BUDGET_BASE (64ull << 20)
#define RC_RESYNC_BUDGET_RATE 8

/**
 * rc_resync__budget() - what a reader may have spent on bad blocks at an offset
 * @offset: the bytes of the file before where it is
 *
 * Return: bytes (struct rc_damage's @spent)
 */
static inline uint64_t rc_resync__budget(uint64_t offset)
{
	return RC_RESYNC_BUDGET_BASE + RC_RESYNC_BUDGET_RATE * offset;
}

/* What rc_resync__scan() found. */
enum rc_scan_result {
	RC_SCAN_EOF = 0,     /* the end of the file, no good block before it */
	RC_SCAN_FOUND = 1,   /* a good block */
	RC_SCAN_GAVE_UP = 2, /* checking the next candidate would go past the budget */
};

/**
 * rc_resync__scan() - find the next good block
 * @in: the input, at the byte after the start of a damaged block (or
 *	after a block whose data's size is not known)
 * @spent: the bytes spent on bad blocks so far: grows by those CRC'd
 *	of each false candidate
 *
 * Looks for the frame magic, from the reading position, and takes the
 * first place where a whole block checks: a type the reader goes on at
 * (CHUNK, STATS, TRAILER, END), a length that type can have
 * (rc_block__len_fits(), rc_trailer__fits()), its payload present and its
 * CRC matching. What is before it is read. A candidate whose CRC would
 * take *@spent past rc_resync__budget() of its offset is not checked:
 * the scan gives up there.
 *
 * Return: RC_SCAN_FOUND with @in at that block; RC_SCAN_EOF when the file
 * ends first, all of it read (or a read failed: see @in->err);
 * RC_SCAN_GAVE_UP with @in at the candidate; -ENOMEM.
 */
int rc_resync__scan(struct rc_input *in, uint64_t *spent);

/* A stretch of the file passed over: from a corrupt block to the next good one. */
struct rc_stretch {
	uint64_t start, end;
};

/* How a damaged stretch ends. */
enum rc_stretch_end {
	RC_RESYNCED,  /* at a good block: reading goes on */
	RC_NO_RESYNC, /* at the end of the file: nothing good after it */
	RC_TRAILER,   /* a damaged trailer, read as none: the read ends there */
	RC_AFTER_END, /* after the trailer, where only the END block is left */
	RC_GAVE_UP,   /* too much damage (rc_resync__budget()): the rest of the file */
};

/**
 * struct rc_damage_log - what a reader passed over
 * @d: the counts rc_reader__corrupt() gives
 * @s: the stretches, in file order, apart
 * @ns: stretches in @s
 * @cap: room in @s
 * @why: the first corrupt block's reason
 * @how: how its stretch ends
 * @msg: what rc_reader__error() says of it, and of giving up (@d.gave_up)
 *
 * Starts zeroed.
 */
struct rc_damage_log {
	struct rc_damage d;
	struct rc_stretch *s;
	size_t ns, cap;
	char why[96];
	enum rc_stretch_end how;
	char msg[384];
};

/**
 * rc_damage_log__add() - note a damaged stretch
 * @l: the log
 * @start: where its corrupt block starts
 * @end: where reading goes on, or stopped
 * @why: why the block is corrupt
 * @how: how the stretch ends
 * @chunks: chunks its corrupt block tells were lost (0 or 1)
 * @records: their records, when the block tells
 *
 * A stretch that starts where the last one ends extends it. @chunks and
 * @records count until rc_damage_log__count_index() counts exactly. For
 * RC_GAVE_UP, set @l->d.gave_up first.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_damage_log__add(struct rc_damage_log *l, uint64_t start, uint64_t end, const char *why,
		       enum rc_stretch_end how, uint64_t chunks, uint64_t records);

/**
 * rc_damage_log__count_index() - count the chunks lost exactly, from a trailer's index
 * @l: the log
 * @idx: the index of every chunk
 * @n: its entries
 *
 * The chunks whose block starts in a damaged stretch are lost, with their
 * records; the counts are exact from then on.
 */
void rc_damage_log__count_index(struct rc_damage_log *l, const struct rc_chunk_index *idx,
				uint32_t n);

/**
 * rc_damage_log__free() - free a log's stretches
 * @l: the log
 */
void rc_damage_log__free(struct rc_damage_log *l);

#endif /* RINGCAP_FORMAT_RESYNC_H */
