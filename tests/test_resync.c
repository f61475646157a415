// SPDX-License-Identifier: GPL-2.0-only
/*
 * One bad block does not end the read (ringcap-file(5), DAMAGE): a capture
 * of 7 chunks of 1000 numbered records, damaged in one way or another in
 * its third chunk, still gives every record of the other six, in order,
 * from memory, a file or a pipe; the loss is counted exactly when the
 * trailer is read, and the first damage is said with its offsets. Then
 * the same through ringcap report and ringcap stat.
 */
#include <errno.h>
#include <linux/types.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "events.h"
#include "format/format.h"
#include "format/resync.h"
#include "capture_util.h"
#include "run_util.h"
#include "test_progs.h"

#define NCHUNKS	  7
#define PER_CHUNK 1000
#define NREC	  (NCHUNKS * PER_CHUNK)

/* The capture, and where its blocks are. */
struct layout {
	struct mem_capture mc;
	uint64_t chunk[NCHUNKS]; /* offsets of the chunk blocks */
	uint64_t stats, trailer, end;
};

static bool make_layout(struct layout *l)
{
	size_t off, i = 0;

	memset(l, 0, sizeof(*l));
	/* 112-byte syscall records: a chunk is cut at 1000 of them */
	if (!ASSERT_OK(make_capture(&l->mc, NREC, PER_CHUNK * sizeof(struct rc_ev_syscall)),
		       "make_capture"))
		return false;
	for (off = 0; off + RC_BLOCK_HDR_SIZE <= l->mc.len;) {
		uint32_t h[4];
		struct rc_disk_chunk dc;

		memcpy(h, l->mc.buf + off, sizeof(h));
		if (h[2] == RC_BLOCK_CHUNK && i < NCHUNKS) {
			memcpy(&dc, l->mc.buf + off + RC_BLOCK_HDR_SIZE, sizeof(dc));
			l->chunk[i++] = off;
			off += 8 + h[1] + dc.data_size;
			continue;
		}
		if (h[2] == RC_BLOCK_STATS)
			l->stats = off;
		else if (h[2] == RC_BLOCK_TRAILER)
			l->trailer = off;
		else if (h[2] == RC_BLOCK_END)
			l->end = off;
		off += 8 + h[1];
	}
	return ASSERT_EQ(i, NCHUNKS, "chunks") && ASSERT_TRUE(l->trailer && l->end, "trailer");
}

/* The offset of the block after chunk @i. */
static uint64_t after_chunk(const struct layout *l, int i)
{
	return i + 1 < NCHUNKS ? l->chunk[i + 1] : l->trailer;
}

static void put32(struct layout *l, uint64_t off, uint32_t v)
{
	memcpy(l->mc.buf + off, &v, sizeof(v));
}

enum source { FROM_MEM, FROM_FILE, FROM_PIPE };

/* What a read gave. */
struct got {
	long n;	      /* records, or -errno */
	bool ordered; /* each the next of those written, but for @skipped */
	bool truncated, damaged, trailer;
	struct rc_damage d;
	char msg[256];
};

/* Records numbered from 0 (ret): each one written, in order, none of the chunks in @lost. */
static bool expected(const struct rc_rec_hdr *rec, int64_t *next, unsigned int lost)
{
	const struct rc_ev_syscall *e = (const void *)rec;

	while (*next < NREC && lost & (1u << (*next / PER_CHUNK)))
		*next += PER_CHUNK;
	if (rec->size != sizeof(*e) || e->ret != *next || rec->ts != 1000 + 10ull * *next)
		return false;
	(*next)++;
	return true;
}

/* A child writes @len bytes of @buf into a pipe: its read end, or -1. */
static int pipe_from(const void *buf, size_t len, pid_t *pid)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	*pid = fork();
	if (*pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!*pid) {
		const char *p = buf;

		close(fds[0]);
		while (len) {
			ssize_t k = write(fds[1], p, len);

			if (k <= 0)
				_exit(1);
			p += k;
			len -= k;
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

static bool write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(buf, 1, len, f) == len;

	if (f)
		ok = !fclose(f) && ok;
	return ok;
}

/* Read the first @len bytes of @l's capture from @src; chunks in @lost must not come. */
static void read_capture(const struct layout *l, size_t len, enum source src, unsigned int lost,
			 struct got *g)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r = NULL;
	char path[64];
	int64_t next = 0;
	pid_t pid = -1;
	int fd = -1, err, st;

	memset(g, 0, sizeof(*g));
	g->ordered = true;
	if (src == FROM_MEM) {
		r = rc_reader__open_mem(l->mc.buf, len);
	} else if (src == FROM_FILE) {
		if (write_file(tmpfile_path("r.rcap"), l->mc.buf, len))
			r = rc_reader__open(tmpfile_path("r.rcap"));
	} else {
		fd = pipe_from(l->mc.buf, len, &pid);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (fd >= 0)
			r = rc_reader__open(path);
	}
	if (!r) {
		g->n = -errno;
		goto out;
	}
	while ((err = rc_reader__next(r, &rec)) > 0) {
		if (g->ordered && !expected(rec, &next, lost))
			g->ordered = false;
		g->n++;
	}
	if (err < 0)
		g->n = err;
	g->truncated = rc_reader__truncated(r);
	g->damaged = rc_reader__corrupt(r, &g->d);
	g->trailer = rc_reader__trailer(r) != NULL;
	snprintf(g->msg, sizeof(g->msg), "%s", rc_reader__error(r));
out:
	rc_reader__free(r);
	if (fd >= 0)
		close(fd);
	if (pid > 0) {
		kill(pid, SIGKILL); /* the reader may stop before all is written */
		waitpid(pid, &st, 0);
	}
	if (src == FROM_FILE)
		unlink(tmpfile_path("r.rcap"));
}

