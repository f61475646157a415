// SPDX-License-Identifier: GPL-2.0-only
/*
 * The capture writer's writes (writer_priv.h): every byte goes out through
 * rc_writer__write_all(), which first reserves room for it and for the
 * file's end (the last counters, the trailer, the end block): preallocated,
 * and below the file size limit. A write that finds no room cuts the
 * writer; rc_writer__end_cut() then ends the file at its last complete
 * block, in the room kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "format/writer_priv.h"
#include "util/util.h"

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

void rc_writer__release_room(struct rc_writer *w)
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
	rc_writer__drop_held(w);
	w->raw.len = w->nspans = w->span_len = 0;
	return err;
}

int rc_writer__write_all(struct rc_writer *w, const void *buf, size_t len)
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

int rc_writer__write_block(struct rc_writer *w, uint32_t type, const void *payload, size_t len)
{
	uint32_t hdr[4];
	int err;

	if (len > (type == RC_BLOCK_TRAILER ? RC_MAX_TRAILER : RC_MAX_BLOCK))
		return -E2BIG;
	hdr[0] = RC_FRAME_MAGIC;
	hdr[1] = len + 8;
	hdr[2] = type;
	hdr[3] = rc_block_crc(type, payload, len);
	err = rc_writer__write_all(w, hdr, sizeof(hdr)) ?: rc_writer__write_all(w, payload, len);
	if (err)
		return err;
	if (type != RC_BLOCK_CHUNK) /* a chunk is complete with its data (put_chunk()) */
		w->good = w->offset;
	return 0;
}
/*
 * A cut writer's end: back to the end of its last complete block, the
 * newest counters there, the trailer and the end block, in the room
 * reserve() kept; what came after is cut off. When even that does not fit
 * (a file system that does not preallocate), the file ends at @good, cut
 * short.
 */
int rc_writer__end_cut(struct rc_writer *w)
{
	int err = 0;

	w->cut = 0;
	w->can_cut = false; /* no more cutting: the end is written or not */
	if (lseek(w->fd, w->good, SEEK_SET) < 0)
		err = -errno;
	w->offset = w->good;
	if (!err && w->cut_stats.len)
		err = rc_writer__write_block(w, RC_BLOCK_STATS, w->cut_stats.buf, w->cut_stats.len);
	err = err ?: rc_writer__write_trailer(w);
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
