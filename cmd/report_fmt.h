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

/* Output to stdout, buffered; @flags: RC_FMT_WALL. */
struct report_out *report_out__new(enum report_format fmt, const struct rc_meta *m,
				   unsigned int flags);
/* 0, or -EIO when stdout failed (main says why). */
int report_out__event(struct report_out *o, const struct rc_rec_hdr *rec);
/* text: print each sample's stack under it, from @r's definitions. */
void report_out__set_stacks(struct report_out *o, const struct rc_reader *r);
int report_out__end(struct report_out *o);
void report_out__free(struct report_out *o);

#endif
