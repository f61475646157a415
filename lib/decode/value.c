// SPDX-License-Identifier: GPL-2.0-only
/* A field's value, read once for every output (value.h). */
#include "decode/value.h"

void rc_field__value(const struct rc_schema *s, const struct rc_field *f, const void *rec,
		     unsigned int idx, struct rc_value *v)
{
	*v = (struct rc_value){ .kind = f->kind };
	if (f->kind == RC_FIELD_STR) {
		v->str = (const char *)rec + f->offset;
		v->len = f->size;
		if (f->hint != RC_HINT_ERRNO) /* what a schema can say of a string */
			return;
	}
	v->u = rc_field__u64(f, rec, idx);
	v->s = rc_field__s64(f, rec, idx);
	if (f->hint == RC_HINT_ENUM && f->kind != RC_FIELD_STR)
		v->name = rc_enum__name(rc_schema__enum(s, f->enum_id),
					f->kind == RC_FIELD_SINT ? v->s : (int64_t)v->u);
	else if (f->hint == RC_HINT_ERRNO && v->s < 0 && v->s >= -4095)
		v->err = rc_enum__name(rc_schema__enum(s, f->enum_id), -v->s);
}
