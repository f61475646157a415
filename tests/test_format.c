// SPDX-License-Identifier: GPL-2.0-only
/* The capture format: round trip, ordering, truncation, corruption. */
#include <errno.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "events.h"
#include "format/format.h"
#include "format/writer_int.h"
#include "capture_util.h"
#include "test_progs.h"

void test_format_roundtrip(void)
{
	const struct rc_rec_hdr *rec;
	const struct rc_trailer *tr;
	const struct rc_stats *st;
	const struct rc_meta *m;
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	struct rc_strbuf sb = {};
	unsigned int i = 0;
	int err;

	if (!ASSERT_OK(make_capture(&mc, 1000, 4096), "make_capture"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	m = rc_reader__meta(r);
	ASSERT_EQ(m->version_major, 1, "major");
	ASSERT_STREQ(m->host, "testhost", "host");
	ASSERT_STREQ(m->kernel, "6.18.0-test", "kernel");
	ASSERT_STREQ(m->cmdline, "ringcap record -- test", "cmdline");
	ASSERT_EQ(m->ncpus, 2, "ncpus");
	ASSERT_EQ(m->recorder_pid, 4242, "recorder_pid");
	ASSERT_EQ(m->wall_offset_ns, 1700000000000000000ll, "wall offset");
	ASSERT_EQ(m->schema->nevents, rc_builtin_schema()->nevents, "events in schema");
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_ev_syscall *e = (const void *)rec;

		if (!ASSERT_EQ(rec->ts, 1000 + 10ull * i, "ts") || !ASSERT_EQ(e->ret, i, "ret") ||
		    !ASSERT_EQ(e->nr, 39, "nr") || !ASSERT_EQ(rec->cpu, i % 2, "cpu") ||
		    !ASSERT_STREQ(rec->comm, "unit", "comm"))
			goto out;
		i++;
	}
	ASSERT_EQ(err, 0, "end");
	ASSERT_EQ(i, 1000, "records");
	ASSERT_TRUE(!rc_reader__truncated(r), "complete");
	tr = rc_reader__trailer(r);
	if (ASSERT_OK_PTR(tr, "trailer")) {
		ASSERT_EQ(tr->nrec, 1000, "trailer nrec");
		ASSERT_EQ(tr->nchunks, rc_reader__chunks(r), "trailer nchunks");
		ASSERT_TRUE(tr->nchunks > 20, "several chunks");
		ASSERT_EQ(tr->first_ts, 1000, "first_ts");
		ASSERT_EQ(tr->last_ts, 1000 + 10 * 999, "last_ts");
		ASSERT_EQ(tr->late, 0, "late");
	}
	st = rc_reader__stats(r);
	if (ASSERT_OK_PTR(st, "stats") && ASSERT_EQ(st->nentries, 1, "stat entries")) {
		ASSERT_EQ(st->entries[0].made, 1005, "made");
		ASSERT_EQ(st->entries[0].dropped, 5, "dropped");
		ASSERT_EQ(st->entries[0].captured, 1000, "captured");
	}
	/* the decoder works from the stored schema: names, not numbers */
	rc_reader__free(r);
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (ASSERT_OK_PTR(r, "reopen") && ASSERT_EQ(rc_reader__next(r, &rec), 1, "first") &&
	    ASSERT_OK(rc_decode__text(&sb, rc_reader__meta(r), rec, 0), "decode"))
		ASSERT_STREQ(
		    sb.buf,
		    "            unit     100/101     [000] 0.000000000: syscall: nr=getpid "
		    "ret=0 duration=0ns args=[0x0,0x0,0x0,0x0,0x0,0x0]",
		    "text");
out:
	rc_strbuf__free(&sb);
	rc_reader__free(r);
	free(mc.buf);
}

static struct rc_ev_exit mk_exit(uint64_t ts, int code)
{
	struct rc_ev_exit e = {};

	e.hdr.ts = ts;
	e.hdr.type = RC_EV_SCHED_EXIT;
	e.hdr.size = sizeof(e);
	e.exit_code = code;
	return e;
}

/* Records given out of order within the window come out sorted; late ones are counted. */
void test_format_reorder(void)
{
	static const uint64_t ts[] = { 50, 10, 40, 20, 30, 100000000, 5 };
	struct rc_writer_opts wo = { .sz = sizeof(wo), .reorder_ns = 1000 };
	const struct rc_trailer *tr;
	const struct rc_rec_hdr *rec;
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	struct rc_writer *w;
	struct rc_meta m;
	char path[64];
	size_t i;
	int fd, err = 0;
	uint64_t prev = 0;
	unsigned int n = 0, late = 0;

	test_meta(&m);
	fd = memfd_create("reorder", 0);
	if (!ASSERT_TRUE(fd >= 0, "memfd"))
		return;
	w = rc_writer__new(fd, &m, &wo);
	if (!ASSERT_OK_PTR(w, "writer"))
		goto out;
	for (i = 0; i < 5; i++) {
		struct rc_ev_exit e = mk_exit(ts[i], i);

		err = err ?: rc_writer__add(w, &e, sizeof(e));
	}
	err = err ?: rc_writer__flush(w, false); /* nothing old enough yet */
	for (i = 5; i < 7; i++) {
		struct rc_ev_exit e = mk_exit(ts[i], i);

		err = err ?: rc_writer__add(w, &e, sizeof(e));
		err = err ?: rc_writer__flush(w, false);
	}
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ASSERT_OK(err, "write") || !ASSERT_OK(slurp(path, &mc), "slurp"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		late += rec->ts < prev;
		prev = rec->ts;
		n++;
	}
	ASSERT_EQ(err, 0, "read");
	ASSERT_EQ(n, 7, "records");
	ASSERT_EQ(late, 1, "one record out of order in the file");
	tr = rc_reader__trailer(r);
	if (ASSERT_OK_PTR(tr, "trailer"))
		ASSERT_EQ(tr->late, 1, "late counted");
out:
	rc_reader__free(r);
	free(mc.buf);
	close(fd);
}

/*
 * The writer's runs: records of two sizes, in batches of 1 to 37. The
 * first half has one pair in eight swapped, so that runs in held break and
 * what a flush keeps back (a 50 us window, 500 records) is a run longer
 * than a 4 KiB chunk; the second half is in order, so that whole chunks
 * are one run. Flushes come from rc_writer__add() alone. Every record
 * comes out once, intact and in order, and the trailer counts its bytes.
 */
void test_format_runs(void)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 4096, .reorder_ns = 50000 };
	enum { N = 40000 };
	static unsigned char batch[37 * sizeof(struct rc_ev_syscall)];
	const struct rc_trailer *tr;
	const struct rc_rec_hdr *rec;
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	struct rc_writer *w;
	struct rc_meta m;
	uint64_t prev = 0, bytes = 0;
	unsigned int i = 0, n = 0, bad = 0;
	size_t len = 0, want = 1;
	char path[64];
	int fd, err = 0;

	test_meta(&m);
	fd = memfd_create("runs", 0);
	if (!ASSERT_TRUE(fd >= 0, "memfd"))
		return;
	w = rc_writer__new(fd, &m, &wo);
	if (!ASSERT_OK_PTR(w, "writer"))
		goto out;
	for (i = 0; i < N && !err; i++) {
		unsigned int id = i;
		uint64_t ts;

		if (i < N / 2 && i % 8 == 3)
			id = i + 1;
		else if (i < N / 2 && i % 8 == 4)
			id = i - 1;
		ts = 1000 + 100ull * id;
		if (id % 5 == 0) {
			struct rc_ev_syscall e = { .hdr = { .ts = ts, .type = RC_EV_SYSCALL,
							    .size = sizeof(e) } };

			e.ret = id;
			memcpy(batch + len, &e, sizeof(e));
			len += sizeof(e);
		} else {
			struct rc_ev_exit e = mk_exit(ts, id);

			memcpy(batch + len, &e, sizeof(e));
			len += sizeof(e);
		}
		if (len >= want * sizeof(struct rc_ev_exit) || i + 1 == N) {
			err = rc_writer__add(w, batch, len);
			bytes += len;
			len = 0;
			want = want % 37 + 1;
		}
	}
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ASSERT_OK(err, "write") || !ASSERT_OK(slurp(path, &mc), "slurp"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		int64_t id = rec->type == RC_EV_SYSCALL ? ((const struct rc_ev_syscall *)rec)->ret
							: ((const struct rc_ev_exit *)rec)->exit_code;

		bad += rec->ts < prev || id != n || rec->ts != 1000 + 100ull * n ||
		       rec->size != (n % 5 ? sizeof(struct rc_ev_exit) : sizeof(struct rc_ev_syscall));
		prev = rec->ts;
		n++;
	}
	ASSERT_EQ(err, 0, "read");
	ASSERT_EQ(n, N, "records");
	ASSERT_EQ(bad, 0, "records out of place or changed");
	tr = rc_reader__trailer(r);
	if (ASSERT_OK_PTR(tr, "trailer")) {
		ASSERT_EQ(tr->late, 0, "late");
		ASSERT_EQ(tr->raw_bytes, bytes, "raw bytes");
		ASSERT_TRUE(tr->nchunks > 200, "many chunks");
	}
