// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace-page codec (lib/format/ftenc.c, ftdec.c, ftwalk.c): walking
 * ftrace events, taking them into chunks at every split, the round trip
 * through a capture file, malformed input of every kind, and stored frames.
 */
#include <errno.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>
#include "events.h"
#include "format/format.h"
#include "format/ftpage.h"
#include "format/writer_int.h"
#include "util/util.h"
#include "tracefs/tpformat.h"
#include "capture_util.h"
#include "ft_formats.h"
#include "test_progs.h"

#define MASK27	    ((1u << 27) - 1)
#define MASK59	    ((1ull << 59) - 1)
#define REC	    sizeof(struct rc_rec_hdr)
#define ROUND8(n)   (((n) + 7) & ~(size_t)7)
#define START_TS    10000
#define NCPUS	    4 /* in the capture's header; the scenario fills 3 */
#define TYPE_SWITCH 372
#define TYPE_IRQ    225
#define TYPE_BIG    999
#define TYPE_TINY   1

/* ---- a builder of ftrace event ranges --------------------------------- */

/* A data event as built, and what rc_ft_next() must give for it. */
struct want {
	uint32_t off; /* of its payload in the range */
	uint32_t len;
	uint32_t end; /* the byte after the event */
	uint64_t ts;
	uint32_t tid;
};

struct range {
	struct rc_strbuf b;
	uint64_t start, ts;
	struct want *w;
	size_t n, cap;
	unsigned int seed;
	bool oom;
};

static void range_init(struct range *r, uint64_t start, unsigned int seed)
{
	memset(r, 0, sizeof(*r));
	r->start = r->ts = start;
	r->seed = seed;
}

static void range_free(struct range *r)
{
	rc_strbuf__free(&r->b);
	free(r->w);
	memset(r, 0, sizeof(*r));
}

static void put32(struct range *r, uint32_t v)
{
	r->oom |= rc_strbuf__append(&r->b, &v, sizeof(v)) != 0;
}

/* @len bytes of @fill, or pseudo-random ones when @fill is negative */
static void put_fill(struct range *r, uint32_t len, int fill)
{
	uint32_t i;

	if (rc_strbuf__reserve(&r->b, len)) {
		r->oom = true;
		return;
	}
	for (i = 0; i < len; i++)
		r->b.buf[r->b.len + i] = fill < 0 ? rand_r(&r->seed) : fill;
	r->b.len += len;
}

/*
 * A data event @delta after the last: type_len len / 4 when it fits (up to
 * 112 bytes, as the kernel does) and @long_form is false, else type_len 0.
 */
static void ev_data(struct range *r, uint32_t delta, uint16_t type, uint32_t tid, uint32_t len,
		    bool long_form)
{
	struct want w = { .len = len, .tid = tid };

	if (!long_form && len <= 112) {
		put32(r, delta << 5 | len / 4);
	} else {
		put32(r, delta << 5);
		put32(r, len + 4);
	}
	w.off = r->b.len;
	put_fill(r, len, -1);
	if (r->oom)
		return;
	memcpy(r->b.buf + w.off, &type, 2);
	memcpy(r->b.buf + w.off + 4, &tid, 4);
	r->ts += delta;
	w.ts = r->ts;
	w.end = r->b.len;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		void *p = realloc(r->w, cap * sizeof(*r->w));

		if (!p) {
			r->oom = true;
			return;
		}
		r->w = p;
		r->cap = cap;
	}
	r->w[r->n++] = w;
}

static void ev_extend(struct range *r, uint64_t delta)
{
	put32(r, (uint32_t)(delta & MASK27) << 5 | 30);
	put32(r, delta >> 27);
	r->ts += delta;
}

/*
 * An absolute time stamp of the low 59 bits of @abs; the running time's
 * top bits, when it has any, are kept and roll over (rb_fix_abs_ts()).
 */
static void ev_stamp(struct range *r, uint64_t abs)
{
	uint64_t next = abs & MASK59;

	put32(r, (uint32_t)(abs & MASK27) << 5 | 31);
	put32(r, (abs & MASK59) >> 27);
	if (r->ts & ~MASK59) {
		next |= r->ts & ~MASK59;
		if (next < r->ts)
			next += 1ull << 59;
	}
	r->ts = next;
}

/* A discarded event of @size bytes: its delta (not 0) is not added. */
static void ev_discard(struct range *r, uint32_t delta, uint32_t size)
{
	put32(r, delta << 5 | 29);
	put32(r, size - 4);
	put_fill(r, size - 8, 0xab);
}

/* The end: padding, then @junk bytes the walk never looks at. */
static void ev_pad_end(struct range *r, uint32_t junk)
{
	put32(r, 29);
	put_fill(r, junk, 0xee);
}

static struct rc_ft_cursor cursor(const struct range *r)
{
	return (struct rc_ft_cursor){ (const unsigned char *)r->b.buf, r->b.len, 0, r->start };
}

/* Every kind of event the ring holds, each form of each. */
static void build_walk_range(struct range *r)
{
	range_init(r, 1000000, 1);
	ev_data(r, 5, TYPE_TINY, 100, 8, false); /* type_len 2: the smallest */
	ev_data(r, 0, TYPE_TINY, 101, 12, false);
	ev_data(r, 7, TYPE_IRQ, 0, 112, false);	  /* type_len 28 */
	ev_data(r, 1, TYPE_IRQ, 100, 116, false); /* over 112: type_len 0 */
	ev_data(r, 2, TYPE_BIG, 100, 400, false);
	ev_data(r, 3, TYPE_IRQ, 102, 16, true); /* type_len 0 of a small payload */
	ev_extend(r, 1ull << 30);
	ev_data(r, 0, TYPE_SWITCH, 100, 64, false);
	ev_extend(r, (1ull << 27) + 5); /* an extend and its event's delta both add */
	ev_data(r, 3, TYPE_SWITCH, 100, 64, false);
	ev_discard(r, 77, 24); /* its delta is not added */
	ev_data(r, 1, TYPE_IRQ, 101, 20, false);
	ev_discard(r, 1, 8); /* array[0] = 4: the smallest */
	ev_stamp(r, r->ts + 1000);
	ev_data(r, 0, TYPE_IRQ, 101, 20, false);
	ev_stamp(r, 5); /* below the time's low bits: the 59 bits wrapped */
	ev_data(r, 4, TYPE_IRQ, 101, 20, false);
	ev_data(r, MASK27, TYPE_IRQ, 200, 24, false); /* the largest delta */
	ev_pad_end(r, 20);
}

/* ---- the capture's events, ids and tasks ------------------------------ */

static const char switch_fmt[] = FT_SWITCH_FMT;
static const char irq_fmt[] = FT_IRQ_FMT;

static const char big_fmt[] =
    "name: big\n"
    "ID: 999\n"
    "format:\n" FT_COMMON "\tfield:u8 blob[200];\toffset:8;\tsize:200;\tsigned:0;\n"
    "\n"
    "print fmt: \"\"\n";

/* no field of its own: the raw record's 8 bytes */
static const char tiny_fmt[] = "name: tiny\n"
			       "ID: 1\n"
			       "format:\n" FT_COMMON "print fmt: \"\"\n";

