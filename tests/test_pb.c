// SPDX-License-Identifier: GPL-2.0-only
/*
 * The protobuf wire encoder (util/pb.h): each wire type against bytes
 * worked out from the encoding's specification (protobuf.dev's examples:
 * 150 is 96 01, "testing" in field 2 is 12 07 ...), lengths that take more
 * than a byte, deep nesting, fields appended raw, and errors that stick.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/pb.h"
#include "test_progs.h"

/* The encoder's bytes are @want's; else both shown in hex. */
static bool bytes_are(const struct rc_pb *pb, const uint8_t *want, size_t n, const char *what)
{
	char got[512], exp[512];
	size_t i, k;

	if (pb->len == n && (!n || !memcmp(pb->buf, want, n)))
		return ASSERT_TRUE(true, what);
	for (i = 0, k = 0; i < pb->len && k + 4 < sizeof(got); i++)
		k += snprintf(got + k, sizeof(got) - k, "%02x ", pb->buf[i]);
	got[k] = 0;
	for (i = 0, k = 0; i < n && k + 4 < sizeof(exp); i++)
		k += snprintf(exp + k, sizeof(exp) - k, "%02x ", want[i]);
	exp[k] = 0;
	return ASSERT_STREQ(got, exp, what);
}

#define BYTES(pb, what, ...)                                                                       \
	bytes_are(pb, (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }),  \
		  what)

