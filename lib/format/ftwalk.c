// SPDX-License-Identifier: GPL-2.0-only
/*
 * The walker of an ftrace ring sub-buffer's events (ftpage.h): the cursor
 * rc_ft_next()/rc_ft_peek() over the kernel's ring_buffer_event encoding
 * (type_len, time_delta, TIME_EXTEND, TIME_STAMP, PADDING), and the
 * ftrace id -> ringcap id map both the encoder (ftenc.c) and the decoder
 * (ftdec.c) look events up in.
 *
 * Everything here reads bytes a kernel or a file gave: every length and
 * offset is checked against what is left before it is used.
 */
#include "format/ftpage.h"
#include "format/ftpage_int.h"

/* include/linux/ring_buffer.h */
#define FT_TYPE_DATA_MAX    28
#define FT_TYPE_PADDING	    29
#define FT_TYPE_TIME_EXTEND 30
#define FT_TYPE_TIME_STAMP  31
#define FT_TS_SHIFT	    27 /* array[0] holds the bits of a time above the 27 of time_delta */
#define FT_TS_BITS	    59 /* an absolute time stamp's */
#define FT_MIN_PAYLOAD	    8  /* common_type, common_flags, common_preempt_count, common_pid */

/* An absolute time stamp: the low 59 bits of the time, never going back. */
/*
 * An absolute time stamp holds the low 59 bits; the top ones come from the
 * running time, and roll over, only when it has any (rb_fix_abs_ts()).
 */
static uint64_t abs_stamp(uint64_t ts, uint32_t delta, uint32_t a0)
{
	uint64_t msb = ~((1ull << FT_TS_BITS) - 1);
	uint64_t next = (uint64_t)a0 << FT_TS_SHIFT | delta;

	if (ts & msb) {
		next |= ts & msb;
		if (next < ts)
			next += 1ull << FT_TS_BITS;
	}
	return next;
}

int rc_ft_next(struct rc_ft_cursor *c, struct rc_ft_event *ev)
{
	if (c->pos > c->len)
		return -EBADMSG;
	while (c->pos < c->len) {
		const unsigned char *p = c->buf + c->pos;
		uint32_t left = c->len - c->pos, hdr, type_len, delta, a0 = 0;

		if (left < 4)
			return -EBADMSG;
		hdr = get_u32(p);
		type_len = hdr & 31;
		delta = hdr >> 5;
		if (type_len == FT_TYPE_PADDING && !delta) {
			c->pos = c->len; /* the rest is padding */
			return 0;
		}
		if (!type_len || type_len > FT_TYPE_DATA_MAX) {
			if (left < 8)
				return -EBADMSG;
			a0 = get_u32(p + 4);
		}
		switch (type_len) {
		case 0:
			/* array[0] counts itself, then the payload from offset 8 */
			if (a0 % 4 || a0 < 4 + FT_MIN_PAYLOAD || a0 > left - 4)
				return -EBADMSG;
			*ev = (struct rc_ft_event){ p + 8, a0 - 4, c->ts + delta };
			c->pos += 4 + a0;
			c->ts = ev->ts;
			return 1;
		case FT_TYPE_PADDING:
			/* a discarded event: the kernel ignores its time too */
			if (a0 % 4 || a0 < 4 || a0 > left - 4)
				return -EBADMSG;
			c->pos += 4 + a0;
			break;
		case FT_TYPE_TIME_EXTEND:
			c->ts += ((uint64_t)a0 << FT_TS_SHIFT) + delta;
			c->pos += 8;
			break;
		case FT_TYPE_TIME_STAMP:
			c->ts = abs_stamp(c->ts, delta, a0);
			c->pos += 8;
			break;
		default:
			if (type_len * 4 < FT_MIN_PAYLOAD || 4 + type_len * 4 > left)
				return -EBADMSG;
			*ev = (struct rc_ft_event){ p + 4, type_len * 4, c->ts + delta };
			c->pos += 4 + type_len * 4;
			c->ts = ev->ts;
			return 1;
		}
	}
	return 0;
}

long rc_ft_peek(const struct rc_ft_cursor *c, uint64_t *last)
{
	struct rc_ft_cursor w = *c;
	struct rc_ft_event ev;
	long n = 0;
	int ret;

	while ((ret = rc_ft_next(&w, &ev)) > 0) {
		*last = ev.ts;
		n++;
	}
	return ret < 0 ? ret : n;
}

uint16_t rc_ft_idmap__lookup(const struct rc_ft_idmap *ids, uint32_t ftrace_id)
{
	uint32_t lo = 0, hi = ids ? ids->n : 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ids->ids[mid].ftrace_id == ftrace_id)
			return ids->ids[mid].rc_id;
		if (ids->ids[mid].ftrace_id < ftrace_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}
