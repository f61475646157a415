// SPDX-License-Identifier: GPL-2.0-only
/*
 * Schemas: lookups in any schema, schemas built of one's own (the capture
 * engine's, a header's as the reader parses it), and a record's fields
 * read by them.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "format/meta.h"
#include "format/schema_int.h"
#include "util/util.h"

const struct rc_event_desc *rc_schema__event(const struct rc_schema *s, uint16_t id)
{
	uint32_t i;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].id == id)
			return &s->events[i];
	return NULL;
}

unsigned int rc_rec__unknown(const struct rc_schema *s, const struct rc_rec_hdr *rec)
{
	const struct rc_event_desc *ev = rc_schema__event(s, rec->type);

	return ev ? ev->flags : 0;
}

const struct rc_event_desc *rc_schema__event_by_name(const struct rc_schema *s, const char *name)
{
	uint32_t i;

	for (i = 0; i < s->nevents; i++)
		if (!strcmp(s->events[i].name, name))
			return &s->events[i];
	return NULL;
}

const struct rc_field *rc_event__field(const struct rc_event_desc *ev, const char *name)
{
	uint16_t i;

	for (i = 0; ev && i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

const struct rc_enum *rc_schema__enum(const struct rc_schema *s, uint16_t id)
{
	uint32_t i;

	for (i = 0; i < s->nenums; i++)
		if (s->enums[i].id == id)
			return &s->enums[i];
	return NULL;
}

const char *rc_enum__name(const struct rc_enum *e, int64_t value)
{
	size_t lo = 0, hi = e ? e->cnt : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->entries[mid].value == value)
			return e->entries[mid].name;
		if (e->entries[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint64_t rc_field__u64(const struct rc_field *f, const void *rec, unsigned int idx)
{
	const unsigned char *p = (const unsigned char *)rec + f->offset + (size_t)idx * f->size;
	bool loc = f->kind == RC_FIELD_DATA_LOC || f->kind == RC_FIELD_REL_LOC;
	size_t n = loc ? sizeof(uint32_t) : f->size;
	uint64_t v = 0;

	/*
	 * little-endian (internal.h): the low bytes of v; sizes are 1, 2, 4 or
	 * 8. A location field read as an integer is its u32: what the reader
	 * checked the record holds.
	 */
	if (loc && idx)
		return 0;
	if (n <= sizeof(v))
		memcpy(&v, p, n);
	return v;
}

