/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A user's BPF object as an event source: the BTF of the struct its program
 * emits turned into a ringcap event schema, and its const volatile globals
 * set from the command line (record --bpf, --event-type, --set).
 */
#ifndef RINGCAP_BTFDESC_H
#define RINGCAP_BTFDESC_H

#include <stddef.h>
#include <stdint.h>
#include "format/schema.h"

struct btf;
struct bpf_object;

struct rc_btf_desc {
	uint32_t size; /* sizeof the struct */
	uint16_t nfields;
	struct rc_field *fields; /* offsets: + base; names allocated */
	uint16_t nenums;
	/* ids first_enum_id, first_enum_id+1, ...; names and entries allocated */
	struct rc_enum *enums;
};

/**
 * rc_btf__describe() - describe a struct of @btf as the fields of an event
 * @btf: the BTF holding the struct (a BPF object's, or one built in memory)
 * @type_name: "NAME", "struct NAME", or a typedef of a struct
 * @base: added to every offset: the bytes in front of the struct in a record
 * @first_enum_id: the id of the first enum made; the others follow (>= 1)
 * @out: filled on success; zeroed on failure. Free with rc_btf_desc__free().
 * @err: the reason for a failure, or NULL
 * @errlen: the size of @err
 *
 * Members are flattened: a nested struct's as "outer.inner", an array of
 * structs' as "arr[0].x", "arr[1].x"; anonymous struct and union members
 * without a prefix (a union's members overlap). An array of scalars is one
 * field with count N (a multi-dimensional one too, N*M). A char array is a
 * string (a char[N][M], N strings "s[0]".. of M bytes); an array of a
 * typedef'd byte (__u8, uint8_t) is an integer array: those hold bytes,
 * not text. Signed integers are SINT, unsigned and bool UINT, pointers UINT
 * shown in hex, enums SINT or UINT (the BTF enum's signedness) named by an
 * rc_enum made once per BTF enum type. A bitfield that happens to be a whole
 * aligned byte, u16, u32 or u64 is that integer; other bitfields that
 * share bytes become one hex byte array of those bytes, named "a|b|c" (or
 * "a|...|z" past 255 bytes); unnamed bitfields are padding. A named union,
 * a float and an integer of another size are hex byte arrays named as the
 * member. Zero-length arrays have no field.
 *
 * Return: 0; -ENOENT when @btf has no such struct (@err names a few it
 * has); -E2BIG for more than RC_MAX_FIELDS (256) fields, more enums than
 * fit, or a struct that ends beyond RC_REC_MAX once @base is added;
 * -ENAMETOOLONG for a flattened name longer than 255 bytes; -EINVAL for
 * bad arguments or malformed BTF; -ENOMEM.
 */
int rc_btf__describe(const struct btf *btf, const char *type_name, uint16_t base,
		     uint16_t first_enum_id, struct rc_btf_desc *out, char *err, size_t errlen);

/* Free what rc_btf__describe() allocated and zero @d; NULL is fine. */
void rc_btf_desc__free(struct rc_btf_desc *d);

/**
 * rc_btf__set_global() - set a const volatile global of an opened object
 * @obj: opened, not loaded
 * @assignment: "NAME=VALUE"
 * @err: the reason for a failure, or NULL
 * @errlen: the size of @err
 *
 * NAME is a const volatile global (or static) of the object's .rodata, found
 * through its BTF. VALUE is read by NAME's type: an integer in decimal or 0x
 * hex, negative only for a signed one, that must fit its size; a bool as
 * true, false, 1 or 0; an enum as an enumerator's name or a number; a char
 * array as a string that fits with its NUL (the rest is zeroed).
 *
 * Return: 0; -ENOENT for a NAME that is no global of the object (@err lists
 * the ones that can be set); -EINVAL for a VALUE that does not parse or fit
 * (@err names the type expected), a global that is not const volatile
 * (in .data or .bss, or const but not volatile), or a type that cannot be
 * set (struct, pointer, float); -EBUSY once the object is loaded; -ENOMEM.
 */
int rc_btf__set_global(struct bpf_object *obj, const char *assignment, char *err, size_t errlen);

#endif /* RINGCAP_BTFDESC_H */
