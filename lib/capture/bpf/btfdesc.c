// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BTF of a user's event struct as a ringcap event schema, and the
 * user's const volatile knobs set through the object's BTF (btfdesc.h).
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
#include "internal.h"
#include "util/mem.h"

#define MAX_DEPTH  32 /* nested structs and arrays; also bounds a malformed BTF's loops */
#define MAX_MODS   32 /* typedef/const/volatile in a row */
#define MAX_LISTED 8  /* names shown in an error message */
#define NAME_BUF   (RC_MAX_NAME + 1)
#define PTR_SIZE   8 /* BPF is 64-bit */
#define RODATA_SEC ".rodata"

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen, const char *fmt,
							  ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * The type @id is after typedefs and modifiers (const, volatile, restrict,
 * type tags), or NULL. @res_id: its id; @tdname: the last typedef's name,
 * if any; @is_volatile: a volatile was on the way.
 */
static const struct btf_type *resolve(const struct btf *btf, __u32 id, __u32 *res_id,
				      const char **tdname, bool *is_volatile)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int i;

	for (i = 0; t && i < MAX_MODS && (btf_is_mod(t) || btf_is_typedef(t)); i++) {
		if (btf_is_typedef(t) && tdname)
			*tdname = btf__name_by_offset(btf, t->name_off);
		if (btf_is_volatile(t) && is_volatile)
			*is_volatile = true;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t || btf_is_mod(t) || btf_is_typedef(t))
		return NULL;
	if (res_id)
		*res_id = id;
	return t;
}

static const char *name_of(const struct btf *btf, const struct btf_type *t)
{
	const char *s = btf__name_by_offset(btf, t->name_off);

	return s ? s : "";
}

static bool is_int_size(__u32 size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* An int that is a whole integer of its size, not a bitfield encoded in the int. */
static bool is_plain_int(const struct btf_type *t)
{
	return btf_is_int(t) && !btf_int_offset(t) && btf_int_bits(t) == t->size * 8;
}

static bool is_bool(const struct btf *btf, const struct btf_type *t)
{
	return btf_is_int(t) &&
	       ((btf_int_encoding(t) & BTF_INT_BOOL) || !strcmp(name_of(btf, t), "_Bool"));
}

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

/* ---- setting a global ------------------------------------------------- */

/* A variable of the object's BTF, and the section it is in. */
struct global {
	const char *sec;
	const struct btf_var_secinfo *vsi;
	const struct btf_type *type; /* resolved */
	__u32 type_id;
	const char *tdname;
	bool is_volatile;
};

/* Volatile anywhere on the way to a scalar (an array's elements carry it). */
static bool var_is_volatile(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;
	bool vol = false;
	int i;

	for (i = 0; i < MAX_DEPTH; i++) {
		t = resolve(btf, id, NULL, NULL, &vol);
		if (vol || !t || !btf_is_array(t))
			return vol;
		id = btf_array(t)->type;
	}
	return false;
}

static bool is_rodata(const char *sec)
{
	return !strcmp(sec, RODATA_SEC);
}

/* Find the global @name: in .rodata first, else in any section. 0 or -ENOENT. */
static int find_global(const struct btf *btf, const char *name, struct global *g)
{
	__u32 i, j, n = btf__type_cnt(btf);
	bool found = false;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_var_secinfo *vsi;
		const char *sec;

		if (!btf_is_datasec(t))
			continue;
		sec = name_of(btf, t);
		vsi = btf_var_secinfos(t);
		for (j = 0; j < btf_vlen(t); j++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[j].type);

			if (!v || !btf_is_var(v) || strcmp(name_of(btf, v), name))
				continue;
			if (found && !is_rodata(sec))
				continue;
			g->sec = sec;
			g->vsi = &vsi[j];
			g->type_id = v->type;
			found = true;
			if (is_rodata(sec))
				goto out;
		}
	}
	if (!found)
		return -ENOENT;