int64_t rc_field__s64(const struct rc_field *f, const void *rec, unsigned int idx)
{
	uint64_t v = rc_field__u64(f, rec, idx);
	unsigned int bits = f->size * 8;

	if (bits && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;
	return (int64_t)v;
}

/* ---- schemas of one's own --------------------------------------------- */

static int dup_str(const char **dst, const char *src)
{
	*dst = strdup(src ? src : "");
	return *dst ? 0 : -ENOMEM;
}

int rc_schema__add_enum(struct rc_schema *s, const struct rc_enum *e)
{
	struct rc_enum_entry *entries;
	struct rc_enum *arr, *ne;
	uint32_t i;
	int err;

	for (i = 0; i < s->nenums; i++)
		if (s->enums[i].id == e->id)
			return -EEXIST;
	arr = realloc((void *)s->enums, (s->nenums + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	s->enums = arr;
	ne = &arr[s->nenums];
	entries = calloc(e->cnt ? e->cnt : 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	*ne = (struct rc_enum){ .id = e->id, .entries = entries };
	s->nenums++;
	err = dup_str(&ne->name, e->name);
	for (i = 0; !err && i < e->cnt; i++) {
		entries[i].value = e->entries[i].value;
		err = dup_str(&entries[i].name, e->entries[i].name);
		if (!err)
			ne->cnt++;
	}
	return err;
}

int rc_schema__add_event(struct rc_schema *s, const struct rc_event_desc *ev)
{
	struct rc_event_desc *arr, *ne;
	struct rc_field *fields;
	uint16_t i;
	int err;

	if (rc_schema__event(s, ev->id))
		return -EEXIST;
	arr = realloc((void *)s->events, (s->nevents + 1) * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	s->events = arr;
	ne = &arr[s->nevents];
	fields = calloc(ev->nfields ? ev->nfields : 1, sizeof(*fields));
	if (!fields)
		return -ENOMEM;
	*ne = (struct rc_event_desc){
		.id = ev->id, .size = ev->size, .fields = fields, .flags = ev->flags
	};
	s->nevents++;
	err = dup_str(&ne->name, ev->name);
	for (i = 0; !err && i < ev->nfields; i++) {
		fields[i] = ev->fields[i];
		err = dup_str(&fields[i].name, ev->fields[i].name);
		if (!err)
			ne->nfields++;
	}
	return err;
}

void rc_schema__clear(struct rc_schema *s)
{
	uint32_t i, j;

	for (i = 0; i < s->nevents; i++) {
		const struct rc_event_desc *ev = &s->events[i];

		for (j = 0; j < ev->nfields; j++)
			free((void *)ev->fields[j].name);
		free((void *)ev->fields);
		free((void *)ev->name);
	}
	for (i = 0; i < s->nenums; i++) {
		const struct rc_enum *e = &s->enums[i];

		for (j = 0; j < e->cnt; j++)
			free((void *)e->entries[j].name);
		free((void *)e->entries);
		free((void *)e->name);
	}
	free((void *)s->events);
	free((void *)s->enums);
	memset(s, 0, sizeof(*s));
}

void rc_schema__free(struct rc_schema *s)
{
	if (!s)
		return;
	rc_schema__clear(s);
	free(s);
}

struct rc_schema *rc_schema__new(const struct rc_schema *base)
{
	struct rc_schema *s = calloc(1, sizeof(*s));
	uint32_t i;
	int err = 0;

	if (!s)
		return rc_err_ptr(-ENOMEM);
	for (i = 0; base && !err && i < base->nenums; i++)
		err = rc_schema__add_enum(s, &base->enums[i]);
	for (i = 0; base && !err && i < base->nevents; i++)
		err = rc_schema__add_event(s, &base->events[i]);
	if (err) {
		rc_schema__free(s);
		return rc_err_ptr(err);
	}
	return s;
}

int rc_field__resolve(const struct rc_field *f, const struct rc_rec_hdr *rec, struct rc_field *out)
{
	uint32_t loc, off, len;

	*out = *f;
	if (f->kind != RC_FIELD_DATA_LOC && f->kind != RC_FIELD_REL_LOC)
		return 0;
	if ((size_t)f->offset + sizeof(loc) > rec->size || !f->size)
		return -EBADMSG;
	memcpy(&loc, (const char *)rec + f->offset, sizeof(loc));
	off = (loc & 0xffff) +
	      (f->kind == RC_FIELD_REL_LOC ? f->offset + sizeof(loc) : sizeof(struct rc_rec_hdr));
	len = loc >> 16;
	if (off + len > rec->size || len % f->size)
		return -EBADMSG;
	out->offset = off;
	if (f->size == 1 && f->hint == RC_HINT_NONE) {
		out->kind = RC_FIELD_STR;
		out->size = len;
		out->count = 1;
	} else {
		out->kind = RC_FIELD_UINT;
		out->count = len / f->size;
	}
	return 0;
}

const struct rc_note *rc_meta__note(const struct rc_meta *m, uint16_t event_id, const char *key)
{
	uint32_t i;

	for (i = 0; i < m->nnotes; i++)
		if (m->notes[i].event_id == event_id && !strcmp(m->notes[i].key, key))
			return &m->notes[i];
	return NULL;
}

uint16_t rc_field__count(const struct rc_schema *s, const struct rc_field *f, const void *rec)
{
	const struct rc_rec_hdr *h = rec;
	const struct rc_enum *e;
	const char *n;

	if (f->count != RC_SYSCALL_NARGS || h->type != RC_EV_SYSCALL ||
	    f->offset != offsetof(struct rc_ev_syscall, args) || f->size != 8 ||
	    h->size < sizeof(struct rc_ev_syscall) || (h->flags & RC_SYSCALL_F_COMPAT) ||
	    strcmp(f->name, "args"))
		return f->count;
	e = rc_schema__enum(s, RC_ENUM_SYSCALL_NARGS);
	n = e ? rc_enum__name(e, ((const struct rc_ev_syscall *)rec)->nr) : NULL;
	if (!n || n[0] < '0' || n[0] > '0' + RC_SYSCALL_NARGS || n[1])
		return f->count;
	return (uint16_t)(n[0] - '0');
}
