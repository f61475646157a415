// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_ipt__summarize(): Intel PT streams made with libipt's own encoder,
 * whose packets are known one by one, summarized back: whole, damaged,
 * and cut at every length. Each stream is decoded from a copy that ends
 * at an inaccessible page, so that a read past its end (by us, or by
 * libipt, which the sanitizers do not instrument) crashes the test.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <sys/stat.h>
#include "capture_util.h"
#include "decode/ipt.h"
#include "events.h"
#include "ringcap.h"
#include "run_util.h"
#include "test_progs.h"

#ifdef HAVE_LIBIPT
#include <intel-pt.h>

#define STREAM_MAX 4096

/* one packet to encode, and the type the summary must count it as */
struct pkt {
	struct pt_packet p;
	enum rc_ipt_type t;
};

#define PSB                                                                                        \
	{                                                                                          \
		.p = { .type = ppt_psb }, .t = RC_IPT_PSB                                          \
	}
#define PSBEND                                                                                     \
	{                                                                                          \
		.p = { .type = ppt_psbend }, .t = RC_IPT_PSBEND                                    \
	}
#define PAD                                                                                        \
	{                                                                                          \
		.p = { .type = ppt_pad }, .t = RC_IPT_PAD                                          \
	}
#define TSC(v)                                                                                     \
	{                                                                                          \
		.p = { .type = ppt_tsc, .payload.tsc.tsc = (v) }, .t = RC_IPT_TSC                  \
	}
#define CBR(r)                                                                                     \
	{                                                                                          \
		.p = { .type = ppt_cbr, .payload.cbr.ratio = (r) }, .t = RC_IPT_CBR                \
	}
#define MTC(c)                                                                                     \
	{                                                                                          \
		.p = { .type = ppt_mtc, .payload.mtc.ctc = (c) }, .t = RC_IPT_MTC                  \
	}
#define TNT8(n, bits)                                                                              \
	{                                                                                          \
		.p = { .type = ppt_tnt_8, .payload.tnt = { .bit_size = (n), .payload = (bits) } }, \
		.t = RC_IPT_TNT_8                                                                  \
	}
#define IP(ty, rt, c, a)                                                                           \
	{                                                                                          \
		.p = { .type = (ty), .payload.ip = { .ipc = (c), .ip = (a) } }, .t = (rt)          \
	}
#define FUP(c, a) IP(ppt_fup, RC_IPT_FUP, c, a)
#define TIP(c, a) IP(ppt_tip, RC_IPT_TIP, c, a)
#define MODE64                                                                                     \
	{                                                                                          \
		.p = { .type = ppt_mode,                                                           \
		       .payload.mode = { .leaf = pt_mol_exec,                                      \
					 .bits.exec = { .csl = 1, .csd = 0 } } },                  \
		.t = RC_IPT_MODE                                                                   \
	}

#define TSC1 0x00123456789aULL
#define TSC2 0x001234567fffULL

/* a PSB+ (FUP, MODE, TSC, CBR), branches, timing, a second PSB+ and pads */
static const struct pkt stream_a[] = {
	PSB,
	FUP(pt_ipc_sext_48, 0x401000),
	MODE64,
	TSC(TSC1),
	CBR(0x20),
	PSBEND,
	TNT8(4, 0xa),
	TNT8(6, 0x3f),
	TIP(pt_ipc_update_16, 0x1234),
	MTC(0x11),
	TNT8(1, 0x1),
	MTC(0x12),
	TIP(pt_ipc_sext_48, 0x7fff12345678),
	CBR(0x21),
	PSB,
	TSC(TSC2),
	PSBEND,
	PAD,
	PAD,
	PAD,
	TNT8(2, 0x2),
};

