// SPDX-License-Identifier: GPL-2.0-only
/* Chunk codecs: the shuffle against a byte-at-a-time reference, every writer mode, bad runs. */
#include <errno.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>
#include "events.h"
#include "format/format.h"
#include "util/util.h"
#include "format/shuffle.h"
#include "capture_util.h"
#include "test_progs.h"

/* Built-in types with their sizes, so that the reader takes the records. */
static const struct {
	uint16_t type, size;
} kinds[] = {
	{ RC_EV_SYSCALL, sizeof(struct rc_ev_syscall) },
	{ RC_EV_SCHED_SWITCH, sizeof(struct rc_ev_switch) },
	{ RC_EV_SCHED_EXEC, sizeof(struct rc_ev_exec) },
	{ RC_EV_SCHED_EXIT, sizeof(struct rc_ev_exit) },
};

/*
 * Runs of every length around the 8-record blocks, of mixed kinds, @copies
 * times over; rising ts.
 */
static size_t make_records(struct rc_strbuf *sb, uint32_t *nrec, unsigned int copies)
{
	static const unsigned int runs[] = { 1, 7, 8, 9, 16, 17, 3, 64, 2, 15, 1, 1, 33 };
	unsigned int seed = 12345, i, j, b;
	uint64_t ts = 1000;

	*nrec = 0;
	for (i = 0; i < copies * sizeof(runs) / sizeof(runs[0]); i++) {
		unsigned int k = i % (sizeof(kinds) / sizeof(kinds[0]));

		for (j = 0; j < runs[i % (sizeof(runs) / sizeof(runs[0]))]; j++) {
			unsigned char rec[sizeof(struct rc_ev_exec)];
			struct rc_rec_hdr h = {};

			for (b = 0; b < kinds[k].size; b++)
				rec[b] = rand_r(&seed);
			ts += 1 + rand_r(&seed) % 5000;
			h.ts = ts;
			h.pid = h.tid = 77;
			h.type = kinds[k].type;
			h.size = kinds[k].size;
			memcpy(h.comm, "codec", 6);
			memcpy(rec, &h, sizeof(h));
			if (rc_strbuf__append(sb, rec, h.size))
				return 0;
			(*nrec)++;
		}
	}
	return sb->len;
}

/* The layout of shuffle.h, a byte at a time. */
static size_t reference_encode(const unsigned char *in, size_t len, unsigned char *out)
{
	size_t pos = 0, n = 0, i, b;
	uint64_t prev = 0;

	while (pos < len) {
		struct rc_rec_hdr h;
		uint32_t k = 0, size;
		size_t end = pos;

		memcpy(&h, in + pos, sizeof(h));
		size = h.size;
		for (; end < len; end += size, k++) {
			memcpy(&h, in + end, sizeof(h));
			if (h.size != size)
				break;
		}
		memcpy(out + n, &k, 4);
		memcpy(out + n + 4, &size, 4);
		n += 8;
		for (i = 0; i < k; i++) {
			unsigned char rec[sizeof(struct rc_ev_exec)];
			uint64_t ts, delta;

			memcpy(rec, in + pos + i * size, size);
			memcpy(&ts, rec, 8);
			delta = ts - prev;
			prev = ts;
			memcpy(rec, &delta, 8);
			for (b = 0; b < size; b++)
				out[n + b * k + i] = rec[b];
		}
		n += (size_t)k * size;
		pos = end;
	}
	return n;
}

