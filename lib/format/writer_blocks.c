// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture file's blocks other than chunks (writer_priv.h): counters
 * (STATS, and BASE for a later file of a run), stacks and their lines, and
 * the file's end: the trailer, with the chunk index, and the end block.
 */
#include <errno.h>
#include <string.h>
#include "format/writer_priv.h"
#include "util/strbuf.h"

int rc_writer__add_stacks(struct rc_writer *w, const void *payload, size_t len)
{
	if (w->cut)
		return 0;
	return rc_writer__write_block(w, RC_BLOCK_STACKS, payload, len);
}

int rc_writer__add_lines(struct rc_writer *w, const void *payload, size_t len)
{
	if (w->cut)
		return 0;
	return rc_writer__write_block(w, RC_BLOCK_LINES, payload, len);
}

int rc_writer__add_buildids(struct rc_writer *w, const void *payload, size_t len)
{
	if (w->cut)
		return 0;
	return rc_writer__write_block(w, RC_BLOCK_BUILDIDS, payload, len);
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
		err = rc_writer__write_block(w, RC_BLOCK_STATS, sb.buf, sb.len);
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
	err = err ?: rc_writer__write_block(w, RC_BLOCK_BASE, sb.buf, sb.len);
	rc_strbuf__free(&sb);
	return err;
}

int rc_writer__write_trailer(struct rc_writer *w)
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
	err = err ?: rc_writer__write_block(w, RC_BLOCK_TRAILER, sb.buf, sb.len);
	err = err ?: rc_writer__write_block(w, RC_BLOCK_END, &trailer_off, sizeof(trailer_off));
	rc_strbuf__free(&sb);
	return err;
}