static const char *const source_names[] = { "memory", "file", "pipe" };

/*
 * Chunk @i damaged: read from each source, every record of every other
 * chunk comes in order, and the loss is exactly chunk @i's, said from
 * @off (where the damage is found) on to @resync.
 */
static void expect_one_lost(const struct layout *l, int i, uint64_t off, uint64_t resync,
			    const char *why)
{
	char want[160];
	struct got g;
	int src;

	for (src = FROM_MEM; src <= FROM_PIPE; src++) {
		const char *s = source_names[src];

		read_capture(l, l->mc.len, src, 1u << i, &g);
		if (!ASSERT_EQ(g.n, NREC - PER_CHUNK, s) || !ASSERT_TRUE(g.ordered, s) ||
		    !ASSERT_TRUE(g.damaged && !g.truncated && g.trailer, s))
			continue;
		ASSERT_EQ(g.d.chunks, 1, "chunks lost");
		ASSERT_EQ(g.d.records, PER_CHUNK, "records lost");
		ASSERT_TRUE(g.d.exact, "counted from the index");
		ASSERT_EQ(g.d.stretches, 1, "stretches");
		ASSERT_EQ(g.d.gave_up, 0, "resynced, not given up");
		ASSERT_EQ(g.d.offset, off, "damage at");
		ASSERT_EQ(g.d.resync, resync, "resynced at");
		ASSERT_EQ(g.d.bytes, resync - off, "bytes skipped");
		if (!why) { /* zstd's words */
			snprintf(want, sizeof(want),
				 "corrupt block at byte %llu: ", (unsigned long long)off);
			ASSERT_TRUE(!strncmp(g.msg, want, strlen(want)), "message");
			snprintf(want, sizeof(want), "; resynced at byte %llu, %llu bytes skipped",
				 (unsigned long long)resync, (unsigned long long)(resync - off));
			ASSERT_HAS(g.msg, want, "message");
			continue;
		}
		snprintf(
		    want, sizeof(want),
		    "corrupt block at byte %llu: %s; resynced at byte %llu, %llu bytes skipped",
		    (unsigned long long)off, why, (unsigned long long)resync,
		    (unsigned long long)(resync - off));
		ASSERT_STREQ(g.msg, want, "message");
	}
}

