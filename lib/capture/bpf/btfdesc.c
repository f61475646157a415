// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BTF of a user's event struct as a ringcap event schema (btfdesc.h);
 * setting the user's const volatile knobs is btfset.c.
 *
 * The schema must pass the reader's checks (header.c): integers of 1, 2,
 * 4 or 8 bytes, strings of count 1, every field inside the event, at most
 * RC_MAX_FIELDS fields, names of at most RC_MAX_NAME bytes. What has no
 * such mapping is shown as hex bytes rather than refused: the record is
 * captured whole either way, and a field the user can read beats an error.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "capture/bpf/btfdesc.h"
#include "format/format.h"
#include "util/util.h"
#include "util/mem.h"

#include "capture/bpf/btf_int.h"

/*
 * A char of a string: plain char under any name; signed and unsigned char
 * (or BTF_INT_CHAR) only when spelled so. Through a typedef (__u8, int8_t)
 * they are small integers, and their arrays hold bytes (addresses, hashes).
 */
static bool is_text_char(const struct btf *btf, const struct btf_type *t, const char *tdname)
{
	const char *nm;

	if (!btf_is_int(t) || t->size != 1 || is_bool(btf, t))
		return false;
	nm = name_of(btf, t);
	if (!strcmp(nm, "char"))
		return true;
	if (tdname)
		return false;
	return (btf_int_encoding(t) & BTF_INT_CHAR) || !strcmp(nm, "signed char") ||
	       !strcmp(nm, "unsigned char");
}

/* ---- describing a struct ---------------------------------------------- */

struct desc {
	const struct btf *btf;
	struct rc_btf_desc *out;
	const char *struct_name;
	uint16_t base;
	uint16_t first_enum_id;
	size_t fields_cap;
	__u32 *enum_types; /* the BTF type of each out->enums[i] */
	char *err;
	size_t errlen;
};

/* Adjacent bitfields sharing bytes, not yet added. */
struct bf_run {
	bool active;
	__u32 start, end; /* bytes, from the start of the struct holding them */
	unsigned int n;
	const char *first, *last; /* names, in the BTF's strings */
	struct rc_strbuf names;	  /* "a|b|c" */
};

static int add_field(struct desc *d, const char *name, __u32 off, __u32 size, __u32 count,
		     uint8_t kind, uint8_t hint, uint16_t enum_id)
{
	struct rc_btf_desc *o = d->out;
	char *nm;
	int err;

	if (o->nfields >= RC_MAX_FIELDS) {
		set_err(d->err, d->errlen,
			"struct %s has more than %d fields once flattened (at '%s')",
			d->struct_name, RC_MAX_FIELDS, name);
		return -E2BIG;
	}
	if (strlen(name) > RC_MAX_NAME) {
		set_err(d->err, d->errlen, "struct %s: field name longer than %d bytes: '%.64s...'",
			d->struct_name, RC_MAX_NAME, name);
		return -ENAMETOOLONG;
	}
	/* the struct fits (checked first): this only guards against malformed BTF */
	if (!count || count > UINT16_MAX || size > UINT16_MAX || off > o->size ||
	    (uint64_t)size * count > o->size - off) {
		set_err(d->err, d->errlen, "struct %s: field '%s' lies outside the struct",
			d->struct_name, name);
		return -EINVAL;
	}
	err = rc_ensure_arr(&o->fields, &d->fields_cap, o->nfields + 1, 16);
	if (err)
		return err;
	nm = strdup(name);
	if (!nm)
		return -ENOMEM;
	o->fields[o->nfields++] = (struct rc_field){
		.name = nm,
		.offset = d->base + off,
		.size = size,
		.count = count,
		.kind = kind,
		.hint = hint,
		.enum_id = enum_id,
	};
	pr_debug("btf: %s: field %s offset %u size %u count %u kind %u hint %u enum %u\n",
		 d->struct_name, nm, d->base + off, size, count, kind, hint, enum_id);
	return 0;
}

