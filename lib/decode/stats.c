// SPDX-License-Identifier: GPL-2.0-only
/* Counters: totals over CPUs and events. */
#include "internal.h"

void rc_stats__totals(const struct rc_stats *st, struct rc_stats_point *pt)
{
	uint32_t i;

	*pt = (struct rc_stats_point){ .ts = st->ts,
				       .ring_hwm = st->ring_hwm,
				       .ring_pending = st->ring_pending };
	for (i = 0; i < st->nentries; i++) {
		pt->made += st->entries[i].made;
		pt->dropped += st->entries[i].dropped;
		pt->filtered += st->entries[i].filtered;
		pt->captured += st->entries[i].captured;
		pt->missed += st->entries[i].missed;
		pt->not_run += st->entries[i].not_run;
		pt->throttled += st->entries[i].throttled;
	}
}