/* Each kind of damage to the third chunk of seven. */
void test_resync_damage(void)
{
	struct layout l;
	uint64_t c, next, end;
	uint32_t fsz, dsz;

	if (!make_layout(&l))
		return;
	c = l.chunk[2];
	next = after_chunk(&l, 2);
	memcpy(&fsz, l.mc.buf + c + 4, 4);
	memcpy(&dsz, l.mc.buf + c + RC_BLOCK_HDR_SIZE + 28, 4);
	end = c + 8 + fsz; /* its block's end; its data follows */

	if (test__start_subtest("data_byte")) {
		/* in its zstd frame: the frame's checksum, not the block's CRC, finds it */
		l.mc.buf[end + dsz / 2] ^= 0x5a;
		expect_one_lost(&l, 2, c, next, NULL);
		l.mc.buf[end + dsz / 2] ^= 0x5a;
	}
	if (test__start_subtest("block_crc")) {
		/* its nrec, under the block's CRC */
		l.mc.buf[c + RC_BLOCK_HDR_SIZE + 4] ^= 0x01;
		expect_one_lost(&l, 2, c, next, "block checksum mismatch");
		l.mc.buf[c + RC_BLOCK_HDR_SIZE + 4] ^= 0x01;
	}
	if (test__start_subtest("magic")) {
		l.mc.buf[c] ^= 0xff;
		expect_one_lost(&l, 2, c, next, "bad block magic");
		l.mc.buf[c] ^= 0xff;
	}
	if (test__start_subtest("length_huge")) {
		put32(&l, c + 4, 0xfffffff0u);
		expect_one_lost(&l, 2, c, next, "block length out of range");
		put32(&l, c + 4, fsz);
	}
	if (test__start_subtest("length_past_the_end")) {
		/* in a STATS block's range (16 MiB at most), but the file is smaller */
		put32(&l, c + 4, 8u << 20);
		put32(&l, c + 8, RC_BLOCK_STATS);
		expect_one_lost(&l, 2, c, next, "block length past the end of the file");
		put32(&l, c + 4, fsz);
		put32(&l, c + 8, RC_BLOCK_CHUNK);
	}
	if (test__start_subtest("length_of_another_type")) {
		/* a chunk's header is 32 to 4096 bytes: not read, whatever follows */
		put32(&l, c + 4, 8 + 4100);
		expect_one_lost(&l, 2, c, next, "block length out of range");
		put32(&l, c + 4, fsz);
	}
	if (test__start_subtest("length_into_the_next_block")) {
		/* the block would end 20 bytes into the next chunk's */
		put32(&l, c + 4, next - c - 8 + 20);
		expect_one_lost(&l, 2, c, next, "block checksum mismatch");
		put32(&l, c + 4, fsz);
	}
	if (test__start_subtest("type")) {
		/* a type of a later minor: its CRC, over the type, finds it */
		put32(&l, c + 8, RC_BLOCK_END + 1);
		expect_one_lost(&l, 2, c, next, "block checksum mismatch");
		/* a STATS block is 56 bytes at least: its length finds it */
		put32(&l, c + 8, RC_BLOCK_STATS);
		expect_one_lost(&l, 2, c, next, "block length out of range");
		put32(&l, c + 8, RC_BLOCK_CHUNK);
	}
	if (test__start_subtest("last_chunk")) {
		/* the next good block is the trailer */
		l.mc.buf[l.chunk[6]] ^= 0xff;
		expect_one_lost(&l, 6, l.chunk[6], l.trailer, "bad block magic");
		l.mc.buf[l.chunk[6]] ^= 0xff;
	}
	if (test__start_subtest("intact")) {
		struct got g;

		read_capture(&l, l.mc.len, FROM_PIPE, 0, &g);
		ASSERT_TRUE(g.n == NREC && g.ordered && !g.damaged && !g.truncated, "every record");
		ASSERT_STREQ(g.msg, "", "no message");
	}
	free(l.mc.buf);
	tmpdir_cleanup();
}

/* Two chunks apart: two stretches; two in a row: one. */
void test_resync_stretches(void)
{
	struct layout l;
	struct got g;
	int src;

	if (!make_layout(&l))
		return;
	if (test__start_subtest("apart")) {
		l.mc.buf[l.chunk[1] + RC_BLOCK_HDR_SIZE] ^= 0x10;
		l.mc.buf[l.chunk[4]] ^= 0x10;
		for (src = FROM_MEM; src <= FROM_PIPE; src++) {
			read_capture(&l, l.mc.len, src, 1u << 1 | 1u << 4, &g);
			ASSERT_EQ(g.n, NREC - 2 * PER_CHUNK, source_names[src]);
			ASSERT_TRUE(g.ordered && g.damaged && g.trailer && g.d.exact, "read");
			ASSERT_EQ(g.d.stretches, 2, "stretches");
			ASSERT_EQ(g.d.chunks, 2, "chunks lost");
			ASSERT_EQ(g.d.records, 2 * PER_CHUNK, "records lost");
			ASSERT_EQ(g.d.bytes, l.chunk[2] - l.chunk[1] + l.chunk[5] - l.chunk[4],
				  "bytes");
			/* the message is the first's */
			ASSERT_EQ(g.d.offset, l.chunk[1], "first at");
			ASSERT_EQ(g.d.resync, l.chunk[2], "first resynced at");
		}
		l.mc.buf[l.chunk[1] + RC_BLOCK_HDR_SIZE] ^= 0x10;
		l.mc.buf[l.chunk[4]] ^= 0x10;
	}
	if (test__start_subtest("in_a_row")) {
		l.mc.buf[l.chunk[2] + RC_BLOCK_HDR_SIZE] ^= 0x10;
		l.mc.buf[l.chunk[3]] ^= 0x10;
		for (src = FROM_MEM; src <= FROM_PIPE; src++) {
			read_capture(&l, l.mc.len, src, 1u << 2 | 1u << 3, &g);
			ASSERT_EQ(g.n, NREC - 2 * PER_CHUNK, source_names[src]);
			ASSERT_TRUE(g.ordered && g.damaged && g.trailer && g.d.exact, "read");
			ASSERT_EQ(g.d.stretches, 1, "stretches");
			ASSERT_EQ(g.d.chunks, 2, "chunks lost");
			ASSERT_EQ(g.d.records, 2 * PER_CHUNK, "records lost");
			ASSERT_EQ(g.d.offset, l.chunk[2], "from");
			ASSERT_EQ(g.d.resync, l.chunk[4], "to");
			ASSERT_HAS(g.msg, "resynced at byte", "message");
		}
		l.mc.buf[l.chunk[2] + RC_BLOCK_HDR_SIZE] ^= 0x10;
		l.mc.buf[l.chunk[3]] ^= 0x10;
	}
	free(l.mc.buf);
	tmpdir_cleanup();
}