/* What has no ringcap kind: its bytes, in hex. */
static int add_bytes(struct desc *d, const char *name, __u32 off, __u32 nbytes, const char *why)
{
	if (!nbytes)
		return 0;
	pr_info("btf: %s: field '%s' (%s) shown as %u hex bytes\n", d->struct_name, name, why,
		nbytes);
	return add_field(d, name, off, 1, nbytes, RC_FIELD_UINT, RC_HINT_HEX, 0);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct rc_enum_entry *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A display name: cut at RC_MAX_NAME bytes (the reader takes no more). */
static char *dup_label(const char *s)
{
	return strndup(s ? s : "", RC_MAX_NAME);
}

/* The id of the rc_enum of BTF enum @id, made on first use. */
static int enum_id_of(struct desc *d, __u32 id, const struct btf_type *t, const char *label,
		      uint16_t *eid)
{
	struct rc_btf_desc *o = d->out;
	struct rc_enum_entry *entries;
	struct rc_enum *e;
	__u32 *types;
	__u16 i, n = btf_vlen(t);

	for (i = 0; i < o->nenums; i++) {
		if (d->enum_types[i] == id) {
			*eid = d->first_enum_id + i;
			return 0;
		}
	}
	if (o->nenums >= 256 || (uint32_t)d->first_enum_id + o->nenums > UINT16_MAX) {
		set_err(d->err, d->errlen, "struct %s: too many enums (%u from id %u)",
			d->struct_name, o->nenums + 1, d->first_enum_id);
		return -E2BIG;
	}
	e = realloc(o->enums, (o->nenums + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	o->enums = e;
	types = realloc(d->enum_types, (o->nenums + 1) * sizeof(*types));
	if (!types)
		return -ENOMEM;
	d->enum_types = types;

	e = &o->enums[o->nenums];
	memset(e, 0, sizeof(*e));
	entries = calloc(n ? n : 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	e->entries = entries;
	e->id = d->first_enum_id + o->nenums;
	types[o->nenums] = id;
	o->nenums++; /* from here on freed with the rest */
	e->name = dup_label(*name_of(d->btf, t) ? name_of(d->btf, t) : label);
	if (!e->name)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *nm;
		int64_t v;

		if (btf_is_enum64(t)) {
			const struct btf_enum64 *ev = btf_enum64(t) + i;

			v = (int64_t)btf_enum64_value(ev);
			nm = btf__name_by_offset(d->btf, ((const __u32 *)ev)[0]);
		} else {
			const struct btf_enum *ev = btf_enum(t) + i;

			/* signed (kflag): val is an s32; else a u32 */
			v = btf_kflag(t) ? (int64_t)ev->val : (int64_t)(__u32)ev->val;
			nm = btf__name_by_offset(d->btf, ev->name_off);
		}
		entries[i].value = v;
		entries[i].name = dup_label(nm);
		if (!entries[i].name)
			return -ENOMEM;
		e->cnt++;
	}
	qsort(entries, e->cnt, sizeof(*entries), cmp_entry);
	*eid = e->id;
	return 0;
}

/*
 * A scalar: int, bool, enum or pointer, @count of them. 1: added; 0: not a
 * scalar with a ringcap kind (the caller shows its bytes); -errno.
 */
static int add_scalar(struct desc *d, const char *name, __u32 id, const struct btf_type *t,
		      const char *tdname, __u32 off, __u32 size, __u32 count)
{
	uint16_t eid = 0;
	int err;

	if (btf_is_ptr(t))
		return add_field(d, name, off, PTR_SIZE, count, RC_FIELD_UINT, RC_HINT_HEX, 0) ?: 1;
	if (!is_int_size(size))
		return 0;
	if (btf_is_int(t)) {
		bool sint = (btf_int_encoding(t) & BTF_INT_SIGNED) && !is_bool(d->btf, t);

		return add_field(d, name, off, size, count, sint ? RC_FIELD_SINT : RC_FIELD_UINT,
				 RC_HINT_NONE, 0)
			   ?: 1;
	}
	if (btf_is_any_enum(t)) {
		uint8_t kind = btf_kflag(t) ? RC_FIELD_SINT : RC_FIELD_UINT;

		if (!btf_vlen(t)) /* declared, no values: a plain integer */
			return add_field(d, name, off, size, count, kind, RC_HINT_NONE, 0) ?: 1;
		err = enum_id_of(d, id, t, tdname ? tdname : name, &eid);
		return err ?: add_field(d, name, off, size, count, kind, RC_HINT_ENUM, eid) ?: 1;
	}
	return 0;
}

static int add_object(struct desc *d, const char *name, __u32 type_id, __u32 off, int depth);
static int add_members(struct desc *d, const struct btf_type *t, const char *prefix, __u32 off,
		       int depth);

/* "prefix" + "name" + "suffix" into @buf, or -ENAMETOOLONG. */
static int join_name(struct desc *d, char *buf, const char *prefix, const char *name,
		     const char *suffix)
{
	int n = snprintf(buf, NAME_BUF, "%s%s%s", prefix, name, suffix);

	if (n < 0 || n >= NAME_BUF) {
		set_err(d->err, d->errlen, "struct %s: field name longer than %d bytes: '%.64s...'",
			d->struct_name, RC_MAX_NAME, prefix);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* "[i][j]..." for element @idx of an array of dimensions @dims[0..@ndims). */
static void index_suffix(char *buf, size_t len, const __u32 *dims, int ndims, uint64_t idx)
{
	uint64_t rest = idx;
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < ndims; i++) {
		uint64_t stride = 1;
		int j;

		for (j = i + 1; j < ndims; j++)
			stride *= dims[j];
		used +=
		    snprintf(buf + used, len - used, "[%llu]", (unsigned long long)(rest / stride));
		rest %= stride;
		if (used >= len)
			return;
	}
}

static int add_array(struct desc *d, const char *name, const struct btf_type *t, __u32 off,
		     int depth)
{
	const struct btf_type *et = t;
	const char *tdname = NULL;
	__u32 dims[MAX_DEPTH], elem_id = 0;
	uint64_t total = 1, i, nstr;
	int ndims = 0, err;
	__s64 esize;
	char idx[NAME_BUF], full[NAME_BUF];

	while (et && btf_is_array(et)) {
		if (ndims == MAX_DEPTH)
			goto malformed;
		dims[ndims++] = btf_array(et)->nelems;
		total *= btf_array(et)->nelems;
		if (total > UINT16_MAX) /* no struct of a record is that big */
			goto malformed;
		tdname = NULL;
		et = resolve(d->btf, btf_array(et)->type, &elem_id, &tdname, NULL);
	}
	if (!et)
		goto malformed;
	if (!total) /* a flexible or zero-length array: nothing inside the struct */
		return 0;
	esize = btf_is_ptr(et) ? PTR_SIZE : btf__resolve_size(d->btf, elem_id);
	if (esize <= 0)
		goto malformed;
	if ((uint64_t)esize * total > d->out->size)
		goto malformed;

	if (is_text_char(d->btf, et, tdname)) {
		/* the last dimension is the string; others index strings */
		nstr = total / dims[ndims - 1];
		if (nstr == 1)
			return add_field(d, name, off, dims[ndims - 1], 1, RC_FIELD_STR,
					 RC_HINT_NONE, 0);
		for (i = 0; i < nstr; i++) {
			index_suffix(idx, sizeof(idx), dims, ndims - 1, i);
			err = join_name(d, full, "", name, idx);
			err = err
				  ?: add_field(d, full, off + i * dims[ndims - 1], dims[ndims - 1],
					       1, RC_FIELD_STR, RC_HINT_NONE, 0);
			if (err)
				return err;
		}
		return 0;
	}
	if (btf_is_struct(et)) {
		for (i = 0; i < total; i++) {
			index_suffix(idx, sizeof(idx), dims, ndims, i);
			err = join_name(d, full, name, idx, ".");
			err = err ?: add_members(d, et, full, off + i * esize, depth + 1);
			if (err)
				return err;
		}
		return 0;
	}
	err = add_scalar(d, name, elem_id, et, tdname, off, esize, total);
	if (err)
		return err < 0 ? err : 0;
	return add_bytes(d, name, off, esize * total, "array of a type with no ringcap kind");

malformed:
	set_err(d->err, d->errlen, "struct %s: array '%s' of a bad size or type", d->struct_name,
		name);
	return -EINVAL;
}

/* Whatever lies at @off, of type @type_id, named @name. */
static int add_object(struct desc *d, const char *name, __u32 type_id, __u32 off, int depth)
{
	const struct btf_type *t;
	const char *tdname = NULL;
	__u32 id;
	__s64 size;
	int err;

	if (depth > MAX_DEPTH) {
		set_err(d->err, d->errlen, "struct %s: '%s' nested more than %d deep",
			d->struct_name, name, MAX_DEPTH);
		return -EINVAL;
	}
	t = resolve(d->btf, type_id, &id, &tdname, NULL);
	if (!t)
		goto malformed;
	if (btf_is_array(t))
		return add_array(d, name, t, off, depth);
	if (btf_is_struct(t)) {
		char prefix[NAME_BUF];

		return join_name(d, prefix, "", name, ".") ?: add_members(d, t, prefix, off, depth);
	}
	size = btf_is_ptr(t) ? PTR_SIZE : btf__resolve_size(d->btf, id);
	if (size < 0)
		goto malformed;
	if (btf_is_union(t))
		return add_bytes(d, name, off, size, "union");
	if (btf_is_float(t))
		return add_bytes(d, name, off, size, "float");
	if (btf_is_int(t) && !is_plain_int(t))
		return add_bytes(d, name, off, size, "int with bit offset");
	err = add_scalar(d, name, id, t, tdname, off, size, 1);
	if (err)
		return err < 0 ? err : 0;
	if (btf_is_int(t) || btf_is_any_enum(t))
		return add_bytes(d, name, off, size, "integer of an odd size");

malformed:
	set_err(d->err, d->errlen, "struct %s: member '%s' has a type with no size", d->struct_name,
		name);
	return -EINVAL;
}

static int run_flush(struct desc *d, struct bf_run *r, const char *prefix, __u32 off)
{
	char head[NAME_BUF], full[NAME_BUF];
	int err;

	if (!r->active)
		return 0;
	r->active = false;
	/* every name if they fit, else the first and the last */
	if (strlen(prefix) + r->names.len <= RC_MAX_NAME)
		err = join_name(d, full, prefix, r->names.buf, "");
	else
		err = join_name(d, head, prefix, r->first, "|...|")
			  ?: join_name(d, full, head, r->last, "");
	r->names.len = 0;
	return err ?: add_bytes(d, full, off + r->start, r->end - r->start, "bitfields");
}

/* Bitfield @name, bits [@bit, @bit + @bits) of the struct at @off. */
static int add_bitfield(struct desc *d, struct bf_run *r, const char *prefix, __u32 off,
			const char *name, __u32 type_id, __u32 bit, __u32 bits)
{
	__u32 start = bit / 8, end = (bit + bits + 7) / 8;
	const char *tdname = NULL;
	const struct btf_type *t;
	char full[NAME_BUF];
	__u32 id;
	int err;

	t = resolve(d->btf, type_id, &id, &tdname, NULL);
	if (!t || (!btf_is_int(t) && !btf_is_any_enum(t))) {
		set_err(d->err, d->errlen, "struct %s: bitfield '%s%s' of a non-integer type",
			d->struct_name, prefix, name);
		return -EINVAL;
	}
	if (!*name) /* unnamed: padding */
		return 0;
	/* little-endian: a byte-aligned bitfield of 8, 16, 32 or 64 bits is that integer */
	if (bit % 8 == 0 && bits % 8 == 0 && is_int_size(bits / 8)) {
		err = run_flush(d, r, prefix, off) ?: join_name(d, full, prefix, name, "");
		err = err ?: add_scalar(d, full, id, t, tdname, off + start, bits / 8, 1);
		return err < 0 ? err : 0;
	}
	if (!r->active || start >= r->end) {
		err = run_flush(d, r, prefix, off);
		if (err)
			return err;
		r->active = true;
		r->start = start;
		r->end = end;
		r->n = 0;
		r->first = name;
	}
	if (end > r->end)
		r->end = end;
	r->last = name;
	return rc_strbuf__printf(&r->names, "%s%s", r->n++ ? "|" : "", name);
}

/* The members of struct or union @t at @off, their names after @prefix. */
static int add_members(struct desc *d, const struct btf_type *t, const char *prefix, __u32 off,
		       int depth)
{
	const struct btf_member *m = btf_members(t);
	struct bf_run run = {};
	char full[NAME_BUF];
	__u16 i, n = btf_vlen(t);
	int err = 0;

	if (depth > MAX_DEPTH) {
		set_err(d->err, d->errlen, "struct %s: '%s' nested more than %d deep",
			d->struct_name, prefix, MAX_DEPTH);
		return -EINVAL;
	}
	for (i = 0; i < n && !err; i++) {
		const char *name = btf__name_by_offset(d->btf, m[i].name_off);
		__u32 bit = btf_member_bit_offset(t, i), bits = btf_member_bitfield_size(t, i);
		const struct btf_type *mt = resolve(d->btf, m[i].type, NULL, NULL, NULL);

		if (!name || !mt) {
			set_err(d->err, d->errlen, "struct %s: member %u of '%s' is malformed",
				d->struct_name, i, prefix);
			return -EINVAL;
		}
		/* a bitfield encoded in the int type (BTF without kflag) */
		if (!bits && btf_is_int(mt) && !is_plain_int(mt)) {
			bit += btf_int_offset(mt);
			bits = btf_int_bits(mt);
		}
		if (!bits && bit % 8) {
			__s64 sz = btf__resolve_size(d->btf, m[i].type);

			bits = sz > 0 ? sz * 8 : 0;
		}
		if (bits) {
			err = add_bitfield(d, &run, prefix, off, name, m[i].type, bit, bits);
			continue;
		}
		err = run_flush(d, &run, prefix, off);
		if (err)
			break;
		if (!*name && btf_is_composite(mt)) /* anonymous struct or union: no prefix */
			err = add_members(d, mt, prefix, off + bit / 8, depth + 1);
		else if (*name)
			err = join_name(d, full, prefix, name, "")
				  ?: add_object(d, full, m[i].type, off + bit / 8, depth + 1);
	}
	err = err ?: run_flush(d, &run, prefix, off);
	rc_strbuf__free(&run.names);
	return err;
}

/* clang leaves out of the BTF a struct the program only reaches through pointers */
static const char not_in_btf[] = " (a struct used only through pointers is in the BTF"
				 " only if a global of its type is)";

/* The struct named @name (or "struct NAME", or a typedef of one), or -ENOENT. */
static int find_struct(const struct btf *btf, const char *name, char *err, size_t errlen)
{
	const struct btf_type *t;
	struct rc_strbuf sb = {};
	__u32 i, n, shown = 0, more = 0, id;
	__s32 sid;

	if (!strncmp(name, "struct ", 7))
		name += 7;
	sid = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	if (sid > 0)
		return sid;
	sid = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (sid > 0) {
		t = resolve(btf, sid, &id, NULL, NULL);
		if (t && btf_is_struct(t))
			return id;
		set_err(err, errlen,
			"'%s' is a typedef of no struct: an event type must be a struct", name);
		return -ENOENT;
	}
	if (btf__find_by_name_kind(btf, name, BTF_KIND_UNION) > 0) {
		set_err(err, errlen, "'%s' is a union: an event type must be a struct", name);
		return -ENOENT;
	}
	n = btf__type_cnt(btf);
	for (i = 1; i < n; i++) {
		t = btf__type_by_id(btf, i);
		if (!btf_is_struct(t) || !*name_of(btf, t))
			continue;
		if (shown == MAX_LISTED) {
			more++;
			continue;
		}
		rc_strbuf__printf(&sb, "%s%s", shown ? ", " : "", name_of(btf, t));
		shown++;
	}
	if (btf__find_by_name_kind(btf, name, BTF_KIND_FWD) > 0)
		set_err(err, errlen, "struct %s is declared but not defined in the BTF", name);
	else if (!shown)
		set_err(err, errlen, "no struct %s: the BTF has no structs%s", name, not_in_btf);
	else if (more)
		set_err(err, errlen, "no struct %s: the BTF has %s and %u more%s", name, sb.buf,
			more, not_in_btf);
	else
		set_err(err, errlen, "no struct %s: the BTF has %s%s", name, sb.buf, not_in_btf);
	rc_strbuf__free(&sb);
	return -ENOENT;
}

int rc_btf__describe(const struct btf *btf, const char *type_name, uint16_t base,
		     uint16_t first_enum_id, struct rc_btf_desc *out, char *err, size_t errlen)
{
	struct desc d = {
		.btf = btf,
		.out = out,
		.base = base,
		.first_enum_id = first_enum_id,
		.err = err,
		.errlen = errlen,
	};
	const struct btf_type *t;
	int id, ret;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!btf || !type_name || !out || !first_enum_id) {
		set_err(err, errlen, "bad arguments (enum ids start at 1)");
		return -EINVAL;
	}
	id = find_struct(btf, type_name, err, errlen);
	if (id < 0)
		return id;
	t = btf__type_by_id(btf, id);
	d.struct_name = btf__name_by_offset(btf, t->name_off);
	if (!d.struct_name || !*d.struct_name) /* anonymous, through a typedef */
		d.struct_name = type_name;
	if ((uint64_t)base + t->size > RC_REC_MAX) {
		set_err(err, errlen,
			"struct %s of %u bytes after %u bytes of header ends at %llu: "
			"a record holds at most %d",
			d.struct_name, t->size, base, (unsigned long long)base + t->size,
			RC_REC_MAX);
		return -E2BIG;
	}
	out->size = t->size;
	ret = add_members(&d, t, "", 0, 0);
	free(d.enum_types);
	if (ret)
		rc_btf_desc__free(out);
	return ret;
}

void rc_btf_desc__free(struct rc_btf_desc *d)
{
	uint32_t i, j;

	if (!d)
		return;
	for (i = 0; i < d->nfields; i++)
		free((char *)d->fields[i].name);
	free(d->fields);
	for (i = 0; i < d->nenums; i++) {
		struct rc_enum *e = &d->enums[i];

		for (j = 0; j < e->cnt; j++)
			free((char *)e->entries[j].name);
		free((void *)e->entries);
		free((char *)e->name);
	}
	free(d->enums);
	memset(d, 0, sizeof(*d));
}