/* a second capture's worth: to follow garbage */
static const struct pkt stream_b[] = {
	PSB, TSC(TSC2), CBR(0x22), PSBEND, TNT8(3, 0x5), MTC(0x13), TIP(pt_ipc_update_32, 0x2000),
	PAD,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Encode @n packets at @buf (@cap bytes) with libipt's encoder; @ends[i]
 * gets the offset just past packet i. Return: the stream's length, or 0 (and
 * a failed assertion).
 */
static size_t encode(const struct pkt *pk, size_t n, uint8_t *buf, size_t cap, size_t *ends)
{
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t off = 0;
	size_t i;
	int ret;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + cap;
	enc = pt_alloc_encoder(&cfg);
	if (!ASSERT_OK_PTR(enc, "pt_alloc_encoder"))
		return 0;
	for (i = 0; i < n; i++) {
		ret = pt_enc_next(enc, &pk[i].p);
		if (!ASSERT_TRUE(ret > 0, "pt_enc_next")) {
			fprintf(stderr, "packet %zu (%s): %s\n", i, rc_ipt__type_name(pk[i].t),
				pt_errstr(pt_errcode(ret)));
			off = 0;
			goto out;
		}
		if (!ASSERT_OK(pt_enc_get_offset(enc, &off), "pt_enc_get_offset")) {
			off = 0;
			goto out;
		}
		if (ends)
			ends[i] = off;
	}
out:
	pt_free_encoder(enc);
	return off;
}

/* add the types of @n packets to @by_type */
static void tally(const struct pkt *pk, size_t n, uint64_t *by_type)
{
	size_t i;

	for (i = 0; i < n; i++)
		by_type[pk[i].t]++;
}

/* Pages whose last one is inaccessible: data copied to end at it. */
struct guarded {
	uint8_t *map;
	size_t maplen, datalen;
};

static bool guarded_init(struct guarded *g, size_t datalen)
{
	size_t pg = sysconf(_SC_PAGESIZE);

	g->datalen = (datalen + pg - 1) / pg * pg;
	g->maplen = g->datalen + pg;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ASSERT_TRUE(g->map != MAP_FAILED, "mmap")) {
		g->map = NULL;
		return false;
	}
	if (!ASSERT_OK(mprotect(g->map + g->datalen, pg, PROT_NONE), "mprotect")) {
		munmap(g->map, g->maplen);
		g->map = NULL;
		return false;
	}
	return true;
}

/* @len bytes of @src, ending where the inaccessible page starts */
static const uint8_t *guarded_copy(struct guarded *g, const void *src, size_t len)
{
	uint8_t *dst = g->map + g->datalen - len;

	memcpy(dst, src, len);
	return dst;
}

static void guarded_fini(struct guarded *g)
{
	if (g->map)
		munmap(g->map, g->maplen);
}

static bool check_types(const struct rc_ipt_summary *s, const uint64_t *want)
{
	unsigned int t;

	for (t = 0; t < RC_IPT_NTYPES; t++) {
		if (!ASSERT_EQ(s->by_type[t], want[t], rc_ipt__type_name(t)))
			return false;
	}
	return true;
}

static void subtest_whole(struct guarded *g)
{
	uint64_t want[RC_IPT_NTYPES] = {};
	struct rc_ipt_summary s;
	uint8_t buf[STREAM_MAX];
	const uint8_t *p;
	size_t len;

	len = encode(stream_a, ARRAY_SIZE(stream_a), buf, sizeof(buf), NULL);
	if (!len)
		return;
	tally(stream_a, ARRAY_SIZE(stream_a), want);
	p = guarded_copy(g, buf, len);
	if (!ASSERT_OK(rc_ipt__summarize(p, len, &s), "summarize"))
		return;
	ASSERT_EQ(s.bytes, len, "bytes");
	ASSERT_EQ(s.packets, ARRAY_SIZE(stream_a), "packets");
	check_types(&s, want);
	ASSERT_EQ(s.by_type[RC_IPT_TNT_8], 4, "tnt8");
	ASSERT_EQ(s.by_type[RC_IPT_PAD], 3, "pad");
	ASSERT_EQ(s.psb, 2, "psb");
	ASSERT_EQ(s.ntsc, 2, "ntsc");
	ASSERT_EQ(s.tsc_first, TSC1, "tsc_first");
	ASSERT_EQ(s.tsc_last, TSC2, "tsc_last");
	ASSERT_EQ(s.errors, 0, "errors");
	ASSERT_EQ(s.skipped, 0, "skipped");
	ASSERT_EQ(s.truncated, 0, "truncated");
}