/*
 * Without the trailer (the file cut before it) the loss is what the damaged
 * block tells: a chunk, by its type; its records, when its header is good.
 */
void test_resync_no_trailer(void)
{
	struct layout l;
	struct got g;
	uint32_t fsz, dsz;
	int src;

	if (!make_layout(&l))
		return;
	memcpy(&fsz, l.mc.buf + l.chunk[2] + 4, 4);
	memcpy(&dsz, l.mc.buf + l.chunk[2] + RC_BLOCK_HDR_SIZE + 28, 4);
	if (test__start_subtest("bad_block")) {
		l.mc.buf[l.chunk[2]] ^= 0xff;
		for (src = FROM_MEM; src <= FROM_PIPE; src++) {
			read_capture(&l, l.trailer, src, 1u << 2, &g);
			ASSERT_EQ(g.n, NREC - PER_CHUNK, source_names[src]);
			ASSERT_TRUE(g.ordered && g.damaged && g.truncated && !g.trailer, "read");
			ASSERT_TRUE(!g.d.exact, "a lower bound");
			ASSERT_EQ(g.d.chunks, 1, "its type says chunk");
			ASSERT_EQ(g.d.records, 0, "its records unknown");
		}
		l.mc.buf[l.chunk[2]] ^= 0xff;
	}
	if (test__start_subtest("bad_data")) {
		l.mc.buf[l.chunk[2] + 8 + fsz + dsz / 2] ^= 0xff;
		for (src = FROM_MEM; src <= FROM_PIPE; src++) {
			read_capture(&l, l.trailer, src, 1u << 2, &g);
			ASSERT_EQ(g.n, NREC - PER_CHUNK, source_names[src]);
			ASSERT_TRUE(g.ordered && g.damaged && g.truncated && !g.d.exact, "read");
			ASSERT_EQ(g.d.chunks, 1, "chunks");
			ASSERT_EQ(g.d.records, PER_CHUNK, "its good header's records");
		}
		l.mc.buf[l.chunk[2] + 8 + fsz + dsz / 2] ^= 0xff;
	}
	if (test__start_subtest("bad_last_block")) {
		/* nothing good after the damage: damaged and truncated */
		l.mc.buf[l.chunk[6]] ^= 0xff;
		read_capture(&l, l.trailer, FROM_PIPE, 1u << 6, &g);
		ASSERT_EQ(g.n, NREC - PER_CHUNK, "records");
		ASSERT_TRUE(g.ordered && g.damaged && g.truncated, "read");
		ASSERT_EQ(g.d.resync, l.trailer, "to the end");
		ASSERT_HAS(g.msg, "no good block after it", "message");
		l.mc.buf[l.chunk[6]] ^= 0xff;
	}
	if (test__start_subtest("skip_past_the_end")) {
		/*
		 * a good chunk header of an unknown codec, its data claimed
		 * past the end: passed over to the end, from every source
		 */
		uint64_t c = l.chunk[6] + RC_BLOCK_HDR_SIZE;
		unsigned char save[32];
		struct rc_disk_chunk dc;
		uint32_t crc;

		memcpy(save, l.mc.buf + c, sizeof(save));
		memcpy(&dc, l.mc.buf + c, sizeof(dc));
		dc.codec = 99;
		dc.data_size = 1u << 20;
		memcpy(l.mc.buf + c, &dc, sizeof(dc));
		crc = rc_block_crc(RC_BLOCK_CHUNK, &dc, sizeof(dc));
		put32(&l, l.chunk[6] + 12, crc);
		for (src = FROM_MEM; src <= FROM_PIPE; src++) {
			read_capture(&l, l.mc.len, src, 1u << 6, &g);
			ASSERT_EQ(g.n, NREC - PER_CHUNK, source_names[src]);
			ASSERT_TRUE(g.damaged && g.truncated && !g.trailer, "damaged and cut short");
			ASSERT_EQ(g.d.resync, l.mc.len, "to the end");
			ASSERT_EQ(g.d.bytes, l.mc.len - l.chunk[6], "bytes");
			ASSERT_HAS(g.msg, "unknown codec; no good block after it", "message");
		}
		memcpy(l.mc.buf + c, save, sizeof(save));
		put32(&l, l.chunk[6] + 12, rc_block_crc(RC_BLOCK_CHUNK, save, sizeof(save)));
	}
	if (test__start_subtest("cut_is_not_damage")) {
		/* cut inside a chunk's block, its data, the trailer: truncated only */
		static const int into[] = { 10, 40, 300 };
		size_t k;

		for (k = 0; k < sizeof(into) / sizeof(into[0]); k++) {
			read_capture(&l, l.chunk[5] + into[k], FROM_PIPE, 1u << 5 | 1u << 6, &g);
			ASSERT_TRUE(g.n == 5 * PER_CHUNK && g.ordered && g.truncated && !g.damaged,
				    "cut in a chunk");
		}
		read_capture(&l, l.trailer + 30, FROM_MEM, 0, &g);
		ASSERT_TRUE(g.n == NREC && g.truncated && !g.damaged, "cut in the trailer");
	}
	free(l.mc.buf);
	tmpdir_cleanup();
}