out:
	rc_reader__free(r);
	free(mc.buf);
	close(fd);
}

/* A batch with one bad record is refused whole; the file stays good. */
void test_format_writer_rejects(void)
{
	struct rc_ev_exit recs[2] = { mk_exit(100, 1), mk_exit(200, 2) };
	struct mem_capture mc = {};
	struct rc_writer *w;
	struct rc_meta m;
	bool truncated;
	char path[64];
	int fd;

	test_meta(&m);
	fd = memfd_create("rejects", 0);
	if (!ASSERT_TRUE(fd >= 0, "memfd"))
		return;
	w = rc_writer__new(fd, &m, NULL);
	if (!ASSERT_OK_PTR(w, "writer"))
		goto out;
	ASSERT_OK(rc_writer__add(w, &recs[0], sizeof(recs[0])), "good record");
	recs[1].hdr.size = 41;
	ASSERT_EQ(rc_writer__add(w, recs, sizeof(recs)), -EINVAL, "bad size refused");
	recs[1].hdr.size = sizeof(recs[1]);
	ASSERT_EQ(rc_writer__add(w, recs, sizeof(recs) - 8), -EINVAL, "cut record refused");
	ASSERT_OK(rc_writer__finish(w), "finish");
	rc_writer__free(w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (ASSERT_OK(slurp(path, &mc), "slurp")) {
		ASSERT_EQ(read_all(mc.buf, mc.len, &truncated), 1, "only the good record");
		ASSERT_TRUE(!truncated, "complete");
	}
out:
	free(mc.buf);
	close(fd);
}

/* Cut at every byte: the complete chunks before the cut are read, no more. */
void test_format_truncation(void)
{
	const struct rc_trailer *tr;
	struct mem_capture mc = {};
	struct rc_chunk_index *idx = NULL;
	struct rc_reader *r;
	const struct rc_rec_hdr *rec;
	size_t cut, nidx = 0, chunk_end;
	uint64_t header_end;
	bool truncated;
	int fails = 0;

	if (!ASSERT_OK(make_capture(&mc, 300, 2048), "make_capture"))
		return;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	header_end = rc_reader__offset(r);
	while (rc_reader__next(r, &rec) > 0)
		;
	tr = rc_reader__trailer(r);
	if (ASSERT_OK_PTR(tr, "trailer") && ASSERT_TRUE(tr->nindex >= 5, "chunks")) {
		nidx = tr->nindex;
		idx = calloc(nidx, sizeof(*idx));
		if (idx)
			memcpy(idx, tr->index, nidx * sizeof(*idx));
	}
	rc_reader__free(r);
	if (!idx)
		goto out;
	for (cut = 0; cut < mc.len && fails < 5; cut++) {
		long expect = 0, got;
		size_t i;

		for (i = 0; i < nidx; i++) {
			/* a chunk is complete when the next block starts at or before the cut */
			chunk_end = i + 1 < nidx ? idx[i + 1].offset : 0;
			if (chunk_end && chunk_end <= cut)
				expect += idx[i].nrec;
		}
		got = read_all(mc.buf, cut, &truncated);
		if (cut < header_end) {
			if (!ASSERT_TRUE(got < 0, "cut inside the header is an error"))
				fails++;
			continue;
		}
		/* the last chunk is complete once the trailer's block begins */
		if (cut >= mc.len - 1) {
			expect = 300;
		} else {
			size_t last_end = mc.len;
			const unsigned char *p = mc.buf;
			size_t off = idx[nidx - 1].offset;
			uint32_t fsz, dsz;

			memcpy(&fsz, p + off + 4, 4);
			memcpy(&dsz, p + off + 16 + 28, 4);
			last_end = off + 8 + fsz + dsz;
			if (cut >= last_end)
				expect += idx[nidx - 1].nrec;
		}
		if (!ASSERT_EQ(got, expect, "records before the cut") ||
		    !ASSERT_TRUE(truncated, "truncated"))
			fails++;
	}
	ASSERT_EQ(read_all(mc.buf, mc.len, &truncated), 300, "whole file");
	ASSERT_TRUE(!truncated, "whole file complete");
out:
	free(idx);
	free(mc.buf);
}

/* What a read of a capture of numbered syscall records (make_capture()) gave. */
struct flip_read {
	long n; /* records, or -errno */
	bool altered, truncated, damaged, trailer;
	struct rc_damage d;
};

/* Read @buf, each record checked against @orig (the records as written): in order, unaltered. */
static void read_numbered(const void *buf, size_t len, const struct rc_ev_syscall *orig,
			  size_t norig, struct flip_read *fr)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r;
	int64_t next = 0;
	int err;

	memset(fr, 0, sizeof(*fr));
	r = rc_reader__open_mem(buf, len);
	if (!r) {
		fr->n = -errno;
		return;
	}
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_ev_syscall *e = (const void *)rec;

		if (rec->size != sizeof(*e) || e->ret < next || e->ret >= (int64_t)norig ||
		    memcmp(e, &orig[e->ret], sizeof(*e)))
			fr->altered = true;
		else
			next = e->ret + 1;
		fr->n++;
	}
	if (err < 0)
		fr->n = err;
	fr->truncated = rc_reader__truncated(r);
	fr->damaged = rc_reader__corrupt(r, &fr->d);
	fr->trailer = rc_reader__trailer(r) != NULL;
	rc_reader__free(r);
}