static void shuffle_roundtrip(void)
{
	struct rc_strbuf recs = {}, enc = {}, ref = {}, dec = {};
	const char *why = NULL;
	uint32_t nrec;
	size_t len, n, m;

	len = make_records(&recs, &nrec, 1);
	if (!ASSERT_TRUE(len > 0, "records") ||
	    !ASSERT_OK(rc_strbuf__reserve(&enc, rc_shuffle__bound(len, nrec)), "alloc") ||
	    !ASSERT_OK(rc_strbuf__reserve(&ref, rc_shuffle__bound(len, nrec)), "alloc") ||
	    !ASSERT_OK(rc_strbuf__reserve(&dec, len), "alloc"))
		goto out;
	n = rc_shuffle__encode(recs.buf, len, enc.buf);
	m = reference_encode((unsigned char *)recs.buf, len, (unsigned char *)ref.buf);
	ASSERT_EQ(n, m, "encoded size");
	ASSERT_EQ(n, len + 13 * RC_SHUFFLE_RUN_HDR, "a header per run");
	ASSERT_TRUE(n == m && !memcmp(enc.buf, ref.buf, n), "the same bytes as the reference");
	ASSERT_OK(rc_shuffle__decode(enc.buf, n, dec.buf, len, nrec, &why), "decode");
	ASSERT_TRUE(!memcmp(dec.buf, recs.buf, len), "decoded equals the records");
	/* one record short, one too many, a byte short: refused, never overrun */
	ASSERT_EQ(rc_shuffle__decode(enc.buf, n, dec.buf, len, nrec - 1, &why), -EINVAL, "nrec-1");
	ASSERT_EQ(rc_shuffle__decode(enc.buf, n, dec.buf, len, nrec + 1, &why), -EINVAL, "nrec+1");
	ASSERT_EQ(rc_shuffle__decode(enc.buf, n - 1, dec.buf, len, nrec, &why), -EINVAL, "short");
	ASSERT_EQ(rc_shuffle__decode(enc.buf, n, dec.buf, len - 8, nrec, &why), -EINVAL, "room");
out:
	rc_strbuf__free(&recs);
	rc_strbuf__free(&enc);
	rc_strbuf__free(&ref);
	rc_strbuf__free(&dec);
}

/* The vector transpose where there is one, and the portable one, against the reference. */
void test_codec_shuffle(void)
{
	int scalar;

	for (scalar = 0; scalar < 2; scalar++) {
		if (!test__start_subtest(scalar ? "portable" : "vector"))
			continue;
		rc_shuffle__scalar_only(scalar);
		shuffle_roundtrip();
		rc_shuffle__scalar_only(false);
	}
}

/* @n records of the kinds in turn, or of @nkinds of them: runs of one. */
static size_t make_turns(struct rc_strbuf *sb, unsigned int n, unsigned int nkinds)
{
	unsigned int seed = 777, i, b;
	uint64_t ts = 5000;

	for (i = 0; i < n; i++) {
		unsigned int k = i % nkinds;
		unsigned char rec[sizeof(struct rc_ev_exec)];
		struct rc_rec_hdr h = {};

		for (b = 0; b < kinds[k].size; b++)
			rec[b] = rand_r(&seed);
		ts += 1 + rand_r(&seed) % 300;
		h.ts = ts;
		h.pid = h.tid = 78;
		h.type = kinds[k].type;
		h.size = kinds[k].size;
		memcpy(h.comm, "turns", 6);
		memcpy(rec, &h, sizeof(h));
		if (rc_strbuf__append(sb, rec, h.size))
			return 0;
	}
	return sb->len;
}

/* The u64 at column @b of record @i of a shuffled run of @k records. */
static uint64_t column64(const unsigned char *run, size_t k, size_t i)
{
	uint64_t v = 0;
	int b;

	for (b = 7; b >= 0; b--)
		v = v << 8 | run[b * k + i];
	return v;
}

/*
 * By class: records of sizes in turn, and in runs of every length, round
 * trip through rc_classes__encode() and _decode(), laid out as
 * ringcap-file(5) says; a wrong count, length, class or size is refused,
 * never overrun; 17 sizes are too many.
 */