/* The blocks that are not chunks: the header, counters, the trailer, the end. */
void test_resync_blocks(void)
{
	struct layout l;
	struct got g;

	if (!make_layout(&l))
		return;
	if (test__start_subtest("header")) {
		l.mc.buf[40] ^= 0x01;
		read_capture(&l, l.mc.len, FROM_MEM, 0, &g);
		ASSERT_EQ(g.n, -EBADMSG, "a corrupt header stays fatal");
		read_capture(&l, l.mc.len, FROM_PIPE, 0, &g);
		ASSERT_EQ(g.n, -EBADMSG, "from a pipe too");
		l.mc.buf[40] ^= 0x01;
	}
	if (test__start_subtest("stats")) {
		l.mc.buf[l.stats + RC_BLOCK_HDR_SIZE] ^= 0x01;
		read_capture(&l, l.mc.len, FROM_PIPE, 0, &g);
		ASSERT_TRUE(g.n == NREC && g.ordered && g.damaged && g.trailer, "every record");
		ASSERT_TRUE(g.d.exact && !g.d.chunks && !g.d.records, "no chunk lost");
		ASSERT_EQ(g.d.resync, l.chunk[0], "resynced at the first chunk");
		l.mc.buf[l.stats + RC_BLOCK_HDR_SIZE] ^= 0x01;
	}
	if (test__start_subtest("trailer")) {
		/* read as none: not scanned, the read ends there */
		l.mc.buf[l.trailer + RC_BLOCK_HDR_SIZE + 100] ^= 0x01;
		read_capture(&l, l.mc.len, FROM_PIPE, 0, &g);
		ASSERT_TRUE(g.n == NREC && g.ordered && g.damaged && !g.trailer && !g.truncated,
			    "every record, no trailer");
		ASSERT_TRUE(!g.d.chunks && !g.d.records && !g.d.exact, "nothing counted");
		ASSERT_EQ(g.d.offset, l.trailer, "at the trailer");
		ASSERT_HAS(g.msg, "block checksum mismatch; the trailer, read as none", "message");
		l.mc.buf[l.trailer + RC_BLOCK_HDR_SIZE + 100] ^= 0x01;
	}
	if (test__start_subtest("trailer_index")) {
		/* its count of chunks says how long it is: checked before the rest is read */
		uint32_t nindex;

		memcpy(&nindex, l.mc.buf + l.trailer + RC_BLOCK_HDR_SIZE + 48, 4);
		ASSERT_EQ(nindex, NCHUNKS, "nindex");
		put32(&l, l.trailer + RC_BLOCK_HDR_SIZE + 48, nindex + 1);
		read_capture(&l, l.mc.len, FROM_PIPE, 0, &g);
		ASSERT_TRUE(g.n == NREC && g.damaged && !g.trailer && !g.truncated,
			    "every record, no trailer");
		ASSERT_HAS(g.msg,
			   "trailer length differs from its index; the trailer, read as none",
			   "message");
		put32(&l, l.trailer + RC_BLOCK_HDR_SIZE + 48, nindex);
	}
	if (test__start_subtest("trailer_fits")) {
		struct rc_disk_trailer dt = { .nindex = 1000 };
		size_t len = sizeof(dt) + 1000 * sizeof(struct rc_disk_index);

		ASSERT_TRUE(rc_trailer__fits(&dt, len, 1000 * 48), "1000 chunks of 48 bytes");
		ASSERT_TRUE(!rc_trailer__fits(&dt, len, 1000 * 48 - 1), "no room for them");
		ASSERT_TRUE(!rc_trailer__fits(&dt, len + 32, 1 << 20), "longer than its index");
		ASSERT_TRUE(!rc_trailer__fits(&dt, len - 32, 1 << 20), "shorter");
		ASSERT_TRUE(rc_block__len_fits(RC_BLOCK_TRAILER, RC_MAX_TRAILER - 8, false),
			    "1 GiB, of its shape");
		ASSERT_TRUE(!rc_block__len_fits(RC_BLOCK_TRAILER, 100, false), "not of its shape");
		ASSERT_TRUE(rc_block__len_fits(RC_BLOCK_LINES + 1, RC_MAX_BLOCK, false),
			    "a later type, in order");
		ASSERT_TRUE(!rc_block__len_fits(RC_BLOCK_LINES + 1, 8, true), "never found");
		ASSERT_TRUE(rc_block__len_fits(RC_BLOCK_STACKS, 8, true), "stacks: found");
		ASSERT_TRUE(!rc_block__len_fits(RC_BLOCK_STACKS, 4, false), "stacks: too short");
		ASSERT_TRUE(rc_block__len_fits(RC_BLOCK_LINES, 16, true), "lines: found");
		ASSERT_TRUE(!rc_block__len_fits(RC_BLOCK_LINES, 8, false), "lines: too short");
		ASSERT_TRUE(!rc_block__len_fits(RC_BLOCK_CHUNK, 4097, false), "a chunk's header");
	}
	if (test__start_subtest("trailer_magic")) {
		/* not known as the trailer: the END block after it is found */
		l.mc.buf[l.trailer] ^= 0x01;
		read_capture(&l, l.mc.len, FROM_MEM, 0, &g);
		ASSERT_TRUE(g.n == NREC && g.damaged && !g.trailer && !g.truncated,
			    "every record, no trailer");
		ASSERT_EQ(g.d.resync, l.end, "resynced at the end block");
		l.mc.buf[l.trailer] ^= 0x01;
	}
	if (test__start_subtest("end")) {
		l.mc.buf[l.end + RC_BLOCK_HDR_SIZE] ^= 0x01;
		read_capture(&l, l.mc.len, FROM_FILE, 0, &g);
		ASSERT_TRUE(g.n == NREC && g.damaged && g.trailer && g.d.exact && !g.d.chunks,
			    "every record, the trailer");
		ASSERT_HAS(g.msg, "after the trailer", "message");
		l.mc.buf[l.end + RC_BLOCK_HDR_SIZE] ^= 0x01;
	}
	free(l.mc.buf);
	tmpdir_cleanup();
}

