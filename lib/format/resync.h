/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Getting past a corrupt block (ringcap-file(5), DAMAGE): the scan for the
 * next good block, and the log of what was passed over.
 */
#ifndef RINGCAP_FORMAT_RESYNC_H
#define RINGCAP_FORMAT_RESYNC_H

#include <stdbool.h>
#include <stdint.h>
#include "format/input.h"

/*
 * From the reading position, find the next good block: its magic, a length
 * its type can have (a HEADER's none), and a payload whose CRC matches.
 * Everything before it is read. Returns 1 with @in at that block, 0 when
 * the file ends first (all of it read), or -ENOMEM. Stops at a read error
 * too: look at @in->err.
 */
int rc_resync__scan(struct rc_input *in);

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
};

struct rc_damage_log {
	struct rc_damage d;
	struct rc_stretch *s;
	size_t ns, cap;
	char why[96];		 /* the first corrupt block's reason */
	enum rc_stretch_end how; /* and how its stretch ends */
	char msg[256];
};

/*
 * Note a damaged stretch from @start to @end: passed over for @why, ending
 * as @how says. @chunks and @records: what its corrupt block tells of the
 * chunks lost (see struct rc_damage). A stretch that starts where the last
 * one ends extends it. Returns 0, or -ENOMEM.
 */
int rc_damage__add(struct rc_damage_log *l, uint64_t start, uint64_t end, const char *why,
		   enum rc_stretch_end how, uint64_t chunks, uint64_t records);

/*
 * Count the chunks lost exactly, from a trailer's index of every chunk: those
 * whose block starts in a damaged stretch, and their records.
 */
void rc_damage__count_index(struct rc_damage_log *l, const struct rc_chunk_index *idx, uint32_t n);

void rc_damage__free(struct rc_damage_log *l);

#endif /* RINGCAP_FORMAT_RESYNC_H */