void test_codec_classes(void)
{
	struct rc_strbuf recs = {}, enc = {}, dec = {}, scratch = {};
	const unsigned char *rb;
	const char *why = NULL;
	uint32_t nrec = 1001, runs_nrec, v;
	size_t len, n, hdr = 4 + 8 * 4, k1, start1;
	unsigned char *e, cls0;
	uint64_t ts1, ts5;
	int pass;

	for (pass = 1; pass >= 0; pass--) {
		recs.len = 0;
		if (pass == 0)
			len = make_turns(&recs, nrec, 4);
		else
			len = make_records(&recs, &runs_nrec, 3);
		if (!ASSERT_TRUE(len > 0, "records") ||
		    !ASSERT_OK(rc_strbuf__reserve(&enc, rc_classes__bound(len, 2000)), "alloc") ||
		    !ASSERT_OK(rc_strbuf__reserve(&dec, len), "alloc") ||
		    !ASSERT_OK(rc_strbuf__reserve(&scratch, len), "alloc"))
			goto out;
		n = rc_classes__encode(recs.buf, len, enc.buf, scratch.buf);
		if (!ASSERT_EQ(n, hdr + (pass ? runs_nrec : nrec) + len,
			       "a header, a byte a record, the records") ||
		    !ASSERT_OK(rc_classes__decode(enc.buf, n, dec.buf, len, pass ? runs_nrec : nrec,
						  scratch.buf, &why),
			       "decode") ||
		    !ASSERT_TRUE(!memcmp(dec.buf, recs.buf, len), "decoded equals the records"))
			goto out;
	}
	/* records 0..1000 in turn, classes 0..3: class 1 is records 1, 5, 9... */
	e = (unsigned char *)enc.buf;
	rb = (const unsigned char *)recs.buf;
	memcpy(&v, e + 4 + 8, 4);
	k1 = v;
	memcpy(&v, e, 4);
	ASSERT_EQ(v, 4, "four classes");
	ASSERT_EQ(k1, 250, "class 1's records");
	ASSERT_TRUE(e[hdr] == 0 && e[hdr + 1] == 1 && e[hdr + 4] == 0, "class bytes");
	memcpy(&v, e + 4, 4);
	start1 = hdr + nrec + (size_t)v * kinds[0].size;
	memcpy(&ts1, rb + kinds[0].size, 8);
	memcpy(&ts5, rb + 2 * kinds[0].size + kinds[1].size + kinds[2].size + kinds[3].size, 8);
	ASSERT_EQ(column64(e + start1, k1, 0), ts1, "a class's first ts: from 0");
	ASSERT_EQ(column64(e + start1, k1, 1), ts5 - ts1, "then from the class's record before");
	/* damaged one way at a time */
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec - 1, scratch.buf, &why), -EINVAL,
		  "nrec-1");
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec + 1, scratch.buf, &why), -EINVAL,
		  "nrec+1");
	ASSERT_EQ(rc_classes__decode(e, n - 1, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "short");
	ASSERT_EQ(rc_classes__decode(e, 3, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "inside nclass");
	ASSERT_EQ(rc_classes__decode(e, 20, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "inside the classes");
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len - 8, nrec, scratch.buf, &why), -EINVAL,
		  "room");
	cls0 = e[hdr];
	e[hdr] = 4; /* a class that is not */
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "class out of range");
	e[hdr] = 1; /* one more of class 1, one fewer of class 0 */
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "counts");
	e[hdr] = cls0;
	ASSERT_OK(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), "undamaged");
	/* classes 1 and 2 hold 250 records each: their sizes swapped add up all the same */
	memcpy(e + 4 + 8 + 4, &kinds[2].size, 2);
	memcpy(e + 4 + 16 + 4, &kinds[1].size, 2);
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "sizes swapped");
	ASSERT_HAS(why, "another size than its class", "why");
	memcpy(e + 4 + 16 + 4, &kinds[2].size, 2); /* two classes of one size */
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "a size twice");
	ASSERT_HAS(why, "impossible record size", "why");
	memcpy(e + 4 + 8 + 4, "\x2c\0", 2); /* 44: not a multiple of 8 */
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "unaligned size");
	memcpy(e + 4 + 8, "\0\0\0\0", 4); /* a class of no records */
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "no records");
	memcpy(e, "\0\0\0\0", 4);
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "no classes");
	memcpy(e, "\x11\0\0\0", 4);
	ASSERT_EQ(rc_classes__decode(e, n, dec.buf, len, nrec, scratch.buf, &why), -EINVAL,
		  "17 classes");
	/* 17 sizes: not encoded */
	recs.len = 0;
	for (n = 0; n < 17; n++) {
		struct rc_rec_hdr h = { .ts = n, .type = RC_EV_SYSCALL, .size = 40 + 8 * n };
		unsigned char rec[40 + 8 * 16] = {};

		memcpy(rec, &h, sizeof(h));
		ASSERT_OK(rc_strbuf__append(&recs, rec, h.size), "append");
	}
	ASSERT_OK(rc_strbuf__reserve(&enc, rc_classes__bound(recs.len, 17)), "alloc");
	ASSERT_OK(rc_strbuf__reserve(&scratch, recs.len), "alloc");
	ASSERT_EQ(rc_classes__encode(recs.buf, recs.len, enc.buf, scratch.buf), 0, "17 sizes");