/* ---- what damage may cost ------------------------------------------------ */

#define CRAFTED (4u << 20) /* bytes of crafted damage: took minutes before the budget */

enum craft { CRAFT_STATS, CRAFT_TRAILER, CRAFT_PAIR, CRAFT_PAIR_CUT };

static const char *const craft_names[] = { "stats", "trailer", "pair", "pair_cut" };

static void put_hdr(unsigned char *p, uint32_t size, uint32_t type, uint32_t crc)
{
	uint32_t h[4] = { RC_FRAME_MAGIC, size, type, crc };

	memcpy(p, h, sizeof(h));
}

/*
 * A capture's header block, 16 bytes of junk, then CRAFTED bytes of
 * headers that lie about their lengths, as ringcap-file(5)'s DAMAGE bound
 * is meant for:
 * - stats: a STATS header every 16 bytes, each claiming the rest (at most
 *   16 MiB), its CRC wrong: each candidate of the scan is CRC'd whole;
 * - trailer: a TRAILER header every 80 bytes, its count agreeing with its
 *   length, as long as rc_trailer__fits() lets it be;
 * - pair: a good 72-byte STATS block, then a header of a later type
 *   claiming the rest, read in order: all of it read and CRC'd each time;
 * - pair_cut: the same, the header claiming 16 MiB, past the end.
 */
