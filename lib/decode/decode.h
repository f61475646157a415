/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Records decoded into text (lib/decode/decode.c).
 */
#ifndef RINGCAP_DECODE_DECODE_H
#define RINGCAP_DECODE_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include "format/meta.h"
#include "util/strbuf.h"

#define RC_FMT_WALL 0x1 /* wall-clock time instead of seconds from start */

/**
 * rc_meta__wall_ns() - a capture time on the wall clock
 * @m: the capture's meta (its wall_offset_ns is the file's, any value)
 * @ts: a time of the capture's clock
 * @wall: set: ns since the epoch
 *
 * Return: false when @ts and the offset give no time from the epoch on
 * (negative, or past INT64_MAX ns), with no overflow computing it.
 */
bool rc_meta__wall_ns(const struct rc_meta *m, uint64_t ts, int64_t *wall);

/**
 * rc_meta__from_wall_ns() - a wall-clock time as a time of the capture's clock
 * @m: the capture's meta
 * @wall: ns since the epoch
 * @ts: set: the capture's time (0 for a time before its clock's start)
 *
 * Return: false when the file's offset puts it out of range.
 */
bool rc_meta__from_wall_ns(const struct rc_meta *m, int64_t wall, uint64_t *ts);

/**
 * rc_decode__text() - a record as one perf-script-like line
 * @sb: the line is appended here, without newline
 * @m: the capture's header: its schema and start time
 * @rec: the record, as rc_reader__next() handed it out (checked)
 * @flags: RC_FMT_WALL: the local wall-clock time, not seconds from
 *	@m->start_ts
 *
 * "COMM PID/TID [CPU] TIME: EVENT: FIELD=VALUE ...", each field as
 * rc_decode__field() puts it; unprintable bytes of the comm show as '?',
 * and a pid, tid or CPU the event's records do not know (RC_EVENT_NO_*)
 * as "-". An event the schema lacks is named "unknown", without fields.
 *
 * Return: 0, or -ENOMEM (part of the line may be in @sb).
 */
int rc_decode__text(struct rc_strbuf *sb, const struct rc_meta *m, const struct rc_rec_hdr *rec,
		    unsigned int flags);

/**
 * rc_decode__event_text() - rc_decode__text() of a record whose event is known
 * @sb: the line is appended here, without newline
 * @m: the capture's header
 * @ev: @rec's event in @m's schema (rc_schema__event()), or NULL: "unknown"
 * @rec: the record
 * @flags: as rc_decode__text()'s
 *
 * For a caller that looks events up once, not a search a record.
 *
 * Return: 0, or -ENOMEM.
 */
int rc_decode__event_text(struct rc_strbuf *sb, const struct rc_meta *m,
			  const struct rc_event_desc *ev, const struct rc_rec_hdr *rec,
			  unsigned int flags);

/**
 * rc_decode__field() - a field of a record, as text
 * @sb: the text is appended here
 * @s: the schema, for the names of enum values
 * @f: a field of @rec's event
 * @rec: the record (a struct rc_rec_hdr), checked as for rc_field__u64()
 *
 * A value named by its enum (RC_HINT_ENUM, or -ENAME for RC_HINT_ERRNO)
 * prints as its name; hex, durations with their unit, strings with
 * unprintable bytes as \xNN, arrays as [a,b]. A DATA_LOC or REL_LOC field
 * whose location is outside the record prints as "<bad location>".
 *
 * Return: 0, or -ENOMEM.
 */
int rc_decode__field(struct rc_strbuf *sb, const struct rc_schema *s, const struct rc_field *f,
		     const void *rec);

#endif /* RINGCAP_DECODE_DECODE_H */
