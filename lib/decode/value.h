/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A field's value, read once for every output: its kind, its number or
 * string, and the names the schema gives it. Text (decode.c), JSON and CSV
 * (lib/output/) each only write what this gives them.
 */
#ifndef RINGCAP_DECODE_VALUE_H
#define RINGCAP_DECODE_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include "format/schema.h"

/**
 * struct rc_value - one element of a field of a record
 * @kind: RC_FIELD_STR, RC_FIELD_UINT or RC_FIELD_SINT, as the field's
 * @str: RC_FIELD_STR: the string, in the record, at most @len bytes, to a NUL
 * @len: RC_FIELD_STR: the field's size
 * @u: the element as rc_field__u64() reads it (a string: only with
 *     RC_HINT_ERRNO, whose name JSON looks up whatever the kind)
 * @s: the element as rc_field__s64() reads it (as @u)
 * @name: RC_HINT_ENUM: the value's name in the field's enum (of @s for a
 *        signed field, of @u for an unsigned one); NULL when it has none
 * @err: RC_HINT_ERRNO: a failed return's errno name ("ENOENT" for -2), for
 *       @s in -4095..-1; NULL otherwise
 */
struct rc_value {
	enum rc_field_kind kind;
	const char *str;
	size_t len;
	uint64_t u;
	int64_t s;
	const char *name;
	const char *err;
};

/**
 * rc_field__value() - an element of a field of a record, with its names
 * @s: the schema that describes the record
 * @f: the field, plain (rc_field__resolve() first for a DATA_LOC one)
 * @rec: the record, checked as for rc_field__u64()
 * @idx: the element, below @f->count (0 for a string)
 * @v: filled in
 */
void rc_field__value(const struct rc_schema *s, const struct rc_field *f, const void *rec,
		     unsigned int idx, struct rc_value *v);

#endif /* RINGCAP_DECODE_VALUE_H */