static bool make_crafted(const struct layout *l, enum craft how, struct mem_capture *c)
{
	struct rc_disk_stats ds = { .entry_size = sizeof(struct rc_disk_stat) };
	size_t hdr, start, end, p, rest, n;
	uint32_t fsz;

	memcpy(&fsz, l->mc.buf + 4, 4);
	hdr = 8 + fsz; /* the header block */
	start = hdr + 16;
	end = start + CRAFTED;
	c->len = end;
	c->buf = calloc(1, end + 80);
	if (!ASSERT_OK_PTR(c->buf, "alloc"))
		return false;
	memcpy(c->buf, l->mc.buf, hdr);
	memset(c->buf + hdr, 'X', 16);
	for (p = start; p < end;) {
		rest = end - p - RC_BLOCK_HDR_SIZE;
		switch (how) {
		case CRAFT_STATS:
			rest = rest < sizeof(ds) ? sizeof(ds) : rest;
			put_hdr(c->buf + p, 8 + (rest < RC_MAX_BLOCK ? rest : RC_MAX_BLOCK),
				RC_BLOCK_STATS, 0);
			p += 16;
			break;
		case CRAFT_TRAILER: {
			struct rc_disk_trailer dt = {};

			n = rest < sizeof(dt) ? 0
					      : (rest - sizeof(dt)) / sizeof(struct rc_disk_index);
			n = n < p / 48 ? n : p / 48;
			dt.nrec = dt.nchunks = dt.nindex = n;
			put_hdr(c->buf + p, 8 + sizeof(dt) + n * sizeof(struct rc_disk_index),
				RC_BLOCK_TRAILER, 0);
			memcpy(c->buf + p + 16, &dt, sizeof(dt));
			p += 80;
			break;
		}
		case CRAFT_PAIR:
		case CRAFT_PAIR_CUT:
			put_hdr(c->buf + p, 8 + sizeof(ds), RC_BLOCK_STATS,
				rc_block_crc(RC_BLOCK_STATS, &ds, sizeof(ds)));
			memcpy(c->buf + p + 16, &ds, sizeof(ds));
			p += 16 + sizeof(ds);
			rest = p + 16 < end ? end - p - 16 : 0;
			put_hdr(c->buf + p, 8 + (how == CRAFT_PAIR_CUT ? RC_MAX_BLOCK : rest),
				RC_BLOCK_END + 1, 0);
			p += 16;
			break;
		}
	}
	return true;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Crafted damage costs at most the budget and one block more, so a read
 * is linear in the file's size: the reader gives up, says so, and passes
 * over the rest. The CPU time is printed, not asserted.
 */
void test_resync_budget(void)
{
	struct layout l, c = {};
	enum craft how;
	struct got g;
	int src;

	if (!make_layout(&l))
		return;
	for (how = CRAFT_STATS; how <= CRAFT_PAIR_CUT; how++) {
		if (!test__start_subtest(craft_names[how]) || !make_crafted(&l, how, &c.mc))
			continue;
		for (src = FROM_MEM; src <= FROM_PIPE; src++) {
			const char *s = source_names[src];
			double t = cpu_seconds();

			read_capture(&c, c.mc.len, src, 0, &g);
			t = cpu_seconds() - t;
			printf("    %s from %s: %.3f s of CPU, %llu bytes of bad blocks CRC'd, "
			       "gave up at byte %llu\n",
			       craft_names[how], s, t, (unsigned long long)g.d.spent,
			       (unsigned long long)g.d.gave_up);
			if (!ASSERT_EQ(g.n, 0, s) || !ASSERT_TRUE(g.damaged && !g.truncated, s))
				continue;
			ASSERT_TRUE(g.d.gave_up > g.d.offset && g.d.gave_up < c.mc.len, "gave up");
			ASSERT_TRUE(g.d.spent <= rc_resync__budget(g.d.gave_up) +
						     RC_BLOCK_HDR_SIZE + RC_MAX_BLOCK,
				    "the budget and one block");
			if (how == CRAFT_STATS || how == CRAFT_TRAILER)
				ASSERT_EQ(g.d.bytes, c.mc.len - g.d.offset, "the rest passed over");
			ASSERT_HAS(g.msg, "gave up resyncing at byte", "message");
			ASSERT_HAS(g.msg, ": too much damage", "message");
		}
		free(c.mc.buf);
	}
	if (test__start_subtest("report") && make_crafted(&l, CRAFT_STATS, &c.mc)) {
		const char *path = tmpfile_path("crafted.rcap");
		struct run r = {};

		if (ASSERT_TRUE(write_file(path, c.mc.buf, c.mc.len), "write") &&
		    ASSERT_EQ(
			run_sync(&r,
				 (char *[]){ (char *)bin("ringcap"), "report", (char *)path, NULL },
				 60000),
			2, "exit status")) {
			ASSERT_HAS(r.err, ": too much damage, ", "where it gave up");
			ASSERT_TRUE(!strstr(r.err, "is truncated"), "not said truncated");
		}
		run_free(&r);
		free(c.mc.buf);
	}
	if (test__start_subtest("honest")) {
		/* every chunk's CRC wrong: each costs its own bytes, far from the budget */
		int i;

		for (i = 0; i < NCHUNKS; i++)
			l.mc.buf[l.chunk[i] + RC_BLOCK_HDR_SIZE + 4] ^= 0x01;
		for (src = FROM_MEM; src <= FROM_PIPE; src++) {
			read_capture(&l, l.mc.len, src, (1u << NCHUNKS) - 1, &g);
			ASSERT_EQ(g.n, 0, source_names[src]);
			ASSERT_TRUE(g.damaged && g.trailer && g.d.exact, "read to the trailer");
			ASSERT_EQ(g.d.chunks, NCHUNKS, "every chunk lost");
			ASSERT_EQ(g.d.gave_up, 0, "not given up");
			ASSERT_TRUE(g.d.spent > 0 && g.d.spent <= NCHUNKS * 4096, "spent");
		}
		for (i = 0; i < NCHUNKS; i++)
			l.mc.buf[l.chunk[i] + RC_BLOCK_HDR_SIZE + 4] ^= 0x01;
	}
	free(l.mc.buf);
	tmpdir_cleanup();
}

/* Lines of @text. */
static long lines(const char *text)
{
	long n = 0;

	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

/* python3 finds in the JSON at @path what @checks (an expression of d) says. */
static bool json_check(const char *path, const char *checks)
{
	char script[1024];
	struct run r = {};
	int rc;

	snprintf(script, sizeof(script),
		 "import json,sys\nd=json.load(open(sys.argv[1]))\nsys.exit(0 if %s else 1)\n",
		 checks);
	rc =
	    run_sync(&r, (char *[]){ "/usr/bin/python3", "-c", script, (char *)path, NULL }, 30000);
	if (rc)
		test__fail(__FILE__, __LINE__, "json", "not %s: %s", checks, r.err);
	run_free(&r);
	return rc == 0;
}

/*
 * ringcap report and stat of the file with its third chunk damaged: every
 * other event, the warning with where, exit status 2; stat counts the
 * damaged chunk's events as missing, apart from the kernel's drops.
 */
void test_resync_cli(void)
{
	const char *path = tmpfile_path("damaged.rcap"), *js = tmpfile_path("s.json");
	char *rc = (char *)bin("ringcap"), want[256], cmd[1024];
	struct run r = {};
	struct layout l;
	uint64_t c, next;

	if (!make_layout(&l))
		return;
	c = l.chunk[2];
	next = after_chunk(&l, 2);
	l.mc.buf[c + RC_BLOCK_HDR_SIZE + 4] ^= 0x01; /* its nrec: the block's CRC */
	if (!ASSERT_TRUE(write_file(path, l.mc.buf, l.mc.len), "write"))
		goto out;
	snprintf(want, sizeof(want),
		 "is damaged: corrupt block at byte %llu: block checksum mismatch; resynced at "
		 "byte %llu, %llu bytes skipped\n",
		 (unsigned long long)c, (unsigned long long)next, (unsigned long long)(next - c));
	if (test__start_subtest("report")) {
		if (ASSERT_EQ(run_sync(&r, (char *[]){ rc, "report", (char *)path, NULL }, 60000),
			      2, "exit status")) {
			ASSERT_EQ(lines(r.out), NREC - PER_CHUNK, "every other event");
			ASSERT_HAS(r.err, want, "where");
			snprintf(cmd, sizeof(cmd),
				 "1 chunk of 1000 events lost to damage, %llu bytes in 1 stretch: "
				 "shown are the events of the 6 chunks read\n",
				 (unsigned long long)(next - c));
			ASSERT_HAS(r.err, cmd, "what was lost");
		}
		run_free(&r);
	}
	if (test__start_subtest("report_pipe")) {
		snprintf(cmd, sizeof(cmd), "cat '%s' | '%s' report -", path, rc);
		if (ASSERT_EQ(run_sync(&r, (char *[]){ "/bin/sh", "-c", cmd, NULL }, 60000), 2,
			      "exit status")) {
			ASSERT_EQ(lines(r.out), NREC - PER_CHUNK, "every other event");
			ASSERT_HAS(r.err, want + strlen("is damaged: "), "where");
		}
		run_free(&r);
	}
	if (test__start_subtest("stat_json")) {
		if (ASSERT_EQ(
			run_sync(&r, (char *[]){ rc, "stat", "--json", (char *)path, NULL }, 60000),
			2, "exit status")) {
			ASSERT_HAS(r.err, want, "where");
			if (ASSERT_TRUE(write_file(js, r.out, strlen(r.out)), "save"))
				json_check(
				    js,
				    "not d['complete'] and d['damaged'] and "
				    "not d['truncated'] and d['events']==6000 and "
				    "d['corrupt']['chunks']==1 and "
				    "d['corrupt']['records']==1000 and "
				    "d['corrupt']['exact'] and d['cut_short']==0 and "
				    "d['total']['dropped']==5 and d['total']['missing']==1000 and "
				    "d['lost']==1005");
		}
		run_free(&r);
	}
	if (test__start_subtest("stat")) {
		if (ASSERT_EQ(run_sync(&r, (char *[]){ rc, "stat", (char *)path, NULL }, 60000), 2,
			      "exit status")) {
			ASSERT_HAS(r.out, ": DAMAGED, 6000 events in 6 chunks", "state");
			ASSERT_HAS(r.out, "# damaged: 1 chunk of 1000 events lost", "counts");
			ASSERT_HAS(r.out,
				   "5 dropped in the kernel (ring full), 0 in user space, 1000 "
				   "missing from the file (1000 in damaged chunks, 0 cut short)",
				   "apart from drops");
		}
		run_free(&r);
		if (ASSERT_EQ(run_sync(&r,
				       (char *[]){ rc, "stat", "--fail-on-drops=1000", (char *)path,
						   NULL },
				       60000),
			      3, "more lost than allowed"))
			ASSERT_HAS(r.err, "1005 events lost", "");
		run_free(&r);
	}
out:
	free(l.mc.buf);
	tmpdir_cleanup();
}