out:
	rc_strbuf__free(&recs);
	rc_strbuf__free(&enc);
	rc_strbuf__free(&dec);
	rc_strbuf__free(&scratch);
}

/* The codec of the file's first chunk block, and its frame; -1 if none. */
static int first_chunk(const unsigned char *buf, size_t len, struct rc_disk_chunk *dc,
		       const unsigned char **frame)
{
	size_t off = 0;

	while (off + RC_BLOCK_HDR_SIZE <= len) {
		uint32_t fsz, type;

		memcpy(&fsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		if (fsz < 8 || fsz > len - off - 8)
			return -1;
		if (type == RC_BLOCK_CHUNK) {
			memcpy(dc, buf + off + RC_BLOCK_HDR_SIZE, sizeof(*dc));
			*frame = buf + off + 8 + fsz;
			return dc->codec;
		}
		off += 8 + fsz;
	}
	return -1;
}

void test_codec_writer_modes(void)
{
	static const struct {
		const char *name;
		bool no_shuffle, no_compress;
		int level;
		uint32_t codec;
	} modes[] = {
		{ "shuffle", false, false, 0, RC_CODEC_ZSTD_SHUFFLE },
		{ "shuffle_level_-7", false, false, -7, RC_CODEC_ZSTD_SHUFFLE },
		{ "classes", false, false, 0, RC_CODEC_ZSTD_CLASSES },
		{ "plain", true, false, 19, RC_CODEC_ZSTD },
		{ "stored", false, true, 0, RC_CODEC_ZSTD },
	};
	struct rc_strbuf recs = {}, turns = {};
	uint32_t nrec;
	size_t i;

	/* 20 copies: about 460 KiB in one chunk, several 128 KiB blocks when stored */
	if (!ASSERT_TRUE(make_records(&recs, &nrec, 20) > 0, "records") ||
	    !ASSERT_TRUE(make_turns(&turns, 4000, 4) > 0, "records in turn"))
		goto out;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct rc_writer_opts wo = { .sz = sizeof(wo),
					     .compress_level = modes[i].level,
					     .no_shuffle = modes[i].no_shuffle,
					     .no_compress = modes[i].no_compress };
		const struct rc_strbuf *in =
		    modes[i].codec == RC_CODEC_ZSTD_CLASSES ? &turns : &recs;
		const struct rc_rec_hdr *rec;
		const unsigned char *frame = NULL;
		struct mem_capture mc = {};
		struct rc_disk_chunk dc;
		struct rc_reader *r;
		bool truncated;
		size_t pos = 0;
		void *raw;
		int err;

		if (!test__start_subtest(modes[i].name))
			continue;
		if (!ASSERT_OK(write_mem_capture(&mc, &wo, in->buf, in->len, NULL), "write"))
			continue;
		if (!ASSERT_EQ(first_chunk(mc.buf, mc.len, &dc, &frame), (int)modes[i].codec,
			       "codec")) {
			free(mc.buf);
			continue;
		}
		r = rc_reader__open_mem(mc.buf, mc.len);
		if (ASSERT_OK_PTR(r, "open")) {
			while ((err = rc_reader__next(r, &rec)) > 0) {
				if (!ASSERT_TRUE(pos + rec->size <= in->len &&
						     !memcmp(rec, in->buf + pos, rec->size),
						 "record as written"))
					break;
				pos += rec->size;
			}
			ASSERT_EQ(err, 0, "end");
			ASSERT_EQ(pos, in->len, "every record");
			rc_reader__free(r);
		}
		if (modes[i].no_compress) {
			/* a frame any zstd takes: the records as they are, a block at a time */
			raw = malloc(dc.raw_size);
			if (ASSERT_OK_PTR(raw, "alloc")) {
				ASSERT_EQ(ZSTD_decompress(raw, dc.raw_size, frame, dc.data_size),
					  dc.raw_size, "zstd takes the stored frame");
				ASSERT_TRUE(!memcmp(raw, in->buf, dc.raw_size), "stored as is");
				ASSERT_TRUE(dc.data_size < dc.raw_size + 64,
					    "a few bytes of framing");
				ASSERT_TRUE(dc.raw_size > 3 * (128 << 10), "several blocks");
			}
			free(raw);
			/* a flipped bit in a stored record: zstd's checksum finds it */
			((unsigned char *)frame)[dc.data_size / 2] ^= 0x10;
			ASSERT_EQ(read_all(mc.buf, mc.len, &truncated), READ_DAMAGED, "flip found");
		}
		free(mc.buf);
	}
out:
	rc_strbuf__free(&recs);
	rc_strbuf__free(&turns);
}

