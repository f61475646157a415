// SPDX-License-Identifier: GPL-2.0-only
/* The protocol buffers wire encoder (util/pb.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/mem.h"
#include "util/pb.h"

#define MAX_FIELD ((1u << 29) - 1)

unsigned int rc_pb__varint_len(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static int fail(struct rc_pb *pb, int err)
{
	if (!pb->err)
		pb->err = err;
	return pb->err;
}

/* Room for @n more bytes. */
static int room(struct rc_pb *pb, size_t n)
{
	if (pb->err)
		return pb->err;
	if (n > SIZE_MAX - pb->len)
		return fail(pb, -ENOMEM);
	if (rc_ensure_arr(&pb->buf, &pb->cap, pb->len + n, 256))
		return fail(pb, -ENOMEM);
	return 0;
}

static void put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p = (uint8_t)v;
}

int rc_pb__raw_varint(struct rc_pb *pb, uint64_t v)
{
	unsigned int n = rc_pb__varint_len(v);

	if (room(pb, n))
		return pb->err;
	put_varint(pb->buf + pb->len, v);
	pb->len += n;
	return 0;
}

static int tag(struct rc_pb *pb, uint32_t field, enum rc_pb_wire wire)
{
	if (pb->err)
		return pb->err;
	if (!field || field > MAX_FIELD)
		return fail(pb, -EINVAL);
	return rc_pb__raw_varint(pb, (uint64_t)field << 3 | wire);
}

int rc_pb__uint(struct rc_pb *pb, uint32_t field, uint64_t v)
{
	return tag(pb, field, RC_PB_VARINT) ?: rc_pb__raw_varint(pb, v);
}

int rc_pb__sint(struct rc_pb *pb, uint32_t field, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); /* zigzag: 0, -1, 1, -2... */

	return rc_pb__uint(pb, field, z);
}

static int fixed(struct rc_pb *pb, uint64_t v, unsigned int n)
{
	unsigned int i;

	if (room(pb, n))
		return pb->err;
	for (i = 0; i < n; i++)
		pb->buf[pb->len++] = (uint8_t)(v >> (8 * i));
	return 0;
}

int rc_pb__fixed64(struct rc_pb *pb, uint32_t field, uint64_t v)
{
	return tag(pb, field, RC_PB_I64) ?: fixed(pb, v, 8);
}

int rc_pb__fixed32(struct rc_pb *pb, uint32_t field, uint32_t v)
{
	return tag(pb, field, RC_PB_I32) ?: fixed(pb, v, 4);
}

int rc_pb__bytes(struct rc_pb *pb, uint32_t field, const void *data, size_t len)
{
	if (tag(pb, field, RC_PB_LEN) || rc_pb__raw_varint(pb, len) || room(pb, len))
		return pb->err;
	if (len)
		memcpy(pb->buf + pb->len, data, len);
	pb->len += len;
	return 0;
}

int rc_pb__string(struct rc_pb *pb, uint32_t field, const char *s)
{
	return rc_pb__bytes(pb, field, s, strlen(s));
}

/*
 * The length goes before the body, and is known at the end: a byte is
 * kept for it, enough for bodies below 128 bytes, and a longer body is
 * moved up by the bytes its length takes more.
 */
int rc_pb__begin(struct rc_pb *pb, uint32_t field)
{
	if (tag(pb, field, RC_PB_LEN))
		return pb->err;
	if (pb->depth == RC_PB_MAX_DEPTH)
		return fail(pb, -E2BIG);
	if (room(pb, 1))
		return pb->err;
	pb->buf[pb->len++] = 0;
	pb->open[pb->depth++] = pb->len;
	return 0;
}

int rc_pb__end(struct rc_pb *pb)
{
	size_t start, body;
	unsigned int n;

	if (pb->err)
		return pb->err;
	if (!pb->depth)
		return fail(pb, -EINVAL);
	start = pb->open[--pb->depth];
	body = pb->len - start;
	if (body > UINT32_MAX)
		return fail(pb, -E2BIG); /* a reader takes lengths below 2 GiB, some below 4 */
	n = rc_pb__varint_len(body);
	if (n > 1) {
		if (room(pb, n - 1))
			return pb->err;
		memmove(pb->buf + start + n - 1, pb->buf + start, body);
		pb->len += n - 1;
	}
	put_varint(pb->buf + start - 1, body);
	return 0;
}

int rc_pb__raw(struct rc_pb *pb, const void *data, size_t len)
{
	if (room(pb, len))
		return pb->err;
	if (len)
		memcpy(pb->buf + pb->len, data, len);
	pb->len += len;
	return 0;
}

void rc_pb__reset(struct rc_pb *pb)
{
	if (pb->depth) {
		fail(pb, -EINVAL);
		return;
	}
	pb->len = 0;
}

void rc_pb__free(struct rc_pb *pb)
{
	free(pb->buf);
	memset(pb, 0, sizeof(*pb));
}
