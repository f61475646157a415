// SPDX-License-Identifier: GPL-2.0-only
/*
 * Past a corrupt block (resync.h): scan forward for the magic of a block
 * frame, in what was read and what follows, and take the first place
 * where a whole block checks (a length its type can have, a matching
 * CRC); keep the log of the stretches passed over and of the chunks lost
 * in them.
 */
#include <stdio.h>
#include <string.h>
#include "format/format.h"
#include "format/resync.h"
#include "util/mem.h"

#define SCAN_STEP     65536 /* bytes looked at a time, for the magic */
#define MAX_CHUNK_HDR 4096  /* a CHUNK payload is 32 bytes; a later minor may add a few */
/* The fewest bytes a chunk takes: its block's header and payload (its data: more) */
#define MIN_CHUNK_SPAN (RC_BLOCK_HDR_SIZE + sizeof(struct rc_disk_chunk))

bool rc_block__len_fits(uint32_t type, size_t len, bool found)
{
	switch (type) {
	case RC_BLOCK_CHUNK:
		return len >= sizeof(struct rc_disk_chunk) && len <= MAX_CHUNK_HDR;
	case RC_BLOCK_STATS:
	case RC_BLOCK_BASE:
		return len >= sizeof(struct rc_disk_stats) && len <= RC_MAX_BLOCK;
	case RC_BLOCK_TRAILER:
		return len >= sizeof(struct rc_disk_trailer) && len <= RC_MAX_TRAILER &&
		       (len - sizeof(struct rc_disk_trailer)) % sizeof(struct rc_disk_index) == 0;
	case RC_BLOCK_END:
		return len == RC_END_PAYLOAD;
	case RC_BLOCK_STACKS:
		return len >= sizeof(struct rc_disk_stacks) && len <= RC_MAX_BLOCK;
	case RC_BLOCK_LINES:
		return len >= sizeof(struct rc_disk_lines) && len <= RC_MAX_BLOCK;
	case RC_BLOCK_BUILDIDS:
		return len >= sizeof(struct rc_disk_buildids) && len <= RC_MAX_BLOCK;
	case RC_BLOCK_AUX:
		return len >= sizeof(struct rc_disk_aux) && len <= RC_MAX_BLOCK;
	default:
		/* a HEADER, or a type of a later minor: skipped in order, never taken found */
		return !found && len <= RC_MAX_BLOCK;
	}
}

bool rc_trailer__fits(const struct rc_disk_trailer *dt, size_t len, uint64_t off)
{
	return len == sizeof(*dt) + (size_t)dt->nindex * sizeof(struct rc_disk_index) &&
	       dt->nindex <= off / MIN_CHUNK_SPAN;
}

/*
 * Whether a good block starts at the reading position: RC_SCAN_FOUND, 0
 * (not one: its CRC'd bytes added to *@spent), RC_SCAN_GAVE_UP, or -ENOMEM.
 */
static int block_here(struct rc_input *in, uint64_t *spent)
{
	struct rc_disk_trailer dt;
	const unsigned char *p;
	uint32_t h[4], crc;
	size_t avail, len;
	int err;

	err = rc_input__peek(in, RC_BLOCK_HDR_SIZE, &p, &avail);
	if (err || avail < RC_BLOCK_HDR_SIZE)
		return err;
	memcpy(h, p, sizeof(h));
	if (h[0] != RC_FRAME_MAGIC || h[1] < 8 || !rc_block__len_fits(h[2], h[1] - 8, true))
		return 0;
	len = h[1] - 8;
	if (h[2] == RC_BLOCK_TRAILER) { /* its start says how long it is, before the rest is read */
		err = rc_input__peek(in, RC_BLOCK_HDR_SIZE + sizeof(dt), &p, &avail);
		if (err || avail < RC_BLOCK_HDR_SIZE + sizeof(dt))
			return err;
		memcpy(&dt, p + RC_BLOCK_HDR_SIZE, sizeof(dt));
		if (!rc_trailer__fits(&dt, len, in->offset))
			return 0;
	}
	if (*spent + RC_BLOCK_HDR_SIZE + len > rc_resync__budget(in->offset))
		return RC_SCAN_GAVE_UP;
	err = rc_input__peek(in, RC_BLOCK_HDR_SIZE + len, &p, &avail);
	if (err || avail < RC_BLOCK_HDR_SIZE + len)
		return err;
	crc = rc_block_crc(h[2], p + RC_BLOCK_HDR_SIZE, len);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	if (!rc_fuzz_check_crc)
		crc = h[3]; /* as read_block(): let mutations reach the parsers */
#endif
	if (crc == h[3])
		return RC_SCAN_FOUND;
	*spent += RC_BLOCK_HDR_SIZE + len;
	return 0;
}

