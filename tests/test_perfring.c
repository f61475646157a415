// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf ring reader (lib/capture/perf/ring.c) on rings built in memory:
 * a perf_event_mmap_page and a small data area, records written across
 * the ring's end, sizes corrupt in every way, and an overwrite ring.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/perf/ring.h"
#include "test_progs.h"

#define RING_SZ 256
#define HDR	sizeof(struct perf_event_header)

struct fake {
	unsigned char *mem; /* the metadata page, then the data area */
	struct rc_perf_ring r;
	size_t page;
};

static bool fake_init(struct fake *f)
{
	struct perf_event_mmap_page *meta;

	f->page = sysconf(_SC_PAGESIZE);
	f->mem = calloc(1, f->page + RING_SZ);
	if (!ASSERT_OK_PTR(f->mem, "calloc"))
		return false;
	meta = (void *)f->mem;
	meta->data_offset = f->page;
	meta->data_size = RING_SZ;
	return ASSERT_OK(rc_perf_ring__init(&f->r, f->mem, RING_SZ), "init");
}

static void fake_free(struct fake *f)
{
	rc_perf_ring__unmap(&f->r);
	free(f->mem);
}

/* The kernel's part: a record of @size bytes at ring position @pos, as it writes it. */
static void put(struct fake *f, uint64_t pos, uint32_t type, uint16_t size, unsigned char fill)
{
	struct perf_event_header h = { .type = type, .misc = fill, .size = size };
	unsigned char *data = f->mem + f->page;
	uint16_t i;

	for (i = 0; i < sizeof(h); i++)
		data[(pos + i) % RING_SZ] = ((unsigned char *)&h)[i];
	for (; i < size; i++)
		data[(pos + i) % RING_SZ] = fill + i;
}

static void set_head(struct fake *f, uint64_t head)
{
	__atomic_store_n(&f->r.meta->data_head, head, __ATOMIC_RELEASE);
}

/* A record as the iterator yields it: whole, its bytes as put() wrote them. */
static bool rec_ok(const struct rc_perf_rec *rec, uint32_t type, uint16_t size, unsigned char fill)
{
	const unsigned char *p = rec->data;
	uint16_t i;

	if (rec->type != type || rec->size != size || rec->misc != fill)
		return false;
	for (i = HDR; i < size; i++)
		if (p[i] != (unsigned char)(fill + i))
			return false;
	return true;
}

static void test_wrap(void)
{
	/* from 200: 24 bytes, 48 across the end (224..272), 16, then 40 */
	static const struct {
		uint32_t type;
		uint16_t size;
	} recs[] = { { PERF_RECORD_SAMPLE, 24 },
		     { PERF_RECORD_MMAP2, 48 },
		     { PERF_RECORD_LOST, 16 },
		     { PERF_RECORD_COMM, 40 } };
	uint64_t start = 3 * RING_SZ + 200, pos = start, head = start, tail;
	struct rc_perf_rec rec;
	struct fake f;
	size_t i;

	if (!fake_init(&f))
		goto out;
	for (i = 0; i < 4; i++) {
		put(&f, head, recs[i].type, recs[i].size, 0x10 * (i + 1));
		head += recs[i].size;
	}
	ASSERT_EQ(rc_perf_ring__next(&f.r, &pos, start, &rec), 0, "nothing before the head moves");
	set_head(&f, head);
	ASSERT_EQ(rc_perf_ring__head(&f.r), head, "head");
	for (i = 0; i < 4; i++) {
		tail = pos;
		if (!ASSERT_EQ(rc_perf_ring__next(&f.r, &pos, head, &rec), 1, "a record"))
			goto out;
		ASSERT_TRUE(rec_ok(&rec, recs[i].type, recs[i].size, 0x10 * (i + 1)), "as written");
		ASSERT_EQ(pos - tail, recs[i].size, "stepped over it");
		if (i == 1)
			ASSERT_TRUE(rec.data == f.r.wrap, "the wrapped one, made whole");
		else
			ASSERT_TRUE(rec.data == f.r.data + (tail % RING_SZ),
				    "the others, in place");
	}
	ASSERT_EQ(pos, head, "at the head");
	ASSERT_EQ(rc_perf_ring__next(&f.r, &pos, head, &rec), 0, "then nothing");
	ASSERT_EQ(rc_perf_ring__peek(&f.r, start + 24, head, &rec), 1, "peek");
	ASSERT_TRUE(rec_ok(&rec, PERF_RECORD_MMAP2, 48, 0x20), "peek: the wrapped one");
	rc_perf_ring__store_tail(&f.r, pos);
	ASSERT_EQ(f.r.meta->data_tail, head, "tail stored");
out:
	fake_free(&f);
}