static const struct {
	const char *name, *fmt;
	uint32_t ftrace_id;
	uint16_t rc_id;
} tp_events[] = {
	{ "sched:sched_switch", switch_fmt, TYPE_SWITCH, 256 },
	{ "irq:irq_handler_entry", irq_fmt, TYPE_IRQ, 257 },
	{ "test:big", big_fmt, TYPE_BIG, 258 },
	{ "test:tiny", tiny_fmt, TYPE_TINY, 259 },
};

/* sorted by ftrace id */
static const struct rc_ft_id ft_ids[] = {
	{ TYPE_TINY, 259 },
	{ TYPE_IRQ, 257 },
	{ TYPE_SWITCH, 256 },
	{ TYPE_BIG, 258 },
};
static const struct rc_ft_idmap idmap = { ft_ids, ARRAY_SIZE(ft_ids) };

static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static const char header_event[] = "# compressed entry header\n"
				   "\ttype_len    :    5 bits\n"
				   "\ttime_delta  :   27 bits\n"
				   "\tarray       :   32 bits\n"
				   "\n"
				   "\tpadding     : type == 29\n"
				   "\ttime_extend : type == 30\n"
				   "\ttime_stamp : type == 31\n"
				   "\tdata max type_len  == 28\n";

/* The header of a capture of these events: schema, notes; @bad_note spoils one. */
struct ft_meta {
	struct rc_meta m;
	struct rc_schema *s;
	struct rc_note notes[2 * ARRAY_SIZE(tp_events) + 2];
	uint32_t ids[ARRAY_SIZE(tp_events)];
};

enum bad_note { NOTE_GOOD, NOTE_NONE, NOTE_SHORT, NOTE_TWICE, NOTE_NO_EVENT };

static int ft_meta_init(struct ft_meta *fm, enum bad_note bad)
{
	size_t i, k = 0;
	int err = 0;

	memset(fm, 0, sizeof(*fm));
	test_meta(&fm->m);
	fm->m.ncpus = NCPUS;
	fm->s = rc_schema__new(rc_builtin_schema());
	if (!fm->s)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(tp_events) && !err; i++) {
		struct rc_event_desc ev = { .id = tp_events[i].rc_id, .name = tp_events[i].name };
		struct rc_tpformat f;
		char why[256];

		err = rc_tpformat__parse(&f, tp_events[i].fmt, REC, why, sizeof(why));
		if (err)
			break;
		ev.size = ROUND8(REC + f.size);
		ev.nfields = f.nfields;
		ev.fields = f.fields;
		err = rc_schema__add_event(fm->s, &ev);
		rc_tpformat__free(&f);
		fm->ids[i] = tp_events[i].ftrace_id;
		fm->notes[k++] =
		    (struct rc_note){ ev.id, "format", tp_events[i].fmt, strlen(tp_events[i].fmt) };
		if (bad == NOTE_NONE && i == 1)
			continue;
		fm->notes[k++] = (struct rc_note){ ev.id, "ftrace_id", &fm->ids[i], 4 };
	}
	fm->notes[k++] = (struct rc_note){ 0, "header_page", header_page, strlen(header_page) };
	fm->notes[k++] = (struct rc_note){ 0, "header_event", header_event, strlen(header_event) };
	if (bad == NOTE_SHORT)
		fm->notes[1].len = 3;
	else if (bad == NOTE_TWICE)
		fm->ids[1] = fm->ids[0];
	else if (bad == NOTE_NO_EVENT)
		fm->notes[1].event_id = 300;
	fm->m.schema = fm->s;
	fm->m.notes = fm->notes;
	fm->m.nnotes = k;
	return err;
}

static uint16_t rc_id_of(uint16_t ftrace_id)
{
	return rc_ft_idmap__lookup(&idmap, ftrace_id);
}

/* The tasks the task function knows; tid 0 and the others it does not. */
static const struct {
	uint32_t tid, tgid;
	const char *comm; /* 16 bytes: all of them, no NUL */
} known[] = {
	{ 100, 100, "main" },
	{ 101, 100, "worker" },
	{ 200, 200, "sixteen-chars-16" },
};

struct task_ctx {
	unsigned int calls[256]; /* by tid & 255 */
	unsigned int total;
};

static int task_fn(void *ctx, uint32_t tid, struct rc_disk_task *t)
{
	struct task_ctx *tc = ctx;
	size_t i;

	tc->calls[tid & 255]++;
	tc->total++;
	for (i = 0; i < ARRAY_SIZE(known); i++) {
		if (known[i].tid != tid)
			continue;
		t->tgid = known[i].tgid;
		memcpy(t->comm, known[i].comm, strnlen(known[i].comm, sizeof(t->comm)));
		return 0;
	}
	return -ENOENT;
}

/* The record a data event of @r must decode to, appended to @sb. */
static int expect_event(struct rc_strbuf *sb, const struct range *r, const struct want *w,
			uint16_t cpu)
{
	static const unsigned char zeros[8];
	struct rc_rec_hdr h = { .ts = w->ts, .pid = w->tid, .tid = w->tid, .cpu = cpu };
	uint16_t type;
	size_t i;

	memcpy(&type, r->b.buf + w->off, 2);
	h.type = rc_id_of(type);
	h.size = REC + ROUND8(w->len);
	strcpy(h.comm, w->tid ? "<...>" : "<idle>");
	for (i = 0; i < ARRAY_SIZE(known); i++) {
		if (known[i].tid != w->tid)
			continue;
		h.pid = known[i].tgid;
		memset(h.comm, 0, sizeof(h.comm));
		strncpy(h.comm, known[i].comm, sizeof(h.comm) - 1);
	}
	return rc_strbuf__append(sb, &h, sizeof(h)) ?:
	       rc_strbuf__append(sb, r->b.buf + w->off, w->len) ?:
	       rc_strbuf__append(sb, zeros, h.size - REC - w->len);
}

/* Stable sort of the records of @sb from @from by time, as the decoder must. */
static int sort_expected(struct rc_strbuf *sb, size_t from)
{
	struct rc_strbuf tmp = {};
	size_t *offs = NULL, n = 0, cap = 0, pos, i, j;
	int err = 0;

	for (pos = from; pos < sb->len; pos += ((struct rc_rec_hdr *)(sb->buf + pos))->size) {
		if (n == cap) {
			void *p = realloc(offs, (cap = cap ? cap * 2 : 64) * sizeof(*offs));

			if (!p) {
				free(offs);
				return -ENOMEM;
			}
			offs = p;
		}
		offs[n++] = pos;
	}
	for (i = 1; i < n; i++) {
		size_t x = offs[i];
		uint64_t ts = ((struct rc_rec_hdr *)(sb->buf + x))->ts;

		for (j = i; j > 0 && ((struct rc_rec_hdr *)(sb->buf + offs[j - 1]))->ts > ts; j--)
			offs[j] = offs[j - 1];
		offs[j] = x;
	}
	for (i = 0; i < n && !err; i++)
		err = rc_strbuf__append(&tmp, sb->buf + offs[i],
					((struct rc_rec_hdr *)(sb->buf + offs[i]))->size);
	if (!err)
		memcpy(sb->buf + from, tmp.buf, tmp.len);
	rc_strbuf__free(&tmp);
	free(offs);
	return err;
}