/* garbage before the first PSB, and no PSB at all: skipped, not errors */
static void subtest_unsynced(struct guarded *g)
{
	uint64_t want[RC_IPT_NTYPES] = {};
	struct rc_ipt_summary s;
	uint8_t buf[STREAM_MAX];
	const size_t lead = 37;
	const uint8_t *p;
	size_t len;

	/* what the stream carries before its PSB: no sync point in it */
	memset(buf, 0x5a, lead);
	len = encode(stream_b, ARRAY_SIZE(stream_b), buf + lead, sizeof(buf) - lead, NULL);
	if (!len)
		return;
	tally(stream_b, ARRAY_SIZE(stream_b), want);
	p = guarded_copy(g, buf, lead + len);
	if (!ASSERT_OK(rc_ipt__summarize(p, lead + len, &s), "summarize"))
		return;
	ASSERT_EQ(s.packets, ARRAY_SIZE(stream_b), "packets");
	check_types(&s, want);
	ASSERT_EQ(s.skipped, lead, "skipped: the bytes before the PSB");
	ASSERT_EQ(s.errors, 0, "errors");
	ASSERT_EQ(s.tsc_first, TSC2, "tsc_first");
	ASSERT_EQ(s.tsc_last, TSC2, "tsc_last");

	/* no PSB: nothing decoded, all skipped */
	p = guarded_copy(g, buf, lead);
	if (!ASSERT_OK(rc_ipt__summarize(p, lead, &s), "no psb"))
		return;
	ASSERT_EQ(s.bytes, lead, "no psb: bytes");
	ASSERT_EQ(s.packets, 0, "no psb: packets");
	ASSERT_EQ(s.skipped, lead, "no psb: skipped");
	ASSERT_TRUE(!s.tsc_first && !s.tsc_last && !s.ntsc, "no psb: no tsc");

	/* empty */
	ASSERT_OK(rc_ipt__summarize(NULL, 0, &s), "empty");
	ASSERT_EQ(s.bytes + s.packets + s.skipped, 0, "empty: nothing");
	ASSERT_EQ(rc_ipt__summarize(NULL, 1, &s), -EINVAL, "NULL buffer");
	ASSERT_EQ(rc_ipt__summarize(buf, 1, NULL), -EINVAL, "NULL summary");
}

/*
 * Garbage spliced between two PSB-started segments: one error at its first
 * byte, the rest of it skipped up to the second segment's PSB, and every
 * packet of both segments counted.
 */