/* A capture whose one chunk is @enc (a shuffled chunk of @raw_size bytes, @nrec records). */
static long read_coded(const struct mem_capture *good, uint32_t codec, const void *enc,
		       size_t len, uint32_t raw_size, uint32_t nrec, const char *want)
{
	struct rc_disk_chunk dc = { .codec = codec,
				    .nrec = nrec,
				    .first_ts = 0,
				    .last_ts = 1 << 30,
				    .raw_size = raw_size };
	const struct rc_rec_hdr *rec;
	struct rc_strbuf sb = {};
	struct rc_reader *r;
	uint32_t hsz, h[4];
	size_t zcap = ZSTD_compressBound(len);
	void *z = malloc(zcap);
	long ret = -ENOMEM;
	int err;

	if (!z)
		return ret;
	dc.data_size = ZSTD_compress(z, zcap, enc, len, 1);
	memcpy(&hsz, good->buf + 4, 4);
	h[0] = RC_FRAME_MAGIC;
	h[1] = 8 + sizeof(dc);
	h[2] = RC_BLOCK_CHUNK;
	h[3] = rc_block_crc(RC_BLOCK_CHUNK, &dc, sizeof(dc));
	if (rc_strbuf__append(&sb, good->buf, 8 + hsz) || rc_strbuf__append(&sb, h, sizeof(h)) ||
	    rc_strbuf__append(&sb, &dc, sizeof(dc)) || rc_strbuf__append(&sb, z, dc.data_size))
		goto out;
	r = rc_reader__open_mem(sb.buf, sb.len);
	ret = -errno;
	if (!r)
		goto out;
	ret = 0;
	while ((err = rc_reader__next(r, &rec)) > 0)
		ret++;
	if (err < 0 || rc_reader__corrupt(r, NULL)) {
		ASSERT_HAS(rc_reader__error(r), want, "error message");
		ret = err < 0 ? err : READ_DAMAGED;
	}
	rc_reader__free(r);
out:
	rc_strbuf__free(&sb);
	free(z);
	return ret;
}

static long read_shuffled(const struct mem_capture *good, const void *enc, size_t len,
			  uint32_t raw_size, uint32_t nrec, const char *want)
{
	return read_coded(good, RC_CODEC_ZSTD_SHUFFLE, enc, len, raw_size, nrec, want);
}

/*
 * A reader takes a chunk by class whose frame is as long as its classes
 * say, and refuses one whose length could not be, before decompressing.
 */
