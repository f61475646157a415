// SPDX-License-Identifier: GPL-2.0-only
/* Time order across the CPUs' ftrace rings (order.h). */
#include "capture/ftrace/order.h"

uint64_t rc_ftrace__ring_ns(uint64_t span, uint32_t used, uint32_t data, uint32_t nr_subbufs)
{
	if (!used || !data || !nr_subbufs)
		return 0;
	if (span > UINT64_MAX / data / nr_subbufs)
		span = UINT64_MAX / data / nr_subbufs;
	return span * data / used * nr_subbufs;
}

uint64_t rc_ftrace__hold(uint64_t hold, uint64_t ring_ns)
{
	uint64_t share = ring_ns / RC_FT_HOLD_SHARE;

	return ring_ns && share < hold ? share : hold;
}

uint64_t rc_ftrace__idle_bound(const struct rc_ftrace_order *o, uint64_t now, bool final)
{
	if (final)
		return UINT64_MAX;
	return now > o->hold ? now - o->hold : 0;
}

uint64_t rc_ftrace__advance(struct rc_ftrace_order *o, uint64_t earliest)
{
	if (earliest < o->mark)
		earliest = o->mark; /* never behind what an earlier pass took */
	o->mark = earliest;
	return earliest;
}

bool rc_ftrace__is_late(const struct rc_ftrace_order *o, uint64_t ts, uint64_t w)
{
	return ts < o->written_ts && ts <= w;
}

void rc_ftrace__written(struct rc_ftrace_order *o, uint64_t last_ts)
{
	if (last_ts > o->written_ts)
		o->written_ts = last_ts;
}