static void subtest_garbage(struct guarded *g)
{
	/* 0x02 then 0x02: an extended opcode libipt does not know */
	static const uint8_t garbage[] = { 0x02, 0x02, 0xc8, 0x3f, 0x02,
					   0xff, 0x99, 0x19, 0x02, 0x02 };
	uint64_t want[RC_IPT_NTYPES] = {};
	size_t la, lb, len, cut;
	struct rc_ipt_summary s;
	uint8_t buf[STREAM_MAX];
	const uint8_t *p;

	la = encode(stream_a, ARRAY_SIZE(stream_a), buf, sizeof(buf), NULL);
	if (!la)
		return;
	memcpy(buf + la, garbage, sizeof(garbage));
	lb = encode(stream_b, ARRAY_SIZE(stream_b), buf + la + sizeof(garbage),
		    sizeof(buf) - la - sizeof(garbage), NULL);
	if (!lb)
		return;
	len = la + sizeof(garbage) + lb;
	tally(stream_a, ARRAY_SIZE(stream_a), want);
	tally(stream_b, ARRAY_SIZE(stream_b), want);
	p = guarded_copy(g, buf, len);
	if (!ASSERT_OK(rc_ipt__summarize(p, len, &s), "summarize"))
		return;
	ASSERT_EQ(s.bytes, len, "bytes");
	ASSERT_EQ(s.errors, 1, "errors");
	ASSERT_EQ(s.skipped, sizeof(garbage), "skipped: the garbage");
	ASSERT_EQ(s.packets, ARRAY_SIZE(stream_a) + ARRAY_SIZE(stream_b), "packets");
	check_types(&s, want);
	ASSERT_EQ(s.psb, 3, "psb");
	ASSERT_EQ(s.ntsc, 3, "ntsc");
	ASSERT_EQ(s.tsc_first, TSC1, "tsc_first");
	ASSERT_EQ(s.tsc_last, TSC2, "tsc_last");

	/*
	 * The first segment cut short at each length past its PSB, then the
	 * garbage: what the cut packet and the garbage decode to varies (a
	 * packet may even swallow the start of the second PSB, which the
	 * resync then finds behind the error), but there is an error, bytes
	 * are skipped, and every packet of the second segment is counted.
	 */
	memset(want, 0, sizeof(want));
	tally(stream_b, ARRAY_SIZE(stream_b), want);
	for (cut = 16; cut <= la; cut++) {
		uint8_t tmp[STREAM_MAX];
		unsigned int t;

		memcpy(tmp, buf, cut);
		memcpy(tmp + cut, buf + la, sizeof(garbage) + lb);
		p = guarded_copy(g, tmp, cut + sizeof(garbage) + lb);
		if (!ASSERT_OK(rc_ipt__summarize(p, cut + sizeof(garbage) + lb, &s), "cut"))
			return;
		for (t = 0; t < RC_IPT_NTYPES && s.by_type[t] >= want[t]; t++)
			;
		if (!ASSERT_TRUE(s.errors >= 1, "an error at each cut") ||
		    !ASSERT_TRUE(s.skipped > 0, "bytes skipped") ||
		    !ASSERT_EQ(t, RC_IPT_NTYPES, "the second segment's packets") ||
		    !ASSERT_TRUE(s.psb >= 2, "both PSBs") ||
		    !ASSERT_EQ(s.tsc_last, TSC2, "the second segment's tsc") ||
		    !ASSERT_EQ(s.truncated, 0, "nothing cut at the end")) {
			fprintf(stderr, "first segment cut at %zu of %zu\n", cut, la);
			return;
		}
	}
}

/*
 * The stream cut at every length: the packets that end before the cut are
 * counted, exactly; the cut one is truncated, not an error; counts never
 * fall as the cut grows.
 */
