/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The event output formats, all decoded from the schema in the capture,
 * each behind one table of operations (struct rc_output_ops):
 *
 * text      perf-script-like lines (rc_decode__text(), text.c)
 * json      JSON Lines: {"time", "ts", "cpu", "pid", "tid", "comm", "event",
 *           "fields": {...}}; enum values by name, errno values as numbers
 *           with "<field>_errno" beside them, durations in ns; a struct's
 *           fields nested as it was (json_fields.c; jsonl.c)
 * csv       a header row: the record's columns, then every field of every
 *           event of the schema; a record fills the columns of its event
 *           (csv.c)
 * perfetto  Perfetto's own protobuf trace: compact sched per CPU, thread
 *           tracks with syscall slices, instants, callstack samples, the
 *           drops as a counter; a machine per host (perfetto_pb.c)
 * perfetto-json  Chrome trace-event JSON (ui.perfetto.dev opens it): a track
 *           per CPU with the thread running from sched_switch, syscalls as
 *           slices on their threads' tracks, fork/exec/exit as instants, and
 *           names (perfetto.c)
 *
 * An output writes to the FILE * it is given, buffered, and never prints
 * anywhere else.
 */
#ifndef RINGCAP_OUTPUT_OUTPUT_H
#define RINGCAP_OUTPUT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "format/records.h"
#include "format/meta.h"
#include "format/reader.h"

struct rc_output;

/**
 * struct rc_output_ops - an output format
 * @name: its name, as report's --format takes it
 * @begin: before the first event: what the format writes first (a header
 *         row, a document's opening) and the state it keeps; 0 or -errno.
 *         NULL: nothing
 * @event: one event (never a "stack" record), into the output's buffer
 * @end: after the last event: what the format writes last; NULL: nothing
 * @stack: optional: a "stack" record (record -g) of the event before it,
 *         when the stacks are known; @paired: it follows its event
 * @free: optional: frees the state @begin made, also when @begin failed
 *        part way; NULL: none
 *
 * rc_output__new() calls @begin, rc_output__event() @event or @stack,
 * rc_output__end() @end, rc_output__free() @free; a format fills one and
 * knows no other's. A format keeps its state in the output it is given,
 * never in statics: outputs run at once in several threads.
 */
struct rc_output_ops {
	const char *name;
	int (*begin)(struct rc_output *o);
	void (*event)(struct rc_output *o, const struct rc_rec_hdr *rec);
	void (*end)(struct rc_output *o);
	void (*stack)(struct rc_output *o, const struct rc_rec_hdr *rec, bool paired);
	void (*free)(struct rc_output *o);
};

extern const struct rc_output_ops rc_output_text;
extern const struct rc_output_ops rc_output_json;
extern const struct rc_output_ops rc_output_csv;
extern const struct rc_output_ops rc_output_perfetto;
extern const struct rc_output_ops rc_output_perfetto_json; /* Chrome JSON (perfetto.c) */
extern const struct rc_output_ops rc_output_perf_script; /* perf script's text (perfscript.c) */

/**
 * rc_output__new() - an output of events to a file
 * @ops: the format: &rc_output_text, &rc_output_json, &rc_output_csv or
 *       &rc_output_perfetto
 * @out: where to write, buffered (stdout for report)
 * @ms: the headers of @n files (sources), each decoding its events; its
 *      start_ts is where times count from
 * @n: the number of sources, at least one
 * @flags: RC_FMT_WALL (decode/decode.h)
 * @hosts: show each event's host (a column of text and CSV, a field of JSON)
 *
 * Return: the output, to free with rc_output__free(); NULL with errno set
 * (ENOMEM) on failure.
 */
struct rc_output *rc_output__new(const struct rc_output_ops *ops, FILE *out,
				 const struct rc_meta *const *ms, size_t n, unsigned int flags,
				 bool hosts);

/**
 * rc_output__event() - output an event
 * @o: the output
 * @src: the source (file) it is from
 * @rec: the record
 *
 * Return: 0, or -EIO when writing failed (ferror() on the file says why).
 */
int rc_output__event(struct rc_output *o, size_t src, const struct rc_rec_hdr *rec);

/**
 * rc_output__set_stacks() - the stacks of a source, by their ids
 * @o: the output
 * @src: the source
 * @r: its reader, which holds the stacks' definitions
 *
 * Text shows each sample's stack under it; Perfetto names a sample by its
 * stack. Without, neither does.
 */
void rc_output__set_stacks(struct rc_output *o, size_t src, const struct rc_reader *r);

/**
 * rc_output__end() - end the output: what its format writes last
 * @o: the output
 *
 * Return: 0, or -EIO when writing failed.
 */
int rc_output__end(struct rc_output *o);

/**
 * rc_output__flush() - write what is held, and the file's buffer
 * @o: the output
 *
 * Before the input is read again (a live pipe).
 *
 * Return: 0, or -EIO when writing failed.
 */
int rc_output__flush(struct rc_output *o);

/**
 * rc_output__free() - free an output
 * @o: the output, or NULL
 */
void rc_output__free(struct rc_output *o);

#endif /* RINGCAP_OUTPUT_OUTPUT_H */
