/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A record's fields as a JSON object, nested as the struct they came from
 * was: the fields "inner.a" and "inner.b" are "inner": {"a": 1, "b": 2}, and
 * "arr[0].x", "arr[1].x" are "arr": [{"x": 1}, {"x": 2}], as bpftool prints
 * a struct. What the names do not nest cleanly stays flat.
 */
#ifndef RINGCAP_OUTPUT_JSON_FIELDS_H
#define RINGCAP_OUTPUT_JSON_FIELDS_H

#include "format/schema.h"
#include "util/strbuf.h"

struct rc_json_fields;

/**
 * rc_json_fields__new() - the nested layout of every event of a schema
 * @s: the schema, which must outlive the layout
 *
 * Return: the layout, to free with rc_json_fields__free(); NULL with errno
 * ENOMEM.
 */
struct rc_json_fields *rc_json_fields__new(const struct rc_schema *s);

/**
 * rc_json_fields__put() - a record's fields as a JSON object
 * @jf: the layout of the record's schema
 * @sb: appended to
 * @ev: the record's event in the schema
 * @rec: the record
 */
void rc_json_fields__put(const struct rc_json_fields *jf, struct rc_strbuf *sb,
			 const struct rc_event_desc *ev, const struct rc_rec_hdr *rec);

/**
 * rc_json_fields__name() - an event's name as a JSON string, escaped once
 * @jf: the layout of the event's schema
 * @ev: the event in the schema
 * @len: set: the string's length, quotes included
 *
 * Return: the quoted, escaped name, as rc_json__escape() writes it.
 */
const char *rc_json_fields__name(const struct rc_json_fields *jf, const struct rc_event_desc *ev,
				 size_t *len);

/**
 * rc_json_fields__free() - free a layout
 * @jf: the layout, or NULL
 */
void rc_json_fields__free(struct rc_json_fields *jf);

#endif /* RINGCAP_OUTPUT_JSON_FIELDS_H */
