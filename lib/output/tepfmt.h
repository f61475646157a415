/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tracepoint record's text as the kernel's print format makes it, by
 * libtraceevent (report --format perf-script, lib/output/perfscript.c).
 * For lib/output/ only.
 *
 * A capture keeps each tracepoint's format file as the event's "format"
 * note, and its records carry the kernel's raw record (common fields
 * first) after ringcap's record header, on every transport: the BPF
 * programs copy it (bpf/dyn.bpf.c), the ftrace transport stores the
 * kernel's own. Built without libtraceevent (HAVE_LIBTRACEEVENT unset),
 * nothing is rendered here and the caller shows field=value.
 */
#ifndef RINGCAP_OUTPUT_TEPFMT_H
#define RINGCAP_OUTPUT_TEPFMT_H

#include <stdbool.h>
#include <stddef.h>
#include "format/meta.h"
#include "format/records.h"
#include "format/schema.h"
#include "util/strbuf.h"

struct rc_tepfmt;

/**
 * rc_tepfmt__new() - the print-format state of one output
 * @nsrcs: the output's sources (files): each has its own events and ids
 *
 * Return: the state, to free with rc_tepfmt__free(); NULL on -ENOMEM or
 * when built without libtraceevent (the caller then shows field=value).
 */
struct rc_tepfmt *rc_tepfmt__new(size_t nsrcs);

/**
 * rc_tepfmt__render() - append a record's text by its print format
 * @t: from rc_tepfmt__new(), or NULL
 * @src: the record's source, below the count given to rc_tepfmt__new()
 * @m: that source's header: its "format" notes and boot id
 * @ev: the record's event
 * @rec: the record, of @ev; its size bounds everything read
 * @sb: where the text goes
 *
 * The event's format is parsed once, at its first record. Nothing is
 * appended when the event has no format note, libtraceevent cannot parse
 * it, its print format reads bytes it could not be kept from reading past
 * the record (a length taken from a field), or the record does not hold
 * its fields (a location outside the record, a common_type of another
 * event). Kernel functions (%ps) are named from /proc/kallsyms when the
 * capture was recorded in this boot, else shown as addresses.
 *
 * Return: true when the text was appended.
 */
bool rc_tepfmt__render(struct rc_tepfmt *t, size_t src, const struct rc_meta *m,
		       const struct rc_event_desc *ev, const struct rc_rec_hdr *rec,
		       struct rc_strbuf *sb);

/* Free @t and what it holds; NULL is fine. */
void rc_tepfmt__free(struct rc_tepfmt *t);

#endif /* RINGCAP_OUTPUT_TEPFMT_H */