/*
 * Flip one bit in every byte: each flip is an error (in the header), a
 * truncation or damage passed over, or leaves the records exactly as they
 * were (a zstd bitstream has slack bits); never altered data presented as
 * good. Damage loses one chunk at most: every other record comes out, as
 * written and in order, and with the trailer read the loss is counted
 * exactly.
 */
void test_format_bitflip(void)
{
	struct rc_ev_syscall orig[120] = {};
	const struct rc_rec_hdr *rec;
	struct mem_capture mc = {};
	size_t i, n = 0, fails = 0, detected = 0, errors = 0, damaged = 0, lost = 0;
	struct rc_reader *r;
	struct flip_read fr;

	if (!ASSERT_OK(make_capture(&mc, 120, 2048), "make_capture"))
		return;
	r = rc_reader__open_mem(mc.buf, mc.len);
	while (r && n < 120 && rc_reader__next(r, &rec) > 0)
		memcpy(&orig[n++], rec, sizeof(orig[0]));
	rc_reader__free(r);
	read_numbered(mc.buf, mc.len, orig, n, &fr);
	if (!ASSERT_EQ(n, 120, "records written") ||
	    !ASSERT_TRUE(fr.n == 120 && !fr.altered && !fr.truncated && !fr.damaged, "intact file"))
		goto out;
	for (i = 0; i < mc.len && fails < 5; i++) {
		bool ok;

		mc.buf[i] ^= 1u << (i % 8);
		read_numbered(mc.buf, mc.len, orig, n, &fr);
		mc.buf[i] ^= 1u << (i % 8);
		if (fr.n < 0 || fr.truncated || fr.damaged)
			detected++;
		errors += fr.n < 0;
		damaged += fr.n >= 0 && fr.damaged;
		lost += fr.n >= 0 && fr.damaged && fr.d.chunks;
		if (fr.n < 0)
			continue;
		if (fr.trailer)
			ok = fr.n + (long)fr.d.records == 120 &&
			     (!fr.damaged || (fr.d.exact && fr.d.chunks <= 1));
		else /* only the trailer (or what follows it) was lost */
			ok = fr.n == 120;
		if (!fr.altered && ok)
			continue;
		fails++;
		test__fail(__FILE__, __LINE__, "bitflip",
			   "flip at byte %zu: %ld records%s, %s%s, %llu chunks and %llu records "
			   "lost",
			   i, fr.n, fr.altered ? " (altered)" : "", fr.damaged ? "damaged" : "",
			   fr.trailer ? " with its trailer" : "", (unsigned long long)fr.d.chunks,
			   (unsigned long long)fr.d.records);
	}
	printf("    %zu flips: %zu errors (the header), %zu damage passed over (%zu losing "
	       "a chunk), %zu truncations, %zu no change\n",
	       i, errors, damaged, lost, detected - errors - damaged, i - detected);
	ASSERT_EQ(fails, 0, "flips that changed or lost records unnoticed");
	ASSERT_TRUE(detected > mc.len * 9 / 10, "nearly every flip detected");
out:
	free(mc.buf);
}

/* ---- hand-made bad files ---------------------------------------------- */

static void put_block(struct rc_strbuf *sb, uint32_t frame_size, uint32_t type, const void *p,
		      size_t n)
{
	uint32_t h[4] = { RC_FRAME_MAGIC, frame_size, type, rc_block_crc(type, p, n) };

	rc_strbuf__append(sb, h, sizeof(h));
	rc_strbuf__append(sb, p, n);
}

/* The header block of a valid capture, re-emitted with @major as its version. */
static void header_with_version(struct rc_strbuf *sb, const struct mem_capture *mc, uint16_t major)
{
	uint32_t fsz;
	unsigned char *payload;

	memcpy(&fsz, mc->buf + 4, 4);
	payload = malloc(fsz - 8);
	if (!payload)
		return;
	memcpy(payload, mc->buf + 16, fsz - 8);
	memcpy(payload + 8, &major, 2);
	put_block(sb, fsz, RC_BLOCK_HEADER, payload, fsz - 8);
	free(payload);
}

static long read_err(const struct rc_strbuf *sb, const char *want)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r = rc_reader__open_mem(sb->buf, sb->len);
	long n = 0;
	int err;

	if (!r)
		return -errno;
	while ((err = rc_reader__next(r, &rec)) > 0)
		n++;
	if (err < 0 || rc_reader__corrupt(r, NULL))
		ASSERT_HAS(rc_reader__error(r), want, "error message");
	if (!err && rc_reader__corrupt(r, NULL))
		n = READ_DAMAGED;
	rc_reader__free(r);
	return err < 0 ? err : n;
}

