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
#include "internal.h"
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
		{ "plain", true, false, 19, RC_CODEC_ZSTD },
		{ "stored", false, true, 0, RC_CODEC_ZSTD },
	};
	struct rc_strbuf recs = {};
	uint32_t nrec;
	size_t i;

	/* 20 copies: about 460 KiB in one chunk, several 128 KiB blocks when stored */
	if (!ASSERT_TRUE(make_records(&recs, &nrec, 20) > 0, "records"))
		goto out;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct rc_writer_opts wo = { .sz = sizeof(wo),
					     .compress_level = modes[i].level,
					     .no_shuffle = modes[i].no_shuffle,
					     .no_compress = modes[i].no_compress };
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
		if (!ASSERT_OK(write_mem_capture(&mc, &wo, recs.buf, recs.len, NULL), "write"))
			continue;
		if (!ASSERT_EQ(first_chunk(mc.buf, mc.len, &dc, &frame), (int)modes[i].codec,
			       "codec")) {
			free(mc.buf);
			continue;
		}
		r = rc_reader__open_mem(mc.buf, mc.len);
		if (ASSERT_OK_PTR(r, "open")) {
			while ((err = rc_reader__next(r, &rec)) > 0) {
				if (!ASSERT_TRUE(pos + rec->size <= recs.len &&
						     !memcmp(rec, recs.buf + pos, rec->size),
						 "record as written"))
					break;
				pos += rec->size;
			}
			ASSERT_EQ(err, 0, "end");
			ASSERT_EQ(pos, recs.len, "every record");
			rc_reader__free(r);
		}
		if (modes[i].no_compress) {
			/* a frame any zstd takes: the records as they are, a block at a time */
			raw = malloc(dc.raw_size);
			if (ASSERT_OK_PTR(raw, "alloc")) {
				ASSERT_EQ(ZSTD_decompress(raw, dc.raw_size, frame, dc.data_size),
					  dc.raw_size, "zstd takes the stored frame");
				ASSERT_TRUE(!memcmp(raw, recs.buf, dc.raw_size), "stored as is");
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
}

/* A capture whose one chunk is @enc (a shuffled chunk of @raw_size bytes, @nrec records). */
static long read_shuffled(const struct mem_capture *good, const void *enc, size_t len,
			  uint32_t raw_size, uint32_t nrec, const char *want)
{
	struct rc_disk_chunk dc = { .codec = RC_CODEC_ZSTD_SHUFFLE,
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