/* The content of a chunk's frame, malloc'ed, of *@n bytes; NULL if zstd refuses it. */
static void *inflate(const struct rc_disk_chunk *dc, const void *data, size_t *n)
{
	unsigned long long fcs = ZSTD_getFrameContentSize(data, dc->data_size);
	void *buf;
	size_t got;

	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR ||
	    fcs > RC_MAX_CHUNK_RAW)
		return NULL;
	buf = malloc(fcs ? fcs : 1);
	if (!buf)
		return NULL;
	got = ZSTD_decompress(buf, fcs, data, dc->data_size);
	if (ZSTD_isError(got) || got != fcs) {
		free(buf);
		return NULL;
	}
	*n = fcs;
	return buf;
}

/* ---- ftpage_walk ------------------------------------------------------ */

static void walk_all(const struct range *r)
{
	struct rc_ft_cursor c = cursor(r);
	struct rc_ft_event ev;
	uint64_t last = 42;
	size_t i;
	int ret;

	ASSERT_EQ(rc_ft_peek(&c, &last), r->n, "peek counts every data event");
	ASSERT_EQ(last, r->w[r->n - 1].ts, "peek: the last time");
	for (i = 0; i < r->n; i++) {
		char what[32];

		snprintf(what, sizeof(what), "event %zu", i);
		if (!ASSERT_EQ(rc_ft_next(&c, &ev), 1, what))
			return;
		ASSERT_TRUE(ev.data == (const unsigned char *)r->b.buf + r->w[i].off, what);
		ASSERT_EQ(ev.len, r->w[i].len, what);
		ASSERT_EQ(ev.ts, r->w[i].ts, what);
		ASSERT_EQ(c.pos, r->w[i].end, what);
		ASSERT_EQ(c.ts, r->w[i].ts, what);
		ASSERT_EQ(rc_ft_peek(&c, &last), r->n - i - 1, what);
	}
	ret = rc_ft_next(&c, &ev);
	ASSERT_EQ(ret, 0, "the end");
	ASSERT_EQ(c.pos, c.len, "at the end");
	ASSERT_EQ(rc_ft_next(&c, &ev), 0, "still the end");
	last = 42;
	ASSERT_EQ(rc_ft_peek(&c, &last), 0, "nothing left");
	ASSERT_EQ(last, 42, "no last time");
}

void test_ftpage_walk(void)
{
	struct rc_ft_cursor c;
	struct rc_ft_event ev;
	struct range r;
	uint64_t last;

	test__start_subtest("every_kind");
	build_walk_range(&r);
	if (ASSERT_TRUE(!r.oom, "build")) {
		walk_all(&r);
		/* the times as the kernel's reader keeps them */
		ASSERT_EQ(r.w[0].ts, 1000005, "first: the page's time stamp plus its delta");
		ASSERT_EQ(r.w[6].ts, r.w[5].ts + (1ull << 30), "extend");
		ASSERT_EQ(r.w[7].ts, r.w[6].ts + (1ull << 27) + 5 + 3, "extend and delta");
		ASSERT_EQ(r.w[8].ts, r.w[7].ts + 1, "discarded delta not added");
		ASSERT_EQ(r.w[9].ts, r.w[8].ts + 1000, "absolute stamp");
		/* below the running time, which has no top bits: taken as it is */
		ASSERT_EQ(r.w[10].ts, 5 + 4,
			  "a stamp is the time, as the kernel's reader takes it");
		ASSERT_EQ(r.w[11].ts, r.w[10].ts + MASK27, "largest delta");
	}
	range_free(&r);

	test__start_subtest("no_padding");
	build_walk_range(&r);
	r.b.len -= 24; /* the end padding and what follows it */
	if (ASSERT_TRUE(!r.oom, "build"))
		walk_all(&r);
	range_free(&r);

	test__start_subtest("empty_and_eventless");
	range_init(&r, 77, 2);
	c = cursor(&r);
	last = 5;
	ASSERT_EQ(rc_ft_next(&c, &ev), 0, "empty: the end");
	ASSERT_EQ(rc_ft_peek(&c, &last), 0, "empty: none");
	ASSERT_EQ(last, 5, "empty: last unchanged");
	ev_extend(&r, 1ull << 40);
	ev_discard(&r, 3, 32);
	ev_stamp(&r, 1ull << 50);
	c = cursor(&r);
	ASSERT_EQ(rc_ft_peek(&c, &last), 0, "no data event");
	ASSERT_EQ(rc_ft_next(&c, &ev), 0, "the end");
	ASSERT_EQ(c.pos, r.b.len, "walked to the end");
	ASSERT_EQ(c.ts, r.ts, "the time of what was walked");
	range_free(&r);

	test__start_subtest("malformed_stops_at_it");
	build_walk_range(&r);
	if (ASSERT_TRUE(!r.oom, "build")) {
		uint32_t bad = 0 << 5 | 0, at = r.w[3].off - 8; /* event 3: type_len 0 */

		memcpy(r.b.buf + at + 4, &bad, 4); /* array[0] = 0 */
		c = cursor(&r);
		ASSERT_EQ(rc_ft_peek(&c, &last), -EBADMSG, "peek");
		while (rc_ft_next(&c, &ev) > 0)
			;
		ASSERT_EQ(c.pos, at, "left at the bad event");
		ASSERT_EQ(c.ts, r.w[2].ts, "the time before it");
		ASSERT_EQ(rc_ft_next(&c, &ev), -EBADMSG, "again");
		ASSERT_EQ(c.pos, at, "not moved");
	}
	range_free(&r);
}

/* ---- ftpage_take ------------------------------------------------------ */

/* A range whose events each follow an extend, a discarded event, or nothing. */
static void build_take_range(struct range *r, unsigned int nev)
{
	unsigned int i;

	range_init(r, 5000, 3);
	for (i = 0; i < nev; i++) {
		switch (i % 4) {
		case 0:
			ev_extend(r, 100000 + i);
			ev_data(r, 0, TYPE_SWITCH, 100 + i % 2, 64, false);
			break;
		case 1:
			ev_data(r, 10, TYPE_IRQ, i % 3 ? 101 : 0, 16 + 4 * (i % 5), false);
			break;
		case 2:
			ev_discard(r, 9, 16);
			ev_data(r, 3, TYPE_BIG, 200, 208 + 4 * i, false);
			break;
		default:
			ev_extend(r, 1ull << 33);
			ev_data(r, 2, TYPE_IRQ, 102, 20, false);
		}
	}
	ev_extend(r, 1000); /* trailing: no data event after it */
	ev_pad_end(r, 8);
}