void test_format_bad_input(void)
{
	struct rc_disk_chunk dc = {
		.codec = RC_CODEC_ZSTD, .nrec = 1, .first_ts = 0, .last_ts = 9
	};
	struct mem_capture mc = {};
	struct rc_strbuf sb = {};
	uint32_t hsz;
	void *big = NULL, *z = NULL;
	size_t zlen;

	if (!ASSERT_OK(make_capture(&mc, 10, 4096), "make_capture"))
		return;
	memcpy(&hsz, mc.buf + 4, 4);

	if (test__start_subtest("empty")) {
		ASSERT_TRUE(rc_reader__open_mem(mc.buf, 0) == NULL, "empty file refused");
		ASSERT_EQ(errno, ENODATA, "errno");
	}
	if (test__start_subtest("foreign")) {
		static const char text[] = "#!/bin/sh\necho this is not a capture\n";

		ASSERT_TRUE(rc_reader__open_mem(text, sizeof(text)) == NULL, "refused");
		ASSERT_EQ(errno, EBADMSG, "errno");
	}
	if (test__start_subtest("bad_magic")) {
		mc.buf[16] ^= 0xff; /* inside "RCAPFILE", CRC recomputed below */
		sb.len = 0;
		put_block(&sb, hsz, RC_BLOCK_HEADER, mc.buf + 16, hsz - 8);
		mc.buf[16] ^= 0xff;
		ASSERT_TRUE(rc_reader__open_mem(sb.buf, sb.len) == NULL, "refused");
	}
	if (test__start_subtest("newer_version")) {
		sb.len = 0;
		header_with_version(&sb, &mc, 2);
		ASSERT_TRUE(rc_reader__open_mem(sb.buf, sb.len) == NULL, "refused");
		ASSERT_EQ(errno, EPROTONOSUPPORT, "errno");
	}
	if (test__start_subtest("absurd_block_length")) {
		sb.len = 0;
		rc_strbuf__append(&sb, mc.buf, 8 + hsz);
		put_block(&sb, 0xffffffffu, RC_BLOCK_STATS, "", 0);
		ASSERT_EQ(read_err(&sb, "block length out of range"), READ_DAMAGED, "passed over");
	}
	if (test__start_subtest("absurd_chunk_size")) {
		sb.len = 0;
		rc_strbuf__append(&sb, mc.buf, 8 + hsz);
		dc.raw_size = 1u << 31;
		dc.data_size = 100;
		put_block(&sb, 8 + sizeof(dc), RC_BLOCK_CHUNK, &dc, sizeof(dc));
		ASSERT_EQ(read_err(&sb, "chunk size out of range"), READ_DAMAGED, "refused");
	}
	if (test__start_subtest("decompression_bomb")) {
		/* 64 MiB of zeros compress to a few KB; the chunk claims 4 KiB */
		size_t bsz = RC_MAX_CHUNK_RAW;

		big = calloc(1, bsz);
		zlen = ZSTD_compressBound(bsz);
		z = malloc(zlen);
		if (ASSERT_OK_PTR(big, "alloc") && ASSERT_OK_PTR(z, "alloc")) {
			zlen = ZSTD_compress(z, zlen, big, bsz, 1);
			sb.len = 0;
			rc_strbuf__append(&sb, mc.buf, 8 + hsz);
			dc.raw_size = 4096;
			dc.data_size = zlen;
			put_block(&sb, 8 + sizeof(dc), RC_BLOCK_CHUNK, &dc, sizeof(dc));
			rc_strbuf__append(&sb, z, zlen);
			ASSERT_EQ(read_err(&sb, "frame size differs"), READ_DAMAGED, "refused");
		}
	}
	if (test__start_subtest("record_size_zero")) {
		unsigned char raw[48] = {};

		/* a record header claiming size 0: must not loop forever */
		zlen = ZSTD_compressBound(sizeof(raw));
		z = z ?: malloc(zlen);
		if (ASSERT_OK_PTR(z, "alloc")) {
			zlen = ZSTD_compress(z, zlen, raw, sizeof(raw), 1);
			sb.len = 0;
			rc_strbuf__append(&sb, mc.buf, 8 + hsz);
			dc.raw_size = sizeof(raw);
			dc.data_size = zlen;
			dc.first_ts = 0;
			put_block(&sb, 8 + sizeof(dc), RC_BLOCK_CHUNK, &dc, sizeof(dc));
			rc_strbuf__append(&sb, z, zlen);
			ASSERT_EQ(read_err(&sb, "record size out of range"), READ_DAMAGED,
				  "refused");
		}
	}
	if (test__start_subtest("second_header")) {
		sb.len = 0;
		rc_strbuf__append(&sb, mc.buf, 8 + hsz);
		rc_strbuf__append(&sb, mc.buf, 8 + hsz);
		ASSERT_EQ(read_err(&sb, "second header"), -EBADMSG, "refused");
	}
	rc_strbuf__free(&sb);
	free(big);
	free(z);
	free(mc.buf);
}

/* ---- event flags (v1.5) ------------------------------------------------ */

#define FLAGGED_ID 300

struct flagged_rec {
	struct rc_rec_hdr h;
	uint64_t seq;
};

/* A capture of one syscall record and one of an event whose pid and cpu are unknown. */
static int flagged_capture(struct mem_capture *mc)
{
	static const struct rc_field fields[] = {
		{ .name = "seq", .offset = 40, .size = 8, .count = 1, .kind = RC_FIELD_UINT },
	};
	const struct rc_event_desc ev = { .id = FLAGGED_ID,
					  .size = sizeof(struct flagged_rec),
					  .name = "bpf:flagged",
					  .nfields = 1,
					  .fields = fields,
					  .flags = RC_EVENT_NO_PID | RC_EVENT_NO_CPU };
	struct {
		struct rc_ev_syscall sc;
		struct flagged_rec fl;
	} recs = {};
	struct rc_schema *s = rc_schema__new(rc_builtin_schema());
	struct rc_meta m;
	int err;

	if (!s)
		return -errno;
	recs.sc.hdr = (struct rc_rec_hdr){
		.ts = 1000, .pid = 5, .tid = 5, .type = RC_EV_SYSCALL, .size = sizeof(recs.sc)
	};
	recs.fl.h = (struct rc_rec_hdr){ .ts = 1001, .type = FLAGGED_ID, .size = sizeof(recs.fl) };
	recs.fl.seq = 7;
	test_meta(&m);
	m.schema = s;
	err = rc_schema__add_event(s, &ev)
		  ?: write_meta_capture(mc, &m, NULL, &recs, sizeof(recs), NULL);
	rc_schema__free(s);
	return err;
}

/*
 * @mc with its header's EVENT sections cut by 2 bytes (@grow -2: a v1.4
 * header, no flags, as minor 4) or grown by @grow bytes of 0xee (what a
 * later minor may add after the flags), into @out.
 */
