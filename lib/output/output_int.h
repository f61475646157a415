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
#define APPEND_LIT(sb, lit) rc_strbuf__append(sb, lit, sizeof(lit) - 1)

struct rc_output_thread_name {
	uint64_t key; /* tid + 1; 0: empty */
	char comm[16];
};

struct rc_output_cpu {
	uint64_t since; /* 0: nothing known to run */
	uint32_t pid, tid;
	char comm[16];
};

/* A capture file of the report: its header, stacks, host, and how its events are shown. */
struct rc_output_src {
	const struct rc_meta *m;
	const struct rc_reader *stacks;
	struct rc_json_fields *jf;
	uint32_t **colmap;
};

struct rc_output {
	const struct rc_output_ops *ops;
	FILE *f; /* where it all goes */
	struct rc_output_src *srcs;
	size_t nsrcs;
	bool hosts;		 /* files of several hosts: each event's host shown */
	uint32_t ncpus;		 /* the most CPUs of any file */
	size_t ncsvfixed;	 /* csv: the columns before the fields */
	const struct rc_meta *m; /* of the current source: the event being shown */
	unsigned int flags;
	struct rc_strbuf buf;
	bool first;
	const struct rc_event_desc *snap; /* ringcap:snapshot, or NULL */
	struct rc_json_fields *jf;	  /* json, perfetto: the events' fields, nested */
	/* csv: the union of field names, and each event's column for each field */
	const char **cols;
	size_t ncols;
	uint32_t **colmap; /* [event index][field] -> column, or CSV_NO_COLUMN */
	/* perfetto */
	struct rc_output_cpu *cpus;
	uint64_t last_ts;
	struct rc_output_thread_name *names;
	size_t names_cap, names_used;
	/* text --stacks, perfetto: the current source's stacks */
	const struct rc_reader *stacks;
	const struct rc_event_desc *stack_ev; /* "stack": the records -g adds after events' */
	struct rc_rec_hdr prev;		      /* the last record shown: a stack's event */
	void *fmt_state; /* a format's own state, freed with the output (perf-script) */
};

/* Seconds from the start, with 9 decimals: exactly, from the integer ns. */
static inline void rc_output__put_seconds(struct rc_strbuf *sb, const struct rc_meta *m,
					  uint64_t ts)
{
	bool neg = ts < m->start_ts;
	uint64_t ns = neg ? m->start_ts - ts : ts - m->start_ts;

	rc_strbuf__printf(sb, "%s%" PRIu64 ".%09" PRIu64, neg ? "-" : "", ns / 1000000000,
			  ns % 1000000000);
}

/* json, perfetto: each source's fields, nested (json_fields.h); 0 or -ENOMEM */
int rc_output__json_fields(struct rc_output *o);

#endif /* RINGCAP_OUTPUT_OUTPUT_INT_H */