out:
	g->tdname = NULL;
	g->is_volatile = var_is_volatile(btf, g->type_id);
	g->type = resolve(btf, g->type_id, &g->type_id, &g->tdname, NULL);
	return 0;
}

/* The globals that can be set, "a, b, c", into @sb; returns how many. */
static unsigned int list_settable(const struct btf *btf, struct rc_strbuf *sb)
{
	__u32 i, j, n = btf__type_cnt(btf);
	unsigned int shown = 0;

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_var_secinfo *vsi;

		if (!btf_is_datasec(t) || !is_rodata(name_of(btf, t)))
			continue;
		vsi = btf_var_secinfos(t);
		for (j = 0; j < btf_vlen(t); j++) {
			const struct btf_type *v = btf__type_by_id(btf, vsi[j].type);

			if (!v || !btf_is_var(v) || !var_is_volatile(btf, v->type))
				continue;
			rc_strbuf__printf(sb, "%s%s", shown++ ? ", " : "", name_of(btf, v));
		}
	}
	return shown;
}

/* "u8", "s32", "bool", "enum level", "16-element array": a type, in a message. */
static void type_desc(const struct btf *btf, const struct global *g, char *buf, size_t len)
{
	const struct btf_type *t = g->type;
	const char *nm = name_of(btf, t);

	if (is_bool(btf, t))
		snprintf(buf, len, "bool");
	else if (btf_is_int(t))
		snprintf(buf, len, "%c%u", (btf_int_encoding(t) & BTF_INT_SIGNED) ? 's' : 'u',
			 t->size * 8);
	else if (btf_is_any_enum(t))
		snprintf(buf, len, "enum %s", *nm ? nm : g->tdname ? g->tdname : "(anonymous)");
	else if (btf_is_array(t))
		snprintf(buf, len, "%u-element array", btf_array(t)->nelems);
	else if (btf_is_ptr(t))
		snprintf(buf, len, "pointer");
	else if (btf_is_struct(t))
		snprintf(buf, len, "struct %s", nm);
	else if (btf_is_union(t))
		snprintf(buf, len, "union %s", nm);
	else if (btf_is_float(t))
		snprintf(buf, len, "float");
	else
		snprintf(buf, len, "kind %u", btf_kind(t));
}

/*
 * Parse @s as an integer for @size bytes: decimal or 0x hex, '-' allowed.
 * @lo_signed: the range is that of a signed type (else unsigned); @both:
 * either range (an enum: C leaves its signedness to the compiler).
 */
static int parse_int(const char *s, __u32 size, bool lo_signed, bool both, uint64_t *out,
		     const char *name, const char *tdesc, char *err, size_t errlen)
{
	unsigned int bits = size * 8;
	uint64_t umax = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	uint64_t smax = umax >> 1, v;
	bool neg = *s == '-';
	const char *p = s + neg;
	char *end;
	int base = 10;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
		goto invalid;
	errno = 0;
	v = strtoull(p, &end, base);
	if (*end)
		goto invalid;
	if (errno == ERANGE)
		goto range;
	if (neg) {
		if ((!lo_signed && !both && v) || v > smax + 1)
			goto range;
		*out = -v;
	} else {
		if (v > (lo_signed && !both ? smax : umax))
			goto range;
		*out = v;
	}
	return 0;

invalid:
	set_err(err, errlen, "'%s' is not a number for %s (%s: decimal or 0x hex%s)", s, name,
		tdesc, lo_signed || both ? ", '-' for negative" : "");
	return -EINVAL;
range:
	if (both)
		set_err(err, errlen, "%s does not fit in %s (%s of %u bytes: %lld to %llu)", s,
			name, tdesc, size, -(long long)smax - 1, (unsigned long long)umax);
	else if (lo_signed)
		set_err(err, errlen, "%s does not fit in %s (%s: %lld to %lld)", s, name, tdesc,
			-(long long)smax - 1, (long long)smax);
	else
		set_err(err, errlen, "%s does not fit in %s (%s: 0 to %llu)", s, name, tdesc,
			(unsigned long long)umax);
	return -EINVAL;
}