static void subtest_cut(struct guarded *g)
{
	size_t ends[ARRAY_SIZE(stream_a)], len, cut, whole, i;
	struct rc_ipt_summary s, prev = {};
	uint8_t buf[STREAM_MAX];
	unsigned int t;

	len = encode(stream_a, ARRAY_SIZE(stream_a), buf, sizeof(buf), ends);
	if (!len)
		return;
	for (cut = 0; cut <= len; cut++) {
		const uint8_t *p = guarded_copy(g, buf, cut);

		if (!ASSERT_OK(rc_ipt__summarize(p, cut, &s), "summarize"))
			goto fail;
		/* the packets whole in [0, cut) */
		for (i = 0, whole = 0; i < ARRAY_SIZE(stream_a) && ends[i] <= cut; i++)
			whole = ends[i];
		if (!ASSERT_EQ(s.bytes, cut, "bytes") || !ASSERT_EQ(s.errors, 0, "errors"))
			goto fail;
		if (cut < ends[0]) {
			/* the first PSB cut: no sync point */
			if (!ASSERT_EQ(s.packets, 0, "packets") ||
			    !ASSERT_EQ(s.skipped, cut, "all skipped"))
				goto fail;
		} else if (!ASSERT_EQ(s.packets, i, "the whole packets") ||
			   !ASSERT_EQ(s.skipped, 0, "none skipped") ||
			   !ASSERT_EQ(s.truncated, cut - whole, "the cut packet truncated")) {
			goto fail;
		}
		if (!ASSERT_TRUE(s.packets >= prev.packets, "packets monotone") ||
		    !ASSERT_TRUE(s.psb >= prev.psb, "psb monotone") ||
		    !ASSERT_TRUE(s.ntsc >= prev.ntsc, "ntsc monotone") ||
		    !ASSERT_TRUE(s.tsc_last >= prev.tsc_last, "tsc_last monotone"))
			goto fail;
		for (t = 0; t < RC_IPT_NTYPES; t++) {
			if (!ASSERT_TRUE(s.by_type[t] >= prev.by_type[t], rc_ipt__type_name(t)))
				goto fail;
		}
		prev = s;
	}
	ASSERT_EQ(prev.packets, ARRAY_SIZE(stream_a), "all at the full length");
	return;
fail:
	fprintf(stderr, "stream cut at %zu of %zu bytes\n", cut, len);
}

/*
 * Data lost mid-packet, as when the AUX buffer fills: each packet of the
 * first segment cut at each of its lengths, the second segment right
 * after. The cut packet decodes over the start of the second PSB, and
 * what follows fails; libipt's resync finds that PSB behind the error: the
 * packets decoded over it are dropped, not counted, and the cut bytes are
 * skipped. Every whole packet of both segments is counted, exactly.
 */
static void subtest_lost(struct guarded *g)
{
	size_t ends[ARRAY_SIZE(stream_a)], la, lb, k, part, start, n = 0;
	uint8_t a[STREAM_MAX], b[STREAM_MAX], tmp[2 * STREAM_MAX];
	uint64_t want[RC_IPT_NTYPES];
	struct rc_ipt_summary s;

	la = encode(stream_a, ARRAY_SIZE(stream_a), a, sizeof(a), ends);
	lb = encode(stream_b, ARRAY_SIZE(stream_b), b, sizeof(b), NULL);
	if (!la || !lb)
		return;
	for (k = 0; k < ARRAY_SIZE(stream_a); k++) {
		start = k ? ends[k - 1] : 0;
		for (part = 1; start + part < ends[k]; part++) {
			memset(want, 0, sizeof(want));
			tally(stream_a, k, want);
			tally(stream_b, ARRAY_SIZE(stream_b), want);
			memcpy(tmp, a, start + part);
			memcpy(tmp + start + part, b, lb);
			if (!ASSERT_OK(rc_ipt__summarize(guarded_copy(g, tmp, start + part + lb),
							 start + part + lb, &s),
				       "summarize"))
				return;
			if (!check_types(&s, want) ||
			    !ASSERT_EQ(s.skipped, part, "the cut bytes") ||
			    !ASSERT_EQ(s.truncated, 0, "truncated") ||
			    !ASSERT_TRUE(s.errors <= 1, "one error at most") ||
			    !ASSERT_EQ(s.tsc_last, TSC2, "tsc_last")) {
				fprintf(stderr, "packet %zu (%s) cut after %zu of %zu bytes\n", k,
					rc_ipt__type_name(stream_a[k].t), part, ends[k] - start);
				return;
			}
			n++;
		}
	}
	ASSERT_TRUE(n > 20, "cuts tried");
}

/*
 * Random bytes with PSBs and packets spliced in: whatever they decode to,
 * the walk accounts for each byte at most once per packet and stays in the
 * buffer (the page after it is inaccessible).
 */
