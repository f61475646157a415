// SPDX-License-Identifier: GPL-2.0-only
/*
 * The writer holding records in place (rc_writer__add_held()), as the
 * writer thread holds the drain's batches: each buffer given back once,
 * when its last record is written and not before, and the file the same
 * bytes as the same records copied in (rc_writer__add()).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "events.h"
#include <stddef.h>
#include "format/format.h"
#include "format/reader.h"
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

/* The offset of record @k of the records at @recs. */
static size_t rec_off(const unsigned char *recs, size_t k)
{
	size_t pos = 0, i;

	for (i = 0; i < k; i++) {
		uint16_t s;

		memcpy(&s, recs + pos + offsetof(struct rc_rec_hdr, size), sizeof(s));
		pos += s;
	}
	return pos;
}

enum { SP_NREC = 2000, SP_MAXREC = 256, SP_NCUT = 300 };

/*
 * The shuffle of records in stretches (rc_shuffle__encode_spans()), as the
 * writer shuffles a chunk lying over two batches: the same bytes as of
 * the records put together (@whole, @n1 bytes, encoded on the vector path
 * where there is one), for runs that go on over a stretch's end, end at
 * it, or span several, empty stretches and runs of one record among them.
 * Cut 300 times at random record boundaries, 20 times over, and at record
 * 1000 (a batch's end); one size in one run (rc_shuffle__encode_one_run()),
 * each of 40 to 256 bytes, against the vector path's bytes. On the path
 * rc_shuffle__scalar_only(@scalar) chose.
 */
