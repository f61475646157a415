/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event schemas: the events and enums a capture can hold, as its header
 * describes them (lib/format/schema.c), and a record's fields read by them.
 */
#ifndef RINGCAP_FORMAT_SCHEMA_H
#define RINGCAP_FORMAT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "format/records.h"

enum rc_field_kind {
	RC_FIELD_UINT = 1,
	RC_FIELD_SINT = 2,
	RC_FIELD_STR = 3, /* char array, NUL-padded */
	/*
	 * Variable-length data elsewhere in the record, found through a u32 at
	 * the field's offset: low 16 bits the data's offset, high 16 its length
	 * in bytes. DATA_LOC: the offset counts from the end of the record
	 * header (the start of a tracepoint's raw record); REL_LOC: from the end
	 * of the u32. size is of one element: 1 with no hint, a string; else an
	 * array of integers (hint HEX: printed as hex). v1.3.
	 */
	RC_FIELD_DATA_LOC = 4,
	RC_FIELD_REL_LOC = 5,
};

enum rc_field_hint {
	RC_HINT_NONE = 0,
	RC_HINT_HEX = 1,
	RC_HINT_ENUM = 2,  /* value named by enum_id */
	RC_HINT_ERRNO = 3, /* -1..-4095 named by enum_id, as -ENAME */
	RC_HINT_NSEC = 4,  /* a duration in nanoseconds */
};

/**
 * struct rc_field - one field of an event's records
 * @name: unique within its event
 * @offset: from the start of the record, header included
 * @size: of one element, in bytes (1, 2, 4 or 8 for an integer)
 * @count: elements: 1, or an array of them
 * @kind: enum rc_field_kind
 * @hint: enum rc_field_hint, how to print the value
 * @enum_id: the schema's enum that names its values, for RC_HINT_ENUM and
 *	RC_HINT_ERRNO
 */
struct rc_field {
	const char *name;
	uint16_t offset;
	uint16_t size;
	uint16_t count;
	uint8_t kind;
	uint8_t hint;
	uint16_t enum_id;
};

struct rc_enum_entry {
	int64_t value;
	const char *name;
};

struct rc_enum {
	uint16_t id;
	const char *name;
	uint32_t cnt;
	const struct rc_enum_entry *entries; /* sorted by value */
};

/**
 * struct rc_event_desc - an event: its records' layout
 * @id: the records' rc_rec_hdr.type
 * @size: the smallest valid record, header included
 * @name: e.g. "sched:sched_switch", "bpf:event"
 * @nfields: entries of @fields
 * @fields: the fields after the record header
 * @flags: RC_EVENT_NO_*: what the header of its records does not know
 *	(v1.5; 0 in older files)
 */
struct rc_event_desc {
	uint16_t id;
	uint16_t size;
	const char *name;
	uint16_t nfields;
	const struct rc_field *fields;
	uint16_t flags;
};

/*
 * rc_event_desc.flags: the records of the event carry no such value (their
 * header holds 0, or NULs for comm), e.g. a record --bpf struct without
 * pid and tid fields, or one that came through a BPF ring buffer, which
 * tells no CPU. Readers show these as unknown, never as 0.
 */
#define RC_EVENT_NO_PID	 0x1
#define RC_EVENT_NO_TID	 0x2
#define RC_EVENT_NO_CPU	 0x4
#define RC_EVENT_NO_COMM 0x8

struct rc_schema {
	uint32_t nevents;
	const struct rc_event_desc *events;
	uint32_t nenums;
	const struct rc_enum *enums;
};

/**
 * rc_schema__new() - a schema of one's own, to add events to
 * @base: deep-copied into the new schema; NULL: start empty
 *
 * Return: the schema, to free with rc_schema__free(); NULL with errno
 * ENOMEM.
 */
struct rc_schema *rc_schema__new(const struct rc_schema *base);

/**
 * rc_schema__add_event() - add a deep copy of an event to a schema
 * @s: a schema from rc_schema__new()
 * @ev: the event; its name and fields are copied, @ev is not kept
 *
 * @ev is not checked: its fields are taken to lie within its size. Adding
 * may move @s->events, so pointers from rc_schema__event() into @s are
 * stale afterwards. On -ENOMEM part way the event may be in @s with only
 * some of its fields; rc_schema__free() still frees all of it.
 *
 * Return: 0; -EEXIST when @s has an event of @ev's id (nothing added); or
 * -ENOMEM.
 */
int rc_schema__add_event(struct rc_schema *s, const struct rc_event_desc *ev);

/**
 * rc_schema__free() - free a schema and everything it holds
 * @s: from rc_schema__new(), or NULL
 *
 * Not for rc_builtin_schema() nor a capture's schema (rc_meta.schema), which
 * belong to the library and to their reader or session.
 */