/* The records of @e's chunk, decoded, against @want; the chunk is ended. */
static bool chunk_is(struct rc_ftenc *e, const struct rc_strbuf *want, uint32_t nrec,
		     const char *what)
{
	struct rc_strbuf out = {};
	struct rc_disk_chunk dc;
	const char *why = "";
	const void *data;
	uint32_t n = 0;
	void *content;
	size_t len;
	bool ok;

	if (!ASSERT_OK(rc_ftenc__end(e, &dc, &data), what))
		return false;
	content = inflate(&dc, data, &len);
	ok = ASSERT_OK_PTR(content, what) && ASSERT_EQ(dc.codec, RC_CODEC_FTRACE, what) &&
	     ASSERT_EQ(dc.nrec, nrec, what) && ASSERT_EQ(dc.raw_size, want->len, what) &&
	     ASSERT_OK(rc_ftdec__chunk(content, len, &idmap, NCPUS, &out, &n, &why), why) &&
	     ASSERT_EQ(n, nrec, what) && ASSERT_EQ(out.len, want->len, what) &&
	     ASSERT_TRUE(!memcmp(out.buf, want->buf, out.len), what);
	if (ok && nrec) {
		ASSERT_EQ(dc.first_ts, ((struct rc_rec_hdr *)want->buf)->ts, what);
		ASSERT_TRUE(dc.last_ts >= dc.first_ts, what);
	}
	rc_strbuf__free(&out);
	free(content);
	return ok;
}

static void take_at_every_split(const struct range *r, struct rc_ftenc *e, struct task_ctx *tc)
{
	struct rc_strbuf want = {};
	size_t i, k, split;

	for (i = 0; i < r->n; i++)
		if (expect_event(&want, r, &r->w[i], 2))
			goto out;
	/* until: before the first, then at and just below each event's time */
	for (split = 0; split <= 2 * r->n; split++) {
		uint64_t until = split == 0 ? r->start : r->w[(split - 1) / 2].ts - (split % 2);
		struct rc_ft_cursor c = cursor(r);
		char what[48];
		long n1, n2;

		for (k = 0; k < r->n && r->w[k].ts <= until; k++)
			;
		snprintf(what, sizeof(what), "until %llu", (unsigned long long)until);
		n1 = rc_ftenc__take(e, 2, &c, until);
		if (!ASSERT_EQ(n1, k, what))
			break;
		if (k == r->n) {
			ASSERT_EQ(c.pos, c.len, what);
			ASSERT_EQ(c.ts, r->ts, what);
		} else {
			/* after a data event, or where it started: never after an extend */
			ASSERT_EQ(c.pos, k ? r->w[k - 1].end : 0, what);
			ASSERT_EQ(c.ts, k ? r->w[k - 1].ts : r->start, what);
		}
		ASSERT_EQ(rc_ftenc__nrec(e), k, what);
		n2 = rc_ftenc__take(e, 2, &c, UINT64_MAX);
		ASSERT_EQ(n2, r->n - k, what);
		ASSERT_EQ(c.pos, c.len, what);
		ASSERT_EQ(rc_ftenc__take(e, 2, &c, UINT64_MAX), 0, "nothing left");
		ASSERT_EQ(rc_ftenc__raw_size(e), want.len, what);
		if (!chunk_is(e, &want, r->n, what))
			break;
		/* 100, 101, 0, 200, 102: each looked up once a chunk */
		ASSERT_EQ(tc->total, 5 * (split + 1), "one look-up a task a chunk");
	}
out:
	rc_strbuf__free(&want);
}

void test_ftpage_take(void)
{
	struct task_ctx tc = {};
	struct rc_disk_chunk dc;
	struct rc_ft_cursor c;
	struct rc_ftenc *e;
	const void *data;
	struct range r;
	long n;

	e = rc_ftenc__new(0, false, task_fn, &tc);
	if (!ASSERT_OK_PTR(e, "encoder"))
		return;
	build_take_range(&r, 24);
	if (!ASSERT_TRUE(!r.oom, "build"))
		goto out;

	test__start_subtest("every_split");
	take_at_every_split(&r, e, &tc);
	ASSERT_EQ(tc.calls[100], 2 * r.n + 1, "tid 100 once a chunk");

	test__start_subtest("empty_chunk");
	ASSERT_EQ(rc_ftenc__end(e, &dc, &data), -ENODATA, "no record: no chunk");
	c = cursor(&r);
	ASSERT_EQ(rc_ftenc__take(e, 0, &c, r.start), 0, "nothing up to the start");
	ASSERT_EQ(c.pos, 0, "not moved");
	ASSERT_EQ(rc_ftenc__end(e, &dc, &data), -ENODATA, "still no chunk");

	test__start_subtest("malformed");
	memset(r.b.buf + r.w[5].end, 0xff, 4); /* an absolute time stamp, cut short */
	r.b.len = r.w[5].end + 6;
	c = cursor(&r);
	n = rc_ftenc__take(e, 1, &c, UINT64_MAX);
	ASSERT_EQ(n, -EBADMSG, "the bad event refused");
	ASSERT_EQ(rc_ftenc__nrec(e), 6, "those before it taken");
	ASSERT_EQ(c.pos, r.w[5].end, "moved past them");
	ASSERT_EQ(rc_ftenc__take(e, 1, &c, UINT64_MAX), -EBADMSG, "again");
	ASSERT_EQ(rc_ftenc__nrec(e), 6, "nothing more");
	ASSERT_OK(rc_ftenc__end(e, &dc, &data), "the chunk of those before");
	ASSERT_EQ(dc.nrec, 6, "six records");
out:
	range_free(&r);
	rc_ftenc__free(e);
}

/*
 * The chunk fills up: by the records it decodes to (events of the largest
 * payload), or by its fragments' bytes (small events behind large discarded
 * ones). Stored, to be quick.
 */
