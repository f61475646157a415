/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A protocol buffers wire encoder (protobuf.dev/programming-guides/encoding):
 * varints, fixed 32- and 64-bit values, length-delimited fields (bytes,
 * strings, packed repeated numbers) and nested messages, appended to a
 * growing buffer. No schema and no generated code: a writer names each
 * field's number and type as the .proto gives them (pprof's profile.proto,
 * Perfetto's trace). Errors stick: once a call failed, the others do
 * nothing and return the same error, so a writer checks once, at the end.
 */
#ifndef RINGCAP_UTIL_PB_H
#define RINGCAP_UTIL_PB_H

#include <stddef.h>
#include <stdint.h>

#define RC_PB_MAX_DEPTH 32 /* messages open at once */

/**
 * struct rc_pb - an encoder; zeroed is empty
 * @buf: the bytes encoded
 * @len: their number
 * @cap: bytes allocated
 * @open: the offset of each open message's body, outermost first
 * @depth: messages open
 * @err: 0, or the first error: -ENOMEM, -E2BIG (nested too deep, or a
 *	 message over 4 GiB), -EINVAL (rc_pb__end() with none open, a field
 *	 number out of range)
 */
struct rc_pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[RC_PB_MAX_DEPTH];
	unsigned int depth;
	int err;
};

/* wire types */
enum rc_pb_wire {
	RC_PB_VARINT = 0,
	RC_PB_I64 = 1,
	RC_PB_LEN = 2,
	RC_PB_I32 = 5,
};

/**
 * rc_pb__varint_len() - the bytes a varint of @v takes
 * @v: the value
 *
 * Return: 1 to 10.
 */
unsigned int rc_pb__varint_len(uint64_t v);

/**
 * rc_pb__uint() - a varint field: uint32, uint64, int32 or int64 (two's
 * complement: -1 takes 10 bytes), bool, enum
 * @pb: the encoder
 * @field: the field's number, 1 to 2^29 - 1
 * @v: its value
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__uint(struct rc_pb *pb, uint32_t field, uint64_t v);

/**
 * rc_pb__sint() - a zigzag varint field: sint32, sint64
 * @pb: the encoder
 * @field: the field's number
 * @v: its value
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__sint(struct rc_pb *pb, uint32_t field, int64_t v);

/**
 * rc_pb__fixed64() - a fixed64, sfixed64 or double field (its bits), little-endian
 * @pb: the encoder
 * @field: the field's number
 * @v: its value
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__fixed64(struct rc_pb *pb, uint32_t field, uint64_t v);

/**
 * rc_pb__fixed32() - a fixed32, sfixed32 or float field (its bits), little-endian
 * @pb: the encoder
 * @field: the field's number
 * @v: its value
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__fixed32(struct rc_pb *pb, uint32_t field, uint32_t v);

/**
 * rc_pb__bytes() - a length-delimited field: bytes, or a message encoded before
 * @pb: the encoder
 * @field: the field's number
 * @data: its bytes
 * @len: their number
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__bytes(struct rc_pb *pb, uint32_t field, const void *data, size_t len);

/**
 * rc_pb__string() - a string field
 * @pb: the encoder
 * @field: the field's number
 * @s: the string, without its NUL
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__string(struct rc_pb *pb, uint32_t field, const char *s);

/**
 * rc_pb__begin() - open a length-delimited field: a nested message, or packed numbers
 * @pb: the encoder
 * @field: the field's number
 *
 * The fields that follow are the message's, up to its rc_pb__end(); for a
 * packed repeated field, rc_pb__raw_varint() values. Its length is written
 * at rc_pb__end(), which moves the body when the length takes more than a byte.
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__begin(struct rc_pb *pb, uint32_t field);

/**
 * rc_pb__end() - close the field rc_pb__begin() opened last
 * @pb: the encoder
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__end(struct rc_pb *pb);

/**
 * rc_pb__raw_varint() - a varint without a tag: an element of a packed field
 * @pb: the encoder
 * @v: the value
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__raw_varint(struct rc_pb *pb, uint64_t v);

/**
 * rc_pb__raw() - bytes encoded elsewhere, appended as they are: fields of
 * the message open (an encoder's whole output, when it holds whole fields)
 * @pb: the encoder
 * @data: the bytes
 * @len: their number
 *
 * Return: 0, or the encoder's error.
 */
int rc_pb__raw(struct rc_pb *pb, const void *data, size_t len);

/**
 * rc_pb__reset() - forget the bytes encoded, keeping the allocation and any error
 * @pb: the encoder, with no message open (else -EINVAL sticks)
 */
void rc_pb__reset(struct rc_pb *pb);

/**
 * rc_pb__free() - free the buffer, leaving the encoder zeroed
 * @pb: the encoder
 */
void rc_pb__free(struct rc_pb *pb);

#endif /* RINGCAP_UTIL_PB_H */