void test_codec_classes_frame(void)
{
	struct rc_strbuf recs = {}, enc = {}, scratch = {};
	struct mem_capture mc = {};
	size_t len, n, i;

	len = make_turns(&recs, 200, 2);
	if (!ASSERT_TRUE(len > 0, "records") || !ASSERT_OK(make_capture(&mc, 1, 4096), "capture") ||
	    !ASSERT_OK(rc_strbuf__reserve(&enc, rc_classes__bound(len, 200) + 200), "alloc") ||
	    !ASSERT_OK(rc_strbuf__reserve(&scratch, len), "alloc"))
		goto out;
	n = rc_classes__encode(recs.buf, len, enc.buf, scratch.buf);
	ASSERT_EQ(n, 4 + 16 + 200 + len, "two classes");
	ASSERT_EQ(read_coded(&mc, RC_CODEC_ZSTD_CLASSES, enc.buf, n, len, 200, ""), 200,
		  "the good chunk reads");
	memset(enc.buf + n, 0, 200);
	/* the bounds: raw_size + nrec + 12 and + 132; just outside, refused unread */
	ASSERT_EQ(read_coded(&mc, RC_CODEC_ZSTD_CLASSES, enc.buf, len + 200 + 11, len, 200,
			     "frame size differs"),
		  READ_DAMAGED, "one byte under the least");
	ASSERT_EQ(read_coded(&mc, RC_CODEC_ZSTD_CLASSES, enc.buf, len + 200 + 133, len, 200,
			     "frame size differs"),
		  READ_DAMAGED, "one byte over the most");
	/* inside them, the classes decide */
	for (i = 12; i <= 132; i += 120)
		if (i != n - len - 200)
			ASSERT_EQ(read_coded(&mc, RC_CODEC_ZSTD_CLASSES, enc.buf, len + 200 + i, len,
					     200, "another number of records or bytes"),
				  READ_DAMAGED, "a length the classes do not give");
out:
	rc_strbuf__free(&recs);
	rc_strbuf__free(&enc);
	rc_strbuf__free(&scratch);
	free(mc.buf);
}

void test_codec_bad_runs(void)
{
	struct rc_strbuf recs = {}, enc = {};
	struct mem_capture mc = {};
	uint32_t nrec, v;
	size_t len, n;

	len = make_records(&recs, &nrec, 1);
	if (!ASSERT_TRUE(len > 0, "records") || !ASSERT_OK(make_capture(&mc, 1, 4096), "capture") ||
	    !ASSERT_OK(rc_strbuf__reserve(&enc, rc_shuffle__bound(len, nrec)), "alloc"))
		goto out;
	n = rc_shuffle__encode(recs.buf, len, enc.buf);
	ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len, nrec, ""), nrec, "the good chunk reads");

	if (test__start_subtest("no_records")) {
		v = 0;
		memcpy(enc.buf, &v, 4);
		ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len, nrec, "run of no records"),
			  READ_DAMAGED, "refused");
		v = 1;
		memcpy(enc.buf, &v, 4);
	}
	if (test__start_subtest("more_than_the_chunk")) {
		v = nrec + 1;
		memcpy(enc.buf, &v, 4);
		ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len, nrec, "more records than its chunk"),
			  READ_DAMAGED, "refused");
		v = 1;
		memcpy(enc.buf, &v, 4);
	}
	if (test__start_subtest("odd_size")) {
		memcpy(&v, enc.buf + 4, 4);
		v += 4;
		memcpy(enc.buf + 4, &v, 4);
		ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len, nrec, "impossible record size"),
			  READ_DAMAGED, "refused");
		v -= 4;
		memcpy(enc.buf + 4, &v, 4);
	}
	if (test__start_subtest("run_past_the_end")) {
		v = 60000;
		memcpy(enc.buf + 4, &v, 4);
		ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len, nrec, "longer than its chunk"),
			  READ_DAMAGED, "refused");
		v = sizeof(struct rc_ev_syscall);
		memcpy(enc.buf + 4, &v, 4);
	}
	if (test__start_subtest("frame_size_out_of_range")) {
		ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len, 1, "frame size differs"),
			  READ_DAMAGED, "more run headers than records");
		ASSERT_EQ(read_shuffled(&mc, enc.buf, len, len, nrec, "frame size differs"),
			  READ_DAMAGED, "no room for a run header");
	}
	if (test__start_subtest("another_size")) {
		/* the first run, one record of 112 bytes, read as two of 56 */
		v = 2;
		memcpy(enc.buf, &v, 4);
		v = 56;
		memcpy(enc.buf + 4, &v, 4);
		ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len, nrec + 1, "another size"),
			  READ_DAMAGED, "refused");
		v = 1;
		memcpy(enc.buf, &v, 4);
		v = sizeof(struct rc_ev_syscall);
		memcpy(enc.buf + 4, &v, 4);
	}
	if (test__start_subtest("fewer_records")) {
		/* a header per run, all present: but the chunk claims one more record */
		ASSERT_EQ(read_shuffled(&mc, enc.buf, n, len + 48, nrec + 1, "shorter than"),
			  READ_DAMAGED, "refused");
	}
out:
	rc_strbuf__free(&recs);
	rc_strbuf__free(&enc);
	free(mc.buf);
}
