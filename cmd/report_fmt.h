/* SPDX-License-Identifier: GPL-2.0-only */
/* report's output formats: text, JSON Lines, CSV, and a Perfetto timeline. */
#ifndef RINGCAP_REPORT_FMT_H
#define RINGCAP_REPORT_FMT_H

#include "ringcap.h"

enum report_format {
	FMT_TEXT,
	FMT_JSON,
	FMT_CSV,
	FMT_PERFETTO,
};

struct report_out;

/*
 * Output to stdout, buffered, of the events of @n files (sources), each
 * decoded with its header @ms[i] (whose start_ts is where times count
 * from); @flags: RC_FMT_WALL; @hosts: show each event's host (a column of
 * text and CSV, a field of JSON).
 */
struct report_out *report_out__new(enum report_format fmt, const struct rc_meta *const *ms,
				   size_t n, unsigned int flags, bool hosts);
/* An event of source @src. 0, or -EIO when stdout failed (main says why). */
int report_out__event(struct report_out *o, size_t src, const struct rc_rec_hdr *rec);
/* text: print each sample's stack under it, from @r's definitions, for source @src. */
void report_out__set_stacks(struct report_out *o, size_t src, const struct rc_reader *r);
int report_out__end(struct report_out *o);
/* Write what is held, and stdout's buffer: before the input is read again (a live pipe). */
int report_out__flush(struct report_out *o);
void report_out__free(struct report_out *o);

#endif