static int parse_enum(const struct btf *btf, const struct global *g, const char *s,
		      const char *name, const char *tdesc, uint64_t *out, char *err, size_t errlen)
{
	const struct btf_type *t = g->type;
	struct rc_strbuf sb = {};
	__u16 i, n = btf_vlen(t);

	for (i = 0; i < n; i++) {
		if (btf_is_enum64(t)) {
			const struct btf_enum64 *ev = btf_enum64(t) + i;

			if (!strcmp(btf__name_by_offset(btf, ((const __u32 *)ev)[0]), s)) {
				*out = btf_enum64_value(ev);
				return 0;
			}
		} else if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), s)) {
			*out = (uint64_t)(int64_t)btf_enum(t)[i].val;
			return 0;
		}
	}
	if (isdigit((unsigned char)*s) || (*s == '-' && isdigit((unsigned char)s[1])))
		return parse_int(s, t->size, false, true, out, name, tdesc, err, errlen);
	for (i = 0; i < n && i < 16; i++) {
		__u32 off = btf_is_enum64(t) ? ((const __u32 *)(btf_enum64(t) + i))[0]
					     : btf_enum(t)[i].name_off;

		rc_strbuf__printf(&sb, "%s%s", i ? ", " : "", btf__name_by_offset(btf, off));
	}
	set_err(err, errlen, "'%s' is not a value of %s (%s): expected %s%s or a number", s, name,
		tdesc, sb.buf ? sb.buf : "", n > 16 ? ", ..." : "");
	rc_strbuf__free(&sb);
	return -EINVAL;
}

/* The internal map of the object's .rodata. */
static struct bpf_map *rodata_map(struct bpf_object *obj)
{
	size_t sfx = strlen(RODATA_SEC);
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
	{
		const char *nm = bpf_map__name(map);
		size_t len = nm ? strlen(nm) : 0;

		if (bpf_map__is_internal(map) && len >= sfx && !strcmp(nm + len - sfx, RODATA_SEC))
			return map;
	}
	return NULL;
}

/* Parse @value for global @g into @buf (@g->vsi->size bytes). */
static int parse_value(const struct btf *btf, const struct global *g, const char *name,
		       const char *value, unsigned char *buf, char *err, size_t errlen)
{
	const struct btf_type *t = g->type;
	__u32 size = g->vsi->size;
	uint64_t v = 0;
	char tdesc[128];
	int ret;

	type_desc(btf, g, tdesc, sizeof(tdesc));
	if (is_bool(btf, t) && is_int_size(size)) {
		if (!strcasecmp(value, "true") || !strcmp(value, "1"))
			v = 1;
		else if (strcasecmp(value, "false") && strcmp(value, "0")) {
			set_err(err, errlen, "'%s' is not a bool: %s takes true, false, 1 or 0",
				value, name);
			return -EINVAL;
		}
	} else if (btf_is_int(t) && is_plain_int(t) && is_int_size(size) && size == t->size) {
		ret = parse_int(value, size, btf_int_encoding(t) & BTF_INT_SIGNED, false, &v, name,
				tdesc, err, errlen);
		if (ret)
			return ret;
	} else if (btf_is_any_enum(t) && is_int_size(size) && size == t->size) {
		ret = parse_enum(btf, g, value, name, tdesc, &v, err, errlen);
		if (ret)
			return ret;
	} else if (btf_is_array(t)) {
		const struct btf_type *et = resolve(btf, btf_array(t)->type, NULL, NULL, NULL);
		size_t len = strlen(value);

		if (!et || !btf_is_int(et) || et->size != 1 || is_bool(btf, et) ||
		    btf_array(t)->nelems != size)
			goto unsupported;
		if (len + 1 > size) {
			set_err(err, errlen,
				"'%s' is %zu bytes: %s (char[%u]) holds a string of at most %u "
				"and its NUL",
				value, len, name, size, size - 1);
			return -EINVAL;
		}
		memset(buf, 0, size);
		memcpy(buf, value, len);
		return 0;
	} else {
		goto unsupported;
	}
	memcpy(buf, &v, size); /* little-endian (internal.h): the low bytes */
	return 0;

unsupported:
	set_err(err, errlen,
		"%s (%s) cannot be set: only integers, bools, enums and char arrays can", name,
		tdesc);
	return -EINVAL;
}