void test_ftpage_take_full(void)
{
	static const struct {
		const char *name;
		uint32_t discard, len;
	} kinds[] = {
		{ "decoded_size", 0, RC_REC_MAX - REC },
		{ "fragment_bytes", 65000, 8 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		uint64_t takes = 0, nrec = 0, rec = REC + ROUND8(kinds[i].len);
		struct rc_strbuf out = {};
		struct rc_disk_chunk dc;
		struct rc_ftenc *e;
		struct rc_ft_cursor c;
		struct range r;
		const char *why = "";
		const void *data;
		void *content = NULL;
		size_t len = 0;
		uint32_t n;
		long got;
		int j;

		test__start_subtest(kinds[i].name);
		range_init(&r, 1, 4);
		for (j = 0; j < 4; j++) {
			if (kinds[i].discard)
				ev_discard(&r, 1, kinds[i].discard);
			ev_data(&r, 1, TYPE_BIG, 7, kinds[i].len, false);
		}
		e = rc_ftenc__new(0, true, NULL, NULL);
		if (!ASSERT_TRUE(!r.oom, "build") || !ASSERT_OK_PTR(e, "encoder"))
			goto next;
		for (;;) {
			c = cursor(&r);
			got = rc_ftenc__take(e, 0, &c, UINT64_MAX);
			if (got != (long)r.n)
				break;
			takes++;
		}
		ASSERT_TRUE(got >= 0 && got < (long)r.n, "stopped, not failed");
		ASSERT_TRUE(c.pos == (got ? r.w[got - 1].end : 0), "after a data event");
		nrec = takes * r.n + got;
		ASSERT_EQ(rc_ftenc__nrec(e), nrec, "nrec");
		ASSERT_EQ(rc_ftenc__raw_size(e), nrec * rec, "raw size");
		ASSERT_TRUE(rc_ftenc__raw_size(e) <= RC_MAX_CHUNK_RAW, "within the largest chunk");
		c = cursor(&r);
		ASSERT_EQ(rc_ftenc__take(e, 0, &c, UINT64_MAX) >= 0 ? 0 : -1, 0, "not an error");
		ASSERT_EQ(rc_ftenc__nrec(e), nrec, "full: nothing more taken");
		if (!ASSERT_OK(rc_ftenc__end(e, &dc, &data), "end"))
			goto next;
		content = inflate(&dc, data, &len);
		if (!ASSERT_OK_PTR(content, "inflate"))
			goto next;
		ASSERT_TRUE(len <= RC_MAX_CHUNK_RAW, "content within the largest chunk");
		if (kinds[i].discard)
			ASSERT_TRUE(len + 16 + 65000 + 16 > RC_MAX_CHUNK_RAW, "filled by bytes");
		else
			ASSERT_TRUE(dc.raw_size + rec > RC_MAX_CHUNK_RAW, "filled by records");
		ASSERT_OK(rc_ftdec__chunk(content, len, &idmap, 1, &out, &n, &why), why);
		ASSERT_EQ(n, nrec, "decoded");
		ASSERT_EQ(out.len, dc.raw_size, "decoded size");
	next:
		free(content);
		rc_strbuf__free(&out);
		rc_ftenc__free(e);
		range_free(&r);
	}
}

/* ---- ftpage_roundtrip ------------------------------------------------- */

#define SC_CPUS 3

/* One CPU's ring: events on a 10 ns grid, so that CPUs tie often. */
static void build_cpu_range(struct range *r, unsigned int cpu)
{
	static const uint32_t tids[] = { 0, 100, 101, 102, 200, 103 };
	unsigned int i;

	range_init(r, START_TS, 1000 + cpu);
	for (i = 0; i < 60; i++) {
		uint32_t delta = rand_r(&r->seed) % 4 * 10, tid = tids[rand_r(&r->seed) % 6];

		switch (rand_r(&r->seed) % 10) {
		case 0:
			ev_extend(r, 1000);
			delta = 0;
			break;
		case 1:
			ev_discard(r, 7, 16);
			break;
		case 2:
			ev_stamp(r, r->ts + 50);
			break;
		}
		switch (i % 3) {
		case 0:
			ev_data(r, delta, TYPE_SWITCH, tid, 64, false);
			break;
		case 1:
			ev_data(r, delta, TYPE_IRQ, tid, 16 + 4 * (rand_r(&r->seed) % 8), false);
			break;
		default:
			ev_data(r, delta, TYPE_BIG, tid, 208 + 4 * (rand_r(&r->seed) % 20), false);
		}
	}
	ev_pad_end(r, 0);
}

struct scenario {
	struct range r[SC_CPUS];
	struct rc_strbuf want; /* every record, in file order */
	uint64_t until[4];
	uint32_t chunk_nrec[3];
	uint64_t chunk_first[3], chunk_last[3];
	uint64_t raw_bytes, nrec;
	struct rc_rec_lost lost;
	struct rc_ev_exit exit;
	struct rc_strbuf contents; /* every FTRACE chunk's frame, inflated */
};

static int scenario_init(struct scenario *sc)
{
	uint64_t max = 0;
	unsigned int i;

	memset(sc, 0, sizeof(*sc));
	for (i = 0; i < SC_CPUS; i++) {
		build_cpu_range(&sc->r[i], i);
		if (sc->r[i].oom)
			return -ENOMEM;
		if (sc->r[i].ts > max)
			max = sc->r[i].ts;
	}
	for (i = 0; i < 3; i++)
		sc->until[i] = START_TS + (max - START_TS) * (i + 1) / 4 / 10 * 10;
	sc->until[3] = UINT64_MAX;
	sc->lost = (struct rc_rec_lost){ .hdr = { .ts = sc->until[1],
						  .pid = 1,
						  .tid = 1,
						  .type = RC_REC_LOST,
						  .size = sizeof(sc->lost),
						  .cpu = 1 },
					 .lost = 12 };
	sc->exit = (struct rc_ev_exit){ .hdr = { .ts = max + 1000,
						 .pid = 9,
						 .tid = 9,
						 .type = RC_EV_SCHED_EXIT,
						 .size = sizeof(sc->exit),
						 .comm = "exiting" },
					.exit_code = 3 };
	return 0;
}

static void scenario_free(struct scenario *sc)
{
	unsigned int i;

	for (i = 0; i < SC_CPUS; i++)
		range_free(&sc->r[i]);
	rc_strbuf__free(&sc->want);
	rc_strbuf__free(&sc->contents);
}

/* End the chunk: into the file, and into what is expected. */
static int end_chunk(struct scenario *sc, struct rc_ftenc *e, struct rc_writer *w, unsigned int k,
		     size_t from)
{
	struct rc_disk_chunk dc;
	const void *data;
	void *content;
	size_t len;
	int err;

	err = rc_ftenc__end(e, &dc, &data);
	if (!ASSERT_OK(err, "end"))
		return err;
	ASSERT_EQ(dc.nrec, sc->chunk_nrec[k], "chunk nrec");
	ASSERT_EQ(dc.first_ts, sc->chunk_first[k], "chunk first_ts");
	ASSERT_EQ(dc.last_ts, sc->chunk_last[k], "chunk last_ts");
	ASSERT_EQ(dc.raw_size, sc->want.len - from, "chunk raw size");
	content = inflate(&dc, data, &len);
	if (!ASSERT_OK_PTR(content, "inflate"))
		return -EINVAL;
	err = rc_strbuf__append(&sc->contents, content, len);
	free(content);
	sc->raw_bytes += dc.raw_size;
	sc->nrec += dc.nrec;
	return err ?: sort_expected(&sc->want, from) ?: rc_writer__add_chunk(w, &dc, data);
}

static void count_expected(struct scenario *sc, unsigned int k, uint64_t ts)
{
	if (!sc->chunk_nrec[k] || ts < sc->chunk_first[k])
		sc->chunk_first[k] = ts;
	if (!sc->chunk_nrec[k] || ts > sc->chunk_last[k])
		sc->chunk_last[k] = ts;
	sc->chunk_nrec[k]++;
}

/*
 * Three CPUs' rings taken in four rounds (up to until[0..3]), a RECORDS
 * fragment after the second, a chunk ended after the second and the
 * fourth; and a record of the writer's own, added first, written last.
 */
static int write_scenario(struct scenario *sc, struct rc_ftenc *e, struct rc_writer *w,
			  struct task_ctx *tc)
{
	struct rc_ft_cursor c[SC_CPUS];
	size_t idx[SC_CPUS] = {}, from = 0;
	unsigned int round, cpu, k = 0;
	int err;

	for (cpu = 0; cpu < SC_CPUS; cpu++)
		c[cpu] = cursor(&sc->r[cpu]);
	err = rc_writer__add(w, &sc->exit, sizeof(sc->exit));
	for (round = 0; round < 4 && !err; round++) {
		unsigned int before = tc->total;

		for (cpu = 0; cpu < SC_CPUS && !err; cpu++) {
			const struct range *r = &sc->r[cpu];
			size_t n0 = idx[cpu];
			long n;

			while (idx[cpu] < r->n && r->w[idx[cpu]].ts <= sc->until[round]) {
				err = err ?: expect_event(&sc->want, r, &r->w[idx[cpu]], cpu);
				count_expected(sc, k, r->w[idx[cpu]].ts);
				idx[cpu]++;
			}
			n = rc_ftenc__take(e, cpu, &c[cpu], sc->until[round]);
			if (!ASSERT_EQ(n, idx[cpu] - n0, "taken"))
				err = -EINVAL;
		}
		ASSERT_TRUE(round % 2 || tc->total > before, "tasks looked up");
		if (round == 1) {
			err = err ?: rc_ftenc__records(e, &sc->lost, sizeof(sc->lost));
			err = err ?: rc_strbuf__append(&sc->want, &sc->lost, sizeof(sc->lost));
			count_expected(sc, k, sc->lost.hdr.ts);
		}
		if (round % 2 == 1 && !err) {
			err = end_chunk(sc, e, w, k++, from);
			from = sc->want.len;
		}
	}
	for (cpu = 0; cpu < SC_CPUS; cpu++)
		ASSERT_EQ(c[cpu].pos, c[cpu].len, "every ring taken to its end");
	err = err ?: rc_strbuf__append(&sc->want, &sc->exit, sizeof(sc->exit));
	count_expected(sc, k, sc->exit.hdr.ts);
	sc->raw_bytes += sizeof(sc->exit);
	sc->nrec++;
	return err ?: rc_writer__finish(w);
}

/* Read it back: every record as expected, in time order; the trailer and index right. */
static void check_capture(const struct scenario *sc, const struct mem_capture *mc)
{
	const struct rc_rec_hdr *rec;
	const struct rc_trailer *tr;
	const struct rc_note *note;
	struct rc_reader *r;
	size_t pos = 0, n = 0, ties = 0, i;
	uint16_t prev_cpu = 0;
	uint64_t prev = 0;
	int err;

	r = rc_reader__open_mem(mc->buf, mc->len);
	if (!ASSERT_OK_PTR(r, "open"))
		return;
	ASSERT_TRUE(rc_reader__meta(r)->version_minor >= 4, "format 1.4 or later");
	note = rc_meta__note(rc_reader__meta(r), 0, "header_event");
	ASSERT_STREQ(note ? note->data : NULL, header_event, "header_event note");
	while ((err = rc_reader__next(r, &rec)) > 0) {
		char what[32];

		snprintf(what, sizeof(what), "record %zu", n);
		if (!ASSERT_TRUE(pos + rec->size <= sc->want.len, what) ||
		    !ASSERT_EQ(rec->size, ((struct rc_rec_hdr *)(sc->want.buf + pos))->size,
			       what) ||
		    !ASSERT_TRUE(!memcmp(rec, sc->want.buf + pos, rec->size), what))
			break;
		ASSERT_TRUE(rec->ts >= prev, "in time order");
		ties += n && rec->ts == prev && rec->cpu != prev_cpu;
		prev = rec->ts;
		prev_cpu = rec->cpu;
		pos += rec->size;
		n++;
	}
	ASSERT_EQ(err, 0, rc_reader__error(r));
	ASSERT_EQ(pos, sc->want.len, "every record");
	ASSERT_EQ(n, sc->nrec, "record count");
	ASSERT_TRUE(ties > 10, "CPUs tie: their order is the fragments'");
	ASSERT_EQ(rc_reader__raw_bytes(r), sc->raw_bytes, "raw bytes read");
	tr = rc_reader__trailer(r);
	if (ASSERT_OK_PTR(tr, "trailer") && ASSERT_EQ(tr->nindex, 3, "index entries")) {
		ASSERT_EQ(tr->nrec, sc->nrec, "trailer nrec");
		ASSERT_EQ(tr->nchunks, 3, "trailer nchunks");
		ASSERT_EQ(tr->first_ts, sc->chunk_first[0], "trailer first_ts");
		ASSERT_EQ(tr->last_ts, sc->exit.hdr.ts, "trailer last_ts");
		ASSERT_EQ(tr->raw_bytes, sc->raw_bytes, "trailer raw_bytes");
		for (i = 0; i < 3; i++) {
			const struct rc_chunk_index *ci = &tr->index[i];
			uint32_t h[4], codec = 0;

			ASSERT_EQ(ci->nrec, sc->chunk_nrec[i], "index nrec");
			ASSERT_EQ(ci->first_ts, sc->chunk_first[i], "index first_ts");
			ASSERT_EQ(ci->last_ts, sc->chunk_last[i], "index last_ts");
			if (!ASSERT_TRUE(ci->offset + 20 <= mc->len, "index offset"))
				continue;
			memcpy(h, mc->buf + ci->offset, sizeof(h));
			memcpy(&codec, mc->buf + ci->offset + 16, 4);
			ASSERT_EQ(h[0], RC_FRAME_MAGIC, "a block at the offset");
			ASSERT_EQ(h[2], RC_BLOCK_CHUNK, "a chunk block");
			ASSERT_EQ(codec, i < 2 ? RC_CODEC_FTRACE : RC_CODEC_ZSTD_SHUFFLE, "codec");
		}
	}
	rc_reader__free(r);
}

static int write_capture(struct mem_capture *mc, const struct rc_meta *m,
			 int (*body)(void *arg, struct rc_writer *w), void *arg)
{
	struct rc_writer *w;
	char path[64];
	int fd, err;

	fd = memfd_create("ftpage", 0);
	if (fd < 0)
		return -errno;
	w = rc_writer__new(fd, m, NULL);
	if (!w) {
		err = -errno;
		close(fd);
		return err;
	}
	err = body(arg, w);
	rc_writer__free(w);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = err ?: slurp(path, mc);
	close(fd);
	return err;
}

struct sc_arg {
	struct scenario *sc;
	struct rc_ftenc *e;
	struct task_ctx *tc;
};

static int scenario_body(void *arg, struct rc_writer *w)
{
	struct sc_arg *a = arg;

	return write_scenario(a->sc, a->e, w, a->tc);
}

/* The scenario through a file; @contents (may be NULL) gets its chunks' content. */
static void roundtrip(bool no_compress, struct rc_strbuf *contents)
{
	struct task_ctx tc = {};
	struct ft_meta fm = {};
	struct scenario sc;
	struct mem_capture mc = {};
	struct sc_arg a = { &sc, NULL, &tc };

	if (!ASSERT_OK(scenario_init(&sc), "scenario") ||
	    !ASSERT_OK(ft_meta_init(&fm, NOTE_GOOD), "meta"))
		goto out;
	a.e = rc_ftenc__new(3, no_compress, task_fn, &tc);
	if (!ASSERT_OK_PTR(a.e, "encoder") ||
	    !ASSERT_OK(write_capture(&mc, &fm.m, scenario_body, &a), "write"))
		goto out;
	/* 0, 100..103, 200 in each of the two chunks */
	ASSERT_EQ(tc.total, 12, "a look-up a task a chunk");
	ASSERT_EQ(tc.calls[0], 2, "tid 0 looked up too");
	check_capture(&sc, &mc);
	if (contents) {
		*contents = sc.contents;
		sc.contents = (struct rc_strbuf){};
	}
out:
	free(mc.buf);
	rc_ftenc__free(a.e);
	rc_schema__free(fm.s);
	scenario_free(&sc);
}

void test_ftpage_roundtrip(void)
{
	roundtrip(false, NULL);
}

/* ---- ftpage_malformed ------------------------------------------------- */

/* A fragment stream of every kind: events of each form, tasks, records. */
static int build_fragments(struct rc_strbuf *sb)
{
	struct task_ctx tc = {};
	struct rc_rec_lost lost = { .hdr = { .ts = 1000000, .type = RC_REC_LOST, .size = 56 } };
	struct rc_disk_chunk dc;
	struct rc_ft_cursor c;
	struct rc_ftenc *e;
	const void *data;
	struct range r;
	void *content = NULL;
	size_t len;
	int err;

	range_init(&r, 1000000, 5);
	ev_data(&r, 5, TYPE_TINY, 100, 8, false);
	ev_discard(&r, 3, 12);
	ev_extend(&r, 1ull << 28);
	ev_data(&r, 0, TYPE_IRQ, 200, 116, false);
	ev_stamp(&r, r.ts + 8);
	ev_data(&r, 2, TYPE_IRQ, 0, 20, false);
	ev_data(&r, 2, TYPE_IRQ, 103, 16, true);
	e = rc_ftenc__new(0, true, task_fn, &tc);
	c = cursor(&r);
	err = r.oom || !e ? -ENOMEM : 0;
	err = err ?: rc_ftenc__take(e, 1, &c, UINT64_MAX) == 4 ? 0 : -EINVAL;
	err = err ?: rc_ftenc__records(e, &lost, sizeof(lost));
	err = err ?: rc_ftenc__end(e, &dc, &data);
	if (!err) {
		content = inflate(&dc, data, &len);
		err = content ? rc_strbuf__append(sb, content, len) : -EINVAL;
	}
	free(content);
	rc_ftenc__free(e);
	range_free(&r);
	return err;
}

/* What the decoder makes of @n bytes at @p, in a buffer of exactly that size. */
static bool decode_ok(const unsigned char *p, size_t n, struct rc_strbuf *out, const char *what)
{
	unsigned char *copy = malloc(n ? n : 1);
	const char *why = NULL;
	uint32_t nrec = 0, k = 0;
	size_t pos = 0;
	bool ok;
	int ret;

	if (!copy)
		return false;
	memcpy(copy, p, n);
	ret = rc_ftdec__chunk(copy, n, &idmap, NCPUS, out, &nrec, &why);
	free(copy);
	if (ret)
		return ASSERT_EQ(ret, -EBADMSG, what) && ASSERT_TRUE(why && *why, what) &&
		       ASSERT_EQ(out->len, 0, what);
	/* taken: whole records in time order */
	while (pos < out->len) {
		const struct rc_rec_hdr *h = (const void *)(out->buf + pos);

		if (out->len - pos < REC || h->size < REC || h->size % 8 ||
		    h->size > out->len - pos)
			break;
		pos += h->size;
		k++;
	}
	ok = ASSERT_EQ(pos, out->len, what) && ASSERT_EQ(k, nrec, what);
	return ok;
}

/* Walk and take @n bytes at @p, in a buffer of exactly that size. */
static bool walk_ok(const unsigned char *p, uint32_t n, struct rc_ftenc *e, const char *what)
{
	unsigned char *copy = malloc(n ? n : 1);
	struct rc_ft_cursor c = { copy, n, 0, 1000 }, t = c;
	struct rc_disk_chunk dc;
	struct rc_ft_event ev;
	const void *data;
	uint32_t last_end = 0;
	uint64_t last;
	long events = 0, peek, took;
	bool ok = true;
	int ret;

	if (!copy)
		return false;
	memcpy(copy, p, n);
	while ((ret = rc_ft_next(&c, &ev)) > 0 && events <= n / 4) {
		ok &= ev.data >= copy + 4 && ev.data + ev.len <= copy + n && ev.len >= 8 &&
		      c.pos <= n;
		last_end = c.pos;
		events++;
	}
	ok &= ret == 0 ? c.pos == n : ret == -EBADMSG && c.pos < n;
	peek = rc_ft_peek(&t, &last);
	ok &= peek == (ret ? -EBADMSG : events);
	took = rc_ftenc__take(e, 0, &t, UINT64_MAX);
	ok &= took == (ret ? -EBADMSG : events) && rc_ftenc__nrec(e) == events;
	ok &= t.pos == (ret ? last_end : n);
	rc_ftenc__end(e, &dc, &data);
	free(copy);
	return ASSERT_TRUE(ok, what);
}

void test_ftpage_malformed(void)
{
	struct rc_strbuf frags = {}, out = {};
	unsigned char *p = NULL;
	struct rc_ftenc *e = NULL;
	struct range r;
	size_t i, n;
	int v;

	test__start_subtest("fragments");
	if (!ASSERT_OK(build_fragments(&frags), "build"))
		goto out;
	n = frags.len;
	if (decode_ok((unsigned char *)frags.buf, n, &out, "the good stream"))
		ASSERT_TRUE(out.len > 0, "records");
	p = malloc(n);
	if (!ASSERT_OK_PTR(p, "alloc"))
		goto out;
	for (i = 0; i < n; i++)
		if (!decode_ok((unsigned char *)frags.buf, i, &out, "truncated"))
			break;
	for (i = 0; i < n; i++) {
		memcpy(p, frags.buf, n);
		for (v = 0; v < 256; v++) {
			if (v == (unsigned char)frags.buf[i])
				continue;
			p[i] = v;
			if (!decode_ok(p, n, &out, "a byte changed"))
				break;
		}
		if (v < 256)
			break;
	}

	test__start_subtest("events");
	build_walk_range(&r);
	e = rc_ftenc__new(0, true, NULL, NULL);
	if (!ASSERT_TRUE(!r.oom, "build") || !ASSERT_OK_PTR(e, "encoder"))
		goto out_range;
	n = r.b.len;
	free(p);
	p = malloc(n);
	if (!ASSERT_OK_PTR(p, "alloc"))
		goto out_range;
	for (i = 0; i <= n; i++)
		if (!walk_ok((unsigned char *)r.b.buf, i, e, "truncated"))
			break;
	for (i = 0; i < n; i++) {
		memcpy(p, r.b.buf, n);
		for (v = 0; v < 256; v++) {
			if (v == (unsigned char)r.b.buf[i])
				continue;
			p[i] = v;
			if (!walk_ok(p, n, e, "a byte changed"))
				break;
		}
		if (v < 256)
			break;
	}
out_range:
	range_free(&r);
out:
	rc_ftenc__free(e);
	free(p);
	rc_strbuf__free(&frags);
	rc_strbuf__free(&out);
}

/* A one-chunk capture of @e's chunk, with the header @bad spoils. */
struct one_chunk {
	struct rc_disk_chunk dc;
	const void *data;
};

static int one_chunk_body(void *arg, struct rc_writer *w)
{
	struct one_chunk *oc = arg;

	return rc_writer__add_chunk(w, &oc->dc, oc->data) ?: rc_writer__finish(w);
}

/* Read a capture of the walk range's events as one chunk, changed by @spoil. */
static long read_spoiled(enum bad_note bad, uint16_t cpu, void (*spoil)(struct rc_disk_chunk *),
			 const char *want)
{
	struct mem_capture mc = {};
	const struct rc_rec_hdr *rec;
	struct ft_meta fm = {};
	struct one_chunk oc;
	struct rc_ft_cursor c;
	struct rc_ftenc *e;
	struct rc_reader *rd;
	struct range r;
	long ret;
	int err;

	build_walk_range(&r);
	e = rc_ftenc__new(0, false, NULL, NULL);
	c = cursor(&r);
	err = r.oom || !e ? -ENOMEM : ft_meta_init(&fm, bad);
	err = err ?: rc_ftenc__take(e, cpu, &c, UINT64_MAX) > 0 ? 0 : -EINVAL;
	err = err ?: rc_ftenc__end(e, &oc.dc, &oc.data);
	if (!err && spoil)
		spoil(&oc.dc);
	err = err ?: write_capture(&mc, &fm.m, one_chunk_body, &oc);
	rc_schema__free(fm.s);
	rc_ftenc__free(e);
	range_free(&r);
	if (err)
		return err;
	rd = rc_reader__open_mem(mc.buf, mc.len);
	ret = -errno;
	if (rd) {
		ret = 0;
		while ((err = rc_reader__next(rd, &rec)) > 0)
			ret++;
		if (err < 0 || rc_reader__corrupt(rd, NULL)) {
			ASSERT_HAS(rc_reader__error(rd), want, "why");
			ret = err < 0 ? err : READ_DAMAGED;
		}
		rc_reader__free(rd);
	}
	free(mc.buf);
	return ret;
}

static void spoil_raw_size(struct rc_disk_chunk *dc)
{
	dc->raw_size += 8;
}

static void spoil_nrec(struct rc_disk_chunk *dc)
{
	dc->nrec -= 1;
}

static void spoil_last_ts(struct rc_disk_chunk *dc)
{
	dc->last_ts -= 1;
}

/* What the reader says of FTRACE chunks and headers that do not agree. */
void test_ftpage_reader_rejects(void)
{
	test__start_subtest("good");
	ASSERT_EQ(read_spoiled(NOTE_GOOD, 3, NULL, ""), 12, "every record");
	test__start_subtest("unknown_ftrace_id");
	ASSERT_EQ(read_spoiled(NOTE_NONE, 0, NULL, "ftrace event of an id the capture does not"),
		  READ_DAMAGED, "refused");
	test__start_subtest("cpu_beyond");
	ASSERT_EQ(read_spoiled(NOTE_GOOD, NCPUS, NULL, "CPU beyond"), READ_DAMAGED, "refused");
	test__start_subtest("raw_size");
	ASSERT_EQ(read_spoiled(NOTE_GOOD, 0, spoil_raw_size, "decodes to other records"),
		  READ_DAMAGED, "refused");
	test__start_subtest("nrec");
	ASSERT_EQ(read_spoiled(NOTE_GOOD, 0, spoil_nrec, "decodes to other records"), READ_DAMAGED,
		  "refused");
	test__start_subtest("time_range");
	ASSERT_EQ(read_spoiled(NOTE_GOOD, 0, spoil_last_ts, "outside its chunk's range"),
		  READ_DAMAGED, "refused");
	test__start_subtest("note_size");
	ASSERT_EQ(read_spoiled(NOTE_SHORT, 0, NULL, ""), -EBADMSG, "corrupt header");
	test__start_subtest("note_twice");
	ASSERT_EQ(read_spoiled(NOTE_TWICE, 0, NULL, ""), -EBADMSG, "corrupt header");
	test__start_subtest("note_no_event");
	ASSERT_EQ(read_spoiled(NOTE_NO_EVENT, 0, NULL, ""), -EBADMSG, "corrupt header");
}

/* ---- ftpage_no_compress ----------------------------------------------- */

/* The layout of a stored frame: 13 bytes, 3 a block of 128 KiB at most, 4 of checksum. */
static void check_stored(const struct rc_disk_chunk *dc, const void *data, size_t content)
{
	size_t blocks = content ? (content + (128 << 10) - 1) / (128 << 10) : 1;
	const unsigned char *p = data;

	ASSERT_EQ(dc->data_size, 13 + 3 * blocks + content + 4, "stored, not compressed");
	ASSERT_EQ(p[4], 0xE4, "single segment, 8-byte content size, checksum");
}

void test_ftpage_no_compress(void)
{
	struct rc_strbuf stored = {}, compressed = {}, out = {};
	struct rc_disk_chunk dc;
	struct rc_ft_cursor c;
	struct rc_ftenc *e;
	const char *why = "";
	const void *data;
	void *content;
	struct range r;
	size_t len;
	uint32_t n;
	int i;

	test__start_subtest("roundtrip");
	roundtrip(true, &stored);
	roundtrip(false, &compressed);
	ASSERT_TRUE(stored.len > 0 && stored.len == compressed.len &&
			!memcmp(stored.buf, compressed.buf, stored.len),
		    "the same fragments either way");

	test__start_subtest("several_blocks");
	range_init(&r, 1, 6);
	for (i = 0; i < 12; i++)
		ev_data(&r, 1, TYPE_BIG, 100, 60000 + 4 * i, false);
	e = rc_ftenc__new(0, true, NULL, NULL);
	c = cursor(&r);
	if (ASSERT_TRUE(!r.oom, "build") && ASSERT_OK_PTR(e, "encoder") &&
	    ASSERT_EQ(rc_ftenc__take(e, 0, &c, UINT64_MAX), 12, "take") &&
	    ASSERT_OK(rc_ftenc__end(e, &dc, &data), "end")) {
		content = inflate(&dc, data, &len);
		if (ASSERT_OK_PTR(content, "any zstd takes the frame")) {
			check_stored(&dc, data, len);
			ASSERT_TRUE(len > 5 * (128 << 10), "several blocks");
			ASSERT_OK(rc_ftdec__chunk(content, len, &idmap, 1, &out, &n, &why), why);
			ASSERT_EQ(n, 12, "decoded");
			/* a flipped bit: the checksum finds it */
			((unsigned char *)data)[dc.data_size / 2] ^= 0x10;
			ASSERT_TRUE(ZSTD_isError(ZSTD_decompress(content, len, data, dc.data_size)),
				    "flip found");
		}
		free(content);
	}
	rc_ftenc__free(e);
	range_free(&r);

	test__start_subtest("small");
	build_walk_range(&r);
	e = rc_ftenc__new(0, true, NULL, NULL);
	c = cursor(&r);
	if (ASSERT_TRUE(!r.oom, "build") && ASSERT_OK_PTR(e, "encoder") &&
	    ASSERT_EQ(rc_ftenc__take(e, 0, &c, UINT64_MAX), r.n, "take") &&
	    ASSERT_OK(rc_ftenc__end(e, &dc, &data), "end")) {
		content = inflate(&dc, data, &len);
		if (ASSERT_OK_PTR(content, "any zstd takes the frame"))
			check_stored(&dc, data, len);
		free(content);
	}
	rc_ftenc__free(e);
	range_free(&r);
	rc_strbuf__free(&stored);
	rc_strbuf__free(&compressed);
	rc_strbuf__free(&out);
}