void rc_schema__free(struct rc_schema *s);

/**
 * rc_schema__event() - an event of a schema, by id
 * @s: the schema
 * @id: the event's id (rc_rec_hdr.type)
 *
 * Return: the event, or NULL when @s has none of that id.
 */
const struct rc_event_desc *rc_schema__event(const struct rc_schema *s, uint16_t id);

/**
 * rc_schema__event_by_name() - an event of a schema, by its full name
 * @s: the schema
 * @name: as stored, e.g. "sched:sched_switch" or "syscall"; no globs, no
 *	groups
 *
 * Return: the first event of that name, or NULL.
 */
const struct rc_event_desc *rc_schema__event_by_name(const struct rc_schema *s, const char *name);

/**
 * rc_schema__enum() - an enum of a schema, by id
 * @s: the schema
 * @id: the enum's id (rc_field.enum_id)
 *
 * Return: the enum, or NULL when @s has none of that id.
 */
const struct rc_enum *rc_schema__enum(const struct rc_schema *s, uint16_t id);

/**
 * rc_event__field() - a field of an event, by name
 * @ev: the event, or NULL
 * @name: the field's name
 *
 * Return: the field, or NULL when @ev has none of that name or is NULL.
 */
const struct rc_field *rc_event__field(const struct rc_event_desc *ev, const char *name);

/**
 * rc_enum__name() - the name of a value of an enum
 * @e: the enum, or NULL; its entries sorted by value (a binary search)
 * @value: the value
 *
 * Return: the entry's name, or NULL when @e has no entry of @value or is
 * NULL.
 */
const char *rc_enum__name(const struct rc_enum *e, int64_t value);

/**
 * rc_field__resolve() - a DATA_LOC or REL_LOC field of a record as a plain one
 * @f: a field of @rec's event
 * @rec: the record; its size bounds the data
 * @out: the plain field: a STR of the data's length (size 1, no hint), else
 *	a UINT array of the data's elements (count may be 0)
 *
 * Fields of other kinds are copied to @out as they are.
 *
 * Return: 0; or -EBADMSG, @out then a copy of @f, when the location lies
 * outside the record, the data's length is not whole elements, or @f's size
 * is 0.
 */
int rc_field__resolve(const struct rc_field *f, const struct rc_rec_hdr *rec, struct rc_field *out);

/*
 * The enum of how many arguments each syscall takes: a syscall's number,
 * named "0" to "6" (rc_builtin__add_syscall_nargs()). A capture of the
 * syscall source carries it from v0.4 on; one without it shows all six.
 */
#define RC_ENUM_SYSCALL_NARGS 6

/**
 * rc_field__count() - the elements of a field that a record shows
 * @s: the record's schema
 * @f: a field of @rec's event
 * @rec: the record, its size checked against its event's
 *
 * A syscall record's args (the "syscall" event's): as many as its call
 * takes, where @s says (RC_ENUM_SYSCALL_NARGS), so that a call of one
 * argument shows one and not five registers more. Every other field: its
 * count.
 *
 * Return: at most @f->count.
 */
uint16_t rc_field__count(const struct rc_schema *s, const struct rc_field *f, const void *rec);

/**
 * rc_field__u64() - read an element of a field of a record as an integer
 * @f: the field
 * @rec: the record, at least as long as @f's extent; not checked here
 *	(rc_reader__next() checks a record's size against its event's)
 * @idx: the element, below @f->count
 *
 * Reads @f->size little-endian bytes, zero-extended. A DATA_LOC or REL_LOC
 * field reads as its u32 location (element 0; others read 0): resolve it
 * first with rc_field__resolve(). A field larger than 8 bytes reads 0.
 *
 * Return: the value.
 */
uint64_t rc_field__u64(const struct rc_field *f, const void *rec, unsigned int idx);

/**
 * rc_field__s64() - read an element of a field of a record as a signed integer
 * @f: the field
 * @rec: the record, as for rc_field__u64()
 * @idx: the element, below @f->count
 *
 * As rc_field__u64(), sign-extended from @f->size bytes whatever @f's kind.
 *
 * Return: the value.
 */
int64_t rc_field__s64(const struct rc_field *f, const void *rec, unsigned int idx);

/**
 * rc_rec__unknown() - what the header of a record does not know
 * @s: the capture's schema
 * @rec: a record of the capture
 *
 * Return: the RC_EVENT_NO_* flags of @rec's event: its pid, tid, cpu or
 * comm are not values but unknown; 0 for an event @s lacks.
 */
unsigned int rc_rec__unknown(const struct rc_schema *s, const struct rc_rec_hdr *rec);

#endif /* RINGCAP_FORMAT_SCHEMA_H */