static int regrow_events(const struct mem_capture *mc, int grow, struct rc_strbuf *out)
{
	static const unsigned char pad[16] = { [0 ... 15] = 0xee };
	struct rc_strbuf p = {};
	uint32_t fsz, h[4], len;
	size_t off = 16;
	uint16_t id, minor = 4;
	int err = 0;

	memcpy(&fsz, mc->buf + 4, 4);
	err = rc_strbuf__append(&p, mc->buf + off, 16); /* magic, version, flags */
	if (!err && grow < 0)
		memcpy(p.buf + 10, &minor, 2);
	for (off += 16; !err && off < 8 + fsz; off += 8 + len) {
		memcpy(&id, mc->buf + off, 2);
		memcpy(&len, mc->buf + off + 4, 4);
		if (id != RC_SEC_EVENT) {
			err = rc_strbuf__append(&p, mc->buf + off, 8 + len);
			continue;
		}
		len += grow;
		err = rc_strbuf__append(&p, mc->buf + off, 4) ?: rc_strbuf__append(&p, &len, 4);
		err = err ?: rc_strbuf__append(&p, mc->buf + off + 8, grow < 0 ? len : len - grow);
		err = err ?: grow > 0 ? rc_strbuf__append(&p, pad, grow) : 0;
		len -= grow; /* the source's length, to step over it */
	}
	h[0] = RC_FRAME_MAGIC;
	h[1] = p.len + 8;
	h[2] = RC_BLOCK_HEADER;
	h[3] = rc_block_crc(RC_BLOCK_HEADER, p.buf, p.len);
	err = err ?: rc_strbuf__append(out, h, sizeof(h)) ?: rc_strbuf__append(out, p.buf, p.len);
	err = err ?: rc_strbuf__append(out, mc->buf + 8 + fsz, mc->len - 8 - fsz);
	rc_strbuf__free(&p);
	return err;
}

/* The flags of bpf:flagged in @buf, and of its record; -1 when unreadable. */
static void read_flags(const void *buf, size_t len, int *ev_flags, int *rec_flags, int *sc_flags)
{
	const struct rc_event_desc *ev;
	const struct rc_rec_hdr *rec;
	const struct rc_meta *m;
	struct rc_reader *r;

	*ev_flags = *rec_flags = *sc_flags = -1;
	r = rc_reader__open_mem(buf, len);
	if (!ASSERT_OK_PTR(r, "open"))
		return;
	m = rc_reader__meta(r);
	ev = rc_schema__event(m->schema, FLAGGED_ID);
	*ev_flags = ev ? ev->flags : -1;
	while (rc_reader__next(r, &rec) > 0) {
		if (rec->type == FLAGGED_ID)
			*rec_flags = rc_rec__unknown(m->schema, rec);
		else
			*sc_flags = rc_rec__unknown(m->schema, rec);
	}
	ASSERT_TRUE(!rc_reader__truncated(r) && !*rc_reader__error(r), "read whole");
	rc_reader__free(r);
}

/* An event's flags go through the file; headers without them, or with more, read. */
void test_format_event_flags(void)
{
	const int unknown = RC_EVENT_NO_PID | RC_EVENT_NO_CPU;
	struct mem_capture mc = {};
	struct rc_strbuf sb = {};
	int ev, rec, sc;

	if (!ASSERT_OK(flagged_capture(&mc), "capture"))
		return;
	if (test__start_subtest("roundtrip")) {
		read_flags(mc.buf, mc.len, &ev, &rec, &sc);
		ASSERT_EQ(ev, unknown, "event flags");
		ASSERT_EQ(rec, unknown, "the record's unknowns");
		ASSERT_EQ(sc, 0, "a built-in event knows everything");
	}
	if (test__start_subtest("minor_4") && ASSERT_OK(regrow_events(&mc, -2, &sb), "rewrite")) {
		read_flags(sb.buf, sb.len, &ev, &rec, &sc);
		ASSERT_EQ(ev, 0, "no flags before 1.5");
		ASSERT_EQ(rec, 0, "nothing unknown");
		ASSERT_EQ(sc, 0, "built-in");
	}
	sb.len = 0;
	if (test__start_subtest("later_minor") &&
	    ASSERT_OK(regrow_events(&mc, 6, &sb), "rewrite")) {
		read_flags(sb.buf, sb.len, &ev, &rec, &sc);
		ASSERT_EQ(ev, unknown, "flags, what follows them skipped");
		ASSERT_EQ(rec, unknown, "the record's unknowns");
	}
	rc_strbuf__free(&sb);
	free(mc.buf);
}

/* ---- stats entries: v1.0's 48 bytes, v1.8's 80 (sampling) -------------- */

static const struct rc_stats *read_stats(struct rc_reader *r)
{
	const struct rc_rec_hdr *rec;

	while (rc_reader__next(r, &rec) > 0)
		;
	return rc_reader__stats(r);
}