static void held_spans(const unsigned char *recs, size_t len, const unsigned char *whole, size_t n1,
		       uint64_t seed, bool scalar)
{
	static unsigned char one[SP_NREC * SP_MAXREC], parts[SP_NREC * (SP_MAXREC + 8)],
		all[SP_NREC * (SP_MAXREC + 8)];
	struct rc_span sp[SP_NCUT + 3];
	size_t i, n2, nsp = 0, at = 0, round, pos, size;
	bool same = true;

	ASSERT_EQ(rc_shuffle__encode(recs, len, parts), n1, "together: the length");
	ASSERT_TRUE(!memcmp(whole, parts, n1), "together: the bytes of the vector path");
	for (round = 0; round < 20; round++) {
		size_t cut[SP_NCUT], c, prev_end;

		/* cuts at record boundaries, sorted, repeats making empty stretches */
		for (c = 0; c < SP_NCUT; c++)
			cut[c] = rec_off(recs, next_rand(&seed) % SP_NREC);
		for (c = 1; c < SP_NCUT; c++) /* insertion sort */
			for (i = c; i > 0 && cut[i - 1] > cut[i]; i--) {
				size_t x = cut[i];

				cut[i] = cut[i - 1];
				cut[i - 1] = x;
			}
		nsp = 0;
		sp[nsp++] = (struct rc_span){ recs, 0 }; /* an empty one first */
		for (c = 0, prev_end = 0; c < SP_NCUT; c++) {
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
	ASSERT_TRUE(at > 20 * SP_NCUT, "stretches made");
	/* two stretches, cut at record 1000: the writer's case, a batch's end */
	pos = rec_off(recs, 1000);
	sp[0] = (struct rc_span){ recs, pos };
	sp[1] = (struct rc_span){ recs + pos, len - pos };
	ASSERT_EQ(rc_shuffle__encode_spans(sp, 2, parts), n1, "two stretches: the length");
	ASSERT_TRUE(!memcmp(whole, parts, n1), "two stretches: the bytes");
	/* one size, one run: 500 records, and one record; against the vector path's */
	for (size = 40; size <= 256; size += 8) {
		size_t k;

		for (i = 0, len = 0; i < 500; i++, len += size) {
			struct rc_rec_hdr h = { .ts = 7 * i * i, .type = 1, .size = size, .pid = i };

			memset(one + len, (int)i, size);
			memcpy(one + len, &h, sizeof(h));
		}
		for (k = 1; k <= 500; k += 499) {
			size_t cut1 = k / 3 * size, nw;

			rc_shuffle__scalar_only(false);
			nw = rc_shuffle__encode(one, k * size, all);
			rc_shuffle__scalar_only(scalar);
			ASSERT_EQ(rc_shuffle__encode(one, k * size, parts), nw, "one size: the length");
			ASSERT_TRUE(!memcmp(all, parts, nw), "one size: the vector path's bytes");
			sp[0] = (struct rc_span){ one, cut1 };
			sp[1] = (struct rc_span){ one + cut1, 0 };
			sp[2] = (struct rc_span){ one + cut1, k * size - cut1 };
			memset(parts, 0xa5, sizeof(parts));
			ASSERT_EQ(rc_shuffle__encode_one_run(sp, 3, size, parts), nw,
				  "one run: the length");
			ASSERT_TRUE(!memcmp(all, parts, nw), "one run: the bytes");
		}
	}
}

/*
 * held_spans() on the vector path and on the portable one
 * (rc_shuffle__scalar_only()): 2000 records of 40 to 256 bytes, each a
 * multiple of 8, in runs of 1 to 40.
 */
void test_format_held_spans(void)
{
	static unsigned char recs[SP_NREC * SP_MAXREC], whole[SP_NREC * (SP_MAXREC + 8)];
	uint64_t seed = 0x9e3779b97f4a7c15ull, ts = 1000;
	size_t len = 0, i, n1;
	int scalar;

	for (i = 0; i < SP_NREC;) {
		uint16_t size = 40 + 8 * (next_rand(&seed) % 28); /* 40 to 256 */
		size_t run = 1 + next_rand(&seed) % 40, j;

		for (j = 0; j < run && i < SP_NREC; j++, i++) {
			struct rc_rec_hdr h = { .ts = ts, .type = 1, .size = size, .pid = i };

			ts += next_rand(&seed) % 5000;
			memset(recs + len, (int)(i * 7), size);
			memcpy(recs + len, &h, sizeof(h));
			len += size;
		}
	}
	rc_shuffle__scalar_only(false);
	n1 = rc_shuffle__encode(recs, len, whole);
	for (scalar = 0; scalar < 2; scalar++) {
		if (!test__start_subtest(scalar ? "portable" : "vector"))
			continue;
		rc_shuffle__scalar_only(scalar);
		held_spans(recs, len, whole, n1, seed + scalar, scalar);
		rc_shuffle__scalar_only(false);
	}
}

/*
 * Held buffers at scale, as the drain hands them: 1 MiB each, thousands
 * of records, each spanning 2.1 to 2.2 ms (two bytes a ns). Buffer 1
 * starts 1.8 ms after 0, before its end (the reorder window sorts them,
 * a record at a time from each); 2 and 3 after the one before, so that
 * a chunk of 256 KiB lies over two buffers, shuffled in place
 * (rc_shuffle__encode_spans(); encode_one_run() over 1 and 2).
 * Buffers 0, 1 and 3 held, 2 copied in; 1 and 2 all of 64 bytes (one
 * run), the others in runs of 48 to 256 bytes.
 */
enum { SC_NBUF = 4, SC_CAP = 1 << 20, SC_STEP = 1800000, SC_WINDOW = 600000 };

struct sc_buf {
	unsigned char *p;
	size_t len;
	uint64_t last; /* its last record's time */
	uint64_t need; /* records up to its last, in time order */
	struct rc_writer *w;
	int given;
	int early;  /* given back before its last record was written */
	int in_cut; /* given back once the writer was cut */
};

struct sc_ref {
	uint64_t ts;
	size_t off;
};

static void sc_give(void *ctx)
{
	struct sc_buf *b = ctx;

	b->given++;
	if (rc_writer__cut(b->w))
		b->in_cut++;
	else if (rc_writer__totals(b->w)->nrec < b->need)
		b->early++;
	memset(b->p, 0xee, b->len); /* a later read of it would show in the file */
}

static int sc_ref_cmp(const void *a, const void *b)
{
	const struct sc_ref *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Fills the buffers, @all with every record buffer after buffer and @refs
 * with them in time order. Timestamps are unique: buffer b's are b modulo
 * SC_NBUF. Returns the records made.
 */
static size_t sc_fill(struct sc_buf *bufs, unsigned char *all, struct sc_ref *refs)
{
	static const uint16_t sizes[] = { 48, 56, 64, 72, 96, 128, 200, 256 };
	uint64_t seed = 0x2545f4914f6cdd1dull, ts_end = 0;
	size_t nall = 0, at = 0, b, i, k;

	for (b = 0; b < SC_NBUF; b++) {
		/* 1 over 0's end; 2 and 3 after the one before: a chunk over both */
		uint64_t ts = b < 2 ? 1000000 + b * SC_STEP + b : (ts_end & ~3ull) + 8 + b;
		uint16_t size = 64;
		size_t run = 0;

		bufs[b].len = 0;
		for (;;) {
			struct rc_rec_hdr h = { .type = RC_EV_SCHED_EXIT };

			if (b != 1 && b != 2 && !run) {
				size = sizes[next_rand(&seed) % 8];
				run = 1 + next_rand(&seed) % 40;
			}
			if (run)
				run--;
			if (bufs[b].len + size > SC_CAP)
				break;
			ts += 2 * size + SC_NBUF * (next_rand(&seed) % 4);
			h.ts = ts;
			h.size = size;
			h.pid = h.tid = (uint32_t)nall;
			for (i = sizeof(h); i < size; i++)
				all[at + i] = (unsigned char)(nall * 31 + i);
			memcpy(all + at, &h, sizeof(h));
			memcpy(bufs[b].p + bufs[b].len, all + at, size);
			refs[nall++] = (struct sc_ref){ ts, at };
			bufs[b].len += size;
			bufs[b].last = ts;
			at += size;
		}
		ts_end = ts_end > ts ? ts_end : ts;
	}
	qsort(refs, nall, sizeof(*refs), sc_ref_cmp);
	for (b = 0; b < SC_NBUF; b++) {
		for (k = 0; k < nall && refs[k].ts <= bufs[b].last; k++)
			;
		bufs[b].need = k;
	}
	return nall;
}

/*
 * Adds the buffers, flushing after each; the writer's cut (RLIMIT_FSIZE)
 * not an error. Returns 0, or the first error of writing.
 */
static int sc_write(int fd, struct sc_buf *bufs, bool no_compress)
{
	struct rc_writer_opts wo = { .sz = sizeof(wo), .reorder_ns = SC_WINDOW,
				     .chunk_size = 256 << 10, .no_compress = no_compress };
	struct rc_writer *w;
	struct rc_meta m;
	int err = 0, b;

	test_meta(&m);
	w = rc_writer__new(fd, &m, &wo);
	if (!w)
		return -errno;
	for (b = 0; b < SC_NBUF && !err; b++) {
		bool held = false;

		bufs[b].w = w;
		if (b == 2)
			err = rc_writer__add(w, bufs[b].p, bufs[b].len);
		else
			err = rc_writer__add_held(w, bufs[b].p, bufs[b].len, sc_give, &bufs[b],
						  &held);
		err = err ?: rc_writer__flush(w, false);
		if (err && err == rc_writer__cut(w))
			err = 0;
	}
	err = err ?: rc_writer__finish(w);
	rc_writer__free(w);
	return err;
}

/*
 * Reads the file back: its records the first of @refs, byte for byte.
 * Returns the records read, or -1.
 */
static long sc_read(int fd, const unsigned char *all, const struct sc_ref *refs, size_t nall)
{
	struct mem_capture mc = {};
	const struct rc_rec_hdr *rec;
	struct rc_reader *r;
	size_t n = 0, bad = 0;
	char path[64];
	long ret = -1;
	int err;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!ASSERT_OK(slurp(path, &mc), "read back"))
		return -1;
	r = rc_reader__open_mem(mc.buf, mc.len);
	if (!ASSERT_OK_PTR(r, "open"))
		goto out;
	while ((err = rc_reader__next(r, &rec)) > 0) {
		const struct rc_rec_hdr *want = (const void *)(all + (n < nall ? refs[n].off : 0));

		if (n >= nall || rec->size != want->size || memcmp(rec, want, want->size))
			bad++;
		n++;
	}
	ASSERT_EQ(err, 0, "read");
	ASSERT_EQ(bad, 0, "each record the one made, in time order, byte for byte");
	ASSERT_TRUE(!rc_reader__corrupt(r, NULL), "not damaged");
	if (ASSERT_OK_PTR(rc_reader__trailer(r), "trailer")) {
		ASSERT_EQ(rc_reader__trailer(r)->nrec, n, "all counted");
		ASSERT_EQ(rc_reader__trailer(r)->late, 0, "none late");
	}
	ret = bad ? -1 : (long)n;
out:
	rc_reader__free(r);
	free(mc.buf);
	return ret;
}

void test_format_held_scale(void)
{
	struct sc_ref *refs = calloc(SC_NBUF * SC_CAP / 48, sizeof(*refs));
	unsigned char *all = malloc(SC_NBUF * SC_CAP);
	struct sc_buf *bufs = MAP_FAILED;
	int fd = -1, b, err, status;
	size_t nall, nb;
	pid_t pid;
	long n;

	/* shared: the child's gives back seen here */
	bufs = mmap(NULL, SC_NBUF * sizeof(*bufs), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!ASSERT_TRUE(refs && all && bufs != MAP_FAILED, "alloc"))
		goto out;
	memset(bufs, 0, SC_NBUF * sizeof(*bufs));
	for (b = 0; b < SC_NBUF; b++)
		if (!ASSERT_OK_PTR(bufs[b].p = malloc(SC_CAP), "buffer"))
			goto out;
	nall = sc_fill(bufs, all, refs);
	for (b = 0; b < SC_NBUF; b++) {
		for (nb = 0, n = 0; nb < bufs[b].len; n++)
			nb += ((struct rc_rec_hdr *)(bufs[b].p + nb))->size;
		ASSERT_TRUE(n >= 512, "records in a buffer");
	}
	fd = memfd_create("held-scale", 0);
	if (!ASSERT_TRUE(fd >= 0, "memfd"))
		goto out;
	err = sc_write(fd, bufs, false);
	if (!ASSERT_OK(err, "write"))
		goto out;
	for (b = 0; b < SC_NBUF; b++) {
		ASSERT_EQ(bufs[b].given, b == 2 ? 0 : 1, "held given back once, copied never");
		ASSERT_EQ(bufs[b].early, 0, "not before its last record is written");
	}
	ASSERT_EQ(sc_read(fd, all, refs, nall), (long)nall, "every record");

	/*
	 * Cut by the file size limit, uncompressed, halfway through buffer 1:
	 * the buffers held then given back by the cut, once; the file its
	 * records up to a chunk before the cut.
	 */
	sc_fill(bufs, all, refs);
	for (b = 0; b < SC_NBUF; b++)
		bufs[b].given = bufs[b].early = bufs[b].in_cut = 0;
	if (!ASSERT_OK(ftruncate(fd, 0), "truncate") ||
	    !ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind"))
		goto out;
	fflush(NULL);
	pid = fork();
	if (!ASSERT_TRUE(pid >= 0, "fork"))
		goto out;
	if (!pid) {
		struct rlimit rl = { 3 * SC_CAP / 2, RLIM_INFINITY };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		_exit(sc_write(fd, bufs, true) ? 1 : 0);
	}
	if (!ASSERT_EQ(waitpid(pid, &status, 0), pid, "wait"))
		goto out;
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the cut writer finishes");
	for (b = 0; b < SC_NBUF; b++) {
		ASSERT_EQ(bufs[b].early, 0, "not before its last record is written");
		ASSERT_TRUE(bufs[b].given <= 1, "given back once at most");
	}
	ASSERT_EQ(bufs[0].given, 1, "buffer 0 given back");
	ASSERT_EQ(bufs[1].given, 1, "buffer 1, held at the cut, given back");
	ASSERT_EQ(bufs[1].in_cut, 1, "by the cut");
	ASSERT_EQ(bufs[3].given, 0, "buffer 3, added after the cut, not held");
	n = sc_read(fd, all, refs, nall);
	ASSERT_TRUE(n > 0, "a prefix read");
	ASSERT_LT(n, (long)bufs[1].need, "cut short before buffer 1's end");
out:
	if (fd >= 0)
		close(fd);
	if (bufs != MAP_FAILED) {
		for (b = 0; b < SC_NBUF; b++)
			free(bufs[b].p);
		munmap(bufs, SC_NBUF * sizeof(*bufs));
	}
	free(all);
	free(refs);
}
