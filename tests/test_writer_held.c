// SPDX-License-Identifier: GPL-2.0-only
/*
 * The writer holding records in place (rc_writer__add_held()), as the
 * writer thread holds the drain's batches: each buffer given back once,
 * when its last record is written and not before, and the file the same
 * bytes as the same records copied in (rc_writer__add()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "events.h"
#include <stddef.h>
#include "format/format.h"
#include "format/shuffle.h"
#include "format/writer_int.h"
#include "capture_util.h"
#include "test_progs.h"

enum { NA = 4, NB = 4 };

/* Buffer A's records, then B's, then one copied in: 10 to 3000, A's last after B's first two. */
static const uint64_t ts_a[NA] = { 10, 30, 50, 2000 };
static const uint64_t ts_b[NB] = { 1500, 1600, 2500, 3000 };
static const uint64_t ts_c = 2600;
static const uint64_t ts_file[] = { 10, 30, 50, 1500, 1600, 2000, 2500, 2600, 3000 };

struct given {
	int order[4]; /* which buffer came back: 'A', 'B' */
	int n;
};

static void give_a(void *ctx)
{
	struct given *g = ctx;

	if (g->n < 4)
		g->order[g->n] = 'A';
	g->n++;
}

static void give_b(void *ctx)
{
	struct given *g = ctx;

	if (g->n < 4)
		g->order[g->n] = 'B';
	g->n++;
}

static void fill(struct rc_ev_exit *e, const uint64_t *ts, int n, int code0)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].hdr.ts = ts[i];
		e[i].hdr.size = sizeof(e[i]);
		e[i].hdr.type = RC_EV_SCHED_EXIT;
		e[i].exit_code = code0 + i;
	}
}

/*
 * The same records and flushes: held in place (@held) or copied in. The
 * gives back (@g) checked at each step when held.
 */
static int write_file(int fd, bool held, struct given *g)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .reorder_ns = 1000 };
	struct rc_ev_exit a[NA], b[NB], c;
	struct rc_writer *w;
	struct rc_meta m;
	bool kept = false;
	int err = 0;

	test_meta(&m);
	fill(a, ts_a, NA, 0);
	fill(b, ts_b, NB, NA);
	fill(&c, &ts_c, 1, NA + NB);
	w = rc_writer__new(fd, &m, &wo);
	if (!ASSERT_OK_PTR(w, "writer"))
		return -EINVAL;
	if (held) {
		err = rc_writer__add_held(w, a, sizeof(a), give_a, g, &kept);
		ASSERT_TRUE(kept, "A held");
	} else {
		err = rc_writer__add(w, a, sizeof(a));
	}
	/* the window ends at 1000: 10, 30, 50 written, A's 2000 held yet */
	err = err ?: rc_writer__flush(w, false);
	if (held)
		ASSERT_EQ(g->n, 0, "A held while its 2000 waits");
	if (held) {
		err = err ?: rc_writer__add_held(w, b, sizeof(b), give_b, g, &kept);
		ASSERT_TRUE(kept, "B held");
	} else {
		err = err ?: rc_writer__add(w, b, sizeof(b));
	}
	/* the window ends at 2000: 1500, 1600, 2000 written, A all written */
	err = err ?: rc_writer__flush(w, false);
	if (held) {
		ASSERT_EQ(g->n, 1, "A given back once written");
		ASSERT_EQ(g->order[0], 'A', "A first");
	}
	err = err ?: rc_writer__add(w, &c, sizeof(c));
	if (held)
		ASSERT_EQ(g->n, 1, "B held while 2500 and 3000 wait");
	err = err ?: rc_writer__finish(w);
	if (held) {
		ASSERT_EQ(g->n, 2, "B given back at the end, once");
		ASSERT_EQ(g->order[1], 'B', "then B");
	}
	/* held records changed after the writer gave them back do not matter */
	memset(a, 0xff, sizeof(a));
	memset(b, 0xff, sizeof(b));
	rc_writer__free(w);
	ASSERT_EQ(g ? g->n : 2, 2, "nothing given back by the free");
	return err;
}

void test_format_held(void)
{
	struct mem_capture held = {}, copied = {};
	const struct rc_trailer *tr;
	const struct rc_rec_hdr *rec;
	struct rc_reader *r = NULL;
	struct given g = {};
	char path[64];
	int fd1 = -1, fd2 = -1, err;
	size_t n = 0;
	bool order = true;

	fd1 = memfd_create("held", 0);
	fd2 = memfd_create("copied", 0);
	if (!ASSERT_TRUE(fd1 >= 0 && fd2 >= 0, "memfd"))
		goto out;
	err = write_file(fd1, true, &g);
	err = err ?: write_file(fd2, false, NULL);
	if (!ASSERT_OK(err, "write"))
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd1);
	err = slurp(path, &held);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd2);
	err = err ?: slurp(path, &copied);
	if (!ASSERT_OK(err, "slurp"))
		goto out;
	ASSERT_EQ(held.len, copied.len, "the same length");
	ASSERT_TRUE(held.len == copied.len && !memcmp(held.buf, copied.buf, held.len),
		    "the same bytes as the records copied in");
	r = rc_reader__open_mem(held.buf, held.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_ev_exit *e = (const void *)rec;

		if (n < sizeof(ts_file) / sizeof(ts_file[0]))
			order &= rec->ts == ts_file[n] && rec->size == sizeof(*e);
		n++;
	}
	ASSERT_EQ(err, 0, "read");
	ASSERT_EQ(n, sizeof(ts_file) / sizeof(ts_file[0]), "records");
	ASSERT_TRUE(order, "each record, in time order");
	tr = rc_reader__trailer(r);
	if (ASSERT_OK_PTR(tr, "trailer")) {
		ASSERT_EQ(tr->late, 0, "none late");
		ASSERT_EQ(tr->nrec, n, "all counted");
	}