void test_format_stats_entries(void)
{
	struct rc_stat_entry e = { .cpu = 1,
				   .type = 7,
				   .made = 10,
				   .dropped = 1,
				   .filtered = 2,
				   .captured = 9,
				   .missed = 3,
				   .not_run = 40,
				   .throttled = 30,
				   .throttled_ns = 123456789,
				   .throttles = 5 };
	struct rc_stats in = { .ts = 77, .nentries = 1, .entries = &e };
	struct rc_writer_opts wo = { .sz = sizeof(wo) };
	struct rc_disk_stats ds = { .ts = 88, .nentries = 1, .entry_size = RC_DISK_STAT_V1_0 };
	struct rc_disk_stat de = { .cpu = 0, .type = 7, .made = 5, .captured = 5, .missed = 2 };
	unsigned char old[sizeof(ds) + RC_DISK_STAT_V1_0];
	const struct rc_stats *st;
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	struct rc_strbuf sb = {};
	uint32_t hsz;

	/* written and read back whole */
	if (!ASSERT_OK(write_mem_capture(&mc, &wo, NULL, 0, &in), "write"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	st = read_stats(r);
	if (ASSERT_OK_PTR(st, "stats") && ASSERT_EQ(st->nentries, 1, "entries")) {
		ASSERT_EQ(st->entries[0].missed, 3, "missed");
		ASSERT_EQ(st->entries[0].not_run, 40, "not_run");
		ASSERT_EQ(st->entries[0].throttled, 30, "throttled");
		ASSERT_EQ(st->entries[0].throttled_ns, 123456789, "throttled_ns");
		ASSERT_EQ(st->entries[0].throttles, 5, "throttles");
	}
	rc_reader__free(r);
	r = NULL;
	/* a v1.0 block, entries of 48 bytes: read, with no sampling counts */
	memcpy(&hsz, mc.buf + 4, 4);
	rc_strbuf__append(&sb, mc.buf, 8 + hsz);
	memcpy(old, &ds, sizeof(ds));
	memcpy(old + sizeof(ds), &de, RC_DISK_STAT_V1_0);
	put_block(&sb, 8 + sizeof(old), RC_BLOCK_STATS, old, sizeof(old));
	r = rc_reader__open_mem(sb.buf, sb.len);
	if (!ASSERT_OK_PTR(r, "open v1.0 stats"))
		goto out;
	st = read_stats(r);
	ASSERT_TRUE(!rc_reader__corrupt(r, NULL), "not damaged");
	if (ASSERT_OK_PTR(st, "stats") && ASSERT_EQ(st->nentries, 1, "entries")) {
		ASSERT_EQ(st->ts, 88, "ts");
		ASSERT_EQ(st->entries[0].made, 5, "made");
		ASSERT_EQ(st->entries[0].missed, 2, "missed");
		ASSERT_EQ(st->entries[0].not_run, 0, "not_run");
		ASSERT_EQ(st->entries[0].throttles, 0, "throttles");
	}
out:
	rc_reader__free(r);
	rc_strbuf__free(&sb);
	free(mc.buf);
}

/* ---- v1.9: the RUN section, the BASE block, in_flight ------------------ */

static int run_capture(struct mem_capture *mc, const struct rc_meta *m, const struct rc_stats *base,
		       const struct rc_stats *end, unsigned int n, int *late_base)
{
	struct rc_writer *w;
	struct rc_strbuf recs = {};
	char path[64];
	unsigned int i;
	int fd, err = 0;

	for (i = 0; i < n && !err; i++) {
		struct rc_ev_syscall e = { .hdr = { .ts = 2000 + i,
						    .pid = 1,
						    .tid = 1,
						    .type = RC_EV_SYSCALL,
						    .size = sizeof(e) } };

		err = rc_strbuf__append(&recs, &e, sizeof(e));
	}
	fd = memfd_create("run", 0);
	if (fd < 0 || err) {
		rc_strbuf__free(&recs);
		return fd < 0 ? -errno : err;
	}
	w = rc_writer__new(fd, m, NULL);
	if (!w) {
		err = -errno;
		goto out;
	}
	err = base ? rc_writer__add_base(w, base) : 0;
	err = err ?: rc_writer__add(w, recs.buf, recs.len);
	*late_base = base ? rc_writer__add_base(w, base) : 0;
	err = err ?: rc_writer__add_stats(w, end);
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = err ?: slurp(path, mc);
out:
	close(fd);
	rc_strbuf__free(&recs);
	return err;
}

void test_format_run(void)
{
	struct rc_stat_entry be = {
		.cpu = 0, .type = 7, .made = 100, .captured = 90, .dropped = 4, .in_flight = 6
	};
	struct rc_stat_entry ee = {
		.cpu = 0, .type = 7, .made = 130, .captured = 115, .dropped = 5, .in_flight = 10
	};
	struct rc_stats base = { .ts = 1500, .nentries = 1, .entries = &be };
	struct rc_stats end = { .ts = 9000, .nentries = 1, .entries = &ee };
	const struct rc_rec_hdr *rec;
	const struct rc_stats *st;
	const struct rc_meta *mr;
	struct mem_capture mc = {};
	struct rc_reader *r = NULL;
	struct rc_meta m;
	int late = 0, n = 0;
	char path[4096];
	unsigned int i;

	test_meta(&m);
	for (i = 0; i < 16; i++) {
		m.run.id[i] = 0xa0 + i;
		m.run.boot_id[i] = 0x10 + i;
	}
	m.run.seq = 3;
	m.run.flags = RC_RUN_F_ROTATING;
	m.run.start_ts = 500;
	if (!ASSERT_OK(run_capture(&mc, &m, &base, &end, 25, &late), "write"))
		goto out;
	ASSERT_EQ(late, -EINVAL, "no BASE block after the records");
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	mr = rc_reader__meta(r);
	ASSERT_EQ(mr->version_minor, RC_VERSION_MINOR, "minor: this writer's");
	ASSERT_TRUE(mr->has_run, "has run");
	ASSERT_OK(memcmp(mr->run.id, m.run.id, 16), "run id");
	ASSERT_OK(memcmp(mr->run.boot_id, m.run.boot_id, 16), "boot id");
	ASSERT_EQ(mr->run.seq, 3, "seq");
	ASSERT_EQ(mr->run.flags, RC_RUN_F_ROTATING, "flags");
	ASSERT_EQ(mr->run.start_ts, 500, "run start");
	/* the BASE block is there before the first record */
	st = rc_reader__base(r);
	if (ASSERT_OK_PTR(st, "base") && ASSERT_EQ(st->nentries, 1, "base entries")) {
		ASSERT_EQ(st->ts, 1500, "base ts");
		ASSERT_EQ(st->entries[0].made, 100, "base made");
		ASSERT_EQ(st->entries[0].captured, 90, "base captured");
		ASSERT_EQ(st->entries[0].in_flight, 6, "base in_flight");
	}
	while (rc_reader__next(r, &rec) > 0)
		n++;
	ASSERT_EQ(n, 25, "records");
	ASSERT_TRUE(!rc_reader__corrupt(r, NULL) && !rc_reader__truncated(r), "whole");
	st = rc_reader__stats(r);
	if (ASSERT_OK_PTR(st, "end") && ASSERT_EQ(st->nentries, 1, "end entries")) {
		ASSERT_EQ(st->entries[0].in_flight, 10, "end in_flight");
		/* the ledger of ringcap-file(5): in the file = END - BASE captured */
		ASSERT_EQ(st->entries[0].captured - 90, n, "in_file");
		ASSERT_EQ((st->entries[0].made - 100) + 6 - 10, n + (5 - 4), "made");
	}
	{
		size_t nh = 0;

		rc_reader__history(r, &nh);
		ASSERT_EQ(nh, 1, "BASE not in the history");
	}
	rc_reader__free(r);
	r = NULL;
	free(mc.buf);
	mc.buf = NULL;

	/* a run's first file: seq 1 when none is given, no BASE block */
	test_meta(&m);
	if (!ASSERT_OK(run_capture(&mc, &m, NULL, &end, 3, &late), "write first"))
		goto out;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open first"))
		goto out;
	ASSERT_TRUE(rc_reader__meta(r)->has_run, "has run");
	ASSERT_EQ(rc_reader__meta(r)->run.seq, 1, "seq 1");
	ASSERT_TRUE(rc_reader__base(r) == NULL, "no base");
	rc_reader__free(r);
	r = NULL;

	/* a file before v1.9: no run, no base */
	snprintf(path, sizeof(path), "%s/tests/fixtures/forkexec.rcap",
		 getenv("RINGCAP_SRCDIR") ?: "..");
	r = rc_reader__open(path);
	if (ASSERT_OK_PTR(r, "open fixture")) {
		ASSERT_TRUE(!rc_reader__meta(r)->has_run, "no run before 1.9");
		ASSERT_EQ(rc_reader__meta(r)->run.seq, 0, "seq 0");
		ASSERT_TRUE(rc_reader__base(r) == NULL, "no base before 1.9");
	}
out:
	rc_reader__free(r);
	free(mc.buf);
}

/* ---- v1.10: AUX blocks ----------------------------------------------- */

struct aux_got {
	unsigned int n;
	struct rc_aux_chunk ac[4];
	unsigned char *data[4];
};

static int keep_aux(void *ctx, const struct rc_aux_chunk *ac)
{
	struct aux_got *g = ctx;

	if (g->n == 4)
		return -E2BIG;
	g->ac[g->n] = *ac;
	g->data[g->n] = malloc(ac->size + 1);
	if (!g->data[g->n])
		return -ENOMEM;
	memcpy(g->data[g->n], ac->data, ac->size);
	g->n++;
	return 0;
}

static void aux_got_free(struct aux_got *g)
{
	while (g->n)
		free(g->data[--g->n]);
}

/* A file of records and AUX blocks, read with @fn: records read, the AUX got. */
static long read_aux_file(const struct mem_capture *mc, struct aux_got *g, bool cb)
{
	const struct rc_rec_hdr *rec;
	struct rc_reader *r = rc_reader__open_mem(mc->buf, mc->len);
	long n = 0;
	int err;

	if (!r)
		return -errno;
	if (cb)
		rc_reader__on_aux(r, keep_aux, g);
	while ((err = rc_reader__next(r, &rec)) > 0)
		n++;
	rc_reader__free(r);
	return err < 0 ? err : n;
}

/*
 * AUX blocks beside records: a compressible stretch (zstd), one that is
 * not (stored as it is), and one written with --no-compress; each read back
 * byte for byte with its description; a reader without the callback reads
 * the records alone; a block whose lengths disagree is passed over as
 * damage, the records still read.
 */
void test_format_aux(void)
{
	enum { N0 = 100000, N1 = 5000 };
	static unsigned char d0[N0], d1[N1];
	struct rc_aux_chunk in[2] = {
		{ .pmu = "intel_pt",
		  .cpu = 0,
		  .pmu_type = 8,
		  .pos = 0,
		  .size = N0,
		  .ts = 1500,
		  .data = d0 },
		{ .cpu = 1,
		  .pmu_type = 8,
		  .flags = RC_AUX_F_SNAPSHOT,
		  .pos = 4096,
		  .size = N1,
		  .lost = 123,
		  .ts = 2500,
		  .time_zero = 1000,
		  .time_mult = 3,
		  .time_shift = 1,
		  .clock_valid = true,
		  .perf_to_boot = 10,
		  .data = d1 },
	};
	struct mem_capture mc = {};
	struct aux_got g = {};
	unsigned int seed = 7, i, pass;
	char path[64];

	for (i = 0; i < N0; i++)
		d0[i] = i % 7;
	for (i = 0; i < N1; i++)
		d1[i] = (seed = seed * 1103515245u + 12345u) >> 16;
	for (pass = 0; pass < 2; pass++) {
		struct rc_writer_opts wo = { .sz = sizeof(wo), .no_compress = pass };
		struct rc_writer *w;
		struct rc_meta m;
		int fd, err = 0;

		test_meta(&m);
		fd = memfd_create("aux", 0);
		if (!ASSERT_TRUE(fd >= 0, "memfd"))
			return;
		w = rc_writer__new(fd, &m, &wo);
		if (!ASSERT_OK_PTR(w, "writer")) {
			close(fd);
			return;
		}
		for (i = 0; i < 3; i++) {
			struct rc_ev_exit e = mk_exit(1000 * (i + 1), i);

			err = err ?: rc_writer__add(w, &e, sizeof(e));
			if (i < 2)
				err = err ?: rc_writer__add_aux(w, &in[i]);
		}
		err = err ?: rc_writer__finish(w);
		rc_writer__free(w);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		free(mc.buf);
		mc = (struct mem_capture){};
		if (!ASSERT_OK(err, "write") || !ASSERT_OK(slurp(path, &mc), "slurp")) {
			close(fd);
			break;
		}
		close(fd);
		ASSERT_EQ(read_aux_file(&mc, &g, true), 3, "records");
		if (ASSERT_EQ(g.n, 2, "AUX blocks"))
			for (i = 0; i < 2; i++) {
				ASSERT_EQ(g.ac[i].cpu, in[i].cpu, "cpu");
				ASSERT_EQ(g.ac[i].pos, in[i].pos, "pos");
				ASSERT_EQ(g.ac[i].size, in[i].size, "size");
				ASSERT_EQ(g.ac[i].lost, in[i].lost, "lost");
				ASSERT_EQ(g.ac[i].flags, in[i].flags, "flags");
				ASSERT_EQ(g.ac[i].pmu_type, 8, "pmu type");
				ASSERT_STREQ(g.ac[i].pmu, in[i].pmu, "pmu name");
				ASSERT_TRUE(!memcmp(g.data[i], in[i].data, in[i].size), "bytes");
			}
		if (g.n == 2) {
			/* (1000 + 7 * 3 >> 1) + 10 */
			ASSERT_EQ(rc_aux_chunk__hw_to_ts(&g.ac[1], 7), 1020,
				  "hw clock to capture clock");
			ASSERT_EQ(rc_aux_chunk__hw_to_ts(&g.ac[0], 7), 0, "no clock: 0");
		}
		aux_got_free(&g);
		ASSERT_EQ(read_aux_file(&mc, &g, false), 3, "records, AUX passed over");
		ASSERT_EQ(g.n, 0, "no callback: none");
	}
	/* damage: the first AUX block's data_size one more than its payload's */
	for (i = 0; mc.buf && i + 16 + sizeof(struct rc_disk_aux) <= mc.len; i++) {
		uint32_t h[4];

		memcpy(h, mc.buf + i, sizeof(h));
		if (h[0] == RC_FRAME_MAGIC && h[2] == RC_BLOCK_AUX) {
			struct rc_disk_aux da;

			memcpy(&da, mc.buf + i + 16, sizeof(da));
			da.data_size++;
			memcpy(mc.buf + i + 16, &da, sizeof(da));
			h[3] = rc_block_crc(RC_BLOCK_AUX, mc.buf + i + 16, h[1] - 8);
			memcpy(mc.buf + i, h, sizeof(h));
			break;
		}
	}
	ASSERT_EQ(read_aux_file(&mc, &g, true), 3, "records read past a bad AUX block");
	ASSERT_EQ(g.n, 1, "the good AUX block only");
	aux_got_free(&g);
	free(mc.buf);
}

/*
 * A file size limit at every ~1 KiB of a capture: wherever the cut comes
 * (in a chunk, in a STATS block, before the first), the file ends
 * complete, within the limit, with the last counters given and exactly
 * the records of its chunks; the records after the cut are not in it.
 */
#define CUT_N	  2000
#define CUT_FINAL 999999 /* the last counters' ts */

static int cut_run(struct rc_writer *w)
{
	struct rc_stat_entry se = { .cpu = 0, .type = RC_EV_SYSCALL };
	struct rc_stats st = { .nentries = 1, .entries = &se };
	struct rc_ev_syscall e = { .hdr = { .type = RC_EV_SYSCALL, .size = sizeof(e) } };
	int i;

	for (i = 0; i < CUT_N; i++) {
		e.hdr.ts = 1000 + 10ull * i;
		e.ret = i;
		/* errors come back once, at the cut: what follows is dropped */
		rc_writer__add(w, &e, sizeof(e));
		if (i % 500 == 499) {
			se.made = se.captured = i + 1;
			st.ts = e.hdr.ts;
			rc_writer__add_stats(w, &st);
		}
	}
	se.made = se.captured = CUT_N;
	st.ts = CUT_FINAL;
	rc_writer__add_stats(w, &st);
	return rc_writer__finish(w);
}

void test_format_cut(void)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 4096, .no_compress = true };
	struct rlimit old, rl;
	struct rc_meta m;
	size_t limit, tried = 0, cut = 0, cut_at_end = 0;
	void (*was)(int) = signal(SIGXFSZ, SIG_IGN);

	test_meta(&m);
	if (!ASSERT_OK(getrlimit(RLIMIT_FSIZE, &old), "getrlimit"))
		return;
	for (limit = 1024; limit < 256 << 10; limit += 1009) {
		struct mem_capture mc = {};
		const struct rc_rec_hdr *rec;
		const struct rc_stats *st;
		struct rc_writer *w;
		struct rc_reader *r;
		int fd, err, was_cut;
		char path[64];
		long n = 0;

		fd = memfd_create("cut", 0);
		if (!ASSERT_TRUE(fd >= 0, "memfd"))
			break;
		rl = (struct rlimit){ limit, old.rlim_max };
		setrlimit(RLIMIT_FSIZE, &rl);
		w = rc_writer__new(fd, &m, &wo);
		err = w ? cut_run(w) : -errno;
		was_cut = w ? rc_writer__cut(w) : 0;
		rc_writer__free(w);
		setrlimit(RLIMIT_FSIZE, &old);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (err == -EFBIG && !w) { /* not even the header and the room for the end */
			close(fd);
			continue;
		}
		tried++;
		cut += was_cut != 0;
		if (!ASSERT_OK(err, "finish") || !ASSERT_OK(slurp(path, &mc), "read back")) {
			close(fd);
			break;
		}
		close(fd);
		ASSERT_TRUE(mc.len <= limit, "within the limit");
		r = rc_reader__open_mem(mc.buf, mc.len);
		if (ASSERT_OK_PTR(r, "open")) {
			while (rc_reader__next(r, &rec) > 0)
				n++;
			ASSERT_TRUE(!rc_reader__truncated(r) && !rc_reader__corrupt(r, NULL),
				    "complete");
			st = rc_reader__stats(r);
			ASSERT_TRUE(st && st->ts == CUT_FINAL, "ends with the last counters");
			ASSERT_EQ(n, (long)rc_reader__trailer(r)->nrec,
				  "the records of its chunks");
			/* cut at the trailer (after the last chunk) holds them all */
			ASSERT_TRUE(was_cut || n == CUT_N, "all of them unless cut");
			if (was_cut && n == CUT_N)
				cut_at_end++;
			rc_reader__free(r);
		}
		free(mc.buf);
	}
	signal(SIGXFSZ, was);
	ASSERT_TRUE(cut > 100 && tried > cut, "cut at many points, and some not");
	ASSERT_TRUE(cut > cut_at_end, "most cuts before the last chunk");
}