static void test_corrupt(void)
{
	/* after a good record at 232 (16 bytes), at 248 a header saying: */
	static const struct {
		const char *name;
		uint16_t size;	/* the bad header's size */
		uint64_t extra; /* bytes the head is past it */
	} bad[] = {
		{ "smaller than a header", 4, 16 },    { "zero", 0, 16 },
		{ "not a multiple of 8", 20, 24 },     { "past the head", 32, 24 },
		{ "larger than the ring", 65528, 24 }, { "head less than a header past", 16, 4 },
	};
	uint64_t start = 232, pos, head;
	struct rc_perf_rec rec;
	struct fake f;
	size_t i;
	int n;

	if (!fake_init(&f))
		goto out;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pos = start;
		head = start + 16 + bad[i].extra;
		put(&f, start, PERF_RECORD_SAMPLE, 16, 0x40);
		put(&f, start + 16, PERF_RECORD_SAMPLE, 16, 0x50); /* crosses the end */
		f.r.data[(start + 16 + 6) % RING_SZ] = bad[i].size & 0xff;
		f.r.data[(start + 16 + 7) % RING_SZ] = bad[i].size >> 8;
		set_head(&f, head);
		n = rc_perf_ring__next(&f.r, &pos, head, &rec);
		ASSERT_EQ(n, 1, bad[i].name);
		ASSERT_TRUE(n == 1 && rec_ok(&rec, PERF_RECORD_SAMPLE, 16, 0x40), bad[i].name);
		ASSERT_EQ(rc_perf_ring__next(&f.r, &pos, head, &rec), -EBADMSG, bad[i].name);
		ASSERT_EQ(pos, head, bad[i].name);
		ASSERT_EQ(rc_perf_ring__next(&f.r, &pos, head, &rec), 0, bad[i].name);
	}
	/* the head more than a ring past the tail */
	pos = start;
	head = start + RING_SZ + 8;
	ASSERT_EQ(rc_perf_ring__next(&f.r, &pos, head, &rec), -EBADMSG, "a ring past");
	ASSERT_EQ(pos, head, "a ring past: resync");
	/* a good record at the same place: the tests above were of the size only */
	pos = start + 16;
	head = pos + 16;
	put(&f, pos, PERF_RECORD_SAMPLE, 16, 0x50);
	ASSERT_EQ(rc_perf_ring__next(&f.r, &pos, head, &rec), 1, "the record, well formed");
	ASSERT_TRUE(rec.data == f.r.wrap, "across the end");
	ASSERT_EQ(pos, head, "and past it");
out:
	fake_free(&f);
}

/* A backward ring: the kernel writes each record below the last, from 0 down. */
static void test_overwrite(void)
{
	unsigned char copy[RING_SZ];
	struct rc_perf_rec rec;
	uint64_t head = 0, at = 0;
	size_t len, pos;
	bool wrapped;
	struct fake f;
	int i, n;

	if (!fake_init(&f))
		goto out;
	for (i = 0; i < 3; i++) {
		head -= 32;
		put(&f, head, PERF_RECORD_SAMPLE, 32, 0x10 * (i + 1));
	}
	set_head(&f, head);
	len = rc_perf_ring__copy_newest(&f.r, at, copy, &at, &wrapped);
	ASSERT_EQ(len, 96, "what was written");
	ASSERT_TRUE(!wrapped, "not wrapped");
	ASSERT_EQ(at, head, "the next snapshot's start");
	for (pos = 0, i = 3; (n = rc_perf_rec__parse(copy + pos, len - pos, &rec)) > 0; i--) {
		ASSERT_TRUE(rec_ok(&rec, PERF_RECORD_SAMPLE, 32, 0x10 * i), "newest first");
		pos += rec.size;
	}
	ASSERT_EQ(n, 0, "to the end");
	ASSERT_EQ(i, 0, "every record");

	/* 9 more of 32 bytes: the ring (8 of them) wrapped, the oldest is cut */
	for (i = 0; i < 9; i++) {
		head -= 32;
		put(&f, head, PERF_RECORD_SAMPLE, 32, 0x80 + i);
	}
	set_head(&f, head);
	f.r.data[(head + RING_SZ - 32 + 6) % RING_SZ] = 64; /* the oldest, cut: says 64 */
	len = rc_perf_ring__copy_newest(&f.r, at, copy, &at, &wrapped);
	ASSERT_EQ(len, RING_SZ, "a ring's worth");
	ASSERT_TRUE(wrapped, "wrapped");
	for (pos = 0, n = 0; rc_perf_rec__parse(copy + pos, len - pos, &rec) > 0; n++)
		pos += rec.size;
	ASSERT_EQ(n, 7, "the whole ones");
	ASSERT_EQ(rc_perf_rec__parse(copy + pos, len - pos, &rec), -EBADMSG, "then the cut one");
	ASSERT_EQ(rc_perf_rec__parse(copy, 4, &rec), -EBADMSG, "less than a header");
out:
	fake_free(&f);
}

void test_perfring_iter(void)
{
	if (test__start_subtest("wrap"))
		test_wrap();
	if (test__start_subtest("corrupt"))
		test_corrupt();
	if (test__start_subtest("overwrite"))
		test_overwrite();
}

void test_perfring_map(void)
{
	struct rc_perf_ring r;
	struct fake f;

	ASSERT_EQ(rc_perf_ring__map(&r, -1, 100, false), -EINVAL, "not a power of two");
	ASSERT_TRUE(r.fd == -1 && !r.meta, "left unmapped");
	ASSERT_EQ(rc_perf_ring__map(&r, -1, sysconf(_SC_PAGESIZE), false), -EBADF, "no event");
	ASSERT_TRUE(r.fd == -1 && !r.meta && !r.wrap, "left unmapped");
	rc_perf_ring__unmap(&r);
	if (!fake_init(&f))
		goto out;
	ASSERT_EQ(f.r.size, RING_SZ, "size");
	ASSERT_EQ(f.r.mask, RING_SZ - 1, "mask");
	ASSERT_TRUE(f.r.data == f.mem + f.page, "data at data_offset");
	ASSERT_EQ(f.r.fd, -1, "no fd");
out:
	fake_free(&f);
}