int rc_resync__scan(struct rc_input *in, uint64_t *spent)
{
	static const uint32_t magic = RC_FRAME_MAGIC;

	for (;;) {
		const unsigned char *p, *hit;
		size_t avail;
		int ret;

		ret = rc_input__peek(in, SCAN_STEP, &p, &avail);
		if (ret)
			return ret;
		hit = memmem(p, avail, &magic, sizeof(magic));
		if (!hit) {
			if (avail < SCAN_STEP) { /* the end of the file */
				rc_input__consume(in, avail);
				return RC_SCAN_EOF;
			}
			/* the magic may begin in the last 3 bytes */
			rc_input__consume(in, avail - (sizeof(magic) - 1));
			continue;
		}
		rc_input__consume(in, hit - p);
		ret = block_here(in, spent);
		if (ret)
			return ret;
		rc_input__consume(in, 1);
	}
}

/*
 * "corrupt block at byte N: WHY; ..." for the first stretch, then where
 * the reader gave up if that was later.
 */
static void set_msg(struct rc_damage_log *l)
{
	const struct rc_stretch *s = &l->s[0];
	unsigned long long bytes = s->end - s->start;
	char tail[128], more[80] = "";

	switch (l->how) {
	case RC_RESYNCED:
		snprintf(tail, sizeof(tail), "resynced at byte %llu, %llu bytes skipped",
			 (unsigned long long)s->end, bytes);
		break;
	case RC_NO_RESYNC:
		snprintf(tail, sizeof(tail), "no good block after it, %llu bytes skipped", bytes);
		break;
	case RC_TRAILER:
		snprintf(tail, sizeof(tail), "the trailer, read as none");
		break;
	case RC_AFTER_END:
		snprintf(tail, sizeof(tail), "after the trailer: the end");
		break;
	case RC_GAVE_UP:
		snprintf(tail, sizeof(tail),
			 "gave up resyncing at byte %llu: too much damage, %llu bytes skipped",
			 (unsigned long long)l->d.gave_up, bytes);
		break;
	}
	if (l->d.gave_up && l->how != RC_GAVE_UP)
		snprintf(more, sizeof(more), "; gave up resyncing at byte %llu: too much damage",
			 (unsigned long long)l->d.gave_up);
	snprintf(l->msg, sizeof(l->msg), "corrupt block at byte %llu: %s; %s%s",
		 (unsigned long long)s->start, l->why, tail, more);
}

int rc_damage_log__add(struct rc_damage_log *l, uint64_t start, uint64_t end, const char *why,
		       enum rc_stretch_end how, uint64_t chunks, uint64_t records)
{
	struct rc_stretch *last = l->ns ? &l->s[l->ns - 1] : NULL;
	int err;

	if (last && last->end == start) {
		last->end = end;
	} else {
		err = rc_ensure_arr(&l->s, &l->cap, l->ns + 1, 8);
		if (err)
			return err;
		l->s[l->ns++] = (struct rc_stretch){ start, end };
		l->d.stretches++;
	}
	if (l->ns == 1) {
		if (!l->why[0])
			snprintf(l->why, sizeof(l->why), "%s", why);
		l->how = how;
		l->d.offset = l->s[0].start;
		l->d.resync = l->s[0].end;
	}
	if (l->ns == 1 || how == RC_GAVE_UP)
		set_msg(l);
	l->d.bytes += end - start;
	if (!l->d.exact) {
		l->d.chunks += chunks;
		l->d.records += records;
	}
	return 0;
}

/* Whether @off lies in a stretch: they are in file order, and apart. */
static bool in_stretch(const struct rc_damage_log *l, uint64_t off)
{
	size_t lo = 0, hi = l->ns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (off < l->s[mid].start)
			hi = mid;
		else if (off >= l->s[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

void rc_damage_log__count_index(struct rc_damage_log *l, const struct rc_chunk_index *idx,
				uint32_t n)
{
	uint32_t i;

	l->d.chunks = l->d.records = 0;
	l->d.exact = true;
	for (i = 0; i < n; i++) {
		if (in_stretch(l, idx[i].offset)) {
			l->d.chunks++;
			l->d.records += idx[i].nrec;
		}
	}
}

void rc_damage_log__free(struct rc_damage_log *l)
{
	free(l->s);
	l->s = NULL;
	l->ns = l->cap = 0;
}