/*
 * A writer given a file not at its start (a capture after other output,
 * -o - >> FILE) writes on where the file is, and never cuts back,
 * preallocates or releases by its own offsets: what was before stays, and
 * the capture after it reads whole.
 */
void test_format_not_at_start(void)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 4096, .no_compress = true };
	static const char prefix[100] = "output of something else";
	struct mem_capture mc = {};
	const struct rc_rec_hdr *rec;
	struct rc_writer *w;
	struct rc_reader *r;
	struct rc_meta m;
	char path[64];
	long n = 0;
	int fd, err;

	test_meta(&m);
	fd = memfd_create("offset", 0);
	if (!ASSERT_TRUE(fd >= 0, "memfd"))
		return;
	if (!ASSERT_EQ(write(fd, prefix, sizeof(prefix)), (ssize_t)sizeof(prefix), "prefix"))
		goto out;
	w = rc_writer__new(fd, &m, &wo);
	err = w ? cut_run(w) : -errno;
	rc_writer__free(w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ASSERT_OK(err, "write and finish") || !ASSERT_OK(slurp(path, &mc), "read back"))
		goto out;
	ASSERT_TRUE(mc.len > sizeof(prefix) && !memcmp(mc.buf, prefix, sizeof(prefix)),
		    "what was before kept");
	r = rc_reader__open_mem(mc.buf + sizeof(prefix), mc.len - sizeof(prefix));
	if (ASSERT_OK_PTR(r, "the capture after it")) {
		while (rc_reader__next(r, &rec) > 0)
			n++;
		ASSERT_TRUE(!rc_reader__truncated(r) && !rc_reader__corrupt(r, NULL), "complete");
		ASSERT_EQ(n, CUT_N, "every record");
		rc_reader__free(r);
	}
	free(mc.buf);
out:
	close(fd);
}