out:
	rc_reader__free(r);
	free(held.buf);
	free(copied.buf);
	if (fd1 >= 0)
		close(fd1);
	if (fd2 >= 0)
		close(fd2);
}

/* A small deterministic generator (xorshift64). */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * The shuffle of records in stretches (rc_shuffle__encode_spans()), as the
 * writer shuffles a chunk lying over two batches: the same bytes as of
 * the records put together, for runs that go on over a stretch's end, end
 * at it, or span several, empty stretches and runs of one record among
 * them. 2000 records of 40, 48 or 64 bytes, in runs of 1 to 40, cut 300
 * times at random.
 */
void test_format_held_spans(void)
{
	enum { NREC = 2000, MAXREC = 64, NCUT = 300 };
	static const uint16_t sizes[] = { 40, 48, 64 };
	static unsigned char recs[NREC * MAXREC];
	static unsigned char whole[NREC * MAXREC + NREC * 8], parts[NREC * MAXREC + NREC * 8];
	struct rc_span sp[NCUT + 3];
	uint64_t seed = 0x9e3779b97f4a7c15ull, ts = 1000;
	size_t len = 0, i, n1, n2, nsp = 0, at = 0, round, pos;
	bool same = true;

	for (i = 0; i < NREC;) {
		uint16_t size = sizes[next_rand(&seed) % 3];
		size_t run = 1 + next_rand(&seed) % 40, j;

		for (j = 0; j < run && i < NREC; j++, i++) {
			struct rc_rec_hdr h = { .ts = ts, .type = 1, .size = size, .pid = i };

			ts += next_rand(&seed) % 5000;
			memset(recs + len, (int)(i * 7), size);
			memcpy(recs + len, &h, sizeof(h));
			len += size;
		}
	}
	n1 = rc_shuffle__encode(recs, len, whole);
	for (round = 0; round < 20; round++) {
		size_t cut[NCUT], c, prev_end;

		/* cuts at record boundaries, sorted, repeats making empty stretches */
		for (c = 0; c < NCUT; c++) {
			size_t k = next_rand(&seed) % NREC;

			for (pos = 0, i = 0; i < k; i++) {
				uint16_t s;

				memcpy(&s, recs + pos + offsetof(struct rc_rec_hdr, size),
				       sizeof(s));
				pos += s;
			}
			cut[c] = pos;
		}
		for (c = 1; c < NCUT; c++) /* insertion sort */
			for (i = c; i > 0 && cut[i - 1] > cut[i]; i--) {
				size_t x = cut[i];

				cut[i] = cut[i - 1];
				cut[i - 1] = x;
			}
		nsp = 0;
		sp[nsp++] = (struct rc_span){ recs, 0 }; /* an empty one first */
		for (c = 0, prev_end = 0; c < NCUT; c++) {
			sp[nsp++] = (struct rc_span){ recs + prev_end, cut[c] - prev_end };
			prev_end = cut[c];
		}
		sp[nsp++] = (struct rc_span){ recs + prev_end, len - prev_end };
		memset(parts, 0xa5, sizeof(parts));
		n2 = rc_shuffle__encode_spans(sp, nsp, parts);
		same &= n2 == n1 && !memcmp(whole, parts, n1);
		at += nsp;
	}
	ASSERT_TRUE(same, "the same bytes from stretches as from the records together");
	/* two stretches, cut at record 1000: the writer's case, a batch's end */
	for (i = 0, pos = 0; i < 1000; i++) {
		uint16_t s;

		memcpy(&s, recs + pos + offsetof(struct rc_rec_hdr, size), sizeof(s));
		pos += s;
	}
	sp[0] = (struct rc_span){ recs, pos };
	sp[1] = (struct rc_span){ recs + pos, len - pos };
	ASSERT_EQ(rc_shuffle__encode_spans(sp, 2, parts), n1, "two stretches: the length");
	ASSERT_TRUE(!memcmp(whole, parts, n1), "two stretches: the bytes");
	/* one size, one run (rc_shuffle__encode_one_run()): 500 records, and one record */
	for (i = 0, len = 0; i < 500; i++, len += 64) {
		struct rc_rec_hdr h = { .ts = 7 * i * i, .type = 1, .size = 64, .pid = i };

		memset(recs + len, (int)i, 64);
		memcpy(recs + len, &h, sizeof(h));
	}
	for (n2 = 1; n2 <= 500; n2 += 499) {
		size_t cut1 = n2 / 3 * 64;

		n1 = rc_shuffle__encode(recs, n2 * 64, whole);
		sp[0] = (struct rc_span){ recs, cut1 };
		sp[1] = (struct rc_span){ recs + cut1, 0 };
		sp[2] = (struct rc_span){ recs + cut1, n2 * 64 - cut1 };
		memset(parts, 0xa5, sizeof(parts));
		ASSERT_EQ(rc_shuffle__encode_one_run(sp, 3, 64, parts), n1, "one run: the length");
		ASSERT_TRUE(!memcmp(whole, parts, n1), "one run: the bytes");
	}
	ASSERT_TRUE(at > 20 * NCUT, "stretches made");
}