/* A varint read back: its value and the bytes it took (0: malformed). */
static size_t read_varint(const uint8_t *p, size_t n, uint64_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n && i < 10; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

void test_pb_encode(void)
{
	struct rc_pb pb = {};
	uint64_t v;
	size_t i, k;

	if (test__start_subtest("varints")) {
		ASSERT_EQ(rc_pb__uint(&pb, 1, 150), 0, "field 1 = 150");
		BYTES(&pb, "the specification's example", 0x08, 0x96, 0x01);
		rc_pb__reset(&pb);
		rc_pb__uint(&pb, 1, 0);
		rc_pb__uint(&pb, 2, 127);
		rc_pb__uint(&pb, 3, 128);
		rc_pb__uint(&pb, 15, 1);
		rc_pb__uint(&pb, 16, 1); /* a tag of two bytes */
		BYTES(&pb, "0, 127, 128; fields 15 and 16", 0x08, 0x00, 0x10, 0x7f, 0x18, 0x80,
		      0x01, 0x78, 0x01, 0x80, 0x01, 0x01);
		rc_pb__reset(&pb);
		rc_pb__uint(&pb, 1, (uint64_t)-1); /* int64 -1: ten bytes */
		BYTES(&pb, "int64 -1", 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		      0x01);
		rc_pb__reset(&pb);
		rc_pb__sint(&pb, 1, 0);
		rc_pb__sint(&pb, 1, -1);
		rc_pb__sint(&pb, 1, 1);
		rc_pb__sint(&pb, 1, -2);
		rc_pb__sint(&pb, 1, INT64_MIN);
		BYTES(&pb, "zigzag 0, -1, 1, -2, INT64_MIN", 0x08, 0x00, 0x08, 0x01, 0x08, 0x02,
		      0x08, 0x03, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
		ASSERT_EQ(rc_pb__varint_len(0), 1, "0: a byte");
		ASSERT_EQ(rc_pb__varint_len(16383), 2, "2^14 - 1: two");
		ASSERT_EQ(rc_pb__varint_len(16384), 3, "2^14: three");
		ASSERT_EQ(rc_pb__varint_len(UINT64_MAX), 10, "2^64 - 1: ten");
		rc_pb__reset(&pb);
		rc_pb__uint(&pb, (1u << 29) - 1, 0);
		BYTES(&pb, "the highest field number", 0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00);
	}
	if (test__start_subtest("fixed")) {
		rc_pb__reset(&pb);
		rc_pb__fixed64(&pb, 1, 0x0102030405060708ull);
		rc_pb__fixed32(&pb, 2, 0xdeadbeef);
		BYTES(&pb, "little-endian", 0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		      0x15, 0xef, 0xbe, 0xad, 0xde);
	}
	if (test__start_subtest("length_delimited")) {
		rc_pb__reset(&pb);
		rc_pb__string(&pb, 2, "testing");
		BYTES(&pb, "the specification's string", 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n',
		      'g');
		rc_pb__reset(&pb);
		rc_pb__string(&pb, 6, "");
		rc_pb__bytes(&pb, 1, NULL, 0);
		BYTES(&pb, "empty string and bytes", 0x32, 0x00, 0x0a, 0x00);
		rc_pb__reset(&pb);
		/* the specification's nested message: field 3 holding {1: 150} */
		rc_pb__begin(&pb, 3);
		rc_pb__uint(&pb, 1, 150);
		ASSERT_EQ(rc_pb__end(&pb), 0, "end");
		BYTES(&pb, "nested", 0x1a, 0x03, 0x08, 0x96, 0x01);
		rc_pb__reset(&pb);
		/* packed repeated: the specification's [3, 270, 86942] in field 4 */
		rc_pb__begin(&pb, 4);
		rc_pb__raw_varint(&pb, 3);
		rc_pb__raw_varint(&pb, 270);
		rc_pb__raw_varint(&pb, 86942);
		rc_pb__end(&pb);
		BYTES(&pb, "packed", 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05);
		rc_pb__reset(&pb);
		rc_pb__begin(&pb, 5);
		ASSERT_EQ(rc_pb__end(&pb), 0, "an empty message");
		BYTES(&pb, "empty nested", 0x2a, 0x00);
		/* raw fields encoded elsewhere, inside a message: {1: 150} in field 3 */
		rc_pb__reset(&pb);
		rc_pb__begin(&pb, 3);
		rc_pb__raw(&pb, (const uint8_t[]){ 0x08, 0x96, 0x01 }, 3);
		rc_pb__raw(&pb, NULL, 0);
		rc_pb__end(&pb);
		BYTES(&pb, "raw fields", 0x1a, 0x03, 0x08, 0x96, 0x01);
	}
	if (test__start_subtest("long_bodies")) {
		/* 300 bytes in a message in a message: lengths of two bytes, bodies moved */
		static uint8_t want[2 + 2 + 3 + 300];
		uint8_t blob[300];

		rc_pb__reset(&pb);
		for (i = 0; i < sizeof(blob); i++)
			blob[i] = (uint8_t)i;
		rc_pb__begin(&pb, 1);
		rc_pb__bytes(&pb, 2, blob, sizeof(blob));
		rc_pb__end(&pb);
		/* 0a, len 303 (af 02); 12, len 300 (ac 02), blob */
		k = 0;
		want[k++] = 0x0a;
		want[k++] = 0xaf;
		want[k++] = 0x02;
		want[k++] = 0x12;
		want[k++] = 0xac;
		want[k++] = 0x02;
		memcpy(want + k, blob, sizeof(blob));
		k += sizeof(blob);
		bytes_are(&pb, want, k, "lengths of two bytes");
		/* 20 000 bytes three deep: each length read back covers what follows it */
		rc_pb__reset(&pb);
		rc_pb__begin(&pb, 1);
		rc_pb__begin(&pb, 2);
		rc_pb__begin(&pb, 3);
		for (i = 0; i < 10000; i++)
			rc_pb__uint(&pb, 4, 1);
		rc_pb__end(&pb);
		rc_pb__end(&pb);
		ASSERT_EQ(rc_pb__end(&pb), 0, "closed");
		for (i = 0, k = 0; k < 3; k++) {
			size_t n;

			ASSERT_EQ(pb.buf[i], (k + 1) << 3 | RC_PB_LEN, "a message's tag");
			n = read_varint(pb.buf + i + 1, pb.len - i - 1, &v);
			if (!ASSERT_TRUE(n, "its length"))
				break;
			i += 1 + n;
			ASSERT_EQ(v, pb.len - i, "the length is the rest");
		}
		ASSERT_EQ(pb.len - i, 20000, "ten thousand fields of two bytes");
		ASSERT_EQ(pb.buf[i], 0x20, "the first");
		ASSERT_EQ(pb.buf[pb.len - 1], 0x01, "the last");
	}
	if (test__start_subtest("errors")) {
		rc_pb__free(&pb);
		ASSERT_EQ(rc_pb__end(&pb), -EINVAL, "end without a begin");
		ASSERT_EQ(rc_pb__uint(&pb, 1, 1), -EINVAL, "the error sticks");
		ASSERT_EQ(pb.len, 0, "nothing written");
		rc_pb__free(&pb);
		ASSERT_EQ(rc_pb__uint(&pb, 0, 1), -EINVAL, "field 0");
		rc_pb__free(&pb);
		ASSERT_EQ(rc_pb__uint(&pb, 1u << 29, 1), -EINVAL, "field 2^29");
		rc_pb__free(&pb);
		for (i = 0; i < RC_PB_MAX_DEPTH; i++)
			rc_pb__begin(&pb, 1);
		ASSERT_EQ(pb.err, 0, "as deep as allowed");
		ASSERT_EQ(rc_pb__begin(&pb, 1), -E2BIG, "one deeper");
		rc_pb__free(&pb);
		rc_pb__begin(&pb, 1);
		rc_pb__reset(&pb);
		ASSERT_EQ(pb.err, -EINVAL, "reset with a message open");
	}
	rc_pb__free(&pb);
}
