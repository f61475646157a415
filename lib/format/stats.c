// SPDX-License-Identifier: GPL-2.0-only
/* Counters: totals over CPUs and events. */
#include <errno.h>
#include <stdlib.h>
#include "format/stats.h"

void rc_stats__totals(const struct rc_stats *st, struct rc_stats_point *pt)
{
	uint32_t i;

	*pt = (struct rc_stats_point){ .ts = st->ts,
				       .ring_hwm = st->ring_hwm,
				       .ring_pending = st->ring_pending };
	for (i = 0; i < st->nentries; i++) {
#define ADD(name) pt->name += st->entries[i].name;
		RC_COUNTERS_SHOWN(ADD)
#undef ADD
	}
}

/* @a - @b, or 0 when the counters went back (a damaged or foreign BASE) */
static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static const struct rc_stat_entry *find_entry(const struct rc_stats *st, uint32_t cpu,
					      uint32_t type, uint32_t hint)
{
	uint32_t i;

	if (!st)
		return NULL;
	/* files of one run list their entries alike: try the same place first */
	if (hint < st->nentries && st->entries[hint].cpu == cpu && st->entries[hint].type == type)
		return &st->entries[hint];
	for (i = 0; i < st->nentries; i++)
		if (st->entries[i].cpu == cpu && st->entries[i].type == type)
			return &st->entries[i];
	return NULL;
}

int rc_stats__span(const struct rc_stats *end, const struct rc_stats *base, struct rc_stats *out)
{
	static const struct rc_stat_entry zero;
	uint32_t i;

	*out = *end;
	out->entries = calloc(end->nentries ? end->nentries : 1, sizeof(*out->entries));
	if (!out->entries)
		return -ENOMEM;
	if (base) {
		out->user_dropped = sub0(end->user_dropped, base->user_dropped);
		out->writer_wait_ns = sub0(end->writer_wait_ns, base->writer_wait_ns);
	}
	for (i = 0; i < end->nentries; i++) {
		const struct rc_stat_entry *e = &end->entries[i];
		const struct rc_stat_entry *b = find_entry(base, e->cpu, e->type, i);
		struct rc_stat_entry *o = &out->entries[i];

		if (!b)
			b = &zero;
		*o = *e;
#define SUB(name) o->name = sub0(e->name, b->name);
		RC_COUNTERS(SUB)
#undef SUB
		/* made before the file began and written in it count here; those after, in the next
		 */
		o->made = sub0(sub0(e->made, b->made) + b->in_flight, e->in_flight);
		o->in_flight = 0;
	}
	return 0;
}
