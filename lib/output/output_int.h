/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the output formats share (output.h): the output's state, its
 * buffer, and the sources the events come from. For lib/output/ only.
 */
#ifndef RINGCAP_OUTPUT_OUTPUT_INT_H
#define RINGCAP_OUTPUT_OUTPUT_INT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include "decode/decode.h"
#include "decode/profile.h"
#include "format/reader.h"
#include "format/schema.h"
#include "output/json.h"
#include "output/json_fields.h"
#include "output/output.h"
#include "util/strbuf.h"

/* Append a string literal, its length counted by the compiler. */
#define APPEND_LIT(sb, lit) rc_strbuf__put(sb, lit, sizeof(lit) - 1)

/* A capture file of the report: its header, stacks, host, and how its events are shown. */
struct rc_output_src {
	const struct rc_meta *m;
	const struct rc_reader *stacks;
	struct rc_json_fields *jf;
	const struct rc_event_desc **evs; /* [type]: rc_schema__event()'s, once */
	size_t nevs;
};

struct rc_output {
	const struct rc_output_ops *ops;
	FILE *f; /* where it all goes */
	struct rc_output_src *srcs;
	size_t nsrcs;
	bool hosts;		 /* files of several hosts: each event's host shown */
	uint32_t ncpus;		 /* the most CPUs of any file */
	const struct rc_meta *m; /* of the current source: the event being shown */
	size_t cur;		 /* ... and its index in srcs */
	unsigned int flags;
	struct rc_strbuf buf;
	void *state; /* the format's own: made by its begin, freed by its free */
	const struct rc_event_desc *snap; /* ringcap:snapshot, or NULL */
	struct rc_json_fields *jf;	  /* json, perfetto: the events' fields, nested */
	/* text --stacks, perfetto: the current source's stacks */
	const struct rc_reader *stacks;
	const struct rc_event_desc *stack_ev; /* "stack": the records -g adds after events' */
	struct rc_rec_hdr prev;		      /* the last record shown: a stack's event */
};

/* The event of a record of the current source, as rc_schema__event() finds it; NULL: none. */
static inline const struct rc_event_desc *rc_output__ev(const struct rc_output *o, uint16_t type)
{
	const struct rc_output_src *src = &o->srcs[o->cur];

	return type < src->nevs ? src->evs[type] : NULL;
}

/* Seconds from the start, with 9 decimals: exactly, from the integer ns. */
static inline void rc_output__put_seconds(struct rc_strbuf *sb, const struct rc_meta *m,
					  uint64_t ts)
{
	bool neg = ts < m->start_ts;
	uint64_t ns = neg ? m->start_ts - ts : ts - m->start_ts;

	if (neg)
		APPEND_LIT(sb, "-");
	rc_strbuf__put_u64(sb, ns / 1000000000);
	APPEND_LIT(sb, ".");
	rc_strbuf__put_u64_0(sb, ns % 1000000000, 9);
}

/* json, perfetto: each source's fields, nested (json_fields.h); 0 or -ENOMEM */
int rc_output__json_fields(struct rc_output *o);

#endif /* RINGCAP_OUTPUT_OUTPUT_INT_H */
