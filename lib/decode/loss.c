// SPDX-License-Identifier: GPL-2.0-only
/*
 * The loss ledger of a capture (decode/ledger.h, struct rc_ledger): its counters
 * summed per event and per CPU, what was lost at each layer, what the
 * flight recorder overwrote, and the second with the most drops. What
 * ringcap stat shows, for any program that reads a capture.
 */
#include <errno.h>
#include <stdlib.h>
#include "decode/ledger.h"

int rc_ledger__alloc(struct rc_ledger *l, uint32_t ncpus)
{
	l->ncpus = ncpus > RC_LEDGER_CPUS ? RC_LEDGER_CPUS : ncpus;
	l->by_event = calloc(RC_LEDGER_EVENTS, sizeof(*l->by_event));
	l->by_cpu = calloc(l->ncpus ? l->ncpus : 1, sizeof(*l->by_cpu));
	return l->by_event && l->by_cpu ? 0 : -ENOMEM;
}

void rc_ledger__free(struct rc_ledger *l)
{
	free(l->by_event);
	free(l->by_cpu);
	l->by_event = l->by_cpu = NULL;
}

static void add_row(struct rc_ledger_row *to, const struct rc_ledger_row *r)
{
#define ADD(name) to->name += r->name;
	RC_COUNTERS_SHOWN(ADD)
#undef ADD
	to->in_file += r->in_file;
}

void rc_ledger__add_record(struct rc_ledger *l, const struct rc_meta *m,
			   const struct rc_rec_hdr *rec)
{
	rc_ledger__count_record(l, rec, rc_rec__unknown(m->schema, rec) & RC_EVENT_NO_CPU);
}

void rc_ledger__add_lost(struct rc_ledger *l, uint64_t lost, bool at_end)
{
	if (at_end)
		l->lost_at_end += lost;
	else
		l->lost_in_stream += lost;
}

void rc_ledger__count(struct rc_ledger *l, const struct rc_stats *st)
{
	uint32_t i;

	l->st = st;
	for (i = 0; st && i < st->nentries; i++) {
		const struct rc_stat_entry *e = &st->entries[i];
		struct rc_ledger_row r = {};

#define COPY(name) r.name = e->name;
		RC_COUNTERS_SHOWN(COPY)
#undef COPY

		if (e->type == RC_TYPE_AUX) { /* bytes, not events */
			add_row(&l->aux, &r);
			continue;
		}
		if (e->type < RC_LEDGER_EVENTS)
			add_row(&l->by_event[e->type], &r);
		else if (e->type == RC_TYPE_ALL) /* ftrace: a CPU's every event */
			add_row(&l->total, &r);
		if (e->cpu < l->ncpus) /* not RC_CPU_ANY */
			add_row(&l->by_cpu[e->cpu], &r);
	}
	for (i = 0; i < RC_LEDGER_EVENTS; i++)
		add_row(&l->total, &l->by_event[i]);
}

void rc_ledger__add_corrupt(struct rc_ledger *l, uint64_t chunks, uint64_t records, uint64_t bytes)
{
	l->corrupt_chunks += chunks;
	l->corrupt_records += records;
	l->corrupt_bytes += bytes;
}

uint64_t rc_ledger__missing(const struct rc_ledger *l, const struct rc_ledger_row *r)
{
	return !l->live && r->captured > r->in_file ? r->captured - r->in_file : 0;
}

uint64_t rc_ledger__cut_short(const struct rc_ledger *l)
{
	uint64_t m = rc_ledger__missing(l, &l->total);

	return m > l->corrupt_records ? m - l->corrupt_records : 0;
}

uint64_t rc_ledger__lost(const struct rc_ledger *l)
{
	uint64_t m = rc_ledger__missing(l, &l->total);

	/* damaged chunks' records are missing too, when the counters came after them */
	if (l->corrupt_records > m)
		m = l->corrupt_records;
	return l->total.dropped + l->total.paused + (l->st ? l->st->user_dropped : 0) + m;
}

uint64_t rc_ledger__overwritten(const struct rc_ledger *l)
{
	const struct rc_ledger_row *t = &l->total;

	return l->overwrite && t->made > t->dropped + t->paused + t->captured
		   ? t->made - t->dropped - t->paused - t->captured
		   : 0;
}

void rc_ledger__note_interval(struct rc_ledger *l, const struct rc_stats_point *a,
			      const struct rc_stats_point *b, double at)
{
	uint64_t d = b->dropped - a->dropped;

	if (d > l->worst_dropped) {
		l->worst_dropped = d;
		l->worst_made = b->made - a->made;
		l->worst_at = at;
	}
}

void rc_ledger__worst_second(struct rc_ledger *l, const struct rc_stats_point *h, size_t n,
			     uint64_t t0)
{
	struct rc_stats_point start = { .ts = t0 };
	size_t i;

	for (i = 0; i < n; i++)
		rc_ledger__note_interval(l, i ? &h[i - 1] : &start, &h[i],
					 ((i ? h[i - 1].ts : t0) - t0) / 1e9);
}

void rc_ledger__add(struct rc_ledger *to, const struct rc_ledger *from)
{
	uint32_t i;

	for (i = 0; i < RC_LEDGER_EVENTS; i++)
		add_row(&to->by_event[i], &from->by_event[i]);
	for (i = 0; i < to->ncpus && i < from->ncpus; i++)
		add_row(&to->by_cpu[i], &from->by_cpu[i]);
	add_row(&to->total, &from->total);
	add_row(&to->aux, &from->aux);
	to->snapshots += from->snapshots;
	to->lost_in_stream += from->lost_in_stream;
	to->lost_at_end += from->lost_at_end;
	to->corrupt_chunks += from->corrupt_chunks;
	to->corrupt_records += from->corrupt_records;
	to->corrupt_bytes += from->corrupt_bytes;
	to->overwrite |= from->overwrite;
	if (from->worst_dropped > to->worst_dropped) {
		to->worst_dropped = from->worst_dropped;
		to->worst_made = from->worst_made;
		to->worst_at = from->worst_at;
	}
}
