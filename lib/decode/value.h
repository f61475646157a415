/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A field's value, read once for every output: its kind, its number or
 * string, and the names the schema gives it. Text (decode.c), JSON and CSV
 * (lib/output/) each only write what this gives them.
 *
 * Inline: it runs for every field of every record shown, and a call that
 * read the element twice (rc_field__u64(), then rc_field__s64()) cost a
 * text report about 34 instructions an event (issue 33).
 */
#ifndef RINGCAP_DECODE_VALUE_H
#define RINGCAP_DECODE_VALUE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
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
 * rc_value__names() - the names of @v: @v->name or @v->err (value.c)
 * @s: the schema that describes the record
 * @f: the field, RC_HINT_ENUM or RC_HINT_ERRNO
 * @rec: the record
 * @v: its @u and @s read; its names set
 *
 * Out of line: only fields with names pay for the lookup. A 32-bit task's
 * syscall (RC_SYSCALL_F_COMPAT) has no name: its number is of another
 * table than the one the capture names calls by.
 */
void rc_value__names(const struct rc_schema *s, const struct rc_field *f, const void *rec,
		     struct rc_value *v);

/*
 * Element @idx of plain field @f of @rec, zero-extended (*@u) and
 * sign-extended (*@s) from its size: as rc_field__u64() and
 * rc_field__s64() read it, read once.
 */
static inline void rc_value__read(const struct rc_field *f, const void *rec, unsigned int idx,
				  uint64_t *u, int64_t *s)
{
	const unsigned char *p = (const unsigned char *)rec + f->offset + (size_t)idx * f->size;
	uint16_t v16;
	uint32_t v32;

	if (f->kind == RC_FIELD_DATA_LOC || f->kind == RC_FIELD_REL_LOC)
		goto other; /* read as their u32 location, as rc_field__u64() does */
	switch (f->size) { /* little-endian (format/internal.h) */
	case 1:
		*u = *p;
		*s = (int8_t)*p;
		return;
	case 2:
		memcpy(&v16, p, 2);
		*u = v16;
		*s = (int16_t)v16;
		return;
	case 4:
		memcpy(&v32, p, 4);
		*u = v32;
		*s = (int32_t)v32;
		return;
	case 8:
		memcpy(u, p, 8);
		*s = (int64_t)*u;
		return;
	}
other: /* sizes of no integer type, location fields */
	*u = rc_field__u64(f, rec, idx);
	*s = rc_field__s64(f, rec, idx);
}

/**
 * rc_field__value() - an element of a field of a record, with its names
 * @s: the schema that describes the record
 * @f: the field, plain (rc_field__resolve() first for a DATA_LOC one)
 * @rec: the record, checked as for rc_field__u64()
 * @idx: the element, below @f->count (0 for a string)
 * @v: filled in
 */
static inline void rc_field__value(const struct rc_schema *s, const struct rc_field *f,
				   const void *rec, unsigned int idx, struct rc_value *v)
{
	v->kind = (enum rc_field_kind)f->kind;
	v->name = NULL;
	v->err = NULL;
	if (f->kind == RC_FIELD_STR) {
		v->str = (const char *)rec + f->offset;
		v->len = f->size;
		v->u = 0;
		v->s = 0;
		if (f->hint != RC_HINT_ERRNO) /* what a schema can say of a string */
			return;
	} else {
		v->str = NULL;
		v->len = 0;
	}
	rc_value__read(f, rec, idx, &v->u, &v->s);
	if (f->hint == RC_HINT_ENUM || f->hint == RC_HINT_ERRNO)
		rc_value__names(s, f, rec, v);
}

#endif /* RINGCAP_DECODE_VALUE_H */
