// SPDX-License-Identifier: GPL-2.0-only
/* A field's value, read once for every output (value.h): its names. */
#include "decode/value.h"

void rc_value__names(const struct rc_schema *s, const struct rc_field *f, struct rc_value *v)
{
	if (f->hint == RC_HINT_ENUM && f->kind != RC_FIELD_STR)
		v->name = rc_enum__name(rc_schema__enum(s, f->enum_id),
					f->kind == RC_FIELD_SINT ? v->s : (int64_t)v->u);
	else if (f->hint == RC_HINT_ERRNO && v->s < 0 && v->s >= -4095)
		v->err = rc_enum__name(rc_schema__enum(s, f->enum_id), -v->s);
}
