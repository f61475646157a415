// SPDX-License-Identifier: GPL-2.0-only
/* A field's value, read once for every output (value.h): its names. */
#include "decode/value.h"

/* the nr of a 32-bit task's call, which the capture's syscall names do not name */
static bool compat_nr(const struct rc_field *f, const struct rc_rec_hdr *h)
{
	return h->type == RC_EV_SYSCALL && (h->flags & RC_SYSCALL_F_COMPAT) &&
	       f->offset == offsetof(struct rc_ev_syscall, nr);
}

void rc_value__names(const struct rc_schema *s, const struct rc_field *f, const void *rec,
		     struct rc_value *v)
{
	if (f->hint == RC_HINT_ENUM && f->kind != RC_FIELD_STR && !compat_nr(f, rec))
		v->name = rc_enum__name(rc_schema__enum(s, f->enum_id),
					f->kind == RC_FIELD_SINT ? v->s : (int64_t)v->u);
	else if (f->hint == RC_HINT_ERRNO && v->s < 0 && v->s >= -4095)
		v->err = rc_enum__name(rc_schema__enum(s, f->enum_id), -v->s);
}