static void subtest_random(struct guarded *g)
{
	uint8_t buf[STREAM_MAX], seg[STREAM_MAX];
	struct rc_ipt_summary s;
	unsigned int seed = 1;
	size_t lseg, len, at;
	int round;

	lseg = encode(stream_b, ARRAY_SIZE(stream_b), seg, sizeof(seg), NULL);
	if (!lseg)
		return;
	for (round = 0; round < 3000; round++) {
		len = rand_r(&seed) % 600;
		for (at = 0; at < len; at++)
			buf[at] = rand_r(&seed);
		/* up to three copies of a segment, some of them overlapping */
		for (at = rand_r(&seed) % 4; at > 0 && len > lseg; at--)
			memcpy(buf + rand_r(&seed) % (len - lseg), seg, lseg);
		if (!ASSERT_OK(rc_ipt__summarize(guarded_copy(g, buf, len), len, &s),
			       "summarize") ||
		    !ASSERT_EQ(s.bytes, len, "bytes") ||
		    !ASSERT_TRUE(s.skipped + s.truncated <= len, "skipped within the buffer") ||
		    !ASSERT_TRUE(s.psb <= len / 16, "no more PSBs than fit")) {
			fprintf(stderr, "round %d, %zu bytes\n", round, len);
			return;
		}
	}
}

void test_aux_ipt_summary(void)
{
	struct guarded g;

	ASSERT_STREQ(rc_ipt__type_name(RC_IPT_TNT_8), "tnt8", "name");
	ASSERT_STREQ(rc_ipt__type_name(RC_IPT_NTYPES), "unknown", "name out of range");
	if (!guarded_init(&g, STREAM_MAX))
		return;
	if (test__start_subtest("whole"))
		subtest_whole(&g);
	if (test__start_subtest("unsynced"))
		subtest_unsynced(&g);
	if (test__start_subtest("garbage"))
		subtest_garbage(&g);
	if (test__start_subtest("cut"))
		subtest_cut(&g);
	if (test__start_subtest("lost"))
		subtest_lost(&g);
	if (test__start_subtest("random"))
		subtest_random(&g);
	guarded_fini(&g);
}

/* ---- report --aux on a capture holding an Intel PT stream ------------- */

#define REPS 100

/* A ringcap:aux record of kind PERF_RECORD_AUX. */
static int put_aux_rec(struct rc_writer *w, uint64_t ts, uint64_t off, uint64_t size,
		       uint64_t flags)
{
	struct rc_rec_aux a = {
		.hdr = { .ts = ts, .pid = 42, .tid = 42, .type = RC_REC_AUX, .size = sizeof(a) },
		.offset = off,
		.size = size,
		.flags = flags,
		.kind = PERF_RECORD_AUX,
	};

	return rc_writer__add(w, &a, sizeof(a));
}