int rc_btf__set_global(struct bpf_object *obj, const char *assignment, char *err, size_t errlen)
{
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	unsigned char *val = NULL, *data = NULL;
	struct rc_strbuf sb = {};
	struct global g = {};
	struct bpf_map *map;
	const void *init;
	struct btf *btf;
	char *name;
	size_t sz;
	int ret;

	if (!obj || !eq || eq == assignment) {
		set_err(err, errlen, "'%s': expected NAME=VALUE", assignment ? assignment : "");
		return -EINVAL;
	}
	name = strndup(assignment, eq - assignment);
	if (!name)
		return -ENOMEM;
	btf = bpf_object__btf(obj);
	if (!btf) {
		set_err(err, errlen,
			"cannot set %s: the object has no BTF (build it with clang -g)", name);
		ret = -ENOENT;
		goto out;
	}
	ret = find_global(btf, name, &g);
	if (ret) {
		if (list_settable(btf, &sb))
			set_err(err, errlen,
				"no global %s in the object; const volatile globals: %s", name,
				sb.buf);
		else
			set_err(err, errlen,
				"no global %s in the object, which has no const volatile globals",
				name);
		goto out;
	}
	if (!strncmp(g.sec, RODATA_SEC ".", strlen(RODATA_SEC) + 1)) {
		set_err(err, errlen, "%s is in section %s: only globals of .rodata can be set",
			name, g.sec);
		ret = -EINVAL;
		goto out;
	}
	if (!is_rodata(g.sec)) {
		set_err(err, errlen,
			"%s is a global in %s, not a const volatile one: only those (in .rodata) "
			"can be set",
			name, g.sec);
		ret = -EINVAL;
		goto out;
	}
	if (!g.is_volatile) {
		set_err(err, errlen,
			"%s is const but not volatile: the compiler may have used its value "
			"already; declare it const volatile",
			name);
		ret = -EINVAL;
		goto out;
	}
	if (!g.type) {
		set_err(err, errlen, "%s: malformed BTF type", name);
		ret = -EINVAL;
		goto out;
	}
	map = rodata_map(obj);
	/* loaded: the map exists, its memory is read-only, the programs have the old value */
	if (map && bpf_map__fd(map) >= 0) {
		set_err(err, errlen, "cannot set %s: the object is loaded already", name);
		ret = -EBUSY;
		goto out;
	}
	init = map ? bpf_map__initial_value(map, &sz) : NULL;
	if (!init || (uint64_t)g.vsi->offset + g.vsi->size > sz) {
		set_err(err, errlen, "cannot set %s: the object's .rodata map is missing or short",
			name);
		ret = -ENOENT;
		goto out;
	}
	val = malloc(g.vsi->size ? g.vsi->size : 1);
	data = malloc(sz);
	if (!val || !data) {
		ret = -ENOMEM;
		goto out;
	}
	ret = parse_value(btf, &g, name, eq + 1, val, err, errlen);
	if (ret)
		goto out;
	/* through libbpf, which refuses what it cannot take, rather than into its memory */
	memcpy(data, init, sz);
	memcpy(data + g.vsi->offset, val, g.vsi->size);
	ret = bpf_map__set_initial_value(map, data, sz);
	if (ret) {
		set_err(err, errlen, "cannot set %s: %s", name, strerror(-ret));
		goto out;
	}
	pr_debug("btf: set %s (%u bytes at .rodata+%u) to %s\n", name, g.vsi->size, g.vsi->offset,
		 eq + 1);
out:
	rc_strbuf__free(&sb);
	free(data);
	free(val);
	free(name);
	return ret;
}
