/* SPDX-License-Identifier: GPL-2.0-only */
/* What btfdesc.c (describing a struct) and btfset.c (setting a global) share. */
#ifndef RINGCAP_CAPTURE_BPF_BTF_INT_H
#define RINGCAP_CAPTURE_BPF_BTF_INT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "format/format.h"

#define MAX_DEPTH  32 /* nested structs and arrays; also bounds a malformed BTF's loops */
#define MAX_MODS   32 /* typedef/const/volatile in a row */
#define MAX_LISTED 8  /* names shown in an error message */
#define NAME_BUF   (RC_MAX_NAME + 1)
#define PTR_SIZE   8 /* BPF is 64-bit */
#define RODATA_SEC ".rodata"

__attribute__((format(printf, 3, 4))) static inline void set_err(char *err, size_t errlen,
								 const char *fmt, ...)
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
static inline const struct btf_type *resolve(const struct btf *btf, __u32 id, __u32 *res_id,
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

static inline const char *name_of(const struct btf *btf, const struct btf_type *t)
{
	const char *s = btf__name_by_offset(btf, t->name_off);

	return s ? s : "";
}

static inline bool is_int_size(__u32 size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* An int that is a whole integer of its size, not a bitfield encoded in the int. */
static inline bool is_plain_int(const struct btf_type *t)
{
	return btf_is_int(t) && !btf_int_offset(t) && btf_int_bits(t) == t->size * 8;
}

static inline bool is_bool(const struct btf *btf, const struct btf_type *t)
{
	return btf_is_int(t) &&
	       ((btf_int_encoding(t) & BTF_INT_BOOL) || !strcmp(name_of(btf, t), "_Bool"));
}

#endif /* RINGCAP_CAPTURE_BPF_BTF_INT_H */