/* The number after "key": in a JSON line, or -1. */
static long long json_num(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = line ? strstr(line, pat) : NULL;
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/*
 * A capture written with the writer as record writes one: CPU 0's Intel PT
 * stream (stream_a, REPS times, libipt's encoding) in AUX blocks of 1000
 * bytes, its clock given; three ringcap:aux records, one truncated; CPU
 * 1's stream after a gap. report --aux counts every packet the encoder
 * wrote, by type, the PSBs and the TSC span; --aux-dump writes CPU 0's
 * stream back byte for byte.
 */
void test_aux_report(void)
{
	const char *path = tmpfile_path("pt.rcap"), *dir = tmpfile_path("dump");
	uint64_t want[RC_IPT_NTYPES] = {};
	struct rc_writer_opts wo = { .sz = sizeof(wo) };
	size_t one, len, off, i;
	struct mem_capture mc = {};
	struct rc_writer *w = NULL;
	char dump[4200], *line;
	struct run r = {};
	struct rc_meta m;
	uint8_t *stream;
	int fd, err = 0;

	stream = malloc(REPS * STREAM_MAX);
	if (!ASSERT_OK_PTR(stream, "malloc"))
		return;
	one = encode(stream_a, ARRAY_SIZE(stream_a), stream, STREAM_MAX, NULL);
	if (!one)
		goto out;
	for (i = 1; i < REPS; i++)
		memcpy(stream + i * one, stream, one);
	len = REPS * one;
	for (i = 0; i < REPS; i++)
		tally(stream_a, ARRAY_SIZE(stream_a), want);
	test_meta(&m);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!ASSERT_TRUE(fd >= 0, "open"))
		goto out;
	w = rc_writer__new(fd, &m, &wo);
	if (!ASSERT_OK_PTR(w, "writer")) {
		close(fd);
		goto out;
	}
	for (off = 0; !err && off < len; off += 1000) {
		struct rc_aux_chunk ac = {
			.pmu = "intel_pt",
			.cpu = 0,
			.pmu_type = 8,
			.pos = off,
			.size = len - off < 1000 ? len - off : 1000,
			.ts = 2000 + off,
			.time_zero = 0,
			.time_mult = 1,
			.time_shift = 0,
			.clock_valid = true,
			.perf_to_boot = 5,
			.data = stream + off,
		};

		err = rc_writer__add_aux(w, &ac);
	}
	err = err ?: put_aux_rec(w, 2000, 0, len / 2, 0);
	err = err ?: put_aux_rec(w, 3000, len / 2, len - len / 2, PERF_AUX_FLAG_TRUNCATED);
	err = err ?: put_aux_rec(w, 4000, len, 0, PERF_AUX_FLAG_PARTIAL | 0x100);
	if (!err) {
		uint8_t b[64];
		size_t nb = encode(stream_b, ARRAY_SIZE(stream_b), b, sizeof(b), NULL);
		struct rc_aux_chunk ac = {
			.pmu = "intel_pt", .cpu = 1, .pos = 4096, .size = nb, .data = b
		};

		err = rc_writer__add_aux(w, &ac);
		ac.pos = 8192; /* a gap of 4096 - nb bytes */
		err = err ?: rc_writer__add_aux(w, &ac);
	}
	if (!err) {
		struct rc_stat_entry e[1] = {
			{ .cpu = 0,
			  .type = RC_TYPE_AUX,
			  .made = len + 100,
			  .captured = len,
			  .dropped = 100,
			  .missed = 2,
			  .throttles = 1,
			  .not_run = 4 },
		};
		struct rc_stats st = { .ts = 5000, .nentries = 1, .entries = e };

		err = rc_writer__add_stats(w, &st);
	}
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	close(fd);
	if (!ASSERT_OK(err, "write"))
		goto out;

	/* the ledger: AUX bytes apart from the events */
	ASSERT_EQ(
	    run_sync(&r, (char *[]){ (char *)bin("ringcap"), "stat", "--json", (char *)path, NULL },
		     30000),
	    0, "stat --json");
	ASSERT_EQ(json_num(r.out, "made_bytes"), (long long)len + 100, "AUX bytes made");
	ASSERT_EQ(json_num(r.out, "captured_bytes"), (long long)len, "AUX bytes captured");
	ASSERT_EQ(json_num(r.out, "not_read_bytes"), 100, "AUX bytes not read");
	ASSERT_EQ(json_num(r.out, "wrapped_snapshots"), 4, "wrapped snapshots");
	ASSERT_EQ(json_num(r.out, "truncations"), 1, "truncations");
	ASSERT_EQ(json_num(r.out, "records_lost"), 2, "records lost");
	ASSERT_HAS(r.out, "\"events\":0,", "ringcap:aux records are not events");
	ASSERT_HAS(r.out, "\"total\":{\"made\":0,", "the events' total: no AUX bytes");
	run_free(&r);
	ASSERT_EQ(
	    run_sync(&r, (char *[]){ (char *)bin("ringcap"), "stat", (char *)path, NULL }, 30000),
	    0, "stat");
	ASSERT_HAS(r.out, "# AUX streams: ", "the AUX line");
	ASSERT_HAS(r.out, "1 truncations", "truncations said");
	run_free(&r);

	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "report", "--aux", "--format",
				       "json", (char *)path, NULL },
			   30000),
		  0, "report --aux --format json");
	line = r.out;
	ASSERT_EQ(json_num(line, "cpu"), 0, "CPU 0 first");
	ASSERT_EQ(json_num(line, "bytes"), (long long)len, "its bytes");
	ASSERT_EQ(json_num(line, "blocks"), (long long)((len + 999) / 1000), "its blocks");
	ASSERT_EQ(json_num(line, "gaps"), 0, "no gap");
	ASSERT_EQ(json_num(line, "records"), 3, "AUX records");
	ASSERT_EQ(json_num(line, "truncated"), 1, "one truncated");
	ASSERT_EQ(json_num(line, "partial"), 1, "one partial");
	ASSERT_EQ(json_num(line, "psb"), 2 * REPS, "PSBs");
	ASSERT_EQ(json_num(line, "tsc"), 2 * REPS, "TSC packets");
	ASSERT_EQ(json_num(line, "tsc_first"), (long long)TSC1, "first TSC");
	ASSERT_EQ(json_num(line, "tsc_last"), (long long)TSC2, "last TSC");
	ASSERT_EQ(json_num(line, "tsc_first_ts"), (long long)TSC1 + 5, "first TSC, capture clock");
	ASSERT_EQ(json_num(line, "errors"), 0, "no decode error");
	ASSERT_EQ(json_num(line, "tnt8"), (long long)want[RC_IPT_TNT_8], "TNT-8 packets");
	ASSERT_EQ(json_num(line, "tip"), (long long)want[RC_IPT_TIP], "TIP packets");
	ASSERT_EQ(json_num(line, "mtc"), (long long)want[RC_IPT_MTC], "MTC packets");
	line = line ? strchr(line, '\n') : NULL;
	ASSERT_EQ(json_num(line, "cpu"), 1, "CPU 1 second");
	ASSERT_EQ(json_num(line, "gaps"), 1, "its gap");
	run_free(&r);

	ASSERT_EQ(
	    run_sync(&r,
		     (char *[]){ (char *)bin("ringcap"), "report", "--aux", (char *)path, NULL },
		     30000),
	    0, "report --aux");
	ASSERT_HAS(r.out, "CPU 0 Intel PT:", "text: the packet summary");
	ASSERT_HAS(r.out, "psb 200", "text: PSBs by type");
	run_free(&r);

	if (!ASSERT_OK(mkdir(dir, 0755), "mkdir"))
		goto out;
	ASSERT_EQ(run_sync(&r,
			   (char *[]){ (char *)bin("ringcap"), "report", "--aux-dump", (char *)dir,
				       (char *)path, NULL },
			   30000),
		  0, "report --aux-dump");
	snprintf(dump, sizeof(dump), "%s/aux-cpu0.bin", dir);
	if (ASSERT_OK(slurp(dump, &mc), "read the dump")) {
		ASSERT_EQ(mc.len, len, "dump: the stream's length");
		ASSERT_TRUE(mc.len == len && !memcmp(mc.buf, stream, len), "dump: the stream");
	}
out:
	run_free(&r);
	free(mc.buf);
	free(stream);
	tmpdir_cleanup();
}

#else /* !HAVE_LIBIPT */

void test_aux_report(void)
{
	test__skip("built without libipt (HAVE_LIBIPT=0): no Intel PT summary to check");
}

void test_aux_ipt_summary(void)
{
	struct rc_ipt_summary s;
	uint8_t b = 0;

	ASSERT_STREQ(rc_ipt__type_name(RC_IPT_TNT_8), "tnt8", "name");
	ASSERT_EQ(rc_ipt__summarize(&b, 1, &s), -EOPNOTSUPP, "the stub");
	test__skip("built without libipt (HAVE_LIBIPT=0)");
}

#endif /* HAVE_LIBIPT */
