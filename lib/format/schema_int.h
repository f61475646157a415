/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Building schemas inside the library: the capture engine adds enums, and
 * the header parser frees a schema it embeds. The public half is
 * format/schema.h (rc_schema__new(), rc_schema__add_event(),
 * rc_schema__free()).
 */
#ifndef RINGCAP_FORMAT_SCHEMA_INT_H
#define RINGCAP_FORMAT_SCHEMA_INT_H

#include "format/schema.h"

/**
 * rc_schema__add_enum() - add a deep copy of an enum to a schema
 * @s: a schema built by rc_schema__new(), or a zeroed one
 * @e: the enum; its name and entries are copied, @e is not kept
 *
 * On -ENOMEM part way the enum may be in @s with only some of its entries;
 * rc_schema__clear() or rc_schema__free() still frees all of it.
 *
 * Return: 0; -EEXIST when @s has an enum of @e's id (nothing added); or
 * -ENOMEM.
 */
int rc_schema__add_enum(struct rc_schema *s, const struct rc_enum *e);

/**
 * rc_schema__clear() - free what a schema holds, not the schema itself
 * @s: a schema whose events and enums were added by rc_schema__add_event()
 *     and rc_schema__add_enum() (or that is zeroed)
 *
 * For a schema embedded in another structure. @s is left zeroed: empty, and
 * fit to add to again.
 */
void rc_schema__clear(struct rc_schema *s);

#endif /* RINGCAP_FORMAT_SCHEMA_INT_H */
